"""Bit-for-bit float32/float64 parity with torch's CPU kernels (issue 9): the losses'
reductions, vector norms (p = 1, 2, 3, inf, 2.5) and what composes them (normalize,
cosine_similarity, pairwise_distance), prod, cdist, einsum's and bmm's small
products, adaptive_avg_pool2d (forward and backward) and linear/bilinear/trilinear/bicubic
interpolation (torch's generic kernel). Every comparison is of the raw bytes."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
import framework.nn.functional as FF
from framework.ops._sum_kernel import torch_sum

# the losses' means, cosine_similarity's sum: ATen's cascade order needs the compiled loops
# (FRAMEWORK_NUMBA=0: NumPy's order, README "Known differences")
needs_cascade = pytest.mark.skipif(
    torch_sum(np.zeros(2, np.float32), (0,)) is None, reason="torch's sum order needs numba"
)

DTYPES = ["float32", "float64"]
SIZES = [0, 1, 7, 8, 9, 16, 17, 100, 1000]


def _outcome(fn):
    """fn()'s result, or (exception type name, message) where it raises."""
    try:
        return fn()
    except Exception as e:
        return type(e).__name__, str(e)


def _pair(a):
    return torch.tensor(a), framework.tensor(a)


def _same(theirs, ours):
    t = theirs.detach().numpy()
    o = ours.detach().numpy()
    assert o.dtype == t.dtype and o.shape == t.shape
    assert o.tobytes() == t.tobytes(), f"{np.mean(o != t):.3f} of the values differ"


def _data(rng, shape, dtype, scale=1.0, shift=0.0):
    return (rng.standard_normal(shape) * scale + shift).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("p", [1, 2, 3, 2.5, float("inf")])
def test_vector_norm_every_dim(dtype, n, p):
    """linalg.vector_norm over each dim (and all) of a (3, n, 5) array, keepdim both ways."""
    rng = np.random.default_rng(n)
    t, o = _pair(_data(rng, (3, n, 5), dtype))
    for dim in (0, 1, 2, (1, 2), (0, 1), None):
        for keepdim in (False, True):
            theirs = _outcome(lambda: torch.linalg.vector_norm(t, p, dim, keepdim))
            ours = _outcome(lambda: framework.linalg.vector_norm(o, p, dim, keepdim))
            if isinstance(theirs, tuple):  # an inf-norm over an empty dim: torch's error
                assert ours == theirs
            else:
                _same(theirs, ours)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_norm_rows_and_whole(dtype, n):
    """Tensor.norm over the last dim (torch's vectorized p = 2 kernel) and the whole tensor."""
    rng = np.random.default_rng(100 + n)
    t, o = _pair(_data(rng, (4, n), dtype))
    for p in (1, 2, 3):
        _same(t.norm(p=p, dim=1), o.norm(p=p, dim=1))
        _same(t.norm(p=p), o.norm(p=p))


@pytest.mark.parametrize("dtype", DTYPES)
def test_norm_non_contiguous(dtype):
    """A transposed and a sliced input: torch reduces in memory order."""
    rng = np.random.default_rng(7)
    t, o = _pair(_data(rng, (37, 23), dtype))
    for p in (1, 2, 3):
        _same(t.t().norm(p=p, dim=1), o.t().norm(p=p, dim=1))
        _same(t.t().norm(p=p, dim=0), o.t().norm(p=p, dim=0))
        _same(t[:, ::2].norm(p=p, dim=1), o[:, ::2].norm(p=p, dim=1))
        _same(t[::3].norm(p=p, dim=0), o[::3].norm(p=p, dim=0))


@needs_cascade
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 100, 1000])
def test_norm_composites(dtype, n):
    """normalize, cosine_similarity and pairwise_distance (torch's compositions of norms)."""
    rng = np.random.default_rng(200 + n)
    (tx, ox), (ty, oy) = _pair(_data(rng, (6, n), dtype)), _pair(_data(rng, (6, n), dtype))
    _same(TF.normalize(tx, dim=1), FF.normalize(ox, dim=1))
    _same(TF.normalize(tx, dim=0), FF.normalize(ox, dim=0))
    _same(TF.cosine_similarity(tx, ty), FF.cosine_similarity(ox, oy))
    _same(TF.cosine_similarity(tx, ty, dim=0), FF.cosine_similarity(ox, oy, dim=0))
    _same(TF.pairwise_distance(tx, ty), FF.pairwise_distance(ox, oy))
    _same(TF.pairwise_distance(tx, ty, p=1.0), FF.pairwise_distance(ox, oy, p=1.0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_prod_every_dim(dtype, n):
    """prod over each dim of a (3, n, 5) array near 1 (no overflow), keepdim both ways, and
    over a transposed view."""
    rng = np.random.default_rng(300 + n)
    t, o = _pair(_data(rng, (3, n, 5), dtype, 0.02, 1.0))
    _same(t.prod(), o.prod())
    for dim in (0, 1, 2):
        for keepdim in (False, True):
            _same(t.prod(dim, keepdim), o.prod(dim, keepdim))
    _same(t.transpose(1, 2).prod(2), o.transpose(1, 2).prod(2))
    _same(t.transpose(0, 1).prod(1), o.transpose(0, 1).prod(1))


@needs_cascade
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_loss_reductions(dtype, n):
    """The mean and sum of the pointwise losses (ATen's cascade sum, then / count)."""
    rng = np.random.default_rng(400 + n)
    (tx, ox), (ty, oy) = _pair(_data(rng, (3, n), dtype)), _pair(_data(rng, (3, n), dtype))
    for red in ("mean", "sum"):
        _same(TF.mse_loss(tx, ty, reduction=red), FF.mse_loss(ox, oy, reduction=red))
        _same(TF.l1_loss(tx, ty, reduction=red), FF.l1_loss(ox, oy, reduction=red))
        _same(TF.smooth_l1_loss(tx, ty, reduction=red), FF.smooth_l1_loss(ox, oy, reduction=red))
        _same(TF.huber_loss(tx, ty, reduction=red), FF.huber_loss(ox, oy, reduction=red))
    p = np.abs(_data(rng, (3, n), dtype)) / 4
    (tp, op) = _pair(np.clip(p, 0, 1))
    tt, ot = _pair((_data(rng, (3, n), dtype) > 0).astype(dtype))
    _same(TF.binary_cross_entropy(tp, tt), FF.binary_cross_entropy(op, ot))
    _same(TF.binary_cross_entropy_with_logits(tx, tt), FF.binary_cross_entropy_with_logits(ox, ot))


@needs_cascade
@pytest.mark.parametrize("dtype", DTYPES)
def test_kl_div_batchmean(dtype):
    """kl_div's sum of target * (log target - input) over a batch, / the batch size."""
    rng = np.random.default_rng(5)
    x = _data(rng, (64, 100), dtype)
    q = np.exp(-np.abs(_data(rng, (64, 100), dtype)))
    (tx, ox), (tq, oq) = _pair(x), _pair(q / q.sum(1, keepdims=True))
    _same(TF.kl_div(tx, tq, reduction="batchmean"), FF.kl_div(ox, oq, reduction="batchmean"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", [0, 1, 3, 7, 8, 9, 17, 100])
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 2.5])
def test_cdist(dtype, m, p):
    """cdist without the matrix-product path (at most 25 rows)."""
    rng = np.random.default_rng(600 + m)
    (ta, oa), (tb, ob) = _pair(_data(rng, (2, 5, m), dtype)), _pair(_data(rng, (2, 6, m), dtype))
    _same(torch.cdist(ta, tb, p=p), framework.cdist(oa, ob, p=p))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 7, 8, 9, 17, 100, 399])
def test_einsum_and_small_bmm(dtype, k):
    """einsum's pair product (a bmm) and bmm itself below 400 multiply-adds per matrix, with
    a random upstream gradient through bmm's backward."""
    rng = np.random.default_rng(700 + k)
    (ta, oa), (tb, ob) = _pair(_data(rng, (6, k), dtype)), _pair(_data(rng, (6, k), dtype))
    _same(torch.einsum("ij,ij->i", ta, tb), framework.einsum("ij,ij->i", oa, ob))
    a, b = _data(rng, (3, 1, k), dtype), _data(rng, (3, k, 1), dtype)
    ta, oa = (torch.tensor(a, requires_grad=True), framework.tensor(a, requires_grad=True))
    tb, ob = _pair(b)
    tout, oout = torch.bmm(ta, tb), framework.bmm(oa, ob)
    _same(tout, oout)
    g = _data(rng, tout.shape, dtype)
    tout.backward(torch.tensor(g))
    oout.backward(framework.tensor(g))
    _same(ta.grad, oa.grad)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "hw,out",
    [
        ((16, 100), (5, 7)),
        ((7, 9), (3, 4)),
        ((5, 5), (7, 3)),
        ((17, 8), (16, 9)),
        ((8, 12), (4, 6)),
    ],
)
def test_adaptive_avg_pool2d_and_grad(dtype, hw, out):
    """adaptive_avg_pool2d's windows and its backward (random upstream gradient)."""
    rng = np.random.default_rng(800)
    x = _data(rng, (2, 3) + hw, dtype)
    tx, ox = torch.tensor(x, requires_grad=True), framework.tensor(x, requires_grad=True)
    tout, oout = TF.adaptive_avg_pool2d(tx, out), FF.adaptive_avg_pool2d(ox, out)
    _same(tout, oout)
    g = _data(rng, tout.shape, dtype)
    tout.backward(torch.tensor(g))
    oout.backward(framework.tensor(g))
    _same(tx.grad, ox.grad)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize(
    "mode,shape",
    [
        ("linear", (2, 3, 7)),
        ("linear", (1, 2, 100)),
        ("bilinear", (1, 2, 64, 100)),
        ("bilinear", (2, 4, 9, 130)),
        ("trilinear", (1, 2, 3, 5, 7)),
        ("bicubic", (1, 2, 64, 100)),
        ("bicubic", (2, 3, 5, 7)),
    ],
)
def test_interpolate_generic_kernel(dtype, align_corners, mode, shape):
    """Linear modes and bicubic through torch's generic kernel (bilinear: outputs over 128
    rows + cols)."""
    rng = np.random.default_rng(900)
    x = _data(rng, shape, dtype)
    t, o = _pair(x)
    for sf in (1.5, 2.0, 3.3) + ((0.6,) if mode != "bilinear" else ()):
        kw = dict(scale_factor=sf, mode=mode, align_corners=align_corners)
        _same(TF.interpolate(t, **kw), FF.interpolate(o, **kw))
