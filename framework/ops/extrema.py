"""max/min (full, per dim with indices, or of two tensors), amax/amin, argmax/argmin."""

from collections import namedtuple as _namedtuple

from ..autograd.op import Op
from ..tensor import Tensor
from .reduction import _axis, _reduce_shape, _wrap_dim


__all__ = ["amax", "amin", "argmax", "argmin", "max", "min", "return_types"]


def _return_type(name, fields):
    """torch.return_types.<name>: a named tuple that prints as torch's."""
    base = _namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    return type(
        name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"}
    )


class return_types:
    """Namespace of the structured results (torch.return_types)."""

    max = _return_type("max", ("values", "indices"))
    min = _return_type("min", ("values", "indices"))
    sort = _return_type("sort", ("values", "indices"))
    topk = _return_type("topk", ("values", "indices"))
    cummax = _return_type("cummax", ("values", "indices"))
    cummin = _return_type("cummin", ("values", "indices"))
    kthvalue = _return_type("kthvalue", ("values", "indices"))
    median = _return_type("median", ("values", "indices"))
    nanmedian = _return_type("nanmedian", ("values", "indices"))
    mode = _return_type("mode", ("values", "indices"))
    aminmax = _return_type("aminmax", ("min", "max"))
    slogdet = _return_type("slogdet", ("sign", "logabsdet"))
    qr = _return_type("qr", ("Q", "R"))
    linalg_qr = _return_type("linalg_qr", ("Q", "R"))
    svd = _return_type("svd", ("U", "S", "V"))
    linalg_svd = _return_type("linalg_svd", ("U", "S", "Vh"))
    eigh = _return_type("eigh", ("eigenvalues", "eigenvectors"))
    frexp = _return_type("frexp", ("mantissa", "exponent"))
    linalg_solve_ex = _return_type("linalg_solve_ex", ("result", "info"))


def _const(array, like):
    """A constant tensor (mask, count) on `like`'s device."""
    return Tensor._make(array, like.device)


def _tie_mask(xp, x, y):
    """Where x equals its reduced value y (NaN matches NaN, as torch's evenly_distribute)."""
    return (x == y) | (xp.isnan(x) & xp.isnan(y))


class _Extreme(Op):
    """Full or multi-dim max/min: ties share the gradient evenly, as torch."""

    saves_inputs = True
    saves_output = True
    saved_fields = {"result": "result", "self": "input0"}
    fname = ""
    nan_ties = True  # max()/min(): NaN ties NaN, as torch's evenly_distribute

    def forward(self, x, dim=None, keepdim=False):
        if x.size == 0 and (dim is None or dim == ()):
            raise RuntimeError(
                f"{self.fname}(): Expected reduction dim to be specified for "
                "input.numel() == 0. Specify the reduction dim with the 'dim' "
                "argument."
            )
        for d in () if dim is None else (dim,) if isinstance(dim, int) else dim:
            if x.ndim and x.shape[_wrap_dim(d, x.ndim)] == 0:  # torch names the dim as given
                raise IndexError(
                    f"{self.fname}(): Expected reduction dim {d} to have non-zero size."
                )
        self.axes = _axis(dim, x.ndim)  # (repeated dims: after the empty-dim check, as torch)
        self.kept_shape = _reduce_shape(x.shape, self.axes, True)
        y = self.reduce(x, axis=self.axes)
        return y.reshape(_reduce_shape(x.shape, self.axes, keepdim))

    def backward(self, grad):
        from .elementwise import where

        x, y = self.inputs[0], self.output.reshape(self.kept_shape)
        xp = x.xp
        if not self.nan_ties:  # amax/amin: torch's plain == and a product (a NaN row -> NaN)
            mask = x._data == y._data
            count = mask.sum(axis=self.axes, keepdims=True)
            return grad.reshape(self.kept_shape) / _const(count, x) * _const(mask, x)
        mask = _tie_mask(xp, x._data, y._data)
        count = mask.sum(axis=self.axes, keepdims=True)
        return where(_const(mask, x), grad.reshape(self.kept_shape) / _const(count, x), 0.0)

    def jvp(self, t):
        """The tangent at the extremes, averaged over ties; of an empty input an empty one
        without history (torch's amaxamin_jvp reads only the mask and the tangent)."""
        if not t.numel():
            return t.new_zeros(tuple(self._fw_out.shape))
        return self.jvp_reduction(t)


class MaxAll(_Extreme):
    node_name = "MaxBackward1"
    fname = "max"

    def reduce(self, x, axis):
        return x.max(axis=axis)


class MinAll(_Extreme):
    node_name = "MinBackward1"
    fname = "min"

    def reduce(self, x, axis):
        return x.min(axis=axis)


class Amax(MaxAll):
    node_name = "AmaxBackward0"
    saved_fields = {"dim": "axes", "result": "result", "self": "input0"}
    fname = "amax"
    nan_ties = False


class Amin(MinAll):
    node_name = "AminBackward0"
    saved_fields = {"dim": "axes", "result": "result", "self": "input0"}
    fname = "amin"
    nan_ties = False


def _indices(fn):
    """torch's _saved_indices: the argmax/argmin output, shaped like the values."""
    from ..autograd.node import FREED
    from ..backend import device_of

    if fn._released:
        raise RuntimeError(FREED)
    idx = fn.idx if fn.axis is None or fn.keepdim else fn.idx.squeeze(fn.axis)
    return Tensor._make(idx.astype("int64", copy=False), device_of(idx))


class _ExtremeDim(Op):
    """max/min over one dim -> (values, indices); the gradient goes to the chosen index."""

    saves = ("idx",)
    saved_fields = {
        "dim": "axis",
        "indices": _indices,
        "keepdim": "keepdim",
        "self_sym_sizes": "in_shape",
    }
    non_differentiable = (1,)
    fname = ""

    def forward(self, x, dim, keepdim=False):
        xp = self.xp
        axis = _wrap_dim(dim, x.ndim)
        if x.ndim == 0:
            self.axis, self.idx = None, xp.zeros((), "int64")
            return x.copy(), self.idx
        if x.shape[axis] == 0:
            raise IndexError(
                f"{self.fname}(): Expected reduction dim {axis} to have non-zero size."
            )
        idx = self.arg(x, axis=axis)[(slice(None),) * axis + (None,)]  # keep the dim
        values = xp.take_along_axis(x, idx, axis=axis)
        self.axis, self.idx, self.in_shape, self.keepdim = axis, idx, x.shape, keepdim
        if not keepdim:
            values, idx = values.squeeze(axis), idx.squeeze(axis)
        return values, idx.astype("int64", copy=False)

    def backward(self, grad, _=None):
        from .elementwise import where

        if self.axis is None:
            return grad
        xp, axis = grad.xp, self.axis
        shape = [1] * len(self.in_shape)
        shape[axis] = self.in_shape[axis]
        mask = xp.arange(self.in_shape[axis]).reshape(shape) == self.idx
        return where(_const(mask, grad), grad.reshape(self.idx.shape), 0.0)

    def jvp(self, t):
        if self.axis is None:
            return t, None
        picked = t.gather(self.axis, Tensor._make(self.idx, t.device))
        return (picked if self.keepdim else picked.squeeze(self.axis)), None


class MaxDim(_ExtremeDim):
    node_name = "MaxBackward0"
    fname = "max"

    def arg(self, x, axis):
        return self.xp.argmax(x, axis=axis)


class MinDim(_ExtremeDim):
    node_name = "MinBackward0"
    fname = "min"

    def arg(self, x, axis):
        return self.xp.argmin(x, axis=axis)


def _max_min(input, dim, keepdim, other, full, per_dim, pair, result):
    if isinstance(dim, Tensor):  # torch.max(a, b) is maximum
        return pair(input, dim)
    if other is not None:
        return pair(input, other)
    if dim is None:
        return full.apply(input)
    return result(*per_dim.apply(input, dim=dim, keepdim=keepdim))


def max(input, dim=None, keepdim=False, *, other=None):
    """max(input, dim=None, keepdim=False, *, other=None) -> Tensor or (Tensor, LongTensor)

    With only ``input``: the maximum of all elements. With ``dim``: a ``(values, indices)``
    named tuple of the maxima along ``dim``. With a tensor ``other``: the elementwise maximum.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce; all elements when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        other (Tensor, optional): a second tensor: returns the elementwise maximum instead. Default:
            ``None``.

    Example:
        >>> framework.max(framework.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=1)
        torch.return_types.max(
        values=tensor([5., 3.]),
        indices=tensor([1, 0]))
    """
    from .elementwise import maximum

    return _max_min(input, dim, keepdim, other, MaxAll, MaxDim, maximum, return_types.max)


def min(input, dim=None, keepdim=False, *, other=None):
    """min(input, dim=None, keepdim=False, *, other=None) -> Tensor or (Tensor, LongTensor)

    With only ``input``: the minimum of all elements. With ``dim``: a ``(values, indices)``
    named tuple of the minima along ``dim``. With a tensor ``other``: the elementwise minimum.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce; all elements when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        other (Tensor, optional): a second tensor: returns the elementwise minimum instead. Default:
            ``None``.

    Example:
        >>> framework.min(framework.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=1)
        torch.return_types.min(
        values=tensor([1., 2.]),
        indices=tensor([0, 1]))
    """
    from .elementwise import minimum

    return _max_min(input, dim, keepdim, other, MinAll, MinDim, minimum, return_types.min)


def amax(input, dim=(), keepdim=False):
    """amax(input, dim=(), keepdim=False) -> Tensor

    Returns the maximum of ``input`` over the dimension(s) ``dim`` (all when empty); the
    gradient is shared evenly among equal maxima.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``()``. Default: ``()``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.amax(framework.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=0)
        tensor([3., 5.])
    """
    return Amax.apply(input, dim=dim, keepdim=keepdim)


def amin(input, dim=(), keepdim=False):
    """amin(input, dim=(), keepdim=False) -> Tensor

    Returns the minimum of ``input`` over the dimension(s) ``dim`` (all when empty); the
    gradient is shared evenly among equal minima.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``()``. Default: ``()``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.amin(framework.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=0)
        tensor([1., 2.])
    """
    return Amin.apply(input, dim=dim, keepdim=keepdim)


class _Arg(Op):
    differentiable = False
    fname = ""

    def forward(self, x, dim=None, keepdim=False):
        if x.dtype.kind == "b":
            raise RuntimeError(f"{self.fname}(): does not support bool input")
        if dim is None:
            if x.size == 0:
                raise IndexError(
                    f"{self.fname}(): Expected reduction dim to be specified for "
                    "input.numel() == 0."
                )
            i = self.arg(x.reshape(-1), axis=0)
            return i.reshape((1,) * x.ndim if keepdim else ()).astype("int64")
        axis = _wrap_dim(dim, x.ndim)
        if x.ndim == 0:
            return self.xp.zeros((), "int64")
        if x.shape[axis] == 0:
            raise IndexError(
                f"{self.fname}(): Expected reduction dim {axis} to have non-zero size."
            )
        i = self.arg(x, axis=axis)
        return (self.xp.expand_dims(i, axis) if keepdim else i).astype("int64", copy=False)


class Argmax(_Arg):
    fname = "argmax"

    def arg(self, x, axis):
        return self.xp.argmax(x, axis=axis)


class Argmin(_Arg):
    fname = "argmin"

    def arg(self, x, axis):
        return self.xp.argmin(x, axis=axis)


def argmax(input, dim=None, keepdim=False):
    """argmax(input, dim=None, keepdim=False) -> Tensor

    Returns the indices of the maximum values (of the flattened tensor when ``dim`` is None).

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.argmax(framework.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=1)
        tensor([1, 0])
    """
    return Argmax.apply(input, dim=dim, keepdim=keepdim)


def argmin(input, dim=None, keepdim=False):
    """argmin(input, dim=None, keepdim=False) -> Tensor

    Returns the indices of the minimum values (of the flattened tensor when ``dim`` is None).

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.argmin(framework.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=1)
        tensor([0, 1])
    """
    return Argmin.apply(input, dim=dim, keepdim=keepdim)
