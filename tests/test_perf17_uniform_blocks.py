"""_distributions.uniform draws a small tensor's FMA path in blocks (so its float64
temporaries do not grow the C heap): the values and the stream position are those of one
unblocked draw."""

import numpy as np
import pytest

from framework import _distributions as D
from framework.random import Generator


def _draw(n, dt, low, high, monkeypatch=None):
    gen = Generator()
    gen.manual_seed(n)
    if monkeypatch is not None:
        monkeypatch.setattr(D, "_BLOCKED_BELOW", 0)  # no blocks
    out = D.uniform(gen, n, np.dtype(dt), low, high)
    return out, gen._random(4)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
@pytest.mark.parametrize("n", [1025, 2048, 5120, 65535])
@pytest.mark.parametrize("bounds", [(-0.3, 0.3), (-1e-3, 2.0), (5.0, 5.0000001)])
def test_blocked_uniform_is_the_unblocked_draw(dt, n, bounds, monkeypatch):
    got, after = _draw(n, dt, *bounds)
    want, want_after = _draw(n, dt, *bounds, monkeypatch=monkeypatch)
    assert got.dtype == want.dtype and got.shape == (n,)
    assert got.tobytes() == want.tobytes()
    assert np.array_equal(after, want_after)
