"""The native backward kernels of nonlinear.py's activations as ops of their own, so that a
gradient taken with create_graph=True records torch's node (LeakyReluBackwardBackward0,
EluBackwardBackward0, ...) and requires grad whenever an input of the kernel does, even where
the second derivative is zeros (the piecewise-linear ones).

Each forward is the array kernel the first gradient runs (the same bits); each backward is
torch's derivatives.yaml formula for `x_backward`, each jvp its forward-AD formula.
"""

import struct

from ..autograd.op import Op, round_half
from ..tensor import Tensor
import numpy as np

from . import _sleef, _sleef_act
from ._fastgrad import zero_where
from .activation import sigmoid_array
from .activation_grad import (
    SigmoidBackward,
    _const,
    _PiecewiseBackward,
    _plus,
    _same_shape,
    _smul,
    _zeros,
)


def nan_in_vector_body(xp, g, x):
    """Where a NaN x meets torch's CPU kernel's vector body (``_sleef_act.vector_body``): its
    blends on comparisons give a NaN the vector value, its scalar code's branches the other;
    None without a NaN (or for other than float32/float64 NumPy arrays, or shapes the walk
    does not replay)."""
    if xp is not np or not _sleef_act.applies(g, x) or not np.isnan(x).any():
        return None
    body = _sleef_act.vector_body(g, x)
    return None if body is None else body & np.isnan(x)


class HardtanhBackward(_PiecewiseBackward):
    """torch's hardtanh_backward(grad, x, min_val, max_val): grad strictly inside, else 0 (a
    select: no inf * 0). A NaN x: grad in torch's scalar code, 0 in its vector body."""

    node_name = "HardtanhBackwardBackward0"
    saved_fields = {"max_val": _const("max_val"), "min_val": _const("min_val"), "self": "input1"}

    @staticmethod
    def kernel(xp, g, x, min_val, max_val):
        """The backward kernel on arrays: the first gradient's values."""
        dt = x.dtype.type
        outside = (x <= dt(min_val)) | (x >= dt(max_val))
        nan = nan_in_vector_body(xp, g, x)
        return zero_where(xp, outside if nan is None else outside | nan, g)


class SoftshrinkBackward(_PiecewiseBackward):
    """torch's softshrink_backward(grad, x, lambd): 0 for |x| <= lambd, else grad. A NaN x:
    grad in torch's scalar code, 0 in its vector body."""

    node_name = "SoftshrinkBackwardBackward0"
    saved_fields = {"lambd": _const("lambd"), "self": "input1"}

    @staticmethod
    def kernel(xp, g, x, lambd):
        """The backward kernel on arrays: the first gradient's values."""
        lam = x.dtype.type(lambd)
        inside = (x >= -lam) & (x <= lam)
        nan = nan_in_vector_body(xp, g, x)
        return zero_where(xp, inside if nan is None else inside | nan, g)

    def forward(self, g, x, lambd):
        self.consts = {"lambd": lambd}
        if self.half is not None:  # torch's half kernels read lambd as scalar_t
            lambd = round_half(lambd, self.half)
        return self.kernel(self.xp, *_same_shape(self.xp, g, x), lambd)


class HardshrinkBackward(SoftshrinkBackward):
    """torch's hardshrink_backward(grad, x, lambd): the same select as softshrink's."""

    node_name = "HardshrinkBackwardBackward0"
    saved_fields = {"lambd": _const("lambd"), "self": "input1"}


class RreluWithNoiseBackward(_PiecewiseBackward):
    """torch's rrelu_with_noise_backward(grad, x, noise, ...): grad times the slopes forward
    used (1 where x > 0, the drawn or mean slope elsewhere), kept as the array `noise`."""

    node_name = "RreluWithNoiseBackwardBackward0"
    saved_fields = {"self": "input1"}

    @staticmethod
    def kernel(xp, g, x, noise):
        """The backward kernel on arrays: the first gradient's values."""
        return g * noise


def _f32(v):
    """v rounded to float32, as torch's kernels do with float literals."""
    return struct.unpack("f", struct.pack("f", v))[0]


_SIXTH = _f32(1 / 6)  # torch's kernel uses the float constant 1.0f / 6.0f


def hardsigmoid_grad(xp, g, x):
    """torch's hardsigmoid_backward(grad, x): grad / 6 strictly inside (-3, 3), else 0."""
    return xp.where((x > -3) & (x < 3), g * _SIXTH, g.dtype.type(0))


class _SmoothBackward(Op):
    """The backward of a smooth elementwise activation: (grad, x) -> grad * f'(x) (`kernel`,
    with the activation's constants `consts`). Its derivative is itself for grad and
    `double_backward(gg, grad, x)` (gg * grad * f''(x) in torch's formula) for x; its
    tangent is the sum of both applied to the tangents."""

    saves_inputs = True

    exact = False  # kernel takes exact= (False for a half op's float32 arrays)

    def forward(self, g, x, **consts):
        self.consts = consts
        extra = {"exact": False} if self.exact and self.half is not None else {}
        return self.kernel(self.xp, *_same_shape(self.xp, g, x), **consts, **extra)

    def backward(self, gg):
        g, x = self.inputs
        need_g, need_x = self.needs_input_grad
        return (
            self._op.apply(gg, x, **self.consts) if need_g else None,
            self.double_backward(gg, g, x, **self.consts) if need_x else None,
        )

    def jvp(self, t_g, t_x):
        """torch's `result:` formulas: kernel(grad's tangent) + double_backward(x's)."""
        g, x = self.primals
        return _plus(
            self._op.apply(t_g, x, **self.consts) if t_g is not None else None,
            self.double_backward(t_x, g, x, **self.consts) if t_x is not None else None,
        )


def elu_grad(xp, g, x, alpha, scale, input_scale, exact=True):
    """torch's elu_backward(grad, alpha, scale, input_scale, is_result=False, x); exact:
    float32/float64 NumPy arrays run torch's kernel (not a half op's float32 math)."""
    if exact and _sleef_act.applies(g, x):  # torch's CPU kernel, bit for bit
        d = _sleef_act.elu_backward(g, x, alpha, scale, input_scale)
        if d is not None:
            return d
    dt = x.dtype.type
    # exp of min(x, 0): no inf * 0 = nan on the positive side (x = inf)
    neg = xp.exp(xp.minimum(x, dt(0)) * dt(input_scale)) * dt(scale * alpha * input_scale)
    return xp.where(x <= 0, g * neg, g * dt(scale))  # torch's test: NaN passes


class EluBackward(_SmoothBackward):
    """torch's elu_backward (elu, selu and celu): grad * scale for x > 0, else grad * scale *
    alpha * input_scale * exp(x * input_scale)."""

    node_name = "EluBackwardBackward0"
    saved_fields = {
        "alpha": _const("alpha"),
        "grad_output": "input0",
        "input_scale": _const("input_scale"),
        "is_result": "=False",
        "scale": _const("scale"),
        "self_or_result": "input1",
    }
    kernel = staticmethod(elu_grad)
    exact = True

    @staticmethod
    def double_backward(gg, g, x, alpha, scale, input_scale):
        """torch's elu_double_backward (is_result=False)."""
        gi = EluBackward.apply(
            _smul(gg * g, input_scale), x, alpha=alpha, scale=scale, input_scale=input_scale
        )
        return gi * (x < 0)


def softplus_grad(xp, g, x, beta, threshold, exact=True):
    """torch's softplus_backward(grad, x, beta, threshold): grad * sigmoid(beta x), grad
    itself where beta x > threshold; exact: as elu_grad's."""
    if exact and _sleef_act.applies(g, x):  # torch's CPU kernel, bit for bit
        d = _sleef_act.softplus_backward(g, x, beta, threshold)
        if d is not None:
            return d
    bx = x * x.dtype.type(beta)
    return xp.where(bx > threshold, g, g * sigmoid_array(xp, bx))


class SoftplusBackward(_SmoothBackward):
    """torch's softplus_backward."""

    node_name = "SoftplusBackwardBackward0"
    saved_fields = {
        "beta": _const("beta"),
        "grad_output": "input0",
        "self": "input1",
        "threshold": _const("threshold"),
    }
    kernel = staticmethod(softplus_grad)
    exact = True

    @staticmethod
    def double_backward(gg, g, x, beta, threshold):
        """torch's softplus_double_backward(gg * grad, x, beta, threshold)."""
        z = _smul(x, beta)
        return _smul(SigmoidBackward.apply(gg * g, z.sigmoid()) * (z < threshold), beta)


def log_sigmoid_grad(xp, g, x):
    """torch's log_sigmoid_backward(grad, x, buffer): grad * sigmoid(-x) (torch's kernel on
    float32/float64 NumPy arrays)."""
    if _sleef_act.applies(g, x):  # torch's CPU kernel, bit for bit
        d = _sleef_act.log_sigmoid_backward(g, x)
        if d is not None:
            return d
    return g * sigmoid_array(xp, -x)


def _log_sigmoid_grad_half(xp, g, x, half):
    """torch's half kernel: (1 or 0 - (+-1) b / (1 + b)) grad in float, with its forward's
    buffer b = exp(-|x|) rounded to the half dtype."""
    dt = x.dtype.type
    b = round_half(xp.exp(-xp.abs(x)), half)
    neg = x < 0
    slope = xp.where(neg, dt(1), dt(0)) - xp.where(neg, dt(1), dt(-1)) * (b / (dt(1) + b))
    return slope * g


class LogSigmoidBackward(_SmoothBackward):
    """torch's log_sigmoid_backward."""

    node_name = "LogSigmoidBackwardBackward0"
    saved_fields = {"grad_output": "input0", "self": "input1"}
    kernel = staticmethod(log_sigmoid_grad)

    def forward(self, g, x):
        self.consts = {}
        g, x = _same_shape(self.xp, g, x)
        if self.half is not None:
            return _log_sigmoid_grad_half(self.xp, g, x, self.half)
        return log_sigmoid_grad(self.xp, g, x)

    @staticmethod
    def double_backward(gg, g, x):
        """torch's log_sigmoid_double_backward(gg * grad, x): its z (z - 1) times that."""
        z = x.sigmoid()
        return gg * g * (z - 1) * z


def hardswish_grad(xp, g, x):
    """torch's hardswish_backward(grad, x): 0 up to -3, grad (x / 3 + 1/2) below 3, then
    grad (selects: an inf grad stays out of the zeros). A NaN x: grad in torch's scalar
    code, NaN (the middle piece) in its vector body."""
    dt = x.dtype.type
    mid = g * (x / dt(3) + dt(0.5))
    out = xp.where(x <= -3, g.dtype.type(0), xp.where(x < 3, mid, g))  # torch's bounds
    nan = nan_in_vector_body(xp, g, x)
    return out if nan is None else np.where(nan, dt(np.nan), out)


class HardswishBackward(_SmoothBackward):
    """torch's hardswish_backward."""

    node_name = "HardswishBackwardBackward0"
    saved_fields = {"grad_output": "input0", "self": "input1"}
    kernel = staticmethod(hardswish_grad)

    @staticmethod
    def double_backward(gg, g, x):
        """torch's formula: gg * grad / 3 strictly inside (-3, 3), else 0."""
        zero = Tensor._make(x.xp.zeros((), dtype=x._data.dtype), x.device)
        from .extras2 import DivScalar  # (torch's div.Scalar: DivBackward1)

        return DivScalar.apply(gg * g, other=3.0).where((x > -3.0) & (x < 3.0), zero)


def sigmoid_kernel(xp, x):
    """torch's CPU sigmoid kernel on x (a view as torch's TensorIterator walks it): its
    replay (`_sleef.sigmoid`: Sleef's exp in the vector body, the C library's in the tails)
    for float32/float64 NumPy arrays, else `sigmoid_array`."""
    if type(x) is np.ndarray and x.dtype.char in "fd" and x.dtype.isnative:
        return _sleef.sigmoid(x)
    return sigmoid_array(xp, x)


def glu_grad(xp, g, x, dim, half=None):
    """torch's glu_backward(grad, x, dim): [s grad, (1 - s) s a grad] along dim, with a, b
    x's halves and s = sigmoid(b) (its sigmoid_out into the first half, then mul_(grad);
    glu_backward_kernel's (one - s) * s * a * grad, left to right). For a half dtype `half`
    as torch's kernel: s rounded to it first, then s (1 - s) a grad in float."""
    a, b = xp.split(x, 2, axis=dim)
    if half is not None:
        s = round_half(sigmoid_array(xp, b), half)
        return xp.concatenate([g * s, s * (1 - s) * a * g], axis=dim)
    s = sigmoid_kernel(xp, b)
    return xp.concatenate([s * g, (1 - s) * s * a * g], axis=dim)


def _halves(t, dim):
    n = t.shape[dim] // 2
    return t.narrow(dim, 0, n), t.narrow(dim, n, n)


class GluBackward(_SmoothBackward):
    """torch's glu_backward(grad, x, dim). Not elementwise: grad has half x's size along dim."""

    node_name = "GluBackwardBackward0"
    saved_fields = {"dim": _const("dim"), "grad_output": "input0", "self": "input1"}
    kernel = staticmethod(glu_grad)

    def forward(self, g, x, dim):
        self.consts = {"dim": dim}
        return glu_grad(self.xp, g, x, dim, self.half)

    def backward(self, gg):
        g, x = self.inputs
        need_g, need_x = self.needs_input_grad
        dim = self.consts["dim"]
        return (
            self.grad_output_grad(gg, x, dim) if need_g else None,
            self.double_backward(gg, g, x, dim) if need_x else None,
        )

    def jvp(self, t_g, t_x):
        g, x = self.primals
        dim = self.consts["dim"]
        return _plus(
            GluBackward.apply(t_g, x, dim=dim) if t_g is not None else None,
            self.double_backward(t_x, g, x, dim) if t_x is not None else None,
        )

    @staticmethod
    def grad_output_grad(gg, x, dim):
        """torch's glu_double_backward_grad_output: gg times glu_backward(ones) summed over
        the two halves."""
        ones = Tensor._make(x.xp.ones(_half_shape(x, dim), dtype=x._data.dtype), x.device)
        tmp = gg * GluBackward.apply(ones, x, dim=dim)
        first, second = _halves(tmp, dim)
        return first + second

    @staticmethod
    def double_backward(gg, g, x, dim):
        """torch's glu_double_backward(gg, grad, x, dim)."""
        from .join import cat

        a, b = _halves(x, dim)
        sig_b = b.sigmoid()
        one_sub_sig_b = 1 - sig_b
        sig_one_sub_sig = sig_b * one_sub_sig_b
        gg_a, gg_b = _halves(gg, dim)
        gi_a = gg_b * g * sig_one_sub_sig
        second_order_sh = sig_one_sub_sig * one_sub_sig_b - sig_b * sig_one_sub_sig
        gi_b = gg_b * a * g * second_order_sh + gg_a * g * sig_one_sub_sig
        return cat([gi_a, gi_b], dim)


def _half_shape(x, dim):
    """The shape of glu's result (and gradient) for input x."""
    shape = list(x.shape)
    shape[dim] //= 2
    return tuple(shape)


def prelu_grad(xp, g, x, w):
    """torch's _prelu_kernel_backward(grad, x, w): (grad where x > 0 else grad * w, 0 where
    x > 0 else grad * x), both of the broadcast shape (the engine sums the second to w's)."""
    pos = x > 0
    gw = g * x
    return xp.where(pos, g, g * w), xp.where(pos, gw.dtype.type(0), gw)  # selects: no NaN


def _where(cond, a, b):
    return a.where(cond, b)


class PreluKernelBackward(Op):
    """torch's _prelu_kernel_backward: two outputs, the gradients of x and of the weight."""

    node_name = "PreluKernelBackwardBackward0"
    saved_fields = {"grad_output": "input0", "self": "input1", "weight": "input2"}
    saves_inputs = True

    def forward(self, g, x, w):
        return prelu_grad(self.xp, g, x, w)

    def backward(self, ggx, ggw):
        """torch's formulas (note x >= 0 there, where the kernel tests x > 0)."""
        g, x, w = self.inputs
        need_g, need_x, need_w = self.needs_input_grad
        nonneg = x >= 0
        zero = Tensor._make(x.xp.zeros((), dtype=x._data.dtype), x.device)
        grad_g = grad_x = grad_w = None
        if need_g:
            if ggx is None:
                grad_g = _where(nonneg, zero, ggw * x)
            else:
                neg = ggx * w if ggw is None else ggx * w + ggw * x
                grad_g = _where(nonneg, ggx, neg)
        if need_x:
            grad_x = _where(nonneg, zero, g * ggw) if ggw is not None else _zeros(x)
        if need_w:
            grad_w = _where(nonneg, zero, g * ggx) if ggx is not None else _zeros(x)
        return grad_g, grad_x, grad_w

    def jvp(self, t_g, t_x, t_w):
        """torch's result0/result1 formulas; each output has a tangent when one of the
        tangents its formula reads has one."""
        g, x, w = self.primals
        nonneg = x >= 0
        zero = Tensor._make(x.xp.zeros((), dtype=x._data.dtype), x.device)
        r0 = r1 = None
        if t_g is not None or t_w is not None:
            tg = t_g if t_g is not None else _zeros(g)
            neg = tg * w if t_w is None else tg * w + g * t_w
            r0 = _where(nonneg, tg, neg)
        if t_g is not None or t_x is not None:
            r1 = _where(
                nonneg,
                zero,
                _plus(g * t_x if t_x is not None else None, t_g * x if t_g is not None else None),
            )
        return r0, r1
