"""What the pooling backward ops share as graph nodes (torch's MaxPool2DWithIndicesBackward-
Backward0, AvgPool2DBackwardBackward0, AdaptiveAvgPool2DBackwardBackward0, ...): each takes
the forward's input `self` as a second input, which it does not read, so that a gradient taken
with create_graph=True requires grad whenever `self` does (as torch's, whose derivative in
`self` is zeros_like(self))."""

from ..autograd.op import vmap_hook


def self_arg(fn):
    """The forward node's input, as the backward op's second argument: () under vmap, where
    the batching rules take the gradient alone (no node is seen there)."""
    return () if vmap_hook[0] else (fn.inputs[0],)


def self_zeros(need, gg):
    """The derivatives in the inputs after grad_output: torch's zeros_like(self) where one is
    needed (which element a window picks, and its divisor, are piecewise constant in self;
    gg has self's shape), else None."""
    return tuple(gg.new_zeros(tuple(gg.shape)) if n else None for n in need[1:])


def jvp_grad_only(fn, t_grad, *_):
    """Forward AD of an average pooling's backward op: linear in grad_output, and no tangent
    from `self` (torch's: a tangent of `self` alone leaves the result without one)."""
    if t_grad is None:
        return None
    return fn._op.apply(t_grad, **fn._fw_params)


def max_pool_double_backward(grad, index, out_shape, nd):
    """torch's max_pool_double_backward: `grad` (input-shaped) read at each window's maximum,
    as its view -> gather -> view (so the nodes are torch's); `index` holds the flat positions
    in each plane of the last `nd` dims, `out_shape` is the pooled shape. An empty result has
    no graph, as torch's empty_like."""
    from ..tensor import Tensor

    out_shape = tuple(out_shape)
    if not index.size:
        return Tensor._make(grad.xp.empty(out_shape, grad._data.dtype), grad.device)
    lead = out_shape[: len(out_shape) - nd]
    idx = Tensor._make(index.reshape(lead + (-1,)), grad.device)
    return grad.contiguous().view(lead + (-1,)).gather(-1, idx).view(out_shape)
