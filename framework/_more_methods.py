"""Tensor methods over ops defined outside tensor.py (logaddexp2, frexp) and the dtype and
mode queries (is_complex, is_signed, is_inference), attached to ``Tensor`` at import; their
docstrings are in ``framework/_docs.py`` as for the methods tensor.py defines."""

from . import ops as _ops
from .tensor import Tensor


def logaddexp2(self, other):
    return _ops.logaddexp2(self, other)


def frexp(self):
    return _ops.frexp(self)


def is_complex(self):
    return self._data.dtype.kind == "c"


def is_signed(self):
    return self._data.dtype.kind in "fci" or self._data.dtype.name == "bfloat16"


def is_inference(self):
    return False  # inference_mode here records nothing but makes ordinary tensors


for _fn in (logaddexp2, frexp, is_complex, is_signed, is_inference):
    _fn.__qualname__ = f"Tensor.{_fn.__name__}"
    setattr(Tensor, _fn.__name__, _fn)
