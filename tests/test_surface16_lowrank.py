"""svd_lowrank / pca_lowrank against torch from the same seed: the Gaussian test matrix is
torch's draw, so U, S, V agree to rounding (the QR / SVD / matmul kernels' last bits), and the
default stream is left where torch leaves it; errors as torch's."""

import numpy as np
import pytest
import torch

import framework as fw


def _low_rank(shape, rank, seed, dtype):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape[:-1] + (rank,)) @ rng.standard_normal(
        shape[:-2] + (rank, shape[-1])
    )
    return (a + 1e-3 * rng.standard_normal(shape)).astype(dtype)


def _same_factors(f, t, dtype):
    """U, S, V equal to torch's up to rounding and to a sign per singular pair (the SVD
    kernel's sign choice, the same flip on U's and V's column)."""
    fu, fs, fv = (x.numpy() for x in f)
    tu, ts, tv = (x.numpy() for x in t)
    for x, y in zip(f, t):
        assert repr(x.dtype) == repr(y.dtype) and tuple(x.shape) == tuple(y.shape)
    np.testing.assert_allclose(fs, ts, **_tol(dtype))
    sign = np.sign((fu * tu).sum(-2, keepdims=True))
    np.testing.assert_allclose(fu * sign, tu, **_tol(dtype))
    np.testing.assert_allclose(fv * sign, tv, **_tol(dtype))


def _tol(dtype):
    return dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("shape", [(8, 6), (6, 9), (2, 7, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("niter", [0, 2])
@pytest.mark.parametrize("with_m", [False, True])
def test_svd_lowrank(shape, dtype, niter, with_m):
    a = _low_rank(shape, 3, sum(shape), dtype)
    m = np.full(shape[-1:], 0.25, dtype) if with_m else None
    for seed in (0, 7):
        torch.manual_seed(seed)
        fw.manual_seed(seed)
        t = torch.svd_lowrank(
            torch.tensor(a), q=3, niter=niter, M=None if m is None else torch.tensor(m)
        )
        f = fw.svd_lowrank(fw.tensor(a), q=3, niter=niter, M=None if m is None else fw.tensor(m))
        _same_factors(f, t, dtype)
        np.testing.assert_array_equal(fw.rand(3).numpy(), torch.rand(3).numpy())


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pca_lowrank(center, dtype):
    a = _low_rank((12, 5), 2, 3, dtype) + 2.0
    torch.manual_seed(1)
    fw.manual_seed(1)
    t = torch.pca_lowrank(torch.tensor(a), q=2, center=center)
    f = fw.pca_lowrank(fw.tensor(a), q=2, center=center)
    _same_factors(f, t, dtype)


def test_pca_lowrank_gradients():
    a = _low_rank((9, 4), 2, 5, np.float64)
    ta, fa = torch.tensor(a, requires_grad=True), fw.tensor(a, requires_grad=True)
    torch.manual_seed(2)
    fw.manual_seed(2)
    g = np.random.default_rng(0).standard_normal(2)
    (torch.pca_lowrank(ta, q=2)[1] * torch.tensor(g)).sum().backward()
    (fw.pca_lowrank(fa, q=2)[1] * fw.tensor(g)).sum().backward()
    np.testing.assert_allclose(fa.grad.numpy(), ta.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("kwargs", [dict(q=7), dict(q=-1), dict(niter=-1)])
def test_pca_lowrank_errors(kwargs):
    with pytest.raises(ValueError) as te:
        torch.pca_lowrank(torch.zeros(6, 5), **kwargs)
    with pytest.raises(ValueError) as fe:
        fw.pca_lowrank(fw.zeros(6, 5), **kwargs)
    assert str(fe.value) == str(te.value)
