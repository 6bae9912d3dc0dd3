"""torch.nn.utils's split gradient clipping (get_total_norm, clip_grads_with_norm_), the
deprecated clip_grad_norm, skip_init and convert_conv2d_weight_memory_format."""

import inspect
import warnings

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (the tensors themselves, not their ``.grad``): their
    joint norm, as if concatenated.

    Args:
        tensors (Iterable[Tensor] or Tensor): the tensors.
        norm_type (float, optional): the p of the p-norm; ``inf`` for the max norm. Default: 2.0.
        error_if_nonfinite (bool, optional): raise if the total is nan or inf. Default: False.
        foreach (bool, optional): accepted for torch's signature. Default: None.

    Example:
        >>> nn.utils.get_total_norm([framework.tensor([3.0]), framework.tensor([4.0])])
        tensor(5.)
    """
    from ... import linalg, stack, tensor

    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    first = tensors[0].device
    norms = [linalg.vector_norm(t, norm_type) for t in tensors]
    total = linalg.vector_norm(stack([n.to(first) for n in norms]), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    r"""Scales the parameters' gradients in place by
    :math:`\min(1, \text{max\_norm} / (\text{total\_norm} + 10^{-6}))`.

    Args:
        parameters (Iterable[Tensor] or Tensor): the tensors whose ``.grad`` is scaled.
        max_norm (float): the max norm.
        total_norm (Tensor): the total norm (e.g. from :func:`get_total_norm`).
        foreach (bool, optional): accepted for torch's signature. Default: None.

    Example:
        >>> p = framework.zeros(2, requires_grad=True)
        >>> p.grad = framework.tensor([3.0, 4.0])
        >>> nn.utils.clip_grads_with_norm_([p], 1.0, framework.tensor(5.0))
        >>> p.grad
        tensor([0.6000, 0.8000])
    """
    parameters = [parameters] if isinstance(parameters, Tensor) else parameters
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.to(g.device))


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_` (a FutureWarning, as torch's).

    Args:
        parameters (Iterable[Tensor] or Tensor): the tensors whose ``.grad`` is clipped.
        max_norm (float): the max norm.
        norm_type (float, optional): the p of the p-norm. Default: 2.0.
        error_if_nonfinite (bool, optional): raise if the total is nan or inf. Default: False.
        foreach (bool, optional): accepted for torch's signature. Default: None.

    Example:
        >>> p = framework.zeros(2, requires_grad=True)
        >>> p.grad = framework.tensor([3.0, 4.0])
        >>> nn.utils.clip_grad_norm([p], 1.0)  # doctest: +SKIP
        tensor(5.)
    """
    from . import clip_grad_norm_

    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def skip_init(module_cls, *args, **kwargs):
    """Builds ``module_cls(*args, **kwargs)`` without consuming the random stream: its
    parameters are uninitialized as far as the caller can tell, and the global generator is
    where it was (torch builds on the meta device, drawing nothing).

    Args:
        module_cls (type): a Module class whose constructor takes ``device``.
        *args: its positional arguments.
        **kwargs: its keyword arguments.

    Example:
        >>> lin = nn.utils.skip_init(nn.Linear, 3, 2)
        >>> lin.weight.shape
        torch.Size([2, 3])
    """
    from ... import random
    from ..module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    state = random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        random.set_rng_state(state)
    return module.to(device)


def convert_conv2d_weight_memory_format(module, memory_format):
    """Converts the weights of `module`'s Conv2d and ConvTranspose2d layers (recursively) to
    `memory_format`, in place; returns `module`.

    Args:
        module (nn.Module): the module.
        memory_format (framework.memory_format): e.g. ``framework.channels_last``.

    Example:
        >>> m = nn.utils.convert_conv2d_weight_memory_format(nn.Conv2d(2, 3, 2),
        ...                                                  framework.channels_last)
        >>> m.weight.stride()
        (8, 1, 4, 2)
    """
    from ..conv import Conv2d, ConvTranspose2d

    if isinstance(module, (Conv2d, ConvTranspose2d)):
        data = module.weight.detach().clone().contiguous(memory_format=memory_format)
        module.weight.data = data
    for child in module.children():
        convert_conv2d_weight_memory_format(child, memory_format)
    return module
