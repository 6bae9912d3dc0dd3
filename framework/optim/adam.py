"""Adam (torch.optim.Adam): bias correction, amsgrad, L2 or decoupled weight decay."""

import numpy as np  # the compiled loop's constants (CPU arrays only)

from ..tensor import Tensor
from . import _group, _half, _kernels
from ._util import _adam_moments, _sqrt
from . import optimizer as _optimizer
from .optimizer import Optimizer, _zeros_like
from .._fma import fused as _fma_fused

_SCALAR_TYPES = {"f": np.float32, "d": np.float64}  # _constants' dtype chars


class Adam(Optimizer):
    r"""Adam: adaptive moment estimation.

    .. math::
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \quad
        \hat v_t = \max(\hat v_{t-1}, v_t) \text{ (amsgrad) else } v_t, \\
        \theta_t = \theta_{t-1} - \frac{\gamma}{1 - \beta_1^t}\,
        \frac{m_t}{\sqrt{\hat v_t} / \sqrt{1 - \beta_2^t} + \epsilon}

    where :math:`g_t` is the gradient (negated with ``maximize``) plus
    :math:`\lambda\theta_{t-1}` (L2), or, with ``decoupled_weight_decay``, the parameter is
    first scaled by :math:`1 - \gamma\lambda` (AdamW).

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups (each may override the defaults below).
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float], optional): coefficients :math:`(\beta_1, \beta_2)` of
            the running averages of the gradient and its square (default: (0.9, 0.999)).
        eps (float, optional): :math:`\epsilon` added to the denominator for numerical
            stability (default: 1e-8).
        weight_decay (float, optional): weight decay :math:`\lambda` (default: 0).
        amsgrad (bool, optional): use the AMSGrad variant, which keeps the running maximum
            of :math:`v_t` (default: False).
        foreach (bool, optional): accepted for compatibility (default: None).
        maximize (bool, optional): maximize the objective instead of minimizing
            (default: False).
        capturable (bool, optional): accepted for compatibility; there are no CUDA graphs
            to capture here (default: False).
        differentiable (bool, optional): only False is supported (default: False).
        fused (bool, optional): accepted for compatibility (default: None).
        decoupled_weight_decay (bool, optional): decay the parameters directly (AdamW)
            instead of adding :math:`\lambda\theta` to the gradient (default: False).

    State: ``step`` (0-dim tensor), ``exp_avg``, ``exp_avg_sq``, ``max_exp_avg_sq`` (amsgrad).

    Example:
        >>> p = framework.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = framework.optim.Adam([p], lr=0.1)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    _checks = ("lr", "eps", "betas", "betas1", "weight_decay")
    _setstate_defaults = dict(
        amsgrad=False,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        decoupled_weight_decay=False,
        fused=None,
    )

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def _check(self, defaults):
        super()._check(defaults)
        b0, b1 = defaults["betas"]
        if not (
            (isinstance(b0, float) and isinstance(b1, float))
            or (isinstance(b0, Tensor) and isinstance(b1, Tensor))
        ):
            raise ValueError("betas must be either both floats or both Tensors")

    def _init_state(self, p, state, group):
        state["step"] = self._new_step(p, group)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _zeros_like(p)

    _compiled = True

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The step as one loop (framework.optim._kernels.adam_loop), bit for bit `_update`."""
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        amsgrad = h["amsgrad"]
        flat = _kernels.usable(p._data, g, m, v, state["max_exp_avg_sq"]._data if amsgrad else v)
        if flat is None:
            return False
        step = self._count(state)
        key = (step, p._data.dtype.char, prepared)  # the group's parameters share them
        consts = h["_consts"].get(key) if "_consts" in h else None
        if consts is None:
            consts = h.setdefault("_consts", {})[key] = self._constants(h, step, key[1], prepared)
        wd = 0 if prepared else h["weight_decay"]
        mode = 0 if wd == 0 else 2 if h["decoupled_weight_decay"] else 1
        maximize = not prepared and h["maximize"]
        n = flat[0].size
        dt = flat[0].dtype
        beta1 = h["betas"][0]
        if h.get("fused"):  # torch's fused kernel: its lerp side is chosen in the dtype
            nb, nv = _kernels.fused_split(n, flat[0].itemsize)
            low = abs(consts[2]) < 0.5
        else:
            nb = nv = n
            low = abs(1 - beta1) < 0.5
        if h.get("fused"):  # (torch's fused kernel: the correctly rounded root)
            r, root = _kernels.empty(dt), (0, 0)
        else:
            r, root = _kernels.roots(dt, n)
        k.adam(*flat, consts, maximize, mode, amsgrad, low, nb, nv, r, root)
        return True

    def _compiled_group(self, k, params, h):
        """The group's step as one call of _kernels.adam_group, bit for bit the loop of
        `_compiled_update` (non-fused, C-contiguous float32/float64 parameters with state)."""
        if h.get("fused"):
            return False
        amsgrad = h["amsgrad"]
        keys = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq" if amsgrad else "exp_avg_sq")
        views = _group.views(self, params, keys, "step")
        if views is None:
            return False
        gs = _group.flat_grads(params, views[0])
        if gs is None:
            return False
        table = h.get("_consts")
        if table is None:
            table = h["_consts"] = {}
        dt = params[0]._data.dtype.char
        counts = [self._count(s) for s in views[1]]
        first = counts[0]
        if counts.count(first) == len(counts):  # (the common case: one count, one array)
            c = table.get((first, dt, False))
            if c is None:
                c = table[(first, dt, False)] = self._constants(h, first, dt, False)
            consts = (c,) * len(counts)
        else:
            consts = []
            for count in counts:
                c = table.get((count, dt, False))
                if c is None:
                    c = table[(count, dt, False)] = self._constants(h, count, dt, False)
                consts.append(c)
            consts = tuple(consts)
        wd = h["weight_decay"]
        mode = 0 if wd == 0 else 2 if h["decoupled_weight_decay"] else 1
        low = abs(1 - h["betas"][0]) < 0.5
        _, _, p_, m_, v_, vmax_ = views
        n, step = len(params), _optimizer._GROUP_MAX
        flags = (h["maximize"], mode, amsgrad, low)
        if n <= step:  # one call
            self._group_call(k, p_, tuple(gs), m_, v_, vmax_, consts, flags)
        else:
            for i in range(0, n, step):  # (a call per _GROUP_MAX parameters: the counts
                j = slice(i, i + step)  # compiled)
                args = (p_[j], tuple(gs[j]), m_[j], v_[j], vmax_[j], consts[j], flags)
                self._group_call(k, *args)
        for p in params:
            p._vc[0] += 1  # (_bump)
        return True

    def _group_call(self, k, ps, gs, ms, vs, vmaxs, consts, flags):
        """_kernels.adam_group on these parameters, with VML's roots as torch's where MKL is
        loaded (`_kernels.roots`: a scratch kept for these parameters)."""
        scratch = self.__dict__.get("_root_scratch")
        if scratch is None or scratch[0] is not ps:
            size = max(a.size for a in ps)
            scratch = self._root_scratch = (ps, *_kernels.roots(ps[0].dtype, size))
        k.adam_group(ps, gs, ms, vs, vmaxs, consts, *flags, scratch[1], scratch[2])

    @staticmethod
    def _constants(h, step, dtype, prepared):
        """adam_loop's k in the parameters' dtype (NumPy rounds the Python floats so)."""
        lr, eps, (beta1, beta2) = h["lr"], h["eps"], h["betas"]
        wd = 0 if prepared else h["weight_decay"]
        t = _SCALAR_TYPES.get(dtype) or np.dtype(dtype).type
        w = t(1 - beta1)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        step_size = lr / (1 - beta1**step)
        values = [wd, 1 - lr * wd, w, 1 - w, beta2, 1 - beta2, bias_correction2_sqrt, eps]
        return np.array(values + [-step_size], dtype)

    def _update(self, p, g, state, h):
        lr, eps, (beta1, beta2) = h["lr"], h["eps"], h["betas"]
        xp = p.xp
        if _half.is_half(p._data):
            return self._update_half(p, g, state, h)
        k = _kernels.get()
        if k is not None and self._compiled_update(k, p, g, state, h, prepared=True):
            return
        step = self._count(state)
        tail = _fused_tail(p, g, state) if h.get("fused") else None
        m, v = _adam_moments(xp, state, g, beta1, beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        step_size = lr / bias_correction1
        if tail is not None:
            tail.moments(beta2)
        if h["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._data
            xp.maximum(vmax, v, out=vmax)
            if tail is not None:
                tail.maximum()
            v = vmax
        denom = _sqrt(xp, v, h.get("fused"))
        denom /= bias_correction2_sqrt
        denom += eps
        update = m * -step_size  # torch's addcdiv: (value * t1) / t2
        update /= denom
        p._data += update

    def _update_half(self, p, g, state, h):
        """torch's single-tensor Adam, op by op, on a float16/bfloat16 parameter."""
        lr, eps, (beta1, beta2) = h["lr"], h["eps"], h["betas"]
        step = self._count(state)
        m, v = _half.adam_moments(state, g, beta1, beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        if h["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._data
            p.xp.maximum(vmax, v, out=vmax)
            v = vmax
        denom = _half.add_number(_half.div(_half.sqrt(v), bias_correction2_sqrt), eps)
        p._data[...] = _half.addcdiv(p._data, m, denom, -(lr / bias_correction1))


class _FusedTail:
    """The elements torch's fused CPU Adam (``fused=True``) rounds in its scalar loop, for
    the NumPy path (`Adam._update`; the compiled loop passes `fused_split` itself): after
    the vector body (from nb) amsgrad's maximum is std::max (a NaN second moment is not
    taken), and after the vectorized part of the scalar loop (from nv) the compiler fuses
    exp_avg_sq * beta2 + (1 - beta2) g^2 on its first product instead of addcmul's second."""

    def __init__(self, flat, nb, nv):
        self.flat, self.nb, self.nv = flat, nb, nv  # (param, grad, exp_avg, exp_avg_sq[,
        self.v_old = flat[3][nv:].copy()  # max_exp_avg_sq]) flat; exp_avg_sq before the step
        self.vmax_old = flat[4][nb:].copy() if len(flat) > 4 else None

    def moments(self, beta2):
        """exp_avg_sq[nv:] again, with the scalar loop's contraction."""
        g, v = self.flat[1][self.nv :], self.flat[3]
        dt = v.dtype.type
        _fma_fused(self.v_old, dt(beta2), (dt(1 - beta2) * g) * g, out=v[self.nv :])

    def maximum(self):
        """max_exp_avg_sq[nb:] as std::max(old, exp_avg_sq)."""
        if self.vmax_old is None:
            return
        old, new = self.vmax_old, self.flat[3][self.nb :]
        self.flat[4][self.nb :] = np.where(old < new, new, old)


def _fused_tail(p, g, state):
    """A `_FusedTail` for a float32/float64 NumPy parameter whose size leaves torch's fused
    kernel a scalar tail, else None (no tail, or arrays the kernel's layout cannot take)."""
    v = state["exp_avg_sq"]._data
    vmax = state.get("max_exp_avg_sq")
    arrays = (p._data, g, state["exp_avg"]._data, v) + ((vmax._data,) if vmax is not None else ())
    flat = _kernels.usable(*arrays)
    if flat is None:
        return None
    nb, nv = _kernels.fused_split(v.size, v.itemsize)
    if nb == v.size:
        return None
    return _FusedTail(flat, nb, nv)
