"""Second-order graphs of the LAPACK ops as torch builds them, index_put_'s value, and empty
tensors' strides (seventeenth pass, issue 9).

- det's backward with create_graph is torch's linalg_det_backward: masked_fmap over the batch
  of |det| < 100 eps, the SVD adjugate where det is (near) zero, linalg_solve(A^T, d)
  elsewhere, a mixed batch put into empty_like(A) (fuzzer seed 560028739: MmBackward0, ours
  was LinalgSolveExBackward0);
- linalg_svd's backward is torch's svd_backward (its narrows, its E with the diagonal filled in
  place, its products in its order);
- lu's backward is torch's lu_factor_ex_backward / linalg_lu_backward / lu_unpack_backward
  with triangular solves (seed 560065264: lu_legacy's float32 second derivative 1.5e-5 apart);
- Tensor.index_put_ puts the value as at::index_put_ (no view without its leading 1s);
- an empty tensor's views, slices, expand/unsqueeze/squeeze and *_like copies have torch's
  strides and storage offsets (NumPy gives every fresh empty array zero strides).

Node trees are compared whole (every node's name, depth first); values to a few ulps where
2-D products run through NumPy's small matmul (torch: MKL), batched ones bit for bit."""

import numpy as np
import pytest
import torch

import framework
from fuzz import runner as R


def _tree(fn, seen=None):
    """Node names of a graph, depth first (each node once)."""
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen:
        return []
    seen.add(id(fn))
    out = [type(fn).__name__]
    for nxt, _ in fn.next_functions:
        out += ["  " + s for s in _tree(nxt, seen)]
    return out


def _outputs(out, L):
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [o for o in outs if isinstance(o, L.Tensor) and o.requires_grad]


def _second_order(L, fn, arrays, seed):
    """fn's first-order gradients (create_graph) and second-order ones, for seeded upstreams."""
    ts = [L.tensor(a, requires_grad=True) for a in arrays]
    outs = _outputs(fn(L, *ts), L)
    rng = np.random.default_rng(seed)
    dt = arrays[0].dtype
    ups = [L.tensor(rng.standard_normal(tuple(o.shape)).astype(dt)) for o in outs]
    gs = L.autograd.grad(outs, ts, ups, create_graph=True)
    ups2 = [L.tensor(rng.standard_normal(tuple(g.shape)).astype(dt)) for g in gs]
    return gs, L.autograd.grad(gs, ts, ups2)


def _compare(fn, arrays, seed=0, exact=False):
    (fg, fgg), (tg, tgg) = (_second_order(L, fn, arrays, seed) for L in (framework, torch))
    for f, t in zip(fg, tg):
        assert _tree(f.grad_fn) == _tree(t.grad_fn)
    rtol = 1e-5 if arrays[0].dtype == np.float32 else 1e-12
    for f, t in zip(list(fg) + list(fgg), list(tg) + list(tgg)):
        f, t = f.detach().numpy(), t.detach().numpy()
        if exact:
            np.testing.assert_array_equal(f, t)
        else:
            scale = max(1.0, float(np.abs(t).max()))
            np.testing.assert_allclose(f, t, rtol=rtol, atol=rtol * scale)


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
SEED_560028739 = np.array(  # float32 3 x 3, det -2.9e-6 (below 100 eps32: the SVD branch)
    [
        [0.021446481, -0.12173952, -0.06144701],
        [0.016101338, -0.09827563, -0.09369688],
        [0.014863563, -0.07539969, 0.039055545],
    ],
    dtype=np.float32,
)


def _det_cases():
    rng = np.random.default_rng(17)
    regular = rng.standard_normal((3, 3))
    return {
        "seed_560028739": SEED_560028739,
        "seed_560028739_f64": SEED_560028739.astype(np.float64),  # det above 100 eps64
        "singular": SINGULAR,
        "singular_f32": SINGULAR.astype(np.float32),
        "regular": regular,
        "mixed": np.stack([SINGULAR, regular]),  # IndexPutBackward0 of both branches
        "mixed_reversed": np.stack([regular, SINGULAR]),
        "mixed_2x2": np.stack([SINGULAR, regular, 2 * SINGULAR, regular.T]).reshape(2, 2, 3, 3),
        "all_singular": np.stack([SINGULAR, 3 * SINGULAR]),
        "regular_batch": rng.standard_normal((2, 4, 4)),
    }


@pytest.mark.parametrize("case", sorted(_det_cases()))
def test_det_second_order_graph_is_torchs(case):
    _compare(lambda L, a: L.linalg.det(a), [_det_cases()[case]], seed=3)


def test_det_singular_branch_nodes():
    """The seed's first-order gradient ends in MmBackward0 (the adjugate U diag(D) Vh) over
    LinalgSvdBackward0 and two LinalgDetBackward0 (det U, det Vh), as torch's."""
    a = framework.tensor(SEED_560028739, requires_grad=True)
    (g,) = framework.autograd.grad(framework.linalg.det(a), a, create_graph=True)
    tree = _tree(g.grad_fn)
    assert tree[0] == "MmBackward0" and any("LinalgSvdBackward0" in s for s in tree)
    assert sum("LinalgDetBackward0" in s for s in tree) == 2


@pytest.mark.parametrize("case", ["singular", "mixed", "regular"])
def test_det_gradgradcheck(case):
    a = _det_cases()[case]
    x = framework.tensor(a, requires_grad=True)
    if case == "regular":  # (at an exactly singular A the first derivative without a graph
        # is torch's LU with a zero pivot replaced by eps: torch's gradcheck fails there too)
        assert framework.autograd.gradcheck(lambda t: framework.linalg.det(t), (x,))
    assert framework.autograd.gradgradcheck(lambda t: framework.linalg.det(t), (x,))


def test_slogdet_second_order_graph_is_torchs():
    """slogdet's create_graph backward is linalg_solve(A^T, d) whatever det is (torch)."""
    rng = np.random.default_rng(5)
    for a in (rng.standard_normal((3, 3)), rng.standard_normal((2, 4, 4))):
        _compare(lambda L, t: L.linalg.slogdet(t)[1], [a], seed=4)


SVD_SHAPES = [(3, 3), (4, 4), (5, 3), (3, 5), (2, 4, 4), (2, 5, 3), (2, 3, 5)]


@pytest.mark.parametrize("shape", SVD_SHAPES)
@pytest.mark.parametrize("which", ["USV", "U", "S", "V", "UV"])
@pytest.mark.parametrize("full", [True, False])
def test_svd_backward_is_torchs(shape, which, full):
    rng = np.random.default_rng(sum(shape) + len(which))
    a = rng.standard_normal(shape)

    def fn(L, t):
        U, S, Vh = L.linalg.svd(t, full_matrices=full)
        picked = [o for o, k in zip((U, S, Vh), "USV") if k in which]
        if full and "U" in which and shape[-2] > shape[-1]:  # torch: not differentiable
            picked = [o[..., : shape[-1]] if o is U else o for o in picked]
        if full and "V" in which and shape[-2] < shape[-1]:
            picked = [o[..., : shape[-2], :] if o is Vh else o for o in picked]
        return tuple(picked)

    # batched products are torch's bit for bit; a 2-D one goes through NumPy's small matmul
    _compare(fn, [a], seed=7, exact=len(shape) == 3)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_svd_gradgradcheck(shape):
    rng = np.random.default_rng(9)
    x = framework.tensor(rng.standard_normal(shape), requires_grad=True)

    def fn(t):
        U, S, Vh = framework.linalg.svd(t, full_matrices=False)
        return U.abs().sum(-2), S, Vh.abs().sum(-1)  # sign-invariant functions of U and Vh

    assert framework.autograd.gradcheck(fn, (x,))
    assert framework.autograd.gradgradcheck(fn, (x,))


def test_lu_legacy_seed_560065264_agrees_bit_for_bit():
    """float32 [3, 1, 1] lu with get_infos: torch's U^-T solve is a triangular one (trsm);
    ours was a general solve, its second derivative 1.5e-5 apart."""
    p = R.Program(560065264)
    assert p.op.name == "lu_legacy"
    _compare(lambda L, a: L.linalg.lu_factor_ex(a)[0], [p.args[0].a], seed=p.up_seed, exact=True)
    assert not [m for m in R.run_program(560065264) if m.kind.startswith("gg")]


LU_SHAPES = [(3, 3), (3, 5), (5, 3), (1, 1), (2, 4, 4), (2, 3, 5), (2, 5, 3)]
LU_FNS = {
    "lu_factor_ex": lambda L, a: L.linalg.lu_factor_ex(a)[0],
    "linalg_lu": lambda L, a: tuple(L.linalg.lu(a))[1:],
    "linalg_lu_L": lambda L, a: L.linalg.lu(a)[1],
    "linalg_lu_U": lambda L, a: L.linalg.lu(a)[2],
    "lu_unpack": lambda L, a: tuple(L.lu_unpack(*L.linalg.lu_factor(a)))[1:],
    "lu_unpack_L": lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a))[1],
    "lu_unpack_U": lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a))[2],
}


@pytest.mark.parametrize("shape", LU_SHAPES)
@pytest.mark.parametrize("name", sorted(LU_FNS))
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_lu_second_order_graph_is_torchs(shape, name, dt):
    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    a = rng.standard_normal(shape).astype(dt)
    _compare(LU_FNS[name], [a], seed=11, exact=len(shape) == 3)


@pytest.mark.parametrize("shape", [(3, 3), (3, 4), (4, 3)])
@pytest.mark.parametrize("name", ["lu_factor_ex", "linalg_lu", "lu_unpack_L", "lu_unpack_U"])
def test_lu_gradgradcheck(shape, name):
    rng = np.random.default_rng(12)
    x = framework.tensor(rng.standard_normal(shape), requires_grad=True)
    fn = LU_FNS[name]
    assert framework.autograd.gradcheck(lambda t: fn(framework, t), (x,))
    assert framework.autograd.gradgradcheck(lambda t: fn(framework, t), (x,))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_solve_and_qr_second_order_graphs_are_torchs(dt):
    """The pre-MKL finds 546039461 (linalg_solve) and 545086399 (qr) no longer differ: the
    whole second-order graphs are torch's (the op table then had 439 records)."""
    rng = np.random.default_rng(21)
    solve = lambda L, a, b: L.linalg.solve(a, b)
    for sa, sb in [((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 3)), ((3, 3), (3,))]:
        arrays = [rng.standard_normal(sa).astype(dt), rng.standard_normal(sb).astype(dt)]
        _compare(solve, arrays, seed=1, exact=len(sa) == 3)
    for shape in [(3, 3), (4, 2), (2, 4), (2, 4, 3)]:
        a = rng.standard_normal(shape).astype(dt)
        _compare(lambda L, t: tuple(L.linalg.qr(t)), [a], seed=2, exact=len(shape) == 3)


@pytest.mark.parametrize("vshape", [(1, 2, 2), (2, 2), (1,), (1, 1), (2,), ()])
@pytest.mark.parametrize("index", ["mask", "int"])
@pytest.mark.parametrize("view", [False, True])
def test_index_put_takes_the_value_as_it_is(vshape, index, view):
    """at::index_put_ (the method) does not view a value without its leading 1s (set_item,
    x[i] = v, does): no ViewBackward0 above the value, and its shape check sees the 1s."""
    trees = []
    for L in (framework, torch):
        base = L.zeros(3, 2, 2, requires_grad=True).clone()
        x = base[1:] if view else base
        v = L.ones(vshape, requires_grad=True) * 2
        n = 2 if view else 3
        idx = L.tensor([True] + [False] * (n - 1)) if index == "mask" else L.tensor([1])
        x.index_put_((idx,), v)
        (g,) = L.autograd.grad(base.sum(), v)
        trees.append((_tree(base.grad_fn), g.tolist()))
    assert trees[0] == trees[1]


def test_index_put_refuses_extra_leading_ones():
    for L in (framework, torch):
        with pytest.raises(RuntimeError, match=r"value tensor of shape \[1, 1, 2, 2\] cannot"):
            L.empty(2, 2, 2).index_put_((L.tensor([True, False]),), L.ones(1, 1, 2, 2))


EMPTY_SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 3), (0, 0), (4, 0, 1, 2), (1, 0), (0, 1), (0, 2, 3)]


def _rev(t):
    return t.permute(*reversed(range(t.dim())))


EMPTY_VIEWS = {
    "permute": _rev,
    "transpose": lambda L, t: t.transpose(0, -1),
    "narrow": lambda L, t: t.narrow(-1, 0, t.shape[-1] // 2),
    "narrow_end": lambda L, t: t.narrow(-1, t.shape[-1], 0),
    "slice": lambda L, t: t[..., 1:],
    "slice_step": lambda L, t: t[::2],
    "select": lambda L, t: t.select(-1, 0) if t.shape[-1] else t.select(0, 0),
    "unsqueeze": lambda L, t: t.unsqueeze(0),
    "unsqueeze_mid": lambda L, t: t.unsqueeze(1),
    "index_none": lambda L, t: t[None, ..., None],
    "squeeze": lambda L, t: _rev(t).unsqueeze(1).squeeze(1),
    "expand": lambda L, t: t.expand(2, *t.shape),
    "expand_rev": lambda L, t: _rev(t).unsqueeze(0).expand(2, *reversed(t.shape)),
    "view": lambda L, t: t.view(-1),
    "reshape": lambda L, t: _rev(t).reshape(*t.shape),
    "diagonal": lambda L, t: t.diagonal(0, 0, -1),
    "mT": lambda L, t: t.mT,
    "movedim": lambda L, t: t.movedim(0, -1),
    "as_strided": lambda L, t: t.as_strided((0, 2), (5, 7)),
    "as_strided_offset": lambda L, t: _rev(t).as_strided((2, 0), (1, 4), 1),
    "unfold": lambda L, t: t.unfold(-1, 1, 1),
    "chunk": lambda L, t: t.chunk(2, -1)[0],
    "unbind": lambda L, t: _rev(t).unbind(0)[0],
    "contiguous": lambda L, t: _rev(t).contiguous(),
    "clone": lambda L, t: _rev(t).clone(),
    "empty_like": lambda L, t: L.empty_like(_rev(t)),
    "zeros_like": lambda L, t: L.zeros_like(_rev(t)),
    "detach": lambda L, t: _rev(t).detach(),
}
_NEEDS = {"select": 1, "unfold": 1, "diagonal": 2, "mT": 2, "unbind": 1}


def _defined(shape, name):
    """The view is defined on an empty tensor of this shape (torch refuses the others)."""
    if len(shape) < _NEEDS.get(name, 0):
        return False
    return bool(shape[-1]) or name not in ("select", "unfold", "unbind")


@pytest.mark.parametrize(
    "shape, name", [(s, n) for s in EMPTY_SHAPES for n in sorted(EMPTY_VIEWS) if _defined(s, n)]
)
@pytest.mark.parametrize("grad", [False, True])
def test_empty_tensor_strides_are_torchs(shape, name, grad):
    got = []
    for L in (framework, torch):
        t = L.empty(shape, requires_grad=grad)  # (a leaf: an elementwise result of an empty
        fn = EMPTY_VIEWS[name]  # tensor has TensorIterator's strides, not reproduced here)
        o = fn(t) if fn is _rev else fn(L, t)
        got.append((tuple(o.shape), o.stride(), o.storage_offset(), o.is_contiguous()))
    assert got[0] == got[1]


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t[:, 5:],
        lambda t: t[:, 3:],
        lambda t: t[1:1],
        lambda t: t[:, 2:1:2],
        lambda t: t.narrow(1, 3, 0),
        lambda t: t[None, 1:1],
        lambda t: t[1:1, None],
        lambda t: t[1:1].t(),
        lambda t: t[1:1].unsqueeze(1),
        lambda t: t[:, 3:].expand(4, 2, 0),
        lambda t: t[1:1][:, ::2],
    ],
)
@pytest.mark.parametrize("grad", [False, True])
def test_slices_to_empty_keep_torchs_geometry(fn, grad):
    """A slice of length 0 keeps its start (storage offset) and step (stride), as torch's;
    NumPy resets both."""
    got = []
    for L in (framework, torch):
        t = L.ones(2, 3, requires_grad=grad)
        o = fn(t * 1 if grad else t)
        got.append((tuple(o.shape), o.stride(), o.storage_offset()))
    assert got[0] == got[1]


@pytest.mark.parametrize(
    "size, stride", [((0, 3), (5, 2)), ((2, 0), (1, 5)), ((2, 0, 2), (1, 2, 5))]
)
def test_empty_strided_with_a_zero_size_keeps_its_strides(size, stride):
    assert (
        framework.empty_strided(size, stride).stride() == torch.empty_strided(size, stride).stride()
    )


def _spd(L, a):
    return a @ a.mT + 3 * L.eye(a.shape[-1], dtype=a.dtype)


MORE_LINALG = {
    "cholesky": (lambda L, a: L.linalg.cholesky(_spd(L, a)), [(3, 3)]),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(_spd(L, a), upper=True), [(3, 3)]),
    "cholesky_ex": (lambda L, a: L.linalg.cholesky_ex(_spd(L, a))[0], [(3, 3)]),
    "cholesky_solve": (
        lambda L, b, a: L.cholesky_solve(b, L.linalg.cholesky(_spd(L, a))),
        [(3, 2), (3, 3)],
    ),
    "cholesky_inverse": (lambda L, a: L.cholesky_inverse(L.linalg.cholesky(_spd(L, a))), [(3, 3)]),
    "eigh": (lambda L, a: tuple(L.linalg.eigh(a + a.mT)), [(3, 3)]),
    "eigh_vectors": (lambda L, a: L.linalg.eigh(a + a.mT)[1], [(3, 3)]),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a + a.mT), [(3, 3)]),
    "vector_norm_3": (lambda L, a: L.linalg.vector_norm(a, 3), [(3, 4)]),
    "vector_norm_1.5_dims": (lambda L, a: L.linalg.vector_norm(a, 1.5, dim=()), [(3, 4)]),
    "vector_norm_2_dim0": (lambda L, a: L.linalg.vector_norm(a, 2, dim=0), [(3, 4)]),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(0.5 * a), [(3, 3)]),
    "lu_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), [(3, 3), (3, 2)]),
    "lu_solve_adjoint": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
        [(3, 3), (3, 2)],
    ),
    "lu_solve_right": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False),
        [(3, 3), (2, 3)],
    ),
    "lu_solve_right_adjoint": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False, adjoint=True),
        [(3, 3), (2, 3)],
    ),
}


@pytest.mark.parametrize("name", sorted(MORE_LINALG))
@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_more_linalg_second_order_graphs_are_torchs(name, batch, dt):
    """cholesky's 0.5 * t (MulBackward1), eigh's in-place steps (CopySlices), vector_norm's
    unlisted dims (no unsqueeze), lu_solve's linalg_lu_solve_LU, matrix_exp's block built by
    copies into narrows of zeros (CopySlices): node for node as torch."""
    fn, shapes = MORE_LINALG[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal(batch + s).astype(dt) for s in shapes]
    _compare(fn, arrays, seed=1, exact=bool(batch) and name.startswith(("chol", "eig")))


def test_broadcast_reduction_is_a_view():
    """The engine's sum_to views its keepdim sum (ViewBackward0, whatever the layout)."""
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3, 3)), rng.standard_normal((3, 3))
    fn = lambda L, x, y: L.linalg.lu_solve(*L.linalg.lu_factor(x), y)
    (fg, _), (tg, _) = (_second_order(L, fn, [a, b], 0) for L in (framework, torch))
    assert _tree(fg[1].grad_fn) == _tree(tg[1].grad_fn)
    assert _tree(fg[1].grad_fn)[0] == "ViewBackward0"


@pytest.mark.parametrize(
    "name", ["cholesky", "eigh_vectors", "eigvalsh", "lu_solve_right", "matrix_exp"]
)
def test_more_linalg_gradgradcheck(name):
    fn, shapes = MORE_LINALG[name]
    rng = np.random.default_rng(13)
    xs = [framework.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    if name == "eigh_vectors":  # (sign-invariant: each eigenvector's sign is arbitrary)
        f = lambda *t: fn(framework, *t).abs()
    else:
        f = lambda *t: fn(framework, *t)
    assert framework.autograd.gradcheck(f, tuple(xs))
    assert framework.autograd.gradgradcheck(f, tuple(xs))
