"""torch.cond and torch.while_loop (torch.export's control-flow operators) in eager mode:
the chosen branch or the loop runs as Python, as torch's eager path does; a tensor predicate
puts torch's CondAutogradOp node over the branch's outputs."""

from .tensor import Tensor

_COND = []


def _cond_function():
    """An identity autograd Function named as torch's (node CondAutogradOpBackward)."""
    from .autograd.function import Function

    class CondAutogradOp(Function):
        @staticmethod
        def forward(ctx, *outputs):
            return tuple(o.clone() for o in outputs)

        @staticmethod
        def backward(ctx, *grads):
            return grads

    return CondAutogradOp


def cond(pred, true_fn, false_fn, operands=()):
    """Runs ``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``.

    Args:
        pred (bool or Tensor): a bool or a one-element tensor.
        true_fn (callable): the branch taken when ``pred`` is true.
        false_fn (callable): the branch taken otherwise.
        operands (tuple or list of Tensor, optional): the branches' arguments.

    Example:
        >>> x = framework.tensor([1.0, -2.0])
        >>> framework.cond(x.sum() > 0, lambda x: x * 2, lambda x: -x, (x,))
        tensor([-1.,  2.])
    """
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(
                f"Expected pred to be bool or single-element tensor, but got {pred!r}."
            )
        take = bool(pred.item())
    else:
        take = bool(pred)
    out = (true_fn if take else false_fn)(*operands)
    if not isinstance(pred, Tensor):
        return out
    single = isinstance(out, Tensor)
    outs = (out,) if single else tuple(out)
    if not any(isinstance(o, Tensor) and o.requires_grad for o in outs):
        return out
    if not _COND:
        _COND.append(_cond_function())
    res = _COND[0].apply(*outs)
    res = res if isinstance(res, tuple) else (res,)
    return res[0] if single else type(out)(res) if isinstance(out, list) else res


def while_loop(cond_fn, body_fn, carried_inputs):
    """Runs ``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` holds; returns the
    final carried values as a tuple.

    Args:
        cond_fn (callable): returns a bool or a one-element bool tensor.
        body_fn (callable): returns the next carried values (as many as it takes).
        carried_inputs (tuple or list of Tensor): the initial values.

    Example:
        >>> framework.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2),
        ...                      (framework.tensor(0), framework.ones(2)))
        (tensor(3), tensor([8., 8.]))
    """
    carried = tuple(carried_inputs)
    while bool(cond_fn(*carried)):
        out = body_fn(*carried)
        carried = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return carried


__all__ = ["cond", "while_loop"]
