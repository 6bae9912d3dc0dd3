"""Reductions: sum, mean, max/min, prod, var/std, argmax/argmin, logsumexp."""
from ..autograd.op import Op
from ..tensor import Tensor
from .. import dtypes


def _axis(dim, ndim):
    """Normalise dim (int, tuple or None) to a sorted tuple of non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(ndim))
    out = []
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
        out.append(d % ndim if ndim else 0)
    return tuple(sorted(set(out)))


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


class Sum(Op):
    def forward(self, x, dim=None, keepdim=False, dtype=None):
        self.all = dim is None
        axes = _axis(dim, x.ndim) if x.ndim else None
        self.in_shape = x.shape
        if dtype is None and x.dtype.kind in "biu":
            dtype = "int64"  # torch sums bools and integers as int64
        y = x.sum(axis=axes, keepdims=True, dtype=dtype)
        self.kept_shape = y.shape
        return y if keepdim else y.reshape(tuple(s for i, s in enumerate(x.shape)
                                                 if axes is not None and i not in axes))

    def backward(self, grad):
        return grad.reshape(self.kept_shape).expand(self.in_shape)

    def name(self):
        return "SumBackward0" if self.all else "SumBackward1"


def sum(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        dtype = dtypes.to_numpy_dtype(dtype)
    return Sum.apply(x, dim=dim, keepdim=keepdim, dtype=dtype)


def sum_to_size(x, *size):
    """Sum a broadcast tensor back to `size` (the engine's broadcast reduction)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and x.shape[i + lead] != 1)
    if not axes:
        return x
    y = sum(x, dim=axes, keepdim=True)
    return y.reshape(shape) if lead else y


class Mean(Op):
    def forward(self, x, dim=None, keepdim=False):
        if x.dtype.kind not in "f":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {dtypes.from_numpy_dtype(x.dtype).name.capitalize()}")
        self.all = dim is None
        axes = _axis(dim, x.ndim) if x.ndim else None
        self.in_shape = x.shape
        y = x.mean(axis=axes, keepdims=True)
        self.kept_shape = y.shape
        self.count = x.size // max(y.size, 1) if x.size else 0
        return y if keepdim else y.reshape(tuple(s for i, s in enumerate(x.shape)
                                                 if axes is not None and i not in axes))

    def backward(self, grad):
        return grad.reshape(self.kept_shape).expand(self.in_shape) / self.count

    def name(self):
        return "MeanBackward0" if self.all else "MeanBackward1"


def mean(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = x.to(dtype)
    return Mean.apply(x, dim=dim, keepdim=keepdim)
