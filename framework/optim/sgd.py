"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch.optim.SGD)."""

import numpy as np  # the compiled loop's constants (CPU arrays only)

from ..tensor import Tensor
from . import _group, _half, _kernels, optimizer as _optimizer
from ._util import _added, _axpy_, _sub_scaled_
from .optimizer import Optimizer, _bump


class SGD(Optimizer):
    r"""Stochastic gradient descent, optionally with (Nesterov) momentum.

    .. math::
        g_t = \nabla f(\theta_{t-1}) + \lambda \theta_{t-1}, \quad
        b_t = \mu b_{t-1} + (1 - \tau) g_t \ (b_1 = g_1), \quad
        g_t \leftarrow g_t + \mu b_t \text{ (nesterov) else } b_t, \quad
        \theta_t = \theta_{t-1} - \gamma g_t

    (with ``maximize`` the gradient is negated first).

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups (each may override the defaults below).
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-3).
        momentum (float, optional): momentum factor :math:`\mu` (default: 0).
        dampening (float, optional): dampening :math:`\tau` for momentum (default: 0).
        weight_decay (float, optional): L2 penalty :math:`\lambda` (default: 0).
        nesterov (bool, optional): use Nesterov momentum; needs ``momentum > 0`` and zero
            dampening (default: False).
        maximize (bool, optional): maximize the objective instead of minimizing
            (default: False).
        foreach (bool, optional): accepted for compatibility; the update is the same
            NumPy/CuPy code either way (default: None).
        differentiable (bool, optional): only False is supported (default: False).
        fused (bool, optional): accepted for compatibility (default: None).

    State: ``momentum_buffer`` per parameter when momentum is non-zero.

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.SGD([p], lr=0.1, momentum=0.9)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    _checks = ("lr", "momentum", "weight_decay")
    _setstate_defaults = dict(
        nesterov=False, maximize=False, foreach=None, differentiable=False, fused=False
    )

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    def _check(self, defaults):
        super()._check(defaults)
        if defaults["nesterov"] and (defaults["momentum"] <= 0 or defaults["dampening"] != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")

    _compiled = True

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The step as one loop (framework.optim._kernels.sgd_loop), bit for bit `_update`."""
        momentum = h["momentum"]
        buf = state.get("momentum_buffer") if momentum != 0 else None
        mode = 0 if momentum == 0 else 1 if buf is None else 2
        b = p._data if mode == 0 else buf._data if mode == 2 else np.empty_like(p._data)
        flat = _kernels.usable(p._data, g, b)
        if flat is None:
            return False
        wd = 0 if prepared else h["weight_decay"]
        key = (p._data.dtype.char, prepared)  # the group's parameters share them
        consts = h["_consts"].get(key) if "_consts" in h else None
        if consts is None:
            values = [wd, momentum, 1 - h["dampening"], -h["lr"]]
            consts = h.setdefault("_consts", {})[key] = np.array(values, p._data.dtype)
        maximize = not prepared and h["maximize"]
        n = flat[0].size
        nv = _kernels.fused_split(n, flat[0].itemsize)[1] if h.get("fused") else n
        k.sgd(*flat, consts, maximize, wd != 0, mode, h["nesterov"], nv)
        if mode == 1:  # torch starts the buffer from the gradient itself
            state["momentum_buffer"] = Tensor._make(b, p._device)
        elif mode == 2:
            _bump(buf)
        return True

    def _compiled_group(self, k, params, h):
        """The group's step as calls of _kernels.sgd_group, bit for bit the loop of
        `_compiled_update` (non-fused, C-contiguous float32/float64 parameters, momentum
        buffers already there)."""
        if h.get("fused"):
            return False
        momentum = h["momentum"]
        views = _group.views(self, params, ("momentum_buffer",) if momentum != 0 else ())
        if views is None:
            return False
        gs = _group.flat_grads(params, views[0])
        if gs is None:
            return False
        dt = params[0]._data.dtype
        wd = h["weight_decay"]
        key = (dt.char, False)
        table = h.get("_consts")
        if table is None:
            table = h["_consts"] = {}
        consts = table.get(key)
        if consts is None:
            values = [wd, momentum, 1 - h["dampening"], -h["lr"]]
            consts = table[key] = np.array(values, dt)
        mode = 0 if momentum == 0 else 2
        p_ = views[2]
        b_ = views[3] if mode else p_
        n, step = len(params), _optimizer._GROUP_MAX
        for i in range(0, n, step):  # (a call per _GROUP_MAX parameters: the counts compiled)
            j = slice(i, i + step) if n > step else slice(None)
            args = (p_[j], tuple(gs[j]), b_[j], consts, h["maximize"], wd != 0, mode)
            k.sgd_group(*args, h["nesterov"])
        for p, s in zip(params, views[1]):
            p._vc[0] += 1  # (_bump)
            if mode:
                s["momentum_buffer"]._vc[0] += 1
        return True

    def _update(self, p, g, state, h):
        momentum, dampening = h["momentum"], h["dampening"]
        if _half.is_half(p._data):
            return self._update_half(p, g, state, h)
        k = _kernels.get()
        if k is not None and self._compiled_update(k, p, g, state, h, prepared=True):
            return
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:  # torch starts the buffer from the gradient itself
                buf = state["momentum_buffer"] = Tensor._make(g.copy(), p._device)
            else:
                b = buf._data
                b *= momentum
                _axpy_(p.xp, b, 1 - dampening, g)  # buf.mul_(momentum).add_(g, alpha=)
                _bump(buf)
            g = _added(g, buf._data, momentum) if h["nesterov"] else buf._data
        _sub_scaled_(p.xp, p._data, h["lr"], g)

    @staticmethod
    def _update_half(p, g, state, h):
        """torch's single-tensor SGD, op by op, on a float16/bfloat16 parameter."""
        momentum = h["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = Tensor._make(g.copy(), p._device)
            else:
                b = buf._data
                b[...] = _half.add(_half.mul(b, momentum), g, 1 - h["dampening"])
                _bump(buf)
            g = _half.add(g, buf._data, momentum) if h["nesterov"] else buf._data
        p._data[...] = _half.add(p._data, g, -h["lr"])
