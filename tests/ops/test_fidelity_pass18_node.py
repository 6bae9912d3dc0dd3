"""Node trees as torch builds them (eighteenth pass, issue 9).

- solve(A, B, left=False) is one LinalgSolveExBackward0 node, as torch's _linalg_solve_ex
  (was TransposeBackward0 over a solve of the transposes); its backward is torch's
  linalg_solve_backward (create_graph: linalg_solve(A^H, gX, left=False)), its argument
  checks torch's, in torch's order;
- pinv's backward is torch's pinv_backward (plain, hermitian, atol/rtol, rcond), shared with
  lstsq's;
- the engine runs a node once when two of its outputs are roots (it ran twice, and the second
  run counted its inputs' dependencies again: a leaf also reached by another path lost it);
- the ``*_copy`` views are one node over the input's edge; rms_norm, poisson_nll_loss,
  triplet_margin_loss and cosine_embedding_loss add numbers through add.Scalar
  (AddBackward1), as torch's C++ composites;
- an empty LAPACK-layout result has torch's batched column-major strides.

Trees are compared whole (every node's name, depth first); values bit for bit where stated."""

import numpy as np
import pytest
import torch

import framework
from fuzz import runner as R
from ops.test_fidelity_pass17_autograd import _compare, _second_order, _tree

SOLVE_SHAPES = [((3, 3), (2, 3)), ((2, 4, 4), (2, 3, 4)), ((3, 3), (2, 3, 3)), ((2, 3, 3), (5, 3))]


@pytest.mark.parametrize("shapes", SOLVE_SHAPES)
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("form", ["solve", "solve_mT", "solve_ex"])
def test_solve_right_graph_is_torchs(shapes, dt, form):
    """First-order tree, create_graph gradients' trees and both orders' values, bit for bit
    (a transposed A too: torch factors A^T when A is contiguous)."""
    fn = {
        "solve": lambda L, a, b: L.linalg.solve(a, b, left=False),
        "solve_mT": lambda L, a, b: L.linalg.solve(a.mT, b, left=False),
        "solve_ex": lambda L, a, b: L.linalg.solve_ex(a, b, left=False)[0],
    }[form]
    rng = np.random.default_rng(len(shapes[1]))
    arrays = [rng.standard_normal(s).astype(dt) for s in shapes]
    trees = []
    for L in (framework, torch):
        a, b = (L.tensor(x, requires_grad=True) for x in arrays)
        trees.append(_tree(fn(L, a, b).grad_fn))
    assert trees[0] == trees[1] and trees[0][0] == "LinalgSolveExBackward0"
    _compare(fn, arrays, seed=1, exact=True)


def test_solve_right_plain_backward_jvp_vmap_bit_for_bit():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 4, 3))
    up, ta, tb = rng.standard_normal((2, 4, 3)), rng.standard_normal(a.shape), b * 0.5
    got = []
    for L in (framework, torch):
        A, B = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
        L.linalg.solve(A, B, left=False).backward(L.tensor(up))
        fn = lambda x, y: L.linalg.solve(x, y, left=False)
        _, t = L.func.jvp(fn, (L.tensor(a), L.tensor(b)), (L.tensor(ta), L.tensor(tb)))
        v = L.func.vmap(fn)(L.tensor(a), L.tensor(b))
        got.append([A.grad.numpy(), B.grad.numpy(), t.numpy(), v.numpy()])
    for f, t in zip(*got):
        np.testing.assert_array_equal(f, t)


def test_solve_right_gradcheck_gradgradcheck():
    rng = np.random.default_rng(6)
    a = framework.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    b = framework.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    fn = lambda x, y: framework.linalg.solve(x, y, left=False)
    assert framework.autograd.gradcheck(fn, (a, b))
    assert framework.autograd.gradgradcheck(fn, (a, b))


SOLVE_ARGS = [
    ((3, 3), (2,)),
    ((3, 3), (4, 2)),
    ((3, 3), (2, 4)),
    ((1, 1), (1,)),
    ((2, 1, 1), (2, 1)),
    ((3, 3), ()),
    ((3, 3), (3,)),
    ((2, 3, 3), (3,)),
    ((2, 3, 3), (4, 3, 3)),
    ((0, 0), (0,)),
    ((0, 0), (0, 2)),
    ((0, 0), (2, 0)),
    ((3,), (3,)),
    ((2, 3), (2, 3)),
    ((2, 3, 3), (2, 3)),
    ((2, 3, 3), (5, 3)),
    ((2, 3, 3), (3, 5)),
]


@pytest.mark.parametrize("sa, sb", SOLVE_ARGS)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("fn", ["solve", "solve_ex"])
def test_solve_checks_and_layout_are_torchs(sa, sb, left, fn):
    """torch's errors (Incompatible shapes ... XA = B, vector B with left=False, the batch
    broadcast) where NumPy raised ValueError/IndexError, and the result's shape and strides
    (an empty one's too)."""
    got = []
    for L in (torch, framework):
        A = L.ones(sa) + (L.eye(sa[-1]) if len(sa) > 1 and sa[-1] == sa[-2] else 0)
        try:
            X = getattr(L.linalg, fn)(A, L.ones(sb), left=left)
            X = X[0] if fn == "solve_ex" else X
            got.append((tuple(X.shape), X.stride()))
        except Exception as e:
            got.append((type(e).__name__, str(e)))
    assert got[0] == got[1]


PINV = {
    "plain": (lambda L, a: L.linalg.pinv(a), (4, 3)),
    "wide": (lambda L, a: L.linalg.pinv(a), (3, 5)),
    "hermitian": (lambda L, a: L.linalg.pinv(a + a.mT, hermitian=True), (3, 3)),
    "atol_rtol": (lambda L, a: L.linalg.pinv(a, atol=0.5, rtol=0.01), (4, 3)),
    "rcond": (lambda L, a: L.linalg.pinv(a, rcond=0.3), (4, 3)),
}


@pytest.mark.parametrize("name", sorted(PINV))
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_pinv_graph_is_torchs(name, dt):
    """LinalgPinvBackward0 with torch's pinv_backward under create_graph; the result and the
    first-order gradient bit for bit, the second-order one within a few ulps (its 2-D
    products)."""
    fn, shape = PINV[name]
    a = np.random.default_rng(len(name)).standard_normal(shape).astype(dt)
    _compare(fn, [a], seed=2)
    (fg, _), (tg, _) = (_second_order(L, fn, [a], 2) for L in (framework, torch))
    np.testing.assert_array_equal(fg[0].detach().numpy(), tg[0].detach().numpy())
    f, t = (fn(L, L.tensor(a)).numpy() for L in (framework, torch))
    np.testing.assert_array_equal(f, t)


@pytest.mark.parametrize("name", ["plain", "wide", "hermitian"])
def test_pinv_gradcheck_gradgradcheck(name):
    fn, shape = PINV[name]
    x = framework.tensor(np.random.default_rng(8).standard_normal(shape), requires_grad=True)
    assert framework.autograd.gradcheck(lambda t: fn(framework, t), (x,))
    assert framework.autograd.gradgradcheck(lambda t: fn(framework, t), (x,))


LSTSQ = {
    "solution": (lambda L, a, b: L.linalg.lstsq(a, b).solution, [(4, 3), (4, 2)]),
    "vector": (lambda L, a, b: L.linalg.lstsq(a, b).solution, [(4, 3), (4,)]),
    "gelsd": (lambda L, a, b: tuple(L.linalg.lstsq(a, b, driver="gelsd"))[:2], [(4, 3), (4, 2)]),
    "gels": (lambda L, a, b: tuple(L.linalg.lstsq(a, b, driver="gels"))[:2], [(4, 3), (4, 2)]),
    "gelss_wide": (lambda L, a, b: L.linalg.lstsq(a, b, driver="gelss")[0], [(3, 4), (3, 2)]),
}


@pytest.mark.parametrize("name", sorted(LSTSQ))
def test_lstsq_graph_is_torchs(name):
    """Solution and residuals (the outputs torch differentiates): trees as torch's, values
    within 1e-12 (ours solves by the SVD, torch by the driver's LAPACK routine)."""
    fn, shapes = LSTSQ[name]
    rng = np.random.default_rng(len(name))
    _compare(fn, [rng.standard_normal(s) for s in shapes], seed=3)


def test_two_outputs_of_one_node_as_roots_keep_every_path():
    """std_mean's two outputs and sin(x) as roots: x's other path was lost (the node ran
    twice, the second time counting x's dependency again)."""
    got = []
    for L in (framework, torch):
        x = L.tensor([1.0, 2.0, 4.0], requires_grad=True)
        z = x.sin()
        s, m = L.std_mean(x)
        L.autograd.backward([s, m, z], [L.tensor(1.0), L.tensor(1.0), L.ones(3)])
        got.append(x.grad.numpy())
    np.testing.assert_allclose(got[0], got[1], rtol=1e-6)


def test_lstsq_of_a_slice_of_its_matrix_with_residuals():
    """lstsq(B, B[:, :2]) with both outputs differentiated: B's gradient from the slice was
    lost (ours -2.24 where torch's is 1e-15), the tree missed SliceBackwardBackward0."""
    b = np.random.default_rng(0).standard_normal((4, 3))
    fn = lambda L, t: tuple(L.linalg.lstsq(t, t[:, :2], driver="gelsd"))[:2]
    _compare(fn, [b], seed=5)


COPIES = {
    "select_copy": lambda L, t: L.select_copy(t, 1, 2),
    "narrow_copy": lambda L, t: L.narrow_copy(t, 1, 1, 2),
    "transpose_copy": lambda L, t: L.transpose_copy(t, 0, 2),
    "permute_copy": lambda L, t: L.permute_copy(t, (2, 0, 1)),
    "expand_copy": lambda L, t: L.expand_copy(t[:, :1], (3, 4, 2)),
    "diagonal_copy": lambda L, t: L.diagonal_copy(t),
    "view_copy": lambda L, t: L.view_copy(t, (-1,)),
    "unfold_copy": lambda L, t: L.unfold_copy(t, 1, 2, 1),
    "slice_copy": lambda L, t: L.slice_copy(t, 1, 1, 4, 2),
    "as_strided_copy": lambda L, t: L.as_strided_copy(t, (2, 2), (1, 2)),
    "squeeze_copy_dim": lambda L, t: L.squeeze_copy(t[:, :1], 1),
    "squeeze_copy_dims": lambda L, t: L.squeeze_copy(t[:, :1], (1,)),
    "squeeze_copy": lambda L, t: L.squeeze_copy(t[:, :1]),
    "unsqueeze_copy": lambda L, t: L.unsqueeze_copy(t, 1),
    "t_copy": lambda L, t: L.t_copy(t[0]),
    "alias_copy": lambda L, t: L.alias_copy(t),
}


@pytest.mark.parametrize("name", sorted(COPIES))
def test_copy_views_are_one_node(name):
    """Fuzzer seeds 610001465 (select_copy), 610000060 (narrow_copy), 610000062
    (transpose_copy): the copy's node straight over the input's edge; create_graph trees and
    both orders' values bit for bit."""
    a = np.random.default_rng(1).standard_normal((3, 4, 2))
    _compare(lambda L, t: COPIES[name](L, t * t), [a], seed=4, exact=True)
    trees = [
        _tree(COPIES[name](L, L.tensor(a, requires_grad=True)).grad_fn) for L in (framework, torch)
    ]
    assert trees[0] == trees[1]


@pytest.mark.parametrize("seed", [610000449, 610000451, 610000452, 610002299, 610001465, 610000060])
def test_fuzz_seeds_whole_tree_agrees(seed, monkeypatch):
    """Found by comparing whole node trees (runner.CHECK_NODE_TREE): the losses' numbers added
    through add.Scalar (AddBackward1), cosine_embedding_loss's 1 - cos (SubBackward0) and
    cos - margin (SubBackward1), the copies' single node."""
    monkeypatch.setattr(R, "CHECK_NODE_TREE", True)
    assert not [m for m in R.compare_program(R.Program(seed)) if m.kind != R.KNOWN]


def test_node_tree_is_depth_first_each_node_once():
    x = framework.tensor([1.0, 2.0], requires_grad=True)
    y = x * x + x.exp()
    assert R.node_tree(y.grad_fn) == _tree(y.grad_fn)
    assert R._tree_difference(y.grad_fn, (x * 2).grad_fn).startswith("node 0: AddBackward0")


EMPTY_LINALG = {
    "inv": lambda L, a: L.linalg.inv(a),
    "cholesky": lambda L, a: L.linalg.cholesky(a),
    "solve": lambda L, a: L.linalg.solve(a, a),
    "lu_factor": lambda L, a: L.linalg.lu_factor(a)[0],
    "qr_q": lambda L, a: L.linalg.qr(a)[0],
    "svd_u": lambda L, a: L.linalg.svd(a, full_matrices=False)[0],
    "householder_product": lambda L, a: L.linalg.householder_product(a, a[..., 0]),
}


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3), (3, 0), (2, 3, 0)])
@pytest.mark.parametrize("name", sorted(EMPTY_LINALG))
def test_empty_lapack_results_have_torchs_strides(shape, name):
    got = []
    for L in (torch, framework):
        try:
            o = EMPTY_LINALG[name](L, L.zeros(shape))
            got.append((tuple(o.shape), o.stride()))
        except Exception as e:
            got.append(type(e).__name__)
    assert got[0] == got[1]


@pytest.mark.parametrize(
    "seed", [610000876, 610000874, 610000413, 610000821, 610001388, 610001398, 610000690, 610007949]
)
def test_fuzz_seeds_whole_tree_agrees_composites(seed, monkeypatch):
    """matrix_norm/cond with ord +-1/+-inf: torch's 1-norm over one dim (vector_norm), not
    abs().sum(); cosine_similarity expands only operands of different shapes
    (expand_outplace); kron _unsafe_view's its operands (UnsafeViewBackward0)."""
    monkeypatch.setattr(R, "CHECK_NODE_TREE", True)
    assert not [m for m in R.compare_program(R.Program(seed)) if m.kind != R.KNOWN]


@pytest.mark.parametrize("ord", [1, -1, float("inf"), float("-inf")])
@pytest.mark.parametrize("dim, keepdim", [((-2, -1), False), ((0, 2), True), ((2, 0), False)])
def test_matrix_norm_one_and_inf_bit_for_bit(ord, dim, keepdim):
    a = np.random.default_rng(2).standard_normal((2, 3, 4)).astype("float32")
    g = np.random.default_rng(3)
    got = []
    for L in (framework, torch):
        x = L.tensor(a, requires_grad=True)
        y = L.linalg.matrix_norm(x, ord, dim, keepdim)
        y.backward(L.tensor(g.standard_normal(tuple(y.shape)).astype("float32")))
        g = np.random.default_rng(3)
        got.append((y.detach().numpy(), x.grad.numpy(), _tree(y.grad_fn)))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])
    assert got[0][2] == got[1][2]


GETITEM_KEYS = [
    (slice(2, None), None),
    (slice(1, None), None),
    (slice(None), None),
    (None, slice(1, None)),
    (slice(-10, None), None),
    (slice(None, 10), None),
    (slice(None, -1), None),
    (slice(None, 2), None),
    (slice(-1, None), 0),
    (Ellipsis, slice(0, None)),
    (slice(0, 1), slice(-5, None)),
]


@pytest.mark.parametrize("n", [0, 3])
@pytest.mark.parametrize("key", GETITEM_KEYS)
def test_getitem_skips_only_torchs_trivial_slices(n, key):
    """torch's applySlice skips a slice only where its own start is 0 and its stop at least
    the size (step 1): x[1:, None] of an empty x and x[-10:, None] keep SliceBackward0 (seed
    610000690; ours judged the clamped slice)."""
    got = []
    for L in (torch, framework):
        x = L.ones(n, 4, 1, requires_grad=True)
        try:
            y = x[key]
            got.append((_tree(y.grad_fn), tuple(y.shape), y.stride(), y.storage_offset()))
        except IndexError as e:
            got.append(str(e))
    assert got[0] == got[1]
