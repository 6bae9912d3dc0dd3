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
Without it every product stays NumPy's. With numba (and FRAMEWORK_NUMBA not 0) every
product (mm, addmm, F.linear, matmul of matrices and a vector times a matrix, their backward)
goes to MKL whatever its size, by `_mkl_gemm.product_into` (`INTO`; the hot paths by its entry
points `MM`), which makes torch's own choice of operands, transposes and leading dimensions
(Fortran ``?gemm_``, as cpublas::gemm) on MKL's own thread count, as torch's: 0 elements
apart from torch on a grid of small shapes where NumPy's dot had 10-47 % apart; a 4 x 4
product costs ~0.2 us more than NumPy's dot (the result's np.empty). Without numba by ctypes
(~2 us more a call), products of 2**20 multiply-adds and up (`MIN_MACS`), smaller ones
NumPy's (their bits OpenBLAS's). With numba also bmm/baddbmm from 400 multiply-adds a matrix
(`batch_product`: torch's one cblas_?gemm_batch call, or a gemm a matrix where torch makes
that) and dot (`dot`: ?dot_); mv/addmv are MKL's ?gemv by ctypes (`gemv`).
"""

import ctypes
import os
import sys

import numpy as np

MIN_MACS = 0  # M * N * K at or above which a product goes to MKL: 0 until the first call
#              loads it, and with the compiled call (`INTO`: every product), 1 << 20 with
#              ctypes alone (~2 us a call more than NumPy's dot), and _NEVER without MKL (the
#              callers' size test then keeps every product NumPy's)
INTO = None  # `_mkl_gemm.product_into` once `available()` loaded MKL, with numba
RECORDS = {}  # dtype char ("f", "d") -> INTO's record of alpha 1, beta 0 ("f+", "d+": beta 1)
# `_mkl_gemm.product_at`'s entry points without numba's type dispatch (`entry_points`):
# (float32, float64) of matrices; the addresses of their records of alpha 1 and beta 0, of
# beta 1 (`record_at`). The hot paths index them by ``dtype is float64`` after checking the
# operands' types.
MM = REC = REC_ADD = None
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
    return tuple(out)


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


def available():
    """True where MKL's gemm is loaded (see the module)."""
    global MIN_MACS, INTO, MM, REC, REC_ADD
    s = _state[0]
    if s is None:
        s = _state[0] = _load()
        into = product_into() if s else None
        if into is not None:
            from . import _mkl_gemm

            RECORDS.update(f=record("f"), d=record("d"))
            RECORDS.update({"f+": record("f", 1.0, 1.0), "d+": record("d", 1.0, 1.0)})
            REC = (record_at("f"), record_at("d"))
            REC_ADD = (record_at("f", 1.0, 1.0), record_at("d", 1.0, 1.0))
            MM = _mkl_gemm.entry_points(2)  # (compiled once: ~5 s; numba's cache: <1 s)
            INTO = into
        MIN_MACS = _NEVER if not s else 0 if into is not None else 1 << 20
    return bool(s)


_records = {}  # (dtype char, alpha, beta) -> `_mkl_gemm.make_record`'s record
_compiled_into = [None]  # `_mkl_gemm.product_into`, False without MKL or numba


def product_into():
    """`_mkl_gemm.product_into(record, a, b, out)` (out = alpha * a @ b + beta * out by MKL's
    sgemm_/dgemm_, called as torch's addmm calls them), or None without MKL or numba
    (FRAMEWORK_NUMBA=0). Its record: `record`."""
    f = _compiled_into[0]
    if f is None:
        f = _compiled_into[0] = _compile_into()
    return f or None


def record(char, alpha=1.0, beta=0.0):
    """`product_into`'s record for dtype char "f" or "d" and (alpha, beta)."""
    key = (char, alpha, beta)
    r = _records.get(key)
    if r is None:
        from . import _mkl_gemm

        lib = library()
        addr = ctypes.c_void_p
        fn = ctypes.cast(getattr(lib, "sgemm_" if char == "f" else "dgemm_"), addr).value
        batch = ctypes.cast(getattr(lib, f"cblas_{'s' if char == 'f' else 'd'}gemm_batch"), addr)
        threads = 0  # (MKL_Set_Num_Threads_Local: off, see _mkl_gemm.SERIAL_MACS)
        r = _records[key] = _mkl_gemm.make_record(
            fn, 4 if char == "f" else 8, threads, float(alpha), float(beta), batch.value
        )
    return r


_addresses = {}  # (dtype char, alpha, beta) -> the address of `record`'s record


def record_at(char, alpha=1.0, beta=0.0):
    """The address of `record(char, alpha, beta)` (which `_records` keeps alive): the entry
    points' first argument."""
    key = (char, alpha, beta)
    address = _addresses.get(key)
    if address is None:
        address = _addresses[key] = record(char, alpha, beta).ctypes.data
    return address


GRADS = None  # `_mkl_gemm.grads_at`'s entry points (float32, float64) once `grads` ran
_NO_GRAD = (np.empty((0, 0), np.float32), np.empty((0, 0), np.float64))  # (grads_at's unused
#           result argument)


def grads():
    """`GRADS`, compiled (or loaded from numba's cache) on first use; None without MKL or
    numba (then `MM` is None too)."""
    global GRADS
    if GRADS is None and MM is not None:
        from . import _mkl_gemm

        GRADS = _mkl_gemm.grads_entry_points()
    return GRADS


_entries = {}  # "batch", "dot" -> (float32, float64) entry points, or None


def _entry(name):
    """`_mkl_gemm.batch_into`'s or `dot_into`'s entry points (float32, float64), compiled on
    first use, or None without MKL or numba."""
    out = _entries.get(name)
    if out is None and name not in _entries:
        if product_into() is not None and available():
            from . import _mkl_gemm

            fn = _mkl_gemm.batch_at if name == "batch" else _mkl_gemm.dot_at
            out = _mkl_gemm.entry_points(3 if name == "batch" else 1, fn)
        _entries[name] = out
    return out


def batch_product(a, b, bias=None, alpha=1.0, beta=0.0):
    """alpha * a @ b (+ beta * bias, broadcast to the result and copied into it first, as
    torch's baddbmm) of float32/float64 NumPy batches (B x M x K by B x K x N, one dtype, M,
    N, K non-zero) as torch's bmm_out_or_baddbmm_ from 400 multiply-adds a matrix
    (`_mkl_gemm.batch_into`: one MKL ?gemm_batch call where torch makes it), or None without
    MKL or numba."""
    entries = _entry("batch")
    if entries is None or not (a.dtype.isnative and b.dtype.isnative):
        return None
    if min(a.strides) < 0:  # (torch has no negative strides: its copy)
        a = np.ascontiguousarray(a)
    if min(b.strides) < 0:
        b = np.ascontiguousarray(b)
    dt = a.dtype
    out = np.empty(a.shape[:2] + b.shape[2:], dt)
    if beta != 0:
        out[...] = bias
    f64 = dt.char == "d"
    rec = REC[f64] if alpha == 1 and beta == 0 else record_at(dt.char, float(alpha), float(beta))
    entries[f64](rec, a, b, out)
    return out


def dot(x, y):
    """x . y of float32/float64 NumPy vectors of one dtype as torch's dot (MKL's ?dot_ with
    the vectors' strides), a 0-d array, or None without MKL or numba."""
    entries = _entry("dot")
    if entries is None or not (x.dtype.isnative and y.dtype.isnative):
        return None
    size = x.itemsize
    if x.strides[0] < 0 or x.strides[0] % size:
        x = np.ascontiguousarray(x)
    if y.strides[0] < 0 or y.strides[0] % size:
        y = np.ascontiguousarray(y)
    f64 = x.dtype.char == "d"
    out = np.empty(1, x.dtype)
    rec = _dot_records[f64]
    entries[f64](_dot_record(f64) if rec is None else rec, x, y, out)  # (an address)
    return out.reshape(())


_dot_records = [None, None]  # (float32, float64) addresses of the records of sdot_ / ddot_


def _dot_record(f64):
    """`_mkl_gemm.dot_into`'s record of ddot_ (f64) or sdot_."""
    from . import _mkl_gemm

    fn = ctypes.cast(getattr(library(), "ddot_" if f64 else "sdot_"), ctypes.c_void_p).value
    r = _records["d" if f64 else "f", "dot"] = _mkl_gemm.make_record(
        fn, 8 if f64 else 4, 0, 1.0, 0.0
    )
    _dot_records[f64] = r.ctypes.data
    return _dot_records[f64]


def product(a, b, out=None, alpha=1.0, beta=0.0):
    """alpha * a @ b (+ beta * out, the C-ordered `out` given) by `product_into` (which must
    be available) for float32 or float64 matrices (or 3-D batches) of one dtype."""
    if out is None:
        out = np.empty(a.shape[:-1] + b.shape[-1:], a.dtype)
    product_into()(record(a.dtype.char, alpha, beta), a, b, out)
    return out


def _compile_into():
    """`_mkl_gemm.product_into`, or False without MKL or numba (FRAMEWORK_NUMBA=0)."""
    if library() is None or os.environ.get("FRAMEWORK_NUMBA", "1") == "0":
        return False
    try:
        from . import _mkl_gemm

        return _mkl_gemm.product_into
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
    the result, then beta = 1) by MKL for float32/float64 NumPy matrices of one dtype: by
    `INTO` at any size and layout, else (ctypes) with at least `MIN_MACS` multiply-adds, an
    inner size of 2 or more (1 with a bias: torch's gemm fuses the product into the bias) and
    a layout cblas takes; None otherwise (the caller keeps its NumPy product)."""
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
    if INTO is not None and b.shape[0] == k and max(m, n, k) < 1 << 31 and dt.isnative:
        out = np.empty((m, n), dt)  # torch's own call at any size and layout (`_mkl_gemm`)
        if bias is None:
            INTO(RECORDS[dt.char], a, b, out)
            return out
        if bias.dtype != dt:
            return None
        out[...] = bias
        INTO(RECORDS[dt.char + "+"], a, b, out)
        return out
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


def gemv(a, v, alpha=1.0, beta=0.0, y=None):
    """alpha * a @ v + beta * y (y: a C-ordered vector of the result's size and dtype, or None
    for a @ v) of a float32/float64 matrix and vector of one dtype (both non-empty) by MKL's
    ?gemv as torch's addmv_impl_cpu calls it, or None without MKL: a matrix of unit-strided
    columns as column-major ('N', lda its column stride), one of unit-strided rows as the
    transpose ('T', lda its row stride), any other one copied C-ordered (lda_cond: the
    leading dimension at least the rows, or one column; a single column's or row's lda
    normalised, as cpublas does: it reads no other). torch's mv is this call: 0 of 800
    random float32/float64 products apart, NumPy's dot 93-95 %. By ctypes (~2 us a call)."""
    if not available():
        return None
    lib, size = library(), a.itemsize
    (r, c), (s0, s1) = a.shape, (a.strides[0] // size, a.strides[1] // size)
    if a.strides[0] == size and (c == 1 or s1 >= max(1, r)):
        order, m, n, lda = 102, r, c, s1 if c > 1 else r  # column-major, no transpose
    else:
        if not (a.strides[1] == size and (r == 1 or s0 >= max(1, c))):
            a = np.ascontiguousarray(a)
            s0 = c
        order, m, n, lda = 101, r, c, s0 if r > 1 else c  # row-major: torch's gemv('t')
    if v.strides[0] <= 0 or v.strides[0] % size:
        v = np.ascontiguousarray(v)
    out = np.empty(r, a.dtype) if y is None else y
    real = ctypes.c_float if size == 4 else ctypes.c_double
    fn = lib.cblas_sgemv if size == 4 else lib.cblas_dgemv
    fn.restype = None
    fn(ctypes.c_int(order), ctypes.c_int(111), ctypes.c_int(m), ctypes.c_int(n), real(alpha),
       ctypes.c_void_p(a.ctypes.data), ctypes.c_int(max(lda, 1)),
       ctypes.c_void_p(v.ctypes.data), ctypes.c_int(v.strides[0] // size), real(beta),
       ctypes.c_void_p(out.ctypes.data), ctypes.c_int(1))  # fmt: skip
    return out
