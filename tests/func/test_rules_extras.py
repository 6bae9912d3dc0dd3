"""Batching rules for dist, renorm and index_reduce (framework/func/_rules_extras.py), vander
under vmap, and jacfwd through in-place writes of a batched tangent into a fresh tensor (a
view's base without a tangent gets a batched zero tangent, as torch's
`_new_zeros_with_same_feature_meta`). Each against torch.func, with the per-sample loop
disabled on our side (so a pass means one batched call per op)."""

import math
import warnings

import numpy as np
import pytest
import torch

import framework
from framework.func import _batched

R = np.random.RandomState(0)
A = R.randn(3, 4, 5)
B = R.randn(3, 5)


def _t(L, a):
    return L.tensor(np.array(a))


@pytest.fixture
def no_loop(monkeypatch):
    """Our vmap may not run anything per sample (the fallback and the value-reading
    wrappers both go through per_sample)."""

    def refuse(fn, args):
        raise AssertionError("ran per sample")

    monkeypatch.setattr(_batched, "per_sample", refuse)


def _both(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = case(torch)
        got = case(framework)
    for g, w in zip(_flat(got), _flat(want), strict=True):
        assert tuple(g.shape) == tuple(w.shape)
        assert str(g.dtype) == str(w.dtype)
        np.testing.assert_allclose(
            g.detach().numpy(force=True),
            w.detach().numpy(force=True),
            rtol=1e-10,
            atol=1e-12,
            equal_nan=True,
        )


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [y for e in x for y in _flat(e)]
    return [x]


# ----- vander and in-place writes of batched tangents --------------------------------------
VANDER = [{}, {"N": 4}, {"N": 1}, {"N": 0}, {"N": 3, "increasing": True}]


@pytest.mark.parametrize("kw", VANDER, ids=str)
@pytest.mark.parametrize("how", ["jacfwd", "vmap", "vmap_int", "vmap_jacfwd"])
def test_vander_under_transforms(how, kw, no_loop):
    def case(L):
        f = lambda x: L.vander(x, **kw)
        if how == "jacfwd":
            return L.func.jacfwd(f)(_t(L, B[0, :3]))
        if how == "vmap":
            return L.func.vmap(f)(_t(L, B[:, :3]))
        if how == "vmap_int":
            return L.func.vmap(f, in_dims=1)(_t(L, np.arange(6).reshape(3, 2)))
        if L is torch:  # torch's vmap of jacfwd(vander) fails (its in-place copy of a
            return torch.stack([torch.func.jacfwd(f)(x) for x in _t(L, B[:, :3])])  # dual)
        return L.func.vmap(L.func.jacfwd(f))(_t(L, B[:, :3]))

    _both(case)  # (torch loops over vander under vmap, its performance warning; ours not)


def _fill_copy(L):
    def f(x):
        out = L.zeros(4, 3, dtype=x.dtype)
        out[1:].copy_(x)
        return out * 2

    return f


def _fill_setitem(L):
    def f(x):
        out = L.zeros(4, 3, dtype=x.dtype)
        out[1:] = x
        return out.sin()

    return f


def _fill_inplace_ops(L):
    def f(x):
        out = L.ones(4, 3, dtype=x.dtype)
        out[1:, 1].mul_(x[0])
        out.t()[2].add_(x[1, 0])
        return out

    return f


@pytest.mark.parametrize("make", [_fill_copy, _fill_setitem, _fill_inplace_ops])
@pytest.mark.parametrize("how", ["jacfwd", "jacrev", "hessian"])
def test_batched_tangent_written_into_fresh_tensor(make, how):
    """jacfwd: the tangent is batched, the fresh result (and its base) is not."""
    if how == "hessian":
        _both(lambda L: L.func.hessian(lambda x: make(L)(x).pow(3).sum())(_t(L, A[0, :3, :3])))
    else:
        _both(lambda L: getattr(L.func, how)(make(L))(_t(L, A[0, :3, :3])))


# ----- dist ----------------------------------------------------------------------------------
DIST_P = [2, 1, 3, 0.5, 0, math.inf]


@pytest.mark.parametrize("p", DIST_P)
@pytest.mark.parametrize(
    "in_dims,shapes",
    [
        ((0, None), ((3, 4, 5), (5,))),
        ((None, 0), ((4, 5), (3, 5))),
        ((0, 0), ((3, 4, 5), (3, 1, 5))),
        ((1, 0), ((4, 3), (3,))),
        ((0, 0), ((3,), (3,))),
    ],
)
def test_dist_vmap(p, in_dims, shapes, no_loop):
    arrays = [R.randn(*s) for s in shapes]
    _both(
        lambda L: L.func.vmap(lambda a, b: L.dist(a, b, p), in_dims=in_dims)(
            *[_t(L, a) for a in arrays]
        )
    )


@pytest.mark.parametrize("p", [2, 1, 3, math.inf])
@pytest.mark.parametrize("how", ["vmap_grad", "jacrev", "jacfwd", "hessian"])
def test_dist_transforms(p, how, no_loop):
    def case(L):
        f = lambda a, b: L.dist(a, b, p)
        a, b = _t(L, A[0]), _t(L, B[0])
        if how == "vmap_grad":
            return L.func.vmap(L.func.grad(f, argnums=(0, 1)), in_dims=(0, None))(_t(L, A), b)
        if how == "hessian" and p in (1, math.inf):
            return L.func.jacrev(L.func.jacrev(f))(a, b)
        return getattr(L.func, how)(f, argnums=(0, 1))(a, b)

    _both(case)


# ----- renorm --------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [2, 1, 3, math.inf])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("in_dim", [0, 2])
def test_renorm_vmap(p, dim, in_dim, no_loop):
    x = A * 0.7

    def case(L):
        return L.func.vmap(lambda v: L.renorm(v, p, dim, 1.0), in_dims=in_dim)(_t(L, x))

    _both(case)


@pytest.mark.parametrize("how", ["vmap_grad", "jacrev", "jacfwd", "hessian"])
def test_renorm_transforms(how, no_loop):
    def case(L):
        f = lambda x: L.renorm(x, 2, 1, 1.5)
        if how == "vmap_grad":
            return L.func.vmap(L.func.grad(lambda x: (f(x) ** 2).sum()))(_t(L, A))
        if how == "hessian":
            return L.func.hessian(lambda x: (f(x) ** 3).sum())(_t(L, A[0, :2, :3]))
        return getattr(L.func, how)(f)(_t(L, A[0, :2, :3]))

    _both(case)


def test_renorm_nested_vmap(no_loop):
    x = R.randn(2, 3, 4, 5)
    _both(lambda L: L.func.vmap(L.func.vmap(lambda v: L.renorm(v, 2, 0, 1.0)), in_dims=1)(_t(L, x)))


# ----- index_reduce --------------------------------------------------------------------------
IDX = np.array([[0, 1, 1, 3, 0], [2, 2, 2, 1, 0], [3, 3, 0, 0, 1]])


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize(
    "in_dims", [(0, 0, 0), (0, None, 0), (None, 0, None), (0, 0, None), (None, None, 0)]
)
@pytest.mark.parametrize("dim", [0, 1])
def test_index_reduce_vmap(reduce, include_self, in_dims, dim, no_loop):
    x = R.randn(3, 4, 4)
    src = R.randn(3, 5, 4) if dim == 0 else R.randn(3, 4, 5)
    src[0, 1] = 0.0  # (zeros for prod's gradient)
    args = [x if in_dims[0] == 0 else x[0], IDX if in_dims[1] == 0 else IDX[0]]
    args.append(src if in_dims[2] == 0 else src[1])

    def case(L):
        f = lambda a, i, s: L.index_reduce(a, dim, i, s, reduce, include_self=include_self)
        return L.func.vmap(f, in_dims=in_dims)(*[_t(L, a) for a in args])

    _both(case)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax"])
def test_index_reduce_vmap_grad(reduce, no_loop):
    """vmap(grad) through IndexReduceBackward0 (its formulas run on the folded batch)."""
    x, src = R.randn(3, 4, 2), R.randn(3, 5, 2)

    def case(L):
        def loss(a, i, s):
            return (L.index_reduce(a, 0, i, s, reduce) ** 2).sum()

        g = L.func.grad(loss, argnums=(0, 2))
        args = (_t(L, x), _t(L, IDX), _t(L, src))
        if L is torch and reduce == "prod":  # torch's batched prod backward reads values
            outs = [g(*[a[k] for a in args]) for k in range(3)]  # (.item()): its loop
            return tuple(torch.stack(c) for c in zip(*outs))
        return L.func.vmap(g)(*args)

    _both(case)


def test_index_reduce_vmap_scalar_and_int(no_loop):
    x, src = R.randn(3), R.randn(3)

    def case(L):
        f = lambda a, i, s: L.index_reduce(a, 0, i, s, "amax")
        out = L.func.vmap(f, in_dims=(0, 0, 0))(
            _t(L, np.arange(3)), _t(L, np.zeros((3, 1), np.int64)), _t(L, np.array([5, -1, 2]))
        )
        out2 = L.func.vmap(f, in_dims=(0, None, 0))(_t(L, x), _t(L, np.array([0])), _t(L, src))
        return out, out2

    _both(case)


@pytest.mark.parametrize("bad", [4, -1])
def test_index_reduce_vmap_checks_every_sample(bad):
    """An index out of range in any sample (not only the first) is torch's error (negative
    indices too: torch's index_reduce does not wrap them)."""
    idx = np.array([[0, 1], [0, bad]])
    for L in (torch, framework):
        with pytest.raises(IndexError, match="index out of range in self"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                L.func.vmap(lambda i: L.index_reduce(L.ones(4, 2), 0, i, L.ones(2, 2), "prod"))(
                    _t(L, idx)
                )


# ----- tangents of reductions over empty inputs ----------------------------------------------
EMPTY = {
    "var": (lambda L, x: x.var(), (1, 0, 2)),
    "var_dim": (lambda L, x: x.var(1), (1, 0, 2)),
    "var_keepdim": (lambda L, x: x.var(1, keepdim=True), (1, 0, 2)),
    "std_dim": (lambda L, x: x.std(1), (1, 0, 2)),
    "var_mean": (lambda L, x: tuple(L.var_mean(x)), (1, 0, 2)),
    "var_mean_dim": (lambda L, x: tuple(L.var_mean(x, 1)), (1, 0, 2)),
    "std_mean": (lambda L, x: tuple(L.std_mean(x)), (1, 0, 2)),
    "std_mean_dim": (lambda L, x: tuple(L.std_mean(x, 1)), (1, 0, 2)),
    "amax": (lambda L, x: x.amax(1), (1, 3, 0)),
    "vector_norm_ord0": (lambda L, x: L.linalg.vector_norm(x, 0, dim=1), (3, 3)),
}


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_tangent_of_empty_reduction_as_torchs(name):
    """Values (var's 0 over no elements, the mean's NaN) and whether the tangent has
    history, as torch's forward AD."""
    f, shape = EMPTY[name]
    res = []
    for L in (torch, framework):
        r = np.random.RandomState(0)
        fa = L.autograd.forward_ad
        x = L.tensor(r.randn(*shape), requires_grad=True)
        with fa.dual_level(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = f(L, fa.make_dual(x, L.tensor(r.randn(*shape))))
            ts = [fa.unpack_dual(o).tangent for o in _flat(out)]
        res.append([(t.detach().numpy(), t.requires_grad) for t in ts])
    for (g, g_rg), (w, w_rg) in zip(res[1], res[0], strict=True):
        assert g_rg == w_rg
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, equal_nan=True)


# ----- multi_margin_loss, multilabel_margin_loss, rrelu ------------------------------------
XM = R.randn(3, 4, 5)
TM = R.randint(0, 5, (3, 4))
TL = np.array([[[1, 0, -1, 2, 3]] * 4] * 3)
TL[1, 2] = [4, -1, 0, 0, 0]
TL[2, 0] = [2, 2, 1, -1, 0]  # (a repeated label counts again)


def _margin(L, kind, red, **kw):
    F = L.nn.functional
    if kind == "multi":
        return lambda x, t: F.multi_margin_loss(x, t, reduction=red, **kw)
    return lambda x, t: F.multilabel_margin_loss(x, t, reduction=red)


@pytest.mark.parametrize("red", ["none", "mean", "sum"])
@pytest.mark.parametrize(
    "kind,in_dims,rows",
    [
        ("multi", (0, 0), True),
        ("multi", (0, None), True),
        ("multi", (0, 0), False),
        ("multilabel", (0, 0), True),
        ("multilabel", (None, 0), True),
        ("multilabel", (0, 0), False),
    ],
)
def test_margin_losses_vmap(kind, in_dims, rows, red, no_loop):
    """One call for the batch (torch's vmap loops over both, its performance warning)."""
    x = XM if rows else XM[:, 0]
    t = (TM if rows else TM[:, 0]) if kind == "multi" else (TL if rows else TL[:, 0])
    x = x if in_dims[0] == 0 else x[0]
    t = t if in_dims[1] == 0 else t[0]
    kw = {"p": 2, "margin": 0.5, "weight": np.arange(5.0)} if in_dims == (0, None) else {}

    def case(L):
        k = {a: (_t(L, b) if a == "weight" else b) for a, b in kw.items()}
        return L.func.vmap(_margin(L, kind, red, **k), in_dims=in_dims)(_t(L, x), _t(L, t))

    _both(case)


@pytest.mark.parametrize("kind", ["multi", "multilabel"])
def test_margin_losses_vmap_grad(kind, no_loop):
    t = TM if kind == "multi" else TL

    def case(L):
        g = L.func.grad(lambda x, t: _margin(L, kind, "mean")(x, t))
        return L.func.vmap(g)(_t(L, XM), _t(L, t))

    _both(case)


def test_margin_loss_targets_checked_in_every_sample():
    bad = TM.copy()
    bad[2, 1] = 7
    for L in (torch, framework):
        with pytest.raises(RuntimeError, match="target out of range"):
            L.func.vmap(_margin(L, "multi", "mean"))(_t(L, XM), _t(L, bad))


@pytest.mark.parametrize("p", [1, 2])
def test_margin_loss_batched_weight(p, no_loop):
    """A batched class weight (inf included: torch's inf weight of a row without a term
    is 0)."""
    w = R.rand(3, 5)
    w[1, 2] = np.inf

    def case(L):
        f = lambda x, t, w: L.nn.functional.multi_margin_loss(x, t, p, 0.3, w)
        return L.func.vmap(f)(_t(L, XM), _t(L, TM), _t(L, w))

    _both(case)


def test_rrelu_eval_vmap(no_loop):
    """rrelu in evaluation under vmap: elementwise, once (torch refuses rrelu under vmap)."""
    x = framework.tensor(XM)
    got = framework.func.vmap(lambda v: framework.nn.functional.rrelu(v, 0.1, 0.3))(x)
    want = torch.nn.functional.leaky_relu(torch.tensor(XM), 0.2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("in_dims", [0, None])
def test_rrelu_training_vmap_randomness(in_dims, no_loop):
    """training: 'error' raises torch's randomness error; 'different' draws per sample;
    'same' one set of slopes for the batch; every slope in [lower, upper]."""
    F = framework.nn.functional
    x = framework.tensor(-np.abs(XM) - 0.1)  # (every element takes a slope)
    x = x if in_dims == 0 else x[0]

    def f(v, k):  # (k: a batched argument, so an unbatched v still has a batch of 3)
        return F.rrelu(v, 0.1, 0.3, training=True) + 0 * k

    def run(randomness):
        vm = framework.func.vmap(f, in_dims=(in_dims, 0), randomness=randomness)
        return vm(x, framework.zeros(3, dtype=x.dtype))

    with pytest.raises(RuntimeError, match="randomness error mode"):
        run("error")
    diff, same = run("different"), run("same")
    xs = x.numpy() if in_dims == 0 else np.broadcast_to(x.numpy(), (3,) + tuple(x.shape))
    for out in (diff, same):
        slope = out.numpy() / xs
        assert tuple(out.shape) == (3, 4, 5)
        assert ((slope >= 0.1) & (slope <= 0.3)).all()
    s_diff, s_same = diff.numpy() / xs, same.numpy() / xs
    assert not np.allclose(s_diff[0], s_diff[1])
    np.testing.assert_allclose(s_same[0], s_same[1], rtol=1e-12)
    np.testing.assert_allclose(s_same[0], s_same[2], rtol=1e-12)


def test_rrelu_training_vmap_grad(no_loop):
    """The gradient is the drawn slope where x <= 0 (as per sample)."""
    F = framework.nn.functional
    x = framework.tensor(XM)

    def loss(v):
        return F.rrelu(v, 0.1, 0.3, training=True).sum()

    out = framework.func.vmap(framework.func.grad(loss), randomness="different")(x)
    g = out.numpy()
    assert np.all(g[XM > 0] == 1.0)
    assert ((g[XM <= 0] >= 0.1) & (g[XM <= 0] <= 0.3)).all()


# ----- embedding_bag ------------------------------------------------------------------------
EW = R.randn(6, 3)
EWB = R.randn(2, 6, 3)
EI2 = np.array([[[0, 2, 5], [1, 1, 4]], [[3, 3, 3], [0, 5, 1]]])
EI1 = np.array([[0, 2, 5, 1, 1], [4, 3, 3, 0, 2]])
EOFF = np.array([[0, 2], [0, 3]])
EPSW = R.randn(2, 5)


def _bag(L, mode, **kw):
    return lambda *a: L.nn.functional.embedding_bag(*a, mode=mode, **kw)


BAG_CASES = {
    "input_2d": lambda L, m: L.func.vmap(lambda i: _bag(L, m)(i, _t(L, EW)))(_t(L, EI2)),
    "input_offsets": lambda L, m: L.func.vmap(lambda i, o: _bag(L, m)(i, _t(L, EW), o))(
        _t(L, EI1), _t(L, EOFF)
    ),
    "offsets_shared": lambda L, m: L.func.vmap(
        lambda i, o: _bag(L, m)(i, _t(L, EW), o), in_dims=(0, None)
    )(_t(L, EI1), _t(L, EOFF[0])),
    "include_last_offset": lambda L, m: L.func.vmap(
        lambda i, o: _bag(L, m, include_last_offset=True)(i, _t(L, EW), o)
    )(_t(L, EI1), _t(L, np.array([[0, 2, 5], [0, 3, 4]]))),
    "weight": lambda L, m: L.func.vmap(lambda w: _bag(L, m)(_t(L, EI2[0]), w))(_t(L, EWB)),
    "both_padding": lambda L, m: L.func.vmap(lambda i, w: _bag(L, m, padding_idx=3)(i, w))(
        _t(L, EI2), _t(L, EWB)
    ),
    "grad_weight": lambda L, m: L.func.vmap(
        L.func.grad(lambda w, i: (_bag(L, m)(i, w) ** 2).sum()), in_dims=(None, 0)
    )(_t(L, EW), _t(L, EI2)),
}


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("name", sorted(BAG_CASES))
def test_embedding_bag_vmap(name, mode, no_loop):
    """Batched indices, offsets or weight: every sample's bags in one EmbeddingBag call
    (torch loops; ours used to read sample 0's indices for every sample)."""
    _both(lambda L: BAG_CASES[name](L, mode))


def test_embedding_bag_per_sample_weights_vmap(no_loop):
    def case(L):
        def f(i, o, p):
            return L.nn.functional.embedding_bag(i, _t(L, EW), o, mode="sum", per_sample_weights=p)

        return L.func.vmap(f)(_t(L, EI1), _t(L, EOFF), _t(L, EPSW))

    _both(case)


@pytest.mark.parametrize(
    "offsets,last",
    [([0, 2, 3], True), ([0, 2, 2], True), ([1, 2, 3], True), ([1, 2], False), ([0, 6], False),
     ([0, 3, 5], True), ([0, 3], False)],
)  # fmt: skip
@pytest.mark.parametrize("dtype,mode", [("float64", "sum"), ("float32", "sum"), ("float32", "max")])
def test_embedding_bag_offsets_as_torchs(offsets, last, dtype, mode):
    """torch's CPU kernels: the last bag runs to the end of input (include_last_offset's too,
    but FBGEMM's, float32 sum/mean, ends it at the last offset); offsets[0] must be 0 and
    offsets[-1] at most the input's length. (Decreasing offsets, where torch's kernels fail
    internal asserts, are not modelled.)"""
    res = []
    for L in (torch, framework):
        try:
            out = L.nn.functional.embedding_bag(
                L.tensor([0, 1, 2, 3, 4]), L.tensor(np.eye(6, dtype=dtype)), L.tensor(offsets),
                mode=mode, include_last_offset=last,
            )  # fmt: skip
            res.append(out.numpy().tolist())
        except RuntimeError as e:
            res.append(str(e))
    assert res[1] == res[0]


# ----- ctc_loss ----------------------------------------------------------------------------
CT, CN, CC = 6, 2, 4
CLP = np.log(R.dirichlet(np.ones(CC), size=(3, CT, CN)))
CTG = R.randint(1, CC, (3, CN, 3))
CIL = np.array([[6, 5], [4, 6], [6, 6]])
CTL = np.array([[3, 2], [1, 3], [2, 2]])


def _ctc(L, red, **kw):
    return lambda lp, tg, il, tl: L.nn.functional.ctc_loss(lp, tg, il, tl, reduction=red, **kw)


@pytest.mark.parametrize("red", ["none", "mean", "sum"])
@pytest.mark.parametrize("which", ["all", "log_probs", "unbatched_input", "concatenated"])
def test_ctc_loss_vmap(which, red, no_loop):
    """Every sample's sequences in one call (torch's vmap loops over ctc_loss)."""

    def case(L):
        f = _ctc(L, red)
        if which == "all":
            return L.func.vmap(f)(*[_t(L, a) for a in (CLP, CTG, CIL, CTL)])
        if which == "log_probs":
            return L.func.vmap(lambda lp: f(lp, _t(L, CTG[0]), _t(L, CIL[0]), _t(L, CTL[0])))(
                _t(L, CLP)
            )
        if which == "unbatched_input":  # (T, C) per sample
            return L.func.vmap(lambda lp, tg: f(lp, tg, (6,), (3,)))(
                _t(L, CLP[:, :, 0]), _t(L, CTG[:, 0])
            )
        flat = np.stack([np.concatenate([CTG[k, 0, :3], CTG[k, 1, :2]]) for k in range(3)])
        return L.func.vmap(lambda lp, tg: f(lp, tg, (6, 5), (3, 2)))(_t(L, CLP), _t(L, flat))

    _both(case)


@pytest.mark.parametrize("red", ["none", "mean", "sum"])
def test_ctc_loss_vmap_grad_and_jacrev(red, no_loop):
    """vmap(grad) (torch.func.grad of ctc_loss fails: compared with autograd per sample) and
    jacrev through ctc's backward node (batched upstream gradients, no loop)."""
    got = framework.func.vmap(
        framework.func.grad(lambda lp, tg: _ctc(framework, red)(lp, tg, (6, 5), (3, 2)).sum())
    )(framework.tensor(CLP), framework.tensor(CTG))
    for k in range(3):
        x = torch.tensor(CLP[k], requires_grad=True)
        loss = _ctc(torch, red)(x, torch.tensor(CTG[k]), (6, 5), (3, 2)).sum()
        np.testing.assert_allclose(got[k].numpy(), torch.autograd.grad(loss, x)[0].numpy())
    _both(
        lambda L: L.func.jacrev(lambda lp: _ctc(L, "none")(lp, _t(L, CTG[0]), (6, 5), (3, 2)))(
            _t(L, CLP[0])
        )
    )


# ----- in-place writes into views of batched tensors -----------------------------------------
def _write_views(L, variant):
    def f(x):
        y = x.clone() * 2
        if variant == "copy_":
            y[1:].copy_(x[:-1].sin())
        elif variant == "chain":
            y[1:].copy_(x[:-1] * 3)
            z = x.sum() * L.ones(5, dtype=x.dtype)
            z[2:].mul_(0).add_(y[:3])
            y = y * z.sum()
        else:
            y.t()[1:3].mul_(x[0])
        return y

    return f


@pytest.mark.parametrize("variant", ["copy_", "chain", "transposed"])
@pytest.mark.parametrize("how", ["grad", "jacrev", "jacfwd"])
def test_inplace_on_batched_view_keeps_history(variant, how):
    """Under vmap a view of a batched tensor is a view of its physical tensor: an in-place
    write through it rebases the base's history (vmap(grad) used to miss the write)."""
    xs = R.randn(3, 4) if variant != "transposed" else R.randn(3, 4, 4)

    def case(L):
        f = _write_views(L, variant)
        if how == "grad":
            g = L.func.grad(lambda x: (f(x) ** 2).sum())
        else:
            g = getattr(L.func, how)(f)
        return L.func.vmap(g)(_t(L, xs))

    _both(case)
