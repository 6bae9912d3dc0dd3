"""Sleef's u10 expm1, log1p, tanh, sinh, cosh and exp2 (float32 and float64), as torch's AVX2 build
computes them in ``Vectorized<T>::expm1()/log1p()/tanh()/...`` (``Sleef_expm1f8_u10``,
``Sleef_log1pd4_u10``, ``Sleef_tanhf8_u10`` ...): Sleef's double-float arithmetic with the
fused multiply-adds of its FMA build (``vmla``, ``vfmapn``, ``vfmanp``) rounding once.

The functions below are written once, in terms of a few helpers (``fma``, ``sel``, the
exponent-bit tricks ``ldexp2``/``ldexp3``/``ilogb``, the constants' type ``T``, Sleef's
u10 log ``logf_big`` from ``_sleef``), and bound
twice: to NumPy array helpers here (``numpy_funcs``), to numba scalar helpers in
``_sleef_act_jit`` (one compiled loop per kernel). Each name follows Sleef's: ``df_add2_22``
is ``dfadd2_vf2_vf2_vf2`` (two double-floats in), ``df_mul_21`` ``dfmul_vf2_vf2_vf`` ...; a
double-float is a pair (x, y).

Example:
    >>> import numpy as np
    >>> float(numpy_funcs(np.float32)["expm1"](np.float32([0.0]))[0])
    0.0
"""

import types

import numpy as np

from .._fma import fma32, fma64
from . import _sleef

# The helpers the generic functions call, bound per type and per array kind by ``bind``
# (these module-level names are placeholders: the unbound functions are never called).
T = fma = sel = abs_ = ldexp2 = ldexp3 = ilogb2k = rint_f = rint_i = None
to_float = mulsign = is_negzero = logf_big = sleef_exp = None
EXPK_NEW = True  # Sleef 3.6+'s expk: 1 + s first, then the s^2 polynomial term

# ---- double-float (double-double) arithmetic: Sleef's df.h / dd.h, FMA build --------------


def df_add_11(x, y):
    """dfadd: x + y as a pair (|x| >= |y|)."""
    rx = x + y
    return rx, (x - rx) + y


def df_add_21(x, xy, y):
    """dfadd_vf2_vf2_vf: (x, xy) + y (|x| >= |y|)."""
    rx = x + y
    return rx, ((x - rx) + y) + xy


def df_add_12(x, y, yy):
    """dfadd_vf2_vf_vf2: x + (y, yy) (|x| >= |y|)."""
    rx = x + y
    return rx, ((x - rx) + y) + yy


def df_add_22(x, xy, y, yy):
    """dfadd_vf2_vf2_vf2: (x, xy) + (y, yy) (|x| >= |y|)."""
    rx = x + y
    return rx, (((x - rx) + y) + xy) + yy


def df_add2_11(x, y):
    """dfadd2_vf2_vf_vf: x + y as a pair, any magnitudes."""
    rx = x + y
    v = rx - x
    return rx, (x - (rx - v)) + (y - v)


def df_add2_21(x, xy, y):
    """dfadd2_vf2_vf2_vf: (x, xy) + y, any magnitudes."""
    rx = x + y
    v = rx - x
    return rx, ((x - (rx - v)) + (y - v)) + xy


def df_add2_22(x, xy, y, yy):
    """dfadd2_vf2_vf2_vf2: (x, xy) + (y, yy), any magnitudes."""
    rx = x + y
    v = rx - x
    return rx, ((x - (rx - v)) + (y - v)) + (xy + yy)


def df_normalize(x, y):
    """dfnormalize: the pair renormalized."""
    sx = x + y
    return sx, (x - sx) + y


def df_mul_11(x, y):
    """dfmul_vf2_vf_vf: x y as a pair."""
    rx = x * y
    return rx, fma(x, y, -rx)


def df_mul_21(x, xy, y):
    """dfmul_vf2_vf2_vf: (x, xy) y."""
    rx = x * y
    return rx, fma(xy, y, fma(x, y, -rx))


def df_mul_22(x, xy, y, yy):
    """dfmul_vf2_vf2_vf2: (x, xy) (y, yy)."""
    rx = x * y
    return rx, fma(x, yy, fma(xy, y, fma(x, y, -rx)))


def df_squ(x, xy):
    """dfsqu_vf2_vf2: (x, xy) squared."""
    rx = x * x
    return rx, fma(x + x, xy, fma(x, x, -rx))


def df_rec_2(x, xy):
    """dfrec_vf2_vf2: 1 / (x, xy)."""
    qx = T(1) / x
    return qx, qx * fma(-xy, qx, fma(-x, qx, T(1)))


def df_div(nx, ny, dx, dy):
    """dfdiv_vf2_vf2_vf2: (nx, ny) / (dx, dy)."""
    t = T(1) / dx
    qx = nx * t
    u = fma(t, nx, -qx)
    qy = fma(-dy, t, fma(-dx, t, T(1)))
    return qx, fma(qx, qy, fma(ny, t, u))


# ---- float32: Sleef's sleefsimdsp.c ----------------------------------------------------------


def expk2f(dx, dy):
    """expk2f: exp of the pair (dx, dy) as a pair."""
    u = (dx + dy) * T(1.442695040888963407359924681001892137426645954152985934135449406931)
    q = rint_i(u)
    qf = to_float(q)
    sx, sy = df_add2_21(dx, dy, qf * T(-0.693145751953125))
    sx, sy = df_add2_21(sx, sy, qf * T(-1.428606765330187045e-06))
    u = fma(T(0.1980960224e-3), sx, T(0.1394256484e-2))
    u = fma(u, sx, T(0.8333456703e-2))
    u = fma(u, sx, T(0.4166637361e-1))
    tx, ty = df_mul_21(sx, sy, u)
    tx, ty = df_add2_21(tx, ty, T(0.166666659414234244790680580464e0))
    tx, ty = df_mul_22(sx, sy, tx, ty)
    tx, ty = df_add2_21(tx, ty, T(0.5))
    qx, qy = df_squ(sx, sy)
    tx, ty = df_mul_22(qx, qy, tx, ty)
    tx, ty = df_add2_22(sx, sy, tx, ty)
    tx, ty = df_add_12(T(1), tx, ty)
    tx, ty = ldexp2(tx, q), ldexp2(ty, q)
    under = dx < T(-104)
    return sel(under, T(0), tx), sel(under, T(0), ty)


def expm1f(a):
    """Sleef_expm1f8_u10 (xexpm1f)."""
    ex, ey = expk2f(a, T(0))
    dx, dy = df_add2_21(ex, ey, T(-1.0))
    x = dx + dy
    x = sel(a > T(88.72283172607421875), T(np.inf), x)
    x = sel(a < T(-16.635532333438687426013570), T(-1), x)
    return sel(is_negzero(a), T(-0.0), x)


def tanhf(x):
    """Sleef_tanhf8_u10 (xtanhf)."""
    y = abs_(x)
    dx, dy = expk2f(y, T(0))
    ex, ey = df_rec_2(dx, dy)
    nx, ny = df_add_22(dx, dy, -ex, -ey)
    mx, my = df_add_22(dx, dy, ex, ey)
    qx, qy = df_div(nx, ny, mx, my)
    y = qx + qy
    y = sel((abs_(x) > T(8.664339742)) | (y != y), T(1.0), y)
    y = mulsign(y, x)
    return sel(x != x, T(np.nan), y)


def _sinh(x, e, big):
    """xsinhf/xsinh given e = expk2(|x|) (a pair) and the overflow bound `big`."""
    ex, ey = df_rec_2(*e)
    dx, dy = df_add_22(e[0], e[1], -ex, -ey)  # (dfsub: the same operations)
    y = (dx + dy) * T(0.5)
    y = sel((abs_(x) > big) | (y != y), T(np.inf), y)
    y = mulsign(y, x)
    return sel(x != x, T(np.nan), y)


def _cosh(x, e, big):
    """xcoshf/xcosh given e = expk2(|x|) and the overflow bound `big`."""
    ex, ey = df_rec_2(*e)
    dx, dy = df_add_22(e[0], e[1], ex, ey)
    y = (dx + dy) * T(0.5)
    y = sel((abs_(x) > big) | (y != y), T(np.inf), y)
    return sel(x != x, T(np.nan), y)


def exp2f(d):
    """Sleef_exp2f8_u10 (xexp2f)."""
    u = rint_f(d)
    q = rint_i(u)
    s = d - u
    u = fma(T(0.1535920892e-3), s, T(0.1339262701e-2))
    u = fma(u, s, T(0.9618384764e-2))
    u = fma(u, s, T(0.5550347269e-1))
    u = fma(u, s, T(0.2402264476e0))
    u = fma(u, s, T(0.6931471825e0))
    u = ldexp2(fma(u, s, T(1)), q)
    u = sel(d >= T(128), T(np.inf), u)
    return sel(d < T(-150), T(0), u)


def sinhf(x):
    """Sleef_sinhf8_u10 (xsinhf)."""
    return _sinh(x, expk2f(abs_(x), T(0)), T(89))


def coshf(x):
    """Sleef_coshf8_u10 (xcoshf)."""
    return _cosh(x, expk2f(abs_(x), T(0)), T(89))


def log1pf(d):
    """Sleef_log1pf8_u10 (xlog1pf: its fast path; Sleef's u10 log above its 1e23 cutoff,
    ``logf_big``, as measured on torch's build)."""
    dp1 = d + T(1)
    o = dp1 < T(1.17549435e-38)
    dp1 = sel(o, dp1 * T(18446744073709551616.0), dp1)
    e = ilogb2k(dp1 * T(1.0 / 0.75))
    t = ldexp3(T(1), -e)
    m = fma(d, t, t - T(1))
    e = sel(o, e - 64, e)
    sx, sy = df_mul_21(T(0.69314718246459960938), T(-1.904654323148236017e-09), to_float(e))
    ax, ay = df_add_11(T(2), m)
    xx, xy = df_div(m, T(0), ax, ay)
    x2 = xx * xx
    t = fma(T(0.3027294874), x2, T(0.3996108174))
    t = fma(t, x2, T(0.6666694880))
    sx, sy = df_add_22(sx, sy, xx * T(2), xy * T(2))
    sx, sy = df_add_21(sx, sy, (x2 * xx) * t)
    r = sx + sy
    r = sel(d > T(1e38), T(np.inf), r)
    r = sel((d < T(-1)) | (d != d), T(np.nan), r)
    r = sel(d == T(-1), T(-np.inf), r)
    r = sel(is_negzero(d), T(-0.0), r)
    return sel(d > T(1e23), logf_big(d), r)


# ---- float64: Sleef's sleefsimddp.c ----------------------------------------------------------


def poly2(x, c1, c0):
    """POLY2: c1 x + c0 (one vmla)."""
    return fma(x, T(c1), T(c0))


def poly4(x, x2, c3, c2, c1, c0):
    """POLY4: Estrin's scheme on four coefficients."""
    return fma(x2, poly2(x, c3, c2), poly2(x, c1, c0))


def expk2d(dx, dy):
    """expk2: exp of the pair (dx, dy) as a pair (float64)."""
    u = (dx + dy) * T(1.442695040888963407359924681001892137426645954152985934135449406931)
    dq = rint_f(u)
    q = rint_i(dq)
    sx, sy = df_add2_21(dx, dy, dq * T(-0.69314718055966295651160180568695068359375))
    sx, sy = df_add2_21(sx, sy, dq * T(-0.28235290563031577122588448175013436025525412068e-12))
    s2x, s2y = df_squ(sx, sy)
    s4x, s4y = df_squ(s2x, s2y)
    s8 = s4x * s4x
    u = fma(
        s8,
        poly2(sx, 0.1602472219709932072e-9, 0.2092255183563157007e-8),
        fma(
            s4x,
            poly4(
                sx,
                s2x,
                0.2505230023782644465e-7,
                0.2755724800902135303e-6,
                0.2755731892386044373e-5,
                0.2480158735605815065e-4,
            ),
            poly4(
                sx,
                s2x,
                0.1984126984148071858e-3,
                0.1388888888886763255e-2,
                0.8333333333333347095e-2,
                0.4166666666666669905e-1,
            ),
        ),
    )
    tx, ty = df_mul_21(sx, sy, T(0.1666666666666666574e0))
    tx, ty = df_add_12(T(0.5), tx, ty)
    tx, ty = df_mul_22(tx, ty, sx, sy)
    tx, ty = df_add_12(T(1.0), tx, ty)
    tx, ty = df_mul_22(tx, ty, sx, sy)
    tx, ty = df_add_12(T(1.0), tx, ty)
    px, py = df_mul_21(s4x, s4y, u)
    tx, ty = df_add_22(tx, ty, px, py)
    tx, ty = ldexp2(tx, q), ldexp2(ty, q)
    under = dx < T(-1000)
    return sel(under, T(0), tx), sel(under, T(0), ty)


def exp2d(d):
    """Sleef_exp2d4_u10 (xexp2)."""
    u = rint_f(d)
    q = rint_i(u)
    s = d - u
    s2 = s * s
    s4 = s2 * s2
    s8 = s4 * s4
    u = fma(
        s8,
        poly2(s, 0.4434359082926529454e-9, 0.7073164598085707425e-8),
        fma(
            s4,
            poly4(
                s,
                s2,
                0.1017819260921760451e-6,
                0.1321543872511327615e-5,
                0.1525273353517584730e-4,
                0.1540353045101147808e-3,
            ),
            poly4(
                s,
                s2,
                0.1333355814670499073e-2,
                0.9618129107597600536e-2,
                0.5550410866482046596e-1,
                0.2402265069591012214e0,
            ),
        ),
    )
    u = fma(u, s, T(0.6931471805599452862e0))
    u = ldexp2(fma(u, s, T(1)), q)
    u = sel(d >= T(1024), T(np.inf), u)
    return sel(d < T(-2000), T(0), u)


def sinhd(x):
    """Sleef_sinhd4_u10 (xsinh): (e - 1 / e) / 2 in double-double, e = expk2(|x|)."""
    return _sinh(x, expk2d(abs_(x), T(0)), T(710))


def coshd(x):
    """Sleef_coshd4_u10 (xcosh)."""
    return _cosh(x, expk2d(abs_(x), T(0)), T(710))


def expm1d(a):
    """Sleef_expm1d4_u10 (xexpm1)."""
    ex, ey = expk2d(a, T(0))
    dx, dy = df_add2_21(ex, ey, T(-1.0))
    x = dx + dy
    x = sel(a > T(709.782712893383996732223), T(np.inf), x)
    x = sel(a < T(-36.736800569677101399113302437), T(-1), x)
    return sel(is_negzero(a), T(-0.0), x)


def tanhd(x):
    """Sleef_tanhd4_u10 (xtanh)."""
    y = abs_(x)
    dx, dy = expk2d(y, T(0))
    ex, ey = df_rec_2(dx, dy)
    nx, ny = df_add2_22(dx, dy, -ex, -ey)
    mx, my = df_add2_22(dx, dy, ex, ey)
    qx, qy = df_div(nx, ny, mx, my)
    y = qx + qy
    y = sel((abs_(x) > T(18.714973875)) | (y != y), T(1.0), y)
    y = mulsign(y, x)
    return sel(x != x, T(np.nan), y)


def log1pd(d):
    """Sleef_log1pd4_u10 (xlog1p)."""
    dp1 = d + T(1)
    o = dp1 < T(2.2250738585072014e-308)
    dp1 = sel(o, dp1 * T(18446744073709551616.0), dp1)
    e = ilogb2k(dp1 * T(1.0 / 0.75))
    t = ldexp3(T(1), -e)
    m = fma(d, t, t - T(1))
    e = sel(o, e - 64, e)
    sx, sy = df_mul_21(
        T(0.693147180559945286226764), T(2.319046813846299558417771e-17), to_float(e)
    )
    ax, ay = df_add_11(T(2), m)
    xx, xy = df_div(m, T(0), ax, ay)
    x2 = xx * xx
    x4 = x2 * x2
    x8 = x4 * x4
    t = fma(
        x8,
        fma(x4, T(0.1532076988502701353), poly2(x2, 0.1525629051003428716, 0.1818605932937785996)),
        poly4(
            x2,
            x4,
            0.2222214519839380009,
            0.2857142932794299317,
            0.3999999999635251990,
            0.6666666666667333541,
        ),
    )
    sx, sy = df_add_22(sx, sy, xx * T(2), xy * T(2))
    sx, sy = df_add_21(sx, sy, (x2 * xx) * t)
    r = sx + sy
    r = sel(d > T(1e307), T(np.inf), r)
    r = sel((d < T(-1)) | (d != d), T(np.nan), r)
    r = sel(d == T(-1), T(-np.inf), r)
    return sel(is_negzero(d), T(-0.0), r)


def poly4v(x, x2, c3, c2, c1, c0):
    """POLY4 on per-element coefficients."""
    return fma(x2, fma(x, c3, c2), fma(x, c1, c0))


def expkd(dx, dy):
    """expk: exp of the pair (dx, dy) as one double (float64)."""
    u = (dx + dy) * T(1.442695040888963407359924681001892137426645954152985934135449406931)
    dq = rint_f(u)
    q = rint_i(dq)
    sx, sy = df_add2_21(dx, dy, dq * T(-0.69314718055966295651160180568695068359375))
    sx, sy = df_add2_21(sx, sy, dq * T(-0.28235290563031577122588448175013436025525412068e-12))
    sx, sy = df_normalize(sx, sy)
    s2 = sx * sx
    s4 = s2 * s2
    s8 = s4 * s4
    u = fma(
        s8,
        poly2(sx, 2.51069683420950419527139e-08, 2.76286166770270649116855e-07),
        fma(
            s4,
            poly4(
                sx,
                s2,
                2.75572496725023574143864e-06,
                2.48014973989819794114153e-05,
                0.000198412698809069797676111,
                0.0013888888939977128960529,
            ),
            poly4(
                sx,
                s2,
                0.00833333333332371417601081,
                0.0416666666665409524128449,
                0.166666666666666740681535,
                0.500000000000000999200722,
            ),
        ),
    )
    if EXPK_NEW:
        tx, ty = df_add_12(T(1), sx, sy)
        qx, qy = df_squ(sx, sy)
        px, py = df_mul_21(qx, qy, u)
        tx, ty = df_add_22(tx, ty, px, py)
    else:
        qx, qy = df_squ(sx, sy)
        px, py = df_mul_21(qx, qy, u)
        tx, ty = df_add_22(sx, sy, px, py)
        tx, ty = df_add_12(T(1), tx, ty)
    u = ldexp2(tx + ty, q)
    return sel(dx < T(-1000), T(0), u)


def erfd(a):
    """Sleef_erfd4_u10 (xerf_u1)."""
    x = abs_(a)
    x2 = x * x
    x4 = x2 * x2
    x8 = x4 * x4
    x16 = x8 * x8
    o25 = x <= T(2.5)
    c20 = sel(o25, T(-0.2083271002525222097e-14), T(-0.4024015130752621932e-18))
    c19 = sel(o25, T(+0.7151909970790897009e-13), T(+0.3847193332817048172e-16))
    c18 = sel(o25, T(-0.1162238220110999364e-11), T(-0.1749316241455644088e-14))
    c17 = sel(o25, T(+0.1186474230821585259e-10), T(+0.5029618322872872715e-13))
    c16 = sel(o25, T(-0.8499973178354613440e-10), T(-0.1025221466851463164e-11))
    c15 = sel(o25, T(+0.4507647462598841629e-9), T(+0.1573695559331945583e-10))
    c14 = sel(o25, T(-0.1808044474288848915e-8), T(-0.1884658558040203709e-9))
    c13 = sel(o25, T(+0.5435081826716212389e-8), T(+0.1798167853032159309e-8))
    c12 = sel(o25, T(-0.1143939895758628484e-7), T(-0.1380745342355033142e-7))
    c11 = sel(o25, T(+0.1215442362680889243e-7), T(+0.8525705726469103499e-7))
    c10 = sel(o25, T(+0.1669878756181250355e-7), T(-0.4160448058101303405e-6))
    c9 = sel(o25, T(-0.9808074602255194288e-7), T(+0.1517272660008588485e-5))
    c8 = sel(o25, T(+0.1389000557865837204e-6), T(-0.3341634127317201697e-5))
    c7 = sel(o25, T(+0.2945514529987331866e-6), T(-0.2515023395879724513e-5))
    c6 = sel(o25, T(-0.1842918273003998283e-5), T(+0.6539731269664907554e-4))
    c5 = sel(o25, T(+0.3417987836115362136e-5), T(-0.3551065097428388658e-3))
    c4 = sel(o25, T(+0.3860236356493129101e-5), T(+0.1210736097958368864e-2))
    c3 = sel(o25, T(-0.3309403072749947546e-4), T(-0.2605566912579998680e-2))
    c2 = sel(o25, T(+0.1060862922597579532e-3), T(+0.1252823202436093193e-2))
    c1 = sel(o25, T(+0.2323253155213076174e-3), T(+0.1820191395263313222e-1))
    c0 = sel(o25, T(+0.1490149719145544729e-3), T(-0.1021557155453465954e0))
    p16 = fma(
        x8,
        fma(x4, poly4v(x, x2, c15, c14, c13, c12), poly4v(x, x2, c11, c10, c9, c8)),
        fma(x4, poly4v(x, x2, c7, c6, c5, c4), poly4v(x, x2, c3, c2, c1, c0)),
    )
    t = fma(x16, fma(x4, c20, poly4v(x, x2, c19, c18, c17, c16)), p16)
    # poly4dd(x, t, C2, C1, C0) = ddmla(x^2, poly2dd(x, t, C2), poly2dd_b(x, C1, C0))
    c2x = sel(o25, T(0.0092877958392275604405), T(-0.63691044383641748361))
    c2y = sel(o25, T(7.9287559463961107493e-19), T(-2.4249477526539431839e-17))
    c1x = sel(o25, T(0.042275531758784692937), T(-1.1282926061803961737))
    c1y = sel(o25, T(1.3785226620501016138e-19), T(-6.2970338860410996505e-17))
    c0x = sel(o25, T(0.07052369794346953491), T(-1.2261313785184804967e-05))
    c0y = sel(o25, T(9.5846628070792092842e-19), T(-5.5329707514490107044e-22))
    mx, my = df_mul_21(t, T(0), x)
    hx, hy = df_add_22(c2x, c2y, mx, my)
    mx, my = df_mul_21(c1x, c1y, x)
    lx, ly = df_add_22(c0x, c0y, mx, my)
    mx, my = df_mul_21(hx, hy, x * x)
    t2x, t2y = df_add_22(lx, ly, mx, my)
    mx, my = df_mul_21(t2x, t2y, x)
    sx, sy = df_add_12(T(1), mx, my)
    sx, sy = df_squ(sx, sy)
    sx, sy = df_squ(sx, sy)
    sx, sy = df_squ(sx, sy)
    sx, sy = df_squ(sx, sy)
    sx, sy = df_rec_2(sx, sy)
    e = expkd(t2x, t2y)
    t2x, t2y = sel(o25, sx, e), sel(o25, sy, T(0))
    t2x, t2y = df_add2_21(t2x, t2y, T(-1))
    z = -(t2x + t2y)
    z = sel(x < T(1e-8), x * T(1.12837916709551262756245475959), z)
    z = sel(x >= T(6), T(1), z)
    z = sel(abs_(a) == T(np.inf), T(1), z)
    z = sel(a == T(0), T(0), z)
    return mulsign(z, a)


# ---- float32 gelu(approximate='none'): oneDNN's AVX2 gelu_erf (torch's contiguous path) ------


def _bits32(v):
    """The float32 with IEEE bits v, as a Python float."""
    return float(np.array([v], np.uint32).view(np.float32)[0])


# oneDNN's table constants (the bits its JIT kernel loads)
DN_LN_MIN, DN_LN_MAX = _bits32(0xC2AEAC50), _bits32(0x42B17218)  # ln FLT_MIN, ln FLT_MAX
DN_LOG2E, DN_LN2 = _bits32(0x3FB8AA3B), _bits32(0x3F317218)
DN_P1, DN_P2, DN_P3 = _bits32(0x3F7FFFFB), _bits32(0x3EFFFEE3), _bits32(0x3E2AAD40)
DN_P4, DN_P5 = _bits32(0x3D2B9D0D), _bits32(0x3C07CFCE)  # exp's polynomial
DN_AS_P, DN_RSQRT2, DN_RSQRTPI = _bits32(0x3EA7BA05), _bits32(0x3F3504F3), _bits32(0x3F106EBA)
DN_A1, DN_A2, DN_A3 = _bits32(0x3E827906), _bits32(0xBE91A98E), _bits32(0x3FB5F0E3)
DN_A4, DN_A5 = _bits32(0xBFBA00E3), _bits32(0x3F87DC22)  # Abramowitz-Stegun's polynomial
DNNL_F = {k: v for k, v in globals().items() if k.startswith("DN_")}


def dnnl_expf(x):
    """oneDNN's exp_compute_vector_fwd: clipped to [ln FLT_MIN, ln FLT_MAX], 2^(n-1) exp(r) 2
    with a degree-5 polynomial (0 below ln FLT_MIN; minps/maxps: NaN takes the bound)."""
    zero = x < T(DN_LN_MIN)
    x = sel(x < T(DN_LN_MAX), x, T(DN_LN_MAX))
    x = sel(x > T(DN_LN_MIN), x, T(DN_LN_MIN))
    fx = np.floor(x * T(DN_LOG2E) + T(0.5))
    r = fma(-fx, T(DN_LN2), x)
    pw = ldexp3(T(1), rint_i(fx - T(1)))
    pw = sel(zero, T(0), pw)
    p = fma(T(DN_P5), r, T(DN_P4))
    p = fma(p, r, T(DN_P3))
    p = fma(p, r, T(DN_P2))
    p = fma(p, r, T(DN_P1))
    p = fma(p, r, T(1))
    return (p * pw) * T(2)


def dnnl_erf_abs(x):
    """oneDNN's Abramowitz-Stegun erf of |x| (1 - r(t) t exp(-x^2), t = 1 / (p |x| + 1))."""
    t = T(1) / fma(T(DN_AS_P), abs_(x), T(1))
    src = -dnnl_expf(-(x * x)) * t
    r = fma(T(DN_A5), t, T(DN_A4))
    r = fma(r, t, T(DN_A3))
    r = fma(r, t, T(DN_A2))
    r = fma(r, t, T(DN_A1))
    return fma(src, r, T(1))


def gelu_dnnlf(s):
    """oneDNN's AVX2 gelu_erf forward: S + S erf(s / sqrt 2) fused, S = s / 2."""
    erf = mulsign(dnnl_erf_abs(s * T(DN_RSQRT2)), s)
    h = s * T(0.5)
    return fma(erf, h, h)


def gelu_dnnl_gradf(s):
    """oneDNN's AVX2 gelu_erf backward derivative: (R / sqrt(pi) exp(-R^2) + 1/2) + erf(R) / 2
    (fused), R = s / sqrt 2."""
    r = s * T(DN_RSQRT2)
    q = dnnl_expf(-(r * r))
    t = (r * T(DN_RSQRTPI)) * q
    erf = mulsign(dnnl_erf_abs(r), r)
    return fma(erf, T(0.5), t + T(0.5))


def erf_atenf(x):
    """``Vectorized<float>::erf()`` (ATen's AVX2 float erf: Abramowitz-Stegun with Sleef's
    expf), torch's float32 gelu on strided inputs."""
    t = T(1) / fma(T(0.3275911), abs_(x), T(1))
    r = fma(T(1.061405429), t, T(-1.453152027))
    r = fma(r, t, T(1.421413741))
    r = fma(r, t, T(-0.284496736))
    r = fma(r, t, T(0.254829592))
    e = -sleef_exp(-(x * x))
    return mulsign(fma(e * t, r, T(1)), x)


GENERIC = (
    _sinh,
    _cosh,
    df_add_11,
    df_add_21,
    df_add_12,
    df_add_22,
    df_add2_11,
    df_add2_21,
    df_add2_22,
    df_normalize,
    df_mul_11,
    df_mul_21,
    df_mul_22,
    df_squ,
    df_rec_2,
    df_div,
    poly2,
    poly4,
)
FLOAT = (
    exp2f,
    sinhf,
    coshf,
    expk2f,
    expm1f,
    tanhf,
    log1pf,
    dnnl_expf,
    dnnl_erf_abs,
    gelu_dnnlf,
    gelu_dnnl_gradf,
    erf_atenf,
)
DOUBLE = (expk2d, expm1d, tanhd, log1pd, poly4v, expkd, erfd, sinhd, coshd, exp2d)
PUBLIC = ("expm1", "tanh", "log1p", "sinh", "cosh", "exp2")


def bind(funcs, namespace):
    """Copies of `funcs` whose global names resolve in `namespace` (updated with them)."""
    for f in funcs:
        namespace[f.__name__] = types.FunctionType(f.__code__, namespace, f.__name__)
    return namespace


# ---- the NumPy helpers ----------------------------------------------------------------------


def _numpy_helpers(t):
    """The helpers of the generic functions for NumPy arrays of the float type t."""
    f32 = t is np.float32
    ib, ub, sh, bias, mask = (
        (np.int32, np.uint32, 23, 127, 0xFF) if f32 else (np.int64, np.uint64, 52, 1023, 0x7FF)
    )
    sign = ib(np.iinfo(ib).min)

    def fma(a, b, c):
        """a b + c rounded once (framework._fma's exact emulation; inf and NaN as the
        hardware FMA gives them)."""
        a, b, c = (np.asarray(v, t) for v in (a, b, c))
        if f32:
            return fma32(a, b, c)
        a, b, c = np.broadcast_arrays(a, b, c)
        ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
        z = t(0)
        with np.errstate(all="ignore"):
            r = fma64(np.where(ok, a, z), np.where(ok, b, z), np.where(ok, c, z))
            return np.where(ok, r, a * b + c)

    def bits(x):
        """The bits of x as the dtype's integer."""
        return np.asarray(x, t).view(ib)

    def pow2i(q):
        """2**q as the dtype (q in its exponent range)."""
        return ((q.astype(ib) + ib(bias)) << ib(sh)).view(t)

    def ldexp2(d, e):
        """d * 2**e in two steps (no overflow of one power)."""
        h = e >> 1
        return (d * pow2i(h)) * pow2i(e - h)

    def ldexp3(d, q):
        """d * 2**q by adding q to d's exponent bits."""
        return (bits(d) + (q.astype(ib) << ib(sh))).view(t)

    def ilogb2k(d):
        """The unbiased exponent of d's bits."""
        return (((bits(d) >> ib(sh)) & ib(mask)) - ib(bias - 0)).astype(ib)

    def rint_f(u):
        """Round to the nearest integer (ties to even), as a float."""
        return np.rint(u)

    def rint_i(u):
        """Round to int32 as Sleef's vector conversion (out of range: INT_MIN)."""
        big = ~(np.abs(u) < t(2147483520.0))
        r = np.where(big, t(0), np.rint(u)).astype(np.int64)
        return np.where(big, np.int64(-(2**31)), r)

    def to_float(q):
        """The integers as the dtype."""
        return q.astype(t)

    def mulsign(x, y):
        """x with its sign flipped where y is negative (y's sign bit)."""
        return (bits(x) ^ (bits(y) & sign)).view(t)

    def is_negzero(x):
        """Whether x is -0."""
        return bits(x) == sign

    return {
        "np": np,
        "T": t,
        "fma": fma,
        "sel": np.where,
        "abs_": np.abs,
        "ldexp2": ldexp2,
        "ldexp3": ldexp3,
        "ilogb2k": ilogb2k,
        "rint_f": rint_f,
        "rint_i": rint_i,
        "to_float": to_float,
        "mulsign": mulsign,
        "is_negzero": is_negzero,
        "logf_big": _sleef.log_np,
        "sleef_exp": _sleef.exp_np,
        "EXPK_NEW": EXPK_NEW,
        **DNNL_F,
    }


_NUMPY = {}


def numpy_funcs(t):
    """{'expm1', 'tanh', 'log1p', 'sinh', 'cosh', 'exp2'} -> Sleef's function on NumPy arrays of the
    float type t."""
    t = np.dtype(t).type
    fs = _NUMPY.get(t)
    if fs is None:
        ns = bind(GENERIC + (FLOAT if t is np.float32 else DOUBLE), _numpy_helpers(t))
        suffix = "f" if t is np.float32 else "d"

        def wrap(f):
            """f (a bound Sleef function) as a NumPy function of arrays of type t."""

            def run(x):
                """f(x) with x as an array of type t, silent on NumPy's warnings."""
                with np.errstate(all="ignore"):
                    return np.asarray(f(np.asarray(x, t)), t)

            return run

        names = PUBLIC + (
            ("gelu_dnnl", "gelu_dnnl_grad", "erf_aten") if t is np.float32 else ("erf",)
        )
        fs = _NUMPY[t] = {name: wrap(ns[name + suffix]) for name in names}
    return fs
