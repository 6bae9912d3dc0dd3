"""The LAPACK-backed ops run MKL's LAPACK, as torch's CPU build (sixteenth pass, issue 9).

torch 2.13 computes inv/solve (getrf + getrs of A, whatever its layout), det/slogdet/logdet
(getrf of A^T for a C-contiguous A), lu_factor/lu/lu_solve, cholesky (potrf of the
triangle), cholesky_solve (potrs), cholesky_inverse (potri), qr (geqrf + orgqr), eigh/eigvalsh
(syevd, jobz 'N' for values that need no gradient), svd/svdvals (gesdd) and the triangular
solves (trsm, a C-contiguous A passed as its transpose) with MKL; ours called NumPy's
OpenBLAS, 65-100 % of random small cases some bits apart. Where `_mkl.library()` loads
(the mkl wheel), `framework.ops.linalg_lapack` calls the same routines the same way: every
bit here. Fuzzer seeds 530058542 (inverse then floor: -0.0 vs -3.2e-17), 530023881 (lu's
double backward) and 530044942 (qr's double backward) were these forward differences.

Without MKL the NumPy route stays (`test_numpy_route_without_mkl`). Every test draws its
data from its own seeded generator."""

import warnings

import numpy as np
import pytest
import torch

import framework
from framework.ops import _mkl, linalg_householder, linalg_lapack
from fuzz import runner as R

needs_mkl = pytest.mark.skipif(
    _mkl.library() is None,
    reason="MKL's runtime (the mkl wheel, or FRAMEWORK_MKL) is not loadable: the LAPACK ops "
    "take NumPy's route, checked by test_numpy_route_without_mkl",
)
DTYPES = ["float32", "float64"]


def _bits_equal(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    assert np.array_equal(np.where(nan, 0, ours), np.where(nan, 0, theirs))
    assert np.array_equal(np.signbit(ours[~nan]), np.signbit(theirs[~nan]))


def _both(fn, *arrays, layout=None, only=None):
    """fn(L, *tensors) for framework and torch (or `only` one); `layout` "F" passes matrices
    column-major."""
    outs = []
    for L in (framework, torch) if only is None else (only,):
        ts = []
        for a in arrays:
            t = (
                L.tensor(np.swapaxes(a, -1, -2).copy()).transpose(-1, -2)
                if layout == "F"
                else L.tensor(a)
            )
            ts.append(t)
        outs.append(fn(L, *ts))
    return outs


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out]


def _check(fn, *arrays, layout=None, strides=True):
    """fn's results bit for bit, or the same error from both (a matrix MKL's getrf finds
    exactly singular, as on an AMD EPYC for the draws with two nearly equal columns)."""
    errors = []
    for L in (framework, torch):
        try:
            _both(fn, *arrays, layout=layout, only=L)
            errors.append(None)
        except Exception as e:  # compared below
            errors.append((type(e).__name__, str(e)))
    if any(errors):
        assert errors[0] == errors[1]
        return
    ours, theirs = _both(fn, *arrays, layout=layout)
    for o, t in zip(_flat(ours), _flat(theirs)):
        _bits_equal(o.detach().numpy(), t.detach().numpy())
        if strides and o.dim() >= 2 and o.numel() > 1:
            assert o.stride() == t.stride()


def _square(rng, dt, batch=None, n=None):
    """A random square matrix (batch), sometimes ill-conditioned, scaled rows or inf/NaN."""
    batch = [(), (2,), (3, 2)][rng.integers(3)] if batch is None else batch
    n = int(rng.integers(1, 9)) if n is None else n
    A = rng.standard_normal(batch + (n, n))
    kind = rng.integers(5)
    if kind == 1 and n > 1:
        A[..., :, 0] = A[..., :, 1] * (1 + 1e-6)
    elif kind == 2:
        A[..., 0, :] *= 1e8
    elif kind == 3:
        A.flat[rng.integers(A.size)] = [np.inf, np.nan, 1e30][rng.integers(3)]
    return A.astype(dt)


def _spd(rng, dt, batch, n):
    A = rng.standard_normal(batch + (n, n))
    return (A @ np.swapaxes(A, -1, -2) + n * np.eye(n)).astype(dt)


def _batch(rng):
    return [(), (2,), (3, 2)][rng.integers(3)]


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("seed", range(2))
def test_lu_based_ops_are_torchs_bits(dt, seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        A = _square(rng, dt)
        n, batch = A.shape[-1], A.shape[:-2]
        B = rng.standard_normal(batch + (n, 3)).astype(dt)
        layout = ["C", "F"][rng.integers(2)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _check(lambda L, a: L.linalg.inv_ex(a), A, layout=layout)
            _check(lambda L, a: L.linalg.det(a), A, layout=layout)
            _check(lambda L, a: L.linalg.slogdet(a), A, layout=layout)
            _check(lambda L, a: L.logdet(a), A, layout=layout)
            _check(lambda L, a, b: L.linalg.solve_ex(a, b), A, B, layout=layout)
            _check(lambda L, a: L.linalg.lu_factor_ex(a), A, layout=layout)
        if np.isfinite(A).all():
            _check(lambda L, a, b: L.linalg.solve(a, b, left=False), A, np.swapaxes(B, -1, -2))
            _check(lambda L, a, b: L.linalg.solve(a, b), A, B[..., 0])
            for adjoint in (False, True):
                _check(
                    lambda L, a, b: L.linalg.lu_solve(
                        *L.linalg.lu_factor_ex(a)[:2], b, adjoint=adjoint
                    ),
                    A,
                    B,
                )
                _check(
                    lambda L, a, b: L.linalg.lu_solve(
                        *L.linalg.lu_factor_ex(a)[:2], b, left=False, adjoint=adjoint
                    ),
                    A,
                    np.swapaxes(B, -1, -2),
                )


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("seed", range(2))
def test_lu_of_rectangular_matrices_is_torchs_bits(dt, seed):
    rng = np.random.default_rng(20 + seed)
    for _ in range(40):
        m, n = (int(v) for v in rng.integers(1, 9, 2))
        A = rng.standard_normal(_batch(rng) + (m, n)).astype(dt)
        _check(lambda L, a: L.linalg.lu(a), A)
        _check(lambda L, a: L.linalg.lu_factor_ex(a), A)


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("seed", range(2))
def test_cholesky_family_is_torchs_bits(dt, seed):
    rng = np.random.default_rng(30 + seed)
    for _ in range(40):
        n, batch = int(rng.integers(1, 9)), _batch(rng)
        A = _spd(rng, dt, batch, n)
        upper = bool(rng.integers(2))
        _check(lambda L, a: L.linalg.cholesky(a, upper=upper), A)
        L64 = np.linalg.cholesky(A.astype(np.float64)).astype(dt)
        F = np.swapaxes(L64, -1, -2).copy() if upper else L64
        B = rng.standard_normal(batch + (n, 2)).astype(dt)
        _check(lambda L, b, f: L.cholesky_solve(b, f, upper=upper), B, F)
        _check(lambda L, f: L.cholesky_inverse(f, upper=upper), F)
        bad = A.copy()  # not positive-definite: torch's partial factor and info
        bad[..., -1, -1] = -1
        _check(lambda L, a: L.linalg.cholesky_ex(a, upper=upper), bad)


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("seed", range(2))
def test_qr_eigh_svd_are_torchs_bits(dt, seed):
    rng = np.random.default_rng(40 + seed)
    for _ in range(30):
        m, n = (int(v) for v in rng.integers(1, 9, 2))
        batch = _batch(rng)
        A = rng.standard_normal(batch + (m, n)).astype(dt)
        for mode in ("reduced", "complete", "r"):
            _check(lambda L, a: L.linalg.qr(a, mode=mode), A)
        full = bool(rng.integers(2))
        _check(lambda L, a: L.linalg.svd(a, full_matrices=full), A)
        _check(lambda L, a: L.linalg.svdvals(a), A)
        S = rng.standard_normal(batch + (n, n)).astype(dt)
        uplo = ["L", "U"][rng.integers(2)]
        _check(lambda L, a: L.linalg.eigh(a, UPLO=uplo), S)
        _check(lambda L, a: L.linalg.eigvalsh(a, UPLO=uplo), S)


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
def test_values_needing_a_gradient_are_torchs_bits(dt):
    """eigvalsh/svdvals of an input requiring grad compute the vectors too (jobz 'V'/'S'), as
    torch: those eigenvalues are the vector run's bits."""
    rng = np.random.default_rng(50)
    for _ in range(20):
        n = int(rng.integers(2, 9))
        A = rng.standard_normal((n, n)).astype(dt)
        ours, theirs = (
            L.linalg.eigvalsh(L.tensor(A, requires_grad=True)) for L in (framework, torch)
        )
        _bits_equal(ours.detach().numpy(), theirs.detach().numpy())
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
        ours, theirs = (
            L.linalg.svdvals(L.tensor(A, requires_grad=True)) for L in (framework, torch)
        )
        _bits_equal(ours.detach().numpy(), theirs.detach().numpy())
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("seed", range(2))
def test_triangular_solves_are_torchs_bits(dt, seed):
    rng = np.random.default_rng(60 + seed)
    for _ in range(40):
        n, batch = int(rng.integers(1, 9)), _batch(rng)
        A = (rng.standard_normal(batch + (n, n)) + 3 * np.eye(n)).astype(dt)
        B = rng.standard_normal(batch + (n, 3)).astype(dt)
        upper, unit = bool(rng.integers(2)), bool(rng.integers(2))
        layout = ["C", "F"][rng.integers(2)]
        _check(
            lambda L, a, b: L.linalg.solve_triangular(a, b, upper=upper, unitriangular=unit),
            A,
            B,
            layout=layout,
        )
        _check(
            lambda L, a, b: L.linalg.solve_triangular(a, b, upper=upper, left=False),
            A,
            np.swapaxes(B, -1, -2).copy(),
            layout=layout,
        )
        _check(  # A broadcast over B's batch
            lambda L, a, b: L.linalg.solve_triangular(a, b, upper=upper),
            A[(0,) * len(batch)] if batch else A,
            rng.standard_normal((2,) + (n, 2)).astype(dt),
        )
        transpose = bool(rng.integers(2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _check(
                lambda L, b, a: L.triangular_solve(b, a, upper=upper, transpose=transpose),
                B,
                A,
            )


@needs_mkl
def test_errors_are_torchs():
    """Singular / not positive-definite matrices raise torch's errors, from LAPACK's info."""
    A = np.ones((2, 3, 3))
    A[0] = np.eye(3)
    for fn in (
        lambda L, a: L.linalg.inv(a),
        lambda L, a: L.linalg.solve(a, L.ones(2, 3, 1, dtype=a.dtype)),
        lambda L, a: L.linalg.cholesky(a),
    ):
        msgs = []
        for L in (framework, torch):
            with pytest.raises(Exception) as e:
                fn(L, L.tensor(A))
            msgs.append((type(e.value).__name__, str(e.value)))
        assert msgs[0] == msgs[1]


@needs_mkl
@pytest.mark.parametrize("seed", [530058542, 530023881, 530044942])
def test_fuzz_finds(seed):
    """inverse then floor (float64 3 x 3 with 1e30), lu's and qr's float32 double backward."""
    assert not [m for m in R.run_program(seed) if m.kind not in (R.KNOWN,)]


def test_numpy_route_without_mkl(monkeypatch):
    """With MKL unavailable every op takes NumPy's route: torch's values to rounding, its
    errors, strides and nodes."""
    monkeypatch.setattr(_mkl, "_library", [False])
    monkeypatch.setattr(linalg_householder, "_ORGQR", {})
    assert not linalg_lapack.usable(np.eye(2))
    rng = np.random.default_rng(70)
    A = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    S = A @ np.swapaxes(A, -1, -2)
    B = rng.standard_normal((2, 4, 2))
    cases = [
        (lambda L, a, b, s: L.linalg.inv(a), True),
        (lambda L, a, b, s: L.linalg.solve(a, b), True),
        (lambda L, a, b, s: L.linalg.det(a), False),
        (lambda L, a, b, s: L.linalg.slogdet(a), False),
        (lambda L, a, b, s: L.linalg.lu_factor(a), True),
        (lambda L, a, b, s: L.linalg.cholesky(s), True),
        (lambda L, a, b, s: L.cholesky_solve(b, L.linalg.cholesky(s)), True),
        (lambda L, a, b, s: L.cholesky_inverse(L.linalg.cholesky(s)), True),
        (lambda L, a, b, s: L.linalg.qr(a), True),
        (lambda L, a, b, s: L.linalg.eigvalsh(s), False),
        (lambda L, a, b, s: L.linalg.svdvals(a), False),
        (lambda L, a, b, s: L.linalg.solve_triangular(a, b, upper=True), True),
    ]
    for fn, strided in cases:
        ours, theirs = _both(fn, A, B, S)
        for o, t in zip(_flat(ours), _flat(theirs)):
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-9, atol=1e-9)
            if strided and o.dim() >= 2:
                assert o.stride() == t.stride()
    with pytest.raises(Exception, match="The diagonal element 2 is zero"):
        framework.linalg.inv(framework.tensor(np.ones((3, 3))))


@needs_mkl
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: L.linalg.inv(a),
        lambda L, a: L.linalg.det(a),
        lambda L, a: L.linalg.slogdet(a)[1],
        lambda L, a: L.linalg.cholesky(a @ a.mT + 4 * L.eye(3, dtype=a.dtype)),
        lambda L, a: L.linalg.qr(a),
        lambda L, a: L.linalg.eigh(a + a.mT),
        lambda L, a: L.linalg.svd(a, full_matrices=False),
        lambda L, a: L.linalg.solve_triangular(a, a.mT, upper=True),
        lambda L, a: L.linalg.lu(a),
        lambda L, a: L.cholesky_inverse(a.tril() + 4 * L.eye(3, dtype=a.dtype)),
    ],
)
def test_gradients_on_the_mkl_forward(fn):
    """The backward formulas are unchanged; with the MKL forward they still check in float64
    (gradcheck, gradgradcheck) and match torch's gradient for a random upstream gradient."""
    rng = np.random.default_rng(80)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    x = framework.tensor(a, requires_grad=True)
    assert framework.autograd.gradcheck(lambda t: fn(framework, t), (x,))
    assert framework.autograd.gradgradcheck(lambda t: fn(framework, t), (x,))
    grads = []
    for L in (framework, torch):
        t = L.tensor(a, requires_grad=True)
        outs = [o for o in _flat(fn(L, t)) if o.requires_grad]
        ups = [L.tensor(np.random.default_rng(81).standard_normal(tuple(o.shape))) for o in outs]
        grads.append(L.autograd.grad(outs, t, ups)[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("seed", range(2))
def test_det_slogdet_gradients_are_torchs_bits(dt, seed):
    """det's and slogdet's backward (no create_graph) solve with the forward's LU factors:
    of A^T for a C-contiguous A (plainly), else of A (adjoint); det's zero pivot becomes eps."""
    rng = np.random.default_rng(90 + seed)
    for _ in range(30):
        n = int(rng.integers(1, 7))
        A = _square(rng, dt, n=n)
        if not np.isfinite(A).all():
            continue
        if rng.random() < 0.2 and n > 1:
            A[..., -1, :] = A[..., 0, :]  # singular
        layout = ["C", "F"][rng.integers(2)]
        up = rng.standard_normal(A.shape[:-2]).astype(dt)
        for name in ("det", "slogdet"):
            grads = []
            for L in (framework, torch):
                a = (
                    L.tensor(np.swapaxes(A, -1, -2).copy()).transpose(-1, -2)
                    if layout == "F"
                    else L.tensor(A)
                )
                a.requires_grad_(True)
                out = getattr(L.linalg, name)(a)
                out = out[1] if name == "slogdet" else out
                (g,) = L.autograd.grad(out, a, L.tensor(up))
                grads.append(g.numpy())
            _bits_equal(*grads)


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
def test_solve_gradients_are_torchs_bits(dt):
    """linalg.solve's backward (no create_graph): gB by getrs 'T' with the forward's factors
    of A (torch's linalg_lu_solve(LU, pivots, gX, adjoint=True)), gA = -gB X^T."""
    rng = np.random.default_rng(100)
    for _ in range(40):
        n, batch = int(rng.integers(1, 7)), _batch(rng)
        A = _square(rng, dt, batch=batch, n=n)
        if not np.isfinite(A).all():
            continue
        layout, left = ["C", "F"][rng.integers(2)], bool(rng.integers(2))
        vector = left and rng.random() < 0.3
        B = rng.standard_normal(batch + ((n,) if vector else (n, 2) if left else (2, n))).astype(dt)
        up = rng.standard_normal(B.shape).astype(dt)
        grads, errors = [], []
        for L in (framework, torch):
            a = (
                L.tensor(np.swapaxes(A, -1, -2).copy()).transpose(-1, -2)
                if layout == "F"
                else L.tensor(A)
            )
            a.requires_grad_(True)
            b = L.tensor(B, requires_grad=True)
            try:
                X = L.linalg.solve(a, b, left=left)
            except Exception as e:  # exactly singular for MKL: both, compared
                errors.append((type(e).__name__, str(e)))
                continue
            grads.append([g.numpy() for g in L.autograd.grad(X, (a, b), L.tensor(up))])
        if errors:
            assert len(errors) == 2 and errors[0] == errors[1]
            continue
        for o, t in zip(*grads):
            _bits_equal(o, t)


@needs_mkl
@pytest.mark.parametrize(
    "seed",
    [390029753, 340076822, 370077980, 80064708, 350076020, 26155924, 440070803, 100018683],
)
def test_lapack_rounding_rules_are_off_with_mkl(seed, monkeypatch):
    """The fuzzer's rules for OpenBLAS-vs-MKL LAPACK rounding (slogdet's scaled rows,
    cholesky_solve then tan, a triangular solve's zero sign, getrf on inf, inverse's
    near-zero entry and float32 conditioning, lu_solve then sinh, det's second order at 1e30)
    apply only without MKL; their seeds now find nothing with every rule of the op removed."""
    from fuzz.second_order import compare_second_order

    assert not R.NUMPY_LAPACK
    p = R.Program(seed)
    for key in [k for k in R.KNOWN_DIFFERENCES if k[0] == p.op.name]:
        monkeypatch.delitem(R.KNOWN_DIFFERENCES, key)
    assert R.compare_program(p) == []
    if p.op.gradgrad and p.then is None:
        assert compare_second_order(p) == []


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
def test_pinv_is_torchs_bits(dt):
    """pinv: MKL's SVD (eigh when hermitian), then torch's matmul as ours replays it (its
    batched product U diag(1/w) U^T of 8 x 8 matrices, 512 multiply-adds each: MKL's
    ?gemm_batch as torch calls it; with NumPy's matmul 3 of 30 were 1 ulp apart on an AMD
    EPYC)."""
    rng = np.random.default_rng(110)
    for _ in range(30):
        m, n = (int(v) for v in rng.integers(1, 9, 2))
        batch = _batch(rng)
        _check(lambda L, a: L.linalg.pinv(a), rng.standard_normal(batch + (m, n)).astype(dt))
        S = rng.standard_normal(batch + (n, n))
        S = (S + np.swapaxes(S, -1, -2)).astype(dt)
        _check(lambda L, a: L.linalg.pinv(a, hermitian=True), S, strides=False)
