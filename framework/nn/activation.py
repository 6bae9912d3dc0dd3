"""Activations: leaky_relu and gelu primitives, their modules, and modules over core ops."""
import math

from .._errors import refuse
from .. import ops as _ops
from ..autograd.grad_mode import state
from ..autograd.op import Op
from ..ops._fastgrad import plain, wrap
from ..ops.special import _erf
from ..tensor import Tensor
from .module import Module


class LeakyRelu(Op):
    saves_inputs = True

    def forward(self, x, negative_slope=0.01):
        refuse(x, "biu", "leaky_relu_cpu")
        self.slope = negative_slope
        return self.xp.where(x > 0, x, x * x.dtype.type(negative_slope))

    def backward(self, grad):
        (x,) = self.inputs
        xp, a = x.xp, x._data
        slope = Tensor._make(xp.where(a > 0, a.dtype.type(1), a.dtype.type(self.slope)), x.device)
        return grad * slope  # piecewise constant: its own derivative is zero


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return input._inplace(LeakyRelu.apply, negative_slope=negative_slope)
    return LeakyRelu.apply(input, negative_slope=negative_slope)


class NormalCdf(Op):
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2, the standard normal CDF (used by gelu's backward)."""
    saves_inputs = True

    def forward(self, x):
        return 0.5 * (1.0 + _erf(self.xp, x * x.dtype.type(1 / math.sqrt(2))))

    def backward(self, grad):
        (x,) = self.inputs
        return grad * _normal_pdf(x)


def _normal_pdf(x):
    return (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))


_K = math.sqrt(2 / math.pi)
_C = 0.044715


class Gelu(Op):
    saves_inputs = True

    def forward(self, x, approximate="none"):
        refuse(x, "biu", "GeluKernelImpl")
        self.approximate = approximate
        xp, dt = self.xp, x.dtype.type
        if approximate == "tanh":
            return dt(0.5) * x * (1 + xp.tanh(dt(_K) * (x + dt(_C) * x * x * x)))
        self.cdf = 0.5 * (1.0 + _erf(xp, x * dt(1 / math.sqrt(2))))  # Phi(x), for backward
        return x * self.cdf

    def backward(self, grad):
        (x,) = self.inputs
        if self.approximate == "tanh":
            t = ((x + x * x * x * _C) * _K).tanh()
            d = (t + 1) * 0.5 + x * 0.5 * (1 - t * t) * _K * (x * x * (3 * _C) + 1)
        elif plain(grad):  # no graph to record: torch's formula on the arrays, Phi reused
            a, dt = x._data, x._data.dtype.type
            pdf = x.xp.exp(a * a * dt(-0.5)) * dt(1 / math.sqrt(2 * math.pi))
            return wrap(grad._data * (self.cdf + a * pdf), grad)
        else:
            # create_graph needs Phi as a function of x; otherwise the forward's copy will do
            cdf = NormalCdf.apply(x) if state.enabled else Tensor._make(self.cdf, x.device)
            d = cdf + x * _normal_pdf(x)  # d/dx x*Phi(x)
        return grad * d


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return Gelu.apply(input, approximate=approximate)


def relu(input, inplace=False):
    return input.relu_() if inplace else _ops.relu(input)


def sigmoid(input):
    return _ops.sigmoid(input)


def tanh(input):
    return _ops.tanh(input)


def _softmax_dim(ndim):
    """torch's legacy choice when dim is None."""
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _ops.softmax(input, _softmax_dim(input.dim()) if dim is None else dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _ops.log_softmax(input, _softmax_dim(input.dim()) if dim is None else dim,
                            dtype=dtype)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Sigmoid(Module):
    def forward(self, input):
        return _ops.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return _ops.tanh(input)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
