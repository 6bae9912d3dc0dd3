"""Module forms of fractional_max_pool2d/3d."""

from ..ops import pooling_fractional as _pf
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _FractionalMaxPoolNd(Module):
    nd = 2

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices=False,
        _random_samples=None,
    ):
        super().__init__()
        name, n = type(self).__name__, self.nd
        if n == 3 and (
            (isinstance(kernel_size, int) and kernel_size <= 0)
            or (isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))
        ):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _tuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple(output_size, n) if output_size is not None else None
        self.output_ratio = _tuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        ratio = self.output_ratio  # (indexed as torch's check: a short tuple raises)
        if ratio is not None and not all(0 < ratio[i] < 1 for i in range(n)):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = _pf.fractional_max_pool2d if self.nd == 2 else _pf.fractional_max_pool3d
        return fn(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling (see :func:`~framework.nn.functional.fractional_max_pool2d`):
    exactly one of ``output_size`` and ``output_ratio`` (each in (0, 1)) is given; without
    ``_random_samples`` each call draws new window starts.

    Args:
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output size :math:`(H_{out}, W_{out})`.
        output_ratio (float or tuple, optional): the output size as a ratio of the input's.
        return_indices (bool, optional): also return the indices (default: False).

    Example::

        >>> m = framework.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
        >>> m(framework.randn(1, 2, 10, 8)).shape
        torch.Size([1, 2, 5, 4])
    """

    nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling (see :func:`~framework.nn.functional.fractional_max_pool3d`).

    Args:
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output size :math:`(T_{out}, H_{out},
            W_{out})`.
        output_ratio (float or tuple, optional): the output size as a ratio of the input's.
        return_indices (bool, optional): also return the indices (default: False).

    Example::

        >>> m = framework.nn.FractionalMaxPool3d(2, output_size=(3, 2, 2))
        >>> m(framework.randn(1, 2, 6, 5, 5)).shape
        torch.Size([1, 2, 3, 2, 2])
    """

    nd = 3
