"""torch's CPU atanh of float32/float64 arrays, bit for bit: ``cpu_kernel_vec`` with
``Vectorized<T>::atanh()`` (``Sleef_atanhf8_u10`` / ``Sleef_atanhd4_u10``) in the vector body
and the C library's ``atanhf``/``atanh`` in the scalar tails (TensorIterator's walk,
``_sleef._rows``; measured: the last n % 16 float, n % 8 double elements of a contiguous run
match glibc, the others Sleef). Sleef's function (``xatanhf``: logk2f of (1 + |x|) / (1 - |x|)
as a pair, halved) is written once on `_sleef_math`'s double-float helpers and compiled by
``_sleef_special_jit`` where numba is, else run in NumPy (~1000x slower).

Example:
    >>> import numpy as np
    >>> float(atanh(np.zeros(3, np.float32))[0])
    0.0
"""

import numpy as np

from . import _fused, _sleef, _sleef_act, _sleef_math

T = fma = sel = abs_ = ilogb2k = ldexp3 = to_float = mulsign = None  # (bound per type)
df_add2_11 = df_add2_21 = df_add_22 = df_div = df_squ = df_mul_21 = df_mul_22 = None
LOG2 = None  # ln 2 as a pair (Sleef's constants for the type)
LOGK2_POLY = _poly = None  # logk2's polynomial in x^2 (highest coefficient first), its scheme


def logk2(dx, dy):
    """logk2f / logk2: log of the pair (dx, dy) (> 0) as a pair."""
    e = ilogb2k(dx * T(1.0 / 0.75))
    s = ldexp3(T(1), -e)
    mx, my = dx * s, dy * s
    nx, ny = df_add2_21(mx, my, T(-1))
    ax, ay = df_add2_21(mx, my, T(1))
    xx, xy = df_div(nx, ny, ax, ay)
    x2x, x2y = df_squ(xx, xy)
    t = _poly(x2x)
    sx, sy = df_mul_21(T(LOG2[0]), T(LOG2[1]), to_float(e))
    sx, sy = df_add_22(sx, sy, xx * T(2), xy * T(2))
    px, py = df_mul_22(x2x, x2y, xx, xy)
    qx, qy = df_mul_21(px, py, t)
    return df_add_22(sx, sy, qx, qy)


def poly_horner(x2):
    """logk2f's polynomial (float): Horner's rule, one vmla a step."""
    t = T(LOGK2_POLY[0])
    for c in LOGK2_POLY[1:]:
        t = fma(t, x2, T(c))
    return t


def poly_estrin(x2):
    """logk2's polynomial (double, Sleef 3.6): POLY7 by Estrin's scheme in x^2, x^4, x^8, then
    one vmla for the last coefficient."""
    c = LOGK2_POLY
    x4 = x2 * x2
    x8 = x4 * x4
    p3 = fma(x4, T(c[0]), fma(x2, T(c[1]), T(c[2])))
    p4 = fma(x4, fma(x2, T(c[3]), T(c[4])), fma(x2, T(c[5]), T(c[6])))
    return fma(fma(x8, p3, p4), x2, T(c[7]))


def atanh_sleef(x):
    """Sleef's u10 atanh (xatanhf / xatanh) of the array x."""
    y = abs_(x)
    ax, ay = df_add2_11(T(1), y)
    bx, by = df_add2_11(T(1), -y)
    qx, qy = df_div(ax, ay, bx, by)
    dx, dy = logk2(qx, qy)
    r = sel(y > T(1), T(np.nan), sel(y == T(1), T(np.inf), (dx + dy) * T(0.5)))
    r = sel(np.isinf(x) | (r != r), T(np.nan), r)
    r = mulsign(r, x)
    return sel(x != x, T(np.nan), r)


_CONSTS = {
    np.float32: (
        (0.69314718246459960938, -1.904654323148236017e-09),
        (0.2392828464508056640625, 0.28518211841583251953125, 0.400005877017974853515625,
         0.666666686534881591796875),
    ),
    np.float64: (
        (0.693147180559945286226764, 2.319046813846299558417771e-17),
        (0.13860436390467167910856, 0.131699838841615374240845, 0.153914168346271945653214,
         0.181816523941564611721589, 0.22222224632662035403996, 0.285714285511134091777308,
         0.400000000000914013309483, 0.666666666666664853302393),
    ),
}  # fmt: skip
_BOUND = {}
_JIT = [None]  # the numba module, False without numba (FRAMEWORK_NUMBA=0)
JIT_MIN = 1024  # elements from which the compiled loops run (with hypot's): each costs 2-3 s
#                 to compile cold, ~0.1 ms of NumPy replay per small call does not


def _jit():
    """``_sleef_special_jit`` where numba is usable, else None (the NumPy replay)."""
    return _fused.jit_module("_sleef_special_jit", _JIT, svml=True)


def _body(t):
    """Sleef's atanh bound to NumPy arrays of the float type t."""
    f = _BOUND.get(t)
    if f is None:
        ns = _sleef_math._numpy_helpers(t)
        ns["LOG2"], ns["LOGK2_POLY"] = _CONSTS[t]
        ns = _sleef_math.bind(
            _sleef_math.GENERIC + (poly_horner, poly_estrin, logk2, atanh_sleef), ns
        )
        ns["_poly"] = ns["poly_horner" if t is np.float32 else "poly_estrin"]
        f = _BOUND[t] = ns["atanh_sleef"]
    return f


def atanh(x):
    """torch's atanh of the float32/float64 NumPy array x (any layout), in an array of x's
    shape and dtype."""
    if x.size == 0:
        return np.empty_like(x)
    x2, vec, back = _sleef._rows(x)
    j = _jit() if x.size >= JIT_MIN else None
    if j is not None:
        out = np.empty(x2.shape, x.dtype)
        nvec = _sleef_act._split(x2.shape[1], x.itemsize, vec)
        with np.errstate(all="ignore"):
            j.atanh_rows(x.dtype)(x2, out, nvec)
        return back(out)
    body, tail = _body(x.dtype.type), _sleef_act._libm("atanh", x.dtype)

    def scalar(a):
        """The C library's atanh of the 2-D a (its +-inf at +-1, where Python's math raises)."""
        r = tail(a.ravel()).reshape(a.shape)
        return np.where(np.abs(a) == 1, np.copysign(a.dtype.type(np.inf), a), r)

    return back(_sleef_act._two_ways(x2, vec, body, scalar))
