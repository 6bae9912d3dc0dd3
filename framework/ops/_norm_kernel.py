"""torch's CPU vector-norm kernels (ATen ``ReduceOpsKernel.cpp``, ``norm_kernel_tensor_iterator
_impl``) replayed to the bit for float32/float64 and p = 1, 2 and any other finite p != 0.

torch reduces a norm in one of two orders (measured against torch 2.13's AVX2 build on rows of
1 to 40, 72, 100, 520, 1000 and 6400 values, 300 random rows each: every bit equal):

- p = 2 over a reduction that is contiguous in memory (``is_reduce_lastdim``: the reduced
  dimensions coalesce into one unit-stride run; a whole contiguous tensor included): the
  squares of each 32-byte vector (8 float32 / 4 float64 lanes) are added lane-wise into one
  accumulator (a multiply and an add, two roundings), the lanes added in order; then the
  tail: for float32 a block of four squares (the compiler's SSE epilogue) added one by one,
  each remaining value fused-multiply-added (``acc + v * v`` rounded once); the square root.
- otherwise (p = 2 across strided dimensions, p = 1, other p): ``binary_kernel_reduce``, one
  accumulator per output added in the input's memory order: ``acc + |v|``, ``acc + v * v``
  (two roundings) or ``acc + pow(|v|, p)`` (p and 1/p rounded to the dtype first), then
  ``sqrt`` or ``pow(acc, 1/p)``. torch splits a reduction of 32,768 or more values across
  threads: left to NumPy's order (None).

Sequential sums fold rows of an (n, outputs) array one after another (``down``: each partial
sum rounded in the array's dtype), so the NumPy code gives the same bits with or without numba.
Where numba is, compiled loops (``_replay_jit``: one pass, no transposed copy) perform the same
operations in the same order.
"""

import numpy as np

from .._fma import fused
from ._replay_jit import ADD, ADD_ABS, ADD_SQUARE, loops
from ._sum_kernel import GRAIN

_LANES = {"f": 8, "d": 4}  # a 32-byte vector (torch's AVX2 and default builds)


def _layout(x, axes):
    """(kept axes, reduced axes outermost first, the count reduced, whether the reduced
    dimensions form one unit-stride run); None where the order is not reproduced (a
    broadcast, zero-stride reduced dimension)."""
    red = [a for a in axes if x.shape[a] != 1]
    if any(x.strides[a] == 0 for a in red):
        return None
    red.sort(key=lambda a: -x.strides[a])  # outermost first, as TensorIterator orders them
    kept = [a for a in range(x.ndim) if a not in red]
    step = x.itemsize
    unit = True
    for a in reversed(red):
        unit = unit and x.strides[a] == step
        step *= x.shape[a]
    n = 1
    for a in red:
        n *= x.shape[a]
    return kept, red, n, unit


def rows_of(x, kept, red, n):
    """``x`` as a C-contiguous (outputs, n) array, each row one output's reduced values."""
    return np.ascontiguousarray(x.transpose(kept + red)).reshape(-1, n)


def columns_of(x, kept, red, n):
    """``x`` as a C-contiguous (n, outputs) array, each column one output's reduced values."""
    return np.ascontiguousarray(x.transpose(red + kept)).reshape(n, -1)


def down(v, ufunc=np.add):
    """``ufunc`` (add or multiply) folded down each column of the (n, columns) array ``v``,
    one row after another: NumPy reduces an outer axis row by row (its pairwise sum runs only
    along a contiguous reduced axis, which a single column would be: accumulated instead)."""
    v = np.ascontiguousarray(v)  # (a product's layout follows its operands': made C order)
    if v.shape[0] == 0:
        return np.full(v.shape[1:], ufunc.identity, v.dtype)
    if v.shape[1] < 2:
        return ufunc.accumulate(v, axis=0)[-1]
    return ufunc.reduce(v, axis=0)


def _lastdim_norm2(rows):
    """torch's vectorized p = 2 kernel over contiguous rows (the module docstring)."""
    width = _LANES[rows.dtype.char]
    count, n = rows.shape
    nvec = n // width
    if nvec:
        body = rows[:, : nvec * width]
        sq = (body * body).reshape(count, nvec, width).transpose(1, 0, 2)
        lanes = down(sq.reshape(nvec, count * width)).reshape(count, width)  # vector by vector
        total = down(lanes.T)
    else:
        total = np.zeros(count, rows.dtype)
    d = nvec * width
    if rows.dtype.char == "f" and n - d >= 4:  # the four-lane epilogue: squares, then adds
        sq = rows[:, d : d + 4] * rows[:, d : d + 4]
        for j in range(4):
            total = total + sq[:, j]
        d += 4
    for k in range(d, n):
        v = np.ascontiguousarray(rows[:, k])
        total = fused(v, v, total)
    return np.sqrt(total)


def _compiled_norm(k, rows, ord, dt):
    """binary_kernel_reduce's norms of ``rows`` (outputs, n; a view where it can be) by the
    compiled fold; the powers by NumPy on a C-ordered copy, as the columns' replay takes them."""
    out = np.empty(rows.shape[0], rows.dtype)
    if ord == 1:
        k.fold_rows(rows, ADD_ABS, out)
        return out
    if ord == 2:
        k.fold_rows(rows, ADD_SQUARE, out)
        return np.sqrt(out)
    p = dt(ord)
    with np.errstate(all="ignore"):
        k.fold_rows(np.power(np.abs(np.ascontiguousarray(rows)), p), ADD, out)
        return np.power(out, dt(1) / p)


def torch_norm(x, ord, axes):
    """The ``ord``-norm of the NumPy array ``x`` over ``axes`` (a tuple of non-negative axes) in
    torch's CPU order, with the reduced dimensions kept (size 1); None for other dtypes, ord
    inf/-inf/0, NumPy's non-arrays or where torch's order is not reproduced."""
    if type(x) is not np.ndarray or x.dtype.char not in "fd" or x.size == 0:
        return None
    if ord == 0 or ord in (float("inf"), float("-inf")) or ord != ord:
        return None
    got = _layout(x, axes)
    if got is None:
        return None
    kept, red, n, unit = got
    dt = x.dtype.type
    out_shape = [1 if a in axes else s for a, s in enumerate(x.shape)]
    k = loops()
    if ord == 2 and unit:
        rows = rows_of(x, kept, red, n)
        if k is None:
            return _lastdim_norm2(rows).reshape(out_shape)
        out = np.empty(rows.shape[0], x.dtype)
        k.lastdim_norm2(rows.reshape(-1), n, _LANES[x.dtype.char], x.dtype.char == "f", out)
        return out.reshape(out_shape)
    if n >= GRAIN:
        return None  # torch's two-pass reduction across threads
    if k is not None:
        return _compiled_norm(k, x.transpose(kept + red).reshape(-1, n), ord, dt).reshape(out_shape)
    cols = columns_of(x, kept, red, n)
    if ord == 1:
        return down(np.abs(cols)).reshape(out_shape)
    if ord == 2:
        return np.sqrt(down(cols * cols)).reshape(out_shape)
    p = dt(ord)
    with np.errstate(all="ignore"):
        acc = down(np.power(np.abs(cols), p))
        return np.power(acc, dt(1) / p).reshape(out_shape)
