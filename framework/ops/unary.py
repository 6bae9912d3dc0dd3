"""Unary math (exp, log, sqrt, trig, rounding, abs, sign) and copies/casts.

exp, log, sqrt, sin and cos of float32/float64 arrays go to MKL's VML where it is loaded,
expm1 and log1p to the replay of Sleef's, as torch's (see `_vml`).
"""

from .._errors import check_scalar_fits, refuse
from ..autograd.op import Op
from . import _vml
from ..tensor import Tensor
from .. import dtypes
from .._memory_format import (
    channels_last_copy,
    check_rank,
    contiguous_format,
    preserve_format,
    preserved_empty,
)


__all__ = [
    "abs",
    "absolute",
    "ceil",
    "clone",
    "cos",
    "exp",
    "expm1",
    "fill",
    "fix",
    "floor",
    "frac",
    "log",
    "log1p",
    "reciprocal",
    "round",
    "rsqrt",
    "sign",
    "sin",
    "sqrt",
    "trunc",
]


def _float(x):
    """Unary math on integers gives the default float dtype, as in torch."""
    return x.astype(dtypes.get_default_dtype().np) if x.dtype.kind in "biu" else x


def _zeros(grad):
    """A constant zero gradient (torch's zeros_like(grad): no nan from inf * 0)."""
    return Tensor._make(grad.xp.zeros_like(grad._data), grad.device)


def _not_for(x, kernel, kinds="b"):
    """torch's error for a kernel that has no implementation for this dtype."""
    refuse(x, kinds, kernel)


class Exp(Op):
    saves_output = True
    saved_fields = {"result": "result"}

    def forward(self, x):
        return _vml.unary("exp", _float(x), self.xp.exp)

    def backward(self, grad):
        return grad * self.output  # d/dx e^x = e^x

    jvp = Op.jvp_elementwise


def exp(input):
    """exp(input) -> Tensor

    Computes the exponential of each element: :math:`e^{x_i}`.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.exp(framework.tensor([0.0, 1.0]))
        tensor([1.0000, 2.7183])
    """
    return Exp.apply(input)


class Expm1(Op):
    saves_output = True
    saved_fields = {"result": "result"}

    def forward(self, x):
        return _vml.sleef("expm1", _float(x), self.xp.expm1)

    def backward(self, grad):
        return grad * (self.output + 1)  # d/dx (e^x - 1) = e^x

    jvp = Op.jvp_elementwise


def expm1(input):
    """expm1(input) -> Tensor

    Computes :math:`e^{x_i} - 1`, accurate for small ``x``.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.expm1(framework.tensor([0.0, 1e-10], dtype=framework.float64))
        tensor([0.0000e+00, 1.0000e-10], dtype=torch.float64)
    """
    return Expm1.apply(input)


class Log(Op):
    saves_inputs = True
    saved_fields = {"self": "input0"}

    def forward(self, x):
        return _vml.unary("log", _float(x), self.xp.log)

    def backward(self, grad):
        (x,) = self.inputs
        return grad / x

    jvp = Op.jvp_elementwise


def log(input):
    """log(input) -> Tensor

    Computes the natural logarithm of each element.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.log(framework.tensor([1.0, 2.7183]))
        tensor([0.0000, 1.0000])
    """
    return Log.apply(input)


class Log1p(Op):
    node_name = "Log1PBackward0"
    saves_inputs = True
    saved_fields = {"self": "input0"}

    def forward(self, x):
        return _vml.sleef("log1p", _float(x), self.xp.log1p)

    def backward(self, grad):
        (x,) = self.inputs
        return grad / (x + 1)

    jvp = Op.jvp_elementwise


def log1p(input):
    r"""log1p(input) -> Tensor

    Computes :math:`\log(1 + x_i)`, accurate for small ``x``.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.log1p(framework.tensor([0.0, 1e-10], dtype=framework.float64))
        tensor([0.0000e+00, 1.0000e-10], dtype=torch.float64)
    """
    return Log1p.apply(input)


class Sqrt(Op):
    saves_output = True
    saved_fields = {"result": "result"}

    def forward(self, x):
        return _vml.unary("sqrt", _float(x), self.xp.sqrt)

    def backward(self, grad):
        return grad / (2 * self.output)  # d/dx sqrt(x) = 1 / (2 sqrt(x))

    jvp = Op.jvp_elementwise


def sqrt(input):
    """sqrt(input) -> Tensor

    Computes the square root of each element.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.sqrt(framework.tensor([4.0, 9.0]))
        tensor([2., 3.])
    """
    return Sqrt.apply(input)


class Rsqrt(Op):
    saves_output = True
    saved_fields = {"result": "result"}

    def forward(self, x):
        x = _float(x)
        return 1 / self.xp.sqrt(x)

    def backward(self, grad):
        y = self.output
        return grad * -0.5 * y.pow(3)  # torch's -0.5 * grad * result.pow(3)

    jvp = Op.jvp_elementwise


def rsqrt(input):
    r"""rsqrt(input) -> Tensor

    Computes :math:`1 / \sqrt{x_i}` for each element.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.rsqrt(framework.tensor([4.0, 16.0]))
        tensor([0.5000, 0.2500])
    """
    return Rsqrt.apply(input)


class Reciprocal(Op):
    saves_output = True
    saved_fields = {"result": "result"}

    def forward(self, x):
        return 1 / _float(x)

    def backward(self, grad):
        y = self.output
        return -grad * (y * y)  # torch's -grad * (result * result): y * y may overflow (0 * inf)

    jvp = Op.jvp_elementwise


def reciprocal(input):
    """reciprocal(input) -> Tensor

    Computes :math:`1 / x_i` for each element.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.reciprocal(framework.tensor([2.0, 4.0]))
        tensor([0.5000, 0.2500])
    """
    return Reciprocal.apply(input)


class Sin(Op):
    saves_inputs = True
    saved_fields = {"self": "input0"}

    def forward(self, x):
        return _vml.unary("sin", _float(x), self.xp.sin)

    def backward(self, grad):
        (x,) = self.inputs
        return grad * cos(x)

    jvp = Op.jvp_elementwise


def sin(input):
    """sin(input) -> Tensor

    Computes the sine of each element, in radians.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.sin(framework.tensor([0.0, 1.5708]))
        tensor([0., 1.])
    """
    return Sin.apply(input)


class Cos(Op):
    saves_inputs = True
    saved_fields = {"self": "input0"}

    def forward(self, x):
        return _vml.unary("cos", _float(x), self.xp.cos)

    def backward(self, grad):
        (x,) = self.inputs
        return grad * -sin(x)

    jvp = Op.jvp_elementwise


def cos(input):
    """cos(input) -> Tensor

    Computes the cosine of each element, in radians.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.cos(framework.tensor([0.0, 3.1416]))
        tensor([ 1., -1.])
    """
    return Cos.apply(input)


class Abs(Op):
    saves_inputs = True
    saved_fields = {"self": "input0"}

    def forward(self, x):
        _not_for(x, "abs_cpu")
        return self.xp.abs(x)

    def backward(self, grad):
        (x,) = self.inputs
        if x._data.dtype.kind == "f":  # torch's grad * self.sgn(): SgnBackward0 (sgn(0) = 0,
            from .pointwise import sgn  # torch's subgradient at the kink)

            return grad * sgn(x)
        return grad * sign(x)

    jvp = Op.jvp_elementwise


def abs(input):
    """abs(input) -> Tensor

    Computes the absolute value of each element of ``input``: :math:`|x_i|`.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.abs(framework.tensor([-1.0, -2.0, 3.0]))
        tensor([1., 2., 3.])
    """
    return Abs.apply(input)


absolute = abs


class Sign(Op):
    def forward(self, x):
        if x.dtype.kind == "f":  # sign(NaN) is 0 in torch
            return self.xp.where(self.xp.isnan(x), x.dtype.type(0), self.xp.sign(x))
        return x.copy() if x.dtype.kind == "b" else self.xp.sign(x)

    def backward(self, grad):
        return _zeros(grad)

    jvp = Op.jvp_elementwise


def sign(input):
    """sign(input) -> Tensor

    Returns the sign (-1, 0 or 1) of each element.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.sign(framework.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """
    return Sign.apply(input)


class _Rounding(Op):
    """Piecewise-constant ops: zero gradient; integers pass through unchanged."""

    kernel = ""

    def forward(self, x):
        _not_for(x, self.kernel)
        return x.copy() if x.dtype.kind in "iu" else self.round(self.xp, x)

    def backward(self, grad):
        return _zeros(grad)

    jvp = Op.jvp_elementwise


class Floor(_Rounding):
    kernel = "floor_vml_cpu"

    def round(self, xp, x):
        return xp.floor(x)


class Ceil(_Rounding):
    kernel = "ceil_vml_cpu"

    def round(self, xp, x):
        return xp.ceil(x)


class Trunc(_Rounding):
    kernel = "trunc_vml_cpu"

    def round(self, xp, x):
        return xp.trunc(x)


class Round(_Rounding):
    kernel = "round_vml_cpu"

    def forward(self, x, decimals=0):
        if decimals:
            refuse(x, "biu", "round_cpu")
        self.decimals = decimals
        return super().forward(x)

    def round(self, xp, x):
        # rint rounds half to even, as torch; decimals scale first, as torch does
        return xp.rint(x) if self.decimals == 0 else xp.round(x, self.decimals)

    def node_variant(self):
        return "RoundBackward0" if self.decimals == 0 else "RoundBackward1"


def floor(input):
    r"""floor(input) -> Tensor

    Returns the largest integer less than or equal to each element: :math:`\lfloor x_i \rfloor`.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.floor(framework.tensor([-0.5, 1.2]))
        tensor([-1.,  1.])
    """
    return Floor.apply(input)


def ceil(input):
    r"""ceil(input) -> Tensor

    Returns the smallest integer greater than or equal to each element: :math:`\lceil x_i
    \rceil`.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.ceil(framework.tensor([-0.5, 1.2]))
        tensor([-0., 2.])
    """
    return Ceil.apply(input)


def trunc(input):
    """trunc(input) -> Tensor

    Rounds each element toward zero.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.trunc(framework.tensor([-1.7, 1.7]))
        tensor([-1.,  1.])
    """
    return Trunc.apply(input)


fix = trunc


def round(input, decimals=0):
    """round(input, decimals=0) -> Tensor

    Rounds each element to the nearest integer (half to even), or to ``decimals`` places.

    Args:
        input (Tensor): the input tensor.
        decimals (int, optional): the number of decimal places to round to. Default: ``0``.

    Example:
        >>> framework.round(framework.tensor([0.5, 1.5, 2.567]))
        tensor([0., 2., 3.])
    """
    return Round.apply(input, decimals=decimals)


class Frac(Op):
    def forward(self, x):
        _not_for(x, "frac_cpu", "biu")
        return x - self.xp.trunc(x)

    def backward(self, grad):
        return grad

    jvp = Op.jvp_elementwise


def frac(input):
    r"""frac(input) -> Tensor

    Computes the fractional part of each element: :math:`x_i - \operatorname{trunc}(x_i)`.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.frac(framework.tensor([1.5, -2.25]))
        tensor([ 0.5000, -0.2500])
    """
    return Frac.apply(input)


class ToCopy(Op):
    """Change dtype and/or device; the gradient goes back to the source's."""

    casts = True

    def forward(self, x, device=None, dtype=None, channels_last=False):
        """``x`` converted to ``dtype`` and/or moved to ``device`` (a copy, even when nothing
        changes)."""
        from ..backend import device_of, move

        self.src_device, self.src_dtype = device_of(x), x.dtype
        if dtype is not None and x.dtype != dtype:
            x = dtypes.cast(x, dtype)  # torch's double -> half goes through float
        elif device is None or device == self.src_device:
            x = x.copy()
        if channels_last:
            x = channels_last_copy(self.xp, x)
        return move(x, device) if device is not None else x

    def backward(self, grad):
        return grad.to(device=self.src_device, dtype=self.src_dtype)

    jvp = Op.jvp_linear


def to_copy(x, device=None, dtype=None, channels_last=False):
    """Returns a copy of ``x`` converted to a dtype and/or moved to a device (the implementation of
    :meth:`Tensor.to`, node ToCopyBackward0).

    Args:
        x (Tensor): the source tensor.
        device (:class:`framework.device`, optional): the target device. Default: ``None`` (keep).
        dtype (numpy.dtype, optional): the target array dtype. Default: ``None`` (keep).
        channels_last (bool, optional): lay the copy out in channels-last order. Default:
            ``False``.

    Returns:
        Tensor: the converted copy; its gradient flows back in ``x``'s dtype and device.

    Example:
        >>> import numpy
        >>> to_copy(framework.tensor([1, 2]), dtype=numpy.dtype("float64"))
        tensor([1., 2.], dtype=torch.float64)
    """
    out = ToCopy.apply(x, device=device, dtype=dtype, channels_last=channels_last)
    if device is not None and out._device != device:
        out._device = device
    return out


class Clone(Op):
    """A copy; torch keeps the strides of a dense input (memory_format=preserve)."""

    def forward(self, x, order):
        if order == "channels_last":
            return channels_last_copy(self.xp, x)
        if order == "preserve":
            out = preserved_empty(self.xp, x, x.dtype)
            out[...] = x
            return out
        return x.copy(order=order)

    def backward(self, grad):
        return grad

    jvp = Op.jvp_linear


def clone(input, memory_format=None):
    """clone(input, memory_format=None) -> Tensor

    Returns a copy of ``input``; the copy is differentiable (gradient flows back to ``input``).

    Args:
        input (Tensor): the input tensor.
        memory_format (:class:`framework.memory_format`, optional): the desired memory format of the
            returned tensor. Default: ``framework.preserve_format``.

    Example:
        >>> framework.clone(framework.tensor([1.0, 2.0]))
        tensor([1., 2.])
    """
    arr = input._data
    if getattr(memory_format, "rank", None) is not None:  # channels_last(_3d)
        check_rank(memory_format, arr.ndim)
        return Clone.apply(input, order="channels_last")
    if memory_format is contiguous_format:
        memory_format = "contiguous"
    elif memory_format is preserve_format:
        memory_format = None
    keep = memory_format is None and (
        (not arr.flags.c_contiguous and arr.ndim > 1) or (not arr.size and any(arr.strides))
    )  # (an empty view's strides are kept, as torch's)
    return Clone.apply(input, order="preserve" if keep else "C")


class Fill(Op):
    """fill_(value) as an op: the result ignores the input."""

    node_name = "FillBackward0"

    def forward(self, x, value):
        if isinstance(value, Tensor):
            value = value.item()
        return self.xp.full(x.shape, value, dtype=x.dtype)

    def backward(self, grad):
        return _zeros(grad)

    jvp = Op.jvp_elementwise


def fill(x, value):
    """fill(x, value) -> Tensor

    Returns a tensor of the shape of ``input`` filled with ``value``, differentiable with
    respect to ``value`` when it is a tensor.

    Args:
        x (Tensor): the input tensor.
        value (Number or Tensor): the fill value (a 0-dim tensor is differentiable).

    Example:
        >>> framework.fill(framework.zeros(3), 2.0)
        tensor([2., 2., 2.])
    """
    return Fill.apply(x, value=value)


class _FillScalar(Fill):
    """x.fill_(number): torch's in-place overload has its own node."""

    node_name = "FillBackward2"


class _Zero(Fill):
    node_name = "ZeroBackward0"


class _FillTensor(Op):
    """x.fill_(0-dim tensor): the value gets the sum of the gradient."""

    node_name = "FillBackward3"

    def forward(self, x, value):
        return self.xp.full(x.shape, value, dtype=x.dtype)

    def backward(self, grad):
        return _zeros(grad), grad.sum()

    jvp = Op.jvp_elementwise


def _fill_inplace(x, value):
    """The op Tensor.fill_ / zero_ record (ZeroBackward0, FillBackward2 or FillBackward3)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor "
                f"with {value.ndim} dimensions."
            )
        return _FillTensor.apply(x, value)
    if value is not None:  # torch's one-element fill skips the float16/bfloat16 range check
        value = check_scalar_fits(value, x._data.dtype, reduced_float=x.numel() != 1)
    return (_Zero if value is None else _FillScalar).apply(x, value=0 if value is None else value)


class CopyInto(Op):
    """copy_(src): the result is src broadcast to the destination's shape and dtype."""

    node_name = "torch::autograd::CopyBackwards"

    def forward(self, dst, src):
        self.src_dtype = src.dtype
        src = src if src.dtype == dst.dtype else dtypes.cast(src, dst.dtype)
        return self.xp.broadcast_to(src, dst.shape)

    def backward(self, grad):
        return _zeros(grad), grad

    jvp = Op.jvp_linear


def copy_into(dst, src):
    """The new value of ``dst`` after ``dst.copy_(src)``: ``src`` moved to ``dst``'s device, cast to
    its dtype and broadcast to its shape (node CopyBackwards); :meth:`Tensor.copy_` swaps it in.

    Args:
        dst (Tensor): the destination (only its shape, dtype and device are read).
        src (Tensor): the values to copy.

    Returns:
        Tensor: the copied values, of ``dst``'s shape and dtype.

    Example:
        >>> copy_into(framework.zeros(2, 2), framework.tensor([1.0, 2.0]))
        tensor([[1., 2.],
                [1., 2.]])
    """
    if src._data.shape != dst._data.shape:  # torch's errors, not NumPy's
        from .._errors import broadcast_shapes, inplace_shape_error

        shape = broadcast_shapes(dst._data.shape, src._data.shape)
        if shape != dst._data.shape:
            raise inplace_shape_error(dst._data.shape, shape)
    if src._device != dst._device:
        src = src.to(dst._device)
    return CopyInto.apply(dst, src)
