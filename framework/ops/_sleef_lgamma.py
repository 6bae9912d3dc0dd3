"""torch's CPU lgamma of float32/float64 arrays, bit for bit: vml.h's ``vlgamma`` maps
``Vectorized<T>::lgamma()`` (``Sleef_lgammaf8_u10`` / ``Sleef_lgammad4_u10``, Sleef's
``xlgammaf_u1`` / ``xlgamma_u1``) over every element, the last partial vector loaded padded
and strided inputs copied to a buffer first, so no element takes the C library's lgamma
(measured on torch 2.13's AVX2 build: glibc's lgammaf/lgamma differ from torch's in a third
of N(0, 3) elements in any position, Sleef's in none). Sleef's function: ``gammak`` (a
double-float log Gamma by a polynomial in [0.5, 2.3], Stirling's series above with a
product to shift small x up, the reflection formula through ``sinpik`` below 0.5) and
``logk2`` of its quotient. Written once on `_sleef_math`'s double-float helpers and
`_sleef_atanh`'s ``logk2``, compiled by ``_sleef_special_jit`` where numba is (from
``JIT_MIN`` elements), else run in NumPy.

Example:
    >>> import numpy as np
    >>> float(lgamma(np.float32([1.0, 2.0]))[1])
    0.0
"""

import numpy as np

from . import _sleef_atanh as A
from . import _sleef_math as M

T = fma = sel = abs_ = to_float = mulsign = trunc_i = trunc_f = None  # (bound per type)
df_add2_11 = df_add2_21 = df_add2_22 = df_normalize = None
df_mul_11 = df_mul_21 = df_mul_22 = df_div = logk2 = None
# the type's constants (_CONSTS below)
TINY = O0_HI = STEPS = WRAP = BIG = SIN_U = SIN_X1 = SIN_X2 = U = Z = None
HALF_LOG_2PI = LOG_TINY = LOG_PI = None


def df_add2_12(x, y, yy):
    """dfadd2_vf2_vf_vf2: x + (y, yy), any magnitudes."""
    rx = x + y
    v = rx - x
    return rx, ((x - (rx - v)) + (y - v)) + yy


def sinpik(d):
    """sinpifk / sinpik: sin(pi d) as a pair (|d| < 2^31 / 4)."""
    u = d * T(4)
    q = trunc_i(u)
    q = sel(q < 0, q, q + 1) & -2
    o = (q & 2) == 2
    s = u - to_float(q)
    t = s
    s = s * s
    s2x, s2y = df_mul_11(t, t)
    cu = SIN_U
    u = sel(o, T(cu[0][0]), T(cu[0][1]))
    for i in range(1, len(cu)):
        u = fma(u, s, sel(o, T(cu[i][0]), T(cu[i][1])))
    a, b = SIN_X1, SIN_X2
    xx, xy = df_add2_12(u * s, sel(o, T(a[0]), T(a[2])), sel(o, T(a[1]), T(a[3])))
    px, py = df_mul_22(s2x, s2y, xx, xy)
    xx, xy = df_add2_22(px, py, sel(o, T(b[0]), T(b[2])), sel(o, T(b[1]), T(b[3])))
    xx, xy = df_mul_22(xx, xy, sel(o, s2x, t), sel(o, s2y, T(0)))
    ox, oy = df_add2_21(xx, xy, T(1))
    xx, xy = sel(o, ox, xx), sel(o, oy, xy)
    neg = (q & 4) == 4
    return sel(neg, -xx, xx), sel(neg, -xy, xy)


def gammak(a):
    """gammafk / gammak: (log part, quotient part) of Gamma(a), each a pair."""
    zero, one = T(0), T(1)
    otiny = abs_(a) < T(TINY)
    oref = a < T(0.5)
    rx, ry = df_add2_11(one, -a)
    xx = sel(otiny, zero, sel(oref, rx, a))
    xy = sel(otiny, zero, sel(oref, ry, zero))
    o0 = (T(0.5) <= xx) & (xx <= T(O0_HI))
    o2 = T(2.3) <= xx
    yx, yy = xx, xy
    for k in range(1, STEPS + 1):
        sx, sy = df_add2_21(xx, xy, T(k))
        mx, my = df_mul_22(sx, sy, yx, yy)
        yx, yy = df_normalize(mx, my)
    o = o2 & (xx <= T(7))
    cnx, cny = sel(o, yx, one), sel(o, yy, zero)
    sx, sy = df_add2_21(xx, xy, T(STEPS + 1))
    xx, xy = sel(o, sx, xx), sel(o, sy, xy)
    nx, ny = df_add2_21(xx, xy, sel(o0, T(-1), T(-2)))
    t = sel(o2, one / xx, df_normalize(nx, ny)[0])
    cs = U
    u = sel(o2, T(cs[0][0]), sel(o0, T(cs[0][1]), T(cs[0][2])))
    for i in range(1, len(cs)):
        u = fma(u, t, sel(o2, T(cs[i][0]), sel(o0, T(cs[i][1]), T(cs[i][2]))))
    hx, hy = df_add2_21(xx, xy, T(-0.5))
    lx, ly = logk2(xx, xy)
    yx, yy = df_mul_22(hx, hy, lx, ly)
    yx, yy = df_add2_22(yx, yy, -xx, -xy)
    yx, yy = df_add2_22(yx, yy, T(HALF_LOG_2PI[0]), T(HALF_LOG_2PI[1]))
    zc = Z
    ux, uy = df_mul_11(u, t)
    zx, zy = df_add2_21(ux, uy, sel(o0, T(zc[0][0]), T(zc[0][1])))
    for i in (1, 2):
        mx, my = df_mul_21(zx, zy, t)
        zx, zy = df_add2_21(mx, my, sel(o0, T(zc[i][0]), T(zc[i][1])))
    zx, zy = df_mul_21(zx, zy, t)
    clcx, clcy = sel(o2, yx, zx), sel(o2, yy, zy)
    dx, dy = df_add2_21(ux, uy, one)
    cldx, cldy = sel(o2, dx, one), sel(o2, dy, zero)
    lp = LOG_PI
    rx, ry = df_add2_22(T(lp[0]), T(lp[1]), -clcx, -clcy)
    lt = LOG_TINY
    clcx = sel(otiny, T(lt[0]), sel(oref, rx, clcx))
    clcy = sel(otiny, T(lt[1]), sel(oref, ry, clcy))
    nnx = sel(otiny, one, sel(oref, cnx, cldx))
    nny = sel(otiny, zero, sel(oref, cny, cldy))
    w = T(WRAP)
    t = a - w * to_float(trunc_i(a * (one / w)))
    sx, sy = sinpik(t)
    px, py = df_mul_22(cldx, cldy, sx, sy)
    ddx = sel(otiny, a * T(BIG), sel(oref, px, cnx))
    ddy = sel(otiny, zero, sel(oref, py, cny))
    qx, qy = df_div(nnx, nny, ddx, ddy)
    return clcx, clcy, qx, qy


def lgamma_sleef(a):
    """xlgammaf_u1 / xlgamma_u1 of a."""
    cx, cy, bx, by = gammak(a)
    lx, ly = logk2(abs_(bx), mulsign(by, bx))
    yx, yy = df_add2_22(cx, cy, lx, ly)
    r = yx + yy
    inf = T(np.inf)
    o = (abs_(a) == inf) | ((a <= T(0)) & (trunc_f(a) == a)) | ((abs_(a) < inf) & (r != r))
    return sel(o, inf, r)


def _pair(d):
    """vcast_vf2_d: a double constant as a float pair."""
    hi = np.float32(d)
    return float(hi), float(np.float32(d - float(hi)))


_U64 = (  # gammak's polynomial: (Stirling's x > 2.3, [0.5, 1.1], the rest), highest first
    (-156.801412704022726379848862, 0.2947916772827614196e+2, 0.7074816000864609279e-7),
    (1.12080446428991160683855816, 0.1281459691827820109e+3, 0.4009244333008730443e-6),
    (13.3979854551425892183330602, 0.2617544025784515043e+3, 0.1040114641628246946e-5),
    (-0.116546276599463200848033357, 0.3287022855685790432e+3, 0.1508349150733329167e-5),
    (-1.39180109326533748149556241, 0.2818145867730348186e+3, 0.1288143074933901020e-5),
    (0.015056113040026424412918973400, 0.1728670414673559605e+3, 0.4744167749884993937e-6),
    (0.179540117061234856098844714, 0.7748735764030416817e+2, -0.6554816306542489902e-7),
    (-0.002481743600264997730942489280, 0.2512856643080930752e+2, -0.3189252471452599844e-6),
    (-0.029527880945699120504851034100, 0.5766792106140076868e+1, 0.1358883821470355377e-6),
    (0.000540164767892604515196325186, 0.7270275473996180571e+0, -0.4343931277157336040e-6),
    (0.006403362833808069794787256200, 0.8396709124579147809e-1, 0.9724785897406779555e-6),
    (-0.000162516262783915816896611252, -0.8211558669746804595e-1, -0.2036886057225966011e-5),
    (-0.001914438498565477526465972390, 0.6828831828341884458e-1, 0.4373363141819725815e-5),
    (7.20489541602001055898311517e-05, -0.7712481339961671511e-1, -0.9439951268304008677e-5),
    (0.000839498720672087279971000786, 0.8337492023017314957e-1, 0.2050727030376389804e-4),
    (-5.17179090826059219329394422e-05, -0.9094964931456242518e-1, -0.4492620183431184018e-4),
    (-0.000592166437353693882857342347, 0.1000996313575929358e+0, 0.9945751236071875931e-4),
    (6.97281375836585777403743539e-05, -0.1113342861544207724e+0, -0.2231547599034983196e-3),
    (0.000784039221720066627493314301, 0.1255096673213020875e+0, 0.5096695247101967622e-3),
    (-0.000229472093621399176949318732, -0.1440498967843054368e+0, -0.1192753911667886971e-2),
    (-0.002681327160493827160473958490, 0.1695571770041949811e+0, 0.2890510330742210310e-2),
    (0.003472222222222222222175164840, -0.2073855510284092762e+0, -0.7385551028674461858e-2),
    (0.083333333333333333335592087900, 0.2705808084277815939e+0, 0.2058080842778455335e-1),
)  # fmt: skip


_CONSTS = {
    np.float32: {
        "TINY": 1e-30, "O0_HI": 1.2, "STEPS": 2, "WRAP": 2.0**12, "BIG": 2.0**60,
        "SIN_U": ((-0.2430611801e-7, 0.3093842054e-6), (0.3590577080e-5, -0.3657307388e-4),
                  (-0.3259917721e-3, 0.2490393585e-2)),
        "SIN_X1": (0.015854343771934509277, 4.4940051354032242811e-10,
                   -0.080745510756969451904, -1.3373665339076936258e-09),
        "SIN_X2": (-0.30842512845993041992, -9.0728339030733922277e-09,
                   0.78539818525314331055, -2.1857338617566484855e-08),
        "U": ((0.000839498720672087279971000786, 0.9435157776e+0, 0.1102489550e-3),
              (-5.17179090826059219329394422e-05, 0.8670063615e+0, 0.8160019934e-4),
              (-0.000592166437353693882857342347, 0.4826702476e+0, 0.1528468856e-3),
              (6.97281375836585777403743539e-05, -0.8855129778e-1, -0.2355068718e-3),
              (0.000784039221720066627493314301, 0.1013825238e+0, 0.4962242092e-3),
              (-0.000229472093621399176949318732, -0.1493408978e+0, -0.1193488017e-2),
              (-0.002681327160493827160473958490, 0.1697509140e+0, 0.2891599433e-2),
              (0.003472222222222222222175164840, -0.2072454542e+0, -0.7385451812e-2),
              (0.083333333333333333335592087900, 0.2705872357e+0, 0.2058077045e-1)),
        "Z": ((-0.400686534596170958447352690395e+0, -0.673523028297382446749257758235e-1),
              (0.822466960142643054450325495997e+0, 0.322467033928981157743538726901e+0),
              (-0.577215665946766039837398973297e+0, 0.422784335087484338986941629852e+0)),
        "HALF_LOG_2PI": _pair(0.91893853320467278056),
        "LOG_TINY": _pair(41.58883083359671856503),
        "LOG_PI": _pair(1.1447298858494001639),
    },
    np.float64: {
        "TINY": 1e-306, "O0_HI": 1.1, "STEPS": 4, "WRAP": 2.0**28, "BIG": 2.0**120,
        "SIN_U": ((9.94480387626843774090208e-16, -2.02461120785182399295868e-14),
                  (-3.89796226062932799164047e-13, 6.948218305801794613277840e-12),
                  (1.150115825399960352669010e-10, -1.75724749952853179952664e-09),
                  (-2.46113695010446974953590e-08, 3.133616889668683928784220e-07),
                  (3.590860448590527540050620e-06, -3.65762041821615519203610e-05),
                  (-0.000325991886927389905997954, 0.0024903945701927185027435600)),
        "SIN_X1": (0.0158543442438155018914259, -1.04693272280631521908845e-18,
                   -0.0807455121882807852484731, 3.61852475067037104849987e-18),
        "SIN_X2": (-0.308425137534042437259529, -1.95698492133633550338345e-17,
                   0.785398163397448278999491, 3.06287113727155002607105e-17),
        "U": _U64,
        "Z": ((-0.4006856343865314862e+0, -0.6735230105319810201e-1),
              (0.8224670334241132030e+0, 0.3224670334241132030e+0),
              (-0.5772156649015328655e+0, 0.4227843350984671345e+0)),
        "HALF_LOG_2PI": (0.91893853320467278056, -3.8782941580672414498e-17),
        "LOG_TINY": (83.1776616671934334590333, 3.67103459631568507221878e-15),
        "LOG_PI": (1.1447298858494001639, 1.026595116270782638e-17),
    },
}  # fmt: skip
OWN = (df_add2_12, sinpik, gammak, lgamma_sleef)
_BOUND = {}
JIT_MIN = 1024  # elements from which the compiled loop runs (it costs ~7 s to compile cold;
#                 the NumPy replay of a small call ~1 ms)


def _numpy_helpers(t):
    """The NumPy helpers lgamma adds to `_sleef_math`'s: truncations as AVX2's."""

    def trunc_i(u):
        """vtruncate to int32 (cvttps2dq / cvttpd2dq): out of range and NaN give INT_MIN."""
        big = ~(np.abs(u) < t(2.0**31))
        r = np.where(big, t(0), np.trunc(u)).astype(np.int64)
        return np.where(big, np.int64(-(2**31)), r)

    return {"trunc_i": trunc_i, "trunc_f": np.trunc}


def _body(t):
    """Sleef's lgamma bound to NumPy arrays of the float type t."""
    f = _BOUND.get(t)
    if f is None:
        ns = M._numpy_helpers(t)
        ns.update(_numpy_helpers(t))
        ns["LOG2"], ns["LOGK2_POLY"] = A._CONSTS[t]
        ns.update(_CONSTS[t])
        ns = M.bind(M.GENERIC + (A.poly_horner, A.poly_estrin, A.logk2) + OWN, ns)
        ns["_poly"] = ns["poly_horner" if t is np.float32 else "poly_estrin"]
        f = _BOUND[t] = ns["lgamma_sleef"]
    return f


def lgamma(x):
    """torch's lgamma of the float32/float64 NumPy array x (any layout), in a C-contiguous
    array of x's shape and dtype."""
    out = np.empty(x.shape, x.dtype)
    if x.size == 0:
        return out
    flat = np.ascontiguousarray(x).reshape(-1)
    j = A._jit() if x.size >= JIT_MIN else None
    with np.errstate(all="ignore"):
        if j is not None:
            j.lgamma_flat(x.dtype)(flat, out.reshape(-1))
        else:
            out.reshape(-1)[...] = _body(x.dtype.type)(flat)
    return out
