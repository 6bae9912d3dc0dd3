"""Optional: float32/float64 exp, log, sin, tanh, erf, ... by Intel MKL's VML, as torch has them.

torch 2.13's x86-64 CPU build computes these unary ops of float32/float64 tensors with MKL's
vector math library in High Accuracy mode (ATen/cpu/vml.h's IMPLEMENT_VML_MKL:
``vm?Name(n, in, out, VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE)``), on contiguous runs
of each tensor (a strided run is copied into a buffer first). Each result element depends on
its input element alone, so calling the same functions of the same library (the ``mkl`` wheel
the ``fast`` and ``test`` extras install, loaded by `_mkl.library`) on any dense copy gives
torch's bits: 0 of 100,000 random elements apart for every op in `TABLE`, where NumPy's
(SVML/libm) results differed from torch's in 0.1 % to 39 % of them, mostly by 1 ulp.

`unary(name, x, otherwise)` is the entry point for those: the result array, or
``otherwise(x)`` (the caller's NumPy path) where MKL is not loaded or x is not a
float32/float64 NumPy array in native byte order. With numba each op is a NumPy ufunc whose
one inner loop (`_vml_ufunc`, compiled once for all ops and dtypes) calls MKL: a small array
costs what NumPy's own ufunc costs; without numba the call goes by ctypes (~1 us more).
The module also holds torch's other unary-math families that NumPy does not round as torch:
`sleef` (vml.h's default, Sleef's function on every element: expm1, log1p) and `sleef_vec`
(cpu_kernel_vec: Sleef's in the vector body, the C library's in the tails: sinh, cosh,
exp2).
"""

import ctypes
import os

import numpy as np

from . import _mkl

# framework op -> MKL VML function stem (vms<Stem> float32, vmd<Stem> float64): the ops torch
# 2.13's vml.h sends to MKL. Not MKL's, measured: sinh, cosh, exp2, expm1, log1p (below),
# atanh (cpu_kernel_vec as sinh: `_sleef_atanh`), asinh, acosh, rsqrt, reciprocal (NumPy's
# already match torch's).
TABLE = {
    "exp": "Exp",
    "log": "Ln",
    "log10": "Log10",
    "log2": "Log2",
    "sqrt": "Sqrt",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "asin": "Asin",
    "acos": "Acos",
    "atan": "Atan",
    "tanh": "Tanh",
    "erf": "Erf",
    "erfc": "Erfc",
    "erfinv": "ErfInv",
}

# framework op -> _sleef_act_jit.map_array's function: vml.h has no MKL stub for these, so its
# default vec::map runs Vectorized<T>'s Sleef u10 function on every element (the last partial
# vector too), whatever the size: replayed on any platform, MKL or not.
SLEEF = {"expm1": 0, "log1p": 1}

# Not vml.h's: cpu_kernel_vec ops whose vector body calls Vectorized<T>'s Sleef u10 function
# (two AVX2 vectors a step) and whose scalar tail (n % 16 float, n % 8 double elements of a
# contiguous run; every element of a strided one) the C library's: `sleef_vec`.
SLEEF_VEC = ("sinh", "cosh", "exp2")

_MODE = 0x2 | 0x00140000 | 0x100  # VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE, as torch
_CHUNK = 1 << 30  # elements per call (MKL's n is a 32-bit int here)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_ndarray, _asarray = np.ndarray, np.asarray
_state = [None]  # {name: caller(x)} once loaded, False where unavailable


def available():
    """True where MKL's VML is loaded (see the module)."""
    s = _state[0]
    if s is None:
        s = _state[0] = _load()
    return bool(s)


def unary(name, x, otherwise):
    """`name` (a key of `TABLE`) of each element of the array x by MKL's VML in torch's mode,
    in a new array of x's shape, dtype and layout (NumPy's ufunc's); ``otherwise(x)`` where
    this cannot run (no MKL; not a float32/float64 NumPy array in native byte order)."""
    table = _state[0]
    if table is None:
        available()
        table = _state[0]
    if table and type(x) is _ndarray:
        dt = x.dtype
        if dt is _F32 or dt is _F64 or (dt.char in "fd" and dt.isnative):  # (an equal dtype
            out = table[name](x)  # object that is not NumPy's own too)
            return out if type(out) is _ndarray else _asarray(out)  # (0-dim: a NumPy scalar)
    return otherwise(x)


def unary_in_place(name, x):
    """`unary` into x itself, for a C-contiguous float32/float64 NumPy array x where VML is
    loaded (the caller checked `available`): no new array (the optimizers' roots on their
    scratch, `framework.optim._kernels.split`). Returns x."""
    call = _state[0][name]
    if isinstance(call, np.ufunc):
        call(x, out=x)
    else:  # the ctypes caller (no numba) makes a new array
        np.copyto(x, call(x))
    return x


def address(name, dtype):
    """(the address of VML's function for `name` on float32/float64 `dtype`, torch's mode
    argument) for compiled loops that call it themselves (`framework._numba_fma.vml_call`),
    or None where MKL is not loaded."""
    if not available():
        return None
    fn = getattr(_mkl.library(), f"vm{'sd'[np.dtype(dtype).char == 'd']}{TABLE[name]}")
    return ctypes.cast(fn, ctypes.c_void_p).value, _MODE


def sleef(name, x, otherwise):
    """`name` (a key of `SLEEF`) of each element of the array x as torch's vml.h computes it
    (Sleef's u10 function, replayed: compiled with numba, else in NumPy), in a new array of x's
    shape, dtype and layout; ``otherwise(x)`` for other arrays (not float32/float64 NumPy
    arrays in native byte order)."""
    if type(x) is not np.ndarray or x.dtype.char not in "fd" or not x.dtype.isnative:
        return otherwise(x)
    from . import _sleef_act, _sleef_math

    j = _sleef_act._jit()
    if j is not None:
        kernel, which = j.kernels(x.dtype)["map_array"], SLEEF[name]

        def run(src, out):
            """The compiled loop over flat views."""
            kernel(src.reshape(-1), out.reshape(-1), which)
    else:
        f = _sleef_math.numpy_funcs(x.dtype)[name]

        def run(src, out):
            """The NumPy replay."""
            out[...] = f(src)

    edges = _log1p_edges(x) if name == "log1p" else None
    out = np.empty_like(x)  # (as in `unary`)
    if x.flags.c_contiguous:
        run(x, out)
    elif x.flags.f_contiguous:
        run(x.T, out.T)
    else:
        np.copyto(out, x)
        flat = out.ravel(order="K")
        run(flat, flat)
    if edges is not None:
        out[edges[0]] = edges[1]
    return out


def sleef_vec(name, x, otherwise):
    """`name` (one of `SLEEF_VEC`) of each element of the array x as torch's cpu_kernel_vec
    walks it (Sleef's function replayed in the vector body, the C library's in the tails;
    ``_sleef._rows``), in an array of x's shape and dtype; ``otherwise(x)`` for other arrays.
    The NumPy replay (not compiled): ~20 array passes."""
    if type(x) is not np.ndarray or x.dtype.char not in "fd" or not x.dtype.isnative:
        return otherwise(x)
    if x.size == 0:
        return np.empty_like(x)
    from . import _sleef, _sleef_act, _sleef_math

    body = _sleef_math.numpy_funcs(x.dtype)[name]
    libm = _sleef_act._libm(name, x.dtype)

    def tail(a):
        """The C library's function of the 2-D a (sinh's overflow signed as a's: Python's math
        raises there, and _libm answers +inf)."""
        r = libm(a.ravel()).reshape(a.shape)
        return np.copysign(r, a) if name == "sinh" else r

    x2, vec, back = _sleef._rows(x)
    return back(_sleef_act._two_ways(x2, vec, body, tail))


_NAN32_ONES = np.array(0xFFFFFFFF, np.uint32).view(np.float32)  # Sleef's NaN: all bits set


def _log1p_edges(x):
    """(mask, values) where torch's log1p differs from the Sleef replay's, or None: float32
    x < -1 is Sleef's all-ones NaN (the replay's NaN is NumPy's), float64 x > 1e307 the
    logarithm (torch's Sleef has no overflow cutoff there: log(x), to the last bit, where the
    replay gives inf)."""
    if x.dtype.char == "f":
        mask = x < -1
        return (mask, _NAN32_ONES) if mask.any() else None
    mask = x > 1e307
    return (mask, np.log(x[mask])) if mask.any() else None


def _load():
    """{name: caller(x)} for every op of `TABLE` (NumPy ufuncs compiled once, or ctypes
    callers without numba), or False without MKL."""
    lib = _mkl.library()
    if lib is None:
        return False
    fns = {}
    try:
        for name, stem in TABLE.items():
            fns[name] = tuple(getattr(lib, f"vm{char}{stem}") for char in "sd")
    except AttributeError:  # an MKL without one of them: NumPy's paths throughout
        return False
    for pair in fns.values():
        for fn in pair:
            fn.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong]
            fn.restype = None
    return _compiled(lib) or {name: _ctypes_caller(pair) for name, pair in fns.items()}


def _ctypes_caller(fns):
    """The caller by ctypes (without numba) of one op: fns its float32 and float64 functions."""

    def call(x):
        """The op of each element of x (a float32/float64 array) in a new array of x's shape
        and layout (NumPy's ufunc's: x's stride order, dense), in chunks MKL's 32-bit count
        can hold."""
        out = np.empty_like(x)
        if x.flags.c_contiguous:  # (then out is too)
            src, dst = x.reshape(-1), out.reshape(-1)
        elif x.flags.f_contiguous:
            src, dst = x.T.reshape(-1), out.T.reshape(-1)
        else:  # torch copies a strided run into a buffer: the same elements, the same results
            np.copyto(out, x)
            src = dst = out.ravel(order="K")  # (a view: out is dense)
        fn, size = fns[x.dtype.char == "d"], x.itemsize
        px, po, n = src.ctypes.data, dst.ctypes.data, src.size
        for start in range(0, n, _CHUNK):
            fn(min(n - start, _CHUNK), px + start * size, po + start * size, _MODE)
        return out

    return call


def _compiled(lib):
    """{name: NumPy ufunc} of `_vml_ufunc` (one compiled inner loop for all), or None without
    numba (or with FRAMEWORK_NUMBA=0), or where MKL lacks a strided variant."""
    if os.environ.get("FRAMEWORK_NUMBA", "1") == "0":  # (as _fused; not _fused.kernels(),
        return None  # which _fused.disabled() turns off for a while: this is kept for good)
    try:
        from . import _vml_ufunc

        addr = ctypes.c_void_p
        loop = _vml_ufunc.compile_loop()
        out = {}
        for name, stem in TABLE.items():
            records = [
                np.array(
                    [
                        ctypes.cast(getattr(lib, f"vm{char}{stem}"), addr).value,
                        ctypes.cast(getattr(lib, f"vm{char}{stem}I"), addr).value,
                        size,
                        _MODE,
                    ],
                    np.int64,
                )
                for char, size in (("s", 4), ("d", 8))
            ]
            out[name] = _vml_ufunc.make_ufunc(name, loop, records, lib)
        one = np.ones(2)
        if not np.array_equal(out["sqrt"](one[::-1]), one):  # a failure here: ctypes
            return None
        return out
    except Exception:
        return None
