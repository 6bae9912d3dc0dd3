"""Solving with packed LU factors (linalg.lu_solve, the legacy lu_solve) and unpacking them
(lu_unpack), with torch's nodes LinalgLuSolveBackward0 and LuUnpackBackward0. The gradient of
the packed factors goes through A = P L U: with gA the gradient of A, that of L is
(P^T gA U^T) below the diagonal and that of U is (L^T P^T gA) on and above it (the same values
as torch's linalg_lu_solve_LU, written with Tensor ops so second derivatives work)."""

import numpy as np

from .. import dtypes
from .._errors import float_input
from ..autograd.op import Op
from .extrema import return_types
from . import linalg_lapack as _lapack
from .linalg_ext import _mT, lapack_layout
from .linalg_lu import _unpack
from .linalg_solvers import _deprecated, tri_solve
from .padding import pad


def perm_from_pivots(xp, piv, m):
    """The row order `perm` of LAPACK's 1-based sequential row swaps `piv` (..., k):
    P^T A = A[perm], with P[perm[i], i] = 1."""
    k = piv.shape[-1]
    batch = piv.shape[:-1]
    if not m or not piv.size:
        return xp.array(xp.broadcast_to(xp.arange(m), batch + (m,)))
    flat = xp.array(xp.broadcast_to(xp.arange(m), batch + (m,))).reshape(-1, m)
    p = piv.reshape(-1, k).astype("int64") - 1
    rows = xp.arange(flat.shape[0])
    for j in range(k):
        top = flat[rows, j].copy()
        flat[rows, j] = flat[rows, p[:, j]]
        flat[rows, p[:, j]] = top
    return flat.reshape(batch + (m,))


def _p_matrix(xp, perm, dtype):
    m = perm.shape[-1]
    return (perm[..., None, :] == xp.arange(m)[:, None]).astype(dtype)


class LinalgLuSolve(Op):
    """linalg.lu_solve(LU, pivots, B, left, adjoint): X from an LU factorisation."""

    no_edge = (1,)  # pivots
    no_bfloat16 = "lu_solve_cpu"
    saves_inputs = True
    saves_output = True
    saves = ("perm",)

    def forward(self, LU, pivots, B, left=True, adjoint=False):
        """X by the permutation and the two triangular solves of the factors."""
        xp = self.xp
        self.left, self.adjoint = left, adjoint
        n = LU.shape[-1]
        self.perm = perm = perm_from_pivots(xp, pivots, n)
        if not left:  # X A = B  <=>  A^T X^T = B^T: the other adjoint, on transposes
            B, adjoint = xp.swapaxes(B, -1, -2), not adjoint
        if xp is np and LU.size and B.size and _lapack.usable(LU, B):  # torch's getrs
            piv = np.broadcast_to(pivots, LU.shape[:-1])
            X = _lapack.lu_solve(_lapack.to_f(LU), piv, LU.shape[:-2], B, "T" if adjoint else "N")
            return np.ascontiguousarray(np.swapaxes(X, -1, -2)) if not left else X
        shape = xp.broadcast_shapes(LU.shape[:-2], B.shape[:-2])
        LU = xp.broadcast_to(LU, shape + LU.shape[-2:])
        B = xp.broadcast_to(B, shape + B.shape[-2:])
        perm = xp.broadcast_to(perm, shape + (n,))
        if not adjoint:  # A = P L U: X = U^-1 L^-1 P^T B
            PtB = xp.take_along_axis(B, perm[..., :, None], axis=-2)
            X = tri_solve(xp, LU, tri_solve(xp, LU, PtB, False, unit=True), True)
        else:  # A^T X = B: X = P L^-T U^-T B
            LUt = xp.swapaxes(LU, -1, -2)
            Y = tri_solve(xp, LUt, tri_solve(xp, LUt, B, False), True, unit=True)
            X = xp.empty_like(Y)
            xp.put_along_axis(X, perm[..., :, None], Y, axis=-2)
        if not left:  # torch's X A = B result: C order (the transpose of a LAPACK solution)
            return xp.ascontiguousarray(xp.swapaxes(X, -1, -2))
        return lapack_layout(xp, X)

    def backward(self, grad):
        """torch's linalg_lu_solve gradients for LU and B (pivots: none)."""
        LU, pivots, _ = self.inputs
        X = self.output
        need_lu, _, need_b = self.needs_input_grad
        left, adj = self.left, self.adjoint
        gB = linalg_lu_solve(LU, pivots, grad, left=left, adjoint=not adj)
        if not need_lu:
            return None, None, gB
        return self._lu_grad(LU, pivots, grad, X), None, gB if need_b else None

    def _lu_grad(self, LU, pivots, gX, X):
        """torch's linalg_lu_solve_LU: LU's gradient from the unpacked factors (lu_unpack,
        its permutation only where left == adjoint) by two triangular solves, in its order
        (was a product through A = P L U: other nodes, other roundings)."""
        from .linalg_solvers import solve_triangular

        left, adj = self.left, self.adjoint
        P, L, U = lu_unpack(LU, pivots, unpack_pivots=left == adj)
        if left != adj:  # gR = U^-T op(-gX) op(X)^T; gL = (L^-T gR U^T).tril(-1)
            prod = (gX if left else _mT(gX)).matmul(_mT(X) if left else X)
            gR = solve_triangular(_mT(U), -prod, upper=False)
            gL = solve_triangular(_mT(L), gR.matmul(_mT(U)), upper=True, unitriangular=True)
            return gL.tril(-1) + gR.triu()
        # gR = -P^T op(X) op(gX)^T P L^-T; gU = (L^T gR U^-T).triu()
        gR = -(_mT(P).matmul(X if left else _mT(X)).matmul(_mT(gX) if left else gX).matmul(P))
        gR = solve_triangular(_mT(L), gR, upper=True, left=False, unitriangular=True)
        gU = solve_triangular(_mT(U), _mT(L).matmul(gR), upper=False, left=False)
        return gR.tril(-1) + gU.triu()

    jvp = Op.jvp_transpose


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B from the packed LU factors of A (linalg.lu_factor's output).

    Args:
        LU (Tensor): packed factors ``(*, n, n)``.
        pivots (Tensor): 1-based int32 pivots ``(*, n)``.
        B (Tensor): right-hand sides ``(*, n, k)`` (``(*, k, n)`` when ``left=False``); batch
            dimensions broadcast.
        left (bool, optional): solve ``A X = B`` (True) or ``X A = B``. Default: ``True``.
        adjoint (bool, optional): solve with A^T (the adjoint) instead of A. Default: ``False``.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> A = framework.tensor([[2.0, 1.0], [1.0, 3.0]])
        >>> LU, piv = framework.linalg.lu_factor(A)
        >>> framework.linalg.lu_solve(LU, piv, framework.tensor([[3.0], [4.0]]))
        tensor([[1.],
                [1.]])
    """
    fn = "linalg.lu_solve"
    if LU.dim() < 2:
        raise RuntimeError(f"torch.{fn}: The input tensor A must have at least 2 dimensions.")
    if B.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    float_input(f"torch.{fn}", LU)
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(
            f"torch.{fn}: A must be batches of square matrices, but they are {LU.shape[-2]} by "
            f"{LU.shape[-1]} matrices"
        )
    k = B.shape[-2] if left else B.shape[-1]
    if LU.shape[-1] != k:
        raise RuntimeError(
            f"{fn}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({LU.shape[-2]}x{LU.shape[-1]} and "
            f"{B.shape[-2]}x{B.shape[-1]})"
        )
    if B.dtype != LU.dtype:
        raise RuntimeError(
            f"{fn}: Expected LU and B to have the same dtype, but found LU of type "
            f"{dtypes.scalar_type_name(LU._data.dtype)} and B of type "
            f"{dtypes.scalar_type_name(B._data.dtype)} instead"
        )
    if pivots.dtype.is_floating_point or pivots._data.dtype.name != "int32":
        raise RuntimeError(f"{fn}: pivots should be a Tensor of scalar type torch.int32")
    if pivots.shape[-1] != LU.shape[-1]:
        raise RuntimeError(
            f"{fn}: Number of pivots per batch should be same as the dimension of the matrix"
        )
    return LinalgLuSolve.apply(LU, pivots, B, left=left, adjoint=adjoint)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve (deprecated in torch for linalg.lu_solve, whose arguments are reversed):
    X with A X = b from A's packed LU factors.

    Args:
        b (Tensor): right-hand sides ``(*, n, k)``.
        LU_data (Tensor): packed factors from torch.linalg.lu_factor.
        LU_pivots (Tensor): their pivots.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> A = framework.tensor([[2.0, 1.0], [1.0, 3.0]])
        >>> LU, piv = framework.linalg.lu_factor(A)
        >>> framework.lu_solve(framework.tensor([[3.0], [4.0]]), LU, piv)
        tensor([[1.],
                [1.]])
    """
    _deprecated(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
        "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
        "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
        "X = torch.linalg.lu_solve(LU, pivots, B)"
    )
    return linalg_lu_solve(LU_data, LU_pivots, b)


class LuUnpack(Op):
    """lu_unpack(LU, pivots): (P, L, U) from a packed LU factorisation."""

    no_edge = (1,)  # pivots
    no_bfloat16 = "lu_unpack"
    non_differentiable = (0,)
    saves = ("L_", "U_")

    def forward(self, LU, pivots, unpack_data=True, unpack_pivots=True):
        """P from the pivots, L (unit lower) and U (upper) from the packed factors."""
        xp = self.xp
        m, n = LU.shape[-2:]
        self.m, self.n = m, n
        perm = perm_from_pivots(xp, pivots, m)
        P, L, U = (xp.ascontiguousarray(a) for a in _unpack(xp, LU, perm, LU.dtype))
        empty = xp.empty((0,), dtype=LU.dtype)
        self.L_, self.U_ = (L, U) if unpack_data else (empty, empty)
        return (P if unpack_pivots else empty), self.L_, self.U_

    def backward(self, _gP, gL, gU):
        """The packed factors' gradient from L's and U's (the pivots have none)."""
        return self._lu_data_grad(gL, gU), None  # the pivots have no gradient

    def _lu_data_grad(self, gL, gU):
        """torch's lu_unpack_backward: L's gradient below the diagonal, U's on and above (the
        rest of a wide U's or a tall L's concatenated, or zeros where it has none)."""
        from .join import cat

        m, n = self.m, self.n
        k = min(m, n)
        if gL is not None and gU is not None:
            if m == n:
                return gL.tril(-1) + gU.triu()
            L1 = gL.tril(-1) if m == k else gL.narrow(-2, 0, k).tril(-1)
            U1 = gU.triu() if n == k else gU.narrow(-1, 0, k).triu()
            if m > n:
                return cat([L1 + U1, gL.narrow(-2, k, m - k)], -2)
            return cat([L1 + U1, gU.narrow(-1, k, n - k)], -1)
        if gL is not None:
            if m >= n:
                return gL.tril(-1)
            return cat([gL.tril(-1), gL.detach().new_zeros(gL.shape[:-1] + (n - m,))], -1)
        if n >= m:
            return gU.triu()
        return cat([gU.triu(), gU.detach().new_zeros(gU.shape[:-2] + (m - n, n))], -2)

    jvp = Op.jvp_transpose


def _pad(t, rows, cols):
    """t with `rows` zero rows below and `cols` zero columns to the right."""
    return pad(t, (0, cols, 0, rows))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """P, L, U from packed LU factors (A = P L U).

    Args:
        LU_data (Tensor): packed factors ``(*, m, n)``.
        LU_pivots (Tensor): 1-based int32 pivots ``(*, min(m, n))``.
        unpack_data (bool, optional): return L and U (else empty tensors). Default: ``True``.
        unpack_pivots (bool, optional): return P (else an empty tensor). Default: ``True``.
        out (tuple, optional): ignored (no out= support).

    Returns:
        (P, L, U), torch.return_types.lu_unpack.

    Example:
        >>> LU, piv = framework.linalg.lu_factor(framework.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> framework.lu_unpack(LU, piv).L
        tensor([[1.0000, 0.0000],
                [0.3333, 1.0000]])
    """
    if LU_data.dim() < 2:
        raise RuntimeError(
            "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(LU_data.shape)} instead"
        )
    if LU_pivots._data.dtype.name != "int32":
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"
        )
    P, L, U = LuUnpack.apply(
        LU_data, LU_pivots, unpack_data=unpack_data, unpack_pivots=unpack_pivots
    )
    return return_types.lu_unpack(P, L, U)


__all__ = ["lu_solve", "lu_unpack"]
