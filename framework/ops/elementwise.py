"""Elementwise primitives: arithmetic, unary math, activations, comparisons, casts."""
from ..autograd.op import Op
from ..tensor import Tensor
from .. import dtypes


class Add(Op):
    promote = True

    def forward(self, a, b, alpha=1):
        self.alpha = alpha
        return a + b if alpha == 1 else a + alpha * b

    def backward(self, grad):
        return grad, (grad if self.alpha == 1 else grad * self.alpha)


def add(a, b, alpha=1):
    return Add.apply(a, b, alpha=alpha)


class Sub(Op):
    promote = True

    def forward(self, a, b, alpha=1):
        self.alpha = alpha
        return a - b if alpha == 1 else a - alpha * b

    def backward(self, grad):
        return grad, (-grad if self.alpha == 1 else grad * -self.alpha)


class Rsub(Op):
    """scalar - tensor (torch calls it rsub)."""
    promote = True

    def forward(self, a, b, alpha=1):
        self.alpha = alpha
        return b - a if alpha == 1 else b - alpha * a

    def backward(self, grad):
        return (-grad if self.alpha == 1 else grad * -self.alpha), None

    def name(self):
        return "RsubBackward1"


def sub(a, b, alpha=1):
    if not isinstance(a, Tensor):
        return Rsub.apply(b, a, alpha=alpha)
    return Sub.apply(a, b, alpha=alpha)


class Mul(Op):
    promote = True
    saves_inputs = True

    def forward(self, a, b):
        return a * b

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        return (grad * b if need_a else None), (grad * a if need_b else None)


def mul(a, b):
    return Mul.apply(a, b)


class Div(Op):
    promote = True
    saves_inputs = True

    def forward(self, a, b, rounding_mode=None):
        self.rounding_mode = rounding_mode
        xp = self.xp
        if rounding_mode == "floor":
            return xp.floor_divide(a, b) if a.dtype.kind in "iu" else xp.floor(a / b)
        if rounding_mode == "trunc":
            out = xp.trunc(a / b)
            return out.astype(a.dtype) if a.dtype.kind in "iu" else out
        out = a / b
        if a.dtype.kind in "biu":  # true division of integers gives the default float dtype
            out = out.astype(dtypes.get_default_dtype().np)
        return out

    def backward(self, grad):
        a, b = self.inputs
        if self.rounding_mode is not None:
            return grad * 0, None
        need_a, need_b = self.needs_input_grad
        grad_a = grad / b if need_a else None
        grad_b = -grad * a / (b * b) if need_b else None
        return grad_a, grad_b

    def name(self):
        return "DivBackward0" if self.rounding_mode is None else "DivBackward1"


def div(a, b, rounding_mode=None):
    if not isinstance(a, Tensor):  # scalar / tensor = reciprocal(tensor) * scalar, as torch
        return mul(reciprocal(b), a)
    return Div.apply(a, b, rounding_mode=rounding_mode)


true_divide = divide = div


class Reciprocal(Op):
    saves_output = True

    def forward(self, x):
        if x.dtype.kind in "biu":
            x = x.astype(dtypes.get_default_dtype().np)
        return 1 / x

    def backward(self, grad):
        y = self.output
        return -grad * y * y  # d/dx 1/x = -1/x**2


def reciprocal(x):
    return Reciprocal.apply(x)


class Neg(Op):
    def forward(self, x):
        return -x

    def backward(self, grad):
        return -grad


def neg(x):
    return Neg.apply(x)


negative = neg


class Pow(Op):
    """tensor ** number."""
    saves_inputs = True

    def forward(self, x, exponent):
        self.exponent = exponent
        if x.dtype.kind in "biu" and isinstance(exponent, float):
            x = x.astype(dtypes.get_default_dtype().np)
        elif x.dtype.kind in "iu" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if exponent == 2:
            return x * x
        return x ** self.xp.asarray(exponent, dtype=x.dtype)

    def backward(self, grad):
        x, = self.inputs
        e = self.exponent
        if e == 0:
            return grad * 0
        return grad * e * x ** (e - 1)


class PowTensor(Op):
    """tensor ** tensor."""
    promote = True
    saves_inputs = True

    def forward(self, a, b):
        return a ** b

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        grad_a = grad * b * a ** (b - 1) if need_a else None
        # d/db a**b = a**b * log(a); torch masks the a == 0 case (b >= 0) to 0
        grad_b = grad * where(a == 0, 0.0, a ** b * log(a)) if need_b else None
        return grad_a, grad_b

    def name(self):
        return "PowBackward1"


class PowScalarBase(Op):
    """number ** tensor."""
    saves_output = True

    def forward(self, x, base):
        self.base = base
        if x.dtype.kind in "biu" and isinstance(base, float):
            x = x.astype(dtypes.get_default_dtype().np)
        return self.xp.asarray(base, dtype=x.dtype) ** x

    def backward(self, grad):
        import math
        return grad * self.output * math.log(self.base) if self.base > 0 else grad * 0

    def name(self):
        return "PowBackward2"


def pow(a, b):
    if not isinstance(a, Tensor):
        return PowScalarBase.apply(b, base=a)
    if isinstance(b, Tensor):
        return PowTensor.apply(a, b)
    return Pow.apply(a, exponent=b)


def square(x):
    return pow(x, 2)


class Exp(Op):
    saves_output = True

    def forward(self, x):
        return self.xp.exp(_float(x))

    def backward(self, grad):
        return grad * self.output  # d/dx e^x = e^x


def exp(x):
    return Exp.apply(x)


class Log(Op):
    saves_inputs = True

    def forward(self, x):
        return self.xp.log(_float(x))

    def backward(self, grad):
        x, = self.inputs
        return grad / x


def log(x):
    return Log.apply(x)


class Sqrt(Op):
    saves_output = True

    def forward(self, x):
        return self.xp.sqrt(_float(x))

    def backward(self, grad):
        return grad / (2 * self.output)  # d/dx sqrt(x) = 1 / (2 sqrt(x))


def sqrt(x):
    return Sqrt.apply(x)


class Sin(Op):
    saves_inputs = True

    def forward(self, x):
        return self.xp.sin(_float(x))

    def backward(self, grad):
        x, = self.inputs
        return grad * cos(x)


def sin(x):
    return Sin.apply(x)


class Cos(Op):
    saves_inputs = True

    def forward(self, x):
        return self.xp.cos(_float(x))

    def backward(self, grad):
        x, = self.inputs
        return grad * -sin(x)


def cos(x):
    return Cos.apply(x)


class Tanh(Op):
    saves_output = True

    def forward(self, x):
        return self.xp.tanh(_float(x))

    def backward(self, grad):
        y = self.output
        return grad * (1 - y * y)  # d/dx tanh = 1 - tanh(x)**2


def tanh(x):
    return Tanh.apply(x)


class Sigmoid(Op):
    saves_output = True

    def forward(self, x):
        x = _float(x)
        xp = self.xp
        # stable for large |x|: exp of a non-positive number only
        e = xp.exp(-xp.abs(x))
        return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    def backward(self, grad):
        y = self.output
        return grad * y * (1 - y)  # d/dx sigmoid = s (1 - s)


def sigmoid(x):
    return Sigmoid.apply(x)


class Relu(Op):
    saves_output = True

    def forward(self, x):
        return self.xp.maximum(x, 0, dtype=x.dtype)

    def backward(self, grad):
        return grad * (self.output > 0)


def relu(x):
    return Relu.apply(x)


class Abs(Op):
    saves_inputs = True

    def forward(self, x):
        return self.xp.abs(x)

    def backward(self, grad):
        x, = self.inputs
        return grad * sign(x)


def abs(x):
    return Abs.apply(x)


absolute = abs


class Sign(Op):
    def forward(self, x):
        return self.xp.sign(x)

    def backward(self, grad):
        return grad * 0


def sign(x):
    return Sign.apply(x)


class Clamp(Op):
    saves_inputs = True

    def forward(self, x, min=None, max=None):
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        self.min, self.max = min, max
        return self.xp.clip(x, min, max).astype(x.dtype, copy=False)

    def backward(self, grad):
        x, = self.inputs
        mask = True
        if self.min is not None:
            mask = x >= self.min
        if self.max is not None:
            mask = (x <= self.max) & mask if self.min is not None else x <= self.max
        return grad * mask

    def name(self):
        return "ClampBackward1"


def clamp(x, min=None, max=None):
    return Clamp.apply(x, min=min, max=max)


clip = clamp


class Maximum(Op):
    promote = True
    saves_inputs = True

    def forward(self, a, b):
        return self.xp.maximum(a, b)

    def backward(self, grad):
        a, b = self.inputs
        # ties share the gradient equally, as torch does
        mask = (a > b) + (a == b) * 0.5
        return grad * mask, grad * (1 - mask)


def maximum(a, b):
    return Maximum.apply(a, b)


class Minimum(Op):
    promote = True
    saves_inputs = True

    def forward(self, a, b):
        return self.xp.minimum(a, b)

    def backward(self, grad):
        a, b = self.inputs
        mask = (a < b) + (a == b) * 0.5
        return grad * mask, grad * (1 - mask)


def minimum(a, b):
    return Minimum.apply(a, b)


class Where(Op):
    """where(cond, a, b); the condition gets no gradient."""
    saves_inputs = True

    def forward(self, cond, a, b):
        return self.xp.where(cond, a, b)

    def backward(self, grad):
        cond = self.inputs[0]
        zero = grad * 0
        _, need_a, need_b = self.needs_input_grad
        return (None, where(cond, grad, zero) if need_a else None,
                where(cond, zero, grad) if need_b else None)


def where(condition, input=None, other=None):
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    a, b = input, other
    tensors = [t for t in (a, b) if isinstance(t, Tensor)]
    if len(tensors) < 2 or tensors[0].dtype != tensors[-1].dtype:
        ref_arrays = [t._data for t in tensors]
        target = dtypes.result_type(ref_arrays, [x.ndim for x in ref_arrays],
                                    [s for s in (a, b) if not isinstance(s, Tensor)])
        a = a._cast(target) if isinstance(a, Tensor) and a._data.dtype != target else a
        b = b._cast(target) if isinstance(b, Tensor) and b._data.dtype != target else b
        if not isinstance(a, Tensor):
            a = Tensor._make(condition.xp.asarray(a, dtype=target), condition.device)
        if not isinstance(b, Tensor):
            b = Tensor._make(condition.xp.asarray(b, dtype=target), condition.device)
    return Where.apply(condition, a, b)


def nonzero(x, as_tuple=False):
    idx = x.xp.nonzero(x._data)
    if as_tuple:
        return tuple(Tensor._make(i.astype("int64"), x.device) for i in idx)
    return Tensor._make(x.xp.stack(idx, axis=1).astype("int64"), x.device)


class _Compare(Op):
    promote = True
    differentiable = False


class Eq(_Compare):
    def forward(self, a, b):
        return a == b


class Ne(_Compare):
    def forward(self, a, b):
        return a != b


class Lt(_Compare):
    def forward(self, a, b):
        return a < b


class Le(_Compare):
    def forward(self, a, b):
        return a <= b


class Gt(_Compare):
    def forward(self, a, b):
        return a > b


class Ge(_Compare):
    def forward(self, a, b):
        return a >= b


def eq(a, b):
    return Eq.apply(a, b) if isinstance(a, Tensor) else Eq.apply(b, a)


def ne(a, b):
    return Ne.apply(a, b) if isinstance(a, Tensor) else Ne.apply(b, a)


def lt(a, b):
    return Lt.apply(a, b) if isinstance(a, Tensor) else Gt.apply(b, a)


def le(a, b):
    return Le.apply(a, b) if isinstance(a, Tensor) else Ge.apply(b, a)


def gt(a, b):
    return Gt.apply(a, b) if isinstance(a, Tensor) else Lt.apply(b, a)


def ge(a, b):
    return Ge.apply(a, b) if isinstance(a, Tensor) else Le.apply(b, a)


greater, less, greater_equal, less_equal, equal_ = gt, lt, ge, le, eq


class LogicalNot(_Compare):
    def forward(self, x):
        return self.xp.logical_not(x) if x.dtype.kind == "b" else self.xp.invert(x)


class LogicalAnd(_Compare):
    def forward(self, a, b):
        return a & b


class LogicalOr(_Compare):
    def forward(self, a, b):
        return a | b


class LogicalXor(_Compare):
    def forward(self, a, b):
        return a ^ b


def logical_not(x):
    return LogicalNot.apply(x)


def logical_and(a, b):
    return LogicalAnd.apply(a, b)


def logical_or(a, b):
    return LogicalOr.apply(a, b)


def logical_xor(a, b):
    return LogicalXor.apply(a, b)


class ToCopy(Op):
    """Change dtype and/or device; the gradient goes back to the source's."""

    def forward(self, x, device=None, dtype=None):
        from ..backend import device_of, move
        self.src_device, self.src_dtype = device_of(x), x.dtype
        if dtype is not None and x.dtype != dtype:
            x = x.astype(dtype)
        elif device is None or device == self.src_device:
            x = x.copy()
        return move(x, device) if device is not None else x

    def backward(self, grad):
        return grad.to(device=self.src_device, dtype=self.src_dtype)


def to_copy(x, device=None, dtype=None):
    out = ToCopy.apply(x, device=device, dtype=dtype)
    if device is not None and out._device != device:
        out._device = device
    return out


class Clone(Op):
    def forward(self, x):
        return x.copy()

    def backward(self, grad):
        return grad


def clone(x, memory_format=None):
    return Clone.apply(x)


class Fill(Op):
    """fill_(value) as an op: the result ignores the input."""

    def forward(self, x, value):
        if isinstance(value, Tensor):
            value = value.item()
        return self.xp.full(x.shape, value, dtype=x.dtype)

    def backward(self, grad):
        return grad * 0

    def name(self):
        return "FillBackward0"


def fill(x, value):
    return Fill.apply(x, value=value)


class CopyInto(Op):
    """copy_(src): the result is src broadcast to the destination's shape and dtype."""

    def forward(self, dst, src):
        self.src_dtype = src.dtype
        return self.xp.broadcast_to(src.astype(dst.dtype, copy=False), dst.shape)

    def backward(self, grad):
        return grad * 0, grad

    def name(self):
        return "CopyBackwards"


def copy_into(dst, src):
    if src._device != dst._device:
        src = src.to(dst._device)
    return CopyInto.apply(dst, src)


def _float(x):
    """Unary math on integers gives the default float dtype, as in torch."""
    return x.astype(dtypes.get_default_dtype().np) if x.dtype.kind in "biu" else x
