"""Helpers for the nodes torch records when a backward runs under create_graph: the native
backward kernels whose own derivative torch does not implement (torch::autograd::NotImplemented:
multi_margin_loss, multilabel_margin_loss, ctc_loss, the CPU flash attention)."""

from ..autograd.grad_mode import no_grad, state
from ..autograd.op import vmap_hook
from ..tensor import Tensor
from .elementwise import NotImplementedBackward


class _NotImplementedKernel(NotImplementedBackward):
    """NotImplementedBackward for a kernel with one or more outputs (the attention
    backward's three gradients come from one node, as torch's)."""

    node_name = "torch::autograd::NotImplemented"

    def backward(self, *grads):
        raise RuntimeError(f"derivative for aten::{self.aten} is not implemented")


def not_implemented(aten, inputs, compute):
    """compute() (the first-order gradient Tensor, or a tuple of them), recorded under
    create_graph as torch's NotImplemented node for `aten` with an edge to each of `inputs`
    that requires grad (torch's node has edges only to those); a second backward through it
    raises torch's "derivative for aten::<aten> is not implemented"."""
    if not state.enabled or vmap_hook[0]:  # (under vmap: the op's batched formula as it is)
        return compute()
    with no_grad():
        got = compute()
    ins = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    if not ins:
        return got
    arrays = tuple(g._data for g in got) if type(got) is tuple else got._data
    return _NotImplementedKernel.apply(*ins, fn=lambda xp, *_: arrays, aten=aten)
