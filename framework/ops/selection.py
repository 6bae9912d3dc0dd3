"""Mask- and index-driven selection: masked_select/masked_scatter, take, take_along_dim,
index_add/index_copy/index_fill, scatter_reduce."""

import math

from .._errors import broadcast_shapes, check_scalar_fits, not_implemented, zero_division
from ..dtypes import scalar_type_name
from ..autograd.engine import is_zero_tensor
from ..autograd.function import _DelayedError
from ..autograd.op import Op, _edges_to_given, vmap_hook
from ..backend import scatter_add as _scatter_into
from ..tensor import Tensor
from .gather import _check, _grid, gather
from .shape import _dim


def _const(array, like):
    return Tensor._make(array, like.device)


def _check_mask(mask, name):
    if mask.dtype.name != "bool":
        raise RuntimeError(f"{name}: expected BoolTensor for mask")


class MaskedSelect(Op):
    """The elements where mask is True (input and mask broadcast), as a 1-D tensor."""

    no_edge = (1,)  # mask

    def forward(self, x, mask):
        xp = self.xp
        shape = xp.broadcast_shapes(x.shape, mask.shape)
        self.mask = xp.broadcast_to(mask, shape)
        return xp.broadcast_to(x, shape)[self.mask]

    saves = ("mask",)

    def backward(self, grad):
        from ..creation import zeros

        mask = _const(self.mask, grad)
        z = zeros(tuple(mask.shape), dtype=grad.dtype, device=grad.device)
        return z.masked_scatter(mask, grad), None

    jvp = Op.jvp_linear


def masked_select(input, mask):
    """1-D tensor of the elements of input where mask (broadcast) is True.

    Args:
        input (Tensor): the input tensor.
        mask (BoolTensor): which elements to take, broadcastable to ``input``.

    Example:
        >>> x = framework.tensor([1., -2., 3.])
        >>> framework.masked_select(x, x > 0)
        tensor([1., 3.])
    """
    _check_mask(mask, "masked_select")
    broadcast_shapes(tuple(mask.shape), tuple(input.shape))  # torch's order: mask first
    return MaskedSelect.apply(input, mask)


class MaskedScatter(Op):
    """Copy source's leading elements, in order, into input where mask is True."""

    no_edge = (1,)  # mask
    saves_inputs = True

    def forward(self, x, mask, source):
        xp = self.xp
        self.src_shape = source.shape
        m = xp.broadcast_to(mask, x.shape)
        k = int(m.sum())
        if k > source.size:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        out = x.copy()
        out[m] = source.reshape(-1)[:k]
        return out

    def backward(self, grad):
        _, mask, source = self.inputs
        need_x, _, need_src = self.needs_input_grad
        gx = grad.masked_fill(mask, 0.0) if need_x else None
        gs = None
        if need_src:
            from .. import ops

            # the positions come from the mask alone, so a batch of gradients (vmap over
            # backward) is one gather
            where = grad.xp.flatnonzero(grad.xp.broadcast_to(mask._data, tuple(grad.shape)))
            picked = grad.reshape(-1)[_const(where, grad)]
            rest = source.numel() - picked.numel()
            gs = ops.cat([picked, picked.new_zeros(rest)]).reshape(source.shape)
        return gx, None, gs

    jvp = Op.jvp_linear


def masked_scatter(input, mask, source):
    """Out-of-place ``masked_scatter_``: input with its mask positions filled from source.

    Args:
        input (Tensor): the input tensor.
        mask (BoolTensor): where to write, broadcastable to ``input``.
        source (Tensor): the values to write, taken in order, with at least as many elements as
            ``mask`` has True entries.

    Example:
        >>> x = framework.zeros(3)
        >>> x.masked_scatter(framework.tensor([True, False, True]), framework.tensor([1., 2.]))
        tensor([1., 0., 2.])
    """
    # torch expands both first (expand_outplace: its broadcast error), then checks dtypes
    shape = broadcast_shapes(tuple(mask.shape), tuple(input.shape))
    if mask.dtype.name != "bool":
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{scalar_type_name(mask._data.dtype)}"
        )
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"masked_scatter_: expected self and source to have same dtypes but "
            f"got{input.dtype} and {source.dtype}".replace("got", "got ")
        )
    if tuple(mask.shape) != tuple(input.shape):
        given, input, mask = input, input.expand(*shape), mask.expand(*shape)
        out = MaskedScatter.apply(input, mask, source)
        if out.grad_fn is not None:  # torch broadcasts inside: its edge leads to the input given
            _edges_to_given(out.grad_fn, out, (given, mask, source), (input, mask, source))
        return out
    return MaskedScatter.apply(input, mask, source)


def take(input, index):
    """Elements of the flattened input at `index` (any shape; negative indices count back).

    Args:
        input (Tensor): the input tensor.
        index (LongTensor): indices into the flattened ``input``.

    Example:
        >>> framework.tensor([[1, 2], [3, 4]]).take(framework.tensor([0, 3]))
        tensor([1, 4])
    """
    if index.dtype.name != "int64":
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {index.dtype.name.capitalize()}"
        )
    if vmap_hook[0]:  # under vmap the index values differ per sample
        from ..func._paths import loop_if_batched

        out = loop_if_batched(take, input, index)
        if out is not NotImplemented:
            return out
    n = input.numel()
    idx = index._data
    if idx.size and not n:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = (idx >= n) | (idx < -n)
    if idx.size and bad.any():  # the first bad one
        bad = int(idx.reshape(-1)[bad.reshape(-1).argmax()])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return Take.apply(input, _const(idx % max(n, 1), index))


class Take(Op):
    no_edge = (1,)  # index
    saves_inputs = True

    def forward(self, x, index):
        self.in_shape = x.shape
        return x.reshape(-1)[index]

    def backward(self, grad):
        from ..creation import zeros

        _, index = self.inputs
        flat = zeros(int(math.prod(self.in_shape)), dtype=grad.dtype, device=grad.device)
        return flat.index_add(0, index.reshape(-1), grad.reshape(-1)).reshape(self.in_shape), None

    jvp = Op.jvp_linear


def take_along_dim(input, indices, dim=None):
    """Pick values along `dim` at `indices` (broadcast against input), as numpy's
    take_along_axis; with dim=None, from the flattened input.

    Args:
        input (Tensor): the input tensor.
        indices (LongTensor): the indices to take, broadcast against ``input``.
        dim (int, optional): the dimension to take along; the flattened input when ``None``.
            Default: ``None``.

    Example:
        >>> x = framework.tensor([[10., 30.], [20., 5.]])
        >>> framework.take_along_dim(x, x.argmax(1, keepdim=True), 1)
        tensor([[30.],
                [20.]])
    """
    if indices.dtype.name != "int64":
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be int64 but got "
            f"{indices.dtype.name.capitalize()} instead"
        )
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = _dim(dim, input.dim())
    if input.dim() != indices.dim():
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same "
            f"number of dimensions, but got {input.dim()} dimensions for input, "
            f"and {indices.dim()} dimensions for indices"
        )
    # broadcast every dim but `dim` (there each keeps its own size)
    shape = list(
        broadcast_shapes(
            *[tuple(1 if i == d else n for i, n in enumerate(t.shape)) for t in (input, indices)]
        )
    )
    shape_i, shape_x = list(shape), list(shape)
    shape_i[d], shape_x[d] = indices.shape[d], input.shape[d]
    n = input.shape[d]
    if indices.numel():  # torch takes the indices modulo the size (no range error)
        if not n:
            raise zero_division()
        indices = Tensor._make(indices._data % n, indices.device)
    return gather(input.expand(*shape_x), d, indices.expand(*shape_i))


def _check_index(name, x, dim, index, src=None):
    d = _dim(dim, max(x.dim(), 1))
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if name == "index_add" and src is not None and d and d >= src.dim():
        raise RuntimeError(
            f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim "
            f"{src.dim()}"
        )
    if src is not None and src.dim() and index.numel() != src.shape[min(d, src.dim() - 1)]:
        n = src.shape[min(d, src.dim() - 1)]
        raise RuntimeError(
            f"{name}_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({n}), for dim: {d}"
        )
    return d


def _key(dim, index):
    return (slice(None),) * dim + (index,)


class IndexAdd(Op):
    no_edge = (1,)  # index
    saves_inputs = True

    def forward(self, x, index, src, dim=0, alpha=1):
        self.dim, self.alpha = dim, alpha
        out = x.copy()
        if out.size:  # torch adds nothing into an empty self (whatever the indices)
            _scatter_into(
                self.xp,
                out.reshape(out.shape or (1,)),
                _key(dim, index),
                (src if alpha == 1 else src * alpha).reshape(src.shape or (1,)),
            )
        return out

    def backward(self, grad):
        _, index, src = self.inputs
        need_x, _, need_src = self.needs_input_grad
        gs = None
        if need_src:
            gs = grad.index_select(self.dim, index)
            gs = gs * self.alpha if self.alpha != 1 else gs
            gs = gs.reshape(src.shape) if src.dim() == 0 else gs
        return grad if need_x else None, None, gs

    jvp = Op.jvp_linear


def _put(op, x, index, value, dim):
    """x with its slices at index along dim set to value (a copy)."""
    op.dim = dim
    out = x.copy()
    if out.size:  # (nothing to write, and torch checks no index, when self is empty)
        out.reshape(out.shape or (1,))[_key(dim, index)] = value  # a 0-dim self: one element
    return out


class IndexCopy(Op):
    no_edge = (1,)  # index
    saves_inputs = True

    def forward(self, x, index, src, dim=0):
        return _put(self, x, index, src, dim)

    def backward(self, grad):
        _, index, src = self.inputs
        need_x, _, need_src = self.needs_input_grad
        gx = grad.index_fill(self.dim, index, 0.0) if need_x else None
        gs = grad.index_select(self.dim, index) if need_src else None
        return gx, None, gs

    jvp = Op.jvp_linear


class IndexFill(Op):
    no_edge = (1,)  # index
    saves_inputs = True

    def forward(self, x, index, value=None, dim=0):
        return _put(self, x, index, value, dim)

    def backward(self, grad):
        _, index = self.inputs
        return grad.index_fill(self.dim, index, 0.0), None

    jvp = Op.jvp_transpose


class IndexFillTensor(IndexCopy):
    """index_fill with a 0-dim tensor value (which gets the sum of the filled gradients)."""

    node_name = "IndexFillBackward1"

    def backward(self, grad):
        _, index, _ = self.inputs
        need_x, _, need_v = self.needs_input_grad
        gx = grad.index_fill(self.dim, index, 0.0) if need_x else None
        gv = grad.index_select(self.dim, index).sum() if need_v else None
        return gx, None, gv

    jvp = Op.jvp_transpose


def _same_slices(x, d, source):
    """index_add's check that source matches self outside `dim` (no dim removed when either
    is 0-dim)."""
    s_sizes, x_sizes = list(source.shape), list(x.shape)
    if source.dim() and x.dim():
        del s_sizes[d], x_sizes[d]
    if s_sizes != x_sizes:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(x.shape)} source.shape = {list(source.shape)}"
        )


def _index_add_scatters(x, d, alpha):
    """Whether torch's CPU index_add runs as scatter_add (whose bound check is a RuntimeError
    naming the index): alpha exactly 1 (not True), more than one dim, and dim first or last;
    otherwise its loop raises IndexError "index out of range in self"."""
    one = not isinstance(alpha, bool) and alpha == 1
    return one and x.dim() > 1 and d in (0, x.dim() - 1)


def _check_range(name, x, d, index, source=None, alpha=1, value=None):
    """torch's checks of index_add/index_copy/index_fill indices (each its own wording); a
    Python number `value` (index_fill) is converted after the restriding, before the bounds
    (returns the number to store)."""
    n = x.shape[d] if x.dim() else 1
    if name == "index_add" and source.dim() == 0 and index.numel() != 1:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if name == "index_add":
        _same_slices(x, d, source)
    idx = index._data.reshape(-1)
    # torch restrides an empty self to the index's size (stride 0): an error unless that view
    # is empty too
    sizes = [idx.size if i == d else s for i, s in enumerate(x.shape)]
    if name != "index_add" and x.dim() and not n and all(sizes) and idx.size:
        strides = [
            0 if i == d else math.prod(max(s, 1) for s in x.shape[i + 1 :]) for i in range(x.dim())
        ]
        item = x._data.dtype.itemsize
        need = item * (1 + sum((s - 1) * st for s, st in zip(sizes, strides)))
        raise RuntimeError(
            f"setStorage: sizes {sizes}, strides {strides}, storage offset 0, "
            f"and itemsize {item} requiring a storage size of {need} are out of "
            "bounds for storage of size 0"
        )
    if value is not None and not isinstance(value, Tensor):
        value = check_scalar_fits(value, x._data.dtype)
    elif value is not None and not value.dim() and value._data.dtype != x._data.dtype:
        check_scalar_fits(value.item(), x._data.dtype)
    bad = (idx < 0) | (idx >= n) if name != "index_fill" else (idx < -n) | (idx >= n)
    # nothing written: no check (but torch checks a 1-D empty index_add)
    skip = x.numel() == 0 and (name != "index_add" or x.dim() > 1)
    if not idx.size or skip or not bool(bad.any()):
        return value
    first = int(idx[int(index.xp.argmax(bad))])
    if name == "index_copy":
        raise IndexError(
            f"index_copy_(): index {first} is out of bounds for dimension {d} with size {n}"
        )
    if name == "index_add" and not _index_add_scatters(x, d, alpha):
        raise IndexError("index out of range in self")
    err = RuntimeError if name == "index_add" else IndexError
    raise err(f"index {first} is out of bounds for dimension {d} with size {n}")


def _vec(x, index):
    return index.reshape(-1) if index.dim() == 0 else index


def index_add(input, dim, index, source, *, alpha=1):
    """input with source's slices added at `index` along dim (repeats accumulate).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension along which to index.
        index (LongTensor): the 1-D indices of the slices of ``input`` to add to.
        source (Tensor): the slices to add, ``source.size(dim) == len(index)``.
        alpha (Number, optional): the multiplier for ``source``. Default: ``1``.

    Example:
        >>> framework.zeros(3).index_add(0, framework.tensor([0, 0, 2]),
        ...                              framework.tensor([1., 2., 3.]))
        tensor([3., 0., 3.])
    """
    d = _check_index("index_add", input, dim, index, source)
    if source.dtype != input.dtype:
        raise RuntimeError(
            "index_add_(): self ("
            + _tn(input)
            + ") and source ("
            + _tn(source)
            + ") must have the same scalar type"
        )
    _check_range("index_add", input, d, index, source, alpha)
    return IndexAdd.apply(input, _vec(input, index), source, dim=d, alpha=alpha)


def _tn(t):
    return scalar_type_name(t._data.dtype)


def _index_copy_checks(x, dim, index, src):
    """torch's checks of index_copy (its meta function), in its order and words; the dim."""
    d = _dim(dim, max(x.dim(), 1))
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    n = index.numel()
    if src.dim() == 0 and n != 1:
        raise IndexError(
            f"index_copy_(): When source is scalar, index should have one element (got {n})"
        )
    if src.dim() and x.dim() and src.dim() != x.dim():
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their "
            f"dimensionality must match. Source dimensionality ({src.dim()}), "
            f"destination dimensionality ({x.dim()})"
        )
    if index.dtype.name != "int64":
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_tn(index)}")
    if src.dtype != x.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, "
            f"but got (self) {_tn(x)} and (source) {_tn(src)}"
        )
    x_sl = [s for i, s in enumerate(x.shape) if i != d]
    s_sl = [s for i, s in enumerate(src.shape) if i != d or not src.dim()]
    if x_sl != s_sl:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. "
            f"Destination slice shape: {' '.join(map(str, x_sl))} at dimension {d} and "
            f"source slice shape: {' '.join(map(str, s_sl))} at dimension 0."
        )
    if src.dim() and n != src.shape[d]:
        raise IndexError(
            f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
            f"({src.shape[d]})"
        )
    return d


def index_copy(input, dim, index, source):
    """input with its slices at `index` along dim replaced by source's.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension along which to index.
        index (LongTensor): the 1-D indices of the slices of ``input`` to replace.
        source (Tensor): the slices to copy in, ``source.size(dim) == len(index)``.

    Example:
        >>> index = framework.tensor([2, 0])
        >>> framework.index_copy(framework.zeros(3, 2), 0, index, framework.ones(2, 2))
        tensor([[1., 1.],
                [0., 0.],
                [1., 1.]])
    """
    d = _index_copy_checks(input, dim, index, source)
    _check_range("index_copy", input, d, index, source)
    return IndexCopy.apply(input, _vec(input, index), source, dim=d)


def index_fill(input, dim, index, value):
    """input with its slices at `index` along dim set to `value` (a number or 0-dim tensor).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension along which to index.
        index (LongTensor): the 1-D indices of the slices of ``input`` to fill.
        value (Number or Tensor): the value to fill with (a 0-dim tensor is differentiable).

    Example:
        >>> framework.index_fill(framework.zeros(2, 3), 1, framework.tensor([0, 2]), 5.0)
        tensor([[5., 0., 5.],
                [5., 0., 5.]])
    """
    d = _check_index("index_fill", input, dim, index)
    value = _check_range("index_fill", input, d, index, value=value)
    if isinstance(value, Tensor):
        if value.dim():
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but "
                f"got tensor with {value.dim()} dimension(s)."
            )
        return IndexFillTensor.apply(
            input,
            _vec(input, index),
            value._cast(input._data.dtype) if value.dtype != input.dtype else value,
            dim=d,
        )
    return IndexFill.apply(input, _vec(input, index), value=value, dim=d)


# torch's DelayedError on the prod gradient of a src with several zeros at one position
_SEVERAL_ZEROS = (
    "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
    "scattered to the same position in self"
)


class ScatterReduceTwo(Op):
    """scatter_reduce(dim, index, src, reduce, include_self): sum/prod/mean/amax/amin."""

    no_edge = (1,)  # index
    saves_inputs = True
    saves_output = True
    node_name = "ScatterReduceBackward0"

    def forward(self, x, index, src, dim=0, reduce="sum", include_self=True):
        xp = self.xp
        self.dim, self.reduce, self.include_self = dim, reduce, include_self
        if reduce == "prod" and not include_self:  # torch's gradient of self reads self (a
            self.fw_zero_grads = True  # zero tangent), ours masks the gradient only
        key = _grid(index, dim, xp)
        src = src[tuple(slice(0, n) for n in index.shape)]
        hit = xp.zeros(x.shape, dtype=xp.int64)
        _scatter_into(xp, hit, key, xp.ones(index.shape, dtype=xp.int64))
        base = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
        out = x.copy()
        if not include_self:
            fill = (
                base
                if base is not None
                else (xp.inf if reduce == "amin" else -xp.inf)
                if x.dtype.kind == "f"
                else reduce == "amin"
                if x.dtype.kind == "b"
                else (xp.iinfo(x.dtype).max if reduce == "amin" else xp.iinfo(x.dtype).min)
            )
            out[hit > 0] = fill
        ufunc = {
            "sum": xp.add,
            "mean": xp.add,
            "prod": xp.multiply,
            "amax": xp.maximum,
            "amin": xp.minimum,
        }[reduce]
        ufunc.at(out, key, src)
        if reduce == "mean":
            count = hit + (1 if include_self else 0)
            count = xp.maximum(count, 1)
            out = out / count if x.dtype.kind == "f" else out // count
        self.hit = hit
        return out.astype(x.dtype, copy=False)

    saves = ("hit",)

    def backward(self, grad):
        x, index, src = self.inputs
        need_x, _, need_src = self.needs_input_grad
        if is_zero_tensor(grad):  # torch's formulas keep sgn's ZeroTensor through their
            # products and quotients and gather it as zeros: zeros (grad / 0 is zero too)
            gx, gs = (v.new_zeros(tuple(v.shape)) for v in (x, src))
            if self.reduce == "prod":  # its src formula divides the gathered zeros by src
                gs = gs / src.masked_fill(src == 0, 1.0)  # (0 / NaN: NaN, as torch's)
            return gx if need_x else None, None, gs if need_src else None
        out, d, r = self.output, self.dim, self.reduce
        hit = _const(self.hit, grad)
        src = (
            src[tuple(slice(0, n) for n in index.shape)]
            if tuple(src.shape) != tuple(index.shape)
            else src
        )
        if r == "sum":
            gx = grad if self.include_self else grad.masked_fill(hit > 0, 0.0)
            gs = gather(grad, d, index)
        elif r == "mean":
            n = (hit + (1 if self.include_self else 0)).clamp_min(1).to(grad.dtype)
            gx = grad / n if self.include_self else (grad / n).masked_fill(hit > 0, 0.0)
            gs = gather(grad / n, d, index)
        elif r == "prod":
            # torch: grad * masked_self_result / masked_self with self's zeros set to 1 (an
            # inf/NaN self gives NaN even where nothing is scattered), then the hits zeroed
            xm = x.masked_fill(x == 0, 1.0)
            gx = (
                grad * xm.scatter_reduce(d, index, src, "prod", include_self=self.include_self) / xm
            )
            if not self.include_self:  # torch's grad_self.scatter(dim, index, 0)
                gx = gx.scatter(d, index, 0.0)
            # src (torch): a zero scattered alone into its slot gets the product of the
            # others; any other zero divides by 1 (its slot's result is 0). The whole src, as
            # torch: a src larger than index fails its broadcast as torch's does
            src = self.inputs[2]
            src_zero = src == 0
            zeros_in = x.new_zeros(tuple(x.shape)).scatter_add(d, index, src_zero.to(x.dtype))
            counts = gather(zeros_in, d, index)
            single = src_zero & (counts == 1)
            others = x.scatter_reduce(
                d, index, src.masked_fill(single, 1.0), "prod", include_self=self.include_self
            )
            gs = gather(grad * others, d, index).where(
                single, gather(grad * out, d, index) / src.masked_fill(src_zero, 1.0)
            )
            if gs.requires_grad and bool((counts > 1).any()):  # torch's DelayedError
                gs = _DelayedError.apply(gs, msg=_SEVERAL_ZEROS)
        else:  # amax/amin: the gradient is shared evenly among the values equal to the result
            from ..creation import zeros

            # torch's formula: self's equal values count even without include_self (then its
            # gradient is zeroed at the hit slots afterwards, as for the other reductions)
            x_eq = x == out
            s_eq = src == gather(out, d, index)
            count = x_eq.to(grad.dtype) + zeros(
                tuple(x.shape), dtype=grad.dtype, device=grad.device
            ).scatter_add(d, index, s_eq.to(grad.dtype))
            share = grad / count
            gx = share.where(x_eq, share * 0)
            if not self.include_self:
                gx = gx.masked_fill(hit > 0, 0.0)
            gs = gather(share, d, index).where(s_eq, gather(share, d, index) * 0)
        return gx if need_x else None, None, gs if need_src else None

    def jvp(self, *tangents):
        """Backward transposed, except for 'prod', where torch's rule gives no tangent."""
        return None if self.reduce == "prod" else self.jvp_transpose(*tangents)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Reduce src's values into input at `index` along dim with sum/prod/mean/amax/amin.

    Args:
        input (Tensor): the input tensor.
        dim (int): the axis along which to index.
        index (LongTensor): where to reduce each element of ``src``.
        src (Tensor): the values to reduce in.
        reduce (str): ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.
        include_self (bool, optional): whether ``input``'s values take part in the reduction.
            Default: ``True``.

    Example:
        >>> framework.zeros(2).scatter_reduce(0, framework.tensor([0, 0, 1]),
        ...                                   framework.tensor([1., 5., 2.]), "amax")
        tensor([5., 2.])
    """
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if reduce == "mean" and input.dtype.name == "bool":  # torch's mean kernel, or its count
        # after the shape checks; without include_self torch first scatters the identity into
        # the indexed slots (that scatter checks the bounds: fuzz seed 17063123)
        _check("scatter", input, dim, index, src, bounds=not include_self)
        kernel = "scatter_gather_tensor_cpu_reduce_mean" if index.numel() else "div_floor_cpu"
        raise not_implemented(kernel, input._data.dtype)
    d = _check("scatter", input, dim, index, src)
    return ScatterReduceTwo.apply(
        input, index, src, dim=d, reduce=reduce, include_self=include_self
    )


__all__ = [
    "masked_select",
    "masked_scatter",
    "take",
    "take_along_dim",
    "index_add",
    "index_copy",
    "index_fill",
    "scatter_reduce",
]
