"""RMSprop (torch.optim.RMSprop): alpha, eps, weight decay, momentum, centered, maximize."""

import numpy as np  # the compiled loop's constants (CPU arrays only)

from . import _half, _kernels
from .optimizer import Optimizer, _lerp_, _zeros_like
from ._util import _addcmul, _addcmul_, _sub_scaled_, _sqrt


class RMSprop(Optimizer):
    r"""Divide the gradient by a running root mean square of recent gradients.

    .. math::
        v_t = \alpha v_{t-1} + (1 - \alpha) g_t^2, \quad
        \tilde v_t = v_t - \bar g_t^2 \text{ (centered, } \bar g_t = \alpha \bar g_{t-1}
        + (1 - \alpha) g_t), \\
        b_t = \mu b_{t-1} + g_t / (\sqrt{\tilde v_t} + \epsilon), \quad
        \theta_t = \theta_{t-1} - \gamma b_t \text{ (or } \gamma g_t / (\sqrt{\tilde v_t}
        + \epsilon) \text{ without momentum)}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-2).
        alpha (float, optional): smoothing constant :math:`\alpha` (default: 0.99).
        eps (float, optional): :math:`\epsilon`, added to the denominator for numerical stability
            (default: 1e-8).
        weight_decay (float, optional): weight decay (L2 penalty) :math:`\lambda` (default: 0).
        momentum (float, optional): momentum factor :math:`\mu` (default: 0).
        centered (bool, optional): normalize the gradient by an estimate of its variance instead of
            its second moment (default: False).
        capturable (bool, optional): accepted for compatibility (default: False).
        foreach (bool, optional): accepted for compatibility (default: None).
        maximize (bool, optional): maximize the objective instead of minimizing (default: False).
        differentiable (bool, optional): only False is supported (default: False).

    State: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg`` (centered).

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.RMSprop([p], lr=0.01)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    _checks = ("lr", "eps", "momentum", "weight_decay", "alpha")
    _setstate_defaults = dict(
        momentum=0,
        centered=False,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    )

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = self._new_step(p, group)
        state["square_avg"] = _zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = _zeros_like(p)

    _compiled = True

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The step as one loop (framework.optim._kernels.rmsprop_loop), bit for bit
        `_update`."""
        sq = state["square_avg"]._data
        centered, momentum = h["centered"], h["momentum"] > 0
        ga = state["grad_avg"]._data if centered else sq
        buf = state["momentum_buffer"]._data if momentum else sq
        flat = _kernels.usable(p._data, g, sq, ga, buf)
        if flat is None:
            return False
        self._count(state)
        alpha = h["alpha"]
        wd = 0 if prepared else h["weight_decay"]
        dt = p._data.dtype.type
        w = dt(1 - alpha)
        consts = np.array([wd, alpha, w, w, 1 - w, h["eps"], h["momentum"], -h["lr"]], w.dtype)
        maximize = not prepared and h["maximize"]
        args = (*flat, consts, maximize, wd != 0, centered, momentum, abs(1 - alpha) < 0.5)
        _kernels.split(lambda r, phase: k.rmsprop(*args, r, phase), p._data.size, w.dtype)
        return True

    def _update(self, p, g, state, h):
        lr, alpha, eps, momentum = h["lr"], h["alpha"], h["eps"], h["momentum"]
        xp, x = p.xp, p._data
        k = _kernels.get()
        if k is not None and self._compiled_update(k, p, g, state, h, prepared=True):
            return
        self._count(state)
        sq = state["square_avg"]._data
        if _half.is_half(sq):
            return self._update_half(p, g, state, h)
        sq *= alpha
        _addcmul_(xp, sq, g, g, 1 - alpha)
        if h["centered"]:
            ga = state["grad_avg"]._data
            _lerp_(xp, ga, g, 1 - alpha)
            avg = _addcmul(xp, sq, ga, ga, -1)  # the variance estimate cancels: round once
            avg = _sqrt(xp, avg)
        else:
            avg = _sqrt(xp, sq)
        avg += eps
        if momentum > 0:
            buf = state["momentum_buffer"]._data
            buf *= momentum
            buf += g / avg
            _sub_scaled_(xp, x, lr, buf)  # param.add_(buf, alpha=-lr)
        else:
            upd = g * -lr  # addcdiv: (value * t1) / t2
            upd /= avg
            x += upd

    @staticmethod
    def _update_half(p, g, state, h):
        """torch's single-tensor RMSprop, op by op, on a float16/bfloat16 parameter."""
        lr, alpha, momentum = h["lr"], h["alpha"], h["momentum"]
        sq = state["square_avg"]._data
        sq[...] = _half.addcmul(_half.mul(sq, alpha), g, g, 1 - alpha)
        if h["centered"]:
            ga = state["grad_avg"]._data
            ga[...] = _half.lerp(ga, g, 1 - alpha)
            avg = _half.sqrt(_half.addcmul(sq, ga, ga, -1))
        else:
            avg = _half.sqrt(sq)
        avg = _half.add_number(avg, h["eps"])
        if momentum > 0:
            buf = state["momentum_buffer"]._data
            buf[...] = _half.addcdiv(_half.mul(buf, momentum), g, avg)
            p._data[...] = _half.add(p._data, buf, -lr)
        else:
            p._data[...] = _half.addcdiv(p._data, g, avg, -lr)
