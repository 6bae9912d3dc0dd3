"""Indexing: getitem (basic, advanced, boolean) and setitem, with torch's semantics.

torch applies an index left to right: ints select, slices slice, None unsqueezes, and only
then do the tensor indices gather (so x[0, :, i] selects before indexing, unlike NumPy).
Each basic step is its own node (SelectBackward0, SliceBackward0, UnsqueezeBackward0), the
tensor part is IndexBackward0.
"""

import math

import numpy as _np

from .._errors import broadcast_shapes, check_scalar_fits
from .. import dtypes
from ..autograd.grad_mode import state
from ..autograd.op import Op, vmap_hook
from ..backend import CPU, scatter_add
from ..tensor import Tensor, View, _writable_view
from ._fastgrad import plain, wrap
from .shape import _expanded_shape, _fmt, alias, unsqueeze
from .views import empty_basic_view, strided_empty, view_array, view_op


__all__ = ["index_put"]

_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
    "valid indices (got {})"
)


class _Basic(Op):
    """x[key] for a basic NumPy key (a view); backward embeds the gradient in zeros."""

    views = True

    def forward(self, x, key):
        self.in_shape, self.key = x.shape, key
        out = _gather(x, key)
        if not out.size:  # (torch's geometry: see empty_basic_view)
            return empty_basic_view(x, key)
        return out

    def backward(self, grad):
        return _Embed.apply(grad, shape=self.in_shape, key=self.key, of=type(self))

    jvp = Op.jvp_linear


class Select(_Basic):
    pass


class Slice(_Basic):
    pass


class _Embed(Op):
    """zeros(shape) with grad written at key: the backward of Select/Slice (differentiable)."""

    def forward(self, grad, shape, key, of):
        self.key, self.of = key, of
        out = self.xp.zeros(shape, dtype=grad.dtype)
        out[key] = grad
        return out

    def backward(self, grad):
        return self.of.apply(grad, key=self.key)

    jvp = Op.jvp_linear

    def node_variant(self):
        return self.of._op.__name__ + "BackwardBackward0"


class Index(Op):
    """x[key] with integer arrays (bool masks already turned into their nonzero indices)."""

    saves = ("key",)  # its index arrays

    def forward(self, x, key):
        self.in_shape, self.key = x.shape, key
        return _gather(x, key)

    def backward(self, grad):
        g = grad._data
        if plain(grad) and g.dtype.itemsize >= 4:  # no graph: the same sum into zeros
            out = self.xp.zeros(self.in_shape, dtype=g.dtype)
            return wrap(scatter_add(self.xp, out, self.key, g), grad)
        return _IndexAccumulate.apply(grad, shape=self.in_shape, key=self.key)

    jvp = Op.jvp_linear


class _IndexAccumulate(Op):
    """zeros(shape) with grad summed in at key (duplicate indices accumulate)."""

    node_name = "IndexPutBackward0"
    saves = ("key",)

    def forward(self, grad, shape, key):
        self.key = key
        out = self.xp.zeros(shape, dtype=grad.dtype)
        scatter_add(self.xp, out, key, grad)
        return out

    def backward(self, grad):
        return Index.apply(grad, key=self.key)

    jvp = Op.jvp_linear


def _as_index_array(item, xp):
    """A Tensor / list / array used as an index, as an array of int64 or bool."""
    if isinstance(item, Tensor):
        arr = item._data
    else:
        arr = xp.asarray(item)
        if arr.dtype.kind == "f" and arr.size == 0:
            arr = arr.astype("int64")
    if arr.dtype.kind not in "iub":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr


def _items(index):
    """The index as a tuple, with torch's rule for lists that mean a tuple."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and any(
        isinstance(i, (list, tuple, Tensor, slice)) or i is None or i is Ellipsis for i in index
    ):
        return tuple(index)
    return (index,)


def _parse(x, index, getitem=True, deferred=None):
    """Turn a torch index into (steps, adv, key): the basic steps in order, the advanced
    part {dim: int array} on the result of those steps, and one NumPy basic key for the
    no-grad fast path. `deferred`: a list that collects the index tensors' bound errors
    (torch's kernel raises them after index_put's other checks)."""
    items = _items(index)
    single = getitem and not isinstance(index, tuple)  # x[:] alone is still a node
    shape, xp = tuple(x._data.shape), x.xp
    arrays = []
    specified = 0
    for it in items:
        if it is None or it is Ellipsis or isinstance(it, bool):
            arrays.append(None)
            continue
        if isinstance(it, (Tensor, list, range)) or hasattr(it, "__array__") and not _is_int(it):
            arr = _as_index_array(it, xp)
            if arr.ndim == 0 and arr.dtype.kind in "iu":
                arrays.append(int(arr))
                specified += 1
                continue
            if arr.ndim == 0:  # a 0-dim bool tensor acts as a Python bool
                arrays.append(bool(arr))
                continue
            arrays.append(arr)
            specified += arr.ndim if arr.dtype.kind == "b" else 1
            continue
        arrays.append(None)
        specified += 1
    if specified > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    steps, adv, key = [], {}, []
    dim = real = 0  # dim in the running result, real = dim of x (for messages)
    cur = list(shape)
    n_adv = 0
    kernel = []  # the kernel's bound errors
    for it, arr in zip(items, arrays):
        if isinstance(arr, (int, bool)):
            it = arr
            arr = None
        if it is Ellipsis:
            skip = len(shape) - specified
            key += [slice(None)] * skip
            dim, real = dim + skip, real + skip
        elif it is None:
            steps.append(("unsqueeze", dim))
            cur.insert(dim, 1)
            key.append(None)
            dim += 1
        elif isinstance(it, bool):
            steps.append(("unsqueeze", dim))
            cur.insert(dim, 1)
            key.append(None)
            adv[dim] = xp.zeros(1 if it else 0, dtype="int64")
            dim += 1
        elif arr is not None:
            if arr.dtype.kind == "b":
                _check_mask(arr, cur, dim)
                for k, a in enumerate(arr.nonzero()):
                    adv[dim + k] = a
                key += [slice(None)] * arr.ndim
                dim, real = dim + arr.ndim, real + arr.ndim
            else:
                _check_bounds(arr, cur[dim], n_adv, kernel, dim)
                adv[dim] = arr.astype("int64", copy=False)
                key.append(slice(None))
                dim, real = dim + 1, real + 1
            n_adv += 1
        elif _is_int(it):
            i = int(it)
            size = cur[dim]
            if not -size <= i < size:
                raise IndexError(
                    f"index {i} is out of bounds for dimension {real} with size {size}"
                )
            steps.append(("select", dim, i % size))
            cur.pop(dim)
            key.append(i)
            real += 1
        elif isinstance(it, slice):
            if it.step is not None and int(it.step) == 0:
                raise ValueError("slice step cannot be zero")
            if it.step is not None and int(it.step) < 0:
                raise ValueError("step must be greater than zero")
            start, stop, step = it.indices(cur[dim])
            stop = max(stop, start)
            # torch's applySlice skips a slice whose own start is 0 and stop at least the
            # size (step 1): x[-10:] or, on an empty dim, x[1:] are still SliceBackward0
            trivial = (
                (it.start is None or int(it.start) == 0)
                and (it.stop is None or int(it.stop) >= cur[dim])
                and step == 1
            )
            if single or not trivial:
                steps.append(("slice", dim, slice(start, stop, step)))
            cur[dim] = len(range(start, stop, step))
            key.append(slice(start, stop, step))
            dim, real = dim + 1, real + 1
        else:
            raise IndexError(_VALID.format(type(it).__name__))
    _kernel_bounds(kernel, cur, adv, deferred)
    return steps, adv, tuple(key)


def _is_int(it):
    return isinstance(it, int) or (
        hasattr(it, "dtype")
        and not isinstance(it, Tensor)
        and getattr(it, "ndim", 1) == 0
        and it.dtype.kind in "iu"
    )


def _check_mask(mask, cur, dim):
    for j, s in enumerate(mask.shape):
        if dim + j >= len(cur) or cur[dim + j] != s:
            raise IndexError(
                f"The shape of the mask {_fmt(mask.shape)} at index {j} does not "
                f"match the shape of the indexed tensor {_fmt(cur)} at index "
                f"{dim + j}"
            )


def _check_bounds(arr, size, k, kernel, dim):
    """torch's bound check of an index tensor on a dim of `size`: on an empty dim when it sets
    up the indexing, else in its kernel (the first bad element: (error, dim) is appended to
    `kernel`, see `_kernel_bounds`)."""
    if not arr.size:
        return
    if not size:
        raise IndexError("index is out of bounds for dimension with size 0")
    bad = (arr >= size) | (arr < -size)
    if bad.any():
        first = int(arr.reshape(-1)[bad.reshape(-1).argmax()])
        err = IndexError(f"index {first} is out of bounds for dimension {k} with size {size}")
        kernel.append((err, dim))


def _kernel_bounds(kernel, cur, adv, deferred=None):
    """Raise the kernel's first bound error (append it to `deferred`, when given, as index_put
    checks the value's shape and dtype first). An empty result reads no index: no error, and
    the bad index arrays of `adv` become zeros (NumPy would check them)."""
    if not kernel:
        return
    if not _result_numel(cur, adv):
        for _, d in kernel:
            adv[d] = adv[d] * 0
    elif deferred is None:
        raise kernel[0][0]
    else:
        deferred.append(kernel[0][0])


def _result_numel(cur, adv):
    """Elements of the indexing result: shape `cur` with its dims `adv` indexed by arrays."""
    try:
        n = math.prod(broadcast_shapes(*(a.shape for a in adv.values())))
    except RuntimeError:  # torch's setup refuses it later
        return 1
    return n * math.prod(c for d, c in enumerate(cur) if d not in adv)


def _adv_key(adv, ndim):
    return tuple(adv.get(d, _ALL) for d in range(max(adv) + 1)) if adv else ()


_ALL = slice(None)


def _gather(x, key):
    """x[key]. A key of full slices (`_ALL`, by identity: the keys made here) and then one
    integer array is NumPy's take along that axis (x[:, idx] on a 4 x 4 array: 0.23 us, the
    fancy index 0.7 us): the same elements, laid out C-contiguous as torch's result is (the
    fancy index orders a split subspace's strides first)."""
    n = len(key)
    if n == 1 or (key[0] is _ALL and (n == 2 or (n == 3 and key[1] is _ALL))):
        last = key[-1]
        if type(x) is _np.ndarray and type(last) is _np.ndarray and last.dtype.kind in "iu":
            return x.take(last, axis=n - 1)
    return x[key]


def _one_index_tensor(x, index):
    """The NumPy key of x[idx], x[:, idx], ... (full slices, then one 1-D or more integer index
    tensor: embedding-style gathers), checked as `_parse` checks it; None for other indexes."""
    items = index if type(index) is tuple else (index,)
    last = items[-1] if items else None
    if type(last) is not Tensor or len(items) > x._data.ndim:
        return None
    arr = last._data
    if arr.dtype.kind not in "iu" or not arr.ndim:
        return None
    for it in items[:-1]:
        if type(it) is not slice or it != _ALL:
            return None
    d = len(items) - 1
    size, idx = x._data.shape[d], arr.astype("int64", copy=False)
    # on the CPU, NumPy's own bound check stands in for torch's (see getitem) where the result
    # has elements; an empty x (an empty result reads no index) and CuPy (it wraps) check here
    if not x._data.size or (x._device is not CPU and x._device.type != "cpu"):
        kernel, adv = [], {d: idx}
        _check_bounds(arr, size, 0, kernel, d)
        _kernel_bounds(kernel, x._data.shape, adv)
        idx = adv[d]
    return (_ALL,) * d + (idx,)  # (the full slices as `_ALL`: _gather takes along d)


def getitem(x, index):
    """Indexes ``x`` with ``index`` (the implementation of ``Tensor.__getitem__``): basic indexing
    (ints, slices, ``None``, ``...``) gives a view, advanced indexing (tensors, lists, bools) a
    copy, as torch.

    Args:
        x (Tensor): the tensor to index.
        index: an int, slice, ``None``, ``Ellipsis``, sequence, tensor, or a tuple of those.

    Returns:
        Tensor: the selected elements.

    Example:
        >>> getitem(framework.arange(6).reshape(2, 3), (0, slice(1, None)))
        tensor([1, 2])
    """
    key = _one_index_tensor(x, index)
    if key is not None:
        try:
            if not (state.enabled and x._rg) and x._fw is None:  # no history, no tangent
                return Tensor._make(_gather(x._data, key), x._device)
            return Index.apply(x, key=key)
        except IndexError:  # NumPy found an index out of bounds: torch's error for it
            kernel = []
            _check_bounds(key[-1], x._data.shape[len(key) - 1], 0, kernel, len(key) - 1)
            if kernel:
                raise kernel[0][0] from None
            raise
    steps, adv, key = _parse(x, index)
    if not x._data.size:  # (its views' strides from torch's strides of x)
        strided_empty(x)
    if not (state.enabled and x._rg) and x._fw is None:  # no history, no tangent
        out = x._data[key]
        if not out.size and not adv:  # torch's geometry (see empty_basic_view)
            return view_array(empty_basic_view(x._data, key), x)
        if adv:
            return Tensor._make(out[_adv_key(adv, out.ndim)], x._device)
        if not hasattr(out, "shape") or out.ndim == 0:
            out = x._data[key + (Ellipsis,)]  # a 0-dim view, never a NumPy scalar
        elif None in key:  # NumPy gives new axes stride 0, torch's unsqueeze a real one
            out = x._data
            for step in steps:
                out = (
                    x.xp.expand_dims(out, step[1])
                    if step[0] == "unsqueeze"
                    else out[(slice(None),) * step[1] + (step[2], Ellipsis)]
                )
        return view_array(out, x)
    out = _basic(x, steps)
    if adv:
        return Index.apply(out, key=_adv_key(adv, out.ndim))
    return alias(out) if out is x else out


def _basic(x, steps):
    """The basic steps of an index (select, slice, unsqueeze), each a view node."""
    out = x
    for step in steps:
        if step[0] == "unsqueeze":
            out = unsqueeze(out, step[1])
        elif step[0] == "select":
            out = view_op(Select, out, key=(slice(None),) * step[1] + (step[2], Ellipsis))
        else:
            out = view_op(Slice, out, key=(slice(None),) * step[1] + (step[2],))
    return out


class IndexPut(Op):
    """x with x[key][adv] = value, as a new value (setitem writes it back in place)."""

    saves = ("key", "adv")

    def forward(self, x, value, key, adv, kind):
        self.key, self.adv, self.kind = key, adv, kind
        out = x.copy()
        _write(out, key, adv, value)
        return out

    def backward(self, grad):
        need_x, need_v = self.needs_input_grad
        grad_x = grad_v = None
        if need_x:
            zero = Tensor._make(grad.xp.zeros((), dtype=grad._data.dtype), grad._device)
            grad_x = IndexPut.apply(grad, zero, key=self.key, adv=self.adv, kind=self.kind)
        if need_v:
            grad_v = _Basic.apply(grad, key=self.key + (Ellipsis,))
            if self.adv:
                grad_v = Index.apply(grad_v, key=self.adv)
        return grad_x, grad_v

    jvp = Op.jvp_linear

    def node_variant(self):
        return self.kind


def _write(data, key, adv, value):
    """data[key][adv] = value in place, with torch's broadcast errors."""
    target = data[key + (Ellipsis,)]
    if adv:
        try:
            target[adv] = value
        except ValueError:
            if not getattr(target.flags, "writeable", True):
                raise  # read-only: the caller's ZeroTensor error
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {_fmt(value.shape)} cannot "
                f"be broadcast to indexing result of shape "
                f"{_fmt(target[adv].shape)}"
            ) from None
    else:
        try:
            target[...] = value
        except ValueError:
            _expanded_shape(Tensor._make(value), target.shape)  # raises torch's message
            raise


def _refuse_leaf(x, index, value):
    """torch's error for writing into a leaf that requires grad (or, by index_put_, into a
    view of one): a basic index step (int, slice, None) makes a view first ("a view of a
    leaf"), whose own checks come later; a tensor value is expanded to it before the copy."""
    from ..tensor import LEAF_INPLACE, VIEW_LEAF

    items = index if isinstance(index, tuple) else (index,)
    basic = any(isinstance(i, (int, slice)) or i is None for i in items)
    if type(x) is Tensor and x.grad_fn is None:
        if basic and not any(isinstance(i, (Tensor, list)) for i in items):
            _, _, key = _parse(x, index, getitem=False)  # torch makes the view first
            _check_copy_to(value, x._data[key + (Ellipsis,)].shape)
        raise RuntimeError(VIEW_LEAF if basic else LEAF_INPLACE)
    if not basic and type(x) is not Tensor and x._vbw and x._vbase.grad_fn is None:
        raise RuntimeError(VIEW_LEAF)  # index_put_ on the view itself


def _check_copy_to(value, target):
    """torch's copy_to of a tensor value into a basic-indexed view: leading 1s dropped, then
    expanded to the target (its error names the value's own dtype, before any cast)."""
    if isinstance(value, Tensor) and value.ndim and value._data.shape != target:
        shape = tuple(value.shape)
        lead = next((i for i, n in enumerate(shape) if n != 1), len(shape))
        _expanded_shape(value[(0,) * lead], target)


def setitem(x, index, value, strip_ones=True):
    """x[index] = value, in place. As torch, the basic part of the index is a view that the
    value is copied (or filled, or index_put) into, so writing through it makes the base's
    node CopySlices; without basic steps the node is IndexPutBackward0 or a fill/copy.
    `strip_ones=False`: torch's index_put_ (at::index_put_, not set_item), which puts the
    value as it is (no view without its leading 1s, none dropped for the shape check)."""
    if (
        vmap_hook[0]
        and type(x) is not Tensor
        and type(x).__name__ == "Tensor"
        and hasattr(x, "_levels")
    ):  # under vmap: write into the physical tensor
        from ..func._paths import setitem as batched_setitem

        return batched_setitem(x, index, value)
    scalar = not isinstance(value, Tensor)
    if scalar:  # torch converts the value first (valueToTensor), then reads the index
        value = check_scalar_fits(value, x._data.dtype, reduced_float=False)
    if type(index) is bool:  # torch's setitem: a lone False writes nothing and checks
        if not index:  # nothing more; a lone True is a lone None (copy_to into
            return x  # x.unsqueeze(0))
        index = None
    if state.enabled and x.requires_grad:  # torch refuses a leaf before looking at the index
        _refuse_leaf(x, index, value)
    deferred = []  # index_put's kernel checks the bounds after the value's shape and dtype
    steps, adv, key = _parse(x, index, getitem=False, deferred=deferred)
    if adv and not scalar and not strip_ones:
        if value.numel() != 1 or not _one_mask(index, x.xp):  # (index_put_'s masked_fill_
            _check_put_shape(x, key, adv, value, strip_ones=False)  # takes any shape)
    elif adv and not scalar and value.ndim:  # torch views the value without its leading 1s
        shape = tuple(value.shape)
        lead = next((i for i, n in enumerate(shape) if n != 1), len(shape))
        if lead:
            value = value.view(shape[lead:])
    if not adv and not scalar:
        _check_copy_to(value, x._data[key + (Ellipsis,)].shape)
    if scalar:
        value = Tensor._make(x.xp.asarray(value, dtype=x._data.dtype), x._device)
    elif value._data.dtype != x._data.dtype and adv:
        # a mask with one value is a masked_fill (which casts); anything else is index_put
        if value.numel() != 1 or not _one_mask(index, x.xp):
            _check_put_shape(x, key, adv, value)
            raise _dtype_mismatch(x, value)  # index_put does not cast (slice or mask copy do,
            # inside the node: the value keeps its own edge, as torch's)
        check_scalar_fits(value.item(), x._data.dtype)  # masked_fill_(mask, value.item())
    if deferred:
        _check_put_shape(x, key, adv, value)
        raise deferred[0]
    if adv and not value._data.size:  # NumPy writes an empty value into anything empty
        _check_put_shape(x, key, adv, value)
    # torch's copy_to: a value of the destination's own shape is copied; otherwise a 0-dim
    # value on the CPU is a fill_ (recorded whatever x's dtype: an int or bool x then
    # requires grad, its base's node CopySlices) and anything else an expanded copy_ (not
    # recorded into a dtype autograd does not differentiate)
    fill = (
        not adv
        and value._data.ndim == 0
        and value._device.type == "cpu"
        and x._data[key + (Ellipsis,)].ndim != 0
    )
    if value._device != x._device:
        value = value.to(x._device)
    if x._fw is not None or value._fw is not None:  # forward AD: x's tangent is written too
        from ..autograd import forward_ad

        forward_ad.setitem(x, index, value)
    adv_key = _adv_key(adv, 0)
    differentiable = adv or fill or x._data.dtype.kind in "fcV"  # (V: ml_dtypes bfloat16)
    if not (state.enabled and (x._rg or value._rg) and differentiable):
        try:
            if type(x) is View or steps:
                target = view_array(x._data[key + (Ellipsis,)], x)
                _writable_view(target)
                _write(target._data, (), adv_key, value._data)
            else:
                _write(x._data, key, adv_key, value._data)
        except ValueError as e:  # read-only: torch's ZeroTensor refuses the write
            from ..autograd.zero_grad import setitem_refused

            raise setitem_refused(x, e, index, adv, scalar) from None
        x._vc[0] += 1
        return x
    if steps:
        x, key = _basic(x, steps), ()
    if adv:
        kind = "IndexPutBackward0"
    else:
        target = x._data[key + (Ellipsis,)].shape
        if not scalar and value.ndim and tuple(value.shape) != target:  # torch's copy_to: a
            shape = tuple(value.shape)  # view without the leading 1s, expanded to the target
            # (a 0-dim value is a fill_)
            lead = next((i for i, n in enumerate(shape) if n != 1), len(shape))
            value = value.view(shape[lead:])
            if tuple(value.shape) != target:
                value = value.expand(target)
        kind = "FillBackward3" if fill else "torch::autograd::CopyBackwards"
    x._inplace(_index_put, value, key=key, adv=adv_key, kind=kind)
    return x


def check_index_tuple(indices, name, method):
    """torch's argument parser for index_put(_)'s ``indices``: a tuple or list of tensors
    (TypeError naming the first other element; its position counts self for the function
    form only)."""
    arg = 0 if method else 1
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'indices' (position {arg + 1}) must be tuple of Tensors, "
            f"not {type(indices).__name__}"
        )
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument {arg}, but got {type(t).__name__}"
            )


def _one_mask(index, xp):
    """Whether torch's index_put_ runs as masked_fill_ (canDispatchToMaskedFill): its only
    index tensor is a boolean mask with dims. A Python or 0-dim bool is an index tensor of
    int64 there (boolToIndexingTensor), as are integer arrays and lists; a 0-dim integer
    tensor is a select."""
    masks = others = 0
    for it in _items(index):
        if isinstance(it, bool):
            others += 1
        elif isinstance(it, (Tensor, list, range)) or hasattr(it, "__array__") and not _is_int(it):
            arr = _as_index_array(it, xp)
            if arr.dtype.kind == "b" and arr.ndim:
                masks += 1
            elif arr.ndim or arr.dtype.kind == "b":
                others += 1
    return masks == 1 and not others


def _check_put_shape(x, key, adv, value, strip_ones=True):
    """torch's index_put check that the value (leading 1s dropped, as set_item's view, unless
    not `strip_ones`) broadcasts to the indexing result (computed with in-range stand-ins for
    the indices)."""
    target = x._data[key + (Ellipsis,)]
    if adv:
        target = target[_adv_key({d: x.xp.zeros(a.shape, "int64") for d, a in adv.items()}, 0)]
    shape, vs = target.shape, tuple(value.shape)
    if strip_ones:
        vs = vs[next((i for i, n in enumerate(vs) if n != 1), len(vs)) :]
    if len(vs) > len(shape) or any(v not in (1, n) for v, n in zip(vs[::-1], shape[::-1])):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {_fmt(value.shape)} cannot "
            f"be broadcast to indexing result of shape {_fmt(shape)}"
        )


def _dtype_mismatch(x, value):
    return RuntimeError(
        "Index put requires the source and destination dtypes match, got "
        f"{dtypes.scalar_type_name(x._data.dtype)} for the destination and "
        f"{dtypes.scalar_type_name(value._data.dtype)} for the source."
    )


def _index_put(x, value, key, adv, kind):
    return IndexPut.apply(x, value, key=key, adv=adv, kind=kind)


def index_put(x, indices, values, accumulate=False):
    """Returns a copy of ``x`` with ``values`` written at ``indices`` (``x[indices] = values``),
    or summed in there with ``accumulate=True`` (repeated indices then add up).

    Args:
        x (Tensor): the input.
        indices (tuple of Tensor): one index tensor (integer or bool) per indexed dim.
        values (Tensor): of x's dtype, broadcastable to the indexed shape.
        accumulate (bool): add instead of replacing. Default: False.

    Example::

        >>> x = framework.zeros(3)
        >>> framework.index_put(x, (framework.tensor([0, 0, 2]),), framework.ones(3), True)
        tensor([2., 0., 1.])
    """
    check_index_tuple(indices, "index_put", method=False)
    if vmap_hook[0]:  # under vmap the index values differ per sample
        from ..func._paths import loop_if_batched

        out = loop_if_batched(lambda a, v, *i: index_put(a, i, v, accumulate), x, values, *indices)
        if out is not NotImplemented:
            return out
    indices = tuple(indices)
    if (
        not accumulate
        and len(indices) == 1
        and indices[0].dtype.name == "bool"
        and not indices[0].ndim
        and x.ndim
        and values.numel() == 1
    ):  # torch's masked_fill_ dispatch takes a 0-dim mask too: broadcast over all of x
        indices, values = (indices[0].expand(tuple(x.shape)),), values.reshape(())
    deferred = []
    _, adv, _ = _parse(x, indices, deferred=deferred)
    key = _adv_key(adv, 0)
    fill = not accumulate and values.numel() == 1 and _one_mask(indices, x.xp)
    shape = x._data[(Ellipsis,)][
        _adv_key({d: x.xp.zeros(a.shape, "int64") for d, a in adv.items()}, 0)
    ].shape
    if values.ndim > len(shape):  # no leading unit dims dropped here (x[i] = v drops them)
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {_fmt(values.shape)} cannot "
            f"be broadcast to indexing result of shape {_fmt(shape)}"
        )
    if values._data.dtype != x._data.dtype:
        if not fill:
            _check_put_shape(x, (), adv, values)
            raise _dtype_mismatch(x, values)
        check_scalar_fits(values.item(), x._data.dtype)  # masked_fill_(mask, values.item())
        values = values.to(x.dtype)
    if deferred:
        _check_put_shape(x, (), adv, values)
        raise deferred[0]
    if not accumulate:
        return IndexPut.apply(x, values, key=(), adv=key, kind="IndexPutBackward0")
    if tuple(values.shape) != shape:
        _check_put_shape(x, (), adv, values)
    return IndexPutAccumulate.apply(x, values, key=key)


class IndexPutAccumulate(Op):
    """x with values summed in at key, duplicate indices accumulating (torch's
    index_put(accumulate=True), one IndexPutBackward0 node)."""

    node_name = "IndexPutBackward0"
    saves = ("key",)

    def forward(self, x, values, key):
        """A copy of ``x`` with ``values`` (broadcast to the indexed shape) added at ``key``."""
        self.key, self.v_shape = key, values.shape
        out = x.copy()
        target = out[key].shape
        try:
            values = self.xp.broadcast_to(values, target)
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {_fmt(values.shape)} cannot "
                f"be broadcast to indexing result of shape {_fmt(target)}"
            ) from None
        scatter_add(self.xp, out, key, values)
        return out

    def backward(self, grad):
        """``grad`` for ``x``; ``grad[key]`` summed to the shape of ``values`` for ``values``."""
        need_x, need_v = self.needs_input_grad
        grad_v = None
        if need_v:
            grad_v = Index.apply(grad, key=self.key)
            if tuple(grad_v.shape) != self.v_shape:  # values were broadcast
                grad_v = grad_v.sum_to_size(self.v_shape)
        return (grad if need_x else None), grad_v

    jvp = Op.jvp_linear
