"""grid_sample (2-D, bilinear/nearest, zeros/border/reflection padding) and affine_grid.

Both are primitives named as torch's nodes. grid_sample's pieces (source coordinates,
corner weights, gathered corner values) are written with Tensor ops, so the explicit
backward below is itself differentiable (second derivatives in the input and the grid)."""
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op
from ..tensor import Tensor


def _unnormalize(g, size, align):
    return (g + 1) * ((size - 1) / 2) if align else ((g + 1) * size - 1) / 2


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return x * 0
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    x = (x - lo).abs()
    flips = (x.detach() / span).floor()
    extra = x - flips * span
    even = (flips.remainder(2) == 0)
    return (extra + lo).where(even, span - extra + lo)


def _source(g, size, align, padding):
    """Pixel coordinate of each normalised grid coordinate, with the padding rule applied."""
    x = _unnormalize(g, size, align)
    if padding == "border":
        x = x.clamp(0, size - 1)
    elif padding == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align else _reflect(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def _corners(inp, ix, iy, mode):
    """[(weight, flat index, in-bounds mask)] per corner; weights are Tensors of the grid."""
    h, w = inp.shape[2], inp.shape[3]
    if mode == "nearest":
        x0, y0 = ix.detach().round(), iy.detach().round()
        pts = [(ix * 0 + 1, x0, y0)]
    else:
        x0, y0 = ix.detach().floor(), iy.detach().floor()
        wx1, wy1 = ix - x0, iy - y0
        wx0, wy0 = 1 - wx1, 1 - wy1
        pts = [(wx0 * wy0, x0, y0), (wx1 * wy0, x0 + 1, y0), (wx0 * wy1, x0, y0 + 1),
               (wx1 * wy1, x0 + 1, y0 + 1)]
    out = []
    for wt, cx, cy in pts:
        inb = (cx >= 0) & (cx <= w - 1) & (cy >= 0) & (cy <= h - 1)
        idx = (cy.clamp(0, h - 1) * w + cx.clamp(0, w - 1)).long()
        out.append((wt * inb, idx, inb))
    return out


def _gather(inp, idx):
    n, c = inp.shape[0], inp.shape[1]
    flat_idx = idx.reshape(n, 1, -1).expand(n, c, idx[0].numel())
    return inp.reshape(n, c, -1).gather(2, flat_idx).reshape(n, c, *idx.shape[1:])


def _pieces(inp, grid, mode, padding, align):
    h, w = inp.shape[2], inp.shape[3]
    ix = _source(grid[..., 0], w, align, padding)
    iy = _source(grid[..., 1], h, align, padding)
    return ix, iy, _corners(inp, ix, iy, mode)


class GridSampler2D(Op):
    saves_inputs = True

    def forward(self, x, g, mode="bilinear", padding="zeros", align=False):
        self.args = (mode, padding, align)
        with no_grad():
            inp, grid = Tensor._make(x, _dev(x)), Tensor._make(g, _dev(g))
            _, _, corners = _pieces(inp, grid, *self.args)
            out = sum(wt.unsqueeze(1) * _gather(inp, idx) for wt, idx, _ in corners)
        return out._data

    def backward(self, grad):
        inp, grid = self.inputs
        mode, padding, align = self.args
        need_x, need_g = self.needs_input_grad
        n, c, h, w = inp.shape
        gx = gg = None
        if need_x:
            gx = grad.new_zeros((n, c, h * w))
            _, _, corners = _pieces(inp, grid, mode, padding, align)
            for wt, idx, _ in corners:
                src = (grad * wt.unsqueeze(1)).reshape(n, c, -1)
                gx = gx.scatter_add(2, idx.reshape(n, 1, -1).expand(n, c, src.shape[2]), src)
            gx = gx.reshape(n, c, h, w)
        if need_g and mode == "bilinear":
            ix, iy, corners = _pieces(inp, grid, mode, padding, align)
            vals = [_gather(inp, idx) * inb.unsqueeze(1) for _, idx, inb in corners]
            x0, y0 = ix.detach().floor(), iy.detach().floor()
            wx1, wy1 = ix - x0, iy - y0
            # d out / d ix and d iy from the corner values
            d_ix = (vals[1] - vals[0]) * (1 - wy1).unsqueeze(1) + (vals[3] - vals[2]) * \
                wy1.unsqueeze(1)
            d_iy = (vals[2] - vals[0]) * (1 - wx1).unsqueeze(1) + (vals[3] - vals[1]) * \
                wx1.unsqueeze(1)
            gix, giy = (grad * d_ix).sum(1), (grad * d_iy).sum(1)
            gg = _chain(grid, gix, giy, (w, h), padding, align)
        elif need_g:
            gg = grid * 0
        return gx, gg

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative yet
    jvp_name = "grid_sampler_2d"


def _chain(grid, gix, giy, sizes, padding, align):
    """Back through the coordinate map: d ix / d grid_x (scale, clamp and reflection)."""
    out = []
    for k, (gi, size) in enumerate(zip((gix, giy), sizes)):
        g = grid[..., k].detach().requires_grad_()
        with _enable():
            x = _source(g, size, align, padding)
        from ..autograd import grad as _grad
        d, = _grad(x, g, x.new_ones(tuple(x.shape)))  # piecewise-constant derivative
        out.append(gi * d)
    from .join import stack
    return stack(out, -1)


def _enable():
    from ..autograd.grad_mode import enable_grad
    return enable_grad()


def _dev(a):
    from ..backend import device_of
    return device_of(a)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample input (N, C, H, W) at the normalised (x, y) locations of grid (N, Ho, Wo, 2).

    Args:
        mode: 'bilinear' or 'nearest'.
        padding_mode: 'zeros', 'border' or 'reflection' for locations outside [-1, 1].
        align_corners: -1 and 1 are the centres (True) or the edges (False) of the corner
            pixels.

    Example:
        >>> x = framework.arange(4.).reshape(1, 1, 2, 2)
        >>> F.grid_sample(x, framework.zeros(1, 1, 1, 2), align_corners=False)
        tensor([[[[1.5000]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if mode == "bicubic" or input.dim() != 4:
        raise NotImplementedError("grid_sample here supports 4-D input with bilinear or nearest "
                                  "mode")
    if grid.dim() != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid to have size 2 in last dimension, "
                           f"but got grid with sizes {list(grid.shape)}")
    return GridSampler2D.apply(input, grid, mode=mode, padding=padding_mode,
                               align=bool(align_corners))


def _base_grid(xp, sizes, align, dtype):
    """(*sizes, len(sizes) + 1) homogeneous coordinates, x fastest, as torch's base grid."""
    axes = []
    for n in sizes:
        if n <= 1:
            axes.append(xp.zeros(max(n, 1), dtype=dtype))
        else:
            lin = xp.linspace(-1, 1, n, dtype=dtype)
            axes.append(lin if align else lin * (n - 1) / n)
    grids = xp.meshgrid(*axes, indexing="ij")
    coords = [grids[i] for i in reversed(range(len(sizes)))]  # x, y(, z)
    return xp.stack(coords + [xp.ones_like(grids[0])], -1)


class AffineGridGenerator(Op):
    def forward(self, theta, size=(), align=False):
        self.base = _base_grid(self.xp, size[2:], align, theta.dtype)
        k = self.base.shape[-1]
        flat = self.base.reshape(-1, k)
        out = self.xp.matmul(flat[None], theta.transpose(0, 2, 1))
        return out.reshape((theta.shape[0],) + tuple(size[2:]) + (k - 1,))

    saves = ("base",)

    def backward(self, grad):
        base = Tensor._make(self.base, grad.device)
        k = base.shape[-1]
        g = grad.reshape(grad.shape[0], -1, k - 1)
        return g.transpose(1, 2) @ base.reshape(-1, k)

    jvp = Op.jvp_transpose


def affine_grid(theta, size, align_corners=None):
    """Sampling grid of the affine maps theta (N, 2, 3) or (N, 3, 4) for an output size
    (N, C, H, W) or (N, C, D, H, W).

    Example:
        >>> F.affine_grid(framework.tensor([[[1., 0., 0.], [0., 1., 0.]]]), (1, 1, 1, 2),
        ...               align_corners=False)
        tensor([[[[-0.5000,  0.0000],
                  [ 0.5000,  0.0000]]]])
    """
    size = tuple(int(s) for s in size)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {tuple(theta.shape)}.")
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {tuple(theta.shape)}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return AffineGridGenerator.apply(theta, size=size, align=bool(align_corners))


__all__ = []
