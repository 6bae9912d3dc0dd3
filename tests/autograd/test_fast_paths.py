"""The per-op fast paths (engine hand-off, raw-array backward kernels, metadata tables) give
torch's values and gradients on the edge cases they could get wrong: NaN and infinite
gradients, non-contiguous gradients, shared leaves, several ready nodes at once."""

import numpy as np
import pytest
import torch

import framework

SPECIAL = np.array([[-2.0, -0.0, 0.0, 1.5], [np.nan, np.inf, -np.inf, 3.0]])
UPSTREAM = np.array([[np.inf, -np.inf, np.nan, 2.0], [1.0, -3.0, np.inf, 0.5]])


def _grads(lib, fn, x, up, dtype, create_graph=False):
    t = lib.tensor(x.astype(dtype), requires_grad=True)
    y = fn(lib, t)
    y.backward(lib.tensor(up.astype(dtype)), create_graph=create_graph)
    return y.detach().numpy(), t.grad.detach().numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["relu", "tanh", "sigmoid"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
def test_activation_backward_on_special_values_is_torchs(name, dtype, layout):
    """relu (copy + putmask select), tanh and sigmoid (0-dim constants) on NaN/inf inputs
    and gradients, with the upstream gradient laid out as a view (transposed, broadcast): the
    raw-array backward equals the Tensor formula (create_graph) bit for bit, and torch's
    values (tanh's and exp's results are within 2 ulp of torch's, so 1 - y * y near |y| = 1
    is within a few ulp of its own value)."""

    def fn(lib, t):
        y = getattr(lib, name)(t)
        if layout == "transposed":  # the gradient reaching the op is a transposed view
            return y.t().contiguous().t()
        if layout == "expanded":  # ... or a broadcast view (sum's backward)
            return y * 1
        return y

    up = UPSTREAM if layout != "expanded" else np.ones_like(UPSTREAM)
    out_fw, g_fw = _grads(framework, fn, SPECIAL, up, dtype)
    out_th, g_th = _grads(torch, fn, SPECIAL, up, dtype)
    _, g_graph = _grads(framework, fn, SPECIAL, up, dtype, create_graph=True)
    np.testing.assert_array_equal(g_fw, g_graph)
    rtol = 4e-7 if dtype == np.float32 else 1e-15
    np.testing.assert_allclose(out_fw, out_th, rtol=rtol)
    np.testing.assert_allclose(g_fw, g_th, rtol=rtol * 16)
    real = ~np.isnan(g_th)  # (a NaN's sign bit is not a value)
    np.testing.assert_array_equal(np.signbit(g_fw[real]), np.signbit(g_th[real]))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_dim_forward_and_backward_are_torchs(dim, keepdim):
    x = np.random.default_rng(3).standard_normal((3, 4, 5)).astype(np.float32)
    a = framework.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    ya, yb = a.sum(dim, keepdim=keepdim), b.sum(dim, keepdim=keepdim)
    assert type(ya.grad_fn).__name__ == type(yb.grad_fn).__name__ == "SumBackward1"
    # torch's summation order (tests/ops/test_sum_order.py): its bits where reproduced
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), atol=1e-6)
    if ya.detach().numpy().flags.c_contiguous and framework.ops._fused.kernels() is not None:
        np.testing.assert_array_equal(ya.detach().numpy(), yb.detach().numpy())
    up = np.random.default_rng(4).standard_normal(tuple(yb.shape)).astype(np.float32)
    ya.backward(framework.tensor(up))
    yb.backward(torch.tensor(up))
    np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_chain_with_shared_leaves_and_branches_accumulates_as_torch():
    """A chain (each node handed straight to the next) mixed with branches (two nodes ready
    at once go through the heap) and leaves used many times."""
    rng = np.random.default_rng(5)
    x0, w0, b0 = (rng.standard_normal((4, 4)).astype(np.float64) for _ in range(3))
    res = []
    for lib in (framework, torch):
        x, w, b = (lib.tensor(v, requires_grad=True) for v in (x0, w0, b0))
        y = x
        for i in range(30):
            y = y * w if i % 3 == 0 else (y + b if i % 3 == 1 else lib.relu(y))
            if i % 7 == 0:  # a branch joining back: two gradients summed into one input
                y = y + lib.tanh(y) * 0.5
        y.sum().backward()
        res.append([v.grad.numpy() for v in (x, w, b)])
    for g_fw, g_th in zip(*res):
        np.testing.assert_allclose(g_fw, g_th, rtol=1e-12)


def test_mixed_dtype_binary_ops_get_their_own_input_metadata():
    """Input metadata is shared per dtype and shapes: a float32 * float64 product records
    each input's own dtype (the gradient of each is cast back to it)."""
    a = framework.ones(2, 3, dtype=framework.float32, requires_grad=True)
    b = framework.ones(3, dtype=framework.float64, requires_grad=True)
    c = framework.ones(2, 3, dtype=framework.float32, requires_grad=True)
    (a * b).sum().backward()
    (a * c).sum().backward()
    assert a.grad.dtype == framework.float32 and b.grad.dtype == framework.float64
    assert tuple(b.grad.shape) == (3,) and b.grad.tolist() == [2.0, 2.0, 2.0]
    assert a.grad.tolist() == [[2.0] * 3] * 2
