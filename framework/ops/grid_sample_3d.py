"""torch's scalar 3-D grid_sample CPU kernel (GridSampler.cpp's grid_sampler_3d_cpu_impl and
its backward, with GridSampler.h's coordinate helpers) replayed in NumPy for float32/float64,
so values and gradients have its bits.

Every output location is computed on its own, op by op as torch's loop does; GridSampler.cpp
is built for the baseline x86-64 (no FMA), so every product and sum rounds on its own
(measured: no contraction, unlike the AVX2 2-D kernel). The input gradient is `safe_add_3d`
in torch's order (location by location, corner by corner), which `np.add.at` keeps.
"""

import numpy as np

# corner order tnw, tne, tsw, tse, bnw, bne, bsw, bse: (x, y, z) offsets
_CORNERS = [(k & 1, (k >> 1) & 1, (k >> 2) & 1) for k in range(8)]


def _unnormalize(g, size, align):
    t = g.dtype.type
    if align:
        return ((g + t(1)) / t(2)) * t(size - 1)
    return ((g + t(1)) * t(size) - t(1)) / t(2)


def _clip(x, size):
    """std::min(size - 1, std::max(x, 0)): -0 stays, NaN becomes size - 1."""
    t = x.dtype.type
    x = np.where(x < 0, t(0), x)
    return np.where(x < t(size - 1), x, t(size - 1))


def _bounds(size, align):
    return (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)


def _reflect(x, size, align, sign=False):
    """reflect_coordinates(_set_grad): the coordinate (and with `sign` its +-1 slope)."""
    t = x.dtype.type
    lo2, hi2 = _bounds(size, align)
    if lo2 == hi2:
        zero = np.zeros_like(x)
        return (zero, zero) if sign else zero
    low, span = t(lo2) / t(2), t(hi2 - lo2) / t(2)
    d = x - low
    a = np.abs(d)
    extra = np.fmod(a, span)
    flips = np.floor(a / span)
    # static_cast<int>: past the int range (and NaN) the CPU gives INT_MIN, an even count
    even = ~(np.abs(flips) < 2.0**31) | (np.fmod(flips, 2) == 0)
    coord = np.where(even, extra + low, (span - extra) + low)
    if not sign:
        return coord
    mult = np.where(d < 0, t(-1), t(1))
    return coord, np.where(even, mult, -mult)


def source(g, size, padding, align):
    """grid_sampler_compute_source_index."""
    x = _unnormalize(g, size, align)
    if padding == "border":
        return _clip(x, size)
    if padding == "reflection":
        return _clip(_reflect(x, size, align), size)
    return x


def source_set_grad(g, size, padding, align):
    """grid_sampler_compute_source_index_set_grad: (coordinate, d coordinate / d grid)."""
    t = g.dtype.type
    x = _unnormalize(g, size, align)
    grad = np.full_like(x, t(size - 1) / t(2) if align else t(size) / t(2))
    if padding == "zeros":
        return x, grad
    if padding == "reflection":
        x, refl = _reflect(x, size, align, sign=True)
        grad = grad * refl
    top = t(size - 1)
    inside = (x > 0) & (x < top)  # borders (and NaN: kept, gradient 1) as torch
    nan = np.isnan(x)
    clip = np.where(inside | nan, t(1), t(0))
    x = np.where(x <= 0, t(0), np.where(x >= top, top, x))
    return x, grad * clip


def _int(x):
    """static_cast<int64_t>: out of range and NaN as the CPU's INT64_MIN."""
    bad = ~(np.abs(x) < 2.0**63)
    return np.where(bad, np.iinfo(np.int64).min, np.where(bad, 0, x).astype(np.int64))


def _layout(x, grid):
    n, c = x.shape[:2]
    sizes = x.shape[2:][::-1]  # (W, H, D): x, y, z
    m = grid.shape[1] * grid.shape[2] * grid.shape[3]
    g = grid.reshape(n, m, 3)
    return n, c, sizes, m, g, x.reshape(n, c, -1)


def _corners(coords, sizes, dt):
    """Per corner: (flat index, in-bounds mask, per-axis factors) as torch's surfaces."""
    lows = [np.floor(v) for v in coords]
    i0 = [_int(v) for v in lows]
    out = []
    for bits in _CORNERS:
        pos = [i + b for i, b in zip(i0, bits)]
        inb = np.ones(pos[0].shape, bool)
        for p, s in zip(pos, sizes):
            inb &= (p >= 0) & (p < s)
        w_, h_, _ = sizes
        idx = (pos[2] * h_ + pos[1]) * w_ + pos[0]
        f = [
            (v - i.astype(dt)) if b else ((i + 1).astype(dt) - v)
            for v, i, b in zip(coords, i0, bits)
        ]
        out.append((np.where(inb, idx, 0), inb, f))
    return out


def forward(x, grid, mode, padding, align):
    """grid_sampler_3d on NumPy float32/float64 arrays: (N, C, Do, Ho, Wo)."""
    dt = x.dtype
    shape = x.shape[:2] + grid.shape[1:4]
    if not np.prod(shape):
        return np.zeros(shape, dt)
    n, c, sizes, m, g, flat = _layout(x, grid)
    with np.errstate(all="ignore"):
        coords = [source(g[..., k], s, padding, align) for k, s in enumerate(sizes)]
        if mode == "nearest":
            pos = [_int(np.rint(v)) for v in coords]
            inb = np.ones(pos[0].shape, bool)
            for p, s in zip(pos, sizes):
                inb &= (p >= 0) & (p < s)
            idx = np.where(inb, (pos[2] * sizes[1] + pos[1]) * sizes[0] + pos[0], 0)
            v = np.take_along_axis(flat, idx[:, None, :], 2)
            return np.where(inb[:, None, :], v, dt.type(0)).reshape(shape)
        out = np.zeros((n, c, m), dt)
        for idx, inb, f in _corners(coords, sizes, dt):
            w = f[0] * f[1] * f[2]
            v = np.take_along_axis(flat, idx[:, None, :], 2)
            out = np.where(inb[:, None, :], out + v * w[:, None, :], out)
    return out.reshape(shape)


def backward(go, x, grid, mode, padding, align, need_input):
    """grid_sampler_3d_backward on NumPy float32/float64 arrays: (grad input or None, grad
    grid)."""
    dt = x.dtype
    zeros_grid = np.zeros(grid.shape, dt)
    if not go.size:
        return (np.zeros(x.shape, dt) if need_input else None), zeros_grid
    n, c, sizes, m, g, flat = _layout(x, grid)
    gout = np.ascontiguousarray(go).reshape(n, c, m)
    adds = []  # (destination (N, M), mask (N, M), weight (N, M) or None) per corner
    with np.errstate(all="ignore"):
        if mode == "nearest":
            if need_input:
                coords = [source(g[..., k], s, padding, align) for k, s in enumerate(sizes)]
                pos = [_int(np.rint(v)) for v in coords]
                inb = np.ones(pos[0].shape, bool)
                for p, s in zip(pos, sizes):
                    inb &= (p >= 0) & (p < s)
                idx = (pos[2] * sizes[1] + pos[1]) * sizes[0] + pos[0]
                adds.append((np.where(inb, idx, 0), inb, None))
            gg = zeros_grid
        else:
            cm = [source_set_grad(g[..., k], s, padding, align) for k, s in enumerate(sizes)]
            coords, mults = [a for a, _ in cm], [b for _, b in cm]
            gi = [np.zeros((n, m), dt) for _ in range(3)]
            corners = _corners(coords, sizes, dt)
            for idx, inb, f in corners:
                if need_input:
                    adds.append((idx, inb, f[0] * f[1] * f[2]))
            for k in range(c):
                go_k = gout[:, k]
                for (idx, inb, f), bits in zip(corners, _CORNERS):
                    v = np.take_along_axis(flat[:, k], idx, 1)
                    for a in range(3):
                        o1, o2 = [f[b] for b in range(3) if b != a]
                        p = (v * o1) * o2
                        step = gi[a] + p * go_k if bits[a] else gi[a] - p * go_k
                        gi[a] = np.where(inb, step, gi[a])
            gg = np.stack([mults[a] * gi[a] for a in range(3)], -1).reshape(grid.shape)
    return (_scatter(adds, gout, x.shape, dt) if need_input else None), gg


def _scatter(adds, gout, shape, dt):
    """safe_add_3d in torch's order: location by location, corner by corner, each
    `data += weight * gOut`."""
    n, c = shape[:2]
    size = int(np.prod(shape[2:]))
    out = np.zeros(n * c * size, dt)
    if not adds:
        return out.reshape(shape)
    base = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * size  # (N, C)
    dest = np.stack([a[0] for a in adds], -1)  # (N, M, K)
    ok = np.stack([a[1] for a in adds], -1)
    dest = base[:, :, None, None] + dest[:, None]  # (N, C, M, K)
    ok = np.broadcast_to(ok[:, None], dest.shape)
    go = np.broadcast_to(gout[..., None], dest.shape)
    if adds[0][2] is None:  # nearest: the gradient itself
        np.add.at(out, dest[ok], go[ok])
        return out.reshape(shape)
    w = np.broadcast_to(np.stack([a[2] for a in adds], -1)[:, None], dest.shape)
    np.add.at(out, dest[ok], (w * go)[ok])
    return out.reshape(shape)


__all__ = []
