"""Pooling: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d.

Windows are never materialised per pixel: non-overlapping windows are a reshape, others are
visited one kernel position at a time (kh*kw strided slices over the whole output).
Each backward is a linear primitive whose own backward is the forward map again, so
gradients of every order work.
"""

import math

from .._errors import refuse
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op, vmap_hook
from ..autograd.saved import Attr
from ..tensor import Tensor
from ..backend import scatter_add
from ..backend import np as _np
from . import _adaptive_avg
from ._fastgrad import plain, wrap
from ._pool_grad import jvp_grad_only, max_pool_double_backward, self_arg, self_zeros
from ._pool_args import adaptive_size, avg_divisor, pool_params, pool_windows

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
]


def _as4d(a):
    return a if a.ndim == 4 else a[None]


def _lowest(xp, dtype):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _padded(xp, x, p, fill):
    """x (N, C, H, W) padded with `fill` so every window of p.windows fits."""
    (ph, pw), (hp, wp) = p.pad, p.padded_hw
    n, c, h, w = x.shape
    if (hp, wp) == (h, w) and ph == pw == 0:
        return x
    out = xp.full((n, c, hp, wp), fill, dtype=x.dtype)
    out[:, :, ph : ph + h, pw : pw + w] = x
    return out


_KEEPS_SECOND = {}


def _max_keeps_second(xp, dtype):
    """Whether xp.maximum returns its second operand on a tie (+0 vs -0) for `dtype`, as
    NumPy's float32/float64 loops do (x86 maxps; its float16 loop does not); _max_first
    relies on it and is off otherwise. Integers have no signed zeros: always."""
    if dtype.kind in "iu":
        return True
    ok = _KEEPS_SECOND.get(dtype)
    if ok is None:
        z = xp.zeros(37, dtype)
        ok = bool(xp.signbit(xp.maximum(z, -z)).all())
        ok &= bool(xp.signbit(xp.maximum(z[::2], -z[::2])).all())
        ok &= not xp.signbit(xp.maximum(-z, z)).any()
        _KEEPS_SECOND[dtype] = ok
    return ok


def _max_first(xp, slices, offsets, starts):
    """(window maxima, flat index of each window's first maximum) from the kernel positions'
    slices, without masked copies (NumPy's copyto/where branch per element: 5x slower on
    random data): the maxima by np.maximum, then the first position equal to the maximum by
    uint8 arithmetic. This is torch's strictly-greater scan when every window lies inside the
    input; None (the caller scans) with a NaN maximum (torch keeps the last NaN's index), more
    than 255 positions, or not NumPy."""
    v0 = slices[0]
    if type(v0).__module__ != "numpy" or len(slices) > 255:
        return None
    if v0.dtype.kind not in "fiu" or not _max_keeps_second(xp, v0.dtype):
        return None
    # maximum(v, y) is y on a tie: the earliest of equal values (-0 before +0) stays, as torch's
    y = xp.maximum(slices[1], slices[0]) if len(slices) > 1 else slices[0].copy()
    for v in slices[2:]:
        xp.maximum(v, y, out=y)
    if y.dtype.kind == "f" and xp.isnan(y).any():
        return None
    first = xp.zeros(y.shape, xp.uint8)
    step = xp.empty_like(first)
    for k in range(len(slices) - 1, -1, -1):  # last write wins: the smallest k with v == y
        xp.subtract(xp.uint8(k), first, out=step)  # first + (k - first) [v == y], mod 256
        xp.multiply(step, slices[k] == y, out=step)
        first += step
    idx = xp.take(xp.asarray(offsets, dtype=xp.int64), first)
    idx += starts
    return y, idx


def _saved_indices(fn, _attr=Attr("idx")):
    """torch's `_saved_result1`: the indices output, shaped as the result."""
    idx = _attr.get(fn)
    return idx.reshape(fn.in_shape[:-2] + fn.p.out_hw) if idx is not None else None


class MaxPool2DWithIndices(Op):
    """max over windows; also returns the flat (h*W + w) index of each max, as torch."""

    fw_zero_grads = True  # (torch's backward op gives zeros_like(self) a tangent)

    saves = ("idx",)
    saves_inputs = True  # torch's node keeps `self` (its `_saved_self`)
    non_differentiable = (1,)
    saved_fields = {
        "ceil_mode": "ceil_mode",
        "dilation": "dilation",
        "kernel_size": "kernel_size",
        "padding": "padding",
        "result1": lambda fn: _saved_indices(fn),
        "self": "input0",
        "stride": "stride_arg",
    }

    def forward(self, x, p, need_indices, stride_arg=(), ceil_mode=False):
        """The window maxima of ``x`` and, when asked, the flat index of each maximum in its
        plane."""
        xp, self.p, self.in_shape = self.xp, p, x.shape
        self.kernel_size, self.padding, self.dilation = p.kernel, p.pad, p.dilation
        self.ceil_mode, self.stride_arg = ceil_mode, stride_arg
        x4 = _as4d(x)
        n, c, h, w = x4.shape
        (oh, ow), (kh, kw), (sh, sw), (dh, dw) = p.out_hw, p.kernel, p.stride, p.dilation
        shape = x.shape[:-2] + (oh, ow)
        if p.reshapeable:  # stride == kernel, no padding: windows are a reshape
            xr = x4.reshape(n, c, oh, kh, ow, kw)
            if not need_indices:
                return xr.max(axis=(3, 5)).reshape(shape), xp.empty(0, dtype=xp.int64)
            slices = [xr[:, :, :, i, :, j] for i in range(kh) for j in range(kw)]
        else:
            xpad = _padded(xp, x4, p, _lowest(xp, x.dtype))
            slices = [
                xpad[
                    :,
                    :,
                    i * dh : i * dh + sh * (oh - 1) + 1 : sh,
                    j * dw : j * dw + sw * (ow - 1) + 1 : sw,
                ]
                for i in range(kh)
                for j in range(kw)
            ]
        rows, cols = p.starts(xp)
        inside = p.pad == (0, 0) and all(
            (o - 1) * st + (k - 1) * d + 1 <= size
            for o, st, k, d, size in zip((oh, ow), (sh, sw), (kh, kw), (dh, dw), (h, w))
        )
        offsets = [i * dh * w + j * dw for i in range(kh) for j in range(kw)]
        fast = _max_first(xp, slices, offsets, rows[:, None] * w + cols[None]) if inside else None
        if fast is not None:
            self.idx = fast[1]
            return fast[0].reshape(shape), fast[1].reshape(shape)
        y = xp.full((n, c, oh, ow), _lowest(xp, x.dtype), dtype=x.dtype)
        # torch starts from the first in-bounds position and takes strictly greater values
        idx = xp.broadcast_to(
            xp.maximum(rows, 0)[:, None] * w + xp.maximum(cols, 0)[None], (n, c, oh, ow)
        ).copy()
        for k, v in enumerate(slices):
            i, j = divmod(k, kw)
            better = v > y
            if x.dtype.kind == "f":
                better |= v != v  # NaN wins, as in torch
            xp.copyto(y, v, where=better)
            xp.copyto(idx, (rows[:, None] + i * dh) * w + cols[None] + j * dw, where=better)
        self.idx = idx
        return y.reshape(shape), idx.reshape(shape)

    def backward(self, grad, grad_indices=None):
        unique = self.p.disjoint
        if plain(grad):  # no graph to record: the kernel on the arrays
            kernel = MaxPool2DWithIndicesBackward.kernel
            return wrap(kernel(self.xp, grad._data, self.idx, self.in_shape, unique), grad)
        return MaxPool2DWithIndicesBackward.apply(
            grad, *self_arg(self), idx=self.idx, in_shape=self.in_shape, unique=unique
        )

    def jvp(self, t, *_):
        shape = self.result.shape
        flat = shape[:-2] + (shape[-2] * shape[-1],)  # (explicit: an empty batch)
        idx = Tensor._make(self.idx.reshape(flat), t.device)
        plane = t.shape[-2] * t.shape[-1]
        return t.reshape(t.shape[:-2] + (plane,)).gather(-1, idx).reshape(shape), None


def _saved_backward_indices(fn, _attr=Attr("idx")):
    """torch's `_saved_indices` of the backward node: the indices, shaped as grad_output."""
    idx = _attr.get(fn)
    return idx.reshape(fn.out_shape) if idx is not None else None


class MaxPool2DWithIndicesBackward(Op):
    """Scatter each output gradient to the input position of its max (adjoint of a gather);
    torch's max_pool2d_with_indices_backward(grad_output, self, ...), `self` unread."""

    node_name = "MaxPool2DWithIndicesBackwardBackward0"
    saves = ("idx",)
    saved_fields = {"indices": lambda fn: _saved_backward_indices(fn)}

    def forward(self, grad, x=None, idx=None, in_shape=(), unique=False):
        self.in_shape, self.idx, self.out_shape = in_shape, idx, grad.shape
        return self.kernel(self.xp, grad, idx, in_shape, unique)

    @staticmethod
    def kernel(xp, grad, idx, in_shape, unique):
        """The gradient scattered to the flat plane positions `idx` of an input of in_shape."""
        plane, per = in_shape[-1] * in_shape[-2], grad.shape[-1] * grad.shape[-2]
        lead = math.prod(grad.shape[:-2])  # (explicit sizes: an empty batch)
        flat_idx = (idx.reshape(lead, per) + xp.arange(lead)[:, None] * plane).ravel()
        out = xp.zeros(lead * plane, dtype=grad.dtype)
        if unique:  # disjoint windows: plain assignment is exact and fast
            out[flat_idx] = grad.ravel()
        else:
            scatter_add(xp, out, flat_idx, grad.ravel())
        return out.reshape(in_shape)

    def backward(self, grad):
        # torch: max_pool_double_backward (a gather) for grad_output, zeros_like(self)
        need = self.needs_input_grad
        gather = None
        if need[0]:
            gather = max_pool_double_backward(grad, self.idx, self.out_shape, 2)
        return (gather,) + self_zeros(need, grad)

    jvp = Op.jvp_linear


class _MaxGather(Op):
    """Read each input gradient at its window's max position (adjoint of the scatter)."""

    node_name = "MaxPool2DWithIndicesBackwardBackward0"
    saves = ("idx",)

    def forward(self, gg, idx, out_shape):
        self.in_shape, self.idx = gg.shape, idx
        lead = math.prod(idx.shape[:-2])  # (explicit sizes: an empty batch)
        flat_gg = gg.reshape(lead, gg.shape[-2] * gg.shape[-1])
        flat_idx = idx.reshape(lead, idx.shape[-2] * idx.shape[-1])
        out = self.xp.take_along_axis(flat_gg, flat_idx, axis=1)
        return out.reshape(out_shape)

    def backward(self, grad):
        return MaxPool2DWithIndicesBackward.apply(
            grad, idx=self.idx, in_shape=self.in_shape, unique=False
        )

    jvp = Op.jvp_linear


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    r"""Applies a 2-D max pooling over an input signal composed of several input planes.

    .. math::
        \text{out}(N_i, C_j, h, w) = \max_{m < k_H, n < k_W} \text{input}(N_i, C_j, s_0 h + d_0 m,
        s_1 w + d_1 n)

    See :class:`~framework.nn.MaxPool2d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        kernel_size (int or tuple): the size of the window: one int, or 2 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit negative-infinity padding added on both sides, at
            most half the kernel size (default: 0).
        dilation (int or tuple, optional): the spacing between the window's elements (default: 1).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).
        return_indices (bool, optional): also return the flat indices (over each input plane) of the
            maxima, for :func:`max_unpool2d` (default: False).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`, where
          :math:`H_{out} = \lfloor \frac{H_{in} + 2p - d (k - 1) - 1}{s} + 1 \rfloor` per dimension.

    Returns:
        Tensor: the pooled result (and the indices with ``return_indices``).

    Example:
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.max_pool2d(x, 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
        >>> F.max_pool2d(x, 3, stride=1, padding=1).shape
        torch.Size([1, 1, 4, 4])
    """
    p = pool_params(input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    refuse(input._data, "b", "max_pool2d")
    need = return_indices or (input.requires_grad and is_grad_enabled()) or input._fw is not None
    stride_arg = () if stride is None or stride == [] else p.stride  # as torch saves it
    y, idx = MaxPool2DWithIndices.apply(
        input, p=p, need_indices=need, stride_arg=stride_arg, ceil_mode=bool(ceil_mode)
    )
    return (y, idx) if return_indices else y


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    r"""Applies a 1-D max pooling over an input signal composed of several input planes.

    .. math::
        \text{out}(N_i, C_j, l) = \max_{m < k} \text{input}(N_i, C_j, s \cdot l + d \cdot m)

    See :class:`~framework.nn.MaxPool1d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit negative-infinity padding added on both sides, at
            most half the kernel size (default: 0).
        dilation (int or tuple, optional): the spacing between the window's elements (default: 1).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).
        return_indices (bool, optional): also return the flat indices (over each input plane) of the
            maxima (default: False).

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`, where :math:`L_{out} = \lfloor
          \frac{L_{in} + 2p - d (k - 1) - 1}{s} + 1 \rfloor` per dimension.

    Returns:
        Tensor: the pooled result (and the indices with ``return_indices``).

    Example:
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> F.max_pool1d(x, 2)
        tensor([[[1., 3., 5., 7.]]])
        >>> F.max_pool1d(x, 3, stride=2, return_indices=True)
        (tensor([[[2., 4., 6.]]]), tensor([[[2, 4, 6]]]))
    """
    k, s, pd, d = pool_windows(kernel_size, stride, padding, dilation)
    if not return_indices:  # torch's max_pool1d checks first (with grad it then takes indices)
        _check_max_pool1d(input, k, s, pd, d, ceil_mode)
        if not (input.requires_grad and is_grad_enabled()):
            refuse(input._data, "biu", "max_pool1d_impl")  # its kernel without indices
    out = max_pool2d(
        input.unsqueeze(-2), (1, k), (1, s), (0, pd), (1, d), ceil_mode, return_indices
    )
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def _check_max_pool1d(input, k, s, pd, d, ceil_mode):
    """torch's check_max_pool1d (its own wording, before the dtype check)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"max_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}"
        )
    if pd > k // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but "
            f"got padding={pd} and kernel_size={k}"
        )
    n = input.shape[-1]
    ow = (n + 2 * pd - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (ow - 1) * s >= n + pd:
        ow -= 1
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")


def _window_sums(xp, x, p):
    """Sum of each (zero-padded) window, in the output's shape."""
    x4 = _as4d(x)
    n, c = x4.shape[:2]
    (oh, ow), (kh, kw), (sh, sw) = p.out_hw, p.kernel, p.stride
    if p.reshapeable:
        y = x4.reshape(n, c, oh, kh, ow, kw).sum(axis=(3, 5))
    else:
        xpad = _padded(xp, x4, p, 0)
        y = xp.zeros((n, c, oh, ow), dtype=x.dtype)
        for i in range(kh):
            for j in range(kw):
                y += xpad[:, :, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw]
    return y.reshape(x.shape[:-2] + (oh, ow))


class AvgPool2D(Op):
    """Window means; the divisor follows count_include_pad / divisor_override as torch."""

    saves_inputs = True  # torch's node keeps `self` (its backward op takes it)

    def forward(self, x, p, count_include_pad, divisor_override, stride_arg=(), ceil_mode=False):
        self.p, self.in_shape = p, x.shape
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override
        self.stride_arg, self.ceil_mode = stride_arg, ceil_mode
        self.div = avg_divisor(
            self.xp, p, x.shape[-2:], count_include_pad, divisor_override, x.dtype
        )
        y = _window_sums(self.xp, x, p)
        if y.dtype.kind in "iu":  # integer averages truncate towards zero, as torch's
            return self.xp.trunc(y / self.div).astype(y.dtype)
        y /= self.div
        return y

    def backward(self, grad):
        if plain(grad):  # no graph to record: the kernel on the arrays
            return wrap(AvgPool2DBackward.kernel(self.xp, grad._data, self), grad)
        return AvgPool2DBackward.apply(grad, *self_arg(self), fwd=self)

    jvp = Op.jvp_linear


class _AvgPoolAgain(AvgPool2D):
    """The forward map reused inside a double backward (same windows, same divisor)."""

    node_name = "AvgPool2DBackward0"

    def forward(self, x, fwd):
        self.p, self.in_shape, self.div = fwd.p, fwd.in_shape, fwd.div
        self.count_include_pad, self.divisor_override = fwd.count_include_pad, fwd.divisor_override
        self.stride_arg, self.ceil_mode = fwd.stride_arg, fwd.ceil_mode
        y = _window_sums(self.xp, x, fwd.p)
        y /= self.div
        return y


# torch's _saved_* of avg_pool2d/3d_backward's node, read from the plain values a backward op
# keeps in `args` (ceil_mode, count_include_pad, divisor_override, kernel, padding, stride)
_AVG_POOL_BACKWARD_FIELDS = {
    name: (lambda i: lambda fn: fn.args[i])(i)
    for i, name in enumerate(
        ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "stride")
    )
}


class AvgPool2DBackward(Op):
    """Spread each output gradient over its window (adjoint of AvgPool2D); torch's
    avg_pool2d_backward(grad_output, self, ...), `self` unread."""

    node_name = "AvgPool2DBackwardBackward0"
    saves = ("fwd",)  # the forward node: its windows and divisor
    saved_fields = _AVG_POOL_BACKWARD_FIELDS

    def forward(self, grad, x=None, fwd=None):
        self.fwd = fwd
        # torch's arguments as plain values, readable after backward (vmap's batching rule
        # passes only the geometry)
        self.args = tuple(
            getattr(fwd, a, None) for a in ("ceil_mode", "count_include_pad", "divisor_override")
        ) + (fwd.p.kernel, fwd.p.pad, getattr(fwd, "stride_arg", None))
        return self.kernel(self.xp, grad, fwd)

    @staticmethod
    def kernel(xp, grad, fwd):
        """The gradient of the window means of `fwd` (an AvgPool2D node) spread over its input."""
        p = fwd.p
        g4 = _as4d(grad / fwd.div)
        n, c = g4.shape[:2]
        (oh, ow), (kh, kw), (sh, sw) = p.out_hw, p.kernel, p.stride
        h, w = fwd.in_shape[-2:]
        if p.reshapeable:
            out = xp.broadcast_to(g4[:, :, :, None, :, None], (n, c, oh, kh, ow, kw))
            return out.reshape(fwd.in_shape)
        (ph, pw), (hp, wp) = p.pad, p.padded_hw
        out = xp.zeros((n, c, hp, wp), dtype=grad.dtype)
        # torch adds each output's share in output order (increasing windows): at one input
        # position the window offsets come last first
        for i in reversed(range(kh)):
            for j in reversed(range(kw)):
                out[:, :, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw] += g4
        return xp.ascontiguousarray(out[:, :, ph : ph + h, pw : pw + w]).reshape(fwd.in_shape)

    def backward(self, grad):
        # torch: avg_pool2d(grad) for grad_output, zeros_like(self)
        need = self.needs_input_grad
        pooled = _AvgPoolAgain.apply(grad, fwd=self.fwd) if need[0] else None
        return (pooled,) + self_zeros(need, grad)

    jvp = jvp_grad_only


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    r"""Applies a 2-D average pooling over an input signal composed of several input planes.

    .. math::
        \text{out}(N_i, C_j, h, w) = \frac{1}{k_H k_W} \sum_{m < k_H, n < k_W} \text{input}(N_i,
        C_j, s_0 h + m, s_1 w + n)

    See :class:`~framework.nn.AvgPool2d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        kernel_size (int or tuple): the size of the window: one int, or 2 (one per spatial
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
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.avg_pool2d(x, 2)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
        >>> F.avg_pool2d(x, 2, divisor_override=1)  # window sums
        tensor([[[[10., 18.],
                  [42., 50.]]]])
    """
    p = pool_params(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    refuse(input._data, "b", "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    stride_arg = () if stride is None or stride == [] else p.stride  # as torch saves it
    return AvgPool2D.apply(
        input,
        p=p,
        count_include_pad=count_include_pad,
        divisor_override=divisor_override,
        stride_arg=stride_arg,
        ceil_mode=bool(ceil_mode),
    )


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    r"""Applies a 1-D average pooling over an input signal composed of several input planes.

    .. math::
        \text{out}(N_i, C_j, l) = \frac{1}{k} \sum_{m < k} \text{input}(N_i, C_j, s \cdot l + m)

    See :class:`~framework.nn.AvgPool1d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit padding added on both sides, at most half the
            kernel size (default: 0).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).
        count_include_pad (bool, optional): include the zero padding in the averaging divisor
            (default: True).

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> F.avg_pool1d(x, 2)
        tensor([[[0.5000, 2.5000, 4.5000, 6.5000]]])
        >>> F.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False)
        tensor([[[0.5000, 2.0000, 4.0000, 6.0000]]])
    """
    k, s, pd, _ = pool_windows(kernel_size, stride, padding, 1)
    return avg_pool2d(
        input.unsqueeze(-2), (1, k), (1, s), (0, pd), ceil_mode, count_include_pad
    ).squeeze(-2)


def _averaging_matrix(xp, size, out, dtype):
    """(out, size) matrix whose row i averages torch's adaptive window i."""
    i = xp.arange(out)
    start = (i * size) // out
    end = ((i + 1) * size + out - 1) // out  # ceil
    j = xp.arange(size)
    inside = (j[None] >= start[:, None]) & (j[None] < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _adaptive_by_window(xp, x, oh, ow):
    """Adaptive average pooling one window at a time (torch's windows)."""
    h, w = x.shape[-2:]
    out = xp.empty(x.shape[:-2] + (oh, ow), dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            win = x[..., i * h // oh : -(-(i + 1) * h // oh), j * w // ow : -(-(j + 1) * w // ow)]
            out[..., i, j] = win.mean(axis=(-2, -1))
    return out


class AdaptiveAvgPool2D(Op):
    """Adaptive average pooling as two small matmuls: A_h @ x @ A_w^T (any size ratio)."""

    saves = ("a_h", "a_w")
    saves_inputs = True  # torch's node keeps `self` (its backward op takes it)

    def forward(self, x, out_hw):
        xp, (h, w), (oh, ow) = self.xp, x.shape[-2:], out_hw
        self.a_h = _averaging_matrix(xp, h, oh, x.dtype)
        self.a_w = _averaging_matrix(xp, w, ow, x.dtype)
        if type(x) is _np.ndarray and x.dtype.char in "fd" and x.size and oh and ow:
            return _adaptive_avg.forward(x, oh, ow)  # torch's order (float32/float64)
        if oh and ow and h % oh == 0 and w % ow == 0:  # equal windows: a reshape and one mean
            return x.reshape(x.shape[:-2] + (oh, h // oh, ow, w // ow)).mean(axis=(-3, -1))
        if not xp.isfinite(x).all():  # the matmuls would spread inf * 0 = nan over windows
            return _adaptive_by_window(xp, x, oh, ow)
        return xp.matmul(xp.matmul(self.a_h, x), self.a_w.T)

    def backward(self, grad):
        for i, n in enumerate(grad.shape[1:], 1):
            if not n:  # torch's check (after a forward to an empty size)
                raise RuntimeError(
                    "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero "
                    "size for non-batch dimensions, but grad_output has sizes "
                    f"{list(grad.shape)} with dimension {i} being empty"
                )
        if plain(grad):  # no graph to record: the kernel on the arrays
            return wrap(
                AdaptiveAvgPool2DBackward.kernel(self.xp, grad._data, self.a_h, self.a_w), grad
            )
        if vmap_hook[0]:  # batched gradients: the matmuls (linear, differentiable as is)
            dev = grad.device
            dt = grad._data.dtype  # bfloat16 grads: forward ran (and built these) in float32
            a_h, a_w = (Tensor._make(a.astype(dt, copy=False), dev) for a in (self.a_h, self.a_w))
            return a_h.t().matmul(grad).matmul(a_w)
        return AdaptiveAvgPool2DBackward.apply(grad, self.inputs[0], a_h=self.a_h, a_w=self.a_w)

    jvp = Op.jvp_linear


class AdaptiveAvgPool2DBackward(Op):
    """Spread each output gradient over its adaptive window (the adjoint of AdaptiveAvgPool2D);
    torch's adaptive_avg_pool2d_backward(grad_output, self), `self` unread."""

    saves = ("a_h", "a_w")
    saved_fields = {
        "grad_output_sym_argsize_minus_1": lambda fn: fn.out_hw[1],
        "grad_output_sym_argsize_minus_2": lambda fn: fn.out_hw[0],
    }

    def forward(self, g, x=None, a_h=None, a_w=None, in_hw=None):
        """The input gradient of adaptive average pooling: each window gets its output's gradient
        divided by the window size (the averaging matrices, or the input size `in_hw`)."""
        self.out_hw = tuple(g.shape[-2:])
        if in_hw is not None:
            (h, w), (oh, ow) = in_hw, g.shape[-2:]
            a_h = _averaging_matrix(self.xp, h, oh, g.dtype)
            a_w = _averaging_matrix(self.xp, w, ow, g.dtype)
        self.a_h, self.a_w = a_h, a_w
        return self.kernel(self.xp, g, a_h, a_w)

    @staticmethod
    def kernel(xp, g, a_h, a_w):
        """A_h^T @ g @ A_w: two matmuls; a non-finite gradient one window at a time instead (it
        reaches only its own window, as in torch's kernel, not inf * 0 = nan elsewhere); torch's
        own order for float32/float64 NumPy arrays."""
        if type(g) is _np.ndarray and g.dtype.char in "fd" and g.size:
            return _adaptive_avg.backward(g, a_h.shape[1], a_w.shape[1])
        if xp.isfinite(g).all():
            a_h, a_w = a_h.astype(g.dtype, copy=False), a_w.astype(g.dtype, copy=False)
            return xp.matmul(xp.matmul(a_h.T, g), a_w)
        (oh, h), (ow, w) = a_h.shape, a_w.shape
        out = xp.zeros(g.shape[:-2] + (h, w), dtype=g.dtype)
        for i in range(oh):
            h0, h1 = i * h // oh, -(-(i + 1) * h // oh)
            for j in range(ow):
                w0, w1 = j * w // ow, -(-(j + 1) * w // ow)
                out[..., h0:h1, w0:w1] += g[..., i : i + 1, j : j + 1] / ((h1 - h0) * (w1 - w0))
        return out

    def backward(self, grad):
        """Adaptive average pooling of ``grad`` for grad_output (this op is linear in it; its
        adjoint is the pooling), zeros for `self`."""
        need = self.needs_input_grad
        out_hw = (self.a_h.shape[0], self.a_w.shape[0])
        pooled = AdaptiveAvgPool2D.apply(grad, out_hw=out_hw) if need[0] else None
        return (pooled,) + self_zeros(need, grad)

    jvp = jvp_grad_only


def adaptive_avg_pool2d(input, output_size):
    """Applies a 2-D adaptive average pooling: the windows are chosen so that the output has the
    size ``output_size``, for any input size (``output_size=1`` is global average pooling).

    See :class:`~framework.nn.AdaptiveAvgPool2d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        output_size (int or tuple): the target output size: one int, or one per spatial dimension
            (None keeps that dimension's size).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.adaptive_avg_pool2d(x, 1).flatten()
        tensor([7.5000])
        >>> F.adaptive_avg_pool2d(x, (3, None)).shape
        torch.Size([1, 1, 3, 4])
    """
    out_hw = adaptive_size(input, output_size, 2, "adaptive_avg_pool2d")
    if out_hw == (1, 1):  # torch takes the mean here (MeanBackward1)
        return input.mean(dim=(-2, -1), keepdim=True)
    if 0 not in out_hw:  # torch runs no kernel (and refuses no dtype) for an empty output
        refuse(input._data, "biu", "adaptive_avg_pool2d")
    return AdaptiveAvgPool2D.apply(input, out_hw=out_hw)


def adaptive_avg_pool1d(input, output_size):
    r"""Applies a 1-D adaptive average pooling: the windows are chosen so that the output has the
    length ``output_size``, for any input length (window :math:`l` spans :math:`[\lfloor l L_{in} /
    L_{out} \rfloor, \lceil (l + 1) L_{in} / L_{out} \rceil)`).

    See :class:`~framework.nn.AdaptiveAvgPool1d` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        output_size (int): the target output length.

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.

    Returns:
        Tensor: the pooled result.

    Example:
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> F.adaptive_avg_pool1d(x, 3)
        tensor([[[1.0000, 3.5000, 6.0000]]])
    """
    out = adaptive_size(input, output_size, 1, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1,) + out).squeeze(-2)
