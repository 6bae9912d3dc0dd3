"""geqrf, ormqr and linalg.ldl_factor / ldl_factor_ex / ldl_solve against torch: factors,
pivots, info and solutions (torch's bits where MKL is loaded, within rounding by the NumPy
fallback), node names, ormqr's gradients (random upstream, gradcheck/gradgradcheck), the
not-implemented derivatives and the errors."""

import numpy as np
import pytest
import torch

import framework as fw
from framework import _surface16_linalg as L
from framework.autograd import gradcheck, gradgradcheck
from framework.ops import _mkl

MKL = _mkl.library() is not None


@pytest.fixture(params=["lapack", "numpy"])
def backend(request, monkeypatch):
    """Each test on MKL's LAPACK (where loaded) and on the NumPy fallback."""
    if request.param == "lapack" and not MKL:
        pytest.skip("MKL's LAPACK is not loaded")
    if request.param == "numpy":
        monkeypatch.setattr(L, "_routine", lambda *a: None)
    return request.param


def _tol(backend, dtype):
    if backend == "lapack":
        return dict(rtol=0, atol=0)
    return dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (2, 3, 1, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_geqrf(backend, shape, dtype):
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    t, f = torch.geqrf(torch.tensor(a)), fw.geqrf(fw.tensor(a))
    assert repr(f).startswith("torch.return_types.geqrf(") and f._fields == ("a", "tau")
    for x, y in zip(f, t):
        assert repr(x.dtype) == repr(y.dtype) and tuple(x.shape) == tuple(y.shape)
        np.testing.assert_allclose(x.numpy(), y.numpy(), **_tol(backend, dtype))
    m = fw.tensor(a).geqrf()
    np.testing.assert_array_equal(m.a.numpy(), f.a.numpy())


def test_geqrf_not_differentiable_and_errors():
    tx, fx = torch.randn(3, 3, requires_grad=True), fw.randn(3, 3, requires_grad=True)
    ta, fa = torch.geqrf(tx), fw.geqrf(fx)
    for x, y in zip(fa, ta):
        assert type(x.grad_fn).__name__ == type(y.grad_fn).__name__ == "GeqrfBackward0"
    with pytest.raises(NotImplementedError) as te:
        ta.a.sum().backward()
    with pytest.raises(NotImplementedError) as fe:
        fa.a.sum().backward()
    assert str(fe.value) == str(te.value)
    for bad_t, bad_f in [(torch.ones(3), fw.ones(3)), (torch.ones(2, 2, dtype=torch.int64), fw.ones(2, 2, dtype=fw.int64))]:  # fmt: skip
        with pytest.raises(RuntimeError) as te:
            torch.geqrf(bad_t)
        with pytest.raises(RuntimeError) as fe:
            fw.geqrf(bad_f)
        assert str(fe.value) == str(te.value)


ORMQR = [((5, 3), (5, 2), True), ((5, 3), (2, 5), False), ((4, 4), (4, 4), True), ((2, 4, 2), (2, 4, 3), True)]  # fmt: skip


@pytest.mark.parametrize("a_shape,c_shape,left", ORMQR)
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ormqr(backend, a_shape, c_shape, left, transpose, dtype):
    rng = np.random.default_rng(len(a_shape) + sum(c_shape))
    a = rng.standard_normal(a_shape).astype(dtype)
    c = rng.standard_normal(c_shape).astype(dtype)
    ta, ttau = torch.geqrf(torch.tensor(a))
    fa, ftau = (
        fw.tensor(ta.numpy(), requires_grad=True),
        fw.tensor(ttau.numpy(), requires_grad=True),
    )
    fc = fw.tensor(c, requires_grad=True)
    ta.requires_grad_()
    ttau.requires_grad_()
    tc = torch.tensor(c, requires_grad=True)
    t = torch.ormqr(ta, ttau, tc, left, transpose)
    f = fw.ormqr(fa, ftau, fc, left, transpose)
    assert type(f.grad_fn).__name__ == type(t.grad_fn).__name__ == "OrmqrBackward0"
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        f.detach().numpy(),
        t.detach().numpy(),
        **(_tol(backend, dtype) if backend == "lapack" else tol),
    )
    g = rng.standard_normal(t.shape).astype(dtype)
    t.backward(torch.tensor(g))
    f.backward(fw.tensor(g))
    for x, y in ((fa, ta), (ftau, ttau), (fc, tc)):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), **tol)
    np.testing.assert_allclose(
        fw.tensor(ta.detach().numpy()).ormqr(fw.tensor(ttau.detach().numpy()), fw.tensor(c), left, transpose).numpy(),
        f.detach().numpy(), rtol=0, atol=0,
    )  # fmt: skip


def test_ormqr_gradcheck():
    a = fw.randn(4, 3, dtype=fw.float64)
    A, tau = fw.geqrf(a)
    A, tau = A.requires_grad_(), tau.requires_grad_()
    c = fw.randn(4, 2, dtype=fw.float64, requires_grad=True)
    for left, tr in [(True, False), (True, True)]:
        fn = lambda A, tau, c: fw.ormqr(A, tau, c, left, tr)
        assert gradcheck(fn, (A, tau, c))
        assert gradgradcheck(fn, (A, tau, c))


def test_ormqr_errors():
    a = torch.randn(4, 3)
    A, tau = torch.geqrf(a)
    fA = fw.tensor(A.numpy())
    for c_shape, left, t_len in [((3, 2), True, 3), ((2, 3), False, 3), ((4, 2), True, 5)]:
        with pytest.raises(RuntimeError) as te:
            torch.ormqr(A, torch.zeros(t_len), torch.zeros(c_shape), left)
        with pytest.raises(RuntimeError) as fe:
            fw.ormqr(fA, fw.zeros(t_len), fw.zeros(c_shape), left)
        assert str(fe.value) == str(te.value)


def _sym(n, seed, dtype, zero_lead=False):
    s = np.random.default_rng(seed).standard_normal((n, n))
    s = s + s.T
    if zero_lead and n > 2:
        s[0, 0] = s[1, 1] = 0.0  # forces 2x2 pivots
    return s.astype(dtype)


@pytest.mark.parametrize("n", [1, 2, 4, 7])
@pytest.mark.parametrize("zero_lead", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ldl_factor_and_solve(backend, n, zero_lead, dtype):
    for seed in range(4):
        a = _sym(n, seed + 10 * n, dtype, zero_lead)
        t = torch.linalg.ldl_factor_ex(torch.tensor(a))
        f = fw.linalg.ldl_factor_ex(fw.tensor(a))
        assert repr(f).startswith("torch.return_types.linalg_ldl_factor_ex(")
        np.testing.assert_array_equal(f.pivots.numpy(), t.pivots.numpy())
        assert repr(f.pivots.dtype) == repr(t.pivots.dtype) == "torch.int32"
        assert int(f.info) == int(t.info) and repr(f.info.dtype) == repr(t.info.dtype)
        np.testing.assert_allclose(f.LD.numpy(), t.LD.numpy(), **_tol(backend, dtype))
        f2 = fw.linalg.ldl_factor(fw.tensor(a)) if not int(t.info) else f
        np.testing.assert_array_equal(f2.LD.numpy(), f.LD.numpy())
        b = np.random.default_rng(seed).standard_normal((n, 3)).astype(dtype)
        tx = torch.linalg.ldl_solve(t.LD, t.pivots, torch.tensor(b))
        fx = fw.linalg.ldl_solve(f.LD, f.pivots, fw.tensor(b))
        tol = _tol(backend, dtype) if backend == "lapack" else dict(rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(fx.numpy(), tx.numpy(), **tol)


def test_ldl_batched_and_broadcast(backend):
    a = np.stack([_sym(5, s, np.float64) for s in range(3)])
    t = torch.linalg.ldl_factor(torch.tensor(a))
    f = fw.linalg.ldl_factor(fw.tensor(a))
    np.testing.assert_array_equal(f.pivots.numpy(), t.pivots.numpy())
    # (torch 2.13 crashes on batches that broadcast both ways, (3,) with (2, 1): not tested)
    for b_shape, sl in [((3, 5, 2), ...), ((5, 2), ...), ((2, 5, 2), 0)]:
        b = np.random.default_rng(0).standard_normal(b_shape)
        tx = torch.linalg.ldl_solve(t.LD[sl], t.pivots[sl], torch.tensor(b))
        fx = fw.linalg.ldl_solve(f.LD[sl], f.pivots[sl], fw.tensor(b))
        assert tuple(fx.shape) == tuple(tx.shape)
        np.testing.assert_allclose(fx.numpy(), tx.numpy(), **_tol(backend, np.float64))


def test_ldl_singular_info_and_error():
    t = torch.linalg.ldl_factor_ex(torch.zeros(3, 3))
    f = fw.linalg.ldl_factor_ex(fw.zeros(3, 3))
    assert int(f.info) == int(t.info) == 1
    np.testing.assert_array_equal(f.pivots.numpy(), t.pivots.numpy())
    with pytest.raises(RuntimeError) as te:
        torch.linalg.ldl_factor(torch.zeros(3, 3))
    with pytest.raises(RuntimeError) as fe:
        fw.linalg.ldl_factor(fw.zeros(3, 3))
    assert str(fe.value) == str(te.value)


def test_ldl_not_differentiable():
    a = _sym(3, 0, np.float64)
    ta, fa = torch.tensor(a, requires_grad=True), fw.tensor(a, requires_grad=True)
    t, f = torch.linalg.ldl_factor(ta), fw.linalg.ldl_factor(fa)
    assert type(f.LD.grad_fn).__name__ == type(t.LD.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError) as te:
        t.LD.sum().backward()
    with pytest.raises(RuntimeError) as fe:
        f.LD.sum().backward()
    assert str(fe.value) == str(te.value)
    tb, fb = (
        torch.ones(3, 1, dtype=torch.float64, requires_grad=True),
        fw.ones(3, 1, dtype=fw.float64, requires_grad=True),
    )
    tx = torch.linalg.ldl_solve(t.LD.detach(), t.pivots, tb)
    fx = fw.linalg.ldl_solve(f.LD.detach(), f.pivots, fb)
    assert type(fx.grad_fn).__name__ == type(tx.grad_fn).__name__
    with pytest.raises(RuntimeError) as te:
        tx.sum().backward()
    with pytest.raises(RuntimeError) as fe:
        fx.sum().backward()
    assert str(fe.value) == str(te.value)


@pytest.mark.parametrize("case", ["1d", "rect", "int"])
def test_ldl_factor_errors(case):
    t_in = {
        "1d": torch.zeros(3),
        "rect": torch.zeros(2, 3),
        "int": torch.zeros(3, 3, dtype=torch.int64),
    }[case]
    with pytest.raises(RuntimeError) as te:
        torch.linalg.ldl_factor(t_in)
    with pytest.raises(RuntimeError) as fe:
        fw.linalg.ldl_factor(fw.tensor(t_in.numpy()))
    assert str(fe.value).replace("ldl_factor_ex", "ldl_factor") == str(te.value).replace(
        "ldl_factor_ex", "ldl_factor"
    )


def test_ldl_solve_errors():
    LD, piv = torch.linalg.ldl_factor(torch.eye(3))
    fLD, fpiv = fw.tensor(LD.numpy()), fw.tensor(piv.numpy())
    for tb, fb, exc in [(torch.zeros(2, 2), fw.zeros(2, 2), RuntimeError), (torch.zeros(3), fw.zeros(3), IndexError)]:  # fmt: skip
        with pytest.raises(exc) as te:
            torch.linalg.ldl_solve(LD, piv, tb)
        with pytest.raises(exc) as fe:
            fw.linalg.ldl_solve(fLD, fpiv, fb)
        assert str(fe.value) == str(te.value)


@pytest.mark.parametrize("n", [70, 130])
def test_ldl_large_blocked(backend, n):
    """Above LAPACK's block size ?sytrf works by ?lasyf panels: pivots still torch's."""
    a = _sym(n, n, np.float64)
    t = torch.linalg.ldl_factor(torch.tensor(a))
    f = fw.linalg.ldl_factor(fw.tensor(a))
    np.testing.assert_array_equal(f.pivots.numpy(), t.pivots.numpy())
    tol = _tol(backend, np.float64) if backend == "lapack" else dict(rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(f.LD.numpy(), t.LD.numpy(), **tol)
    b = np.random.default_rng(n).standard_normal((n, 2))
    tx = torch.linalg.ldl_solve(t.LD, t.pivots, torch.tensor(b))
    fx = fw.linalg.ldl_solve(f.LD, f.pivots, fw.tensor(b))
    np.testing.assert_allclose(
        fx.numpy(), tx.numpy(), **(tol if backend == "lapack" else dict(rtol=1e-6, atol=1e-8))
    )
