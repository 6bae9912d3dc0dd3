"""The derivative of a backward op whose first-order formula is written in Tensor ops
(cdist's): the op's forward runs the formula without a graph (one node, named
as torch's XBackwardBackward0, whose outputs require grad whenever an input does); its
backward records the formula again on the same inputs and differentiates it, so gradients of
every order still work."""

from ..autograd.grad_mode import enable_grad, is_grad_enabled


def regrad(formula, inputs, need, ups):
    """Gradients (one per input, None where not needed or not reached) of
    sum <formula(*inputs)[i], ups[i]> over the outputs with an upstream gradient."""
    from ..autograd import grad

    create = is_grad_enabled()  # create_graph of the running backward
    with enable_grad():
        # each needed input through an alias node: the gradient stops there, never following
        # an input's own graph into another input (cdist's output into x1), which the outer
        # backward does
        inputs = [t.view_as(t) if n else t for t, n in zip(inputs, need)]
        wrt = [t for t, n in zip(inputs, need) if n]
        outs = formula(*inputs)
        pairs = [
            (o, u) for o, u in zip(outs, ups) if u is not None and o is not None and o.requires_grad
        ]
        if not pairs or not wrt:
            return (None,) * len(inputs)
        got = iter(
            grad(
                [o for o, _ in pairs],
                wrt,
                [u for _, u in pairs],
                retain_graph=True,  # the outer backward goes on through the inputs' graphs
                create_graph=create,
                allow_unused=True,
            )
        )
    return tuple(next(got) if n else None for n in need)
