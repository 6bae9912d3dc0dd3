"""Small helpers shared by the optimizers: state tensors, scalars, state_dict packing."""

from copy import deepcopy

import numpy as np  # host-side step counters only; parameter math uses each array's xp

from .. import dtypes
from .._fma import add_scaled, fusable, fused
from ..backend import CPU
from ..tensor import Tensor


def _scalar_dtype():
    """dtype of the 'step' counters: float64 under a float64 default dtype, else float32."""
    return dtypes.float64.np if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32.np


def _step_tensor(value=0.0, device=None):
    """A 0-dim tensor counting steps: on the CPU, or on `device` for capturable optimizers."""
    t = Tensor._make(np.array(value, dtype=_scalar_dtype()), CPU)
    return t if device is None or device.type == "cpu" else t.to(device)


def _zeros_like(p, fill=0):
    """A state buffer on p's device and dtype."""
    data = p.xp.full_like(p._data, fill)
    return Tensor._make(data, p._device)


def _to_scalar(x):
    """Hyperparameters may be 1-element tensors (or tuples of them); the math wants numbers."""
    if isinstance(x, Tensor):
        return x.item()
    if isinstance(x, tuple) and any(isinstance(v, Tensor) for v in x):
        return tuple(_to_scalar(v) for v in x)
    return x


def _bump(p):
    """Mark an in-place update of p (torch's param.add_ bumps the version counter too)."""
    p._vc[0] += 1


_BLOCK = 16384  # elements per temporary in _sub_scaled_


def _axpy_(xp, out, alpha, g):
    """out += alpha * g in place, as torch's ``out.add_(g, alpha=alpha)``: one fused
    multiply-add per element (alpha rounded to out's dtype) on float32/float64 CPU arrays;
    elsewhere the product made a block at a time (no whole-size temporary: it would raise a
    step's peak memory by a parameter)."""
    if alpha == 1 and out.shape == g.shape:
        out += g  # (g * 1 is exact: the fused sum's rounding)
        return
    if fusable(out, g):
        fused(g, out.dtype.type(alpha), out, out=out)
        return
    n = g.size
    if n <= _BLOCK or out.shape != g.shape or not (out.flags.c_contiguous and g.flags.c_contiguous):
        out += alpha * g
        return
    o, s = out.reshape(-1), g.reshape(-1)
    tmp = xp.empty(_BLOCK, dtype=xp.result_type(g, alpha))
    for i in range(0, n, _BLOCK):
        j = min(i + _BLOCK, n)
        o[i:j] += xp.multiply(s[i:j], alpha, out=tmp[: j - i])


def _sub_scaled_(xp, out, alpha, g):
    """out -= alpha * g in place: torch's ``out.add_(g, alpha=-alpha)`` (see _axpy_)."""
    _axpy_(xp, out, -alpha, g)


def _added(a, b, alpha):
    """a + alpha * b, a new array: torch's ``a.add(b, alpha=alpha)`` (fused as _axpy_)."""
    if fusable(a, b):
        return add_scaled(a, b, alpha)
    return a + alpha * b


def _lerp_(xp, start, end, weight):
    """start += weight * (end - start) in place, with torch's two-sided formula for accuracy
    (its lerp_vec: one fused multiply-add on float32/float64 CPU arrays)."""
    diff = end - start
    if fusable(start, end):
        w = start.dtype.type(weight)
        if abs(weight) < 0.5:
            fused(diff, w, start, out=start)
        else:
            fused(-diff, 1 - w, end, out=start)
        return
    if abs(weight) < 0.5:
        diff *= weight
        start += diff
    else:
        diff *= weight - 1  # end - (end - start) * (1 - weight)
        xp.add(end, diff, out=start)


def _addcmul_(xp, out, t1, t2, value):
    """out += value * t1 * t2 in place, as torch's ``addcmul_``: ``value * t1`` rounded, then
    one fused multiply-add on float32/float64 CPU arrays."""
    if fusable(out, t1, t2):
        fused(out.dtype.type(value) * t1, t2, out, out=out)
    else:
        out += value * t1 * t2


def _adam_moments(xp, state, g, beta1, beta2):
    """exp_avg <- lerp(exp_avg, g, 1 - beta1); exp_avg_sq <- beta2 * it + (1 - beta2) g^2."""
    m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
    _lerp_(xp, m, g, 1 - beta1)
    v *= beta2
    _addcmul_(xp, v, g, g, 1 - beta2)
    return m, v


def _sqrt(xp, a, fused=False):
    """a.sqrt() as torch's optimizers take it: Tensor.sqrt / _foreach_sqrt, MKL VML's root for
    float32/float64 NumPy arrays where MKL is loaded (`framework.ops._vml`; not correctly
    rounded), xp.sqrt otherwise and for a fused kernel (`fused`: Vectorized sqrt, correctly
    rounded)."""
    if fused:
        return xp.sqrt(a)
    from ..ops import _vml

    return _vml.unary("sqrt", a, xp.sqrt)


def _addcmul(xp, a, b, c, value):
    """a + value * b * c, a new array, as torch's addcmul: ``value * b`` rounded, then one
    fused multiply-add (float32/float64 CPU arrays; elsewhere through float64 for float32,
    where the variance estimate of RMSprop's centered form cancels)."""
    if fusable(a, b, c):
        return fused(a.dtype.type(value) * b, c, a)
    if a.dtype.itemsize < 8:
        wide = (value * b).astype(xp.float64)
        wide *= c
        wide += a
        return wide.astype(a.dtype)
    return a + value * b * c


def _cast(param, value, key=None):
    """Copy a state value onto param's device (and dtype, except the 'step' counter)."""
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value


def _deepcopy(value):
    """copy.deepcopy, with tensors (a Tensor lr, Tensor betas) copied as fresh leaves."""
    tensors = []
    _collect_tensors(value, tensors)
    memo = {id(t): Tensor._make(t._data.copy(), t._device) for t in tensors}
    return deepcopy(value, memo)


def _collect_tensors(value, out):
    if isinstance(value, Tensor):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _collect_tensors(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _collect_tensors(v, out)


def _split_names(group):
    """Groups built from named_parameters() hold (name, tensor) pairs."""
    tensors, names = [], []
    for p in group["params"]:
        if isinstance(p, tuple):
            names.append(p[0])
            tensors.append(p[1])
        else:
            tensors.append(p)
    group["params"] = tensors
    if names:
        if len(names) != len(tensors):
            raise ValueError(
                "all optimizer params should be with/without names. Some param names are missing"
            )
        group["param_names"] = names


def _typename(obj):
    if isinstance(obj, Tensor):
        return "torch." + obj.type().split(".")[-1]
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", "__builtin__") else f"{module}.{name}"
