"""Type aliases torch.distributions takes from ``torch.types`` (annotations only)."""

from collections.abc import Sequence

import framework

_Number = bool | int | float
Number = int | float | bool
_size = framework.Size | Sequence[int]
_dtype = framework.dtype
Device = str | framework.device | int | None
