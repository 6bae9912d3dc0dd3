"""Adadelta (torch.optim.Adadelta)."""

import numpy as np  # the compiled loop's constants (CPU arrays only)

from . import _half, _kernels
from .optimizer import Optimizer, _zeros_like
from ._util import _addcmul_, _sub_scaled_, _sqrt


class Adadelta(Optimizer):
    r"""Adadelta: steps scaled by the ratio of running RMS of updates and of gradients.

    .. math::
        v_t = \rho v_{t-1} + (1 - \rho) g_t^2, \quad
        \Delta x_t = \frac{\sqrt{u_{t-1} + \epsilon}}{\sqrt{v_t + \epsilon}} g_t, \quad
        u_t = \rho u_{t-1} + (1 - \rho) \Delta x_t^2, \quad
        \theta_t = \theta_{t-1} - \gamma \Delta x_t

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups.
        lr (float, Tensor, optional): coefficient :math:`\gamma` that scales the delta before it is
            applied (default: 1.0).
        rho (float, optional): coefficient :math:`\rho` of the running averages of the squared
            gradients and updates (default: 0.9).
        eps (float, optional): :math:`\epsilon`, added to the denominator for numerical stability
            (default: 1e-6).
        weight_decay (float, optional): weight decay (L2 penalty) :math:`\lambda` (default: 0).
        foreach (bool, optional): accepted for compatibility (default: None).
        capturable (bool, optional): accepted for compatibility (default: False).
        maximize (bool, optional): maximize the objective instead of minimizing (default: False).
        differentiable (bool, optional): only False is supported (default: False).

    State: ``step``, ``square_avg`` (:math:`v`), ``acc_delta`` (:math:`u`).

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.Adadelta([p])
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.9968, -1.9968], requires_grad=True)
    """

    _checks = ("lr", "rho", "eps", "weight_decay")
    _capturable_message = ("params and state_steps", False)
    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = self._new_step(p, group)
        state["square_avg"] = _zeros_like(p)
        state["acc_delta"] = _zeros_like(p)

    _compiled = True

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The step as one loop (framework.optim._kernels.adadelta_loop), bit for bit
        `_update`."""
        sq, acc = state["square_avg"]._data, state["acc_delta"]._data
        flat = _kernels.usable(p._data, g, sq, acc)
        if flat is None:
            return False
        self._count(state)
        rho, wd = h["rho"], 0 if prepared else h["weight_decay"]
        consts = np.array([wd, rho, 1 - rho, h["eps"], -h["lr"]], p._data.dtype)
        args = (*flat, consts, not prepared and h["maximize"], wd != 0)
        _kernels.split(lambda r, phase: k.adadelta(*args, r, phase), p._data.size, consts.dtype, 2)
        return True

    def _update(self, p, g, state, h):
        rho, eps, xp = h["rho"], h["eps"], p.xp
        k = _kernels.get()
        if k is not None and self._compiled_update(k, p, g, state, h, prepared=True):
            return
        self._count(state)
        v, u = state["square_avg"]._data, state["acc_delta"]._data
        if _half.is_half(v):  # torch's single-tensor rule, op by op (see _half)
            v[...] = _half.addcmul(_half.mul(v, rho), g, g, 1 - rho)
            std = _half.sqrt(_half.add_number(v, eps))
            delta = _half.mul_tensor(_half.div_tensor(_half.sqrt(_half.add_number(u, eps)), std), g)
            u[...] = _half.addcmul(_half.mul(u, rho), delta, delta, 1 - rho)
            p._data[...] = _half.add(p._data, delta, -h["lr"])
            return
        v *= rho
        _addcmul_(xp, v, g, g, 1 - rho)
        std = _sqrt(xp, v + eps)
        delta = _sqrt(xp, u + eps)
        delta /= std
        delta *= g
        u *= rho
        _addcmul_(xp, u, delta, delta, 1 - rho)
        _sub_scaled_(xp, p._data, h["lr"], delta)  # param.add_(delta, alpha=-lr)
