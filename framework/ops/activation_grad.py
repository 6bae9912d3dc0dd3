"""The native backward kernels of activation.py's ops as ops of their own (torch's
sigmoid_backward, tanh_backward, gelu_backward, _softmax_backward_data and
_log_softmax_backward_data), so that a gradient taken with create_graph=True records torch's
node (SigmoidBackwardBackward0, GeluBackwardBackward0, SoftmaxBackwardDataBackward0, ...).

Each forward is the array kernel the first gradient runs (the same bits); each backward is
torch's derivatives.yaml formula for the kernel, each jvp its forward-AD formula.
"""

import math

from ..autograd.op import Op
from ..tensor import Tensor
from .activation import (
    gelu_grad,
    leaky_relu_grad,
    log_softmax_grad,
    sigmoid_grad,
    softmax_grad,
    tanh_grad,
)
from .elementwise import MulScalar


def _same_shape(xp, g, x):
    """g and x broadcast to one shape (they differ under vmap, where an unbatched input keeps
    size-1 batch dims): the kernels compute in place on temporaries of that shape."""
    if g.shape == x.shape:
        return g, x
    return xp.broadcast_arrays(g, x)


def _plus(a, b):
    """a + b where either may be None (a missing tangent term)."""
    if a is None:
        return b
    return a if b is None else a + b


def _smul(t, s):
    """t * s through torch's mul.Scalar (MulBackward1), as its C++ formulas multiply."""
    return MulScalar.apply(t, other=s)


class SigmoidBackward(Op):
    """torch's sigmoid_backward(grad, y) = grad * (1 - y) * y, y the sigmoid's result."""

    node_name = "SigmoidBackwardBackward0"
    saves_inputs = True
    saved_fields = {"grad_output": "input0", "output": "input1"}

    def forward(self, g, y):
        return sigmoid_grad(self.xp, *_same_shape(self.xp, g, y))

    def backward(self, gg):
        g, y = self.inputs
        need_g, need_y = self.needs_input_grad
        return (
            SigmoidBackward.apply(gg, y) if need_g else None,
            gg * g * (_smul(y, -2) + 1) if need_y else None,
        )

    def jvp(self, t_g, t_y):
        g, y = self.primals
        return _plus(
            SigmoidBackward.apply(t_g, y) if t_g is not None else None,
            t_y * g * (_smul(y, -2) + 1) if t_y is not None else None,
        )


class TanhBackward(Op):
    """torch's tanh_backward(grad, y) = grad * (1 - y**2), y the tanh's result."""

    node_name = "TanhBackwardBackward0"
    saves_inputs = True
    saved_fields = {"grad_output": "input0", "output": "input1"}

    def forward(self, g, y):
        return tanh_grad(self.xp, *_same_shape(self.xp, g, y))

    def backward(self, gg):
        g, y = self.inputs
        need_g, need_y = self.needs_input_grad
        return (
            TanhBackward.apply(gg, y) if need_g else None,
            gg * (_smul(y, -2) * g) if need_y else None,
        )

    def jvp(self, t_g, t_y):
        g, y = self.primals
        return _plus(
            TanhBackward.apply(t_g, y) if t_g is not None else None,
            t_y * (_smul(y, -2) * g) if t_y is not None else None,
        )


def _softmax_double_backward(gg, g, y, dim):
    """torch's softmax_double_backward: the derivative of y * (g - sum(g y)) in y."""
    return g * gg - (y * g).sum(dim, keepdim=True) * gg - g * (y * gg).sum(dim, keepdim=True)


class SoftmaxBackwardData(Op):
    """torch's _softmax_backward_data(grad, y, dim) = y * (grad - sum(grad * y))."""

    node_name = "SoftmaxBackwardDataBackward0"
    saves_inputs = True
    saved_fields = {"dim": "dim", "grad_output": "input0", "output": "input1"}

    def forward(self, g, y, dim):
        self.dim = dim
        return softmax_grad(self.xp, g, y, dim, self.half is None)

    def backward(self, gg):
        g, y = self.inputs
        need_g, need_y = self.needs_input_grad
        return (
            SoftmaxBackwardData.apply(gg, y, dim=self.dim) if need_g else None,
            _softmax_double_backward(gg, g, y, self.dim) if need_y else None,
        )

    def jvp(self, t_g, t_y):
        """Linear in grad; in y, t (grad - sum(grad y)) - y sum(grad t) (not symmetric:
        this kernel is no Hessian in y)."""
        g, y = self.primals
        d = self.dim
        dy = None
        if t_y is not None:
            dy = t_y * (g - (g * y).sum(d, keepdim=True)) - y * (g * t_y).sum(d, keepdim=True)
        return _plus(SoftmaxBackwardData.apply(t_g, y, dim=d) if t_g is not None else None, dy)


class LogSoftmaxBackwardData(Op):
    """torch's _log_softmax_backward_data(grad, y, dim) = grad - exp(y) * sum(grad)."""

    node_name = "LogSoftmaxBackwardDataBackward0"
    saves_inputs = True
    saved_fields = {"dim": "dim", "grad_output": "input0", "output": "input1"}

    def forward(self, g, y, dim):
        self.dim = dim
        return log_softmax_grad(self.xp, g, y, dim, self.half is None)

    def backward(self, gg):
        g, y = self.inputs
        need_g, need_y = self.needs_input_grad
        d = self.dim
        return (
            gg - (gg * y.exp()).sum(d, keepdim=True) if need_g else None,
            -g.sum(d, keepdim=True) * y.exp() * gg if need_y else None,
        )

    def jvp(self, t_g, t_y):
        g, y = self.primals
        d = self.dim
        return _plus(
            LogSoftmaxBackwardData.apply(t_g, y, dim=d) if t_g is not None else None,
            -g.sum(d, keepdim=True) * y.exp() * t_y if t_y is not None else None,
        )


_K = math.sqrt(2 / math.pi)
_C = 0.044715


def _gelu_double_backward(gg, g, x, approximate):
    """torch's gelu_double_backward: gg * g * d2/dx2 gelu(x), in its formula's order."""
    if approximate == "tanh":
        inner = _smul(x + _smul(x.pow(3), _C), _K)
        tanh_inner = inner.tanh()
        sech_inner = 1 / inner.cosh()
        f = _smul(x, 0.5)
        g_ = 1 - tanh_inner * tanh_inner
        h = _smul(_smul(x * x, 3 * _C) + 1, _K)
        f_prime_gh = _smul(g_ * h, 0.5)
        g_prime = _smul(sech_inner, 2) * (-sech_inner * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = _smul(x, 6 * _C * _K)
        h_prime_fg = f * g_ * h_prime
        return gg * g * (f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg)
    x_sq = x * x
    pdf = _smul(_smul(x_sq, -0.5).exp(), 1 / math.sqrt(2 * math.pi))
    return gg * g * (_smul(pdf, 2) - x_sq * pdf)


class GeluBackward(Op):
    """torch's gelu_backward(grad, x, approximate) = grad * d/dx gelu(x)."""

    node_name = "GeluBackwardBackward0"
    saves_inputs = True
    saved_fields = {"approximate": "approximate", "grad_output": "input0", "self": "input1"}

    def forward(self, g, x, approximate="none"):
        self.approximate = approximate
        gx = _same_shape(self.xp, g, x)
        return gelu_grad(self.xp, *gx, approximate, exact=self.half is None)

    def backward(self, gg):
        g, x = self.inputs
        need_g, need_x = self.needs_input_grad
        a = self.approximate
        return (
            GeluBackward.apply(gg, x, approximate=a) if need_g else None,
            _gelu_double_backward(gg, g, x, a) if need_x else None,
        )

    def jvp(self, t_g, t_x):
        g, x = self.primals
        a = self.approximate
        return _plus(
            GeluBackward.apply(t_g, x, approximate=a) if t_g is not None else None,
            _gelu_double_backward(t_x, g, x, a) if t_x is not None else None,
        )


def _zeros(like):
    """torch's zeros_like(grad): a constant (no graph, no NaN from inf * 0)."""
    return Tensor._make(like.xp.zeros_like(like._data), like.device)


def _const(name):
    """A saved field read from the op's constants (torch's _saved_<name> of a scalar)."""
    return lambda fn: fn.consts[name]


class _PiecewiseBackward(Op):
    """The backward of a piecewise-linear activation: (grad, x) -> grad scaled or selected by
    x's piece (`kernel`, with the activation's constants `consts`). Linear in grad, piecewise
    constant in x: its own derivative is itself for grad and zeros for x, and its forward-AD
    tangent reads grad's tangent only (None where only x has one, as torch's formulas)."""

    saves_inputs = True
    saved_for = ((), (0,))  # x is read for grad's gradient; grad is never read

    def forward(self, g, x, **consts):
        self.consts = consts
        return self.kernel(self.xp, *_same_shape(self.xp, g, x), **consts)

    def backward(self, gg):
        _, x = self.inputs
        need_g, need_x = self.needs_input_grad
        return (
            self._op.apply(gg, x, **self.consts) if need_g else None,
            _zeros(gg) if need_x else None,
        )

    def jvp(self, t_g, t_x):
        """grad's tangent through the same kernel (torch's `result:` formulas read only it)."""
        if t_g is None:
            return None
        return self._op.apply(t_g, self.primals[1], **self.consts)


class LeakyReluBackward(_PiecewiseBackward):
    """torch's leaky_relu_backward(grad, x, negative_slope): grad where x > 0, else grad *
    negative_slope."""

    node_name = "LeakyReluBackwardBackward0"
    saved_fields = {"negative_slope": _const("negative_slope"), "self": "input1"}

    kernel = staticmethod(leaky_relu_grad)
