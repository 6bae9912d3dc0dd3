"""group/instance/local-response/RMS normalisation (functional and modules), BatchNorm3d."""

import math
import numbers

from .. import dtypes
from .._errors import refuse
from ..creation import ones
from ..ops.normalization import group_norm
from . import init
from .module import Module
from .normalization import (
    _affine_parameters,
    _BatchNorm,
    _reset_affine,
    batch_norm,
    check_normalized_shape,
)
from .parameter import Parameter


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    r"""Applies Instance Normalization: each channel of each sample is normalized over its spatial
    dimensions (batch normalization per instance).

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \gamma + \beta

    See :class:`~framework.nn.InstanceNorm2d` for the module form.

    Args:
        input (Tensor): :math:`(N, C, *)`.
        running_mean (Tensor, optional): running mean per channel, updated when ``use_input_stats``
            (default: None).
        running_var (Tensor, optional): running variance per channel, updated when
            ``use_input_stats`` (default: None).
        weight (Tensor, optional): :math:`\gamma`, :math:`(C)` (default: None).
        bias (Tensor, optional): :math:`\beta`, :math:`(C)` (default: None).
        use_input_stats (bool, optional): normalize with each instance's statistics; False uses the
            running ones (default: True).
        momentum (float, optional): the running statistics' update factor (default: 0.1).
        eps (float, optional): added to the variance for numerical stability (default: 1e-5).

    Returns:
        Tensor: the normalized input, of the shape of ``input``.

    Example:
        >>> F.instance_norm(framework.tensor([[[1.0, 3.0], [0.0, 4.0]]]))
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher input to instance_norm (got {input.dim()}D)")
    n, c = input.shape[0], input.shape[1]
    shape = tuple(input.shape)
    if use_input_stats and math.prod(shape[2:]) == 1:  # torch's _verify_spatial_size
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {input.shape!r}"
        )
    x = input.reshape(1, n * c, *shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats and running_mean is not None:
        running_mean.copy_(rm.reshape(n, c).mean(0))
        running_var.copy_(rv.reshape(n, c).mean(0))
    return out.reshape(shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    r"""Applies local response normalization (AlexNet): each element is divided by a power of the
    sum of squares over ``size`` neighbouring channels.

    .. math::
        b_c = a_c \left(k + \frac{\alpha}{n} \sum_{c'=\max(0, c-n/2)}^{\min(C-1, c+n/2)}
        a_{c'}^2\right)^{-\beta}

    See :class:`~framework.nn.LocalResponseNorm` for the module form.

    Args:
        input (Tensor): :math:`(N, C, *)`, at least 3-D.
        size (int): the number of neighbouring channels :math:`n`.
        alpha (float, optional): the multiplicative factor :math:`\alpha` (default: 1e-4).
        beta (float, optional): the exponent :math:`\beta` (default: 0.75).
        k (float, optional): the additive factor :math:`k` (default: 1.0).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.local_response_norm(framework.tensor([[[1.0], [2.0], [3.0]]]), 2, alpha=1.0, beta=1.0)
        tensor([[[0.6667],
                 [0.5714],
                 [0.4000]]])
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    refuse(input._data, "b", "avg_pool2d" if dim == 3 else "avg_pool3d_out_frame")
    if input.numel() == 0:
        return input
    from .functional import pad

    sq = input * input
    half = input.dtype.name == "bfloat16" or (
        input.dtype.name == "float16" and input.device.type == "cpu"
    )
    if dim > 3 and half:  # torch pools 4-D+ input with avg_pool3d:
        from ..amp.autocast_mode import cast  # float32 under autocast, else refused

        (sq,) = cast("AvgPool3D", input.device.type, sq)
        if sq.dtype.name in ("bfloat16", "float16"):
            from .._errors import not_implemented

            raise not_implemented("avg_pool3d_out_frame", input._data.dtype)
    from ..ops.pooling import avg_pool2d
    from ..ops.pooling3d import avg_pool3d

    if dim == 3:  # torch's formula, node for node: pad, then an average pool over channels
        div = pad(sq.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = tuple(input.shape)
        div = sq.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    return input / div.mul(alpha).add(k).pow(beta)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    r"""Applies Root Mean Square Layer Normalization over the trailing ``normalized_shape``
    dimensions.

    .. math::
        y = \frac{x}{\sqrt{\mathrm{mean}(x^2) + \epsilon}} \gamma

    See :class:`~framework.nn.RMSNorm` for the module form.

    Args:
        input (Tensor): :math:`(*, \text{normalized\_shape})`.
        normalized_shape (int or tuple): the trailing shape to normalize over.
        weight (Tensor, optional): :math:`\gamma`, of shape ``normalized_shape`` (default: None).
        eps (float, optional): added to the mean square; None uses the dtype's machine epsilon, as
            torch (default: None).

    Returns:
        Tensor: the normalized input, of the shape of ``input``.

    Example:
        >>> F.rms_norm(framework.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    normalized_shape = check_normalized_shape(input, normalized_shape)
    k = len(normalized_shape)
    refuse(input._data, "biu", "rms_norm")
    origin = input.dtype
    half = origin.name in ("float16", "bfloat16")  # torch computes these in float32 (opmath)
    if eps is None:
        from .._finfo import finfo

        eps = finfo(dtypes.float32 if half else origin).eps
    x = input.float() if half else input
    dims = tuple(range(input.dim() - k, input.dim()))
    from .distance import _add_scalar

    out = x * _add_scalar(x.pow(2).mean(dims, keepdim=True), eps).rsqrt()  # torch's nodes
    out = out * weight if weight is not None else out
    return out.to(origin) if half else out


class GroupNorm(Module):
    r"""Applies Group Normalization over a mini-batch of inputs (*Group Normalization*): the
    channels are separated into ``num_groups`` groups, each normalized separately; the affine
    parameters are per channel.

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    Args:
        num_groups (int): the number of groups to separate the channels into.
        num_channels (int): the number of channels :math:`C`, divisible by ``num_groups``.
        eps (float, optional): a value added to the denominator for numerical stability (default:
            1e-5).
        affine (bool, optional): learnable per-channel affine parameters, initialized to ones and
            zeros (default: True).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (default: True).

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: the same shape as the input.

    Example:
        >>> m = nn.GroupNorm(2, 4)
        >>> m(framework.arange(8.0).reshape(1, 4, 2))
        tensor([[[-1.3416, -0.4472],
                 [ 0.4472,  1.3416],
                 [-1.3416, -0.4472],
                 [ 0.4472,  1.3416]]], grad_fn=<NativeGroupNormBackward0>)
    """

    def __init__(
        self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True
    ):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = (
            num_groups,
            num_channels,
            eps,
            affine,
        )
        _affine_parameters(self, num_channels, affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as the constructor does (torch's initialization)."""
        _reset_affine(self)

    def forward(self, input):
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class _InstanceNorm(_BatchNorm):
    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def forward(self, input):
        self._check_input_dim(input)
        unbatched = input.dim() == self._no_batch_dim
        if unbatched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.num_features and self.affine:
            raise ValueError(
                f"expected input's size at dim=1 to match num_features "
                f"({self.num_features}), but got: {input.shape[1]}."
            )
        out = instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )
        return out.squeeze(0) if unbatched else out

    def _check_input_dim(self, input):
        if input.dim() not in (self._no_batch_dim, self._no_batch_dim + 1):
            raise ValueError(
                f"expected {self._no_batch_dim}D or {self._no_batch_dim + 1}D "
                f"input (got {input.dim()}D input)"
            )


class InstanceNorm1d(_InstanceNorm):
    r"""Applies Instance Normalization over a 2D (unbatched) or 3D input: each channel of each
    sample is normalized over its spatial dimensions (*Instance Normalization: The Missing
    Ingredient for Fast Stylization*).

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    Args:
        num_features (int): :math:`C`, the number of channels.
        eps (float, optional): a value added to the denominator for numerical stability (default:
            1e-5).
        momentum (float or None, optional): the value used for the running statistics (default:
            0.1).
        affine (bool, optional): learnable per-channel affine parameters, initialized to ones and
            zeros (default: False).
        track_running_stats (bool, optional): track the running mean and variance, used in
            evaluation mode (default: False).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (default: True).

    Shape:
        - Input: :math:`(N, C, L)` or :math:`(C, L)`.
        - Output: the same shape as the input.

    Example:
        >>> nn.InstanceNorm1d(2)(framework.tensor([[[1.0, 3.0], [0.0, 4.0]]]))
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    r"""Applies Instance Normalization over a 3D (unbatched) or 4D input: each channel of each
    sample is normalized over its spatial dimensions (*Instance Normalization: The Missing
    Ingredient for Fast Stylization*).

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    Args:
        num_features (int): :math:`C`, the number of channels.
        eps (float, optional): a value added to the denominator for numerical stability (default:
            1e-5).
        momentum (float or None, optional): the value used for the running statistics (default:
            0.1).
        affine (bool, optional): learnable per-channel affine parameters, initialized to ones and
            zeros (default: False).
        track_running_stats (bool, optional): track the running mean and variance, used in
            evaluation mode (default: False).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (default: True).

    Shape:
        - Input: :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        - Output: the same shape as the input.

    Example:
        >>> m = nn.InstanceNorm2d(3, affine=True)
        >>> m(framework.randn(2, 3, 4, 4)).shape, m.weight.shape
        (torch.Size([2, 3, 4, 4]), torch.Size([3]))
    """

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    r"""Applies Instance Normalization over a 4D (unbatched) or 5D input: each channel of each
    sample is normalized over its spatial dimensions (*Instance Normalization: The Missing
    Ingredient for Fast Stylization*).

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    Args:
        num_features (int): :math:`C`, the number of channels.
        eps (float, optional): a value added to the denominator for numerical stability (default:
            1e-5).
        momentum (float or None, optional): the value used for the running statistics (default:
            0.1).
        affine (bool, optional): learnable per-channel affine parameters, initialized to ones and
            zeros (default: False).
        track_running_stats (bool, optional): track the running mean and variance, used in
            evaluation mode (default: False).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).
        bias (bool, optional): with ``affine``, learn :math:`\beta` too (default: True).

    Shape:
        - Input: :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.
        - Output: the same shape as the input.

    Example:
        >>> nn.InstanceNorm3d(2)(framework.randn(1, 2, 2, 2, 2)).shape
        torch.Size([1, 2, 2, 2, 2])
    """

    _no_batch_dim = 4


class BatchNorm3d(_BatchNorm):
    r"""Applies Batch Normalization over a 5D input (*Batch Normalization: Accelerating Deep Network
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
        - Input: :math:`(N, C, D, H, W)`.
        - Output: the same shape as the input.

    Example:
        >>> m = nn.BatchNorm3d(2)
        >>> m(framework.randn(4, 2, 2, 3, 3)).shape
        torch.Size([4, 2, 2, 3, 3])
    """

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class LocalResponseNorm(Module):
    r"""Applies local response normalization over an input signal composed of several input planes,
    where channels occupy the second dimension (AlexNet).

    .. math::
        b_c = a_c \left(k + \frac{\alpha}{n} \sum_{c'=\max(0, c-n/2)}^{\min(N-1,c+n/2)}
        a_{c'}^2\right)^{-\beta}

    See :func:`~framework.nn.functional.local_response_norm` for the functional form.

    Args:
        size (int): the amount of neighbouring channels :math:`n` used for normalization.
        alpha (float, optional): multiplicative factor :math:`\alpha` (default: 0.0001).
        beta (float, optional): exponent :math:`\beta` (default: 0.75).
        k (float, optional): additive factor :math:`k` (default: 1).

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: the same shape as the input.

    Example:
        >>> lrn = nn.LocalResponseNorm(2)
        >>> lrn(framework.randn(32, 5, 24, 24)).shape
        torch.Size([32, 5, 24, 24])
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class RMSNorm(Module):
    r"""Applies Root Mean Square Layer Normalization over a mini-batch of inputs (*Root Mean Square
    Layer Normalization*).

    .. math::
        y_i = \frac{x_i}{\mathrm{RMS}(x)} * \gamma_i, \quad \mathrm{RMS}(x) = \sqrt{\epsilon +
        \frac{1}{n} \sum_{i=1}^{n} x_i^2}

    Args:
        normalized_shape (int or list): the trailing shape to normalize over.
        eps (float, optional): added to the mean square; None uses ``finfo(input.dtype).eps``
            (default: None).
        elementwise_affine (bool, optional): a learnable per-element scale :math:`\gamma`,
            initialized to ones (default: True).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - Input: :math:`(N, *)`.
        - Output: the same shape as the input.

    Example:
        >>> m = nn.RMSNorm(2)
        >>> m(framework.tensor([[3.0, 4.0]]))
        tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    def __init__(
        self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None
    ):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self):
        """Re-initializes the parameters as the constructor does (torch's initialization)."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )
