"""grid_sample bit for bit with torch's CPU kernels (the eighteenth pass): the vectorised 2-D
kernel (GridSamplerKernel.cpp, its FMA contraction and its scatter order per vector of
locations) and the scalar 3-D kernel (GridSampler.cpp), values and both gradients, every
mode, padding and align_corners in float32 and float64, with grids laid out as torch's
iterator distinguishes them; gradcheck and gradgradcheck in float64."""

import numpy as np
import pytest
import torch

import framework
from framework.autograd import gradcheck, gradgradcheck

CLASSES = [
    (dims, mode, pad, align)
    for dims, modes in ((2, ("bilinear", "nearest", "bicubic")), (3, ("bilinear", "nearest")))
    for mode in modes
    for pad in ("zeros", "border", "reflection")
    for align in (False, True)
]


def _grads(L, x, g, up, kw, layout):
    """(output, grad input, grad grid) for the grid given in `layout`: 'contiguous', 'nchw'
    (a (N, 2, H, W) tensor permuted: the W axis contiguous) or 'strided' (every other
    column of a wider grid: torch's general case, one row at a time)."""
    xt = L.tensor(x, requires_grad=True)
    if layout == "nchw":
        leaf = L.tensor(np.ascontiguousarray(np.moveaxis(g, -1, 1)), requires_grad=True)
        gt = leaf.permute(0, *range(2, g.ndim), 1)
    elif layout == "strided":
        wide = np.repeat(g, 2, axis=-2)
        leaf = L.tensor(wide, requires_grad=True)
        gt = leaf[..., ::2, :]
    else:
        leaf = gt = L.tensor(g, requires_grad=True)
    y = L.nn.functional.grid_sample(xt, gt, **kw)
    gx, gg = L.autograd.grad(y, (xt, leaf), L.tensor(up))
    layout = tuple(st for n, st in zip(gt.shape, gt.stride()) if n != 1)  # (size 1: any)
    return [y.detach().numpy(), gx.numpy(), gg.numpy()], layout


def _case(r, dims, dtype, special=False):
    n, c = int(r.integers(1, 3)), int(r.integers(1, 4))
    sp = tuple(int(r.integers(1, 6)) for _ in range(dims))
    out = tuple(int(r.integers(1, 7 if dims == 2 else 4)) for _ in range(dims))
    x = r.standard_normal((n, c) + sp).astype(dtype)
    g = (r.uniform(-1, 1, (n,) + out + (dims,)) * r.choice([0.7, 1.3, 3.5])).astype(dtype)
    if special:  # borders, a tap exactly on the grid, far outside, -0.0, a non-finite input
        flat = g.reshape(-1)
        vals = [1.0, -1.0, 0.0, -0.0, 1e10, -1e10, 0.5][: flat.size]
        flat[r.choice(flat.size, len(vals), replace=False)] = vals
        x.reshape(-1)[r.integers(x.size)] = r.choice([np.inf, -np.inf, np.nan])
    up = r.standard_normal((n, c) + out).astype(dtype)
    return x, g, up


def _same(want, got):
    assert want.shape == got.shape
    np.testing.assert_array_equal(np.isnan(want), np.isnan(got))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(want[ok].view(np.uint8), got[ok].view(np.uint8))


@pytest.mark.parametrize("dims,mode,pad,align", CLASSES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_gradients_are_torchs_bits(dims, mode, pad, align, dtype):
    """Output, input gradient and grid gradient have torch's bits (signed zeros included)
    on random cases, the grid contiguous, permuted from (N, 2, H, W) and column-strided."""
    r = np.random.default_rng([dims, len(mode), len(pad), align, np.dtype(dtype).itemsize])
    kw = dict(mode=mode, padding_mode=pad, align_corners=align)
    for i in range(8):
        x, g, up = _case(r, dims, dtype)
        layout = ("contiguous", "nchw", "strided")[i % 3]
        want, t_stride = _grads(torch, x, g, up, kw, layout)
        got, f_stride = _grads(framework, x, g, up, kw, layout)
        assert f_stride == t_stride
        if mode == "bicubic" and layout != "contiguous":
            # the compiler contracts the bicubic rows' sums per iterator loop: the
            # contiguous grid's loop is replayed exactly, the other two to a few ulps
            # (measured: no single contraction pattern matched every element there)
            eps = np.finfo(dtype).eps
            np.testing.assert_allclose(got[0], want[0], rtol=8 * eps, atol=8 * eps)
            want, got = want[1:], got[1:]
        for w, f in zip(want, got):
            _same(w, f)


@pytest.mark.parametrize("dims,mode,pad,align", CLASSES)
def test_special_values_as_torch(dims, mode, pad, align):
    """Grid points on the borders, on a tap, far outside (1e10), -0.0, and an inf or NaN in
    the input: torch's values and gradients, NaN where torch's are."""
    r = np.random.default_rng([7, dims, len(mode), len(pad), align])
    kw = dict(mode=mode, padding_mode=pad, align_corners=align)
    for dtype in (np.float32, np.float64):
        for _ in range(4):
            x, g, up = _case(r, dims, dtype, special=True)
            want, _ = _grads(torch, x, g, up, kw, "contiguous")
            got, _ = _grads(framework, x, g, up, kw, "contiguous")
            for w, f in zip(want, got):
                _same(w, f)


def test_second_order_through_the_kernels():
    """The backward node's forward is the replayed kernel: a create_graph gradient has
    torch's bits, and its own gradient torch's values."""
    r = np.random.default_rng(3)
    x = r.standard_normal((2, 3, 5, 4))
    g = r.uniform(-1.2, 1.2, (2, 3, 5, 2))
    up, u2 = r.standard_normal((2, 3, 3, 5)), r.standard_normal(g.shape)
    res = []
    for L in (torch, framework):
        xt, gt = L.tensor(x, requires_grad=True), L.tensor(g, requires_grad=True)
        y = L.nn.functional.grid_sample(xt, gt, mode="bicubic", align_corners=False)
        gx, gg = L.autograd.grad(y, (xt, gt), L.tensor(up), create_graph=True)
        h = L.autograd.grad(gg, (xt, gt), L.tensor(u2))
        res.append([gx.detach().numpy(), gg.detach().numpy(), *(t.numpy() for t in h)])
    want, got = res
    for w, f in zip(want[:2], got[:2]):
        _same(w, f)
    for w, f in zip(want[2:], got[2:]):
        np.testing.assert_allclose(f, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dims,mode,pad,align", [c for c in CLASSES if c[3]])
def test_gradcheck_and_gradgradcheck(dims, mode, pad, align):
    """float64 gradcheck and gradgradcheck of the replayed kernels (points away from the
    kinks at integer coordinates and borders)."""
    r = np.random.default_rng([11, dims, len(mode), len(pad)])
    sp = (4,) * dims
    x = framework.tensor(r.standard_normal((1, 2) + sp), requires_grad=True)
    # pixel coordinates k + 0.3 .. k + 0.7, inside: no tap or border crossed by the steps
    pix = r.integers(0, 3, (1,) + (2,) * dims + (dims,)) + r.uniform(0.3, 0.7)
    g = framework.tensor(pix / 1.5 - 1, requires_grad=mode != "nearest")

    def f(a, b):
        return framework.nn.functional.grid_sample(
            a, b, mode=mode, padding_mode=pad, align_corners=align
        )

    assert gradcheck(f, (x, g))
    assert gradgradcheck(f, (x, g))
