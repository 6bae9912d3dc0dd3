"""NAdam (torch.optim.NAdam): Adam with Nesterov momentum and momentum decay."""

import numpy as np  # the 0-dim float32 mu_product counter lives on the host

from . import _half, _kernels
from ._util import _adam_moments, _sqrt
from .optimizer import Optimizer, _zeros_like, _step_tensor


class NAdam(Optimizer):
    r"""NAdam: Adam with Nesterov momentum (Dozat), with torch's momentum-decay schedule.

    .. math::
        \mu_t = \beta_1 (1 - \tfrac12 0.96^{t\psi}), \quad
        \Pi_t = \prod_{i \le t} \mu_i, \quad
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \\
        \theta_t = \theta_{t-1}
        - \gamma \frac{1 - \mu_t}{1 - \Pi_t} \frac{g_t}{\sqrt{v_t / (1 - \beta_2^t)} + \epsilon}
        - \gamma \frac{\mu_{t+1}}{1 - \Pi_{t+1}} \frac{m_t}{\sqrt{v_t / (1 - \beta_2^t)}
        + \epsilon}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 2e-3).
        betas (Tuple[float, float], optional): coefficients :math:`(\beta_1, \beta_2)` of the
            running averages of the gradient and its square (default: (0.9, 0.999)).
        eps (float, optional): :math:`\epsilon`, added to the denominator for numerical stability
            (default: 1e-8).
        weight_decay (float, optional): weight decay (L2 penalty) :math:`\lambda` (default: 0).
        momentum_decay (float, optional): momentum decay :math:`\psi` (default: 4e-3).
        decoupled_weight_decay (bool, optional): decay the parameters directly (NAdamW) instead of
            adding :math:`\lambda\theta` to the gradient (default: False).
        foreach (bool, optional): accepted for compatibility (default: None).
        maximize (bool, optional): maximize the objective instead of minimizing (default: False).
        capturable (bool, optional): accepted for compatibility (default: False).
        differentiable (bool, optional): only False is supported (default: False).

    State: ``step``, ``mu_product`` (0-dim tensors), ``exp_avg``, ``exp_avg_sq``.

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.NAdam([p], lr=0.1)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.8944, -1.8944], requires_grad=True)
    """

    _checks = ("lr", "eps", "betas", "betas1", "weight_decay", "momentum_decay")
    _capturable_message = ("params, mu_products and state_steps", True)
    _setstate_defaults = dict(
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        decoupled_weight_decay=False,
    )

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _restore_step(self, p, p_state, group):
        super()._restore_step(p, p_state, group)
        p_state["mu_product"] = _step_tensor(float(p_state["mu_product"]))

    def _init_state(self, p, state, group):
        state["step"] = self._new_step(p, group)
        state["mu_product"] = self._new_step(p, group, 1.0)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    _compiled = True

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The step as one loop (framework.optim._kernels.nadam_loop), bit for bit
        `_update`."""
        flat = _kernels.usable(p._data, g, state["exp_avg"]._data, state["exp_avg_sq"]._data)
        if flat is None:
            return False
        lr, eps, (beta1, beta2) = h["lr"], h["eps"], h["betas"]
        bias_correction2, mu, mu_next, mu_product = self._momentum(state, h)
        wd = 0 if prepared else h["weight_decay"]
        w = p._data.dtype.type(1 - beta1)
        foreach = bool(h.get("foreach"))
        bc2 = bias_correction2**0.5 if foreach else bias_correction2
        values = [wd, 1 - lr * wd, w, 1 - w, beta2, 1 - beta2, bc2, eps]
        values += [-lr * (1.0 - mu) / (1.0 - mu_product)]
        values += [(-lr * mu_next) / (1.0 - mu_product * mu_next)]
        mode = 0 if wd == 0 else 2 if h["decoupled_weight_decay"] else 1
        maximize = not prepared and h["maximize"]
        args = (*flat, np.array(values, w.dtype), maximize, mode, abs(1 - beta1) < 0.5, foreach)
        _kernels.split(lambda r, phase: k.nadam(*args, r, phase), p._data.size, w.dtype)
        return True

    def _momentum(self, state, h):
        """Count the step; (bias_correction2, mu, mu_next, mu_product) with the float32
        mu_product counter advanced."""
        (beta1, beta2), psi = h["betas"], h["momentum_decay"]
        step = self._count(state)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
        mp = state["mu_product"]._data
        mp *= np.asarray(mu, mp.dtype)  # a float32 counter, multiplied in float32 as torch's
        return 1 - beta2**step, mu, mu_next, float(mp)

    def _update(self, p, g, state, h):
        lr, eps, (beta1, beta2), xp = h["lr"], h["eps"], h["betas"], p.xp
        k = _kernels.get()
        if k is not None and self._compiled_update(k, p, g, state, h, prepared=True):
            return
        bias_correction2, mu, mu_next, mu_product = self._momentum(state, h)
        x = p._data
        if _half.is_half(x):  # torch's single-tensor rule, op by op (see _half)
            m, v = _half.adam_moments(state, g, beta1, beta2)
            denom = _half.add_number(_half.sqrt(_half.div(v, bias_correction2)), eps)
            x[...] = _half.addcdiv(x, g, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
            value = (-lr * mu_next) / (1.0 - mu_product * mu_next)
            x[...] = _half.addcdiv(x, m, denom, value)
            return
        m, v = _adam_moments(xp, state, g, beta1, beta2)
        if h.get("foreach"):  # torch's _multi_tensor_nadam: the root, then the division
            denom = _sqrt(xp, v)
            denom /= bias_correction2**0.5
        else:
            denom = _sqrt(xp, v / bias_correction2)
        denom += eps
        upd = g * (-lr * (1.0 - mu) / (1.0 - mu_product))
        upd /= denom
        x += upd
        upd = m * ((-lr * mu_next) / (1.0 - mu_product * mu_next))
        upd /= denom
        x += upd
