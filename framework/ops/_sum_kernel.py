"""torch's CPU summation order (ATen ``SumKernel.cpp``, ``cascade_sum``) for float32/float64.

torch does not add a row left to right, nor pairwise as NumPy does: a contiguous row is read
as vectors (32 bytes: 8 float32 / 4 float64 lanes, in torch's AVX2 and default builds), the
vectors four-way interleaved (``row_sum``'s ILP) into accumulators that are cascaded over
four levels (``multi_row_sum``: a level of 2**max(4, ceil(log2 n) / 4) additions is folded
into the next), the vector lanes then added one by one after the scalar tail; a reduction
over leading dimensions (``vectorized_outer_sum``) runs the cascade down the columns, 32 or 8
at a time, ``row_sum`` on the rest. Reduced dimensions apart (a broadcast gradient's
sum_to_size over dims 0 and 2) run torch's iterator order: the reduced dims innermost, the
2-D loop over the first two, its sums added onto the output once per outer index
(``strided_sum_loop``). Each float32 sum differs from NumPy's in the last bits otherwise (12
of 16 shapes measured). The loops below replay that order exactly; compiled by numba
(``framework.ops._fused``), else unused (NumPy's order: README, Known differences).

Reproduced: C-contiguous float32/float64 input, a single-threaded kernel (torch splits a full
reduction of 32,768 elements or more, and may regroup the columns of a large outer reduction
or the blocks of one over dims apart, across threads: those sum in NumPy's order),
torch's 32-byte vector kernels (an AVX-512 CPU without ``ATEN_CPU_CAPABILITY=avx2`` runs
64-byte ones: not reproduced).

Example:
    >>> import numpy as np
    >>> x = np.arange(10, dtype=np.float32)
    >>> out = torch_sum(x, (0,))
    >>> out is None or float(out[0]) == 45.0
    True
"""

import math
import os

import numpy as np

GRAIN = 32768  # at::internal::GRAIN_SIZE: above it torch's reduction may split across threads


def ceil_log2(x):
    """c10's CeilLog2: 1 up to 2, else the bit length of x - 1."""
    if x <= 2:
        return 1
    v = x - 1
    n = 0
    while v > 1:
        v >>= 1
        n += 1
    return n + 1


def multi_row_sum(x, base, row_stride, col_stride, size, nrows, lanes, res):
    """ATen's multi_row_sum: ``nrows`` accumulators of ``lanes`` lanes each over ``size`` steps
    (element (i, k, l) at ``base + i * row_stride + k * col_stride + l``), cascaded over four
    levels; the sums go to ``res[:nrows, :lanes]``."""
    lp = max(4, _ceil_log2(size) // 4)
    step = 1 << lp
    mask = step - 1
    acc = np.zeros((4, nrows, lanes), x.dtype)
    i = 0
    while i + step <= size:
        for k in range(nrows):  # each lane's additions in turn, as the rows interleaved
            _block_add(acc, k, x, base + i * row_stride + k * col_stride, row_stride, step, lanes)
        i += step
        for j in range(1, 4):
            for k in range(nrows):
                for lane in range(lanes):
                    acc[j, k, lane] += acc[j - 1, k, lane]
                    acc[j - 1, k, lane] = 0
            if (i & (mask << (j * lp))) != 0:
                break
    while i < size:
        b = base + i * row_stride
        for k in range(nrows):
            o = b + k * col_stride
            for lane in range(lanes):
                acc[0, k, lane] += x[o + lane]
        i += 1
    for j in range(1, 4):
        for k in range(nrows):
            for lane in range(lanes):
                acc[0, k, lane] += acc[j, k, lane]
    for k in range(nrows):
        for lane in range(lanes):
            res[k, lane] = acc[0, k, lane]


def block_add(acc, k, x, at, stride, count, lanes):
    """acc[0, k, lane] += x[at + t * stride + lane] for t < count, lane by lane, in turn
    (multi_row_sum's first level over one block)."""
    for t in range(count):
        o = at + t * stride
        for lane in range(lanes):
            acc[0, k, lane] += x[o + lane]


def block_add_vec(acc, k, x, at, stride, count, lanes):
    """block_add compiled (``_fused`` sets the intrinsics): one LLVM vector loop over the
    accumulator row (``_numba_fma.lanes_add4``/``8``: the same additions in the same order
    per lane; numba's loop over the array stays scalar, the array may alias x) where its
    lanes are 4 or 8 and acc is C-contiguous, else the loop."""
    it = x.itemsize
    if acc.flags.c_contiguous and acc.shape[2] == lanes and (lanes == 4 or lanes == 8):
        dst = acc.ctypes.data + k * lanes * it
        src = x.ctypes.data + at * it
        if lanes == 8:
            _lanes_add8(dst, src, count, stride * it, x[0])
        else:
            _lanes_add4(dst, src, count, stride * it, x[0])
        return
    _block_add_loop(acc, k, x, at, stride, count, lanes)


def row_sum(x, base, stride, size, lanes, out):
    """ATen's row_sum: ``size`` elements (``lanes`` wide) at ``base + i * stride``, four-way
    interleaved (multi_row_sum of four rows), the rest into the first, then the four added."""
    size_ilp = size // 4
    part = np.zeros((4, lanes), x.dtype)
    _multi_row_sum(x, base, stride * 4, stride, size_ilp, 4, lanes, part)
    for i in range(size_ilp * 4, size):
        for lane in range(lanes):
            part[0, lane] += x[base + i * stride + lane]
    for k in range(1, 4):
        for lane in range(lanes):
            part[0, lane] += part[k, lane]
    for lane in range(lanes):
        out[lane] = part[0, lane]


def inner_row(x, base, n, width, vec, zero):
    """vectorized_inner_sum of one contiguous row of n >= width elements at base: its whole
    vectors by row_sum (into vec), then the tail elements and the lanes added one by one onto
    zero[0]."""
    nvec = n // width
    _row_sum(x, base, width, nvec, width, vec)
    acc = zero[0]
    for k in range(nvec * width, n):
        acc += x[base + k]
    for lane in range(width):
        acc += vec[lane]
    return acc


def inner_sum_loop(x, rows, n, width, out):
    """out[j] = torch's sum of row j of the flat (rows, n) array x: vectorized_inner_sum for
    rows of at least ``width`` elements, scalar_inner_sum below; stored onto torch's zero-filled
    output (so an all -0 row gives +0)."""
    vec = np.zeros(width, x.dtype)
    one = np.zeros(1, x.dtype)
    zero = np.zeros(1, x.dtype)
    for j in range(rows):
        base = j * n
        if n >= width:
            acc = _inner_row(x, base, n, width, vec, zero)
        else:
            _row_sum(x, base, 1, n, 1, one)
            acc = one[0]
        out[j] = zero[0] + acc


def outer_sum_loop(x, blocks, n, cols, width, out):
    """out (blocks, cols) = torch's sums over the middle axis of the flat (blocks, n, cols) x:
    vectorized_outer_sum (columns by 4 vectors, then by one vector, then one by one) where
    ``cols`` reaches the vector width, scalar_outer_sum (columns by 4) below."""
    res = np.zeros((4, width), x.dtype)
    res1 = np.zeros((4, 1), x.dtype)
    vec = np.zeros(width, x.dtype)
    one = np.zeros(1, x.dtype)
    zero = np.zeros(1, x.dtype)
    for a in range(blocks):
        base = a * n * cols
        ob = a * cols
        j = 0
        if cols >= width:
            while j + 4 * width <= cols:
                _multi_row_sum(x, base + j, cols, width, n, 4, width, res)
                for k in range(4):
                    for lane in range(width):
                        out[ob + j + k * width + lane] = zero[0] + res[k, lane]
                j += 4 * width
            while j + width <= cols:
                _row_sum(x, base + j, cols, n, width, vec)
                for lane in range(width):
                    out[ob + j + lane] = zero[0] + vec[lane]
                j += width
        else:
            while j + 3 < cols:
                _multi_row_sum(x, base + j, cols, 1, n, 4, 1, res1)
                for k in range(4):
                    out[ob + j + k] = zero[0] + res1[k, 0]
                j += 4
        while j < cols:
            _row_sum(x, base + j, cols, n, 1, one)
            out[ob + j] = zero[0] + one[0]
            j += 1


def strided_sum_loop(x, sizes, ins, outs, width, out):
    """out (zero-filled, flat kept elements) += torch's sums of the flat x over its reduction
    iterator: dims fastest first (``sizes``, input and output strides in elements: ``outs`` 0
    where reduced), the first two run by cascade_sum's 2-D loop (the reduced one first:
    vectorized_inner_sum, vectorized_outer_sum, scalar_inner_sum or scalar_outer_sum, as its
    strides pick), once per index of the others (the third dim fastest), each result added
    onto its output element (torch's CastStoreAccumulate), so reduced outer dims add their
    blocks' sums one after another."""
    size0, size1, s0, s1, o1 = sizes[0], sizes[1], ins[0], ins[1], outs[1]
    if outs[0] != 0 and o1 == 0:  # cascade_sum moves the reduction to the first dim
        size0, size1, s0, s1, o1 = size1, size0, s1, s0, outs[0]
    nd = sizes.shape[0]
    idx = np.zeros(nd, np.int64)
    res = np.zeros((4, width), x.dtype)
    res1 = np.zeros((4, 1), x.dtype)
    vec = np.zeros(width, x.dtype)
    one = np.zeros(1, x.dtype)
    zero = np.zeros(1, x.dtype)
    count = 1
    for d in range(2, nd):
        count *= sizes[d]
    for _ in range(count):
        ib = 0
        ob = 0
        for d in range(2, nd):
            ib += idx[d] * ins[d]
            ob += idx[d] * outs[d]
        if s0 == 1 and size0 >= width:  # vectorized_inner_sum
            for j in range(size1):
                out[ob + j * o1] += _inner_row(x, ib + j * s1, size0, width, vec, zero)
        elif s1 == 1 and size1 >= width:  # vectorized_outer_sum
            j = 0
            while j + 4 * width <= size1:
                _multi_row_sum(x, ib + j, s0, width, size0, 4, width, res)
                for k in range(4):
                    for lane in range(width):
                        out[ob + (j + k * width + lane) * o1] += res[k, lane]
                j += 4 * width
            while j + width <= size1:
                _row_sum(x, ib + j, s0, size0, width, vec)
                for lane in range(width):
                    out[ob + (j + lane) * o1] += vec[lane]
                j += width
            while j < size1:
                _row_sum(x, ib + j, s0, size0, 1, one)
                out[ob + j * o1] += one[0]
                j += 1
        elif s0 < s1:  # scalar_inner_sum
            for j in range(size1):
                _row_sum(x, ib + j * s1, s0, size0, 1, one)
                out[ob + j * o1] += one[0]
        else:  # scalar_outer_sum
            j = 0
            while j + 3 < size1:
                _multi_row_sum(x, ib + j * s1, s0, s1, size0, 4, 1, res1)
                for k in range(4):
                    out[ob + (j + k) * o1] += res1[k, 0]
                j += 4
            while j < size1:
                _row_sum(x, ib + j * s1, s0, size0, 1, one)
                out[ob + j * o1] += one[0]
                j += 1
        for d in range(2, nd):
            idx[d] += 1
            if idx[d] < sizes[d]:
                break
            idx[d] = 0


def nll_sums_loop(vals, wts, keep, out):
    """ATen's nll_loss / nll_loss2d forward sums (nll_loss_out_frame): over the elements in
    order, skipping ignored ones, ``loss -= value * weight`` and ``total += weight`` into
    eight partial sums, level j folded into level j + 1 after element b whenever b's 4-bit
    digit j is 0 (level_power 4 below 2**40 elements), then added up from level 0; the two
    results go to ``out``."""
    n = vals.shape[0]
    lp = max(4, _ceil_log2(n) // 8)
    mask = (1 << lp) - 1
    loss = np.zeros(8, vals.dtype)
    weight = np.zeros(8, vals.dtype)
    for b in range(n):
        if not keep[b]:
            continue
        loss[0] -= vals[b] * wts[b]
        weight[0] += wts[b]
        for j in range(7):
            if b & (mask << (j * lp)):
                break
            loss[j + 1] += loss[j]
            weight[j + 1] += weight[j]
            loss[j] = 0
            weight[j] = 0
    total_loss = vals.dtype.type(0)
    total_weight = vals.dtype.type(0)
    for j in range(8):
        total_loss += loss[j]
        total_weight += weight[j]
    out[0] = total_loss
    out[1] = total_weight


# the compiled helpers once framework.ops._fused built them (the loops call them by name)
_ceil_log2, _multi_row_sum, _row_sum, _inner_row = ceil_log2, multi_row_sum, row_sum, inner_row
_block_add = _block_add_loop = block_add
_lanes_add4 = _lanes_add8 = None  # numba intrinsics, set with the compiled loops


def _torch_vector_bytes():
    """32 where torch runs its AVX2 or default kernels (32-byte Vectorized), None where it
    picks its AVX-512 ones (an AVX-512 CPU, unless ATEN_CPU_CAPABILITY says otherwise)."""
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if cap in ("default", "avx2"):
        return 32
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    avx512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags
                    return None if avx512 else 32
    except OSError:
        pass
    return 32  # not Linux: torch's x86 wheels elsewhere default to AVX2


_VECTOR = []  # [torch's vector bytes or None], read on first use: the environment may set
# ATEN_CPU_CAPABILITY after `import framework` and before torch's first kernel (as the test
# suite's pin does once pytest's plugins imported the framework)


def vector_bytes():
    """``_torch_vector_bytes()``, computed once, on the first call."""
    if not _VECTOR:
        _VECTOR.append(_torch_vector_bytes())
    return _VECTOR[0]


_KERNELS = [None]  # the compiled namespace, kept once built


def _kernels():
    """The compiled loops, kept once built: torch's summation order is a numerical fact, not
    an accelerated path, so it stays on inside ``_fused.disabled()`` (which tests use to
    compare the compiled loops with their NumPy compositions)."""
    from ._fused import kernels

    k = kernels()
    if k is not None:
        _KERNELS[0] = k
    return k


def _iterator_dims(shape, axes):
    """torch's reduction TensorIterator over a C-contiguous input of ``shape`` summed over
    ``axes``, as (sizes, input strides, output strides) in elements, fastest dim first, at
    least two: reorder_dimensions puts the reduced dims first, each group by increasing input
    stride (the output's strides are 0 on reduced dims), and coalesce_dimensions merges
    neighbours whose strides continue each other in both tensors; size-1 dims vanish."""
    ins, outs, s, o = [], [], 1, 1
    for d in range(len(shape) - 1, -1, -1):
        ins.append(s)
        outs.append(0 if d in axes else o)
        s *= shape[d]
        o *= 1 if d in axes else shape[d]
    dims = [(n, i, o) for n, i, o in zip(shape[::-1], ins, outs) if n != 1]
    merged = []
    for n, i, o in [d for d in dims if d[2] == 0] + [d for d in dims if d[2] != 0]:
        if merged and merged[-1][0] * merged[-1][1] == i and merged[-1][0] * merged[-1][2] == o:
            merged[-1] = (merged[-1][0] * n, merged[-1][1], merged[-1][2])
        else:
            merged.append((n, i, o))
    merged += [(1, 0, 0)] * (2 - len(merged))
    return tuple(np.array(c, np.int64) for c in zip(*merged))


def _memory_order(x, axes):
    """A strided ``x`` as the C-contiguous view torch's iterator walks (its dimensions sorted
    by stride, size-1 ones dropped) and the summed axes renumbered; (None, axes) where that
    view would reorder the kept dimensions (the flat result's order would differ) or none
    exists. (A transposed gradient, as multi-head attention's projections with one head or
    one query send to their bias: torch sums it in memory order.)"""
    keep = [d for d in range(x.ndim) if x.shape[d] != 1]
    if any(x.strides[d] <= 0 for d in keep):
        return None, axes
    order = sorted(keep, key=lambda d: -x.strides[d])
    kept = [d for d in order if d not in axes]
    if kept != sorted(kept):
        return None, axes
    y = np.squeeze(x, tuple(d for d in range(x.ndim) if x.shape[d] == 1))
    y = y.transpose([keep.index(d) for d in order])
    axes = tuple(i for i, d in enumerate(order) if d in axes)
    if not y.flags.c_contiguous:  # gaps (a slice): walked as its copy where they merge alike
        step = [st // y.itemsize for st in y.strides]
        if step[-1:] != [1] or _coalesced(y.shape, step, axes) != _coalesced(y.shape, None, axes):
            return None, axes
        y = np.ascontiguousarray(y)
    return y, axes


def _coalesced(shape, strides, axes):
    """The sizes torch's iterator keeps after coalescing (as ``_iterator_dims``), for an input
    of these element strides (None: C-contiguous)."""
    ins, outs, s, o = [], [], 1, 1
    for d in range(len(shape) - 1, -1, -1):
        ins.append(s if strides is None else strides[d])
        outs.append(0 if d in axes else o)
        s *= shape[d]
        o *= 1 if d in axes else shape[d]
    dims = [(n, i, o) for n, i, o in zip(shape[::-1], ins, outs) if n != 1]
    merged = []
    for n, i, o in [d for d in dims if d[2] == 0] + [d for d in dims if d[2] != 0]:
        if merged and merged[-1][0] * merged[-1][1] == i and merged[-1][0] * merged[-1][2] == o:
            merged[-1] = (merged[-1][0] * n, merged[-1][1], merged[-1][2])
        else:
            merged.append((n, i, o))
    return [n for n, _, _ in merged]


def torch_sum(x, axes, columns=False):
    """``x`` (a NumPy array) summed over ``axes`` (non-negative, sorted) in torch's CPU order,
    as a flat array of the kept elements; None where that order is not reproduced (see the
    module docstring: the caller sums with NumPy). ``columns``: an outer reduction (kept
    columns after the summed dims) of any size, as a Linear bias's gradient: torch's threads
    split it by columns, each column keeping its order (measured at 1 and 2 threads on
    (128, 512), (512, 512), (64, 4096) float32: every bit)."""
    vb = _VECTOR[0] if _VECTOR else vector_bytes()
    if type(x) is np.ndarray and not x.flags.c_contiguous:
        x, axes = _memory_order(x, axes)
    if (
        vb is None
        or x is None
        or type(x) is not np.ndarray
        or x.dtype.char not in "fd"
        or not x.flags.c_contiguous
        or x.size == 0
    ):
        return None
    k = _KERNELS[0] or _kernels()
    if k is None:
        return None
    dims = [(n, d in axes) for d, n in enumerate(x.shape) if n != 1]
    flags = [r for _, r in dims]
    if True not in flags:
        return None  # nothing summed (size-1 dimensions): NumPy's copy is exact
    first = flags.index(True)
    last = len(flags) - 1 - flags[::-1].index(True)
    if not all(flags[first : last + 1]):  # reduced dimensions apart: the iterator's order
        if x.size >= GRAIN:
            return None  # torch may split the iteration across threads
        sizes, ins, outs = _iterator_dims(x.shape, axes)
        out = np.zeros(math.prod([n for n, r in dims if not r]), x.dtype)
        k.torch_strided_sum(x.reshape(-1), sizes, ins, outs, vb // x.itemsize, out)
        return out
    blocks = math.prod([n for n, _ in dims[:first]])
    n = math.prod([n for n, _ in dims[first : last + 1]])
    cols = math.prod([n for n, _ in dims[last + 1 :]])
    width = vb // x.itemsize
    flat = x.reshape(-1)
    if cols == 1:
        if blocks == 1 and x.size >= GRAIN:
            return None  # torch's two-pass reduction across threads
        out = np.empty(blocks, x.dtype)
        k.torch_inner_sum(flat, blocks, n, width, out)
        return out
    if x.size >= GRAIN and not columns:
        return None  # torch may regroup the columns across threads (as its thread count)
    out = np.empty(blocks * cols, x.dtype)
    k.torch_outer_sum(flat, blocks, n, cols, width, out)
    return out


def nll_sums(vals, wts, keep):
    """(the summed loss, the total weight) of nll_loss over flat arrays of the picked values,
    their weights and the kept (not ignored) mask, in torch's order (``nll_sums_loop``); None
    without the compiled loops or for other than float32/float64 NumPy arrays."""
    if type(vals) is not np.ndarray or vals.dtype.char not in "fd":
        return None
    k = _KERNELS[0] or _kernels()
    if k is None:
        return None
    out = np.empty(2, vals.dtype)
    if (  # the common case's flat arrays (cross_entropy's fast path): as they are
        vals.ndim == 1
        and wts.dtype is vals.dtype
        and vals.flags.c_contiguous
        and wts.flags.c_contiguous
        and keep.flags.c_contiguous
        and keep.ndim == 1
    ):
        k.torch_nll_sums(vals, wts, keep, out)
        return out[0], out[1]
    k.torch_nll_sums(
        np.ascontiguousarray(vals).reshape(-1),
        np.ascontiguousarray(wts, dtype=vals.dtype).reshape(-1),
        np.ascontiguousarray(keep).reshape(-1),
        out,
    )
    return out[0], out[1]
