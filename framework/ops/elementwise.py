"""Elementwise arithmetic: + - * / ** remainder, clamp, maximum/minimum, where, masked_fill,
comparisons, logical and bitwise ops, casts and copies."""

import math as _math

import numpy as _np

from .._fma import add_scaled, fusable
from .._cpu_loops import tail_of, with_tail
from ..autograd.engine import is_zero_tensor
from ..autograd.op import Op, _edges_to_given, round_half
from ..tensor import Tensor
from .. import dtypes
from . import _vml
from .._errors import (
    bool_negation,
    bool_subtraction,
    broadcast_shapes,
    check_scalar_fits,
    inplace_shape_error,
    invalid_args,
    must_be_tensor,
    refuse,
    zero_division,
)
from . import _vec_binary
from ._fastgrad import plain, wrap
from .unary import log, reciprocal, _float  # noqa: F401  (re-exported through ops)

_new = object.__new__


__all__ = [
    "add",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "div",
    "divide",
    "floor_divide",
    "masked_fill",
    "maximum",
    "minimum",
    "mul",
    "multiply",
    "neg",
    "negative",
    "nonzero",
    "pow",
    "remainder",
    "square",
    "sub",
    "subtract",
    "rsub",
    "true_divide",
    "where",
]


def _zeros(grad):
    """A constant zero gradient (torch's zeros_like(grad): no nan from inf * 0)."""
    return Tensor._make(grad.xp.zeros_like(grad._data), grad.device)


class NotImplementedBackward(Op):
    """A node whose derivative torch does not implement (floor_divide, scalar % tensor)."""

    node_name = "torch::autograd::NotImplemented"
    broadcasts = True

    def forward(self, *arrays, fn, aten):
        self.aten = aten
        return fn(self.xp, *arrays)

    def backward(self, grad):
        raise RuntimeError(f"derivative for aten::{self.aten} is not implemented")

    def _record(self, args, out, dev):
        """As torch's NotImplemented node: an edge for each input that requires grad only
        (its next_functions has no (None, 0) entries)."""
        res = Op._record(self, args, out, dev)
        keep = [i for i, n in enumerate(self._next) if n is not None]
        if len(keep) < len(self._next):
            self._next = tuple(self._next[i] for i in keep)
            self._nrs = tuple(self._nrs[i] for i in keep)
            self._in_meta = tuple(self._in_meta[i] for i in keep)
        return res


class Add(Op):
    promote = True
    alpha = 1
    saved_fields = {"alpha": "alpha"}

    def forward(self, a, b, alpha=1):
        if alpha == 1:
            return a + b
        _check_alpha(a, alpha)
        self.alpha = alpha
        if self.half is not None:
            return _half_add(self, a, b, alpha)
        if _fusable(self, a, b):
            return _add_scaled(a, b, alpha)
        return (a + alpha * b).astype(a.dtype, copy=False)  # bool + bool stays bool

    def backward(self, grad):
        return grad, (grad if self.alpha == 1 else grad * self.alpha)

    jvp = Op.jvp_linear


def _fusable(op, a, b):
    """torch's add/sub with alpha on float32/float64 CPU tensors is one fused multiply-add
    per element (``vec::fmadd(other, alpha, self)``; its scalar loop is contracted alike),
    broadcasting and a scalar ``other`` included. (Where ``other`` is loop-invariant, a
    0-dim or innermost-broadcast one, torch's compiled tail loop rounds ``alpha * other``
    first at a few positions of the last vector width: those elements may differ in the last
    bit; README, Known differences.)"""
    return fusable(a, b)


def _add_scaled(a, b, alpha):
    out = add_scaled(a, b, alpha)
    return out if isinstance(out, _np.ndarray) else _np.asarray(out)


def _half_add(op, a, b, alpha):
    """a + alpha * b as torch's half add kernel (float32 arrays in, rounded by Op.apply):
    alpha read as a half number, one rounding, except in the CPU scalar tail loop, which
    rounds alpha * b first (see framework/_cpu_loops.py)."""
    alpha = round_half(alpha, op.half)
    out = a + alpha * b
    if op.xp.__name__ == "numpy" and a.size in (1, out.size) and b.size in (1, out.size):
        out = with_tail(out, a + round_half(alpha * b, op.half))
    return out


def add(input, other, alpha=1):
    r"""add(input, other, alpha=1) -> Tensor

    Adds ``other``, scaled by ``alpha``, to ``input``: :math:`\text{input}_i + \alpha \times
    \text{other}_i` (broadcasting).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.
        alpha (Number): the multiplier for ``other``. Default: ``1``.

    Example:
        >>> framework.add(framework.tensor([1.0, 2.0]), framework.tensor([10.0, 20.0]), alpha=2)
        tensor([21., 42.])
    """
    if alpha == 1:
        return Add.apply(input, other)
    return Add.apply(input, other, alpha=alpha)


def _check_alpha(a, alpha):
    if a.dtype.kind in "biu" and isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )


def _is_bool(v):
    return v.dtype.name == "bool" if isinstance(v, Tensor) else isinstance(v, bool)


def _check_bool_sub(a, b):
    """torch refuses `-` when either operand is bool (two messages, as torch words them)."""
    if _is_bool(a) or _is_bool(b):
        raise bool_subtraction(_is_bool(a) and _is_bool(b))


class Sub(Op):
    promote = True
    saved_fields = {"alpha": "alpha"}

    def forward(self, a, b, alpha=1):
        _check_alpha(a, alpha)
        self.alpha = alpha
        if self.half is not None and alpha != 1:  # torch: add(a, b, -alpha)
            return _half_add(self, a, b, -alpha)
        if alpha != 1 and _fusable(self, a, b):
            return _add_scaled(a, b, -alpha)
        return a - b if alpha == 1 else a - alpha * b

    def backward(self, grad):
        return grad, (-grad if self.alpha == 1 else grad * -self.alpha)

    jvp = Op.jvp_linear


class Rsub(Op):
    """scalar - tensor (torch calls it rsub)."""

    no_edge = (1,)  # the Python scalar
    node_name = "RsubBackward1"
    promote = True
    saved_fields = {"alpha": "alpha"}

    def forward(self, a, b, alpha=1):
        self.alpha = alpha
        if self.half is not None and alpha != 1:  # torch: add(b, a, -alpha)
            return _half_add(self, b, a, -alpha)
        if alpha != 1 and _fusable(self, b, a):
            return _add_scaled(b, a, -alpha)
        return b - a if alpha == 1 else b - alpha * a

    def backward(self, grad):
        return (-grad if self.alpha == 1 else grad * -self.alpha), None

    jvp = Op.jvp_linear


def sub(input, other, alpha=1):
    """sub(input, other, alpha=1) -> Tensor

    Subtracts ``other``, scaled by ``alpha``, from ``input``.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.
        alpha (Number): the multiplier for ``other``. Default: ``1``.

    Example:
        >>> framework.sub(framework.tensor([5.0, 6.0]), framework.tensor([1.0, 2.0]))
        tensor([4., 4.])
    """
    _check_bool_sub(input, other)
    return Sub.apply(input, other, alpha=alpha)  # a scalar input: torch's SubBackward0 too


subtract = sub


def rsub(input, other, alpha=1):
    """torch.rsub: ``other - alpha * input`` (the reflected subtraction).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.
        alpha (Number): the multiplier for ``input``. Default: ``1``.

    Example:
        >>> framework.rsub(framework.tensor([1., 2.]), 5.0, alpha=2)
        tensor([3., 1.])
    """
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    _check_bool_sub(input, other)
    return Rsub.apply(input, other, alpha=alpha)


class Mul(Op):
    opmath_scalars = True
    promote = True
    saves_inputs = True
    saved_fields = {"self": "input0 if needs 1", "other": "input1 if needs 0"}
    saved_for = ((1,), (0,))  # a is read only for b's gradient and b only for a's

    def forward(self, a, b):
        return a * b

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        g = grad._data
        if plain(grad) and a._data.dtype == g.dtype:  # no graph: products of arrays
            if not g.ndim:  # (NumPy's 0-dim products are scalars: wrap makes them arrays)
                return (wrap(g * b._data, grad) if need_a else None), (
                    wrap(g * a._data, grad) if need_b else None
                )
            dev = grad._device  # wrap(), inlined: one call less per gradient
            ga = gb = None
            if need_a:
                ga = _new(Tensor)
                ga._data, ga._device, ga._rg, ga.grad, ga.grad_fn, ga._output_nr = (
                    g * b._data,
                    dev,
                    False,
                    None,
                    None,
                    0,
                )
                ga._vc = [0]
            if need_b:
                gb = _new(Tensor)
                gb._data, gb._device, gb._rg, gb.grad, gb.grad_fn, gb._output_nr = (
                    g * a._data,
                    dev,
                    False,
                    None,
                    None,
                    0,
                )
                gb._vc = [0]
            return ga, gb
        # torch's generated MulBackward0 computes its derivatives.yaml keys in sorted order
        # ("other" before "self"): the nodes' order, so the order a second backward sums in
        grad_b = grad * a if need_b else None
        return (grad * b if need_a else None), grad_b

    jvp = Op.jvp_elementwise
    jvp_reads_primal = True  # (torch's other_t * self_p term links the tangent)


class MulScalar(Op):
    """tensor * number through torch's mul.Scalar overload, which torch's C++ code calls (the
    math attention's scaling); a Python `x * 2.0` is mul.Tensor (MulBackward0)."""

    node_name = "MulBackward1"
    saved_fields = {"other": "other"}

    def forward(self, a, other):
        """``a * other`` in ``a``'s dtype."""
        self.other = other
        return (a * other).astype(a.dtype, copy=False)

    def backward(self, grad):
        """``grad * other`` (torch's mul.Scalar again: MulBackward1)."""
        return MulScalar.apply(grad, other=self.other)

    jvp = Op.jvp_linear


def mul(input, other):
    """mul(input, other) -> Tensor

    Multiplies ``input`` by ``other`` elementwise (broadcasting).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Example:
        >>> framework.mul(framework.tensor([1.0, 2.0]), framework.tensor([3.0, 4.0]))
        tensor([3., 8.])
    """
    return Mul.apply(input, other)


multiply = mul


class Div(Op):
    opmath_scalars = True
    promote = True
    saves_inputs = True
    saved_fields = {"self": "input0 if needs 1", "other": "input1"}
    saved_for = ((1,), (0, 1))

    def forward(self, a, b):
        out = a / b
        if a.dtype.kind in "biu":  # true division of integers gives the default float dtype
            out = out.astype(dtypes.get_default_dtype().np)
        return out

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        # torch's div_tensor_other_backward: -grad * ((a / b) / b) (b * b would overflow),
        # first: its generated DivBackward0 takes the derivatives.yaml keys in sorted order,
        # which orders the nodes a second backward runs (and sums b's gradient in)
        grad_b = -grad * ((a / b) / b) if need_b else None
        grad_a = grad / b if need_a else None
        return grad_a, grad_b

    jvp = Op.jvp_elementwise
    jvp_reads_primal = True  # (torch's formula reads the result: a zero link)


class DivRounding(Op):
    """div with rounding_mode 'floor' or 'trunc': piecewise constant, so zero gradients."""

    opmath_scalars = True
    node_name = "DivBackward2"
    promote = True

    def forward(self, a, b, rounding_mode):
        xp = self.xp
        refuse(a, "b", f"div_{rounding_mode}_cpu")
        _check_int_zero(a, b)
        if rounding_mode == "floor":
            return xp.floor_divide(a, b)  # Python's floor semantics, as torch's div_floor
        if a.dtype.kind in "iu":
            q = a // b  # floor, then step towards zero where it rounded down a negative ratio
            return q + ((q < 0) & (q * b != a))
        return xp.trunc(a / b)

    def backward(self, grad):
        return _zeros(grad), _zeros(grad)

    jvp = Op.jvp_elementwise


def div(input, other, rounding_mode=None):
    """div(input, other, rounding_mode=None) -> Tensor

    Divides ``input`` by ``other`` elementwise; ``rounding_mode`` is None (true division),
    ``'trunc'`` or ``'floor'``.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the divisor, broadcast against ``input``.
        rounding_mode (str, optional): ``None`` (true division), ``'trunc'`` (round toward zero) or
            ``'floor'`` (round down). Default: ``None``.

    Example:
        >>> framework.div(framework.tensor([5.0, -5.0]), 2, rounding_mode='floor')
        tensor([ 2., -3.])
    """
    if rounding_mode is not None:
        if rounding_mode not in ("floor", "trunc"):
            raise ValueError(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                f"but found '{rounding_mode}'"
            )
        return DivRounding.apply(input, other, rounding_mode=rounding_mode)
    if not isinstance(input, Tensor):  # scalar / tensor = reciprocal(tensor) * scalar, as torch
        return mul(reciprocal(other), input)
    return Div.apply(input, other)


true_divide = divide = div


def floor_divide(input, other):
    """`//`: torch gives it no derivative.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the divisor, broadcast against ``input``.

    Example:
        >>> framework.floor_divide(framework.tensor([7.0, -7.0]), 2)
        tensor([ 3., -4.])
    """
    return _not_implemented_binary(input, other, _floor_div, "floor_divide")


def _floor_div(xp, a, b):
    refuse(a, "b", "div_floor_cpu")
    _check_int_zero(a, b)
    return xp.floor_divide(a, b)


def _remainder(xp, a, b):
    refuse(a, "b", "remainder_cpu")
    _check_int_zero(a, b)
    if getattr(a, "dtype", None) is None or a.dtype.kind != "f":
        return xp.remainder(a, b)
    # torch's kernel: mod = fmod(a, b), plus b where mod != 0 and its sign differs from b's
    # (a zero keeps a's sign: 0 % -0.5 is +0, NumPy's -0)
    with xp.errstate(invalid="ignore", divide="ignore"):
        mod = xp.fmod(a, b)
        return xp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


def _check_int_zero(a, b):
    """Integer division or remainder by zero is an error in torch (floats give inf/nan)."""
    if a.dtype.kind in "iu" and a.size and not b.all():
        raise zero_division()


def _not_implemented_binary(a, b, fn, aten):
    """A promoting op torch gives no derivative (NotImplemented node) of a and b (tensors or
    scalars), computed in torch's result dtype: the casts happen inside the node, so its
    edges lead to the inputs as given (no ToCopyBackward0), as torch's."""
    ts = [t for t in (a, b) if isinstance(t, Tensor)]
    target = dtypes.result_type(
        [t._data for t in ts],
        [t.ndim for t in ts],
        [s for s in (a, b) if not isinstance(s, Tensor)],
    )
    dev, xp = ts[0].device, ts[0].xp
    args = [
        t if isinstance(t, Tensor) else Tensor._make(xp.asarray(t, dtype=target), dev)
        for t in (a, b)
    ]

    def kernel(xp, x, y):
        return fn(xp, x.astype(target, copy=False), y.astype(target, copy=False))

    return NotImplementedBackward.apply(*args, fn=kernel, aten=aten)


class Remainder(Op):
    """Python-style modulus (sign of the divisor), as torch.remainder."""

    node_name = "RemainderBackward1"
    promote = True
    saves_inputs = True

    def forward(self, a, b):
        self.scalar_other = False
        return _remainder(self.xp, a, b)

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        # a % b = a - floor(a / b) * b
        grad_b = -grad * div(a, b, rounding_mode="floor") if need_b else None
        return (grad if need_a else None), grad_b

    jvp = Op.jvp_elementwise


class RemainderScalar(Remainder):
    no_edge = (1,)  # the Python scalar
    node_name = "RemainderBackward0"

    def forward(self, a, b):
        return _remainder(self.xp, a, b)

    def backward(self, grad):
        return grad, None

    jvp = Op.jvp_elementwise


def remainder(input, other):
    """remainder(input, other) -> Tensor

    Computes the Python-style modulus: the result has the sign of the divisor.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the divisor, broadcast against ``input``.

    Example:
        >>> framework.remainder(framework.tensor([-3.0, 3.0]), 2)
        tensor([1., 1.])
    """
    if not isinstance(input, Tensor):
        return _not_implemented_binary(input, other, _remainder, "remainder")
    if not isinstance(other, Tensor):
        return RemainderScalar.apply(input, other)
    return Remainder.apply(input, other)


class Neg(Op):
    def forward(self, x):
        if x.dtype.kind == "b":
            raise bool_negation()
        return -x

    def backward(self, grad):
        return -grad

    jvp = Op.jvp_linear


def neg(input):
    """neg(input) -> Tensor

    Returns :math:`-x_i` for each element.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.neg(framework.tensor([1.0, -2.0]))
        tensor([-1.,  2.])
    """
    return Neg.apply(input)


negative = neg


def _float32_tail(xp, x, exponent):
    """Whether torch's float32 pow by this Scalar exponent runs its generic kernel (not sqrt,
    rsqrt, reciprocal or its products for +-2 and 3) over a contiguous CPU input, whose scalar
    tail loop computes in double."""
    return (
        xp is _np
        and x.flags.c_contiguous
        and not isinstance(exponent, complex)
        and exponent not in (0.5, -0.5, -1, -2, 2, 3)
    )


class Pow(Op):
    """tensor ** number."""

    saves_inputs = True
    saved_fields = {"exponent": "exponent", "self": "input0"}

    def forward(self, x, exponent):
        self.exponent = exponent
        target = dtypes.result_type([x], [x.ndim], [exponent])
        if target.kind in "iu" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        x = x.astype(target, copy=False)
        if self.half is not None:  # torch's half kernels read the exponent as a half number
            exponent = round_half(exponent, self.half)
            if self.half.kind == "V" and exponent in (3, -2):  # and its bfloat16 kernel rounds
                sq = round_half(x * x, self.half)  # the square before the last step
                return sq * x if exponent == 3 else 1 / sq
            if self.half.kind == "V" and exponent == -0.5 and self.xp.__name__ == "numpy":
                out = x**exponent  # rsqrt: its CPU scalar tail rounds the square root
                return with_tail(out, 1 / round_half(self.xp.sqrt(x), self.half))
        if exponent == 2:
            return x * x
        if exponent == 0.5 and self.half is None and target.kind == "f":  # torch's sqrt kernel
            return _vml.unary("sqrt", x, lambda a: a ** self.xp.asarray(0.5, dtype=target))
        if exponent == -0.5 and target.kind == "f":  # torch's rsqrt kernel, 1 / sqrt(x): NaN
            return 1 / self.xp.sqrt(x)  # at -inf, where pow(-inf, -0.5) is 0 (seed 50017884)
        if target.kind in "iu" or target.kind == "f" and target.itemsize >= 4:
            # torch's kernel multiplies for these exponents, as here (half precision computes in
            # float32 there); NumPy's float power is far slower (40x on negative float32 bases)
            if exponent == 3:
                return x * x * x
            if exponent in (-1, -2) and target.kind == "f":
                return 1 / x if exponent == -1 else 1 / (x * x)
        if target.kind == "b":  # bool ** bool: x ** False is all True, x ** True is x
            return x.copy() if exponent else self.xp.ones_like(x)
        if (
            self.half is None
            and self.xp is _np
            and target.kind == "f"
            and type(x) is _np.ndarray
            and not isinstance(exponent, complex)
            and exponent not in (0, 1, 0.5)  # (torch: fill, copy, sqrt)
        ):  # torch's kernel: Sleef's pow in its vector body, std::pow(x, double) elsewhere
            return _vec_binary.pow_scalar(x, exponent)
        out = x ** self.xp.asarray(exponent, dtype=target)
        if target == _np.float32 and self.half is None and _float32_tail(self.xp, x, exponent):
            # torch's scalar tail loop: std::pow(float, double), in double then rounded
            # (lp_pool's (x ** p) ** (1 / p) second derivatives cancel to that last bit)
            out = tail_of(out, x, lambda v: v.astype(_np.float64) ** exponent, 16)
        return out

    def backward(self, grad):
        (x,) = self.inputs
        e = self.exponent
        if e == 0 and type(e) is not bool:  # torch's Scalar(False).equal(0.0) is false:
            return _zeros(grad)  # x ** False differentiates as 0 * x ** -1 (NaN at 0)
        e = float(e) if type(e) is bool else e
        # torch's pow_backward: grad * (exponent * self.pow(exponent - 1)), the Scalar
        # product first (MulBackward1): its float32 rounding reaches second derivatives that
        # cancel (lp_pool's (x ** p) ** (1 / p))
        return grad * MulScalar.apply(x ** (e - 1), other=e)

    jvp = Op.jvp_elementwise


def xp_is_np(xp):
    """Whether xp is NumPy (the CPU arrays torch's CPU kernels replay on)."""
    return xp is _np


class PowTensor(Op):
    """tensor ** tensor."""

    node_name = "PowBackward1"
    promote = True
    saves_inputs = True
    saves_output = True
    saved_fields = {"exponent": "input1", "result": "result", "self": "input0"}

    def forward(self, a, b, bool_exponent=False):
        refuse(a, "b", "pow")
        self.bool_exponent = bool_exponent
        if a.dtype.kind in "iu":  # negative integer powers truncate (0, or +-1), as torch
            xp = self.xp
            out = a ** xp.maximum(b, 0)
            neg = xp.where(a == 1, 1, xp.where(a == -1, 1 - 2 * (b % 2), 0))
            return xp.where(b < 0, neg, out).astype(out.dtype, copy=False)
        if self.half is None and xp_is_np(self.xp) and _vec_binary.applies(a, b):
            return _vec_binary.pow(a, b)  # torch's kernel: Sleef's pow, std::pow in the tails
        return a**b

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        if self.bool_exponent and need_a:  # torch's derivative computes exponent - 1
            _check_bool_sub(True, 1)
        # torch zeroes the exponent == 0 case, where b * a**(b-1) would be 0 * inf (the
        # incoming gradient inside the where: an inf gradient gives 0 there too)
        # (a ZeroTensor gradient stays zero through the product, then where materializes it)
        # d/db a**b = a**b * log(a); torch masks a == 0 (b >= 0) to 0
        # (torch: result * log(self.to(promoted dtype))); first, as torch's generated
        # PowBackward1 takes its derivatives.yaml keys sorted (exponent, self)
        if need_b:
            p = a**b
            grad_b = grad * where((a == 0) & (b >= 0), 0.0, p * log(a.to(p.dtype)))
        else:
            grad_b = None
        prod = grad if is_zero_tensor(grad) else grad * (b * a ** (b - 1))
        grad_a = where(b == 0, 0.0, prod) if need_a else None
        return grad_a, grad_b

    jvp = Op.jvp_elementwise


class PowScalarBase(Op):
    """number ** tensor."""

    node_name = "PowBackward2"
    saves_inputs = True
    saves_output = True
    saved_fields = {"exponent": "input0", "result": "result", "self": "base"}

    def forward(self, x, base):
        self.base = base
        if self.half is not None:  # torch's half kernels read the base as a half number
            base = round_half(base, self.half)
        target = dtypes.result_type([x], [x.ndim], [base])
        xp, x = self.xp, x.astype(target, copy=False)
        refuse(target, "b", "pow")
        if target.kind in "iu":  # integer base ** negative integer: torch truncates to 0 (or +-1)
            out = xp.asarray(base, dtype=target) ** xp.maximum(x, 0)
            neg = 0 if base not in (1, -1) else xp.where(x % 2 == 0, 1, base)
            return xp.where(x < 0, neg, out).astype(target, copy=False)
        b = xp.asarray(base, dtype=target)
        if self.half is None and xp is _np and base != 1 and _vec_binary.applies(b, x):
            return _vec_binary.pow(b, x)  # torch: pow(wrapped_scalar_tensor(base), x)
        return b**x

    def backward(self, grad):
        base = self.base
        if base == 0:  # d/dx 0**x is 0 where x >= 0, and 0**x * log(0) elsewhere
            (x,) = self.inputs
            return grad * where(x >= 0, 0.0, self.output * -_math.inf)
        return grad * self.output * (_math.log(base) if base > 0 else _math.nan)

    jvp = Op.jvp_elementwise


def pow(input, exponent):
    """pow(input, exponent) -> Tensor

    Raises each element of ``input`` to ``exponent`` (a number or a tensor, broadcasting).

    Args:
        input (Tensor): the input tensor.
        exponent (Number or Tensor): the exponent, broadcast against ``input``.

    Example:
        >>> framework.pow(framework.tensor([1.0, 2.0, 3.0]), 2)
        tensor([1., 4., 9.])
    """
    if not isinstance(input, Tensor):
        return PowScalarBase.apply(exponent, base=input)
    if isinstance(exponent, Tensor):
        if exponent.dtype.name == "bool":
            return PowTensor.apply(input, exponent, bool_exponent=True)
        return PowTensor.apply(input, exponent)
    return Pow.apply(input, exponent=exponent)


def square(input):
    """square(input) -> Tensor

    Computes :math:`x_i^2` for each element.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.square(framework.tensor([2.0, -3.0]))
        tensor([4., 9.])
    """
    return pow(input, 2)


class Clamp(Op):
    """clamp with number bounds."""

    node_name = "ClampBackward1"
    saves_inputs = True
    saved_fields = {"max": "max", "min": "min", "self": "input0"}

    def forward(self, x, min=None, max=None):
        self.min, self.max = min, max
        target = dtypes.result_type([x], [x.ndim], [b for b in (min, max) if b is not None])
        if target.kind == "b":  # torch's scalar clamp kernels take no bool
            which = "clamp" if min is not None and max is not None else "clamp_min"
            refuse(
                x, "b", (which if max is None or min is not None else "clamp_max") + "_scalar_cpu"
            )
        x = x.astype(target, copy=False)
        return self.xp.clip(x, min, max).astype(target, copy=False)

    def backward(self, grad):
        (x,) = self.inputs
        if self.min is not None and self.max is not None:
            mask = (x >= self.min) & (x <= self.max)
        else:
            mask = x >= self.min if self.min is not None else x <= self.max
        return where(mask, grad, 0.0)

    jvp = Op.jvp_elementwise


def _masks_fit_in_place(x, lo, hi, needs):
    """torch's clamp_backward_min_max combines each pair of masks in place (logical_and_ /
    logical_or_ into the first): it raises when the second broadcasts the first larger."""
    pairs = ((x, lo), (x, hi)), ((x, lo), (lo, hi)), ((x, hi), (hi, lo))
    for need, (a, b) in zip(needs, pairs):
        a, b = broadcast_shapes(*a), broadcast_shapes(*b)
        if need and broadcast_shapes(a, b) != a:
            raise inplace_shape_error(a, broadcast_shapes(a, b))


class ClampTensor(Op):
    """clamp with tensor bounds (None where absent); torch's clamp_backward_min_max."""

    node_name = "ClampBackward0"
    promote = True
    broadcasts = True
    saves_inputs = True

    def forward(self, x, lo, hi):
        xp = self.xp
        if lo is not None and hi is not None:  # one bound is maximum/minimum (bool works)
            refuse(x, "b", "clamp_cpu")
        out = x if lo is None else xp.maximum(x, lo)
        return out if hi is None else xp.minimum(out, hi)

    def backward(self, grad):
        x, lo, hi = self.inputs
        _, need_lo, need_hi = self.needs_input_grad
        if lo is not None and hi is not None:
            _masks_fit_in_place(
                tuple(x.shape), tuple(lo.shape), tuple(hi.shape), self.needs_input_grad
            )
            mask_x = (x >= lo) & (x <= hi)
            mask_lo = (x < lo) & (lo < hi)
            mask_hi = (x > hi) | (hi < lo)
        else:
            mask_x = x >= lo if lo is not None else x <= hi
            mask_lo = x < lo if lo is not None else None
            mask_hi = x > hi if hi is not None else None
        return (
            where(mask_x, grad, 0.0),
            where(mask_lo, grad, 0.0) if need_lo else None,
            where(mask_hi, grad, 0.0) if need_hi else None,
        )

    jvp = Op.jvp_elementwise


def clamp(input, min=None, max=None, *, _clamp_method=None):
    """Elements limited to [min, max] (numbers or broadcastable tensors; either may be None).

    Args:
        input (Tensor): the input tensor.
        min (Number or Tensor, optional): the lower bound. Default: ``None`` (no bound).
        max (Number or Tensor, optional): the upper bound. Default: ``None`` (no bound).

    Example:
        >>> framework.tensor([-2., 0.5, 3.]).clamp(-1, 1)
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if not (isinstance(min, Tensor) or min is None) or not (
            isinstance(max, Tensor) or max is None
        ):
            if all(
                b is None or not isinstance(b, Tensor) or (b.ndim == 0 and not b.requires_grad)
                for b in (min, max)
            ):  # torch's parser takes such tensors as Scalars
                return clamp(
                    input,
                    *(
                        b.item() if isinstance(b, Tensor) else b  # as Scalars
                        for b in (min, max)
                    ),
                )
            words = [type(b).__name__ for b in (max, min)]  # torch lists keywords sorted
            name, got = _clamp_method or "clamp", f"(Tensor, max={words[0]}, min={words[1]})"
            if _clamp_method:  # as a method: no self, a trailing ", "
                got = f"(max={words[0]}, min={words[1]}, )"
            raise invalid_args(name, got)
        as_t = [
            b
            if isinstance(b, Tensor) or b is None
            else Tensor._make(
                input.xp.asarray(b, dtype=dtypes.result_type([], [], [b])), input.device
            )
            for b in (min, max)
        ]
        return ClampTensor.apply(input, *as_t)
    return Clamp.apply(input, min=min, max=max)


clip = clamp


class ClampMin(Clamp):
    node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    node_name = "ClampMaxBackward0"


def clamp_min(input, min):
    """clamp_min(input, min) -> Tensor

    Clamps every element to at least ``min``.

    Args:
        input (Tensor): the input tensor.
        min (Number or Tensor): the lower bound.

    Example:
        >>> framework.clamp_min(framework.tensor([-2.0, 0.5, 3.0]), 0.0)
        tensor([0.0000, 0.5000, 3.0000])
    """
    if not isinstance(min, Tensor):
        return ClampMin.apply(input, min=min)
    return _clamp_node(clamp(input, min=min), "ClampMinBackward1")


def clamp_max(input, max):
    """clamp_max(input, max) -> Tensor

    Clamps every element to at most ``max``.

    Args:
        input (Tensor): the input tensor.
        max (Number or Tensor): the upper bound.

    Example:
        >>> framework.clamp_max(framework.tensor([-2.0, 0.5, 3.0]), 1.0)
        tensor([-2.0000,  0.5000,  1.0000])
    """
    if not isinstance(max, Tensor):
        return ClampMax.apply(input, max=max)
    return _clamp_node(clamp(input, max=max), "ClampMaxBackward1")


def _clamp_node(out, name):
    """clamp_min/clamp_max with a tensor bound: clamp's values and gradients, torch's node."""
    if out.grad_fn is not None:
        out.grad_fn._as(name)
    return out


class Maximum(Op):
    promote = True
    saves_inputs = True
    saved_fields = {"other": "input1", "self": "input0"}

    def forward(self, a, b):
        return self.xp.maximum(a, b)

    def backward(self, grad):
        a, b = self.inputs
        return _split_ties(grad, a < b, a > b, a == b, self.needs_input_grad)

    jvp = Op.jvp_elementwise


def _split_ties(grad, a_loses, b_loses, ties, needs):
    """Gradient of max/min of two inputs, torch's formula: the winner takes it, ties share it
    equally, and with a NaN (neither loses) both take it."""
    shared = where(ties, grad / 2, grad)
    grad_a = where(a_loses, 0.0, shared) if needs[0] else None
    grad_b = where(b_loses, 0.0, shared) if needs[1] else None
    return grad_a, grad_b


def maximum(input, other):
    """maximum(input, other) -> Tensor

    Computes the elementwise maximum of ``input`` and ``other`` (NaN propagates).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Example:
        >>> framework.maximum(framework.tensor([1.0, 4.0]), framework.tensor([3.0, 2.0]))
        tensor([3., 4.])
    """
    if not isinstance(other, Tensor):
        raise must_be_tensor("maximum", "other", 2, other)
    return Maximum.apply(input, other)


class Minimum(Op):
    promote = True
    saves_inputs = True
    saved_fields = {"other": "input1", "self": "input0"}

    def forward(self, a, b):
        return self.xp.minimum(a, b)

    def backward(self, grad):
        a, b = self.inputs
        return _split_ties(grad, a > b, a < b, a == b, self.needs_input_grad)

    jvp = Op.jvp_elementwise


def minimum(input, other):
    """minimum(input, other) -> Tensor

    Computes the elementwise minimum of ``input`` and ``other`` (NaN propagates).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Example:
        >>> framework.minimum(framework.tensor([1.0, 4.0]), framework.tensor([3.0, 2.0]))
        tensor([1., 2.])
    """
    if not isinstance(other, Tensor):
        raise must_be_tensor("minimum", "other", 2, other)
    return Minimum.apply(input, other)


class Where(Op):
    """where(cond, a, b); the condition gets no gradient."""

    no_edge = (0,)  # the condition
    saves_inputs = True
    saved_fields = {"condition": "input0"}
    broadcasts = True

    def forward(self, cond, a, b):
        return self.xp.where(cond, a, b)

    def backward(self, grad):
        cond = self.inputs[0]
        _, need_a, need_b = self.needs_input_grad
        zero = _zeros(grad)
        return (
            None,
            where(cond, grad, zero) if need_a else None,
            where(cond, zero, grad) if need_b else None,
        )

    jvp = Op.jvp_elementwise


def where(condition, input=None, other=None):
    """where(condition, input=None, other=None) -> Tensor

    Chooses elementwise from ``input`` where ``condition`` is True, else from ``other``.

    Args:
        condition (BoolTensor): where True, take ``input``, else ``other``.
        input (Tensor or Number, optional): the values where ``condition`` is True.
        other (Tensor or Number, optional): the values where ``condition`` is False.

    Example:
        >>> cond = framework.tensor([True, False])
        >>> framework.where(cond, framework.tensor([1.0, 2.0]), framework.tensor([9.0, 9.0]))
        tensor([1., 9.])
    """
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if condition.dtype.name != "bool":
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor "
            f"with dtype {dtypes.scalar_type_name(condition._data.dtype)}"
        )
    a, b = input, other
    if not (isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.dtype == b._data.dtype):
        tensors = [t for t in (a, b) if isinstance(t, Tensor)]
        ref = [t._data for t in tensors]
        target = dtypes.result_type(
            ref, [x.ndim for x in ref], [s for s in (a, b) if not isinstance(s, Tensor)]
        )
        a, b = (
            t._cast(target)
            if isinstance(t, Tensor) and t._data.dtype != target
            else t
            if isinstance(t, Tensor)
            else Tensor._make(condition.xp.asarray(t, dtype=target), condition.device)
            for t in (a, b)
        )
        out = Where.apply(condition, a, b)
        if out.grad_fn is not None:  # torch promotes inside where: edges to the given inputs
            _edges_to_given(out.grad_fn, out, (condition, input, other), (condition, a, b))
        return out
    return Where.apply(condition, a, b)


def nonzero(input, as_tuple=False):
    """nonzero(input, as_tuple=False) -> Tensor

    Returns the indices of the non-zero elements, one row per element (``as_tuple=True``: one
    tensor per dimension).

    Args:
        input (Tensor): the input tensor.
        as_tuple (bool, optional): return one 1-D index tensor per dimension. Default: ``False``.

    Example:
        >>> framework.nonzero(framework.tensor([0, 3, 0, 5]))
        tensor([[1],
                [3]])
    """
    idx = input.xp.nonzero(input._data.reshape(-1) if input.ndim == 0 else input._data)
    if input.ndim == 0 and not as_tuple:  # torch: (1, 0) or (0, 0)
        return Tensor._make(input.xp.zeros((len(idx[0]), 0), "int64"), input.device)
    if as_tuple:
        return tuple(Tensor._make(i.astype("int64"), input.device) for i in idx)
    return Tensor._make(input.xp.stack(idx, axis=1).astype("int64"), input.device)


class MaskedFill(Op):
    """masked_fill(mask, value); a 0-dim tensor value gets the masked gradient's sum."""

    no_edge = (1,)  # mask (and a scalar value: set in forward)
    saves_inputs = True
    saved_fields = {"mask": "input1"}

    def forward(self, x, mask, value, tensor_value):
        _bool_mask(mask)
        self.tensor_value = tensor_value
        if not tensor_value:
            self.no_edge = (1, 2)  # the value is a Python scalar
        return self.xp.where(mask, value.astype(x.dtype, copy=False), x)

    def backward(self, grad):
        mask = self.inputs[1]
        need_x, _, need_v = self.needs_input_grad
        grad_x = where(mask, 0.0, grad) if need_x else None
        grad_v = where(mask, grad, 0.0).sum() if need_v else None
        return grad_x, None, grad_v

    jvp = Op.jvp_linear

    def node_variant(self):
        return "MaskedFillBackward1" if self.tensor_value else "MaskedFillBackward0"


def _bool_mask(mask):
    if mask.dtype.kind != "b":
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with "
            f"dtype {dtypes.cpp_type_name(mask.dtype)}"
        )


def masked_fill(input, mask, value):
    """masked_fill(input, mask, value) -> Tensor

    Fills the elements of ``input`` where ``mask`` is True with ``value`` (out of place).

    Args:
        input (Tensor): the input tensor.
        mask (BoolTensor): where to fill, broadcastable to ``input``.
        value (Number or Tensor): the value to fill with (a 0-dim tensor is differentiable).

    Example:
        >>> mask = framework.tensor([True, False, True])
        >>> framework.masked_fill(framework.tensor([1.0, 2.0, 3.0]), mask, 0.0)
        tensor([0., 2., 0.])
    """
    broadcast_shapes(mask.shape, input.shape)  # torch broadcasts mask first
    _value_dim(value)
    return _masked_fill_checked(input, mask, value)


def _value_dim(value):
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got "
            f"tensor with {value.ndim} dimension(s)."
        )


def _masked_fill_checked(input, mask, value):
    """masked_fill after the shape checks: the mask's dtype, then the value converted to
    input's dtype as a number (a 0-dim tensor value too: torch reads its item)."""
    _bool_mask(mask._data)
    tensor_value = isinstance(value, Tensor)
    if not tensor_value:
        value = check_scalar_fits(value, input._data.dtype)
        value = Tensor._make(input.xp.asarray(value, dtype=input._data.dtype), input.device)
    elif value._data.dtype != input._data.dtype:
        check_scalar_fits(value.item(), input._data.dtype)
    return MaskedFill.apply(input, mask, value, tensor_value=tensor_value)


def masked_fill_(input, mask, value):
    """Tensor.masked_fill_'s checks in torch's order (the value's dim, the mask's dtype, the
    broadcast with self first, self's shape kept) before masked_fill's conversion."""
    _value_dim(value)
    _bool_mask(mask._data)
    shape = broadcast_shapes(input.shape, mask.shape)
    if shape != tuple(input.shape):
        raise inplace_shape_error(input.shape, shape)
    return _masked_fill_checked(input, mask, value)
