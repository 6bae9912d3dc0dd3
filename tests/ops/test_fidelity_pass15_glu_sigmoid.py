"""glu and sigmoid as torch's CPU kernels compute them (fifteenth pass).

torch's glu_kernel is a * (1 / (1 + exp(-b))) (cpu_kernel_vec: Sleef's exp in the two-vector
body, the C library's in the scalar tail), the sigmoid kernel's values times a; ours divided
a by 1 + NumPy's exp(-b) (30 % of float32 elements 1 ulp apart). glu_backward is
sigmoid_out(b) into the first half, then mul_(grad), and (1 - s) * s * a * grad, left to right,
for the second (ours multiplied in another order). A sigmoid (glu, silu) of GRAIN_SIZE
(32,768) elements or more runs on several threads, each chunk with its own vector body and
scalar tail: replayed with torch's thread count (fuzzer-style case: glu of a 60 x 37 x 30
float32 tensor along dim 0, 1 element 1 ulp apart at the first chunk's tail).

Each test draws its data from its own seeded generator (parametrized seeds)."""

import numpy as np
import pytest
import torch

import framework


def _case(rng, dt, big=False):
    nd = int(rng.integers(1, 4))
    hi = 70 if big else 40
    shape = [int(s) for s in rng.integers(1, hi, nd)]
    d = int(rng.integers(0, nd))
    shape[d] *= 2
    x = (rng.standard_normal(shape) * 4).astype(dt)
    if rng.random() < 0.05:
        x.flat[rng.integers(x.size)] = [np.inf, -np.inf, np.nan][rng.integers(3)]
    return x, d


def _equal(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    bad = (ours != theirs) & ~nan
    assert not bad.any(), f"{bad.sum()} of {bad.size} apart"


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(3))
def test_glu_forward_and_backward_are_torchs_bits(dt, seed):
    rng = np.random.default_rng(seed)
    total = 0
    while total < 100_000:
        x, d = _case(rng, dt, big=total > 60_000)
        up_shape = list(x.shape)
        up_shape[d] //= 2
        up = rng.standard_normal(up_shape).astype(dt)
        tx = torch.tensor(x, requires_grad=True)
        fx = framework.tensor(x, requires_grad=True)
        ty, fy = torch.nn.functional.glu(tx, d), framework.nn.functional.glu(fx, d)
        ty.backward(torch.tensor(up))
        fy.backward(framework.tensor(up))
        _equal(fy.detach().numpy(), ty.detach().numpy())
        _equal(fx.grad.numpy(), tx.grad.numpy())
        total += ty.numel()


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("fn", ["sigmoid", "silu"])
def test_sigmoid_over_grain_size_is_torchs_bits(fn, layout, dt):
    rng = np.random.default_rng({"contiguous": 0, "strided": 1}[layout])
    for size in (32_768, 33_300, 70_001, 131_111):
        x = (rng.standard_normal(2 * size) * 6).astype(dt)
        if layout == "contiguous":
            x = x[:size]
        else:  # rows of a wider array: each row its own inner loop
            x = x[: (size // 61) * 122].reshape(61, -1)[:, : size // 61]
        t = getattr(torch, fn) if fn == "sigmoid" else torch.nn.functional.silu
        f = getattr(framework, fn) if fn == "sigmoid" else framework.nn.functional.silu
        _equal(f(framework.tensor(x)).numpy(), t(torch.tensor(x)).numpy())


def test_glu_gradcheck_and_gradgradcheck_float64():
    rng = np.random.default_rng(7)
    x = framework.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    fn = lambda t: framework.nn.functional.glu(t, 1)
    assert framework.autograd.gradcheck(fn, (x,))
    assert framework.autograd.gradgradcheck(fn, (x,))
