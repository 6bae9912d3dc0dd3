"""Reflection and replication padding: one gather of source indices (torch's
ReflectionPad{1,2,3}DBackward0 / ReplicationPad{1,2,3}DBackward0 nodes)."""
from ..autograd.op import Op
from .indexing import _IndexAccumulate

__all__ = []


class PadGather(Op):
    """out = x[..., i, j]: each padded output reads its source element (index arrays over the
    trailing dims); backward sums the gradient back into the sources."""

    def forward(self, x, key, node):
        self.key, self.in_shape, self.node = key, x.shape, node
        return x[key]

    def backward(self, grad):
        return _IndexAccumulate.apply(grad, shape=self.in_shape, key=self.key)

    def node_variant(self):
        return self.node


def pad_gather(x, sources, mode):
    """Pad the trailing len(sources) dims of x; sources[k] holds, for each output position of
    dim -len(sources)+k, the index it copies (reflect / replicate)."""
    xp, n = x.xp, len(sources)
    key = [slice(None)] * (x.ndim - n)
    for k, j in enumerate(sources):
        key.append(j.reshape((-1,) + (1,) * (n - 1 - k)))  # an open mesh over the n dims
    kind = "Reflection" if mode == "reflect" else "Replication"
    return PadGather.apply(x, key=tuple(key), node=f"{kind}Pad{n}DBackward0")
