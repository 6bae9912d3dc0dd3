"""torch.linalg: norms, decompositions, solvers (differentiable, as torch's)."""
from .ops.linalg import matmul  # noqa: F401
from .ops.linalg_ext import LinAlgError  # noqa: F401
from .ops.linalg_ext import (cholesky, det, eigh, eigvalsh, inv, matrix_power, pinv,  # noqa: F401
                             qr, slogdet, solve, svd, svdvals)
from .ops.norms import linalg_norm as norm, matrix_norm, vector_norm  # noqa: F401
from .ops.products import linalg_cross as cross  # noqa: F401


def multi_dot(tensors):
    """Product of a chain of matrices (1-D ends are treated as vectors)."""
    out = tensors[0]
    for t in tensors[1:]:
        out = out @ t
    return out
