"""Optional: matrix products by Intel MKL's ``cblas_?gemm``, the BLAS torch's CPU build calls.

torch 2.13's x86-64 wheels link MKL 2024.2 and compute float32/float64 ``mm``/``addmm``
(``F.linear``, their backward) with its ``?gemm``; NumPy's wheels use OpenBLAS, whose kernels
sum in another order (about 85 % of a 128 x 784 x 512 float32 product's elements differ from
torch's) and run 10-25 % slower than MKL on AVX-512 CPUs. Where the ``mkl`` wheel (PyPI:
``mkl==2024.2.*``, the same library) is installed, the large products below go to it, called
as torch calls it (the same layouts and transposes; ``addmm``'s bias copied into the result
and added with beta = 1): torch's bits, at torch's speed.

Loaded from ``FRAMEWORK_MKL`` (a path to ``libmkl_rt.so.2`` or its folder; ``0`` turns it
off) or else ``<sys.prefix>/lib/libmkl_rt.so.2`` (where the wheel installs it), on GNU
OpenMP threads as torch's (see `_threading_layer`; sequential where libgomp is missing).
Without it every product stays NumPy's. Products of fewer than `MIN_MACS` multiply-adds
stay NumPy's too (their bits then OpenBLAS's): with numba (and FRAMEWORK_NUMBA not 0) MKL is
called from a compiled function, 2**18 and up; without numba by ctypes, 2**20 and up.
"""

import ctypes
import os
import sys

import numpy as np

MIN_MACS = 0  # M * N * K at or above which a product goes to MKL: 0 until the first call
#              loads it, then 1 << 18 with the compiled call (below it MKL's call costs ~2 us
#              more than NumPy's dot: 3.4 vs 1.1 us on 32 x 128 x 10; 6.0 vs 6.9 on
#              32 x 64 x 128), 1 << 20 with ctypes alone (~5 us a call), and _NEVER without
#              MKL (the callers' size test then keeps every product NumPy's)
_NEVER = 1 << 62
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_state = [None]  # (sgemm, dgemm, compiled or None) once loaded, False where unavailable
_library = [None]  # the CDLL once loaded, False where unavailable


def _library_path():
    """libmkl_rt's path from FRAMEWORK_MKL or the environment's lib folder, or None."""
    env = os.environ.get("FRAMEWORK_MKL")
    if env == "0":
        return None
    for path in (env, os.path.join(sys.prefix, "lib")):
        if not path:
            continue
        if os.path.isdir(path):
            path = os.path.join(path, "libmkl_rt.so.2")
        if os.path.isfile(path):
            return path
    return None


def library():
    """MKL's runtime library (a ctypes CDLL, on torch's threading layer and 32-bit ints), loaded
    once, or None where it is unavailable (see the module). Shared by the products here and
    `_vml`'s elementwise math."""
    lib = _library[0]
    if lib is None:
        lib = _library[0] = _open()
    return lib or None


def _open():
    """The CDLL of `_library_path`, set up as torch's MKL runs, or False."""
    path = _library_path()
    if path is None:
        return False
    try:
        rt = ctypes.CDLL(path)
        rt.MKL_Set_Threading_Layer(ctypes.c_int(_threading_layer()))
        rt.MKL_Set_Interface_Layer(ctypes.c_int(0))  # MKL_INTERFACE_LP64: 32-bit ints
    except (OSError, AttributeError):
        return False
    return rt


def _load():
    """(sgemm, dgemm, compiled caller or None) of MKL's runtime library, or False."""
    rt = library()
    if rt is None:
        return False
    try:
        out = []
        for name, real in (("cblas_sgemm", ctypes.c_float), ("cblas_dgemm", ctypes.c_double)):
            fn = getattr(rt, name)
            p, i = ctypes.c_void_p, ctypes.c_int
            fn.argtypes = [i, i, i, i, i, i, real, p, i, p, i, real, p, i]
            fn.restype = None
            out.append(fn)
    except AttributeError:
        return False
    return (*out, _compiled(*out))


def _threading_layer():
    """MKL_THREADING_GNU (3) where GNU OpenMP's runtime loads, else MKL_THREADING_SEQUENTIAL
    (1). torch's MKL runs on OpenMP threads, and a product's bits can depend on how many
    (a 128 x 784 by 784 x 512 float32 product differs in 85 % of its elements between 1 and 2
    threads): with the GNU layer MKL takes the same thread count as torch by default (the
    physical cores, or MKL_NUM_THREADS / OMP_NUM_THREADS) and follows `set_num_threads`
    (threadpoolctl)."""
    try:
        ctypes.CDLL("libgomp.so.1", mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return 1
    return 3


def _compiled(sgemm, dgemm):
    """A numba function calling sgemm (float32) or dgemm with the arrays' addresses, or None
    without numba (or FRAMEWORK_NUMBA=0). Compiled in memory, not cached on disk: it holds the
    functions' addresses in this process."""
    from . import _fused

    if _fused.kernels() is None:
        return None
    try:
        import numba

        @numba.njit(nogil=True)
        def call(single, ta, tb, m, n, k, a, lda, b, ldb, beta, out):
            """cblas_?gemm(RowMajor, ta, tb, m, n, k, 1, a, lda, b, ldb, beta, out, n)."""
            pa, pb, po = a.ctypes.data, b.ctypes.data, out.ctypes.data
            if single:
                sgemm(_ROW_MAJOR, ta, tb, m, n, k, 1.0, pa, lda, pb, ldb, beta, po, n)
            else:
                dgemm(_ROW_MAJOR, ta, tb, m, n, k, 1.0, pa, lda, pb, ldb, beta, po, n)

        return call
    except Exception:  # a numba that cannot call ctypes functions: the ctypes call
        return None


def available():
    """True where MKL's gemm is loaded (see the module)."""
    global MIN_MACS
    s = _state[0]
    if s is None:
        s = _state[0] = _load()
        MIN_MACS = _NEVER if not s else 1 << 18 if s[2] is not None else 1 << 20
    return bool(s)


_gufuncs = {}  # (alpha, beta) -> `_mkl_gemm` gufunc; None: no numba (or FRAMEWORK_NUMBA=0)
_loop = [None]  # (address, owner) of `_mkl_gemm`'s compiled loop, False where unavailable


def gufunc(alpha=1.0, beta=0.0):
    """The NumPy gufunc ``(m,k),(k,n)->(m,n)`` computing alpha * a @ b (+ beta * out, where
    beta != 0: pass ``out=`` holding the addend) by MKL's sgemm_/dgemm_ as torch's addmm
    calls them (`_mkl_gemm`) for float32/float64 matrices or batches of them, one dtype; None
    without MKL or numba."""
    f = _gufuncs.get((alpha, beta))
    if f is None:
        f = _gufuncs[alpha, beta] = _make_gufunc(alpha, beta)
    return f or None


_NO_STRIDES = np.empty(0, np.int64)


def product(a, b, out=None, alpha=1.0, beta=0.0):
    """alpha * a @ b (+ beta * out) by `gufunc` (which must be available), for float32 or
    float64 matrices (or batches) of one dtype; out, where given, C-ordered. Passes the
    operands' strides where a matrix dimension is 1 (see `_mkl_gemm._loop`)."""
    f = _gufuncs.get((alpha, beta)) or gufunc(alpha, beta)
    sa, sb = a.shape, b.shape
    if sa[-2] == 1 or sa[-1] == 1 or sb[-1] == 1:
        s = np.array(a.strides[-2:] + b.strides[-2:], np.int64)
    else:
        s = _NO_STRIDES
    return f(a, b, s) if out is None else f(a, b, s, out=out)


def _make_gufunc(alpha, beta):
    """`gufunc`'s gufunc, or False."""
    lib = library()
    loop = _loop[0]
    if loop is None:
        loop = _loop[0] = _compile_loop(lib)
    if not loop:
        return False
    from . import _mkl_gemm

    addr = ctypes.c_void_p
    gemms = [ctypes.cast(getattr(lib, name), addr).value for name in ("sgemm_", "dgemm_")]
    threads = ctypes.cast(lib.MKL_Set_Num_Threads_Local, addr).value
    return _mkl_gemm.make_gufunc(loop, gemms, threads, float(alpha), float(beta), lib)


def _compile_loop(lib):
    """`_mkl_gemm.compile_loop()`, or False without MKL or numba (FRAMEWORK_NUMBA=0)."""
    if lib is None or os.environ.get("FRAMEWORK_NUMBA", "1") == "0":
        return False
    try:
        from . import _mkl_gemm

        return _mkl_gemm.compile_loop()
    except Exception:
        return False


def _operand(a, rows, cols):
    """(transpose flag, leading dimension) of a 2-D operand as cblas row-major takes it, or
    None for a layout it cannot (neither dimension unit-strided)."""
    s0, s1 = a.strides
    size = a.itemsize
    if s1 == size and s0 % size == 0 and s0 >= max(cols, 1) * size:
        return _NO_TRANS, s0 // size
    if s0 == size and s1 % size == 0 and s1 >= max(rows, 1) * size:
        return _TRANS, s1 // size
    return None


def gemm(a, b, bias=None):
    """a @ b (plus `bias` broadcast to the result, added as torch's addmm adds it: copied into
    the result, then beta = 1) by MKL for float32/float64 NumPy matrices of one dtype with at
    least `MIN_MACS` multiply-adds and an inner size of 2 or more (1 with a bias: torch's
    gemm fuses the product into the bias); None otherwise (the caller keeps its NumPy
    product)."""
    s = _state[0]
    if s is None:
        available()
        s = _state[0]
    if not s or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return None
    dt = a.dtype
    if dt != b.dtype or dt.char not in "fd" or a.ndim != 2 or b.ndim != 2:
        return None
    m, k = a.shape
    n = b.shape[1]
    if (
        k < 2 - (bias is not None)
        or m * n * k < MIN_MACS
        or b.shape[0] != k
        or max(m, n, k) >= 1 << 31
        or not m * n
    ):
        return None
    if not (dt.isnative and b.dtype.isnative):
        return None
    fa, fb = _operand(a, m, k), _operand(b, k, n)
    if fa is None or fb is None:
        return None
    out = np.empty((m, n), dt)
    beta = 0.0
    if bias is not None:
        if bias.dtype != dt:
            return None
        out[...] = bias
        beta = 1.0
    if s[2] is not None:
        s[2](dt.char == "f", fa[0], fb[0], m, n, k, a, fa[1], b, fb[1], beta, out)
        return out
    fn = s[0] if dt.char == "f" else s[1]
    fn(
        _ROW_MAJOR,
        fa[0],
        fb[0],
        m,
        n,
        k,
        1.0,
        a.ctypes.data,
        fa[1],
        b.ctypes.data,
        fb[1],
        beta,
        out.ctypes.data,
        max(n, 1),
    )
    return out
