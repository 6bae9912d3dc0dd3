"""Activations: leaky_relu and gelu primitives, their modules, and modules over core ops."""
import math

from .. import ops as _ops
from ..autograd.grad_mode import state
from ..autograd.op import Op
from ..tensor import Tensor
from .module import Module

# Chebyshev coefficients of erfc on [0, inf) (Numerical Recipes 3rd ed., Erf::erfccheb):
# about 1e-16 relative error, and NumPy has no erf of its own.
_ERFC_COF = (-1.3026537197817094, 6.4196979235649026e-1, 1.9476473204185836e-2,
             -9.561514786808631e-3, -9.46595344482036e-4, 3.66839497852761e-4,
             4.2523324806907e-5, -2.0278578112534e-5, -1.624290004647e-6, 1.303655835580e-6,
             1.5626441722e-8, -8.5238095915e-8, 6.529054439e-9, 5.059343495e-9,
             -9.91364156e-10, -2.27365122e-10, 9.6467911e-11, 2.394038e-12, -6.886027e-12,
             8.94487e-13, 3.13092e-13, -1.12708e-13, 3.81e-16, 7.106e-15, -1.523e-15,
             -9.4e-17, 1.21e-16, -2.8e-17)


# Rational minimax fit of erf on [-4, 4] for float32 (Eigen's / XLA's ErfImpl32): float32
# accuracy in a third of the work of the Chebyshev series.
_ERF32_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
            -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
            -1.60960333262415e-02)
_ERF32_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
            -7.37332916720468e-03, -1.42647390514189e-02)


def _erf(xp, x):
    """erf on an array, in x's dtype, with xp operations only (loops run over coefficients)."""
    if x.dtype.itemsize <= 4:
        x = xp.clip(x, -4.0, 4.0)
        x2 = x * x
        p = xp.full_like(x, _ERF32_P[0])
        for c in _ERF32_P[1:]:
            p *= x2
            p += c
        q = xp.full_like(x, _ERF32_Q[0])
        for c in _ERF32_Q[1:]:
            q *= x2
            q += c
        p *= x
        p /= q
        return p
    z = xp.abs(x)
    t = 2.0 / (2.0 + z)
    ty = 4.0 * t - 2.0
    d = xp.zeros_like(z)
    dd = xp.zeros_like(z)
    for c in _ERFC_COF[:0:-1]:  # Clenshaw recurrence
        nxt = ty * d
        nxt -= dd
        nxt += c
        d, dd = nxt, d
    d *= ty
    d += _ERFC_COF[0]
    d *= 0.5
    d -= dd
    d -= z * z
    erfc = t * xp.exp(d, out=d)
    return xp.where(x >= 0, 1.0 - erfc, erfc - 1.0)


class LeakyRelu(Op):
    saves_inputs = True
    saved_fields = {"negative_slope": "slope", "self": "input0"}

    def forward(self, x, negative_slope=0.01):
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
    saves = ("cdf",)
    saved_fields = {"approximate": "approximate", "self": "input0"}

    def forward(self, x, approximate="none"):
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
