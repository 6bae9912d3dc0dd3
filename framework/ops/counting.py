"""Counting and bucketing: unique, unique_consecutive, bincount, histc, count_nonzero,
searchsorted, bucketize. None of them is differentiable (unique records torch's node, whose
backward raises as torch's does)."""

import math

from .._errors import not_implemented, refuse
from ..autograd.op import Op, per_sample_under_vmap
from ..tensor import Tensor
from ._stdsort import row_order as _row_order
from .shape import _dim, _real_dim


def _wide(a):
    """bfloat16 data as float32 (exact): NumPy orders ml_dtypes' NaN wrongly when sorting."""
    return a.astype("float32") if a.dtype.kind == "V" else a


def _t(array, like):
    return Tensor._make(array, like.device)


def _no_derivative(name, aten):
    """An op whose outputs torch records under node `<name>Backward0` but whose backward raises
    (the values; the inverse and counts never require grad). forward returns the arrays
    computed beforehand (`result`)."""

    def forward(self, x, result=None):
        return result

    def backward(self, *grads):
        raise NotImplementedError(f"the derivative for '{aten}' is not implemented.")

    return type(
        name,
        (Op,),
        {
            "non_differentiable": (1, 2),
            "forward": forward,
            "backward": backward,
            "__module__": __name__,
            "jvp": Op.jvp_not_implemented,
            "jvp_name": aten,
            "__doc__": f"{name}: no derivative in torch.",
        },
    )


Unique2 = _no_derivative("Unique2", "_unique2")
UniqueDim = _no_derivative("UniqueDim", "unique_dim")
UniqueConsecutive = _no_derivative("UniqueConsecutive", "unique_consecutive")


def _unique_dim(input, dim, return_inverse, return_counts, consecutive, on=None):
    """unique along dim; `on`: the tensor the node records (the unflattened input)."""
    xp = input.xp
    d = _real_dim(dim, input.dim())
    zeros = [i for i, n in enumerate(input.shape) if n == 0]
    if d in zeros and len(zeros) > 1:  # torch's checks: an empty dim selected, then any
        raise RuntimeError(
            "Number of zero sized dimensions is more than one, so unique cannot be applied "
        )
    if zeros and d not in zeros:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    a = xp.moveaxis(_wide(input._data), d, 0)
    n = a.shape[0]
    flat = a.reshape(n, math.prod(a.shape[1:]))
    if consecutive:
        if n == 0:
            keep = xp.zeros(0, dtype=bool)
        else:
            keep = xp.ones(n, dtype=bool)
            keep[1:] = (flat[1:] != flat[:-1]).any(axis=1)
        starts = xp.nonzero(keep)[0]
        inv = xp.cumsum(keep) - 1
        counts = xp.diff(xp.append(starts, n))
        vals = a[starts]
    else:
        order = _row_order(flat, xp)
        rows = flat[order]
        keep = xp.ones(n, dtype=bool)  # torch's run test: any element != (NaN never equal)
        keep[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        starts = xp.nonzero(keep)[0]
        inv = xp.empty(n, dtype="int64")
        inv[order] = xp.cumsum(keep) - 1
        counts = xp.diff(xp.append(starts, n))
        vals = a[order[starts]]
    node = UniqueConsecutive if consecutive else UniqueDim
    return _pick(
        node.apply(
            input if on is None else on,
            result=(
                xp.moveaxis(vals, 0, d),
                inv.reshape(-1).astype("int64"),
                counts.astype("int64"),
            ),
        ),
        return_inverse,
        return_counts,
    )


def _pick(out, return_inverse, return_counts):
    vals, inv, counts = out
    out = [vals] + ([inv] if return_inverse else []) + ([counts] if return_counts else [])
    return out[0] if len(out) == 1 else tuple(out)


# torch's unique sorts the flattened input with std::sort (unstable beyond insertion sort's
# 16 elements) and keeps the first of each run of equal values (NaN != NaN: each NaN its own
# entry): which zero (+0 or -0) represents the zeros, and in which order the NaNs are numbered,
# is the sort's doing, replayed (``_stdsort``; up to its Python limit without numba); up to 16
# elements, the input order (NumPy's stable sort)
_ZERO_SIGNS_FROM_SORT = 16


def _as_sorted(xp, flat, vals, inv):
    """vals and inv (np.unique's sorted distinct values and inverse, NaNs each distinct) as
    torch's std::sort of `flat` (comparator: a < b, NaN last) leaves them: the zero signed as
    the first zero in that order, the NaNs numbered in that order."""
    from ._stdsort import ASC, can_replay, sort_rows

    zero = flat == 0
    signs = xp.signbit(flat[zero])
    mixed = bool(signs.any() and not signs.all())
    nan = int(xp.isnan(flat).sum())
    if not (mixed or nan > 1) or xp.__name__ != "numpy" or not can_replay(flat.size):
        return vals, inv
    order = sort_rows(flat[None], ASC)[0]
    if mixed:
        vals = vals.copy()
        vals[vals == 0] = flat[order[xp.argmax(flat[order] == 0)]]
    if nan > 1:
        inv = inv.reshape(-1).copy()
        inv[order[flat.size - nan :]] = vals.size - nan + xp.arange(nan)
    return vals, inv


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of input (sorted), optionally with the inverse map and counts.

    Args:
        input: the tensor.
        sorted: always sorted here (torch's CPU result is sorted too).
        return_inverse: also return, for each element, the index of its value in the output.
        return_counts: also return how often each value occurs.
        dim: take unique slices along this dim instead of unique elements.

    Example:
        >>> framework.unique(framework.tensor([3, 1, 3]), return_counts=True)
        (tensor([1, 3]), tensor([1, 2]))
    """
    if dim is not None:
        return _unique_dim(input, dim, return_inverse, return_counts, False)
    data = _wide(input._data)
    # torch's sort-then-compare keeps every NaN distinct (NaN != NaN), numbered in its sort's
    # order (_as_sorted; NumPy's: input order, return_index making its sort a mergesort)
    nan_kw = {"equal_nan": False} if data.dtype.kind in "fc" else {}
    vals, _, inv, counts = input.xp.unique(
        data, return_index=True, return_inverse=True, return_counts=True, **nan_kw
    )
    if data.dtype.kind == "f" and data.size > _ZERO_SIGNS_FROM_SORT:
        vals, inv = _as_sorted(input.xp, data.reshape(-1), vals, inv)
    return _pick(
        Unique2.apply(
            input, result=(vals, inv.reshape(input.shape).astype("int64"), counts.astype("int64"))
        ),
        return_inverse,
        return_counts,
    )


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (or slices along `dim`).

    Args:
        input (Tensor): the input tensor.
        return_inverse (bool, optional): also return, for each element, the index of its run.
            Default: ``False``.
        return_counts (bool, optional): also return the length of each run. Default: ``False``.
        dim (int, optional): the dimension to compare slices along; the flattened input when
            ``None``. Default: ``None``.

    Example:
        >>> framework.unique_consecutive(framework.tensor([1, 1, 2, 1]))
        tensor([1, 2, 1])
    """
    if dim is None:
        flat = input.detach().reshape(-1)  # torch's node takes the input itself
        out = _unique_dim(flat, 0, return_inverse, return_counts, True, on=input)
        if return_inverse:
            out = list(out)
            out[1] = out[1].reshape(tuple(input.shape))
            out = tuple(out)
        return out
    return _unique_dim(input, dim, return_inverse, return_counts, True)


@per_sample_under_vmap
def bincount(input, weights=None, minlength=0):
    """Count occurrences of each value in a 1-D non-negative int tensor (weighted sums with
    weights).

    Args:
        input (Tensor): a 1-D tensor of non-negative integers.
        weights (Tensor, optional): a weight per element of ``input``, same length. Default:
            ``None``.
        minlength (int, optional): the minimum number of bins. Default: ``0``.

    Example:
        >>> framework.bincount(framework.tensor([0, 2, 2]))
        tensor([1, 0, 2])
    """
    if input.dim() != 1 or input.dtype.is_floating_point:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.numel() and int(input._data.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = input.xp
    if input.numel() == 0:  # torch: long zeros, whatever the weights
        return _t(xp.zeros(minlength, dtype="int64"), input)
    w = None if weights is None else weights._data
    out = xp.bincount(input._data, weights=w, minlength=minlength)
    if weights is None:
        return _t(out.astype("int64"), input)
    # float weights keep their dtype, others count in double; torch records a node whose
    # derivative is not implemented
    out = out.astype(weights._data.dtype if weights.dtype.is_floating_point else "float64")
    from .elementwise import NotImplementedBackward

    return NotImplementedBackward.apply(weights, fn=lambda xp, w: out, aten="bincount")


def _edge_str(v, reduced, sign_bit):
    """A histc range edge as torch's message prints it: a NaN with its sign bit (`reduced`:
    from a min/max over two or more elements, x86's default NaN "-nan", bfloat16's "nan")."""
    if v == v:
        return f"{v:g}"
    if reduced is not None:
        return reduced
    return "-nan" if sign_bit else "nan"


def _outward(xp, dt, x, side):
    """x + side (side -1 or 1) as torch's widened histc edge: computed in the input's
    arithmetic type (float for float16/bfloat16), stepped to the next representable value
    past x where it rounds back onto x (|x| >= 2^25 in float32, or 2^24 + 1 at the tie: the
    constant 2^24 lands in bin bins // 3, not in the last bin; 1e30 in the middle one), then
    rounded to the input's dtype (a float16 4096 - 1 rounds back to 4096)."""
    acc = dt.type if dt.itemsize >= 4 else xp.float32
    v = acc(acc(x) + acc(side))
    if v == acc(x):
        v = xp.nextafter(acc(x), acc(side * math.inf))
    return dt.type(v)


@per_sample_under_vmap
def histc(input, bins=100, min=0, max=0):
    """Histogram of `bins` equal-width bins over [min, max] (the data's range when both are 0);
    values outside are ignored.

    Args:
        input (Tensor): the input tensor.
        bins (int, optional): the number of equal-width bins. Default: ``100``.
        min (Number, optional): the lower end of the range (with ``max``: the data's range when both
            are 0). Default: ``0``.
        max (Number, optional): the upper end of the range. Default: ``0``.

    Example:
        >>> framework.histc(framework.tensor([1., 2., 1.]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    if not input.dtype.is_floating_point:
        raise not_implemented(
            "linspace_cpu" if input.dtype.name == "bool" else "histogram_cpu", input._data.dtype
        )
    if bins <= 0:
        raise RuntimeError(
            f"torch.histogramdd(): number of bins should be > 0, but got {bins} for dimension 0"
        )
    xp = input.xp
    a = _wide(input._data).reshape(-1)
    lo, hi = float(min), float(max)
    data = lo == hi and a.size
    if data:
        lo, hi = float(a.min()), float(a.max())
    widened = lo == hi  # torch's x -+ 1 edges land on the representable values past them
    bf16 = input._data.dtype.name == "bfloat16"
    if widened and bf16 and math.isfinite(lo) and lo - 1 >= hi + 1:
        raise RuntimeError("torch.histc: max must be larger than min")  # (torch's bfloat16)
    if widened:  # (before the finite check: -inf widens to [-inf, -FLT_MAX] in its message)
        lo, hi = _outward(xp, input._data.dtype, lo, -1), _outward(xp, input._data.dtype, hi, 1)
    if not (math.isfinite(float(lo)) and math.isfinite(float(hi))):
        reduced = ("nan" if bf16 else "-nan") if data and a.size > 1 else None
        if data and a.size == 1 and bf16 and math.isnan(lo):
            # torch's float -> bfloat16 rounding writes every NaN as the positive 0x7FC0, so
            # its bfloat16 NaNs (tensor(), arithmetic, casts) print "nan"; ours (ml_dtypes)
            # keep the float's sign bit
            signs = [False, False]
        elif data and a.size == 1:  # the element itself, its sign bit as stored
            raw = input._data.reshape(-1)[:1].view(f"u{input._data.dtype.itemsize}")
            signs = [bool(int(raw[0]) >> (8 * input._data.dtype.itemsize - 1))] * 2
        else:
            signs = [math.copysign(1.0, float(v)) < 0 for v in (lo, hi)]
        lo_s, hi_s = (_edge_str(float(v), reduced, b) for v, b in zip((lo, hi), signs))
        raise RuntimeError(f"torch.histc: range of [{lo_s}, {hi_s}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histogramdd(): max must be larger than min")
    # torch's linear kernel in the input's dtype: the outer edges of linspace(lo, hi) and
    # pos = (x - lo) * bins / (hi - lo), each step rounded to that dtype
    dt = input._data.dtype
    a = input._data.reshape(-1)
    if not widened:
        lo, hi = dt.type(lo), dt.type(hi)
    inside = a[(a >= lo) & (a <= hi)]
    with xp.errstate(all="ignore"):
        if hi == lo:  # a given min < max that round together: torch's 0 / 0 casts to
            # INT64_MIN, whose byte offset wraps to 0: bin 0 (ours made a ValueError)
            idx = xp.zeros(inside.shape, dtype="int64")
        else:
            pos = (inside - lo) * dt.type(bins) / (hi - lo)
            # a NaN/inf/huge pos (float16 with over 65504 bins) casts to INT64_MIN: bin 0
            idx = xp.where(xp.isfinite(pos) & (pos < 2.0**63), pos, 0).astype("int64")
    idx = xp.minimum(idx, bins - 1)  # the right edge belongs to the last bin
    out = xp.bincount(idx, minlength=bins).astype(input._data.dtype)
    return _t(out, input)


def count_nonzero(input, dim=None):
    """Number of non-zero elements (over `dim`), int64.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension or dimensions to reduce; all of them
            when ``None``. Default: ``None``.

    Example:
        >>> framework.count_nonzero(framework.tensor([[0, 1], [2, 3]]), dim=0)
        tensor([1, 2])
    """
    nz = input._data != 0
    if dim is None:
        return _t(input.xp.asarray(nz.sum(), dtype="int64"), input)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    axes = tuple(_dim(d, max(input.dim(), 1)) for d in dims)
    if input.dim() == 0:  # dims 0 and -1 of a 0-dim tensor name the tensor itself
        axes = ()
    return _t(input.xp.asarray(nz.sum(axis=axes), dtype="int64"), input)  # (axes=(): a scalar)


@per_sample_under_vmap
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Indices where `input` values would be inserted into the (last dim of the) sorted
    sequence to keep it sorted; right=True (or side='right') takes the upper bound.

    Args:
        sorted_sequence (Tensor): 1-D, or with the same leading dimensions as ``input``, sorted
            along its last dimension (unless ``sorter`` is given).
        input (Tensor or Number): the values to search for.
        out_int32 (bool, optional): return int32 indices instead of int64. Default: ``False``.
        right (bool, optional): return the last suitable index instead of the first. Default:
            ``False``.
        side (str, optional): ``'left'`` or ``'right'``, the same as ``right``. Default: ``None``.
        sorter (LongTensor, optional): the indices that sort ``sorted_sequence``. Default: ``None``.

    Example:
        >>> framework.searchsorted(framework.tensor([1., 2., 3.]), framework.tensor([2., 2.5]))
        tensor([1, 2])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites,"
                " got side of left while right was True"
            )
        right = side == "right"
    xp = sorted_sequence.xp
    seq = _wide(sorted_sequence._data)
    vals = _wide(input._data) if isinstance(input, Tensor) else xp.asarray(input)
    if seq.ndim != 1 and vals.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({seq.ndim}) and input value's "
            f"dim(0) numel(1)"
        )
    if seq.ndim != 1 and seq.shape[:-1] != vals.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor {list(vals.shape)}"
        )
    if vals.size and vals.dtype.kind == "b":  # torch returns for no values before its
        # dispatch on the common dtype of both (bool only when both are)
        refuse(sorted_sequence._data, "b", "searchsorted_out_cpu")
    if sorter is not None:
        seq = xp.take_along_axis(seq, sorter._data, axis=-1)
    how = "right" if right else "left"
    if seq.ndim == 1:
        out = xp.searchsorted(seq, vals, side=how)
    else:
        rows = math.prod(seq.shape[:-1])
        s2, v2 = seq.reshape(rows, seq.shape[-1]), vals.reshape(rows, vals.shape[-1])
        out = xp.zeros(v2.shape, dtype="int64")  # an empty sequence: every index is 0
        if seq.shape[-1]:
            for i in range(rows):
                out[i] = xp.searchsorted(s2[i], v2[i], side=how)
        out = out.reshape(vals.shape)
    return _t(xp.asarray(out, dtype="int32" if out_int32 else "int64"), sorted_sequence)


@per_sample_under_vmap
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value given 1-D sorted boundaries (searchsorted with the
    arguments swapped; right=True puts values equal to a boundary in the next bucket).

    Args:
        input (Tensor or Number): the values to place in buckets.
        boundaries (Tensor): 1-D, strictly increasing bucket boundaries.
        out_int32 (bool, optional): return int32 indices instead of int64. Default: ``False``.
        right (bool, optional): if True, a value equal to a boundary goes to the bucket on its right
            (``boundaries[i-1] <= x < boundaries[i]``). Default: ``False``.

    Example:
        >>> framework.bucketize(framework.tensor([2., 2.5]), framework.tensor([1., 2., 3.]))
        tensor([1, 2])
    """
    if boundaries.dim() != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})"
        )
    out = searchsorted(boundaries, input, out_int32=out_int32, right=right)
    if not isinstance(input, Tensor):
        return out.reshape(())
    return out


__all__ = [
    "unique",
    "unique_consecutive",
    "bincount",
    "histc",
    "count_nonzero",
    "searchsorted",
    "bucketize",
]
