"""torch.special: the special functions under torch's names (most are aliases of top-level ops;
ndtr/ndtri/log_ndtr, i0e/i1/i1e, entr, zeta and erfcx have their own nodes, as in torch; the
Bessel/Airy functions and the orthogonal polynomials record none: torch's outputs never
require grad; gammainc/gammaincc are igamma/igammac)."""

import math

from .autograd.op import Op
from .ops import gamma as _g
from .ops import gamma_special as _gs
from .ops import special as _sp
from .ops.pointwise import xlog1py
from .ops.unary import _float

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
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


class _SubScalar(_AddScalar):
    """tensor - number through torch's sub.Scalar overload (SubBackward1)."""

    node_name = "SubBackward1"

    def forward(self, a, other):
        """a - other in a's dtype."""
        return (a - other).astype(a.dtype, copy=False)


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


def bessel_j0(input):
    """The Bessel function of the first kind of order 0, J0(x). Records no graph (torch's output
    never requires grad).

    Example:
        >>> framework.special.bessel_j0(framework.tensor([0.0, 1.0]))
        tensor([1.0000, 0.7652])
    """
    return _gs.unary("bessel_j0", input, "input")


def bessel_j1(input):
    """The Bessel function of the first kind of order 1, J1(x). Records no graph (torch's output
    never requires grad).

    Example:
        >>> framework.special.bessel_j1(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 0.4401])
    """
    return _gs.unary("bessel_j1", input, "input")


def bessel_y0(input):
    """The Bessel function of the second kind of order 0, Y0(x) (-inf at 0, NaN below). Records no
    graph (torch's output never requires grad).

    Example:
        >>> framework.special.bessel_y0(framework.tensor([1.0, 2.0]))
        tensor([0.0883, 0.5104])
    """
    return _gs.unary("bessel_y0", input, "input")


def bessel_y1(input):
    """The Bessel function of the second kind of order 1, Y1(x) (-inf at 0, NaN below). Records no
    graph (torch's output never requires grad).

    Example:
        >>> framework.special.bessel_y1(framework.tensor([1.0, 2.0]))
        tensor([-0.7812, -0.1070])
    """
    return _gs.unary("bessel_y1", input, "input")


def modified_bessel_i0(input):
    """The modified Bessel function of the first kind of order 0, I0(x). Records no graph (torch's
    output never requires grad).

    Example:
        >>> framework.special.modified_bessel_i0(framework.tensor([0.0, 1.0]))
        tensor([1.0000, 1.2661])
    """
    return _gs.unary("modified_bessel_i0", input, "input")


def modified_bessel_i1(input):
    """The modified Bessel function of the first kind of order 1, I1(x). Records no graph (torch's
    output never requires grad).

    Example:
        >>> framework.special.modified_bessel_i1(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 0.5652])
    """
    return _gs.unary("modified_bessel_i1", input, "input")


def modified_bessel_k0(input):
    """The modified Bessel function of the second kind of order 0, K0(x) (inf at 0, NaN below).
    Records no graph (torch's output never requires grad).

    Example:
        >>> framework.special.modified_bessel_k0(framework.tensor([1.0, 2.0]))
        tensor([0.4210, 0.1139])
    """
    return _gs.unary("modified_bessel_k0", input, "input")


def modified_bessel_k1(input):
    """The modified Bessel function of the second kind of order 1, K1(x) (inf at 0, NaN below).
    Records no graph (torch's output never requires grad).

    Example:
        >>> framework.special.modified_bessel_k1(framework.tensor([1.0, 2.0]))
        tensor([0.6019, 0.1399])
    """
    return _gs.unary("modified_bessel_k1", input, "input")


def scaled_modified_bessel_k0(x):
    """exp(x) K0(x), the exponentially scaled modified Bessel function of order 0. Records no graph
    (torch's output never requires grad).

    Example:
        >>> framework.special.scaled_modified_bessel_k0(framework.tensor([1.0, 2.0]))
        tensor([1.1445, 0.8416])
    """
    return _gs.unary("scaled_modified_bessel_k0", x, "x")


def scaled_modified_bessel_k1(x):
    """exp(x) K1(x), the exponentially scaled modified Bessel function of order 1. Records no graph
    (torch's output never requires grad).

    Example:
        >>> framework.special.scaled_modified_bessel_k1(framework.tensor([1.0, 2.0]))
        tensor([1.6362, 1.0335])
    """
    return _gs.unary("scaled_modified_bessel_k1", x, "x")


def spherical_bessel_j0(x):
    """The spherical Bessel function of the first kind of order 0, sin(x) / x. Records no graph
    (torch's output never requires grad).

    Example:
        >>> framework.special.spherical_bessel_j0(framework.tensor([0.0, 1.0]))
        tensor([1.0000, 0.8415])
    """
    return _gs.unary("spherical_bessel_j0", x, "x")


def airy_ai(x):
    """The Airy function Ai(x). Records no graph (torch's output never requires grad).

    Example:
        >>> framework.special.airy_ai(framework.tensor([0.0, 1.0]))
        tensor([0.3550, 0.1353])
    """
    return _gs.unary("airy_ai", x, "x")


def chebyshev_polynomial_t(x, n):
    """The Chebyshev polynomial of the first kind T_n(x), elementwise; x or n may be a number, n is
    cast to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.chebyshev_polynomial_t(framework.tensor([0.5]), 2)
        tensor([-0.5000])
    """
    return _gs.polynomial("chebyshev_polynomial_t", x, n)


def chebyshev_polynomial_u(x, n):
    """The Chebyshev polynomial of the second kind U_n(x), elementwise; x or n may be a number, n
    is cast to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.chebyshev_polynomial_u(framework.tensor([0.5]), 2)
        tensor([0.])
    """
    return _gs.polynomial("chebyshev_polynomial_u", x, n)


def chebyshev_polynomial_v(x, n):
    """The Chebyshev polynomial of the third kind V_n(x), elementwise; x or n may be a number, n is
    cast to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.chebyshev_polynomial_v(framework.tensor([0.5]), 2)
        tensor([-1.])
    """
    return _gs.polynomial("chebyshev_polynomial_v", x, n)


def chebyshev_polynomial_w(x, n):
    """The Chebyshev polynomial of the fourth kind W_n(x), elementwise; x or n may be a number, n
    is cast to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.chebyshev_polynomial_w(framework.tensor([0.5]), 2)
        tensor([1.])
    """
    return _gs.polynomial("chebyshev_polynomial_w", x, n)


def shifted_chebyshev_polynomial_t(x, n):
    """The shifted Chebyshev polynomial of the first kind T_n(2x - 1), elementwise; x or n may be a
    number, n is cast to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.shifted_chebyshev_polynomial_t(framework.tensor([0.5]), 2)
        tensor([-1.])
    """
    return _gs.polynomial("shifted_chebyshev_polynomial_t", x, n)


def shifted_chebyshev_polynomial_u(x, n):
    """The shifted Chebyshev polynomial of the second kind U_n(2x - 1), elementwise; x or n may be
    a number, n is cast to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.shifted_chebyshev_polynomial_u(framework.tensor([0.5]), 2)
        tensor([-1.])
    """
    return _gs.polynomial("shifted_chebyshev_polynomial_u", x, n)


def shifted_chebyshev_polynomial_v(x, n):
    """The shifted Chebyshev polynomial of the third kind V_n(2x - 1), elementwise; x or n may be a
    number, n is cast to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.shifted_chebyshev_polynomial_v(framework.tensor([0.5]), 2)
        tensor([-1.])
    """
    return _gs.polynomial("shifted_chebyshev_polynomial_v", x, n)


def shifted_chebyshev_polynomial_w(x, n):
    """The shifted Chebyshev polynomial of the fourth kind W_n(2x - 1), elementwise; x or n may be
    a number, n is cast to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.shifted_chebyshev_polynomial_w(framework.tensor([0.5]), 2)
        tensor([-1.])
    """
    return _gs.polynomial("shifted_chebyshev_polynomial_w", x, n)


def hermite_polynomial_h(x, n):
    """The physicists' Hermite polynomial H_n(x), elementwise; x or n may be a number, n is cast to
    an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.hermite_polynomial_h(framework.tensor([0.5]), 2)
        tensor([-1.])
    """
    return _gs.polynomial("hermite_polynomial_h", x, n)


def hermite_polynomial_he(x, n):
    """The probabilists' Hermite polynomial He_n(x), elementwise; x or n may be a number, n is cast
    to an integer per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.hermite_polynomial_he(framework.tensor([0.5]), 2)
        tensor([-0.7500])
    """
    return _gs.polynomial("hermite_polynomial_he", x, n)


def laguerre_polynomial_l(x, n):
    """The Laguerre polynomial L_n(x), elementwise; x or n may be a number, n is cast to an integer
    per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.laguerre_polynomial_l(framework.tensor([0.5]), 2)
        tensor([0.1250])
    """
    return _gs.polynomial("laguerre_polynomial_l", x, n)


def legendre_polynomial_p(x, n):
    """The Legendre polynomial P_n(x), elementwise; x or n may be a number, n is cast to an integer
    per element (n < 0
    gives 0). Records no graph.

    Example:
        >>> framework.special.legendre_polynomial_p(framework.tensor([0.5]), 2)
        tensor([-0.1250])
    """
    return _gs.polynomial("legendre_polynomial_p", x, n)


def erfcx(input):
    """The scaled complementary error function exp(x^2) erfc(x), accurate where erfc
    underflows.

    Example:
        >>> framework.special.erfcx(framework.tensor([0.0, 1.0]))
        tensor([1.0000, 0.4276])
    """
    return _gs.unary("erfcx", input)


def gammainc(input, other):
    """The regularized lower incomplete gamma function P(input, other) (alias of
    framework.igamma); differentiable in `other` only.

    Example:
        >>> framework.special.gammainc(framework.tensor([1.0]), framework.tensor([1.0]))
        tensor([0.6321])
    """
    return _gs.incomplete_gamma("igamma", "special_gammainc", input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma function Q(input, other) (alias of
    framework.igammac); differentiable in `other` only.

    Example:
        >>> framework.special.gammaincc(framework.tensor([1.0]), framework.tensor([1.0]))
        tensor([0.3679])
    """
    return _gs.incomplete_gamma("igammac", "special_gammaincc", input, other)
