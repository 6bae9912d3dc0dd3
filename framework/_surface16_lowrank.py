"""Randomized low-rank SVD and PCA (torch's ``torch/_lowrank.py``, Halko et al. 2009): the
same Gaussian test matrix drawn from the default generator (``randn(n, q)``), the same
subspace iterations and QR / SVD steps, so a seeded call gives torch's factors."""


def _floating_dtype(A):
    from . import dtypes

    return A.dtype if A.is_floating_point() else dtypes.float32


def get_approximate_basis(A, q, niter=2, M=None):
    """``Q`` with ``q`` orthonormal columns such that ``Q Q^H (A - M)`` approximates
    ``A - M`` (Halko et al.'s Algorithm 4.4, torch's code).

    Args:
        A (Tensor): ``(*, m, n)``.
        q (int): the number of columns of Q.
        niter (int, optional): subspace iterations. Default: 2.
        M (Tensor, optional): ``A``'s mean, ``(*, m, n)``.

    Example:
        >>> from framework._surface16_lowrank import get_approximate_basis
        >>> get_approximate_basis(framework.randn(5, 4), 2).shape
        torch.Size([5, 2])
    """
    from .creation import randn
    from .linalg import qr

    niter = 2 if niter is None else niter
    R = randn(A.shape[-1], q, dtype=_floating_dtype(A), device=A.device)
    X = A.matmul(R)
    if M is not None:
        X = X - M.matmul(R)
    Q = qr(X).Q
    for _ in range(niter):
        X = A.mH.matmul(Q)
        if M is not None:
            X = X - M.mH.matmul(Q)
        Q = qr(X).Q
        X = A.matmul(Q)
        if M is not None:
            X = X - M.matmul(Q)
        Q = qr(X).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    from .linalg import svd

    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(A, q=6, niter=2, M=None):
    r"""An approximate SVD ``(U, S, V)`` of rank ``q`` of ``A`` (or ``A - M``) by randomized
    subspace iteration: :math:`A \approx U \operatorname{diag}(S) V^H`.

    Args:
        A (Tensor): ``(*, m, n)``.
        q (int, optional): a slightly overestimated rank of A. Default: 6.
        niter (int, optional): subspace iterations (nonnegative). Default: 2.
        M (Tensor, optional): subtracted from A (broadcast to its size).

    Returns:
        ``(U, S, V)``: ``(*, m, q)``, ``(*, q)``, ``(*, n, q)``.

    Example:
        >>> A = framework.randn(6, 2) @ framework.randn(2, 5)
        >>> U, S, V = framework.svd_lowrank(A, q=2)
        >>> bool(((U * S) @ V.mT).allclose(A, atol=1e-4))
        True
    """
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    r"""Principal component analysis of a (low-rank) data matrix by :func:`svd_lowrank` of
    the centered matrix: the columns of ``V`` are the principal directions and
    :math:`S^2 / (m - 1)` the variances along them.

    Args:
        A (Tensor): ``(*, m, n)``: m samples of n features.
        q (int, optional): the rank sought. Default: ``min(6, m, n)``.
        center (bool, optional): subtract the column means first. Default: ``True``.
        niter (int, optional): subspace iterations (nonnegative). Default: 2.

    Returns:
        ``(U, S, V)``: ``(*, m, q)``, ``(*, q)``, ``(*, n, q)``.

    Example:
        >>> U, S, V = framework.pca_lowrank(framework.randn(10, 3))
        >>> V.shape
        torch.Size([3, 3])
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)


__all__ = ["svd_lowrank", "pca_lowrank"]
