"""torch.utils: data loading."""
from . import data  # noqa: F401
from . import hooks  # noqa: F401
from . import checkpoint  # noqa: F401
