"""Dropout as torch computes it on the CPU: a noise tensor ``bernoulli_(1 - p)`` (one 53-bit
uniform per element of the default generator), divided by ``1 - p``, times the input."""

import math
import warnings

from .module import Module


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(input, p, train, inplace, feature=False, alpha=False):
    """ATen's _dropout_impl: noise of input's shape (feature: (N, C, 1, ...))."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        from ..creation import zeros

        zero = zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = tuple(input.shape)
    from ..creation import empty, empty_like

    if feature:
        noise = empty(shape, dtype=input.dtype, device=input.device)
    else:  # empty_like: a transposed input gets transposed noise, drawn in memory order
        noise = empty_like(input)
    noise = noise.bernoulli_(1 - p)  # (under vmap, the batched noise it returns)
    if alpha:
        a_const = 1.7580993408473766
        a = 1.0 / math.sqrt((a_const * a_const * p + 1) * (1 - p))
        b = noise.add(-1).mul_(a_const * a).add_(a_const * a * p)
        noise.mul_(a)
        out = input.mul_(noise) if inplace else input * noise
        return out.add_(b)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout(input, p=0.5, training=True, inplace=False):
    r"""Randomly zeroes elements of ``input`` with probability ``p`` (a Bernoulli draw per element
    at every call) and scales the kept ones by :math:`\frac{1}{1 - p}`, so the expected value is
    unchanged. Does nothing when ``training`` is False.

    See :class:`~framework.nn.Dropout` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        p (float, optional): probability of an element (channel) to be zeroed (default: 0.5).
        training (bool, optional): apply dropout if True; else return ``input`` unchanged (default:
            True).
        inplace (bool, optional): do the operation in place (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> F.dropout(framework.ones(4), 0.5)
        tensor([0., 0., 2., 0.])
        >>> F.dropout(framework.ones(4), 0.5, training=False)
        tensor([1., 1., 1., 1.])
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Applies alpha dropout: dropped elements are set to SELU's negative saturation value and the
    result is scaled and shifted so that an input of zero mean and unit variance keeps them
    (Self-Normalizing Neural Networks). Does nothing when ``training`` is False.

    See :class:`~framework.nn.AlphaDropout` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        p (float, optional): probability of an element (channel) to be zeroed (default: 0.5).
        training (bool, optional): apply dropout if True; else return ``input`` unchanged (default:
            False).
        inplace (bool, optional): do the operation in place (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> F.alpha_dropout(framework.zeros(4), 0.5, training=True)
        tensor([-0.7792, -0.7792,  0.7792, -0.7792])
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Applies alpha dropout to whole channels: one draw per sample and channel, the dropped
    channels set to SELU's negative saturation value, then scaled and shifted as in
    :func:`alpha_dropout`. Does nothing when ``training`` is False.

    See :class:`~framework.nn.FeatureAlphaDropout` for the module form.

    Args:
        input (Tensor): the input, :math:`(N, C, *)`.
        p (float, optional): probability of an element (channel) to be zeroed (default: 0.5).
        training (bool, optional): apply dropout if True; else return ``input`` unchanged (default:
            False).
        inplace (bool, optional): do the operation in place (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> F.feature_alpha_dropout(framework.zeros(1, 3, 2), 0.5, training=True)
        tensor([[[-0.7792, -0.7792],
                 [-0.7792, -0.7792],
                 [ 0.7792,  0.7792]]])
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


def _feature(input, p, training, inplace, batched):
    if not batched:
        input = input.unsqueeze(0)
    out = _dropout_impl(input, p, training, inplace, feature=True)
    return out if batched else out.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    r"""Randomly zeroes whole channels (a channel is a 1-D feature map) of the input: each channel
    of each sample is zeroed with probability ``p``, independently at every call, and the kept ones
    are scaled by :math:`\frac{1}{1 - p}`.

    See :class:`~framework.nn.Dropout1d` for the module form.

    Args:
        input (Tensor): :math:`(N, C, L)` or :math:`(C, L)`.
        p (float, optional): probability of an element (channel) to be zeroed (default: 0.5).
        training (bool, optional): apply dropout if True; else return ``input`` unchanged (default:
            True).
        inplace (bool, optional): do the operation in place (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> x = framework.ones(1, 4, *([2] * 1))
        >>> F.dropout1d(x, 0.5).flatten(2).amax(-1)  # whole channels kept (x2) or zeroed
        tensor([[0., 0., 2., 0.]])
    """
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
            "input. Note that dropout1d exists to provide channel-wise dropout on "
            "inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs)."
        )
    return _feature(input, p, training, inplace, input.dim() == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    r"""Randomly zeroes whole channels (a channel is a 2-D feature map) of the input: each channel
    of each sample is zeroed with probability ``p``, independently at every call, and the kept ones
    are scaled by :math:`\frac{1}{1 - p}`.

    See :class:`~framework.nn.Dropout2d` for the module form.

    Args:
        input (Tensor): :math:`(N, C, H, W)` (a 3-D input is taken as :math:`(N, C, L)`, with a
            warning, as in torch).
        p (float, optional): probability of an element (channel) to be zeroed (default: 0.5).
        training (bool, optional): apply dropout if True; else return ``input`` unchanged (default:
            True).
        inplace (bool, optional): do the operation in place (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> x = framework.ones(1, 4, *([2] * 2))
        >>> F.dropout2d(x, 0.5).flatten(2).amax(-1)  # whole channels kept (x2) or zeroed
        tensor([[0., 0., 2., 0.]])
    """
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is "
            "deprecated and will result in an error in a future release. To retain "
            "the behavior and silence this warning, please use dropout instead. Note "
            "that dropout2d exists to provide channel-wise dropout on inputs with 2 "
            "spatial dimensions, a channel dimension, and an optional batch dimension "
            "(i.e. 3D or 4D inputs)."
        )
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-"
            "wise 1D dropout behavior is desired - input is interpreted as shape (N, C, "
            "L), where C is the channel dim. This behavior will change in a future "
            "release to interpret the input as one without a batch dimension, i.e. "
            "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
            "switch to using dropout1d instead."
        )
    return _dropout_impl(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    r"""Randomly zeroes whole channels (a channel is a 3-D feature map) of the input: each channel
    of each sample is zeroed with probability ``p``, independently at every call, and the kept ones
    are scaled by :math:`\frac{1}{1 - p}`.

    See :class:`~framework.nn.Dropout3d` for the module form.

    Args:
        input (Tensor): :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.
        p (float, optional): probability of an element (channel) to be zeroed (default: 0.5).
        training (bool, optional): apply dropout if True; else return ``input`` unchanged (default:
            True).
        inplace (bool, optional): do the operation in place (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> x = framework.ones(1, 4, *([2] * 3))
        >>> F.dropout3d(x, 0.5).flatten(2).amax(-1)  # whole channels kept (x2) or zeroed
        tensor([[0., 0., 2., 0.]])
    """
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is "
            "deprecated and will result in an error in a future release. To retain "
            "the behavior and silence this warning, please use dropout instead. Note "
            "that dropout3d exists to provide channel-wise dropout on inputs with 3 "
            "spatial dimensions, a channel dimension, and an optional batch dimension "
            "(i.e. 4D or 5D inputs)."
        )
    return _feature(input, p, training, inplace, input.dim() == 5)


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        _check_p(p)
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    r"""During training, randomly zeroes some of the elements of the input tensor with probability
    ``p`` (a Bernoulli draw per element at every call), and scales the outputs by
    :math:`\frac{1}{1-p}`. In evaluation mode it is the identity.

    This is an effective technique for regularization and preventing the co-adaptation of neurons
    (*Improving neural networks by preventing co-adaptation of feature detectors*). The random masks
    are torch's: with the same seed, the same elements are zeroed.

    See :func:`~framework.nn.functional.dropout` for the functional form.

    Args:
        p (float, optional): probability of an element to be zeroed (default: 0.5).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, any shape.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> m = nn.Dropout(p=0.5)
        >>> m(framework.ones(6))
        tensor([0., 0., 2., 0., 0., 0.])
        >>> m.eval()(framework.ones(2))
        tensor([1., 1.])
    """

    def forward(self, input):
        return dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    r"""Randomly zeroes entire channels (a channel is a 1-D feature map) during training: each
    channel of each sample is zeroed with probability ``p`` at every call, and the outputs are
    scaled by :math:`\frac{1}{1-p}`. In evaluation mode it is the identity.

    As described in *Efficient Object Localization Using Convolutional Networks*, when adjacent
    pixels are strongly correlated, channel dropout promotes independence between feature maps.

    See :func:`~framework.nn.functional.dropout1d` for the functional form.

    Args:
        p (float, optional): probability of a channel to be zeroed (default: 0.5).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(N, C, L)` or :math:`(C, L)`.
        - Output: the same shape as the input.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> m = nn.Dropout1d(p=0.5)
        >>> m(framework.ones(1, 4, *([2] * 1))).flatten(2).amax(-1)
        tensor([[0., 0., 2., 0.]])
        >>> m.eval()(framework.ones(1, 2, *([1] * 1))).flatten()
        tensor([1., 1.])
    """

    def forward(self, input):
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    r"""Randomly zeroes entire channels (a channel is a 2-D feature map) during training: each
    channel of each sample is zeroed with probability ``p`` at every call, and the outputs are
    scaled by :math:`\frac{1}{1-p}`. In evaluation mode it is the identity.

    As described in *Efficient Object Localization Using Convolutional Networks*, when adjacent
    pixels are strongly correlated, channel dropout promotes independence between feature maps.

    See :func:`~framework.nn.functional.dropout2d` for the functional form.

    Args:
        p (float, optional): probability of a channel to be zeroed (default: 0.5).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(N, C, H, W)` or :math:`(N, C, L)` (taken as 1-D channels, with torch's
          warning).
        - Output: the same shape as the input.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> m = nn.Dropout2d(p=0.5)
        >>> m(framework.ones(1, 4, *([2] * 2))).flatten(2).amax(-1)
        tensor([[0., 0., 2., 0.]])
        >>> m.eval()(framework.ones(1, 2, *([1] * 2))).flatten()
        tensor([1., 1.])
    """

    def forward(self, input):
        return dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    r"""Randomly zeroes entire channels (a channel is a 3-D feature map) during training: each
    channel of each sample is zeroed with probability ``p`` at every call, and the outputs are
    scaled by :math:`\frac{1}{1-p}`. In evaluation mode it is the identity.

    As described in *Efficient Object Localization Using Convolutional Networks*, when adjacent
    pixels are strongly correlated, channel dropout promotes independence between feature maps.

    See :func:`~framework.nn.functional.dropout3d` for the functional form.

    Args:
        p (float, optional): probability of a channel to be zeroed (default: 0.5).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.
        - Output: the same shape as the input.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> m = nn.Dropout3d(p=0.5)
        >>> m(framework.ones(1, 4, *([2] * 3))).flatten(2).amax(-1)
        tensor([[0., 0., 2., 0.]])
        >>> m.eval()(framework.ones(1, 2, *([1] * 3))).flatten()
        tensor([1., 1.])
    """

    def forward(self, input):
        return dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Applies Alpha Dropout over the input: during training, dropped elements are set to SELU's
    negative saturation value and the output is scaled and shifted so that an input of zero mean and
    unit variance keeps them (*Self-Normalizing Neural Networks*). Use it with :class:`SELU`. In
    evaluation mode it is the identity.

    See :func:`~framework.nn.functional.alpha_dropout` for the functional form.

    Args:
        p (float, optional): probability of an element to be zeroed (default: 0.5).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, any shape.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> m = nn.AlphaDropout(p=0.2)
        >>> m(framework.zeros(4))
        tensor([-1.2362,  0.3090,  0.3090, -1.2362])
    """

    def forward(self, input):
        return alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Randomly masks out entire channels with Alpha Dropout's saturation value during training
    (one draw per sample and channel), scaled and shifted to keep zero mean and unit variance, as
    :class:`AlphaDropout` does per element.

    See :func:`~framework.nn.functional.feature_alpha_dropout` for the functional form.

    Args:
        p (float, optional): probability of a channel to be zeroed (default: 0.5).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(N, C, *)`.
        - Output: the same shape as the input.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> m = nn.FeatureAlphaDropout(p=0.5)
        >>> m(framework.zeros(1, 3, 2))
        tensor([[[-0.7792, -0.7792],
                 [-0.7792, -0.7792],
                 [ 0.7792,  0.7792]]])
    """

    def forward(self, input):
        return feature_alpha_dropout(input, self.p, self.training)
