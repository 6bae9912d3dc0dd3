"""The linear-algebra helpers of torch's ``torch/_linalg_utils.py`` that lobpcg calls."""


def get_floating_dtype(A):
    """A's dtype if floating point, else float32."""
    import framework

    if A.dtype in (framework.float16, framework.float32, framework.float64):
        return A.dtype
    return framework.float32


def matmul(A, B):
    """A @ B, or B when A is None."""
    if A is None:
        return B
    return A.matmul(B)


def bform(X, A, Y):
    """The bilinear form X^T A Y."""
    return matmul(X.mT, matmul(A, Y))


def qform(A, S):
    """The quadratic form S^T A S."""
    return bform(S, A, S)


def basis(A):
    """An orthonormal basis of A's columns (QR's Q)."""
    import framework

    return framework.linalg.qr(A).Q


def symeig(A, largest=False):
    """Eigenpairs of the symmetric A, ascending (descending with ``largest``)."""
    import framework

    E, Z = framework.linalg.eigh(A, UPLO="U")
    if largest:
        E = framework.flip(E, dims=(-1,))
        Z = framework.flip(Z, dims=(-1,))
    return E, Z
