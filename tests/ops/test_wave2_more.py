"""Wave-2 ops, second group: linalg decompositions, statistics, einsum and products,
counting/bucketing, splitting; against torch (float64 to 1e-10), gradcheck/gradgradcheck."""

import numpy as np
import pytest

from helpers import randn
from parity import check, gradchecks, same_error

RNG = np.random.default_rng(5)
X, Y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
Z = RNG.standard_normal((2, 3, 4))
A = RNG.standard_normal((3, 3))
SPD = A @ A.T + np.eye(3)
B = RNG.standard_normal((2, 3, 3))
TALL = RNG.standard_normal((4, 3))
XN = X.copy()
XN[0, 1] = np.nan


def _svd_invariant(m, F, a):
    """U S Vh products are sign-invariant; the singular vectors alone are not."""
    u, s, vh = m.linalg.svd(a, full_matrices=False)
    return (u * s.unsqueeze(-2)) @ vh, s, u @ u.mT, u.abs(), vh.abs()


CASES = {
    "inv": (lambda m, F, a: m.linalg.inv(a), [A]),
    "inverse_batch": (lambda m, F, a: m.inverse(a), [B]),
    "det": (lambda m, F, a: m.linalg.det(a), [B]),
    "slogdet": (lambda m, F, a: m.linalg.slogdet(a), [B]),
    "solve": (lambda m, F, a, b: m.linalg.solve(a, b), [A, X]),
    "solve_vector": (lambda m, F, a, b: m.linalg.solve(a, b), [A, X[:, 0]]),
    "solve_batch_vector": (lambda m, F, a, b: m.linalg.solve(a, b), [B, Z[:, :, 0]]),
    "cholesky": (lambda m, F, a: m.linalg.cholesky(a), [SPD]),
    "cholesky_upper": (lambda m, F, a: m.linalg.cholesky(a, upper=True), [SPD]),
    "qr_tall": (lambda m, F, a: m.linalg.qr(a), [TALL]),
    "qr_square": (lambda m, F, a: m.linalg.qr(a), [A]),
    "eigh": (lambda m, F, a: m.linalg.eigh(a), [SPD]),
    "eigvalsh": (lambda m, F, a: m.linalg.eigvalsh(a), [SPD]),
    "svdvals": (lambda m, F, a: m.linalg.svdvals(a), [TALL]),
    "svd": (_svd_invariant, [TALL]),
    "svd_wide": (_svd_invariant, [TALL.T.copy()]),
    "pinv": (lambda m, F, a: m.linalg.pinv(a), [TALL]),
    "matrix_power": (lambda m, F, a: m.linalg.matrix_power(a, 3), [A]),
    "matrix_norm_nuc": (lambda m, F, a: m.linalg.matrix_norm(a, "nuc"), [TALL]),
    "matrix_norm_2": (lambda m, F, a: m.linalg.matrix_norm(a, 2), [TALL]),
    "var_mean": (lambda m, F, a: m.var_mean(a, 1), [X]),
    "std_mean": (lambda m, F, a: m.std_mean(a), [X]),
    "std_mean_dims": (lambda m, F, a: m.std_mean(a, (0, 2), correction=0, keepdim=True), [Z]),
    "aminmax": (lambda m, F, a: m.aminmax(a), [X]),
    "aminmax_dim": (lambda m, F, a: a.aminmax(dim=1), [X]),
    "nansum": (lambda m, F, a: m.nansum(a), [XN]),
    "nanmean": (lambda m, F, a: a.nanmean(1), [XN]),
    "fmax": (lambda m, F, a, b: m.fmax(a, b), [XN, Y]),
    "fmin": (lambda m, F, a, b: a.fmin(b), [XN, Y]),
    "einsum_mm": (lambda m, F, a, b: m.einsum("ij,kj->ik", a, b), [X, Y]),
    "einsum_bmm": (
        lambda m, F, a, b: m.einsum("bij,bjk->bik", a, b),
        [Z, RNG.standard_normal((2, 4, 5))],
    ),
    "einsum_implicit": (lambda m, F, a, b: m.einsum("ij,jk", a, b), [X, Y.T.copy()]),
    "einsum_ellipsis": (
        lambda m, F, a, b: m.einsum("...ij,...jk->...ik", a, b),
        [Z, RNG.standard_normal((2, 4, 2))],
    ),
    "einsum_sum": (lambda m, F, a: m.einsum("ij->", a), [X]),
    "einsum_transpose": (lambda m, F, a: m.einsum("ij->ji", a), [X]),
    "einsum_attention": (
        lambda m, F, a, b: m.einsum("bhqd,bhkd->bhqk", a, b),
        [RNG.standard_normal((2, 3, 4, 5)), RNG.standard_normal((2, 3, 6, 5))],
    ),
    "tensordot": (lambda m, F, a, b: m.tensordot(a, b, ([1, 2], [1, 2])), [Z, Z]),
    "tensordot_int": (lambda m, F, a, b: m.tensordot(a, b, 1), [X, Y.T.copy()]),
    "kron": (lambda m, F, a, b: m.kron(a, b), [X, A]),
    "linalg_cross": (lambda m, F, a, b: m.linalg.cross(a, b), [A, SPD]),
    "cross_dim": (lambda m, F, a, b: m.cross(a, b, dim=0), [A, SPD]),
    "trace": (lambda m, F, a: m.trace(a), [X]),
    "cdist": (lambda m, F, a, b: m.cdist(a, b), [X, RNG.standard_normal((5, 4))]),
    "diff": (lambda m, F, a: a.diff(), [X]),
    "diff_prepend": (lambda m, F, a, b: m.diff(a, 2, 0, prepend=b), [X, Y]),
    "meshgrid_ij": (lambda m, F, a, b: m.meshgrid(a, b, indexing="ij"), [X[0], Y[0, :3]]),
    "meshgrid_xy": (lambda m, F, a, b: m.meshgrid(a, b, indexing="xy"), [X[0], Y[0, :3]]),
    "cartesian_prod": (lambda m, F, a, b: m.cartesian_prod(a, b), [X[0], Y[0, :2]]),
    "tensor_split": (lambda m, F, a: a.tensor_split(3, 1), [X]),
    "tensor_split_indices": (lambda m, F, a: m.tensor_split(a, [1, 3], 1), [X]),
    "split_sizes": (lambda m, F, a: a.split([1, 3], 1), [X]),
    "repeat_interleave": (lambda m, F, a: a.repeat_interleave(2), [X]),
    "repeat_interleave_dim": (lambda m, F, a: a.repeat_interleave(2, 1), [X]),
    "repeat_interleave_tensor": (lambda m, F, a: a.repeat_interleave(m.tensor([1, 0, 2]), 0), [X]),
    "unique": (
        lambda m, F, a: m.unique(a, return_inverse=True, return_counts=True),
        [np.array([3, 1, 3, 2, 1])],
    ),
    "unique_dim": (
        lambda m, F, a: m.unique(a, dim=0, return_inverse=True, return_counts=True),
        [np.array([[1, 2], [1, 2], [0, 1]])],
    ),
    "unique_consecutive": (
        lambda m, F, a: m.unique_consecutive(a, return_inverse=True, return_counts=True),
        [np.array([1, 1, 2, 2, 3, 1, 1, 2])],
    ),
    "bincount": (lambda m, F, a: m.bincount(a, minlength=6), [np.array([0, 2, 2, 4])]),
    "bincount_weights": (
        lambda m, F, a: m.bincount(a, m.tensor([0.5, 1.0, 2.0, 3.0])),
        [np.array([0, 2, 2, 4])],
    ),
    "histc": (lambda m, F, a: m.histc(a, 5), [X]),
    "histc_range": (lambda m, F, a: a.histc(4, -1, 1), [X]),
    "count_nonzero": (lambda m, F, a: m.count_nonzero(a, 0), [np.array([[0, 1], [2, 0], [3, 3]])]),
    "searchsorted": (
        lambda m, F, a, b: m.searchsorted(a, b),
        [np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.5, 0.0])],
    ),
    "searchsorted_right_nd": (
        lambda m, F, a, b: m.searchsorted(a, b, right=True),
        [np.array([[1.0, 2.0, 3.0], [0.0, 5.0, 6.0]]), np.array([[2.0, 2.5], [5.0, 7.0]])],
    ),
    "bucketize": (
        lambda m, F, a, b: m.bucketize(a, b, right=True),
        [np.array([2.0, 2.5, 0.0]), np.array([1.0, 2.0, 3.0])],
    ),
}
for _p in (1.0, 3.0, 0.0, float("inf")):
    CASES[f"cdist_{_p}"] = (
        lambda m, F, a, b, p=_p: m.cdist(a, b, p),
        [Z, RNG.standard_normal((2, 5, 4))],
    )
NO_GRAD_INPUTS = {"histc", "histc_range", "searchsorted", "searchsorted_right_nd", "bucketize"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64(name, device):
    fn, arrays = CASES[name]
    rg = [False] * len(arrays) if name in NO_GRAD_INPUTS else None
    check(fn, arrays, device, requires_grad=rg)


# Node names differ from torch's here (values and gradients still match): torch's composite
# quantile ends in SqueezeBackward4, einsum's last node depends on its internal plan.
COMPOSITE = {
    "quantile": (lambda m, F, a: m.quantile(a, 0.3), [X]),
    "quantile_dims": (
        lambda m, F, a: a.quantile(m.tensor([0.2, 0.9], dtype=m.float64), dim=1, keepdim=True),
        [X],
    ),
    "nanquantile": (lambda m, F, a: m.nanquantile(a, 0.5, 1), [XN]),
    "einsum_diagonal": (lambda m, F, a: m.einsum("ii->i", a), [A]),
    "einsum_trace": (lambda m, F, a: m.einsum("ii", a), [A]),
    "einsum_chain": (lambda m, F, a, b, c: m.einsum("ij,jk,kl->il", a, b, c), [X, Y.T.copy(), A]),
    "einsum_outer": (lambda m, F, a, b: m.einsum("i,j->ij", a, b), [X[0], Y[1]]),
}
for _it in ("lower", "higher", "midpoint", "nearest"):
    COMPOSITE[f"quantile_{_it}"] = (
        lambda m, F, a, it=_it: m.quantile(a, 0.4, 0, interpolation=it),
        [X],
    )


@pytest.mark.parametrize("name", sorted(COMPOSITE))
def test_composites(name, device):
    fn, arrays = COMPOSITE[name]
    check(fn, arrays, device, check_grad_fn=False)


@pytest.mark.parametrize(
    "name",
    [
        "inv",
        "det",
        "solve",
        "cholesky",
        "eigh",
        "einsum_bmm",
        "cdist",
        "kron",
        "var_mean",
        "std_mean",
    ],
)
def test_float32(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device, dtype=np.float32)


def _spd(n):
    a = randn(n, n)
    return a @ a.T + n * np.eye(n)


GRADCHECK = {
    "inv": (lambda m, F, a: m.linalg.inv(a), [randn(3, 3) + 3 * np.eye(3)]),
    "det": (lambda m, F, a: m.linalg.det(a), [randn(3, 3) + 3 * np.eye(3)]),
    "slogdet": (lambda m, F, a: m.linalg.slogdet(a)[1], [randn(3, 3) + 3 * np.eye(3)]),
    "solve": (lambda m, F, a, b: m.linalg.solve(a, b), [randn(3, 3) + 3 * np.eye(3), randn(3, 2)]),
    "solve_vector": (
        lambda m, F, a, b: m.linalg.solve(a, b),
        [randn(3, 3) + 3 * np.eye(3), randn(3)],
    ),
    "cholesky": (
        lambda m, F, a: m.linalg.cholesky(a @ a.mT + 3 * m.eye(3, dtype=a.dtype)),
        [randn(3, 3)],
    ),
    "qr": (
        lambda m, F, a: (lambda q, r: q.sum(-1) + r.sum(-2).sum())(*m.linalg.qr(a)),
        [randn(4, 3)],
    ),
    "eigh": (
        lambda m, F, a: (lambda w, v: w.sum() + (v * v.detach().sign()).sum())(
            *m.linalg.eigh(a + a.mT)
        ),
        [randn(3, 3)],
    ),
    "svd": (
        lambda m, F, a: (lambda u, s, vh: ((u * s.unsqueeze(-2)) @ vh, u @ u.mT))(
            *m.linalg.svd(a, full_matrices=False)
        ),
        [randn(4, 3)],
    ),
    "svdvals": (lambda m, F, a: m.linalg.svdvals(a), [randn(3, 4)]),
    "pinv": (lambda m, F, a: m.linalg.pinv(a), [randn(4, 3)]),
    "var_mean": (lambda m, F, a: m.var_mean(a, 1)[0] + m.var_mean(a, 1)[1], [randn(2, 3)]),
    "std_mean": (lambda m, F, a: sum(m.std_mean(a, 0)), [randn(3, 2)]),
    "aminmax": (lambda m, F, a: sum(m.aminmax(a, dim=1)), [randn(2, 3)]),
    "nansum": (lambda m, F, a: m.nansum(a, 1), [randn(2, 3)]),
    "fmax_fmin": (lambda m, F, a, b: m.fmax(a, b) + m.fmin(a, b), [randn(3), randn(3)]),
    "cross": (lambda m, F, a, b: m.linalg.cross(a, b), [randn(2, 3), randn(2, 3)]),
    "trace": (lambda m, F, a: m.trace(a), [randn(3, 2)]),
    # torch differentiates cdist twice on its matrix-product path only (p = 2, use_mm...):
    # its other paths' second derivative raises (tests/ops/test_second_order_fix.py)
    "cdist": (
        lambda m, F, a, b: m.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
        [randn(2, 3), randn(4, 3)],
    ),
    "einsum": (
        lambda m, F, a, b, c: m.einsum("ij,jk,kl->il", a, b, c),
        [randn(2, 3), randn(3, 2), randn(2, 2)],
    ),
    "quantile": (lambda m, F, a: m.quantile(a, 0.3, 1), [randn(2, 5)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    fn, arrays = GRADCHECK[name]
    gradchecks(fn, arrays)


ERRORS = [
    (lambda m, F, a: m.linalg.inv(a), [np.ones((2, 3))], "must be batches of square matrices"),
    (lambda m, F, a: m.linalg.inv(a), [np.zeros((2, 2))], None),
    (lambda m, F, a: m.linalg.cholesky(a), [-np.eye(2)], None),
    (lambda m, F, a: m.einsum("ij,jk->ik", a), [np.ones((2, 2))], None),
    (
        lambda m, F, a: m.tensordot(a, a, ([0], [1])),
        [np.ones((2, 3))],
        "contracted dimensions need to match",
    ),
    (
        lambda m, F, a: m.cdist(a, a[:, :2]),
        [np.ones((2, 3))],
        "X1 and X2 must have the same number of columns",
    ),
    (lambda m, F, a: m.bincount(a), [np.array([-1, 2])], "non-negative"),
    (lambda m, F, a: m.trace(a), [np.ones(3)], None),
    (lambda m, F, a: m.quantile(a, 1.5), [np.ones(3)], "q must be in the range [0, 1]"),
    (
        lambda m, F, a: m.unique(a.requires_grad_()).sum().backward(),
        [np.ones(3)],
        "the derivative for '_unique2' is not implemented",
    ),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    fn, arrays, match = ERRORS[case]
    same_error(fn, arrays, match)
