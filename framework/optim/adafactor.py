"""Adafactor (torch.optim.Adafactor): factored second moments, torch's single-tensor loop."""

from ..autograd.grad_mode import enable_grad, no_grad
from ..creation import tensor, zeros_like
from .optimizer import Optimizer


class Adafactor(Optimizer):
    r"""Adafactor (Shazeer and Stern, 2018): a second-moment estimate kept as row and column
    averages for matrices, a relative step size and update clipping; torch's algorithm, op by
    op, so a run gives torch's parameters.

    .. math::
        \hat\beta_{2,t} = t^{c}, \quad \rho_t = \min(\gamma, 1/\sqrt{t}), \quad
        \alpha_t = \max(\epsilon_2, \mathrm{RMS}(\theta_{t-1}))\,\rho_t, \quad
        \theta_t = \theta_{t-1} - \frac{\alpha_t}{\max(1, \mathrm{RMS}(U_t)/d)} U_t

    where :math:`U_t = g_t / \sqrt{\hat V_t}` and :math:`\hat V_t` is the factored (or, for
    vectors, the full) running average of :math:`g_t^2` with factor :math:`\hat\beta_{2,t}`.

    Args:
        params (iterable): parameters or named parameters to optimize, or dicts of groups.
        lr (float, Tensor, optional): the cap :math:`\gamma` of the relative step (default: 1e-2).
        beta2_decay (float, optional): :math:`c`, the decay exponent (default: -0.8).
        eps (Tuple[float or None, float], optional): :math:`(\epsilon_1, \epsilon_2)`; None for
            :math:`\epsilon_1` is the dtype's eps (default: (None, 1e-3)).
        d (float, optional): the clipping threshold (default: 1.0).
        weight_decay (float, optional): decoupled weight decay (default: 0.0).
        foreach (bool, optional): accepted for compatibility (keyword only; default: None).
        maximize (bool, optional): maximize the objective (keyword only; default: False).

    State: ``step`` (0-dim float32), ``row_var`` and ``col_var`` (matrices) or ``variance``.

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.Adafactor([p])
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.9842, -1.9842], requires_grad=True)
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        beta2_decay=-0.8,
        eps=(None, 1e-3),
        d=1.0,
        weight_decay=0.0,
        *,
        foreach=None,
        maximize=False,
    ):
        """torch.optim.Adafactor's arguments and checks."""
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(
            lr=lr,
            beta2_decay=beta2_decay,
            eps=eps,
            d=d,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """Performs one optimization step.

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss.

        Example:
            >>> p = framework.ones(2, 2, requires_grad=True)
            >>> opt = framework.optim.Adafactor([p])
            >>> p.sum().backward()
            >>> opt.step()
            >>> sorted(opt.state[p])
            ['col_var', 'row_var', 'step']
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        from ..dtypes import float32
        from .._finfo import finfo

        for group in self.param_groups:
            lr, d, wd = group["lr"], group["d"], group["weight_decay"]
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = -p.grad if group["maximize"] else p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = tensor(0.0, dtype=float32)
                    if grad.dim() > 1:
                        state["row_var"] = grad.new_zeros(list(grad.shape[:-1]) + [1])
                        col = list(grad.shape)
                        col[-2] = 1
                        state["col_var"] = grad.new_zeros(col)
                    else:
                        state["variance"] = zeros_like(grad)
                e1 = finfo(p.dtype).eps if eps1 is None else eps1
                step_t = state["step"]
                step_t += 1
                t = step_t.item()
                one_minus_beta2_t = t ** group["beta2_decay"]
                rho_t = min(lr, 1 / (t**0.5))
                alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
                if wd != 0:
                    p.mul_(1 - lr * wd)
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_mean = grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1))
                    row_var.lerp_(row_mean, one_minus_beta2_t)
                    col_mean = grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2))
                    col_var.lerp_(col_mean, one_minus_beta2_t)
                    var_estimate = row_var @ col_var
                    var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=e1))
                else:
                    variance = state["variance"]
                    variance.lerp_(grad * grad, one_minus_beta2_t)
                    var_estimate = variance.clone()
                update = var_estimate.clamp_(min=e1 * e1).rsqrt_()
                update.mul_(grad)
                denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
                p.add_(update, alpha=-alpha / denom)
        return loss
