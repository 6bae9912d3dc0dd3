"""torch.nn.utils.stateless: functional_call (the older home of torch.func.functional_call)."""

import warnings


def functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """Calls `module` with its parameters and buffers replaced by `parameters_and_buffers`
    (the older form of :func:`framework.func.functional_call`).

    Args:
        module (nn.Module): the module to call.
        parameters_and_buffers (dict): name -> tensor, replacing the module's own.
        args (Any or tuple, optional): the positional arguments of the call.
        kwargs (dict, optional): the keyword arguments of the call.
        tie_weights (bool, optional): tied weights stay tied. Default: True.
        strict (bool, optional): every parameter and buffer must be given. Default: False.

    Example:
        >>> lin = nn.Linear(1, 1)
        >>> p = {"weight": framework.ones(1, 1), "bias": framework.zeros(1)}
        >>> nn.utils.stateless.functional_call(lin, p, (framework.tensor([[2.0]]),))
        tensor([[2.]])
    """
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    from ...func.functional_call import functional_call  # (lazily: framework.func's batching
    # rules name the op classes defined when it is first imported, after every op module)

    return functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
