"""RAdam (torch.optim.RAdam): Adam with a rectified adaptive learning rate."""

import numpy as np  # the compiled loop's constants (CPU arrays only)

from . import _half, _kernels
from ._util import _adam_moments, _addcmul_, _sqrt
from .optimizer import Optimizer, _zeros_like


class RAdam(Optimizer):
    r"""Rectified Adam (Liu et al.): plain momentum SGD until the variance is tractable.

    .. math::
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \quad
        \rho_\infty = \frac{2}{1 - \beta_2} - 1, \quad
        \rho_t = \rho_\infty - \frac{2 t \beta_2^t}{1 - \beta_2^t}, \\
        \hat m_t = \frac{m_t}{1 - \beta_1^t}, \quad
        \theta_t = \theta_{t-1} - \gamma \hat m_t r_t \frac{\sqrt{1 - \beta_2^t}}
        {\sqrt{v_t} + \epsilon} \text{ if } \rho_t > 5 \text{ else }
        \theta_{t-1} - \gamma \hat m_t, \quad
        r_t = \sqrt{\frac{(\rho_t - 4)(\rho_t - 2)\rho_\infty}
        {(\rho_\infty - 4)(\rho_\infty - 2)\rho_t}}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float], optional): coefficients :math:`(\beta_1, \beta_2)` of the
            running averages of the gradient and its square (default: (0.9, 0.999)).
        eps (float, optional): :math:`\epsilon`, added to the denominator for numerical stability
            (default: 1e-8).
        weight_decay (float, optional): weight decay (L2 penalty) :math:`\lambda` (default: 0).
        decoupled_weight_decay (bool, optional): decay the parameters directly (RAdamW) instead of
            adding :math:`\lambda\theta` to the gradient (default: False).
        foreach (bool, optional): accepted for compatibility (default: None).
        maximize (bool, optional): maximize the objective instead of minimizing (default: False).
        capturable (bool, optional): accepted for compatibility (default: False).
        differentiable (bool, optional): only False is supported (default: False).

    State: ``step``, ``exp_avg``, ``exp_avg_sq``.

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.RAdam([p], lr=0.1)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    _checks = ("lr", "eps", "betas", "betas1", "weight_decay")
    _setstate_defaults = dict(
        foreach=None,
        maximize=False,
        differentiable=False,
        decoupled_weight_decay=False,
        capturable=False,
    )

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
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
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = self._new_step(p, group)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    _compiled = True

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The step as one loop (framework.optim._kernels.radam_loop), bit for bit
        `_update`."""
        flat = _kernels.usable(p._data, g, state["exp_avg"]._data, state["exp_avg_sq"]._data)
        if flat is None:
            return False
        lr, eps, (beta1, beta2) = h["lr"], h["eps"], h["betas"]
        step = self._count(state)
        bias_correction1, bias_correction2, rect = self._rectification(step, beta1, beta2)
        wd = 0 if prepared else h["weight_decay"]
        w = p._data.dtype.type(1 - beta1)
        values = [wd, 1 - lr * wd, w, 1 - w, beta2, 1 - beta2, bias_correction1, lr]
        values += [bias_correction2**0.5, eps, 0.0 if rect is None else rect, 1.0]
        values += self._foreach_sizes(lr, bias_correction1, bias_correction2, rect)
        mode = 0 if wd == 0 else 2 if h["decoupled_weight_decay"] else 1
        maximize = not prepared and h["maximize"]
        low = abs(1 - beta1) < 0.5
        foreach = bool(h.get("foreach"))
        consts = np.array(values, w.dtype)
        args = (*flat, consts, maximize, mode, low, rect is not None, foreach)
        if rect is None and not foreach:  # (no root this step)
            k.radam(*args, _kernels.empty(w.dtype), 0)
        else:
            _kernels.split(lambda r, phase: k.radam(*args, r, phase), p._data.size, w.dtype)
        return True

    @staticmethod
    def _rectification(step, beta1, beta2):
        """(bias_correction1, bias_correction2, rect or None while rho_t <= 5)."""
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        rect = (
            ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            if rho_t > 5.0
            else None
        )
        return bias_correction1, bias_correction2, rect

    def _update(self, p, g, state, h):
        lr, eps, (beta1, beta2), xp = h["lr"], h["eps"], h["betas"], p.xp
        k = _kernels.get()
        if k is not None and self._compiled_update(k, p, g, state, h, prepared=True):
            return
        step = self._count(state)
        half = _half.is_half(p._data)
        if half:  # torch's single-tensor rule, op by op (see _half)
            m, v = _half.adam_moments(state, g, beta1, beta2)
        else:
            m, v = _adam_moments(xp, state, g, beta1, beta2)
        bias_correction1, bias_correction2, rect = self._rectification(step, beta1, beta2)
        if half:
            upd = _half.mul(_half.div(m, bias_correction1), lr)
            if rect is not None:
                adaptive = _half.rdiv(bias_correction2**0.5, _half.add_number(_half.sqrt(v), eps))
                upd = _half.mul(_half.mul_tensor(upd, adaptive), rect)
            p._data[...] = _half.add(p._data, upd, -1.0)
            return
        if h.get("foreach"):  # torch's _multi_tensor_radam: another composition
            size, unrect = self._foreach_sizes(lr, bias_correction1, bias_correction2, rect)
            buf = _sqrt(xp, v)
            buf += eps
            buf /= size  # -0.0 when not rectified: -inf, whose reciprocal adds nothing
            xp.reciprocal(buf, out=buf)
            buf += unrect
            _addcmul_(xp, p._data, m, buf, 1)
            return
        upd = m / bias_correction1
        upd *= lr
        if rect is not None:
            adaptive = _sqrt(xp, v)
            adaptive += eps
            xp.reciprocal(adaptive, out=adaptive)  # torch's number / tensor: reciprocal() *
            adaptive *= bias_correction2**0.5
            upd *= adaptive  # torch: m_hat * lr * adaptive * rect
            upd *= rect
        p._data -= upd

    @staticmethod
    def _foreach_sizes(lr, bias_correction1, bias_correction2, rect):
        """_multi_tensor_radam's two step sizes: the rectified one (times the root of
        bias_correction2) and the unrectified one, each -0.0 where the other applies."""
        rect = rect or 0
        unrect = 0 if rect > 0 else 1.0
        size = (bias_correction2**0.5) * (lr * rect / bias_correction1) * -1
        return size, (lr * unrect / bias_correction1) * -1
