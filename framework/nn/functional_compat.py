"""torch.nn.functional's legacy and pair-returning names: gumbel_softmax, the deprecated
upsample family (a warning, then interpolate) and the ``*_with_indices`` pooling forms (always
``(output, indices)``, whatever ``return_indices`` says, as torch's)."""

import warnings

from ..creation import empty_like, zeros_like
from ..ops.pooling import max_pool1d, max_pool2d
from ..ops.pooling3d import adaptive_max_pool1d, adaptive_max_pool2d, max_pool3d
from ..ops.pooling_fractional import fractional_max_pool2d, fractional_max_pool3d
from ..ops.pooling_more import adaptive_max_pool3d
from ..ops.resample import interpolate


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    r"""Samples from the Gumbel-Softmax distribution and optionally discretizes.

    The noise is ``-empty_like(logits).exponential_().log()``, as torch draws it, so the same
    seed gives the same sample. With ``hard=True`` the result is one-hot along `dim` but its
    gradient is the soft sample's (straight-through: ``y_hard - y_soft.detach() + y_soft``).

    Args:
        logits (Tensor): unnormalized log-probabilities.
        tau (float, optional): non-negative temperature (default: 1).
        hard (bool, optional): return one-hot samples (default: False).
        eps (float, optional): deprecated, no effect (a warning when not 1e-10).
        dim (int, optional): the dimension of the softmax (default: -1).

    Example:
        >>> _ = framework.manual_seed(0)
        >>> F.gumbel_softmax(framework.zeros(2, 3), hard=True).sum(-1)
        tensor([1., 1.])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()  # ~Gumbel(0, 1)
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated: warns, then :func:`interpolate` with the same arguments.

    Args:
        input (Tensor): the input.
        size (list of int): the output size :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`.
        scale_factor (float or tuple, optional): the multiplier for the spatial size.
        mode (str, optional): the interpolation mode. Default: ``'nearest'``.
        align_corners (bool): whether -1 and 1 are the corner pixels' centres.

    Example:
        >>> F.upsample(framework.ones(1, 1, 2), scale_factor=2).shape  # doctest: +SKIP
        torch.Size([1, 1, 4])
    """
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: warns, then ``interpolate(input, size, scale_factor, mode='nearest')``.

    Args:
        input (Tensor): the input.
        size (list of int): the output size :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`.
        scale_factor (float or tuple, optional): the multiplier for the spatial size.

    Example:
        >>> F.upsample_nearest(framework.ones(1, 1, 2, 2), scale_factor=2).shape  # doctest: +SKIP
        torch.Size([1, 1, 4, 4])
    """
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: warns, then ``interpolate(..., mode='bilinear', align_corners=True)``.

    Args:
        input (Tensor): the input.
        size (list of int): the output size :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`.
        scale_factor (float or tuple, optional): the multiplier for the spatial size.

    Example:
        >>> F.upsample_bilinear(framework.ones(1, 1, 2, 2), size=3).shape  # doctest: +SKIP
        torch.Size([1, 1, 3, 3])
    """
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-D max pooling that always returns ``(output, indices)`` (``return_indices`` is ignored).

    Args:
        input (Tensor): the input.
        kernel_size (int or list of int): the window size.
        stride (list of int, optional): the stride (empty: the kernel size).
        padding (int or list of int, optional): implicit -inf padding. Default: 0.
        dilation (int or list of int, optional): the window's spacing. Default: 1.
        ceil_mode (bool, optional): ceil instead of floor for the output size. Default: False.
        return_indices (bool, optional): ignored (the indices are always returned).

    Example:
        >>> F.max_pool1d_with_indices(framework.arange(4.0).reshape(1, 1, 4), 2)
        (tensor([[[1., 3.]]]), tensor([[[1, 3]]]))
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-D max pooling that always returns ``(output, indices)`` (``return_indices`` is ignored).

    Args:
        input (Tensor): the input.
        kernel_size (int or list of int): the window size.
        stride (list of int): the stride of the window or convolution.
        padding (list of int): the implicit padding.
        dilation (list of int): the spacing between kernel elements.
        ceil_mode (bool, optional): ceil instead of floor for the output size. Default: False.
        return_indices (bool, optional): ignored (the indices are always returned).

    Example:
        >>> y, i = F.max_pool2d_with_indices(framework.arange(16.0).reshape(1, 1, 4, 4), 2)
        >>> i
        tensor([[[[ 5,  7],
                  [13, 15]]]])
    """
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """3-D max pooling that always returns ``(output, indices)`` (``return_indices`` is ignored).

    Args:
        input (Tensor): the input.
        kernel_size (int or list of int): the window size.
        stride (list of int): the stride of the window or convolution.
        padding (list of int): the implicit padding.
        dilation (list of int): the spacing between kernel elements.
        ceil_mode (bool, optional): ceil instead of floor for the output size. Default: False.
        return_indices (bool, optional): ignored (the indices are always returned).

    Example:
        >>> y, i = F.max_pool3d_with_indices(framework.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
        >>> i
        tensor([[[[[7]]]]])
    """
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """Adaptive 1-D max pooling that always returns ``(output, indices)``.

    Args:
        input (Tensor): the input.
        output_size (int or tuple): the output size.
        return_indices (bool, optional): ignored (the indices are always returned).

    Example:
        >>> F.adaptive_max_pool1d_with_indices(framework.arange(4.0).reshape(1, 1, 4), 2)
        (tensor([[[1., 3.]]]), tensor([[[1, 3]]]))
    """
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Adaptive 2-D max pooling that always returns ``(output, indices)``.

    Args:
        input (Tensor): the input.
        output_size (int or tuple): the output size.
        return_indices (bool, optional): ignored (the indices are always returned).

    Example:
        >>> y, i = F.adaptive_max_pool2d_with_indices(framework.ones(1, 1, 4, 4), 2)
        >>> y.shape, i.shape
        (torch.Size([1, 1, 2, 2]), torch.Size([1, 1, 2, 2]))
    """
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Adaptive 3-D max pooling that always returns ``(output, indices)``.

    Args:
        input (Tensor): the input.
        output_size (int or tuple): the output size.
        return_indices (bool, optional): ignored (the indices are always returned).

    Example:
        >>> y, i = F.adaptive_max_pool3d_with_indices(framework.ones(1, 1, 2, 4, 4), 1)
        >>> y.shape
        torch.Size([1, 1, 1, 1, 1])
    """
    return adaptive_max_pool3d(input, output_size, True)


def fractional_max_pool2d_with_indices(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    """Fractional 2-D max pooling that always returns ``(output, indices)``.

    Args:
        input (Tensor): the input.
        kernel_size (int or list of int): the window size.
        output_size (int or tuple): the output size.
        output_ratio (tuple, optional): the output size as a ratio of the input's.
        return_indices (bool, optional): ignored (the indices are always returned).

    Example:
        >>> u = framework.full((1, 1, 2), 0.5)
        >>> y, i = F.fractional_max_pool2d_with_indices(
        ...     framework.ones(1, 1, 5, 5), 2, output_size=3, _random_samples=u)
        >>> y.shape
        torch.Size([1, 1, 3, 3])
    """
    return fractional_max_pool2d(
        input, kernel_size, output_size, output_ratio, True, _random_samples
    )


def fractional_max_pool3d_with_indices(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    """Fractional 3-D max pooling that always returns ``(output, indices)``.

    Args:
        input (Tensor): the input.
        kernel_size (int or list of int): the window size.
        output_size (int or tuple): the output size.
        output_ratio (tuple, optional): the output size as a ratio of the input's.
        return_indices (bool, optional): ignored (the indices are always returned).

    Example:
        >>> u = framework.full((1, 1, 3), 0.5)
        >>> y, i = F.fractional_max_pool3d_with_indices(
        ...     framework.ones(1, 1, 4, 4, 4), 2, output_size=2, _random_samples=u)
        >>> y.shape
        torch.Size([1, 1, 2, 2, 2])
    """
    return fractional_max_pool3d(
        input, kernel_size, output_size, output_ratio, True, _random_samples
    )
