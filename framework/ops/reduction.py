"""Reductions: sum, mean, prod, var/std, logsumexp, all/any; max/min family in extrema.py."""

from ..amp.autocast_mode import entry as _amp_entry
import builtins as _b
import functools

from .._errors import NOT_GIVEN, describe_args, invalid_args
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op
from ._prod_kernel import torch_prod
from ._sum_kernel import torch_sum
from . import _moments, _vml
from ._fastgrad import plain, wrap
from .. import dtypes
from ..backend import np as _numpy  # (identity checks only: kernels use self.xp)


__all__ = ["all", "any", "logsumexp", "mean", "prod", "std", "sum", "var"]


def _wrap_dim(d, ndim):
    """One dim to a non-negative axis, with torch's IndexError (0-dim tensors accept -1, 0)."""
    n = ndim if ndim > 1 else 1
    if not -n <= d < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
        )
    return d % n if ndim else 0


def _axis(dim, ndim):
    """Normalise dim (int, tuple or None) to a sorted tuple of axes; () and None mean all."""
    if dim is None:
        return tuple(range(ndim))
    if type(dim) is int and ndim:  # common: one dim
        return (_wrap_dim(dim, ndim),)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(ndim))
    out = []
    for d in dims:
        a = _wrap_dim(d, ndim)
        if a in out:
            raise RuntimeError(f"dim {a} appears multiple times in the list of dims")
        out.append(a)
    return tuple(sorted(out)) if ndim else ()


def _reduce_shape(shape, axes, keepdim):
    """Output shape of a reduction over axes."""
    out = list(shape)
    if keepdim:
        for i in axes:
            out[i] = 1
        return tuple(out)
    for i in reversed(axes):  # axes are sorted
        del out[i]
    return tuple(out)


def _kept(grad, op):
    """grad of a reduction reshaped so it broadcasts against the input."""
    return grad.reshape(op.kept_shape)


def _keepdim(fn):
    return len(fn.out_shape) == len(fn.in_shape)


# (shape, dim, keepdim) -> (shape, axes, kept shape, output shape) of a one-dim reduction:
# shared tuples, so a recorded node keeps none of its own (bounded, as shapes vary)
_one_dim = {}


def _one_dim_shapes(shape, dim, keepdim):
    n = len(shape)
    if not -n <= dim < n:  # (0-dim input or out of range: _axis decides)
        return None
    i = dim % n
    kept = shape[:i] + (1,) + shape[i + 1 :]
    got = (shape, (i,), kept, kept if keepdim else shape[:i] + shape[i + 1 :])
    if len(_one_dim) < 4096:
        _one_dim[(shape, dim, keepdim)] = got
    return got


class _Reduce(Op):
    """Shared bookkeeping: axes, input shape, and the shape with reduced dims kept as 1."""

    # slots, not the instance dict: set on every call (no dict per node for the GC to track)
    __slots__ = ("all", "in_shape", "axes", "kept_shape", "out_shape")

    def _setup(self, x, dim, keepdim):
        self.all = dim is None
        shape = x.shape
        if type(dim) is int and (keepdim is True or keepdim is False):  # common: one dim
            got = _one_dim.get((shape, dim, keepdim))  # (shapes shared between nodes)
            if got is None:
                got = _one_dim_shapes(shape, dim, keepdim)
            if got is not None:
                self.in_shape, self.axes, self.kept_shape, self.out_shape = got
                return got[1]
        self.in_shape = shape
        axes = self.axes = _axis(dim, x.ndim)
        if len(axes) == 1:  # common: one dim
            i = axes[0]
            kept = self.kept_shape = shape[:i] + (1,) + shape[i + 1 :]
            self.out_shape = kept if keepdim else shape[:i] + shape[i + 1 :]
            return axes
        self.kept_shape = _reduce_shape(shape, axes, True)
        self.out_shape = self.kept_shape if keepdim else _reduce_shape(shape, axes, False)
        return axes


class Sum(_Reduce):
    # the node class made first is sum(dim)'s; forward switches an all-reduce to SumBackward0
    # (no node_variant: its general _record_variant costs two calls and a lookup per node)
    node_name = "SumBackward1"
    saved_fields = {"self_sym_sizes": "in_shape"}
    variant_saved_fields = {"SumBackward1": {"dim": "axes", "keepdim": _keepdim}}

    def forward(self, x, dim=None, keepdim=False, dtype=None):
        if dim is None:
            self.__class__ = _SUM_ALL
        axes = self._setup(x, dim, keepdim)
        if dtype is None and x.dtype.kind in "biu":
            dtype = "int64"  # torch sums bools and integers as int64
        if self.xp is _numpy:  # what ndarray.sum calls, without its Python wrapper
            same = dtype is None or dtype == x.dtype  # (np.dtype == None is float64's test)
            if same and self.kept_shape == self.in_shape and x.dtype.char in "fd":
                # summed over dims of size 1 only: each sum is 0 + x, torch's zero-filled
                # output plus its one element (-0 to +0, NaN payloads kept: add.reduce's bits)
                out = _numpy.add(x, 0.0)
                return out if out.shape == self.out_shape else out.reshape(self.out_shape)
            out = torch_sum(x, axes) if same else None
            if out is not None:  # torch's summation order (float32/float64)
                return out.reshape(self.out_shape)
            out = _numpy.add.reduce(x, axes, dtype, None, keepdim)
        else:
            out = x.sum(axis=axes, dtype=dtype, keepdims=keepdim)
        return out if out.shape == self.out_shape else out.reshape(self.out_shape)

    def backward(self, grad):
        if plain(grad):  # no graph: the same broadcast view of the array
            g = grad._data
            if g.shape == self.in_shape:  # summed over dims of size 1: nothing to broadcast
                return grad
            return wrap(self.xp.broadcast_to(g.reshape(self.kept_shape), self.in_shape), grad)
        return _kept(grad, self).expand(self.in_shape)

    jvp = Op.jvp_linear


_SUM_ALL = Sum._node("SumBackward0")


def _dim_keepdim(fname, dim, keepdim):
    """torch has no overload with keepdim but no dim: sum(x, keepdim=True) is a TypeError."""
    if dim is NOT_GIVEN:
        if keepdim is not None:
            raise invalid_args(fname, "(Tensor, keepdim=bool)")
        return None, False
    if dim is None and fname != "prod":  # an explicit None is torch's dim overload: dim=()
        dim = ()
    return dim, bool(keepdim)


def _check_grad_dtype(input, dtype):
    """torch refuses to record a node with an integer output (sum(dtype=int64) of a float
    tensor that requires grad)."""
    if (
        dtype is not None
        and dtype.kind not in "fc"
        and dtype.name != "bfloat16"  # (ml_dtypes' kind is "V")
        and input.requires_grad
        and is_grad_enabled()
    ):
        raise RuntimeError(f"Autograd not support dtype: {dtypes.scalar_type_name(dtype)}")


def sum(input, dim=NOT_GIVEN, keepdim=None, dtype=None):
    """sum(input, dim=None, keepdim=None, dtype=None) -> Tensor

    Returns the sum of the elements (over ``dim`` if given); integer and bool inputs sum to
    int64.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``None``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.sum(framework.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)
        tensor([3., 7.])
    """
    if type(dim) is int and dtype is None:  # the common call, checked as below
        return Sum.apply(input, dim=dim, keepdim=bool(keepdim))
    dim, keepdim = _dim_keepdim("sum", dim, keepdim)
    if dtype is not None:
        dtype = dtypes.to_numpy_dtype(dtype)
        _check_grad_dtype(input, dtype)
    return Sum.apply(input, dim=dim, keepdim=keepdim, dtype=dtype)


def sum_to_size(x, *size):
    """Sum a broadcast tensor back to `size` (the engine's broadcast reduction)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    if not shape:  # torch's sum_to: a full sum (SumBackward0), even of a 0-dim tensor
        return sum(x)
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1
    )
    if not axes:
        return x
    y = sum(x, dim=axes, keepdim=True)
    return y.view(shape) if lead else y  # (torch's sum_to views: ViewBackward0 of any layout)


def _float_only(x, what):
    if x.dtype.kind != "f":
        raise RuntimeError(
            f"{what}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {_word(x.dtype)}"
        )


_word = dtypes.scalar_type_name


def array_mean(x, axis, keepdims=False):
    """x.mean(axis) without NumPy's warning on an empty slice (torch is silent: nan)."""
    axes = axis if isinstance(axis, tuple) else (axis,)
    return x.sum(axis=axis, keepdims=keepdims) / _prod([x.shape[a] for a in axes])


class Mean(_Reduce):
    saved_fields = {"self_sym_numel": lambda fn: _prod(fn.in_shape), "self_sym_sizes": "in_shape"}
    variant_saved_fields = {"MeanBackward1": {"dim": "axes", "keepdim": _keepdim}}

    def forward(self, x, dim=None, keepdim=False, dtype=None):
        if dtype is not None:
            x = x.astype(dtype, copy=False)
        _float_only(x, "mean")
        axes = self._setup(x, dim, keepdim)
        self.count = _b.max(x.size // _b.max(_prod(self.kept_shape), 1), 0)
        total = torch_sum(x, axes) if self.xp is _numpy else None
        if total is not None:  # torch's mean: its sum (that order), then div_ by the count
            return (total / self.count).reshape(self.out_shape)
        return array_mean(x, axes).astype(x.dtype, copy=False).reshape(self.out_shape)

    def backward(self, grad):
        return _kept(grad, self).expand(self.in_shape) / self.count

    jvp = Op.jvp_linear

    def node_variant(self):
        return "MeanBackward0" if self.all else "MeanBackward1"


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def mean(input, dim=NOT_GIVEN, keepdim=None, dtype=None):
    """mean(input, dim=None, keepdim=None, dtype=None) -> Tensor

    Returns the mean of the elements (over ``dim`` if given); ``input`` must be floating point.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``None``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.mean(framework.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=0)
        tensor([2., 3.])
    """
    dim, keepdim = _dim_keepdim("mean", dim, keepdim)
    if dtype is not None:
        dtype = dtypes.to_numpy_dtype(dtype)
    return Mean.apply(input, dim=dim, keepdim=keepdim, dtype=dtype)


class Prod(_Reduce):
    saves_inputs = True
    saves_output = True
    saved_fields = {"result": "result", "self": "input0"}
    variant_saved_fields = {"ProdBackward1": {"dim": lambda fn: fn.axes[0], "keepdim": _keepdim}}

    def forward(self, x, dim=None, keepdim=False, dtype=None):
        axes = self._setup(x, dim, keepdim)
        if dtype is None and x.dtype.kind in "biu":
            dtype = "int64"
        out = torch_prod(x, axes) if dtype is None and self.xp is _numpy else None
        if out is not None:  # torch's multiplication order (float32/float64)
            return out.reshape(self.out_shape)
        return x.prod(axis=axes, dtype=dtype).reshape(self.out_shape)

    def backward(self, grad):
        (x,) = self.inputs
        if x.ndim == 0:
            return grad
        y = self.output
        if not self.all and len(self.out_shape) != x.ndim:  # torch unsqueezes dim back
            (d,) = self.axes
            grad, y = grad.unsqueeze(d), y.unsqueeze(d)
        if not (x._data == 0).any():
            return grad * (y / x)  # prod of the others = prod / x, in torch's order
        grad = _kept(grad, self)
        # With zeros (anywhere in the tensor), torch's prod_safe_zeros_backward: the product
        # of the others as exclusive cumprods from both ends (no division: an inf stays finite
        # where the others are finite)
        from .join import cat

        if self.all:
            if x.numel() == 1:  # (as torch: the gradient itself, no tangent of x)
                return grad.reshape(x.shape)
            if not is_grad_enabled() and int((x._data == 0).sum()) > 1:
                return x.detach().new_zeros(x.shape)  # torch's zeros_like (no graph)
            return (grad.reshape(-1) * _exclusive_prods(x.reshape(-1), 0, cat)).reshape(x.shape)
        (d,) = self.axes
        if x.shape[d] == 1:  # one factor: torch returns the gradient itself
            return grad
        return grad * _exclusive_prods(x, d, cat)

    jvp = Op.jvp_reduction

    def node_variant(self):
        return "ProdBackward0" if self.all else "ProdBackward1"


def _prod_safe_zeros_backward(grad, x, d):
    """torch's prod_safe_zeros_backward: grad times the product of the other entries of x
    along d (exclusive cumprods: a zero in x gives no NaN)."""
    from .join import cat

    if not x.numel():
        return grad.expand_as(x)
    if x.shape[d] == 1:
        return grad
    return grad * _exclusive_prods(x, d, cat)


def _exclusive_prods(x, d, cat):
    """prod_{j != i} x_j along d, as exclusive cumprods from the left and from the right."""
    n = x.shape[d]
    if n == 0:
        return x
    ones = x.new_ones(x.shape[:d] + (1,) + x.shape[d + 1 :])
    left = cat([ones, x.narrow(d, 0, n - 1)], d).cumprod(d)
    right = cat([ones, x.narrow(d, 1, n - 1).flip(d)], d).cumprod(d).flip(d)
    return left * right


def prod(input, dim=NOT_GIVEN, keepdim=None, dtype=None):
    """prod(input, dim=None, keepdim=None, dtype=None) -> Tensor

    Returns the product of the elements (over ``dim`` if given).

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce; all elements when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``None``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.prod(framework.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)
        tensor([ 2., 12.])
    """
    dim, keepdim = _dim_keepdim("prod", dim, keepdim)
    if dtype is not None:
        dtype = dtypes.to_numpy_dtype(dtype)
        _check_grad_dtype(input, dtype)
    if dim is not None and not isinstance(dim, int):
        raise TypeError(
            f"prod(): argument 'dim' (position 1) must be int, not {type(dim).__name__}"
        )
    return Prod.apply(input, dim=dim, keepdim=keepdim, dtype=dtype)


class Var(_Reduce):
    node_name = "VarBackward0"
    saves_inputs = True
    root = False

    def forward(self, x, dim=None, correction=1, keepdim=False):
        if x.dtype.kind != "f":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        axes = self._setup(x, dim, keepdim)
        self.correction = correction
        # torch's var_backward: over every element (no dim, or a 0-dim input) N - correction
        # with N = numel; else 2 / (N - correction) with N the product of the dims' sizes
        # (1 for dim=()), unclamped
        self.whole = dim is None or x.ndim == 0
        n = x.size if self.whole else _prod([x.shape[a] for a in axes]) if dim != () else 1
        self.dof = n - correction
        return self.var(x, axes)

    def var(self, x, axes):
        if not x.size:  # torch fills a quiet (positive) NaN
            return self.xp.full(self.out_shape, self.xp.nan, x.dtype)
        if self.xp is _numpy:  # torch's kernels, replayed
            if _moments.full_reduction(x, axes):
                got = _moments.var_all(x, self.correction, self.root)
                if got is not None:
                    return got.reshape(self.out_shape)
            got = _moments.welford(x, axes, self.correction, self.root)
            if got is not None:
                return got[0].reshape(self.out_shape)
        n = _prod([x.shape[a] for a in axes])
        acc = x.astype("float64") if x.dtype.itemsize < 8 else x  # torch accumulates in double
        d = acc - acc.sum(axis=axes, keepdims=True) / n
        # torch divides by max(N - correction, 0), silently giving inf or nan at 0
        var = (d * d).sum(axis=axes) / acc.dtype.type(_b.max(n - self.correction, 0))
        if self.root:  # std: the root of the double, then rounded
            var = self.xp.sqrt(var)
        return var.astype(x.dtype, copy=False).reshape(self.out_shape)

    def backward(self, grad):
        return _var_backward(self, grad if self.whole else _kept(grad, self))

    def jvp(self, t):
        """torch's var_jvp, 2 / (N - correction) * sum((x - mean) * t): as the reduction rule,
        but of an empty input 0 (the empty sum), without history over every element."""
        if t.numel():
            return self.jvp_reduction(t)
        shape = tuple(self._fw_out.shape)
        if self.whole:
            return t.new_zeros(shape)
        (x,) = self.primals
        return ((x - x.mean(self.axes, keepdim=True)) * t).sum(self.axes).reshape(shape)


class Std(Var):
    node_name = "StdBackward0"
    saves_output = True
    root = True

    def backward(self, grad):
        # torch's std_backward: (grad / (result * 2)).masked_fill_(result == 0, 0), then
        # var_backward (d std = d var / (2 std), zero where std == 0)
        from .elementwise import MulScalar

        std = self.output
        grad = (grad / MulScalar.apply(std, other=2)).masked_fill(std == 0, 0.0)
        return _var_backward(self, grad if self.whole else _kept(grad, self))

    jvp = Op.jvp_reduction


def _var_backward(op, grad):
    """torch's var_backward: 2 / (N - correction) * grad * (x - mean); over every element
    with N - correction <= 0, grad * (NaN where x == mean, else +inf)."""
    from .elementwise import where

    from .elementwise import MulScalar

    (x,) = op.inputs
    if op.whole and op.dof <= 0:
        # torch's where of two Python floats is of the default dtype: with a 0-dim grad the
        # product takes it, and the engine casts it back to x's (ToCopyBackward0)
        out = grad * where(x == x.mean(), float("nan"), float("inf"))
        return out if out.dtype == x.dtype else out.to(x.dtype)
    # torch's order: (2 / (N - correction)) * grad * (self - mean)
    centered = x - (x.mean() if op.whole else x.mean(op.axes, keepdim=True))
    return MulScalar.apply(grad, other=2.0 / op.dof if op.dof else float("inf")) * centered


class _NoVarOverload(TypeError):
    """No overload of var/std(_mean) takes this call (described by _described_call)."""


def _described_call(fn):
    """torch's invalid-combination TypeError for a call _var_args refuses, describing the
    arguments as given (keywords last to first: their order is only known here)."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        """fn, with a refused overload reported as torch describes the call."""
        try:
            return fn(*args, **kwargs)
        except _NoVarOverload as e:
            raise invalid_args(str(e), describe_args(args, kwargs)) from None

    return call


def tensor_method(fn):
    """The Tensor method form of var/std: torch describes a refused call without self (and
    with a trailing ', ' when only keywords were given: '(unbiased=bool, keepdim=bool, )')."""

    def method(self, *args, **kwargs):
        """The Tensor method, with a refused overload described without self."""
        try:
            return fn.__wrapped__(self, *args, **kwargs)
        except _NoVarOverload as e:
            got = describe_args(args, kwargs)
            got = got if args else got[:-1] + ", )"
            raise invalid_args(str(e), got) from None

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _var_args(fname, dim, unbiased, keepdim, correction):
    if unbiased is not None and (
        correction is not None or (dim is NOT_GIVEN and keepdim is not None)
    ):
        raise _NoVarOverload(fname)
    dim = None if dim is NOT_GIVEN else dim
    if isinstance(dim, bool):  # legacy var(input, unbiased)
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, bool(keepdim), correction


@_described_call
def var(input, dim=NOT_GIVEN, unbiased=None, keepdim=None, *, correction=None):
    """var(input, dim=None, unbiased=None, keepdim=None, *, correction=None) -> Tensor

    Returns the variance (over ``dim`` if given), with Bessel's correction by default
    (``correction=1``).

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        unbiased (bool, optional): the old spelling of ``correction`` (True is 1, False is 0).
            Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``None``.
        correction (int, optional): the difference between the sample size and the degrees of
            freedom (1: Bessel's correction). Default: ``None`` (1).

    Example:
        >>> framework.var(framework.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor(1.6667)
    """
    dim, keepdim, correction = _var_args("var", dim, unbiased, keepdim, correction)
    return Var.apply(input, dim=dim, correction=correction, keepdim=keepdim)


@_described_call
def std(input, dim=NOT_GIVEN, unbiased=None, keepdim=None, *, correction=None):
    """std(input, dim=None, unbiased=None, keepdim=None, *, correction=None) -> Tensor

    Returns the standard deviation (over ``dim`` if given), with Bessel's correction by default
    (``correction=1``).

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        unbiased (bool, optional): the old spelling of ``correction`` (True is 1, False is 0).
            Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``None``.
        correction (int, optional): the difference between the sample size and the degrees of
            freedom (1: Bessel's correction). Default: ``None`` (1).

    Example:
        >>> framework.std(framework.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor(1.2910)
    """
    dim, keepdim, correction = _var_args("std", dim, unbiased, keepdim, correction)
    return Std.apply(input, dim=dim, correction=correction, keepdim=keepdim)


class Logsumexp(_Reduce):
    saves_inputs = True
    saves_output = True
    saved_fields = {"dim": "axes", "keepdim": _keepdim, "result": "result", "self": "input0"}

    def forward(self, x, dim, keepdim=False):
        x = x.astype(dtypes.get_default_dtype().np) if x.dtype.kind in "biu" else x
        axes = self._setup(x, dim, keepdim)
        xp = self.xp
        m = x.max(axis=axes, keepdims=True) if x.size else xp.zeros(self.kept_shape, x.dtype)
        m = xp.where(xp.isinf(m), 0, m).astype(x.dtype, copy=False)  # all -inf: keep -inf
        e = _vml.unary("exp", x - m, xp.exp)  # torch: sum_out(exp(self - maxes)) in its
        # cascade order, log_, add_ (exp and log the tensor ops: MKL's VML)
        total = torch_sum(e, tuple(sorted(axes))) if xp is _numpy else None
        total = e.sum(axis=axes, keepdims=True) if total is None else total.reshape(m.shape)
        out = _vml.unary("log", total, xp.log) + m
        return out.reshape(self.out_shape)

    def backward(self, grad):
        (x,) = self.inputs
        from .unary import exp

        return _kept(grad, self) * exp(x - _kept(self.output, self))  # softmax of x

    jvp = Op.jvp_reduction


@_amp_entry("logsumexp")
def logsumexp(input, dim, keepdim=False):
    r"""logsumexp(input, dim, keepdim=False) -> Tensor

    Computes :math:`\log \sum_j \exp(x_{ij})` over ``dim``, computed stably.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints): the dimension or dimensions to reduce.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.logsumexp(framework.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)
        tensor([2.3133, 4.3133])
    """
    if isinstance(dim, (tuple, list)) and len(dim) == 0 and input.ndim:
        raise RuntimeError(
            f"output with shape [] doesn't match the broadcast shape "
            f"[{', '.join('1' for _ in input.shape)}]"
        )
    return Logsumexp.apply(input, dim=dim, keepdim=keepdim)


class _BoolReduce(Op):
    differentiable = False

    def forward(self, x, dim=None, keepdim=False):
        if isinstance(dim, (tuple, list)) and not dim:  # torch: dim=() reduces nothing here
            return x.astype(bool)
        axes = _axis(dim, x.ndim)
        out = self.reduce(x, axes).reshape(_reduce_shape(x.shape, axes, keepdim))
        return out.astype(x.dtype) if x.dtype.name == "uint8" else out


class All(_BoolReduce):
    def reduce(self, x, axes):
        return self.xp.all(x, axis=axes)


class Any(_BoolReduce):
    def reduce(self, x, axes):
        return self.xp.any(x, axis=axes)


def all(input, dim=None, keepdim=False):
    """all(input, dim=None, keepdim=False) -> Tensor

    Tests whether all elements (along ``dim`` if given) evaluate to True.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.all(framework.tensor([[True, False], [True, True]]), dim=1)
        tensor([False,  True])
    """
    return All.apply(input, dim=dim, keepdim=keepdim)


def any(input, dim=None, keepdim=False):
    """any(input, dim=None, keepdim=False) -> Tensor

    Tests whether any element (along ``dim`` if given) evaluates to True.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.any(framework.tensor([[True, False], [False, False]]), dim=1)
        tensor([ True, False])
    """
    return Any.apply(input, dim=dim, keepdim=keepdim)
