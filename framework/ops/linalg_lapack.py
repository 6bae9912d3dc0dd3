"""MKL's LAPACK and BLAS triangular solves by ctypes, called as torch's CPU kernels call them.

torch 2.13's CPU linalg runs MKL 2024.2 (``getrf``/``getrs`` for inv, solve, lu and det,
``potrf``/``potrs``/``potri`` for Cholesky, ``geqrf`` for QR, ``?trsm`` for triangular solves,
``syevd`` for eigh, ``gesdd`` for svd); NumPy's OpenBLAS rounds differently in the last bits.
Where `_mkl.library()` loads (the ``mkl`` wheel), the functions here give torch's bits: the
same routine, on the same (column-major) data, one matrix at a time, with the workspace size
queried once per batch as torch's ``apply_*`` loops do. Without it each returns None and the
caller keeps its NumPy route.

Matrices travel as "F buffers": C-contiguous arrays of shape ``(batch, cols, rows)``, each
matrix stored column by column (LAPACK's layout); `to_f` makes one (a copy), `from_f` views
it back as ``(*batch, rows, cols)`` (torch's LAPACK strides). Float32/float64 NumPy arrays
with 32-bit sizes only.
"""

import ctypes

import numpy as np

from . import _mkl

_FN = {}  # routine name ("dgetrf_") -> ctypes function, False where unavailable
_ARGS = {
    "getrf": 6,
    "getrs": 9,
    "potrf": 5,
    "potrs": 8,
    "potri": 5,
    "trsm": 11,
    "geqrf": 8,
    "syevd": 11,
    "gesdd": 14,
}  # (every argument a pointer)
_P = ctypes.c_void_p
_I32 = ctypes.sizeof(ctypes.c_int)


def function(name, dtype):
    """MKL's Fortran routine ``<s|d><name>_`` for a float32/float64 dtype, or None (no MKL, or
    another dtype / byte order)."""
    dt = np.dtype(dtype)
    if dt.char not in "fd" or not dt.isnative:
        return None
    full = ("s" if dt.char == "f" else "d") + name + "_"
    fn = _FN.get(full)
    if fn is None:
        lib = _mkl.library()
        fn = getattr(lib, full, False) if lib is not None else False
        if fn:
            fn.argtypes, fn.restype = [_P] * _ARGS[name], None
        _FN[full] = fn
    return fn or None


def usable(*arrays):
    """True where MKL's LAPACK can take these arrays: NumPy float32/float64 of one native
    dtype, MKL loaded."""
    a = arrays[0]
    if type(a) is not np.ndarray or a.dtype.char not in "fd" or not a.dtype.isnative:
        return False
    if any(type(b) is not np.ndarray or b.dtype != a.dtype for b in arrays[1:]):
        return False
    return _mkl.library() is not None


class _Ints:
    """Fortran INTEGER / CHARACTER arguments by reference: one C array, its addresses (a
    character as its code: Fortran reads the first byte)."""

    __slots__ = ("arr", "base")

    def __init__(self, *values):
        self.arr = (ctypes.c_int * len(values))(*values)
        self.base = ctypes.addressof(self.arr)

    def __call__(self, i):
        return self.base + i * _I32

    def __getitem__(self, i):
        return self.arr[i]

    def __setitem__(self, i, v):
        self.arr[i] = v


def _ptrs(a):
    """(address of a's first matrix, bytes from one matrix to the next) of an F buffer."""
    return a.ctypes.data, a.strides[0] if a.shape[0] > 1 else 0


def to_f(a):
    """A copy of a (*, rows, cols) array as an F buffer (batch, cols, rows)."""
    rows, cols = a.shape[-2:]
    return np.array(np.swapaxes(a, -1, -2), order="C").reshape(-1, cols, rows)


def from_f(buf, batch):
    """The (*batch, rows, cols) view of an F buffer (batch', cols, rows)."""
    cols, rows = buf.shape[-2:]
    return np.swapaxes(buf.reshape(tuple(batch) + (cols, rows)), -1, -2)


def f_copy(a):
    """A copy of `a` (*, rows, cols) in LAPACK's layout with the strides torch gives its
    results (also along dimensions of size 1, which NumPy's flags ignore)."""
    return np.swapaxes(np.swapaxes(a, -1, -2).copy(order="C"), -1, -2)


def getrf(buf):
    """LU with partial pivoting of each matrix of an F buffer, in place: (pivots (batch, k)
    int32, 1-based; info (batch,) int32). None without MKL."""
    fn = function("getrf", buf.dtype)
    if fn is None:
        return None
    b, n, m = buf.shape
    k = min(m, n)
    piv = np.zeros((b, max(k, 1)), np.int32)
    info = np.zeros(b, np.int32)
    if m and n:
        ints = _Ints(m, n, max(1, m))
        pa, sa = _ptrs(buf)
        pp, sp, pi = piv.ctypes.data, 4 * piv.shape[1], info.ctypes.data
        for i in range(b):
            fn(ints.base, ints(1), pa + i * sa, ints(2), pp + i * sp, pi + 4 * i)
    return piv[:, :k], info


def potrf(uplo, buf):
    """Cholesky factor of each matrix of an F buffer in place (the `uplo` triangle, 'L' or
    'U'); info (batch,) int32: the order of the first leading minor not positive-definite."""
    fn = function("potrf", buf.dtype)
    b, n, _ = buf.shape
    info = np.zeros(b, np.int32)
    if n:
        ints = _Ints(ord(uplo), n, max(1, n))
        pa, sa = _ptrs(buf)
        pi = info.ctypes.data
        for i in range(b):
            fn(ints.base, ints(1), pa + i * sa, ints(2), pi + 4 * i)
    return info


def potrs(uplo, factor, rhs):
    """Solve A X = B from Cholesky factors (F buffers), `rhs` overwritten with X."""
    fn = function("potrs", factor.dtype)
    b, nrhs, n = rhs.shape
    if not n or not nrhs:
        return rhs
    ints = _Ints(ord(uplo), n, nrhs, max(1, n), max(1, n), 0)
    pa, sa = _ptrs(factor)
    pb, sb = _ptrs(rhs)
    for i in range(b):
        fn(ints.base, ints(1), ints(2), pa + i * sa, ints(3), pb + i * sb, ints(4), ints(5))
    return rhs


def potri(uplo, buf):
    """(A)^-1 from the Cholesky factor of each matrix (F buffer), in place: only the `uplo`
    triangle is written (the other keeps the factor's)."""
    fn = function("potri", buf.dtype)
    b, n, _ = buf.shape
    if n:
        ints = _Ints(ord(uplo), n, max(1, n), 0)
        pa, sa = _ptrs(buf)
        for i in range(b):
            fn(ints.base, ints(1), pa + i * sa, ints(2), ints(3))
    return buf


def trsm(side, uplo, transa, diag, a, rhs):
    """BLAS ``?trsm`` (alpha = 1) on each pair of F buffers: op(A) X = B (side 'L') or
    X op(A) = B ('R'), `rhs` (batch, n, m) overwritten; `a` broadcasts over the batch when it
    holds one matrix."""
    fn = function("trsm", a.dtype)
    b, n, m = rhs.shape
    if not n or not m:
        return rhs
    k = a.shape[-1]
    one = np.ones(1, a.dtype)
    ints = _Ints(ord(side), ord(uplo), ord(transa), ord(diag), m, n, max(1, k), max(1, m))
    pa, sa = _ptrs(a)
    pb, sb = _ptrs(rhs)
    p1, r = one.ctypes.data, ints
    for i in range(b):
        fn(r.base, r(1), r(2), r(3), r(4), r(5), p1, pa + i * sa, r(6), pb + i * sb, r(7))
    return rhs


_LWORK = {}  # (routine, dtype, sizes) -> its workspace query's answer (the same every time)


def _workspace(key, query):
    """The workspace sizes of `key`, from `query()` (a LAPACK call with lwork = -1) once."""
    got = _LWORK.get(key)
    if got is None:
        got = _LWORK[key] = query()
    return got


def geqrf(buf):
    """QR of each matrix of an F buffer in place (R on and above the diagonal, the
    reflectors below); returns tau (batch, min(m, n)). The workspace is the size LAPACK's
    query gives, as torch's apply_geqrf."""
    fn = function("geqrf", buf.dtype)
    b, n, m = buf.shape
    k = min(m, n)
    tau = np.zeros((b, k), buf.dtype)
    if not m or not n:
        return tau
    r = _Ints(m, n, max(1, m), -1, 0)
    pa, sa = _ptrs(buf)
    pt, st = tau.ctypes.data, tau.strides[0]

    def query():
        size = np.zeros(1, buf.dtype)
        fn(r.base, r(1), pa, r(2), pt, size.ctypes.data, r(3), r(4))
        return max(1, int(size[0]))

    r[3] = _workspace(("geqrf", buf.dtype.char, m, n), query)
    work = np.empty(r[3], buf.dtype)  # (kept referenced while LAPACK writes it)
    pw = work.ctypes.data
    for i in range(b):
        fn(r.base, r(1), pa + i * sa, r(2), pt + i * st, pw, r(3), r(4))
    return tau


def syevd(jobz, uplo, buf):
    """Eigenvalues (ascending, (batch, n)) of each symmetric matrix of an F buffer (its
    `uplo` triangle); with jobz 'V' the buffer is overwritten by the eigenvectors. info
    (batch,) int32 > 0 where it did not converge."""
    fn = function("syevd", buf.dtype)
    b, n, _ = buf.shape
    w = np.zeros((b, n), buf.dtype)
    info = np.zeros(b, np.int32)
    if not n:
        return w, info
    r = _Ints(ord(jobz), ord(uplo), n, max(1, n), -1, -1, 0)
    pa, sa = _ptrs(buf)
    pw, sw = w.ctypes.data, w.strides[0]

    def query():
        size, isize = np.zeros(1, buf.dtype), np.zeros(1, np.int32)
        fn(r.base, r(1), r(2), pa, r(3), pw, size.ctypes.data, r(4), isize.ctypes.data, r(5),
           r(6))  # fmt: skip
        return max(1, int(size[0])), max(1, int(isize[0]))

    r[4], r[5] = _workspace(("syevd", buf.dtype.char, jobz, n), query)
    work, iwork = np.empty(r[4], buf.dtype), np.empty(r[5], np.int32)
    pk, pi = work.ctypes.data, iwork.ctypes.data
    for i in range(b):
        fn(r.base, r(1), r(2), pa + i * sa, r(3), pw + i * sw, pk, r(4), pi, r(5), r(6))
        info[i] = r[6]
    return w, info


def gesdd(jobz, buf):
    """SVD of each matrix of an F buffer (destroyed): (S (batch, k), U F buffer, Vh F buffer,
    info). jobz 'N' (values only: U, Vh None), 'S' (reduced) or 'A' (full). The workspace is
    the size LAPACK's query gives, as torch's apply_svd."""
    fn = function("gesdd", buf.dtype)
    b, n, m = buf.shape
    k = min(m, n)
    s = np.zeros((b, k), buf.dtype)
    info = np.zeros(b, np.int32)
    ucols, vrows = (m, n) if jobz == "A" else (k, k)
    if jobz == "N":
        u = vt = None
        pu = pv = np.zeros((1, 1, 1), buf.dtype)
    else:
        u, vt = np.zeros((b, ucols, m), buf.dtype), np.zeros((b, n, vrows), buf.dtype)
        pu, pv = u, vt
    if not m or not n:
        return s, u, vt, info
    r = _Ints(ord(jobz), m, n, max(1, m), max(1, m), max(1, vrows), -1, 0)
    iwork = np.empty(max(1, 8 * k), np.int32)
    pa, sa = _ptrs(buf)
    ps, ss = s.ctypes.data, s.strides[0]
    (qu, su), (qv, sv), pi = _ptrs(pu), _ptrs(pv), iwork.ctypes.data

    def query():
        size = np.zeros(1, buf.dtype)
        fn(r.base, r(1), r(2), pa, r(3), ps, qu, r(4), qv, r(5), size.ctypes.data, r(6), pi,
           r(7))  # fmt: skip
        return max(1, int(size[0]))

    r[6] = _workspace(("gesdd", buf.dtype.char, jobz, m, n), query)
    work = np.empty(r[6], buf.dtype)  # (kept referenced while LAPACK writes it)
    pk = work.ctypes.data
    for i in range(b):
        fn(r.base, r(1), r(2), pa + i * sa, r(3), ps + i * ss, qu + i * su, r(4), qv + i * sv,
           r(5), pk, r(6), pi, r(7))  # fmt: skip
        info[i] = r[7]
    return s, u, vt, info


# ----- torch's compositions of the routines above (on arrays; None without MKL) -----


def lu_factor(A, transpose=False):
    """torch's linalg_lu_factor_ex on a float array A (*, m, n): (F buffer of the packed
    factors, pivots (*, k), info (*)), or None without MKL. `transpose`: factor A^T, which
    torch does for a C-contiguous A in solve/inv/det/slogdet (its memory read column by
    column, no copy there)."""
    if not usable(A):
        return None
    if A.ndim == 2 and A.size:  # one matrix: one address read per buffer
        rows, cols = A.shape[::-1] if transpose else A.shape
        buf = np.empty((1, cols, rows), A.dtype)
        buf[0] = A if transpose else A.T
        k = min(rows, cols)
        ints = np.empty(4 + k, np.int32)  # m n lda info | ipiv
        ints[:4] = (rows, cols, max(1, rows), 0)
        p = ints.ctypes.data
        function("getrf", A.dtype)(p, p + 4, buf.ctypes.data, p + 8, p + 16, p + 12)
        return buf, ints[4:], ints[3:4].reshape(())
    if transpose:
        buf = np.array(A, order="C").reshape((-1,) + A.shape[-2:])
    else:
        buf = to_f(A)
    piv, info = getrf(buf)
    return buf, piv.reshape(A.shape[:-2] + piv.shape[-1:]), info.reshape(A.shape[:-2])


def lu_solve(lu, piv, lu_batch, B, trans):
    """X with op(A) X = B from getrf's factors (F buffer `lu` of the matrices of batch shape
    `lu_batch`, pivots (*lu_batch, n)), B (*, n, k) broadcast with them, as torch's
    apply_lu_solve (getrs per right-hand side matrix, the factors picked by broadcasting).
    Returns X (*, n, k) in LAPACK's layout."""
    batch = np.broadcast_shapes(tuple(lu_batch), B.shape[:-2])
    rhs = to_f(np.broadcast_to(B, batch + B.shape[-2:]))
    count, n, nrhs = rhs.shape[0], lu.shape[-1], rhs.shape[1]
    piv = np.ascontiguousarray(piv, np.int32).reshape(-1, n)
    if count and n and nrhs:
        fn = function("getrs", lu.dtype)
        ints = _Ints(ord(trans), n, nrhs, max(1, n), max(1, n), 0)
        pa, sa = lu.ctypes.data, lu.strides[0]
        pp, pb, sb = piv.ctypes.data, rhs.ctypes.data, rhs.strides[0]
        if lu.shape[0] == count:
            idx = range(count)
        else:
            idx = np.broadcast_to(np.arange(lu.shape[0]).reshape(lu_batch), batch).reshape(-1)
            idx = idx.tolist()
        r = ints
        for i, j in enumerate(idx):
            fn(r.base, r(1), r(2), pa + j * sa, r(3), pp + 4 * n * j, pb + i * sb, r(4), r(5))
    return from_f(rhs, batch)


def solve(A, B, transposed=False):
    """torch's _linalg_solve_ex on arrays (B a matrix (*, n, k)): getrf of A (torch 2.13's
    CPU build factors A itself whatever its layout: measured, every bit of inv/solve for
    C- and F-ordered A), then getrs per broadcast matrix. `transposed`: A is A'^T for X A' =
    B^T (left=False), solved as torch solves it: getrf of A', getrs 'T'. Returns (X in
    LAPACK's layout, info (*A batch)), or None without MKL."""
    if not usable(A, B):
        return None
    if A.ndim == 2 and B.ndim == 2:
        return _solve_one(A, B, transposed)
    lu, piv, info = lu_factor(np.swapaxes(A, -1, -2) if transposed else A)
    return lu_solve(lu, piv, A.shape[:-2], B, "T" if transposed else "N"), info


def _solve_one(A, B, transposed):
    """`solve` of one matrix, its arguments in one float and one int32 buffer (each address
    read once: a small inverse costs about as much as NumPy's)."""
    n, k = A.shape[-1], B.shape[-1]
    f = np.empty(n * (n + k), A.dtype)
    lu, rhs = f[: n * n].reshape(n, n), f[n * n :].reshape(k, n)
    lu[...] = A if transposed else A.T  # column-major A (A^T's when `transposed`)
    rhs[...] = B.T
    ints = np.empty(6 + n, np.int32)  # n k lda info trans 0 | ipiv
    ints[:6] = (n, k, max(1, n), 0, ord("T" if transposed else "N"), 0)
    p, pf = ints.ctypes.data, f.ctypes.data
    function("getrf", A.dtype)(p, p, pf, p + 8, p + 24, p + 12)
    function("getrs", A.dtype)(p + 16, p, p + 4, pf, p + 8, p + 24, pf + lu.nbytes, p + 8, p + 20)
    return rhs.T, ints[3:4].reshape(())


def det_factors(A):
    """(diagonal of U (*, n) C-contiguous, permutation sign (*) in A's dtype) of torch's
    _linalg_det / _linalg_slogdet: getrf of A^T for a C-contiguous A (its memory as is),
    else of A; None without MKL."""
    got = lu_factor(A, bool(A.flags.c_contiguous))
    if got is None:
        return None
    lu, piv, _ = got
    n = A.shape[-1]
    diag = np.diagonal(lu, axis1=-2, axis2=-1).reshape(A.shape[:-1])
    if piv.ndim == 1:  # one matrix: its few pivots in Python
        odd = sum(p != i for i, p in enumerate(piv.tolist(), 1)) % 2
        return diag, np.asarray(-1 if odd else 1, A.dtype)
    swaps = np.count_nonzero(piv != np.arange(1, n + 1, dtype=np.int32), axis=-1)
    return diag, (1 - 2 * (swaps % 2)).astype(A.dtype)


def diagonal_product(diag):
    """The product over the last axis in torch's order for a strided diagonal (one
    accumulator, left to right)."""
    if diag.ndim == 1:  # (NumPy scalars: the dtype's rounding at each step)
        out = diag.dtype.type(1) if not diag.size else diag[0]
        for x in diag[1:]:
            out = out * x
        return np.asarray(out)
    out = diag[..., 0].copy() if diag.shape[-1] else np.ones(diag.shape[:-1], diag.dtype)
    for j in range(1, diag.shape[-1]):
        out *= diag[..., j]
    return out


def perm_from_pivots(piv, m):
    """The row order of LAPACK's 1-based sequential row swaps `piv` (*, k): P^T A = A[perm]."""
    batch, k = piv.shape[:-1], piv.shape[-1]
    flat = np.array(np.broadcast_to(np.arange(m), batch + (m,))).reshape(-1, m)
    p = piv.reshape(-1, k).astype(np.int64) - 1
    rows = np.arange(flat.shape[0])
    for j in range(k):
        top = flat[rows, j].copy()
        flat[rows, j] = flat[rows, p[:, j]]
        flat[rows, p[:, j]] = top
    return flat.reshape(batch + (m,))


def cholesky(A, upper):
    """torch's linalg_cholesky_ex on an array: potrf of tril(A) (triu(A) when `upper`, read
    as the 'U' triangle) in column-major order. (factor in LAPACK's layout, info (*)), or
    None without MKL."""
    if not usable(A):
        return None
    buf = to_f(np.triu(A) if upper else np.tril(A))
    info = potrf("U" if upper else "L", buf)
    return from_f(buf, A.shape[:-2]), info.reshape(A.shape[:-2])


def cholesky_solve(B, L, upper):
    """torch's _cholesky_solve_helper: potrs on column-major copies of the broadcast B and
    factor. X in LAPACK's layout, or None without MKL."""
    if not usable(B, L):
        return None
    batch = np.broadcast_shapes(B.shape[:-2], L.shape[:-2])
    rhs = to_f(np.broadcast_to(B, batch + B.shape[-2:]))
    potrs("U" if upper else "L", to_f(np.broadcast_to(L, batch + L.shape[-2:])), rhs)
    return from_f(rhs, batch)


def cholesky_inverse(L, upper):
    """torch's cholesky_inverse: potri on a column-major copy, its triangle then mirrored
    (apply_reflect_conj_tri_single). The inverse in LAPACK's layout, or None without MKL."""
    if not usable(L):
        return None
    buf = potri("U" if upper else "L", to_f(L))
    X = from_f(buf, L.shape[:-2])
    T = np.triu(X) if upper else np.tril(X)
    full = T + np.swapaxes(np.triu(X, 1) if upper else np.tril(X, -1), -1, -2)
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(full, -1, -2)), -1, -2)


def solve_triangular(A, B, upper, left, unit):
    """torch's linalg_solve_triangular_out on arrays: the broadcast B copied column-major,
    trsm on A's own memory when it is C- or F-contiguous (a C-contiguous A passed as A^T:
    'T' and the other triangle), else on a column-major copy. X in LAPACK's layout, or None
    without MKL."""
    if not usable(A, B):
        return None
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    rhs = to_f(np.broadcast_to(B, batch + B.shape[-2:]))
    Ab = np.broadcast_to(A, batch + A.shape[-2:])
    n = A.shape[-1]
    if Ab.flags.c_contiguous:
        a, uplo, trans = np.ascontiguousarray(Ab).reshape(-1, n, n), not upper, "T"
    else:
        a, uplo, trans = to_f(Ab), upper, "N"  # (an F-ordered A: the same bits as its copy)
    trsm("L" if left else "R", "U" if uplo else "L", trans, "U" if unit else "N", a, rhs)
    return from_f(rhs, batch)


def triangular_solve(b, A, upper, transpose, unit):
    """torch's triangular_solve (legacy): trsm on column-major copies of the broadcast A and
    b. X in LAPACK's layout, or None without MKL."""
    if not usable(A, b):
        return None
    batch = np.broadcast_shapes(A.shape[:-2], b.shape[:-2])
    rhs = to_f(np.broadcast_to(b, batch + b.shape[-2:]))
    a = to_f(np.broadcast_to(A, batch + A.shape[-2:]))
    trsm("L", "U" if upper else "L", "T" if transpose else "N", "U" if unit else "N", a, rhs)
    return from_f(rhs, batch)
