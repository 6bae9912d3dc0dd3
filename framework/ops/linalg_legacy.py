"""The top-level and `_ex` linear-algebra forms torch still ships: torch.svd (some,
compute_uv), torch.qr (some), torch.cholesky (upper; its own CholeskyBackward0 node), torch.lu
(get_infos), linalg.cholesky_ex, linalg.inv_ex and linalg.cond, built on the linalg ops with
torch's nodes, return types, errors and deprecation warnings."""

import numpy as np

from ..amp.autocast_mode import entry as _amp_entry
from .._errors import refuse
from ..autograd.op import Op
from .extrema import _return_type, return_types
from .linalg_ext import (
    LinalgCholeskyEx,
    LinalgInvEx,
    _check_square,
    _LinAlgError,
    _mT,
    _phi,
    lapack_layout,
    qr as _linalg_qr,
    svd as _linalg_svd,
    svdvals,
)
from . import linalg_lapack as _lapack
from .linalg_lu import _getrf, lu_factor_ex
from .linalg_solvers import _deprecated, tri_solve
from .norms import matrix_norm

return_types.linalg_cholesky_ex = _return_type("linalg_cholesky_ex", ("L", "info"))
return_types.linalg_inv_ex = _return_type("linalg_inv_ex", ("inverse", "info"))
return_types._lu_with_info = _return_type("_lu_with_info", ("LU", "pivots", "info"))


def svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: A = U diag(S) V^T, returning V (not V^T as linalg.svd does).

    Args:
        input (Tensor): matrices ``(*, m, n)``.
        some (bool, optional): reduced U ``(m, k)`` and V ``(n, k)``, k = min(m, n); else full
            square ones. Default: ``True``.
        compute_uv (bool, optional): when False, only S is computed and U, V are zero matrices
            ``(m, m)`` and ``(n, n)``. Default: ``True``.
        out (tuple, optional): ignored (no out= support).

    Returns:
        (U, S, V), torch.return_types.svd.

    Example:
        >>> framework.svd(framework.tensor([[3.0, 0.0], [0.0, 2.0]])).S
        tensor([3., 2.])
    """
    if input.dim() < 2:
        raise RuntimeError(
            "linalg.svd: input should have at least 2 dimensions, but has "
            f"{input.dim()} dimensions instead"
        )
    if not compute_uv:
        from ..creation import zeros

        S = svdvals(input)
        m, n = input.shape[-2:]
        batch, kw = tuple(input.shape[:-2]), dict(dtype=input.dtype, device=input.device)
        return return_types.svd(zeros(batch + (m, m), **kw), S, zeros(batch + (n, n), **kw))
    U, S, Vh = _linalg_svd(input, full_matrices=not some)
    return return_types.svd(U, S, _mT(Vh))


def qr(input, some=True, *, out=None):
    """torch.qr (deprecated in torch for linalg.qr): A = Q R.

    Args:
        input (Tensor): matrices ``(*, m, n)``.
        some (bool, optional): reduced (True) or complete (False) Q. Default: ``True``.
        out (tuple, optional): ignored (no out= support).

    Example:
        >>> framework.qr(framework.eye(2)).R
        tensor([[1., 0.],
                [0., 1.]])
    """
    _deprecated(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
        "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')"
    )
    Q, R = _linalg_qr(input, "reduced" if some else "complete")
    return return_types.qr(Q, R)


class Cholesky(LinalgCholeskyEx):
    """torch.cholesky's own node (CholeskyBackward0), same formulas as linalg.cholesky."""

    def forward(self, A, upper=False):
        """The lower (or upper) factor; a non positive-definite matrix raises torch's error."""
        try:
            return super().forward(A, upper=upper)
        except _LinAlgError as e:
            raise _LinAlgError(str(e).replace("linalg.cholesky:", "cholesky:", 1)) from None

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative for cholesky
    jvp_name = "cholesky"


def cholesky(input, upper=False, *, out=None):
    """torch.cholesky (deprecated in torch for linalg.cholesky): the Cholesky factor.

    Args:
        input (Tensor): symmetric positive-definite matrices ``(*, n, n)``.
        upper (bool, optional): return U with A = U^T U instead of L. Default: ``False``.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> framework.cholesky(framework.tensor([[4.0, 2.0], [2.0, 2.0]]))
        tensor([[2., 0.],
                [1., 1.]])
    """
    _deprecated(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
        "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be "
        "replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
        "equivalent results for all valid (symmetric positive definite) inputs."
    )
    try:
        _check_square(input, "cholesky", floating=False)
    except RuntimeError as e:  # torch.cholesky's checks name it without "linalg."
        raise type(e)(str(e).replace("linalg.cholesky:", "cholesky:", 1)) from None
    refuse(input._data, "biu", "cholesky_cpu")  # the kernel's refusal, not linalg's check
    return Cholesky.apply(input, upper=upper)


@_amp_entry("lu")
def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu (deprecated in torch for linalg.lu_factor / lu_factor_ex): packed LU factors.

    Args:
        A (Tensor): matrices ``(*, m, n)``.
        pivot (bool, optional): must be True on the CPU. Default: ``True``.
        get_infos (bool, optional): also return LAPACK's info. Default: ``False``.
        out (tuple, optional): ignored (no out= support).

    Returns:
        (LU, pivots), or (LU, pivots, infos) as torch.return_types._lu_with_info.

    Example:
        >>> framework.lu(framework.tensor([[1.0, 2.0], [3.0, 4.0]]))[1]
        tensor([2, 2], dtype=torch.int32)
    """
    _deprecated(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
        "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)"
    )
    try:
        LU, piv, info = lu_factor_ex(A, pivot=pivot)
    except RuntimeError as e:  # torch.lu's checks are torch.lu_factor's
        raise type(e)(str(e).replace("linalg.lu_factor:", "torch.lu_factor:", 1)) from None
    if get_infos:
        return return_types._lu_with_info(LU, piv, info)
    return LU, piv


def _potf2(xp, A):
    """(L, info) of one matrix by LAPACK's unblocked potf2: at the first non-positive pivot
    the factorization stops; the pivot's value is stored and later columns keep A's values."""
    L = xp.tril(A).copy()
    n = A.shape[-1]
    for j in range(n):
        ajj = L[j, j] - L[j, :j] @ L[j, :j]
        if not ajj > 0:
            L[j, j] = ajj
            return L, j + 1
        L[j, j] = ajj**0.5
        L[j + 1 :, j] = (L[j + 1 :, j] - L[j + 1 :, :j] @ L[j, :j]) / L[j, j]
    return L, 0


def _per_matrix(xp, A, whole, one):
    """(result, info) of `whole` over the batch A, or, when it fails, of `one` per matrix."""
    info = xp.zeros(A.shape[:-2], "int32")
    try:  # a singular / not positive-definite matrix somewhere in the batch: per matrix
        return whole(A), info
    except xp.linalg.LinAlgError:
        flat, infos = A.reshape((-1,) + A.shape[-2:]), info.reshape(-1)
    out = xp.empty_like(flat)
    for b, m in enumerate(flat):
        out[b], infos[b] = one(m)
    return out.reshape(A.shape), info


class CholeskyEx(LinalgCholeskyEx):
    """linalg.cholesky_ex: (L, info), LAPACK's partial factor where A is not
    positive-definite (its gradient is then not meaningful, as in torch)."""

    node_name = "LinalgCholeskyExBackward0"
    non_differentiable = (1,)

    def forward(self, A, upper=False):
        """(L, info): LAPACK's partial factor and the failing minor where A is not definite."""
        xp = self.xp
        self.upper = upper
        got = _lapack.cholesky(A, upper) if A.size and xp is np else None
        if got is not None:  # torch's potrf (its partial factor where info > 0)
            return got
        L, info = _per_matrix(xp, A, xp.linalg.cholesky, lambda m: _potf2(xp, m))
        return lapack_layout(xp, xp.swapaxes(L, -1, -2) if upper else L), info

    def backward(self, grad, _g_info=None):
        """linalg.cholesky's backward for L (info has no gradient)."""
        return super().backward(grad)

    def jvp(self, tA):
        """linalg.cholesky's rule (dA as given, not symmetrized); info has no tangent."""
        L = self._fw_outs[0]
        if self.upper:  # torch's cholesky_jvp: dA as given for either factor
            L = _mT(L)
        Linv = L.inverse()
        dL = L @ _phi(Linv @ tA @ _mT(Linv))
        return (_mT(dL) if self.upper else dL), None


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """Cholesky factor and LAPACK's info, without raising for a matrix that is not
    positive-definite (unless ``check_errors``).

    Args:
        A (Tensor): symmetric matrices ``(*, n, n)``.
        upper (bool, optional): return U = L^T. Default: ``False``.
        check_errors (bool, optional): raise as linalg.cholesky does. Default: ``False``.
        out (tuple, optional): ignored (no out= support).

    Returns:
        (L, info): info > 0 is the order of the first leading minor that is not
        positive-definite (L's columns from there on are then not computed).

    Example:
        >>> framework.linalg.cholesky_ex(framework.tensor([[4.0, 2.0], [2.0, 2.0]])).info
        tensor(0, dtype=torch.int32)
    """
    _check_square(A, "cholesky")
    L, info = CholeskyEx.apply(A, upper=upper)
    _raise_for_info(check_errors, A, info, "linalg.cholesky_ex", _not_pd)
    return return_types.linalg_cholesky_ex(L, info)


def _not_pd(k):
    return (
        "The factorization could not be completed because the input is not positive-definite "
        f"(the leading minor of order {k} is not positive-definite)."
    )


def _singular_pivot(k):
    return (
        f"The diagonal element {k} is zero, the inversion could not be completed because the "
        "input matrix is singular."
    )


def _raise_for_info(check_errors, A, info, fn, what):
    """torch's LinAlgError for the first batch element with info > 0 (check_errors=True)."""
    bad = info._data.reshape(-1) > 0
    if check_errors and bool(bad.any()):
        b = int(A.xp.argmax(bad))
        where = f"(Batch element {b}): " if A.dim() > 2 else ""
        raise _LinAlgError(f"{fn}: {where}{what(int(info._data.reshape(-1)[b]))}")


def _lu_inverse(xp, m):
    """(inverse, info) of one matrix from its LU factors: inf/NaN past a zero pivot."""
    LU, piv, perm, info = _getrf(xp, m)
    eye = xp.eye(m.shape[-1], dtype=m.dtype)
    X = tri_solve(xp, LU, tri_solve(xp, LU, eye[perm], False, unit=True), True)
    return X, int(info)


class InvEx(LinalgInvEx):
    """linalg.inv_ex: (inverse, info) without the singularity error."""

    node_name = "LinalgInvExBackward0"
    non_differentiable = (1,)

    def forward(self, A):
        """(inverse, info): info is the first zero pivot (1-based) of a singular matrix, else 0."""
        xp = self.xp
        got = (
            _lapack.solve(A, np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A.shape))
            if (A.size and xp is np)
            else None
        )
        if got is not None:  # torch's getrf + getrs against the identity
            return got
        with xp.errstate(all="ignore"):
            inverse, info = _per_matrix(xp, A, xp.linalg.inv, lambda m: _lu_inverse(xp, m))
        return lapack_layout(xp, inverse), info

    def backward(self, grad, _g_info=None):
        """linalg.inv's backward for the inverse (info has no gradient)."""
        return super().backward(grad)

    jvp = Op.jvp_transpose


def inv_ex(A, *, check_errors=False, out=None):
    """Inverse and LAPACK's info, without raising for a singular matrix (unless
    ``check_errors``).

    Args:
        A (Tensor): square matrices ``(*, n, n)``.
        check_errors (bool, optional): raise as linalg.inv does. Default: ``False``.
        out (tuple, optional): ignored (no out= support).

    Returns:
        (inverse, info): info > 0 is the 1-based index of the first zero pivot of A's LU
        factorization; the inverse is then not valid (inf/NaN).

    Example:
        >>> framework.linalg.inv_ex(framework.tensor([[2.0, 0.0], [0.0, 4.0]])).inverse
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    _check_square(A, "inv")
    inverse, info = InvEx.apply(A)
    _raise_for_info(check_errors, A, info, "linalg.inv_ex", _singular_pivot)
    return return_types.linalg_inv_ex(inverse, info)


def linalg_cond(A, p=None, *, out=None):
    """Condition number of a matrix in the norm ``p``: norm(A) * norm(A^-1), or for p = None /
    2 / -2 the ratio of the largest and smallest singular values ('nuc': sum(S) * sum(1/S)).
    As in torch, only those are differentiable (the others modify a saved inverse in place:
    backward raises).

    Args:
        A (Tensor): matrices ``(*, m, n)`` (square for p other than None, 2, -2).
        p (int, float, inf, -inf, 'fro', 'nuc', optional): the norm. Default: ``None`` (2).
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> framework.linalg.cond(framework.tensor([[4.0, 0.0], [0.0, 2.0]]))
        tensor(2.)
    """
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else p
    if isinstance(ord, str):
        _cond_square(A, ord)
    if ord not in (2, -2, 1, -1, float("inf"), -float("inf"), "fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {ord}")
    if A.numel() == 0:
        from ..creation import zeros

        return zeros(tuple(A.shape[:-2]), dtype=A.dtype, device=A.device)
    if ord in (2, -2):
        S = svdvals(A)
        s_max, s_min = S.narrow(-1, 0, 1), S.narrow(-1, S.shape[-1] - 1, 1)
        return (s_min / s_max if ord == -2 else s_max / s_min).squeeze(-1)
    if ord == "nuc":  # torch: from the singular values directly (differentiable)
        S = svdvals(A)
        return S.sum(-1) * S.reciprocal().sum(-1)
    _cond_square(A, f"{ord:f}" if isinstance(ord, float) else ord)
    # as torch, in place on inv_ex's saved output: backward then fails with torch's error
    inverse, info = inv_ex(A)
    inverse.masked_fill_(info.unsqueeze(-1).unsqueeze(-1) > 0, float("inf"))
    result = matrix_norm(A, ord) * matrix_norm(inverse, ord)
    return result.nan_to_num_(float("inf"), float("inf"), -float("inf"))


def _cond_square(A, name):
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.cond(ord={name}): A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )


__all__ = ["svd", "qr", "cholesky", "lu"]
