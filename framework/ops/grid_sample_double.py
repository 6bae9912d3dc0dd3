"""torch's grid_sampler_2d/3d_double_backward, op by op (bicubic's ggGrid terms:
grid_sample_bicubic_double.py).

The derivative of grid_sample's backward node (GridSampler2DBackwardBackward0) for upstream
gradients ggI (of the input's gradient) and ggGrid (of the grid's), as torch composes it:

- ggI's terms are grid_sample itself (d grad_output) and the grid gradient of a grid_sample
  of ggI (d grid), the first-order kernels again;
- ggGrid's terms gather the input at every corner with clamped indices (zeros padding
  multiplies by the in-bounds mask: an inf read there gives NaN, as torch's), weight them by
  the corner weights' derivatives, and scale by d coordinate / d grid, which the border and
  reflection paddings set to 0 where they clip. A bilinear weight is linear in each axis, so
  d grid takes only the mixed second derivatives.

Written in Tensor ops, so it is itself differentiable (third order)."""

import math

from ..autograd.grad_mode import no_grad


def source_set_grad(g, size, padding, align):
    """torch's grid_sampler_compute_source_index_set_grad on one grid axis: the source
    coordinate and d coordinate / d grid."""
    scale = (size - 1) / 2 if align else size / 2
    x = (g + 1) * scale
    if not align:
        x = x - 0.5
    if padding == "zeros":
        return x, x.new_ones(tuple(x.shape)) * scale
    mult = None
    if padding == "reflection":
        lo2, hi2 = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
        x, mult = _reflect_set_grad(x, lo2, hi2)
    inside = ((x > 0) & (x < size - 1)).to(x.dtype)
    x = x.clamp(0, size - 1)
    mult = inside if mult is None else mult * inside
    return x, mult * scale


def _reflect_set_grad(x, twice_low, twice_high):
    """torch's reflect_coordinates_set_grad: the reflected coordinate and its +-1 slope."""
    if twice_low == twice_high:
        return x.new_zeros(tuple(x.shape)), x.new_zeros(tuple(x.shape))
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    inside = x - lo
    sign = _sign(inside >= 0, x)
    a = inside.abs()
    even = (a / span).floor().fmod(2) < 0.5
    flip = _sign(even, x)
    extra = a.remainder(span)
    coord = (extra + lo).where(even, (span - extra) + lo)
    return coord, sign * flip


def _sign(cond, like):
    """1 where cond, else -1, in like's dtype."""
    one = like.new_ones(())
    return one.where(cond, -one)


def _corners(inp, coords, zeros):
    """The input at every corner (N, C, *out, 2**d), gathered at clamped indices (times the
    in-bounds mask for zeros padding), and the corners' (index, mask) for the scatter."""
    sizes = tuple(inp.shape[2:])[::-1]  # x (last dim) first, as the grid orders them
    d = len(sizes)
    lows = [c.floor().long() for c in coords]
    axes = []  # per axis (x, y[, z]) its index at each corner, x fastest
    for k in range(d):
        lo, hi = lows[k], lows[k] + 1
        axes.append([hi if (j >> k) & 1 else lo for j in range(2**d)])
    from .join import stack

    pos = [stack(a, -1) for a in axes]
    n, c = inp.shape[0], inp.shape[1]
    idx = None
    for k in reversed(range(d)):  # z, then y, then x: ((z * H) + y) * W + x
        p = pos[k].clamp(0, sizes[k] - 1)
        idx = p if idx is None else idx * sizes[k] + p
    m = math.prod(idx.shape[1:])
    flat = idx.reshape(n, 1, m).expand(n, c, m)
    v = inp.reshape(n, c, math.prod(sizes)).gather(2, flat).reshape(n, c, *idx.shape[1:])
    mask = None
    if zeros:
        with no_grad():
            inb = None
            for k in reversed(range(d)):
                ok = (pos[k] >= 0) & (pos[k] < sizes[k])
                inb = ok if inb is None else inb & ok
        mask = inb.unsqueeze(1).to(v.dtype)
        v = v * mask
    return v, lows, flat, mask


def _weight_grads(t, u):
    """d weight / d coordinate per axis at each corner (x fastest), torch's products."""
    if len(t) == 2:
        (tx, ty), (ux, uy) = t, u
        from .join import stack

        return [stack([-uy, uy, -ty, ty], -1), stack([-ux, -tx, ux, tx], -1)]
    (tx, ty, tz), (ux, uy, uz) = t, u
    from .join import stack

    return [
        stack([-uy * uz, uy * uz, -ty * uz, ty * uz, -uy * tz, uy * tz, -ty * tz, ty * tz], -1),
        stack([-ux * uz, -tx * uz, ux * uz, tx * uz, -ux * tz, -tx * tz, ux * tz, tx * tz], -1),
        stack([-ux * uy, -tx * uy, -ux * ty, -tx * ty, ux * uy, tx * uy, ux * ty, tx * ty], -1),
    ]


def _mixed(v, t):
    """Per pair of axes (xy[, xz, yz]) the mixed second derivative's corner sum."""
    c = [v[..., j] for j in range(v.shape[-1])]
    if len(t) == 2:
        return [c[0] - c[1] - c[2] + c[3]]
    tx, ty, tz = (a.unsqueeze(1) for a in t)
    # torch: xy's two planes by mul and add, xz's and yz's by addcmul
    xy = (1 - tz) * (c[0] - c[1] - c[2] + c[3]) + tz * (c[4] - c[5] - c[6] + c[7])
    xz = ((1 - ty) * (c[0] - c[1] - c[4] + c[5])).addcmul(ty, c[2] - c[3] - c[6] + c[7])
    yz = ((1 - tx) * (c[0] - c[2] - c[4] + c[6])).addcmul(tx, c[1] - c[3] - c[5] + c[7])
    return [xy, xz, yz]


def double_backward(ggi, gggrid, go, inp, grid, args, need, sample, sample_grad):
    """(d grad_output, d input, d grid) of grid_sample's backward for upstream gradients ggi
    and gggrid (either None), None where not needed or not reached, as torch's
    grid_sampler_2d/3d_double_backward. `sample(x, grid)` and `sample_grad(go, x, grid)` (the
    grid's gradient) are the first-order ops; nearest sampling has no ggGrid terms (its grid
    gradient is zeros) and so no input term."""
    from .grid_sample_bicubic_double import bicubic_grid_terms

    mode = args[0]
    need_go, _, need_grid = need
    d_go = sample(ggi, grid) if need_go and ggi is not None else None
    d_grid = sample_grad(go, ggi, grid) if need_grid and ggi is not None else None
    if gggrid is None or mode == "nearest":
        return d_go, None, d_grid
    terms = bicubic_grid_terms if mode == "bicubic" else _bilinear_grid_terms
    t_go, d_x, t_grid = terms(gggrid, go, inp, grid, args, need)
    d_go = t_go if d_go is None else (d_go if t_go is None else d_go + t_go)
    d_grid = t_grid if d_grid is None else (d_grid if t_grid is None else d_grid + t_grid)
    return d_go, d_x, d_grid


def _bilinear_grid_terms(gggrid, go, inp, grid, args, need):
    """The ggGrid terms of bilinear (trilinear) sampling: (d grad_output, d input, d grid)."""
    from .join import stack

    _, padding, align = args
    need_go, need_x, need_grid = need
    sizes = tuple(inp.shape[2:])[::-1]
    coords, mults = zip(
        *[source_set_grad(grid[..., k], n, padding, align) for k, n in enumerate(sizes)]
    )
    scaled = [gggrid[..., k] * m for k, m in enumerate(mults)]
    v, lows, flat, mask = _corners(inp, coords, padding == "zeros")
    t = [c - lo.to(c.dtype) for c, lo in zip(coords, lows)]
    u = [1 - a for a in t]
    dws = _weight_grads(t, u)
    d_go = d_x = d_grid = None
    if need_go:  # torch: the first axis's product, then addcmul for each further axis
        for dw, s in zip(dws, scaled):
            part = (v * dw.unsqueeze(1)).sum(-1)
            d_go = part * s.unsqueeze(1) if d_go is None else d_go.addcmul(part, s.unsqueeze(1))
    if need_x:
        coef = None
        for dw, s in zip(dws, scaled):
            s = s.unsqueeze(-1)
            coef = s * dw if coef is None else coef.addcmul(s, dw)
        contrib = go.unsqueeze(-1) * coef.unsqueeze(1)
        if mask is not None:
            contrib = contrib * mask
        n, c = inp.shape[0], inp.shape[1]
        d_x = inp.new_zeros((n, c, math.prod(sizes)))
        d_x = d_x.scatter_add(2, flat, contrib.reshape(flat.shape)).reshape(inp.shape)
    if need_grid:
        sums = [(go * m).sum(1) for m in _mixed(v, t)]
        if len(sizes) == 2:
            (s,) = sums
            gx, gy = scaled
            d_grid = stack([(mults[0] * gy) * s, (mults[1] * gx) * s], -1)
        else:
            sxy, sxz, syz = sums
            gx, gy, gz = scaled
            d_grid = stack(
                [
                    (gy * sxy).addcmul(gz, sxz) * mults[0],
                    (gx * sxy).addcmul(gz, syz) * mults[1],
                    (gx * sxz).addcmul(gy, syz) * mults[2],
                ],
                -1,
            )
    return d_go, d_x, d_grid
