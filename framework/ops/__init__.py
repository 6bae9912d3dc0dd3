"""Every primitive and its public function, one module per family."""
from .elementwise import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .unary import *  # noqa: F401,F403
from .logical import *  # noqa: F401,F403
from .extrema import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .join import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .views import *  # noqa: F401,F403
from .gather import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rearrange import *  # noqa: F401,F403
from .cumulative import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .norms import *  # noqa: F401,F403
from .counting import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .batch_products import *  # noqa: F401,F403
from ..creation import tensor  # noqa: F401  (copy_ accepts array-likes)
