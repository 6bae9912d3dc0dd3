"""Loss modules: thin wrappers over framework.ops.loss, weights registered as buffers."""

from ..ops import _loss_fast as _fast, loss as F
from .module import Module

__all__ = [
    "L1Loss",
    "MSELoss",
    "SmoothL1Loss",
    "HuberLoss",
    "NLLLoss",
    "CrossEntropyLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F._reduction(reduction, size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)  # moves with .to() and is in state_dict


class L1Loss(_Loss):
    r"""Creates a criterion that measures the mean absolute error (MAE) between each element in the
    input :math:`x` and target :math:`y`.

    .. math::
        \ell(x, y) = L = \{l_1, \dots, l_N\}^\top, \quad l_n = |x_n - y_n|

    See :func:`~framework.nn.functional.l1_loss` for the functional form.

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
        >>> x = framework.tensor([[0.5, 2.0], [-1.0, 3.0]], requires_grad=True)
        >>> y = framework.tensor([[1.0, 2.0], [1.0, 0.0]])
        >>> nn.L1Loss()(x, y)
        tensor(1.3750, grad_fn=<MeanBackward0>)
    """

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Creates a criterion that measures the mean squared error (squared L2 norm) between each
    element in the input :math:`x` and target :math:`y`.

    .. math::
        l_n = (x_n - y_n)^2

    See :func:`~framework.nn.functional.mse_loss` for the functional form.

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
        >>> x = framework.tensor([[0.5, 2.0], [-1.0, 3.0]], requires_grad=True)
        >>> y = framework.tensor([[1.0, 2.0], [1.0, 0.0]])
        >>> loss = nn.MSELoss()(x, y)
        >>> loss
        tensor(3.3125, grad_fn=<MseLossBackward0>)
        >>> loss.backward(); x.grad
        tensor([[-0.2500,  0.0000],
                [-1.0000,  1.5000]])
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    r"""Creates a criterion that uses a squared term if the absolute element-wise error falls below
    ``beta`` and an L1 term otherwise; less sensitive to outliers than :class:`MSELoss` (Fast
    R-CNN).

    .. math::
        l_n = \begin{cases} 0.5 (x_n - y_n)^2 / \beta & |x_n - y_n| < \beta \\
        |x_n - y_n| - 0.5 \beta & \text{otherwise} \end{cases}

    See :func:`~framework.nn.functional.smooth_l1_loss` for the functional form.

    Args:
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).
        beta (float, optional): the threshold at which to change between L1 and L2 loss,
            non-negative (default: 1.0).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the same shape as the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Example:
        >>> x = framework.tensor([[0.5, 2.0], [-1.0, 3.0]], requires_grad=True)
        >>> y = framework.tensor([[1.0, 2.0], [1.0, 0.0]])
        >>> nn.SmoothL1Loss(beta=0.5)(x, y)
        tensor(1.1875, grad_fn=<SmoothL1LossBackward0>)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    r"""Creates a criterion that uses a squared term if the absolute element-wise error falls below
    ``delta`` and a delta-scaled L1 term otherwise; equals :class:`SmoothL1Loss` times ``delta``.

    .. math::
        l_n = \begin{cases} 0.5 (x_n - y_n)^2 & |x_n - y_n| < \delta \\
        \delta (|x_n - y_n| - 0.5 \delta) & \text{otherwise} \end{cases}

    See :func:`~framework.nn.functional.huber_loss` for the functional form.

    Args:
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).
        delta (float, optional): the threshold at which to change between delta-scaled L1 and L2
            loss, positive (default: 1.0).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the same shape as the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Example:
        >>> x = framework.tensor([[0.5, 2.0], [-1.0, 3.0]], requires_grad=True)
        >>> y = framework.tensor([[1.0, 2.0], [1.0, 0.0]])
        >>> nn.HuberLoss(delta=0.5)(x, y)
        tensor(0.5938, grad_fn=<HuberLossBackward0>)
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    r"""The negative log likelihood loss, for a classification problem with C classes: the input
    holds log-probabilities (add a :class:`LogSoftmax` layer, or use :class:`CrossEntropyLoss`).

    .. math::
        l_n = -w_{y_n} x_{n, y_n}, \quad \ell = \sum_n \frac{l_n}{\sum_n w_{y_n}} \text{ (mean)}

    See :func:`~framework.nn.functional.nll_loss` for the functional form.

    Args:
        weight (Tensor, optional): a manual rescaling weight given to each class, :math:`(C)`
            (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        ignore_index (int, optional): a target value that is ignored and does not contribute to the
            input gradient (default: -100).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, C)`, :math:`(C)` or :math:`(N, C, d_1, ..., d_K)`.
        - Target: :math:`(N)`, :math:`()` or :math:`(N, d_1, ..., d_K)`, class indices in :math:`[0,
          C)`.
        - Output: scalar; with ``reduction='none'``, the target's shape.

    Example:
        >>> m, loss = nn.LogSoftmax(dim=1), nn.NLLLoss()
        >>> x = framework.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]], requires_grad=True)
        >>> out = loss(m(x), framework.tensor([1, 2]))
        >>> out
        tensor(0.2796, grad_fn=<NllLossBackward0>)
    """

    def __init__(
        self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class CrossEntropyLoss(_WeightedLoss):
    r"""Computes the cross entropy loss between input logits and target: :class:`LogSoftmax`
    followed by :class:`NLLLoss`, for a classification problem with C classes. The target holds
    class indices, or class probabilities (same shape as the input).

    .. math::
        l_n = -w_{y_n} \log \frac{\exp(x_{n, y_n})}{\sum_c \exp(x_{n, c})}, \quad \ell = \sum_n
        \frac{l_n}{\sum_n w_{y_n}} \text{ (mean, class indices)}

    See :func:`~framework.nn.functional.cross_entropy` for the functional form.

    Args:
        weight (Tensor, optional): a manual rescaling weight given to each class, :math:`(C)`
            (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        ignore_index (int, optional): a target value that is ignored and does not contribute to the
            input gradient; class-index targets only (default: -100).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).
        label_smoothing (float, optional): in [0.0, 1.0]; the target becomes a mix of the original
            and a uniform distribution (*Rethinking the Inception Architecture for Computer Vision*)
            (default: 0.0).

    Shape:
        - Input: :math:`(C)`, :math:`(N, C)` or :math:`(N, C, d_1, ..., d_K)`, unnormalized logits.
        - Target: class indices, :math:`()`, :math:`(N)` or :math:`(N, d_1, ..., d_K)`; or
          probabilities, the shape of the input.
        - Output: scalar; with ``reduction='none'``, the target's shape (class indices) or the
          input's without :math:`C`.

    Example:
        >>> loss = nn.CrossEntropyLoss()
        >>> x = framework.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], requires_grad=True)
        >>> out = loss(x, framework.tensor([0, 2]))
        >>> out
        tensor(0.1755, grad_fn=<NllLossBackward0>)
        >>> out.backward(); x.grad
        tensor([[-0.1072,  0.0876,  0.0196],
                [ 0.0247,  0.0272, -0.0519]])
        >>> nn.CrossEntropyLoss(label_smoothing=0.1)(x, framework.tensor([0, 2]))
        tensor(0.3455, grad_fn=<AddBackward0>)
    """

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index=-100,
        reduce=None,
        reduction="mean",
        label_smoothing=0.0,
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        weight = self.weight
        if weight is None and self.reduction == "mean" and (self.label_smoothing == 0.0) is True:
            out = _fast.cross_entropy(input, target, F.NllLoss, self.ignore_index)
            if out is not None:  # F.cross_entropy's common case, without its keyword call
                return out
        return F.cross_entropy(
            input,
            target,
            weight=weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_WeightedLoss):
    r"""Creates a criterion that measures the Binary Cross Entropy between the target and the input
    probabilities (log terms clamped at -100, as in torch).

    .. math::
        l_n = -w_n \left[ y_n \log x_n + (1 - y_n) \log(1 - x_n) \right]

    See :func:`~framework.nn.functional.binary_cross_entropy` for the functional form.

    Args:
        weight (Tensor, optional): a manual rescaling weight given to the loss of each batch
            element, broadcast to the input (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the same shape as the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Example:
        >>> m, loss = nn.Sigmoid(), nn.BCELoss()
        >>> x = framework.tensor([0.8, -1.0, 0.3])
        >>> loss(m(x), framework.tensor([1.0, 0.0, 1.0]))
        tensor(0.4129)
    """

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    r"""Combines a :class:`Sigmoid` layer and :class:`BCELoss` in one class, more numerically stable
    (log-sum-exp trick).

    .. math::
        l_n = -w_n \left[ p_c y_n \log \sigma(x_n) + (1 - y_n) \log(1 - \sigma(x_n)) \right]

    See :func:`~framework.nn.functional.binary_cross_entropy_with_logits` for the functional form.

    Args:
        weight (Tensor, optional): a manual rescaling weight given to the loss of each batch element
            (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the output (default: ``'mean'``).
        pos_weight (Tensor, optional): a weight :math:`p_c` of positive examples, broadcast along
            the last (class) dimension (default: None).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the same shape as the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Example:
        >>> loss = nn.BCEWithLogitsLoss(pos_weight=framework.tensor([2.0]))
        >>> loss(framework.tensor([0.8, -1.0, 0.3]), framework.tensor([1.0, 0.0, 1.0]))
        tensor(0.7214)
    """

    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
    ):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )
