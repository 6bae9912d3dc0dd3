"""torch's CPU special functions without Sleef (ATen's scalar Math.h code, ``cpu_kernel``
element by element) for float32/float64 NumPy arrays: erfcx, log_ndtr, the Bessel, Airy and
modified Bessel functions, the orthogonal polynomials of (x, n) and igamma/igammac.

``_special_more_kernels`` holds the functions as templates; ``bind`` gives them a dtype's
helpers. Where numba is (``_special_more_jit``), each (function, dtype) compiles on its first
call into one loop over the elements, with LLVM's ``fma`` and glibc's ``expf``/``exp`` ... as
torch's AVX2 build calls them: torch's bits. Without numba the same templates run element by
element in Python with plain multiply-adds (close to torch's values, slow).

Example:
    >>> import numpy as np
    >>> float(apply("bessel_j0", np.zeros(1, np.float32))[0])
    1.0
"""

import math
import types

import numpy as np

from . import _fused
from . import _special_more_kernels as K
from . import _special_tables as S

_JIT = [None]  # the numba module, False without numba (FRAMEWORK_NUMBA=0)
_F32, _F64 = np.dtype("float32"), np.dtype("float64")
_PY = {}
FUNCS = K.UNARY + K.POLYNOMIALS + K.GAMMA
# whose multiply-adds torch's build fuses (measured: log_ndtr's and igamma's kernels round
# every product, the others fuse as GCC contracts; erfcx_y100 never fuses)
FUSED = frozenset(FUNCS) - {"log_ndtr", "igamma"}
_TEMPLATES = tuple(
    v for v in vars(K).values() if isinstance(v, types.FunctionType) and v.__module__ == K.__name__
)


def tables(t):
    """The constants of the templates in the float type t (float32: each rounded to float,
    as Math.h's ``static const T`` tables; erfcx's table stays double, as its literals)."""
    b = S.BESSEL

    def arrs(name):
        return tuple(np.array(v, t) for v in b[name].values())

    f32 = t is np.float32
    return {
        "TYPE": t,
        "F32": f32,
        "T": t,
        "D": np.float64,
        "NAN": t(np.nan),
        "INF": t(np.inf),
        "EPS": t(np.finfo(t).eps),
        "PI_F": t(np.float32(math.pi)),
        "HERMITE_LIMIT": 128 if f32 else 512,
        "MACHEP": t(5.9604644775390625e-8 if f32 else 1.11022302462515654042e-16),
        "MAXLOG": t(88.72283905206835 if f32 else 7.09782712893383996843e2),
        "BIG": t(16777216.0 if f32 else 4.503599627370496e15),
        "BIGINV": t(5.9604644775390625e-8 if f32 else 2.22044604925031308085e-16),
        "ERFCX": np.array(S.ERFCX_Y100, np.float64),
        "AIRY": arrs("airy_ai"),
        "J0": arrs("bessel_j0"),
        "J1": arrs("bessel_j1"),
        "Y0": arrs("bessel_y0"),
        "Y1": arrs("bessel_y1"),
        "I0": arrs("modified_bessel_i0"),
        "I1": arrs("modified_bessel_i1"),
        "K0": arrs("modified_bessel_k0"),
        "K1": arrs("modified_bessel_k1"),
        "SK0": arrs("scaled_modified_bessel_k0"),
        "SK1": arrs("scaled_modified_bessel_k1"),
        "LANCZOS_NUM": np.array(S.LANCZOS_NUM, t),
        "LANCZOS_DENOM": np.array(S.LANCZOS_DENOM, t),
        "IGAM_D": np.array(S.IGAM_D, t),
    }


def bind(namespace):
    """The templates bound to `namespace` (updated with them)."""
    for f in _TEMPLATES:
        namespace[f.__name__] = types.FunctionType(f.__code__, namespace, f.__name__)
    return namespace


def _python(t):
    """The templates bound to Python helpers for the float type t (the no-numba path)."""
    ns = _PY.get(t)
    if ns is None:

        def to_int(v):
            return int(v)

        ns = {"np": np, "abs": abs, "range": range}
        ns.update(tables(t))
        ns.update(
            fma=lambda a, b, c: a * b + c,
            to_int=to_int,
            isnan=math.isnan,
            isinf=math.isinf,
        )
        for name in ("exp", "log", "sin", "cos", "sqrt", "acos", "log1p", "expm1", "erfc"):
            ns[name] = _guard(getattr(math, name))
        ns["lgamma"] = _guard(math.lgamma)
        _PY[t] = ns = bind(ns)
    return ns


def _guard(f):
    """f with the C library's answers where Python's math raises (inf, NaN)."""

    def g(v):
        try:
            return f(v)
        except OverflowError:
            return math.inf
        except ValueError:
            if f is math.log and v == 0:
                return -math.inf
            if f is math.lgamma:
                return math.inf
            return math.nan

    return g


def _jit():
    """``_special_more_jit`` where numba is usable (and FRAMEWORK_NUMBA is not 0), else None."""
    return _fused.jit_module("_special_more_jit", _JIT)


def to_int64(n):
    """C's static_cast<int64_t> of the float array n (x86: NaN and out of range give
    INT64_MIN)."""
    bad = ~(np.abs(n) < 2.0**63)
    with np.errstate(invalid="ignore"):
        out = np.where(bad, 0, n).astype(np.int64)
    out[bad] = np.iinfo(np.int64).min
    return out


def apply(name, x, n=None, python=True):
    """torch's `name` of the float32/float64 array x (with n: the polynomial's degrees or
    igamma's x, broadcast with x), as a new array of the broadcast shape in x's dtype;
    without numba the Python templates (None where `python` is False)."""
    t = x.dtype.type
    if not python and _jit() is None:
        return None
    if n is not None:
        x, n = np.broadcast_arrays(x, n)
        n = np.ascontiguousarray(n).reshape(-1)
    shape = x.shape
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.shape, x.dtype)
    if flat.size == 0:
        return out.reshape(shape)
    if n is not None and name in K.POLYNOMIALS:
        n = to_int64(n)
    j = _jit()
    with np.errstate(all="ignore"):
        if j is not None:
            loop = j.loop(name, t, n is not None)
            if n is None:
                loop(flat, out)
            else:
                loop(flat, n, out)
        else:
            f = _python(t)[name]
            if n is None:
                for i, v in enumerate(flat):
                    out[i] = f(v)
            elif name in K.GAMMA:
                for i, (v, m) in enumerate(zip(flat, n)):
                    out[i] = f(v, m)
            else:
                prev = t(np.nan)
                for i, (v, m) in enumerate(zip(flat, n)):
                    out[i] = prev = f(v, int(m), prev)
    return out.reshape(shape)
