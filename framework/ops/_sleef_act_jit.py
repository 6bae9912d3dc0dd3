"""numba loops for ``_sleef_act``: torch's AVX2 elu/selu/celu, softplus, mish, logsigmoid and
gelu(approximate='tanh') kernels, forward and backward, one compiled loop per kernel
(imported only where numba is; see ``_sleef_act``).

Sleef's expm1/log1p/tanh are ``_sleef_math``'s generic functions bound to scalar helpers
(``fma`` is LLVM's ``llvm.fma``, the bit tricks LLVM bitcasts); Sleef's exp and log are
``_sleef_jit``'s. The loops are templates compiled once per dtype (``kernels``), each bound
to that dtype's functions, all inlined so that LLVM vectorizes the vector body's loop
(no call, selects rather than branches). Each kernel runs torch's vector body on the first
n - n % (2 lanes) elements and its scalar code on the rest, as ``cpu_kernel_vec`` does,
with the C library's exp/expm1/log1p/tanh (numba lowers ``np.exp``... to LLVM intrinsics
that call them, also where LLVM vectorizes a tail loop; ``_sleef_act`` does not use these
loops where numba maps them to Intel's SVML instead). ``MISH_FUSED`` and
``GELU_TANH_FUSED`` are the multiply-adds GCC contracts in torch's build (measured against
torch 2.13). numba caches the compiled loops on disk by this file's timestamp only: edit
this file too when ``_sleef_math`` changes.
"""

import math

import numpy as np
from numba import njit

from .._numba_fma import fma
from . import _sleef_math as M
from ._sleef_act import GELU_TANH_FUSED, MISH_FUSED
from ._sleef_jit import _exp64, _expf, _logf, bits, from_bits

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}
_INLINE = {"inline": "always", "error_model": "numpy"}


# Placeholders for the names ``_instantiate`` and ``kernels`` bind per dtype (the functions
# here are templates: only their bound copies run).
T = IB = SH = BIAS = MASK = SIGN = None
vexp = vexpm1 = vlog1p = vtanh = verf = gelu_dnnlf = gelu_dnnl_gradf = None


def sel(m, a, b):
    """vsel: a where m, else b."""
    return a if m else b


def abs_(x):
    """vabs."""
    return abs(x)


def pow2i(q):
    """vpow2i: 2**q from its exponent bits."""
    return from_bits(IB((q + BIAS) << SH))


def ldexp2(d, e):
    """vldexp2: d 2**e in two steps."""
    h = e >> 1
    return (d * pow2i(h)) * pow2i(e - h)


def ldexp3(d, q):
    """vldexp3: q added to d's exponent bits."""
    return from_bits(IB(bits(d) + (IB(q) << SH)))


def ilogb2k(d):
    """vilogb2k: d's unbiased exponent field."""
    return IB(((bits(d) >> SH) & MASK) - BIAS)


def rint_f(u):
    """vrint_vd_vd: round to nearest even."""
    return np.rint(u)


def rint_i(u):
    """vrint_vi: round to nearest even int32 (INT_MIN out of range, as cvtps2dq)."""
    r = np.rint(u)
    return IB(r) if abs(u) < T(2147483520.0) else IB(-(2**31))


def to_float(q):
    """vcast_vf_vi2."""
    return T(q)


def mulsign(x, y):
    """vmulsign: x with its sign flipped where y is negative."""
    return from_bits(IB(bits(x) ^ (bits(y) & IB(SIGN))))


def is_negzero(x):
    """visnegzero."""
    return bits(x) == IB(SIGN)


_HELPERS = (
    sel,
    abs_,
    pow2i,
    ldexp2,
    ldexp3,
    ilogb2k,
    rint_f,
    rint_i,
    to_float,
    mulsign,
    is_negzero,
)


def _instantiate(t, funcs):
    """_sleef_math's functions compiled for numba scalars of type t (a dict by name)."""
    f32 = t is np.float32
    ns = {"np": np, "T": t, "fma": fma, "bits": bits, "from_bits": from_bits, "abs": abs}
    ns["logf_big"] = _logf
    ns["EXPK_NEW"] = M.EXPK_NEW
    ns.update(M.DNNL_F)
    ns["sleef_exp"] = _expf if f32 else _exp64
    ns.update(IB=np.int32 if f32 else np.int64, SH=23 if f32 else 52)
    ns.update(BIAS=127 if f32 else 1023, MASK=0xFF if f32 else 0x7FF)
    ns.update(SIGN=-(2**31) if f32 else -(2**63))
    M.bind(_HELPERS + M.GENERIC + funcs, ns)
    for f in _HELPERS + M.GENERIC + funcs:
        ns[f.__name__] = njit(**_INLINE)(ns[f.__name__])
    return ns


_F = _instantiate(np.float32, M.FLOAT)
_D = _instantiate(np.float64, M.DOUBLE)


_KERNELS = []  # the loops below, compiled once per dtype by kernels()


def kernel(f):
    """Register a loop of this module (compiled per dtype by ``kernels``)."""
    _KERNELS.append(f)
    return f


_COMPILED = {}


def kernels(dt):
    """The loops for NumPy dtype dt (float32 or float64), as a dict by name: each bound to
    that dtype's Sleef functions (``vexp``, ``vexpm1``, ``vlog1p``, ``vtanh``), which numba
    inlines so that the vector loops vectorize."""
    ns = _COMPILED.get(dt)
    if ns is None:
        dt = np.dtype(dt)
        f32 = dt == np.float32
        fs = _F if f32 else _D
        sfx = "f" if f32 else "d"
        ns = dict(globals())
        ns.update(vexp=_expf if f32 else _exp64, vexpm1=fs["expm1" + sfx])
        ns.update(vlog1p=fs["log1p" + sfx], vtanh=fs["tanh" + sfx])
        ns.update(verf=fs["erf_atenf"] if f32 else _D["erfd"])  # ATen's float erf, Sleef's
        ns.update(gelu_dnnlf=fs.get("gelu_dnnlf"), gelu_dnnl_gradf=fs.get("gelu_dnnl_gradf"))
        for f in _KERNELS:
            g = M.bind([f], ns)[f.__name__]
            g.__qualname__ = f"{f.__name__}_{dt.name}"  # (numba's cache index: one each)
            ns[f.__name__] = njit(**(_INLINE if f.__name__.startswith("_") else _OPTS))(g)
        _COMPILED[dt] = _COMPILED[dt.type] = ns
    return ns


@kernel
def map_array(x, out, which):
    """Sleef's expm1 (which 0), log1p (1) or tanh (2) of each element of the flat x."""
    for i in range(x.size):
        v = x[i]
        out[i] = vexpm1(v) if which == 0 else (vlog1p(v) if which == 1 else vtanh(v))


# Each kernel runs two loops: the vector body's elements (pure arithmetic with no call, so
# that LLVM vectorizes it; selects rather than branches) and the scalar tail (the C library).


def _tail_start(n, itemsize, vec):
    """Where cpu_kernel_vec's scalar tail starts in a row of n elements."""
    return n - n % (64 // itemsize) if vec else 0


_tail = njit(**_INLINE)(_tail_start)


@kernel
def elu(x, out, vec, c):
    """torch's elu kernel over flat contiguous x: x scale where x >= 0, else expm1(x
    input_scale) alpha scale (Sleef's expm1 in the vector body, the C library's in the
    tail; all in the scalar code where not vec); c = (alpha scale, scale, input_scale)."""
    nv = _tail(x.size, x.itemsize, vec)
    neg, pos, ipt = c[0], c[1], c[2]
    zero = c[1] - c[1]
    for i in range(nv):
        a = x[i]
        e = vexpm1(a * ipt) * neg
        out[i] = e if a < zero else a * pos
    for i in range(nv, x.size):
        a = x[i]
        out[i] = np.expm1(a * ipt) * neg if a < zero else a * pos


@kernel
def elu_backward(g, x, out, vec, c):
    """torch's elu_backward (is_result=False) over flat contiguous g and x: g scale where
    x > 0, else g input_scale alpha scale exp(x input_scale) (Sleef's exp in the vector
    body, the C library's in the tail, where a NaN x gives g scale); c as elu's."""
    nv = _tail(x.size, x.itemsize, vec)
    neg, pos, ipt = c[0], c[1], c[2]
    zero = c[1] - c[1]
    for i in range(nv):  # blendv(..., b > 0): a NaN x takes the exp branch
        a, b = g[i], x[i]
        e = a * ipt * neg * vexp(b * ipt)
        out[i] = a * pos if b > zero else e
    for i in range(nv, x.size):  # b <= 0 ? ... : a NaN x takes a * scale
        a, b = g[i], x[i]
        out[i] = a * ipt * neg * np.exp(b * ipt) if b <= zero else a * pos


@kernel
def softplus(x, out, vec, c):
    """torch's softplus kernel over flat contiguous x: x where x beta > threshold, else
    log1p(exp(x beta)) / beta (Sleef's in the vector body, the C library's in the tail);
    c = (beta, threshold)."""
    nv = _tail(x.size, x.itemsize, vec)
    beta, thr = c[0], c[1]
    for i in range(nv):
        a = x[i]
        b = a * beta
        r = vlog1p(vexp(b)) / beta
        out[i] = a if b > thr else r
    for i in range(nv, x.size):
        a = x[i]
        b = a * beta
        out[i] = a if b > thr else np.log1p(np.exp(b)) / beta


@kernel
def softplus_backward(g, x, out, vec, c):
    """torch's softplus_backward over flat contiguous g and x: g where x beta > threshold,
    else g z / (z + 1) with z = exp(x beta); c = (beta, threshold, 1)."""
    nv = _tail(x.size, x.itemsize, vec)
    beta, thr, one = c[0], c[1], c[2]
    for i in range(nv):
        b = x[i] * beta
        z = vexp(b)
        r = g[i] * z / (z + one)
        out[i] = g[i] if b > thr else r
    for i in range(nv, x.size):
        b = x[i] * beta
        if b > thr:
            out[i] = g[i]
        else:
            z = np.exp(b)
            out[i] = g[i] * z / (z + one)


@kernel
def mish(x, out, vec):
    """torch's mish kernel over flat contiguous x: x tanh(log1p(exp(x)))."""
    nv = _tail(x.size, x.itemsize, vec)
    for i in range(nv):
        a = x[i]
        out[i] = a * vtanh(vlog1p(vexp(a)))
    for i in range(nv, x.size):
        a = x[i]
        out[i] = a * np.tanh(np.log1p(np.exp(a)))


@kernel
def _mish_grad(gi, a, s, t, one):
    """g (t + x s (1 - t t)), MISH_FUSED's products contracted."""
    u = fma(-t, t, one) if MISH_FUSED & 1 else one - t * t
    xs = a * s
    return gi * (fma(xs, u, t) if MISH_FUSED & 2 else t + xs * u)


@kernel
def mish_backward(g, x, out, vec, c):
    """torch's mish_backward over flat contiguous g and x: g (t + x s (1 - t^2)) with
    s = 1 / (1 + exp(-x)), t = tanh(log1p(exp(x))); c = (0, 1)."""
    nv = _tail(x.size, x.itemsize, vec)
    zero, one = c[0], c[1]
    for i in range(nv):
        a = x[i]
        s = one / (one + vexp(zero - a))
        t = vtanh(vlog1p(vexp(a)))
        out[i] = _mish_grad(g[i], a, s, t, one)
    for i in range(nv, x.size):
        a = x[i]
        s = one / (one + np.exp(-a))
        t = np.tanh(np.log1p(np.exp(a)))
        out[i] = _mish_grad(g[i], a, s, t, one)


@kernel
def log_sigmoid(x, out, c):
    """torch's log_sigmoid kernel's output over flat contiguous x (every element in its
    vector code): min(x, 0) - log1p(exp(-|x|)) (its buffer exp(-|x|) is not kept);
    c = (0,)."""
    zero = c[0]
    for i in range(x.size):
        a = x[i]
        r = vlog1p(vexp(-abs(a)))
        m = zero if a >= zero else a  # (vec::minimum: NaN stays)
        out[i] = m - r


@kernel
def log_sigmoid_backward(g, x, out, vec, c):
    """torch's log_sigmoid_backward over flat contiguous g and x with forward's buffer
    exp(-|x|) recomputed (in its vector code, whatever vec says): (max_deriv - sign b /
    (1 + b)) g, max_deriv 1 and sign 1 where x < 0, else 0 and -1 (whether GCC contracts
    the difference does not show: sign is +-1); c = (0, 1)."""
    zero, one = c[0], c[1]
    for i in range(x.size):
        a = x[i]
        b = vexp(-abs(a))
        q = b / (one + b)
        out[i] = ((one - q) if a < zero else (zero + q)) * g[i]


@kernel
def _gelu_inner(a, beta, kappa):
    """beta (x + kappa x^3), GELU_TANH_FUSED's product contracted."""
    cube = a * a * a
    return beta * (fma(kappa, cube, a) if GELU_TANH_FUSED & 1 else a + kappa * cube)


@kernel
def gelu_tanh(x, out, vec, c):
    """torch's gelu(approximate='tanh') kernel over flat contiguous x: 1/2 x (1 +
    tanh(beta (x + kappa x^3))); c = (beta, kappa, 1, 1/2)."""
    nv = _tail(x.size, x.itemsize, vec)
    beta, kappa, one, half = c[0], c[1], c[2], c[3]
    for i in range(nv):
        a = x[i]
        out[i] = half * a * (one + vtanh(_gelu_inner(a, beta, kappa)))
    for i in range(nv, x.size):
        a = x[i]
        out[i] = half * a * (one + np.tanh(_gelu_inner(a, beta, kappa)))


@kernel
def _gelu_tanh_grad(gi, a, t, c):
    """g (1/2 (1 + t) + 1/2 x (1 - t^2) beta (1 + 3 kappa x^2)), GELU_TANH_FUSED's
    products contracted."""
    fused = GELU_TANH_FUSED
    beta, one, half, k3 = c[0], c[2], c[3], c[4]
    sq = a * a
    dleft = half * (one + t)
    dt = fma(-t, t, one) if fused & 2 else one - t * t
    dinner = beta * (fma(k3, sq, one) if fused & 4 else one + k3 * sq)
    lt = (half * a) * dt
    return gi * (fma(lt, dinner, dleft) if fused & 8 else dleft + lt * dinner)


@kernel
def gelu_tanh_backward(g, x, out, vec, c):
    """torch's gelu_backward(approximate='tanh') over flat contiguous g and x; c = (beta,
    kappa, 1, 1/2, 3 kappa)."""
    nv = _tail(x.size, x.itemsize, vec)
    beta, kappa = c[0], c[1]
    for i in range(nv):
        a = x[i]
        t = vtanh(_gelu_inner(a, beta, kappa))
        out[i] = _gelu_tanh_grad(g[i], a, t, c)
    for i in range(nv, x.size):
        a = x[i]
        t = np.tanh(_gelu_inner(a, beta, kappa))
        out[i] = _gelu_tanh_grad(g[i], a, t, c)


@kernel
def gelu_erf(x, out, vec, c):
    """torch's gelu(approximate='none') ATen kernel over flat contiguous x: x / 2 (1 + erf(x
    sqrt(1/2))) (Vectorized<T>::erf in the vector body: Sleef's erf_u1 for float64, ATen's
    own for float32; the C library's erf in the tail); c = (sqrt(1/2), 1/2, 1)."""
    nv = _tail(x.size, x.itemsize, vec)
    alpha, half, one = c[0], c[1], c[2]
    for i in range(nv):
        a = x[i]
        out[i] = a * half * (one + verf(a * alpha))
    for i in range(nv, x.size):
        a = x[i]
        out[i] = a * half * (one + math.erf(a * alpha))


@kernel
def gelu_erf_backward(g, x, out, vec, c):
    """torch's gelu_backward(approximate='none') ATen kernel over flat contiguous g and x:
    g (cdf + x pdf), cdf = 1/2 (1 + erf(x sqrt(1/2))), pdf = beta exp(-x^2 / 2); the vector
    body's cdf + x pdf contracted (GCC), the scalar code's not; c = (sqrt(1/2), beta, 1/2,
    1, -1/2)."""
    nv = _tail(x.size, x.itemsize, vec)
    alpha, beta, half, one, mhalf = c[0], c[1], c[2], c[3], c[4]
    for i in range(nv):
        a = x[i]
        cdf = half * (one + verf(a * alpha))
        pdf = beta * vexp(a * a * mhalf)
        out[i] = g[i] * fma(a, pdf, cdf)
    for i in range(nv, x.size):
        a = x[i]
        cdf = half * (one + math.erf(a * alpha))
        pdf = beta * np.exp(a * a * mhalf)
        out[i] = g[i] * (cdf + a * pdf)


@kernel
def gelu_dnnl(x, out):
    """oneDNN's AVX2 gelu_erf (torch's float32 gelu of a contiguous tensor) over flat x:
    every element in its vector code."""
    for i in range(x.size):
        out[i] = gelu_dnnlf(x[i])


@kernel
def gelu_dnnl_backward(g, x, out):
    """oneDNN's AVX2 gelu_erf backward over flat g and x: its derivative times g."""
    for i in range(x.size):
        out[i] = gelu_dnnl_gradf(x[i]) * g[i]
