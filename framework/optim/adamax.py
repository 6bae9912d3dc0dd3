"""Adamax (torch.optim.Adamax): Adam with an infinity-norm second moment."""

import numpy as np  # the compiled loop's constants (CPU arrays only)

from . import _half, _kernels
from .optimizer import Optimizer, _lerp_, _zeros_like


class Adamax(Optimizer):
    r"""Adamax, the infinity-norm variant of Adam.

    .. math::
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        u_t = \max(\beta_2 u_{t-1}, |g_t| + \epsilon), \quad
        \theta_t = \theta_{t-1} - \frac{\gamma}{1 - \beta_1^t} \frac{m_t}{u_t}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 2e-3).
        betas (Tuple[float, float], optional): coefficients :math:`(\beta_1, \beta_2)` of the
            running averages of the gradient and the infinity norm (default: (0.9, 0.999)).
        eps (float, optional): :math:`\epsilon`, added to the denominator for numerical stability
            (default: 1e-8).
        weight_decay (float, optional): weight decay (L2 penalty) :math:`\lambda` (default: 0).
        foreach (bool, optional): accepted for compatibility (default: None).
        maximize (bool, optional): maximize the objective instead of minimizing (default: False).
        differentiable (bool, optional): only False is supported (default: False).
        capturable (bool, optional): accepted for compatibility (default: False).

    State: ``step``, ``exp_avg`` (:math:`m`), ``exp_inf`` (:math:`u`).

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.Adamax([p], lr=0.1)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    _checks = ("lr", "eps", "betas", "betas1", "weight_decay")
    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = self._new_step(p, group)
        state["exp_avg"] = _zeros_like(p)
        state["exp_inf"] = _zeros_like(p)

    _compiled = True

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The step as one loop (framework.optim._kernels.adamax_loop), bit for bit
        `_update`."""
        flat = _kernels.usable(p._data, g, state["exp_avg"]._data, state["exp_inf"]._data)
        if flat is None:
            return False
        beta1, beta2 = h["betas"]
        step = self._count(state)
        wd = 0 if prepared else h["weight_decay"]
        w = p._data.dtype.type(1 - beta1)
        clr = h["lr"] / (1 - beta1**step)
        consts = np.array([wd, w, 1 - w, beta2, h["eps"], -clr], w.dtype)
        maximize = not prepared and h["maximize"]
        k.adamax(*flat, consts, maximize, wd != 0, abs(1 - beta1) < 0.5)
        return True

    def _update(self, p, g, state, h):
        (beta1, beta2), xp = h["betas"], p.xp
        k = _kernels.get()
        if k is not None and self._compiled_update(k, p, g, state, h, prepared=True):
            return
        step = self._count(state)
        m, u = state["exp_avg"]._data, state["exp_inf"]._data
        if _half.is_half(m):  # torch's single-tensor rule, op by op (see _half)
            m[...] = _half.lerp(m, g, 1 - beta1)
            xp.maximum(_half.mul(u, beta2), _half.add_number(xp.abs(g), h["eps"]), out=u)
            clr = h["lr"] / (1 - beta1**step)
            p._data[...] = _half.addcdiv(p._data, m, u, -clr)
            return
        _lerp_(xp, m, g, 1 - beta1)
        u *= beta2
        norm = xp.abs(g)
        norm += h["eps"]
        xp.maximum(u, norm, out=u)
        clr = h["lr"] / (1 - beta1**step)
        upd = m * -clr  # addcdiv: (value * t1) / t2
        upd /= u
        p._data += upd
