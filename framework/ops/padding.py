"""pad: constant padding (ConstantPadNdBackward0), reflect / replicate padding as index gathers
named as torch's nodes, and circular padding as torch builds it (slice copies: CopySlices)."""

import math

from .._errors import check_scalar_fits, refuse
from ..autograd.op import Op
from ..amp.autocast_mode import cast as _amp_cast, state as _amp
from ..backend import scatter_add
from ..tensor import Tensor
from ._fastgrad import plain
from .indexing import Index


class _GatherPad(Index):
    """reflect/replicate pad as x[key]. Its gradient is the sum of grad into zeros at key;
    with create_graph, torch's {reflection,replication}_pad_backward kernel as an op of its own
    (_PadBackward), so the gradient requires grad with the input, as torch's."""

    saves_inputs = True  # (torch saves self for its backward kernel)

    def backward(self, grad):
        if plain(grad):
            return Index.backward(self, grad)
        return self._backward_node.apply(grad, self.inputs[0], key=self.key, pad=type(self))


class _PadBackward(Op):
    """torch's {reflection,replication}_pad{n}d_backward(grad_output, self) kernel: zeros of
    self's shape with grad_output summed in at the padding's source indices; its derivatives
    (derivatives.yaml): the pad of the upstream gradient for grad_output, zeros for self."""

    saves = ("key",)

    def forward(self, grad, x, key, pad):
        """The gradient sum into zeros of x's shape."""
        self.key, self.pad, self.in_shape, self.in_dtype = key, pad, x.shape, x.dtype
        out = self.xp.zeros(x.shape, dtype=grad.dtype)
        scatter_add(self.xp, out, key, grad)
        return out

    def backward(self, gg):
        """(pad(gg), zeros_like(self))."""
        zeros = Tensor._make(gg.xp.zeros(self.in_shape, dtype=self.in_dtype), gg.device)
        return self.pad.apply(gg, key=self.key), zeros

    def jvp(self, t_grad, t_x):
        """torch's forward derivative: the kernel of grad_output's tangent (self's: none)."""
        if t_grad is None:
            return None
        return self._op.apply(t_grad, self._fw_args[1], key=self.key, pad=self.pad)


def _node(name):
    backward = type(
        name + "Backward",
        (_PadBackward,),
        {
            "node_name": name + "BackwardBackward0",
            "__module__": __name__,
            "__doc__": f"{name}'s backward kernel (create_graph).",
        },
    )
    return type(
        name,
        (_GatherPad,),
        {
            "node_name": name + "Backward0",
            "_backward_node": backward,
            "__module__": __name__,
            "__doc__": f"{name}: pad by gathering source indices.",
        },
    )


ReflectionPad1D, ReflectionPad2D, ReflectionPad3D = (_node(f"ReflectionPad{n}D") for n in (1, 2, 3))
ReplicationPad1D, ReplicationPad2D, ReplicationPad3D = (
    _node(f"ReplicationPad{n}D") for n in (1, 2, 3)
)
_OPS = {
    ("reflect", 1): ReflectionPad1D,
    ("reflect", 2): ReflectionPad2D,
    ("reflect", 3): ReflectionPad3D,
    ("replicate", 1): ReplicationPad1D,
    ("replicate", 2): ReplicationPad2D,
    ("replicate", 3): ReplicationPad3D,
}

_SUPPORTED = (
    "Padding size {} is not supported for {}D input tensor.\n"
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def gather_pad(input, pad, mode):
    """Pad the last len(pad)//2 dims by reflect or replicate index maps."""
    xp = input.xp
    n = len(pad) // 2
    if not (input.dim() in (n + 1, n + 2) and 1 <= n <= 3):
        raise NotImplementedError(_SUPPORTED.format(len(pad), input.dim()))
    if 0 in input.shape[input.dim() - n - 1 :]:  # a batch dim may be 0
        raise RuntimeError(
            f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 "
            "batch size and other non-zero dimensions for input, but got: "
            f"{list(input.shape)}"
        )
    key = [slice(None)] * input.dim()
    for i in range(n):
        d = input.dim() - 1 - i
        size, lo, hi = input.shape[d], pad[2 * i], pad[2 * i + 1]
        j = xp.arange(-lo, size + hi)
        if mode == "reflect":
            if lo >= size or hi >= size:
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({lo}, "
                    f"{hi}) at dimension {d} of input {list(input.shape)}"
                )
            period = 2 * (size - 1)
            j = xp.abs(j) % period if period else xp.zeros_like(j)
            j = xp.where(j >= size, period - j, j)
        else:
            if size == 0:
                raise RuntimeError("input tensor must have non-zero size along padded dims")
            j = xp.clip(j, 0, size - 1)
        shape = [1] * n
        shape[n - 1 - i] = -1
        key[d] = j.reshape(shape)
    kernel = "reflection" if mode == "reflect" else "replication"
    refuse(input._data, "b", f"{kernel}_pad{n}d")  # the kernel's refusal, after the checks
    return _OPS[(mode, n)].apply(input, key=tuple(key))


def circular_pad(input, pad):
    """torch's _pad_circular: the input copied into a new tensor, then each padded dim's ends
    copied from the other end of the result, so the graph is torch's chain of CopySlices."""
    from ..creation import empty

    n = len(pad) // 2
    if not (input.dim() in (n + 1, n + 2) and 1 <= n <= 3):
        raise NotImplementedError(_SUPPORTED.format(len(pad), input.dim()))
    last = input.dim() - 1
    in_shape, out_shape = tuple(input.shape), list(input.shape)
    for i in range(n):
        d, lo, hi = last - i, pad[2 * i], pad[2 * i + 1]
        if lo > in_shape[d] or hi > in_shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[d] = in_shape[d] + lo + hi
        if out_shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = empty(out_shape, dtype=input.dtype, device=input.device)
    dst, src = out, input
    for i in range(n):
        d, lo, hi = last - i, max(pad[2 * i], 0), max(pad[2 * i + 1], 0)
        dst = dst.narrow(d, lo, out_shape[d] - hi - lo)
        cut_lo, cut_hi = max(-pad[2 * i], 0), max(-pad[2 * i + 1], 0)
        src = src.narrow(d, cut_lo, in_shape[d] - cut_hi - cut_lo)
    dst.copy_(src)
    for i in range(n):
        d, lo, hi = last - i, pad[2 * i], pad[2 * i + 1]
        if lo > 0:
            out.narrow(d, 0, lo).copy_(out.narrow(d, out_shape[d] - lo - max(hi, 0), lo))
        if hi > 0:
            out.narrow(d, out_shape[d] - hi, hi).copy_(out.narrow(d, max(lo, 0), hi))
    return out


__all__ = []


class ConstantPadNd(Op):
    """Pad (or, with negative sizes, crop) the trailing dims with a constant."""

    def forward(self, x, pad=(), value=0.0):
        self.pad = pad
        n = len(pad) // 2
        out_shape = list(x.shape)
        src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
        for i in range(n):  # pad[2i], pad[2i+1] are (before, after) of dim -1-i
            d = x.ndim - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            out_shape[d] = x.shape[d] + lo + hi
            # torch narrows first: cropping more than there is fails there (so its negative
            # output size check is never reached)
            if x.shape[d] - max(-lo, 0) - max(-hi, 0) < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            src[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
            dst[d] = slice(max(lo, 0), out_shape[d] - max(hi, 0))
        out = self.xp.full(out_shape, value, dtype=x.dtype)
        out[tuple(dst)] = x[tuple(src)]
        return out

    def backward(self, grad):
        return ConstantPadNd.apply(grad, pad=tuple(-p for p in self.pad), value=0.0)

    def jvp(self, t):
        return ConstantPadNd.apply(t, pad=self.pad, value=0.0)  # the fill is a constant


def _check_fill(input, pad, value):
    """The fill value: torch fills the padded output with the (float) value, a checked
    conversion (one element: no float16 check); a crop only narrows (no fill: 0 here)."""
    shape = list(input.shape)
    for i in range(len(pad) // 2):
        shape[-1 - i] += pad[2 * i] + pad[2 * i + 1]
    if not any(p > 0 for p in pad):
        return 0.0
    if min(shape, default=0) >= 0:
        check_scalar_fits(float(value), input._data.dtype, reduced_float=math.prod(shape) != 1)
    return value


def pad(input, pad, mode="constant", value=None):
    r"""Pads a tensor.

    ``pad`` lists the padding sizes from the last dimension backwards, two per dimension:
    ``(left, right)`` pads the last dimension, ``(left, right, top, bottom)`` the last two, and so
    on. Negative sizes crop (constant mode).

    Args:
        input (Tensor): an N-dimensional tensor.
        pad (tuple): ``2 m`` sizes, :math:`m \le` ``input.dim()`` (``'constant'``) or the number of
            spatial dimensions (the other modes).
        mode (str, optional): ``'constant'``, ``'reflect'``, ``'replicate'`` or ``'circular'``
            (default: ``'constant'``).
        value (float, optional): the fill value for ``'constant'`` padding (default: None, 0).

    Returns:
        Tensor: ``input`` padded.

    Example:
        >>> x = framework.tensor([[1.0, 2.0, 3.0]])
        >>> F.pad(x, (1, 2), value=-1.0)
        tensor([[-1.,  1.,  2.,  3., -1., -1.]])
        >>> F.pad(x.unsqueeze(0), (2, 1), mode="reflect")
        tensor([[[3., 2., 1., 2., 3., 2.]]])
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input "
            f"dimension but got padding length {len(pad)} and input of dimension "
            f"{input.dim()}"
        )
    if mode == "constant":
        value = _check_fill(input, pad, 0.0 if value is None else value)
        return ConstantPadNd.apply(input, pad=pad, value=value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if _amp.active and mode != "circular":  # torch's reflection/replication kernels
        name = ("reflection" if mode == "reflect" else "replication") + f"_pad{len(pad) // 2}d"
        (input,) = _amp_cast(name, input.device.type, input)
    if mode == "circular":
        return circular_pad(input, pad)
    return gather_pad(input, pad, mode)
