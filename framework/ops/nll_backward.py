"""nll_loss's backward as one node under create_graph, torch's NllLossBackwardBackward0 (and
NllLoss2DBackwardBackward0 for spatial inputs): linear in the upstream gradient, constant in
the input."""

import math

from ..autograd.grad_mode import no_grad
from ..autograd.op import Op
from ..backend import device_of
from ..tensor import Tensor


class NllLossBackward(Op):
    """torch's nll_loss_backward(grad, self, target, weight, ...): the first gradient of the
    input, from the forward node `fwd` (its target, weight and saved coefficients). Its own
    derivative: nll_loss of the incoming gradient for `grad`, zeros for `self`."""

    node_name = "NllLossBackwardBackward0"

    def forward(self, g, x, fwd=None):
        self.fwd = fwd  # (read by jvp, which runs at once; backward may run after fwd is freed)
        _, self.target, self.weight = fwd.inputs
        self.x_shape, self.reduction, self.ignore_index = (
            fwd.x_shape,
            fwd.reduction,
            fwd.ignore_index,
        )
        self.nll = type(fwd)
        if x.ndim > 2:
            self._as("NllLoss2DBackwardBackward0")
        if fwd.reduction == "none":
            g = g.reshape(fwd.out_shape)
        with no_grad():
            got = fwd.grad_x(Tensor._make(g, device_of(g)))
        return got._data.reshape(x.shape)

    def backward(self, gg):
        need_g, need_x = self.needs_input_grad
        grad_g = grad_x = None
        if need_g:
            out = self.nll.apply(
                gg.reshape(self.x_shape),
                self.target,
                self.weight,
                reduction=self.reduction,
                ignore_index=self.ignore_index,
            )
            grad_g = out.reshape(self._in_meta[0][0]) if self.reduction == "none" else out
        if need_x:
            grad_x = Tensor._make(gg.xp.zeros_like(gg._data), gg.device)
        return grad_g, grad_x

    def jvp(self, t_g, t_x):
        """Linear in grad, constant in the input: the kernel of grad's tangent (none when
        only the input has one, as torch's)."""
        if t_g is None:
            return None
        return NllLossBackward.apply(t_g, self.primals[1], fwd=self.fwd)


def nll_double_backward(fwd, grad):
    """The input's gradient of nll_loss node `fwd` under create_graph: torch's
    NllLossBackwardBackward0 over (grad, input); spatial inputs other than 4-D go through a
    4-D view, as torch's nll_loss2d."""
    x = fwd.inputs[0]
    shape = tuple(x.shape)
    if len(shape) <= 2 or len(shape) == 4:
        return NllLossBackward.apply(grad, x, fwd=fwd)
    view = shape[:2] + (1, math.prod(shape[2:]))
    if fwd.reduction == "none":
        grad = grad.reshape(view[:1] + view[2:])
    return NllLossBackward.apply(grad, x.reshape(view), fwd=fwd).reshape(shape)
