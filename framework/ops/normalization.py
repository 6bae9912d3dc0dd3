"""Normalisation primitives: batch_norm, layer_norm, group_norm (torch's Native*Backward0)."""

import math
import numbers

from .._errors import refuse
from ..autograd.grad_mode import state
from ..autograd.op import Op, vmap_hook
from ..autograd.saved import Attr
from ..tensor import Tensor
from . import _fused
from . import _moments
from .._fma import fused
from . import norm_backward as _nb
from .norm_backward import NativeBatchNormBackward, NativeLayerNormBackward, group_norm_double
from ._rowwise import SMALL, row_dot, row_sum
from .reduction import array_mean


def _normalized_jvp(x, tx, axes, eps, stats=None):
    """(xhat, its tangent) for xhat = (x - mean) * invstd over `axes`; with `stats` (fixed
    mean and invstd, eval-mode batch norm) xhat is affine in x."""
    if stats is not None:
        mean, invstd = stats
        return (x - mean) * invstd, (None if tx is None else tx * invstd)
    xc = x - x.mean(dim=axes, keepdim=True)
    invstd = ((xc * xc).mean(dim=axes, keepdim=True) + eps) ** -0.5
    xhat = xc * invstd
    if tx is None:
        return xhat, None
    tc = tx - tx.mean(dim=axes, keepdim=True)  # d invstd = -invstd * mean(xhat * tc) * invstd
    return xhat, (tc - xhat * (xhat * tc).mean(dim=axes, keepdim=True)) * invstd


def _affine_jvp(xhat, dxhat, weight, tw, tb, shape):
    """Tangent of xhat * weight + bias (weight and bias reshaped to `shape`)."""
    out = None
    if dxhat is not None:
        out = dxhat * weight.reshape(shape) if weight is not None else dxhat
    if tw is not None:
        term = xhat * tw.reshape(shape)
        out = term if out is None else out + term
    if tb is not None:
        term = tb.reshape(shape)
        out = term if out is None else out + term
    return out


class NativeGroupNorm(Op):
    """Normalise each of G channel groups of each sample, then scale/shift per channel."""

    saves_inputs = True
    saves = ("mean", "invstd")

    def forward(self, x, weight, bias, num_groups=1, eps=1e-5):
        xp = self.xp
        n, c = x.shape[0], x.shape[1]
        self.groups, self.eps = num_groups, eps
        self.wshape = (1, c) + (1,) * (x.ndim - 2)
        if x.size and _moments.replayable(x):
            if all(a is None or a.dtype == x.dtype for a in (weight, bias)):
                out, mean, rstd = _moments.group_norm(x, num_groups, eps, weight, bias)
                self.mean, self.invstd = mean[..., None], rstd[..., None]
                return out
        g = x.reshape(n, num_groups, _group_size(x.shape, num_groups))  # (-1 fails at N = 0)
        mean = array_mean(g, 2, keepdims=True)  # an empty group: nan, silently (as torch)
        gc = g - mean
        var = array_mean(gc * gc, 2, keepdims=True)
        invstd = 1.0 / xp.sqrt(var + eps)
        self.mean, self.invstd = mean, invstd
        if weight is None and bias is None:
            return (gc * invstd).reshape(x.shape)
        # torch's kernel: y = x * scale + (bias - mean * scale), scale = invstd * weight (its
        # rounding: a large mean cancels; an infinite weight makes its channel NaN, inf - inf)
        per = x.reshape((n, num_groups, c // num_groups, math.prod(x.shape[2:])))
        scale = invstd[..., None]
        if weight is not None:
            scale = scale * weight.reshape(1, num_groups, -1, 1)
        shift = -mean[..., None] * scale
        if bias is not None:
            shift = shift + bias.reshape(1, num_groups, -1, 1)
        return (per * scale + shift).astype(x.dtype, copy=False).reshape(x.shape)

    def backward(self, grad):
        x, weight, bias = self.inputs
        need_x, need_w, need_b = needs = self.needs_input_grad
        n = x.shape[0]
        if state.enabled and not vmap_hook[0] and _same_float(grad, x, weight):
            stats = {"mean": self.mean, "rstd": self.invstd}
            return group_norm_double(
                grad, x, weight, bias, groups=self.groups, needs=needs, **stats
            )
        replayed = None if state.enabled else _nb.group_norm_grads(self, grad, x, weight, needs)
        if replayed is not None:  # torch's kernel, replayed (its bits)
            return replayed
        g = x.reshape(n, self.groups, _group_size(x.shape, self.groups))
        if state.enabled:  # create_graph: mean and invstd as functions of x
            gc = g - g.mean(dim=2, keepdim=True)
            invstd = ((gc * gc).mean(dim=2, keepdim=True) + self.eps) ** -0.5
        else:
            gc = g - Tensor._make(self.mean, x.device)
            invstd = Tensor._make(self.invstd, x.device)
        xhat = (gc * invstd).reshape(x.shape)
        red = (0,) + tuple(range(2, x.dim()))
        grad_w = (grad * xhat).sum(dim=red) if need_w else None
        if need_w and n and not g.shape[2]:  # torch's sums meet the nan statistics
            grad_w = grad_w * float("nan")
        grad_b = grad.sum(dim=red) if need_b else None
        grad_x = None
        if need_x and not state.enabled:
            grad_x = Tensor._make(self._input_grad(grad._data, x._data, weight), x.device)
        elif need_x:
            gw = grad * weight.reshape(self.wshape) if weight is not None else grad
            gw = gw.reshape(n, self.groups, _group_size(x.shape, self.groups))
            xh = xhat.reshape(n, self.groups, _group_size(x.shape, self.groups))
            grad_x = (
                (gw - gw.mean(dim=2, keepdim=True) - xh * (gw * xh).mean(dim=2, keepdim=True))
                * invstd
            ).reshape(x.shape)
        return grad_x, grad_w, grad_b

    def _input_grad(self, dy, x, weight):
        """torch's GroupNormInputBackward on arrays: dx = c1 dy + c2 x + c3 with c1 = rstd
        gamma, c2 = (db mean - ds) rstd^3 / M, c3 = -c2 mean - db rstd / M (its rounding:
        a large weight's terms cancel as there)."""
        n, c = x.shape[:2]
        shape = (n, self.groups, c // self.groups, math.prod(x.shape[2:]))
        X, dY = x.reshape(shape), dy.reshape(shape)
        w = 1 if weight is None else weight._data.reshape(1, self.groups, -1, 1)
        mean, rstd = self.mean[..., None], self.invstd[..., None]
        ds = ((dY * X).sum(-1, keepdims=True) * w).sum(2, keepdims=True)
        db = (dY.sum(-1, keepdims=True) * w).sum(2, keepdims=True)
        s = 1.0 / max(X.shape[2] * X.shape[3], 1)
        c2 = (db * mean - ds) * rstd * rstd * rstd * s
        c3 = -c2 * mean - db * rstd * s
        return ((rstd * w) * dY + c2 * X + c3).astype(x.dtype, copy=False).reshape(x.shape)

    def jvp(self, tx, tw, tb):
        x, weight, _ = self.primals
        n = x.shape[0]
        g = x.reshape(n, self.groups, _group_size(x.shape, self.groups))
        tg = (
            tx.reshape(n, self.groups, _group_size(x.shape, self.groups))
            if tx is not None
            else None
        )
        xhat, dxhat = _normalized_jvp(g, tg, (2,), self.eps)
        xhat = xhat.reshape(x.shape)
        dxhat = dxhat.reshape(x.shape) if dxhat is not None else None
        return _affine_jvp(xhat, dxhat, weight, tw, tb, self.wshape)


def _group_size(shape, groups):
    """The elements of one group of an input of `shape`."""
    return math.prod(shape[1:]) // groups


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Group normalisation: statistics over each group of C/num_groups channels per sample.

    Args:
        input: ``(N, C, *)``.
        num_groups: G, dividing C.
        weight, bias: optional (C,) affine parameters.
        eps: added to the variance.

    Example:
        >>> F.group_norm(framework.tensor([[1., 3.]]), 1)
        tensor([[-1.0000,  1.0000]])
    """
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    c = input.shape[1]
    size = [input.shape[0] * c // num_groups, num_groups] + list(input.shape[2:])
    if size[0] * math.prod(size[2:]) == 1:  # torch's _verify_batch_size, checked first
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )
    if c % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by "
            f"num_groups, but got input of shape {list(input.shape)} and "
            f"num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of "
                f"channels in input, but got {name} of shape {list(t.shape)} "
                f"and input of shape {list(input.shape)}"
            )
    refuse(input._data, "biu", "GroupNormKernelImpl")
    return NativeGroupNorm.apply(input, weight, bias, num_groups=num_groups, eps=eps)


__all__ = []


def _running(name):
    """A running-stat buffer torch saves (None when the call passed none)."""
    attr = Attr(name)
    return lambda fn: attr.get(fn) if fn.tracks else None


def _train_stat(name):
    """The batch statistic torch saves in training; in eval its kernel saves an empty tensor."""
    attr = Attr(name)

    def get(fn):
        value = attr.get(fn)
        if fn.training or value is None:
            return value
        return value[:0]

    return get


class NativeBatchNorm(Op):
    """Normalise over every dim but 1 (the channels); updates running stats in training."""

    saves_inputs = True
    saves = ("mean", "invstd", "running_mean", "running_var")
    saved_fields = {
        "eps": "eps",
        "input": "input0",
        "result1": _train_stat("mean"),
        "result2": _train_stat("invstd"),
        "running_mean": _running("running_mean"),
        "running_var": _running("running_var"),
        "training": "training",
        "weight": "input1",
    }

    def forward(
        self,
        x,
        weight,
        bias,
        running_mean=None,
        running_var=None,
        training=True,
        momentum=0.1,
        eps=1e-5,
    ):
        xp = self.xp
        refuse(x, "biu", "batch_norm")
        self.axes = (0,) + tuple(range(2, x.ndim))
        self.shape = (1, -1) + (1,) * (x.ndim - 2)
        self.training, self.eps = training, eps
        self.running_mean, self.running_var = running_mean, running_var
        self.tracks = running_mean is not None
        half = x.dtype if (x.dtype.kind == "V" or x.dtype.char == "e") else None
        if half is not None and weight is not None and weight.dtype != half:
            # torch's mixed kernel (half input, float32 parameters): float32 math and
            # statistics, the result rounded once to the input's dtype
            x = x.astype(xp.float32)
        else:
            half = None
        replay = None  # (the mixed kernel above is not replayed: its own float32 math)
        if half is None:
            replay = _bn_replay(x, training, weight, bias, running_mean, running_var)
        if replay is not None:
            return self._replayed(x, weight, bias, momentum, eps, replay)
        if training:
            mean = array_mean(x, self.axes)
            xc = x - mean.reshape(self.shape)
            var = array_mean(xc * xc, self.axes)  # biased: used to normalise
            del xc
            if running_mean is not None:
                n = x.size // x.shape[1]
                running_mean *= 1 - momentum
                running_mean += momentum * mean
                running_var *= 1 - momentum
                running_var += (momentum * n / max(n - 1, 1)) * var  # unbiased in the buffer
        else:
            mean, var = running_mean, running_var
        self.mean = mean
        self.invstd = 1.0 / xp.sqrt(var + eps)
        # torch's CPU kernel: y = x * alpha + beta, alpha = invstd * weight, beta = bias -
        # mean * alpha (an infinite weight meets the mean: inf - inf = NaN, as torch)
        alpha = self.invstd.astype(x.dtype, copy=False)
        if weight is not None:
            alpha = alpha * weight
        beta = -mean.astype(x.dtype, copy=False) * alpha
        if bias is not None:
            beta = bias + beta
        y = x * alpha.reshape(self.shape) + beta.reshape(self.shape)
        return y if half is None else y.astype(half)

    def _replayed(self, x, weight, bias, momentum, eps, stats):
        """forward as torch's contiguous CPU kernels: the statistics (training) or the running
        ones, invstd = 1 / sqrt(var + eps) in float64 (training: var = var_sum / N in the
        dtype) or in the dtype (eval), the running stats' update, then y = fma(x, alpha, beta)
        with alpha = invstd * weight, beta = fma(-mean, alpha, bias)."""
        xp, dt = self.xp, x.dtype
        c = x.shape[1]
        n = x.size // c
        rm, rv = self.running_mean, self.running_var
        with xp.errstate(all="ignore"):
            if self.training:
                mean, vsum = stats
                var = vsum / dt.type(n)
                invstd = (1.0 / xp.sqrt(var.astype(xp.float64) + eps)).astype(dt)
                if eps == 0:
                    invstd[var == 0] = 0  # (torch's InvStd)
                m = dt.type(momentum)
                if rm is not None:
                    rm[...] = m * mean + (1 - m) * rm  # (not contracted: measured)
                if rv is not None:
                    unbiased = (vsum / dt.type(n - 1)).astype(xp.float64)
                    m64 = xp.float64(m)
                    old = ((1 - m) * rv).astype(xp.float64)  # a product in the dtype
                    rv[...] = (m64 * unbiased + old).astype(dt)
            else:
                mean = rm
                invstd = dt.type(1) / xp.sqrt(rv + dt.type(eps))
            self.mean, self.invstd = mean, invstd
            alpha = invstd if weight is None else invstd * weight
            zero = xp.zeros(c, dt)
            beta = fused(-mean, alpha, zero if bias is None else bias)
            shape = (1, c) + (1,) * (x.ndim - 2)
            a, b = (xp.broadcast_to(v.reshape(shape), x.shape) for v in (alpha, beta))
            return fused(x, xp.ascontiguousarray(a), xp.ascontiguousarray(b))

    def backward(self, grad):
        x, weight, _ = self.inputs
        need_x, need_w, need_b = needs = self.needs_input_grad
        axes, shape = self.axes, self.shape
        if state.enabled and not vmap_hook[0] and _same_float(grad, x, weight):
            # create_graph: torch's one node, over (grad, input, weight, mean, invstd)
            dev, dt = x.device, x._data.dtype
            self.shapes = tuple(None if a is None else tuple(a.shape) for a in self.inputs)
            stats = (
                Tensor._make(self.mean.astype(dt, copy=False), dev),
                Tensor._make(self.invstd.astype(dt, copy=False), dev),
            )
            got = NativeBatchNormBackward.apply(grad, x, weight, *stats, fwd=self)
            return tuple(g if n else None for g, n in zip(got, self.needs_input_grad))
        replayed = None if state.enabled else _nb.batch_norm_grads(self, grad, x, weight, needs)
        if replayed is not None:  # torch's contiguous kernels, replayed (its bits)
            return replayed
        if self.training and state.enabled:
            # create_graph: mean and invstd depend on x, so rebuild them with Tensor ops
            mean = x.mean(dim=axes, keepdim=True)
            xc = x - mean
            invstd = ((xc * xc).mean(dim=axes, keepdim=True) + self.eps) ** -0.5
        else:
            mean = Tensor._make(self.mean.reshape(shape), x.device)
            invstd = Tensor._make(self.invstd.reshape(shape).astype(x._data.dtype), x.device)
            xc = x - mean
        xhat = xc * invstd
        grad_w = (grad * xhat).sum(dim=axes) if need_w else None
        grad_b = grad.sum(dim=axes) if need_b else None
        grad_x = None
        if need_x:
            if self.training:
                n = x.numel() // x.shape[1]
                g_mean = grad.sum(dim=axes, keepdim=True) / n
                gx_mean = (grad * xhat).sum(dim=axes, keepdim=True) / n
                grad_x = (grad - g_mean - xhat * gx_mean) * invstd
            else:
                grad_x = grad * invstd
            if weight is not None:
                grad_x = grad_x * weight.reshape(shape)
        return grad_x, grad_w, grad_b

    def jvp(self, tx, tw, tb, *_):
        x, weight, _ = self.primals[:3]
        stats = None
        if not self.training:
            stats = (
                Tensor._make(self.mean.reshape(self.shape), x.device),
                Tensor._make(self.invstd.reshape(self.shape).astype(x._data.dtype), x.device),
            )
        xhat, dxhat = _normalized_jvp(x, tx, self.axes, self.eps, stats)
        return _affine_jvp(xhat, dxhat, weight, tw, tb, self.shape)


def _bn_replay(x, training, weight, bias, running_mean, running_var):
    """The training statistics of torch's contiguous batch_norm kernels (True in eval) where
    its kernels are replayed: a C-contiguous float32/float64 NumPy input, parameters and
    running stats of its dtype; else None."""
    dt = x.dtype
    if not _moments.replayable(x) or not x.size or not x.flags.c_contiguous or x.ndim < 2:
        return None
    if any(a is not None and a.dtype != dt for a in (weight, bias, running_mean, running_var)):
        return None
    if training:
        return _moments.batch_norm_stats(x)
    return True


def _same_float(grad, x, weight):
    """Whether grad, x (and weight) are float32/float64 arrays of one dtype."""
    dt = x._data.dtype
    return (
        dt.kind == "f"
        and dt.itemsize >= 4
        and grad._data.dtype == dt
        and (weight is None or weight._data.dtype == dt)
    )


def _first(t):
    """t[0] with torch's select() error."""
    if not t.dim() or not t.shape[0]:
        raise IndexError(
            f"select(): index 0 out of range for tensor of size {list(t.shape)} at dimension 0"
        )
    return t[0]


def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    r"""Applies Batch Normalization over each channel (dimension 1) of a batch.

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \gamma + \beta

    In training the batch statistics are used (biased variance) and the running statistics are
    updated in place: :math:`\hat{x}_{new} = (1 - \text{momentum}) \hat{x} + \text{momentum}\, x_t`
    (with the unbiased variance); in evaluation the running statistics are used.
    See :class:`~framework.nn.BatchNorm1d` for the module form.

    Args:
        input (Tensor): :math:`(N, C)`, :math:`(N, C, L)` or :math:`(N, C, *)`.
        running_mean (Tensor or None): the running mean per channel, :math:`(C)`.
        running_var (Tensor or None): the running variance per channel, :math:`(C)`.
        weight (Tensor, optional): :math:`\gamma`, :math:`(C)` (default: None, ones).
        bias (Tensor, optional): :math:`\beta`, :math:`(C)` (default: None, zeros).
        training (bool, optional): use the batch statistics and update the running ones (default:
            False).
        momentum (float, optional): the running statistics' update factor (default: 0.1).
        eps (float, optional): added to the variance for numerical stability (default: 1e-5).

    Returns:
        Tensor: the normalized input, of the shape of ``input``.

    Example:
        >>> x = framework.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> mean, var = framework.zeros(2), framework.ones(2)
        >>> F.batch_norm(x, mean, var, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
        >>> mean, var  # updated in place
        (tensor([0.2000, 0.4000]), tensor([1.1000, 1.7000]))
    """
    if training:
        size = input.shape
        n = size[0]
        for s in size[2:]:
            n *= s
        if n == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {size!r}"
            )
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    if input.numel() == 0:  # torch: a clone (scaled and shifted), running stats untouched
        out = input.clone()
        out = out * _first(weight) if weight is not None else out
        return out + _first(bias) if bias is not None else out
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.requires_grad and state.enabled:  # (torch's autograd check)
            raise RuntimeError(
                f"The function 'native_batch_norm' is not differentiable with respect to "
                f"argument '{name}'. This input cannot have requires_grad True."
            )
    c = input.shape[1] if input.dim() > 1 else None
    for name, t in (("running_mean", running_mean), ("running_var", running_var)) + (
        ("weight", weight),
        ("bias", bias),
    ):
        if c is not None and t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if vmap_hook[0]:  # under vmap: batched running stats are read (and written) per sample
        from ..func._paths import loop_if_batched

        out = loop_if_batched(
            lambda *a: batch_norm(*a, training, momentum, eps),
            input,
            running_mean,
            running_var,
            weight,
            bias,
        )
        if out is not NotImplemented:
            return out
    rm = running_mean._data if running_mean is not None else None
    rv = running_var._data if running_var is not None else None
    out = NativeBatchNorm.apply(
        input,
        weight,
        bias,
        running_mean=rm,
        running_var=rv,
        training=training,
        momentum=momentum,
        eps=eps,
    )
    if training and running_mean is not None:
        running_mean._vc[0] += 1  # updated in place, as torch bumps their versions
        running_var._vc[0] += 1
    return out


class NativeLayerNorm(Op):
    """Normalise over the trailing len(normalized_shape) dims."""

    saves_inputs = True
    saves = ("mean", "invstd")
    saved_fields = {
        "bias": "input2",
        "input": "input0",
        "normalized_shape": "normalized_shape",
        "result1": "mean",
        "result2": "invstd",
        "weight": "input1",
    }

    def forward(self, x, weight, bias, normalized_shape=(), eps=1e-5):
        xp = self.xp
        refuse(x, "biu", "LayerNormKernelImpl")
        self.axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        self.eps, self.normalized_shape = eps, tuple(normalized_shape)
        width = math.prod(normalized_shape)
        kept = x.shape[: x.ndim - len(self.axes)] + (1,) * len(self.axes)
        same = all(a is None or a.dtype == x.dtype for a in (weight, bias))
        if x.size and _moments.replayable(x) and same:
            # torch's kernel (RowwiseMoments, its output formula), replayed
            out, mean, rstd = _moments.layer_norm(x.reshape(-1, width), eps, weight, bias)
            self.mean, self.invstd = mean.reshape(kept), rstd.reshape(kept)
            return out.reshape(x.shape)
        mean = array_mean(x, self.axes, keepdims=True)
        xc = x - mean
        var = array_mean(xc * xc, self.axes, keepdims=True)
        self.mean = mean
        self.invstd = 1.0 / xp.sqrt(var + eps)
        y = xc * self.invstd
        if weight is not None:
            y *= weight
        if bias is not None:
            y += bias
        return y

    def backward(self, grad):
        x, weight, _ = self.inputs
        if not x.numel() and state.fw_levels:  # torch's gradients of an empty input carry
            levels, state.fw_levels = state.fw_levels, ()  # no tangent (forward AD off)
            try:
                return self.backward(grad)
            finally:
                state.fw_levels = levels
        need_x, need_w, need_b = self.needs_input_grad
        axes = self.axes
        plain_dtypes = (
            grad._data.dtype.kind == "f"
            and grad._data.dtype.itemsize >= 4
            and grad._data.dtype == x._data.dtype
            and (weight is None or weight._data.dtype == grad._data.dtype)
        )
        if not state.enabled and plain_dtypes:
            # no graph to record: the same formula on the arrays (same values, no nodes)
            return self._plain_backward(grad, x, weight, need_x, need_w, need_b)
        if plain_dtypes and not vmap_hook[0]:  # create_graph: torch's one node
            dev, bias = x.device, self.inputs[2]
            self.shapes = tuple(None if a is None else tuple(a.shape) for a in self.inputs)
            stats = (Tensor._make(self.mean, dev), Tensor._make(self.invstd, dev))
            got = NativeLayerNormBackward.apply(grad, x, *stats, weight, bias, fwd=self)
            return tuple(g if n else None for g, n in zip(got, self.needs_input_grad))
        if state.enabled:  # create_graph: keep mean and invstd as functions of x
            xc = x - x.mean(dim=axes, keepdim=True)
            invstd = ((xc * xc).mean(dim=axes, keepdim=True) + self.eps) ** -0.5
        else:
            xc = x - Tensor._make(self.mean, x.device)
            invstd = Tensor._make(self.invstd, x.device)
        xhat = xc * invstd
        grad_x = None
        if need_x:
            gw = grad * weight if weight is not None else grad
            grad_x = (
                gw
                - gw.mean(dim=axes, keepdim=True)
                - xhat * (gw * xhat).mean(dim=axes, keepdim=True)
            ) * invstd
        # the engine sums these over the leading (batch) dims down to the weight's shape
        return grad_x, (grad * xhat if need_w else None), (grad if need_b else None)

    def _fused_backward(self, g, rows, weight, need_w, need_b):
        """(grad_x, grad_w, grad_b) arrays from _fused's compiled loop, or None."""
        k = _fused.kernels() if rows.size >= _fused.MIN_SIZE else None
        if k is None or _fused.flat(rows, g) is None:
            return None
        xp, dt = self.xp, rows.dtype
        w = weight._data.reshape(-1) if weight is not None else None
        if w is not None and not _fused_vector(w, dt):
            return None
        mean, invstd = self.mean.reshape(-1), self.invstd.reshape(-1)
        if not (mean.flags.c_contiguous and invstd.flags.c_contiguous):
            return None
        grad_x = xp.empty_like(rows)
        sums = xp.zeros((2, rows.shape[1]), xp.float64)
        k.ln_backward(
            g,
            rows,
            mean,
            invstd,
            w if w is not None else mean,
            w is not None,
            grad_x,
            sums[0],
            sums[1],
            xp.empty((rows.shape[0], 2), xp.float64),
        )
        sums = sums.astype(dt)
        return grad_x, sums[0] if need_w else None, sums[1] if need_b else None

    def _plain_backward(self, grad, x, weight, need_x, need_w, need_b):
        """backward's formula evaluated on arrays, row by row (row sums by row_sum, row_dot);
        the weight and bias gradients come out summed over the rows, in their own shapes."""
        replayed = _nb.layer_norm_grads(self, grad, x, weight, (need_x, need_w, need_b))
        if replayed is not None:  # torch's kernel, replayed (its bits)
            return replayed
        xp, width = grad.xp, math.prod(self.normalized_shape)
        if not _row_kernel_ok(x._data) or not width:
            return self._axes_backward(grad, x, weight, need_x, need_w, need_b)
        g = grad._data.reshape(-1, width)
        fused = self._fused_backward(g, x._data.reshape(-1, width), weight, need_w, need_b)
        if fused is not None:
            gx, gw, gb = fused
            dev, shape = grad._device, self.normalized_shape
            return (
                Tensor._make(gx.reshape(x._data.shape), dev) if need_x else None,
                Tensor._make(gw.reshape(weight._data.shape), dev) if need_w else None,
                Tensor._make(gb.reshape(shape), dev) if need_b else None,
            )
        invstd = self.invstd.reshape(-1, 1)
        xhat = x._data.reshape(-1, width) - self.mean.reshape(-1, 1)
        xhat *= invstd
        grad_x = grad_w = grad_b = None
        if need_w:
            grad_w = xp.einsum("ij,ij->j", g, xhat).reshape(weight._data.shape)
            grad_w = Tensor._make(grad_w, grad._device)
        if need_x:  # (gw - mean(gw) - xhat * mean(gw * xhat)) * invstd, on fresh arrays
            gw = g * weight._data.reshape(-1) if weight is not None else g
            term = row_sum(xp, gw, 1)
            term /= width
            dot = row_dot(xp, gw, xhat, 1)
            dot /= width
            grad_x = gw - term if gw is g else xp.subtract(gw, term, out=gw)
            xhat *= dot
            grad_x -= xhat
            grad_x *= invstd
            grad_x = Tensor._make(grad_x.reshape(x._data.shape), grad._device)
        if need_b:
            ones = xp.ones((1, g.shape[0]), g.dtype)
            grad_b = Tensor._make((ones @ g).reshape(self.normalized_shape), grad._device)
        return grad_x, grad_w, grad_b

    def _axes_backward(self, grad, x, weight, need_x, need_w, need_b):
        """backward's Tensor formula evaluated on arrays, term by term in the same order."""
        g, axes = grad._data, self.axes
        xhat = x._data - self.mean
        xhat *= self.invstd
        grad_x = None
        if need_x:
            gw = g * weight._data if weight is not None else g
            grad_x = gw - array_mean(gw, axes, keepdims=True)
            grad_x -= xhat * array_mean(gw * xhat, axes, keepdims=True)
            grad_x *= self.invstd
            grad_x = Tensor._make(grad_x, grad._device)
        grad_w = Tensor._make(g * xhat, grad._device) if need_w else None
        return grad_x, grad_w, (grad if need_b else None)

    def jvp(self, tx, tw, tb):
        x, weight, _ = self.primals
        xhat, dxhat = _normalized_jvp(x, tx, self.axes, self.eps)
        return _affine_jvp(xhat, dxhat, weight, tw, tb, self.normalized_shape)


def _fused_vector(a, dtype):
    """Whether a weight or bias array can go to _fused's loops with rows of `dtype`."""
    return (
        type(a).__name__ == "ndarray"
        and a.dtype == dtype
        and a.flags.c_contiguous
        and a.flags.writeable
    )


def _row_kernel_ok(x):
    """Inputs the row kernels of NativeLayerNorm take: float32/float64 arrays of at least
    rowwise.SMALL elements (on smaller ones the axis formulas make fewer calls)."""
    return x.size >= SMALL and x.dtype.kind == "f" and x.dtype.itemsize >= 4


def check_normalized_shape(input, normalized_shape):
    """normalized_shape as a tuple, checked against input's trailing dims (torch's message)."""
    normalized_shape = (
        (normalized_shape,)
        if isinstance(normalized_shape, numbers.Integral)
        else tuple(normalized_shape)
    )
    k = len(normalized_shape)
    if input.dim() < k or tuple(input.shape[input.dim() - k :]) != normalized_shape:
        shape = ", ".join(str(s) for s in normalized_shape)
        got = ", ".join(str(s) for s in input.shape)
        raise RuntimeError(
            f"Given normalized_shape=[{shape}], expected input with shape "
            f"[*, {shape}], but got input of size[{got}]"
        )
    return normalized_shape


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    r"""Applies Layer Normalization over the trailing ``normalized_shape`` dimensions.

    .. math::
        y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \gamma + \beta

    The mean and (biased) variance are taken over the last ``len(normalized_shape)`` dimensions of
    each sample. See :class:`~framework.nn.LayerNorm` for the module form.

    Args:
        input (Tensor): :math:`(*, \text{normalized\_shape})`.
        normalized_shape (int or tuple): the trailing shape to normalize over.
        weight (Tensor, optional): :math:`\gamma`, of shape ``normalized_shape`` (default: None).
        bias (Tensor, optional): :math:`\beta`, of shape ``normalized_shape`` (default: None).
        eps (float, optional): added to the variance for numerical stability (default: 1e-5).

    Returns:
        Tensor: the normalized input, of the shape of ``input``.

    Example:
        >>> x = framework.tensor([[1.0, 2.0, 3.0], [2.0, 2.0, 8.0]], requires_grad=True)
        >>> F.layer_norm(x, (3,))
        tensor([[-1.2247,  0.0000,  1.2247],
                [-0.7071, -0.7071,  1.4142]], grad_fn=<NativeLayerNormBackward0>)
    """
    normalized_shape = check_normalized_shape(input, normalized_shape)
    return NativeLayerNorm.apply(input, weight, bias, normalized_shape=normalized_shape, eps=eps)
