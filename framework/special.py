"""torch.special: the special functions under torch's names (most are aliases of top-level ops;
ndtr/ndtri/log_ndtr, i0e/i1/i1e, entr and zeta have their own nodes, as in torch)."""

import math

from .autograd.op import Op
from .ops import gamma as _g
from .ops import special as _sp
from .ops.pointwise import xlog1py
from .ops.unary import _float

__all__ = [
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammaln",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "sinc",
    "softmax",
    "xlogy",
    "xlog1py",
    "zeta",
]


def _top(name):
    import framework

    return getattr(framework, name)


def gammaln(input):
    """log|Gamma(x)| (alias of framework.lgamma).

    Example:
        >>> framework.special.gammaln(framework.tensor([3.0]))
        tensor([0.6931])
    """
    return _g.lgamma(input)


def digamma(input):
    """psi(x), the derivative of lgamma (alias of framework.digamma).

    Example:
        >>> framework.special.digamma(framework.tensor([1.0]))
        tensor([-0.5772])
    """
    return _g.digamma(input)


psi = digamma


def polygamma(n, input):
    """The n-th derivative of digamma (alias of framework.polygamma).

    Example:
        >>> framework.special.polygamma(1, framework.tensor([1.0]))
        tensor([1.6449])
    """
    return _g.polygamma(n, input)


def multigammaln(input, p):
    """The multivariate log-gamma (alias of framework.mvlgamma).

    Example:
        >>> framework.special.multigammaln(framework.tensor([2.5]), 2)
        tensor([0.8570])
    """
    return _g.mvlgamma(input, p)


def i0(input):
    """Modified Bessel function of the first kind, order 0 (alias of framework.i0).

    Example:
        >>> framework.special.i0(framework.tensor([1.0]))
        tensor([1.2661])
    """
    return _g.i0(input)


def i0e(input):
    """exp(-|x|) i0(x), elementwise.

    Example:
        >>> framework.special.i0e(framework.tensor([1.0]))
        tensor([0.4658])
    """
    return _g.special_i0e(input)


def i1(input):
    """Modified Bessel function of the first kind, order 1.

    Example:
        >>> framework.special.i1(framework.tensor([1.0]))
        tensor([0.5652])
    """
    return _g.special_i1(input)


def i1e(input):
    """exp(-|x|) i1(x), elementwise.

    Example:
        >>> framework.special.i1e(framework.tensor([1.0]))
        tensor([0.2079])
    """
    return _g.special_i1e(input)


def entr(input):
    """Elementwise entropy -x log x (0 at 0, -inf for x < 0).

    Example:
        >>> framework.special.entr(framework.tensor([0.5]))
        tensor([0.3466])
    """
    return _g.special_entr(input)


def zeta(input, other):
    """The Hurwitz zeta function sum_k (k + other) ** -input.

    Example:
        >>> framework.special.zeta(framework.tensor([2.0]), framework.tensor([1.0]))
        tensor([1.6449])
    """
    return _g.special_zeta(input, other)


def log_ndtr(input):
    """log of the standard normal CDF (accurate far in the lower tail).

    Example:
        >>> framework.special.log_ndtr(framework.tensor([0.0]))
        tensor([-0.6931])
    """
    return _g.special_log_ndtr(input)


class _AddScalar(Op):
    """tensor + number through torch's add.Scalar overload (AddBackward1)."""

    node_name = "AddBackward1"

    def forward(self, a, other):
        """a + other in a's dtype."""
        return (a + other).astype(a.dtype, copy=False)

    def backward(self, grad):
        """The gradient passes through unchanged."""
        return grad

    def jvp(self, t):
        """The tangent passes through unchanged."""
        return t


def ndtr(input):
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2, composed as torch's.

    Example:
        >>> framework.special.ndtr(framework.tensor([0.0]))
        tensor([0.5000])
    """
    from .ops.elementwise import MulScalar

    x = input if input.dtype.is_floating_point else input.to(_default())
    erf_ = _sp.erf(MulScalar.apply(x, other=math.sqrt(0.5)))
    return MulScalar.apply(_AddScalar.apply(erf_, other=1), other=0.5)


def _default():
    from . import dtypes

    return dtypes.get_default_dtype()


def _ndtri(xp, p):
    """x with ndtr(x) = p: sqrt 2 erfinv(2p - 1) refined by Newton steps on the lower tail
    (ndtr(x) = erfc(-x / sqrt 2) / 2, relative accuracy for small p); below p = 1e-5 the
    asymptotic start -sqrt(2 log(1/p) - log(4 pi log(1/p))) and Newton steps on log_ndtr."""
    from .ops._gamma_math import _quiet
    from .ops.gamma import _log_ndtr

    from .ops import _special_exact

    exact = _special_exact.ndtri(p)  # torch's bits (None without numba, or not NumPy's)
    if exact is not None:
        return exact
    p = xp.asarray(p, xp.float64)
    with _quiet(xp):
        q = xp.where(p > 0.5, 1 - p, p)  # the lower tail, by symmetry
        tiny = q < 1e-5
        lq = xp.log(xp.where(q > 0, q, 1e-300))
        start = -xp.sqrt(-2 * lq - xp.log(-4 * math.pi * xp.where(tiny, lq, -1.0)))
        x = xp.where(tiny, start, math.sqrt(2) * _sp._erfinv(xp, 2 * q - 1))
        ok = xp.isfinite(x)
        for _ in range(4):
            log_pdf = -0.5 * x * x - 0.5 * math.log(2 * math.pi)
            lcdf = _log_ndtr(xp, xp.where(ok, x, 0.0))
            # f = log cdf - log q; f' = pdf / cdf
            step_log = (lcdf - lq) * xp.exp(lcdf - log_pdf)
            cdf = _sp._erfc(xp, -x / math.sqrt(2)) / 2
            pdf = xp.exp(log_pdf)
            step_lin = (cdf - q) / xp.where(pdf > 0, pdf, 1.0)
            x = xp.where(ok, x - xp.where(tiny, step_log, step_lin), x)
        x = xp.where(p > 0.5, -x, x)
        x = xp.where(p == 0.5, 0.0, x)
        x = xp.where(p == 0, -xp.inf, xp.where(p == 1, xp.inf, x))
        return xp.where((p < 0) | (p > 1) | xp.isnan(p), xp.nan, x)


class _Ndtri(Op):
    node_name = "SpecialNdtriBackward0"
    no_bfloat16 = "ndtri_cpu"
    no_bfloat16_empty = True
    saves_output = True

    def forward(self, p):
        """The inverse of the standard normal CDF (torch's ndtri)."""
        p = _float(p)
        return _ndtri(self.xp, p).astype(p.dtype, copy=False)

    def backward(self, grad):
        """grad * sqrt(2 pi) * exp(y^2 / 2), y the saved output."""
        y = self.output
        return grad * math.sqrt(2 * math.pi) * (y * y / 2).exp()

    jvp = Op.jvp_elementwise


def ndtri(input):
    """The inverse of the standard normal CDF (the quantile function).

    Example:
        >>> framework.special.ndtri(framework.tensor([0.5]))
        tensor([0.])
    """
    return _Ndtri.apply(input)


def erf(input):
    """The error function (alias of framework.erf).

    Example:
        >>> framework.special.erf(framework.tensor([0.0]))
        tensor([0.])
    """
    return _sp.erf(input)


def erfc(input):
    """The complementary error function (alias of framework.erfc).

    Example:
        >>> framework.special.erfc(framework.tensor([0.0]))
        tensor([1.])
    """
    return _sp.erfc(input)


def erfinv(input):
    """The inverse error function (alias of framework.erfinv).

    Example:
        >>> framework.special.erfinv(framework.tensor([0.0]))
        tensor([0.])
    """
    return _sp.erfinv(input)


def expit(input):
    """The logistic sigmoid (alias of framework.sigmoid).

    Example:
        >>> framework.special.expit(framework.tensor([0.0]))
        tensor([0.5000])
    """
    return _top("sigmoid")(input)


def logit(input, eps=None):
    """log(p / (1 - p)) (alias of framework.logit).

    Example:
        >>> framework.special.logit(framework.tensor([0.5]))
        tensor([0.])
    """
    return _top("logit")(input, eps)


def xlogy(input, other):
    """x * log(y), 0 where x == 0 (alias of framework.xlogy).

    Example:
        >>> framework.special.xlogy(framework.tensor([2.0]), framework.tensor([1.0]))
        tensor([0.])
    """
    return _top("xlogy")(input, other)


def sinc(input):
    """sin(pi x) / (pi x) (alias of framework.sinc).

    Example:
        >>> framework.special.sinc(framework.tensor([0.0]))
        tensor([1.])
    """
    return _top("sinc")(input)


def exp2(input):
    """2 ** x (alias of framework.exp2).

    Example:
        >>> framework.special.exp2(framework.tensor([3.0]))
        tensor([8.])
    """
    return _top("exp2")(input)


def expm1(input):
    """exp(x) - 1 (alias of framework.expm1).

    Example:
        >>> framework.special.expm1(framework.tensor([0.0]))
        tensor([0.])
    """
    return _top("expm1")(input)


def log1p(input):
    """log(1 + x) (alias of framework.log1p).

    Example:
        >>> framework.special.log1p(framework.tensor([0.0]))
        tensor([0.])
    """
    return _top("log1p")(input)


def round(input, *, decimals=0):
    """Rounds half to even (alias of framework.round).

    Example:
        >>> framework.special.round(framework.tensor([2.5]))
        tensor([2.])
    """
    return _top("round")(input, decimals=decimals)


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input), dim)) (alias of framework.logsumexp).

    Example:
        >>> framework.special.logsumexp(framework.tensor([0.0, 0.0]), 0)
        tensor(0.6931)
    """
    return _top("logsumexp")(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    """Softmax along dim (alias of framework.softmax).

    Example:
        >>> framework.special.softmax(framework.tensor([0.0, 0.0]), 0)
        tensor([0.5000, 0.5000])
    """
    return _top("softmax")(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log(softmax(input)) along dim (alias of framework.log_softmax).

    Example:
        >>> framework.special.log_softmax(framework.tensor([0.0, 0.0]), 0)
        tensor([-0.6931, -0.6931])
    """
    return _top("log_softmax")(input, dim, dtype=dtype)
