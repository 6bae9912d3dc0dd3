"""Sleef's u10 atan2 and pow (float32 and float64), as torch's AVX2 build computes them in
``Vectorized<T>::atan2()`` and ``pow()`` (``Sleef_atan2f8_u10``, ``Sleef_powd4_u10`` ...),
for the binary kernels of ``_vec_binary`` (exp2 is ``_sleef_math``'s, bound alongside).

Written once, like ``_sleef_math``'s functions, in terms of its helpers (``fma``, ``sel``,
``mulsign``, ``ldexp2``, ``rint_f``/``rint_i``, ``to_float``) and its double-float
arithmetic (``df_div``, ``df_squ`` ...; Sleef's dd.h of the FMA build is the same
arithmetic on doubles), and bound per type and per array kind by ``_sleef_math.bind``:
to NumPy array helpers (``numpy_funcs``), to numba scalar helpers in ``_vec_binary_jit``.

Example:
    >>> import numpy as np
    >>> float(numpy_funcs(np.float64)["exp2"](np.array([3.0]))[0])
    8.0
"""

import numpy as np

from . import _sleef_math as M

# Placeholders for the names ``_sleef_math.bind`` resolves per type (never called unbound).
T = fma = sel = abs_ = ldexp2 = ldexp3 = ilogb2k = rint_f = rint_i = to_float = None
mulsign = df_add_11 = df_add_12 = df_add_22 = df_add2_11 = df_add2_21 = df_add2_22 = None
df_mul_21 = df_mul_22 = df_squ = df_div = df_normalize = poly2 = poly4 = expkd = None
EXPK_NEW = None  # (_sleef_math's, through its helpers)


def _atan2_tail(y, x, dx, dy):
    """xatan2f_u1 / xatan2_u1's special cases around atan2k_u1's (dx, dy) (x, y scaled)."""
    r = mulsign(dx + dy, x)
    half = T(np.pi / 2)
    inf_x = abs_(x) == T(np.inf)
    r = sel(inf_x | (x == T(0)), half - sel(inf_x, mulsign(half, x), T(0)), r)
    r = sel(abs_(y) == T(np.inf), half - sel(inf_x, mulsign(T(np.pi / 4), x), T(0)), r)
    r = sel(y == T(0), sel(mulsign(T(1), x) < T(0), T(np.pi), T(0)), r)
    return sel((x != x) | (y != y), T(np.nan), mulsign(r, y))


def atan2f(y, x):
    """Sleef_atan2f8_u10 (xatan2f_u1)."""
    o = abs_(x) < T(2.9387372783541830947e-39)
    x = sel(o, x * T(1 << 24), x)
    y = sel(o, y * T(1 << 24), y)
    yx, yy = abs_(y), T(0)
    neg = x < T(0)
    q = sel(neg, T(-2), T(0))
    xx, xy = sel(neg, -x, x), sel(neg, T(-0.0), T(0))
    p = xx < yx
    q = sel(p, q + T(1), q)
    sx, sy = sel(p, -xx, yx), sel(p, -xy, yy)
    tx, ty = sel(p, yx, xx), sel(p, yy, xy)
    sx, sy = df_div(sx, sy, tx, ty)
    tx, ty = df_squ(sx, sy)
    tx, ty = df_normalize(tx, ty)
    u = fma(T(-0.00176397908944636583328247), tx, T(0.0107900900766253471374512))
    u = fma(u, tx, T(-0.0309564601629972457885742))
    u = fma(u, tx, T(0.0577365085482597351074219))
    u = fma(u, tx, T(-0.0838950723409652709960938))
    u = fma(u, tx, T(0.109463557600975036621094))
    u = fma(u, tx, T(-0.142626821994781494140625))
    u = fma(u, tx, T(0.199983194470405578613281))
    ax, ay = df_add_11(T(-0.333332866430282592773438), u * tx)
    tx, ty = df_mul_22(tx, ty, ax, ay)
    ax, ay = df_add_12(T(1), tx, ty)
    tx, ty = df_mul_22(sx, sy, ax, ay)
    cx, cy = df_mul_21(T(1.5707963705062866211), T(-4.3711388286737928865e-08), q)
    dx, dy = df_add_22(cx, cy, tx, ty)
    return _atan2_tail(y, x, dx, dy)


def atan2d(y, x):
    """Sleef_atan2d4_u10 (xatan2_u1)."""
    o = abs_(x) < T(5.5626846462680083984e-309)
    x = sel(o, x * T(1 << 53), x)
    y = sel(o, y * T(1 << 53), y)
    yx, yy = abs_(y), T(0)
    q = sel(mulsign(T(1), x) < T(0), T(-2), T(0))  # vsel_vi_vd_vi: x's sign bit
    neg = x < T(0)
    xx, xy = sel(neg, -x, x), sel(neg, T(-0.0), T(0))
    p = xx < yx
    q = sel(p, q + T(1), q)
    sx, sy = sel(p, -xx, yx), sel(p, -xy, yy)
    tx, ty = sel(p, yx, xx), sel(p, yy, xy)
    sx, sy = df_div(sx, sy, tx, ty)
    tx, ty = df_squ(sx, sy)
    tx, ty = df_normalize(tx, ty)
    t2 = tx * tx
    t4 = t2 * t2
    t8 = t4 * t4
    hi = fma(
        t4,
        poly4(
            tx,
            t2,
            1.06298484191448746607415e-05,
            -0.000125620649967286867384336,
            0.00070557664296393412389774,
            -0.00251865614498713360352999,
        ),
        poly4(
            tx,
            t2,
            0.00646262899036991172313504,
            -0.0128281333663399031014274,
            0.0208024799924145797902497,
            -0.0289002344784740315686289,
        ),
    )
    lo = fma(
        t4,
        poly4(
            tx,
            t2,
            0.0359785005035104590853656,
            -0.041848579703592507506027,
            0.0470843011653283988193763,
            -0.0524914210588448421068719,
        ),
        poly4(
            tx,
            t2,
            0.0587946590969581003860434,
            -0.0666620884778795497194182,
            0.0769225330296203768654095,
            -0.0909090442773387574781907,
        ),
    )
    u = fma(t8, hi, lo)
    u = fma(u, tx, T(0.111111108376896236538123))
    u = fma(u, tx, T(-0.142857142756268568062339))
    u = fma(u, tx, T(0.199999999997977351284817))
    u = fma(u, tx, T(-0.333333333333317605173818))
    mx, my = df_mul_22(sx, sy, tx, ty)
    mx, my = df_mul_21(mx, my, u)
    tx, ty = df_add_22(sx, sy, mx, my)
    cx, cy = df_mul_21(T(1.570796326794896557998982), T(6.12323399573676603586882e-17), q)
    dx, dy = df_add_22(cx, cy, tx, ty)
    return _atan2_tail(y, x, dx, dy)


def ldexpf(x, q):
    """vldexp_vf_vf_vi2: x 2**q in up to five products (Sleef's full-range ldexp)."""
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    m = m + 127
    m = sel(m > 0, m, 0)
    m = sel(m > 255, 255, m)
    u = ldexp3(T(1), m - 127)
    x = x * u * u * u * u
    return x * ldexp3(T(1), q)


def logkf(d):
    """logkf: log d as a pair (float32)."""
    o = d < T(1.17549435e-38)
    d = sel(o, d * T(18446744073709551616.0), d)
    e = ilogb2k(d * T(1.0 / 0.75))
    m = ldexp3(d, -e)
    e = sel(o, e - 64, e)
    nx, ny = df_add2_11(T(-1), m)
    dx, dy = df_add2_11(T(1), m)
    xx, xy = df_div(nx, ny, dx, dy)
    x2x, x2y = df_squ(xx, xy)
    t = fma(T(0.240320354700088500976562), x2x, T(0.285112679004669189453125))
    t = fma(t, x2x, T(0.400007992982864379882812))
    sx, sy = df_mul_21(T(0.69314718246459960938), T(-1.904654323148236017e-09), to_float(e))
    sx, sy = df_add_22(sx, sy, xx * T(2), xy * T(2))
    ax, ay = df_mul_22(x2x, x2y, xx, xy)
    bx, by = df_mul_21(x2x, x2y, t)
    bx, by = df_add2_22(bx, by, T(0.66666662693023681640625), T(3.69183861259614332084311e-09))
    ax, ay = df_mul_22(ax, ay, bx, by)
    return df_add_22(sx, sy, ax, ay)


def expkf(dx, dy):
    """expkf: exp of the pair (dx, dy) as one float32."""
    u = (dx + dy) * T(1.442695040888963407359924681001892137426645954152985934135449406931)
    q = rint_i(u)
    qf = to_float(q)
    sx, sy = df_add2_21(dx, dy, qf * T(-0.693145751953125))
    sx, sy = df_add2_21(sx, sy, qf * T(-1.428606765330187045e-06))
    sx, sy = df_normalize(sx, sy)
    u = fma(T(0.00136324646882712841033936), sx, T(0.00836596917361021041870117))
    u = fma(u, sx, T(0.0416710823774337768554688))
    u = fma(u, sx, T(0.166665524244308471679688))
    u = fma(u, sx, T(0.499999850988388061523438))
    qx, qy = df_squ(sx, sy)
    px, py = df_mul_21(qx, qy, u)
    if EXPK_NEW:
        tx, ty = df_add_12(T(1), sx, sy)
        tx, ty = df_add_22(tx, ty, px, py)
    else:
        tx, ty = df_add_22(sx, sy, px, py)
        tx, ty = df_add_12(T(1), tx, ty)
    u = ldexpf(tx + ty, q)
    return sel(dx < T(-104), T(0), u)


def logkd(d):
    """logk: log d as a pair (float64)."""
    o = d < T(2.2250738585072014e-308)
    d = sel(o, d * T(18446744073709551616.0), d)
    e = ilogb2k(d * T(1.0 / 0.75))
    m = ldexp3(d, -e)
    e = sel(o, e - 64, e)
    nx, ny = df_add2_11(T(-1), m)
    dx, dy = df_add2_11(T(1), m)
    xx, xy = df_div(nx, ny, dx, dy)
    x2x, x2y = df_squ(xx, xy)
    x4 = x2x * x2x
    x8 = x4 * x4
    x16 = x8 * x8
    t = fma(
        x16,
        T(0.116255524079935043668677),
        fma(
            x8,
            poly4(
                x2x,
                x4,
                0.103239680901072952701192,
                0.117754809412463995466069,
                0.13332981086846273921509,
                0.153846227114512262845736,
            ),
            poly4(
                x2x,
                x4,
                0.181818180850050775676507,
                0.222222222230083560345903,
                0.285714285714249172087875,
                0.400000000000000077715612,
            ),
        ),
    )
    sx, sy = df_mul_21(
        T(0.693147180559945286226764), T(2.319046813846299558417771e-17), to_float(e)
    )
    sx, sy = df_add_22(sx, sy, xx * T(2), xy * T(2))
    xx, xy = df_mul_22(x2x, x2y, xx, xy)
    ax, ay = df_mul_22(xx, xy, T(0.666666666666666629659233), T(3.80554962542412056336616e-17))
    sx, sy = df_add_22(sx, sy, ax, ay)
    xx, xy = df_mul_22(x2x, x2y, xx, xy)
    ax, ay = df_mul_21(xx, xy, t)
    return df_add_22(sx, sy, ax, ay)


def _pow_tail(x, y, result, yisint, yisodd):
    """xpowf / xpow's special cases shared by both (after the sign of a negative base)."""
    result = result * sel(x > T(0), T(1), sel(yisint, sel(yisodd, T(-1), T(1)), T(np.nan)))
    efx = mulsign(abs_(x) - T(1), y)
    lim = sel(efx < T(0), T(0), sel(efx == T(0), T(1), T(np.inf)))
    return sel(abs_(y) == T(np.inf), lim, result)


def powf(x, y):
    """Sleef_powf8_u10 (xpowf)."""
    ay = abs_(y)
    yisint = (np.trunc(y) == y) | (ay > T(1 << 24))
    h = y * T(0.5)
    yisodd = (np.trunc(h) != h) & yisint & (ay < T(1 << 24))
    lx, ly = logkf(abs_(x))
    dx, dy = df_mul_21(lx, ly, y)
    result = expkf(dx, dy)
    result = sel(result != result, T(np.inf), result)
    result = _pow_tail(x, y, result, yisint, yisodd)
    big = sel(sel(x == T(0), -y, y) < T(0), T(0), T(np.inf))
    edge = sel(yisodd, mulsign(T(1), x), T(1)) * big
    result = sel((abs_(x) == T(np.inf)) | (x == T(0)), edge, result)
    result = sel((x != x) | (y != y), T(np.nan), result)
    return sel((y == T(0)) | (x == T(1)), T(1), result)


def powd(x, y):
    """Sleef_powd4_u10 (xpow)."""
    yisint = np.trunc(y) == y
    h = y * T(0.5)
    yisodd = (np.trunc(h) != h) & yisint
    lx, ly = logkd(abs_(x))
    dx, dy = df_mul_21(lx, ly, y)
    result = expkd(dx, dy)
    result = sel(dx > T(709.78271114955742909217217426), T(np.inf), result)
    result = _pow_tail(x, y, result, yisint, yisodd)
    zero = x == T(0)
    big = sel((mulsign(T(1), y) < T(0)) != zero, T(0), T(np.inf))
    edge = mulsign(big, sel(yisodd, x, T(1)))
    result = sel((abs_(x) == T(np.inf)) | zero, edge, result)
    result = sel((x != x) | (y != y), T(np.nan), result)
    return sel((y == T(0)) | (x == T(1)), T(1), result)


FLOAT = (_atan2_tail, atan2f, M.exp2f, ldexpf, logkf, expkf, _pow_tail, powf)
DOUBLE = (_atan2_tail, atan2d, M.exp2d, M.expkd, logkd, _pow_tail, powd)

_NUMPY = {}


def numpy_funcs(t):
    """{'atan2', 'exp2', 'pow'} -> Sleef's function on NumPy arrays of the float type t."""
    t = np.dtype(t).type
    fs = _NUMPY.get(t)
    if fs is None:
        f32 = t is np.float32
        ns = M.bind(M.GENERIC + (FLOAT if f32 else DOUBLE), M._numpy_helpers(t))
        sfx = "f" if f32 else "d"

        def wrap(f):
            """f (a bound Sleef function) on arrays of type t, silent on NumPy's warnings."""

            def run(*args):
                """f(*args) with the args as arrays of type t."""
                with np.errstate(all="ignore"):
                    return np.asarray(f(*(np.asarray(a, t) for a in args)), t)

            return run

        fs = _NUMPY[t] = {n: wrap(ns[n + sfx]) for n in ("atan2", "exp2", "pow")}
    return fs
