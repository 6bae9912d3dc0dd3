"""framework.Size keeps its type through slicing, + and * as torch.Size does (printed shapes
like ``x.shape[1:]`` read ``torch.Size([3, 4])``), and framework.broadcast_shapes is torch's
(torch._refs._broadcast_shapes: a Size, ints accepted, its messages)."""

import pytest
import torch

import framework

SIZE_OPS = {
    "slice": lambda s: s[1:],
    "step": lambda s: s[::2],
    "neg_slice": lambda s: s[-1:],
    "index": lambda s: s[0],
    "add": lambda s: s + (5,),
    "radd": lambda s: (1,) + s,
    "add_size": lambda s: s + s,
    "mul": lambda s: s * 2,
    "rmul": lambda s: 2 * s,
    "numel": lambda s: s.numel(),
    "eq": lambda s: s == (2, 3, 4),
    "size_slice": lambda s: s[1:][1:],
}


@pytest.mark.parametrize("op", SIZE_OPS)
def test_size_ops_as_torch(op):
    out = [SIZE_OPS[op](L.zeros(2, 3, 4).shape) for L in (torch, framework)]
    assert repr(out[1]) == repr(out[0])
    assert type(out[1]).__name__ == type(out[0]).__name__


BROADCAST = [
    ((2, 1), (1, 3)),
    (2, (3, 1)),
    ((2,), [3, 1], (1, 1, 1)),
    ((), (2,)),
    (),
    (None, (2,)),
    ((2,), (3,)),
    ((-1,), (2,)),
    ((4, 1, 3), (5, 1)),
]


@pytest.mark.parametrize("shapes", BROADCAST)
def test_broadcast_shapes_as_torch(shapes):
    out = []
    for L in (torch, framework):
        try:
            out.append(repr(L.broadcast_shapes(*shapes)))
        except Exception as e:  # the same type and message
            out.append(f"{type(e).__name__}: {e}")
    assert out[1] == out[0]
