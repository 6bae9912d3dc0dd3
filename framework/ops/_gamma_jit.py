"""numba loops for ``_gamma_exact``: torch's scalar calc_digamma and trigamma (ATen's
Math.h) element by element, float32 in float arithmetic and float64 in double, the
multiply-adds torch's AVX2 build contracts fused (``fma``) and nowhere else. ``math.log``,
``math.sin`` and ``math.tan`` lower to the C library's ``logf``/``log``, ``sinf``/``sin`` and
``tan``: glibc's, as torch's ``std::log``. Imported only where numba is (see
``_gamma_exact``); ``c`` holds the constants in the input's dtype (``_gamma_exact._consts``).
"""

import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from .._numba_fma import fma

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}


def like(v, ref):
    """v rounded to ref's float type (compiled: a cast; float32 or float64)."""
    return type(ref)(v)


@overload(like)
def _like(v, ref):
    """The compiled ``like``: one cast, chosen by ref's type when the caller compiles."""
    if ref == types.float32:
        return lambda v, ref: np.float32(v)
    return lambda v, ref: np.float64(v)


@njit(**_OPTS)
def digamma(x, c):
    """calc_digamma of one element; c = (0, 1, 10, PSI_10, 0.5, 1e17, A0..A6)."""
    zero, one = c[0], c[1]
    if x == zero:
        return like(-math.copysign(math.inf, x), x)
    refl = zero
    if x < zero:
        xd = np.float64(x)
        if xd == np.trunc(xd):  # (math.trunc is an int64 in numba: -1e30 overflowed)
            return like(math.nan, x)
        r = xd - np.trunc(xd)  # std::modf's fractional part
        refl = like(math.pi / math.tan(math.pi * r), x)
        x = one - x
    result = zero
    while x < c[2]:
        result -= one / x
        x += one
    if x == c[2]:
        out = result + c[3]
    else:
        y = zero
        if x < c[5]:
            z = one / (x * x)
            p = c[6]
            for i in range(7, 13):
                p = fma(p, z, c[i])
            y = z * p
        out = result + math.log(x) - c[4] / x - y
    return out - refl


@njit(**_OPTS)
def trigamma(x, c):
    """torch's trigamma of one element; c = (1, 0.5, pi, pi * pi, 1/6, 1/30, 1/42, 2)."""
    one = c[0]
    sign = one
    result = one - one
    if x < c[1]:
        sign = -one
        s = math.sin(c[2] * x)
        result -= c[3] / (s * s)
        x = one - x
    for _ in range(6):
        result += one / (x * x)
        x += one
    ixx = one / (x * x)
    series = fma(ixx, fma(-ixx, fma(-ixx, c[6], c[5]), c[4]), one + one / (c[7] * x))
    result += series / x
    return sign * result


@njit(**_OPTS)
def digamma_array(x, out, c):
    """digamma of each element of the flat x into out."""
    for i in range(x.size):
        out[i] = digamma(x[i], c)


@njit(**_OPTS)
def trigamma_array(x, out, c):
    """trigamma of each element of the flat x into out."""
    for i in range(x.size):
        out[i] = trigamma(x[i], c)


@njit(**_OPTS)
def zeta(x, q, a_coef, f32):
    """ATen's zeta(x, q) of one pair, in double (its first term powf of the float operands
    where f32: torch's std::pow(float, float)); a_coef: the Euler-Maclaurin divisors."""
    machep = 1.11022302462515654042e-16
    if x == 1.0:
        return math.inf
    if x < 1.0:
        return math.nan
    if q <= 0.0:
        if q == np.floor(q):  # (np: math.floor is an int64 in numba)
            return math.inf
        if x != np.floor(x):
            return math.nan
    if f32:
        s = np.float64(math.pow(np.float32(q), np.float32(-x)))
    else:
        s = math.pow(q, -x)
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = math.pow(a, -x)
        s += b
        if -machep * s < b and b < machep * s:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for j in range(12):
        a *= x + k
        b /= w
        t = a * b / a_coef[j]
        s = s + t
        if abs(t / s) < machep:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


@njit(**_OPTS)
def zeta_array(x, q, out, a_coef, f32):
    """zeta of each pair of the flat, equally long x and q (float64) into out."""
    for i in range(q.size):
        out[i] = zeta(x[i], q[i], a_coef, f32)


@njit(**_OPTS)
def log_array(x, out):
    """The C library's log (logf for float32) of each element of the flat x into out."""
    for i in range(x.size):
        out[i] = math.log(x[i])
