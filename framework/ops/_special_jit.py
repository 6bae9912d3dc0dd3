"""numba loops for ``_special_exact``: torch's scalar calc_ndtri and calc_i0 / calc_i0e /
calc_i1 / calc_i1e (ATen's Math.h) element by element, float32 in float arithmetic and
float64 in double, the multiply-adds torch's AVX2 build contracts fused (``fma``: polevl's
``r * x + A[i]``, chbevl's ``x * b1 - b2``, ndtri's ``y + y * q``) and nowhere else.
``math.exp``/``log``/``sqrt`` lower to the C library's (``expf``/``exp``, ...): glibc's, as
torch's ``std::`` calls. Each loop compiles on its first call, once per dtype (``cache=True``:
numba's disk cache where it is writable). Imported only where numba is (see
``_special_exact``).
"""

import math

import numpy as np
from numba import njit

from .._numba_fma import fma
from ._gamma_jit import like

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}


@njit(**_OPTS)
def _polevl(x, coef):
    """Math.h's polevl: Horner's rule from coef[0], each step one fused multiply-add."""
    r = coef[0]
    for i in range(1, coef.size):
        r = fma(r, x, coef[i])
    return r


@njit(**_OPTS)
def _ndtri(y0, c, p0, q0, p1, q1, p2, q2):
    """calc_ndtri of one element; c = (0, 1, 0.5, exp(-2), sqrt(2 pi), 8) in y0's type. The
    float overload's tail takes ``::log`` and ``::sqrt`` of double (C's), then rounds."""
    zero, one = c[0], c[1]
    if y0 == zero:
        return -np.inf * one
    if y0 == one:
        return np.inf * one
    if y0 < zero or y0 > one or y0 != y0:
        return np.nan * one
    code = True
    y = y0
    if y > one - c[3]:
        y = one - y
        code = False
    if y > c[3]:
        y = y - c[2]
        y2 = y * y
        q = y2 * _polevl(y2, p0) / _polevl(y2, q0)
        return fma(y, q, y) * c[4]
    yd = np.float64(y)
    x = like(math.sqrt(-2.0 * math.log(yd)), y)
    xd = np.float64(x)
    x0 = like(xd - math.log(xd) / xd, y)
    z = one / x
    if x < c[5]:
        x1 = z * _polevl(z, p1) / _polevl(z, q1)
    else:
        x1 = z * _polevl(z, p2) / _polevl(z, q2)
    x = x0 - x1
    return -x if code else x


@njit(**_OPTS)
def ndtri_array(x, out, c, p0, q0, p1, q1, p2, q2):
    """calc_ndtri of each element of the flat x into out."""
    for i in range(x.size):
        out[i] = _ndtri(x[i], c, p0, q0, p1, q1, p2, q2)


@njit(**_OPTS)
def _chbevl(x, coef):
    """Math.h's chbevl: b0 = x * b1 - b2 + c, its x * b1 - b2 one fused multiply-add; in the
    first step (b2 = 0) GCC drops the ``- 0`` and fuses x * b1 + c instead (measured: float
    i1/i1e 1 ulp apart in 20 of 10^6 elements without it)."""
    b1 = coef[0]
    b0 = fma(x, b1, coef[1])
    b2 = x - x
    for i in range(2, coef.size):
        b2 = b1
        b1 = b0
        b0 = fma(x, b1, -b2) + coef[i]
    return like(0.5, x) * (b0 - b2)


@njit(**_OPTS)
def bessel_array(x, out, a, b, kind):
    """calc_i0 (kind 0), calc_i0e (1), calc_i1 (2), calc_i1e (3) of each element of the flat x
    into out; a, b: the Chebyshev tables below and above 8, in x's type."""
    two, eight, big = like(2.0, x[0]), like(8.0, x[0]), like(32.0, x[0])
    for i in range(x.size):
        v = x[i]
        ax = abs(v)
        if ax <= eight:
            c = _chbevl(ax / two - two, a)
            if kind == 0:
                r = math.exp(ax) * c
            elif kind == 1:
                r = c
            elif kind == 2:
                r = math.exp(ax) * ax * c
            else:
                r = c * ax
        else:
            c = _chbevl(big / ax - two, b)
            if kind == 0 or kind == 2:
                r = math.exp(ax) * c / math.sqrt(ax)
            else:
                r = c / math.sqrt(ax)
        out[i] = -r if kind >= 2 and v < 0 else r
