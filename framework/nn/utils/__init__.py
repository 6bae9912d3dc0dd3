"""torch.nn.utils: gradient clipping and flattening parameters to one vector."""

from ...autograd.grad_mode import no_grad
from ...autograd.zero_grad import check_mutable
from ...backend import move
from ...ops.join import cat
from ...tensor import Tensor
from ..module import _typename
from . import parametrize, parametrizations
from .weight_norm import remove_weight_norm, weight_norm
from .spectral_norm import remove_spectral_norm, spectral_norm


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm(xp, a, norm_type):
    if norm_type == float("inf"):
        return xp.abs(a).max() if a.size else xp.zeros((), a.dtype)
    if norm_type == 2.0:
        return xp.sqrt(xp.vdot(a.ravel(), a.ravel()).real if a.dtype.kind == "c" else (a * a).sum())
    return (xp.abs(a) ** norm_type).sum() ** (1.0 / norm_type)


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    r"""Clips the gradient norm of an iterable of parameters: the norm is computed over all
    gradients together, as if they were concatenated into a single vector, and the gradients are
    scaled in place by :math:`\min(1, \text{max\_norm} / (\text{total\_norm} + 10^{-6}))`.

    Args:
        parameters (Iterable[Tensor] or Tensor): an iterable of tensors, or a single tensor, whose
            gradients are changed in place.
        max_norm (float): the max norm of the gradients.
        norm_type (float, optional): the type of the p-norm; ``inf`` for the infinity norm (default:
            2.0).
        error_if_nonfinite (bool, optional): raise an error if the total norm is ``nan``, ``inf`` or
            ``-inf`` (default: False).
        foreach (bool, optional): accepted for compatibility (default: None).

    Returns:
        Tensor: the total norm of the gradients (viewed as a single vector), before clipping.

    Example:
        >>> p = framework.zeros(2, requires_grad=True)
        >>> p.grad = framework.tensor([3.0, 4.0])
        >>> framework.nn.utils.clip_grad_norm_([p], max_norm=1.0)
        tensor(5.)
        >>> p.grad
        tensor([0.6000, 0.8000])
    """
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        from ...creation import tensor

        return tensor(0.0)
    dev, xp = grads[0].device, grads[0].xp
    norms = xp.stack([move(xp.asarray(_norm(g.xp, g._data, norm_type)), dev) for g in grads])
    total = _norm(xp, norms, norm_type)  # the norm of the per-tensor norms is the joint norm
    if error_if_nonfinite and not bool(xp.isfinite(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coef = xp.asarray(xp.minimum(max_norm / (total + 1e-6), 1.0), dtype=total.dtype)
    for g in grads:
        check_mutable(g)  # torch's in-place mul_ on a ZeroTensor `.grad` refuses
        g._data *= move(coef, g.device).astype(g._data.dtype)
        g._vc[0] += 1
    return Tensor._make(xp.asarray(total), dev)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    r"""Clips the gradients of an iterable of parameters at the specified value, in place: each
    element is clamped to :math:`[-\text{clip\_value}, \text{clip\_value}]`.

    Args:
        parameters (Iterable[Tensor] or Tensor): an iterable of tensors, or a single tensor, whose
            gradients are changed in place.
        clip_value (float): the maximum allowed absolute value of the gradients.
        foreach (bool, optional): accepted for compatibility (default: None).

    Example:
        >>> p = framework.zeros(3, requires_grad=True)
        >>> p.grad = framework.tensor([-2.0, 0.5, 3.0])
        >>> framework.nn.utils.clip_grad_value_([p], 1.0); p.grad
        tensor([-1.0000,  0.5000,  1.0000])
    """
    clip_value = float(clip_value)
    for g in _grads(parameters):
        check_mutable(g)  # torch's in-place clamp_ on a ZeroTensor `.grad` refuses
        g.xp.clip(g._data, -clip_value, clip_value, out=g._data)
        g._vc[0] += 1


def parameters_to_vector(parameters):
    """Flattens an iterable of parameters into a single vector (differentiable, as torch's).

    Args:
        parameters (Iterable[Tensor]): an iterable of tensors that are the parameters of a model.

    Returns:
        Tensor: the parameters, flattened and concatenated.

    Example:
        >>> m = nn.Linear(2, 1)
        >>> framework.nn.utils.parameters_to_vector(m.parameters()).shape
        torch.Size([3])
    """
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies slices of a vector into an iterable of parameters, in order (the inverse of
    :func:`parameters_to_vector`).

    Args:
        vec (Tensor): a single vector with as many elements as the parameters.
        parameters (Iterable[Tensor]): an iterable of tensors that are the parameters of a model.

    Example:
        >>> m = nn.Linear(2, 1)
        >>> framework.nn.utils.vector_to_parameters(framework.arange(3.0), m.parameters())
        >>> m.weight, m.bias
        (Parameter containing:
        tensor([[0., 1.]], requires_grad=True), Parameter containing:
        tensor([2.], requires_grad=True))
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer : pointer + n].reshape(p.shape).data
        pointer += n


from . import rnn  # noqa: E402

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "vector_to_parameters",
    "weight_norm",
    "remove_weight_norm",
    "spectral_norm",
    "remove_spectral_norm",
    "parametrize",
    "parametrizations",
    "rnn",
]
from .clip_more import (  # noqa: E402
    clip_grad_norm,
    clip_grads_with_norm_,
    convert_conv2d_weight_memory_format,
    get_total_norm,
    skip_init,
)
from .fusion import (  # noqa: E402
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from . import fusion, stateless  # noqa: E402
