"""Second-order graphs of norms and losses against torch, for the cases the fuzzer's
second-order stage found after the first pass: gradients of one node's several outputs
differentiated together (instance_norm), an empty normalized shape (layer_norm), rsqrt's
double backward at an overflowing square (rms_norm), mixed float dtypes (mse_loss) and an
empty batch (multi_margin_loss). Each compares the create_graph gradients' requires_grad, node
names and edges, and the second-order gradients for a random upstream gradient."""

import warnings

import numpy as np
import pytest
import torch

import framework

RNG = np.random.default_rng(20261124)


def _edges(g):
    fn = g.grad_fn
    return None if fn is None else [None if f is None else f.name() for f, _ in fn.next_functions]


def _both(build, arrays, seed=0):
    """Per library: (create_graph gradients' (requires_grad, node, edges, values), the
    second-order gradients of all of them together for a random upstream)."""
    res = []
    for L in (torch, framework):
        r = np.random.default_rng(seed)
        xs = [L.tensor(a, requires_grad=rg) for a, rg in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = build(L, *xs)
        leaves = [x for x in xs if x.requires_grad]
        up = L.tensor(r.standard_normal(tuple(out.shape))).to(out.dtype)
        gs = L.autograd.grad(out, leaves, up, create_graph=True, allow_unused=True)
        first = [
            None
            if g is None
            else (g.requires_grad, g.grad_fn and g.grad_fn.name(), _edges(g), g.detach().numpy())
            for g in gs
        ]
        live = [g for g in gs if g is not None and g.requires_grad]
        ups = [L.tensor(r.standard_normal(tuple(g.shape))).to(g.dtype) for g in live]
        second = L.autograd.grad(live, leaves, ups, allow_unused=True) if live else []
        res.append((first, [None if h is None else h.numpy() for h in second]))
    return res


def _check(build, arrays, seed=0):
    (t_first, t_second), (f_first, f_second) = _both(build, arrays, seed)
    assert len(f_first) == len(t_first)
    for f, t in zip(f_first, t_first):
        assert (f is None) == (t is None)
        if t is not None:
            assert f[:3] == t[:3]
            assert f[3].dtype == t[3].dtype
            np.testing.assert_allclose(f[3], t[3], rtol=1e-5, atol=1e-6)
    assert len(f_second) == len(t_second)
    for f, t in zip(f_second, t_second):
        assert (f is None) == (t is None)
        if t is not None:
            assert f.dtype == t.dtype and f.shape == t.shape
            np.testing.assert_allclose(f, t, rtol=1e-4, atol=1e-5)  # NaN positions too
    return t_second


@pytest.mark.parametrize("inf", [False, True], ids=["finite", "inf_input"])
def test_instance_norm_all_three_gradients_differentiated_together(inf):
    """Fuzz seeds 34003538, 32001426, 43000834: the input's, weight's and bias's gradients are
    outputs of one NativeBatchNormBackwardBackward0 node, two of them roots of the second
    backward; the walk counted that node's edges once per root, so no gradient reached the
    leaves (all None where torch has values)."""
    x = RNG.standard_normal((1, 3, 3, 3)).astype(np.float32)  # N=1: repeat(1) is no node
    if inf:
        x[0, 2, 0, 0] = np.inf
    w, b = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)

    def build(L, x, w, b):
        return L.nn.functional.instance_norm(x, weight=w, bias=b)

    second = _check(build, [(x, True), (w, True), (b, True)])
    assert second[0] is not None and second[1] is not None


def test_one_node_two_roots_with_inputs():
    """batch_norm's three gradients are outputs 0, 1 and 2 of one node that is no other
    node's next: each root's heap entry runs it (the first with the gradients), so its edges
    are counted as often as they are followed (this case agreed before the fix too)."""
    x = RNG.standard_normal((4, 3)).astype(np.float64)
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)

    def build(L, x, w, b):
        return L.nn.functional.batch_norm(x, None, None, w, b, training=True)

    _check(build, [(x, True), (w, True), (b, True)])


@pytest.mark.parametrize("shape", [(1, 1, 3, 0), (2, 0)])
def test_layer_norm_empty_normalized_shape(shape):
    """Fuzz seeds 34000291, 32001231, 43000203: normalized_shape (0,): the double backward's
    3 / N divided by zero (ZeroDivisionError); torch's gradients are empty."""

    def build(L, x, w, b):
        return L.nn.functional.layer_norm(x, (0,), w, b)

    z = np.zeros(0, np.float32)
    _check(build, [(np.zeros(shape, np.float32), True), (z, True), (z, True)])


def test_rms_norm_overflowing_square():
    """Fuzz seed 43001707: float32 rms_norm of 1e30 (its square is inf, rsqrt 0): torch's
    graph is pow(x, 2) and rsqrt's backward -0.5 * grad * result.pow(3), whose second
    derivative meets inf * 0 (NaN) where a product of three results did not."""
    x = np.array([[3.3e-2], [6.5e-2], [1e30], [0.118]], np.float32)
    w = np.array([0.75], np.float32)

    def build(L, x, w):
        return L.nn.functional.rms_norm(x, (1,), w)

    second = _check(build, [(x, True), (w, True)], seed=3)
    assert np.isnan(second[0]).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rsqrt_second_order(dtype):
    """rsqrt's gradient is -0.5 * grad * result.pow(3) (torch's formula): values and second
    derivative, overflowing inputs included."""
    x = np.array([0.5, 2.0, 1e-30, 1e30, 3.0], dtype)

    def build(L, x):
        return L.rsqrt(x)

    _check(build, [(x, True)], seed=5)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("order", ["f32_f64", "f64_f32"])
def test_mse_loss_mixed_float_dtypes(reduction, order):
    """Fuzz seed 43002397: mse_loss of a float32 and a float64 tensor: torch's node has
    edges to the inputs themselves and its gradients are MseLossBackwardBackward0 in each
    input's dtype (ours had a ToCopyBackward0 after the promoted node)."""
    a = RNG.standard_normal((4, 1, 2))
    b = RNG.standard_normal((4, 1, 2))
    da, db = (np.float32, np.float64) if order == "f32_f64" else (np.float64, np.float32)

    def build(L, x, y):
        return L.nn.functional.mse_loss(x, y, reduction=reduction)

    _check(build, [(a.astype(da), True), (b.astype(db), True)], seed=7)
    _check(build, [(a.astype(da), True), (b.astype(db), False)], seed=8)


def test_mse_loss_mixed_dtypes_forward_node():
    """The mixed-dtype loss is float64, named MseLossBackward0, with edges to both leaves."""
    for L in (torch, framework):
        x = L.ones(2, 3, requires_grad=True)
        y = L.zeros(2, 3, dtype=L.float64, requires_grad=True)
        out = L.nn.functional.mse_loss(x, y)
        assert out.dtype == L.float64
        assert out.grad_fn.name() == "MseLossBackward0"
        assert [f.name() for f, _ in out.grad_fn.next_functions] == [
            "torch::autograd::AccumulateGrad"
        ] * 2


@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss_empty_batch(p):
    """Fuzz seed 43003471: multi_margin_loss of an empty float32 batch: the gradient is
    float32 from torch's NotImplemented node (ours cast a float64 one: ToCopyBackward0), and
    the second backward raises torch's error."""
    got = []
    for L in (torch, framework):
        x = L.zeros(0, 1, requires_grad=True)
        t = L.zeros(0, dtype=L.int64)
        loss = L.nn.functional.multi_margin_loss(x, t, p=p, margin=0.5, reduction="sum")
        (g,) = L.autograd.grad(loss, [x], L.ones_like(loss), create_graph=True)
        with pytest.raises(RuntimeError) as err:
            L.autograd.grad(g, [x], L.ones_like(g))
        got.append((g.dtype.__repr__(), g.grad_fn.name(), _edges(g), str(err.value)))
    assert got[0][1:] == got[1][1:]
    assert got[0][0].split(".")[-1] == got[1][0].split(".")[-1]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("order", ["f32_f64", "f64_f32"])
@pytest.mark.parametrize("shape", [(4, 3, 5), (3, 1, 0, 0)])
def test_soft_margin_loss_mixed_float_dtypes(reduction, order, shape):
    """Fuzz seeds 60024908, 60066764, 60095976: soft_margin_loss of a float32 input and a
    float64 target: torch's SoftMarginLossBackwardBackward0 writes self's dtype (ours was
    the promoted float64 node behind a ToCopyBackward0); empty shapes too."""
    a = RNG.standard_normal(shape)
    b = np.sign(RNG.standard_normal(shape))
    da, db = (np.float32, np.float64) if order == "f32_f64" else (np.float64, np.float32)

    def build(L, x, y):
        return L.nn.functional.soft_margin_loss(x, y, reduction=reduction)

    _check(build, [(a.astype(da), True), (b.astype(db), False)], seed=9)
