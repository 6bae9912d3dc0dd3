"""RMSprop (torch.optim.RMSprop): alpha, eps, weight decay, momentum, centered, maximize."""
from ..tensor import Tensor
from .adam import _lerp_
from .optimizer import Optimizer, _bump, _step_tensor, _to_scalar, _zeros_like


class RMSprop(Optimizer):
    """Divide the gradient by a running RMS of recent gradients, as torch's single-tensor path."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                p_state = self.state.get(p, {})
                if p_state and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _step_tensor(float(p_state["step"]))

    def _init_state(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["square_avg"] = _zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = _zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = _zeros_like(p)
        return state

    def step(self, closure=None):
        """One RMSprop update of every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, self._init_state(p, group), group)
        return loss

    def _update(self, p, state, group):
        lr, alpha, eps = _to_scalar(group["lr"]), group["alpha"], group["eps"]
        wd, momentum = group["weight_decay"], group["momentum"]
        xp, x = p.xp, p._data
        g = p.grad._data
        if group["maximize"]:
            g = -g
        state["step"]._data += 1
        if wd != 0:
            g = g + wd * x
        sq = state["square_avg"]._data
        sq *= alpha
        sq += (1 - alpha) * g * g
        if group["centered"]:
            ga = state["grad_avg"]._data
            _lerp_(xp, ga, g, 1 - alpha)
            avg = sq - ga * ga  # torch: square_avg.addcmul(grad_avg, grad_avg, value=-1)
            xp.sqrt(avg, out=avg)
        else:
            avg = xp.sqrt(sq)
        avg += eps
        if momentum > 0:
            buf = state["momentum_buffer"]._data
            buf *= momentum
            buf += g / avg
            x -= lr * buf
        else:
            upd = g * -lr  # addcdiv: (value * t1) / t2
            upd /= avg
            x += upd
        _bump(p)
