"""Losses composed as torch composes them (so values, node names and gradients agree):
kl_div, multilabel_soft_margin, hinge_embedding, cosine_embedding, margin_ranking,
triplet_margin(_with_distance), poisson_nll, gaussian_nll; and every loss module."""

from ..amp.autocast_mode import entry as _amp_entry
import math
import warnings

from ..creation import full_like, zeros_like
from ..ops import margin_loss as _m
from ..ops.loss import _reduction
from ..dtypes import cpp_type_name
from ..tensor import Tensor
from .distance import _add_scalar, _sub_scalar, pairwise_distance
from .loss import _Loss, _WeightedLoss


def _apply(loss, reduction):
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


@_amp_entry("kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    r"""Computes the Kullback-Leibler divergence loss, with ``input`` given as log-probabilities
    (and ``target`` as probabilities unless ``log_target``).

    .. math::
        \ell_n = y_n (\log y_n - x_n)

    See :class:`~framework.nn.KLDivLoss` for the module form.

    Args:
        input (Tensor): log-probabilities, of any shape.
        target (Tensor): probabilities (log-probabilities with ``log_target``), of the shape of
            ``input``.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``). ``'batchmean'`` (the sum
            divided by the batch size) is the mathematically correct KL divergence; ``'mean'``
            divides by the number of elements.
        log_target (bool, optional): ``target`` holds log-probabilities (default: False).

    Shape:
        - Input: :math:`(*)`.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> logq = F.log_softmax(framework.tensor([[1.0, 2.0, 3.0]]), dim=1)
        >>> p = framework.tensor([[0.2, 0.3, 0.5]])
        >>> F.kl_div(logq, p, reduction='batchmean')
        tensor(0.0780)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the "
            "support size.'batchmean' divides only by the batch size, and aligns with "
            "the KL div math definition.'mean' will be changed to behave the same as "
            "'batchmean' in the next major release."
        )
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target.xlogy(target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _apply(loss, reduction)


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    r"""Computes the multi-label one-versus-all loss: the binary logistic loss of each class,
    averaged over the classes.

    .. math::
        \ell_n = -\frac{1}{C} \sum_c w_c \left[ y_{n,c} \log \sigma(x_{n,c}) + (1 - y_{n,c}) \log
        \sigma(-x_{n,c}) \right]

    See :class:`~framework.nn.MultiLabelSoftMarginLoss` for the module form.

    Args:
        input (Tensor): logits, :math:`(N, C)` or :math:`(C)`.
        target (Tensor): 0/1 labels, of the shape of ``input``.
        weight (Tensor, optional): a weight per class, :math:`(C)` (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, C)` or :math:`(C)`.
        - Target: the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([[2.0, -1.0, 0.5]])
        >>> F.multilabel_soft_margin_loss(x, framework.tensor([[1.0, 0.0, 1.0]]))
        tensor(0.3048)
    """
    reduction = _reduction(reduction, size_average, reduce)
    from ..ops.nonlinear import logsigmoid

    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _apply(loss, reduction)


@_amp_entry("hinge_embedding_loss")
def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    r"""Computes the hinge embedding loss, for inputs that are distances between pairs labelled
    similar (1) or dissimilar (-1).

    .. math::
        \ell_n = \begin{cases} x_n & y_n = 1 \\
        \max(0, \text{margin} - x_n) & y_n = -1 \end{cases}

    See :class:`~framework.nn.HingeEmbeddingLoss` for the module form.

    Args:
        input (Tensor): the distances, of any shape.
        target (Tensor): labels, 1 or -1.
        margin (float, optional): the margin for dissimilar pairs (default: 1.0).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input: :math:`(*)`.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([0.3, 0.4, 1.5])
        >>> F.hinge_embedding_loss(x, framework.tensor([1.0, -1.0, -1.0]))
        tensor(0.3000)
    """
    reduction = _reduction(reduction, size_average, reduce)
    zeros = zeros_like(input)  # not input * 0: inf * 0 would be NaN
    # torch's C++ `margin - self` is empty_like(self).fill_(margin).sub_(self): self's dtype
    margin_clamp = (full_like(input, margin) - input).clamp_min(0)
    output_margin = margin_clamp.where(target != 1, zeros)
    output_self = input.where(target != -1, zeros)
    return _apply(output_margin + output_self, reduction)


@_amp_entry("cosine_embedding_loss")
def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    r"""Computes the cosine embedding loss, which pulls pairs labelled 1 together and pushes pairs
    labelled -1 apart in cosine similarity.

    .. math::
        \ell_n = \begin{cases} 1 - \cos(x_1, x_2) & y = 1 \\
        \max(0, \cos(x_1, x_2) - \text{margin}) & y = -1 \end{cases}

    See :class:`~framework.nn.CosineEmbeddingLoss` for the module form.

    Args:
        input1 (Tensor): the first embeddings, :math:`(N, D)` or :math:`(D)`.
        input2 (Tensor): the second embeddings, of the shape of ``input1``.
        target (Tensor): labels 1 or -1, :math:`(N)` or :math:`()`.
        margin (float, optional): in [-1, 1]; 0 to 0.5 is suggested (default: 0.0).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input1, Input2: :math:`(N, D)` or :math:`(D)`.
        - Target: :math:`(N)` or :math:`()`.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> a = framework.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> b = framework.tensor([[1.0, 1.0], [1.0, 1.0]])
        >>> F.cosine_embedding_loss(a, b, framework.tensor([1, -1]), reduction='none')
        tensor([0.2929, 1.0000])
    """
    reduction = _reduction(reduction, size_average, reduce)
    eps = 1e-12
    d = input1.dim() - 1
    prod_sum = (input1 * input2).sum(d)
    mag1 = _add_scalar((input1 * input1).sum(d), eps)  # (torch's C++: add.Scalar)
    mag2 = _add_scalar((input2 * input2).sum(d), eps)
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = zeros_like(cos)  # not cos * 0: inf * 0 would be NaN
    pos = cos.new_ones(()) - cos  # (C++ 1 - cos: sub of a wrapped number, SubBackward0)
    neg = _sub_scalar(cos, margin).clamp_min(0)
    return _apply(pos.where(target == 1, zeros) + neg.where(target == -1, zeros), reduction)


@_amp_entry("margin_ranking_loss")
def margin_ranking_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    r"""Computes the margin ranking loss: ``input1`` should rank higher than ``input2`` where
    ``target`` is 1, lower where it is -1.

    .. math::
        \ell_n = \max(0, -y_n (x_{1,n} - x_{2,n}) + \text{margin})

    See :class:`~framework.nn.MarginRankingLoss` for the module form.

    Args:
        input1 (Tensor): the first scores, :math:`(N)` or :math:`()`.
        input2 (Tensor): the second scores, of the shape of ``input1``.
        target (Tensor): labels, 1 or -1.
        margin (float, optional): the margin (default: 0.0).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input1, Input2, Target: :math:`(N)` or :math:`()`.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x1, x2 = framework.tensor([1.0, 2.0]), framework.tensor([2.0, 0.5])
        >>> F.margin_ranking_loss(x1, x2, framework.tensor([1.0, 1.0]), margin=0.5)
        tensor(0.7500)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension "
            f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
            f"target: {target.shape} "
        )
    diff = input1 - input2  # torch's kernel subtracts first (its bool errors come first)
    return _apply(_add_scalar(-target * diff, margin).clamp_min(0), reduction)


@_amp_entry("triplet_margin_loss")
def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    r"""Computes the triplet margin loss: an anchor should be closer (in the p-norm distance of
    :func:`pairwise_distance`) to the positive sample than to the negative one by at least
    ``margin``.

    .. math::
        \ell_n = \max(d(a_n, p_n) - d(a_n, n_n) + \text{margin}, 0)

    See :class:`~framework.nn.TripletMarginLoss` for the module form.

    Args:
        anchor (Tensor): the anchors, :math:`(N, D)` or :math:`(D)`.
        positive (Tensor): the positive samples, of the shape of ``anchor``.
        negative (Tensor): the negative samples, of the shape of ``anchor``.
        margin (float, optional): the margin (default: 1.0).
        p (float, optional): the norm degree of the distance (default: 2).
        eps (float, optional): added to the difference for numerical stability (default: 1e-6).
        swap (bool, optional): use the distance between positive and negative when it is smaller
            (distance swap, Balntas et al.) (default: False).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Anchor, Positive, Negative: :math:`(N, D)` or :math:`(D)`.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> a, p, n = framework.zeros(2, 2), framework.ones(2, 2), 2 * framework.ones(2, 2)
        >>> F.triplet_margin_loss(a, p, n, margin=2.0)
        tensor(0.5858)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _apply((_add_scalar(d_pos, margin) - d_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    r"""Computes the triplet margin loss with a custom distance function (:func:`pairwise_distance`
    by default).

    .. math::
        \ell_n = \max(d(a_n, p_n) - d(a_n, n_n) + \text{margin}, 0)

    See :class:`~framework.nn.TripletMarginWithDistanceLoss` for the module form.

    Args:
        anchor (Tensor): the anchors, :math:`(N, *)`.
        positive (Tensor): the positive samples, of the shape of ``anchor``.
        negative (Tensor): the negative samples, of the shape of ``anchor``.
        distance_function (Callable, optional): a non-negative distance between two batches of
            samples (default: None, :func:`pairwise_distance`).
        margin (float, optional): the margin, positive (default: 1.0).
        swap (bool, optional): use the distance between positive and negative when it is smaller
            (default: False).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Anchor, Positive, Negative: :math:`(N, *)`.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> a, p, n = framework.zeros(2, 2), framework.ones(2, 2), 2 * framework.ones(2, 2)
        >>> cos = lambda x, y: 1.0 - F.cosine_similarity(x, y + 1.0)
        >>> F.triplet_margin_with_distance_loss(a, p, n, distance_function=cos)
        tensor(1.)
    """
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(dist(positive, negative))
    return _apply((margin + d_pos - d_neg).clamp_min(0), _reduction(reduction))


@_amp_entry("poisson_nll_loss")
def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    r"""Computes the negative log likelihood loss of a Poisson distribution of the target.

    .. math::
        \ell_n = e^{x_n} - y_n x_n \ \text{(log\_input)}, \quad x_n - y_n \log(x_n + \epsilon) \
        \text{(otherwise)}

    See :class:`~framework.nn.PoissonNLLLoss` for the module form.

    Args:
        input (Tensor): the expectation of the Poisson distribution (its log with ``log_input``).
        target (Tensor): the counts, :math:`y \sim \text{Poisson}(\text{input})`.
        log_input (bool, optional): ``input`` is the log of the rate (default: True).
        full (bool, optional): add the Stirling approximation term :math:`y \log y - y + 0.5
            \log(2\pi y)` (default: False).
        size_average (bool, optional): deprecated (see ``reduction``).
        eps (float, optional): avoids :math:`\log(0)` when ``log_input`` is False (default: 1e-8).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input: :math:`(*)`.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([0.0, 1.0, 2.0])
        >>> F.poisson_nll_loss(x, framework.tensor([1.0, 2.0, 8.0]))
        tensor(-2.2976)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * _add_scalar(input, eps).log()
    if full:
        from ..ops.elementwise import MulScalar  # (C++ double * Tensor: mul.Scalar)

        log2pit = MulScalar.apply(target, other=2 * math.pi).log()
        stirling = target * target.log() - target + MulScalar.apply(log2pit, other=0.5)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    r"""Computes the Gaussian negative log likelihood loss of the target under
    :math:`\mathcal{N}(\text{input}, \text{var})`.

    .. math::
        \ell_n = \frac{1}{2} \left( \log \max(\text{var}_n, \epsilon) + \frac{(x_n -
        y_n)^2}{\max(\text{var}_n, \epsilon)} \right) + \text{const}

    See :class:`~framework.nn.GaussianNLLLoss` for the module form.

    Args:
        input (Tensor): the expectations, :math:`(N, *)` or :math:`(*)`.
        target (Tensor): samples from the Gaussian, of the shape of ``input`` (or one dimension
            fewer, broadcast).
        var (Tensor or float): the variances: the shape of ``input``, or one dimension of size 1
            less (homoscedastic), or a float.
        full (bool, optional): include the constant :math:`\frac{1}{2}\log 2\pi` (default: False).
        eps (float, optional): the variances are clamped to at least this, for stability (default:
            1e-6).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, *)` or :math:`(*)`.
        - Target: the shape of the input.
        - Var: the shape of the input, or with one dimension of size 1.
        - Output: scalar; with ``reduction='none'``, the input's shape.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x, y = framework.tensor([1.0, 2.0]), framework.tensor([1.5, 1.0])
        >>> F.gaussian_nll_loss(x, y, framework.tensor([0.5, 2.0]))
        tensor(0.2500)
    """
    if not isinstance(var, Tensor):
        var = input.new_full(tuple(input.shape), float(var)) if hasattr(input, "new_full") else var
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if not var.is_floating_point():  # torch clamps var in place to eps
        raise RuntimeError(
            "result type Float can't be cast to the desired output type "
            f"{cpp_type_name(var._data.dtype)}"
        )
    var = var.clone()
    # torch clamps under no_grad: the gradient passes
    var._data = var.xp.maximum(var._data, eps).astype(var._data.dtype, copy=False)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply(loss, reduction)


soft_margin_loss = _m.soft_margin_loss
multi_margin_loss = _m.multi_margin_loss
multilabel_margin_loss = _m.multilabel_margin_loss


class KLDivLoss(_Loss):
    r"""The Kullback-Leibler divergence loss; the input holds log-probabilities (and the target
    probabilities, or log-probabilities with ``log_target``).

    .. math::
        L(y_{pred}, y_{true}) = y_{true} \cdot (\log y_{true} - y_{pred})

    See :func:`~framework.nn.functional.kl_div` for the functional form.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'``, ``'batchmean'`` (the sum divided by the batch size:
            the true KL divergence), ``'sum'`` or ``'mean'`` (divides by the number of elements)
            (default: ``'mean'``).
        log_target (bool, optional): the target is given in log space (default: False).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the same shape as the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Example:
        >>> loss = nn.KLDivLoss(reduction='batchmean')
        >>> logq = F.log_softmax(framework.tensor([[1.0, 2.0, 3.0]]), dim=1)
        >>> loss(logq, framework.tensor([[0.2, 0.3, 0.5]]))
        tensor(0.0780)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class SoftMarginLoss(_Loss):
    r"""Creates a criterion that optimizes a two-class classification logistic loss between the
    input and targets of 1 or -1.

    .. math::
        \text{loss}(x, y) = \sum_i \frac{\log(1 + \exp(-y[i] x[i]))}{N}

    See :func:`~framework.nn.functional.soft_margin_loss` for the functional form.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the same shape as the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Example:
        >>> nn.SoftMarginLoss()(framework.tensor([2.0, -1.0]), framework.tensor([1.0, 1.0]))
        tensor(0.7201)
    """

    def forward(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    r"""Creates a criterion that optimizes a multi-label one-versus-all loss based on max-entropy,
    between input logits and 0/1 targets.

    .. math::
        \text{loss}(x, y) = -\frac{1}{C} \sum_i y[i] \log \sigma(x[i]) + (1 - y[i]) \log
        \sigma(-x[i])

    See :func:`~framework.nn.functional.multilabel_soft_margin_loss` for the functional form.

    Args:
        weight (Tensor, optional): a manual rescaling weight given to each class, :math:`(C)`
            (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, C)`.
        - Target: :math:`(N, C)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Example:
        >>> x, y = framework.tensor([[2.0, -1.0, 0.5]]), framework.tensor([[1.0, 0.0, 1.0]])
        >>> nn.MultiLabelSoftMarginLoss()(x, y)
        tensor(0.3048)
    """

    def forward(self, input, target):
        return multilabel_soft_margin_loss(input, target, self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    r"""Creates a criterion that optimizes a multi-class multi-classification hinge loss: every
    target class should score at least 1 more than every non-target class. The target holds the
    class indices, ended by the first -1.

    .. math::
        \text{loss}(x, y) = \sum_{ij} \frac{\max(0, 1 - (x[y[j]] - x[i]))}{C}, \quad i \notin y

    See :func:`~framework.nn.functional.multilabel_margin_loss` for the functional form.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(C)` or :math:`(N, C)`.
        - Target: the shape of the input, padded with -1.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Example:
        >>> loss = nn.MultiLabelMarginLoss()
        >>> loss(framework.tensor([[0.1, 0.2, 0.4, 0.8]]), framework.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """

    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    r"""Creates a criterion that optimizes a multi-class classification hinge loss (margin-based
    loss) between scores and class indices.

    .. math::
        \text{loss}(x, y) = \frac{\sum_{i \ne y} \max(0, \text{margin} - x[y] + x[i])^p}{C}

    See :func:`~framework.nn.functional.multi_margin_loss` for the functional form.

    Args:
        p (int, optional): 1 or 2 (default: 1).
        margin (float, optional): the margin (default: 1).
        weight (Tensor, optional): a manual rescaling weight given to each class, :math:`(C)`
            (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, C)` or :math:`(C)`.
        - Target: :math:`(N)` or :math:`()`.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Example:
        >>> nn.MultiMarginLoss()(framework.tensor([[0.1, 0.2, 0.4, 0.8]]), framework.tensor([3]))
        tensor(0.3250)
    """

    def __init__(
        self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return multi_margin_loss(
            input, target, self.p, self.margin, self.weight, reduction=self.reduction
        )


class HingeEmbeddingLoss(_Loss):
    r"""Measures the loss given an input tensor :math:`x` (usually a distance) and a labels tensor
    :math:`y` of 1 or -1 (similar or dissimilar pairs).

    .. math::
        l_n = \begin{cases} x_n & y_n = 1 \\
        \max(0, \text{margin} - x_n) & y_n = -1 \end{cases}

    See :func:`~framework.nn.functional.hinge_embedding_loss` for the functional form.

    Args:
        margin (float, optional): the margin (default: 1.0).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the same shape as the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Example:
        >>> x, y = framework.tensor([0.3, 0.4, 1.5]), framework.tensor([1.0, -1.0, -1.0])
        >>> nn.HingeEmbeddingLoss()(x, y)
        tensor(0.3000)
    """

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    r"""Creates a criterion that measures whether two inputs are similar (label 1) or dissimilar
    (label -1) by their cosine similarity; used for learning nonlinear embeddings or semi-supervised
    learning.

    .. math::
        \text{loss}(x, y) = \begin{cases} 1 - \cos(x_1, x_2) & y = 1 \\
        \max(0, \cos(x_1, x_2) - \text{margin}) & y = -1 \end{cases}

    See :func:`~framework.nn.functional.cosine_embedding_loss` for the functional form.

    Args:
        margin (float, optional): between -1 and 1; 0 to 0.5 is suggested (default: 0).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input1: :math:`(N, D)` or :math:`(D)`.
        - Input2: the shape of Input1.
        - Target: :math:`(N)` or :math:`()`.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Example:
        >>> a = framework.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> b = framework.tensor([[1.0, 1.0], [1.0, 1.0]])
        >>> nn.CosineEmbeddingLoss()(a, b, framework.tensor([1, -1]))
        tensor(0.6464)
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, self.margin, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    r"""Creates a criterion that measures the loss given inputs :math:`x_1`, :math:`x_2` and a label
    :math:`y` of 1 or -1: :math:`y = 1` means :math:`x_1` should be ranked higher than :math:`x_2`,
    and vice versa.

    .. math::
        \text{loss}(x_1, x_2, y) = \max(0, -y (x_1 - x_2) + \text{margin})

    See :func:`~framework.nn.functional.margin_ranking_loss` for the functional form.

    Args:
        margin (float, optional): the margin (default: 0).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input1: :math:`(N)` or :math:`()`.
        - Input2: the shape of Input1.
        - Target: the shape of Input1.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Example:
        >>> loss = nn.MarginRankingLoss(margin=0.5)
        >>> x1, x2 = framework.tensor([1.0, 2.0]), framework.tensor([2.0, 0.5])
        >>> loss(x1, x2, framework.tensor([1.0, 1.0]))
        tensor(0.7500)
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    r"""Creates a criterion that measures the triplet loss given an anchor, a positive and a
    negative example, with the pairwise p-norm distance: the anchor should be closer to the positive
    than to the negative by at least ``margin``.

    .. math::
        L(a, p, n) = \max\{d(a_i, p_i) - d(a_i, n_i) + \text{margin}, 0\}, \quad d(x_i, y_i) =
        \lVert x_i - y_i \rVert_p

    See :func:`~framework.nn.functional.triplet_margin_loss` for the functional form.

    Args:
        margin (float, optional): the margin (default: 1).
        p (float, optional): the norm degree for the pairwise distance (default: 2).
        eps (float, optional): a small constant for numerical stability (default: 1e-6).
        swap (bool, optional): use the distance swap of *Learning shallow convolutional feature
            descriptors with triplet losses* (default: False).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, D)` or :math:`(D)` for anchor, positive and negative.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Example:
        >>> a, p, n = framework.zeros(2, 2), framework.ones(2, 2), 2 * framework.ones(2, 2)
        >>> nn.TripletMarginLoss(margin=2.0)(a, p, n)
        tensor(0.5858)
    """

    def __init__(
        self,
        margin=1.0,
        p=2.0,
        eps=1e-6,
        swap=False,
        size_average=None,
        reduce=None,
        reduction="mean",
    ):
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_loss(
            anchor,
            positive,
            negative,
            self.margin,
            self.p,
            self.eps,
            self.swap,
            reduction=self.reduction,
        )


class TripletMarginWithDistanceLoss(_Loss):
    r"""Creates a criterion that measures the triplet loss given an anchor, a positive and a
    negative example, with a custom non-negative distance function
    (:func:`~framework.nn.functional.pairwise_distance` by default).

    .. math::
        L(a, p, n) = \max\{d(a_i, p_i) - d(a_i, n_i) + \text{margin}, 0\}

    See :func:`~framework.nn.functional.triplet_margin_with_distance_loss` for the functional form.

    Args:
        distance_function (Callable, optional): a non-negative, real-valued function of two tensors
            (default: None, pairwise distance).
        margin (float, optional): a non-negative margin (default: 1).
        swap (bool, optional): use the distance swap (default: False).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, *)` or :math:`(*)` for anchor, positive and negative.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Example:
        >>> loss = nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance())
        >>> loss(framework.zeros(2, 2), framework.ones(2, 2), 2 * framework.ones(2, 2))
        tensor(0.)
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class PoissonNLLLoss(_Loss):
    r"""Negative log likelihood loss with a Poisson distribution of the target.

    .. math::
        \text{target} \sim \mathrm{Poisson}(\text{input}), \quad \text{loss} = \text{input} -
        \text{target} \log(\text{input}) + \log(\text{target!})

    See :func:`~framework.nn.functional.poisson_nll_loss` for the functional form.

    Args:
        log_input (bool, optional): the input is the log of the rate, and the loss is
            :math:`\exp(\text{input}) - \text{target} \cdot \text{input}` (default: True).
        full (bool, optional): add the Stirling approximation term :math:`\text{target} \log
            \text{target} - \text{target} + 0.5 \log(2\pi\, \text{target})` (default: False).
        size_average (bool, optional): deprecated (see ``reduction``).
        eps (float, optional): avoids :math:`\log(0)` when ``log_input=False`` (default: 1e-8).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the same shape as the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Example:
        >>> x, y = framework.tensor([0.0, 1.0, 2.0]), framework.tensor([1.0, 2.0, 8.0])
        >>> nn.PoissonNLLLoss()(x, y)
        tensor(-2.2976)
    """

    def __init__(
        self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"
    ):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return poisson_nll_loss(
            log_input, target, self.log_input, self.full, eps=self.eps, reduction=self.reduction
        )


class GaussianNLLLoss(_Loss):
    r"""Gaussian negative log likelihood loss: the targets are treated as samples from Gaussian
    distributions with expectations and variances predicted by the network.

    .. math::
        \text{loss} = \frac{1}{2}\left(\log\left(\max(\text{var}, \epsilon)\right) +
        \frac{(\text{input} - \text{target})^2}{\max(\text{var}, \epsilon)}\right) + \text{const.}

    See :func:`~framework.nn.functional.gaussian_nll_loss` for the functional form.

    Args:
        full (bool, optional): include the constant term :math:`\frac{1}{2}\log 2\pi` (default:
            False).
        eps (float, optional): the variances are clamped to at least this, for stability (default:
            1e-6).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, *)` or :math:`(*)`.
        - Target: the shape of the input, or with one dimension fewer (broadcast).
        - Var: the shape of the input, or with one dimension of size 1 (homoscedastic), or a scalar.
        - Output: scalar; with ``reduction='none'``, the input's shape.

    Example:
        >>> loss = nn.GaussianNLLLoss()
        >>> x, y = framework.tensor([1.0, 2.0]), framework.tensor([1.5, 1.0])
        >>> loss(x, y, framework.tensor([0.5, 2.0]))
        tensor(0.2500)
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class CTCLoss(_Loss):
    """Connectionist temporal classification loss (module form of F.ctc_loss).

    Args:
        blank (int, optional): the blank label (default: 0).
        reduction (str, optional): ``'none'``, ``'mean'`` (each loss divided by its target length,
            then the batch mean) or ``'sum'`` (default: ``'mean'``).
        zero_infinity (bool, optional): replace infinite losses (inputs too short to be aligned to
            their targets) and their gradients by zero (default: False).

    Shape:
        log_probs (T, N, C) or (T, C); targets (N, S) or concatenated; lengths per batch.

    Example:
        >>> lp = framework.randn(5, 1, 3).log_softmax(2)
        >>> framework.nn.CTCLoss()(lp, framework.tensor([[1, 2]]), [5], [2]).shape
        torch.Size([])
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        from ..ops.ctc import ctc_loss

        return ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )


__all__ = [
    "KLDivLoss",
    "SoftMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiLabelMarginLoss",
    "MultiMarginLoss",
    "HingeEmbeddingLoss",
    "CosineEmbeddingLoss",
    "MarginRankingLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
    "CTCLoss",
]
