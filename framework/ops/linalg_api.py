"""torch.linalg functions that are compositions of other ops, as torch's: solve_ex, vander,
diagonal, tensorinv, tensorsolve; eig/eigvals refuse (their results are complex)."""

import math

from .. import dtypes
from ..tensor import Tensor
from .extrema import return_types
from .linalg_ext import LinalgSolveEx, check_solve
from .linalg_legacy import _raise_for_info, inv_ex

__all__ = []  # under framework.linalg only


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """solve_ex(A, B, *, left=True, check_errors=False) -> (Tensor, Tensor)

    :func:`framework.linalg.solve` without the error for a singular ``A`` (unless
    ``check_errors``): the result (inf/NaN past a zero pivot of A's LU factorization, as
    torch's) and LAPACK's info (int32; the 1-based index of the first zero pivot, 0 when A is
    invertible).

    Args:
        A (Tensor): square matrices ``(*, n, n)``.
        B (Tensor): right-hand sides ``(*, n, k)`` or ``(*, n)``.
        left (bool, optional): solve ``A X = B`` (True) or ``X A = B``. Default: ``True``.
        check_errors (bool, optional): raise as :func:`~framework.linalg.solve` does.
            Default: ``False``.
        out (tuple, optional): ignored (no out= support).

    Example:
        >>> framework.linalg.solve_ex(framework.tensor([[2.0, 0.0], [0.0, 4.0]]),
        ...                           framework.tensor([2.0, 2.0]))
        torch.return_types.linalg_solve_ex(
        result=tensor([1.0000, 0.5000]),
        info=tensor(0, dtype=torch.int32))
    """
    from .linalg_lu import _factor

    vector = check_solve(A, B, left)
    info = Tensor._make(_factor(A.xp, A._data)[3], A.device) if A.numel() else None
    if info is None:
        info = Tensor._make(A.xp.zeros(A.shape[:-2], dtype="int32"), A.device)
    _raise_for_info(
        check_errors,
        A,
        info,
        "torch.linalg.solve_ex",
        lambda k: "The solver failed because the input matrix is singular.",
    )
    X = LinalgSolveEx.apply(A, B, vector=vector, ex=True, left=left)
    return return_types.linalg_solve_ex(X, info)


def vander(x, *, N=None):
    """vander(x, *, N=None) -> Tensor

    The Vandermonde matrix of the last dimension's values, powers ascending:
    ``[1, x, x**2, ..., x**(N-1)]`` per element (torch's composition: a column of ones and the
    cumulative product of ``x`` repeated, so CatBackward0 over CumprodBackward0).

    Args:
        x (Tensor): vectors ``(*, n)`` (a 0-dim tensor is one value).
        N (int, optional): the number of columns, more than 1. Default: ``x.size(-1)``.

    Example:
        >>> framework.linalg.vander(framework.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [1, 2, 4],
                [1, 3, 9]])
    """
    import framework

    kind = x._data.dtype.kind
    if kind == "b" or (kind == "f" and x._data.dtype.itemsize < 4) or kind == "V":
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{dtypes.scalar_type_name(x._data.dtype)}"
        )
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    n = x_.shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    shape = tuple(x_.shape) + (n - 1,)
    result = framework.cumprod(x_.unsqueeze(-1).expand(shape), -1)
    ones = result.new_ones(shape[:-1] + (1,))
    return framework.cat([ones, result], -1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """diagonal(A, *, offset=0, dim1=-2, dim2=-1) -> Tensor

    Alias of :func:`framework.diagonal` with the last two dimensions as defaults (a view).

    Args:
        A (Tensor): the input tensor, at least 2-D.
        offset (int, optional): which diagonal: 0 the main one, > 0 above, < 0 below.
            Default: ``0``.
        dim1 (int, optional): the first dimension of the matrices. Default: ``-2``.
        dim2 (int, optional): the second dimension of the matrices. Default: ``-1``.

    Example:
        >>> framework.linalg.diagonal(framework.arange(4.0).reshape(2, 2))
        tensor([0., 3.])
    """
    import framework

    return framework.diagonal(A, offset, dim1, dim2)


def tensorinv(A, ind=2, *, out=None):
    """tensorinv(A, ind=2) -> Tensor

    The tensor ``X`` with ``tensordot(X, A, ind) == I`` (A's first ``ind`` dimensions against
    the rest): the inverse of A reshaped to a square matrix, reshaped to
    ``A.shape[ind:] + A.shape[:ind]``.

    Args:
        A (Tensor): a tensor with ``prod(A.shape[:ind]) == prod(A.shape[ind:])``.
        ind (int, optional): the number of leading dimensions of the "rows". Default: ``2``.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> framework.linalg.tensorinv(2 * framework.eye(4).reshape(4, 2, 2), ind=1).shape
        torch.Size([2, 2, 4])
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    start, end = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows, cols = math.prod(start), math.prod(end)
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {cols} != {rows}"
        )
    result, info = inv_ex(A.reshape(cols, cols))
    _raise_for_info(
        True,
        A.reshape(cols, cols),
        info,
        "inv",
        lambda k: (
            f"The diagonal element {k} is zero, the inversion could not be completed because "
            "the input matrix is singular."
        ),
    )
    out = result.reshape(end + start)
    if out.grad_fn is not None:  # torch's C++ reshape: a _reshape_alias
        out.grad_fn._as("ReshapeAliasBackward0")
    return out


def tensorsolve(A, B, dims=None, *, out=None):
    """tensorsolve(A, B, dims=None) -> Tensor

    The tensor ``X`` with ``tensordot(A, X, X.ndim) == B``: A reshaped to a square matrix
    (its dimensions ``dims`` moved to the end first) solved against B flattened.

    Args:
        A (Tensor): a tensor with ``prod(A.shape[B.ndim:]) == B.numel()``.
        B (Tensor): the right-hand side, of A's leading shape.
        dims (tuple of ints, optional): dimensions of A moved to the end first.
            Default: ``None``.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> A = 2 * framework.eye(6).reshape(2, 3, 6)
        >>> framework.linalg.tensorsolve(A, framework.ones(2, 3)).shape
        torch.Size([6])
    """
    import framework

    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        n = A.dim()
        A = framework.movedim(A, dims, list(range(n - len(dims), n)))
    result_shape = tuple(A.shape[B.dim() :])
    result_product, other_product = math.prod(result_shape), B.numel()
    if result_product != other_product:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {result_product} != {other_product}"
        )
    A = A.reshape(result_product, result_product)
    return framework.linalg.solve(A, B.flatten()).reshape(result_shape)


def _complex(what):
    return NotImplementedError(
        f"linalg.{what}: the eigenvalues of a general matrix are complex, and framework has no "
        "complex dtypes (for a symmetric matrix use linalg.eigvalsh / linalg.eigh)"
    )


def eig(A, *, out=None):
    """eig(A) -> raises NotImplementedError

    torch returns complex eigenvalues and eigenvectors, and complex dtypes are not supported
    here; :func:`framework.linalg.eigh` covers symmetric matrices.

    Args:
        A (Tensor): square matrices ``(*, n, n)``.
        out (tuple, optional): ignored.

    Example:
        >>> framework.linalg.eig(framework.eye(2))
        Traceback (most recent call last):
        NotImplementedError: linalg.eig: the eigenvalues of a general matrix are complex, ...
    """
    raise _complex("eig")


def eigvals(A, *, out=None):
    """eigvals(A) -> raises NotImplementedError

    torch returns complex eigenvalues, and complex dtypes are not supported here;
    :func:`framework.linalg.eigvalsh` covers symmetric matrices.

    Args:
        A (Tensor): square matrices ``(*, n, n)``.
        out (Tensor, optional): ignored.

    Example:
        >>> framework.linalg.eigvals(framework.eye(2))
        Traceback (most recent call last):
        NotImplementedError: linalg.eigvals: the eigenvalues of a general matrix are complex, ...
    """
    raise _complex("eigvals")
