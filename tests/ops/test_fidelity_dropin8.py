"""Named regression tests for the fuzzer finds of the eighth pass's seeds 28,000,000+ (dropin):
each compares the case across framework and torch."""

import numpy as np
import pytest
import torch

import framework


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_nearest_keeps_negative_zero(dtype, padding):
    """nearest grid_sample of a -0.0 input element returns -0.0 as torch (which reads the tap,
    not 0 + tap); ours summed the taps from Python's int 0, giving +0.0, so log's gradient was
    +inf where torch's is -inf (seed 28060412)."""
    x = np.array([[[[-0.0, 1.0], [2.0, -0.0]]]], dtype=dtype)
    g = np.array([[[[-1.0, -1.0], [1.0, 1.0], [0.9, -0.9]]]], dtype=dtype)
    for align in (True, False):
        kw = dict(mode="nearest", padding_mode=padding, align_corners=align)
        yt = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(g), **kw)
        yf = framework.nn.functional.grid_sample(framework.tensor(x), framework.tensor(g), **kw)
        np.testing.assert_array_equal(yf.numpy(), yt.numpy())
        assert (np.signbit(yf.numpy()) == np.signbit(yt.numpy())).all()
