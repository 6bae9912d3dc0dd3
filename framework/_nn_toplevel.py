"""The ATen functional forms torch exposes at top level (``torch.dropout``, ``torch.layer_norm``,
``torch.batch_norm``, ...). Their signatures are ATen's, not ``torch.nn.functional``'s: e.g.
``dropout(input, p, train)`` has no defaults, ``embedding(weight, indices, ...)`` takes the
table first, the losses take ``reduction`` as ATen's int (0 none, 1 mean, 2 sum), and the norms
take ``cudnn_enable(d)`` (ignored). An omitted ``reduction`` is 0 (no reduction), as torch's
binding parses ATen's ``reduction=at::Reduction::Mean`` default: ``torch.kl_div(x, y)`` is
elementwise. Each composes the ``nn.functional`` form, so values, dtypes and
``grad_fn`` names are those."""

from .nn import functional as F
from .nn import dropout as _dropout
from .nn.functional_compat import max_pool1d_with_indices as _mp1wi
from .ops.pooling3d import adaptive_max_pool1d as _amp1d

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(r):
    """ATen's reduction enum to nn.functional's string."""
    return _REDUCTIONS[r]


def dropout(input, p, train):
    """``torch.dropout``: :func:`nn.functional.dropout` with ATen's signature (all required).

    Args:
        input (Tensor): the input.
        p (float): the probability (dropout) or the norm's exponent.
        train (bool): whether to apply it (training mode).

    Example:
        >>> framework.dropout(framework.ones(3), 0.0, True)
        tensor([1., 1., 1.])
    """
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout(input, p, train)``: :func:`nn.functional.alpha_dropout`.

    Args:
        input (Tensor): the input.
        p (float): the probability (dropout) or the norm's exponent.
        train (bool): whether to apply it (training mode).

    Example:
        >>> framework.alpha_dropout(framework.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout(input, p, train)``: alpha dropout of whole channels.

    Args:
        input (Tensor): the input.
        p (float): the probability (dropout) or the norm's exponent.
        train (bool): whether to apply it (training mode).

    Example:
        >>> framework.feature_alpha_dropout(framework.ones(1, 2, 2), 0.5, False).shape
        torch.Size([1, 2, 2])
    """
    return F.feature_alpha_dropout(input, p, train)


def feature_dropout(input, p, train):
    """``torch.feature_dropout(input, p, train)``: zeroes whole channels ``input[n, c]`` (any
    input of 2 or more dims, noise of shape ``(N, C, 1, ...)``) and scales by ``1 / (1 - p)``.

    Args:
        input (Tensor): the input.
        p (float): the probability (dropout) or the norm's exponent.
        train (bool): whether to apply it (training mode).

    Example:
        >>> framework.feature_dropout(framework.ones(1, 2, 2), 0.5, False)
        tensor([[[1., 1.],
                 [1., 1.]]])
    """
    _dropout._check_p(p)
    return _dropout._dropout_impl(input, p, train, False, feature=True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding``: the table first; a negative ``padding_idx`` means none (ATen's).

    Args:
        weight (Tensor, optional): the weight (the table, for embedding).
        indices (Tensor): integer indices.
        padding_idx (int, optional): the row whose gradient stays zero (negative: none).
            Default: -1.
        scale_grad_by_freq (bool, optional): scale gradients by the inverse word frequency.
            Default: False.
        sparse (bool, optional): sparse gradient (accepted; dense here). Default: False.

    Example:
        >>> framework.embedding(framework.eye(3), framework.tensor([2, 0]))
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
    """
    pad = None if padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, pad, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``torch.layer_norm``: :func:`nn.functional.layer_norm` (``cudnn_enable`` is ignored).

    Args:
        input (Tensor): the input.
        normalized_shape (list of int): the trailing shape normalized over.
        weight (Tensor, optional): the weight (the table, for embedding).
        bias (Tensor, optional): the additive bias.
        eps (float, optional): added for numerical stability.
        cudnn_enable (bool, optional): ignored (no cuDNN here). Default: True.

    Example:
        >>> framework.layer_norm(framework.tensor([[1.0, 3.0]]), [2])
        tensor([[-1.0000,  1.0000]])
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``torch.group_norm``: :func:`nn.functional.group_norm` (``cudnn_enabled`` is ignored).

    Args:
        input (Tensor): the input.
        num_groups (int): the number of channel groups.
        weight (Tensor, optional): the weight (the table, for embedding).
        bias (Tensor, optional): the additive bias.
        eps (float, optional): added for numerical stability.
        cudnn_enabled (bool): ignored (no cuDNN here).

    Example:
        >>> framework.group_norm(framework.tensor([[1.0, 3.0]]), 1)
        tensor([[-1.0000,  1.0000]])
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
):
    """``torch.batch_norm``: ATen's order (affine first, then the running stats); all required.

    Args:
        input (Tensor): the input.
        weight (Tensor, optional): the weight (the table, for embedding).
        bias (Tensor, optional): the additive bias.
        running_mean (Tensor, optional): the running mean (updated in training).
        running_var (Tensor, optional): the running variance (updated in training).
        training (bool): use (and update) batch statistics.
        momentum (float): the running statistics' update factor.
        eps (float, optional): added for numerical stability.
        cudnn_enabled (bool): ignored (no cuDNN here).

    Example:
        >>> x = framework.tensor([[1.0], [3.0]])
        >>> framework.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    """``torch.instance_norm``: ATen's order (affine first, then the running stats).

    Args:
        input (Tensor): the input.
        weight (Tensor, optional): the weight (the table, for embedding).
        bias (Tensor, optional): the additive bias.
        running_mean (Tensor, optional): the running mean (updated in training).
        running_var (Tensor, optional): the running variance (updated in training).
        use_input_stats (bool): normalize with the input's own statistics.
        momentum (float): the running statistics' update factor.
        eps (float, optional): added for numerical stability.
        cudnn_enabled (bool): ignored (no cuDNN here).

    Example:
        >>> x = framework.tensor([[[1.0, 3.0]]])
        >>> framework.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[[-1.0000,  1.0000]]])
    """
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm``: :func:`nn.functional.rms_norm`.

    Args:
        input (Tensor): the input.
        normalized_shape (list of int): the trailing shape normalized over.
        weight (Tensor, optional): the weight (the table, for embedding).
        eps (float, optional): added to the mean square. Default: the dtype's eps.

    Example:
        >>> framework.rms_norm(framework.tensor([3.0, 4.0]), [2])
        tensor([0.8485, 1.1314])
    """
    return F.rms_norm(input, normalized_shape, weight, eps)


def selu(input):
    """``torch.selu``: :func:`nn.functional.selu`.

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.selu(framework.tensor([1.0]))
        tensor([1.0507])
    """
    return F.selu(input)


def celu(input, alpha=1.0):
    """``torch.celu``: :func:`nn.functional.celu`.

    Args:
        input (Tensor): the input.
        alpha (float, optional): the scale (CELU) or the window's alpha.

    Example:
        >>> framework.celu(framework.tensor([1.0]))
        tensor([1.])
    """
    return F.celu(input, alpha)


def threshold(input, threshold, value):
    """``torch.threshold(input, threshold, value)``: ``value`` where ``input <= threshold``.

    Args:
        input (Tensor): the input.
        threshold (float): the value to threshold at.
        value (float): the replacement (threshold) or the padding value.

    Example:
        >>> framework.threshold(framework.tensor([0.5, 2.0]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    return F.threshold(input, threshold, value)


def rrelu(input, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu``: :func:`nn.functional.rrelu`, its slopes drawn from ``generator``.

    Args:
        input (Tensor): the input.
        lower (float, optional): the lower bound of the random slope. Default: 1/8.
        upper (float, optional): the upper bound of the random slope. Default: 1/3.
        training (bool): use (and update) batch statistics.
        generator (Generator, optional): the generator of the slopes (training only).

    Example:
        >>> framework.rrelu(framework.tensor([-1.0, 1.0]))
        tensor([-0.2292,  1.0000])
    """
    from .ops.nonlinear import rrelu_from

    return rrelu_from(input, lower, upper, training, False, generator)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution``: the convolution of ``weight.dim() - 2`` spatial dims, transposed
    or not, with every argument given (ATen's ``aten::convolution``).

    Args:
        input (Tensor): the input.
        weight (Tensor, optional): the weight (the table, for embedding).
        bias (Tensor, optional): the additive bias.
        stride (list of int): the stride of the window or convolution.
        padding (list of int): the implicit padding.
        dilation (list of int): the spacing between kernel elements.
        transposed (bool): a transposed convolution.
        output_padding (list of int): extra size added to one side of the output (transposed).
        groups (int): the number of blocked connections (channel groups).

    Example:
        >>> x, w = framework.ones(1, 1, 3), framework.ones(1, 1, 2)
        >>> framework.convolution(x, w, None, [1], [0], [1], False, [0], 1)
        tensor([[[2., 2.]]])
    """
    nd = weight.dim() - 2
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def native_channel_shuffle(input, groups):
    """``torch.native_channel_shuffle``: :func:`nn.functional.channel_shuffle` (here with its
    gradient; torch's has none).

    Args:
        input (Tensor): the input.
        groups (int): the number of blocked connections (channel groups).

    Example:
        >>> framework.native_channel_shuffle(framework.arange(4.0).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    return F.channel_shuffle(input, groups)


def kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div``: ATen's ``reduction`` int; mean is over all elements, with no warning.

    Args:
        input (Tensor): the input.
        target (Tensor): the target.
        reduction (int, optional): 0 none, 1 mean, 2 sum (omitted: 0, as torch's binding).
        log_target (bool, optional): the target is given as log-probabilities. Default: False.

    Example:
        >>> framework.kl_div(framework.zeros(2), framework.full((2,), 0.5), 2)
        tensor(-0.6931)
    """
    loss = F.kl_div(input, target, reduction="none", log_target=log_target)
    if reduction == 1:
        return loss.mean()
    return loss.sum() if reduction == 2 else loss


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``torch.binary_cross_entropy_with_logits``: ATen's ``reduction`` int.

    Args:
        input (Tensor): the input.
        target (Tensor): the target.
        weight (Tensor, optional): the weight (the table, for embedding).
        pos_weight (Tensor, optional): the weight of positive examples per class.
        reduction (int, optional): 0 none, 1 mean, 2 sum (omitted: 0, as torch's binding).

    Example:
        >>> framework.binary_cross_entropy_with_logits(framework.zeros(2), framework.ones(2))
        tensor([0.6931, 0.6931])
        >>> framework.binary_cross_entropy_with_logits(framework.zeros(2), framework.ones(2),
        ...                                            reduction=1)
        tensor(0.6931)
    """
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss``: ATen's ``reduction`` int.

    Args:
        input1 (Tensor): the first input.
        input2 (Tensor): the second input.
        target (Tensor): the target.
        margin (float, optional): the margin.
        reduction (int, optional): 0 none, 1 mean, 2 sum (omitted: 0, as torch's binding).

    Example:
        >>> one = framework.ones(2)
        >>> framework.margin_ranking_loss(one, 0 * one, -one, 0.0, 1)
        tensor(1.)
    """
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss``: ATen's ``reduction`` int.

    Args:
        input1 (Tensor): the first input.
        input2 (Tensor): the second input.
        target (Tensor): the target.
        margin (float, optional): the margin.
        reduction (int, optional): 0 none, 1 mean, 2 sum (omitted: 0, as torch's binding).

    Example:
        >>> framework.cosine_embedding_loss(framework.ones(1, 2), framework.ones(1, 2),
        ...                                 framework.ones(1), 0.0, 1)
        tensor(0.)
    """
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss``: ATen's ``reduction`` int.

    Args:
        input (Tensor): the input.
        target (Tensor): the target.
        margin (float, optional): the margin.
        reduction (int, optional): 0 none, 1 mean, 2 sum (omitted: 0, as torch's binding).

    Example:
        >>> framework.hinge_embedding_loss(framework.zeros(2), -framework.ones(2), 1.0, 1)
        tensor(1.)
    """
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss``: every argument required, ``reduction`` as ATen's int.

    Args:
        input (Tensor): the input.
        target (Tensor): the target.
        log_input (bool): the input is the log of the rate.
        full (bool): add the Stirling approximation term.
        eps (float, optional): added for numerical stability.
        reduction (int, optional): 0 none, 1 mean, 2 sum (omitted: 0, as torch's binding).

    Example:
        >>> framework.poisson_nll_loss(framework.zeros(2), framework.ones(2), True, False, 1e-8, 1)
        tensor(1.)
    """
    return F.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False, reduction=0
):
    """``torch.triplet_margin_loss``: ATen's ``reduction`` int.

    Args:
        anchor (Tensor): the anchors.
        positive (Tensor): the positive examples.
        negative (Tensor): the negative examples.
        margin (float, optional): the margin.
        p (float): the probability (dropout) or the norm's exponent.
        eps (float, optional): added for numerical stability.
        swap (bool, optional): use the distance swap. Default: False.
        reduction (int, optional): 0 none, 1 mean, 2 sum (omitted: 0, as torch's binding).

    Example:
        >>> a = framework.zeros(1, 2)
        >>> framework.triplet_margin_loss(a, a, a, reduction=1)
        tensor(1.)
    """
    return F.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False
):
    """``torch.ctc_loss``: ATen's ``reduction`` int.

    Args:
        log_probs (Tensor): :math:`(T, N, C)` log-probabilities.
        targets (Tensor): the target sequences.
        input_lengths (list of int or Tensor): the input lengths.
        target_lengths (list of int or Tensor): the target lengths.
        blank (int, optional): the blank label. Default: 0.
        reduction (int, optional): 0 none, 1 mean, 2 sum (omitted: 0, as torch's binding).
        zero_infinity (bool, optional): zero infinite losses and their gradients. Default: False.

    Example:
        >>> lp = framework.zeros(2, 1, 2).log_softmax(2)
        >>> framework.ctc_loss(lp, framework.tensor([[1]]), [2], [1], reduction=1)
        tensor(0.2877)
    """
    return F.ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        _reduction(reduction),
        zero_infinity,
    )


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool3d``: an empty ``stride`` means ``kernel_size``; no indices.

    Args:
        input (Tensor): the input.
        kernel_size (int or list of int): the window size.
        stride (list of int, optional): the stride (empty: the kernel size).
        padding (int or list of int, optional): implicit -inf padding. Default: 0.
        dilation (int or list of int, optional): the window's spacing. Default: 1.
        ceil_mode (bool, optional): ceil instead of floor for the output size. Default: False.

    Example:
        >>> framework.max_pool3d(framework.arange(8.0).reshape(1, 2, 2, 2), 2)
        tensor([[[[7.]]]])
    """
    stride = None if stride is None or stride == () or stride == [] else stride
    return F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d_with_indices``: always ``(output, indices)``.

    Args:
        input (Tensor): the input.
        kernel_size (int or list of int): the window size.
        stride (list of int, optional): the stride (empty: the kernel size).
        padding (int or list of int, optional): implicit -inf padding. Default: 0.
        dilation (int or list of int, optional): the window's spacing. Default: 1.
        ceil_mode (bool, optional): ceil instead of floor for the output size. Default: False.

    Example:
        >>> framework.max_pool1d_with_indices(framework.arange(4.0).reshape(1, 4), 2)
        (tensor([[1., 3.]]), tensor([[1, 3]]))
    """
    stride = None if stride is None or stride == () or stride == [] else stride
    return _mp1wi(input, kernel_size, stride, padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: always ``(output, indices)`` (unlike the F form).

    Args:
        input (Tensor): the input.
        output_size (int or tuple): the output size.

    Example:
        >>> framework.adaptive_max_pool1d(framework.arange(4.0).reshape(1, 4), 2)
        (tensor([[1., 3.]]), tensor([[1, 3]]))
    """
    return _amp1d(input, output_size, True)


def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: :func:`nn.functional.pad` in ``'constant'`` mode.

    Args:
        input (Tensor): the input.
        pad (list of int): the padding sizes, last dimension first.
        value (float): the replacement (threshold) or the padding value.

    Example:
        >>> framework.constant_pad_nd(framework.ones(2), [1, 0])
        tensor([0., 1., 1.])
    """
    return F.pad(input, pad, "constant", value)


def affine_grid_generator(theta, size, align_corners):
    """``torch.affine_grid_generator``: :func:`nn.functional.affine_grid` (all required).

    Args:
        theta (Tensor): the affine matrices, :math:`(N, 2, 3)` or :math:`(N, 3, 4)`.
        size (list of int): the output size :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`.
        align_corners (bool): whether -1 and 1 are the corner pixels' centres.

    Example:
        >>> framework.affine_grid_generator(framework.eye(2, 3)[None], [1, 1, 1, 1], False)
        tensor([[[[0., 0.]]]])
    """
    return F.affine_grid(theta, size, align_corners)


# same signature as nn.functional's: the function itself
conv3d = F.conv3d
conv_transpose3d = F.conv_transpose3d
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
channel_shuffle = F.channel_shuffle
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
pdist = F.pdist
bilinear = F.bilinear
prelu = F.prelu
hardshrink = F.hardshrink

__all__ = [n for n in dir() if not n.startswith("_") and n not in ("F",)]
