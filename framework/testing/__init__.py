"""torch.testing for framework: assert_close (torch's rules and report, across libraries) and
make_tensor."""
from ._comparison import assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor"]
