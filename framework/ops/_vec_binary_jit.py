"""numba loops for ``_vec_binary``: torch's AVX2 atan2, logaddexp, logaddexp2, xlogy and pow
kernels over the (rows, n) walk ``_vec_binary.walk`` gives, one compiled loop per kernel
(imported only where numba is; see ``_vec_binary``). Each kernel and dtype compiles on its
own first call (``kernel_for``), with its vector body inlined once: the one-element operand
of a Scalar broadcast goes through the same loop as a buffer of its copies (cold compile of
all eleven 2 to 4 s each here, where one loop for all kernels took 31 s per dtype and
compiled again for each writability of the inputs).

Each loop runs torch's vector body (Sleef's atan2/exp/exp2/log1p: ``_sleef_bin_math``,
``_sleef_jit``, ``_sleef_math``, inlined) on the first ``nvec`` elements of each row and its
scalar code (the C library's ``atan2``/``exp``/``log1p``/``exp2``/``log``, which numba's
``math``/``np`` functions call, ``atan2f``... for float32) on the rest, as ``cpu_kernel_vec``
does. numba caches the compiled loops on disk by this file's timestamp only: edit this file
too when the Sleef modules change.
"""

import math

import numba
import numpy as np
from numba import njit

from . import _sleef_act_jit as J
from . import _sleef_bin_math as BM
from .._numba_fma import fma
from ._sleef_jit import _exp64, _expf

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}
_INLINE = {"inline": "always", "error_model": "numpy"}

# Placeholders for the names ``kernel_for`` binds per kernel and dtype (the loops here are
# templates).
T = INV_LN2 = LAE2_FUSED = VEC = SCALAR = None
CHUNK = 512  # a one-element operand's buffer (elements)
vatan2 = vexp = vexp2 = vlog1p = vpow = None  # bound per dtype by `kernel_for`

_KERNELS = []


def kernel(f):
    """Register a template of this module (bound per kernel and dtype by ``kernel_for``)."""
    _KERNELS.append(f)
    return f


@kernel
def _vmax(a, b):
    """Vectorized<T>'s maximum: NaN where either is NaN, else max_ps (b on ties)."""
    m = a if a > b else b
    return T(np.nan) if (a != a) | (b != b) else m


@kernel
def _lae_vec(a, b):
    """logaddexp's vector body: max + log1p(exp(-|a - b|)), a where a == b = +-inf (selects,
    no branch: the loop vectorizes)."""
    r = _vmax(a, b) + vlog1p(vexp(-abs(a - b)))
    return a if (a == b) & (abs(a) == T(np.inf)) else r


@kernel
def _lae_scalar(a, b, e64):
    """logaddexp's scalar code (std::max, std::log1p(std::exp()))."""
    if abs(a) == T(np.inf) and a == b:
        return a
    m = b if a < b else a
    return m + np.log1p(np.exp(-abs(a - b)))


@kernel
def _lae2_vec(a, b):
    """logaddexp2's vector body: max + log1p(exp2(-|a - b|)) / ln 2."""
    m = _vmax(a, b)
    v = vlog1p(vexp2(-abs(a - b)))
    r = fma(v, INV_LN2, m) if LAE2_FUSED & 1 else m + v * INV_LN2
    return a if (a == b) & (abs(a) == T(np.inf)) else r


@kernel
def _lae2_scalar(a, b, e64):
    """logaddexp2's scalar code (std::log1p(std::exp2()))."""
    if abs(a) == T(np.inf) and a == b:
        return a
    m = b if a < b else a
    v = np.log1p(np.exp2(-abs(a - b)))
    return fma(v, INV_LN2, m) if LAE2_FUSED & 2 else m + v * INV_LN2


@kernel
def _atan2_scalar(a, b, e64):
    """std::atan2."""
    return math.atan2(a, b)


@kernel
def _xlogy_scalar(x, y, e64):
    """xlogy's scalar kernel: NaN where y is NaN, 0 where x is 0, else x * log(y)."""
    if y != y:
        return T(np.nan)
    if x == T(0):
        return T(0)
    return x * np.log(y)


@kernel
def _pow_scalar(a, b, e64):
    """std::pow(float, float) / std::pow(double, double)."""
    return a**b


@kernel
def _pow_double(a, b, e64):
    """std::pow(float, double): in double, then rounded (pow's Scalar exponent e64)."""
    return T(np.float64(a) ** e64)


@kernel
def _no_vec(a, b):
    """xlogy's vector body: none (a cpu_kernel; never called, nvec is 0)."""
    return a


@kernel
def _vec(a, b, out):
    """The vector body over the contiguous a, b and out (one simple loop, which LLVM
    vectorizes)."""
    for j in range(out.size):
        out[j] = VEC(a[j], b[j])


@kernel
def run(a, b, out, rows, n, nvec, e64, sa, sb):
    """The kernel over the flat (rows, n) walks a and b (sa, sb: 1, or 0 for a one-element
    operand read at every position): the vector body on each row's first nvec elements, the
    scalar code (e64: pow's Scalar exponent as a double) on the rest. A one-element operand
    enters the vector body as a buffer of CHUNK copies of it, so that one loop serves all
    three layouts (torch broadcasts it into each vector: the same operations)."""
    m = nvec if sa and sb else min(nvec, CHUNK)
    s = np.empty(0 if sa and sb else m, out.dtype)
    s[:] = a[0] if sa == 0 else b[0]
    for r in range(rows):
        o = r * n
        k = 0
        while k < nvec:
            w = min(m, nvec - k)
            lo, hi = o + k, o + k + w
            _vec(a[lo:hi] if sa else s[:w], b[lo:hi] if sb else s[:w], out[lo:hi])
            k += w
        for j in range(o + nvec, o + n):
            out[j] = SCALAR(a[j * sa], b[j * sb], e64)


_COMPILED = {}


def kernel_for(which, dt, fused):
    """The compiled loop ``run`` of kernel `which` (0 atan2, 1 logaddexp, 2 logaddexp2,
    3 xlogy, 4 pow, 5 pow with the scalar code in double) for NumPy dtype dt (float32 or
    float64), bound to that kernel's vector body (that dtype's Sleef functions, inlined) and
    scalar code, and to logaddexp2's contraction flags ``fused``: each kernel and dtype
    compiles on its own first call, once for any writability of the inputs (an explicit
    signature with read-only a and b)."""
    key = (which, np.dtype(dt), fused)
    f = _COMPILED.get(key)
    if f is None:
        dt = np.dtype(dt)
        f32 = dt == np.float32
        t = np.float32 if f32 else np.float64
        sfx = "f" if f32 else "d"
        ns = dict(globals())
        ns.update(T=t, INV_LN2=t(1.0 / math.log(2.0)), LAE2_FUSED=fused)
        if which in (0, 4, 5):  # Sleef's atan2 or pow (and exp2) only where used
            fs = J._instantiate(t, BM.FLOAT if f32 else BM.DOUBLE)
            ns.update(vatan2=fs["atan2" + sfx], vexp2=fs["exp2" + sfx], vpow=fs["pow" + sfx])
        elif which in (1, 2):
            fs = J._instantiate(t, BM.FLOAT if f32 else BM.DOUBLE)
            ns.update(vexp2=fs["exp2" + sfx], vexp=_expf if f32 else _exp64)
            ns.update(vlog1p=(J._F if f32 else J._D)["log1p" + sfx])
        vec = ("vatan2", "_lae_vec", "_lae2_vec", "_no_vec", "vpow", "vpow")[which]
        sc = ("_atan2_scalar", "_lae_scalar", "_lae2_scalar", "_xlogy_scalar")
        sc = (sc + ("_pow_scalar", "_pow_double"))[which]
        ns.update(CHUNK=CHUNK)
        J.M.bind(_KERNELS, ns)
        for g in _KERNELS:
            h = ns[g.__name__]
            h.__qualname__ = f"{g.__name__}_{which}_{dt.name}_{fused}"  # (numba's cache index)
            if g.__name__ != "run":
                ns[g.__name__] = njit(**_INLINE)(h)
        ns.update(VEC=ns[vec], SCALAR=ns[sc])
        arr = numba.types.Array(numba.from_dtype(dt), 1, "C")
        ro = numba.types.Array(numba.from_dtype(dt), 1, "C", readonly=True)
        i, d = numba.types.int64, numba.types.float64
        f = njit((ro, ro, arr, i, i, i, d, i, i), **_OPTS)(ns["run"])
        _COMPILED[key] = f
    return f


@njit(**_OPTS)
def libm_map(x, out, which):
    """The C library's sin (which 0) or log (1) of each element of the flat x (numba's np
    functions call ``sinf``/``logf`` for float32, as torch's scalar kernels' std::sin/log)."""
    if which == 0:
        for j in range(x.size):
            out[j] = np.sin(x[j])
    else:
        for j in range(x.size):
            out[j] = np.log(x[j])
