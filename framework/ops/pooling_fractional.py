"""fractional_max_pool2d/3d (torch.nn.functional): max pooling over windows whose starts
follow torch's pseudo-random intervals (Graham's fractional max pooling), one sample in [0, 1)
per plane and spatial dim. Nodes as torch's: FractionalMaxPool2DBackward0 (3D), whose input
gradient is FractionalMaxPool2DBackwardBackward0 (3D) under create_graph."""

import math

from .._errors import refuse
from ..autograd.op import Op
from ._pool_args import window_argmax
from .pooling3d import _ScatterPlanes, scatter_back

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]

_DIMS = {2: ("height", "width"), 3: ("time", "height", "width")}


def _intervals(xp, u, n_in, n_out, k):
    """torch's generate_intervals for samples `u` (any shape): the window starts, (..., n_out),
    in u's floating dtype as torch's kernel computes them."""
    starts = xp.empty(u.shape + (n_out,), dtype="int64")
    if n_out > 1:
        t = u.dtype.type
        alpha = t(n_in - k) / t(n_out - 1)
        i = xp.arange(n_out - 1).astype(u.dtype)
        u = u[..., None]
        starts[..., :-1] = ((i + u) * alpha).astype("int64") - (u * alpha).astype("int64")
    if n_out > 0:
        starts[..., -1] = n_in - k
    return starts


class FractionalMaxPool2D(Op):
    """Max over fractional windows of the last two dims (subclass: three) and the flat index
    of each max in its plane (torch's scan: strictly greater, a NaN wins)."""

    fw_zero_grads = True  # (torch's backward op gives zeros_like(self) a tangent)

    non_differentiable = (1,)
    saves = ("index",)
    saves_inputs = True  # torch's node keeps `self`
    saved_fields = {"kernel_size": "kernel", "output_size": "out", "result1": "index"}
    nd = 2

    def forward(self, x, samples, kernel=(), out=()):
        """The window maxima of `x` and their flat plane indices."""
        xp, nd = self.xp, self.nd
        self.in_shape, self.kernel, self.out = x.shape, tuple(kernel), tuple(out)
        lead, sp = x.shape[:-nd], x.shape[-nd:]
        u = samples[: x.shape[0]] if x.ndim == nd + 2 else samples[0]  # (N, C, nd) or (C, nd)
        if self.half is not None:  # torch's bfloat16/float16 kernel rounds each step
            u = u.astype(self.half)
        # torch reads a 2-D plane's samples as (width, height), a 3-D one's as (t, h, w)
        per_axis = [u[..., 1], u[..., 0]] if nd == 2 else [u[..., a] for a in range(3)]
        # each window's first position (flat in its plane), then the kernel's offsets
        base, offsets, stride = 0, 0, 1
        for a in reversed(range(nd)):
            starts = _intervals(xp, per_axis[a], sp[a], out[a], kernel[a])  # lead + (out_a,)
            shape = (1,) * a + (out[a],) + (1,) * (nd - 1 - a)
            base = base + starts.reshape(lead + shape) * stride
            shape = (1,) * a + (kernel[a],) + (1,) * (nd - 1 - a)
            offsets = offsets + xp.arange(kernel[a]).reshape(shape) * stride
            stride *= sp[a]
        m, k = math.prod(out), math.prod(kernel)
        base = xp.broadcast_to(base, lead + tuple(out)).reshape(lead + (m, 1))
        if not k:  # empty windows: torch's max stays -inf at the window's first position
            self.index = base.reshape(lead + tuple(out)).astype("int64")
            return xp.full(self.index.shape, -xp.inf, dtype=x.dtype), self.index
        idx = base + xp.asarray(offsets).reshape(k)  # lead + (m, k)
        flat = x.reshape(lead + (math.prod(sp),))
        v = xp.take_along_axis(flat, idx.reshape(lead + (m * k,)), axis=-1).reshape(lead + (m, k))
        arg = window_argmax(xp, v)[..., None]
        vals = xp.take_along_axis(v, arg, axis=-1)[..., 0]
        index = xp.take_along_axis(idx, arg, axis=-1)[..., 0]
        self.index = index.reshape(lead + tuple(out))
        return vals.reshape(lead + tuple(out)), self.index

    def backward(self, grad, _=None):
        """``grad`` scattered to the input positions of the maxima."""
        node = FractionalMaxPool2DBackward if self.nd == 2 else FractionalMaxPool3DBackward
        return scatter_back(self, node, grad, self.in_shape[-self.nd :]), None

    jvp = Op.jvp_transpose


class FractionalMaxPool3D(FractionalMaxPool2D):
    """Max over fractional windows of the last three dims."""

    nd = 3


class FractionalMaxPool2DBackward(_ScatterPlanes):
    """fractional_max_pool2d's input gradient: torch's fractional_max_pool2d_backward(
    grad_output, self, ..., indices), `self` unread."""

    saved_fields = {"indices": "index"}


class FractionalMaxPool3DBackward(_ScatterPlanes):
    """fractional_max_pool3d's input gradient (fractional_max_pool3d_backward)."""

    saved_fields = {"indices": "index"}


def _sizes(value, nd, what):
    name = f"fractional_max_pool{nd}d"
    if isinstance(value, int):
        return (value,) * nd
    value = tuple(value)
    if len(value) != nd:
        many = "Ints" if nd == 2 else "three Ints"
        raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of {many}")
    return value


def _fractional(input, kernel_size, output_size, output_ratio, samples, nd):
    """torch's argument handling and checks, then the op: (values, indices)."""
    from .. import rand

    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if len(output_ratio) > nd:
            raise ValueError(
                f"{name} requires output_ratio to either be a single Int or tuple of Ints."
            )
        output_size = [int(input.size(-nd + i) * output_ratio[i]) for i in range(nd)]
    if samples is None:
        n = 1 if input.dim() == nd + 1 else input.size(0)
        samples = rand(n, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device)
    kernel = _sizes(kernel_size, nd, "kernel_size")
    out = _sizes(output_size, nd, "output_size")
    where = name + ("()" if nd == 2 else "_out()")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{where}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}"
        )
    for i in range(1, input.dim()):
        if not input.shape[i]:
            raise RuntimeError(
                f"{where}: Expected input to have non-zero size for non-batch dimensions, but "
                f"got{list(input.shape)} with dimension {i} being empty."
            )
    for a in (0, 1) if nd == 2 else (0, 2, 1):  # torch's order of checks
        o, k, n, dim = out[a], kernel[a], input.shape[a - nd], _DIMS[nd][a]
        if o + k - 1 > n or (nd == 3 and o + k - 1 == n):  # 3-D: strictly inside, as torch's
            raise RuntimeError(f"{where}: pool {dim} {k} too large relative to input {dim} {n}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    if input.dim() == nd + 2 and samples.shape[0] < input.shape[0]:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(
            f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}."
        )
    refuse(input._data, "biu", f"{name}_out_frame")
    op = FractionalMaxPool2D if nd == 2 else FractionalMaxPool3D
    return op.apply(input, samples.detach(), kernel=kernel, out=out)


def fractional_max_pool2d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    r"""Applies 2-D fractional max pooling (Graham, "Fractional Max-Pooling"): max over
    :math:`k_H \times k_W` windows whose pseudo-random starts give the target output size.

    See :class:`~framework.nn.FractionalMaxPool2d` for the module form.

    Args:
        input (Tensor): :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        kernel_size (int or tuple): the window size, :math:`k` or :math:`(k_H, k_W)`.
        output_size (int or tuple, optional): the output size :math:`(H_{out}, W_{out})`.
        output_ratio (tuple, optional): the output size as a ratio of the input's, in (0, 1).
        return_indices (bool, optional): also return the flat indices of the maxima (for
            :func:`max_unpool2d`) (default: False).
        _random_samples (Tensor, optional): one sample in [0, 1) per plane and dim,
            :math:`(N, C, 2)` (default: drawn with :func:`framework.rand`, as torch draws them).

    Returns:
        Tensor: the pooled result (and the indices with ``return_indices``).

    Example:
        >>> x = framework.arange(25.0).reshape(1, 1, 5, 5)
        >>> u = framework.full((1, 1, 2), 0.5)
        >>> F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u)
        tensor([[[[ 6.,  8.,  9.],
                  [16., 18., 19.],
                  [21., 23., 24.]]]])
    """
    y, idx = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return (y, idx) if return_indices else y


def fractional_max_pool3d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    r"""Applies 3-D fractional max pooling: max over :math:`k_T \times k_H \times k_W` windows
    whose pseudo-random starts give the target output size.

    See :class:`~framework.nn.FractionalMaxPool3d` for the module form.

    Args:
        input (Tensor): :math:`(N, C, T_{in}, H_{in}, W_{in})` or :math:`(C, T_{in}, H_{in},
            W_{in})`.
        kernel_size (int or tuple): the window size, :math:`k` or :math:`(k_T, k_H, k_W)`.
        output_size (int or tuple, optional): the output size :math:`(T_{out}, H_{out},
            W_{out})`.
        output_ratio (tuple, optional): the output size as a ratio of the input's, in (0, 1).
        return_indices (bool, optional): also return the flat indices of the maxima (for
            :func:`max_unpool3d`) (default: False).
        _random_samples (Tensor, optional): one sample in [0, 1) per plane and dim,
            :math:`(N, C, 3)` (default: drawn with :func:`framework.rand`, as torch draws them).

    Returns:
        Tensor: the pooled result (and the indices with ``return_indices``).

    Example:
        >>> x = framework.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> u = framework.full((1, 1, 3), 0.5)
        >>> F.fractional_max_pool3d(x, 2, output_size=2, _random_samples=u).flatten()
        tensor([21., 23., 29., 31., 53., 55., 61., 63.])
    """
    y, idx = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return (y, idx) if return_indices else y
