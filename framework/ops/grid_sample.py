"""grid_sample (4-D and 5-D input; bilinear/trilinear, nearest and bicubic; zeros/border/
reflection padding) and affine_grid.

Both are primitives named as torch's nodes. grid_sample's pieces (source coordinates, tap
weights per axis, gathered tap values) are written with Tensor ops, so the explicit backward
below is itself differentiable (second derivatives in the input and the grid)."""

import functools
import itertools
import math
import operator
import warnings

import numpy as np

from .. import dtypes
from .._errors import refuse
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op, vmap_hook
from ..tensor import Tensor
from ._fastgrad import plain
from . import grid_sample_3d, grid_sample_vec
from .grid_sample_double import double_backward, source_set_grad


def _unnormalize(g, size, align):
    return (g + 1) * ((size - 1) / 2) if align else ((g + 1) * size - 1) / 2


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return x * 0
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    x = (x - lo).abs()
    flips = (x.detach() / span).floor()
    extra = x - flips * span
    even = flips.remainder(2) == 0
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


_A = -0.75  # torch's bicubic convolution coefficient


def _cubic(t):
    """The four bicubic tap weights at fraction t (taps floor - 1 .. floor + 2)."""

    def near(x):
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def far(x):
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_grad(t):
    """d/dt of `_cubic`'s weights."""

    def near(x):
        return (3 * (_A + 2) * x - 2 * (_A + 3)) * x

    def far(x):
        return (3 * _A * x - 10 * _A) * x + 8 * _A

    return [far(t + 1), near(t), -near(1 - t), -far(2 - t)]


def _axis_taps(g, size, mode, padding, align):
    """One spatial axis: (coordinate, [(weight, d weight / d coordinate, tap position)])."""
    if mode == "bicubic":  # taps are padded one by one; the coordinate itself is not
        i = _unnormalize(g, size, align)
        i0 = i.detach().floor()
        t = i - i0
        return i, [
            (w, dw, _pad_tap(i0 + (k - 1), size, padding, align))
            for k, (w, dw) in enumerate(zip(_cubic(t), _cubic_grad(t)))
        ]
    i = _source(g, size, align, padding)
    if mode == "nearest":
        return i, [(i * 0 + 1, None, i.detach().round())]
    i0 = i.detach().floor()
    t = i - i0
    return i, [(1 - t, -1, i0), (t, 1, i0 + 1)]


def _pad_tap(pos, size, padding, align):
    if padding == "border":
        return pos.clamp(0, size - 1)
    if padding == "reflection":
        r = _reflect(pos, 0, 2 * (size - 1)) if align else _reflect(pos, -1, 2 * size - 1)
        return r.clamp(0, size - 1).trunc()
    return pos


def _pieces(inp, grid, mode, padding, align):
    """Per grid axis (x, y[, z]) its coordinate and taps, and the flat-index strides."""
    spatial = tuple(inp.shape[2:])[::-1]  # x (last dim) first, as the grid orders them
    axes = [_axis_taps(grid[..., k], n, mode, padding, align) for k, n in enumerate(spatial)]
    strides = [1]
    for n in spatial[:-1]:
        strides.append(strides[-1] * n)
    return axes, spatial, strides


def _corners(axes, spatial, strides, skip=None):
    """[(weight, flat index, in-bounds mask)] over every tap combination; `skip` names an axis
    whose weight is replaced by its derivative (for the grid gradient)."""
    out = []
    for combo in itertools.product(*[taps for _, taps in axes]):
        wt, idx, inb = None, 0, True
        for k, ((w, dw, pos), n, st) in enumerate(zip(combo, spatial, strides)):
            if k == skip:
                w = dw
            wt = w if wt is None else wt * w
            inb = inb & (pos >= 0) & (pos <= n - 1)
            idx = idx + pos.clamp(0, n - 1) * st
        out.append((wt * inb, idx.long(), inb))
    return out


def _gather(inp, idx, inb):
    """The input's values at the flat indices; 0 at out-of-bounds taps (torch never reads
    them: an inf/NaN at the clamped index must not meet the tap's zero weight)."""
    n, c = inp.shape[0], inp.shape[1]
    m = math.prod(idx.shape[1:])  # (explicit sizes, never -1: an empty batch)
    flat_idx = idx.reshape(n, 1, m).expand(n, c, m)
    val = (
        inp.reshape(n, c, math.prod(inp.shape[2:]))
        .gather(2, flat_idx)
        .reshape(n, c, *idx.shape[1:])
    )
    return val.where(inb.unsqueeze(1), 0)


class GridSampler2D(Op):
    """grid_sample over (N, C, H, W): bilinear, nearest or bicubic taps, summed."""

    saves_inputs = True
    # torch's vectorised 2-D kernel reads out-of-bounds taps as 0 (0 * an inf gradient is
    # NaN); its scalar 3-D kernel skips them in the grid gradient
    skips_taps = False

    def forward(self, x, g, mode="bilinear", padding="zeros", align=False):
        self.args = (mode, padding, align)
        if _replays(x):
            return _kernel(x).forward(x, g, mode, padding, align)
        with no_grad():
            inp, grid = Tensor._make(x, _dev(x)), Tensor._make(g, _dev(g))
            corners = _corners(*_pieces(inp, grid, *self.args))
            # summed from the first tap, not from 0: a nearest tap of -0.0 stays -0.0
            terms = [wt.unsqueeze(1) * _gather(inp, idx, inb) for wt, idx, inb in corners]
            out = functools.reduce(operator.add, terms)
        return out._data

    def backward(self, grad):
        inp, grid = self.inputs
        need = self.needs_input_grad
        if plain(grad) or vmap_hook[0]:  # no graph to record (or batched): the formula
            return _input_grads(grad, inp, grid, self.args, need, self.skips_taps)
        node = GridSampler2DBackward if type(self)._op is GridSampler2D else GridSampler3DBackward
        outs = node.apply(grad, inp, grid, args=self.args, mask=tuple(need))
        return tuple(o if n else None for o, n in zip(outs, need))

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative yet
    jvp_name = "grid_sampler_2d"


class GridSampler3D(GridSampler2D):
    """grid_sample over (N, C, D, H, W): trilinear or nearest."""

    skips_taps = True

    jvp_name = "grid_sampler_3d"


def _input_grads(grad, inp, grid, args, need, skips_taps):
    """grid_sample's gradients (input, grid) for `grad`, in Tensor ops (None where not
    needed): the input's is the taps' weights scattered back, the grid's the weights'
    derivatives times the gathered taps, chained through the coordinate map."""
    mode, padding, align = args
    need_x, need_g = need
    if _replays(inp._data) and not vmap_hook[0]:
        gx, gg = _kernel(inp._data).backward(
            grad._data, inp._data, grid._data, mode, padding, align, need_x
        )
        return (
            Tensor._make(gx, inp.device) if need_x else None,
            Tensor._make(gg, grid.device) if need_g else None,
        )
    n, c = inp.shape[0], inp.shape[1]
    gx = gg = None
    axes, spatial, strides = _pieces(inp, grid, mode, padding, align)
    if need_x:
        gx = grad.new_zeros((n, c, math.prod(inp.shape[2:])))
        for wt, idx, inb in _corners(axes, spatial, strides):
            m = math.prod(idx.shape[1:])  # (explicit sizes: an empty batch)
            src = (grad * wt.unsqueeze(1)).where(inb.unsqueeze(1), 0).reshape(n, c, m)
            gx = gx.scatter_add(2, idx.reshape(n, 1, m).expand(n, c, m), src)
        gx = gx.reshape(inp.shape)
    if need_g and mode != "nearest":
        gis = []  # d out / d coordinate, axis by axis: the other axes' weights times d w
        finite = bool(grad.isfinite().all())
        for k in range(len(axes)):
            taps = [
                (wt.unsqueeze(1) * _gather(inp, idx, inb), inb)
                for wt, idx, inb in _corners(axes, spatial, strides, skip=k)
            ]
            if skips_taps:  # tap by tap: an inf gradient never meets a skipped 0
                gis.append(sum((grad * d).sum(1).where(inb, 0) for d, inb in taps))
            elif finite or mode != "bicubic":  # bilinear: torch sums the taps first
                gis.append((grad * sum(d for d, _ in taps)).sum(1))
            else:  # torch's bicubic multiplies tap by tap: an inf gradient times 0 is NaN
                gis.append(sum((grad * d).sum(1) for d, _ in taps))
        gg = _chain(grid, gis, spatial, mode, padding, align)
    elif need_g:  # nearest: piecewise constant in the grid
        gg = grid.new_zeros(tuple(grid.shape))
    return gx, gg


class GridSampler2DBackward(Op):
    """grid_sample's gradients (input, grid) as one node, torch's grid_sampler_2d_backward(
    grad_output, input, grid): each requires grad whenever one of the three does. Its own
    derivative is torch's explicit formula (grid_sample_double.py); outputs outside `mask` are
    empty placeholders (torch's undefined tensors)."""

    saves_inputs = True
    skips_taps = False
    saved_fields = {
        "align_corners": lambda fn: fn.args[2],
        "grad_output": "input0",
        "grid": "input2",
        "input": "input1",
        "interpolation_mode": lambda fn: ("bilinear", "nearest", "bicubic").index(fn.args[0]),
        "padding_mode": lambda fn: ("zeros", "border", "reflection").index(fn.args[1]),
    }

    def forward(self, g, x, grid, args=(), mask=(True, True)):
        self.args, self.mask = args, mask
        dev = _dev(x)
        with no_grad():
            got = _input_grads(
                Tensor._make(g, dev),
                Tensor._make(x, dev),
                Tensor._make(grid, dev),
                args,
                mask,
                self.skips_taps,
            )
        xp = self.xp
        return tuple(xp.empty((0,), dtype=g.dtype) if t is None else t._data for t in got)

    def backward(self, ggx, gggrid):
        mask, args, skips = self.mask, self.args, self.skips_taps
        ups = (ggx if mask[0] else None, gggrid if mask[1] else None)
        fwd = GridSampler3D if skips else GridSampler2D
        mode, padding, align = args
        # torch's grid_sampler_2d/3d_double_backward, op by op (grid_sample_double.py)
        return double_backward(
            *ups,
            *self.inputs,
            args,
            self.needs_input_grad,
            lambda x, grid: fwd.apply(x, grid, mode=mode, padding=padding, align=align),
            lambda g, x, grid: type(self).apply(g, x, grid, args=args, mask=(False, True))[1],
        )

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative
    jvp_name = "grid_sampler_2d_backward"


class GridSampler3DBackward(GridSampler2DBackward):
    """grid_sample's gradients over (N, C, D, H, W) as one node (grid_sampler_3d_backward)."""

    skips_taps = True
    jvp_name = "grid_sampler_3d_backward"


def _chain(grid, gis, sizes, mode, padding, align):
    """Back through the coordinate map: d coordinate / d grid (scale, clip, reflection), as
    torch's grid_sampler_compute_source_index_set_grad (0 on a clipped border)."""
    from .join import stack

    if mode == "bicubic":  # taps are padded, the coordinate is only scaled
        return stack([gi * ((n - 1) / 2 if align else n / 2) for gi, n in zip(gis, sizes)], -1)
    out = []
    for k, (gi, size) in enumerate(zip(gis, sizes)):
        with no_grad():  # piecewise constant: 0 where torch clips, borders included
            _, d = source_set_grad(grid[..., k].detach(), size, padding, align)
        out.append(gi * d)
    return stack(out, -1)


def _replays(x):
    """Whether torch's CPU kernel is replayed (its bits): NumPy float32 and float64 input;
    elsewhere (half precision, another device, under vmap) the Tensor formulas below."""
    return type(x) is np.ndarray and x.dtype in (np.float32, np.float64)


def _kernel(x):
    """The replay of torch's kernel for x: the vectorised 2-D one, the scalar 3-D one."""
    return grid_sample_vec if x.ndim == 4 else grid_sample_3d


def _dev(a):
    from ..backend import device_of

    return device_of(a)


_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to "
    "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
    "behavior is desired. "
    "See the documentation of grid_sample for details."
)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample input (N, C, H, W) or (N, C, D, H, W) at the normalised locations of grid
    (N, Ho, Wo, 2) or (N, Do, Ho, Wo, 3) (x first, then y, then z).

    Args:
        input (Tensor): :math:`(N, C, H_{in}, W_{in})` or :math:`(N, C, D_{in}, H_{in}, W_{in})`.
        grid (Tensor): the sampling locations, normalized to [-1, 1] (x first, then y, then z):
            :math:`(N, H_{out}, W_{out}, 2)` or :math:`(N, D_{out}, H_{out}, W_{out}, 3)`.
        mode (str, optional): ``'bilinear'`` (trilinear for 5-D input), ``'nearest'`` or
            ``'bicubic'`` (4-D only) (default: ``'bilinear'``).
        padding_mode (str, optional): ``'zeros'``, ``'border'`` or ``'reflection'``, for locations
            outside [-1, 1] (default: ``'zeros'``).
        align_corners (bool, optional): -1 and 1 are the centres (True) or the edges (False) of the
            corner pixels (default: None, False).

    Example:
        >>> x = framework.arange(4.).reshape(1, 1, 2, 2)
        >>> F.grid_sample(x, framework.zeros(1, 1, 1, 2), align_corners=False)
        tensor([[[[1.5000]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
            f"'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
            f"'border', or 'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
    _check(input, grid, mode)
    op = GridSampler2D if input.dim() == 4 else GridSampler3D
    return op.apply(input, grid, mode=mode, padding=padding_mode, align=bool(align_corners))


def _check(input, grid, mode):
    """torch's grid_sampler checks, in its order."""
    if input.device != grid.device:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to be on same device, but "
            f"input is on {input.device} and grid is on {grid.device}"
        )
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.dim() and grid.dim() and input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}"
        )
    if not grid.dim() or grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
            f"last dimension, but got grid with sizes {list(grid.shape)}"
        )
    for i in range(2, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(
                f"grid_sampler(): expected input to have non-empty spatial "
                f"dimensions, but input has sizes {list(input.shape)} with "
                f"dimension {i} being empty"
            )
    nd = 4 if input.dim() == 4 else 5
    if input.dim() != nd or grid.dim() != nd:
        raise RuntimeError(
            f"grid_sampler(): expected {nd}D input and grid with same number of "
            f"dimensions, but got {sizes}"
        )
    if nd == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"expected scalar type {dtypes.scalar_type_name(input.dtype.np)} but "
            f"found {dtypes.scalar_type_name(grid.dtype.np)}"
        )
    refuse(
        input._data,
        "biu",
        "grid_sampler_2d_cpu_kernel_impl" if input.dim() == 4 else "grid_sampler3d_cpu",
    )


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
        base = Tensor._make(self.base.astype(grad._data.dtype, copy=False), grad.device)
        k = base.shape[-1]
        g = grad.reshape(grad.shape[0], -1, k - 1)
        return g.transpose(1, 2) @ base.reshape(-1, k)

    jvp = Op.jvp_linear


def affine_grid(theta, size, align_corners=None):
    """Generates a 2-D or 3-D flow field (sampling grid), given a batch of affine matrices
    ``theta``; used with :func:`grid_sample` to build Spatial Transformer Networks.

    Args:
        theta (Tensor): the affine matrices: :math:`(N, 2, 3)` for 2-D, :math:`(N, 3, 4)` for 3-D.
        size (torch.Size or tuple): the target output image size, :math:`(N, C, H, W)` or :math:`(N,
            C, D, H, W)`.
        align_corners (bool, optional): -1 and 1 are the centres (True) or the edges (False) of the
            corner pixels; match the value given to :func:`grid_sample` (default: None, False with
            torch's warning).

    Returns:
        Tensor: :math:`(N, H, W, 2)` or :math:`(N, D, H, W, 3)`.

    Example:
        >>> theta = framework.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, (1, 1, 1, 2), align_corners=False)
        tensor([[[[-0.5000,  0.0000],
                  [ 0.5000,  0.0000]]]])
    """
    size = tuple(int(s) for s in size)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                f"{size}. Got {tuple(theta.shape)}."
            )
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                f"{size}. Got {tuple(theta.shape)}."
            )
    else:
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
            f"affine transforms, respectively. Got size {size}."
        )
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.dtype.name == "bfloat16" and min(size[2:]) == 1:  # torch builds a 0-dim
        from .._errors import not_implemented  # bfloat16 tensor here

        raise not_implemented("tensor_cpu", theta._data.dtype)
    return AffineGridGenerator.apply(theta, size=size, align=bool(align_corners))


__all__ = []
