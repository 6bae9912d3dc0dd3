"""torch's vectorised 2-D grid_sample CPU kernel (GridSamplerKernel.cpp, AVX2), replayed in
NumPy for float32/float64 so values and gradients have its bits.

Each output location is one lane of a vector of 8 (float32) or 4 (float64) locations; a lane's
arithmetic is written below op by op in torch's order (its ComputeLocation, ApplyGridSample).
Lanes are independent except for the input gradient, which torch scatter-adds lane by lane:
per vector of locations, per channel, per tap, per lane. `_order` gives that order (the
vectors follow the grid's layout, as grid_sample_2d_grid_slice_iterator walks it) and
`np.add.at` adds in it. Lanes past the end of a short vector are never stored or scattered.
"""

import numpy as np

from .._fma import fused

_A = -0.75  # the cubic convolution coefficient


def _fma(a, b, c):
    """a * b + c rounded once, where torch's build contracts the multiply-add (GCC's
    -ffp-contract=fast on the Vectorized operators)."""
    a, b, c = (np.ascontiguousarray(v) for v in np.broadcast_arrays(a, b, c))
    return fused(a, b, c)


def _dot4(coef, vals):
    """c0 * v0 + c1 * v1 + c2 * v2 + c3 * v3 as torch's build rounds it: the first product
    alone, each later one fused into the running sum."""
    acc = coef[0] * vals[0]
    for c, v in zip(coef[1:], vals[1:]):
        acc = _fma(c, v, acc)
    return acc


def _lanes(dtype):
    return 32 // np.dtype(dtype).itemsize  # an AVX2 register


class _Axis:
    """One spatial axis of size `size`: torch's ComputeLocation (scalars in the dtype)."""

    def __init__(self, size, padding, align, dtype):
        t = np.dtype(dtype).type
        self.t, self.size, self.padding, self.align = t, size, padding, align
        self.max_val = t(size - 1)
        self.scale = t(size - 1) / t(2) if align else t(size) / t(2)
        self.low = t(0) if align else t(-0.5)
        self.twice_span = t(size - 1) * t(2) if align else t(size) * t(2)
        self.empty = size <= 1 if align else size <= 0

    def unnormalize(self, g):
        """grid_sampler_unnormalize: a grid value in [-1, 1] to a pixel coordinate (align:
        (g + 1) * scale; else one FMA of (g + 1) * scale - 0.5, as the vector kernel)."""
        t = self.t
        if self.align:
            return (g + t(1)) * self.scale
        return _fma(g + t(1), self.scale, t(-0.5))

    def clip(self, x):
        """clamp_max(max_val, clamp_min(0, x)): NaN and -0 become +0."""
        x = np.where(x > 0, x, self.t(0))
        return np.where(x < self.max_val, x, self.max_val)

    def reflect(self, x):
        """reflect_coordinates: x folded into [low, low + span] (the truncated quotient's
        remainder by one FMA, as torch's vectorised kernel)."""
        t = self.t
        if self.align and self.empty:
            return np.zeros_like(x)
        a = np.abs(x - self.low) if not self.align else np.abs(x)
        extra = _fma(-np.trunc(a / self.twice_span), self.twice_span, a)
        r = np.minimum(extra, self.twice_span - extra)
        return r if self.align else r + t(self.low)

    def coordinates(self, x):
        """compute_coordinates: the padding rule on an unnormalised coordinate."""
        if self.padding == "border":
            return self.clip(x)
        if self.padding == "reflection":
            return self.clip(self.reflect(x))
        return x

    def apply(self, g):
        """The source coordinate of grid values g: unnormalised, then the padding rule."""
        return self.coordinates(self.unnormalize(g))

    def apply_get_grad(self, g):
        """(coordinate, d coordinate / d grid): borders count as clipped (gradient 0)."""
        t = self.t
        x = self.unnormalize(g)
        if self.padding == "zeros":
            return x, np.full_like(x, self.scale)
        grad = np.full_like(x, self.scale)
        if self.padding == "reflection":
            if self.align and self.empty:
                x, grad = np.zeros_like(x), np.zeros_like(x)
            else:
                d = x - self.low if not self.align else x
                neg = d < 0
                a = np.abs(d)
                extra = _fma(-np.trunc(a / self.twice_span), self.twice_span, a)
                refl = self.twice_span - extra
                flip = extra > refl
                x = np.where(flip, refl, extra)
                if not self.align:
                    x = x + t(self.low)
                grad = np.where(flip ^ neg, t(-1), t(1)) * grad
        nan = np.isnan(x)
        lo = np.where((x > 0) | nan, x, t(0))  # maximum(x, 0): NaN propagates
        inside = lo != 0
        res = np.where((lo < self.max_val) | nan, lo, self.max_val)
        inside &= res != self.max_val
        return res, np.where(inside, grad, t(0))


def _int(x, dtype):
    """convert_to_int_of_same_size: truncation; out of range (and NaN) as the CPU's
    cvtt (the lowest integer), which every bounds test rejects."""
    it = np.int32 if np.dtype(dtype).itemsize == 4 else np.int64
    info = np.iinfo(it)
    bad = ~(np.abs(x) < -float(info.min))
    with np.errstate(invalid="ignore"):
        return np.where(bad, info.min, np.trunc(np.where(bad, 0, x))).astype(np.int64)


def _gather(flat, idx, mask):
    """mask_gather: the input (N, C, H*W) at idx (N, M), 0 where the mask is off."""
    safe = np.where(mask, idx, 0)
    v = np.take_along_axis(flat, safe[:, None, :], 2)
    return np.where(mask[:, None, :], v, flat.dtype.type(0))


def _case(grid):
    """Which of grid_sample_2d_grid_slice_iterator's three loops walks this grid: 1 (the
    (H, W, 2) slice contiguous), 2 (W contiguous, whole slice or (flat=False) row by row),
    3 (the general gather, row by row); returns (case, flat)."""
    _, ho, wo, _ = grid.shape
    sh, sw, sc = (s // grid.itemsize for s in grid.strides[1:])
    if _contiguous((ho, wo, 2), (sh, sw, sc)):
        return 1, True
    if sw == 1 or wo == 1:
        return 2, _contiguous((ho, wo), (sh, sw))
    return 3, False


def _order(m, grid, lanes):
    """Positions (out of m = Ho * Wo) in the order torch's iterator hands them out, as
    (vectors, lanes) with -1 past the end of a short vector."""
    wo = grid.shape[2]
    rows = [(0, m)] if _case(grid)[1] else [(h * wo, wo) for h in range(grid.shape[1])]
    out = []
    for base, n in rows:
        k = -(-n // lanes)
        p = np.arange(k * lanes).reshape(k, lanes)
        out.append(np.where(p < n, p + base, -1))
    return np.concatenate(out) if out else np.zeros((0, lanes), np.int64)


def _contiguous(sizes, strides):
    """at::geometry_is_contiguous: sizes of 1 have any stride."""
    want = 1
    for n, s in zip(reversed(sizes), reversed(strides)):
        if n != 1 and s != want:
            return False
        want *= n
    return True


class _Scatter:
    """The input gradient's mask_scatter_add calls, collected and replayed in torch's order."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.taps = shape, dtype, []

    def add(self, idx, mask, vals):
        """One tap: destinations (N, M), mask (N, M), values (N, C, M)."""
        self.taps.append((idx, mask, vals))

    def result(self, grid):
        """The input gradient (N, C, H, W): every tap's values added at its destinations
        in torch's order (the iterator's vectors over `grid`, then tap by tap, lane by
        lane)."""
        n, c, h, w = self.shape
        out = np.zeros(n * c * h * w, self.dtype)
        if not self.taps:
            return out.reshape(self.shape)
        m = self.taps[0][0].shape[1]
        pos = _order(m, grid, _lanes(self.dtype))  # (vectors, lanes)
        live = pos >= 0
        p = np.where(live, pos, 0)
        idx = np.stack([t[0][:, p] for t in self.taps], 2)  # (N, V, T, L)
        ok = np.stack([t[1][:, p] for t in self.taps], 2) & live[None, :, None, :]
        val = np.stack([t[2][:, :, p] for t in self.taps], 3)  # (N, C, V, T, L)
        base = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * (h * w)
        dest = base[:, :, None, None, None] + idx[:, None]
        ok = np.broadcast_to(ok[:, None], dest.shape)
        np.add.at(out, dest[ok], val[ok])
        return out.reshape(self.shape)


def _cubic(tx):
    """get_cubic_coefficients, op by op."""
    t = tx.dtype.type
    a = t(_A)
    far_c = (t(5) * a, t(8) * a, t(4) * a)
    near_c = (a + t(2), a + t(3))

    def far(x):
        """The outer taps' cubic (each k * A a product of its own: no FMA here)."""
        return ((a * x - far_c[0]) * x + far_c[1]) * x - far_c[2]

    def near(x):
        """The inner taps' cubic, two FMAs as GCC contracted them."""
        return _fma(_fma(near_c[0], x, -near_c[1]) * x, x, t(1))

    return [far(tx + t(1)), near(tx), near(t(1) - tx), far(t(2) - tx)]


def _cubic_grad(tx):
    """get_cubic_coefficients_grad, op by op."""
    t = tx.dtype.type
    a = t(_A)
    n3a, a10, a8 = t(-3) * a, t(10) * a, t(8) * a
    n3b, b2 = t(-3) * (a + t(2)), t(2) * (a + t(3))
    p3b, p3a = t(3) * (a + t(2)), t(3) * a
    x0, x1, x2, x3 = t(-1) - tx, t(0) - tx, t(1) - tx, t(2) - tx
    return [  # (no FMA: each k * A is the product contracted, exactly)
        (n3a * x0 - a10) * x0 - a8,
        (n3b * x1 - b2) * x1,
        (p3b * x2 - b2) * x2,
        (p3a * x3 - a10) * x3 + a8,
    ]


def _setup(x, grid, padding, align):
    n, c, h, w = x.shape
    dt = x.dtype
    ax_w, ax_h = _Axis(w, padding, align, dt), _Axis(h, padding, align, dt)
    g = grid.reshape(n, grid.shape[1] * grid.shape[2], 2)  # (explicit sizes: empty)
    return ax_w, ax_h, g[..., 0], g[..., 1], x.reshape(n, c, h * w)


def _bilinear_params(x, y, w_, h_, zeros, dt):
    """compute_interp_params: weights, masks and the north-west index."""
    t = dt.type
    xw, yn = np.floor(x), np.floor(y)
    w = x - xw
    e = t(1) - w
    nn = y - yn
    s = t(1) - nn
    ix, iy = _int(xw, dt), _int(yn, dt)
    ixe, iys = ix + 1, iy + 1
    if zeros:
        wm, nm = (ix > -1) & (ix < w_), (iy > -1) & (iy < h_)
        em, sm = (ixe > -1) & (ixe < w_), (iys > -1) & (iys < h_)
        nwm = wm & nm
    else:
        em, sm = ixe < w_, iys < h_
        wm = nm = nwm = np.ones_like(em)
    masks = (nwm, em & nm, wm & sm, em & sm)
    weights = (s * e, s * w, nn * e, nn * w)
    corners = (iy * w_ + ix, iy * w_ + ixe, iys * w_ + ix, iys * w_ + ixe)
    return (nn, s, w, e), weights, masks, corners


def forward(x, grid, mode, padding, align):
    """grid_sampler_2d on NumPy float32/float64 arrays: (N, C, Ho, Wo)."""
    n, c = x.shape[:2]
    ho, wo = grid.shape[1:3]
    dt = x.dtype
    if not n * c * ho * wo:
        return np.zeros((n, c, ho, wo), dt)
    ax_w, ax_h, gx, gy, flat = _setup(x, grid, padding, align)
    h_, w_ = x.shape[2:]
    with np.errstate(all="ignore"):
        if mode == "bicubic":
            first_only = _case(grid)[0] == 1 or (dt == np.float32 and padding != "reflection")
            out = _bicubic_forward(ax_w, ax_h, gx, gy, flat, padding == "zeros", first_only)
        else:
            xs, ys = ax_w.apply(gx), ax_h.apply(gy)
            if mode == "nearest":
                ix, iy = _int(np.rint(xs), dt), _int(np.rint(ys), dt)
                mask = np.ones(ix.shape, bool)
                if padding == "zeros":
                    mask = (ix > -1) & (ix < w_) & (iy > -1) & (iy < h_)
                out = _gather(flat, iy * w_ + ix, mask)
            else:
                _, wts, masks, corners = _bilinear_params(xs, ys, w_, h_, padding == "zeros", dt)
                vals = [_gather(flat, i, m) for i, m in zip(corners, masks)]
                out = _dot4([wt[:, None, :] for wt in wts], vals)
    return out.reshape(n, c, ho, wo)


def _tap(ax_w, ax_h, xx, yy, zeros):
    """get_value_bounded's index and mask at float tap positions xx, yy."""
    dt = xx.dtype
    ix, iy = _int(ax_w.coordinates(xx), dt), _int(ax_h.coordinates(yy), dt)
    mask = np.ones(ix.shape, bool)
    if zeros:
        mask = (ix > -1) & (ix < ax_w.size) & (iy > -1) & (iy < ax_h.size)
    return iy * ax_w.size + ix, mask


def _bicubic_forward(ax_w, ax_h, gx, gy, flat, zeros, first_only):
    """The sixteen taps, row by row (interp_x), then the rows. The compiler contracts each
    row's sum as it schedules the inlined kernel, which differs between the iterator's
    loops (measured): only the first product fused (`first_only`: the contiguous grid's
    loop; float32 outside reflection padding in the other loops) or, as the rows' sum,
    every later product. (The general loop, a column-strided grid, still differs in a few
    float64 and float32-reflection elements by an ulp: no pattern tried matched them all.)"""
    t = flat.dtype.type
    x, y = ax_w.unnormalize(gx), ax_h.unnormalize(gy)
    ix, iy = np.floor(x), np.floor(y)
    cx, cy = _cubic(x - ix), _cubic(y - iy)
    rows = []
    for j in range(4):  # torch's interp_x[j]: one row of taps, then the rows
        taps = [_tap(ax_w, ax_h, ix + t(i - 1), iy + t(j - 1), zeros) for i in range(4)]
        v = [_gather(flat, *tp) for tp in taps]
        c = [a[:, None, :] for a in cx]
        if first_only:
            rows.append((_fma(c[0], v[0], c[1] * v[1]) + c[2] * v[2]) + c[3] * v[3])
        else:
            rows.append(_dot4(c, v))
    return _dot4([c[:, None, :] for c in cy], rows)


def backward(go, x, grid, mode, padding, align, need_input):
    """grid_sampler_2d_backward on NumPy float32/float64 arrays: (grad input or None, grad
    grid); go is the output's gradient (N, C, Ho, Wo)."""
    n, c = x.shape[:2]
    dt = x.dtype
    if not go.size:
        return (np.zeros(x.shape, dt) if need_input else None), np.zeros(grid.shape, dt)
    ax_w, ax_h, gx_, gy_, flat = _setup(x, grid, padding, align)
    h_, w_ = x.shape[2:]
    gout = np.ascontiguousarray(go).reshape(n, c, -1)
    scatter = _Scatter(x.shape, dt) if need_input else None
    m = gx_.shape[1]
    gx = gy = np.zeros((n, m), dt)
    with np.errstate(all="ignore"):
        if mode == "nearest":
            if need_input:
                xs, ys = ax_w.apply(gx_), ax_h.apply(gy_)
                ix, iy = _int(np.rint(xs), dt), _int(np.rint(ys), dt)
                mask = np.ones(ix.shape, bool)
                if padding == "zeros":
                    mask = (ix > -1) & (ix < w_) & (iy > -1) & (iy < h_)
                scatter.add(iy * w_ + ix, mask, gout)
        elif mode == "bilinear":
            (xs, xm), (ys, ym) = ax_w.apply_get_grad(gx_), ax_h.apply_get_grad(gy_)
            (nn, s, w, e), wts, masks, corners = _bilinear_params(
                xs, ys, w_, h_, padding == "zeros", dt
            )
            if need_input:
                for wt, mk, i in zip(wts, masks, corners):
                    scatter.add(i, mk, wt[:, None, :] * gout)
            nw, ne, sw, se = (_gather(flat, i, mk) for i, mk in zip(corners, masks))
            for k in range(c):
                g = gout[:, k]
                dx = _fma(se[:, k] - sw[:, k], nn, (ne[:, k] - nw[:, k]) * s)
                dy = _fma(se[:, k] - ne[:, k], w, (sw[:, k] - nw[:, k]) * e)
                gx, gy = _fma(dx, g, gx), _fma(dy, g, gy)
            gx, gy = gx * xm, gy * ym
        else:
            gx, gy = _bicubic_backward(ax_w, ax_h, gx_, gy_, flat, gout, scatter, padding)
            gx, gy = gx * ax_w.scale, gy * ax_h.scale
    gg = np.stack([gx, gy], -1).reshape(grid.shape)
    if mode == "nearest":
        gg = np.zeros(grid.shape, dt)
    return (scatter.result(grid) if need_input else None), gg


def _bicubic_backward(ax_w, ax_h, gx_, gy_, flat, gout, scatter, padding):
    t = flat.dtype.type
    c = flat.shape[1]
    x, y = ax_w.unnormalize(gx_), ax_h.unnormalize(gy_)
    ix, iy = np.floor(x), np.floor(y)
    tx, ty = x - ix, y - iy
    cx, cy, cxg, cyg = _cubic(tx), _cubic(ty), _cubic_grad(tx), _cubic_grad(ty)
    taps = {}
    for i in range(4):
        for j in range(4):
            idx, mk = _tap(ax_w, ax_h, ix + t(i - 1), iy + t(j - 1), padding == "zeros")
            taps[i, j] = idx, mk, _gather(flat, idx, mk)
            if scatter is not None:
                scatter.add(idx, mk, gout * cx[i][:, None, :] * cy[j][:, None, :])
    gx = gy = np.zeros(x.shape, flat.dtype)
    for k in range(c):
        g = gout[:, k]
        for i in range(4):
            for j in range(4):
                vg = taps[i, j][2][:, k] * g
                gx = _fma(-(vg * cxg[i]), cy[j], gx)
                gy = _fma(-(vg * cyg[j]), cx[i], gy)
    return gx, gy


__all__ = []
