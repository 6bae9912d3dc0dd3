"""Module forms of the resampling, folding and pooling functionals; channel dropouts,
alpha dropout; bilinear."""

import math

from .._errors import refuse
from ..creation import empty
from ..dtypes import cpp_type_name
from ..ops import fold as _fold
from ..ops.products import _BILINEAR, Trilinear
from ..ops import pooling3d as _p3
from ..ops import resample as _rs
from . import init
from .module import Module
from .parameter import Parameter
from .pooling import _AvgPoolNd, _MaxPoolNd


class Upsample(Module):
    r"""Upsamples a given multi-channel 1D (temporal), 2D (spatial) or 3D (volumetric) data, assumed
    to be of the form :math:`(N, C, W)`, :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`: give
    either the output ``size`` or a ``scale_factor``. See
    :func:`~framework.nn.functional.interpolate`, which this calls.

    Args:
        size (int or tuple, optional): the output spatial size (default: None).
        scale_factor (float or tuple, optional): the multiplier for the spatial size (default:
            None).
        mode (str, optional): ``'nearest'``, ``'linear'``, ``'bilinear'``, ``'bicubic'`` or
            ``'trilinear'`` (default: ``'nearest'``).
        align_corners (bool, optional): for the linear and cubic modes, align the corner pixels'
            centres of input and output (default: None, False).
        recompute_scale_factor (bool, optional): recompute the scale factor from the computed output
            size (default: None).

    Shape:
        - Input: :math:`(N, C, W_{in})`, :math:`(N, C, H_{in}, W_{in})` or :math:`(N, C, D_{in},
          H_{in}, W_{in})`.
        - Output: :math:`(N, C, W_{out})` etc., :math:`W_{out} = \lfloor W_{in} \times
          \text{scale\_factor} \rfloor` (or ``size``).

    Example:
        >>> x = framework.arange(1.0, 5.0).view(1, 1, 2, 2)
        >>> nn.Upsample(scale_factor=2, mode="nearest")(x)
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.],
                  [3., 3., 4., 4.],
                  [3., 3., 4., 4.]]]])
        >>> nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)(x)
        tensor([[[[1.0000, 1.3333, 1.6667, 2.0000],
                  [1.6667, 2.0000, 2.3333, 2.6667],
                  [2.3333, 2.6667, 3.0000, 3.3333],
                  [3.0000, 3.3333, 3.6667, 4.0000]]]])
    """

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode="nearest",
        align_corners=None,
        recompute_scale_factor=None,
    ):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = (
            float(scale_factor)
            if isinstance(scale_factor, (int, float))
            else tuple(float(s) for s in scale_factor)
            if scale_factor
            else None
        )
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return _rs.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            self.recompute_scale_factor,
        )

    def extra_repr(self):
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    r"""Applies a 2D nearest neighbor upsampling to an input signal composed of several input
    channels; equivalent to ``Upsample(size, scale_factor, mode='nearest')``.

    Args:
        size (int or tuple, optional): the output spatial size (default: None).
        scale_factor (float or tuple, optional): the multiplier for the spatial size (default:
            None).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})`, :math:`H_{out} = \lfloor H_{in} \times
          \text{scale\_factor} \rfloor`.

    Example:
        >>> nn.UpsamplingNearest2d(scale_factor=2)(framework.arange(1.0, 5.0).view(1, 1, 2, 2))
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.],
                  [3., 3., 4., 4.],
                  [3., 3., 4., 4.]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    r"""Applies a 2D bilinear upsampling to an input signal composed of several input channels;
    equivalent to ``Upsample(size, scale_factor, mode='bilinear', align_corners=True)``.

    Args:
        size (int or tuple, optional): the output spatial size (default: None).
        scale_factor (float or tuple, optional): the multiplier for the spatial size (default:
            None).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})`, :math:`H_{out} = \lfloor H_{in} \times
          \text{scale\_factor} \rfloor`.

    Example:
        >>> nn.UpsamplingBilinear2d(scale_factor=2)(framework.arange(1.0, 5.0).view(1, 1, 2, 2))
        tensor([[[[1.0000, 1.3333, 1.6667, 2.0000],
                  [1.6667, 2.0000, 2.3333, 2.6667],
                  [2.3333, 2.6667, 3.0000, 3.3333],
                  [3.0000, 3.3333, 3.6667, 4.0000]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class _OneArgument(Module):
    """A module that calls ``_fn(input, self.<_attr>)``."""

    _attr = ""

    def forward(self, input):
        return type(self)._fn(input, getattr(self, self._attr))

    def extra_repr(self):
        return f"{self._attr}={getattr(self, self._attr)}"


class PixelShuffle(_OneArgument):
    r"""Rearranges elements in a tensor of shape :math:`(*, C r^2, H, W)` to a tensor of shape
    :math:`(*, C, H r, W r)`, where :math:`r` is an upscale factor (sub-pixel convolution,
    Shi et al. 2016). See :func:`~framework.nn.functional.pixel_shuffle`.

    Args:
        upscale_factor (int): the factor :math:`r` to increase the spatial resolution by.

    Shape:
        - Input: :math:`(*, C_{in}, H_{in}, W_{in})`, :math:`C_{in} = C_{out} r^2`.
        - Output: :math:`(*, C_{out}, H_{in} r, W_{in} r)`.

    Example:
        >>> ps = nn.PixelShuffle(3)
        >>> ps(framework.randn(1, 9, 4, 4)).size()
        torch.Size([1, 1, 12, 12])
    """

    _fn = staticmethod(_rs.pixel_shuffle)
    _attr = "upscale_factor"

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor


class PixelUnshuffle(_OneArgument):
    r"""Reverses :class:`PixelShuffle`: rearranges a tensor of shape :math:`(*, C, H r, W r)`
    to a tensor of shape :math:`(*, C r^2, H, W)`, where :math:`r` is a downscale factor.
    See :func:`~framework.nn.functional.pixel_unshuffle`.

    Args:
        downscale_factor (int): the factor :math:`r` to decrease the spatial resolution by.

    Shape:
        - Input: :math:`(*, C_{in}, H_{in}, W_{in})`, with :math:`H_{in}` and :math:`W_{in}`
          divisible by :math:`r`.
        - Output: :math:`(*, C_{in} r^2, H_{in} / r, W_{in} / r)`.

    Example:
        >>> pu = nn.PixelUnshuffle(3)
        >>> pu(framework.randn(1, 1, 12, 12)).size()
        torch.Size([1, 9, 4, 4])
    """

    _fn = staticmethod(_rs.pixel_unshuffle)
    _attr = "downscale_factor"

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor


class ChannelShuffle(_OneArgument):
    r"""Divides the channels of a tensor of shape :math:`(N, C, *)` into ``groups`` groups and
    interleaves them (ShuffleNet), keeping the shape. See
    :func:`~framework.nn.functional.channel_shuffle`.

    Args:
        groups (int): the number of groups to divide the channels in; divides :math:`C`.

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: :math:`(N, C, *)`.

    Example:
        >>> cs = nn.ChannelShuffle(2)
        >>> cs(framework.arange(4.0).reshape(1, 4, 1, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    _fn = staticmethod(_rs.channel_shuffle)
    _attr = "groups"

    def __init__(self, groups):
        super().__init__()
        self.groups = groups


class AdaptiveAvgPool3d(_OneArgument):
    r"""Applies a 3-D adaptive average pooling over an input signal composed of several input
    planes: the output has the size ``output_size`` for any input size. See
    :func:`~framework.nn.functional.adaptive_avg_pool3d`.

    Args:
        output_size (int or tuple): the target output size :math:`(D, H, W)`: one int for a
            cube, or three values, where None keeps that dimension of the input.

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.

    Example:
        >>> m = nn.AdaptiveAvgPool3d((5, 7, 9))
        >>> m(framework.randn(1, 64, 8, 9, 10)).shape
        torch.Size([1, 64, 5, 7, 9])
        >>> nn.AdaptiveAvgPool3d((7, None, None))(framework.randn(1, 64, 10, 9, 8)).shape
        torch.Size([1, 64, 7, 9, 8])
    """

    _fn = staticmethod(_p3.adaptive_avg_pool3d)
    _attr = "output_size"

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size


class _AdaptiveMax(Module):
    fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return type(self).fn(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMax):
    """Applies a 1D adaptive max pooling over an input signal composed of several input planes: the
    output has the length ``output_size`` for any input length.

    See :func:`~framework.nn.functional.adaptive_max_pool1d` for the functional form.

    Args:
        output_size (int): the target output size :math:`L_{out}`.
        return_indices (bool, optional): also return the indices of the maxima (default: False).

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.

    Example:
        >>> m = nn.AdaptiveMaxPool1d(3)
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> m(x)
        tensor([[[2., 5., 7.]]])
    """

    fn = staticmethod(_p3.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMax):
    """Applies a 2D adaptive max pooling over an input signal composed of several input planes: the
    output has the size ``output_size`` for any input size.

    See :func:`~framework.nn.functional.adaptive_max_pool2d` for the functional form.

    Args:
        output_size (int or tuple): the target output size: one int, or one per spatial dimension
            (None keeps that dimension's size).
        return_indices (bool, optional): also return the indices of the maxima, useful for
            :class:`MaxUnpool2d` (default: False).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Example:
        >>> m = nn.AdaptiveMaxPool2d(2, return_indices=True)
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> m(x)
        (tensor([[[[ 5.,  7.],
                  [13., 15.]]]]), tensor([[[[ 5,  7],
                  [13, 15]]]]))
    """

    fn = staticmethod(_p3.adaptive_max_pool2d)


class Fold(Module):
    r"""Combines an array of sliding local blocks into a large containing tensor (col2im): the
    inverse layout of :class:`Unfold`, where values at overlapping positions are summed.

    See :func:`~framework.nn.functional.fold` for the functional form.

    Args:
        output_size (int or tuple): the shape of the spatial dimensions of the output.
        kernel_size (int or tuple): the size of the sliding blocks.
        dilation (int or tuple, optional): the stride of elements within a block (default: 1).
        padding (int or tuple, optional): implicit zero padding added on both sides (default: 0).
        stride (int or tuple, optional): the stride of the sliding blocks (default: 1).

    Shape:
        - Input: :math:`(N, C \times \prod(\text{kernel\_size}), L)` or :math:`(C \times
          \prod(\text{kernel\_size}), L)`.
        - Output: :math:`(N, C, \text{output\_size}[0], \text{output\_size}[1])` or without
          :math:`N`.

    Example:
        >>> fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 2))
        >>> fold(framework.randn(1, 3 * 2 * 2, 12)).size()
        torch.Size([1, 3, 4, 5])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return _fold.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self):
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    r"""Extracts sliding local blocks from a batched input tensor (im2col): each block becomes a
    column of :math:`C \times \prod(\text{kernel\_size})` values, one column per block position.

    See :func:`~framework.nn.functional.unfold` for the functional form.

    Args:
        kernel_size (int or tuple): the size of the sliding blocks.
        dilation (int or tuple, optional): the stride of elements within a block (default: 1).
        padding (int or tuple, optional): implicit zero padding added on both sides (default: 0).
        stride (int or tuple, optional): the stride of the sliding blocks (default: 1).

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: :math:`(N, C \times \prod(\text{kernel\_size}), L)`, :math:`L` the number of
          blocks.

    Example:
        >>> unfold = nn.Unfold(kernel_size=(2, 3))
        >>> unfold(framework.randn(2, 5, 3, 4)).size()
        torch.Size([2, 30, 4])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return _fold.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class MaxPool3d(_MaxPoolNd):
    """Applies a 3D max pooling over an input signal composed of several input planes.

    See :func:`~framework.nn.functional.max_pool3d` for the functional form.

    Args:
        kernel_size (int or tuple): the size of the window: one int, or 3 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit negative-infinity padding added on both sides, at
            most half the kernel size (default: 0).
        dilation (int or tuple, optional): the spacing between the window's elements (default: 1).
        return_indices (bool, optional): also return the indices of the maxima (default: False).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or :math:`(C, D_{out}, H_{out},
          W_{out})`, each size given by the rule of :class:`MaxPool2d`.

    Example:
        >>> m = nn.MaxPool3d(2)
        >>> x = framework.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> m(x).flatten()
        tensor([21., 23., 29., 31., 53., 55., 61., 63.])
    """

    def forward(self, input):
        return _p3.max_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class AvgPool3d(_AvgPoolNd):
    """Applies a 3D average pooling over an input signal composed of several input planes.

    See :func:`~framework.nn.functional.avg_pool3d` for the functional form.

    Args:
        kernel_size (int or tuple): the size of the window: one int, or 3 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit padding added on both sides, at most half the
            kernel size (default: 0).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).
        count_include_pad (bool, optional): include the zero padding in the averaging divisor
            (default: True).
        divisor_override (int, optional): divide by this instead of the window size (default: None).

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or :math:`(C, D_{out}, H_{out},
          W_{out})`.

    Example:
        >>> m = nn.AvgPool3d(2)
        >>> x = framework.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> m(x).flatten()
        tensor([10.5000, 12.5000, 18.5000, 20.5000, 42.5000, 44.5000, 50.5000, 52.5000])
    """

    def forward(self, input):
        return _p3.avg_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class _LPPool(Module):
    fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        return type(self).fn(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self):
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPool):
    r"""Applies a 1D power-average pooling over an input signal composed of several input planes
    (``p = 1`` is sum pooling, :math:`p = \infty` max pooling).

    .. math::
        f(X) = \sqrt[p]{\sum_{x \in X} x^{p}}

    See :func:`~framework.nn.functional.lp_pool1d` for the functional form.

    Args:
        norm_type (float): the exponent :math:`p`.
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.

    Example:
        >>> m = nn.LPPool1d(2, 2)
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> m(x)
        tensor([[[1.0000, 3.6056, 6.4031, 9.2195]]])
    """

    fn = staticmethod(_p3.lp_pool1d)


class LPPool2d(_LPPool):
    r"""Applies a 2D power-average pooling over an input signal composed of several input planes
    (``p = 1`` is sum pooling, :math:`p = \infty` max pooling).

    .. math::
        f(X) = \sqrt[p]{\sum_{x \in X} x^{p}}

    See :func:`~framework.nn.functional.lp_pool2d` for the functional form.

    Args:
        norm_type (float): the exponent :math:`p`.
        kernel_size (int or tuple): the size of the window: one int, or 2 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Example:
        >>> m = nn.LPPool2d(2, 2)
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> m(x)
        tensor([[[[ 6.4807,  9.8995],
                  [21.4009, 25.3377]]]])
    """

    fn = staticmethod(_p3.lp_pool2d)


class LPPool3d(_LPPool):
    r"""Applies a 3D power-average pooling over an input signal composed of several input planes.

    .. math::
        f(X) = \sqrt[p]{\sum_{x \in X} x^{p}}

    See :func:`~framework.nn.functional.lp_pool3d` for the functional form.

    Args:
        norm_type (float): the exponent :math:`p`.
        kernel_size (int or tuple): the size of the window: one int, or 3 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, D_{in}, H_{in}, W_{in})` or :math:`(C, D_{in}, H_{in}, W_{in})`.
        - Output: :math:`(N, C, D_{out}, H_{out}, W_{out})` or :math:`(C, D_{out}, H_{out},
          W_{out})`.

    Example:
        >>> m = nn.LPPool3d(1, 2)
        >>> x = framework.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> m(x).flatten()
        tensor([ 84., 100., 148., 164., 340., 356., 404., 420.])
    """

    fn = staticmethod(_p3.lp_pool3d)


class MaxUnpool2d(Module):
    r"""Computes a partial inverse of :class:`MaxPool2d`: the maximal values go back to the
    positions given by the indices (``MaxPool2d(..., return_indices=True)``), all other positions
    are zero. Several input sizes give the same pooled size; pass ``output_size`` in the forward
    call to choose.

    See :func:`~framework.nn.functional.max_unpool2d` for the functional form.

    Args:
        kernel_size (int or tuple): the size of the max pooling window.
        stride (int or tuple, optional): the stride of the max pooling window (default:
            ``kernel_size``).
        padding (int or tuple, optional): the padding that was added to the input (default: 0).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`, where
          :math:`H_{out} = (H_{in} - 1) \times \text{stride}[0] - 2 \times \text{padding}[0] +
          \text{kernel\_size}[0]`
          (likewise :math:`W_{out}`), or ``output_size``.

    Example:
        >>> pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
        >>> x = framework.tensor([[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]])
        >>> out, indices = pool(x)
        >>> unpool(out, indices)
        tensor([[[[0., 0., 0., 0.],
                  [0., 6., 0., 8.]]]])
    """

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)
        self.kernel_size = pair(kernel_size)
        self.stride = pair(stride if stride is not None else kernel_size)
        self.padding = pair(padding)

    def forward(self, input, indices, output_size=None):
        return _p3.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def bilinear(input1, input2, weight, bias=None):
    r"""Applies a bilinear transformation to the incoming data: :math:`y = x_1^T A x_2 + b`.

    See :class:`~framework.nn.Bilinear` for the module form.

    Args:
        input1 (Tensor): :math:`(*, \text{in1\_features})`.
        input2 (Tensor): :math:`(*, \text{in2\_features})`, with the same leading dimensions.
        weight (Tensor): :math:`A`, :math:`(\text{out\_features}, \text{in1\_features},
            \text{in2\_features})`.
        bias (Tensor, optional): :math:`b`, :math:`(\text{out\_features})` (default: None).

    Returns:
        Tensor: :math:`(*, \text{out\_features})`.

    Example:
        >>> F.bilinear(framework.ones(1, 2), framework.ones(1, 3), framework.ones(4, 2, 3)).shape
        torch.Size([1, 4])
    """
    _bilinear_checks(input1, input2, weight, bias)
    o, i1, i2 = weight.shape
    lead = tuple(input1.shape[:-1])
    a, b = input1.reshape(-1, i1), input2.reshape(-1, i2)  # torch's reshapes (and errors)
    n = a.shape[0]
    if a.numel() and b.numel() and weight.numel():
        refuse(a._data, "b", "bmm")  # torch's _trilinear multiplies with bmm
    if a._data.dtype.kind == "f" and a._data.dtype.itemsize > 2:  # torch's _trilinear node
        e1, e2, e3, sd = _BILINEAR
        out = Trilinear.apply(a, weight, b, expand1=e1, expand2=e2, expand3=e3, sumdim=sd)
        out = out.reshape(*lead, o)
        return out + bias if bias is not None else out
    t = (a @ weight.permute(1, 0, 2).reshape(i1, o * i2)).reshape(n, o, i2)
    keep = None if weight.dtype.is_floating_point else weight.dtype  # bool stays bool
    if keep is None:  # torch's _trilinear sums the second product with bmm too: its node
        # materializes sgn's ZeroTensor (0 * NaN in input2 reaches input1's rows), as torch's
        out = t.bmm(b.reshape(n, i2, 1)).reshape(*lead, o)
    else:
        out = (t * b.reshape(n, 1, i2)).sum(-1, dtype=keep).reshape(*lead, o)
    return out + bias if bias is not None else out


def _bilinear_checks(input1, input2, weight, bias):
    """torch's argument checks of bilinear, in its order and words."""
    ts = (input1, input2, weight) + (() if bias is None else (bias,))
    if len({t.dtype for t in ts}) > 1:
        names = ("input1", "input2", "weight", "bias")
        got = ", ".join(f"{n}: {cpp_type_name(t._data.dtype)}" for n, t in zip(names, ts))
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got {a} and {b}"
            )
    for k, x in ((1, input1), (2, input2)):
        if x.shape[-1] != weight.shape[k]:
            raise RuntimeError(
                f"bilinear(): input{k} size does not match weight size: got "
                f"{x.shape[-1]} but expected {weight.shape[k]}"
            )
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[0]} "
            f"but expected {weight.shape[0]}"
        )


class Bilinear(Module):
    r"""Applies a bilinear transformation to the incoming data: :math:`y = x_1^T A x_2 + b`.

    Args:
        in1_features (int): size of each first input sample.
        in2_features (int): size of each second input sample.
        out_features (int): size of each output sample.
        bias (bool, optional): learn an additive bias (default: True).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - Input1: :math:`(*, H_{in1})`, :math:`H_{in1} = \text{in1\_features}`.
        - Input2: :math:`(*, H_{in2})`, the same leading dimensions as Input1.
        - Output: :math:`(*, H_{out})`, :math:`H_{out} = \text{out\_features}`.

    Attributes:
        weight (Parameter): :math:`(\text{out\_features}, \text{in1\_features},
            \text{in2\_features})`, initialised from :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`,
            :math:`k = 1 / \text{in1\_features}`.
        bias (Parameter): :math:`(\text{out\_features})`, same initialisation.

    Example:
        >>> m = nn.Bilinear(20, 30, 40)
        >>> m(framework.randn(128, 20), framework.randn(128, 30)).size()
        torch.Size([128, 40])
    """

    def __init__(
        self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None
    ):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = Parameter(
            empty((out_features, in1_features, in2_features), device=device, dtype=dtype)
        )
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as the constructor does (torch's initialization)."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


__all__ = [
    "Upsample",
    "UpsamplingNearest2d",
    "UpsamplingBilinear2d",
    "PixelShuffle",
    "PixelUnshuffle",
    "ChannelShuffle",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "Fold",
    "Unfold",
    "MaxPool3d",
    "AvgPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxUnpool2d",
    "Bilinear",
]


from ..ops.conv3d import conv3d, conv_transpose3d  # noqa: E402
from .conv import _ConvNd, _ConvTransposeNd  # noqa: E402


class Conv3d(_ConvNd):
    r"""Applies a 3D convolution over an input signal composed of several input planes (a
    cross-correlation, as in torch).

    .. math::
        \text{out}(N_i, C_{\text{out}_j}) = \text{bias}(C_{\text{out}_j}) + \sum_{k = 0}^{C_{in} -
        1} \text{weight}(C_{\text{out}_j}, k) \star \text{input}(N_i, k)

    See :func:`~framework.nn.functional.conv3d` for the functional form.

    Args:
        in_channels (int): number of channels in the input image.
        out_channels (int): number of channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): stride of the convolution (default: 1).
        padding (int, tuple or str, optional): padding added to both sides of the input, or
            ``'valid'`` / ``'same'`` (default: 0).
        dilation (int or tuple, optional): spacing between kernel elements (default: 1).
        groups (int, optional): number of blocked connections from input channels to output channels
            (default: 1).
        bias (bool, optional): add a learnable bias to the output (default: True).
        padding_mode (str, optional): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``
            (default: ``'zeros'``).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - Input: :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` or :math:`(C_{in}, D_{in}, H_{in},
          W_{in})`.
        - Output: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})` or :math:`(C_{out}, D_{out},
          H_{out}, W_{out})`, where each size is :math:`\lfloor (\text{in} + 2 p - d (k - 1) - 1) /
          s + 1 \rfloor` (p padding, d dilation, k kernel size, s stride).

    Attributes:
        weight (Parameter): :math:`(C_{out}, C_{in} / \text{groups}, k_0, k_1, k_2)`, initialised
            from :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`, :math:`k = \text{groups} / (C_{in} \prod
            \text{kernel\_size})`.
        bias (Parameter): :math:`(C_{out})`, same initialisation; None if ``bias=False``.

    Example:
        >>> m = nn.Conv3d(16, 33, 3, stride=2)
        >>> m(framework.randn(20, 16, 10, 50, 100)).shape
        torch.Size([20, 33, 4, 24, 49])
    """

    _nd = 3

    def forward(self, input):
        x, padding = self._padded(input)
        return conv3d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class ConvTranspose3d(_ConvTransposeNd):
    r"""Applies a 3D transposed convolution operator over an input image composed of several input
    planes: the gradient of :class:`Conv3d` with respect to its input (a fractionally-strided
    convolution, sometimes called deconvolution).

    See :func:`~framework.nn.functional.conv_transpose3d` for the functional form.

    Args:
        in_channels (int): number of channels in the input image.
        out_channels (int): number of channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple, optional): stride of the convolution (default: 1).
        padding (int or tuple, optional): ``dilation * (kernel_size - 1) - padding`` zero-padding
            will be added to both sides of each dimension in the input (default: 0).
        output_padding (int or tuple, optional): additional size added to one side of each dimension
            in the output shape (default: 0).
        groups (int, optional): number of blocked connections from input channels to output channels
            (default: 1).
        bias (bool, optional): add a learnable bias to the output (default: True).
        dilation (int or tuple, optional): spacing between kernel elements (default: 1).
        padding_mode (str, optional): only ``'zeros'`` is supported, as in torch (default:
            ``'zeros'``).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - Input: :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` or :math:`(C_{in}, D_{in}, H_{in},
          W_{in})`.
        - Output: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})` or :math:`(C_{out}, D_{out},
          H_{out}, W_{out})`, where each size is :math:`(\text{in} - 1) s - 2 p + d (k - 1) +
          \text{output\_padding} + 1`.

    Attributes:
        weight (Parameter): :math:`(C_{in}, C_{out} / \text{groups}, k_0, k_1, k_2)`, initialised
            from :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`, :math:`k = \text{groups} / (C_{out} \prod
            \text{kernel\_size})`.
        bias (Parameter): :math:`(C_{out})`, same initialisation; None if ``bias=False``.

    Example:
        >>> m = nn.ConvTranspose3d(16, 33, 3, stride=2)
        >>> m(framework.randn(20, 16, 10, 50, 100)).shape
        torch.Size([20, 33, 21, 101, 201])
    """

    _nd = 3

    def forward(self, input, output_size=None):
        return conv_transpose3d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
        )


__all__ += ["Conv3d", "ConvTranspose3d"]
