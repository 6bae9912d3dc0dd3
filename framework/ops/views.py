"""Views: storage geometry, the strided view ops (narrow, select, diagonal, unfold,
as_strided) and in-place writes through views (torch's CopySlices).

A view is a `View` tensor (tensor.py) over a NumPy/CuPy view of its base's array: it shares
the base's storage and version counter. Geometry is measured in elements from the start of
the storage (the array that owns the memory), exactly as torch's sizes, strides and
storage_offset. Gradients through arbitrary geometry use one flat index per view element
into the base's elements (`_flat_index`), so overlapping windows (unfold) accumulate.
"""

from ..autograd.grad_mode import state
from ..autograd.op import Op, _seq
from ..backend import as_strided as _as_strided_array
from ..backend import data_ptr, scatter_add, storage_of
from ..tensor import DEFAULT, MULTI_OUTPUT, NO_GRAD, Tensor, View, _GRAD_FN, _REQUIRES_GRAD
from .shape import _dim, _fmt

__all__ = ["as_strided", "narrow", "select", "diagonal"]
_new = object.__new__

_MULTI_TAIL = (
    " This view is the output of a function that returns multiple views. Such "
    "functions do not allow the output views to be modified inplace. You should "
    "replace the inplace operation by an out-of-place one."
)
_NO_GRAD_TAIL = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You "
    "can clarify your code by moving both the view and the inplace either both "
    "inside the no_grad block (if you don't want the inplace to be tracked) or both "
    "outside (if you want the inplace to be tracked)."
)
OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a "
    "single memory location. Please clone() the tensor before performing the operation."
)


# ----- geometry ------------------------------------------------------------------------------
def strides(arr):
    """Strides in elements (torch's stride()). NumPy gives an empty array it allocates zero
    strides: torch's contiguous ones; one with strides set (empty_strided, as_strided, a
    slice of a tensor, and views of those) keeps them, as torch's geometry does."""
    if arr.size == 0 and not any(arr.strides):
        out, acc = [], 1
        for n in reversed(arr.shape):
            out.append(acc)
            acc *= max(n, 1)
        return tuple(out[::-1])
    item = arr.itemsize
    return tuple(s // item for s in arr.strides)


def storage_offset(arr):
    """Elements between the storage's first element and the array's first element."""
    return (data_ptr(arr) - data_ptr(storage_of(arr))) // arr.itemsize


def geometry(arr):
    """(shape, strides, storage offset) of an array, in elements."""
    return tuple(arr.shape), strides(arr), storage_offset(arr)


def _positions(geom, xp):
    """Storage position of every element of a geometry, as an int64 array of its shape."""
    shape, st, offset = geom
    pos = xp.asarray(offset, dtype="int64")
    for n, s in zip(shape, st):
        pos = pos[..., None] + xp.arange(n, dtype="int64") * s
    return pos


def _flat_index(in_geom, out_geom, xp):
    """For each element of out_geom, the index of the same storage element among in_geom's
    elements in C order; `valid` marks the ones in_geom covers (None when all are)."""
    shape, st, offset = in_geom
    numel = 1
    for n in shape:
        numel *= n
    pos = _positions(out_geom, xp)
    expected, contiguous = 1, True
    for n, s in zip(reversed(shape), reversed(st)):
        if n != 1 and s != expected:
            contiguous = False
            break
        expected *= n
    if contiguous:
        idx = pos - offset
    else:
        base = _positions(in_geom, xp).reshape(-1)
        lo = int(base.min()) if numel else 0
        span = (int(base.max()) - lo + 1) if numel else 1
        inverse = xp.full(span, -1, dtype="int64")
        inverse[base - lo] = xp.arange(numel, dtype="int64")
        rel = pos - lo
        inside = (rel >= 0) & (rel < span)
        idx = xp.where(inside, inverse[xp.clip(rel, 0, span - 1)], -1)
    if idx.size == 0 or (int(idx.min()) >= 0 and int(idx.max()) < numel):
        return idx, None
    valid = (idx >= 0) & (idx < numel)
    return xp.where(valid, idx, 0), valid


def has_internal_overlap(arr):
    """torch's definite internal overlap: a zero stride on a dimension longer than one."""
    return arr.size > 0 and any(s == 0 and n > 1 for n, s in zip(arr.shape, arr.strides))


# ----- marking views -------------------------------------------------------------------------
def as_view(out, src, meta=DEFAULT):
    """`out` (a fresh op result whose array views src's) as a View of src's base."""
    if type(out) is not Tensor:  # under vmap: its physical tensor a view of src's, where it
        value = getattr(out, "_value", None)  # shares src's memory (in-place writes through
        phys = getattr(src, "_value", None)  # it then rebase src's history, as torch's)
        if type(value) is Tensor and phys is not None and value is not phys:
            if value.xp.may_share_memory(value._data, phys._data):
                out._value = as_view(value, phys, meta)
        return out
    v = _new(View)
    v._data = out._data
    v._device = out._device
    v.grad = None
    _REQUIRES_GRAD.__set__(v, out._rg)
    _GRAD_FN.__set__(v, out.grad_fn)
    v._output_nr = out._output_nr
    v._vc = src._vc
    v._vattr = src._vc[0]
    if not state.enabled:
        meta = NO_GRAD
    if type(src) is View:
        v._vbase = src._vbase
        if meta == DEFAULT:  # torch's propagate_creation_meta
            meta = src._vmeta
    else:
        v._vbase = src
    v._vmeta = meta
    v._vbw = True  # torch's views are differentiable whatever their dtype (an int view's
    # base requires grad after a fill_ of a value that does)
    if out._fw is not None:  # forward AD: the view shares the op result's tangents
        v._fw = out._fw
    return v


def view_op(cls, x, **params):
    """Apply a view primitive and mark its result as a view of x."""
    return as_view(cls.apply(x, **params), x)


def view_outputs(outs, src):
    """The outputs of split/chunk/unbind: views that may not be modified in place."""
    return tuple(as_view(o, src, MULTI_OUTPUT) for o in outs)


def view_array(arr, src):
    """A View of src over `arr` with no history (getitem's no-grad path)."""
    return as_view(Tensor._make(arr, src._device), src)


def _short(fn):
    name = fn.name() if hasattr(fn, "name") else type(fn).__name__
    i = name.rfind("Backward")
    return name[:i] if i > 0 else name


def check_rebase(v, indirect):
    """torch's handle_view_on_rebase: views of multi-output or no-grad origin refuse."""
    meta = v._vmeta
    if meta == DEFAULT:
        return
    fn = _GRAD_FN.__get__(v)
    what = "its base or another view of its base has been" if indirect else "is being"
    if meta == NO_GRAD or fn is None:
        prefix = (
            f"Output {v._output_nr} of {_short(fn)} is a view of a view which was created in"
            if fn is not None
            else "A view was created in"
        )
        msg = f"{prefix} no_grad mode and {what} modified inplace with grad mode enabled."
    else:
        msg = f"Output {v._output_nr} of {_short(fn)} is a view and {what} modified inplace."
    raise RuntimeError(msg + (_MULTI_TAIL if meta == MULTI_OUTPUT else _NO_GRAD_TAIL))


def _node(cls, edges, metas, **attrs):
    """A graph node made directly (no forward ran): regenerated view nodes, CopySlices."""
    fn = _new(cls._node_cls)
    fn._released = False
    fn._seq = next(_seq)
    fn._edges = tuple(edges)
    fn._in_meta = list(metas)
    fn.needs_input_grad = tuple(e is not None for e in edges)
    fn._n_out = 1
    for k, val in attrs.items():
        setattr(fn, k, val)
    return fn


def regenerate(v):
    """The grad_fn of a view whose storage was written in place: AsStridedBackward0 from the
    base's current history (torch regenerates it the same way)."""
    check_rebase(v, indirect=True)
    base = v._vbase
    fn = None
    if base._rg:
        fn = _node(
            AsStrided,
            [base._edge()],
            [(base._data.shape, base._data.dtype)],
            xp=base.xp,
            in_geom=geometry(base._data),
            out_geom=geometry(v._data),
        )
    _GRAD_FN.__set__(v, fn)
    v._output_nr = 0
    v._vattr = v._vc[0]
    return fn


def rebase(v, fn):
    """After an in-place op (node fn) wrote through view v: the base's history becomes
    CopySlices(old base history, fn)."""
    base = v._vbase
    old = base._edge() if base._rg else None
    cs = _node(
        CopySlices,
        (old,) + tuple(fn._edges[1:]),
        [(base._data.shape, base._data.dtype)] + list(fn._in_meta[1:]),
        xp=base.xp,
        fn=fn,
        in_geom=geometry(base._data),
        out_geom=geometry(v._data),
    )
    if fn.no_edge:  # torch's CopySlices lists the edges of fn's node (no index, no mask)
        cs.no_edge = fn.no_edge
    base.grad_fn, base._output_nr = cs, 0
    base._rg = True


# ----- differentiable gathers/scatters over a geometry -----------------------------------------
class _StridedGather(Op):
    """x's elements at out_geom (a copy); x has in_geom's shape."""

    def forward(self, x, in_geom, out_geom):
        self.in_geom, self.out_geom = in_geom, out_geom
        idx, valid = _flat_index(in_geom, out_geom, self.xp)
        out = x.reshape(-1)[idx]
        return out if valid is None else self.xp.where(valid, out, 0)

    def backward(self, grad):
        return _StridedScatter.apply(grad, in_geom=self.in_geom, out_geom=self.out_geom)

    jvp = Op.jvp_linear


class _StridedScatter(Op):
    """zeros of in_geom's shape with y summed in at out_geom (as_strided's backward)."""

    def forward(self, y, in_geom, out_geom):
        self.in_geom, self.out_geom = in_geom, out_geom
        idx, valid = _flat_index(in_geom, out_geom, self.xp)
        numel = 1
        for n in in_geom[0]:
            numel *= n
        out = self.xp.zeros(numel, dtype=y.dtype)
        y = self.xp.broadcast_to(y, idx.shape)
        if valid is not None:
            idx, y = idx[valid], y[valid]
        scatter_add(self.xp, out, idx.reshape(-1), y.reshape(-1))
        return out.reshape(in_geom[0])

    def backward(self, grad):
        return _StridedGather.apply(grad, in_geom=self.in_geom, out_geom=self.out_geom)

    jvp = Op.jvp_linear


class _StridedCopy(Op):
    """x with the elements at out_geom replaced by y (zeros when y is None)."""

    def forward(self, x, y, in_geom, out_geom):
        self.in_geom, self.out_geom = in_geom, out_geom
        idx, valid = _flat_index(in_geom, out_geom, self.xp)
        out = x.copy().reshape(-1)
        val = 0 if y is None else self.xp.broadcast_to(y, idx.shape)
        if valid is not None:
            idx = idx[valid]
            val = val if y is None else val[valid]
        out[idx] = val
        return out.reshape(x.shape)

    def backward(self, grad):
        need_x, need_y = self.needs_input_grad
        geo = dict(in_geom=self.in_geom, out_geom=self.out_geom)
        return (
            _StridedCopy.apply(grad, None, **geo) if need_x else None,
            _StridedGather.apply(grad, **geo) if need_y else None,
        )

    jvp = Op.jvp_transpose


class _Strided(Op):
    """A view op of arbitrary geometry; backward scatters into the input's shape."""

    views = True

    def backward(self, grad):
        return _StridedScatter.apply(grad, in_geom=self.in_geom, out_geom=self.out_geom)

    jvp = Op.jvp_linear

    def _view(self, x, shape, st, offset):
        """x's storage seen with shape/strides/offset; records both geometries."""
        out = _as_strided_array(storage_of(x), shape, st, offset)
        self.in_geom, self.out_geom = geometry(x), (tuple(shape), tuple(st), offset)
        return out


class AsStrided(_Strided):
    def forward(self, x, size, stride, storage_offset):
        return self._view(x, size, stride, storage_offset)


class Diagonal(_Strided):
    def forward(self, x, offset, dim1, dim2):
        shape, st = list(x.shape), list(strides(x))
        n = max(
            min(shape[dim1], shape[dim2] - offset)
            if offset >= 0
            else min(shape[dim1] + offset, shape[dim2]),
            0,
        )
        start = storage_offset(x)
        if n:
            start += offset * st[dim2] if offset >= 0 else -offset * st[dim1]
        diag_stride = st[dim1] + st[dim2]
        keep = [d for d in range(x.ndim) if d not in (dim1, dim2)]
        return self._view(
            x, [shape[d] for d in keep] + [n], [st[d] for d in keep] + [diag_stride], start
        )


class Unfold(_Strided):
    def forward(self, x, dim, size, step):
        shape, st = list(x.shape), list(strides(x))
        if x.ndim == 0:
            return self._view(x, [size], [1], storage_offset(x))
        n = (shape[dim] - size) // step + 1
        new_shape = shape[:dim] + [n] + shape[dim + 1 :] + [size]
        new_st = st[:dim] + [st[dim] * step] + st[dim + 1 :] + [st[dim]]
        return self._view(x, new_shape, new_st, storage_offset(x))


class CopySlices(Op):
    """The base's node after an in-place op wrote through one of its views: the base's
    gradient with the view's region replaced by what the in-place op sends to its input."""

    node_name = "torch::autograd::CopySlices"

    def backward(self, grad):
        fn, geo = self.fn, dict(in_geom=self.in_geom, out_geom=self.out_geom)
        res = fn.backward(_StridedGather.apply(grad, **geo))
        if type(res) is not tuple:
            res = (res,)
        grad_base = None
        if self.needs_input_grad[0]:
            r0 = res[0] if fn.needs_input_grad[0] else None
            if r0 is not None:
                shape, dtype = fn._in_meta[0]
                if r0._data.shape != shape:
                    r0 = r0.sum_to_size(shape)
                if r0._data.dtype != dtype:
                    r0 = r0._cast(dtype)
            grad_base = _StridedCopy.apply(grad, r0, **geo)
        return (grad_base,) + tuple(res[1:])

    def check_saved(self):
        self.fn.check_saved()

    def release(self):
        self._released = True
        self.fn.release()


# ----- the public view ops -------------------------------------------------------------------
def as_strided(input, size, stride, storage_offset=None):
    """A view of input's storage with the given size, stride and storage offset.

    Args:
        input: the tensor whose storage is viewed.
        size: the shape of the result.
        stride: the stride of each dimension, in elements.
        storage_offset: the first element's position in the storage (default: input's).

    Example:
        >>> framework.arange(6.).as_strided((2, 2), (1, 2), 1)
        tensor([[1., 3.],
                [2., 4.]])
    """
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got "
            f"strides: {_fmt(stride)}"
        )
    offset = _storage_offset_of(input) if storage_offset is None else int(storage_offset)
    return view_op(AsStrided, input, size=size, stride=stride, storage_offset=offset)


def _storage_offset_of(t):
    return storage_offset(t._data)


def narrow(input, dim, start, length):
    """The slice input[..., start:start + length, ...] along dim, as a view.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to narrow along.
        start (int or Tensor): the index of the first element kept.
        length (int): the number of elements kept.

    Example:
        >>> framework.arange(5).narrow(0, 1, 2)
        tensor([1, 2])
    """
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, input.ndim)
    size = input.shape[d]
    start = int(start)
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start %= size if size else 1
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    from .indexing import Slice

    key = (slice(None),) * d + (slice(start, start + length, 1),)
    return view_op(Slice, input, key=key)


def select(input, dim, index):
    """input[..., index, ...] along dim (the dimension is removed), as a view.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to slice.
        index (int): the index to select.

    Example:
        >>> framework.arange(6).reshape(2, 3).select(1, 2)
        tensor([2, 5])
    """
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, input.ndim)
    size = input.shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{_fmt(input.shape)} at dimension {d}"
        )
    from .indexing import Select

    return view_op(Select, input, key=(slice(None),) * d + (index % size, Ellipsis))


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes as the last dimension, as a view.

    Args:
        input (Tensor): the input tensor.
        offset (int, optional): which diagonal: 0 the main one, positive above, negative below.
            Default: ``0``.
        dim1 (int, optional): the first dimension of the 2-D planes. Default: ``0``.
        dim2 (int, optional): the second dimension of the 2-D planes. Default: ``1``.

    Example:
        >>> framework.arange(9).reshape(3, 3).diagonal(1)
        tensor([1, 5])
    """
    d1, d2 = _dim(dim1, input.ndim), _dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return view_op(Diagonal, input, offset=int(offset), dim1=d1, dim2=d2)


def unfold(input, dimension, size, step):
    """All windows of `size` elements with stride `step` along `dimension`, as a new last
    dimension (a view; windows may overlap).

    Example:
        >>> framework.arange(5.).unfold(0, 2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    d = _dim(dimension, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return view_op(Unfold, input, dim=d, size=int(size), step=int(step))
