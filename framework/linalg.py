"""torch.linalg: norms, decompositions, solvers (differentiable, as torch's)."""

from .dtypes import cpp_type_name as _cpp_type_name
from .ops.linalg import matmul, mm as _mm
from .ops.linalg_ext import LinAlgError
from .ops.linalg_ext import (
    cholesky,
    det,
    eigh,
    eigvalsh,
    inv,
    matrix_power,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
)
from .ops.norms import linalg_norm as norm, matrix_norm, vector_norm
from .ops.linalg_lu import lu, lu_factor, lu_factor_ex
from .ops.linalg_more import linalg_lstsq as lstsq, linalg_matrix_rank as matrix_rank, vecdot
from .ops.products import linalg_cross as cross
from .ops.linalg_legacy import cholesky_ex, inv_ex, linalg_cond as cond
from .ops.linalg_lu_solve import linalg_lu_solve as lu_solve
from ._surface16_linalg import ldl_factor, ldl_factor_ex, ldl_solve
from .ops.linalg_solvers import solve_triangular
from .ops.linalg_householder import householder_product
from .ops.matrix_fns import matrix_exp
from .ops.linalg_api import diagonal, eig, eigvals, solve_ex, tensorinv, tensorsolve, vander


def _chain_order(dims):
    """torch's matrix_chain_order (CLRS 15.2): split[i][j] is where the cheapest product of
    matrices i..j splits (the first minimum, as torch's strict `<`)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain_product(mats, split, i, j):
    """The product of mats[i..j] in the order `split` gives (iterative: an explicit stack)."""
    stack, done = [(i, j, False)], []
    while stack:
        lo, hi, ready = stack.pop()
        if lo == hi:
            done.append(mats[lo])
        elif ready:
            right, left = done.pop(), done.pop()
            done.append(_mm(left, right))
        else:
            k = split[lo][hi]
            stack += [(lo, hi, True), (k + 1, hi, False), (lo, k, False)]
    return done[0]


def multi_dot(tensors):
    """Product of a chain of matrices (1-D ends are treated as vectors), multiplied in the
    cheapest order as torch's ``linalg.multi_dot`` chooses it.

    Args:
        tensors (sequence of Tensors): two or more tensors; the first and last may be 1-D, the
            others are 2-D.

    Example:
        >>> mats = [framework.ones(2, 3), framework.ones(3, 4), framework.ones(4)]
        >>> framework.linalg.multi_dot(mats)
        tensor([12., 12.])
    """
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    mats, out_shape = list(tensors), []
    for end, pos, axis in (("first", 0, 0), ("last", n - 1, -1)):
        d = tensors[pos].dim()
        if d == 1:
            mats[pos] = tensors[pos].unsqueeze(axis)
        elif d == 2:
            out_shape.append(tensors[pos].shape[1 if pos else 0])
        else:
            raise RuntimeError(f"multi_dot(): the {end} tensor must be 1D or 2D but got {d}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    dt = mats[0]._data.dtype
    for i in range(1, n):
        if mats[i]._data.dtype != dt:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_cpp_type_name(dt)} and tensor {i} {_cpp_type_name(mats[i]._data.dtype)}"
            )
        if mats[i - 1].shape[-1] != mats[i].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes "
                f"{list(tensors[i - 1].shape)} and {list(tensors[i].shape)} cannot be multiplied"
            )
    if n == 3:  # torch compares the two orders directly
        a, b, c, d = mats[0].shape[0], mats[1].shape[0], mats[2].shape[0], mats[2].shape[1]
        if a * c * (b + d) > b * d * (a + c):
            return _mm(mats[0], _mm(mats[1], mats[2])).view(out_shape)
        return _mm(_mm(mats[0], mats[1]), mats[2]).view(out_shape)
    if n == 2:
        return _mm(mats[0], mats[1]).view(out_shape)
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    return _chain_product(mats, _chain_order(dims), 0, n - 1).view(out_shape)
