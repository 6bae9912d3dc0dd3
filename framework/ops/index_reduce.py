"""index_reduce: reduce rows of `source` into `input` at `index` along `dim` (prod, mean, amax,
amin; with or without input's own values), with torch's IndexReduceBackward0 formulas."""

import warnings

from .. import dtypes
from ..autograd.engine import is_zero_tensor
from ..autograd.forward_ad import refuse_early
from ..autograd.function import _DelayedError
from ..autograd.grad_mode import fw_in_use
from ..autograd.op import Op, vmap_hook
from ..tensor import Tensor
from .._errors import index_out_of_range, not_implemented
from .selection import _check_range, _same_slices
from .unary import _zeros

__all__ = ["index_reduce"]

_REDUCES = ("prod", "mean", "amax", "amin")
# torch's DelayedError on the prod gradient of a source with several zeros at one position
_SEVERAL_ZEROS = (
    "index_reduce(): Double backward is unsupported for source when >1 zeros in source are "
    "scattered to the same position in self"
)
_warned = []


def _identity(xp, dtype, reduce):
    if reduce == "prod":
        return 1
    if reduce == "mean":
        return 0
    if dtype.kind == "f":
        return -xp.inf if reduce == "amax" else xp.inf
    info = xp.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:
        return reduce == "amin"
    return info.min if reduce == "amax" else info.max


def _signed_zero_ties(xp, out, s):
    """Whether zeros of both signs meet (float data only)."""
    if out.dtype.kind != "f" or not s.size:
        return False
    zeros = xp.concatenate([out[out == 0].ravel(), s[s == 0].ravel()])
    return bool(zeros.size) and bool(xp.signbit(zeros).any() and (~xp.signbit(zeros)).any())


def _index_reduce(xp, x, dim, idx, src, reduce, include_self):
    """The forward kernel on arrays."""
    out = xp.moveaxis(x.copy(), dim, 0)
    s = xp.moveaxis(src, dim, 0)
    if not include_self and idx.size:
        out[idx] = _identity(xp, out.dtype, reduce)
    if reduce == "prod":
        xp.multiply.at(out, idx, s)
    elif reduce in ("amax", "amin") and _signed_zero_ties(xp, out, s):
        # torch's std::min/max keep the value already there on a tie (NumPy's take the new
        # one): only a +0/-0 tie shows it, row by row in index order
        for k in range(idx.shape[0]):
            cur, new = out[idx[k]], s[k]
            take = xp.isnan(new) | ((new > cur) if reduce == "amax" else (new < cur))
            out[idx[k]] = xp.where(take, new, cur)
    elif reduce == "amax":
        xp.maximum.at(out, idx, s)
    elif reduce == "amin":
        xp.minimum.at(out, idx, s)
    else:
        xp.add.at(out, idx, s)
        count = xp.full(out.shape[0], 1 if include_self else 0, dtype="int64")
        xp.add.at(count, idx, 1)
        count = xp.maximum(count, 1).reshape((-1,) + (1,) * (out.ndim - 1))
        out = out // count if out.dtype.kind in "iub" else out / count
    return xp.moveaxis(out.astype(x.dtype, copy=False), 0, dim)


def _check_indices(input, d, index, idx, reduce, include_self):
    """torch's index_reduce_func_impl checks, in its order: with include_self False the
    exclude-init dtype dispatch and index_fill_ of the fresh (contiguous) result; then the
    2-D+ loop (select of slice 0, indices in [0, size)) or the 1-D/0-dim dtype dispatch and
    loop; last the floor division of an integer/bool mean. ``idx``: every index (of every
    sample under vmap), flat."""
    kind = input._data.dtype
    if not include_self:
        if kind.kind == "b":
            raise not_implemented("index_reduce_func_exclude_input_init", kind)
        _check_range("index_fill", input, d, index)
    size = input.shape[d] if input.dim() else 1
    bad = bool(idx.size) and bool(((idx < 0) | (idx >= size)).any())
    if input.dim() <= 1:
        if kind.kind == "b":
            raise not_implemented("index_func_", kind)
        if bad:
            raise index_out_of_range()
        return
    if idx.size and size == 0:
        raise IndexError(
            f"select(): index 0 out of range for tensor of size {list(input.shape)} at "
            f"dimension {d}"
        )
    if bad:
        raise index_out_of_range()
    if kind.kind == "b" and reduce == "mean" and idx.size:
        raise not_implemented("div_floor_cpu", kind)


class IndexReduce(Op):
    """index_reduce(self, dim, index, source, reduce, include_self) (IndexReduceBackward0)."""

    no_edge = (1,)  # index
    saves_inputs = True
    saves_output = True

    def forward(self, x, idx, src, dim, reduce, include_self):
        """self with source rows reduced (prod, mean, amax, amin) into the indexed rows."""
        self.dim, self.reduce, self.include_self = dim, reduce, include_self
        if x.ndim == 0:  # a 0-dim self takes a 0-dim source at index 0
            out = _index_reduce(self.xp, x.reshape(1), 0, idx, src.reshape(1), reduce, include_self)
            return out.reshape(())
        return _index_reduce(self.xp, x, dim, idx, src, reduce, include_self)

    def backward(self, grad):
        """torch's index_reduce_backward."""
        x, idx, src = self.inputs
        if is_zero_tensor(grad):  # torch's formulas keep sgn's ZeroTensor through their
            # products and quotients (grad / 0 too) and index_select it as zeros: zeros
            gs = _zeros(src)
            if self.reduce == "prod":  # its src formula divides the selected zeros by src
                gs = gs / src.masked_fill(src == 0, 1)  # (0 / NaN: NaN, as torch's)
            return _zeros(x), None, gs
        result = self.output
        dim, reduce, inc = self.dim, self.reduce, self.include_self
        if reduce == "prod":
            masked_self = x.masked_fill(x == 0, 1)
            masked_self_result = index_reduce(masked_self, dim, idx, src, reduce, include_self=inc)
            grad_self = grad * masked_self_result / masked_self
            src_zero = src == 0
            num_zeros = _zeros(x).index_add(dim, idx, src_zero.to(x.dtype)).index_select(dim, idx)
            single = src_zero & (num_zeros == 1)
            masked_src_result = index_reduce(
                x, dim, idx, src.masked_fill(single, 1), reduce, include_self=inc
            )
            grad_src = (
                (grad * masked_src_result)
                .index_select(dim, idx)
                .where(
                    single, (grad * result).index_select(dim, idx) / src.masked_fill(src_zero, 1)
                )
            )
            if grad_src.requires_grad and bool((num_zeros > 1).any()):
                grad_src = _DelayedError.apply(grad_src, msg=_SEVERAL_ZEROS)
        elif reduce == "mean":
            n = (_zeros(grad) + 1) if inc else _zeros(grad)
            n = n.index_add(dim, idx, _zeros(src) + 1)
            n = n.masked_fill(n == 0, 1)
            grad_self = grad / n
            grad_src = grad.index_select(dim, idx) / n.index_select(dim, idx)
        else:
            value = result.index_select(dim, idx)
            self_is = (x == result).to(x.dtype)
            src_is = (src == value).to(x.dtype)
            distributed = grad / self_is.index_add(dim, idx, src_is)
            grad_self = self_is * distributed
            grad_src = src_is * distributed.index_select(dim, idx)
        if not inc:
            grad_self = grad_self.index_fill(dim, idx, 0)
        return grad_self, None, grad_src

    jvp = Op.jvp_not_implemented
    jvp_name = "index_reduce"


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with the slices source.select(dim, i) reduced into input.select(dim, index[i]).

    Args:
        input: the tensor reduced into (not modified).
        dim: the dimension indexed.
        index: 1-D int64/int32 indices into input's `dim`.
        source: values, index.numel() slices along `dim`.
        reduce: 'prod', 'mean', 'amax' or 'amin'.
        include_self: whether input's own values take part.

    Example:
        >>> x = framework.ones(3, 2)
        >>> framework.index_reduce(x, 0, framework.tensor([0, 0]), framework.tensor(
        ...     [[2.0, 3.0], [4.0, 5.0]]), "prod")
        tensor([[ 8., 15.],
                [ 1.,  1.],
                [ 1.,  1.]])
    """
    from .shape import _dim

    if fw_in_use[0]:  # torch's autograd layer refuses a tangent before its kernel's checks
        refuse_early(IndexReduce, [getattr(a, "_value", a) for a in (input, index, source)])
    if not _warned:
        _warned.append(True)
        warnings.warn(
            "index_reduce() is in beta and the API may change at any time.",
            UserWarning,
            stacklevel=2,
        )
    if reduce not in _REDUCES:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    d = _dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError(
            "index_reduce_(): Index is supposed to be a vector, but got dim: "
            f"{index.dim()} with type: {dtypes.scalar_type_name(index._data.dtype)} and size: "
            f"{list(index.shape)}"
        )
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            "index_reduce_(): Expected dtype int32/int64 for index but got: "
            f"{dtypes.scalar_type_name(index._data.dtype)}"
        )
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({dtypes.scalar_type_name(input._data.dtype)}) and source "
            f"({dtypes.scalar_type_name(source._data.dtype)}) must have the same scalar type"
        )
    if d and d >= source.dim():
        raise RuntimeError(
            f"index_reduce_(): Indexing dim {d} is out of bounds of the source tensor with dim "
            f"{source.dim()}"
        )
    n_src = source.shape[d] if source.dim() else 1
    if index.numel() != n_src:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({n_src}), for dim: {d}"
        )
    _same_slices(input, d, source)
    idx, remake = index._data.reshape(-1), None
    if vmap_hook[0]:  # every sample's indices checked, passed on batched as index
        from ..func._paths import flat_values

        idx, remake = flat_values(index)
    _check_indices(input, d, index, idx, reduce, include_self)
    idx = idx.astype("int64")
    idx = remake(idx) if remake else Tensor._make(idx, index.device)
    return IndexReduce.apply(input, idx, source, dim=d, reduce=reduce, include_self=include_self)
