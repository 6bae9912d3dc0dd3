"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch.optim.SGD)."""
from ..tensor import Tensor
from .optimizer import Optimizer, _bump, _to_scalar


class SGD(Optimizer):
    """Stochastic gradient descent, step for step as torch's single-tensor implementation."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, wd = _to_scalar(group["lr"]), _to_scalar(group["weight_decay"])
            momentum, dampening = group["momentum"], group["dampening"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad._data
                if group["maximize"]:
                    g = -g
                if wd != 0:
                    g = g + wd * p._data  # a new array: p.grad itself is left untouched
                if momentum != 0:
                    g = self._momentum(p, g, momentum, dampening, group["nesterov"])
                p._data -= lr * g
                _bump(p)
        return loss

    def _momentum(self, p, g, momentum, dampening, nesterov):
        """buf = momentum * buf + (1 - dampening) * g; the first buffer is a copy of g."""
        state = self.state[p]
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = Tensor._make(g.copy(), p._device)
            state["momentum_buffer"] = buf
        else:
            b = buf._data
            b *= momentum
            b += g if dampening == 0 else (1 - dampening) * g
            _bump(buf)
        return g + momentum * buf._data if nesterov else buf._data
