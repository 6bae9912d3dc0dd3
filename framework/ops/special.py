"""Special functions: erf, erfc, erfinv; inverse and hyperbolic trig, tan, log2/log10/exp2."""

import math

import numpy as np

from ..autograd.op import Op
from . import _fused, _vml
from .elementwise import MulScalar
from .loss import _quiet
from .unary import _float

# Chebyshev coefficients of erfc on [0, inf) (Numerical Recipes 3rd ed., Erf::erfccheb):
# about 1e-16 relative error, and NumPy has no erf of its own.
_ERFC_COF = (
    -1.3026537197817094,
    6.4196979235649026e-1,
    1.9476473204185836e-2,
    -9.561514786808631e-3,
    -9.46595344482036e-4,
    3.66839497852761e-4,
    4.2523324806907e-5,
    -2.0278578112534e-5,
    -1.624290004647e-6,
    1.303655835580e-6,
    1.5626441722e-8,
    -8.5238095915e-8,
    6.529054439e-9,
    5.059343495e-9,
    -9.91364156e-10,
    -2.27365122e-10,
    9.6467911e-11,
    2.394038e-12,
    -6.886027e-12,
    8.94487e-13,
    3.13092e-13,
    -1.12708e-13,
    3.81e-16,
    7.106e-15,
    -1.523e-15,
    -9.4e-17,
    1.21e-16,
    -2.8e-17,
)

# Rational minimax fit of erf on [-4, 4] for float32 (Eigen's / XLA's ErfImpl32): float32
# accuracy in a third of the work of the Chebyshev series.
_ERF32_P = (
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
_ERF32_Q = (
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)


def _erfc_abs(xp, z):
    """erfc(|x|) by the Chebyshev series (Clenshaw recurrence), in z's dtype."""
    if z.ndim == 0:  # NumPy turns 0-dim intermediates into scalars, which `out=` refuses
        return _erfc_abs(xp, z.reshape(1)).reshape(())
    t = 2.0 / (2.0 + z)
    ty = 4.0 * t - 2.0
    d = xp.zeros_like(z)
    dd = xp.zeros_like(z)
    for c in _ERFC_COF[:0:-1]:
        nxt = ty * d
        nxt -= dd
        nxt += c
        d, dd = nxt, d
    d *= ty
    d += _ERFC_COF[0]
    d *= 0.5
    d -= dd
    d -= z * z
    return t * xp.exp(d, out=d)


def _erf(xp, x, scratch=False):
    """erf on an array, in x's dtype, with xp operations only (loops run over coefficients).
    `scratch=True`: x is a temporary of the caller's that may be overwritten (one array less
    to allocate)."""
    if x.dtype.itemsize <= 4:
        x = xp.clip(x, -4.0, 4.0, out=x if scratch and _is_array(xp, x) else None)
        x2 = x * x
        p = x2 * _ERF32_P[0]  # Horner's scheme; the first step without a filled array
        p += _ERF32_P[1]
        for c in _ERF32_P[2:]:
            p *= x2
            p += c
        q = x2 * _ERF32_Q[0]
        q += _ERF32_Q[1]
        for c in _ERF32_Q[2:]:
            q *= x2
            q += c
        p *= x
        p /= q
        return p
    erfc = _erfc_abs(xp, xp.abs(x))
    big = xp.where(x >= 0, 1.0 - erfc, erfc - 1.0)
    # 1 - erfc(|x|) cancels for small |x| (erf(-0) came out 1e-16, erf(1e-300) 0): there the
    # Maclaurin series 2 / sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)), 17 terms at |x| < 0.5
    small = xp.abs(x) < 0.5
    if not small.any():
        return big
    xs = xp.where(small, x, 0.0)
    x2, term, series = xs * xs, 1.0, 1.0
    for n in range(1, 18):
        term = term * -x2 / n
        series = series + term / (2 * n + 1)
    return xp.where(small, xs * (series * (2.0 / math.sqrt(math.pi))), big)  # x * ...: -0 stays


def _is_array(xp, x):
    """Whether x is an array with dimensions (`out=` refuses NumPy's 0-dim scalars)."""
    return isinstance(x, xp.ndarray) and x.ndim > 0


def _erfc(xp, x):
    """erfc without the cancellation of 1 - erf for large x."""
    z = _erfc_abs(xp, xp.abs(x.astype("float64")))
    return xp.where(x >= 0, z, 2.0 - z).astype(x.dtype)


def _libm(name, x):
    """math.erf or math.erfc (the C library's, within an ulp of the exact value) over a NumPy
    float64 array: a numba ufunc where numba is installed, else one Python call per element."""
    k = _fused.kernels()
    ufunc = getattr(k.ufunc, name) if k else None
    if ufunc is None:
        ufunc = np.frompyfunc(getattr(math, name), 1, 1)
        return ufunc(x).astype(x.dtype) if x.ndim else np.float64(ufunc(x))
    return ufunc(x)


def _erf64(xp, x):
    """float64 erf: the C library's on NumPy arrays (torch's MKL erf is within an ulp of the
    exact value; the Chebyshev series of _erfc_abs was up to 4 ulps off), _erf's series on
    other array modules."""
    return _libm("erf", x) if xp is np else _erf(xp, x)


def _erfc64(xp, x):
    """float64 erfc as _erf64: the series was up to 16 ulps off in [-3, 3] (erfc(0) came out
    1 - ulp; fuzzer seed 350057595, then acosh: NaN where torch's acosh(1) is 0) and up to
    984 ulps in the tail."""
    return _libm("erfc", x) if xp is np else _erfc(xp, x)


def _erfinv(xp, y):
    """erfinv as torch's calc_erfinv: a rational first guess (central below |y| 0.7, in
    z = sqrt(-log((1 - |y|) / 2)) above, accurate in the tail), then two Newton steps on erf,
    in float64."""
    y64 = y.astype("float64")
    ay = xp.abs(y64)
    with _quiet(xp):
        z = y64 * y64
        num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899
        dem = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0
        central = y64 * num / dem
        t = xp.sqrt(-xp.log((1.0 - xp.minimum(ay, 1.0)) / 2.0))
        num = ((1.641345311 * t + 3.429567803) * t - 1.624906493) * t - 1.970840454
        dem = (1.637067800 * t + 3.543889200) * t + 1.0
        tail = xp.copysign(num, y64) / dem
        finite = ay < 1
        x = xp.where(ay <= 0.7, central, xp.where(finite, tail, 0.0))
        for _ in range(2):
            err = _erf64(xp, x) - y64
            x = x - err / (2 / math.sqrt(math.pi) * xp.exp(-x * x))
    x = xp.where(ay == 1, xp.copysign(xp.inf, y64), x)
    x = xp.where((ay > 1) | xp.isnan(y64), xp.nan, x)
    return x.astype(y.dtype)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


class Erf(Op):
    saves_inputs = True

    def forward(self, x):
        return _vml.unary("erf", _float(x), self._otherwise)

    def _otherwise(self, x):
        """erf without MKL's VML: float64's C library erf (within an ulp of torch's MKL's),
        float32's rounded once from it (the rational fit here is not)."""
        if x.dtype.itemsize <= 4:
            return _erf64(self.xp, x.astype("float64")).astype(x.dtype)
        return _erf64(self.xp, x)

    def backward(self, grad):
        (x,) = self.inputs
        return _TWO_OVER_SQRT_PI * (-x.pow(2)).exp() * grad  # torch's order of roundings

    jvp = Op.jvp_elementwise


class Erfc(Op):
    saves_inputs = True

    def forward(self, x):
        return _vml.unary("erfc", _float(x), self._otherwise)

    def _otherwise(self, x):
        """erfc without MKL's VML: the C library's in float64, rounded once."""
        return _erfc64(self.xp, x.astype("float64")).astype(x.dtype, copy=False)

    def backward(self, grad):
        (x,) = self.inputs
        return -_TWO_OVER_SQRT_PI * (-x.pow(2)).exp() * grad  # torch's order of roundings

    jvp = Op.jvp_elementwise


class Erfinv(Op):
    saves_output = True

    def forward(self, x):
        return _vml.unary("erfinv", _float(x), lambda x: _erfinv(self.xp, x))

    def backward(self, grad):
        y = self.output  # (torch's self.erfinv(): the same values)
        return 0.5 * math.sqrt(math.pi) * y.pow(2).exp() * grad  # torch's order of roundings

    jvp = Op.jvp_elementwise


def erf(input):
    """Error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.erf(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8427])
    """
    return Erf.apply(input)


def erfc(input):
    """Complementary error function 1 - erf(x), accurate for large x.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.erfc(framework.tensor([0.0, 1.0]))
        tensor([1.0000, 0.1573])
    """
    return Erfc.apply(input)


def erfinv(input):
    """Inverse error function on (-1, 1) (+-inf at +-1, NaN outside).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.erfinv(framework.tensor([0.0, 0.5]))
        tensor([0.0000, 0.4769])
    """
    return Erfinv.apply(input)


def _unary(name, forward, derivative, uses_output=False, doc=""):
    """A float unary op whose derivative is a Tensor expression of x (or of the output)."""

    def fwd(self, x):
        return forward(self.xp, _float(x))

    def bwd(self, grad):
        v = self.output if uses_output else self.inputs[0]
        return grad * derivative(v)

    return type(
        name,
        (Op,),
        {
            "saves_inputs": not uses_output,
            "saves_output": uses_output,
            "forward": fwd,
            "backward": bwd,
            "jvp": Op.jvp_elementwise,
            "__module__": __name__,
            "__doc__": doc or f"{name}: a float unary op.",
        },
    )


Tan = _unary("Tan", lambda xp, x: _vml.unary("tan", x, xp.tan), lambda y: 1 + y.pow(2), True)
Sinh = _unary("Sinh", lambda xp, x: _vml.sleef_vec("sinh", x, xp.sinh), lambda x: x.cosh())
Cosh = _unary("Cosh", lambda xp, x: _vml.sleef_vec("cosh", x, xp.cosh), lambda x: x.sinh())
# torch's (-x * x + 1).rsqrt(), not 1 - x * x (the same values): on a bool x that requires
# grad (after x.eq_(y)) torch's backward refuses the negation, not a subtraction (seed 460069856)
Asin = _unary(
    "Asin", lambda xp, x: _vml.unary("asin", x, xp.arcsin), lambda x: (-x * x + 1).rsqrt()
)
Acos = _unary(
    "Acos", lambda xp, x: _vml.unary("acos", x, xp.arccos), lambda x: -(-x * x + 1).rsqrt()
)


class Atan(Op):
    """atan: a float unary op."""

    saves_inputs = True

    def forward(self, x):
        return _vml.unary("atan", _float(x), self.xp.arctan)

    def backward(self, grad):
        (x,) = self.inputs
        return grad / (x * x + 1)  # torch's grad / (self * self + 1): DivBackward0

    jvp = Op.jvp_elementwise


Asinh = _unary("Asinh", lambda xp, x: xp.arcsinh(x), lambda x: (x * x + 1).rsqrt())
Acosh = _unary("Acosh", lambda xp, x: xp.arccosh(x), lambda x: (x * x - 1).rsqrt())


class Log10(Op):
    """log10: a float unary op."""

    saves_inputs = True
    ln = 2.3025850929940456  # derivatives.yaml's literal: 1 ulp below the double nearest ln 10

    def forward(self, x):
        return _vml.unary("log10", _float(x), self.xp.log10)

    def backward(self, grad):
        (x,) = self.inputs
        return grad / MulScalar.apply(x, other=self.ln)  # torch: grad / (x * ln 10)

    jvp = Op.jvp_elementwise


class Log2(Log10):
    """log2: a float unary op."""

    ln = math.log(2)

    def forward(self, x):
        return _vml.unary("log2", _float(x), self.xp.log2)


class Exp2(Op):
    """exp2: a float unary op."""

    saves_output = True

    def forward(self, x):
        return _vml.sleef_vec("exp2", _float(x), self.xp.exp2)

    def backward(self, grad):
        return MulScalar.apply(grad * self.output, other=math.log(2))  # torch: grad * y * ln 2

    jvp = Op.jvp_elementwise


class Atanh(Op):
    """atanh: a float unary op."""

    saves_inputs = True

    def forward(self, x):
        """torch's values: `_sleef_atanh`'s replay for NumPy float32/float64 arrays."""
        x = _float(x)
        if type(x) is np.ndarray and x.dtype in (np.float32, np.float64):
            from . import _sleef_atanh

            return _sleef_atanh.atanh(x)
        return self.xp.arctanh(x)

    def backward(self, grad):
        (x,) = self.inputs
        if grad.requires_grad:  # torch's grad * 1 / (1 - x**2): a node only with a graph
            grad = MulScalar.apply(grad, other=1)
        return grad / (1 - x.pow(2))

    jvp = Op.jvp_elementwise


def tan(input):
    """Tangent, elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.tan(framework.tensor([0.0, 0.7854]))
        tensor([0.0000, 1.0000])
    """
    return Tan.apply(input)


def sinh(input):
    """Hyperbolic sine, elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.sinh(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 1.1752])
    """
    return Sinh.apply(input)


def cosh(input):
    """Hyperbolic cosine, elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.cosh(framework.tensor([0.0, 1.0]))
        tensor([1.0000, 1.5431])
    """
    return Cosh.apply(input)


def asin(input):
    """Inverse sine (NaN outside [-1, 1]).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.arcsin(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 1.5708])
    """
    return Asin.apply(input)


def acos(input):
    """Inverse cosine (NaN outside [-1, 1]).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.acos(framework.tensor([1.0, 0.0, -1.0]))
        tensor([0.0000, 1.5708, 3.1416])
    """
    return Acos.apply(input)


def atan(input):
    """Inverse tangent, elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.arctan(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 0.7854])
    """
    return Atan.apply(input)


def asinh(input):
    """Inverse hyperbolic sine, elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.arcsinh(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8814])
    """
    return Asinh.apply(input)


def acosh(input):
    """Inverse hyperbolic cosine (NaN below 1).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.acosh(framework.tensor([1.0, 2.0]))
        tensor([0.0000, 1.3170])
    """
    return Acosh.apply(input)


def atanh(input):
    """Inverse hyperbolic tangent (NaN outside [-1, 1]).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.arctanh(framework.tensor([0.0, 0.5]))
        tensor([0.0000, 0.5493])
    """
    return Atanh.apply(input)


def log2(input):
    """Base-2 logarithm, elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.log2(framework.tensor([1.0, 8.0]))
        tensor([0., 3.])
    """
    return Log2.apply(input)


def log10(input):
    """Base-10 logarithm, elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.log10(framework.tensor([1.0, 100.0]))
        tensor([0., 2.])
    """
    return Log10.apply(input)


def exp2(input):
    """2 ** input, elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.exp2(framework.tensor([0.0, 3.0]))
        tensor([1., 8.])
    """
    return Exp2.apply(input)


arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh

__all__ = [
    "erf",
    "erfc",
    "erfinv",
    "tan",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "log2",
    "log10",
    "exp2",
    "arcsin",
    "arccos",
    "arctan",
    "arcsinh",
    "arccosh",
    "arctanh",
]
