"""Differentiable linear algebra: inv, det, slogdet, solve, cholesky, qr, eigh, svd, pinv.

Forward runs LAPACK through xp.linalg; every backward is written with Tensor ops (so second
derivatives work), following torch's formulas in FunctionsManual.cpp for real inputs."""

import numpy as _np

from ..amp.autocast_mode import entry as _amp_entry
from .. import dtypes
from .._errors import broadcast_shapes, float_input, refuse
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op
from ..tensor import Tensor
from .extrema import return_types
from .loss import _quiet
from . import linalg_lapack as _lapack


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a factorization or inversion failed."""


LinAlgError = _LinAlgError


def _first_zero_pivot(xp, a):
    """1-based index of the first zero pivot of LU with partial pivoting (LAPACK's info)."""
    from ..backend import to_numpy

    a = to_numpy(a).astype("float64").copy()
    n = a.shape[-1]
    for k in range(n):
        p = k + int(abs(a[k:, k]).argmax())
        if a[p, k] == 0:
            return k + 1
        a[[k, p]] = a[[p, k]]
        a[k + 1 :] -= a[k + 1 :, k : k + 1] / a[k, k] * a[k]
    return n


def _singular(xp, A):
    """(batch element, matrix) of the first matrix of A whose LU factorization has an exactly
    zero pivot, or None. torch raises exactly then (LAPACK getrf's info > 0): a NaN/inf or a
    merely ill-conditioned matrix solves (to NaN/inf or large values)."""
    flat = A.reshape(-1, A.shape[-2], A.shape[-1])
    numpy = getattr(xp, "__name__", "") == "numpy"
    if numpy:
        try:  # gesv, LAPACK's own check, over the batch at once
            xp.linalg.solve(flat, xp.ones(flat.shape[:-1], flat.dtype)[..., None])
            return None
        except xp.linalg.LinAlgError:
            pass
    for b, m in enumerate(flat):
        if numpy:
            try:
                xp.linalg.solve(m, xp.ones(m.shape[-1], m.dtype))  # gesv: LAPACK's own check
                continue
            except xp.linalg.LinAlgError:
                return b, m
        elif xp.linalg.matrix_rank(m) < m.shape[-1]:  # CuPy reports no pivot: by its rank
            return b, m
    return None


def _mkl_solve(A, B, transposed=False):
    """(X, info) of torch's LU solve by MKL (`linalg_lapack.solve`: its bits) for non-empty
    float32/float64 NumPy arrays, else None (the NumPy route). `transposed`: A is the
    transpose of the matrix torch factors (solve's left=False)."""
    if not A.size or not B.size or type(A) is not _np.ndarray:
        return None
    return _lapack.solve(A, B, transposed)


def _first_info(info):
    """(batch element, info) of the first matrix with LAPACK info > 0, or None."""
    flat = info.reshape(-1)
    bad = _np.flatnonzero(flat > 0)
    return (int(bad[0]), int(flat[bad[0]])) if bad.size else None


def _singular_error(fn, A, failed, what):
    """torch's LinAlgError for a failed factorization, with its "(Batch element i): " part."""
    where = f"(Batch element {failed[0]}): " if A.ndim > 2 else ""
    return _LinAlgError(f"{fn}: {where}{what}")


def _out(op, array, i):
    """Output i of a multi-output op as a tensor of this node (for double backward)."""
    return op.output_at(array, i)


def _mT(t):
    return t.transpose(-2, -1)


def lapack_layout(xp, a):
    """``a`` with each matrix (its last two dims) stored column by column and the batches in
    C order: LAPACK's layout, which torch's linalg results keep (a (2, 4, 2) solution has
    strides (8, 1, 4), so ``is_contiguous()`` is False and ``view`` refuses as torch's). A
    1-D array is returned as is."""
    if a.ndim < 2:
        return a
    if not a.size:  # torch's batched_matrix_contiguous_strides(f_contig) (NumPy: zeros)
        from ..backend import as_strided

        st, acc = [], 1
        for n in reversed(a.shape):
            st.insert(0, acc)
            acc *= max(n, 1)
        st[-2:] = [1, max(a.shape[-2], 1)]
        return as_strided(a, a.shape, st)
    return xp.swapaxes(xp.ascontiguousarray(xp.swapaxes(a, -1, -2)), -1, -2)


def _eye_like(t, n):
    return Tensor._make(t.xp.eye(n, dtype=t._data.dtype), t.device)


def _check_square(A, fn, floating=True):
    if A.dim() < 2:
        raise RuntimeError(f"linalg.{fn}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.{fn}: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if fn == "eigh":
        refuse(A._data, "biu", "linalg_eigh_cpu")
    if floating:
        float_input(f"linalg.{fn}", A)


def _lu_solve(xp, A, B):
    """X with A X = B by torch's route on arrays: LAPACK getrf (partial pivoting), then getrs'
    unit-lower and upper substitutions, column by column. Used where A has inf/NaN entries:
    the NaN/inf land where torch's solver puts them (NumPy's gesv puts them elsewhere)."""
    from .linalg_lu import _getrf

    batch = xp.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = xp.broadcast_to(A, batch + A.shape[-2:])
    LU, _, perm, _ = _getrf(xp, A)
    b = xp.take_along_axis(xp.broadcast_to(B, batch + B.shape[-2:]), perm[..., None], axis=-2)
    n = A.shape[-1]
    with _quiet(xp):
        for j in range(n):
            b[..., j + 1 :, :] -= LU[..., j + 1 :, j : j + 1] * b[..., j : j + 1, :]
        for j in range(n - 1, -1, -1):
            b[..., j : j + 1, :] /= LU[..., j : j + 1, j : j + 1]
            b[..., :j, :] -= LU[..., :j, j : j + 1] * b[..., j : j + 1, :]
    return b


_ADJOINT_MAX = 32  # the largest n whose LU solves are replayed (a Python loop per entry)


def _getrs(xp, LU, perm, B, adjoint):
    """X with M X = B (or M^T X = B when `adjoint`) from getrf's packed factors of M (P M =
    L U, `perm` the rows of P M), as LAPACK's getrs substitutes: L then U, or U^T then the
    unit L^T and the row interchanges undone. B is overwritten (a float copy)."""
    n = LU.shape[-1]
    w = B
    with _quiet(xp):
        if not adjoint:
            w = xp.take_along_axis(w, perm[..., None], axis=-2)
            for j in range(n):
                w[..., j + 1 :, :] -= LU[..., j + 1 :, j : j + 1] * w[..., j : j + 1, :]
            for j in range(n - 1, -1, -1):
                w[..., j : j + 1, :] /= LU[..., j : j + 1, j : j + 1]
                w[..., :j, :] -= LU[..., :j, j : j + 1] * w[..., j : j + 1, :]
            return w
        for j in range(n):  # U^T w = b, row j after the earlier ones
            for i in range(j):
                w[..., j, :] -= LU[..., i, j, None] * w[..., i, :]
            w[..., j, :] /= LU[..., j, j, None]
        for j in range(n - 1, -1, -1):  # L^T v = w (unit diagonal)
            for i in range(j + 1, n):
                w[..., j, :] -= LU[..., i, j, None] * w[..., i, :]
    x = xp.empty_like(w)
    xp.put_along_axis(x, perm[..., None], w, axis=-2)  # x[perm] = v: P^T v
    return x


def _lu_solve_adjoint(xp, M, B):
    """X with M^T X = B by torch's route for a solve's backward over a non-contiguous A
    (`linalg_lu_solve(LU, pivots, gX, adjoint=True)` with the forward's LU of M). For an
    ill-conditioned M the pivots of M, not of M^T, decide the values."""
    from .linalg_lu import _getrf

    batch = xp.broadcast_shapes(M.shape[:-2], B.shape[:-2])
    LU, _, perm, _ = _getrf(xp, xp.broadcast_to(M, batch + M.shape[-2:]))
    w = xp.broadcast_to(B, batch + B.shape[-2:]).astype(LU.dtype, copy=True)
    return _getrs(xp, LU, perm, w, True)


def _lu_gradient(A, c, eps=False):
    """c A^{-T} (c per matrix) as torch's det/slogdet backward without create_graph: getrs
    with the forward's factors (of A^T for a C-contiguous A, solved plainly; else of A,
    solved adjoint), by MKL: its bits. `eps`: a zero pivot replaced by the dtype's epsilon
    (det's: a singular A's gradient stays finite). None without MKL."""
    if not A.size or not _lapack.usable(A, c):
        return None
    use_t = bool(A.flags.c_contiguous)
    lu, piv, _ = _lapack.lu_factor(A, use_t)
    n = A.shape[-1]
    if eps:  # torch's LU + diag_embed(where(diag == 0, eps, 0)): -0 entries become +0
        d = _np.diagonal(lu, axis1=-2, axis2=-1)
        lu += 0.0
        lu[:, range(n), range(n)] = _np.where(d == 0, _np.finfo(A.dtype).eps, d)
    D = _np.zeros(A.shape, A.dtype)  # diag_embed(c): +0 off the diagonal
    D[..., range(n), range(n)] = c[..., None]
    return _lapack.lu_solve(lu, piv, A.shape[:-2], D, "N" if use_t else "T")


def _det_gradient(xp, A, c):
    """torch's linalg_det_backward without a graph: c A^{-T} as linalg_lu_solve of the
    forward's LU (of A^T for a contiguous A, solved plainly; else of A, solved adjoint), a
    zero pivot replaced by the dtype's epsilon (a singular A gets a finite gradient). Seed
    60092855: det's second derivative at an entry of 1e30 (A^{-T} through inv's LU of A was
    4.8e12 off). float64 only: float32's LAPACK fuses the multiply-adds this loop rounds twice,
    which a cancelling determinant magnifies (seed 50002071), so float32 keeps the inverse."""
    from .linalg_lu import _getrf

    n = A.shape[-1]
    contiguous = A.flags.c_contiguous
    M = xp.swapaxes(A, -1, -2) if contiguous else A
    LU, _, perm, _ = _getrf(xp, M)
    diag = xp.diagonal(LU, axis1=-2, axis2=-1)
    eps = _np.finfo(A.dtype).eps
    LU = LU + (xp.eye(n, dtype=A.dtype) * xp.where(diag == 0, eps, 0)[..., None, :])
    D = c[..., None, None] * xp.eye(n, dtype=A.dtype)
    return _getrs(xp, LU, perm, D.astype(A.dtype, copy=True), not contiguous)


class LinalgInvEx(Op):
    no_bfloat16 = "linalg.inv: Low precision dtypes not supported. Got BFloat16"
    saves_output = True

    def forward(self, A):
        xp = self.xp
        got = _mkl_solve(A, xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape))
        if got is not None:
            X, info = got
            bad = _first_info(info)
            if bad is not None:
                raise _singular_error(
                    "linalg.inv",
                    A,
                    bad,
                    f"The diagonal element {bad[1]} is zero, the inversion could not be "
                    "completed because the input matrix is singular.",
                )
            return X
        bad = _singular(xp, A) if A.size else None
        if bad is not None:
            raise _singular_error(
                "linalg.inv",
                A,
                bad,
                f"The diagonal element {_first_zero_pivot(xp, bad[1])} is zero, the inversion "
                "could not be completed because the input matrix is singular.",
            )
        if not bool(xp.isfinite(A).all()):  # torch's inv is solve(A, I)
            eye = xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape)
            return lapack_layout(xp, _lu_solve(xp, A, eye))
        return lapack_layout(xp, xp.linalg.inv(A))

    def backward(self, grad):
        Y = self.output
        return -(_mT(Y) @ (grad @ _mT(Y)))  # torch's -(Y^H (grad Y^H)): NegBackward0

    def jvp(self, t):
        Y = self.result
        return -Y @ t @ Y  # d A^-1 = -A^-1 dA A^-1


def inv(A):
    """Inverse of a square matrix (or batch).

    Args:
        A (Tensor): an invertible matrix ``(n, n)`` or a batch of them ``(*, n, n)``.

    Example:
        >>> framework.linalg.inv(framework.tensor([[2., 0.], [0., 4.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    _check_square(A, "inv")
    return LinalgInvEx.apply(A)


def _lu_diagonal(xp, A):
    """(diagonal of U, permutation sign) of torch's LU of a batch with inf/NaN entries.

    torch factors the transposed matrix (its row-major data read as column-major; the
    determinant is the same) and multiplies out U's diagonal, so an inf/NaN spreads where
    LAPACK's elimination of A^T spreads it (NumPy factors A: other NaN/inf places)."""
    from .linalg_lu import _getrf

    LU, piv, _, _ = _getrf(xp, xp.swapaxes(A, -1, -2))
    n = A.shape[-1]
    swaps = (piv != xp.arange(1, n + 1)).sum(-1)
    return xp.diagonal(LU, axis1=-2, axis2=-1), xp.where(swaps % 2, -1, 1).astype(A.dtype)


class LinalgDet(Op):
    no_bfloat16 = "lu_cpu"
    saves_inputs = True
    saves_output = True

    def forward(self, A):
        xp = self.xp
        got = _lapack.det_factors(A) if A.size and xp is _np else None
        if got is not None:  # torch's mul(lu_det_P(pivots), prod(diagonal(LU)))
            diag, perm_sign = got
            return perm_sign * _lapack.diagonal_product(diag)
        if xp.isfinite(A).all():
            return xp.linalg.det(A)
        diag, perm_sign = _lu_diagonal(xp, A)
        return (xp.prod(diag, -1) * perm_sign).astype(A.dtype)

    def backward(self, grad):
        (A,) = self.inputs
        if A.shape[-1] <= 1 or not A.numel():  # torch: det of 1x1 is A itself (its gradient
            return grad[..., None, None].expand(A.shape)  # does not read A), empty: empty
        d = self.output
        if is_grad_enabled():  # create_graph: torch's graph (SVD-based where det is tiny)
            return _det_backward_graph(A, grad, d)
        if self.xp is _np:
            g = _lu_gradient(A._data, (grad * d)._data, eps=True)
            if g is not None:  # torch's getrs with the forward's factors (MKL's bits)
                return Tensor._make(g, grad.device)
        if self.xp is _np and A.shape[-1] <= _ADJOINT_MAX and A.dtype == dtypes.float64:
            return Tensor._make(_det_gradient(_np, A._data, (grad * d)._data), grad.device)
        return (grad * d).unsqueeze(-1).unsqueeze(-1) * _mT(inv(A))

    def jvp(self, t):
        (A,) = self.primals
        return self.result * (_mT(inv(A)) * t).sum((-2, -1))  # d det = det tr(A^-1 dA)


def det(A):
    """Determinant of a square matrix (or batch); the gradient needs A invertible.

    Args:
        A (Tensor): a square matrix ``(n, n)`` or a batch of them ``(*, n, n)``.

    Example:
        >>> framework.det(framework.tensor([[2.0, 1.0], [1.0, 3.0]]))
        tensor(5.)
    """
    _check_square(A, "det")
    return LinalgDet.apply(A)


def _det_backward_graph(A, grad, det):
    """torch's linalg_det_backward under create_graph: masked_fmap(|det| < 100 eps, singular,
    non_singular) over the matrices of the batch. non_singular solves A^T G = diag(grad det)
    (linalg_solve: LinalgSolveExBackward0); singular is the adjugate through the SVD, which
    a second derivative can go through where det is (near) zero. A mixed batch puts both
    into empty_like(A) as torch's C++ `index_put_({mask}, v)` (set_item: a value with a
    leading 1 is viewed without it first). Seed 560028739 (float32 3 x 3, det -2.9e-6:
    torch's MmBackward0, ours was LinalgSolveExBackward0)."""
    from .extras2 import diag_embed

    n = A.shape[-1]
    c = grad * det
    d = _mT(diag_embed(c.unsqueeze(-1).expand(*c.shape, n)))
    mask = _np.abs(det._data) < 100.0 * float(_np.finfo(A._data.dtype).eps)
    if mask.all():
        return _det_singular_grad(A, grad)
    if not mask.any():
        return solve(_mT(A), d)
    m = Tensor._make(mask, A.device)
    out = A.detach().new_empty(tuple(A.shape))  # torch's empty_like(A)
    out[m] = _det_singular_grad(A[m], grad[m])
    out[~m] = solve(_mT(A[~m]), d[~m])
    return out


def _det_singular_grad(A, grad):
    """grad times the adjugate^T of A through its SVD (det's gradient where A is singular or
    nearly, torch's linalg_det_backward `singular`): with A = U diag(S) Vh, the cofactors are
    det(U) det(Vh) U diag(prod_{j != i} S_j) Vh."""
    from .reduction import _prod_safe_zeros_backward

    U, S, Vh = svd(A)
    alpha = (det(U) * det(Vh)) * grad
    D = _prod_safe_zeros_backward(alpha.unsqueeze(-1), S, S.dim() - 1)
    return (U * D.unsqueeze(-2)).matmul(Vh)


def _solve_adjoint(A, c):
    """c A^{-T} as torch's det/slogdet backward builds it with create_graph (the graph a
    second derivative goes through): linalg_solve(A^T, diag_embed(c expanded to n)^T)."""
    from .extras2 import diag_embed

    n = A.shape[-1]
    return solve(_mT(A), _mT(diag_embed(c.unsqueeze(-1).expand(*c.shape, n))))


def _slogdet_lu_grad(A, c):
    """c A^{-T} as torch's slogdet backward computes it without create_graph: linalg_lu_solve
    with the LU factors of A^T (its forward's) and diag_embed(c); a singular A gives inf/NaN
    where the zero pivot divides, no error."""
    from .extras2 import diag_embed
    from .linalg_lu import lu_factor_ex
    from .linalg_lu_solve import linalg_lu_solve

    LU, pivots, _ = lu_factor_ex(_mT(A))
    return linalg_lu_solve(LU, pivots, diag_embed(c.unsqueeze(-1).expand(*c.shape, A.shape[-1])))


class LinalgSlogdet(Op):
    no_bfloat16 = "linalg.slogdet: Low precision dtypes not supported. Got BFloat16"
    saves_inputs = True

    def forward(self, A):
        xp = self.xp
        got = _lapack.det_factors(A) if A.size and xp is _np else None
        if got is not None:  # torch's sgn(diag U).prod() * sign(P), sum(log|diag U|)
            diag, perm_sign = got
            sgn = _np.where(_np.isnan(diag), 0, _np.sign(diag))  # (sgn(NaN) is 0)
            sign = _lapack.diagonal_product(sgn) * perm_sign
            return sign, _log_sum(_np.abs(diag))
        if xp.isfinite(A).all():
            sign, logabs = xp.linalg.slogdet(A)
            return sign.astype(A.dtype), logabs.astype(A.dtype)
        # torch: sgn(diag U).prod() * sign(P), sum(log|diag U|); sgn(NaN) is 0
        diag, perm_sign = _lu_diagonal(xp, A)
        sign = xp.where(xp.isnan(diag), 0, xp.sign(diag)).prod(-1) * perm_sign
        return sign.astype(A.dtype), xp.log(xp.abs(diag)).sum(-1).astype(A.dtype)

    def backward(self, g_sign, g_logabs):
        (A,) = self.inputs
        if g_logabs is None:
            return None
        if is_grad_enabled():  # create_graph: torch's solve with A^T
            return _solve_adjoint(A, g_logabs)
        g = _lu_gradient(A._data, g_logabs._data) if self.xp is _np else None
        if g is not None:  # torch's getrs with the forward's factors (MKL's bits)
            return Tensor._make(g, g_logabs.device)
        try:  # (float32: NumPy's inverse is the closer to float64 than an LU solve)
            inverse = inv(A)
        except RuntimeError:  # singular: torch's LU solve gives inf/NaN, no error
            return _slogdet_lu_grad(A, g_logabs)
        return g_logabs.unsqueeze(-1).unsqueeze(-1) * _mT(inverse)

    def jvp(self, t):
        (A,) = self.primals
        sign = self.result
        if A.numel() == 0:  # no (or 0x0) matrices: torch's tangents have no history
            z = sign.detach() * 0
            return z, z
        return sign * 0, (_mT(inv(A)) * t).sum((-2, -1))  # d log|det A| = tr(A^-1 dA)


def _log_sum(mag):
    """sum(log(mag), -1) as torch's slogdet: its log kernel, then its sum's order."""
    from . import _vml
    from ._sum_kernel import torch_sum

    logs = _np.ascontiguousarray(_vml.unary("log", mag, _np.log))
    out = torch_sum(logs, (logs.ndim - 1,)) if logs.shape[-1] > 1 else None
    if out is None:
        return logs.sum(-1)
    return out.reshape(logs.shape[:-1])


def slogdet(A):
    """(sign, log|det|) of a square matrix (or batch).

    Args:
        A (Tensor): a square matrix ``(n, n)`` or a batch of them ``(*, n, n)``.

    Example:
        >>> framework.linalg.slogdet(framework.tensor([[-2., 0.], [0., 1.]]))
        torch.return_types.slogdet(
        sign=tensor(-1.),
        logabsdet=tensor(0.6931))
    """
    _check_square(A, "slogdet")
    return return_types.slogdet(*LinalgSlogdet.apply(A))


class LinalgSolveEx(Op):
    no_bfloat16 = "lu_cpu"
    saves_inputs = True
    saves_output = True

    def forward(self, A, B, vector=False, ex=False, left=True):
        """X with A X = B, or X A = B (`left` False: solved as A^T X^T = B^T, A factored as
        torch factors it; X C-ordered, as torch's row-major result)."""
        xp = self.xp
        self.vector, self.left, self.right = vector, left, not left
        if not left:
            At, Bt = xp.swapaxes(A, -1, -2), xp.swapaxes(B, -1, -2)
            return xp.swapaxes(lapack_layout(xp, self._solve(xp, At, Bt, False, ex)), -1, -2)
        return lapack_layout(xp, self._solve(xp, A, B, vector, ex))  # (a batch of vectors
        # too: torch's (2, 3, 4) solution has strides (12, 1, 3))

    def _solve(self, xp, A, B, vector, ex):
        """The solution array (C order)."""
        got = _mkl_solve(A, B[..., None] if vector else B, self.right)
        if got is not None:
            X, info = got
            bad = _first_info(info)
            if bad is not None and not ex:
                raise _singular_error(
                    "torch.linalg.solve",
                    A,
                    bad,
                    "The solver failed because the input matrix is singular.",
                )
            return (
                _lapack.f_copy(X[..., 0]) if vector and X.ndim > 2 else X[..., 0] if vector else X
            )
        bad = _singular(xp, A) if A.size else None
        if bad is not None and ex:  # solve_ex: torch's LU solve, inf/NaN past a zero pivot
            return _lu_solve(xp, A, B[..., None])[..., 0] if vector else _lu_solve(xp, A, B)
        if bad is not None:
            raise _singular_error(
                "torch.linalg.solve",
                A,
                bad,
                "The solver failed because the input matrix is singular.",
            )
        if A.size and not bool(xp.isfinite(A).all()):
            return _lu_solve(xp, A, B[..., None])[..., 0] if vector else _lu_solve(xp, A, B)
        if vector:
            return xp.linalg.solve(A, B[..., None])[..., 0]
        return xp.linalg.solve(A, B)

    def backward(self, grad):
        A, B = self.inputs
        X = self.output
        need_a, need_b = self.needs_input_grad
        if not self.left:  # torch's linalg_solve_backward: gB = gX A^-H, gA = -X^H gB
            if is_grad_enabled():  # create_graph: linalg_solve(A^H, gX, left=False)
                gB = solve(_mT(A), grad, left=False)
            else:  # (the transposed system A^T-side, as the forward solved it)
                gB = _mT(self._adjoint_solve(_mT(A), _mT(grad)))
            return -(_mT(X) @ gB) if need_a else None, gB if need_b else None
        if self.vector and is_grad_enabled():  # create_graph: torch's graph (a matrix
            gB_ = solve(_mT(A), grad.unsqueeze(-1))  # solve, squeezed; gA a product, negated)
            gB, gA = gB_.squeeze(-1), -(gB_ @ _mT(X.unsqueeze(-1)))
        elif self.vector:
            gB = self._adjoint_solve(A, grad)
            gA = -gB.unsqueeze(-1) * X.unsqueeze(-2)
        else:
            gB = self._adjoint_solve(A, grad)
            gA = -(gB @ _mT(X))
        return gA if need_a else None, gB if need_b else None

    def _adjoint_solve(self, A, grad):
        """A^H gB = grad without a graph, as torch's backward solves it with the forward's
        LU: of A^T when A is contiguous (a plain solve with A^T: NumPy factorizes that
        matrix too), else of A, solved adjoint (small matrices replayed: the pivots of A)."""
        a = A._data
        if not is_grad_enabled() and a.size and grad.numel() and _lapack.usable(a, grad._data):
            g = grad._data[..., None] if self.vector else grad._data
            if self.right:  # (A is the transpose of the matrix torch factored)
                lu, piv, _ = _lapack.lu_factor(_np.swapaxes(a, -1, -2))
                out = _lapack.lu_solve(lu, piv, a.shape[:-2], g, "N")
            else:  # torch: linalg_lu_solve(LU of A, pivots, grad, adjoint=True)
                lu, piv, _ = _lapack.lu_factor(a)
                out = _lapack.lu_solve(lu, piv, a.shape[:-2], g, "T")
            return Tensor._make(out[..., 0] if self.vector else out, grad.device)
        if (
            is_grad_enabled()  # create_graph: torch's graph, linalg_solve(A^H, grad)
            or a.flags.c_contiguous
            or a.shape[-1] > _ADJOINT_MAX
            or self.xp is not _np
            or a.dtype != _np.float64
            and (a.dtype != _np.float32 or bool(_np.isfinite(grad._data).all()))
        ):  # float32: LAPACK's fused multiply-adds are not replayed, so only a gradient with
            # inf/NaN takes the replay, whose substitution order puts the NaN where torch's
            # does (seed 370066186: NaN in both columns, NumPy's fresh solve had +-inf)
            return solve(_mT(A), grad)
        g = grad._data[..., None] if self.vector else grad._data
        out = _lu_solve_adjoint(self.xp, a, g)
        return Tensor._make(out[..., 0] if self.vector else out, grad.device)

    def jvp(self, tA, tB):
        A, _ = self.primals
        X = self.result
        rhs = None
        if tB is not None:
            rhs = tB
        if tA is not None:  # A X = B: A dX = dB - dA X (X A = B: dX A = dB - X dA)
            if not self.left:
                dAX = X @ tA
            else:
                dAX = (tA @ X.unsqueeze(-1))[..., 0] if self.vector else tA @ X
            rhs = -dAX if rhs is None else rhs - dAX
        return solve(A, rhs, left=self.left)


def solve(A, B, *, left=True):
    """X with A X = B (B a matrix or, when it has one dim less than A, a vector).

    Args:
        A (Tensor): a square matrix ``(n, n)`` or a batch of them ``(*, n, n)``.
        B (Tensor): the right-hand side ``(*, n, k)`` or ``(*, n)``.
        left (bool, optional): solve ``A X = B`` (True) or ``X A = B`` (False). Default: ``True``.

    Example:
        >>> framework.linalg.solve(framework.tensor([[2., 0.], [0., 4.]]),
        ...                        framework.tensor([2., 2.]))
        tensor([1.0000, 0.5000])
    """
    vector = check_solve(A, B, left)
    return LinalgSolveEx.apply(A, B, vector=vector, left=left)


def check_solve(A, B, left):
    """torch's _linalg_solve_ex checks, in its order (dtype, B as a vector or matrices, their
    shapes, the batch broadcast, no vector B with left=False); returns whether B is a vector
    (or a batch of them: B's shape A's without its last dim)."""
    float_input("linalg.solve", A)
    _same_dtype(A, B)
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    _check_square(A, "solve", floating=False)
    Bshape = tuple(B.shape) + (1,) if vector else tuple(B.shape)
    if len(Bshape) < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if A.shape[-2 if left else -1] != Bshape[-2 if left else -1]:
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
            f"{Bshape[-2]}x{Bshape[-1]})"
        )
    broadcast_shapes(Bshape[:-2], tuple(A.shape[:-2]))
    if not left and vector:
        raise RuntimeError(
            "linalg.solve: Vector broadcasting of the left hand side is not supported for "
            "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    return vector


def _same_dtype(A, B):
    """torch's solve refuses to promote: A and B of one dtype."""
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{dtypes.scalar_type_name(A._data.dtype)} and B of type "
            f"{dtypes.scalar_type_name(B._data.dtype)} instead"
        )


def _phi(X):
    """Lower triangle with the diagonal halved (cholesky's backward)."""
    return X.tril() - 0.5 * (X * _eye_like(X, X.shape[-1]))


class LinalgCholeskyEx(Op):
    no_bfloat16 = "cholesky_cpu"
    saves_output = True

    def forward(self, A, upper=False):
        xp = self.xp
        self.upper = upper
        got = _lapack.cholesky(A, upper) if A.size and xp is _np else None
        if got is not None:  # torch's potrf
            L, info = got
            bad = _first_info(info)
            if bad is not None:
                raise _singular_error("linalg.cholesky", A, bad, _not_positive_definite(bad[1]))
            return L
        try:
            L = xp.linalg.cholesky(A)
        except Exception:
            b, k = _failing_minor(xp, A)
            raise _singular_error(
                "linalg.cholesky",
                A,
                (b,),
                "The factorization could not be completed because the input is not "
                f"positive-definite (the leading minor of order {k} is not positive-definite).",
            ) from None
        return lapack_layout(xp, xp.swapaxes(L, -1, -2) if upper else L)

    def backward(self, grad):
        from .linalg_solvers import solve_triangular

        L = self.output
        if self.upper:
            L, grad = _mT(L), _mT(grad)
        # torch's cholesky_backward: two triangular solves (not an inverse), so a NaN in the
        # gradient reaches only the entries back-substitution carries it to
        from .elementwise import MulScalar

        gA = (_mT(L) @ grad).tril()
        gA = MulScalar.apply(gA + _mT(gA.tril(-1)), other=0.5)  # C++ 0.5 * t: MulBackward1
        gA = solve_triangular(_mT(L), gA, upper=True, left=True)
        return solve_triangular(L, gA, upper=False, left=False)

    def jvp(self, tA):
        """dL = L phi(L^-1 dA L^-T), with dA as given (torch does not symmetrize it)."""
        L = self.result
        if self.upper:  # torch's cholesky_jvp: dA as given for either factor
            L = _mT(L)
        Linv = inv(L)
        dL = L @ _phi(Linv @ tA @ _mT(Linv))
        return _mT(dL) if self.upper else dL


def _not_positive_definite(k):
    return (
        "The factorization could not be completed because the input is not "
        f"positive-definite (the leading minor of order {k} is not positive-definite)."
    )


def _failing_minor(xp, A):
    """(batch element, order) of the first leading minor that is not positive-definite."""
    for b, m in enumerate(A.reshape(-1, A.shape[-2], A.shape[-1])):
        for k in range(1, m.shape[-1] + 1):
            try:
                xp.linalg.cholesky(m[:k, :k])
            except Exception:
                return b, k
    return 0, A.shape[-1]


def cholesky(A, *, upper=False):
    """Cholesky factor L (lower, A = L L^T) of a symmetric positive-definite matrix.

    Args:
        A (Tensor): a symmetric positive-definite matrix ``(n, n)`` or a batch of them ``(*, n,
            n)``.
        upper (bool, optional): return the upper factor ``U = L^T`` instead. Default: ``False``.

    Example:
        >>> framework.linalg.cholesky(framework.tensor([[4., 2.], [2., 2.]]))
        tensor([[2., 0.],
                [1., 1.]])
    """
    _check_square(A, "cholesky")
    return LinalgCholeskyEx.apply(A, upper=upper)


class LinalgQr(Op):
    no_bfloat16 = "geqrf_cpu"
    saves_output = True

    def forward(self, A, mode="reduced"):
        xp = self.xp
        self.mode = mode
        got = _lapack_qr(A, mode) if xp is _np else None
        if got is not None:
            self.R = got[1]
            return got
        Q, R = xp.linalg.qr(A, mode="complete" if mode == "complete" else "reduced")
        Q, R = lapack_layout(xp, Q), lapack_layout(xp, R)
        self.R = R
        return Q, R

    saves = ("R",)

    def backward(self, gQ, gR):
        """torch's linalg_qr_backward: the square/tall case, and for m < n the split
        A = [X | Y], R = [U | V] (X = Q U square, Y = Q V)."""
        if self.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed "
                "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                "are going to differentiate through linalg.qr."
            )
        Q = self.output
        R = _out(self, self.R, 1)
        m, n = Q.shape[-2], R.shape[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        return _qr_backward(gQ, gR, Q, R, m, n)

    jvp = Op.jvp_transpose


def _lapack_qr(A, mode):
    """(Q, R) as torch's linalg_qr_out computes them: geqrf on a column-major copy, R the
    upper triangle of its first rows, Q by orgqr from the reflectors (MKL's: torch's bits);
    None without MKL or for empty matrices."""
    from .linalg_householder import _mkl_orgqr

    m, n = A.shape[-2:]
    if not A.size or not _lapack.usable(A):
        return None
    k = min(m, n)
    buf = _lapack.to_f(A)
    tau = _lapack.geqrf(buf).reshape(A.shape[:-2] + (k,))
    QR = _lapack.from_f(buf, A.shape[:-2])
    rows = m if mode == "complete" else k
    R = _lapack.f_copy(_np.triu(QR[..., :rows, :]))
    if mode == "r":
        return _np.empty((0,), A.dtype), R
    cols = m if mode == "complete" or m < n else n
    V = _np.zeros(A.shape[:-1] + (cols,), A.dtype)
    V[..., :, : min(cols, n)] = QR[..., :, : min(cols, n)]
    Q = _mkl_orgqr(V, tau)
    return None if Q is None else (lapack_layout(_np, Q), R)


def _qr_backward(gQ, gR, Q, R, m, n):
    """torch's linalg_qr_backward, step by step (its graph with create_graph): with
    M = gR R^H - Q^H gQ, for m >= n gA = (Q syminvadj(triu(M)) + gQ) R^{-H} by a triangular
    solve, for m < n [Q tril(-M + M^H) R1^{-H} | 0] + Q gR (R1 = R's first m columns)."""
    from .linalg_solvers import solve_triangular

    if gQ is None:
        M = gR @ _mT(R)
    else:
        M = -(_mT(Q) @ gQ) if gR is None else gR @ _mT(R) - _mT(Q) @ gQ
    if m >= n:
        X = M.triu()
        S = X + _mT(X)
        S.diagonal(0, -2, -1).mul_(0.5)  # syminvadj (in place: torch's CopySlices)
        b = Q @ S
        return solve_triangular(_mT(R), b if gQ is None else b + gQ, upper=False, left=False)
    from .join import cat

    X = -M
    gA = solve_triangular(_mT(R[..., :m]), Q @ (X - _mT(X)).tril(), upper=False, left=False)
    gA = cat([gA, gA.new_zeros(tuple(R.shape[:-1]) + (n - m,))], -1)
    return gA if gR is None else gA + Q @ gR


def qr(A, mode="reduced"):
    """QR decomposition: Q with orthonormal columns, R upper triangular (A = Q R).

    Args:
        A (Tensor): a matrix ``(m, n)`` or a batch of them ``(*, m, n)``.
        mode (str, optional): ``'reduced'``, ``'complete'`` or ``'r'`` (R only, Q empty). Default:
            ``'reduced'``.

    Example:
        >>> q, r = framework.linalg.qr(framework.eye(2))
        >>> r
        tensor([[1., 0.],
                [0., 1.]])
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of "
            "'reduced' (default), 'r', or 'complete'"
        )
    if A.dim() < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    float_input("linalg.qr", A)
    Q, R = LinalgQr.apply(A, mode=mode)
    if mode == "r":
        Q = Tensor._make(A.xp.empty((0,), dtype=A._data.dtype), A.device)
    return return_types.linalg_qr(Q, R)


class LinalgEigh(Op):
    no_bfloat16 = "linalg_eigh_cpu"
    saves_output = True

    def forward(self, A, UPLO="L", values_only=False):
        got = _lapack_eigh(A, UPLO, values_only) if self.xp is _np else None
        if got is not None:
            self.V = got[1]
            return got
        w, V = self.xp.linalg.eigh(A, UPLO=UPLO)
        V = lapack_layout(self.xp, V)
        self.V = V
        return w, V

    saves = ("V",)

    def backward(self, gw, gV):
        """torch's linalg_eig_backward (hermitian): V (skew(V^T gV) / 2 / E, gw on the
        diagonal) V^T, E[i, j] = w_j - w_i (1 on the diagonal), in its order and with its
        in-place steps (CopySlices), so a second derivative takes torch's graph."""
        from .elementwise import MulScalar

        w = self.output
        V = _out(self, self.V, 1)
        if gV is None:  # eigvalsh: V diag(gw) V^T
            return (V * gw.unsqueeze(-2)).matmul(_mT(V))
        VtgV = _mT(V).matmul(gV)
        gA = MulScalar.apply(VtgV - _mT(VtgV), other=0.5)
        E = w.unsqueeze(-2) - w.unsqueeze(-1)
        E.diagonal(0, -2, -1).fill_(1.0)
        gA.div_(E)
        if gw is not None:
            gA.diagonal(0, -2, -1).copy_(gw)
        return V.matmul(gA.matmul(_mT(V)))

    def jvp(self, tA):
        """torch's linalg_eig_jvp (hermitian): dP = V^T dA V, dw = diag(dP), dV = V (dP / E)
        with E[i, j] = w_j - w_i and a zero diagonal; dA is used as given (not symmetrized)."""
        w, V = self._fw_outs
        n = w.shape[-1]
        eye = _eye_like(w, n)
        dP = _mT(V) @ tA @ V
        E = w.unsqueeze(-2) - w.unsqueeze(-1)
        return dP.diagonal(0, -2, -1), V @ (dP / (E + eye) * (1 - eye))


def _lapack_eigh(A, uplo, values_only):
    """(w, V) by MKL's syevd on a column-major copy (torch's apply_lapack_eigh; jobz 'N' for
    `values_only`: eigvalsh of an input needing no gradient, whose values then are 'N''s
    bits, V empty); None without MKL, for empty or non-finite input (NumPy's route, whose
    errors are torch's) or where syevd fails."""
    if not A.size or not _lapack.usable(A) or not bool(_np.isfinite(A).all()):
        return None
    buf = _lapack.to_f(A)
    w, info = _lapack.syevd("N" if values_only else "V", uplo.upper(), buf)
    if (info != 0).any():
        return None
    w = w.reshape(A.shape[:-1])
    if values_only:
        return w, _np.empty((0,), A.dtype)
    return w, _lapack.from_f(buf, A.shape[:-2])


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix.

    Args:
        A (Tensor): a symmetric matrix ``(n, n)`` or a batch of them ``(*, n, n)``.
        UPLO (str, optional): which triangle of ``A`` is read, ``'L'`` or ``'U'``. Default: ``'L'``.

    Example:
        >>> framework.linalg.eigh(framework.tensor([[2., 0.], [0., 1.]])).eigenvalues
        tensor([1., 2.])
    """
    _check_square(A, "eigh")
    return return_types.eigh(*LinalgEigh.apply(A, UPLO=UPLO))


def eigvalsh(A, UPLO="L"):
    """Eigenvalues (ascending) of a symmetric matrix.

    Args:
        A (Tensor): a symmetric matrix ``(n, n)`` or a batch of them ``(*, n, n)``.
        UPLO (str, optional): which triangle of ``A`` is read, ``'L'`` or ``'U'``. Default: ``'L'``.

    Example:
        >>> framework.linalg.eigvalsh(framework.tensor([[2.0, 1.0], [1.0, 2.0]]))
        tensor([1., 3.])
    """
    if (is_grad_enabled() and A.requires_grad) or getattr(A, "_fw", None):
        return eigh(A, UPLO).eigenvalues
    _check_square(A, "eigh")  # torch's _linalg_eigh(compute_v=False): syevd's jobz 'N'
    return LinalgEigh.apply(A, UPLO=UPLO, values_only=True)[0]


class LinalgSvd(Op):
    no_bfloat16 = "linalg_svd_cpu"
    saves = ("U", "S", "Vh")

    def forward(self, A, full_matrices=True, values_only=False):
        xp = self.xp
        inf = None
        if A.size and not bool(xp.isfinite(A).all()):
            flat = A.reshape(-1, A.shape[-2] * A.shape[-1])
            bad = xp.isnan(flat).any(-1)
            if bool(bad.any()):  # LAPACK's gesdd fails on a NaN: torch's error
                raise _singular_error(
                    "linalg.svd",
                    A,
                    [int(xp.argmax(bad))],
                    "The algorithm failed to converge because the input matrix contained "
                    "non-finite values.",
                )
            # ... and returns NaN factors for a matrix with an infinity
            inf = (~xp.isfinite(flat)).any(-1).reshape(A.shape[:-2])
            A = xp.where(inf[..., None, None], 0, A)
        self.full_matrices = full_matrices
        got = _lapack_svd(A, full_matrices, values_only) if inf is None and xp is _np else None
        if got is not None:
            self.U, self.S, self.Vh = got
            return got
        U, S, Vh = xp.linalg.svd(A, full_matrices=full_matrices)
        if inf is not None:
            U, S, Vh = (
                xp.where(inf[..., None, None], xp.nan, U),
                xp.where(inf[..., None], xp.nan, S),
                xp.where(inf[..., None, None], xp.nan, Vh),
            )
        U, Vh = lapack_layout(xp, U), lapack_layout(xp, Vh)
        self.U, self.S, self.Vh = U, S, Vh
        return U, S, Vh

    def backward(self, gU, gS, gVh):
        S = _out(self, self.S, 1)
        U, Vh = _out(self, self.U, 0), _out(self, self.Vh, 2)
        if self.full_matrices:  # torch narrows the full factors (SliceBackward0) to S's k
            k = S.shape[-1]
            gU = None if gU is None else gU.narrow(-1, 0, k)
            gVh = None if gVh is None else gVh.narrow(-2, 0, k)
            U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        return _svd_backward(gU, gS, gVh, U, S, Vh)

    jvp = Op.jvp_transpose


def _svd_backward(gU, gS, gVh, U, S, Vh):
    """torch's svd_backward (real): gA = U [(skew(U^T gU) S + S skew(Vh gVh^T)) / E + diag(gS)]
    Vh, E_jk = S_k^2 - S_j^2 (1 on the diagonal), plus the (I - U U^T) gU S^-1 Vh term for a
    tall A (U Sinv gVh (I - V V^T) for a wide one); its products in its order and its
    nodes (the diagonal of E filled in place: CopySlices), so a second derivative takes
    torch's graph."""
    from .extras2 import diag_embed

    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:  # svdvals: U diag(gS) Vh
        if m >= n:
            return U.matmul(gS.unsqueeze(-1) * Vh)
        return (U * gS.unsqueeze(-2)).matmul(Vh)
    UhgU = _skew(_mT(U).matmul(gU)) if gU is not None else None
    VhgV = _skew(Vh.matmul(_mT(gVh))) if gVh is not None else None
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E.diagonal(0, -2, -1).fill_(1)
    if gU is not None and gVh is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif gU is not None:
        gA = (UhgU / E) * S.unsqueeze(-2)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + diag_embed(gS)
    if m > n and gU is not None:  # [U gA + (I_m - U U^T) gU S^-1] Vh
        gA = U.matmul(gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U.matmul(_mT(U).matmul(gUSinv))
        return gA.matmul(Vh)
    if m < n and gVh is not None:  # U [gA Vh + S^-1 gVh (I_n - V Vh)]
        gA = gA.matmul(Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - SinvgVh.matmul(_mT(Vh)).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA.matmul(Vh)) if m >= n else U.matmul(gA).matmul(Vh)


def _skew(X):
    return X - _mT(X)


def _lapack_svd(A, full_matrices, values_only):
    """(U, S, Vh) by MKL's gesdd on a column-major copy, as torch's apply_svd (jobz 'A' / 'S',
    or 'N' for `values_only`: svdvals of an input needing no gradient, U and Vh then empty);
    None without MKL, for empty input or where gesdd fails."""
    if not A.size or not _lapack.usable(A):
        return None
    jobz = "N" if values_only else "A" if full_matrices else "S"
    S, U, Vh, info = _lapack.gesdd(jobz, _lapack.to_f(A))
    if (info != 0).any():
        return None
    S = S.reshape(A.shape[:-2] + S.shape[-1:])
    if values_only:
        empty = _np.empty((0,), A.dtype)
        return empty, S, empty
    return _lapack.from_f(U, A.shape[:-2]), S, _lapack.from_f(Vh, A.shape[:-2])


def svd(A, full_matrices=True):
    """Singular value decomposition A = U diag(S) Vh (S descending).

    Args:
        A (Tensor): a matrix ``(m, n)`` or a batch of them ``(*, m, n)``.
        full_matrices (bool, optional): return full square ``U`` and ``Vh`` instead of the reduced
            ones. Default: ``True``.

    Example:
        >>> framework.linalg.svd(framework.tensor([[3., 0.], [0., 2.]])).S
        tensor([3., 2.])
    """
    _check_svd(A)
    return return_types.linalg_svd(*LinalgSvd.apply(A, full_matrices=full_matrices))


def _check_svd(A):
    if A.dim() < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    float_input("linalg.svd", A)


def svdvals(A):
    """Singular values (descending) of a matrix (or batch).

    Args:
        A (Tensor): a matrix ``(m, n)`` or a batch of them ``(*, m, n)``.

    Example:
        >>> framework.linalg.svdvals(framework.tensor([[3.0, 0.0], [0.0, 4.0]]))
        tensor([4., 3.])
    """
    _check_svd(A)
    if (is_grad_enabled() and A.requires_grad) or getattr(A, "_fw", None):
        return LinalgSvd.apply(A, full_matrices=False)[1]
    return LinalgSvd.apply(A, full_matrices=False, values_only=True)[1]  # gesdd's jobz 'N'


class LinalgPinv(Op):
    saves_inputs = True
    saves_output = True

    def forward(self, A, atol=None, rtol=None, hermitian=False):
        """torch's formula: singular values (|eigenvalues| when hermitian) at or below
        max(atol, rtol * largest) count as zero; atol defaults to 0, rtol to eps * max(m, n)
        (or 0 when atol > 0)."""
        xp = self.xp
        eps = float(xp.finfo(A.dtype).eps) * max(A.shape[-1], A.shape[-2])
        atol = xp.zeros((), "float64") if atol is None else xp.asarray(atol, "float64")
        if rtol is None:
            rtol = xp.where(atol > 0, 0.0, eps)
        rtol = xp.asarray(rtol, "float64")
        got = None
        if xp is _np:  # torch's linalg_eigh / linalg_svd(full_matrices=False): MKL's
            got = _lapack_eigh(A, "L", False) if hermitian else _lapack_svd(A, False, False)
        if hermitian:
            S, U = got if got is not None else xp.linalg.eigh(A)
            mag = abs(S)
            Vh, Ut = xp.swapaxes(U, -1, -2), xp.swapaxes(U, -1, -2)
        else:
            U, S, Vh = got if got is not None else xp.linalg.svd(A, full_matrices=False)
            mag, Ut = S, xp.swapaxes(U, -1, -2)
        big = mag.max(-1, keepdims=True) if mag.shape[-1] else xp.zeros(mag.shape[:-1] + (1,))
        keep = mag > xp.maximum(atol[..., None], rtol[..., None] * big)
        inv = xp.where(keep, 1 / xp.where(keep, S, 1), 0).astype(A.dtype)
        left = U if hermitian else xp.swapaxes(Vh, -1, -2)
        left = left * inv[..., None, :]
        if got is not None:  # torch's matmul (mm's MKL gemm, bmm's kernels) as ours replays it
            from ..autograd.grad_mode import no_grad
            from .linalg import matmul

            with no_grad():
                return matmul(Tensor._make(left), Tensor._make(Ut))._data
        return left @ Ut

    def backward(self, grad):
        return pinv_backward(grad, self.output, self.inputs[0])

    jvp = Op.jvp_transpose


def pinv_backward(grad, P, A):
    """torch's pinv_backward: A's gradient from pinv(A) = P's, term by term in its order (its
    graph with create_graph, its products grouped as its float rounding)."""
    Ph, gh = _mT(P), _mT(grad)
    if A.shape[-2] <= A.shape[-1]:
        K = gh @ P
        KPh = K @ Ph
        return -_mT(P @ K) + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A)
    K = P @ gh
    PhK = Ph @ K
    return -_mT(K @ P) + ((gh - A @ K) @ P) @ Ph + PhK - (PhK @ P) @ A


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Moore-Penrose pseudo-inverse (via SVD, or eigh when ``hermitian``).

    Singular values at or below ``max(atol, rtol * largest)`` are treated as zero.

    Args:
        A (Tensor): matrix or batch of matrices (..., m, n).
        rcond (float or Tensor, optional): the legacy name of ``rtol`` (with atol = 0).
        hermitian (bool): A is symmetric; only its lower triangle is read.
        atol (float or Tensor, optional): absolute tolerance (default 0).
        rtol (float or Tensor, optional): relative tolerance (default ``eps * max(m, n)``
            when atol is not given or not positive, else 0). Tensors broadcast over the batch.
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor of shape (..., n, m).

    Example:
        >>> framework.linalg.pinv(framework.tensor([[2., 0.]]))
        tensor([[0.5000],
                [0.0000]])
    """
    if A.dim() < 2 or not A.dtype.is_floating_point or A.dtype.itemsize == 2:
        raise RuntimeError(
            f"linalg.pinv({dtypes.scalar_type_name(A._data.dtype)}"
            f"{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions of "
            "float, double, cfloat or cdouble types"
        )
    if rcond is not None:  # torch's (input, rcond, hermitian) overload
        atol, rtol = 0.0, rcond
    tols = {}
    for name, v in (("atol", atol), ("rtol", rtol)):
        if isinstance(v, Tensor):
            if v.requires_grad:
                raise RuntimeError(
                    f"The function 'linalg_pinv' is not differentiable with respect to "
                    f"argument '{name}'. This input cannot have requires_grad True."
                )
            v = v._data
        tols[name] = v
    return LinalgPinv.apply(A, hermitian=hermitian, **tols)


@_amp_entry("pinverse")
def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg.pinv with rtol = rcond and atol = 0 (on torch's autocast float32
    list, unlike linalg.pinv).

    Args:
        input (Tensor): the input tensor.
        rcond (float, optional): singular values below ``rcond`` times the largest are treated as
            zero. Default: ``1e-15``.

    Example:
        >>> framework.pinverse(framework.tensor([[2., 0.]]))
        tensor([[0.5000],
                [0.0000]])
    """
    return pinv(input, rcond)


def matrix_power(A, n):
    """A multiplied by itself n times (n < 0 uses the inverse; n = 0 gives the identity).

    Args:
        A (Tensor): a square matrix ``(n, n)`` or a batch of them ``(*, n, n)``.
        n (int): the exponent (negative powers use the inverse).

    Example:
        >>> framework.matrix_power(framework.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    _check_square(A, "matrix_power", floating=False)  # integers multiply (n >= 0)
    if n == 0:  # torch copies the identity into a clone (CopyBackwards, a zero gradient)
        return A.clone().copy_(_eye_like(A, A.shape[-1]).expand(*A.shape))
    if n < 0:
        A, n = inv(A), -n
    elif n == 1:
        return A.clone()
    out = A
    for _ in range(n - 1):
        out = out @ A
    return out


__all__ = []
