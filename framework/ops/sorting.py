"""Order statistics: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode.

NaN sorts last ascending, first descending, as in torch. Tied elements come in torch's CPU
order: NumPy's sorts give the order wherever nothing ties (any sort gives the one order then;
its stable sort where torch's is stable); a row (a slice along the dim) where equal values (or
NaNs, or zeros of both signs) could change it is replayed with the algorithm torch runs
(libstdc++'s std::sort, partial_sort, nth_element, TH's quick select: ``_stdsort``). Selected
values get their gradient at the index they came from.
"""

import inspect

import numpy as np

from .._errors import check_keywords, refuse
from ..autograd.op import Op
from ..tensor import Tensor
from .extrema import return_types
from . import _stdsort
from .shape import _dim


def _argsort(xp, a, axis, descending):
    """Stable argsort; descending keeps tied elements in their original order too."""
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    rev = xp.flip(a, axis=axis)
    idx = xp.argsort(rev, axis=axis, kind="stable")
    return xp.flip(n - 1 - idx, axis=axis)


def _scatter_back(grad, dim, index, in_shape, keepdim=True):
    """The gradient of values selected at `index` along dim: zeros with grad put back."""
    from ..creation import zeros

    if not in_shape:
        return grad.reshape(())
    idx = Tensor._make(index, grad.device)
    if not keepdim:
        grad, idx = grad.unsqueeze(dim), idx.unsqueeze(dim)
    return zeros(in_shape, dtype=grad.dtype, device=grad.device).scatter(dim, idx, grad)


class _Select(Op):
    """Values picked along `dim` with their int64 indices; gradient goes back to those."""

    non_differentiable = (1,)
    saves = ("index",)
    keepdim = True

    def backward(self, grad, _=None):
        return _scatter_back(grad, self.dim, self.index, self.in_shape, self.keepdim)

    def jvp(self, t):
        if not self.in_shape:
            return t, None
        idx = Tensor._make(self.index, t.device)
        if not self.keepdim:
            return t.gather(self.dim, idx.unsqueeze(self.dim)).squeeze(self.dim), None
        return t.gather(self.dim, idx), None

    def _take(self, x, idx, dim):
        xp = self.xp
        self.dim, self.in_shape, self.index = dim, x.shape, idx
        return xp.take_along_axis(x, idx, axis=dim), idx


def _rows(a, axis):
    """a with `axis` moved last, as a 2-D (rows, n) array (a copy where it must be)."""
    if axis != a.ndim - 1:
        a = np.moveaxis(a, axis, -1)
    return a.reshape(-1, a.shape[-1])


def _put_rows(idx, axis, which, rows):
    """idx (int64, any shape) with the rows `which` of its _rows view set to `rows`."""
    moved = np.moveaxis(idx, axis, -1)
    flat = moved.reshape(-1, idx.shape[axis]).copy()
    flat[which] = rows
    return np.moveaxis(flat.reshape(moved.shape), -1, axis)


def _sort_order(xp, x, axis, descending, stable):
    """torch's CPU sort of x along axis: (indices, the sorted values or None). Where nothing
    ties every sort gives the one order, so NumPy's fastest gives it; a row with ties is
    replayed with std::sort. A stable sort (std::stable_sort: NumPy's stable sort), up to 16
    elements (std::sort's insertion sort, stable too), fbgemm's radix sort (1-D integers from
    32,768 elements, ascending: stable) and a stride-0 dim (torch skips the sort: indices
    0..n-1) take no replay."""
    n = x.shape[axis]
    radix = x.ndim == 1 and x.dtype.kind in "iu" and not descending and n >= 32768
    if xp is not np or stable or n <= 16 or radix or x.size == 0:
        return _argsort(xp, x, axis, descending), None
    if x.strides[axis] == 0:
        shape = [1] * x.ndim
        shape[axis] = n
        return np.broadcast_to(np.arange(n).reshape(shape), x.shape).copy(), None
    rows = _rows(x, axis)
    idx = np.argsort(rows, axis=1)  # NaN last; reversed: first, as torch's descending order
    if descending:
        idx = idx[:, ::-1]
    r = np.arange(rows.shape[0])[:, None]
    s = rows[r, idx]
    tied = (s[:, 1:] == s[:, :-1]).any(-1)
    if rows.dtype.kind not in "iub":  # two NaNs
        probe = s[:, 1] if descending else s[:, -2]
        tied |= probe != probe
    if tied.any():
        if not _stdsort.can_replay(int(tied.sum()) * n):  # Python steps only: stable order
            return _argsort(xp, x, axis, descending), None
        idx = idx.copy()
        idx[tied] = _stdsort.sort_rows(rows[tied], _stdsort.DESC if descending else _stdsort.ASC)
        s = rows[r, idx]
    return _unrows(idx, x.shape, axis), _unrows(s, x.shape, axis)


def _unrows(r, shape, axis):
    """The inverse of _rows: the (rows, n) array r as an array of `shape` (n along axis)."""
    moved = shape[:axis] + shape[axis + 1 :] + (shape[axis],)
    if axis == len(shape) - 1:
        return r.reshape(moved)
    return np.moveaxis(r.reshape(moved), -1, axis)


class Sort(_Select):
    stable = False

    def forward(self, x, dim=-1, descending=False):
        if x.ndim == 0:
            self.dim, self.in_shape, self.index = 0, (), self.xp.zeros((), dtype="int64")
            return x.copy(), self.index
        idx, s = _sort_order(self.xp, x, dim, descending, self.stable)
        if s is None:
            return self._take(x, idx, dim)
        self.dim, self.in_shape, self.index = dim, x.shape, idx
        return s, idx


class SortStable(Sort):
    node_name = "SortBackward1"


class SortStableTrue(SortStable):
    """sort(stable=True): torch's SortBackward1 node, ties kept in input order (stable_sort)."""

    node_name = "SortBackward1"
    stable = True


def sort(input, *args, **kwargs):
    """Sort along `dim`; returns (values, indices) with indices into the input.

    Args:
        input: the tensor.
        dim: the dim to sort (default last).
        descending: largest first.
        stable: keep equal elements in their original order (else they come in the order
            torch's CPU std::sort leaves them in).

    Example:
        >>> framework.tensor([3, 1, 2]).sort()
        torch.return_types.sort(
        values=tensor([1, 2, 3]),
        indices=tensor([1, 2, 0]))
    """
    if kwargs:
        check_keywords("sort", _SORT_KW, (input,) + args, kwargs)
    return _sort(input, *args, **kwargs)


_SORT_KW = {"dim", "descending", "stable"}  # others: torch's invalid-combination error


def _sort(input, dim=-1, descending=False, stable=None):
    d = _dim(dim, max(input.dim(), 1))
    op = Sort if stable is None else (SortStableTrue if stable else SortStable)
    return return_types.sort(*op.apply(input, dim=d, descending=bool(descending)))


def argsort(input, *args, **kwargs):
    """Indices that sort `input` along `dim` (int64, not differentiable).

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to sort along. Default: ``-1``.
        descending (bool, optional): sort in descending order. Default: ``False``.
        stable (bool, optional): keep the order of equal elements. Default: ``False``.

    Example:
        >>> framework.tensor([3, 1, 2]).argsort()
        tensor([1, 2, 0])
    """
    if kwargs:
        check_keywords("argsort", _SORT_KW, (input,) + args, kwargs)
    return _argsort_fn(input, *args, **kwargs)


def _argsort_fn(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable=stable).indices


sort.__signature__ = inspect.signature(_sort)
argsort.__signature__ = inspect.signature(_argsort_fn)


def msort(input):
    """Sort along dim 0 (values only).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.msort(framework.tensor([[3, 1], [1, 2]]))
        tensor([[1, 1],
                [3, 2]])
    """
    return sort(input, 0).values


class Topk(_Select):
    def forward(self, x, k=1, dim=-1, largest=True, sorted=True):
        if x.ndim == 0:
            self.dim, self.in_shape, self.index = 0, (), self.xp.zeros((), dtype="int64")
            return x.copy(), self.index
        return self._take(x, _topk_order(self.xp, x, k, dim, largest, sorted), dim)


def _topk_order(xp, x, k, axis, largest, sorted):
    """torch's CPU topk indices along axis. Without ties the k largest (smallest) in order
    are one answer, found by NumPy (a partition and a sort of the k picked; a full sort for k
    >= n / 2); a row where ties (equal values among the k or across the k-th place, two NaNs)
    could change them, and every row where torch leaves nth_element's order (sorted=False
    with k * 64 > n), is replayed."""
    n = x.shape[axis]
    if xp is not np or k == 0 or n <= 1:  # CuPy: stable order
        idx = xp.take(_argsort(xp, x, axis, largest), xp.arange(k), axis=axis)
        return idx
    rows = _rows(x, axis)
    r = np.arange(rows.shape[0])[:, None]
    if k < n // 2:  # partition (NaN sorts last: the largest, as in torch), then sort the k
        part = np.argpartition(rows, n - k if largest else k - 1, axis=1)
        part = part[:, n - k :] if largest else part[:, :k]
        top = rows[r, part]
        order = np.argsort(top, axis=1)
        if largest:
            order = order[:, ::-1]
        idx, top = part[r, order], top[r, order]
    else:
        idx = np.argsort(rows, axis=1)
        idx = idx[:, ::-1][:, :k] if largest else idx[:, :k]
        top = rows[r, idx]
    if not sorted and k * 64 > n and k > 1 and n > 3:  # nth_element's order, not sorted
        replay = np.ones(rows.shape[0], dtype=bool)
    else:
        replay = (top[:, 1:] == top[:, :-1]).any(-1)  # a tie among the k
        if k < n:  # a tie across the k-th place: the k-th value also outside the k
            last = top[:, -1:]
            replay |= (rows == last).sum(-1) > (top == last).sum(-1)
        if rows.dtype.kind not in "iub":  # two NaNs, one among the k (NaN: the largest)
            nan = (top != top).any(-1)
            if nan.any():
                replay |= nan & ((rows != rows).sum(-1) > 1)
    if replay.any():
        if not _stdsort.can_replay(int(replay.sum()) * n):  # Python steps: stable order
            return xp.take(_argsort(xp, x, axis, largest), xp.arange(k), axis=axis)
        mode = _stdsort.DESC if largest else _stdsort.ASC
        idx = idx.copy()
        idx[replay] = _stdsort.topk_rows(rows[replay], k, mode, bool(sorted))
    shape = x.shape[:axis] + x.shape[axis + 1 :] + (k,)
    if axis == x.ndim - 1:
        return idx.reshape(shape)
    return np.moveaxis(idx.reshape(shape), -1, axis)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) elements along `dim`: (values, indices).

    Ties come in torch's CPU order (that of its partial sort or nth_element); with
    ``sorted=False`` the k elements come in nth_element's order, as in torch.

    Args:
        input (Tensor): the input tensor.
        k (int): the number of elements to return.
        dim (int, optional): the dimension to search along. Default: ``-1``.
        largest (bool, optional): the largest (True) or the smallest (False) elements. Default:
            ``True``.
        sorted (bool, optional): return the elements sorted. Default: ``True``.

    Example:
        >>> framework.tensor([1., 5., 3.]).topk(2)
        torch.return_types.topk(
        values=tensor([5., 3.]),
        indices=tensor([1, 2]))
    """
    d = _dim(dim, max(input.dim(), 1))
    size = input.shape[d] if input.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.dtype.name == "bool":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    return return_types.topk(*Topk.apply(input, k=int(k), dim=d, largest=largest, sorted=sorted))


class _Pick(_Select):
    """One element per slice: position `pos` of the stably sorted slice (NaN aware)."""

    def forward(self, x, pos=0, dim=-1, keepdim=False, nan_first=False, skip_nan=False):
        xp = self.xp
        if x.ndim == 0:
            self.dim, self.in_shape, self.index = 0, (), xp.zeros((), dtype="int64")
            return x.copy(), self.index
        order = xp.argsort(x, axis=dim, kind="stable")
        if skip_nan:  # the median of the non-NaN values (NaN sort last)
            count = (~xp.isnan(x)).sum(axis=dim, keepdims=True)
            idx = xp.take_along_axis(order, xp.maximum((count - 1) // 2, 0), axis=dim)
        else:
            idx = xp.take(order, xp.asarray([pos]), axis=dim)
        if nan_first and x.dtype.kind == "f":  # median propagates NaN: pick the first NaN
            nan = xp.isnan(x)
            first_nan = xp.argmax(nan, axis=dim)
            idx = xp.where(nan.any(axis=dim, keepdims=True), xp.expand_dims(first_nan, dim), idx)
        if type(x) is np.ndarray:
            idx = self._ties(x, idx, dim, pos, skip_nan)
        self.keepdim = keepdim
        vals, idx = self._take(x, idx, dim)
        if not keepdim:
            vals, idx = vals.squeeze(dim), idx.squeeze(dim)
            self.index = idx
        return vals, idx

    def _ties(self, x, idx, dim, pos, skip_nan):
        """idx (keepdim) as torch's CPU kernel picks among ties: median's nth_element compares
        (value, index), so the stable order's element is torch's, except nanmedian's all-NaN
        rows (of more than 3), which it leaves where nth_element puts them."""
        n = x.shape[dim]
        if not skip_nan or n <= 3 or x.dtype.kind in "iub":
            return idx
        rows = _rows(x, dim)
        replay = (rows != rows).all(-1)
        if not replay.any() or not _stdsort.can_replay(int(replay.sum()) * n):
            return idx
        # nth_element's comparator is false for two NaNs: as ASC's order of NaNs
        picked = _stdsort.select_rows(rows[replay], 0, _stdsort.ASC, quick=False)
        return _put_rows(idx, dim, replay, picked[:, None])


class Kthvalue(_Pick):
    def _ties(self, x, idx, dim, pos, skip_nan):
        """idx (keepdim) as TH's quick select (torch's kthvalue) leaves it: replayed in the
        rows where the k-th value occurs more than once (NaN: more than one NaN)."""
        if x.shape[dim] <= 1:
            return idx
        rows = _rows(x, dim)
        val = _rows(np.take_along_axis(x, idx, axis=dim), dim)
        replay = (rows == val).sum(-1) > 1
        if rows.dtype.kind not in "iub":
            replay |= (val[:, 0] != val[:, 0]) & ((rows != rows).sum(-1) > 1)
        if not replay.any() or not _stdsort.can_replay(int(replay.sum()) * x.shape[dim]):
            return idx
        picked = _stdsort.select_rows(rows[replay], pos, _stdsort.DESC, quick=True)
        return _put_rows(idx, dim, replay, picked[:, None])


class MedianDim(_Pick):
    node_name = "MedianBackward1"


class NanmedianDim(_Pick):
    node_name = "NanmedianBackward1"


class Median(Op):
    """Median of all elements (the lower one for even counts); ties share the gradient."""

    saves_inputs = True
    saves_output = True
    skip_nan = False

    def forward(self, x, lead=0):
        """`lead` leading dims are kept (vmap's batch dims): one median per trailing block."""
        xp = self.xp
        self.lead = lead
        flat = x.reshape(x.shape[:lead] + (-1,))
        n = flat.shape[-1]
        if n == 0:
            return xp.full(flat.shape[:-1], xp.nan).astype(x.dtype)  # torch's NaN, cast
        s = xp.sort(flat, axis=-1)  # NaN sorts last
        if x.dtype.kind != "f":
            return s[..., (n - 1) // 2]
        nan = xp.isnan(flat)
        k = n - nan.sum(-1) if self.skip_nan else xp.full(flat.shape[:-1], n)
        pos = xp.maximum(k - 1, 0) // 2
        out = xp.take_along_axis(s, pos[..., None], axis=-1)[..., 0]
        bad = (k == 0) if self.skip_nan else nan.any(-1)
        out = xp.where(bad, xp.asarray(xp.nan, dtype=x.dtype), out).astype(x.dtype)
        if xp is np:
            out = self._zero_sign(x, flat, out, pos)
        return out

    def _zero_sign(self, x, flat, out, pos):
        """out with a zero median signed as torch's: std::nth_element over the clone (memory
        order) leaves -0 or +0 at the median's place where zeros of both signs tie there."""
        zero = out.reshape(-1) == 0
        if not zero.any():
            return out
        rows = (x.ravel(order="K") if self.lead == 0 else flat).reshape(zero.size, -1)
        neg = np.signbit(rows) & (rows == 0)
        zero &= neg.any(-1) & ((rows == 0) & ~neg).any(-1)
        if not zero.any() or not _stdsort.can_replay(int(zero.sum()) * rows.shape[1]):
            return out
        mode = _stdsort.ASC  # median: a < b (no NaN here); nanmedian's: NaN last
        out, pos = out.copy().reshape(-1), pos.reshape(-1)
        for r in np.nonzero(zero)[0].tolist():
            (i,) = _stdsort.select_rows(rows[r : r + 1], int(pos[r]), mode, quick=False)
            out[r] = rows[r, i]
        return out.reshape(flat.shape[:-1])

    def backward(self, grad):
        (x,) = self.inputs
        y = self.output
        trailing = tuple(range(self.lead, x.dim()))
        if self.lead:
            shape = tuple(y.shape) + (1,) * len(trailing)
            y, grad = y.reshape(shape), grad.reshape(shape)
        mask = (x == y) | (x.isnan() & y.isnan())
        # torch's evenly_distribute_backward (CPU): zeros.masked_fill_(mask, grad / count),
        # so a NaN gradient reaches the median's elements only
        share = grad / mask.sum(trailing, keepdim=bool(self.lead))
        return share.expand(tuple(x.shape)).masked_fill(~mask, 0.0)

    jvp = Op.jvp_transpose


class Nanmedian(Median):
    skip_nan = True


def _pick(op, input, pos, dim, keepdim, nan_first=False, skip_nan=False):
    d = _dim(dim, max(input.dim(), 1))
    return op.apply(input, pos=pos, dim=d, keepdim=keepdim, nan_first=nan_first, skip_nan=skip_nan)


def _check_reduced(name, input, d):
    """torch's IndexError for a reduction over an empty dim (zero_numel_check_dims)."""
    if input.dim() and input.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along `dim` (k counts from 1): (values, indices).

    Args:
        input (Tensor): the input tensor.
        k (int): the k of the k-th smallest element, counting from 1.
        dim (int, optional): the dimension to search along. Default: ``-1``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.tensor([3., 1., 2.]).kthvalue(2)
        torch.return_types.kthvalue(
        values=tensor(2.),
        indices=tensor(2))
    """
    d = _dim(dim, max(input.dim(), 1))
    size = input.shape[d] if input.dim() else 1
    if input.dim() and input.shape[d] == 0:  # even when the result is empty
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.dim():  # a 0-dim input is copied before torch's kernel dispatches on dtype
        refuse(input._data, "b", "kthvalue_cpu")
    return return_types.kthvalue(*_pick(Kthvalue, input, k - 1, d, keepdim))


def _median_dim(input, dim):
    """(dim, its size) after torch's checks of median/nanmedian over a dim: a non-empty dim
    (IndexError), then a dtype other than bool."""
    d = _dim(dim, max(input.dim(), 1))
    size = input.shape[d] if input.dim() else 1
    if size == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    refuse(input._data, "b", "median_out")
    return d, size


def median(input, dim=None, keepdim=False):
    """Median (the lower of the two middle values for even sizes); NaN if any value is NaN.

    Without `dim` returns one value; with `dim` returns (values, indices).

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce; all elements when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.tensor([3., 1., 2., 4.]).median()
        tensor(2.)
    """
    if dim is None:
        if input.numel():
            refuse(input._data, "b", "median_cpu")
        return Median.apply(input)
    d, size = _median_dim(input, dim)
    return return_types.median(*_pick(MedianDim, input, (size - 1) // 2, d, keepdim, True))


def nanmedian(input, dim=None, keepdim=False):
    """Median of the non-NaN values (NaN only where a slice is all NaN).

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce; all elements when ``None``. Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.tensor([1., float('nan'), 3., 2.]).nanmedian()
        tensor(2.)
    """
    if dim is None:
        if input.numel():
            refuse(input._data, "b", "median_cpu")
        return Nanmedian.apply(input)
    d, _ = _median_dim(input, dim)
    return return_types.nanmedian(*_pick(NanmedianDim, input, 0, d, keepdim, skip_nan=True))


class Mode(_Select):
    def forward(self, x, dim=-1, keepdim=False):
        xp = self.xp
        if x.ndim == 0:
            self.dim, self.in_shape, self.index = 0, (), xp.zeros((), dtype="int64")
            return x.copy(), self.index
        a = xp.moveaxis(x, dim, -1)
        order = xp.argsort(a, axis=-1, kind="stable")
        s = xp.take_along_axis(a, order, axis=-1)
        n = s.shape[-1]
        new_run = xp.ones(s.shape, dtype=bool)
        new_run[..., 1:] = s[..., 1:] != s[..., :-1]
        start = xp.maximum.accumulate(xp.where(new_run, xp.arange(n), 0), axis=-1)
        length = xp.arange(n) - start + 1  # running length of the current run
        # the longest run, the smallest value among equally long runs: first maximum of length
        end = xp.argmax(length, axis=-1)[..., None]
        vals = xp.take_along_axis(s, end, axis=-1)[..., 0]
        idx = xp.take_along_axis(order, end, axis=-1)[..., 0]  # last occurrence, as torch
        vals, idx = _mode_replay(xp, a, new_run, vals, idx)
        if keepdim:
            vals, idx = xp.expand_dims(vals, -1), xp.expand_dims(idx, -1)
            vals, idx = xp.moveaxis(vals, -1, dim), xp.moveaxis(idx, -1, dim)
        self.dim, self.in_shape, self.index, self.keepdim = dim, x.shape, idx, keepdim
        return vals, idx


_MODE_REPLAY_LIMIT = 1_000_000  # elements: beyond, ties longer than 16 keep the stable order


def _mode_replay(xp, a, new_run, vals, idx):
    """torch's CPU mode sorts (value, index) pairs with std::sort comparing values by `<` and
    takes the first longest run of equal (`==`) neighbours, at its last pair. A NaN breaks the
    ordering (each NaN is a run of its own, and where the runs fall is std::sort's doing), and
    beyond 16 elements the sort is unstable (which tied index ends a run): those rows are
    replayed with libstdc++'s sort (`_stdsort`). Returns (vals, idx)."""
    n = a.shape[-1]
    rows = a.reshape(-1, n)
    need = xp.zeros(rows.shape[0], dtype=bool)
    if a.dtype.kind in "fc":
        need |= xp.isnan(rows).any(-1)
    if n > 16 and a.size <= _MODE_REPLAY_LIMIT:
        need |= ~new_run.reshape(-1, n).all(-1)  # a tie
    if not need.any():
        return vals, idx
    flat_vals, flat_idx = vals.reshape(-1).copy(), idx.reshape(-1).copy()
    for r in xp.nonzero(need)[0].tolist():
        row = rows[r].tolist()
        order = _stdsort.sort_order(row, 1, _stdsort.LEX)
        best, count = 0, 0
        for k in range(n):
            count += 1
            if k == n - 1 or row[order[k]] != row[order[k + 1]]:
                if count > best:
                    best, flat_idx[r] = count, order[k]
                count = 0
        flat_vals[r] = rows[r, flat_idx[r]]
    return flat_vals.reshape(vals.shape), flat_idx.reshape(idx.shape)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along `dim` (the smallest on ties) and its last index.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: ``-1``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.

    Example:
        >>> framework.tensor([1, 2, 2, 3]).mode()
        torch.return_types.mode(
        values=tensor(2),
        indices=tensor(2))
    """
    d = _dim(dim, max(input.dim(), 1))
    if input.dim() and input.shape[d] == 0:  # even when the result is empty
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return return_types.mode(*Mode.apply(input, dim=d, keepdim=keepdim))


__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode"]
