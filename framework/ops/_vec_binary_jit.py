"""numba loops for ``_vec_binary``: torch's AVX2 atan2, logaddexp, logaddexp2, xlogy and pow
kernels over the (rows, n) walk ``_vec_binary.walk`` gives, one compiled loop per kernel
(imported only where numba is; see ``_vec_binary``).

Each loop runs torch's vector body (Sleef's atan2/exp/exp2/log1p: ``_sleef_bin_math``,
``_sleef_jit``, ``_sleef_math``, inlined) on the first ``nvec`` elements of each row and its
scalar code (the C library's ``atan2``/``exp``/``log1p``/``exp2``/``log``, which numba's
``math``/``np`` functions call, ``atan2f``... for float32) on the rest, as ``cpu_kernel_vec``
does. numba caches the compiled loops on disk by this file's timestamp only: edit this file
too when the Sleef modules change.
"""

import math

import numpy as np
from numba import njit

from . import _sleef_act_jit as J
from . import _sleef_bin_math as BM
from .._numba_fma import fma
from ._sleef_jit import _exp64, _expf

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}
_INLINE = {"inline": "always", "error_model": "numpy"}

# Placeholders for the names ``kernels`` binds per dtype (the loops here are templates).
T = INV_LN2 = LAE2_FUSED = None
vatan2 = vexp = vexp2 = vlog1p = vpow = None  # bound per dtype by `kernels`

_KERNELS = []


def kernel(f):
    """Register a loop of this module (compiled per dtype by ``kernels``)."""
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
def _lae_scalar(a, b):
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
def _lae2_scalar(a, b):
    """logaddexp2's scalar code (std::log1p(std::exp2()))."""
    if abs(a) == T(np.inf) and a == b:
        return a
    m = b if a < b else a
    v = np.log1p(np.exp2(-abs(a - b)))
    return fma(v, INV_LN2, m) if LAE2_FUSED & 2 else m + v * INV_LN2


@kernel
def _atan2_scalar(a, b):
    """std::atan2."""
    return math.atan2(a, b)


@kernel
def _xlogy_scalar(x, y):
    """xlogy's scalar kernel: NaN where y is NaN, 0 where x is 0, else x * log(y)."""
    if y != y:
        return T(np.nan)
    if x == T(0):
        return T(0)
    return x * np.log(y)


@kernel
def _pow_scalar(a, b):
    """std::pow(float, float) / std::pow(double, double)."""
    return a**b


@kernel
def _pow_double(a, e):
    """std::pow(float, double): in double, then rounded (pow's Scalar exponent e)."""
    return T(np.float64(a) ** e)


@kernel
def _vec2(a, b, out, which):
    """The vector body of kernel `which` over the contiguous a, b and out (one simple loop
    each, which LLVM vectorizes)."""
    if which == 0:
        for j in range(out.size):
            out[j] = vatan2(a[j], b[j])
    elif which == 1:
        for j in range(out.size):
            out[j] = _lae_vec(a[j], b[j])
    elif which == 2:
        for j in range(out.size):
            out[j] = _lae2_vec(a[j], b[j])
    else:
        for j in range(out.size):
            out[j] = vpow(a[j], b[j])


@kernel
def _vec_a(a, b, out, which):
    """``_vec2`` with the one-element a (a Scalar broadcast: torch's stride-0 operand)."""
    if which == 0:
        for j in range(out.size):
            out[j] = vatan2(a, b[j])
    elif which == 1:
        for j in range(out.size):
            out[j] = _lae_vec(a, b[j])
    elif which == 2:
        for j in range(out.size):
            out[j] = _lae2_vec(a, b[j])
    else:
        for j in range(out.size):
            out[j] = vpow(a, b[j])


@kernel
def _vec_b(a, b, out, which):
    """``_vec2`` with the one-element b."""
    if which == 0:
        for j in range(out.size):
            out[j] = vatan2(a[j], b)
    elif which == 1:
        for j in range(out.size):
            out[j] = _lae_vec(a[j], b)
    elif which == 2:
        for j in range(out.size):
            out[j] = _lae2_vec(a[j], b)
    else:
        for j in range(out.size):
            out[j] = vpow(a[j], b)


@kernel
def _scalar(x, y, which, e64):
    """The scalar code of kernel `which` for one pair."""
    if which == 0:
        return _atan2_scalar(x, y)
    if which == 1:
        return _lae_scalar(x, y)
    if which == 2:
        return _lae2_scalar(x, y)
    if which == 3:
        return _xlogy_scalar(x, y)
    if which == 4:
        return _pow_scalar(x, y)
    return _pow_double(x, e64)


@kernel
def run(a, b, out, rows, n, nvec, which, e64, sa, sb):
    """Kernel `which` (0 atan2, 1 logaddexp, 2 logaddexp2, 3 xlogy, 4 pow, 5 pow with the
    scalar code in double, of the float64 exponent e64) over the flat (rows, n) walks a
    and b (sa, sb: 1, or 0 for a one-element operand read at every position): the vector
    body on each row's first nvec elements, the scalar code on the rest."""
    if which == 3:
        nvec = 0  # (a cpu_kernel: no vector body)
    vw = 3 if which >= 4 else which
    for r in range(rows):
        o = r * n
        if nvec:
            if sa and sb:
                _vec2(a[o : o + nvec], b[o : o + nvec], out[o : o + nvec], vw)
            elif sb:
                _vec_a(a[0], b[o : o + nvec], out[o : o + nvec], vw)
            else:
                _vec_b(a[o : o + nvec], b[0], out[o : o + nvec], vw)
        for j in range(o + nvec, o + n):
            out[j] = _scalar(a[j * sa], b[j * sb], which, e64)


_COMPILED = {}


def kernels(dt, fused):
    """The loops for NumPy dtype dt (float32 or float64) as a dict by name, bound to that
    dtype's Sleef functions (inlined) and logaddexp2's contraction flags ``fused``."""
    key = (np.dtype(dt), fused)
    ns = _COMPILED.get(key)
    if ns is None:
        dt = np.dtype(dt)
        f32 = dt == np.float32
        t = np.float32 if f32 else np.float64
        fs = J._instantiate(t, BM.FLOAT if f32 else BM.DOUBLE)
        sfx = "f" if f32 else "d"
        ns = dict(globals())
        ns.update(T=t, INV_LN2=t(1.0 / math.log(2.0)), LAE2_FUSED=fused)
        ns.update(vatan2=fs["atan2" + sfx], vexp2=fs["exp2" + sfx], vpow=fs["pow" + sfx])
        ns.update(vexp=_expf if f32 else _exp64, vlog1p=(J._F if f32 else J._D)["log1p" + sfx])
        for f in _KERNELS:
            g = J.M.bind([f], ns)[f.__name__]
            g.__qualname__ = f"{f.__name__}_{dt.name}_{fused}"  # (numba's cache index)
            ns[f.__name__] = njit(**(_INLINE if f.__name__.startswith("_") else _OPTS))(g)
        _COMPILED[key] = ns
    return ns


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
