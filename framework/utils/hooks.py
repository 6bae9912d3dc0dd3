"""torch.utils.hooks: the handle every register_*hook returns."""
from ..autograd.op import RemovableHandle  # noqa: F401

__all__ = ["RemovableHandle"]
