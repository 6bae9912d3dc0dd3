"""The in-place activation functions of torch.nn.functional (``F.elu_``, ``F.relu_``, ...)
and torch's ``torch.celu_`` / ``selu_`` / ``rrelu_`` / ``threshold_`` / ``dropout_`` /
``alpha_dropout_`` / ``feature_alpha_dropout_``: each is its function with ``inplace=True``
(torch's in-place nodes: EluBackward1, LeakyReluBackward1, ...)."""

from ..ops import nonlinear as _nl
from . import activation as _act
from . import dropout as _dropout


def elu_(input, alpha=1.0):
    """elu_(input, alpha=1.0) -> Tensor

    In-place version of :func:`~framework.nn.functional.elu` (node EluBackward1).

    Args:
        input (Tensor): the tensor written in place.
        alpha (float, optional): the :math:`\\alpha` value. Default: ``1.0``.

    Example:
        >>> F.elu_(framework.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return _nl.elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    """celu_(input, alpha=1.0) -> Tensor

    In-place version of :func:`~framework.nn.functional.celu` (node CeluBackward1).

    Args:
        input (Tensor): the tensor written in place.
        alpha (float, optional): the :math:`\\alpha` value. Default: ``1.0``.

    Example:
        >>> F.celu_(framework.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return _nl.celu(input, alpha, inplace=True)


def selu_(input):
    """selu_(input) -> Tensor

    In-place version of :func:`~framework.nn.functional.selu` (node EluBackward1).

    Args:
        input (Tensor): the tensor written in place.

    Example:
        >>> F.selu_(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 1.0507])
    """
    return _nl.selu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    """leaky_relu_(input, negative_slope=0.01) -> Tensor

    In-place version of :func:`~framework.nn.functional.leaky_relu` (LeakyReluBackward1).

    Args:
        input (Tensor): the tensor written in place.
        negative_slope (float, optional): the slope for negative inputs. Default: ``0.01``.

    Example:
        >>> F.leaky_relu_(framework.tensor([-1.0, 2.0]))
        tensor([-0.0100,  2.0000])
    """
    return _act.leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """hardtanh_(input, min_val=-1.0, max_val=1.0) -> Tensor

    In-place version of :func:`~framework.nn.functional.hardtanh`.

    Args:
        input (Tensor): the tensor written in place.
        min_val (float, optional): the lower end of the linear region. Default: ``-1.0``.
        max_val (float, optional): the upper end of the linear region. Default: ``1.0``.

    Example:
        >>> F.hardtanh_(framework.tensor([-2.0, 0.5]))
        tensor([-1.0000,  0.5000])
    """
    return _nl.hardtanh(input, min_val, max_val, inplace=True)


def relu_(input):
    """relu_(input) -> Tensor

    In-place version of :func:`~framework.nn.functional.relu`.

    Args:
        input (Tensor): the tensor written in place.

    Example:
        >>> F.relu_(framework.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """
    return input.relu_()


def threshold_(input, threshold, value):
    """threshold_(input, threshold, value) -> Tensor

    In-place version of :func:`~framework.nn.functional.threshold` (ThresholdBackward1).

    Args:
        input (Tensor): the tensor written in place.
        threshold (float): the value to threshold at.
        value (float): the value written where ``input <= threshold``.

    Example:
        >>> F.threshold_(framework.tensor([0.5, 2.0]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    return _nl.threshold(input, threshold, value, inplace=True)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """rrelu_(input, lower=1/8, upper=1/3, training=False) -> Tensor

    In-place version of :func:`~framework.nn.functional.rrelu` (RreluWithNoiseBackward1).

    Args:
        input (Tensor): the tensor written in place.
        lower (float, optional): the lower bound of the random slope. Default: ``1/8``.
        upper (float, optional): the upper bound of the random slope. Default: ``1/3``.
        training (bool, optional): draw the slopes (else their mean). Default: ``False``.

    Example:
        >>> F.rrelu_(framework.tensor([-1.0, 2.0]))
        tensor([-0.2292,  2.0000])
    """
    return _nl.rrelu(input, lower, upper, training, inplace=True)


def dropout_(input, p, train):
    """dropout_(input, p, train) -> Tensor

    ``torch.dropout_``: :func:`~framework.nn.functional.dropout` in place.

    Args:
        input (Tensor): the tensor written in place.
        p (float): the probability of an element to be zeroed.
        train (bool): apply dropout (else ``input`` is returned unchanged).

    Example:
        >>> framework.dropout_(framework.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    return _dropout.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    """alpha_dropout_(input, p, train) -> Tensor

    ``torch.alpha_dropout_``: :func:`~framework.nn.functional.alpha_dropout` in place.

    Args:
        input (Tensor): the tensor written in place.
        p (float): the probability of an element to be dropped.
        train (bool): apply it (else ``input`` is returned unchanged).

    Example:
        >>> framework.alpha_dropout_(framework.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    return _dropout.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p, train):
    """feature_alpha_dropout_(input, p, train) -> Tensor

    ``torch.feature_alpha_dropout_``: :func:`~framework.nn.functional.feature_alpha_dropout` in
    place.

    Args:
        input (Tensor): the tensor written in place.
        p (float): the probability of a channel to be dropped.
        train (bool): apply it (else ``input`` is returned unchanged).

    Example:
        >>> framework.feature_alpha_dropout_(framework.ones(1, 2), 0.5, False)
        tensor([[1., 1.]])
    """
    return _dropout.feature_alpha_dropout(input, p, train, inplace=True)


FUNCTIONAL = (elu_, celu_, selu_, leaky_relu_, hardtanh_, relu_, threshold_, rrelu_)
TOP_LEVEL = (celu_, selu_, rrelu_, threshold_, dropout_, alpha_dropout_, feature_alpha_dropout_)
