"""cross_entropy's gradients under create_graph where the fused node stands for torch's
composition (label smoothing, class probabilities): the composition is rebuilt from the
inputs as torch's cross_entropy_loss_label_smoothing / cross_entropy_loss_prob_target
write it and differentiated, so the second-order graph is torch's (log_softmax's backward
over the nll_loss or product terms). On NumPy arrays the fused node's value and plain
gradients come from the composition too: each op of it is torch's kernel bit for bit
(log_softmax, nll_loss, the sums), so the loss and its gradients are torch's bits."""

from ..autograd.grad_mode import enable_grad, no_grad


def _composed_loss(x, t, w, reduction, ignore_index, ls, probs):
    """torch's composed cross-entropy of logits x (the class dim is 1, or 0 unbatched)."""
    from .activation import log_softmax
    from .extras2 import DivScalar, MulScalar
    from .loss import nll_nd

    dim = 1 if x.dim() > 1 else 0
    c = x.shape[dim]
    logp = log_softmax(x, dim)
    shape = [1] * x.dim()
    shape[dim] = c
    if probs:
        if ls:
            t = MulScalar.apply(t, other=1 - ls) + ls / c
        prod = logp * t if w is None else logp * t * w.view(*shape)
        if reduction == "mean":
            return DivScalar.apply(-prod.sum(), other=x.numel() // c if c else 0)
        return -prod.sum() if reduction == "sum" else -prod.sum(dim)
    nll = nll_nd(logp, t, w, reduction, ignore_index)
    smooth = -(logp * w.view(*shape)).sum(dim) if w is not None else -logp.sum(dim)
    ignored = t == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        with no_grad():
            kept = t[~ignored]
            denom = w[kept].sum() if w is not None else (~ignored).sum()
        ret = smooth.sum() / denom
    else:
        ret = smooth.sum() if reduction == "sum" else smooth
    return MulScalar.apply(nll, other=1 - ls) + MulScalar.apply(ret, other=ls / c)


def composed_graph(arrays, reduction, ignore_index, ls, probs):
    """(loss, leaves): torch's composition of the NumPy arrays (x, t, w) (w may be None)
    recorded on leaf Tensors that share their data, for ``replay_backward``."""
    from ..tensor import Tensor

    leaves = tuple(
        None if a is None else Tensor._make(a, requires_grad=a.dtype.kind == "f") for a in arrays
    )
    with enable_grad():
        return _composed_loss(*leaves, reduction, ignore_index, ls, probs), leaves


def replay_backward(composed, grad, needs):
    """(grad_x, grad_target, grad_weight) from the graph ``composed_graph`` recorded, for
    upstream `grad` (the graph is kept: a retained or forward-AD backward runs it again)."""
    from ..autograd import grad as autograd_grad

    loss, leaves = composed
    wrt = [a for a, need in zip(leaves, needs) if need]
    if tuple(loss.shape) != tuple(grad.shape):
        with enable_grad():  # (a view recorded: the backward walk runs with grad mode off)
            loss = loss.reshape(*grad.shape)
    got = iter(autograd_grad(loss, wrt, grad, retain_graph=True, allow_unused=True))
    return tuple(next(got) if need else None for need in needs)


def composed_backward(fwd, grad):
    """(grad_x, grad_target, grad_weight) of CrossEntropy node `fwd` for upstream `grad`,
    through torch's composition (a graph for higher derivatives)."""
    from ..autograd import grad as autograd_grad

    x, t, w = fwd.inputs
    needs = fwd.needs_input_grad
    wrt = [a for a, need in zip((x, t, w), needs) if need]
    loss = _composed_loss(x, t, w, fwd.reduction, fwd.ignore_index, fwd.ls, fwd.probs).reshape(
        *grad.shape
    )
    got = iter(autograd_grad(loss, wrt, grad, create_graph=True, allow_unused=True))
    return tuple(next(got) if need else None for need in needs)
