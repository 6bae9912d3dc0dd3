"""torch.linalg: norms, decompositions, solvers (differentiable, as torch's)."""

from .ops.linalg import matmul
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
from .ops.linalg_solvers import solve_triangular
from .ops.linalg_householder import householder_product
from .ops.matrix_fns import matrix_exp


def multi_dot(tensors):
    """Product of a chain of matrices (1-D ends are treated as vectors).

    Args:
        tensors (sequence of Tensors): two or more tensors; the first and last may be 1-D, the
            others are 2-D.

    Example:
        >>> mats = [framework.ones(2, 3), framework.ones(3, 4), framework.ones(4)]
        >>> framework.linalg.multi_dot(mats)
        tensor([12., 12.])
    """
    out = tensors[0]
    for t in tensors[1:]:
        out = out @ t
    return out
