"""float32/float64 sum and mean in torch's CPU summation order (framework/ops/_sum_kernel.py):
bit for bit on the shapes torch reduces in one thread with its 32-byte vector kernels (the
suite pins those on AVX-512 CPUs: tests/cpu_pin.py). Before: 12 of 16 float32 shapes from
(5, 7) to (64, 64) differed in the last bits (NumPy's pairwise order). Without numba the
NumPy order is kept (README, Known differences): checked to float rounding there."""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused

CASES = [
    ((480,), None),
    ((33,), None),
    ((1000,), None),
    ((5000,), None),
    ((30, 16), None),
    ((128, 10), None),
    ((5, 7), 1),
    ((5, 7), 0),
    ((30, 16), 1),
    ((30, 16), 0),
    ((64, 64), 0),
    ((64, 64), 1),
    ((2, 1000), 1),
    ((1000, 2), 0),
    ((7, 300), 0),
    ((300, 70), 0),
    ((300, 70), 1),
    ((40, 129), 0),
    ((300, 200), 1),
    ((3, 5, 7), 1),
    ((3, 5, 40), 1),
    ((4, 5, 6), (0, 1)),
    ((4, 5, 6), (1, 2)),
    ((4, 1, 6), 2),
    ((4, 1, 6), (0, 2)),
    ((2, 3, 4, 5), (1, 2)),
    ((2, 3, 4, 5), -1),
]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", ["sum", "mean"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", CASES)
def test_sum_mean_bitwise(shape, dim, dt, op, keepdim):
    a = np.random.default_rng(len(shape) * 100 + shape[-1]).standard_normal(shape).astype(dt)
    res = []
    for lib in (torch, framework):
        x = lib.tensor(a, requires_grad=True)
        y = getattr(x, op)() if dim is None else getattr(x, op)(dim, keepdim=keepdim)
        res.append((y.detach().numpy(), tuple(y.shape), type(y.grad_fn).__name__))
    (t, ts, tn), (f, fs, fn) = res
    assert (fs, fn) == (ts, tn)
    if _fused.kernels() is None:  # NumPy's order (documented)
        tol = (1e-5, 1e-4) if dt == np.float32 else (1e-13, 1e-11)
        np.testing.assert_allclose(f, t, rtol=tol[0], atol=tol[1])
    else:
        np.testing.assert_array_equal(f, t)


def test_negative_zero_sum_is_positive():
    """torch accumulates onto a zero-filled output: a sum of -0.0s is +0.0."""
    for lib in (torch, framework):
        x = lib.zeros(3, 40).neg()
        assert not np.signbit(x.sum().numpy()) and not np.signbit(x.sum(1).numpy()).any()


def test_noncontiguous_and_dtype_fall_back():
    """Orders not reproduced (a transposed input, sum(dtype=float64) of float32) keep NumPy's
    and stay within float rounding of torch's."""
    a = np.random.default_rng(0).standard_normal((40, 30)).astype(np.float32)
    for fn in (lambda L, x: x.t().sum(1), lambda L, x: x.sum(0, dtype=L.float64)):
        t = fn(torch, torch.tensor(a)).numpy()
        f = fn(framework, framework.tensor(a)).numpy()
        np.testing.assert_allclose(f, t, rtol=1e-6, atol=1e-5)
