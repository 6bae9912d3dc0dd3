"""ASGD (torch.optim.ASGD): averaged stochastic gradient descent."""

import numpy as np  # the host-side 0-dim eta of foreach=True

from . import _half
from .optimizer import Optimizer, _step_tensor, _to_scalar, _zeros_like
from .._fma import fusable, fused
from ._util import _added, _sub_scaled_


class ASGD(Optimizer):
    r"""Averaged SGD (Polyak & Juditsky), with torch's decaying step size.

    .. math::
        \theta_t = \theta_{t-1}(1 - \lambda\eta_{t-1}) - \eta_{t-1} g_t, \quad
        a_t = a_{t-1} + \mu_{t-1}(\theta_t - a_{t-1}) \ (a_t = \theta_t \text{ while }
        \mu = 1), \\
        \eta_t = \frac{\gamma}{(1 + \lambda\gamma t)^\alpha}, \quad
        \mu_t = \frac{1}{\max(1, t - t_0)}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-2).
        lambd (float, optional): decay term :math:`\lambda` (default: 1e-4).
        alpha (float, optional): power :math:`\alpha` for the :math:`\eta` update (default: 0.75).
        t0 (float, optional): the step at which to start averaging (default: 1e6).
        weight_decay (float, optional): weight decay (L2 penalty) :math:`\lambda` (default: 0).
        foreach (bool, optional): accepted for compatibility (default: None).
        maximize (bool, optional): maximize the objective instead of minimizing (default: False).
        differentiable (bool, optional): only False is supported (default: False).
        capturable (bool, optional): accepted for compatibility (default: False).

    State: ``step``, ``eta``, ``mu`` (0-dim tensors), ``ax`` (the average :math:`a`).

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.ASGD([p], lr=0.1)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    _checks = ("lr", "weight_decay")
    _capturable_message = ("params, mus, etas, and state_steps", True)
    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _restore_step(self, p, p_state, group):
        super()._restore_step(p, p_state, group)
        for key in ("eta", "mu"):
            p_state[key] = _step_tensor(float(p_state[key]))

    def _init_state(self, p, state, group):
        device = p.device  # torch keeps all three counters on the parameter's device
        state["step"] = _step_tensor(0.0, device)
        state["eta"] = _step_tensor(float(_to_scalar(group["lr"])), device)
        state["mu"] = _step_tensor(1.0, device)
        state["ax"] = _zeros_like(p)

    def _update(self, p, g, state, h):
        lr, lambd, x = h["lr"], h["lambd"], p._data
        step = self._count(state)
        eta, mu = state["eta"], state["mu"]
        eta_value = float(eta._data)
        ax, mu_value = state["ax"]._data, float(mu._data)
        if _half.is_half(x):  # torch's single-tensor rule, op by op (see _half)
            x[...] = _half.add(_half.mul(x, 1 - lambd * eta_value), g, -eta_value)
            if mu_value != 1:  # ax.add_(param.sub(ax).mul_(mu)), mu a float32 0-dim tensor
                ax[...] = _half.add(ax, _half.mul(_half.sub_tensor(x, ax), mu_value))
            else:
                ax[...] = x
        elif h.get("foreach") and fusable(x, g):  # torch's _multi_tensor_asgd: another
            dt = x.dtype.type  # composition: p - eta * (g + lambd * p), ax + mu * (p - ax)
            fused(-_added(g, x, lambd), dt(eta_value), x, out=x)  # addcmul(value=-1)
            fused(x - ax, dt(mu_value), ax, out=ax)
        else:
            x *= 1 - lambd * eta_value
            _sub_scaled_(p.xp, x, eta_value, g)  # param.add_(grad, alpha=-eta)
            if mu_value != 1:
                ax += (x - ax) * mu._data.astype(x.dtype)
            else:
                ax[...] = x
        if h.get("foreach"):  # torch's multi-tensor code: tensor ops on the step counter
            count = state["step"]._data  # (its dtype), and lr / tensor as reciprocal() * lr
            dt = count.dtype.type
            base = dt(lambd * lr) * count[()] + 1
            eta._data[...] = (dt(1) / np.power(base, dt(h["alpha"]))) * dt(lr)
        else:
            eta._data[...] = lr / ((1 + lambd * lr * step) ** h["alpha"])
        mu._data[...] = 1 / max(1, step - h["t0"])
