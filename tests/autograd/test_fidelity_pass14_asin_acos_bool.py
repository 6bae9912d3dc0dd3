"""asin/acos backward on a bool or integer input that requires grad (fourteenth pass).

An in-place comparison x.eq_(y) with y requiring grad leaves an integer/bool x requiring grad
(EqBackward1, in both libraries); asin or acos on it records its node, and its backward
evaluates torch's formula on x: (-x * x + 1).rsqrt(). On a bool x torch refuses the negation
("Negation, the `-` operator, on a bool tensor ..."); ours computed 1 - x * x and refused a
subtraction instead (fuzz seed 460069856: eq_ on an empty bool tensor, then acos).
"""

import numpy as np
import pytest
import torch

import framework


def _backward(L, fn, dtype, n):
    """fn(x) after x.eq_(y), backward with ones: the error (type, message) or y's gradient."""
    x = L.zeros(n, dtype=getattr(L, dtype))
    y = L.zeros(n, requires_grad=True)
    x.eq_(y)
    out = getattr(L, fn)(x)
    try:
        L.autograd.backward([out], [L.ones(out.shape, dtype=out.dtype)])
    except RuntimeError as e:
        return type(e).__name__, str(e)
    return None, y.grad.numpy()


@pytest.mark.parametrize("n", [0, 3])
@pytest.mark.parametrize("fn", ["asin", "acos", "acosh"])
def test_bool_input_backward_error_as_torch(fn, n):
    f, t = _backward(framework, fn, "bool", n), _backward(torch, fn, "bool", n)
    assert t[0] is not None, "torch raised nothing: nothing to compare"
    assert f == t


@pytest.mark.parametrize("fn", ["asin", "acos"])
def test_integer_input_as_torch(fn):
    # torch fails an internal assert in this backward (a float gradient into EqBackward1 of
    # an int64 tensor); the forward values and node names still agree
    outs = []
    for L in (framework, torch):
        x = L.tensor([0, 1, -1])
        x.eq_(L.zeros(3, requires_grad=True))
        out = getattr(L, fn)(x)
        outs.append((out.detach().numpy(), type(out.grad_fn).__name__))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert outs[0][1] == outs[1][1]


@pytest.mark.parametrize("fn", ["asin", "acos"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_gradients_bitwise_as_torch(fn, dtype):
    # (-x * x + 1) and (1 - x * x) round alike: the gradients, first and second order, stay
    # torch's bits
    data = np.random.default_rng(14).uniform(-0.999, 0.999, 200).astype(dtype)
    up = np.random.default_rng(15).standard_normal(200).astype(dtype)
    res = []
    for L in (framework, torch):
        x = L.tensor(data, requires_grad=True)
        (g,) = L.autograd.grad(getattr(L, fn)(x), x, L.tensor(up), create_graph=True)
        (gg,) = L.autograd.grad(g, x, L.tensor(up))
        res.append((g.detach().numpy(), gg.numpy(), type(g.grad_fn).__name__))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])
    assert res[0][2] == res[1][2]


@pytest.mark.parametrize("fn", ["asin", "acos"])
def test_gradcheck_gradgradcheck(fn):
    x = framework.tensor(
        np.random.default_rng(3).uniform(-0.9, 0.9, 6), dtype=framework.float64, requires_grad=True
    )
    f = getattr(framework, fn)
    assert framework.autograd.gradcheck(f, (x,))
    assert framework.autograd.gradgradcheck(f, (x,))
