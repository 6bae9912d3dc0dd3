"""numba loops for ``_special_more``: its Math.h templates bound to numba's helpers (LLVM's
``fma``; ``math.exp``... lowering to glibc's ``expf``/``exp``... for float32/float64) and
compiled lazily, one loop per (function, dtype) on its first call (numba's disk cache where
it is writable; each loop's name carries a hash of the templates, the tables and the fused
set, so that a cache written before an edit of those files is not reused). Imported only
where numba is.
"""

import hashlib
import marshal
import math

import numpy as np
from numba import njit

from .._numba_fma import fma
from . import _special_more as P

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}
_CALL = {"error_model": "numpy"}
_NS = {}
_LOOPS = {}
_STAMP = hashlib.sha1(  # from the code in memory (the files may have changed since)
    b"".join(marshal.dumps(g.__code__) for g in P._TEMPLATES)
    + repr((vars(P.S).get("BESSEL"), P.S.ERFCX_Y100, P.S.IGAM_D, P.S.LANCZOS_NUM)).encode()
    + repr(sorted(P.FUSED)).encode()
).hexdigest()[:10]
f = None  # (a loop template's global: the bound function)


def _to_int(v):
    """static_cast<int> of a float in int range (erfcx's table index)."""
    return int(v)


def _mad(a, b, c):
    """a * b + c rounded twice (a product GCC did not contract)."""
    return a * b + c


def _namespace(t, fused):
    """The templates compiled for numba scalars of the float type t (`fused`: their ``fma``
    rounds once, else twice)."""
    ns = _NS.get((t, fused))
    if ns is None:
        ns = {"np": np, "abs": abs, "range": range, "fma": fma if fused else njit(**_CALL)(_mad)}
        ns.update(P.tables(t))
        ns["to_int"] = njit(**_CALL)(_to_int)
        ns["isnan"], ns["isinf"] = math.isnan, math.isinf
        for name in ("exp", "log", "sin", "cos", "sqrt", "acos", "log1p", "expm1", "erfc"):
            ns[name] = getattr(math, name)
        ns["lgamma"] = math.lgamma
        P.bind(ns)
        for g in P._TEMPLATES:
            ns[g.__name__] = njit(**_CALL)(ns[g.__name__])
        _NS[(t, fused)] = ns
    return ns


def unary_loop(x, out):
    """out[i] = f(x[i])."""
    for i in range(x.size):
        out[i] = f(x[i])


def binary_loop(x, n, out):
    """out[i] = f(x[i], n[i])."""
    for i in range(x.size):
        out[i] = f(x[i], n[i])


def polynomial_loop(x, n, out):
    """out[i] = f(x[i], n[i], out[i - 1]) (the previous result: what torch's unset register
    holds; NaN before the first)."""
    prev = x[0] - x[0] + np.nan
    for i in range(x.size):
        prev = f(x[i], n[i], prev)
        out[i] = prev


def loop(name, t, binary):
    """The compiled loop of function `name` for the float type t."""
    key = (name, t)
    got = _LOOPS.get(key)
    if got is None:
        template = unary_loop
        if binary:
            template = polynomial_loop if name in P.K.POLYNOMIALS else binary_loop
        ns = dict(globals(), f=_namespace(t, name in P.FUSED)[name])
        g = type(template)(template.__code__, ns, template.__name__)
        g.__qualname__ = f"{template.__name__}_{name}_{np.dtype(t).name}_{_STAMP}"
        got = _LOOPS[key] = njit(**_OPTS)(g)
    return got
