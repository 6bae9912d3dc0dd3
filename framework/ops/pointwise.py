"""Pointwise ops of several inputs: lerp, addcmul, addcdiv, atan2, hypot, fmod, xlogy,
logaddexp, nan_to_num, sgn and the float tests isnan/isinf/isfinite/isclose."""

import math

import numpy as np

from .._fma import fma32, fusable, fused
from .._errors import (
    bool_negation,
    bool_subtraction,
    broadcast_shapes,
    cast_error,
    inplace_shape_error,
    must_be_tensor,
    refuse,
    zero_division,
)
from ..autograd.engine import is_zero_tensor
from ..autograd.op import Op, round_half, vmap_hook
from ..dtypes import cpp_type_name, result_type, scalar_type_name
from ..tensor import Tensor
from . import _vec_binary
from .elementwise import MulScalar, pow
from .unary import Sign, _float, _zeros


def _fma_kernel(op, a):
    """torch's float32/float64 CPU lerp/addcmul kernels fuse their multiply-add (one
    rounding: ``vec::fmadd``, the scalar loop contracted alike); NumPy arrays of those dtypes
    take framework._fma.fused."""
    return op.half is None and fusable(a)


class Lerp(Op):
    """input + weight * (end - input), weight a number."""

    saves_inputs = True
    promote = True

    def forward(self, a, b, weight=0.5):
        self.weight = weight
        w = a.dtype.type(weight)
        if self.half is not None and self.xp.__name__ == "numpy":  # torch's kernel fuses the
            d = b - a  # multiply-add (FMA) in float32 before rounding to half
            return fma32(d, w, a) if abs(weight) < 0.5 else fma32(-d, 1 - w, b)
        if _fma_kernel(self, a):  # float32/float64: torch's lerp_vec is one fmadd
            d = b - a
            return fused(d, w, a) if abs(weight) < 0.5 else fused(-d, 1 - w, b)
        return a + w * (b - a) if abs(weight) < 0.5 else b - (b - a) * (1 - w)

    def backward(self, grad):
        g_end = grad * self.weight  # (torch's sorted derivatives.yaml keys: end first)
        return grad * (1 - self.weight), g_end

    jvp = Op.jvp_elementwise


class LerpTensor(Op):
    """input + weight * (end - input), weight a tensor."""

    saves_inputs = True
    broadcasts = True
    node_name = "LerpBackward1"

    def forward(self, a, b, w):
        xp = self.xp
        if self.half is not None and xp.__name__ == "numpy":  # FMA in float32, as torch's
            d = b - a
            return xp.where(xp.abs(w) < 0.5, fma32(d, w, a), fma32(-d, 1 - w, b))
        if _fma_kernel(self, a) and w.dtype == a.dtype:
            d = b - a
            return xp.where(xp.abs(w) < 0.5, fused(d, w, a), fused(-d, 1 - w, b))
        return xp.where(xp.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))

    def backward(self, grad):
        a, b, w = self.inputs
        _, _, need_w = self.needs_input_grad
        g_end = grad * w  # torch's sorted derivatives.yaml keys: end, self, weight
        g_self = grad * (1 - w)
        return g_self, g_end, grad * (b - a) if need_w else None

    jvp = Op.jvp_elementwise
    jvp_reads_primal = True  # (torch's weight_t * (end_p - self_p) term links the tangent)


def lerp(input, end, weight):
    """Linear interpolation input + weight * (end - input).

    Args:
        input: start values.
        end: end values (same dtype).
        weight: a number or a tensor (broadcast).

    Example:
        >>> framework.lerp(framework.tensor([0., 10.]), framework.tensor([10., 20.]), 0.5)
        tensor([ 5., 15.])
    """
    return _lerp(input, end, weight)


def _lerp(input, end, weight, inplace=False):
    """lerp with torch's checks in its order: dtypes, then the broadcast shape (which in place
    must be input's), then the kernel's dtype."""
    others = (("end", end), ("weight", weight)) if isinstance(weight, Tensor) else (("end", end),)
    for name, t in others:  # no promotion: torch wants one dtype
        if t.dtype != input.dtype:
            raise RuntimeError(
                f"expected dtype {cpp_type_name(input._data.dtype)} for `{name}` "
                f"but got dtype {cpp_type_name(t._data.dtype)}"
            )
    shape = broadcast_shapes(*(tuple(t.shape) for t in (input, *(t for _, t in others))))
    if inplace and shape != tuple(input.shape):
        raise inplace_shape_error(input.shape, shape)
    refuse(
        input._data,
        "biu",
        "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar",
    )
    if isinstance(weight, Tensor):
        return LerpTensor.apply(input, end, weight)
    return Lerp.apply(input, end, weight=weight)


class Addcmul(Op):
    saves_inputs = True
    promote = True

    def forward(self, x, t1, t2, value=1):
        refuse(x, "b", "addcmul_cpu_out")  # the inputs are promoted to the result dtype
        self.value = value
        if self.half is not None and self.xp.__name__ == "numpy":  # (value * t1) * t2 + x,
            return fma32(x.dtype.type(value) * t1, t2, x)  # fused in float32, as torch's kernel
        if _fma_kernel(self, x):  # float32/float64: fused too (one rounding after value * t1)
            return fused(x.dtype.type(value) * t1 if value != 1 else t1, t2, x)
        return x + x.dtype.type(value) * t1 * t2 if value != 1 else x + t1 * t2

    def backward(self, grad):
        _, t1, t2 = self.inputs
        _, n1, n2 = self.needs_input_grad
        g = grad * self.value if self.value != 1 else grad
        return grad, g * t2 if n1 else None, g * t1 if n2 else None

    jvp = Op.jvp_multilinear
    additive = (0,)


class Addcdiv(Op):
    saves_inputs = True
    promote = True

    def forward(self, x, t1, t2, value=1, t2_dtype=None):
        self.value, self.t2_dtype = value, t2_dtype
        return x + x.dtype.type(value) * t1 / t2  # (value * t1) / t2, torch's order

    def backward(self, grad):
        _, t1, t2 = self.inputs
        _, n1, n2 = self.needs_input_grad
        value = self.value
        if n1 and self.t2_dtype is not None and not self.t2_dtype.is_floating_point:
            # torch's `value / tensor2` is empty_like(tensor2).fill_(value).div_(tensor2):
            # an integer or bool tensor2 cannot hold the quotient (even an empty one)
            from ..dtypes import get_default_dtype

            raise cast_error(scalar_type_name(get_default_dtype().np), self.t2_dtype.np)
        # torch's tensor1 formula, grad * (value / tensor2), is a product with its ZeroTensor:
        # zeros even where tensor2 is 0 (only tensor2's formula, -grad ..., materializes it)
        g1 = None
        if n1:
            if is_zero_tensor(grad):
                g1 = _zeros(grad)
            else:  # (value / tensor2: a filled tensor divided in place, DivBackward0)
                v = Tensor._make(t2.xp.full(t2._data.shape, value, t2._data.dtype), t2.device)
                g1 = grad * (v / t2)
        if not n2:
            return grad, g1, None
        # torch: -grad * (value * tensor1 / (tensor2 * tensor2)), the square in tensor2's own
        # dtype (float32's 1e-30 ** 2 is 0: an inf gradient)
        sq = t2 * t2
        if self.t2_dtype is not None and self.t2_dtype != t2.dtype:
            sq = (t2.to(self.t2_dtype) * t2.to(self.t2_dtype)).to(t2.dtype)
        if value != 1 or grad.requires_grad or t1.requires_grad:  # mul.Scalar: MulBackward1
            t1 = MulScalar.apply(t1, other=value)
        return grad, g1, -grad * (t1 / sq)

    jvp = Op.jvp_elementwise


def _check_int_div(t1, t2):
    if t1.dtype.is_floating_point or t2.dtype.is_floating_point:
        return
    raise RuntimeError(
        "Integer division with addcdiv is no longer supported, and in a future "
        " release addcdiv will perform a true division of tensor1 and tensor2. "
        "The historic addcdiv behavior can be implemented as (input + value * "
        "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and "
        "as (input + value * tensor1 / tensor2) for float inputs. The future "
        "addcdiv behavior is just the latter implementation: (input + value * "
        "tensor1 / tensor2), for all dtypes."
    )


def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2 (broadcast).

    Args:
        input (Tensor): the input tensor.
        tensor1 (Tensor): the tensor to be multiplied.
        tensor2 (Tensor): the tensor to be multiplied.
        value (Number, optional): the multiplier for ``tensor1 * tensor2``. Default: ``1``.

    Example:
        >>> framework.addcmul(framework.ones(2), framework.tensor([1., 2.]),
        ...                   framework.tensor([3., 4.]), value=0.5)
        tensor([2.5000, 5.0000])
    """
    return Addcmul.apply(input, tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2 (broadcast; float division only).

    Args:
        input (Tensor): the input tensor.
        tensor1 (Tensor): the numerator tensor.
        tensor2 (Tensor): the denominator tensor.
        value (Number, optional): the multiplier for ``tensor1 / tensor2``. Default: ``1``.

    Example:
        >>> framework.addcdiv(framework.zeros(2), framework.tensor([1., 2.]),
        ...                   framework.tensor([4., 4.]))
        tensor([0.2500, 0.5000])
    """
    _check_int_div(tensor1, tensor2)
    t2_dtype = tensor2.dtype if isinstance(tensor2, Tensor) else None
    return Addcdiv.apply(input, tensor1, tensor2, value=value, t2_dtype=t2_dtype)


def _binary(
    name, forward, grads, node=None, float_out=True, kernel=None, bool_error=None, half=False
):
    """A promoting binary op; grads(grad, a, b) -> (grad_a, grad_b) in Tensor ops.

    kernel: torch's kernel name where it has none for integer/bool results (refused as torch
    does); bool_error(bools, needs): the error torch's backward formula raises when an input
    was bool (bools: which were, from the `bools=` argument of apply); half: forward takes the
    half dtype the op computes for in float32 (None otherwise) as a fourth argument."""

    def fwd(self, a, b, bools=None):
        if kernel is not None:
            refuse(a, "biu", kernel)
        self.bools = bools
        if float_out:
            a, b = _float(a), _float(b)
        return forward(self.xp, a, b, self.half) if half else forward(self.xp, a, b)

    def bwd(self, grad):
        if self.bools is not None and bool_error is not None:
            err = bool_error(self.bools, self.needs_input_grad)
            if err is not None:
                raise err
        a, b = self.inputs
        return grads(grad, a, b)

    return type(
        name,
        (Op,),
        {
            "saves_inputs": True,
            "promote": True,
            "forward": fwd,
            "jvp": Op.jvp_elementwise,
            "backward": bwd,
            "node_name": node or f"{name}Backward0",
            "__module__": __name__,
            "__doc__": f"{name}: a binary op.",
        },
    )


def _bools(a, b):
    """Which operands are bool tensors (None when neither: the common case)."""
    bools = tuple(isinstance(t, Tensor) and t.dtype.name == "bool" for t in (a, b))
    return bools if any(bools) else None


def _atan2_grads(grad, a, b):
    # torch's atan2_backward: recip = 1 / (a^2 + b^2) with recip.masked_fill_(denom == 0, 0)
    # (a zero or underflowing denominator gives 0, not inf or NaN)
    r = a * a + b * b
    recip = r.reciprocal().where(r != 0, _zeros(r))
    return grad * b * recip, grad * -a * recip


def _hypot_grads(grad, a, b):
    h = Hypot.apply(a, b)  # torch divides by the result (a * a + b * b overflows)
    g_other = grad * b / h  # (torch's sorted derivatives.yaml keys: other first)
    return grad * a / h, g_other


def _xlogy_grads(grad, x, y):
    # torch: xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.), after
    # other's grad * self / other (its sorted derivatives.yaml keys)
    gy = grad * x / y
    gx = xlogy(grad, y).masked_fill((x == 0) & (y <= 0), 0.0)
    return gx, gy


def _logaddexp_grads(grad, a, b):
    return grad / ((b - a).exp() + 1), grad / ((a - b).exp() + 1)


def _fmod(xp, a, b):
    refuse(a, "b", "fmod_cpu")
    if a.dtype.kind in "iu" and a.size and not b.all():
        raise zero_division()
    return xp.fmod(a, b)


def _torch_kernel(kernel, fallback):
    """A forward running ``_vec_binary``'s replay of torch's CPU kernel on NumPy float32/
    float64 operands of one dtype, ``fallback(xp, a, b)`` elsewhere (CuPy, half, ...)."""

    def forward(xp, a, b):
        """kernel(a, b) on NumPy operands it applies to, else fallback(xp, a, b)."""
        if xp is np:
            a2, b2 = np.asarray(a), np.asarray(b)
            if _vec_binary.applies(a2, b2):
                return kernel(a2, b2)
        return fallback(xp, a, b)

    return forward


Atan2 = _binary(
    "Atan2",
    _torch_kernel(_vec_binary.atan2, lambda xp, a, b: xp.arctan2(a, b)),
    _atan2_grads,
    # torch's formula negates `self` for the gradient of `other`
    bool_error=lambda bools, needs: bool_negation() if bools[0] and needs[1] else None,
)


def _hypot(xp, a, b):
    """hypot's values: torch's float64 bits by `_sleef_hypot` (Sleef body, C-library tails)."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype == np.float64:
        from ._sleef_hypot import hypot

        return hypot(a, b)
    return xp.hypot(a, b)


Hypot = _binary("Hypot", _hypot, _hypot_grads, kernel="hypot_cpu")


def _xlogy(xp, x, y, half):
    """x * log(y), 0 where x is 0 and y is not NaN: torch's CPU kernel on NumPy float32/
    float64 operands (`_vec_binary`), else the array expression (half: its rounding)."""
    if half is None and xp is np:
        x2, y2 = np.asarray(x), np.asarray(y)
        if _vec_binary.applies(x2, y2):  # torch's scalar kernel: the C library's log
            return _vec_binary.xlogy(x2, y2)
    log = xp.log(y) if half is None else round_half(xp.log(y), half)  # torch's half kernel
    out = x * log  # rounds log(y), then multiplies; torch returns 0 (+0, even for x = -0)
    return xp.where((x == 0) & ~xp.isnan(y), xp.zeros((), out.dtype), out)


Xlogy = _binary("Xlogy", _xlogy, _xlogy_grads, half=True)


def _xlogy_scalar_other_backward(self, grad):
    """torch's formula for a Scalar other: ``other > 0 ? xlogy(grad, other) : xlogy(grad,
    other).masked_fill(self == 0, 0)``, so a NaN other too gives 0 where self is 0 (the
    tensor form masks only where other <= 0)."""
    x, y = self.inputs
    gx = xlogy(grad, y)
    positive = y > 0
    if not (positive if isinstance(positive, bool) else bool(positive.all())):
        gx = gx.masked_fill(x == 0, 0.0)
    return gx, None


XlogyScalarOther = type(
    "XlogyScalarOther",
    (Xlogy,),
    {
        "node_name": "XlogyBackward2",
        "no_edge": (1,),  # the Python scalar
        "backward": _xlogy_scalar_other_backward,
        "__module__": __name__,
    },
)
XlogyScalarSelf = type(
    "XlogyScalarSelf",
    (Xlogy,),
    {"node_name": "XlogyBackward1", "no_edge": (0,), "__module__": __name__},
)
Logaddexp = _binary(
    "Logaddexp",
    _torch_kernel(_vec_binary.logaddexp, lambda xp, a, b: xp.logaddexp(a, b)),
    _logaddexp_grads,
    kernel="logaddexp_cpu",  # torch's formula subtracts the inputs
    bool_error=lambda bools, needs: bool_subtraction(False),
)


def _logaddexp2(xp, a, b):
    """torch's kernel: max + log1p(2 ** -|a - b|) / ln 2, and a itself where a == b = +-inf."""
    with xp.errstate(invalid="ignore"):
        out = xp.maximum(a, b) + xp.log1p(xp.exp2(-xp.abs(a - b))) * a.dtype.type(1 / math.log(2))
        return xp.where(xp.isinf(a) & (a == b), a, out)


def _logaddexp2_grads(grad, a, b):
    # torch: grad / (1 + pow(2, other - self)) and grad / (1 + pow(2, self - other))
    return grad / (1 + pow(2, b - a)), grad / (1 + pow(2, a - b))


Logaddexp2 = _binary(
    "Logaddexp2",
    _torch_kernel(_vec_binary.logaddexp2, _logaddexp2),
    _logaddexp2_grads,
    kernel="logaddexp2_cpu",
    bool_error=lambda bools, needs: bool_subtraction(False),
)


def _xlog1py(xp, x, y):
    """torch's kernel: NaN where y is NaN, 0 where x is 0, else x * log1p(y)."""
    with xp.errstate(divide="ignore", invalid="ignore"):
        out = x * xp.log1p(y)  # torch's 0 is +0, even for x = -0
        return xp.where(xp.isnan(y), y * 0 + xp.nan, xp.where(x == 0, xp.zeros((), out.dtype), out))


def _xlog1py_self_grad(grad, x, y):
    # torch: xlog1py(grad, other).masked_fill((self == 0.) & (other <= -1.), 0.)
    return xlog1py(grad, y).masked_fill((x == 0) & (y <= -1), 0.0)


def _xlog1py_grads(grad, x, y):
    return _xlog1py_self_grad(grad, x, y), grad * x / (y + 1)


SpecialXlog1Py = _binary("SpecialXlog1Py", _xlog1py, _xlog1py_grads)
SpecialXlog1PyScalarSelf = type(
    "SpecialXlog1PyScalarSelf",
    (SpecialXlog1Py,),
    {
        "node_name": "SpecialXlog1PyBackward1",
        "no_edge": (0,),  # the Python scalar
        "backward": lambda self, grad: (None, grad * self.inputs[0] / (self.inputs[1] + 1)),
        "__module__": __name__,
    },
)
SpecialXlog1PyScalarOther = type(
    "SpecialXlog1PyScalarOther",
    (SpecialXlog1Py,),
    {
        "node_name": "SpecialXlog1PyBackward2",
        "no_edge": (1,),  # the Python scalar
        "backward": lambda self, grad: (_xlog1py_self_grad(grad, *self.inputs), None),
        "__module__": __name__,
    },
)


def xlog1py(input, other):
    """xlog1py(input, other) -> Tensor

    ``input * log1p(other)``, with 0 where ``input`` is 0 (unless ``other`` is NaN), as
    ``torch.special.xlog1py``.

    Args:
        input (Tensor or Number): the multiplier.
        other (Tensor or Number): the argument of ``log1p``, broadcast against ``input``.

    Example:
        >>> framework.special.xlog1py(framework.tensor([0.0, 2.0]), framework.tensor([-1.0, 1.0]))
        tensor([0.0000, 1.3863])
    """
    if not isinstance(other, Tensor):
        return SpecialXlog1PyScalarOther.apply(input, other)
    if not isinstance(input, Tensor):
        return SpecialXlog1PyScalarSelf.apply(input, other)
    return SpecialXlog1Py.apply(input, other)


def logaddexp2(input, other):
    """logaddexp2(input, other) -> Tensor

    ``log2(2 ** input + 2 ** other)``, computed stably.

    Args:
        input (Tensor): the input tensor.
        other (Tensor): the second operand, broadcast against ``input``.

    Example:
        >>> framework.logaddexp2(framework.tensor([0.0, 1.0]), framework.tensor([0.0, 3.0]))
        tensor([1.0000, 3.3219])
    """
    _tensor_other("logaddexp2", other)
    return Logaddexp2.apply(input, other, bools=_bools(input, other))


FmodTensor = _binary(
    "FmodTensor",
    _fmod,
    lambda g, a, b: (g, -g * a.div(b, rounding_mode="trunc")),
    node="FmodBackward1",
    float_out=False,
)


class Fmod(Op):
    """C's fmod with a number divisor: the gradient passes through to the input."""

    no_edge = (1,)  # the Python scalar
    promote = True

    def forward(self, x, other):
        return _fmod(self.xp, x, other)

    def backward(self, grad):
        return grad, None

    jvp = Op.jvp_elementwise


def atan2(input, other):
    """Elementwise angle of the point (other, input): arctan(input / other) by quadrant.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the x coordinates (``input`` holds the y ones).

    Example:
        >>> framework.arctan2(framework.tensor([1.0, 1.0]), framework.tensor([1.0, -1.0]))
        tensor([0.7854, 2.3562])
    """
    _tensor_other("atan2", other)
    return Atan2.apply(input, other, bools=_bools(input, other))


arctan2 = atan2


def hypot(input, other):
    """sqrt(input**2 + other**2) without overflow.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Example:
        >>> framework.hypot(framework.tensor([3.0, 5.0]), framework.tensor([4.0, 12.0]))
        tensor([ 5., 13.])
    """
    _tensor_other("hypot", other)
    return Hypot.apply(input, other)


def xlogy(input, other):
    """input * log(other), and 0 where input is 0 (even when other is 0).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the argument of the logarithm, broadcast against ``input``.

    Example:
        >>> framework.xlogy(framework.tensor([0.0, 2.0]), framework.tensor([0.0, 3.0]))
        tensor([0.0000, 2.1972])
    """
    if not isinstance(other, Tensor):
        return XlogyScalarOther.apply(input, other)
    if not isinstance(input, Tensor):
        return XlogyScalarSelf.apply(input, other)
    return Xlogy.apply(input, other)


def logaddexp(input, other):
    """log(exp(input) + exp(other)), computed stably.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Example:
        >>> framework.logaddexp(framework.tensor([0.0, 1.0]), framework.tensor([0.0, 1.0]))
        tensor([0.6931, 1.6931])
    """
    _tensor_other("logaddexp", other)
    return Logaddexp.apply(input, other, bools=_bools(input, other))


def _tensor_other(fname, other):
    """torch's signature takes only a Tensor as `other`."""
    if not isinstance(other, Tensor):
        raise must_be_tensor(fname, "other", 2, other)


def fmod(input, other):
    """Remainder with the sign of the dividend (C's fmod), unlike remainder.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the divisor, broadcast against ``input``.

    Example:
        >>> framework.fmod(framework.tensor([-3., 3.]), 2)
        tensor([-1.,  1.])
    """
    if isinstance(other, Tensor):
        return FmodTensor.apply(input, other)
    return Fmod.apply(input, other)


class NanToNum(Op):
    saves_inputs = True

    def forward(self, x, nan=0.0, posinf=None, neginf=None):
        if x.dtype.kind != "f":
            return x.copy()
        info = self.xp.finfo(x.dtype)
        return self.xp.nan_to_num(
            x,
            nan=nan,
            posinf=info.max if posinf is None else posinf,
            neginf=info.min if neginf is None else neginf,
        )

    def backward(self, grad):
        (x,) = self.inputs
        return grad * isfinite(x)  # torch: a NaN gradient stays NaN where x is not finite

    jvp = Op.jvp_elementwise


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by `nan` and +-inf by `posinf`/`neginf` (default: the dtype's extremes).

    Args:
        input (Tensor): the input tensor.
        nan (Number, optional): the value for NaN. Default: ``0.0``.
        posinf (Number, optional): the value for +inf; the dtype's largest when ``None``. Default:
            ``None``.
        neginf (Number, optional): the value for -inf; the dtype's lowest when ``None``. Default:
            ``None``.

    Example:
        >>> framework.nan_to_num(framework.tensor([float('nan'), float('inf'), 1.0]), posinf=9.0)
        tensor([0., 9., 1.])
    """
    if input.dtype.name in ("bfloat16", "float16"):  # computed in float32: its own extremes
        # (float32's would round to inf)
        from .._finfo import finfo

        info = finfo(input.dtype)
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
    return NanToNum.apply(input, nan=nan, posinf=posinf, neginf=neginf)


class Sgn(Sign):
    """sign for real tensors (its own node name, SgnBackward0). Its gradient is torch's
    efficient ZeroTensor: zero, and a zero below it (0 * inf is 0, not NaN)."""

    def backward(self, grad):
        """Nothing at all inside backward: the engine carries torch's ZeroTensor on (see
        autograd.zero_grad); real zeros outside one."""
        from ..autograd.engine import send_zero_grad

        return None if send_zero_grad(self, grad) else _zeros(grad)

    def jvp(self, t):
        """Zeros (torch's ZeroTensor), also while a backward runs (forward-over-reverse)."""
        return _zeros(t)


def sgn(input):
    """sign for real tensors (:math:`x / |x|` for complex ones in torch).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.sgn(framework.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """
    return Sgn.apply(input)


def _test(input, fn):
    """A bool mask of ``fn(xp, data)`` (no graph: torch records none)."""
    return Tensor._make(
        input.xp.asarray(fn(input.xp, input._data)), input.device
    )  # 0-dim: a scalar


def isnan(input):
    """Boolean mask of NaN elements.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.isnan(framework.tensor([1.0, float('nan')]))
        tensor([False,  True])
    """
    return _test(input, lambda xp, a: xp.isnan(a))


def isinf(input):
    """Boolean mask of +-inf elements.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.isinf(framework.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False,  True,  True])
    """
    return _test(input, lambda xp, a: xp.isinf(a))


def isfinite(input):
    """Boolean mask of elements that are neither NaN nor +-inf.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.isfinite(framework.tensor([1.0, float('inf'), float('nan')]))
        tensor([ True, False, False])
    """
    return _test(input, lambda xp, a: xp.isfinite(a))


def isposinf(input):
    """Boolean mask of +inf elements.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.isposinf(framework.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False,  True, False])
    """
    return _test(input, lambda xp, a: xp.isposinf(a))


def isneginf(input):
    """Boolean mask of -inf elements.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.isneginf(framework.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False, False,  True])
    """
    return _test(input, lambda xp, a: xp.isneginf(a))


def isreal(input):
    """All True for real tensors (framework has no complex dtypes).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.isreal(framework.tensor([1.0, 2.0]))
        tensor([True, True])
    """
    return _test(input, lambda xp, a: xp.ones(a.shape, dtype=bool))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    r"""Elementwise (bool) :math:`|\text{input} - \text{other}| \le \text{atol} +
    \text{rtol} |\text{other}|`.

    Args:
        input (Tensor): the input tensor.
        other (Tensor): the second tensor to compare.
        rtol (float, optional): relative tolerance. Default: ``1e-05``.
        atol (float, optional): absolute tolerance. Default: ``1e-08``.
        equal_nan (bool, optional): if True, two NaNs compare equal. Default: ``False``.

    Example:
        >>> framework.isclose(framework.tensor([1.0, 2.0]), framework.tensor([1.0, 2.1]))
        tensor([ True, False])
    """
    return _isclose("isclose", input, other, rtol, atol, equal_nan)


def _isclose(fname, input, other, rtol, atol, equal_nan):
    _tensor_other(fname, other)
    if input.dtype != other.dtype:
        raise RuntimeError(
            f"{scalar_type_name(input._data.dtype)} did not match "
            f"{scalar_type_name(other._data.dtype)}"
        )
    broadcast_shapes(tuple(input.shape), tuple(other.shape))
    if vmap_hook[0]:  # computed on the arrays: per sample under vmap
        from ..func._paths import loop_if_batched

        out = loop_if_batched(lambda a, b: isclose(a, b, rtol, atol, equal_nan), input, other)
        if out is not NotImplemented:
            return out
    xp = input.xp
    close = xp.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return Tensor._make(xp.asarray(close), input.device)  # (0-dim: a NumPy scalar)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element isclose.

    Args:
        input (Tensor): the input tensor.
        other (Tensor): the second tensor to compare.
        rtol (float, optional): relative tolerance. Default: ``1e-05``.
        atol (float, optional): absolute tolerance. Default: ``1e-08``.
        equal_nan (bool, optional): if True, two NaNs compare equal. Default: ``False``.

    Example:
        >>> framework.allclose(framework.tensor([1.0, 2.0]), framework.tensor([1.0, 2.0 + 1e-9]))
        True
    """
    return bool(_isclose("allclose", input, other, rtol, atol, equal_nan).all())


def _shift(input, other, fn, kernel):
    """A shift of integer tensors: torch's shape check, type promotion and dtype refusal."""
    tensors = [t for t in (input, other) if isinstance(t, Tensor)]
    broadcast_shapes(*[tuple(t.shape) for t in tensors])  # torch checks shapes first
    target = result_type(
        [t._data for t in tensors],
        [t.ndim for t in tensors],
        [s for s in (input, other) if not isinstance(s, Tensor)],
    )
    refuse(target, "fb", f"{kernel}_cpu")  # torch's kernels are for integer results
    ref = tensors[0]
    xp = ref.xp
    a, b = (
        xp.asarray(v._data if isinstance(v, Tensor) else v, dtype=target) for v in (input, other)
    )
    return Tensor._make(xp.asarray(fn(xp, a, b), dtype=target), ref.device)


def bitwise_left_shift(input, other):
    r"""Shifts the bits of ``input`` left by ``other``: :math:`\text{input}_i \ll \text{other}_i`.

    Args:
        input (Tensor): the integer tensor to shift.
        other (Tensor or Number): the shift amounts, broadcast against ``input``.

    Example:
        >>> framework.bitwise_left_shift(framework.tensor([1, 2, 3]), 2)
        tensor([ 4,  8, 12])
    """
    return _shift(input, other, lambda xp, a, b: xp.left_shift(a, b), "lshift")


def bitwise_right_shift(input, other):
    r"""Shifts the bits of ``input`` right by ``other`` (arithmetic shift):
    :math:`\text{input}_i \gg \text{other}_i`.

    Args:
        input (Tensor): the integer tensor to shift.
        other (Tensor or Number): the shift amounts, broadcast against ``input``.

    Example:
        >>> framework.bitwise_right_shift(framework.tensor([8, 16, -5]), 2)
        tensor([ 2,  4, -2])
    """
    return _shift(input, other, lambda xp, a, b: xp.right_shift(a, b), "rshift")


__all__ = [
    "bitwise_left_shift",
    "bitwise_right_shift",
    "lerp",
    "addcmul",
    "addcdiv",
    "atan2",
    "arctan2",
    "hypot",
    "xlogy",
    "logaddexp",
    "logaddexp2",
    "fmod",
    "nan_to_num",
    "sgn",
    "isnan",
    "isinf",
    "isfinite",
    "isposinf",
    "isneginf",
    "isreal",
    "isclose",
    "allclose",
]
