"""torch.linalg: norms, decompositions, solvers (differentiable, as torch's)."""
from .ops.linalg import matmul  # noqa: F401
from .ops.norms import linalg_norm as norm, matrix_norm, vector_norm  # noqa: F401
