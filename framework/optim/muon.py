"""Muon (torch.optim.Muon): momentum orthogonalized by a Newton-Schulz iteration in bfloat16."""

import math

from ..autograd.grad_mode import enable_grad, no_grad
from ..creation import zeros_like
from .optimizer import Optimizer

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """torch's quintic Newton-Schulz orthogonalization of a 2-D `grad`, in bfloat16."""
    from .. import addmm

    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = grad.bfloat16()
    tall = grad.size(0) > grad.size(1)
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram = x @ x.T
        gram_update = addmm(gram, gram, gram, beta=b, alpha=c)
        x = addmm(x, gram_update, x, beta=a)
    return x.T if tall else x


def _adjust_lr(lr, adjust_lr_fn, shape):
    """torch's Muon learning-rate adjustment for a parameter's shape."""
    A, B = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(A, B))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    r"""Muon: SGD with (Nesterov) momentum whose update is orthogonalized by 5 steps of a
    quintic Newton-Schulz iteration in bfloat16, for 2-D parameters; torch's algorithm op by op.

    .. math::
        B_t = \mu B_{t-1} + (1 - \mu) g_t, \quad
        O_t = \mathrm{NS}(\text{nesterov} ? \mathrm{lerp}(g_t, B_t, \mu) : B_t), \quad
        \theta_t = (1 - \gamma\lambda)\theta_{t-1} - \tilde\gamma O_t

    Args:
        params (iterable): 2-D parameters or named parameters, or dicts of groups.
        lr (float, Tensor, optional): the learning rate :math:`\gamma` (default: 1e-3).
        weight_decay (float, optional): decoupled weight decay :math:`\lambda` (default: 0.1).
        momentum (float, optional): :math:`\mu` (default: 0.95).
        nesterov (bool, optional): Nesterov momentum (default: True).
        ns_coefficients (tuple of 3 floats, optional): the iteration's (a, b, c) (default:
            (3.4445, -4.775, 2.0315)).
        eps (float, optional): the normalization's floor (default: 1e-7).
        ns_steps (int, optional): Newton-Schulz steps, fewer than 100 (default: 5).
        adjust_lr_fn (str, optional): ``'original'`` (:math:`\sqrt{\max(1, A/B)}`) or
            ``'match_rms_adamw'`` (:math:`0.2 \sqrt{\max(A, B)}`) scaling of the step
            (default: None, the original).

    State: ``momentum_buffer``.

    Example:
        >>> p = framework.ones(2, 2, requires_grad=True)
        >>> opt = framework.optim.Muon([p])
        >>> p.sum().backward()
        >>> opt.step()
        >>> sorted(opt.state[p])
        ['momentum_buffer']
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        weight_decay=0.1,
        momentum=0.95,
        nesterov=True,
        ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps=EPS,
        ns_steps=DEFAULT_NS_STEPS,
        adjust_lr_fn=None,
    ):
        """torch.optim.Muon's arguments and checks."""
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(
            lr=lr,
            weight_decay=weight_decay,
            momentum=momentum,
            nesterov=nesterov,
            ns_coefficients=ns_coefficients,
            eps=eps,
            ns_steps=ns_steps,
            adjust_lr_fn=adjust_lr_fn,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    @no_grad()
    def step(self, closure=None):
        """Performs one optimization step.

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss.

        Example:
            >>> p = framework.eye(2, requires_grad=True)
            >>> opt = framework.optim.Muon([p], lr=0.1)
            >>> p.sum().backward()
            >>> opt.step()
            >>> p.shape
            torch.Size([2, 2])
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, wd, mu = group["lr"], group["weight_decay"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = zeros_like(grad)
                if grad.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                buf = state["momentum_buffer"]
                buf.lerp_(grad, 1 - mu)
                update = grad.lerp(buf, mu) if group["nesterov"] else buf
                update = _zeropower_via_newtonschulz(
                    update, group["ns_coefficients"], group["ns_steps"], group["eps"]
                )
                adjusted = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
                p.mul_(1 - lr * wd)
                p.add_(update, alpha=-adjusted)
        return loss
