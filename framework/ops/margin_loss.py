"""Margin-loss primitives named as torch's nodes: soft_margin_loss, multi_margin_loss,
multilabel_margin_loss. Their masks are piecewise constant, so backward keeps them as arrays
and builds the rest from Tensor ops."""

import math

from .._errors import bool_negation, broadcast_shapes, inplace_shape_error, refuse
from . import _vml
from ..autograd import forward_ad as _fw
from ..autograd.op import Op, vmap_hook
from ..backend import scatter_add
from ..dtypes import scalar_type_name
from ..tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ._double_backward import not_implemented
from .loss_backward import SoftMarginLossBackward
from .loss import _no_grad_for, _reduction
from .reduction import array_mean


def _values(target):
    """The target's values, every sample's under vmap (the range checks read them all)."""
    if vmap_hook[0]:
        from ..func._paths import flat_values

        return flat_values(target)[0]
    return target._data


def _reduce(xp, loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":  # an empty mean is nan, silently (no NumPy warning)
        return array_mean(loss, tuple(range(loss.ndim)))
    return loss.sum()


def _upstream(grad, reduction, shape, numel):
    """The gradient of each loss element from the reduced gradient."""
    if reduction == "none":
        return grad
    g = grad / numel if reduction == "mean" else grad
    return g.expand(*shape) if shape else g


class SoftMarginLoss(Op):
    no_edge = (1,)  # target
    saves_inputs = True

    def forward(self, x, y, reduction="mean"):
        xp = self.xp
        self.reduction = reduction
        if x.dtype.kind in "iu":  # (checked by soft_margin_loss on the dtypes as passed)
            raise RuntimeError(_cast_message(x.dtype, y.dtype))
        self.bool_target = y.dtype.kind == "b"
        if self.bool_target:
            y = y.astype(x.dtype)
        # torch's kernel: log1p(exp(-x * y)), so exp overflows (inf) where logaddexp would not
        e = _vml.unary("exp", -x * y, xp.exp)  # (the tensor ops: MKL's VML exp, vml.h's log1p)
        return _reduce(xp, _vml.sleef("log1p", e, xp.log1p).astype(x.dtype, copy=False), reduction)

    def backward(self, grad):
        if self.bool_target:  # torch's formula negates the target
            raise bool_negation()
        x, y = self.inputs
        if is_grad_enabled() and not vmap_hook[0]:  # create_graph: torch's node
            params = {"target": y, "reduction": self.reduction, "numel": x.numel()}
            return SoftMarginLossBackward.apply(grad, x, **params), None
        g = _upstream(grad, self.reduction, tuple(x.shape), x.numel())
        z = (-x * y).exp()  # torch's formula: -y z / (1 + z), inf / inf = NaN included
        return (y * z).neg() / (z + 1) * g, None

    def jvp(self, t_x, t_y):
        """As torch 2.13: the input's tangent gives the loss's (slope times tangent); the
        target's is ignored alone and refused together with the input's."""
        if t_y is not None and t_x is not None:
            raise _fw.not_implemented("soft_margin_loss_backward")
        return None if t_x is None else self.jvp_reduction(t_x, None)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    r"""Computes the two-class logistic loss for labels 1 and -1.

    .. math::
        \ell = \frac{1}{N} \sum_n \log(1 + \exp(-y_n x_n))

    See :class:`~framework.nn.SoftMarginLoss` for the module form.

    Args:
        input (Tensor): the scores, of any shape.
        target (Tensor): labels, 1 or -1. Of the shape of ``input``.
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
        >>> F.soft_margin_loss(framework.tensor([2.0, -1.0]), framework.tensor([1.0, 1.0]))
        tensor(0.7201)
    """
    reduction = _reduction(reduction, size_average, reduce)
    _no_grad_for("soft_margin_loss", "target", target)  # autograd's check, before the kernel
    if input._data.dtype.kind == "b":  # torch's formula negates the input first
        raise bool_negation()
    shape = broadcast_shapes(tuple(input.shape), tuple(target.shape))
    if shape != tuple(input.shape):  # torch writes into an output shaped as the input
        raise inplace_shape_error(input.shape, shape)
    if input._data.dtype.kind in "iu":
        raise RuntimeError(_cast_message(input._data.dtype, target._data.dtype))
    return SoftMarginLoss.apply(input, target, reduction=reduction)


def _cast_message(x_dtype, y_dtype):
    """torch's error for an integer input: its formula's float result (a floating target's
    type by integer-with-float promotion, else exp's default Float) into the input's type."""
    result = scalar_type_name(y_dtype) if y_dtype.kind in "fV" else "Float"
    return (
        f"result type {result} can't be cast to the desired output type {scalar_type_name(x_dtype)}"
    )


class MultiMarginLoss(Op):
    """sum_{j != y} max(0, margin - x_y + x_j)^p / C per sample (weighted by w[y])."""

    no_edge = (1, 2)  # target, weight
    no_bfloat16 = "multi_margin_loss_cpu_kernel"
    saves_inputs = True
    saves = ("mask", "wy", "onehot")

    def forward(self, x, t, w, p=1, margin=1.0, reduction="mean"):
        xp = self.xp
        dtype = x.dtype  # (the function checked it on a non-empty batch)
        if not x.size:  # torch returns before its kernel: any dtype, no target read
            x, t = x.astype("float64"), t.astype("int64")
        self.p, self.margin, self.reduction = p, margin, reduction
        x2 = x.reshape(-1, x.shape[-1])
        n, c = x2.shape
        onehot = xp.zeros((n, c), dtype=bool)
        onehot[xp.arange(n), t.reshape(-1)] = True
        xy = x2[onehot].reshape(n, 1)
        z = x.dtype.type(margin) - xy + x2
        self.mask = (z > 0) & ~onehot
        self.onehot = onehot
        self.wy = (w[t.reshape(-1)] if w is not None else xp.ones(n, dtype=x.dtype)).reshape(n, 1)
        # only the active terms meet the weight (an inf weight times 0 is not NaN in torch)
        per = xp.where(self.mask, (z if p == 1 else z * z) * self.wy, 0)
        loss = (per.sum(axis=1) / c).astype(x.dtype)
        loss = loss.reshape(x.shape[:-1])
        return xp.asarray(_reduce(xp, loss, reduction)).astype(dtype, copy=False)

    def backward(self, grad):
        x = self.inputs[0]
        # (an empty batch computes in float64: the gradient in the input's dtype, as torch's)
        gx = not_implemented(
            "multi_margin_loss_backward", (grad, x), lambda: self._grad_x(grad, x).to(x.dtype)
        )
        return gx, None, None

    def _grad_x(self, grad, x):
        """The input's gradient (Tensor ops on the saved masks)."""
        c = x.shape[-1]
        shape = tuple(x.shape[:-1])
        g = _upstream(grad, self.reduction, shape, max(math.prod(shape), 1)).reshape(-1, 1)
        dev = x.device
        mask, onehot = Tensor._make(self.mask, dev), Tensor._make(self.onehot, dev)
        wy = Tensor._make(self.wy, dev)
        x2 = x.reshape(-1, c)
        if self.p == 1:
            h = mask.to(x.dtype)
        zero = Tensor._make(x.xp.zeros((), dtype=x._data.dtype), dev)
        if self.p != 1:  # x[y] picked by where: a NaN elsewhere in the row must not reach it
            xy = x2.where(onehot, zero).sum(1, keepdim=True)
            h = 2 * (self.margin - xy + x2) * mask
        h = (h * wy / c).where(mask, zero)  # torch's kernel, then times the upstream gradient
        gx = (h - h.sum(1, keepdim=True).where(onehot, zero)) * g
        return gx.reshape(*x.shape)

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative yet
    jvp_name = "multi_margin_loss"


def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    r"""Computes the multi-class hinge (margin) loss between logits and class indices.

    .. math::
        \ell_n = \frac{1}{C} \sum_{j \ne y_n} w_{y_n} \max(0, \text{margin} - x_{n, y_n} + x_{n,
        j})^p

    See :class:`~framework.nn.MultiMarginLoss` for the module form.

    Args:
        input (Tensor): scores, :math:`(N, C)` or :math:`(C)`.
        target (Tensor): class indices in :math:`[0, C)`, :math:`(N)` or :math:`()`.
        p (int, optional): 1 or 2 (default: 1).
        margin (float, optional): the margin (default: 1.0).
        weight (Tensor, optional): a weight per class, :math:`(C)` (default: None).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``: no reduction, the mean or
            the sum of the per-element losses (default: ``'mean'``).

    Shape:
        - Input: :math:`(N, C)` or :math:`(C)`.
        - Target: :math:`(N)` or :math:`()`.
        - Output: scalar; with ``reduction='none'``, :math:`(N)`.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example:
        >>> x = framework.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> F.multi_margin_loss(x, framework.tensor([3]))
        tensor(0.3250)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _no_grad_for("multi_margin_loss", "weight", weight)  # autograd's check, first
    if input.dim() > 2 or input.dim() == 0 or not input.shape[-1]:
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch "
            f"size, but got: {list(input.shape)}"
        )
    if input.numel():  # torch's kernel (not reached on an empty batch): its dtype, the targets
        refuse(input._data, "biu", "multi_margin_loss_cpu_kernel")
        t = _values(target)
        if bool(((t < 0) | (t >= input.shape[-1])).any()):
            raise RuntimeError("target out of range")
    return MultiMarginLoss.apply(input, target, weight, p=p, margin=margin, reduction=reduction)


class MultilabelMarginLoss(Op):
    """sum over target labels j and non-targets i of max(0, 1 - (x_j - x_i)) / C."""

    no_edge = (1,)  # target
    no_bfloat16 = "multilabel_margin_loss_forward_out_frame"
    saves_inputs = True
    saves = ("active",)

    def forward(self, x, t, reduction="mean"):
        xp = self.xp
        if x.size:  # torch returns before its kernel on an empty batch
            refuse(x, "biu", "multilabel_margin_loss_forward_out_frame")
        else:  # (whatever the target's dtype: it is not read)
            t = t.astype("int64")
            if reduction != "none":  # torch's output is of the input's dtype, a bool one too
                self.reduction = reduction  # (its value is uninitialised memory: zero here)
                c = x.shape[-1] if x.ndim else 1
                self.active = xp.zeros((0, c, c), dtype=x.dtype)  # (an empty gradient)
                return xp.zeros((), dtype=x.dtype)
        self.reduction = reduction
        c = x.shape[-1] if x.ndim else 1  # a 0-dim input is one score
        x2, t2 = x.reshape(-1, c), t.reshape(-1, c)
        n, c = x2.shape
        valid = xp.cumprod(t2 >= 0, axis=1).astype(bool)  # labels up to the first -1
        # how often each class is listed (torch loops over the list: a repeat counts again)
        times = xp.zeros((n, c), dtype=x.dtype)
        rows = xp.broadcast_to(xp.arange(n)[:, None], (n, c))
        scatter_add(xp, times, (rows[valid], t2[valid]), 1)
        is_target = times > 0
        z = 1 - x2[:, :, None] + x2[:, None, :]  # z[n, j, i] = 1 - (x_j - x_i)
        self.active = xp.where((z > 0) & ~is_target[:, None, :], times[:, :, None], 0)
        loss = (xp.where(self.active > 0, self.active * z, 0).sum(axis=(1, 2)) / c).astype(x.dtype)
        return _reduce(xp, loss.reshape(x.shape[:-1]), reduction)

    def backward(self, grad):
        x = self.inputs[0]
        gx = not_implemented(
            "multilabel_margin_loss_backward", (grad, x), lambda: self._grad_x(grad, x)
        )
        return gx, None

    def _grad_x(self, grad, x):
        """The input's gradient (Tensor ops on the saved active terms)."""
        c = x.shape[-1] if x.dim() else 1
        shape = tuple(x.shape[:-1])
        g = _upstream(grad, self.reduction, shape, max(math.prod(shape), 1)).reshape(-1, 1)
        a = Tensor._make(self.active, x.device).to(x.dtype)
        gx = (a.sum(1) - a.sum(2)) * g / c
        return gx.reshape(*x.shape)

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative yet
    jvp_name = "multilabel_margin_loss_forward"


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    r"""Computes the multi-class multi-label hinge loss: every target class should score at least 1
    above every non-target class.

    .. math::
        \ell_n = \sum_{j \in Y_n} \sum_{i \notin Y_n} \frac{\max(0, 1 - (x_{n, j} - x_{n, i}))}{C}

    See :class:`~framework.nn.MultiLabelMarginLoss` for the module form.

    Args:
        input (Tensor): scores, :math:`(N, C)` or :math:`(C)`.
        target (Tensor): the target class indices :math:`Y_n`, padded with -1 after the last one
            (everything after the first -1 is ignored), of the shape of ``input``.
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
        >>> x = framework.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> F.multilabel_margin_loss(x, framework.tensor([[3, 0, -1, 1]]))  # classes 3 and 0
        tensor(0.8500)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if input.dim() > 2 or (input.dim() and not input.shape[-1]):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    if tuple(input.shape) != tuple(target.shape):
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    if input.numel():  # torch returns before these on an empty batch
        c = input.shape[-1] if input.dim() else 1
        # target.min()/max().item<int64_t>(): a float target truncates toward zero first
        t = _values(target)
        if int(t.min()) < -1 or int(t.max()) >= c:
            raise RuntimeError("argument #2 'target' is out of range")
        if target._data.dtype.kind != "i" or target._data.dtype.itemsize != 8:
            raise RuntimeError(
                f"expected scalar type Long but found {scalar_type_name(target._data.dtype)}"
            )
    return MultilabelMarginLoss.apply(input, target, reduction=reduction)


__all__ = ["soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss"]
