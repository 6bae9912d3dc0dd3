"""Loss primitives, named like torch.nn.functional's.

Cross-entropy is one fused primitive (log-softmax + weighted NLL, backward softmax - target);
the regression losses are small primitives so their grad_fn names match torch's.
"""

from ..amp.autocast_mode import entry as _amp_entry
import contextlib
import math
import warnings

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op, vmap_hook
from ..tensor import Tensor
from .. import dtypes
from .._errors import bool_subtraction, broadcast_shapes, refuse
from ._fastgrad import plain, wrap
from ._sum_kernel import nll_sums, torch_sum
from . import _loss_fast as _fast
from . import _sleef, _sleef_act
from .loss_backward import (
    BinaryCrossEntropyBackward,
    HuberLossBackward,
    MseLossBackward,
    SmoothL1LossBackward,
    bce_logits_input_backward,
    bce_logits_target_backward,
    bce_target_backward,
    kernel,
    loss_double_backward,
)
from .nll_backward import nll_double_backward

__all__ = [
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "nll_loss",
    "cross_entropy",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]

_type_name = dtypes.scalar_type_name


def _reduction(reduction, size_average=None, reduce=None):
    """Validate `reduction`; the legacy size_average/reduce flags win when given, as in torch."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        return "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(xp, loss, reduction):
    """torch's apply_loss_reduction on the per-element loss array: its sum (ATen's cascade
    order where ``_sum_kernel`` replays it, else NumPy's), divided by the count for 'mean'."""
    if reduction == "none":
        return loss
    total = torch_sum(loss, tuple(range(loss.ndim))) if loss.ndim else None
    total = loss.sum() if total is None else total.reshape(())
    if reduction == "mean":  # no NumPy warning for an empty loss: nan, as torch
        return total / loss.dtype.type(loss.size)
    return total


def _wrap_kernel(node_cls, grad, x, y, **params):
    """A pointwise loss's first gradient as a tensor: the node's array kernel (loss_backward's
    `kernel`), the values its create_graph node gives."""
    out = kernel(node_cls, grad._data, x._data, y._data, **params)
    return Tensor._make(out.astype(x._data.dtype, copy=False), x.device)


def _scale(grad, reduction, numel):
    """The upstream gradient of each element: a 'mean' spreads it over numel elements."""
    return grad / numel if reduction == "mean" else grad


def _no_grad_for(fn_name, arg, t):
    if isinstance(t, Tensor) and t.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{fn_name}' is not differentiable with respect to "
            f"argument '{arg}'. This input cannot have requires_grad True."
        )


def _quiet(xp):
    """log(0) = -inf is expected (and clamped) where torch is silent."""
    errstate = getattr(xp, "errstate", None)
    return errstate(divide="ignore", invalid="ignore") if errstate else contextlib.nullcontext()


def _warn_size(x, y):
    """torch's warning for differing shapes; then both are broadcast (as torch's
    broadcast_tensors, so a 0-dim operand no longer ranks below the other in promotion)."""
    _check_same_or_broadcast(tuple(x.shape), tuple(y.shape))
    if tuple(x.shape) != tuple(y.shape):
        warnings.warn(
            f"Using a target size ({y.shape}) that is different to the input size "
            f"({x.shape}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )
        shape = tuple(broadcast_shapes(tuple(x.shape), tuple(y.shape)))
        # (torch's broadcast_tensors returns an operand of that shape itself: no ExpandBackward0)
        return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in (x, y))
    return x, y


def _in_backward():
    """Whether an autograd walk runs this backward (not forward AD's jvp_reduction)."""
    from ..autograd.grad_mode import state

    return state.graph_task is not None


def _reduction_enum(fn):
    """torch's at::Reduction number a loss node saves: none 0, mean 1, sum 2."""
    return ("none", "mean", "sum").index(fn.reduction)


class MseLoss(Op):
    """mean/sum/none of (x - y)**2, x and y broadcast."""

    saves_inputs = True
    promote = True
    saved_fields = {"reduction": _reduction_enum, "self": "input0", "target": "input1"}

    def forward(self, x, y, reduction="mean"):
        refuse(x, "biu", "mse_cpu")
        self.reduction = reduction
        d = x - y
        self.numel = d.size
        return _reduce(self.xp, d * d, reduction)

    def backward(self, grad):
        x, y = self.inputs
        if is_grad_enabled() and not vmap_hook[0]:  # create_graph: torch's nodes
            params = {"reduction": self.reduction, "numel": self.numel}
            needs = self.needs_input_grad
            return loss_double_backward(MseLossBackward, grad, x, y, needs, **params)
        if vmap_hook[0]:  # a batched upstream gradient: composed (the same formula)
            g = _scale(grad, self.reduction, self.numel) * 2 * (x - y)
        else:
            g = _wrap_kernel(
                MseLossBackward, grad, x, y, reduction=self.reduction, numel=self.numel
            )
        return g, -g  # (the target's: the kernel with the two swapped, exactly -g)

    jvp = Op.jvp_reduction


_F32_F64 = {"float32", "float64"}


class MseLossMixed(MseLoss):
    """mse_loss of a float32 and a float64 tensor: torch's kernel promotes inside (the node's
    edges go to the inputs themselves, no ToCopyBackward0 between)."""

    node_name = "MseLossBackward0"
    promote = False
    broadcasts = True


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    r"""Measures the mean squared error (squared L2 norm) between each element of ``input`` and
    ``target``.

    .. math::
        \ell(x, y) = \operatorname{mean}((x_n - y_n)^2)

    See :class:`~framework.nn.MSELoss` for the module form.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, of the shape of ``input``.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).
        weight (Tensor, optional): a weight per element, broadcast to ``input`` (default: None).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([[0.5, 2.0], [-1.0, 3.0]], requires_grad=True)
        >>> y = framework.tensor([[1.0, 2.0], [1.0, 0.0]])
        >>> loss = F.mse_loss(x, y)
        >>> loss
        tensor(3.3125, grad_fn=<MseLossBackward0>)
        >>> loss.backward(); x.grad
        tensor([[-0.2500,  0.0000],
                [-1.0000,  1.5000]])
    """
    input, target = _warn_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if input.dtype != target.dtype and {input.dtype.name, target.dtype.name} == _F32_F64:
        return MseLossMixed.apply(input, target, reduction=reduction)
    return MseLoss.apply(input, target, reduction=reduction)


@_amp_entry("l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    r"""Measures the mean absolute error (MAE) between each element of ``input`` and ``target``.

    .. math::
        \ell(x, y) = \operatorname{mean}(|x_n - y_n|)

    See :class:`~framework.nn.L1Loss` for the module form.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, of the shape of ``input``.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).
        weight (Tensor, optional): a weight per element, broadcast to ``input`` (default: None).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([[0.5, 2.0], [-1.0, 3.0]])
        >>> y = framework.tensor([[1.0, 2.0], [1.0, 0.0]])
        >>> F.l1_loss(x, y)
        tensor(1.3750)
        >>> F.l1_loss(x, y, reduction='none')
        tensor([[0.5000, 0.0000],
                [2.0000, 3.0000]])
    """
    input, target = _warn_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    loss = (input - target).abs()
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


class SmoothL1Loss(Op):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta. HuberLoss is delta * this."""

    saves_inputs = True
    promote = True
    kernel = "smooth_l1_cpu"
    out_dtype = None

    def forward(
        self,
        x,
        y,
        reduction="mean",
        beta=1.0,
        scale=1.0,
        out_dtype=None,
        target_dtype=None,
        bool_operand=False,
    ):
        refuse(x, "biu", self.kernel)
        self.reduction, self.beta, self.scale = reduction, beta, scale
        self.bool_operand = bool_operand  # (promoted here; torch's double backward refuses it)
        d = x - y
        self.numel = d.size
        ad = self.xp.abs(d)
        loss = self.xp.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)
        if scale != 1.0:
            loss = loss * scale
        self.out_dtype, self.target_dtype = out_dtype, target_dtype
        return _reduce(self.xp, loss.astype(out_dtype or d.dtype, copy=False), self.reduction)

    def backward(self, grad):
        x, y = self.inputs
        if self.out_dtype is not None and self.out_dtype != self.target_dtype:  # as torch
            found, expected = self.target_dtype, self.out_dtype
            if not self.needs_input_grad[0]:  # torch's target-only formula: the other way
                found, expected = expected, found
            raise RuntimeError(
                f"Found dtype {_type_name(found)} but expected {_type_name(expected)}"
            )
        if is_grad_enabled() and not vmap_hook[0]:  # create_graph: torch's nodes
            node = HuberLossBackward if isinstance(self, HuberLoss) else SmoothL1LossBackward
            params = {"reduction": self.reduction, "numel": self.numel}
            params.update(beta=self.beta, scale=self.scale)
            params["bool_target"] = self.bool_operand
            return loss_double_backward(node, grad, x, y, self.needs_input_grad, **params)
        if vmap_hook[0]:  # a batched upstream gradient: composed (the same formula)
            d = x - y
            slope = d.sign().where(d.abs() >= self.beta, d / self.beta)  # nan stays nan
            g = _scale(grad, self.reduction, self.numel) * slope
            return (g * self.scale if self.scale != 1.0 else g), -g * self.scale
        node = HuberLossBackward if isinstance(self, HuberLoss) else SmoothL1LossBackward
        params = {"reduction": self.reduction, "numel": self.numel, "beta": self.beta}
        g = _wrap_kernel(node, grad, x, y, **params)
        return g, -g

    jvp = Op.jvp_reduction


class HuberLoss(SmoothL1Loss):
    kernel = "huber_cpu"


@_amp_entry("smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    r"""Computes the smooth L1 loss: squared error (divided by ``beta``) below ``beta``, absolute
    error above it; equals :func:`huber_loss` divided by ``beta``.

    .. math::
        \ell_n = \begin{cases} 0.5 (x_n - y_n)^2 / \beta & |x_n - y_n| < \beta \\
        |x_n - y_n| - 0.5 \beta & \text{otherwise} \end{cases}

    See :class:`~framework.nn.SmoothL1Loss` for the module form.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, of the shape of ``input``.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).
        beta (float, optional): the threshold between the quadratic and linear parts, non-negative;
            0 gives the L1 loss (default: 1.0).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([[0.5, 2.0], [-1.0, 3.0]])
        >>> y = framework.tensor([[1.0, 2.0], [1.0, 0.0]])
        >>> F.smooth_l1_loss(x, y, beta=0.5)
        tensor(1.1875)
    """
    input, target = _warn_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:  # torch falls back to l1_loss
        return l1_loss(input, target, reduction=reduction)
    bools = input._data.dtype.kind == "b" or target._data.dtype.kind == "b"
    return SmoothL1Loss.apply(
        input, target, reduction=reduction, beta=float(beta), bool_operand=bools
    )


@_amp_entry("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    r"""Computes the Huber loss: squared error below ``delta``, absolute error (scaled by ``delta``)
    above it.

    .. math::
        \ell_n = \begin{cases} 0.5 (x_n - y_n)^2 & |x_n - y_n| < \delta \\
        \delta (|x_n - y_n| - 0.5 \delta) & \text{otherwise} \end{cases}

    See :class:`~framework.nn.HuberLoss` for the module form.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, of the shape of ``input``.
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).
        delta (float, optional): the threshold between the quadratic and linear parts, positive
            (default: 1.0).
        weight (Tensor, optional): a weight per element, broadcast to ``input`` (default: None).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([[0.5, 2.0], [-1.0, 3.0]])
        >>> y = framework.tensor([[1.0, 2.0], [1.0, 0.0]])
        >>> F.huber_loss(x, y, delta=1.0)
        tensor(1.0312)
    """
    input, target = _warn_size(input, target)
    reduction = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    promoted = dtypes.result_type([input._data, target._data], [input.ndim, target.ndim], [])
    if dtypes._kind(promoted) > dtypes._kind(input._data.dtype):  # the result is input's dtype
        raise RuntimeError(
            f"result type {_type_name(promoted)} can't be cast to the desired "
            f"output type {_type_name(input._data.dtype)}"
        )
    return HuberLoss.apply(
        input,
        target,
        reduction=reduction,
        beta=float(delta),
        scale=float(delta),
        out_dtype=input._data.dtype,  # input's dtype
        target_dtype=target._data.dtype,
        bool_operand=input._data.dtype.kind == "b" or target._data.dtype.kind == "b",
    )


class BinaryCrossEntropy(Op):
    """-w (y log x + (1 - y) log(1 - x)), each log clamped at -100 as torch does."""

    no_edge = (2,)  # weight
    saves_inputs = True

    def forward(self, x, y, w=None, reduction="mean"):
        xp = self.xp
        refuse(x, "biu", "binary_cross_entropy")
        if not bool(((x >= 0) & (x <= 1)).all()):  # NaN fails both tests too
            raise RuntimeError("all elements of input should be between 0 and 1")
        self.reduction, self.numel = reduction, x.size
        with _quiet(xp):
            log_x = xp.maximum(xp.log(x), -100)
            log_1mx = xp.maximum(xp.log1p(-x), -100)
        loss = -(y * log_x + (1 - y) * log_1mx)
        if w is not None:
            loss = loss * w
        return _reduce(xp, loss.astype(x.dtype, copy=False), reduction)

    def backward(self, grad):
        x, y, w = self.inputs
        if is_grad_enabled() and not vmap_hook[0]:  # create_graph: torch's node and formula
            need_x, need_y = self.needs_input_grad[:2]
            params = {"reduction": self.reduction, "numel": self.numel, "weight": w}
            gx = BinaryCrossEntropyBackward.apply(grad, x, y, **params) if need_x else None
            gy = bce_target_backward(grad, x, w, self.reduction, self.numel) if need_y else None
            return gx, gy, None
        need_x, need_y = self.needs_input_grad[:2]
        params = {"reduction": self.reduction, "numel": self.numel, "weight": w}
        if not need_x:
            grad_x = None
        elif vmap_hook[0]:  # a batched upstream gradient: composed (the same formula)
            g = _scale(grad, self.reduction, self.numel)
            g = g * w if w is not None else g
            grad_x = g * (x - y) / (x * (1 - x)).clamp(min=1e-12)
        else:
            grad_x = _wrap_kernel(BinaryCrossEntropyBackward, grad, x, y, **params)
        grad_y = bce_target_backward(grad, x, w, self.reduction, self.numel) if need_y else None
        return grad_x, grad_y, None

    jvp = Op.jvp_reduction


@_amp_entry("binary_cross_entropy")
def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    r"""Measures the binary cross entropy between the target and the input probabilities.

    .. math::
        \ell_n = -w_n \left[ y_n \log x_n + (1 - y_n) \log(1 - x_n) \right]

    See :class:`~framework.nn.BCELoss` for the module form.

    Args:
        input (Tensor): probabilities in [0, 1] (e.g. a sigmoid's output).
        target (Tensor): targets in [0, 1], of the shape of ``input``.
        weight (Tensor, optional): a rescaling weight, broadcast to ``input`` (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> p = framework.tensor([0.9, 0.2, 0.6])
        >>> F.binary_cross_entropy(p, framework.tensor([1.0, 0.0, 1.0]))
        tensor(0.2798)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input "
            f"size ({input.shape}) is deprecated. Please ensure they have the same "
            "size."
        )
    if target.dtype != input.dtype:
        raise RuntimeError(
            f"Found dtype {_type_name(target.dtype.np)} but expected {_type_name(input.dtype.np)}"
        )
    _no_grad_for("binary_cross_entropy", "weight", weight)
    if weight is not None:
        _check_broadcast_to(weight, input.shape)
    return BinaryCrossEntropy.apply(input, target, weight, reduction=reduction)


def _check_broadcast_to(w, shape):
    """torch's error when the weight does not broadcast to the input's shape."""
    ws = tuple(w.shape)
    for i in range(1, len(ws) + 1):
        if i > len(shape) or (ws[-i] != 1 and ws[-i] != shape[-i]):
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {ws[-i]} at -{i}! Mismatching "
                f"argument at index 1 had torch.Size([{', '.join(map(str, ws))}]); but expected "
                f"shape should be broadcastable to [{', '.join(map(str, shape))}]"
            )


class BinaryCrossEntropyWithLogits(Op):
    """BCE on logits: (1 - y) x + (1 + (pw - 1) y) softplus(-x), softplus computed stably."""

    no_edge = (2, 3)  # weight, pos_weight
    saves_inputs = True
    promote = True

    def forward(self, x, y, w=None, pw=None, reduction="mean", out_dtype=None):
        xp = self.xp
        self.reduction, self.numel, self.out_dtype = reduction, x.size, out_dtype
        if _sleef_act.applies(x, y) and (pw is None or _sleef_act.applies(x, pw)):
            # torch's composition: (1 - y).mul_(x).sub_(log_sigmoid(x) [* ((pw - 1) y + 1)])
            log_sig = _sleef_act.log_sigmoid(x)  # (torch's kernel, bit for bit)
            if pw is not None:
                log_sig = log_sig * ((pw - 1) * y + 1)
            loss = (1 - y) * x - log_sig
        else:
            softplus_neg = xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x)))  # log(1 + e^-x)
            if pw is not None:
                loss = (1 - y) * x + (1 + (pw - 1) * y) * softplus_neg
            else:
                loss = (1 - y) * x + softplus_neg
        if w is not None:
            loss = loss * w
        return _reduce(xp, loss.astype(self.out_dtype, copy=False), reduction)

    def backward(self, grad):
        x, y, w, pw = self.inputs
        if is_grad_enabled() and not vmap_hook[0]:  # create_graph: torch's composition
            need_x, need_y = self.needs_input_grad[:2]
            args = (grad, x, y, w, pw, self.reduction, self.numel)
            gx = bce_logits_input_backward(*args) if need_x else None
            gy = bce_logits_target_backward(*args) if need_y else None
            return gx, gy, None, None
        need_x, need_y = self.needs_input_grad[:2]  # torch's formulas in torch's order
        args = (grad, x, y, w, pw, self.reduction, self.numel)
        grad_x = bce_logits_input_backward(*args) if need_x else None
        grad_y = bce_logits_target_backward(*args) if need_y else None
        return grad_x, grad_y, None, None

    jvp = Op.jvp_reduction


@_amp_entry("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    r"""Measures the binary cross entropy between the target and the sigmoid of the input logits;
    more stable than :func:`binary_cross_entropy` after a sigmoid (log-sum-exp trick).

    .. math::
        \ell_n = -w_n \left[ p\, y_n \log \sigma(x_n) + (1 - y_n) \log(1 - \sigma(x_n)) \right]

    See :class:`~framework.nn.BCEWithLogitsLoss` for the module form.

    Args:
        input (Tensor): logits, of any shape.
        target (Tensor): targets in [0, 1], of the shape of ``input``.
        weight (Tensor, optional): a rescaling weight, broadcast to ``input`` (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).
        pos_weight (Tensor, optional): the weight :math:`p` of positive examples, broadcast along
            the last (class) dimension (default: None).

    Shape:
        - Input: :math:`(*)`, any number of dimensions.
        - Target: :math:`(*)`, the shape of the input.
        - Output: scalar; with ``reduction='none'``, :math:`(*)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([2.0, -1.0, 0.5])
        >>> y = framework.tensor([1.0, 0.0, 1.0])
        >>> F.binary_cross_entropy_with_logits(x, y)
        tensor(0.3048)
        >>> F.binary_cross_entropy_with_logits(x, y, pos_weight=framework.tensor(2.0))
        tensor(0.5051)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    refuse(input._data, "biu", "log_sigmoid_cpu")
    if target.dtype.name == "bool":  # torch's (1 - target) on a bool tensor
        raise bool_subtraction(True)
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {_type_name(input.dtype.np)} can't be cast to the "
            f"desired output type {_type_name(target.dtype.np)}"
        )
    _no_grad_for("binary_cross_entropy_with_logits", "weight", weight)
    _no_grad_for("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    if pos_weight is not None:
        _check_same_or_broadcast(pos_weight.shape, input.shape)
    return BinaryCrossEntropyWithLogits.apply(
        input, target, weight, pos_weight, reduction=reduction, out_dtype=target._data.dtype
    )  # as torch


def _check_same_or_broadcast(a, b):
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a[-i]}) must match the size of tensor b "
                f"({b[-i]}) at non-singleton dimension {max(len(a), len(b)) - i}"
            )


def _class_coeffs(xp, t, w, n_classes, ignore_index, dtype):
    """Safe class indices (ignored -> 0) and each element's weight w[t] (0 where ignored)."""
    ignored = t == ignore_index
    if w is None and t.size and not ignored.any():  # the common case: fewer array calls
        if t.min() < 0 or t.max() >= n_classes:
            bad = (t < 0) | (t >= n_classes)
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
        return t.astype("int64", copy=False), xp.ones(t.shape, dtype=dtype), ignored
    bad = ((t < 0) | (t >= n_classes)) & ~ignored
    if bool(bad.any()):
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    safe = xp.where(ignored, 0, t).astype("int64", copy=False)
    wt = w[safe] if w is not None else xp.ones(safe.shape, dtype=dtype)
    return safe, xp.where(ignored, 0, wt).astype(dtype, copy=False), ignored


def _as_batched(x, t, probs):
    """Unbatched (C,) input becomes (1, C); the class dim is always axis 1."""
    if x.ndim == 1:
        return x[None], (t[None] if probs else t.reshape(1))
    return x, t


def _onehot(xp, safe, n_classes, dtype):
    shape = (1, n_classes) + (1,) * (safe.ndim - 1)
    return (xp.arange(n_classes).reshape(shape) == safe[:, None]).astype(dtype)


def _nll_name(ndim, reduction):
    """torch runs spatial inputs through nll_loss2d, reshaping 3-D and 5-D+ inputs to 4-D."""
    if ndim <= 2:
        return "NllLossBackward0"
    if ndim != 4 and reduction == "none":
        return "ViewBackward0"
    return "NllLoss2DBackward0"


def nll_nd(x, t, w, reduction, ignore_index):
    """torch's nll_loss_nd: a 3-D or 5-D+ input runs through nll_loss2d viewed as
    (N, C, 1, -1) (an empty one as (N, C, 0, 0)), its 'none' loss viewed back to
    (N, d_1, ...): ViewBackward0 nodes around NllLoss2DBackward0, as torch's graph."""
    if x.dim() in (1, 2, 4):
        return NllLoss.apply(x, t, w, reduction=reduction, ignore_index=ignore_index)
    n, c = x.shape[:2]
    x4 = x.contiguous().view(n, c, 1, -1) if x.numel() else x.contiguous().view(n, c, 0, 0)
    t3 = t.contiguous().view(n, 1, -1) if t.numel() else t.contiguous().view(n, 0, 0)
    out = NllLoss.apply(x4, t3, w, reduction=reduction, ignore_index=ignore_index)
    return out.view(n, *x.shape[2:]) if reduction == "none" else out


def _zero_ignored(g, keep):
    """g with ignored targets' rows set to 0 (not 0 * inf when every target is ignored)."""
    if keep.all():
        return g
    from .elementwise import where

    return where(Tensor._make(keep[:, None], g.device), g, 0.0)


class NllLoss(Op):
    """-w[t] x[n, t] per element; 'mean' divides by the sum of the weights used."""

    no_edge = (1, 2)  # target, weight
    saves_inputs = True
    saved_for = ((0,), (0,), (0,))  # torch saves (and checks) self and target for self's grad
    saves = ("safe", "wt", "keep", "denom", "total_weight")
    saved_fields = {
        "self": "input0",
        "target": "input1",
        "weight": "input2",
        "ignore_index": lambda fn: fn.ignore_index % 2**64,  # as torch's uint
        "reduction": lambda fn: ("none", "mean", "sum").index(fn.reduction),
        "total_weight": "total_weight",
    }

    def forward(self, x, t, w=None, reduction="mean", ignore_index=-100):
        xp = self.xp
        self.x_shape, self.reduction, self.ignore_index = x.shape, reduction, ignore_index
        x, t2 = _as_batched(x, t, False)
        safe, wt, ignored = _class_coeffs(xp, t2, w, x.shape[1], ignore_index, x.dtype)
        self.safe, self.wt, self.out_shape, self.keep = safe, wt, t.shape, ~ignored
        total = wt.sum()
        self.total_weight = xp.asarray(total, dtype=x.dtype)
        picked = (  # x[n, t[n], ...]
            x[xp.arange(x.shape[0]), safe]
            if x.ndim == 2
            else xp.take_along_axis(x, safe[:, None], axis=1)[:, 0]
        )
        loss = -wt * picked
        if ignored.any():  # ignored targets contribute 0 even where x is inf or nan, as torch
            loss = xp.where(ignored, 0, loss)
        if reduction == "none":
            return loss.reshape(t.shape)
        sums = nll_sums(picked, wt, self.keep) if self.half is None else None
        if sums is not None:  # torch's cascaded sums (its total weight too)
            summed, total = sums
            self.total_weight = xp.asarray(total)
            if reduction == "sum":
                return xp.asarray(summed)
            self.denom = total
            with _quiet(xp):  # every target ignored: 0/0 = nan, silently, as in torch
                return xp.asarray(summed / total)
        if reduction == "sum":
            return loss.sum()
        self.denom = total
        if self.denom:
            return (loss.sum() / self.denom).astype(x.dtype)
        with _quiet(xp):  # every target ignored: 0/0 = nan, silently, as in torch
            return (loss.sum() / self.denom).astype(x.dtype)

    def backward(self, grad):
        if is_grad_enabled() and not vmap_hook[0]:  # create_graph: torch's one node
            return nll_double_backward(self, grad), None, None
        return self.grad_x(grad), None, None

    def grad_x(self, grad):
        """The input's gradient (on arrays where there is no graph to record)."""
        if len(self.x_shape) <= 2 and plain(grad):
            return self._plain_grad_x(grad)
        if self.reduction == "none":
            g = grad.reshape(self.safe.shape).unsqueeze(1)
        else:
            g = (
                grad / Tensor._make(self.xp.asarray(self.denom, dtype=self.wt.dtype), grad.device)
                if self.reduction == "mean"
                else grad
            )
        from .elementwise import where

        n_classes = self.x_shape[-1] if len(self.x_shape) == 1 else self.x_shape[1]
        hit = _onehot(self.xp, self.safe, n_classes, bool) & self.keep[:, None]
        q = self.wt[:, None] * hit
        # torch scatters -w g to each kept target only: a NaN/inf g reaches no other class
        grad_x = where(Tensor._make(hit, grad.device), -g * Tensor._make(q, grad.device), 0.0)
        return grad_x.reshape(self.x_shape)

    def _plain_grad_x(self, grad):
        """The input's gradient on the arrays for (C) and (N, C) inputs (no graph to record):
        -w[t] g scattered to each row's target (torch's nll_loss_backward), ignored rows 0."""
        xp, wt, safe = self.xp, self.wt, self.safe
        g = grad._data
        if self.reduction == "mean":
            g = g / xp.asarray(self.denom, dtype=wt.dtype)
        n, c = safe.shape[0], self.x_shape[-1]
        out = xp.zeros((n, c), dtype=g.dtype)
        common = _fast.common_rows(n, wt, self.keep)  # (all weights 1, all rows kept)
        if common is not None:  # -(g * 1) is -g, bit for bit
            out[common, safe] = -g.reshape(-1)
            return wrap(out.reshape(self.x_shape), grad)
        out[xp.arange(n), safe] = -(g.reshape(-1) * wt)
        if not self.keep.all():
            out[~self.keep] = 0
        return wrap(out.reshape(self.x_shape), grad)

    def jvp(self, tx, tt=None, tw=None):
        """nll_loss is linear in its input: the loss of the tangent (torch's formula; with
        every target ignored a 'mean' tangent is 0/0 = nan, as the loss)."""
        if tx is None:
            return None
        args = self._fw_args
        return NllLoss.apply(tx, args[1], args[2], **self._fw_params)

    def node_variant(self):
        return _nll_name(len(self.x_shape), self.reduction)


class CrossEntropy(Op):
    """Fused, stable log-softmax + NLL over class indices or class probabilities.

    Every case is loss_n = -sum_c q[n, c] log p[n, c] with q the (smoothed, weighted) target,
    so the gradient is softmax * sum_c q - q. torch composes the label-smoothing and
    probability cases; this node takes the name of torch's outermost node for them."""

    saves_inputs = True
    saves = ("p", "logp", "safe", "wt", "keep", "denom", "composed")

    def forward(
        self, x, t, w=None, reduction="mean", ignore_index=-100, label_smoothing=0.0, probs=False
    ):
        xp = self.xp
        self.x_shape, self.reduction, self.probs = x.shape, reduction, probs
        self.ignore_index = ignore_index
        self.ls, out_shape = (
            label_smoothing,
            (t.shape if not probs else x.shape[:-1] if x.ndim == 1 else x.shape[:1] + x.shape[2:]),
        )
        if xp.__name__ == "numpy":  # torch's composition op by op: its bits (see backward)
            from .cross_entropy_composed import composed_graph

            self.composed = composed_graph(
                (x, t, w), reduction, ignore_index, label_smoothing, probs
            )
            xb, tb = _as_batched(x, t, probs)  # jvp's test of a 0/0 mean: the denominator
            n_classes = xb.shape[1]
            keep = None if probs else _class_coeffs(xp, tb, w, n_classes, ignore_index, x.dtype)
            self.denom = xb.size // max(n_classes, 1) if probs else keep[1].sum()
            return self.composed[0]._data
        x, t = _as_batched(x, t, probs)
        n_classes, ls = x.shape[1], label_smoothing
        self.w_shape = (1, n_classes) + (1,) * (x.ndim - 2)
        w_b = w.reshape(self.w_shape) if w is not None else None
        z = x - x.max(axis=1, keepdims=True)
        e = xp.exp(z)
        s = e.sum(axis=1, keepdims=True)
        logp = z - xp.log(s)
        if _sleef.applies(x):  # torch's log_softmax kernel, bit for bit (its composition)
            logp = _sleef.softmax(x, 1, True)
        self.p = e / s  # softmax, reused by backward
        self.logp = logp if probs else None
        if probs:
            q = t * (1 - ls) + ls / n_classes if ls else t
            loss = -((q * w_b if w_b is not None else q) * logp).sum(axis=1)
            self.denom = loss.size
        else:
            safe, wt, ignored = _class_coeffs(xp, t, w, n_classes, ignore_index, x.dtype)
            self.safe, self.wt, self.keep = safe, wt, ~ignored
            loss = xp.where(ignored, 0, -wt * xp.take_along_axis(logp, safe[:, None], axis=1)[:, 0])
            if ls:
                smooth = -(logp * w_b if w_b is not None else logp).sum(axis=1) * self.keep
                loss = (1 - ls) * loss + ls / n_classes * smooth
            self.denom = wt.sum()
        self.loss_shape = loss.shape
        if reduction == "none":
            return loss.reshape(out_shape)
        if reduction == "sum":
            return loss.sum()
        with _quiet(xp):
            return (loss.sum() / self.denom).astype(x.dtype)

    def _target_q(self, t, w, dev):
        """q[n, c] as a Tensor: differentiable in t for probabilities, constant otherwise."""
        xp, ls, n_classes = self.xp, self.ls, self.w_shape[1]
        w_b = w.reshape(self.w_shape) if w is not None else None
        if self.probs:
            q = t.reshape(self.p.shape)
            q = q * (1 - ls) + ls / n_classes if ls else q
            return q * w_b if w_b is not None else q
        q = _onehot(xp, self.safe, n_classes, self.p.dtype) * self.wt[:, None]
        if ls:
            w_row = w_b._data if w_b is not None else 1
            q = (1 - ls) * q + (ls / n_classes) * w_row * self.keep[:, None]
        return Tensor._make(q.astype(self.p.dtype, copy=False), dev)

    def backward(self, grad):
        x, t, w = self.inputs
        dev = grad.device
        need_x, need_t, need_w = self.needs_input_grad
        if is_grad_enabled() and not vmap_hook[0] and _in_backward():  # create_graph:
            from .cross_entropy_composed import composed_backward  # torch's composition

            return composed_backward(self, grad)
        if getattr(self, "composed", None) is not None:  # forward's composition, replayed
            from .cross_entropy_composed import replay_backward

            return replay_backward(self.composed, grad, self.needs_input_grad)
        if plain(grad) and not self.probs and not (need_t or need_w):
            return self._plain_grad_x(grad), None, None
        if self.reduction == "none":
            g = grad.reshape(self.loss_shape).unsqueeze(1)
        elif self.reduction == "mean":
            g = grad / Tensor._make(self.xp.asarray(self.denom, dtype=self.p.dtype), dev)
        else:
            g = grad
        if is_grad_enabled():  # create_graph: rebuild softmax from x so it is differentiable
            x2 = x.reshape(self.p.shape)
            z = x2 - Tensor._make(x2._data.max(axis=1, keepdims=True), dev)
            logp = z - z.exp().sum(1, keepdim=True).log()
            p = logp.exp()
        else:
            p = Tensor._make(self.p, dev)
            logp = Tensor._make(self.logp, dev) if self.probs else None
        q = self._target_q(t, w, dev)
        grad_x = grad_t = grad_w = None
        if need_x:
            g_rows = g if self.probs else _zero_ignored(g, self.keep)
            grad_x = (g_rows * (p * q.sum(1, keepdim=True) - q)).reshape(self.x_shape)
        if need_t and self.probs:
            gt = -g * (1 - self.ls) * logp
            grad_t = (gt * w.reshape(self.w_shape) if w is not None else gt).reshape(self.x_shape)
        if need_w and self.probs:  # torch composes here, so the weight gets a gradient
            qt = t.reshape(self.p.shape)
            qt = qt * (1 - self.ls) + self.ls / self.w_shape[1] if self.ls else qt
            gw = -g * qt * logp
            axes = tuple(i for i in range(gw.ndim) if i != 1)
            grad_w = gw.sum(axes)
        return grad_x, grad_t, grad_w

    def _plain_grad_x(self, grad):
        """The gradient of class-index logits on the arrays (no graph to record): the Tensor
        formula of `backward`, term for term."""
        xp, p, dt = self.xp, self.p, self.p.dtype
        g = grad._data
        if self.reduction == "none":
            g = g.reshape(self.loss_shape)[:, None]
        elif self.reduction == "mean":
            g = g / xp.asarray(self.denom, dtype=dt)
        if not self.keep.all():
            g = xp.where(self.keep[:, None], g, dt.type(0))
        q = self._target_q(None, self.inputs[2], grad.device)._data
        return wrap((g * (p * q.sum(1, keepdims=True) - q)).reshape(self.x_shape), grad)

    def jvp(self, *tangents):
        """The slopes of backward times the tangent; with every target ignored a 'mean'
        tangent is 0/0 = nan, as torch's (its nll_loss of the log_softmax tangent)."""
        total = Op.jvp_reduction(self, *tangents)
        if total is not None and self.reduction == "mean" and not self.denom:
            return total * math.nan  # (the loss is nan too; so is its derivative)
        return total

    def node_variant(self):
        if not self.probs:
            return "AddBackward0" if self.ls else _nll_name(len(self.x_shape), self.reduction)
        return "DivBackward1" if self.reduction == "mean" else "NegBackward0"


_TARGET_DTYPES = (dtypes.int64.np, dtypes.uint8.np)


def _check_class_target(fn_name, x, t, weight):
    """torch's checks of class-index targets and of the class weight."""
    if t._data.dtype not in _TARGET_DTYPES:
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_type_name(t.dtype.np)}"
        )
    xs, ts = x._data.shape, t._data.shape
    if len(xs) == 2 and len(ts) == 1 and ts[0] == xs[0]:  # the common case: (N, C), (N,)
        return _check_weight(fn_name, x, weight)
    if x.ndim == 2 and t.ndim != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim >= 2 and t.shape[:1] != x.shape[:1]:
        raise ValueError(
            f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
            f"({t.shape[0] if t.ndim else 1})."
        )
    if x.ndim > 2 and tuple(t.shape) != tuple(x.shape[:1]) + tuple(x.shape[2:]):
        want = ", ".join(map(str, tuple(x.shape[:1]) + tuple(x.shape[2:])))
        raise RuntimeError(f"Expected target size [{want}], got [{', '.join(map(str, t.shape))}]")
    _check_weight(fn_name, x, weight)


def _check_weight(fn_name, x, weight):
    if weight is None:
        return
    n_classes = x.shape[0] if x.ndim == 1 else x.shape[1]
    if weight.numel() != n_classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes "
            f"or no classes but got weight tensor of shape: "
            f"[{', '.join(map(str, weight.shape))}]"
        )
    if weight.dtype != x.dtype:
        raise RuntimeError(
            f"expected scalar type {_type_name(x.dtype.np)} but found {_type_name(weight.dtype.np)}"
        )


def _refuse_nll(x):
    kernel = "nll_loss_out_frame" if x.ndim <= 2 else "nll_loss2d_forward_out_frame"
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(x.dtype.np)}'")


def _check_input(x, nll=False):
    """cross_entropy's (log_softmax over dim 1, which runs no kernel on an empty input) or,
    with nll, nll_loss's refusal of a non-float input, then of a 0-dim one."""
    if not x.dtype.is_floating_point and not nll:
        kernel = "log_softmax_lastdim_kernel_impl" if x.ndim <= 2 else "log_softmax_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(x.dtype.np)}'")
    if x.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")


def _defaults(weight, size_average, ignore_index, reduce, reduction):
    """Whether nll_loss's/cross_entropy's options are their defaults (see _loss_fast; it
    checks ignore_index against the classes)."""
    return weight is None and size_average is None and reduce is None and reduction == "mean"


@_amp_entry("nll_loss")
def nll_loss(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):
    r"""Computes the negative log likelihood loss of log-probabilities ``input`` for class-index
    targets; with :func:`log_softmax` this is :func:`cross_entropy`.

    .. math::
        \ell_n = -w_{y_n} x_{n, y_n}, \quad \text{mean: } \sum_n \ell_n / \sum_n w_{y_n}

    See :class:`~framework.nn.NLLLoss` for the module form.

    Args:
        input (Tensor): log-probabilities, :math:`(N, C)`, :math:`(C)` or :math:`(N, C, d_1, ...,
            d_K)`.
        target (Tensor): class indices in :math:`[0, C)` (int64).
        weight (Tensor, optional): a rescaling weight per class, :math:`(C)` (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        ignore_index (int, optional): a target value that is ignored and does not contribute to the
            gradient (default: -100).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, C)`, :math:`(C)` or :math:`(N, C, d_1, ..., d_K)`.
        - Target: :math:`(N)`, :math:`()` or :math:`(N, d_1, ..., d_K)`.
        - Output: scalar; with ``reduction='none'``, the target's shape.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]])
        >>> logp = F.log_softmax(x, dim=1)
        >>> F.nll_loss(logp, framework.tensor([1, 2]))
        tensor(0.2796)
    """
    if _defaults(weight, size_average, ignore_index, reduce, reduction):
        out = _fast.nll_loss(input, target, NllLoss, ignore_index)
        if out is not None:
            return out
    reduction = _reduction(reduction, size_average, reduce)
    _check_input(input, nll=True)
    _check_class_target("nll_loss_forward", input, target, weight)
    if not input.dtype.is_floating_point:  # torch's kernel, after the shape checks
        _refuse_nll(input)
    _no_grad_for("nll_loss_forward", "weight", weight)
    return nll_nd(input, target, weight, reduction, ignore_index)


@_amp_entry("cross_entropy")
def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    r"""Cross entropy loss between input logits and target (``log_softmax`` + ``nll_loss``).

    For class-index targets and ``reduction='mean'``:
    :math:`\ell = -\frac{1}{\sum_n w_{y_n}} \sum_n w_{y_n} \log
    \frac{\exp(x_{n, y_n})}{\sum_c \exp(x_{n, c})}`. With class probabilities as the
    target: :math:`\ell = -\frac{1}{N} \sum_n \sum_c w_c\, y_{n,c} \log
    \operatorname{softmax}(x_n)_c`.

    Args:
        input (Tensor): unnormalized logits, see Shape.
        target (Tensor): class indices in :math:`[0, C)` (int64), or class probabilities
            with the same shape as ``input`` (floating point).
        weight (Tensor, optional): a manual rescaling weight per class, shape :math:`(C)`.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        ignore_index (int): a target value that is ignored and does not contribute to the
            gradient (class-index targets only). Default -100.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default ``'mean'``.
        label_smoothing (float): in [0.0, 1.0]; mixes the target with the uniform
            distribution, as in *Rethinking the Inception Architecture*. Default 0.0.

    Shape:
        - Input: :math:`(C)`, :math:`(N, C)` or :math:`(N, C, d_1, ..., d_K)`.
        - Target: :math:`()`, :math:`(N)` or :math:`(N, d_1, ..., d_K)` for class indices;
          the same shape as the input for probabilities.
        - Output: a scalar, or with ``reduction='none'`` the target's shape (class indices)
          or the input's shape without :math:`C` (probabilities).

    Returns:
        Tensor: the loss; its ``grad_fn`` is ``NllLossBackward0`` as in torch.

    Example:
        >>> import framework
        >>> import framework.nn.functional as F
        >>> logits = framework.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], requires_grad=True)
        >>> target = framework.tensor([0, 2])
        >>> loss = F.cross_entropy(logits, target)
        >>> loss
        tensor(0.1755, grad_fn=<NllLossBackward0>)
        >>> loss.backward()
        >>> logits.grad.shape
        torch.Size([2, 3])
    """
    if (label_smoothing == 0.0) is True and _defaults(
        weight, size_average, ignore_index, reduce, reduction
    ):
        out = _fast.cross_entropy(input, target, NllLoss, ignore_index)
        if out is not None:
            return out
    reduction = _reduction(reduction, size_average, reduce)
    if input.numel() or (
        tuple(input.shape) == tuple(target.shape) and target.dtype.is_floating_point
    ):  # (probabilities for an empty integer batch: torch returns NaN, refused here)
        _check_input(input)
    else:
        _check_input(input, nll=True)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    probs = tuple(input.shape) == tuple(target.shape)
    if probs:
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class "
                f"probabilities, got {_type_name(target.dtype.np)}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        _check_weight("cross_entropy", input, weight)
        if target.dtype != input.dtype:
            target = target.to(input.dtype)
    else:
        _check_class_target("nll_loss_forward", input, target, weight)
        if not input.dtype.is_floating_point:  # an empty input: nll_loss's kernel refuses
            _refuse_nll(input)
        _no_grad_for("nll_loss_forward", "weight", weight)
        if label_smoothing == 0.0:  # torch's graph: LogSoftmaxBackward0 -> NllLossBackward0
            from .activation import log_softmax

            logp = log_softmax(input, 1 if input.dim() > 1 else 0)
            return nll_nd(logp, target, weight, reduction, ignore_index)
    return CrossEntropy.apply(
        input,
        target,
        weight,
        reduction=reduction,
        ignore_index=ignore_index,
        label_smoothing=float(label_smoothing),
        probs=probs,
    )
