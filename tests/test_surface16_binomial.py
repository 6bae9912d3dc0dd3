"""torch.binomial against torch from the same seed: every sample equal in float32 and
float64 across both of torch's algorithms (inversion, BTRS) and the edge values, the stream
left where torch leaves it, a given generator, broadcasting, the node and the errors."""

import numpy as np
import pytest
import torch

import framework as fw


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(6))
def test_binomial_draws_torchs_samples(dtype, seed):
    rng = np.random.default_rng(seed)
    n = np.floor(rng.random(60) * 300).astype(dtype)
    p = rng.random(60).astype(dtype)
    n[:8] = [0, 3, 1000, 50, 7, 40, 25, 2e4]
    p[:8] = [0.3, 1.0, 0.999, 0.5, 0.0, 0.9, 0.45, 0.01]
    torch.manual_seed(seed)
    fw.manual_seed(seed)
    t = torch.binomial(torch.tensor(n), torch.tensor(p))
    f = fw.binomial(fw.tensor(n), fw.tensor(p))
    assert repr(f.dtype) == repr(t.dtype)
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    np.testing.assert_array_equal(fw.rand(4).numpy(), torch.rand(4).numpy())


def test_binomial_generator_and_broadcast():
    tg, fg = torch.Generator().manual_seed(3), fw.Generator().manual_seed(3)
    t = torch.binomial(torch.full((2, 3), 20.0), torch.tensor([0.6, 0.1, 0.3]), generator=tg)
    f = fw.binomial(fw.full((2, 3), 20.0), fw.tensor([0.6, 0.1, 0.3]), generator=fg)
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    np.testing.assert_array_equal(
        fw.binomial(fw.full((3,), 9.0), fw.full((3,), 0.4), generator=fg).numpy(),
        torch.binomial(torch.full((3,), 9.0), torch.full((3,), 0.4), generator=tg).numpy(),
    )


def test_binomial_node_and_errors():
    tc, fc = torch.ones(3, requires_grad=True), fw.ones(3, requires_grad=True)
    t = torch.binomial(tc, torch.full((3,), 0.5))
    f = fw.binomial(fc, fw.full((3,), 0.5))
    assert type(f.grad_fn).__name__ == type(t.grad_fn).__name__ == "NotImplemented"
    cases = [
        (lambda L: (L.tensor([1, 2]), L.tensor([0.5, 0.5])), ValueError),
        (lambda L: (L.ones(2), L.ones(3)), RuntimeError),
        (lambda L: (L.ones(2), L.ones(2, dtype=L.float64)), RuntimeError),
    ]
    for args, exc in cases:
        with pytest.raises(exc) as te:
            torch.binomial(*args(torch))
        with pytest.raises(exc) as fe:
            fw.binomial(*args(fw))
        assert str(fe.value) == str(te.value)
