"""LAPACK's QR and LDL^T pieces torch exposes: ``geqrf`` / ``ormqr`` and
``linalg.ldl_factor`` / ``ldl_factor_ex`` / ``ldl_solve``.

torch's CPU build calls MKL's LAPACK (``?geqrf``, ``?ormqr``, ``?sytrf``, ``?sytrs``): where
the ``mkl`` wheel is loaded (``ops/_mkl.py``) the same Fortran routines are called the same
way (column-major copies, the workspace queried first), so the factors, pivots and solutions
are torch's bits. Without MKL, NumPy's QR (``mode='raw'``, the same Householder convention)
and a NumPy port of LAPACK's unblocked Bunch-Kaufman ``?sytf2`` / ``?sytrs`` take over (the
same pivots; values within rounding of torch's).
"""

import ctypes

import numpy as np

from .autograd.op import Op
from .ops.elementwise import NotImplementedBackward
from .ops.extrema import _return_type, return_types
from .tensor import Tensor

return_types.geqrf = _return_type("geqrf", ("a", "tau"))
return_types.linalg_ldl_factor = _return_type("linalg_ldl_factor", ("LD", "pivots"))
return_types.linalg_ldl_factor_ex = _return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))

_LAPACK = {}  # routine name -> ctypes function, False where MKL is unavailable


def _routine(name, dt, nargs):
    """MKL's Fortran LAPACK routine ``<s|d><name>_`` for dtype `dt`, or None."""
    if dt.char not in "fd" or not dt.isnative:
        return None
    key = "sd"["fd".index(dt.char)] + name + "_"
    fn = _LAPACK.get(key)
    if fn is None:
        from .ops import _mkl

        lib = _mkl.library()
        fn = getattr(lib, key, False) if lib else False
        if fn:
            fn.argtypes, fn.restype = [ctypes.c_void_p] * nargs, None
        _LAPACK[key] = fn
    return fn or None


def _ints(*values):
    """ctypes ints and their addresses (LAPACK takes every scalar by reference)."""
    cells = [ctypes.c_int(v) for v in values]
    return cells, [ctypes.addressof(c) for c in cells]


def _column_major(a):
    """A C-contiguous (batch, cols, rows) copy: each matrix in LAPACK's column-major order."""
    m, n = a.shape[-2:]
    return np.array(np.swapaxes(a, -1, -2), order="C").reshape(-1, n, m)


# ---- geqrf ----


def _geqrf_arrays(a):
    """(a, tau) as LAPACK's ?geqrf returns them, for a (..., m, n) float NumPy array."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    fn = _routine("geqrf", a.dtype, 8)
    if fn is None or not a.size:
        if not a.size:
            return np.zeros(a.shape, a.dtype), np.zeros(batch + (k,), a.dtype)
        h, tau = np.linalg.qr(a, mode="raw")
        return np.swapaxes(h, -1, -2).astype(a.dtype), tau.astype(a.dtype)
    cm = _column_major(a)
    taus = np.zeros((cm.shape[0], k), a.dtype)
    size = np.zeros(1, a.dtype)
    cells, ref = _ints(m, n, max(m, 1), -1, 0)  # m n lda lwork info
    fn(ref[0], ref[1], cm[0].ctypes.data, ref[2], taus[0].ctypes.data, size.ctypes.data, *ref[3:])
    cells[3].value = max(1, int(size[0]))
    work = np.empty(cells[3].value, a.dtype)
    for b in range(cm.shape[0]):
        fn(ref[0], ref[1], cm[b].ctypes.data, ref[2], taus[b].ctypes.data, work.ctypes.data,
           *ref[3:])  # fmt: skip
    out = np.swapaxes(cm.reshape(batch + (n, m)), -1, -2)
    return np.ascontiguousarray(out), taus.reshape(batch + (k,))


class Geqrf(Op):
    """LAPACK's QR factorization in packed form; torch implements no derivative for it."""

    def forward(self, x):
        """(a, tau) of LAPACK's ?geqrf: the Householder QR factorization as torch returns it."""
        if self.xp is np:
            return _geqrf_arrays(x)
        a, tau = _geqrf_arrays(self.xp.asnumpy(x))  # (LAPACK on the host, as torch's CPU)
        return self.xp.asarray(a), self.xp.asarray(tau)

    def backward(self, grad_a, grad_tau):
        """Raises torch's NotImplementedError: geqrf has no derivative in torch."""
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input):
    """A QR factorization in LAPACK's packed form: ``a`` holds R on and above the diagonal
    and the Householder vectors below it, ``tau`` their scales (``linalg.householder_product
    (a, tau)`` gives Q). Not differentiable (as torch).

    Args:
        input (Tensor): ``(*, m, n)``.

    Returns:
        A named tuple ``(a, tau)``: ``(*, m, n)`` and ``(*, min(m, n))``.

    Example:
        >>> a, tau = framework.geqrf(framework.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> a
        tensor([[-5.0000, -2.2000],
                [ 0.5000,  0.4000]])
        >>> tau
        tensor([1.6000, 0.0000])
    """
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input._data.dtype.kind not in "f":
        from .dtypes import scalar_type_name

        raise RuntimeError(
            f'"geqrf_cpu" not implemented for \'{scalar_type_name(input._data.dtype)}\''
        )
    a, tau = Geqrf.apply(input)
    return return_types.geqrf(a, tau)


# ---- ormqr ----


class _Valued(Op):
    """Passes its input's gradient through, but holds `values` (an array computed apart,
    e.g. by LAPACK): torch's bits in the forward, the composition's derivatives."""

    def forward(self, x, values=None):
        return values

    def backward(self, grad):
        return grad

    jvp = Op.jvp_linear


def _valued(t, values, name):
    """`t`'s node (named `name`) over `values` (see _Valued)."""
    cls = _VALUED.get(name)
    if cls is None:
        cls = _VALUED[name] = type(f"_Valued_{name}", (_Valued,), {"node_name": name})
    return cls.apply(t, values=values)


_VALUED = {}


def _ormqr_arrays(a, tau, c, left, transpose):
    """?ormqr's Q C, Q^T C, C Q or C Q^T, or None without MKL."""
    fn = _routine("ormqr", a.dtype, 13)
    if fn is None or not c.size or c.dtype != a.dtype or tau.dtype != a.dtype:
        return None
    batch = np.broadcast_shapes(a.shape[:-2], tau.shape[:-1], c.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    tau = np.ascontiguousarray(np.broadcast_to(tau, batch + tau.shape[-1:])).reshape(
        -1, tau.shape[-1]
    )
    c = np.broadcast_to(c, batch + c.shape[-2:])
    m, n = c.shape[-2:]
    k = tau.shape[-1]
    acm, ccm = _column_major(a), _column_major(c)
    side, trans = ctypes.c_char(b"L" if left else b"R"), ctypes.c_char(b"T" if transpose else b"N")
    cells, ref = _ints(m, n, k, max(a.shape[-2], 1), max(m, 1), -1, 0)  # m n k lda ldc lw info
    size = np.zeros(1, a.dtype)
    sref = [ctypes.addressof(side), ctypes.addressof(trans)]
    fn(*sref, *ref[:3], acm[0].ctypes.data, ref[3], tau[0].ctypes.data, ccm[0].ctypes.data,
       ref[4], size.ctypes.data, ref[5], ref[6])  # fmt: skip
    cells[5].value = max(1, int(size[0]))
    work = np.empty(cells[5].value, a.dtype)
    for b in range(ccm.shape[0]):
        fn(*sref, *ref[:3], acm[b].ctypes.data, ref[3], tau[b].ctypes.data, ccm[b].ctypes.data,
           ref[4], work.ctypes.data, ref[5], ref[6])  # fmt: skip
    return np.ascontiguousarray(np.swapaxes(ccm.reshape(batch + (n, m)), -1, -2))


def ormqr(input, tau, other, left=True, transpose=False):
    """Multiplies ``other`` by the Q of a :func:`geqrf` factorization without forming it:
    ``Q @ other`` (or with ``transpose`` ``Q^T @ other``; with ``left=False``, ``other @ Q``
    or ``other @ Q^T``).

    Args:
        input (Tensor): the Householder vectors, ``(*, mn, k)``.
        tau (Tensor): their scales, ``(*, min(mn, k))``.
        other (Tensor): ``(*, m, n)``, with ``mn`` equal to m (left) or n (right).
        left (bool, optional): multiply from the left. Default: ``True``.
        transpose (bool, optional): use Q's transpose. Default: ``False``.

    Example:
        >>> a, tau = framework.geqrf(framework.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> framework.ormqr(a, tau, framework.eye(2))
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """
    from .linalg import householder_product
    from .ops.join import cat

    if input.dim() < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    mn = input.shape[-2]
    size = other.shape[-2] if left else other.shape[-1]
    if size != mn:
        which = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"torch.ormqr: {which} must be equal to input.shape[-2]")
    k = tau.shape[-1]
    limit = min(other.shape[-2] if left else other.shape[-1], input.shape[-1])
    if k > limit:
        raise RuntimeError(
            "torch.ormqr: tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])"
            if left
            else "torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]"
        )
    reflectors = input[..., :, :k]
    if k < mn:
        reflectors = cat([reflectors, reflectors.new_zeros(reflectors.shape[:-1] + (mn - k,))], -1)
    q = householder_product(reflectors, tau)
    if transpose:
        q = q.mT
    composed = q @ other if left else other @ q
    exact = None
    if input.xp is np:
        exact = _ormqr_arrays(input._data, tau._data, other._data, left, transpose)
    if exact is None or exact.shape != tuple(composed.shape):
        from ._surface_small import _named

        return _named(composed, "OrmqrBackward0")
    return _valued(composed, exact.astype(composed._data.dtype, copy=False), "OrmqrBackward0")


# ---- LDL^T (Bunch-Kaufman) ----

_ALPHA = (1.0 + 17.0**0.5) / 8.0


def _sytf2_lower(a):
    """LAPACK's unblocked ?sytf2 with uplo='L' on one square array, in place: (1-based
    pivots, info)."""
    n = a.shape[0]
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k])
        if k < n - 1:
            imax = k + 1 + int(np.argmax(np.abs(a[k + 1 :, k])))
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                jmax = k + int(np.argmax(np.abs(a[imax, k:imax])))
                rowmax = abs(a[imax, jmax])
                if imax < n - 1:
                    jmax = imax + 1 + int(np.argmax(np.abs(a[imax + 1 :, imax])))
                    rowmax = max(rowmax, abs(a[jmax, imax]))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                if kp < n - 1:
                    tmp = a[kp + 1 :, kk].copy()
                    a[kp + 1 :, kk] = a[kp + 1 :, kp]
                    a[kp + 1 :, kp] = tmp
                tmp = a[kk + 1 : kp, kk].copy()
                a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp]
                a[kp, kk + 1 : kp] = tmp
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / a[k, k]
                    x = a[k + 1 :, k].copy()
                    for j in range(k + 1, n):  # ?syr: the lower triangle, column by column
                        temp = -d11 * x[j - k - 1]
                        if x[j - k - 1] != 0:
                            a[j:, j] += x[j - k - 1 :] * temp
                    a[k + 1 :, k] *= d11
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                for j in range(k + 2, n):
                    wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                    wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
                    a[j:, j] = a[j:, j] - a[j:, k] * wk - a[j:, k + 1] * wkp1
                    a[j, k] = wk
                    a[j, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _ldl_factor_arrays(a):
    """(LD, pivots, info) of ?sytrf('L') on tril(a), for a (..., n, n) float array."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    low = np.tril(a)
    cm = _column_major(low)  # (the transpose of a lower matrix: its column-major layout)
    count = cm.shape[0]
    piv = np.zeros((count, n), np.int32)
    info = np.zeros(count, np.int32)
    fn = _routine("sytrf", a.dtype, 8) if n else None
    if fn is None:
        mats = np.swapaxes(cm, -1, -2).copy()
        for b in range(count):
            piv[b], info[b] = _sytf2_lower(mats[b])
        ld = np.tril(mats)
    else:
        uplo = ctypes.c_char(b"L")
        cells, ref = _ints(n, max(n, 1), -1, 0)  # n lda lwork info
        size = np.zeros(1, a.dtype)
        u = ctypes.addressof(uplo)
        fn(u, ref[0], cm[0].ctypes.data, ref[1], piv[0].ctypes.data, size.ctypes.data, *ref[2:])
        cells[2].value = max(1, int(size[0]))
        work = np.empty(cells[2].value, a.dtype)
        for b in range(count):
            fn(u, ref[0], cm[b].ctypes.data, ref[1], piv[b].ctypes.data, work.ctypes.data,
               *ref[2:])  # fmt: skip
            info[b] = cells[3].value
        ld = np.swapaxes(cm, -1, -2)
    return (
        np.ascontiguousarray(ld).reshape(a.shape),
        piv.reshape(batch + (n,)),
        info.reshape(batch),
    )


def _check_square(A, fn):
    from .dtypes import scalar_type_name

    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{fn}: A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    if A._data.dtype.kind != "f":
        raise RuntimeError(
            f"{fn}: Expected a floating point or complex tensor as input. Got "
            f"{scalar_type_name(A._data.dtype)}"
        )


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """The LDL^T factorization of a symmetric matrix by Bunch-Kaufman pivoting (LAPACK's
    ?sytrf on the lower triangle), without error checks: ``(LD, pivots, info)``.

    ``LD`` holds L below the diagonal and the 1x1 / 2x2 blocks of D on and next to it;
    ``pivots`` are LAPACK's (1-based; a negative pair marks a 2x2 block); ``info`` is 0, or
    i > 0 when D's i-th diagonal element is exactly zero. Not differentiable (as torch).

    Args:
        A (Tensor): ``(*, n, n)``, symmetric (only its lower triangle is read).
        hermitian (bool, optional): for complex input; the same for real. Default: False.
        check_errors (bool, optional): raise on a nonzero info. Default: False.
        out (tuple, optional): ignored (no out= support).

    Example:
        >>> framework.linalg.ldl_factor_ex(framework.tensor([[4.0, 2.0], [2.0, 3.0]]))
        torch.return_types.linalg_ldl_factor_ex(
        LD=tensor([[4.0000, 0.0000],
                [0.5000, 2.0000]]),
        pivots=tensor([1, 2], dtype=torch.int32),
        info=tensor(0, dtype=torch.int32))
    """
    fn = "torch.linalg.ldl_factor_ex"
    _check_square(A, fn)
    ld, piv, info = _ldl_factor_arrays(A._data if A.xp is np else A.xp.asnumpy(A._data))
    dev = A._device
    if A.requires_grad:
        LD = NotImplementedBackward.apply(
            A, fn=lambda xp, a: xp.asarray(ld), aten="linalg_ldl_factor_ex"
        )
    else:
        LD = Tensor._make(A.xp.asarray(ld), dev)
    out_t = return_types.linalg_ldl_factor_ex(
        LD, Tensor._make(A.xp.asarray(piv), dev), Tensor._make(A.xp.asarray(info), dev)
    )
    if check_errors and int(np.asarray(info).max(initial=0)) > 0:
        _ldl_error(info, A.dim() == 2, fn)
    return out_t


def _ldl_error(info, single, fn):
    """torch 2.13's _linalg_check_errors for a positive sytrf info: its internal assert."""
    raise RuntimeError(
        'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
        'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
        f"{fn}: Unknown error code: {int(np.asarray(info).max())}."
    )


def ldl_factor(A, *, hermitian=False, out=None):
    """The LDL^T factorization of a symmetric matrix (see :func:`ldl_factor_ex`), checking
    the result: ``(LD, pivots)``.

    Args:
        A (Tensor): ``(*, n, n)``, symmetric (only its lower triangle is read).
        hermitian (bool, optional): for complex input; the same for real. Default: False.
        out (tuple, optional): ignored (no out= support).

    Example:
        >>> LD, pivots = framework.linalg.ldl_factor(framework.tensor([[4.0, 2.0], [2.0, 3.0]]))
        >>> pivots
        tensor([1, 2], dtype=torch.int32)
    """
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    if (
        int(np.asarray(info._data if info.xp is np else info.xp.asnumpy(info._data)).max(initial=0))
        > 0
    ):
        _ldl_error(info._data, A.dim() == 2, "torch.linalg.ldl_factor")
    return return_types.linalg_ldl_factor(LD, pivots)


def _sytrs_lower(a, ipiv, b):
    """LAPACK's ?sytrs with uplo='L': solves A X = B in place of b (n, nrhs)."""
    n = a.shape[0]
    k = 0
    while k < n:  # L D X = B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            if k < n - 1:
                b[k + 1 :] -= np.outer(a[k + 1 :, k], b[k])
            b[k] *= 1.0 / a[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            if k < n - 2:
                b[k + 2 :] -= np.outer(a[k + 2 :, k], b[k])
                b[k + 2 :] -= np.outer(a[k + 2 :, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1 = a[k, k] / akm1k
            ak = a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = b[k] / akm1k
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = B
        if ipiv[k] > 0:
            if k < n - 1:
                b[k] -= b[k + 1 :].T @ a[k + 1 :, k]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                b[k] -= b[k + 1 :].T @ a[k + 1 :, k]
                b[k - 1] -= b[k + 1 :].T @ a[k + 1 :, k - 1]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _ldl_solve_arrays(ld, piv, b):
    n = ld.shape[-1]
    batch = np.broadcast_shapes(ld.shape[:-2], piv.shape[:-1], b.shape[:-2])
    ld = np.broadcast_to(ld, batch + ld.shape[-2:])
    piv = np.ascontiguousarray(np.broadcast_to(piv, batch + piv.shape[-1:])).reshape(-1, n)
    b = np.broadcast_to(b, batch + b.shape[-2:])
    nrhs = b.shape[-1]
    acm, bcm = _column_major(ld), _column_major(b)
    fn = _routine("sytrs", ld.dtype, 9) if n and nrhs else None
    if fn is None:
        for i in range(bcm.shape[0]):
            x = _sytrs_lower(np.swapaxes(acm[i], 0, 1), piv[i], np.swapaxes(bcm[i], 0, 1).copy())
            bcm[i] = x.T
    else:
        uplo = ctypes.c_char(b"L")
        cells, ref = _ints(n, nrhs, max(n, 1), max(n, 1), 0)  # n nrhs lda ldb info
        u = ctypes.addressof(uplo)
        for i in range(bcm.shape[0]):
            fn(u, ref[0], ref[1], acm[i].ctypes.data, ref[2], piv[i].ctypes.data,
               bcm[i].ctypes.data, ref[3], ref[4])  # fmt: skip
    return np.ascontiguousarray(np.swapaxes(bcm.reshape(batch + (nrhs, n)), -1, -2))


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """Solves ``A X = B`` from :func:`ldl_factor`'s ``(LD, pivots)`` (LAPACK's ?sytrs);
    batches broadcast. Not differentiable (as torch).

    Args:
        LD (Tensor): ``(*, n, n)`` from :func:`ldl_factor`.
        pivots (Tensor): ``(*, n)`` int32 from :func:`ldl_factor`.
        B (Tensor): ``(*, n, k)`` right-hand sides.
        hermitian (bool, optional): for complex input; the same for real. Default: False.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> A = framework.tensor([[4.0, 2.0], [2.0, 3.0]])
        >>> LD, pivots = framework.linalg.ldl_factor(A)
        >>> framework.linalg.ldl_solve(LD, pivots, framework.tensor([[6.0], [5.0]]))
        tensor([[1.],
                [1.]])
    """
    from .dtypes import scalar_type_name

    fn = "torch.linalg.ldl_solve"
    if LD.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor LD must have at least 2 dimensions.")
    if B.dim() < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(B.dim(), 1)}, "
            f"{max(B.dim(), 1) - 1}], but got -2)"
        )
    if LD.shape[-1] != LD.shape[-2]:
        raise RuntimeError(
            f"{fn}: A must be batches of square matrices, but they are {LD.shape[-2]} by "
            f"{LD.shape[-1]} matrices"
        )
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {fn}: each A matrix is {LD.shape[-2]} by "
            f"{LD.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    if pivots._data.dtype != np.int32:
        raise RuntimeError(
            f"{fn}: Expected pivots to be integers. Got {scalar_type_name(pivots._data.dtype)}"
            if pivots._data.dtype.kind != "i"
            else f"{fn}: Expected LD and pivots to have the same dtype. Got Int and "
            f"{scalar_type_name(pivots._data.dtype)}"
        )
    if LD._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"{fn}: Expected LD and B to have the same dtype, but found LD of type "
            f"{scalar_type_name(LD._data.dtype)} and B of type {scalar_type_name(B._data.dtype)} "
            "instead"
        )
    to_np = (lambda a: a) if LD.xp is np else LD.xp.asnumpy
    x = _ldl_solve_arrays(to_np(LD._data), to_np(pivots._data), to_np(B._data))
    if LD.requires_grad or B.requires_grad:
        return NotImplementedBackward.apply(
            LD, B, fn=lambda xp, a, b: xp.asarray(x), aten="linalg_ldl_solve"
        )
    return Tensor._make(LD.xp.asarray(x), LD._device)


def _geqrf_method(self):
    """See :func:`framework.geqrf`."""
    return geqrf(self)


def _ormqr_method(self, input2, input3, left=True, transpose=False):
    """See :func:`framework.ormqr`."""
    return ormqr(self, input2, input3, left, transpose)


for _fn, _name in ((_geqrf_method, "geqrf"), (_ormqr_method, "ormqr")):
    _fn.__name__, _fn.__qualname__ = _name, f"Tensor.{_name}"
    setattr(Tensor, _name, _fn)

__all__ = ["geqrf", "ormqr"]
