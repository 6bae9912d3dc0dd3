"""The ggGrid terms of torch's grid_sampler_2d_double_backward for bicubic sampling, op by op
(read off its aten calls with a dispatch-mode trace, so NaN and inf land where torch's do).

Each axis has four taps at floor(x) - 1 .. floor(x) + 2 with cubic-convolution weights w (A =
-0.75) and their first and second derivatives dw, d2w in the coordinate; the sixteen taps
are gathered at padded indices (zeros padding: clamped and multiplied by the in-bounds mask,
so an inf read off the input gives NaN; border: clamped; reflection: reflected one by one).
The coordinate itself is only scaled, so d coordinate / d grid is the scale.

Written in Tensor ops, so it is itself differentiable (third order)."""

_A = -0.75


def _weights(t):
    """(w, dw, d2w) of the four taps at fraction t, each stacked on a new last axis, with
    torch's operation order (a = t + 1, b = 1 - t, c = 2 - t)."""
    from .join import stack

    a, b, c = t + 1.0, 1.0 - t, 2.0 - t

    def far(x):
        """The cubic convolution weight of an outer tap (1 < |x| < 2), torch's operation order."""
        return ((x * _A - 5 * _A) * x + 8 * _A) * x - 4 * _A

    def near(x):
        """The cubic convolution weight of an inner tap (|x| <= 1), torch's operation order."""
        return (x * (_A + 2) - (_A + 3)) * x.pow(2) + 1

    def dfar(x):
        """far's derivative in torch's operation order."""
        return (x * (3 * _A) - 10 * _A) * x + 8 * _A

    def dnear(x):
        """near's derivative in torch's operation order."""
        return (x * (3 * (_A + 2)) - 2 * (_A + 3)) * x

    w = stack([far(a), near(t), near(b), far(c)], -1)
    dw = stack([dfar(a), dnear(t), -dnear(b), (c * (-3 * _A) + 10 * _A) * c - 8 * _A], -1)
    d2w = [a * (6 * _A) - 10 * _A, t * (6 * (_A + 2)) - 2 * (_A + 3)]
    d2w += [b * (6 * (_A + 2)) - 2 * (_A + 3), c * (6 * _A) - 10 * _A]
    return w, dw, stack(d2w, -1)


def _reflect_tap(pos, size, align, dtype):
    """torch's reflection of an integer tap index (in the input's dtype), rounded back."""
    if align and size == 1:
        return pos.new_zeros(tuple(pos.shape))
    lo, span = (0.0, size - 1) if align else (-0.5, size)
    d = (pos.to(dtype) - lo).abs()
    even = (d / span).floor().fmod(2) < 0.5
    extra = d.fmod(span)
    r = extra.where(even, span - extra) + lo
    return r.round().clamp(0, size - 1).long()


def _flat(hw, sizes, padding, align, dtype):
    """The flat index (y * W + x) of every tap at the padded positions."""
    (h_idx, w_idx), (h, w) = hw, sizes
    if padding == "reflection":
        ph, pw = (_reflect_tap(p, n, align, dtype) for p, n in ((h_idx, h), (w_idx, w)))
    else:
        ph, pw = h_idx.clamp(0, h - 1), w_idx.clamp(0, w - 1)
    return ph * w + pw


def bicubic_grid_terms(gggrid, go, inp, grid, args, need):
    """(d grad_output, d input, d grid) from ggGrid alone, None where not needed."""
    from .. import arange
    from .join import stack

    _, padding, align = args
    need_go, need_x, need_grid = need
    n, ch, h, w = inp.shape
    ho, wo = grid.shape[1], grid.shape[2]
    scales = [((s - 1) / 2 if align else s / 2) for s in (w, h)]
    coords, lows = [], []
    for k, s in enumerate(scales):
        c = (grid[..., k] + 1) * s
        coords.append(c if align else c - 0.5)
        lows.append(coords[-1].floor().long())
    gg = [gggrid[..., k] * s for k, s in enumerate(scales)]
    (wx, dwx, d2wx), (wy, dwy, d2wy) = (_weights(c - lo.to(c.dtype)) for c, lo in zip(coords, lows))
    offs = arange(-1, 3, dtype=lows[0].dtype)
    xt, yt = (lo.unsqueeze(-1) + offs for lo in lows)
    w_idx = xt.unsqueeze(-2).expand(n, ho, wo, 4, 4).reshape(n, ho, wo, 16)
    h_idx = yt.unsqueeze(-1).expand(n, ho, wo, 4, 4).reshape(n, ho, wo, 16)
    flat = _flat((h_idx, w_idx), (h, w), padding, align, inp.dtype)
    index = flat.reshape(n, 1, ho * wo * 16).expand(n, ch, ho * wo * 16)
    v = inp.reshape(n, ch, h * w).gather(2, index).reshape(n, ch, ho, wo, 16)
    mask = None
    if padding == "zeros":
        inb = (w_idx >= 0) & (w_idx < w) & (h_idx >= 0) & (h_idx < h)
        mask = inb.unsqueeze(1).to(v.dtype)
        v = v * mask
    b_dx = (wy.unsqueeze(-1) * dwx.unsqueeze(-2)).reshape(n, ho, wo, 16)
    b_dy = (dwy.unsqueeze(-1) * wx.unsqueeze(-2)).reshape(n, ho, wo, 16)
    d_go = d_x = d_grid = None
    if need_go:
        sx = (v * b_dx.unsqueeze(1)).sum(-1)
        sy = (v * b_dy.unsqueeze(1)).sum(-1)
        d_go = (sx * gg[0].unsqueeze(1)).addcmul(sy, gg[1].unsqueeze(1))
    if need_x:
        coef = (gg[0].unsqueeze(-1) * b_dx).addcmul(gg[1].unsqueeze(-1), b_dy)
        contrib = go.unsqueeze(-1) * coef.unsqueeze(1)
        if mask is not None:
            contrib = contrib * mask
        d_x = inp.new_zeros((n, ch, h * w))
        d_x = d_x.scatter_add(2, index, contrib.reshape(n, ch, ho * wo * 16))
        d_x = d_x.reshape(tuple(inp.shape))
    if need_grid:
        xx = yy = xy = None
        for j in range(4):
            for i in range(4):
                s = (go * v[..., 4 * j + i]).sum(1)
                terms = (
                    (s * d2wx[..., i]) * wy[..., j],
                    (s * wx[..., i]) * d2wy[..., j],
                    (s * dwx[..., i]) * dwy[..., j],
                )
                if xx is None:
                    xx, yy, xy = terms
                else:
                    xx, yy, xy = xx + terms[0], yy + terms[1], xy + terms[2]
        d_grid = stack(
            [
                (gg[0] * xx).addcmul(gg[1], xy) * scales[0],
                (gg[0] * xy).addcmul(gg[1], yy) * scales[1],
            ],
            -1,
        )
    return d_go, d_x, d_grid


__all__ = []
