"""BatchNorm and LayerNorm modules (the primitives live in ops/normalization.py)."""

import numbers

from ..creation import empty, ones, tensor, zeros
from ..ops.normalization import (
    NativeBatchNorm,  # noqa: F401
    NativeLayerNorm,  # noqa: F401
    batch_norm,
    check_normalized_shape,  # noqa: F401
    layer_norm,
)
from . import init
from .module import Module
from .parameter import Parameter


def _affine_parameters(module, shape, affine, bias, device, dtype):
    """Registers a norm layer's learnable ``weight`` and ``bias`` of ``shape`` (filled by
    :func:`_reset_affine`), each None where it is not learned."""
    if affine:
        module.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(empty(shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    """torch's initialization of a norm layer's affine parameters: weight ones, bias zeros."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class _BatchNorm(Module):
    _version = 2

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine_parameters(self, num_features, affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        return batch_norm(
            input,
            self.running_mean if use_buffers else None,
            self.running_var if use_buffers else None,
            self.weight,
            self.bias,
            bn_training,
            factor,
            self.eps,
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (
            (version is None or version < 2) and self.track_running_stats and key not in state_dict
        ):  # checkpoints from before the counter existed
            state_dict[key] = (
                self.num_batches_tracked if self.num_batches_tracked is not None else tensor(0)
            )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    r"""Applies Batch Normalization over a 2D or 3D input (*Batch Normalization: Accelerating Deep
    Network Training by Reducing Internal Covariate Shift*).

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    The mean and standard deviation are calculated per channel over the mini-batch (biased
    variance); in training the running estimates are updated with ``momentum`` (unbiased variance)
    and used in evaluation mode.

    Args:
        num_features (int): :math:`C`, the number of channels.
        eps (float, optional): a value added to the denominator for numerical stability (default:
            1e-5).
        momentum (float or None, optional): the value used for the running_mean and running_var
            computation; None for a cumulative moving average (default: 0.1).
        affine (bool, optional): this module has learnable affine parameters :math:`\gamma`,
            :math:`\beta` (default: True).
        track_running_stats (bool, optional): track the running mean and variance; when False, batch
            statistics are used in evaluation mode too (default: True).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (default: True).

    Shape:
        - Input: :math:`(N, C)` or :math:`(N, C, L)`.
        - Output: the same shape as the input.

    Example:
        >>> m = nn.BatchNorm1d(2)
        >>> m(framework.tensor([[1.0, 2.0], [3.0, 6.0]]))
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]], grad_fn=<NativeBatchNormBackward0>)
        >>> m.running_mean
        tensor([0.2000, 0.4000])
    """

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    r"""Applies Batch Normalization over a 4D input (*Batch Normalization: Accelerating Deep Network
    Training by Reducing Internal Covariate Shift*).

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    The mean and standard deviation are calculated per channel over the mini-batch (biased
    variance); in training the running estimates are updated with ``momentum`` (unbiased variance)
    and used in evaluation mode.

    Args:
        num_features (int): :math:`C`, the number of channels.
        eps (float, optional): a value added to the denominator for numerical stability (default:
            1e-5).
        momentum (float or None, optional): the value used for the running_mean and running_var
            computation; None for a cumulative moving average (default: 0.1).
        affine (bool, optional): this module has learnable affine parameters :math:`\gamma`,
            :math:`\beta` (default: True).
        track_running_stats (bool, optional): track the running mean and variance; when False, batch
            statistics are used in evaluation mode too (default: True).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (default: True).

    Shape:
        - Input: :math:`(N, C, H, W)`.
        - Output: the same shape as the input.

    Example:
        >>> m = nn.BatchNorm2d(2)
        >>> m(framework.randn(4, 2, 3, 3)).shape
        torch.Size([4, 2, 3, 3])
        >>> nn.BatchNorm2d(2, affine=False).weight is None
        True
    """

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class LayerNorm(Module):
    r"""Applies Layer Normalization over a mini-batch of inputs (*Layer Normalization*): the mean
    and standard deviation are calculated over the last ``len(normalized_shape)`` dimensions of each
    sample (biased variance).

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    Args:
        normalized_shape (int or list): the trailing shape to normalize over; a single int is the
            size of the last dimension.
        eps (float, optional): a value added to the denominator for numerical stability (default:
            1e-5).
        elementwise_affine (bool, optional): learnable per-element affine parameters :math:`\gamma`
            (ones) and :math:`\beta` (zeros) (default: True).
        bias (bool, optional): with ``elementwise_affine``, learn :math:`\beta` too (default: True).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - Input: :math:`(N, *)`.
        - Output: the same shape as the input.

    Example:
        >>> m = nn.LayerNorm(3)
        >>> m(framework.tensor([[1.0, 2.0, 3.0], [2.0, 2.0, 8.0]]))
        tensor([[-1.2247,  0.0000,  1.2247],
                [-0.7071, -0.7071,  1.4142]], grad_fn=<NativeLayerNormBackward0>)
        >>> nn.LayerNorm([2, 3], elementwise_affine=False)(framework.randn(4, 2, 3)).shape
        torch.Size([4, 2, 3])
    """

    def __init__(
        self,
        normalized_shape,
        eps=1e-5,
        elementwise_affine=True,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as the constructor does (torch's initialization)."""
        _reset_affine(self)

    def forward(self, input):
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )
