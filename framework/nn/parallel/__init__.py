"""torch.nn.parallel: DistributedDataParallel."""
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DistributedDataParallel"]
