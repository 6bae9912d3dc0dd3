"""mm/matmul on small float32/float64 matrices (below MKL's size threshold): the backward's
array fast path lays each gradient out as torch's mm backward does (strides of the
gradients autograd.grad returns compared with torch's for C-ordered, column-major and
transposed operands, 1 x n and n x 1 shapes included), its values are the bits of
the Tensor formulas (create_graph), and `x @ w` records torch's nodes.

(`.grad` itself is always C-ordered here, where torch's AccumulateGrad gives a dense leaf's
gradient the leaf's strides: a gap of the engine's, not of mm's.)"""

import numpy as np
import pytest
import torch

import framework

SHAPES = [(4, 4, 4), (2, 3, 5), (1, 4, 3), (4, 1, 3), (3, 4, 1), (1, 1, 1), (5, 1, 1), (2, 7, 2)]
LAYOUTS = ["c", "f", "t"]  # C-ordered; column-major; a .t() view (a View leaf)


def _operand(L, array, layout):
    """`array` as a leaf of library L laid out as `layout` asks."""
    if layout == "c":
        return L.from_numpy(np.ascontiguousarray(array)).requires_grad_(True)
    if layout == "f":
        return L.from_numpy(np.asfortranarray(array)).requires_grad_(True)
    return L.from_numpy(np.ascontiguousarray(array.T)).t().requires_grad_(True)


def _run(L, a, b, la, lb, g, op, create_graph=False):
    """The product and the gradients its node returns (autograd.grad: as computed, before
    `.grad`'s own layout rules)."""
    x, w = _operand(L, a, la), _operand(L, b, lb)
    y = op(L, x, w)
    return y, L.autograd.grad(y, (x, w), L.from_numpy(g.copy()), create_graph=create_graph)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
@pytest.mark.parametrize("op", ["mm", "matmul"])
def test_small_mm_gradients_layout_and_values(dt, m, k, n, la, lb, op):
    rng = np.random.default_rng([m, k, n, LAYOUTS.index(la), LAYOUTS.index(lb), len(op)])
    a = rng.standard_normal((m, k)).astype(dt)
    b = rng.standard_normal((k, n)).astype(dt)
    g = rng.standard_normal((m, n)).astype(dt)
    call = (lambda L, x, w: L.mm(x, w)) if op == "mm" else (lambda L, x, w: x @ w)
    y, (gx, gw) = _run(framework, a, b, la, lb, g, call)
    ty, (tgx, tgw) = _run(torch, a, b, la, lb, g, call)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == "MmBackward0"
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-5)
    for ours, theirs in ((gx, tgx), (gw, tgw)):
        assert ours.stride() == theirs.stride()
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    # the values: the bits of the Tensor formulas (create_graph), which run mm's forward
    _, (fx, fw) = _run(framework, a, b, la, lb, g, call, create_graph=True)
    np.testing.assert_array_equal(gx.numpy(), fx.detach().numpy())
    np.testing.assert_array_equal(gw.numpy(), fw.detach().numpy())
    assert gx.stride() == fx.stride() and gw.stride() == fw.stride()


@pytest.mark.parametrize("need", [(True, False), (False, True)])
def test_small_mm_one_input_requires_grad(need):
    rng = np.random.default_rng(1)
    a, b, g = (
        rng.standard_normal((3, 4)),
        rng.standard_normal((4, 5)),
        rng.standard_normal((3, 5)),
    )
    grads = []
    for L in (framework, torch):
        x = L.from_numpy(a.copy()).requires_grad_(need[0])
        w = L.from_numpy(b.copy()).requires_grad_(need[1])
        (x @ w).backward(L.from_numpy(g.copy()))
        grads.append((x.grad, w.grad))
    for ours, theirs in zip(*grads):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
            assert ours.stride() == theirs.stride()


def test_matmul_of_mixed_dtypes_still_refuses():
    x = framework.ones(2, 2, dtype=framework.float32)
    w = framework.ones(2, 2, dtype=framework.float64)
    with pytest.raises(RuntimeError) as ours:
        x @ w
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)
    assert str(ours.value) == str(theirs.value)


def test_matmul_of_mismatched_shapes_still_refuses():
    with pytest.raises(RuntimeError) as ours:
        framework.ones(2, 3) @ framework.ones(2, 3)
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(2, 3) @ torch.ones(2, 3)
    assert str(ours.value) == str(theirs.value)
