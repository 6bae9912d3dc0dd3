"""lgamma's array kernel (NumPy/CuPy `xp`): libm's (fdlibm's e_lgamma_r) branch fits for
x > 0, in x86 long double where NumPy has it, and the reflection formula below 0."""

import math

from ._gamma_math import _quiet

# log|Gamma| for x > 0 as libm's (fdlibm's e_lgamma_r, which glibc and so torch's CPU kernel
# run): rational and polynomial fits on [0, 2] around the minimum and the zeros at 1 and 2,
# a recurrence from [2, 8), Stirling's series to 2^58 and x (log x - 1) beyond
_A_EVEN = (
    7.72156649015328655494e-02,
    6.73523010531292681824e-02,
    7.38555086081402883957e-03,
    1.19270763183362067845e-03,
    2.20862790713908385557e-04,
    2.52144565451257326939e-05,
)
_A_ODD = (
    3.22467033424113591611e-01,
    2.05808084325167332806e-02,
    2.89051383673415629091e-03,
    5.10069792153511336608e-04,
    1.08011567247583939954e-04,
    4.48640949618915160150e-05,
)
_T = (
    4.83836122723810047042e-01,
    -1.47587722994593911752e-01,
    6.46249402391333854778e-02,
    -3.27885410759859649565e-02,
    1.79706750811820387126e-02,
    -1.03142241298341437450e-02,
    6.10053870246291332635e-03,
    -3.68452016781138256760e-03,
    2.25964780900612472250e-03,
    -1.40346469989232843813e-03,
    8.81081882437654011382e-04,
    -5.38595305356740546715e-04,
    3.15632070903625950361e-04,
    -3.12754168375120860518e-04,
    3.35529192635519073543e-04,
)
_U = (
    -7.72156649015328655494e-02,
    6.32827064025093366517e-01,
    1.45492250137234768737e00,
    9.77717527963372745603e-01,
    2.28963728064692451092e-01,
    1.33810918536787660377e-02,
)
_V = (
    2.45597793713041134822e00,
    2.12848976379893395361e00,
    7.69285150456672783825e-01,
    1.04222645593369134254e-01,
    3.21709242282423911810e-03,
)
_S = (
    -7.72156649015328655494e-02,
    2.14982415960608852501e-01,
    3.25778796408930981787e-01,
    1.46350472652464452805e-01,
    2.66422703033638609560e-02,
    1.84028451407337715652e-03,
    3.19475326584100867617e-05,
)
_R = (
    1.39200533467621045958e00,
    7.21935547567138069525e-01,
    1.71933865632803078993e-01,
    1.86459191715652901344e-02,
    7.77942496381893596434e-04,
    7.32668430744625636189e-06,
)
_W = (
    4.18938533204672725052e-01,
    8.33333333333329678849e-02,
    -2.77777777728775536470e-03,
    7.93650558643019558500e-04,
    -5.95187557450339963135e-04,
    8.36339918996282139126e-04,
    -1.63092934096575273989e-03,
)
_TC = 1.46163214496836224576e00  # where Gamma is least on x > 0; _TF its log
_TF, _TT = -1.21486290535849611461e-01, -3.63867699703950536541e-18


_PI_EXT = "3.14159265358979323846264338327950288"  # pi to long double's precision


def _horner(y, cs):
    """cs[0] + y (cs[1] + y (...)), innermost first as libm's nesting."""
    out = cs[-1]
    for c in cs[-2::-1]:
        out = c + y * out
    return out


def _lgamma_positive(xp, x, extended):
    """log Gamma(x) for finite x > 0 (x at 1 and 2: exactly 0) by libm's fits, each branch on
    its own elements; `extended`: in x86's 80-bit long double (where NumPy has it), which
    rounded to double is torch's (nearly correctly rounded) lgamma for 99% of x where double
    evaluation gives 80% (a Stirling value at 1e30 an ulp off, which tan magnifies to 1)."""
    hw = x.view("int64") >> 32  # libm picks its branch by x's high word (thresholds as words)
    if extended and xp.__name__ == "numpy":
        x = x.astype(xp.longdouble)
    out = xp.zeros_like(x)

    def part(mask, fn):
        """out[mask] = fn of the masked x and high words, when the mask selects any."""
        if bool(mask.any()):
            out[mask] = fn(x[mask], hw[mask])

    part((x > 0) & (x < 2) & (x != 1), _lgamma_below_2)
    part((x > 2) & (x < 8), _lgamma_2_to_8)
    part(x >= 8, _lgamma_stirling)
    return out


def _lgamma_below_2(x, hw):
    """(0, 0.9]: -log x plus a fit in y near 1, the minimum or 0; (0.9, 2): near 2, tc, 1."""
    xp = _xp_of(x)
    low = hw <= 0x3FECCCCC
    fit0 = xp.where(low, hw >= 0x3FE76944, hw >= 0x3FFBB4C3)
    fit1 = ~fit0 & xp.where(low, hw >= 0x3FCDA661, hw >= 0x3FF3B4C4)
    out = xp.zeros_like(x)
    m = fit0
    if bool(m.any()):
        y = xp.where(low[m], 1 - x[m], 2 - x[m])
        z = y * y
        out[m] = (y * _horner(z, _A_EVEN) + z * _horner(z, _A_ODD)) - 0.5 * y
    m = fit1
    if bool(m.any()):
        y = xp.where(low[m], x[m] - (_TC - 1), x[m] - _TC)
        z = y * y
        w = z * y
        p1, p2, p3 = (_horner(w, _T[i::3]) for i in range(3))
        out[m] = _TF + (z * p1 - (_TT - w * (p2 + y * p3)))
    m = ~fit0 & ~fit1
    if bool(m.any()):
        y = xp.where(low[m], x[m], x[m] - 1)
        out[m] = -0.5 * y + (y * _horner(y, _U)) / (1 + y * _horner(y, _V))
    return xp.where(low, -xp.log(x) + out, out)


def _lgamma_2_to_8(x, hw):
    """log Gamma(2 + y) by a rational fit, times (y + 2) ... (y + i - 1) through one log."""
    xp = _xp_of(x)
    i = xp.floor(x)
    y = x - i
    out = 0.5 * y + (y * _horner(y, _S)) / (1 + y * _horner(y, _R))
    prod = xp.ones_like(x)
    for k in range(6, 1, -1):  # libm's z *= (y + k) for k = i - 1 down to 2
        prod = xp.where(i > k, prod * (y + k), prod)
    return xp.where(i >= 3, out + xp.log(prod), out)


def _lgamma_stirling(x, hw):
    """Stirling's series below 2^58, x (log x - 1) from there."""
    xp = _xp_of(x)
    log = xp.log(x)
    zi = 1 / x
    out = (x - 0.5) * (log - 1) + (_W[0] + zi * _horner(zi * zi, _W[1:]))
    return xp.where(hw < 0x43900000, out, x * (log - 1))


def _xp_of(a):
    return __import__(type(a).__module__.split(".")[0])


def lgamma(xp, x, extended=True):
    """log|Gamma(x)| (inf at 0 and the negative integers): libm's algorithm for x > 0, the
    reflection formula below 0; `extended`: a float64 result to extended precision (float32
    needs only double)."""
    extended = extended and xp.asarray(x).dtype == xp.float64
    x = xp.asarray(x, dtype=xp.float64)
    with _quiet(xp):
        a = xp.abs(x)
        pos = _lgamma_positive(xp, xp.where((a > 0) & xp.isfinite(a), a, 1.0), extended)
        pos = xp.where(xp.isinf(x), xp.inf, pos)
        # |sin(pi x)| from x's distance to the nearest integer: exact zero at the integers, and
        # no cancellation near 0 (x - floor(x) rounds -1e-30 to 1: lgamma would lose 31); in
        # pos's precision (extended: the difference cancels near lgamma's zeros, below -2)
        neg = x < 0
        if bool(neg.any()):
            pi = xp.asarray(_PI_EXT if pos.dtype.itemsize > 8 else math.pi, dtype=pos.dtype)
            xe = x[neg].astype(pos.dtype)
            sin = xp.abs(xp.sin(pi * (xe - xp.round(xe))))
            pos[neg] = xp.log(pi / (sin * -xe)) - pos[neg]
        out = pos.astype("float64")
        out = xp.where((x < 0) & (x == xp.floor(x)), xp.inf, out)
        out = xp.where(x == 0, xp.inf, out)
        # below 2^-70, as libm: -log|x| (also keeps a subnormal x off pi * x's coarse grid)
        out = xp.where((x != 0) & (a < 2.0**-70), -xp.log(a), out)
        out = xp.where(xp.isnan(x), x, out)
    return out
