"""The legacy/top-level and `_ex` linear-algebra forms (framework/ops/linalg_legacy.py,
linalg_solvers.py, linalg_lu_solve.py) against torch: values, node names and gradients with a
random upstream gradient in float64 (1e-10) and float32, gradcheck and gradgradcheck of every
new backward, errors and the info outputs."""

import warnings

import numpy as np
import pytest
import torch

import framework
from parity import check, gradchecks, same_error

R = np.random.default_rng(11)


def _spd(*batch, n=3):
    a = R.standard_normal(batch + (n, n))
    return a @ a.swapaxes(-1, -2) + n * np.eye(n)


def _tri(*shape, upper=True):
    a = R.standard_normal(shape)
    a = np.triu(a) if upper else np.tril(a)
    return a + 3 * np.eye(shape[-1]) * np.sign(np.diagonal(a, 0, -2, -1))[..., None, :]


def _lower_chol(*batch, n=3):
    return np.linalg.cholesky(_spd(*batch, n=n))


A3 = R.standard_normal((3, 3))
A34 = R.standard_normal((3, 4))
A43 = R.standard_normal((4, 3))
AB = R.standard_normal((2, 3, 3))
B32 = R.standard_normal((3, 2))
BB = R.standard_normal((2, 3, 2))


def _svd_inv(U, S, V):
    """Sign-free functions of torch.svd's factors (each column's sign is LAPACK's choice)."""
    k = S.shape[-1]
    return S, (U[..., :k] * S.unsqueeze(-2)) @ V[..., :k].mT, U @ U.mT, V @ V.mT


def _lu_unpacked(m, LU, piv):
    P, L, U = m.lu_unpack(LU, piv)
    return P, L, U


CASES = {
    "svd": (lambda m, F, a: _svd_inv(*m.svd(a)), [A34]),
    "svd_full": (lambda m, F, a: _svd_inv(*m.svd(a, some=False))[:2], [A43]),
    "svd_batched": (lambda m, F, a: _svd_inv(*m.svd(a)), [AB]),
    "svd_no_uv": (lambda m, F, a: tuple(m.svd(a, compute_uv=False)), [A34]),
    "qr": (lambda m, F, a: tuple(m.qr(a)), [A43]),
    "qr_complete": (lambda m, F, a: tuple(m.qr(a, some=False)), [A34]),
    "qr_wide": (lambda m, F, a: tuple(m.qr(a)), [R.standard_normal((2, 3, 5))]),
    "cholesky": (lambda m, F, a: m.cholesky(a), [_spd()]),
    "cholesky_upper": (lambda m, F, a: m.cholesky(a, upper=True), [_spd(2)]),
    "cholesky_ex": (lambda m, F, a: tuple(m.linalg.cholesky_ex(a)), [_spd(2)]),
    "cholesky_ex_upper": (lambda m, F, a: tuple(m.linalg.cholesky_ex(a, upper=True)), [_spd()]),
    "inv_ex": (lambda m, F, a: tuple(m.linalg.inv_ex(a)), [AB]),
    "lu": (lambda m, F, a: tuple(m.lu(a)), [A3]),
    "lu_infos": (lambda m, F, a: tuple(m.lu(a, get_infos=True)), [AB]),
    "lu_unpack": (lambda m, F, a: _lu_unpacked(m, *m.linalg.lu_factor(a)), [AB]),
    "lu_unpack_wide": (lambda m, F, a: _lu_unpacked(m, *m.linalg.lu_factor(a)), [A34]),
    "lu_unpack_tall": (lambda m, F, a: _lu_unpacked(m, *m.linalg.lu_factor(a)), [A43]),
    "lu_unpack_L_only": (lambda m, F, a: _lu_unpacked(m, *m.linalg.lu_factor(a))[1], [A43]),
    "lu_unpack_U_only": (lambda m, F, a: _lu_unpacked(m, *m.linalg.lu_factor(a))[2], [A34]),
    "linalg_lu_solve": (
        lambda m, F, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b),
        [A3, B32],
    ),
    "linalg_lu_solve_adjoint": (
        lambda m, F, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, adjoint=True),
        [AB, BB],
    ),
    "linalg_lu_solve_right": (
        lambda m, F, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b.mT, left=False),
        [AB, B32],
    ),
    "linalg_lu_solve_right_adjoint": (
        lambda m, F, a, b: m.linalg.lu_solve(
            *m.linalg.lu_factor(a), b.mT, left=False, adjoint=True
        ),
        [A3, BB],
    ),
    "lu_solve_legacy": (lambda m, F, a, b: m.lu_solve(b, *m.linalg.lu_factor(a)), [AB, BB]),
    "solve_triangular_upper": (
        lambda m, F, a, b: m.linalg.solve_triangular(a, b, upper=True),
        [_tri(3, 3), B32],
    ),
    "solve_triangular_lower_batched": (
        lambda m, F, a, b: m.linalg.solve_triangular(a, b, upper=False),
        [_tri(2, 3, 3, upper=False), B32],
    ),
    "solve_triangular_right_unit": (
        lambda m, F, a, b: m.linalg.solve_triangular(
            a, b, upper=True, left=False, unitriangular=True
        ),
        [R.standard_normal((3, 3)), R.standard_normal((2, 3))],
    ),  # fmt: skip
    "solve_triangular_reads_one_triangle": (
        lambda m, F, a, b: m.linalg.solve_triangular(a, b, upper=False),
        [_tri(3, 3, upper=False) + np.triu(R.standard_normal((3, 3)), 1), BB],
    ),
    "triangular_solve": (lambda m, F, b, a: tuple(m.triangular_solve(b, a)), [B32, _tri(3, 3)]),
    "triangular_solve_lower_t_unit": (
        lambda m, F, b, a: tuple(
            m.triangular_solve(b, a, upper=False, transpose=True, unitriangular=True)
        ),
        [BB, R.standard_normal((3, 3))],
    ),
    "triangular_solve_solution_only": (
        lambda m, F, b, a: m.triangular_solve(b, a, transpose=True).solution,
        [BB, _tri(2, 3, 3)],
    ),
    "cholesky_solve": (lambda m, F, b, l: m.cholesky_solve(b, l), [B32, _lower_chol()]),
    "cholesky_solve_upper_batched": (
        lambda m, F, b, l: m.cholesky_solve(b, l.mT, upper=True),
        [BB, _lower_chol()],
    ),
    "cholesky_inverse": (lambda m, F, l: m.cholesky_inverse(l), [_lower_chol(2)]),
    "cholesky_inverse_upper": (
        lambda m, F, l: m.cholesky_inverse(l.mT, upper=True),
        [_lower_chol()],
    ),
    "householder_product": (
        lambda m, F, a, t: m.linalg.householder_product(a, t),
        [A43, R.standard_normal(3)],
    ),
    "householder_product_k2": (
        lambda m, F, a, t: m.linalg.householder_product(a, t),
        [A43, R.standard_normal(2)],
    ),
    "householder_product_batched": (
        lambda m, F, a, t: m.linalg.householder_product(a, t),
        [R.standard_normal((2, 5, 3)), R.standard_normal((2, 3))],
    ),
    "orgqr_method": (lambda m, F, a, t: a.orgqr(t), [A3, R.standard_normal(1)]),
    "cond": (lambda m, F, a: m.linalg.cond(a), [AB]),
    "cond_wide": (lambda m, F, a: m.linalg.cond(a), [A34]),
    "cond_minus2": (lambda m, F, a: m.linalg.cond(a, -2), [A3]),
    "cond_nuc": (lambda m, F, a: m.linalg.cond(a, "nuc"), [AB]),
}


def _quiet(fn):
    def run(*a):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*a)

    return run


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, arrays = CASES[name]
    # float32: decompositions' gradients carry a few float32 roundings more than elementwise ops
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else None
    check(_quiet(fn), arrays, dtype=dtype, tol=tol)


def _sym(a):
    """A symmetric positive-definite function of a (gradcheck perturbs every entry, the
    Cholesky functions read one triangle)."""
    return a @ a.mT + 3 * a.new_ones(a.shape[-1]).diag()


GRADCHECK = {
    "cholesky": (lambda m, F, a: m.cholesky(_sym(a)), [A3]),
    "cholesky_upper": (lambda m, F, a: m.cholesky(_sym(a), upper=True), [AB]),
    "cholesky_ex": (lambda m, F, a: m.linalg.cholesky_ex(_sym(a)).L, [AB]),
    "cholesky_ex_upper": (lambda m, F, a: m.linalg.cholesky_ex(_sym(a), upper=True).L, [A3]),
    # the factor's other triangle is never read, and torch's formula gives it a gradient too
    # (torch's own gradcheck fails on a raw factor): check through tril/triu, as torch passes
    "cholesky_solve": (lambda m, F, b, l: m.cholesky_solve(b, l.tril()), [B32, _lower_chol()]),
    "cholesky_solve_upper_batched": (
        lambda m, F, b, l: m.cholesky_solve(b, l.mT.triu(), upper=True),
        [BB, _lower_chol()],
    ),
    "cholesky_inverse": (lambda m, F, l: m.cholesky_inverse(l.tril()), [_lower_chol(2)]),
    "cholesky_inverse_upper": (
        lambda m, F, l: m.cholesky_inverse(l.mT.triu(), upper=True),
        [_lower_chol()],
    ),
}
for _name in (
    "svd",
    "svd_no_uv",
    "qr",
    "qr_wide",
    "inv_ex",
    "lu_unpack",
    "lu_unpack_wide",
    "lu_unpack_tall",
    "linalg_lu_solve",
    "linalg_lu_solve_adjoint",
    "linalg_lu_solve_right",
    "linalg_lu_solve_right_adjoint",
    "lu_solve_legacy",
    "solve_triangular_upper",
    "solve_triangular_lower_batched",
    "solve_triangular_right_unit",
    "triangular_solve",
    "triangular_solve_lower_t_unit",
    "householder_product",
    "householder_product_k2",
    "householder_product_batched",
    "cond",
    "cond_minus2",
    "cond_nuc",
):
    GRADCHECK[_name] = CASES[_name]


def _float_outputs(fn):
    def run(m, F, *t):
        out = _quiet(fn)(m, F, *t)
        outs = out if isinstance(out, tuple) else (out,)
        return tuple(o for o in outs if o.dtype.is_floating_point)

    return run


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck_and_gradgradcheck(name):
    fn, arrays = GRADCHECK[name]
    gradchecks(_float_outputs(fn), arrays)


@pytest.mark.parametrize("p", ["fro", 1, -1, float("inf"), -float("inf")])
@pytest.mark.parametrize(
    "arr", [A3, AB, np.array([[1.0, 2.0], [2.0, 4.0]])], ids=["2d", "3d", "singular"]
)
def test_cond_norm_orders_values_and_backward_error(p, arr):
    """norm(A) * norm(A^-1) (inf for a singular A); as in torch, the in-place fill of the
    saved inverse makes backward fail with the version-counter error."""
    check(lambda m, F, a: m.linalg.cond(a, p), [arr], requires_grad=[False])
    errs = []
    for m in (torch, framework):
        a = m.tensor(arr, requires_grad=True)
        out = m.linalg.cond(a, p)
        assert type(out.grad_fn).__name__ == "NanToNumBackward0"
        with pytest.raises(RuntimeError) as e:
            out.sum().backward()
        errs.append(str(e.value))
    phrase = "modified by an inplace operation"
    assert phrase in errs[0] and phrase in errs[1], errs


def test_qr_backward_refusals_as_torch():
    """mode='complete' with more rows than columns, and mode='r', are not differentiable."""
    for mode, arr in (("complete", A43), ("r", A3)):
        errs = []
        for m in (torch, framework):
            Q, Rr = m.linalg.qr(m.tensor(arr, requires_grad=True), mode)
            with pytest.raises(RuntimeError) as e:
                Rr.sum().backward()
            errs.append(str(e.value))
        assert errs[0] == errs[1]


@pytest.mark.parametrize(
    "p,shape",
    [(1, (2, 3)), (1.0, (2, 3)), (float("inf"), (2, 3)), ("fro", (2, 3)), ("nuc", (2, 3)),
     ("abc", (2, 3)), ("abc", (3, 3)), (3, (3, 3)), (0, (2, 3)), (None, (3,))],
)  # fmt: skip
def test_cond_errors(p, shape):
    fw, th = same_error(lambda m, F, a: m.linalg.cond(a, p), [np.ones(shape)])
    assert str(fw) == str(th)


def test_cond_empty():
    for shape in ((0, 0), (2, 0, 0)):
        for p in (None, "fro"):
            check(lambda m, F, a: m.linalg.cond(a, p), [np.ones(shape)], requires_grad=[False])


F32, F64, I64 = np.ones((3, 3), np.float32), np.eye(3), np.ones((3, 3), np.int64)


def P(m, a):
    return m.tensor(a)


ERRORS = {
    "hh_1d": lambda m: m.linalg.householder_product(P(m, np.ones(3)), P(m, np.ones(1))),
    "hh_wide": lambda m: m.linalg.householder_product(P(m, np.ones((2, 3))), P(m, np.ones(1))),
    "hh_tau_long": lambda m: m.linalg.householder_product(P(m, np.ones((3, 2))), P(m, np.ones(3))),
    "hh_tau_ndim": lambda m: m.linalg.householder_product(
        P(m, np.ones((3, 2))), P(m, np.ones((2, 2)))
    ),
    "hh_batch": lambda m: m.linalg.householder_product(
        P(m, np.ones((2, 3, 2))), P(m, np.ones((3, 2)))
    ),
    "hh_int": lambda m: m.orgqr(P(m, np.ones((3, 2), np.int64)), P(m, np.ones(1, np.int64))),
    "st_1d": lambda m: m.linalg.solve_triangular(
        P(m, np.ones(3)), P(m, np.ones((3, 2))), upper=True
    ),
    "st_B1d": lambda m: m.linalg.solve_triangular(P(m, F64), P(m, np.ones(3)), upper=True),
    "st_nonsq": lambda m: m.linalg.solve_triangular(
        P(m, np.ones((2, 3))), P(m, np.ones((2, 2))), upper=True
    ),
    "st_shape": lambda m: m.linalg.solve_triangular(P(m, F64), P(m, np.ones((4, 2))), upper=True),
    "st_shape_right": lambda m: m.linalg.solve_triangular(
        P(m, F64), P(m, np.ones((4, 2))), upper=True, left=False
    ),
    "st_int": lambda m: m.linalg.solve_triangular(P(m, I64), P(m, I64), upper=True),
    "ts_shape": lambda m: m.triangular_solve(P(m, np.ones((4, 2))), P(m, F64)),
    "ts_1d": lambda m: m.triangular_solve(P(m, np.ones(3)), P(m, F64)),
    "cs_1d": lambda m: m.cholesky_solve(P(m, np.ones(3)), P(m, F64)),
    "cs_dtype": lambda m: m.cholesky_solve(P(m, np.ones((3, 2))), P(m, F32)),
    "ci_1d": lambda m: m.cholesky_inverse(P(m, np.ones(3))),
    "ci_nonsq": lambda m: m.cholesky_inverse(P(m, np.ones((2, 3)))),
    "ci_int": lambda m: m.cholesky_inverse(P(m, I64)),
    "lus_piv_dtype": lambda m: m.linalg.lu_solve(
        P(m, F64), P(m, np.ones(3, np.int64)), P(m, np.ones((3, 2)))
    ),
    "lus_piv_shape": lambda m: m.linalg.lu_solve(
        P(m, F64), P(m, np.ones(2, np.int32)), P(m, np.ones((3, 2)))
    ),
    "lus_shape": lambda m: m.linalg.lu_solve(
        P(m, F64), P(m, np.ones(3, np.int32)), P(m, np.ones((4, 2)))
    ),
    "lus_nonsq": lambda m: m.linalg.lu_solve(
        P(m, np.ones((2, 3))), P(m, np.ones(2, np.int32)), P(m, np.ones((2, 2)))
    ),
    "lus_1d": lambda m: m.linalg.lu_solve(P(m, F64), P(m, np.ones(3, np.int32)), P(m, np.ones(3))),
    "lus_int": lambda m: m.linalg.lu_solve(P(m, I64), P(m, np.ones(3, np.int32)), P(m, I64)),
    "lu_unpack_1d": lambda m: m.lu_unpack(P(m, np.ones(3)), P(m, np.ones(3, np.int32))),
    "chol_ex_nonsq": lambda m: m.linalg.cholesky_ex(P(m, np.ones((2, 3)))),
    "chol_ex_check": lambda m: m.linalg.cholesky_ex(
        P(m, np.array([[4.0, 2, 1], [2, 1, 0], [1, 0, 3]])), check_errors=True
    ),
    "chol_ex_check_b": lambda m: m.linalg.cholesky_ex(
        P(m, np.stack([np.eye(2), -np.eye(2)])), check_errors=True
    ),
    "inv_ex_check": lambda m: m.linalg.inv_ex(
        P(m, np.array([[1.0, 2], [2, 4]])), check_errors=True
    ),
    "inv_ex_nonsq": lambda m: m.linalg.inv_ex(P(m, np.ones((2, 3)))),
    "inv_ex_1d": lambda m: m.linalg.inv_ex(P(m, np.ones(3))),
    "chol_notpd": lambda m: m.cholesky(P(m, -np.eye(2))),
    "chol_nonsq": lambda m: m.cholesky(P(m, np.ones((2, 3)))),
    "svd_1d": lambda m: m.svd(P(m, np.ones(3))),
    "qr_1d": lambda m: m.qr(P(m, np.ones(3))),
    "lu_1d": lambda m: m.lu(P(m, np.ones(3))),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(name):
    """The exception type and the whole first line of torch's message."""
    msgs = []
    for m in (torch, framework):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as e:
                ERRORS[name](m)
        msgs.append((type(e.value).__name__, str(e.value).splitlines()[0]))
    assert msgs[0] == msgs[1]


def test_solve_triangular_computes_in_As_dtype():
    """torch casts B to A's dtype (no promotion): float64 A with float32 B is float64, and
    float32 A with float64 B is float32; B's gradient comes back in its own dtype."""
    for da, db in ((np.float64, np.float32), (np.float32, np.float64)):
        a, b = _tri(3, 3).astype(da), B32.astype(db)
        outs = []
        for m in (torch, framework):
            ta, tb = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
            x = m.linalg.solve_triangular(ta, tb, upper=True)
            x.sum().backward()
            outs.append((str(x.dtype), str(tb.grad.dtype), x.detach().double().numpy()))
        assert outs[0][:2] == outs[1][:2]
        np.testing.assert_allclose(outs[1][2], outs[0][2], rtol=1e-5)


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
NOT_PD = np.array([[4.0, 2.0, 1.0], [2.0, 1.0, 0.0], [1.0, 0.0, 3.0]])


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: tuple(m.linalg.inv_ex(m.tensor(SINGULAR))),
        lambda m: tuple(m.linalg.inv_ex(m.tensor(np.stack([SINGULAR, np.eye(3) * 2])))),
        lambda m: tuple(m.linalg.cholesky_ex(m.tensor(np.stack([NOT_PD, np.eye(3), -np.eye(3)])))),
        lambda m: tuple(m.linalg.cholesky_ex(m.tensor(NOT_PD), upper=True)),
        lambda m: tuple(m.lu(m.tensor(SINGULAR), get_infos=True)),
        lambda m: m.linalg.cond(m.tensor(SINGULAR), 1),
    ],
    ids=["inv_ex", "inv_ex_batch", "cholesky_ex_batch", "cholesky_ex_upper", "lu_infos", "cond"],
)
def test_failed_factorizations_report_info_as_torch(fn):
    """info > 0 and LAPACK's partial results (the unblocked potf2's factor, the inverse's
    inf/NaN pattern) as torch gives them on these small inputs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = fn(torch), fn(framework)
    for w, g in zip(
        want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)
    ):
        assert str(w.dtype) == str(g.dtype) and tuple(w.shape) == tuple(g.shape)
        np.testing.assert_array_equal(np.isnan(g.numpy()), np.isnan(w.numpy()))
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "fn,first_line",
    [
        (lambda m, a: m.qr(a), "torch.qr is deprecated in favor of torch.linalg.qr"),
        (lambda m, a: m.cholesky(a), "torch.cholesky is deprecated in favor of torch.linalg"),
        (lambda m, a: m.lu(a), "torch.lu is deprecated in favor of torch.linalg.lu_factor"),
        (lambda m, a: m.lu_solve(a, *m.linalg.lu_factor(a)), "torch.lu_solve is deprecated"),
        (lambda m, a: m.triangular_solve(a, a), "torch.triangular_solve is deprecated"),
    ],
)
def test_deprecation_warnings(fn, first_line):
    """torch warns once per process (TORCH_WARN_ONCE) with these words; so does framework."""
    from framework.ops import linalg_solvers

    linalg_solvers._warned.clear()
    a = framework.tensor(np.eye(2) * 2)
    with pytest.warns(UserWarning, match=first_line.replace(".", r"\.")):
        fn(framework, a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(framework, a)  # once only


def test_norm_of_one_element_is_its_absolute_value():
    """torch's norm kernel returns |x| when one element is reduced (no square that overflows
    float32), e.g. the Frobenius norm of a 1x1 matrix holding 1e30."""
    for shape, kw in (((1,), {}), ((4, 1, 1), {"ord": "fro"}), ((3, 1), {"dim": -1})):
        x = np.full(shape, 1e30, np.float32)
        fn = (
            (lambda m, a: m.linalg.matrix_norm(a, **kw))
            if "ord" in kw
            else (lambda m, a: m.linalg.vector_norm(a, 3, **kw))
        )
        np.testing.assert_array_equal(
            fn(framework, framework.tensor(x)).numpy(), fn(torch, torch.tensor(x)).numpy()
        )


def test_householder_product_without_reflectors():
    """k = 0: the first n columns of I, and (as torch) no gradient for either input."""
    for m in (torch, framework):
        a = m.tensor(np.ones((4, 3)), requires_grad=True)
        t = m.tensor(np.ones(0), requires_grad=True)
        q = m.linalg.householder_product(a, t)
        np.testing.assert_array_equal(q.detach().numpy(), np.eye(4, 3))
        q.sum().backward()
        assert a.grad is None and t.grad is None
