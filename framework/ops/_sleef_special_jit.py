"""numba loops for ``_sleef_atanh``, ``_sleef_hypot`` and ``_sleef_lgamma``: their Sleef
functions bound to ``_sleef_act_jit``'s scalar helpers (``llvm.fma``, bit casts) and
compiled, the vector body on each row's first ``nvec`` elements and the C library's
``atanh``/``atanhf``/``hypot`` (numba's ``math`` lowers to them) on the rest, as torch's
``cpu_kernel_vec`` (lgamma: every element through Sleef, as vml.h's map). Each loop compiles
on its first call, once per dtype (numba's disk cache where it is writable). Imported only
where numba is; see ``_sleef_atanh.atanh``, ``_sleef_hypot.hypot`` and
``_sleef_lgamma.lgamma``.
"""

import hashlib
import inspect
import marshal
import math

import numpy as np
from numba import njit

from .._numba_fma import fma
from . import _sleef_act_jit as AJ
from . import _sleef_atanh as A
from . import _sleef_hypot as H
from . import _sleef_lgamma as G
from . import _sleef_math as M
from ._sleef_jit import bits, from_bits

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}
_INLINE = {"inline": "always", "error_model": "numpy"}
_CALL = {"error_model": "numpy"}
_NS = {}
T = None  # (a template's global: the dtype's scalar type)


def trunc_i(u):
    """vtruncate to int32 (cvttps2dq / cvttpd2dq): out of range and NaN give INT_MIN."""
    if abs(u) < T(2147483648.0):
        return np.int64(int(u))
    return np.int64(-2147483648)


def trunc_f(u):
    """vtruncate as a float."""
    return T(np.trunc(u))


def _funcs(dt):
    """Sleef's atanh and (float64) hypot compiled for numba scalars of dtype dt."""
    ns = _NS.get(dt)
    if ns is None:
        t = np.dtype(dt).type
        f32 = t is np.float32
        ns = {
            "__name__": __name__,
            "np": np,
            "T": t,
            "fma": fma,
            "bits": bits,
            "from_bits": from_bits,
        }
        ns["abs"] = abs
        ns.update(IB=np.int32 if f32 else np.int64, SH=23 if f32 else 52)
        ns.update(BIAS=127 if f32 else 1023, MASK=0xFF if f32 else 0x7FF)
        ns.update(SIGN=-(2**31) if f32 else -(2**63))
        ns["LOG2"], ns["LOGK2_POLY"] = A._CONSTS[t]
        ns.update(G._CONSTS[t])
        own = (trunc_i, trunc_f, A.poly_horner, A.poly_estrin, A.logk2, A.atanh_sleef)
        own += () if f32 else (H.dd_sqrt, H.hypot_sleef)
        M.bind(AJ._HELPERS + M.GENERIC + own, ns)
        for f in AJ._HELPERS + M.GENERIC + own:
            ns[f.__name__] = njit(**_INLINE)(ns[f.__name__])
        ns["_poly"] = ns["poly_horner" if f32 else "poly_estrin"]
        # lgamma's own functions are large: compiled as calls (LLVM inlines what it will),
        # which costs a third of numba's forced inlining to compile (~4 s cold, not 12)
        M.bind(G.OWN, ns)
        for f in G.OWN:
            ns[f.__name__] = njit(**_CALL)(ns[f.__name__])
        _NS[dt] = ns
    return ns


_LOOPS = {}
_STAMP = hashlib.sha1(  # in the loops' names: a disk cache from before an edit of the
    b"".join(  # templates is not reused (hashed from the code in memory)
        marshal.dumps(v.__code__)
        for m in (A, G, H, M, AJ)
        for v in vars(m).values()
        if inspect.isfunction(v)
    )
    + repr((A._CONSTS, G._CONSTS)).encode()
).hexdigest()[:10]
body = None  # (a template's global: the bound Sleef function of the loop's dtype)


def atanh_loop(x, out, nvec):
    """Sleef's atanh on each row's first nvec elements, the C library's after."""
    for r in range(x.shape[0]):
        for i in range(nvec):
            out[r, i] = body(x[r, i])
        for i in range(nvec, x.shape[1]):
            out[r, i] = math.atanh(x[r, i])


def hypot_loop(a, b, out, nvec):
    """Sleef's hypot on each row's first nvec pairs, the C library's after."""
    for r in range(a.shape[0]):
        for i in range(nvec):
            out[r, i] = body(a[r, i], b[r, i])
        for i in range(nvec, a.shape[1]):
            out[r, i] = math.hypot(a[r, i], b[r, i])


def lgamma_loop(x, out):
    """Sleef's lgamma on every element of the flat x (vml.h's map: no scalar tail)."""
    for i in range(x.size):
        out[i] = body(x[i])


def _loop(template, fname, dt):
    """`template` bound to dtype dt's Sleef function `fname` and compiled (cached on disk
    under a per-dtype name)."""
    key = (template.__name__, dt)
    loop = _LOOPS.get(key)
    if loop is None:
        ns = dict(globals(), body=_funcs(dt)[fname])
        g = M.bind([template], ns)[template.__name__]
        g.__qualname__ = f"{template.__name__}_{np.dtype(dt).name}_{_STAMP}"
        loop = _LOOPS[key] = njit(**_OPTS)(g)
    return loop


def atanh_rows(dt):
    """The compiled atanh loop for dtype dt: (x2, out2, nvec) over 2-D C-contiguous rows."""
    return _loop(atanh_loop, "atanh_sleef", np.dtype(dt).type)


def hypot_rows():
    """The compiled float64 hypot loop: (a2, b2, out2, nvec) over 2-D C-contiguous rows."""
    return _loop(hypot_loop, "hypot_sleef", np.float64)


def lgamma_flat(dt):
    """The compiled lgamma loop for dtype dt: (x, out) flat C-contiguous."""
    return _loop(lgamma_loop, "lgamma_sleef", np.dtype(dt).type)
