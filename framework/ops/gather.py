"""Index-driven gathers and scatters along one dim: gather, scatter, scatter_add, index_select."""

import math
import threading

from .._errors import check_index_range
from ..autograd.op import Op
from ..backend import scatter_add as _scatter_into
from ..tensor import Tensor
from .indexing import Slice, _Embed, _IndexAccumulate
from .shape import _dim, _fmt


__all__ = ["gather", "index_select", "scatter", "scatter_add"]


def _grid(index, dim, xp):
    """A NumPy index tuple that addresses out[i0, ..., index[i], ...] for every i of index."""
    key = []
    for d, n in enumerate(index.shape):
        if d == dim:
            key.append(index)
        else:
            shape = [1] * index.ndim
            shape[d] = n
            key.append(xp.arange(n).reshape(shape))
    return tuple(key)


class in_place:
    """Context of an in-place scatter_/scatter_add_/scatter_reduce_ on `self`: torch's kernel
    writes into self itself, so its TensorIterator orders the loop by self's strides (the
    out-of-place scatter writes a new contiguous tensor). The bounds check inside reads them
    here (the autograd path computes on a contiguous copy of self)."""

    _local = threading.local()  # .stack: (shape, strides) of each self, innermost last

    def __init__(self, t):
        self.entry = (tuple(t._data.shape), t._data.strides)

    def __enter__(self):
        if not hasattr(in_place._local, "stack"):
            in_place._local.stack = []
        in_place._local.stack.append(self.entry)

    def __exit__(self, *exc):
        in_place._local.stack.pop()

    @staticmethod
    def current():
        """The innermost in-place scatter's (shape, strides) in this thread, or None."""
        stack = getattr(in_place._local, "stack", None)
        return stack[-1] if stack else None


def _kernel_order(x, d, idx, src, gather=False):
    """idx's elements in the order torch's CPU scatter/gather kernel reads them (its first bad
    index is the error's). The kernel's TensorIterator runs over idx's shape with dim d
    squashed to 1, over the operands (output, then src or input, then index); it orders the
    dims by their strides (torch's reorder_dimensions), merges the ones that coalesce, and
    calls its loop once per row of the merged fastest dim: the loop reads along d for each
    element (d last in the output) or each row element for each step along d (otherwise)."""
    xp = x.xp
    if idx.ndim < 2:
        return idx
    shape = list(idx.shape)
    shape[d] = 1
    # the output is a new contiguous tensor, or self for the in-place scatter_ (its strides)
    out = xp.empty(idx.shape if gather else x.shape, idx.dtype)
    ops = [out, x._data if gather else src._data if src is not None else None, idx]

    st = [a.strides for a in ops if a is not None and a.ndim == idx.ndim]  # (static shape)
    own = None if gather else in_place.current()
    if own is not None and own[0] == tuple(x.shape):
        st[0] = own[1]

    def should_swap(d0, d1):
        """torch's comparison of two dims: 1 to swap, -1 to keep, 0 undecided."""
        for s in st:
            if s[d0] == 0 or s[d1] == 0:
                continue
            if s[d0] != s[d1]:
                return -1 if s[d0] < s[d1] else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(idx.ndim))[::-1]  # fastest first, then torch's insertion sort
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    inner, size, at = [perm[0]], shape[perm[0]], [s[perm[0]] for s in st]
    for k in perm[1:]:  # the dims the loop's rows cover (torch's coalesce_dimensions)
        if shape[k] != 1 and size != 1 and any(a * size != s[k] for a, s in zip(at, st)):
            break
        if size == 1:
            at = [s[k] for s in st]
        inner.append(k)
        size *= shape[k]
    inner = [k for k in inner if k != d]
    outer = [k for k in perm if k not in inner and k != d]
    if d == x.ndim - 1:  # per element, the loop along d
        order = [d, *inner, *outer]
    else:  # per step along d, the row
        order = [*inner, d, *outer]
    return xp.transpose(idx, order[::-1])  # slowest first: C order reads it as torch does


def _check(name, x, dim, index, src=None, bounds=True):
    """torch's dtype, rank, size and (with ``bounds``) index-bounds checks shared by gather
    and scatter."""
    if index.dtype.name not in (("int64", "int32") if name == "gather" else ("int64",)):
        raise RuntimeError(
            f"{name}(): Expected dtype {'int32/int64' if name == 'gather' else 'int64'} for index"
        )
    if src is not None and src._data.dtype != x._data.dtype:  # before any shape
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.ndim != x.ndim and index.numel():
        raise RuntimeError(
            "Index tensor must have the same number of dimensions as "
            f"{'input' if name == 'gather' else 'self'} tensor"
        )
    d = _dim(dim, x.ndim)
    for k in range(index.ndim):
        too_big = (k != d and index.shape[k] > x.shape[k]) or (
            src is not None and index.shape[k] > src.shape[k]
        )
        if too_big:
            where = (
                f" and to be no larger size than src {_fmt(src.shape)}" if src is not None else ""
            )
            head = (
                f"Size does not match at dimension {k} expected index"
                if name == "gather"
                else "Expected index"  # torch's scatter_shape_check
            )
            raise RuntimeError(
                f"{head} {_fmt(index.shape)} to be no larger than self {_fmt(x.shape)} "
                f"apart from dimension {d}{where}"
            )
    if bounds and index.numel():
        idx = index._data
        size = x.shape[d] if x.ndim else 1
        if int(idx.max()) >= size or int(idx.min()) < 0:
            flat = _kernel_order(x, d, idx, src, name == "gather").reshape(-1)
            first = int(flat[((flat >= size) | (flat < 0)).argmax()])
            raise RuntimeError(f"index {first} is out of bounds for dimension {d} with size {size}")
    return d


class Gather(Op):
    no_edge = (1,)  # index
    saves_inputs = True
    saves = ("index",)
    saved_fields = {"dim": "dim", "index": "input1", "self": "input0", "sparse_grad": "=False"}

    def forward(self, x, index, dim):
        self.dim, self.in_shape = dim, x.shape
        self.index = index
        return x[_grid(index, dim, self.xp)]

    def backward(self, grad):
        zeros = Tensor._make(grad.xp.zeros(self.in_shape, dtype=grad._data.dtype), grad._device)
        return scatter_add(zeros, self.dim, Tensor._make(self.index, grad._device), grad), None

    jvp = Op.jvp_linear


def gather(input, dim, index, *, sparse_grad=False):
    """gather(input, dim, index, *, sparse_grad=False) -> Tensor

    Gathers values along ``dim`` at the positions given by ``index``: ``out[i][j] =
    input[i][index[i][j]]`` for ``dim=1``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to gather along.
        index (LongTensor): the indices to gather, with as many dimensions as ``input``.
        sparse_grad (bool, optional): torch's sparse-gradient flag; must be False here. Default:
            ``False``.

    Example:
        >>> index = framework.tensor([[0, 0], [1, 0]])
        >>> framework.gather(framework.tensor([[1, 2], [3, 4]]), 1, index)
        tensor([[1, 1],
                [4, 3]])
    """
    d = _check("gather", input, dim, index)
    return Gather.apply(input, index, dim=d)


class ScatterAdd(Op):
    no_edge = (1,)  # index
    saves_inputs = True  # backward gathers with the index

    def forward(self, x, index, src, dim):
        self.dim, self.src_shape = dim, src.shape
        out = x.copy()
        _scatter_into(
            self.xp, out, _grid(index, dim, self.xp), src[tuple(slice(0, n) for n in index.shape)]
        )
        return out

    def backward(self, grad):
        index = self.inputs[1]
        need_x, _, need_src = self.needs_input_grad
        grad_src = _src_grad(grad, self.dim, index, self.src_shape) if need_src else None
        return (grad if need_x else None), None, grad_src

    jvp = Op.jvp_linear


def scatter_add(input, dim, index, src):
    """scatter_add(input, dim, index, src) -> Tensor

    Out-of-place version of :meth:`Tensor.scatter_add_`: adds ``src`` into a copy of ``input``
    at ``index`` along ``dim``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the axis along which to index.
        index (LongTensor): where to add each element of ``src``.
        src (Tensor): the values to add.

    Example:
        >>> index = framework.tensor([0, 0, 2])
        >>> framework.scatter_add(framework.zeros(3), 0, index, framework.tensor([1.0, 2.0, 3.0]))
        tensor([3., 0., 3.])
    """
    d = _check("scatter", input, dim, index, src)
    return ScatterAdd.apply(input, index, src, dim=d)


def _src_grad(grad, dim, index, src_shape):
    """The gradient of scatter's src: gathered at index, zero where src was not read."""
    g = gather(grad, dim, index)
    if tuple(g.shape) == tuple(src_shape):
        return g
    return _Embed.apply(g, shape=src_shape, key=tuple(slice(0, n) for n in index.shape), of=Slice)


class Scatter(Op):
    """scatter(dim, index, src) (ScatterBackward0) or scatter(dim, index, value) (...1)."""

    no_edge = (1,)  # index (and a scalar value: set in forward)
    saves_inputs = True

    def forward(self, x, index, src, dim, overload):
        self.dim, self.overload, self.src_shape = dim, overload, src.shape
        if overload:
            self.no_edge = (1, 2)  # the value is a Python scalar
        out = x.copy()
        key = _grid(index, dim, self.xp)
        out[key] = src if overload else src[tuple(slice(0, n) for n in index.shape)]
        return out

    def backward(self, grad):
        index = self.inputs[1]
        need_x, _, need_src = self.needs_input_grad
        grad_x = scatter(grad, self.dim, index, 0.0) if need_x else None
        grad_src = (
            _src_grad(grad, self.dim, index, self.src_shape)
            if need_src and not self.overload
            else None
        )
        return grad_x, None, grad_src

    jvp = Op.jvp_linear

    def node_variant(self):
        return f"ScatterBackward{self.overload}"


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """scatter(input, dim, index, src=None, *, value=None, reduce=None) -> Tensor

    Out-of-place version of :meth:`Tensor.scatter_`: writes ``src`` into a copy of ``input`` at
    ``index`` along ``dim``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the axis along which to index.
        index (LongTensor): where to write each element of ``src``.
        src (Tensor, optional): the values to scatter. Default: ``None``.
        value (Number, optional): one value to scatter, instead of ``src``. Default: ``None``.
        reduce (str, optional): ``'add'`` or ``'multiply'`` to combine instead of replace. Default:
            ``None``.

    Example:
        >>> index = framework.tensor([0, 2])
        >>> framework.scatter(framework.zeros(3), 0, index, framework.tensor([5.0, 7.0]))
        tensor([5., 0., 7.])
    """
    if src is None:
        src = value
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
        if isinstance(src, Tensor):
            d = _check("scatter", input, dim, index, src)
        else:
            d = _check("scatter", input, dim, index)
            src = Tensor._make(input.xp.asarray(src, dtype=input._data.dtype), input._device)
        return ScatterReduce.apply(input, index, src, dim=d, reduce=reduce)
    if isinstance(src, Tensor):
        d = _check("scatter", input, dim, index, src)
        return Scatter.apply(input, index, src, dim=d, overload=0)
    d = _check("scatter", input, dim, index)
    value = Tensor._make(input.xp.asarray(src, dtype=input._data.dtype), input._device)
    return Scatter.apply(input, index, value, dim=d, overload=1)


class ScatterReduce(Op):
    """scatter(..., reduce='add'|'multiply'): forward only, as torch (its node is
    NotImplemented and raises in backward)."""

    no_edge = (1,)  # index
    node_name = "torch::autograd::NotImplemented"

    def forward(self, x, index, src, dim, reduce):
        out = x.copy()
        vals = src if src.ndim == 0 else src[tuple(slice(0, n) for n in index.shape)]
        ufunc = self.xp.add if reduce == "add" else self.xp.multiply
        ufunc.at(out, _grid(index, dim, self.xp), vals)
        return out

    def backward(self, grad):
        raise RuntimeError("the derivative for 'scatter' with a reduce argument is not implemented")


class IndexSelect(Op):
    no_edge = (1,)  # index
    saves = ("index",)
    saved_fields = {"dim": "dim", "index": "index", "self_sym_sizes": "in_shape"}

    def forward(self, x, index, dim):
        self.dim, self.in_shape, self.index = dim, x.shape, index
        if x.ndim == 0:  # its one element (the index was checked to be 0)
            return x.copy()
        return self.xp.take(x, index, axis=dim)

    def backward(self, grad):
        if not self.in_shape:
            return grad, None
        key = (slice(None),) * self.dim + (self.index,)
        return _IndexAccumulate.apply(grad, shape=self.in_shape, key=key), None

    jvp = Op.jvp_linear


def _check_batched_index(input, idx, d, size):
    """index_select of a batched tensor (under vmap): torch's batching rule checks the
    indices as gather does, only when the result has elements, naming the physical dim."""
    numel = math.prod(input._value.shape[: len(input._levels)]) * idx.size
    numel *= math.prod(n for i, n in enumerate(input.shape) if i != d)
    bad = (idx < 0) | (idx >= size)
    if numel and bool(bad.any()):
        first = int(idx[bad.argmax()])
        raise RuntimeError(f"index {first} is out of bounds for dimension {d + 1} with size {size}")


def index_select(input, dim, index):
    """index_select(input, dim, index) -> Tensor

    Selects the entries of ``input`` along ``dim`` at the positions in the 1-D ``index``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to select along.
        index (LongTensor): 1-D indices to select.

    Example:
        >>> x = framework.tensor([[1, 2], [3, 4], [5, 6]])
        >>> framework.index_select(x, 0, framework.tensor([2, 0]))
        tensor([[5, 6],
                [1, 2]])
    """
    if index._data.dtype.name not in ("int64", "int32"):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = _dim(dim, input.ndim)
    idx = index._data.reshape(-1)
    size = input.shape[d] if input.ndim else 1
    if input.ndim == 0 and idx.size != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
        )
    if getattr(input, "_levels", None):  # under vmap: torch's batched kernel checks as gather
        _check_batched_index(input, idx, d, size)
        return IndexSelect.apply(input, Tensor._make(idx, index._device), dim=d)
    if input.ndim > 1 and idx.size and not size:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    # torch's kernels: an empty self of 2+ dims and dim 1 check with check_indexarray_range
    # (RuntimeError), the others with "index out of range in self" (IndexError)
    check_index_range(input.xp, idx, size, input.ndim > 1 and (input.numel() == 0 or d == 1))
    return IndexSelect.apply(input, Tensor._make(idx, index._device), dim=d)
