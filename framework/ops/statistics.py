"""Statistics: std_mean/var_mean, aminmax, quantile/nanquantile, nansum/nanmean, fmax/fmin."""

import math

from .._errors import NOT_GIVEN, must_be_tensor
from ..amp.autocast_mode import entry as _amp_entry
from ..autograd.op import Op, per_sample_under_vmap
from ..dtypes import scalar_type_name
from ..tensor import Tensor
from . import _moments
from ._sum_kernel import torch_sum
from .extrema import return_types
from .reduction import Std, Var, _axis, _described_call, _kept, _var_args, array_mean
from .shape import TransposeInplace, UnsqueezeInplace, _squeeze_inplace_dim


def _mean_grad(op, g_mean, x):
    n = x.numel() // max(math.prod(op.kept_shape), 1)
    return _kept(g_mean, op).expand(*x.shape) / n


def _welford_mean(xp, x, axes):
    """The mean as torch's var_mean/std_mean computes it: a Welford update, element after
    element (m += (x - m) / n), so an inf anywhere but last, or a second inf, makes it NaN."""
    mean = array_mean(x, axes)
    if x.dtype.kind not in "fV" or not x.size or bool(xp.isfinite(x).all()):
        return mean
    axes = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in axes)
    k = len(axes)
    inf = xp.isinf(xp.moveaxis(x, axes, tuple(range(x.ndim - k, x.ndim))))
    inf = inf.reshape(inf.shape[: x.ndim - k] + (-1,))
    count = inf.sum(axis=-1)
    nan = (count > 1) | ((count == 1) & ~inf[..., -1])
    return xp.where(nan.reshape(mean.shape), xp.asarray(xp.nan, dtype=mean.dtype), mean)


class _WithMean:
    """Adds the mean as a second output to Var/Std (torch's var_mean/std_mean: one node)."""

    def forward(self, x, dim=None, correction=1, keepdim=False):
        """The statistic of ``x`` and its mean over ``dim``."""
        self._mean = None
        out = super().forward(x, dim, correction, keepdim)
        if self._mean is not None:
            return out, self._mean
        return out, _welford_mean(self.xp, x, self.axes).reshape(self.out_shape)

    def var(self, x, axes):
        """torch's WelfordOps (both outputs at once) where replayed, else Var's."""
        got = _moments.welford(x, axes, self.correction, self.root)
        if got is None and not x.size:  # torch fills both with a quiet (positive) NaN
            self._mean = self.xp.full(self.out_shape, self.xp.nan, x.dtype)
        if got is None:
            return super().var(x, axes)
        self._mean = got[1].reshape(self.out_shape)
        return got[0].reshape(self.out_shape)

    def backward(self, grad, g_mean=None):
        """The statistic's gradient plus the mean's (either may be absent)."""
        (x,) = self.inputs
        total = super().backward(grad) if grad is not None else None
        if g_mean is not None:
            gm = _mean_grad(self, g_mean, x)
            total = gm if total is None else total + gm
        return total

    def jvp(self, t):
        """By the backward (jvp_transpose); the mean's tangent of an empty input is torch's
        mean of the tangent (NaN over no elements)."""
        got = self.jvp_transpose(t)
        if t.numel() or self._fw_outs[1].numel() == 0:
            return got
        return got[0], t.mean(self.axes).reshape(tuple(self._fw_outs[1].shape))


class VarMean(_WithMean, Var):
    """Variance and mean over ``dim`` (node VarMeanBackward0)."""


class StdMean(_WithMean, Std):
    """Standard deviation and mean over ``dim`` (node StdMeanBackward0)."""


def _floating(name, input):
    if input._data.dtype.kind != "f" and input.dtype.name != "bfloat16":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")


@_described_call
def var_mean(input, dim=NOT_GIVEN, unbiased=None, keepdim=None, *, correction=None):
    """(variance, mean) over dim in one pass (correction=1: Bessel's correction).

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        unbiased (bool, optional): the old spelling of ``correction`` (True is 1, False is 0).
            Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        correction (int, optional): the difference between the sample size and the degrees of
            freedom (1: Bessel's correction). Default: ``None`` (1).

    Example:
        >>> framework.var_mean(framework.tensor([1., 2., 3.]))
        (tensor(1.), tensor(2.))
    """
    dim, keepdim, correction = _var_args("var_mean", dim, unbiased, keepdim, correction)
    _floating("var_mean", input)
    return VarMean.apply(input, dim=dim, correction=correction, keepdim=keepdim)


@_described_call
def std_mean(input, dim=NOT_GIVEN, unbiased=None, keepdim=None, *, correction=None):
    """(standard deviation, mean) over dim in one pass.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        unbiased (bool, optional): the old spelling of ``correction`` (True is 1, False is 0).
            Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        correction (int, optional): the difference between the sample size and the degrees of
            freedom (1: Bessel's correction). Default: ``None`` (1).

    Example:
        >>> framework.std_mean(framework.tensor([1.0, 2.0, 3.0, 4.0]))
        (tensor(1.2910), tensor(2.5000))
    """
    dim, keepdim, correction = _var_args("std_mean", dim, unbiased, keepdim, correction)
    _floating("std_mean", input)
    return StdMean.apply(input, dim=dim, correction=correction, keepdim=keepdim)


class Aminmax(Op):
    """(min, max) over dim (or all); ties share each gradient evenly."""

    saves_inputs = True

    def forward(self, x, dim=None, keepdim=False):
        axes = None if dim is None else (dim,)
        self.dim, self.keepdim = dim, keepdim
        if x.size == 0:  # an empty result (checked by aminmax): nothing to reduce
            shape = [1 if i == dim else n for i, n in enumerate(x.shape) if keepdim or i != dim]
            lo = hi = self.xp.empty(shape, dtype=x.dtype)
        else:
            lo = x.min(axis=axes, keepdims=keepdim)
            hi = x.max(axis=axes, keepdims=keepdim)
        self.lo, self.hi = lo, hi
        return lo, hi

    saves = ("lo", "hi")

    def backward(self, g_lo, g_hi):
        (x,) = self.inputs
        total = None
        for g, val in ((g_lo, self.lo), (g_hi, self.hi)):
            if g is None:
                continue
            v = self.output_at(val, 0 if val is self.lo else 1)
            if self.dim is not None and not self.keepdim:
                v, g = v.unsqueeze(self.dim), g.unsqueeze(self.dim)
            mask = x == v
            dims = tuple(range(x.dim())) if self.dim is None else (self.dim,)
            part = mask * (g / mask.sum(dims, keepdim=True))
            total = part if total is None else total + part
        return total

    jvp = Op.jvp_transpose


def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) of input, over all elements or along dim.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce; all elements when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.aminmax(framework.tensor([3., 1., 2.]))
        torch.return_types.aminmax(
        min=tensor(1.),
        max=tensor(3.))
    """
    d = None if dim is None else _axis(dim, max(input.dim(), 1))[0]
    if input.numel() == 0 and (d is None or input.dim() == 0):
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the "
            "operation has no identity."
        )
    if d is not None and input.dim() and input.shape[d] == 0:  # even when the result is empty
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    if input.dim() == 0:
        d = None
    return return_types.aminmax(*Aminmax.apply(input, dim=d, keepdim=keepdim))


class Nansum(Op):
    saves_inputs = True

    def forward(self, x, dim=None, keepdim=False):
        self.axes = None if dim is None else dim
        self.keepdim = keepdim
        if _moments.replayable(x) and x.size:
            # torch's cascade_sum<ignore_nan=true>: its sum order, NaN read as 0
            axes = tuple(range(x.ndim)) if dim is None else tuple(sorted(dim))
            if axes:
                total = torch_sum(self.xp.where(self.xp.isnan(x), x.dtype.type(0), x), axes)
                if total is not None:
                    shape = [1 if a in axes else n for a, n in enumerate(x.shape)]
                    shape = (
                        shape if keepdim else [n for a, n in enumerate(x.shape) if a not in axes]
                    )
                    return total.reshape(shape)
        return self.xp.nansum(x, axis=self.axes, keepdims=keepdim)

    def backward(self, grad):
        (x,) = self.inputs
        if self.axes is not None and not self.keepdim:
            for a in sorted(self.axes):
                grad = grad.unsqueeze(a)
        return grad.expand(*x.shape) * (~x.isnan())

    jvp = Op.jvp_transpose


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.nansum(framework.tensor([1.0, float('nan'), 3.0]))
        tensor(4.)
    """
    if dtype is not None:
        input = input.to(dtype)
    axes = None if dim is None else _axis(dim, input.dim())  # 0-dim: ()
    return Nansum.apply(input, dim=axes, keepdim=keepdim)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over the non-NaN elements.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.nanmean(framework.tensor([1.0, float('nan'), 3.0]))
        tensor(2.)
    """
    if not input.is_floating_point():
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype "
            f"but got {scalar_type_name(input._data.dtype)}"
        )
    count = (~input.isnan()).sum(dim, keepdim) if dim is not None else (~input.isnan()).sum()
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _fm(name, pick_a):
    def bwd(self, grad):
        a, b = self.inputs
        take_a = Tensor._make(self.which, grad.device)
        # torch masks (masked_fill: a NaN gradient does not reach the input not taken)
        return grad.masked_fill(~take_a, 0.0), grad.masked_fill(take_a, 0.0)

    def forward(self, a, b):
        xp = self.xp
        self.which = pick_a(xp, a, b)
        return xp.where(self.which, a, b)

    return type(
        name,
        (Op,),
        {
            "saves_inputs": True,
            "promote": True,
            "forward": forward,
            "jvp": Op.jvp_elementwise,
            "backward": bwd,
            "saves": ("which",),
            "__module__": __name__,
            "__doc__": f"{name}: elementwise, NaN-ignoring.",
        },
    )


Fmax = _fm("Fmax", lambda xp, a, b: (a >= b) | xp.isnan(b))
Fmin = _fm("Fmin", lambda xp, a, b: (a <= b) | xp.isnan(b))


def fmax(input, other):
    """Elementwise maximum that ignores NaN (NaN only where both are NaN).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Example:
        >>> nan = float('nan')
        >>> framework.fmax(framework.tensor([1.0, nan]), framework.tensor([nan, 2.0]))
        tensor([1., 2.])
    """
    if not isinstance(other, Tensor):
        raise must_be_tensor("fmax", "other", 2, other)
    return Fmax.apply(input, other)


def fmin(input, other):
    """Elementwise minimum that ignores NaN (NaN only where both are NaN).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Example:
        >>> nan = float('nan')
        >>> framework.fmin(framework.tensor([1.0, nan]), framework.tensor([nan, 2.0]))
        tensor([1., 2.])
    """
    if not isinstance(other, Tensor):
        raise must_be_tensor("fmin", "other", 2, other)
    return Fmin.apply(input, other)


@_amp_entry("quantile")
@per_sample_under_vmap
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles (q a number or 1-D tensor in [0, 1]) over dim (all when None),
    interpolating between the sorted neighbours as numpy/torch do.

    Args:
        input (Tensor): the input tensor.
        q (float or Tensor): the quantile(s), in ``[0, 1]`` (a number or a 1-D tensor).
        dim (int, optional): the dimension to reduce; the flattened input when ``None``. Default:
            ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        interpolation (str, optional): ``'linear'``, ``'lower'``, ``'higher'``, ``'midpoint'`` or
            ``'nearest'``: how to pick between the two data points around a quantile. Default:
            ``'linear'``.

    Example:
        >>> framework.quantile(framework.tensor([1., 2., 3., 4.]), 0.5)
        tensor(2.5000)
    """
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


@_amp_entry("nanquantile")
@per_sample_under_vmap
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile ignoring NaN values.

    Args:
        input (Tensor): the input tensor.
        q (float or Tensor): the quantile(s), in ``[0, 1]`` (a number or a 1-D tensor).
        dim (int, optional): the dimension to reduce; the flattened input when ``None``. Default:
            ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        interpolation (str, optional): ``'linear'``, ``'lower'``, ``'higher'``, ``'midpoint'`` or
            ``'nearest'``. Default: ``'linear'``.

    Example:
        >>> framework.nanquantile(framework.tensor([1.0, float('nan'), 3.0]), 0.5)
        tensor(2.)
    """
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    from .sorting import sort

    if input.dtype.name == "bfloat16":
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(
            f"quantile() interpolation must be one of linear, lower, higher, "
            f"midpoint or nearest. Got {interpolation}"
        )
    scalar_q = not isinstance(q, Tensor)
    if scalar_q and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if not scalar_q and q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype.name not in ("float32", "float64"):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not scalar_q and q.dtype != input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    xp = input.xp
    qs = xp.asarray([q] if scalar_q else q._data, dtype=input._data.dtype).reshape(-1)
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(
            f"quantile() q must be in the range [0, 1] but got {q}"
            if scalar_q
            else "quantile() q values must be in the range [0, 1]"
        )
    # torch's quantile_compute, step by step (so the nodes are torch's): sort the flattened
    # input or the reduced dim moved last, view it as (*out_shape, n), gather ranks
    # (*out_shape, len(q)), then squeeze_ that last dim (q first for a tensor q)
    if dim is None:
        x = input.flatten()
        out_shape = [1] * input.dim() if keepdim else []
    else:  # (dim 0 / -1 of a 0-dim tensor: all of it)
        d = _axis(dim, max(input.dim(), 1))[0]
        x = input if d == input.dim() - 1 else input.unsqueeze(-1).transpose(d, -1)
        out_shape = list(input.shape)
        if keepdim and out_shape:
            out_shape[d] = 1
        elif out_shape:
            del out_shape[d]
    n = x.shape[-1]
    s = sort(x, -1).values.view(*out_shape, n)  # NaN last
    qt = Tensor._make(qs, input.device)
    if ignore_nan:  # ranks over the non-NaN values (an all-NaN row: rank 0, its NaN)
        pos = (~s.isnan()).sum(-1, keepdim=True).to(s.dtype).sub(1).clamp_min(0) * qt
    else:  # a row with a NaN takes rank n - 1 (a NaN, sorted last)
        pos = (qt * (n - 1)).masked_fill(s.isnan().any(-1, keepdim=True), n - 1)
    if interpolation in ("lower", "higher", "nearest"):  # one gather, no lerp
        pos = {"lower": pos.floor, "higher": pos.ceil, "nearest": pos.round}[interpolation]()
        out = s.gather(-1, pos.long())
    else:
        lo = pos.floor()
        vlo, vhi = s.gather(-1, lo.long()), s.gather(-1, pos.ceil().long())
        out = vlo.lerp(vhi, (pos - lo) if interpolation == "linear" else (pos * 0 + 0.5))
    if not scalar_q:  # torch's unsqueeze_(0).transpose_(0, -1): q first
        out = UnsqueezeInplace.apply(out, dim=0)
        out = TransposeInplace.apply(out, dim0=0, dim1=out.dim() - 1)
    return _squeeze_inplace_dim(out, -1)


__all__ = [
    "var_mean",
    "std_mean",
    "aminmax",
    "nansum",
    "nanmean",
    "fmax",
    "fmin",
    "quantile",
    "nanquantile",
]
