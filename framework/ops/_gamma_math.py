"""Array kernels of the gamma-family and Bessel special functions (NumPy/CuPy `xp`, float64).

Written after the algorithms of ATen's Math.h (Cephes-derived: digamma, trigamma, the Hurwitz
zeta, the Chebyshev series of i0e/i1e) so values agree with torch's to rounding; lgamma is in
`_lgamma.py`.
"""

import math

from . import _gamma_exact


def _exact_input(xp, x):
    """x as the float32/float64 NumPy array ``_gamma_exact`` replays (float16 widened to
    float32, torch's float compute type), or None (CuPy, other dtypes: the float64 code)."""
    if xp.__name__ != "numpy" or getattr(x, "dtype", None) is None:
        return None
    if x.dtype == xp.float16:
        x = x.astype(xp.float32)
    return x if _gamma_exact.applies(x) else None


def _quiet(xp):
    from .loss import _quiet as q

    return q(xp)


def digamma(xp, x):
    """torch's calc_digamma: reflection below 0, recurrence to x >= 10, asymptotic series
    (NumPy float32/float64: ``_gamma_exact``'s replay of torch's bits; half precision
    through float32, as torch's)."""
    exact = _exact_input(xp, x)
    if exact is not None:
        return _gamma_exact.digamma(exact)
    x = xp.asarray(x, dtype=xp.float64)
    with _quiet(xp):
        neg = x < 0
        r = x - xp.trunc(x)  # modf's fractional part
        refl = xp.where(neg, math.pi / xp.tan(math.pi * r), 0.0)
        y = xp.where(neg, 1 - x, x)
        res = xp.zeros_like(y)
        for _ in range(10):
            small = y < 10
            res = res - xp.where(small, 1 / xp.where(small, y, 1.0), 0.0)
            y = xp.where(small, y + 1, y)
        z = 1.0 / (y * y)
        poly = 0.0
        for c in _gamma_exact.DIGAMMA_ASYMPTOTIC:
            poly = poly * z + c
        asym = xp.log(y) - 0.5 / y - xp.where(y < 1e17, z * poly, 0.0)
        out = res + xp.where(y == 10, 2.25175258906672110764, asym) - refl
        out = xp.where(neg & (x == xp.trunc(x)), xp.nan, out)
        out = xp.where(x == 0, xp.copysign(xp.inf, -x), out)
    return out


def trigamma(xp, x, dtype=None):
    """torch's trigamma: reflection below 0.5, six recurrence steps, asymptotic series (in
    float32 arithmetic for float32 input, as torch's: its value at the poles is finite)."""
    exact = _exact_input(xp, x)
    if exact is not None:
        return _gamma_exact.trigamma(exact)
    dt = xp.float32 if dtype is not None and dtype == xp.float32 else xp.float64
    x = xp.asarray(x, dtype=dt)
    with _quiet(xp):
        refl = x < 0.5
        pi = dt(math.pi)
        sin = xp.sin(pi * x)
        res = xp.where(refl, -(pi * pi) / (sin * sin), dt(0)).astype(dt)
        y = xp.where(refl, 1 - x, x)
        for _ in range(6):
            res = res + 1 / (y * y)
            y = y + 1
        ixx = 1 / (y * y)
        res = res + (1 + 1 / (2 * y) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / y
        return xp.where(refl, -res, res)


_ZETA_A = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)
_MACHEP = 1.11022302462515654042e-16


def zeta(xp, x, q):
    """The Hurwitz zeta function sum_k (k + q) ** -x (Cephes' zeta as in ATen's Math.h: in
    double, but for float input its first term is std::pow(float, float), powf, which
    NumPy's float32 power is)."""
    f32 = getattr(q, "dtype", None) == xp.float32
    x, q = xp.broadcast_arrays(xp.asarray(x, xp.float64), xp.asarray(q, xp.float64))
    if xp.__name__ == "numpy":  # the C library's pow, as torch's (NumPy's may be SIMD)
        fast = _gamma_exact.zeta(x, q, _ZETA_A, f32)
        if fast is not None:
            return fast
        pow_ = _gamma_exact.libm_pow
    else:
        pow_ = xp.power
    with _quiet(xp):
        s = pow_(q, -x) if not f32 else pow_(q.astype(xp.float32), (-x).astype(xp.float32))
        s = s.astype(xp.float64)
        a = q.copy()
        b = xp.zeros_like(s)
        res = xp.full_like(s, xp.nan)
        fin = xp.zeros(s.shape, dtype=bool)
        pole = (q <= 0) & ((q == xp.floor(q)) | (x != xp.floor(x)))
        live = ~pole & (x > 1)  # torch returns before its loop for these
        i = 0
        while live.any() and i < 100000:  # the direct sum (while i < 9 or q + i <= 9)
            i += 1
            a = xp.where(live, a + 1, a)
            b = xp.where(live, pow_(xp.where(live, a, 1.0), -x), b)
            s = xp.where(live, s + b, s)
            done = live & (-_MACHEP * s < b) & (b < _MACHEP * s)
            res = xp.where(done, s, res)
            fin = fin | done
            live = live & ~done & ((i < 9) | (a <= 9.0))
        w = a
        s = s + b * w / (x - 1) - 0.5 * b
        aa = xp.ones_like(s)
        k = xp.zeros_like(s)
        live = ~fin
        for c in _ZETA_A:  # the Euler-Maclaurin tail
            aa = aa * (x + k)
            b = b / w
            t = aa * b / c
            s = xp.where(live, s + t, s)
            live = live & ~(xp.abs(t / s) < _MACHEP)
            k = k + 1
            aa = aa * (x + k)
            b = b / w
            k = k + 1
        out = xp.where(fin, res, s)
        out = xp.where((q <= 0) & (x != xp.floor(x)), xp.nan, out)
        out = xp.where((q <= 0) & (q == xp.floor(q)), xp.inf, out)
        out = xp.where(x < 1, xp.nan, out)
        return xp.where(x == 1, xp.inf, out)


def polygamma(xp, n, x, dtype=None):
    """The n-th derivative of digamma (torch's: digamma, trigamma, then -(-1)^n n! zeta, the
    factor and product in the input's precision as torch's kernel)."""
    if n == 0:
        return digamma(xp, x)
    if n == 1:
        return trigamma(xp, x, dtype)
    dt = xp.float32 if dtype is not None and dtype == xp.float32 else xp.float64
    with _quiet(xp):
        factor = dt(_gamma_exact.polygamma_factor(n, xp.dtype(dt)))
        return factor * zeta(xp, float(n + 1), x).astype(dt)


# Chebyshev coefficients (Cephes, as in ATen's Math.h) of exp(-x) I0(x) on [0, 8] and of
# exp(-x) sqrt(x) I0(x) on 1 / [8, inf); the same for I1 (x I1 on [0, 8]).
_I0E_A = (
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
)
_I0E_B = (
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)
_I1E_A = (
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
)
_I1E_B = (
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)


def _chbevl(xp, y, coef):
    b0, b1, b2 = xp.full_like(y, coef[0]), xp.zeros_like(y), xp.zeros_like(y)
    for c in coef[1:]:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _bessel_e(xp, x, a, b):
    """exp(-|x|) I(|x|) from the two Chebyshev series (A below 8, B above)."""
    ax = xp.abs(xp.asarray(x, xp.float64))
    with _quiet(xp):
        low = _chbevl(xp, ax / 2.0 - 2.0, a)
        big = xp.where(ax <= 8, 8.0, ax)  # (NaN stays NaN)
        high = _chbevl(xp, 32.0 / big - 2.0, b) / xp.sqrt(big)
    return ax, low, high


def _chbevl32(y, coef):
    """torch's float chbevl on float32 NumPy arrays: b0 = x * b1 - b2 + c, its x * b1 - b2
    contracted to one FMA as in its AVX2 build, coefficients rounded to float."""
    from .._fma import fma32

    f32 = y.dtype.type
    b0, b1, b2 = y * 0 + f32(coef[0]), y * 0, y * 0
    for c in coef[1:]:
        b2, b1 = b1, b0
        b0 = fma32(y, b1, -b2) + f32(c)
    return f32(0.5) * (b0 - b2)


def _bessel_float32(x, a, b, odd, scaled):
    """torch's calc_i0 / calc_i0e / calc_i1 / calc_i1e for float (scalar, in float
    arithmetic; exp rounded from float64 as glibc's expf): i0(0) is 1 ulp below 1 there, and
    exp(|x|) overflows past 88.7 even where I(x) itself would not."""
    import numpy as np

    f32 = np.float32
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        low = _chbevl32(ax / f32(2) - f32(2), a)
        big = np.where(ax <= 8, f32(8), ax)
        high = _chbevl32(f32(32) / big - f32(2), b)
        if scaled:
            low = low * ax if odd else low
        else:
            e = np.exp(ax.astype(np.float64)).astype(f32)
            low = (e * ax if odd else e) * low
            high = np.exp(big.astype(np.float64)).astype(f32) * high
        out = np.where(ax <= 8, low, high / np.sqrt(big))
        return np.where(x < 0, -out, out) if odd else out


def _bessel_exact(kind, xp, x):
    """torch's bits by ``_special_exact`` (NumPy float32/float64 with numba), or None (half
    precision keeps the float64 code: torch's Half loops are not replayed)."""
    from . import _special_exact

    return _special_exact.bessel(kind, x) if xp.__name__ == "numpy" else None


def _is_numpy_float32(xp, x):
    return getattr(x, "dtype", None) == "float32" and xp.__name__ == "numpy"


def i0e(xp, x):
    """exp(-|x|) I0(x)."""
    exact = _bessel_exact(1, xp, x)
    if exact is not None:
        return exact
    if _is_numpy_float32(xp, x):
        return _bessel_float32(x, _I0E_A, _I0E_B, False, True)
    ax, low, high = _bessel_e(xp, x, _I0E_A, _I0E_B)
    return xp.where(ax <= 8, low, high)


def i0(xp, x):
    """The modified Bessel function of the first kind, order 0."""
    exact = _bessel_exact(0, xp, x)
    if exact is not None:
        return exact
    if _is_numpy_float32(xp, x):
        return _bessel_float32(x, _I0E_A, _I0E_B, False, False)
    ax = xp.abs(xp.asarray(x, xp.float64))
    with _quiet(xp):
        return xp.exp(ax) * i0e(xp, x)


# torch's float tables for I1 (chebyshev_coefficients_i1e_A/B<float>, Cephes' i1f): the
# double tables' last 17 and 7 coefficients (the full ones moved float32 i1 by an ulp in a
# third of the values; seed 50021817's second derivative cancels that ulp to 5e-4)
_I1E_A32, _I1E_B32 = _I1E_A[-17:], _I1E_B[-7:]


def i1e(xp, x):
    """exp(-|x|) I1(x) (odd)."""
    exact = _bessel_exact(3, xp, x)
    if exact is not None:
        return exact
    if _is_numpy_float32(xp, x):
        return _bessel_float32(x, _I1E_A32, _I1E_B32, True, True)
    ax, low, high = _bessel_e(xp, x, _I1E_A, _I1E_B)
    out = xp.where(ax <= 8, low * ax, high)
    return xp.where(xp.asarray(x) < 0, -out, out)


def i1(xp, x):
    """The modified Bessel function of the first kind, order 1."""
    exact = _bessel_exact(2, xp, x)
    if exact is not None:
        return exact
    if _is_numpy_float32(xp, x):
        return _bessel_float32(x, _I1E_A32, _I1E_B32, True, False)
    ax = xp.abs(xp.asarray(x, xp.float64))
    with _quiet(xp):
        return xp.exp(ax) * i1e(xp, x)
