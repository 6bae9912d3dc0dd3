"""Pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d (reprs as torch)."""

from ..ops.pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    avg_pool1d,
    avg_pool2d,
    max_pool1d,
    max_pool2d,
)
from .module import Module

__all__ = [
    "MaxPool1d",
    "MaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
]


class _MaxPoolNd(Module):
    def __init__(
        self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    r"""Applies a 1D max pooling over an input signal composed of several input planes.

    .. math::
        \text{out}(N_i, C_j, k) = \max_{m=0, \ldots, \text{kernel\_size} - 1} \text{input}(N_i, C_j,
        \text{stride} \times k + m)

    See :func:`~framework.nn.functional.max_pool1d` for the functional form.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit negative-infinity padding added on both sides, at
            most half the kernel size (default: 0).
        dilation (int or tuple, optional): the spacing between the window's elements (default: 1).
        return_indices (bool, optional): also return the indices of the maxima (default: False).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`, where :math:`L_{out} =
          \left\lfloor \frac{L_{in} + 2 \times \text{padding} - \text{dilation} \times
          (\text{kernel\_size} - 1) - 1}{\text{stride}} + 1 \right\rfloor`.

    Example:
        >>> m = nn.MaxPool1d(2)
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> m(x)
        tensor([[[1., 3., 5., 7.]]])
    """

    def forward(self, input):
        return max_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class MaxPool2d(_MaxPoolNd):
    r"""Applies a 2D max pooling over an input signal composed of several input planes.

    .. math::
        \text{out}(N_i, C_j, h, w) = \max_{m, n} \text{input}(N_i, C_j, \text{stride}[0] \times h +
        m, \text{stride}[1] \times w + n)

    See :func:`~framework.nn.functional.max_pool2d` for the functional form.

    Args:
        kernel_size (int or tuple): the size of the window: one int, or 2 (one per spatial
            dimension).
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit negative-infinity padding added on both sides, at
            most half the kernel size (default: 0).
        dilation (int or tuple, optional): the spacing between the window's elements (default: 1).
        return_indices (bool, optional): also return the indices of the maxima, useful for
            :class:`MaxUnpool2d` (default: False).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`, where
          :math:`H_{out} = \left\lfloor \frac{H_{in} + 2 \times \text{padding} - \text{dilation}
          \times (\text{kernel\_size} - 1) - 1}{\text{stride}} + 1 \right\rfloor` (likewise
          :math:`W_{out}`).

    Example:
        >>> m = nn.MaxPool2d(2)
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> m(x)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
        >>> nn.MaxPool2d(3, stride=1, padding=1)(x).shape
        torch.Size([1, 1, 4, 4])
    """

    def forward(self, input):
        return max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class AvgPool1d(Module):
    r"""Applies a 1D average pooling over an input signal composed of several input planes.

    .. math::
        \text{out}(N_i, C_j, l) = \frac{1}{k} \sum_{m=0}^{k-1} \text{input}(N_i, C_j, \text{stride}
        \times l + m)

    See :func:`~framework.nn.functional.avg_pool1d` for the functional form.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the stride of the window (default: ``kernel_size``).
        padding (int or tuple, optional): implicit padding added on both sides, at most half the
            kernel size (default: 0).
        ceil_mode (bool, optional): use ceil instead of floor to compute the output size (default:
            False).
        count_include_pad (bool, optional): include the zero padding in the averaging divisor
            (default: True).

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.

    Example:
        >>> m = nn.AvgPool1d(2)
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> m(x)
        tensor([[[0.5000, 2.5000, 4.5000, 6.5000]]])
    """

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ):
        super().__init__()
        # torch stores the 1-d arguments as 1-tuples
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


def _single(value):
    return (value,) if isinstance(value, int) else tuple(value)


class _AvgPoolNd(Module):
    """The arguments and repr that AvgPool2d and AvgPool3d share (torch's _AvgPoolNd)."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    r"""Applies a 2D average pooling over an input signal composed of several input planes.

    .. math::
        \text{out}(N_i, C_j, h, w) = \frac{1}{k_H k_W} \sum_{m=0}^{k_H-1} \sum_{n=0}^{k_W-1}
        \text{input}(N_i, C_j, \text{stride}[0] \times h + m, \text{stride}[1] \times w + n)

    See :func:`~framework.nn.functional.avg_pool2d` for the functional form.

    Args:
        kernel_size (int or tuple): the size of the window: one int, or 2 (one per spatial
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
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Example:
        >>> m = nn.AvgPool2d(2)
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> m(x)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """

    def forward(self, input):
        return avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Applies a 1D adaptive average pooling over an input signal composed of several input planes:
    the output has the length ``output_size`` for any input length.

    See :func:`~framework.nn.functional.adaptive_avg_pool1d` for the functional form.

    Args:
        output_size (int): the target output size :math:`L_{out}`.

    Shape:
        - Input: :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
        - Output: :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.

    Example:
        >>> m = nn.AdaptiveAvgPool1d(3)
        >>> x = framework.arange(8.0).reshape(1, 1, 8)
        >>> m(x)
        tensor([[[1.0000, 3.5000, 6.0000]]])
    """

    def forward(self, input):
        return adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Applies a 2D adaptive average pooling over an input signal composed of several input planes:
    the output has the size ``output_size`` for any input size (``1`` is global average pooling).

    See :func:`~framework.nn.functional.adaptive_avg_pool2d` for the functional form.

    Args:
        output_size (int or tuple): the target output size: one int, or one per spatial dimension
            (None keeps that dimension's size).

    Shape:
        - Input: :math:`(N, C, H_{in}, W_{in})` or :math:`(C, H_{in}, W_{in})`.
        - Output: :math:`(N, C, H_{out}, W_{out})` or :math:`(C, H_{out}, W_{out})`.

    Example:
        >>> m = nn.AdaptiveAvgPool2d((3, None))
        >>> x = framework.arange(16.0).reshape(1, 1, 4, 4)
        >>> m(x).shape
        torch.Size([1, 1, 3, 4])
        >>> nn.AdaptiveAvgPool2d(1)(x).flatten()
        tensor([7.5000])
    """

    def forward(self, input):
        return adaptive_avg_pool2d(input, self.output_size)
