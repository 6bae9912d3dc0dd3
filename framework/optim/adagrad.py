"""Adagrad (torch.optim.Adagrad): lr_decay, weight decay, initial accumulator, maximize."""
from ..tensor import Tensor
from .optimizer import Optimizer, _bump, _step_tensor, _to_scalar, _zeros_like


class Adagrad(Optimizer):
    """Per-coordinate steps scaled by the root of the summed squared gradients."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # torch fills the state eagerly, so a fresh Adagrad already has a state_dict 'state'
        for group in self.param_groups:
            for p in group["params"]:
                self._fill_state(p, initial_accumulator_value)

    def _fill_state(self, p, init_value):
        state = self.state[p]
        state["step"] = _step_tensor()
        state["sum"] = _zeros_like(p, init_value)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
        for s in self.state.values():
            if "step" in s and not isinstance(s["step"], Tensor):
                s["step"] = _step_tensor(float(s["step"]))

    def step(self, closure=None):
        """One Adagrad update of every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:  # a group added later: torch reads the optimizer default
                    state = self._fill_state(p, self.defaults["initial_accumulator_value"])
                self._update(p, state, group)
        return loss

    def _update(self, p, state, group):
        lr, wd = _to_scalar(group["lr"]), group["weight_decay"]
        xp, x = p.xp, p._data
        step_t = state["step"]
        step_t._data += 1
        step = step_t.item()
        g = p.grad._data
        if group["maximize"]:
            g = -g
        if wd != 0:
            g = g + wd * x
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        acc = state["sum"]._data
        acc += g * g
        std = xp.sqrt(acc)
        std += group["eps"]
        upd = g * -clr  # addcdiv: (value * t1) / t2
        upd /= std
        x += upd
        _bump(p)
