"""Adagrad (torch.optim.Adagrad): lr_decay, weight decay, initial accumulator, maximize."""

import numpy as np  # the compiled loop's constants (CPU arrays only)

from . import _half, _kernels
from .optimizer import Optimizer, _zeros_like
from ._util import _addcmul_, _sqrt


class Adagrad(Optimizer):
    r"""Per-coordinate steps scaled by the root of the summed squared gradients.

    .. math::
        \tilde\gamma = \frac{\gamma}{1 + (t - 1)\eta}, \quad
        s_t = s_{t-1} + g_t^2, \quad
        \theta_t = \theta_{t-1} - \tilde\gamma \frac{g_t}{\sqrt{s_t} + \epsilon}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-2).
        lr_decay (float, optional): learning rate decay :math:`\eta` (default: 0).
        weight_decay (float, optional): weight decay (L2 penalty) :math:`\lambda` (default: 0).
        initial_accumulator_value (float, optional): the starting value of the sum of squared
            gradients :math:`s` (default: 0).
        eps (float, optional): :math:`\epsilon`, added to the denominator for numerical stability
            (default: 1e-10).
        foreach (bool, optional): accepted for compatibility (default: None).
        maximize (bool, optional): maximize the objective instead of minimizing (default: False).
        differentiable (bool, optional): only False is supported (default: False).
        fused (bool, optional): accepted for compatibility (default: None).

    State (filled at construction, as torch's): ``step`` and ``sum``.

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.Adagrad([p], lr=0.1)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    _checks = ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps")
    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, fused=None)

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:  # torch fills the state eagerly
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    def _init_state(self, p, state, group):
        state["step"] = self._new_step(p, group)  # torch fills from the constructor's value
        state["sum"] = _zeros_like(p, self.defaults["initial_accumulator_value"])

    _compiled = True

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The step as one loop (framework.optim._kernels.adagrad_loop), bit for bit
        `_update`."""
        flat = _kernels.usable(p._data, g, state["sum"]._data)
        if flat is None:
            return False
        step = self._count(state)
        clr = h["lr"] / (1 + (step - 1) * h["lr_decay"])
        wd = 0 if prepared else h["weight_decay"]
        consts = np.array([wd, h["eps"], -clr], p._data.dtype)
        args = (*flat, consts, not prepared and h["maximize"], wd != 0)
        if h.get("fused"):  # (torch's fused kernel: the correctly rounded root)
            k.adagrad(*args, _kernels.empty(consts.dtype), 0)
        else:
            _kernels.split(lambda r, phase: k.adagrad(*args, r, phase), p._data.size, consts.dtype)
        return True

    def _update(self, p, g, state, h):
        xp = p.xp
        k = _kernels.get()
        if k is not None and self._compiled_update(k, p, g, state, h, prepared=True):
            return
        step = self._count(state)
        clr = h["lr"] / (1 + (step - 1) * h["lr_decay"])
        acc = state["sum"]._data
        if _half.is_half(acc):  # torch's single-tensor rule, op by op (see _half)
            acc[...] = _half.addcmul(acc, g, g, 1)
            std = _half.add_number(_half.sqrt(acc), h["eps"])
            p._data[...] = _half.addcdiv(p._data, g, std, -clr)
            return
        _addcmul_(xp, acc, g, g, 1)  # state_sum.addcmul_(grad, grad, value=1)
        std = _sqrt(xp, acc, h.get("fused"))
        std += h["eps"]
        upd = g * -clr  # addcdiv: (value * t1) / t2
        upd /= std
        p._data += upd
