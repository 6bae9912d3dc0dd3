"""Every primitive and its public function, one module per family.

Each family module lists its public functions in ``__all__``; this package re-exports them
(and ``framework`` re-exports this package's ``__all__``), so the Op classes and helpers stay
internal: ``framework.add`` exists, ``framework.Add`` does not.
"""

import importlib as _importlib

from .elementwise import *  # noqa: F403
from .reduction import *  # noqa: F403
from .unary import *  # noqa: F403
from .logical import *  # noqa: F403
from .extrema import *  # noqa: F403
from .activation import *  # noqa: F403
from .shape import *  # noqa: F403
from .join import *  # noqa: F403
from .linalg import *  # noqa: F403
from .indexing import *  # noqa: F403
from .views import *  # noqa: F403
from .gather import *  # noqa: F403
from .conv import *  # noqa: F403
from .pooling import *  # noqa: F403
from .rearrange import *  # noqa: F403
from .cumulative import *  # noqa: F403
from .sorting import *  # noqa: F403
from .special import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .sampling import *  # noqa: F403
from .selection import *  # noqa: F403
from .norms import *  # noqa: F403
from .counting import *  # noqa: F403
from .products import *  # noqa: F403
from .statistics import *  # noqa: F403
from .batch_products import *  # noqa: F403
from .stacking import *  # noqa: F403
from .linalg_more import *  # noqa: F403
from .extras2 import *  # noqa: F403
from .extras3 import *  # noqa: F403
from .linalg_solvers import *  # noqa: F403
from .linalg_lu_solve import *  # noqa: F403
from .linalg_legacy import *  # noqa: F403
from .linalg_householder import *  # noqa: F403
from .gamma import *  # noqa: F403
from .extras4 import *  # noqa: F403
from .histogram import *  # noqa: F403
from .matrix_fns import *  # noqa: F403
from .index_reduce import *  # noqa: F403
from .put import *  # noqa: F403
from .frexp import *  # noqa: F403

# Internal entry points that Tensor methods call as ``ops.<name>`` (not part of ``framework``).
from ..creation import tensor
from .activation import gelu, leaky_relu
from .indexing import getitem, setitem
from .linalg import linear
from .reduction import sum_to_size
from .shape import alias, expand, expand_as, repeat, view
from .unary import copy_into, to_copy

_FAMILIES = (
    "elementwise",
    "reduction",
    "unary",
    "logical",
    "extrema",
    "activation",
    "shape",
    "join",
    "linalg",
    "indexing",
    "views",
    "gather",
    "conv",
    "pooling",
    "rearrange",
    "cumulative",
    "sorting",
    "special",
    "pointwise",
    "sampling",
    "selection",
    "norms",
    "counting",
    "products",
    "statistics",
    "batch_products",
    "stacking",
    "linalg_more",
    "extras2",
    "extras3",
    "linalg_solvers",
    "linalg_lu_solve",
    "linalg_legacy",
    "linalg_householder",
    "gamma",
    "extras4",
    "histogram",
    "matrix_fns",
    "index_reduce",
    "put",
    "frexp",
)
# torch has the 2-d pooling functions only in torch.nn.functional.
_NN_ONLY = {"avg_pool2d", "adaptive_avg_pool2d"}
__all__ = [
    n
    for m in _FAMILIES
    for n in _importlib.import_module(f".{m}", __name__).__all__
    if n not in _NN_ONLY
]
