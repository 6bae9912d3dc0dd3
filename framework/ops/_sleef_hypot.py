"""torch's CPU float64 hypot bit for bit: ``cpu_kernel_vec`` with ``Vectorized<double>::hypot``
(``Sleef_hypotd4_u05``) in the vector body and the C library's ``hypot`` in the scalar tails,
TensorIterator's walk of the two broadcast operands deciding which element takes which
(``_vec_binary.walk``). Sleef's function (xhypot_u05: the quotient of the smaller by the larger
magnitude as a double-double, sqrt(1 + t^2) by ddsqrt, times the larger) is written on
`_sleef_math`'s double-double helpers, compiled by ``_sleef_special_jit`` where numba is (else
NumPy). float32 hypot is NumPy's (already torch's bits).

Example:
    >>> import numpy as np
    >>> float(hypot(np.array([3.0]), np.array([4.0]))[0])
    5.0
"""

import ctypes
import ctypes.util

import numpy as np

from . import _sleef_math, _vec_binary

T = fma = sel = abs_ = None  # (bound per type)
df_add2_21 = df_add2_22 = df_div = df_squ = df_mul_21 = df_mul_22 = df_mul_11 = None


def dd_sqrt(x, xy):
    """ddsqrt_vd2_vd2: the square root of the pair (x, xy) as a pair."""
    t = np.sqrt(x + xy)
    tx, ty = df_mul_11(t, t)
    ax, ay = df_add2_22(x, xy, tx, ty)
    r = T(1) / t
    rx, ry = r, r * fma(-t, r, T(1))  # ddrec_vd2_vd
    px, py = df_mul_22(ax, ay, rx, ry)
    return px * T(0.5), py * T(0.5)


def hypot_sleef(x, y):
    """Sleef's xhypot_u05 of the arrays x, y."""
    x, y = abs_(x), abs_(y)
    lo, hi = sel(x < y, x, y), sel(x > y, x, y)  # (vmin_vd / vmax_vd: the second on NaN)
    small = hi < T(2.2250738585072014e-308)
    n = sel(small, lo * T(2.0**54), lo)
    d = sel(small, hi * T(2.0**54), hi)
    tx, ty = df_div(n, T(0), d, T(0))
    sx, sy = df_squ(tx, ty)
    ux, uy = df_add2_21(sx, sy, T(1))
    qx, qy = dd_sqrt(ux, uy)
    rx, ry = df_mul_21(qx, qy, hi)
    r = rx + ry
    r = sel(r != r, T(np.inf), r)
    r = sel(lo == T(0), hi, r)
    r = sel((x != x) | (y != y), T(np.nan), r)
    return sel((x == T(np.inf)) | (y == T(np.inf)), T(np.inf), r)


_BOUND = []
_LIBM = []


def _body():
    """Sleef's hypot bound to float64 NumPy arrays."""
    if not _BOUND:
        ns = _sleef_math.bind(
            _sleef_math.GENERIC + (dd_sqrt, hypot_sleef), _sleef_math._numpy_helpers(np.float64)
        )
        _BOUND.append(ns["hypot_sleef"])
    return _BOUND[0]


def _tail(a, b):
    """The C library's hypot of each pair of the 1-D float64 a, b (NumPy's where no C library
    loads)."""
    if not _LIBM:
        try:
            c = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6").hypot
            c.restype, c.argtypes = ctypes.c_double, [ctypes.c_double] * 2
        except (OSError, AttributeError):
            c = None
        _LIBM.append(c)
    c = _LIBM[0]
    if c is None:
        return np.hypot(a, b)
    return np.array([c(u, v) for u, v in zip(a.tolist(), b.tolist())], np.float64)


def hypot(a, b):
    """torch's hypot of the float64 NumPy arrays a and b (broadcast), in torch's layout."""
    a2, b2, nvec, back = _vec_binary.walk(a, b)
    out = np.empty(a2.shape, np.float64)
    from . import _sleef_atanh

    j = _sleef_atanh._jit() if a2.size >= _sleef_atanh.JIT_MIN else None  # (one module)
    with np.errstate(all="ignore"):
        if j is not None:
            if a2.size:
                j.hypot_rows()(a2, b2, out, nvec)
        elif nvec:
            out[:, :nvec] = _body()(a2[:, :nvec], b2[:, :nvec])
        if nvec < a2.shape[1]:
            out[:, nvec:] = _tail(a2[:, nvec:].ravel(), b2[:, nvec:].ravel()).reshape(
                a2.shape[0], -1
            )
    return _vec_binary._back(out, back)
