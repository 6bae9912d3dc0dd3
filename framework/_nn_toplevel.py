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

    Example:
        >>> framework.dropout(framework.ones(3), 0.0, True)
        tensor([1., 1., 1.])
    """
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout(input, p, train)``: :func:`nn.functional.alpha_dropout`.

    Example:
        >>> framework.alpha_dropout(framework.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout(input, p, train)``: alpha dropout of whole channels.

    Example:
        >>> framework.feature_alpha_dropout(framework.ones(1, 2, 2), 0.5, False).shape
        torch.Size([1, 2, 2])
    """
    return F.feature_alpha_dropout(input, p, train)


def feature_dropout(input, p, train):
    """``torch.feature_dropout(input, p, train)``: zeroes whole channels ``input[n, c]`` (any
    input of 2 or more dims, noise of shape ``(N, C, 1, ...)``) and scales by ``1 / (1 - p)``.

    Example:
        >>> framework.feature_dropout(framework.ones(1, 2, 2), 0.5, False)
        tensor([[[1., 1.],
                 [1., 1.]]])
    """
    _dropout._check_p(p)
    return _dropout._dropout_impl(input, p, train, False, feature=True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding``: the table first; a negative ``padding_idx`` means none (ATen's).

    Example:
        >>> framework.embedding(framework.eye(3), framework.tensor([2, 0]))
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
    """
    pad = None if padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, pad, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``torch.layer_norm``: :func:`nn.functional.layer_norm` (``cudnn_enable`` is ignored).

    Example:
        >>> framework.layer_norm(framework.tensor([[1.0, 3.0]]), [2])
        tensor([[-1.0000,  1.0000]])
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``torch.group_norm``: :func:`nn.functional.group_norm` (``cudnn_enabled`` is ignored).

    Example:
        >>> framework.group_norm(framework.tensor([[1.0, 3.0]]), 1)
        tensor([[-1.0000,  1.0000]])
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
):
    """``torch.batch_norm``: ATen's order (affine first, then the running stats); all required.

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

    Example:
        >>> framework.rms_norm(framework.tensor([3.0, 4.0]), [2])
        tensor([0.8485, 1.1314])
    """
    return F.rms_norm(input, normalized_shape, weight, eps)


def selu(input):
    """``torch.selu``: :func:`nn.functional.selu`.

    Example:
        >>> framework.selu(framework.tensor([1.0]))
        tensor([1.0507])
    """
    return F.selu(input)


def celu(input, alpha=1.0):
    """``torch.celu``: :func:`nn.functional.celu`.

    Example:
        >>> framework.celu(framework.tensor([1.0]))
        tensor([1.])
    """
    return F.celu(input, alpha)


def threshold(input, threshold, value):
    """``torch.threshold(input, threshold, value)``: ``value`` where ``input <= threshold``.

    Example:
        >>> framework.threshold(framework.tensor([0.5, 2.0]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    return F.threshold(input, threshold, value)


def rrelu(input, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu``: :func:`nn.functional.rrelu` (``generator`` must be None here).

    Example:
        >>> framework.rrelu(framework.tensor([-1.0, 1.0]))
        tensor([-0.2292,  1.0000])
    """
    if generator is not None:
        raise NotImplementedError("rrelu: a generator is not supported here")
    return F.rrelu(input, lower, upper, training)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution``: the convolution of ``weight.dim() - 2`` spatial dims, transposed
    or not, with every argument given (ATen's ``aten::convolution``).

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

    Example:
        >>> framework.native_channel_shuffle(framework.arange(4.0).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    return F.channel_shuffle(input, groups)


def kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div``: ATen's ``reduction`` int; mean is over all elements, with no warning.

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

    Example:
        >>> one = framework.ones(2)
        >>> framework.margin_ranking_loss(one, 0 * one, -one, 0.0, 1)
        tensor(1.)
    """
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss``: ATen's ``reduction`` int.

    Example:
        >>> framework.cosine_embedding_loss(framework.ones(1, 2), framework.ones(1, 2),
        ...                                 framework.ones(1), 0.0, 1)
        tensor(0.)
    """
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss``: ATen's ``reduction`` int.

    Example:
        >>> framework.hinge_embedding_loss(framework.zeros(2), -framework.ones(2), 1.0, 1)
        tensor(1.)
    """
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss``: every argument required, ``reduction`` as ATen's int.

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

    Example:
        >>> framework.max_pool3d(framework.arange(8.0).reshape(1, 2, 2, 2), 2)
        tensor([[[[7.]]]])
    """
    stride = None if stride is None or stride == () or stride == [] else stride
    return F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d_with_indices``: always ``(output, indices)``.

    Example:
        >>> framework.max_pool1d_with_indices(framework.arange(4.0).reshape(1, 4), 2)
        (tensor([[1., 3.]]), tensor([[1, 3]]))
    """
    stride = None if stride is None or stride == () or stride == [] else stride
    return _mp1wi(input, kernel_size, stride, padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: always ``(output, indices)`` (unlike the F form).

    Example:
        >>> framework.adaptive_max_pool1d(framework.arange(4.0).reshape(1, 4), 2)
        (tensor([[1., 3.]]), tensor([[1, 3]]))
    """
    return _amp1d(input, output_size, True)


def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: :func:`nn.functional.pad` in ``'constant'`` mode.

    Example:
        >>> framework.constant_pad_nd(framework.ones(2), [1, 0])
        tensor([0., 1., 1.])
    """
    return F.pad(input, pad, "constant", value)


def affine_grid_generator(theta, size, align_corners):
    """``torch.affine_grid_generator``: :func:`nn.functional.affine_grid` (all required).

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
