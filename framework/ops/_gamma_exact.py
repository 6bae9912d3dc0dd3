"""torch's CPU digamma, trigamma and polygamma's factor bit for bit, for float32/float64
NumPy arrays.

torch's kernels call ATen's scalar ``calc_digamma`` and ``trigamma`` (Math.h) per element:
the float overloads compute in float (``logf``, ``sinf``; digamma's reflection term
``pi / tan(pi r)`` in double, then rounded to float), the double ones in double, and torch's
AVX2 build fuses the Horner steps (``polevl``'s ``result * x + A[i]``, trigamma's series)
into multiply-adds. This module replays that: numba loops (``_gamma_jit``) where numba is
installed, else the same operations in NumPy, the fused multiply-adds emulated exactly
(``framework._fma``) and the C library's ``logf``/``sinf``/``log``/``sin``/``tan``/``pow``
called per element (NumPy's own SIMD loops, on an AVX-512 CPU even in float64, are not
glibc's).
``polygamma(n >= 2)``'s factor ``(-1)^(n+1) exp(lgamma(n + 1))`` comes from the C library's
``lgamma``/``exp`` (``lgammaf``/``expf`` for float32), as torch's (Python's math.lgamma is
not glibc's).

Example:
    >>> import numpy as np
    >>> float(digamma(np.ones(1, np.float32))[0])
    -0.5772159099578857
"""

import ctypes
import ctypes.util
import math

import numpy as np

from . import _sleef

_F32, _F64 = np.dtype("float32"), np.dtype("float64")
DIGAMMA_ASYMPTOTIC = _A = (  # Cephes' psi series (torch's calc_digamma's A)
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)
_PSI_10 = 2.25175258906672110764
_CONSTS = {}


def _consts(dt):
    """The digamma and trigamma constants in dtype dt (float32: each rounded to float, as
    torch's float literals; pi * pi rounded from float pi's square)."""
    c = _CONSTS.get(dt)
    if c is None:
        t = dt.type
        pi = t(math.pi)
        digamma = np.array((0, 1, 10, _PSI_10, 0.5, 1e17) + _A, dt)
        trigamma = np.array([1, 0.5, pi, pi * pi, t(1.0) / 6, t(1.0) / 30, t(1.0) / 42, 2], dt)
        c = _CONSTS[dt] = (digamma, trigamma)
    return c


def applies(x):
    """True for a NumPy float32/float64 array (what the replay covers)."""
    return type(x) is np.ndarray and x.dtype in (_F32, _F64)


def _jit():
    """``_gamma_jit`` where numba is usable (``_sleef``'s test: FRAMEWORK_NUMBA), else None."""
    if _sleef._jit() is None:
        return None
    from . import _gamma_jit

    return _gamma_jit


_LIBM = []


def _libm():
    """The C library (None where ctypes cannot load it), its float functions typed."""
    if not _LIBM:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
            f = ctypes.c_float
            for name in ("logf", "sinf", "lgammaf", "expf"):
                getattr(lib, name).restype, getattr(lib, name).argtypes = f, [f]
            lib.powf.restype, lib.powf.argtypes = f, [f, f]
            lib.lgamma.restype, lib.lgamma.argtypes = ctypes.c_double, [ctypes.c_double]
        except (OSError, AttributeError):
            lib = None
        _LIBM.append(lib)
    return _LIBM[0]


def _math(f, *arrays):
    """Python's math function f (the C library's) of each element of float64 arrays, NaN
    where it raises (a pole, a domain error: the C library's inf or NaN instead)."""

    def one(*v):
        """f of one tuple of Python floats, the C library's inf/NaN where math raises."""
        try:
            return f(*v)
        except (ValueError, OverflowError):
            return _c_fallback(f, *v)

    arrays = np.broadcast_arrays(*arrays)
    flat = [a.ravel().tolist() for a in arrays]
    return np.array([one(*v) for v in zip(*flat)], _F64).reshape(arrays[0].shape)


def _c_fallback(f, *v):
    """What the C library returns where Python's math raises (pow overflow: inf; log(0):
    -inf; else NaN)."""
    with np.errstate(all="ignore"):
        numpy_f = {math.pow: np.power, math.log: np.log}.get(f)
        return float(numpy_f(*v)) if numpy_f is not None else math.nan


def _libm_each(name, *arrays):
    """The C library's float function `name` (logf, sinf, powf) of each float32 element
    (rounded from float64 where no C library loads)."""
    lib = _libm()
    arrays = np.broadcast_arrays(*arrays)
    if lib is None:
        with np.errstate(all="ignore"):
            wide = [a.astype(_F64) for a in arrays]
            return getattr(np, {"powf": "power"}.get(name, name[:-1]))(*wide).astype(_F32)
    f = getattr(lib, name)
    flat = [a.ravel().tolist() for a in arrays]
    return np.array([f(*v) for v in zip(*flat)], _F32).reshape(arrays[0].shape)


def _log(x):
    """torch's std::log: glibc's logf for float32, log for float64 (Python's math.log, not
    NumPy's: its SIMD loops on an AVX-512 CPU are not glibc's)."""
    if x.dtype == _F32:
        return _libm_each("logf", x)
    return _math(math.log, x)


def _sin(x):
    """torch's std::sin: glibc's sinf for float32, sin (Python's math.sin) for float64."""
    if x.dtype == _F32:
        return _libm_each("sinf", x)
    return _math(math.sin, x)


def libm_log(x):
    """The C library's log (float64) or logf (float32) of each element of a float32/float64
    NumPy array: torch's scalar std::log (the numba loop, else per element)."""
    j = _jit()
    with np.errstate(all="ignore"):
        if j is None:
            return _log(x)
        flat = np.ascontiguousarray(x).reshape(-1)
        out = np.empty_like(flat)
        j.log_array(flat, out)
        return out.reshape(x.shape)


def libm_pow(a, b):
    """The C library's pow (float64) or powf (float32) of each pair of elements."""
    if a.dtype == _F32:
        return _libm_each("powf", a, b)
    return _math(math.pow, a, b)


def zeta(x, q, divisors, f32):
    """ATen's zeta of the float64 arrays x and q (same shape) by the numba loop, or None
    without numba (the caller's NumPy replay); f32: torch's float kernel (its first term in
    powf)."""
    j = _jit()
    if j is None:
        return None
    xf, qf = (np.ascontiguousarray(v).reshape(-1) for v in (x, q))
    out = np.empty_like(qf)
    j.zeta_array(xf, qf, out, np.asarray(divisors, _F64), f32)
    return out.reshape(q.shape)


def _digamma_np(x, c):
    """calc_digamma on a NumPy array (the jit loop's operations, vectorized)."""
    t = x.dtype.type
    neg = x < 0
    xd = x.astype(_F64)
    frac = np.where(neg, xd - np.trunc(xd), 0.5)
    refl = (math.pi / _math(math.tan, math.pi * frac)).astype(x.dtype)
    y = np.where(neg, t(1) - x, x)
    res = np.zeros_like(y)
    small = y < c[2]
    while small.any():
        res = np.where(small, res - t(1) / np.where(small, y, t(1)), res)
        y = np.where(small, y + t(1), y)
        small = y < c[2]
    series = (y < c[5]) & np.isfinite(y)
    ys = np.where(series, y, t(20))
    z = t(1) / (ys * ys)
    p = np.full_like(z, c[6])
    for a in c[7:]:
        p = _sleef._fma(p, z, np.full_like(z, a))
    tail = np.where(series, z * p, t(0))
    out = res + _log(y) - c[4] / y - tail
    out = np.where(y == c[2], res + c[3], out)
    out = np.where(neg, out - refl, out)
    out = np.where(neg & (xd == np.trunc(xd)), t(np.nan), out)
    return np.where(x == 0, np.copysign(t(np.inf), -x), out)


def _trigamma_np(x, c):
    """torch's trigamma on a NumPy array (the jit loop's operations, vectorized)."""
    t = x.dtype.type
    refl = x < c[1]
    s = _sin(c[2] * np.where(refl, x, t(0)))
    res = np.where(refl, t(0) - c[3] / (s * s), t(0))
    y = np.where(refl, t(1) - x, x)
    for _ in range(6):
        res = res + t(1) / (y * y)
        y = y + t(1)
    ixx = t(1) / (y * y)
    inner = _sleef._fma(-ixx, np.full_like(ixx, c[6]), np.full_like(ixx, c[5]))
    mid = _sleef._fma(-ixx, inner, np.full_like(ixx, c[4]))
    series = _sleef._fma(ixx, mid, t(1) + t(1) / (c[7] * y))
    res = res + series / y
    return np.where(refl, -res, res)


def _run(name, x):
    """The kernel `name` (digamma, trigamma) of x: the jit loop or the NumPy replay."""
    dt = x.dtype
    c = _consts(dt)[name == "trigamma"]
    j = _jit()
    with np.errstate(all="ignore"):
        if j is not None:
            flat = np.ascontiguousarray(x).reshape(-1)
            out = np.empty_like(flat)
            getattr(j, name + "_array")(flat, out, c)
            return out.reshape(x.shape)
        x = np.asarray(x)
        return (_digamma_np if name == "digamma" else _trigamma_np)(x, c)


def digamma(x):
    """torch's CPU digamma of a float32/float64 NumPy array (same dtype out)."""
    return _run("digamma", x)


def trigamma(x):
    """torch's CPU trigamma (polygamma(1, x)) of a float32/float64 NumPy array."""
    return _run("trigamma", x)


def polygamma_factor(n, dt):
    """torch's calc_polygamma factor (-1)^(n+1) exp(lgamma(n + 1)) in dtype dt: the C
    library's lgammaf/expf for float32, lgamma/exp for float64 (math.exp is glibc's)."""
    sign = 1.0 if n % 2 else -1.0
    lib = _libm()
    if dt == _F32:
        if lib is None:
            return _F32.type(sign) * _F32.type(math.exp(math.lgamma(n + 1.0)))
        return _F32.type(sign) * _F32.type(lib.expf(lib.lgammaf(float(n) + 1.0)))
    if lib is None:
        return sign * math.exp(math.lgamma(n + 1.0))
    return sign * math.exp(lib.lgamma(float(n) + 1.0))
