"""3-D pooling (max with indices, avg, adaptive avg), adaptive max pooling 1d/2d, lp pooling
and max_unpool2d. Windows are one strided view of the padded input; every backward is a
linear primitive whose own backward is the matching gather/scatter, so higher orders work."""

import math

from ..amp.autocast_mode import entry as _amp_entry
from .._errors import refuse
from ._pool_args import window_argmax
from ..autograd.op import Op, per_sample_under_vmap, vmap_hook
from ..backend import scatter_add
from ..tensor import Tensor
from ._fastgrad import plain, wrap
from ._pool_grad import jvp_grad_only, max_pool_double_backward, self_arg, self_zeros
from .pooling import _AVG_POOL_BACKWARD_FIELDS, _averaging_matrix, avg_pool1d, avg_pool2d
from .resample import _AxisMaps, _AxisMapsT, _apply, matrix_taps


def _triple(v, name):
    if isinstance(v, int):
        return (v,) * 3
    v = tuple(int(a) for a in v)
    if len(v) == 1:
        return v * 3
    if len(v) != 3:
        raise RuntimeError(f"{name} must either be a single int, or a tuple of three ints")
    return v


def _out(n, k, s, p, d, ceil):
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


class _Win:
    """Geometry of 3-D windows: kernel, stride, pad, dilation, output and padded sizes."""

    def __init__(self, shape, k, s, p, d, ceil):
        self.k, self.s, self.p, self.d = k, s, p, d
        self.ceil, self.stride_arg = bool(ceil), s  # (the stride as torch saves it)
        self.in_sp = tuple(shape[-3:])
        self.out = tuple(_out(n, *a, ceil) for n, a in zip(self.in_sp, zip(k, s, p, d)))
        self.padded = tuple(
            max(n + 2 * pp, (o - 1) * ss + dd * (kk - 1) + 1)
            for n, o, kk, ss, pp, dd in zip(self.in_sp, self.out, k, s, p, d)
        )

    def view(self, xp, x, fill):
        """(N*C, od, oh, ow, kd, kh, kw) windows of x padded with `fill`."""
        nc = x.reshape(-1, *self.in_sp)
        buf = xp.full((nc.shape[0],) + self.padded, fill, dtype=x.dtype)
        buf[(slice(None),) + tuple(slice(p, p + n) for p, n in zip(self.p, self.in_sp))] = nc
        st = buf.strides
        shape = (buf.shape[0],) + self.out + self.k
        strides = (
            (st[0],)
            + tuple(s * t for s, t in zip(self.s, st[1:]))
            + tuple(d * t for d, t in zip(self.d, st[1:]))
        )
        return xp.lib.stride_tricks.as_strided(buf, shape, strides)

    def positions(self, xp):
        """Padded flat coordinates (od, oh, ow, kd, kh, kw) of every window element."""
        grids = []
        for i in range(3):
            o = xp.arange(self.out[i]) * self.s[i]
            kk = xp.arange(self.k[i]) * self.d[i]
            shape_o = [1] * 6
            shape_o[i] = -1
            shape_k = [1] * 6
            shape_k[3 + i] = -1
            grids.append(o.reshape(shape_o) + kk.reshape(shape_k) - self.p[i])
        return grids


class MaxPool3DWithIndices(Op):
    """max over 3-D windows and the flat (d*H*W + h*W + w) index of each max."""

    fw_zero_grads = True  # (torch's backward op gives zeros_like(self) a tangent)

    non_differentiable = (1,)
    saves = ("index",)
    saves_inputs = True  # torch's node keeps `self` (its backward op takes it)

    def forward(self, x, win=None):
        xp = self.xp
        refuse(x, "b", "max_pool3d")
        self.in_shape = x.shape
        low = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
        v = win.view(xp, x, low).reshape(-1, *win.out, int(math.prod(win.k)))
        arg = window_argmax(xp, v)
        vals = xp.take_along_axis(v, arg[..., None], axis=-1)[..., 0]
        zs, ys, xs = (g + xp.zeros((1,) * 6, dtype="int64") for g in win.positions(xp))
        zs, ys, xs = (
            xp.broadcast_to(g, win.out + win.k).reshape(win.out + (-1,)) for g in (zs, ys, xs)
        )
        d, h, w = win.in_sp
        if any(win.p):  # a window of -inf (or the integer minimum) only: torch keeps its first
            # in-bounds element, never a padding position
            inside = (zs >= 0) & (zs < d) & (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
            inside = xp.broadcast_to(inside, arg.shape + inside.shape[-1:])
            chosen = xp.take_along_axis(inside, arg[..., None], axis=-1)[..., 0]
            arg = xp.where(chosen, arg, xp.argmax(inside, axis=-1))
        flat = (zs * h + ys) * w + xs
        idx = xp.take_along_axis(
            xp.broadcast_to(flat, arg.shape + flat.shape[-1:]), arg[..., None], axis=-1
        )[..., 0]
        lead = x.shape[:-3]
        self.index = idx.reshape(lead + win.out).astype("int64")
        return vals.reshape(lead + win.out), self.index

    def backward(self, grad, _=None):
        return scatter_back(self, MaxPool3DWithIndicesBackward, grad, self.in_shape[-3:])

    jvp = Op.jvp_transpose


def scatter_back(fn, cls, grad, plane):
    """A max pooling's input gradient: `grad` scattered to the flat plane positions of the
    maxima (fn.index), as the node `cls` (torch's, taking the input `self` too) when a graph
    is recorded."""
    if plain(grad):  # no graph to record: the kernel on the arrays
        return wrap(_ScatterPlanes.kernel(fn.xp, grad._data, fn.index, plane), grad)
    if vmap_hook[0]:  # batched gradients: the op the batching rules know
        return _ScatterPlanes.apply(grad, index=fn.index, plane=plane)
    return cls.apply(grad, fn.inputs[0], index=fn.index, plane=plane)


class _ScatterPlanes(Op):
    """zeros(plane) per leading index with values added at flat plane indices."""

    saves = ("index",)

    def forward(self, g, x=None, index=None, plane=()):
        self.index, self.plane = index, plane
        return self.kernel(self.xp, g, index, plane)

    @staticmethod
    def kernel(xp, g, index, plane):
        """g added into zero planes at the flat positions `index` (one plane per leading
        index)."""
        lead = index.shape[: index.ndim - len(plane)]
        m = int(math.prod(plane))
        # explicit sizes, never -1: an empty batch or output makes -1 ambiguous
        flat_i = index.reshape(math.prod(lead), math.prod(index.shape[len(lead) :]))
        out = xp.zeros((flat_i.shape[0], m), dtype=g.dtype)
        rows = xp.broadcast_to(xp.arange(flat_i.shape[0])[:, None], flat_i.shape)
        scatter_add(xp, out, (rows, flat_i), g.reshape(flat_i.shape))
        return out.reshape(tuple(lead) + tuple(plane))

    def backward(self, grad):
        # torch: max_pool_double_backward (a gather) for grad_output, zeros_like(self)
        need = self.needs_input_grad
        gather = None
        if need[0]:
            gather = max_pool_double_backward(grad, self.index, self.index.shape, len(self.plane))
        return (gather,) + self_zeros(need, grad)

    jvp = Op.jvp_linear


class MaxPool3DWithIndicesBackward(_ScatterPlanes):
    """max_pool3d's input gradient: torch's max_pool3d_with_indices_backward(grad_output,
    self, ...), `self` unread."""

    saved_fields = {"indices": "index"}


class AdaptiveMaxPool2DBackward(_ScatterPlanes):
    """adaptive_max_pool2d's input gradient: torch's adaptive_max_pool2d_backward(grad_output,
    self, indices), `self` unread."""

    saved_fields = {"indices": "index"}


class AdaptiveMaxPool3DBackward(_ScatterPlanes):
    """adaptive_max_pool3d's input gradient: torch's adaptive_max_pool3d_backward(grad_output,
    self, indices), `self` unread."""

    saved_fields = {"indices": "index"}


class _GatherPlanes(Op):
    """Values of each plane at flat indices (the adjoint of _ScatterPlanes)."""

    def forward(self, x, index=None, plane=()):
        self.index, self.plane = index, plane
        flat_x = x.reshape(-1, int(math.prod(plane)))
        flat_i = index.reshape(flat_x.shape[0], math.prod(index.shape[index.ndim - len(plane) :]))
        return self.xp.take_along_axis(flat_x, flat_i, axis=1).reshape(index.shape)

    def backward(self, grad):
        return _ScatterPlanes.apply(grad, index=self.index, plane=self.plane)

    jvp = Op.jvp_linear


def _win_args(input, kernel_size, stride, padding, dilation, ceil_mode, name):
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    k = _triple(kernel_size, "kernel_size")
    s = _triple(stride, "stride") if stride is not None and stride != [] else k
    p = _triple(padding, "padding")
    d = _triple(dilation, "dilation")
    t, h, w = input.shape[-3:]
    if name == "avg_pool3d" and (t < k[0] or h < k[1] or w < k[2]):
        raise RuntimeError(
            f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
            f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})"
        )
    if any(pp > (dd * (kk - 1) + 1) // 2 for pp, kk, dd in zip(p, k, d)):
        raise RuntimeError(
            "pad should be at most half of effective kernel size, but got "
            f"pad={p[0]}, kernel_size={k[0]} and dilation={d[0]}"
        )
    win = _Win(input.shape, k, s, p, d, ceil_mode)
    if stride is None or stride == []:
        win.stride_arg = ()
    if any(o < 1 for o in win.out):
        c = input.shape[-4]
        raise RuntimeError(
            f"Given input size: ({'x'.join(map(str, input.shape[-4:]))}). "
            f"Calculated output size: ({'x'.join(map(str, (c,) + win.out))}). "
            "Output size is too small"
        )
    return win


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    r"""Applies a 3-D max pooling over an input signal composed of several input planes.

    See :class:`~framework.nn.MaxPool3d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in},
            H_{in}, W_{in})`.
        kernel_size (int or tuple): the size of the window: one int, or 3 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit negative-infinity padding added on both sides, at
            most half the kernel size (default: 0).
        dilation (int or tuple, optional): the spacing between the window's elements (default: 1).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).
        return_indices (bool, optional): also return the flat indices (over each input plane) of the
            maxima (default: False).

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or :math:`(C, D_{out}, H_{out},
          W_{out})`, where :math:`D_{out} = \lfloor \frac{D_{in} + 2p - d (k - 1) - 1}{s} + 1
          \rfloor` per dimension.

    Returns:
        Tensor: the pooled result (and the indices with ``return_indices``).

    Example:
        >>> x = framework.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> F.max_pool3d(x, 2).flatten()
        tensor([21., 23., 29., 31., 53., 55., 61., 63.])
    """
    win = _win_args(input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d")
    out, idx = MaxPool3DWithIndices.apply(input, win=win)
    return (out, idx) if return_indices else out


class AvgPool3D(Op):
    no_bfloat16 = "avg_pool3d_out_frame"
    saves_inputs = True  # torch's node keeps `self` (its backward op takes it)

    def forward(self, x, win=None, count_include_pad=True, divisor_override=None):
        xp = self.xp
        refuse(x, "b", "avg_pool3d_out_frame")
        self.win, self.in_shape = win, x.shape
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override
        sums = win.view(xp, x, 0).sum(axis=(-3, -2, -1))
        self.div = _divisor(xp, win, count_include_pad, divisor_override, x.dtype)
        return (sums / self.div).astype(x.dtype).reshape(x.shape[:-3] + win.out)

    def backward(self, grad):
        if plain(grad):  # no graph to record: the kernel on the arrays
            return wrap(AvgPool3DBackward.kernel(self.xp, grad._data, self), grad)
        return AvgPool3DBackward.apply(grad, *self_arg(self), fwd=self)

    jvp = Op.jvp_linear


class AvgPool3DBackward(Op):
    """Spread each output gradient / divisor over its window (AvgPool3D's adjoint); torch's
    avg_pool3d_backward(grad_output, self, ...), `self` unread."""

    saves = ("fwd",)  # the forward node: its windows and divisor
    saved_fields = _AVG_POOL_BACKWARD_FIELDS

    def forward(self, g, x=None, fwd=None):
        self.fwd = fwd
        win = fwd.win  # torch's arguments, kept as plain values (readable after backward)
        self.args = (
            win.ceil,
            fwd.count_include_pad,
            fwd.divisor_override,
            tuple(win.k),
            tuple(win.p),
            tuple(win.stride_arg),
        )
        return self.kernel(self.xp, g, fwd)

    @staticmethod
    def kernel(xp, g, fwd):
        """The gradient of the window means of `fwd` (an AvgPool3D node) over its input."""
        win = fwd.win
        g2 = (g.reshape(-1, *win.out) / fwd.div).astype(g.dtype)
        buf = xp.zeros((g2.shape[0],) + win.padded, dtype=g.dtype)
        # torch adds each output's share in output order (increasing windows): at one input
        # position the window offsets come last first
        for a in reversed(range(win.k[0])):
            for b in reversed(range(win.k[1])):
                for c in reversed(range(win.k[2])):
                    key = (slice(None),) + tuple(
                        slice(o * dd, o * dd + ss * (n - 1) + 1, ss)
                        for o, dd, ss, n in zip((a, b, c), win.d, win.s, win.out)
                    )
                    buf[key] += g2
        crop = (slice(None),) + tuple(slice(p, p + n) for p, n in zip(win.p, win.in_sp))
        return xp.ascontiguousarray(buf[crop]).reshape(fwd.in_shape)

    def backward(self, grad):
        # torch: avg_pool3d(grad) for grad_output, zeros_like(self)
        fwd, need = self.fwd, self.needs_input_grad
        pooled = None
        if need[0]:
            pooled = AvgPool3D.apply(
                grad,
                win=fwd.win,
                count_include_pad=fwd.count_include_pad,
                divisor_override=fwd.divisor_override,
            )
        return (pooled,) + self_zeros(need, grad)

    jvp = jvp_grad_only


def _divisor(xp, win, count_include_pad, divisor_override, dtype):
    """Per-window divisors as torch computes them (padding counted or not)."""
    if divisor_override:
        return divisor_override
    counts = []
    for i in range(3):
        start = xp.arange(win.out[i]) * win.s[i] - win.p[i]
        end = xp.minimum(start + win.k[i], win.in_sp[i] + win.p[i])
        if not count_include_pad:
            start, end = xp.maximum(start, 0), xp.minimum(end, win.in_sp[i])
        counts.append(end - start)
    return counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """Applies a 3-D average pooling over an input signal composed of several input planes.

    See :class:`~framework.nn.AvgPool3d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in},
            H_{in}, W_{in})`.
        kernel_size (int or tuple): the size of the window: one int, or 3 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit padding added on both sides, at most half the
            kernel size (default: 0).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).
        count_include_pad (bool, optional): include the zero padding in the averaging divisor
            (default: True).
        divisor_override (int, optional): divide by this instead of the window size (default: None).

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or :math:`(C, D_{out}, H_{out},
          W_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> F.avg_pool3d(x, 2).flatten()
        tensor([10.5000, 12.5000, 18.5000, 20.5000, 42.5000, 44.5000, 50.5000, 52.5000])
    """
    win = _win_args(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return AvgPool3D.apply(
        input, win=win, count_include_pad=count_include_pad, divisor_override=divisor_override
    )


class AdaptiveAvgPool3D(_AxisMaps):
    """Adaptive 3-D average pooling as one averaging matrix per axis."""

    saves_inputs = True  # torch's node keeps `self` (its backward op takes it)

    def backward(self, grad):
        mats = tuple(reversed(self.mats))
        if plain(grad):  # no graph to record: the kernel on the arrays
            return wrap(_apply(self.xp, grad._data, mats, True), grad)
        if vmap_hook[0]:  # batched gradients: the op the batching rules know
            return _AxisMapsT.apply(grad, mats=mats)
        return AdaptiveAvgPool3DBackward.apply(grad, self.inputs[0], mats=mats)


class AdaptiveAvgPool3DBackward(Op):
    """adaptive_avg_pool3d's input gradient (the transposed averaging maps): torch's
    adaptive_avg_pool3d_backward(grad_output, self), `self` unread."""

    saved_fields = {
        "grad_output_sym_argsize_minus_1": lambda fn: fn.out_sp[2],
        "grad_output_sym_argsize_minus_2": lambda fn: fn.out_sp[1],
        "grad_output_sym_argsize_minus_3": lambda fn: fn.out_sp[0],
    }

    def forward(self, g, x=None, mats=()):
        self.mats, self.out_sp = mats, tuple(g.shape[-3:])
        return _apply(self.xp, g, mats, True)

    def backward(self, grad):
        # torch: adaptive_avg_pool3d(grad) for grad_output, zeros_like(self)
        need = self.needs_input_grad
        pooled = AdaptiveAvgPool3D.apply(grad, mats=tuple(reversed(self.mats))) if need[0] else None
        return (pooled,) + self_zeros(need, grad)

    jvp = jvp_grad_only


def _adaptive_sizes(input, output_size, nd, name):
    sizes = (output_size,) * nd if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != nd:
        raise RuntimeError(f"{name}: output_size must be {nd}")
    return tuple(input.shape[-nd + i] if s is None else int(s) for i, s in enumerate(sizes))


@_amp_entry("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input, output_size):
    """Applies a 3-D adaptive average pooling: the windows are chosen so that the output has the
    size ``output_size``, for any input size.

    See :class:`~framework.nn.AdaptiveAvgPool3d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in},
            H_{in}, W_{in})`.
        output_size (int or tuple): the target output size: one int, or one per spatial dimension
            (None keeps that dimension's size).

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or :math:`(C, D_{out}, H_{out},
          W_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> F.adaptive_avg_pool3d(x, 2).flatten()
        tensor([10.5000, 12.5000, 18.5000, 20.5000, 42.5000, 44.5000, 50.5000, 52.5000])
    """
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}"
        )
    out = _adaptive_sizes(input, output_size, 3, "adaptive_avg_pool3d")
    if out == (1, 1, 1):  # torch takes the mean here (its dtype check, MeanBackward1)
        return input.mean(dim=(-3, -2, -1), keepdim=True)
    refuse(input._data, "biu", "adaptive_avg_pool3d_cpu")
    xp, nd = input.xp, input.dim()
    ms = [_averaging_matrix(xp, n, o, "float64") for n, o in zip(input.shape[-3:], out)]
    mats = tuple((nd - 3 + i, m, *matrix_taps(xp, m)) for i, m in enumerate(ms))
    return AdaptiveAvgPool3D.apply(input, mats=mats)


class AdaptiveMaxPool2D(Op):
    """Max over torch's adaptive windows [floor(i n / o), ceil((i + 1) n / o))."""

    fw_zero_grads = True  # (torch's backward op gives zeros_like(self) a tangent)

    non_differentiable = (1,)
    saves = ("index",)
    saves_inputs = True  # torch's node keeps `self` (its backward op takes it)

    def forward(self, x, out_hw=(1, 1)):
        xp = self.xp
        refuse(x, "biu", "adaptive_max_pool2d")
        self.in_shape = x.shape
        h, w = x.shape[-2:]
        oh, ow = out_hw
        vals = xp.empty(x.shape[:-2] + (oh, ow), dtype=x.dtype)
        idx = xp.empty(x.shape[:-2] + (oh, ow), dtype="int64")
        for i in range(oh):
            h0, h1 = (i * h) // oh, -(-((i + 1) * h) // oh)
            for j in range(ow):
                w0, w1 = (j * w) // ow, -(-((j + 1) * w) // ow)
                win = x[..., h0:h1, w0:w1].reshape(x.shape[:-2] + ((h1 - h0) * (w1 - w0),))
                a = window_argmax(xp, win)
                vals[..., i, j] = xp.take_along_axis(win, a[..., None], axis=-1)[..., 0]
                idx[..., i, j] = (h0 + a // (w1 - w0)) * w + w0 + a % (w1 - w0)
        self.index = idx
        return vals, idx

    def backward(self, grad, _=None):
        return scatter_back(self, AdaptiveMaxPool2DBackward, grad, self.in_shape[-2:])

    jvp = Op.jvp_transpose


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Applies a 2-D adaptive max pooling: the windows are chosen so that the output has the size
    ``output_size``, for any input size.

    See :class:`~framework.nn.AdaptiveMaxPool2d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        output_size (int or tuple): the target output size: one int, or one per spatial dimension
            (None keeps that dimension's size).
        return_indices (bool, optional): also return the flat indices (over each input plane) of the
            maxima, for :func:`max_unpool2d` (default: False).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Returns:
        Tensor: the pooled result (and the indices with ``return_indices``).

    Example:
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.adaptive_max_pool2d(x, 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    if input.dim() not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}"
        )
    out = _adaptive_sizes(input, output_size, 2, "adaptive_max_pool2d")
    vals, idx = AdaptiveMaxPool2D.apply(input, out_hw=out)
    return (vals, idx) if return_indices else vals


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Applies a 1-D adaptive max pooling: the windows are chosen so that the output has the length
    ``output_size``, for any input length.

    See :class:`~framework.nn.AdaptiveMaxPool1d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        output_size (int): the target output length.
        return_indices (bool, optional): also return the flat indices (over each input plane) of the
            maxima (default: False).

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.

    Returns:
        Tensor: the pooled result (and the indices with ``return_indices``).

    Example:
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> F.adaptive_max_pool1d(x, 3, return_indices=True)
        (tensor([[[2., 5., 7.]]]), tensor([[[2, 5, 7]]]))
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: {list(input.shape)}"
        )
    size = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    vals, idx = AdaptiveMaxPool2D.apply(input.unsqueeze(-2), out_hw=(1, size))
    vals, idx = vals.squeeze(-2), idx.squeeze(-2)
    return (vals, idx) if return_indices else vals


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Applies a 2-D power-average pooling: the p-norm of each window (``p=1`` is sum pooling,
    :math:`p = \infty` max pooling); computed from :func:`avg_pool2d` as torch does.

    .. math::
        f(X) = \left( \sum_{x \in X} x^{p} \right)^{1/p}

    See :class:`~framework.nn.LPPool2d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        norm_type (float): the exponent :math:`p`.
        kernel_size (int or tuple): the size of the window: one int, or 2 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.lp_pool2d(x, 2, 2)
        tensor([[[[ 6.4807,  9.8995],
                  [21.4009, 25.3377]]]])
    """
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    out = avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Applies a 1-D power-average pooling: the p-norm of each window (``p=1`` is sum pooling,
    :math:`p = \infty` max pooling).

    .. math::
        f(X) = \left( \sum_{x \in X} x^{p} \right)^{1/p}

    See :class:`~framework.nn.LPPool1d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        norm_type (float): the exponent :math:`p`.
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> F.lp_pool1d(x, 2, 2)
        tensor([[[1.0000, 3.6056, 6.4031, 9.2195]]])
    """
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Applies a 3-D power-average pooling: the p-norm of each window.

    .. math::
        f(X) = \left( \sum_{x \in X} x^{p} \right)^{1/p}

    See :class:`~framework.nn.LPPool3d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in},
            H_{in}, W_{in})`.
        norm_type (float): the exponent :math:`p`.
        kernel_size (int or tuple): the size of the window: one int, or 3 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or :math:`(C, D_{out}, H_{out},
          W_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> F.lp_pool3d(x, 1, 2).flatten()
        tensor([ 84., 100., 148., 164., 340., 356., 404., 420.])
    """
    kd, kh, kw = _triple(kernel_size, "kernel_size")
    out = avg_pool3d(input.pow(norm_type), (kd, kh, kw), stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kd * kh * kw).pow(1.0 / norm_type)


class MaxUnpool2D(Op):
    """Place each value at its flat index of an (H, W) plane of zeros (subclasses: other
    plane ranks)."""

    no_edge = (1,)  # indices
    fw_zero_grads = True  # (torch's backward op gives zeros_like(self) a tangent)

    kernel = "max_unpool2d"

    def forward(self, x, index=None, out_hw=(1, 1)):
        xp = self.xp
        refuse(x, "biu", self.kernel)
        self.index, self.out_hw = index, out_hw
        nd = len(out_hw)
        flat_x = x.reshape(-1, math.prod(x.shape[-nd:]))
        flat_i = index.reshape(flat_x.shape)
        m = math.prod(out_hw)
        if flat_i.size and (int(flat_i.max()) >= m or int(flat_i.min()) < 0):
            # (torch's parallel kernels may name another of the bad indices)
            bad = int(flat_i.max()) if int(flat_i.max()) >= m else int(flat_i.min())
            raise RuntimeError(
                f"Found an invalid max index: {int(bad)} (output volumes are of size "
                f"{'x'.join(map(str, out_hw))})"
            )
        out = xp.zeros((flat_x.shape[0], m), dtype=x.dtype)
        rows = xp.broadcast_to(xp.arange(flat_x.shape[0])[:, None], flat_i.shape)
        out[rows, flat_i] = flat_x
        return out.reshape(x.shape[:-nd] + tuple(out_hw))

    def backward(self, grad):
        if plain(grad) or vmap_hook[0]:  # no graph to record (or batched)
            return _GatherPlanes.apply(grad, index=self.index, plane=self.out_hw), None
        # torch: max_pool_double_backward(grad, indices, nd), a view -> gather -> view
        shape = self.index.shape
        return max_pool_double_backward(grad, self.index, shape, len(self.out_hw)), None

    jvp = Op.jvp_linear  # (a repeated index keeps one value, as the forward does)


@per_sample_under_vmap
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Computes a partial inverse of :func:`max_pool2d`: each value goes back to the position its
    index names (from ``max_pool2d(..., return_indices=True)``); every other position is zero.

    See :class:`~framework.nn.MaxUnpool2d` for the module form.

    Args:
        input (Tensor): the pooled values, :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in},
            W_{in})`.
        indices (Tensor): the flat indices given by :func:`max_pool2d`, of the shape of ``input``.
        kernel_size (int or tuple): the size of the pooling window.
        stride (int or tuple, optional): the stride of the pooling window (default:
            ``kernel_size``).
        padding (int or tuple, optional): the padding of the pooling (default: 0).
        output_size (tuple, optional): the exact output size, to resolve the ambiguity of
            :func:`max_pool2d`'s floor (default: None).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})`, :math:`H_{out} = (H_{in} - 1) s_0 - 2 p_0 + k_0`
          (likewise :math:`W_{out}`), or ``output_size``.

    Returns:
        Tensor: the unpooled result.

    Example:
        >>> x = framework.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> out, idx = F.max_pool2d(x, 2, return_indices=True)
        >>> F.max_unpool2d(out, idx, 2)
        tensor([[[[0., 0.],
                  [0., 4.]]]])
    """
    kh, kw = (kernel_size,) * 2 if isinstance(kernel_size, int) else tuple(kernel_size)
    sh, sw = (
        (kh, kw) if stride is None else (stride,) * 2 if isinstance(stride, int) else tuple(stride)
    )
    ph, pw = (padding,) * 2 if isinstance(padding, int) else tuple(padding)
    h, w = input.shape[-2:]
    if output_size is not None:
        out_hw = tuple(output_size)[-2:]
    else:
        out_hw = ((h - 1) * sh - 2 * ph + kh, (w - 1) * sw - 2 * pw + kw)
    return MaxUnpool2D.apply(input, Tensor._make(indices._data, input.device), out_hw=out_hw)


__all__ = []
