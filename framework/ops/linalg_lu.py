"""torch.linalg.lu_factor / lu_factor_ex / lu: LU decomposition with partial pivoting (as
LAPACK's getrf: the first largest |entry| of each column is the pivot), torch's nodes
(LinalgLuFactorExBackward0, LinalgLuBackward0) and backward formulas, written with Tensor ops
(double backward works)."""

import math

from .._errors import not_implemented, refuse
from ..autograd.op import Op
from ..tensor import Tensor
from .extrema import _return_type, return_types
from .join import cat
from . import linalg_lapack as _lapack
from .linalg_ext import _mT, _out, lapack_layout

return_types.linalg_lu_factor = _return_type("linalg_lu_factor", ("LU", "pivots"))
return_types.linalg_lu_factor_ex = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
return_types.linalg_lu = _return_type("linalg_lu", ("P", "L", "U"))


def _getrf(xp, A):
    """(LU, pivots (1-based, int32), perm, info) of a batch of (m, n) matrices."""
    *batch, m, n = A.shape
    k = min(m, n)
    flat = A.reshape(math.prod(batch), m, n).copy()
    b = flat.shape[0]
    rows = xp.arange(b)
    piv = xp.zeros((b, k), "int32")
    perm = xp.tile(xp.arange(m), (b, 1))
    info = xp.zeros(b, "int32")
    for j in range(k):
        p = j + xp.argmax(abs(flat[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        top = flat[rows, j].copy()
        flat[rows, j] = flat[rows, p]
        flat[rows, p] = top
        top = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = top
        d = flat[:, j, j]
        zero = d == 0
        info = xp.where(zero & (info == 0), j + 1, info)
        flat[:, j + 1 :, j] /= xp.where(zero, 1, d)[:, None]
        flat[:, j + 1 :, j + 1 :] -= flat[:, j + 1 :, j : j + 1] * flat[:, j : j + 1, j + 1 :]
    shape = tuple(batch)
    return (
        flat.reshape(A.shape),
        piv.reshape(shape + (k,)),
        perm.reshape(shape + (m,)),
        info.reshape(shape).astype("int32"),
    )


def _factor(xp, A):
    """(LU, pivots, perm, info) as `_getrf`, by MKL's getrf where it loads (torch's bits:
    linalg_lu_factor_ex factors a column-major copy of A), else `_getrf`'s elimination."""
    if xp.__name__ == "numpy" and A.size and _lapack.usable(A):
        lu, piv, info = _lapack.lu_factor(A)
        LU = _lapack.from_f(lu, A.shape[:-2])
        return LU, piv, _lapack.perm_from_pivots(piv, A.shape[-2]), info
    return _getrf(xp, A)


def _unpack(xp, LU, perm, dtype):
    """P (A = P L U), unit-lower L (m, k) and upper U (k, n) from packed factors."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = xp.tril(LU[..., :, :k], -1) + xp.eye(m, k, dtype=dtype)
    U = xp.triu(LU[..., :k, :])
    P = (perm[..., None, :] == xp.arange(m)[:, None]).astype(dtype)  # P[perm[i], i] = 1
    return P, L, U


def _empty_any_dtype(A):
    """torch factors an empty matrix (batch) of any dtype, and refuses integer/bool ones."""
    if A.dtype.kind in "biu":
        if A.size:
            refuse(A, "biu", "lu_cpu")
        return A.astype("float64")
    return A


def _no_half_backward(op):
    """torch's LU backward runs triangular_solve, whose CPU kernel has no half dtypes (only
    reached with empty inputs: the forward refuses others)."""
    if op.half is not None:
        raise not_implemented("triangular_solve_cpu", op.half)


class LinalgLuFactorEx(Op):
    """Packed LU factors; the pivots and info are integer outputs."""

    no_bfloat16 = "lu_cpu"
    non_differentiable = (1, 2)
    saves = ("perm", "piv")
    saved_fields = {"pivot": "=True"}

    def forward(self, A):
        """The packed LU factors of ``A``, the pivots and LAPACK's info."""
        LU, piv, self.perm, info = _factor(self.xp, _empty_any_dtype(A))
        LU = lapack_layout(self.xp, LU.astype(A.dtype, copy=False))
        self.LU, self.piv = LU, piv
        return LU, piv, info

    def backward(self, grad, _p=None, _i=None):
        """torch's lu_factor_ex_backward: lu_unpack of the packed factors (LuUnpackBackward0),
        then linalg_lu_backward with L's and U's gradients as narrows of the packed one."""
        from .linalg_lu_solve import lu_unpack

        _no_half_backward(self)
        LU = _out(self, self.LU, 0)
        P, L, U = lu_unpack(LU, _out(self, self.piv, 1))
        m, n = LU.shape[-2:]
        k = min(m, n)
        return lu_grad(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U)

    jvp = Op.jvp_transpose  # the backward is Tensor ops: its transpose is exact


class LinalgLu(Op):
    """P, L, U with A = P L U; P carries no gradient."""

    no_bfloat16 = "lu_cpu"
    non_differentiable = (0,)
    saves = ("P_", "L_", "U_")
    saved_fields = {"L": "L_", "P": "P_", "U": "U_", "pivot": "=True"}

    def forward(self, A):
        """P, L, U with A = P L U (partial pivoting)."""
        LU, _, perm, _ = _factor(self.xp, _empty_any_dtype(A))
        P, L, U = (self.xp.ascontiguousarray(a) for a in _unpack(self.xp, LU, perm, A.dtype))
        self.P_, self.L_, self.U_ = P, L.astype(A.dtype, copy=False), U.astype(A.dtype, copy=False)
        return self.P_, self.L_, self.U_

    def backward(self, _gp, gL, gU):
        """The gradient of ``A`` from those of L and U (torch's linalg_lu_backward)."""
        _no_half_backward(self)
        P = Tensor._make(self.P_, _out(self, self.L_, 1).device)
        return lu_grad(gL, gU, P, _out(self, self.L_, 1), _out(self, self.U_, 2))

    jvp = Op.jvp_transpose


def lu_grad(L_grad, U_grad, P, L, U):
    """torch's linalg_lu_backward: the gradient of A from those of L and U (either may be None),
    for square, wide (m < n) and tall (m > n) A, with its triangular solves and products in
    its order (seed 560065264: lu's float32 second derivative was 1.5e-5 apart through
    general solves)."""
    from .linalg_solvers import solve_triangular

    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:  # P L^-T [L^T L_grad o 1_L + U_grad U^T o 1_U] U^-T
        g = _mT(L).matmul(L_grad).tril(-1) if L_grad is not None else None
        if U_grad is not None:
            gu = U_grad.matmul(_mT(U)).triu()
            g = gu if g is None else g + gu
        g = solve_triangular(_mT(U), g, upper=False, left=False)
        g = solve_triangular(_mT(L), g, upper=True, left=True, unitriangular=True)
        return P.matmul(g)
    if m < n:  # wide
        g = _mT(L).matmul(L_grad) if L_grad is not None else None
        if U_grad is not None:
            gu = U_grad.triu().matmul(_mT(U))
            g = -gu if g is None else g - gu
        g = solve_triangular(_mT(U.narrow(-1, 0, k)), g.tril(-1), upper=False, left=False)
        if U_grad is not None:
            g = cat([g + U_grad.narrow(-1, 0, k).triu(), U_grad.narrow(-1, k, n - k)], -1)
        g = solve_triangular(_mT(L), g, upper=True, left=True, unitriangular=True)
        if U_grad is None:
            g = cat([g, U.narrow(-1, k, n - k).detach().new_zeros(U.shape[:-1] + (n - k,))], -1)
        return P.matmul(g)
    g = U_grad.matmul(_mT(U)) if U_grad is not None else None  # tall
    if L_grad is not None:
        gl = _mT(L).matmul(L_grad.tril(-1))
        g = -gl if g is None else g - gl
    g = solve_triangular(_mT(L.narrow(-2, 0, k)), g.triu(), upper=True, unitriangular=True)
    if L_grad is not None:
        g = cat([g + L_grad.narrow(-2, 0, k).tril(-1), L_grad.narrow(-2, k, m - k)], -2)
    g = solve_triangular(_mT(U), g, upper=False, left=False)
    if L_grad is None:
        g = cat([g, L.detach().new_zeros(L.shape[:-2] + (m - k, k))], -2)
    return P.matmul(g)


def _check(A, fname, pivot):
    if A.dim() < 2:
        raise RuntimeError(
            f"{fname}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead"
        )
    if not pivot:
        raise RuntimeError(f"{fname}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """LU factorization with partial pivoting, packed, without the singularity check.

    Args:
        A (Tensor): a matrix ``(m, n)`` or a batch of them ``(*, m, n)``.
        pivot (bool, optional): must be True (partial pivoting). Default: ``True``.
        check_errors (bool, optional): raise for a singular matrix instead of reporting it in
            ``info``. Default: ``False``.
        out (Tensor, optional): the output tensor.

    Returns:
        (LU, pivots, info): L (unit diagonal, implicit) below the diagonal of LU, U on and
        above it; 1-based int32 pivot rows; info > 0 where U[info - 1, info - 1] is zero.

    Example::

        >>> framework.linalg.lu_factor_ex(framework.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots
        tensor([2, 2], dtype=torch.int32)
    """
    _check(A, "linalg.lu_factor", pivot)
    LU, piv, info = LinalgLuFactorEx.apply(A)
    if check_errors and bool((info._data > 0).any()):
        raise RuntimeError("torch.linalg.lu_factor_ex: U is singular (check_errors=True)")
    return return_types.linalg_lu_factor_ex(LU, piv, info)


def lu_factor(A, *, pivot=True, out=None):
    """LU factorization with partial pivoting, packed as LAPACK's getrf (for lu_solve).

    Args:
        A (Tensor): (..., m, n) floating matrices.
        pivot (bool): must be True on the CPU, as in torch.
        out (Tensor, optional): the output tensor.

    Returns:
        (LU, pivots), torch.return_types.linalg_lu_factor.

    Example::

        >>> framework.linalg.lu_factor(framework.tensor([[1.0, 2.0], [3.0, 4.0]])).LU
        tensor([[3.0000, 4.0000],
                [0.3333, 0.6667]])
    """
    _check(A, "linalg.lu_factor", pivot)
    LU, piv, info = LinalgLuFactorEx.apply(A)
    if A.dim() == 2 and int(info._data) > 0:
        i = int(info._data)  # (torch prints LAPACK's 1-based info here)
        raise RuntimeError(
            f"torch.linalg.lu_factor: U[{i},{i}] is zero and using it on lu_solve would result "
            f"in a division by zero. If you still want to perform the factorization, consider "
            f"calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )
    if A.dim() > 2 and bool((info._data > 0).any()):
        raise RuntimeError(
            "torch.linalg.lu_factor: (Batch element 0): U is singular and using it on "
            "lu_solve would result in a division by zero."
        )
    return return_types.linalg_lu_factor(LU, piv)


def lu(A, *, pivot=True, out=None):
    """LU decomposition with partial pivoting: A = P L U.

    Args:
        A (Tensor): (..., m, n) floating matrices.
        pivot (bool): must be True on the CPU, as in torch.
        out (Tensor, optional): the output tensor.

    Returns:
        (P, L, U): permutation (m, m), unit lower-triangular L (m, k), upper U (k, n),
        k = min(m, n).

    Example::

        >>> P, L, U = framework.linalg.lu(framework.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> U
        tensor([[3.0000, 4.0000],
                [0.0000, 0.6667]])
    """
    _check(A, "linalg.lu", pivot)
    return return_types.linalg_lu(*LinalgLu.apply(A))


__all__ = []
