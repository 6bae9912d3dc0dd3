"""torch.nn.utils.fusion: fold an eval-mode BatchNorm into the preceding convolution or linear
layer (torch's formulas, in torch's order of operations)."""

import copy

from ...creation import ones_like, zeros_like
from ..parameter import Parameter


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` whose weight and bias absorb the eval-mode BatchNorm `bn`.

    Args:
        conv (nn.Module): a convolution (``weight`` and ``bias``), in eval mode.
        bn (nn.Module): the BatchNorm that follows it, in eval mode.
        transpose (bool, optional): `conv` is a transposed convolution. Default: False.

    Example:
        >>> conv, bn = nn.Conv2d(2, 3, 1).eval(), nn.BatchNorm2d(3).eval()
        >>> fused = nn.utils.fuse_conv_bn_eval(conv, bn)
        >>> x = framework.randn(1, 2, 4, 4)
        >>> bool(((fused(x) - bn(conv(x))).abs() < 1e-5).all())
        True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    r"""The fused convolution parameters: :math:`W \gamma / \sqrt{\sigma^2 + \epsilon}` and
    :math:`(b - \mu) \gamma / \sqrt{\sigma^2 + \epsilon} + \beta`.

    Args:
        conv_w (Tensor): the convolution's weight.
        conv_b (Tensor or None): its bias.
        bn_rm (Tensor): BatchNorm's running mean.
        bn_rv (Tensor): BatchNorm's running variance.
        bn_eps (float): BatchNorm's epsilon.
        bn_w (Tensor or None): BatchNorm's weight.
        bn_b (Tensor or None): BatchNorm's bias.
        transpose (bool, optional): a transposed convolution's weight. Default: False.

    Returns:
        tuple of Parameter: the fused weight and bias.

    Example:
        >>> w, b = nn.utils.fuse_conv_bn_weights(framework.ones(2, 1, 1, 1), None,
        ...     framework.zeros(2), framework.ones(2), 0.0, None, None)
        >>> w.flatten().tolist(), b.tolist()
        ([1.0, 1.0], [0.0, 0.0])
    """
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    rsqrt = (bn_rv + bn_eps).rsqrt()
    n = len(conv_w.shape) - 2
    shape = [1, -1] + [1] * n if transpose else [-1, 1] + [1] * n
    fused_w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` whose weight and bias absorb the eval-mode BatchNorm `bn`.

    Args:
        linear (nn.Linear): the linear layer, in eval mode.
        bn (nn.Module): the BatchNorm that follows it, in eval mode.

    Example:
        >>> lin, bn = nn.Linear(2, 3).eval(), nn.BatchNorm1d(3).eval()
        >>> x = framework.randn(4, 2)
        >>> bool(((nn.utils.fuse_linear_bn_eval(lin, bn)(x) - bn(lin(x))).abs() < 1e-5).all())
        True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    r"""The fused linear parameters: :math:`W s` and :math:`(b - \mu) s + \beta`, with
    :math:`s = \gamma / \sqrt{\sigma^2 + \epsilon}`.

    Args:
        linear_w (Tensor): the linear weight.
        linear_b (Tensor or None): its bias.
        bn_rm (Tensor): BatchNorm's running mean.
        bn_rv (Tensor): BatchNorm's running variance.
        bn_eps (float): BatchNorm's epsilon.
        bn_w (Tensor): BatchNorm's weight.
        bn_b (Tensor): BatchNorm's bias.

    Returns:
        tuple of Parameter: the fused weight and bias.

    Example:
        >>> w, b = nn.utils.fuse_linear_bn_weights(framework.ones(2, 1), None,
        ...     framework.zeros(2), framework.ones(2), 0.0, framework.ones(2), framework.zeros(2))
        >>> w.shape, b.shape
        (torch.Size([2, 1]), torch.Size([2]))
    """
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
