"""grid_sample's double backward (GridSampler2D/3DBackwardBackward0) against torch for every
class (modes, paddings, align_corners, 4-D and 5-D) with inf/NaN inputs, and det's
second derivative at 1e30 (a documented cancellation, checked against the exact value)."""

import numpy as np
import pytest
import torch

import framework

CLASSES = [
    (mode, pad, align, dims)
    for dims, modes in ((2, ("bilinear", "nearest", "bicubic")), (3, ("bilinear", "nearest")))
    for mode in modes
    for pad in ("zeros", "border", "reflection")
    for align in (False, True)
]


def _case(seed, dims, dtype):
    r = np.random.default_rng(seed)
    sp = tuple(int(r.choice([1, 3, 4])) for _ in range(dims))
    x = r.standard_normal((2, 2) + sp).astype(dtype)
    flat = x.reshape(-1)
    flat[r.integers(flat.size, size=2)] = [np.inf, np.nan]
    out = tuple(int(r.choice([1, 2, 3])) for _ in range(dims))
    g = (r.standard_normal((2,) + out + (dims,)) * 0.8).astype(dtype)
    g.reshape(-1)[:3] = [1.0, -1.0, 0.5]  # border points and a tap on the grid
    up = r.standard_normal((2, 2) + out).astype(dtype)
    u1, u2 = r.standard_normal(x.shape).astype(dtype), r.standard_normal(g.shape).astype(dtype)
    return x, g, up, u1, u2


def _second(L, arrays, kw, rg):
    x, g, up, u1, u2 = arrays
    xt, gt = L.tensor(x, requires_grad=rg[0]), L.tensor(g, requires_grad=rg[1])
    upt = L.tensor(up, requires_grad=rg[2])
    y = L.nn.functional.grid_sample(xt, gt, **kw)
    leaves = [t for t, r in zip((xt, gt), rg) if r]
    gs = L.autograd.grad(y, leaves, upt, create_graph=True)
    ups = [L.tensor(u1 if tuple(t.shape) == x.shape else u2) for t in gs]
    names = [t.grad_fn.name() for t in gs]
    wrt = [t for t, r in zip((xt, gt, upt), rg) if r]
    got = L.autograd.grad(gs, wrt, ups, allow_unused=True)
    return names, [None if t is None else t.numpy() for t in got]


def _same_nonfinite(a, b, rtol):
    """NaN/inf positions and values exactly, finite values to rtol of the scale."""
    fa = np.isfinite(a)
    np.testing.assert_array_equal(fa, np.isfinite(b))
    np.testing.assert_array_equal(a[~fa], b[~fa])
    scale = max(1.0, np.abs(a[fa]).max(initial=0))
    np.testing.assert_allclose(a[fa], b[fa], rtol=0, atol=rtol * scale)


@pytest.mark.parametrize("mode,pad,align,dims", CLASSES)
def test_grid_sample_second_order_nonfinite_as_torch(mode, pad, align, dims):
    """Second-order gradients (every requires-grad set, an upstream that requires grad) with
    an inf and a NaN in the input: NaN/inf where torch's are, node names as torch's."""
    kw = dict(mode=mode, padding_mode=pad, align_corners=align)
    for seed, dtype in ((0, np.float64), (1, np.float32), (2, np.float64)):
        arrays = _case(seed + 10 * dims, dims, dtype)
        for rg in ((True, True, False), (False, True, False), (True, True, True)):
            t_names, want = _second(torch, arrays, kw, rg)
            f_names, got = _second(framework, arrays, kw, rg)
            assert f_names == t_names
            assert [w is None for w in want] == [g is None for g in got]
            for w, g in zip(want, got):
                if w is not None:
                    _same_nonfinite(w, g, 1e-4 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("mode,pad,align,dims", [c for c in CLASSES if c[0] != "nearest"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grid_sample_grid_second_order_is_torchs_bits(mode, pad, align, dims, dtype):
    """The ggGrid terms are torch's ops in torch's order: with the first-order kernels out of
    the way (only the grid requires grad: no ggI), the grid's second-order gradient has
    torch's bits, an inf in the input included."""
    for seed in range(2):
        r = np.random.default_rng(seed)
        x = r.standard_normal((2, 3) + (4,) * dims).astype(dtype)
        x.reshape(-1)[r.integers(x.size)] = np.inf
        g = (r.standard_normal((2,) + (2,) * dims + (dims,)) * 0.9).astype(dtype)
        u, up = r.standard_normal(g.shape).astype(dtype), r.standard_normal((2, 3) + (2,) * dims)
        kw = dict(mode=mode, padding_mode=pad, align_corners=align)
        res = []
        for L in (torch, framework):
            gt = L.tensor(g, requires_grad=True)
            y = L.nn.functional.grid_sample(L.tensor(x), gt, **kw)
            (gg,) = L.autograd.grad(y, gt, L.tensor(up.astype(dtype)), create_graph=True)
            (h,) = L.autograd.grad(gg, gt, L.tensor(u))
            res.append(h.numpy())
        np.testing.assert_array_equal(res[1], res[0])


@pytest.mark.parametrize("seed", [100005644, 100014800, 100057964])
def test_grid_sample_fuzz_seeds(seed):
    """The fresh fuzz finds (bicubic, inf in the input): no second-order difference."""
    from fuzz import runner as R
    from fuzz.second_order import second_order

    assert second_order(R.Program(seed)) == []


@pytest.mark.parametrize("seed", [100018683, 70003571])
def test_det_second_order_at_1e30_is_classified_cancellation(seed):
    """det's second derivative of a 2 x 2 with a 1e30 entry: torch's and ours are both
    within the rule's ulps of the exact value (Fractions), and the stage classifies it;
    with MKL's getrf (the sixteenth pass's linalg_lapack) ours is torch's, nothing found."""
    from framework.ops import _mkl
    from fuzz import runner as R
    from fuzz.second_order import GG_KNOWN, compare_second_order

    p = R.Program(seed)
    assert R._det_second_order_cancels(p)
    found = compare_second_order(p)
    if _mkl.library() is not None:
        assert found == []
    else:
        assert found and all(m.kind == GG_KNOWN for m in found)


def test_det_exact_second_order_matches_float64():
    """The rule's exact reference agrees with torch's float64 second derivative on a
    well-conditioned matrix (so it measures what it claims)."""
    from fuzz import runner as R

    r = np.random.default_rng(3)
    a, u = r.standard_normal((3, 3)), r.standard_normal((3, 3))
    at = torch.tensor(a, requires_grad=True)
    (g,) = torch.autograd.grad(torch.linalg.det(at), at, torch.tensor(1.5), create_graph=True)
    (h,) = torch.autograd.grad(g, at, torch.tensor(u))
    np.testing.assert_allclose(R._det_exact_second_order(a, 1.5, u), h.numpy(), rtol=1e-12)
