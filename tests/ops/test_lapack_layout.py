"""torch's linalg results keep LAPACK's layout: each matrix column by column, batches in C
order (a (2, 3, 4, 2) solution has strides (24, 8, 1, 4)), while lu/lu_unpack's P, L, U,
a right-sided lu_solve and svd's legacy V are C-ordered. The layout is visible through
stride(), is_contiguous() and view(), which refuses where torch's refuses."""

import numpy as np
import pytest
import torch

import framework

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # triangular_solve's deprecation
SHAPES = [(4, 4), (2, 3, 4, 4), (1, 4, 4), (0, 4, 4)]


def _spd(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + 4 * np.eye(shape[-1])


def _cases(L, A, B, v, R):
    """name -> a zero-argument call of library L."""
    la = L.linalg
    return {
        "solve": lambda: la.solve(A, B),
        "solve_vector": lambda: la.solve(A, v),
        "solve_right": lambda: la.solve(A, B.mT, left=False),
        "solve_ex": lambda: la.solve_ex(A, B).result,
        "inv": lambda: la.inv(A),
        "inv_ex": lambda: la.inv_ex(A).inverse,
        "inverse": lambda: L.inverse(A),
        "cholesky": lambda: la.cholesky(A),
        "cholesky_upper": lambda: la.cholesky(A, upper=True),
        "cholesky_ex": lambda: la.cholesky_ex(A).L,
        "cholesky_legacy": lambda: L.cholesky(A),
        "qr_Q": lambda: la.qr(R).Q,
        "qr_R": lambda: la.qr(R).R,
        "qr_complete_Q": lambda: la.qr(R, mode="complete").Q,
        "lu_factor": lambda: la.lu_factor(A).LU,
        "lu_P": lambda: la.lu(A).P,
        "lu_L": lambda: la.lu(A).L,
        "lu_U": lambda: la.lu(A).U,
        "lu_unpack_L": lambda: L.lu_unpack(*la.lu_factor(A))[1],
        "lu_unpack_U": lambda: L.lu_unpack(*la.lu_factor(A))[2],
        "lu_solve": lambda: la.lu_solve(*la.lu_factor(A), B),
        "lu_solve_adjoint": lambda: la.lu_solve(*la.lu_factor(A), B, adjoint=True),
        "lu_solve_right": lambda: la.lu_solve(*la.lu_factor(A), B.mT, left=False),
        "eigh_V": lambda: la.eigh(A).eigenvectors,
        "svd_U": lambda: la.svd(R).U,
        "svd_Vh": lambda: la.svd(R).Vh,
        "svd_thin_U": lambda: la.svd(R, full_matrices=False).U,
        "svd_legacy_U": lambda: L.svd(R).U,
        "svd_legacy_V": lambda: L.svd(R).V,
        "lstsq": lambda: la.lstsq(A, B).solution,
        "solve_triangular": lambda: la.solve_triangular(A.triu(), B, upper=True),
        "solve_triangular_right": lambda: la.solve_triangular(
            A.triu(), B.mT, upper=True, left=False
        ),
        "triangular_solve_X": lambda: L.triangular_solve(B, A.triu())[0],
        "triangular_solve_A": lambda: L.triangular_solve(B, A.triu())[1],
        "cholesky_solve": lambda: L.cholesky_solve(B, la.cholesky(A)),
        "cholesky_inverse": lambda: L.cholesky_inverse(la.cholesky(A)),
        "householder_product": lambda: la.householder_product(R, R[..., 0, :2].contiguous()),
        "pinv": lambda: la.pinv(A),
        "matrix_exp": lambda: la.matrix_exp(A),
    }


def _inputs(L, shape):
    rng = np.random.default_rng(1)
    A = L.tensor(_spd(shape))
    B = L.tensor(rng.standard_normal(shape[:-1] + (2,)))
    v = L.tensor(rng.standard_normal(shape[:-1]))
    R = L.tensor(rng.standard_normal(shape[:-2] + (5, 3)))
    return A, B, v, R


NAMES = list(_cases(torch, *_inputs(torch, (4, 4))))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_strides_as_torch(name, shape):
    theirs = _cases(torch, *_inputs(torch, shape))[name]()
    ours = _cases(framework, *_inputs(framework, shape))[name]()
    assert tuple(ours.shape) == tuple(theirs.shape)
    if theirs.numel():  # (a size-1 dim's stride is arbitrary, in torch too)
        big = [i for i, n in enumerate(theirs.shape) if n > 1]
        assert [ours.stride(i) for i in big] == [theirs.stride(i) for i in big]
    assert ours.is_contiguous() == theirs.is_contiguous()
    a, b = ours.numpy(), theirs.numpy()
    if name.startswith(("eigh", "svd", "qr")):  # each vector's sign is LAPACK's choice
        a, b = np.abs(a), np.abs(b)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


def _error(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__, str(e)
    return None


def test_view_of_a_solution_refuses_as_torch():
    """view(-1) of a batched solve/inv result is refused by torch (its strides), as ours; the
    reshape copies."""
    for L in (torch, framework):
        A, B, _, _ = _inputs(L, (2, 4, 4))
        X = L.linalg.solve(A, B)
        assert _error(lambda: X.view(-1)) is not None
        assert tuple(X.reshape(-1).shape) == (16,)
    ours = _error(lambda: framework.linalg.inv(_inputs(framework, (2, 4, 4))[0]).view(-1))
    theirs = _error(lambda: torch.linalg.inv(_inputs(torch, (2, 4, 4))[0]).view(-1))
    assert ours == theirs


def test_elementwise_ops_keep_the_layout():
    """An elementwise op of a column-major result keeps its strides (torch's TensorIterator
    and NumPy's K order agree), so a chain of ops sees torch's layout."""
    ours = framework.linalg.inv(_inputs(framework, (2, 4, 4))[0])
    theirs = torch.linalg.inv(_inputs(torch, (2, 4, 4))[0])
    for f in (lambda t: t * 2, lambda t: t.exp(), lambda t: t + t):
        assert f(ours).stride() == f(theirs).stride()
