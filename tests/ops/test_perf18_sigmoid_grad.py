"""Sigmoid's backward fast path (the compiled sigmoid_grad called straight from the node,
float32/float64 arrays up to _fused.SMALL elements): the gradient bytes torch gives, for
small and large inputs, with inf/NaN, and double backward through the Tensor formula."""

import numpy as np
import pytest
import torch

import framework


def _same(ours, theirs):
    """The same bytes, except that a NaN may differ in sign and payload (torch's vector loop
    gives grad * (1 - y) * y at a NaN input another NaN than ours, before this path too)."""
    o, t = ours.detach().numpy(), theirs.detach().numpy()
    assert o.dtype == t.dtype and o.shape == t.shape
    nan = np.isnan(o)
    assert (nan == np.isnan(t)).all()
    assert o[~nan].tobytes() == t[~nan].tobytes()


def _input(dtype, n):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 6).astype(dtype)
    a[:4] = [np.inf, -np.inf, np.nan, -0.0]
    return a


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [5, 16, 300, 5000])
def test_sigmoid_gradient_is_torchs_bits(dtype, n):
    a = _input(dtype, n)
    g = np.random.default_rng(1).standard_normal(n).astype(dtype)
    x, tx = framework.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    framework.sigmoid(x).backward(framework.tensor(g))
    torch.sigmoid(tx).backward(torch.tensor(g))
    _same(x.grad, tx.grad)
    assert x.grad.dtype == framework.float32 if dtype == "float32" else framework.float64


def test_sigmoid_double_backward_is_torchs_bits():
    a = _input("float64", 12)
    x, tx = framework.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (gx,) = framework.autograd.grad(framework.sigmoid(x).sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad(torch.sigmoid(tx).sum(), tx, create_graph=True)
    assert type(gx.grad_fn).__name__ == type(tgx.grad_fn).__name__
    gx.sum().backward()
    tgx.sum().backward()
    _same(gx, tgx)
    _same(x.grad, tx.grad)


def test_sigmoid_gradcheck():
    x = framework.randn(3, 4, dtype=framework.float64, requires_grad=True)
    assert framework.autograd.gradcheck(framework.sigmoid, (x,))
    assert framework.autograd.gradgradcheck(framework.sigmoid, (x,))
