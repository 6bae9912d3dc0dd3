"""Cumulative kernels that torch runs in its accumulate type (``acc_type``: double for float32,
float for float16/bfloat16), rounding each output once: logcumsumexp's running value is not
rounded to the input dtype between steps, so its last bits differ from a float32 scan."""

import numpy as np
import pytest
import torch

import framework

DTYPES = ("float32", "float64", "float16", "bfloat16")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((1000,), 0), ((50, 40), 1), ((50, 40), 0), ((3, 0), 1)])
def test_logcumsumexp_bits(dtype, shape, dim):
    x = torch.from_numpy(np.random.default_rng(3).standard_normal(shape) * 4).to(
        getattr(torch, dtype)
    )
    if x.numel():
        x.view(-1)[::7] = float("-inf")
    theirs = torch.logcumsumexp(x, dim)
    ours = framework.logcumsumexp(
        framework.tensor(x.double().numpy()).to(getattr(framework, dtype)), dim
    )
    assert str(ours.dtype) == str(theirs.dtype)
    a, b = ours.float().numpy(), theirs.float().numpy()
    np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))


def test_logcumsumexp_float32_regression():
    """A user program's `torch.logcumsumexp(tensor([0., 1., 2.]), 0)`: 1.31326162815094 (ours
    gave 1.3132617473602295 from a float32 scan)."""
    ours = framework.logcumsumexp(framework.tensor([0.0, 1.0, 2.0]), 0).tolist()
    assert ours == torch.logcumsumexp(torch.tensor([0.0, 1.0, 2.0]), 0).tolist()
    assert ours[1] == 1.31326162815094


def _bits(t):
    return t.detach().float().numpy().view(np.int32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dim", [0, 1])
def test_scans_accumulate_type(op, dtype, dim):
    """cumsum/cumprod: double for float32, float (not the half dtype itself, not double) for
    float16/bfloat16; the gradient for a random upstream in the input's dtype."""
    rng = np.random.default_rng(5)
    base = rng.standard_normal((50, 300)) * (1 if op == "cumsum" else 0.01) + (op == "cumprod")
    up = rng.standard_normal((50, 300))
    t_dtype, f_dtype = getattr(torch, dtype), getattr(framework, dtype)
    tx = torch.from_numpy(base).to(t_dtype).requires_grad_()
    fx = framework.tensor(tx.detach().double().numpy()).to(f_dtype).requires_grad_()
    ty, fy = getattr(torch, op)(tx, dim), getattr(framework, op)(fx, dim)
    np.testing.assert_array_equal(_bits(fy), _bits(ty))
    tu = torch.from_numpy(up).to(t_dtype)
    fu = framework.tensor(tu.double().numpy()).to(f_dtype)
    (tg,) = torch.autograd.grad(ty, tx, tu)
    (fg,) = framework.autograd.grad(fy, fx, fu)
    assert str(fg.dtype) == str(tg.dtype)
    np.testing.assert_array_equal(_bits(fg), _bits(tg))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_scan_to_double(dtype):
    """An explicit dtype=float64 on a half input scans in double, as torch."""
    x = torch.from_numpy(np.random.default_rng(6).standard_normal(400)).to(getattr(torch, dtype))
    ours = (
        framework.tensor(x.double().numpy())
        .to(getattr(framework, dtype))
        .cumsum(0, dtype=framework.float64)
    )
    np.testing.assert_array_equal(ours.numpy(), x.cumsum(0, dtype=torch.float64).numpy())
