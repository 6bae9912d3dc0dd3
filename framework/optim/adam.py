"""Adam and AdamW (torch.optim.Adam, torch.optim.AdamW), as torch's single-tensor path."""
from ..tensor import Tensor
from .optimizer import Optimizer, _bump, _step_tensor, _to_scalar, _zeros_like


def _lerp_(xp, start, end, weight):
    """start += weight * (end - start) in place, with torch's two-sided formula for accuracy."""
    diff = end - start
    if abs(weight) < 0.5:
        diff *= weight
        start += diff
    else:
        diff *= weight - 1  # end - (end - start) * (1 - weight)
        xp.add(end, diff, out=start)


class Adam(Optimizer):
    """Adam with bias correction; amsgrad, maximize, L2 or decoupled weight decay."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, {})
                if p_state and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _step_tensor(float(p_state["step"]))

    def _init_state(self, p, amsgrad):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["exp_avg"] = _zeros_like(p)
            state["exp_avg_sq"] = _zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = _zeros_like(p)
        return state

    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, self._init_state(p, group["amsgrad"]), group)
        return loss

    def _update(self, p, state, group):
        lr, wd, eps = _to_scalar(group["lr"]), group["weight_decay"], group["eps"]
        beta1, beta2 = (_to_scalar(b) for b in group["betas"])
        xp, x = p.xp, p._data
        g = p.grad._data
        if group["maximize"]:
            g = -g
        step_t = state["step"]
        step_t._data += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                x *= 1 - lr * wd
            else:
                g = g + wd * x
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        _lerp_(xp, m, g, 1 - beta1)
        v *= beta2
        v += (1 - beta2) * g * g
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        step_size = lr / bias_correction1
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._data
            xp.maximum(vmax, v, out=vmax)
            v = vmax
        denom = xp.sqrt(v)
        denom /= bias_correction2_sqrt
        denom += eps
        update = m * -step_size  # torch's addcdiv: (value * t1) / t2
        update /= denom
        x += update
        _bump(p)


class AdamW(Adam):
    """Adam with decoupled weight decay: p *= 1 - lr * weight_decay before the Adam step."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
