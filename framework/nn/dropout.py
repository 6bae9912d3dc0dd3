"""Dropout: zero each element with probability p in training, scale the rest by 1/(1-p)."""
from ..backend import move, rng
from ..tensor import Tensor
from .module import Module


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if not training or p == 0.0:
        return input
    dt = input._data.dtype
    if p == 1.0:
        mask = input.xp.zeros(input._data.shape, dtype=dt)
    else:
        # drawn on the CPU from the seeded stream, so every device sees the same mask
        keep = rng().random(input._data.shape) >= p
        mask = move(keep.astype(dt) * dt.type(1.0 / (1.0 - p)), input.device)
    mask = Tensor._make(mask, input.device)
    return input.mul_(mask) if inplace else input * mask


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        _check_p(p)
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
