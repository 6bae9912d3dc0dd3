"""torch.autograd.graph: the node base class and tools that act on the graph while it runs."""
from .node import Node  # noqa: F401

__all__ = ["Node"]
