"""Activation functions and modules (the primitives live in ops/activation.py)."""

import warnings

from .. import ops as _ops
from ..ops.activation import Gelu, LeakyRelu, NormalCdf, gelu, leaky_relu  # noqa: F401
from .module import Module


def relu(input, inplace=False):
    r"""Applies the rectified linear unit function elementwise.

    .. math::
        \text{ReLU}(x) = \max(0, x)

    See :class:`~framework.nn.ReLU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.relu(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([0., 0., 0., 1., 3.])
        >>> x = framework.tensor([-1.0, 2.0], requires_grad=True)
        >>> F.relu(x).sum().backward(); x.grad
        tensor([0., 1.])
    """
    return input.relu_() if inplace else _ops.relu(input)


def sigmoid(input):
    r"""Applies the logistic sigmoid elementwise.

    .. math::
        \sigma(x) = \frac{1}{1 + e^{-x}}

    See :class:`~framework.nn.Sigmoid` for the module form.

    Args:
        input (Tensor): the input, of any shape.

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.sigmoid(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([0.1192, 0.3775, 0.5000, 0.7311, 0.9526])
    """
    return _ops.sigmoid(input)


def tanh(input):
    r"""Applies the hyperbolic tangent elementwise.

    .. math::
        \tanh(x) = \frac{e^{x} - e^{-x}}{e^{x} + e^{-x}}

    See :class:`~framework.nn.Tanh` for the module form.

    Args:
        input (Tensor): the input, of any shape.

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.tanh(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.9640, -0.4621,  0.0000,  0.7616,  0.9951])
    """
    return _ops.tanh(input)


def _softmax_dim(name, ndim, stacklevel):
    """torch's legacy choice when dim is None, with its deprecation warning."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    r"""Applies the softmax function along ``dim``, so that the slices along ``dim`` lie in [0, 1]
    and sum to 1.

    .. math::
        \text{Softmax}(x_i) = \frac{\exp(x_i)}{\sum_j \exp(x_j)}

    See :class:`~framework.nn.Softmax` for the module form. Use :func:`log_softmax` followed by
    :func:`nll_loss` (or :func:`cross_entropy`) rather than ``log(softmax(x))``: it is faster and
    numerically stable.

    Args:
        input (Tensor): the input.
        dim (int): the dimension along which softmax is computed (None picks torch's legacy
            choice, with a deprecation warning in torch).
        dtype (framework.dtype, optional): cast ``input`` to this dtype before the operation, e.g.
            to prevent overflow (default: None).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.softmax(framework.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]), dim=1)
        tensor([[0.0900, 0.2447, 0.6652],
                [0.3333, 0.3333, 0.3333]])
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _ops.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    r"""Applies softmax followed by a logarithm along ``dim``, computed stably as :math:`x_i - \log
    \sum_j \exp(x_j)`.

    .. math::
        \text{LogSoftmax}(x_i) = \log\left(\frac{\exp(x_i)}{\sum_j \exp(x_j)}\right)

    See :class:`~framework.nn.LogSoftmax` for the module form.

    Args:
        input (Tensor): the input.
        dim (int): the dimension along which log_softmax is computed.
        dtype (framework.dtype, optional): cast ``input`` to this dtype before the operation, e.g.
            to prevent overflow (default: None).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.log_softmax(framework.tensor([-1.0, 0.0, 2.0]), dim=0)
        tensor([-3.1698, -2.1698, -0.1698])
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _ops.log_softmax(input, dim, dtype=dtype)


class ReLU(Module):
    r"""Applies the rectified linear unit function elementwise.

    .. math::
        \text{ReLU}(x) = (x)^+ = \max(0, x)

    See :func:`~framework.nn.functional.relu` for the functional form.

    Args:
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.ReLU()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([0., 0., 0., 1., 3.])
        >>> nn.ReLU(inplace=True)
        ReLU(inplace=True)
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    r"""Applies the leaky ReLU function elementwise.

    .. math::
        \text{LeakyReLU}(x) = \max(0, x) + \text{negative\_slope} \cdot \min(0, x)

    See :func:`~framework.nn.functional.leaky_relu` for the functional form.

    Args:
        negative_slope (float, optional): the slope for negative inputs (default: 1e-2).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.LeakyReLU(0.1)
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.2000, -0.0500,  0.0000,  1.0000,  3.0000])
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    r"""Applies the Gaussian Error Linear Units function elementwise: :math:`x \Phi(x)`, with
    :math:`\Phi` the standard normal CDF.

    .. math::
        \text{GELU}(x) = x \Phi(x) \quad \text{or, with approximate='tanh',}
        0.5 x (1 + \tanh(\sqrt{2/\pi} (x + 0.044715 x^3)))

    See :func:`~framework.nn.functional.gelu` for the functional form.

    Args:
        approximate (str, optional): the approximation to use: ``'none'`` or ``'tanh'`` (default:
            ``'none'``).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.GELU()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.0455, -0.1543,  0.0000,  0.8413,  2.9960])
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Sigmoid(Module):
    r"""Applies the logistic sigmoid function elementwise.

    .. math::
        \text{Sigmoid}(x) = \sigma(x) = \frac{1}{1 + e^{-x}}

    See :func:`~framework.nn.functional.sigmoid` for the functional form.

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Sigmoid()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([0.1192, 0.3775, 0.5000, 0.7311, 0.9526])
    """

    def forward(self, input):
        return _ops.sigmoid(input)


class Tanh(Module):
    r"""Applies the hyperbolic tangent function elementwise.

    .. math::
        \text{Tanh}(x) = \frac{e^x - e^{-x}}{e^x + e^{-x}}

    See :func:`~framework.nn.functional.tanh` for the functional form.

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Tanh()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.9640, -0.4621,  0.0000,  0.7616,  0.9951])
    """

    def forward(self, input):
        return _ops.tanh(input)


class Softmax(Module):
    r"""Applies the softmax function to an n-dimensional input along ``dim``: the outputs along
    ``dim`` lie in [0, 1] and sum to 1.

    .. math::
        \text{Softmax}(x_i) = \frac{\exp(x_i)}{\sum_j \exp(x_j)}

    See :func:`~framework.nn.functional.softmax` for the functional form.

    Args:
        dim (int): the dimension along which softmax is computed (None: torch's legacy choice, with
            a warning).

    Shape:
        - Input: :math:`(*)`.
        - Output: :math:`(*)`, the same shape, values in [0, 1].

    Example:
        >>> m = nn.Softmax(dim=1)
        >>> m(framework.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
        tensor([[0.0900, 0.2447, 0.6652],
                [0.3333, 0.3333, 0.3333]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    r"""Applies :math:`\log(\text{Softmax}(x))` along ``dim``, computed stably.

    .. math::
        \text{LogSoftmax}(x_i) = \log\left(\frac{\exp(x_i)}{\sum_j \exp(x_j)}\right)

    See :func:`~framework.nn.functional.log_softmax` for the functional form.

    Args:
        dim (int): the dimension along which LogSoftmax is computed.

    Shape:
        - Input: :math:`(*)`.
        - Output: :math:`(*)`, the same shape, values in :math:`[-\infty, 0)`.

    Example:
        >>> m = nn.LogSoftmax(dim=1)
        >>> m(framework.tensor([[1.0, 2.0, 3.0]]))
        tensor([[-2.4076, -1.4076, -0.4076]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"
