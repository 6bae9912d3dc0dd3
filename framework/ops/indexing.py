"""Indexing: getitem (basic, advanced, boolean), index_put (setitem), gather, masked_fill."""
from ..autograd.op import Op
from ..backend import scatter_add
from ..tensor import Tensor


def _raw_index(index):
    """Replace Tensors inside an index by their arrays (bool masks and integer indices)."""
    if isinstance(index, tuple):
        return tuple(_raw_index(i) for i in index)
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, list):
        return index
    return index


def _is_advanced(index):
    items = index if isinstance(index, tuple) else (index,)
    return any(not (i is None or i is Ellipsis or isinstance(i, (int, slice)))
               for i in items)


class Index(Op):
    """x[index]; the backward scatters the gradient into zeros of x's shape."""

    def forward(self, x, index):
        self.index, self.in_shape, self.in_dtype = index, x.shape, x.dtype
        self.advanced = _is_advanced(index)
        try:
            out = x[index]
        except IndexError as e:
            raise IndexError(_index_message(e, index, x.shape)) from None
        return out.copy() if self.advanced else out

    def backward(self, grad):
        return IndexBackward.apply(grad, index=self.index, shape=self.in_shape,
                                   advanced=self.advanced)

    def name(self):
        if self.advanced:
            return "IndexBackward0"
        items = self.index if isinstance(self.index, tuple) else (self.index,)
        if any(isinstance(i, int) for i in items):
            return "SelectBackward0"
        if any(i is None for i in items) and not any(isinstance(i, slice) for i in items):
            return "UnsqueezeBackward0"
        return "SliceBackward0"


class IndexBackward(Op):
    """Scatter a gradient into zeros at `index` (the backward of Index; itself differentiable)."""

    def forward(self, grad, index, shape, advanced):
        self.index = index
        out = self.xp.zeros(shape, dtype=grad.dtype)
        if advanced:
            scatter_add(self.xp, out, index, grad)
        else:
            out[index] = grad
        return out

    def backward(self, grad):
        return grad[_wrap_index(self.index, grad)]


def _wrap_index(index, like):
    """Arrays inside a raw index back to Tensors, so Tensor.__getitem__ accepts it."""
    if isinstance(index, tuple):
        return tuple(_wrap_index(i, like) for i in index)
    if hasattr(index, "shape") and hasattr(index, "dtype"):
        return Tensor._make(index, like.device)
    return index


def _index_message(err, index, shape):
    msg = str(err)
    if "out of bounds" in msg and isinstance(index, int):
        return (f"index {index} is out of bounds for dimension 0 with size "
                f"{shape[0] if shape else 0}")
    return msg


def getitem(x, index):
    return Index.apply(x, index=_raw_index(index))


class IndexPut(Op):
    """The result of x[index] = value, as a new value (the in-place machinery writes it back)."""

    def forward(self, x, value, index):
        self.index, self.value_shape = index, value.shape
        out = x.copy()
        out[index] = value
        return out

    def backward(self, grad):
        need_x, need_v = self.needs_input_grad
        idx = _wrap_index(self.index, grad)
        grad_x = grad_v = None
        if need_x:
            grad_x = grad.clone()
            grad_x[idx] = 0
        if need_v:
            grad_v = grad[idx].sum_to_size(self.value_shape) if self.value_shape else grad[idx].sum()
        return grad_x, grad_v

    def name(self):
        return "CopySlices" if not _is_advanced(self.index) else "IndexPutBackward0"


def index_put(x, index, value):
    if not isinstance(value, Tensor):
        value = Tensor._make(x.xp.asarray(value, dtype=x._data.dtype), x.device)
    elif value._data.dtype != x._data.dtype:
        value = value.to(x.dtype)
    return IndexPut.apply(x, value, index=_raw_index(index))
