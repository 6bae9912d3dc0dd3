"""libstdc++'s (GCC 13's, which torch 2.13's CPU wheels are built with) std::sort,
std::partial_sort and std::nth_element, and TH's quick select (torch's kthvalue), replayed step
by step on a permutation, so that the order of tied elements is torch's: those algorithms are
not stable, and which of two equal elements comes first is the algorithm's doing.

The algorithms work on `v`, a list or int64 array of element ids (a permutation of range(n)),
comparing elements through `less(keys, m, a, b, mode)`: element a is the m keys at
``keys[a * m:(a + 1) * m]``; `mode` picks torch's comparator:

- ``LEX`` (0): C++'s ``<``, lexicographic over the m keys, a column where neither is less
  skipped (so -0 == 0, and a NaN ties with anything: not a strict weak ordering; the unguarded
  scans then stop at the ends of the range where C++ would read past them);
- ``ASC`` (1): ``(!isnan(a) && isnan(b)) || a < b`` (one key: sort ascending, NaN last);
- ``DESC`` (2): ``(isnan(a) && !isnan(b)) || a > b`` (descending, NaN first; TH's gt_or_nan);
- ``ORDER`` (3): ``<`` on int64 order keys (``order_keys``: ASC's or DESC's order as integers,
  -0 and 0 one key, NaNs one key), which the row functions below sort by (no NaN tests, no
  branch on the mode in the inner loops' comparisons: about a tenth faster than on floats).

Compiled with numba where it is installed (``framework.ops._fused.kernels()`` is not None),
else run as Python over lists (the same steps; about 1 us a comparison, 7.5 ms for a row of
1,000 small integers: ``can_replay`` declines more than PY_LIMIT elements there).

Example:
    >>> sort_rows([[1.0, 0.0, 1.0]], ASC).tolist()
    [[1, 0, 2]]
"""

import numpy as np

LEX, ASC, DESC, ORDER = 0, 1, 2, 3
_THRESHOLD = 16  # libstdc++'s _S_threshold: introsort leaves runs of 16 to insertion sort
STACK = 3 * 130  # std_sort's frames: 2 lg(n) + 1 <= 127 of 3 elements for any int64 n


def less(keys, m, a, b, mode):
    """torch's comparator (see the module) on elements a and b."""
    if mode == 3:
        return keys[a] < keys[b]
    if mode == 1:
        x = keys[a]
        y = keys[b]
        return (x == x and y != y) or x < y
    if mode == 2:
        x = keys[a]
        y = keys[b]
        return (x != x and y == y) or x > y
    for c in range(m):
        x = keys[a * m + c]
        y = keys[b * m + c]
        if x < y:
            return True
        if y < x:
            return False
    return False


def lg(n):
    """std::__lg: the index of n's highest set bit."""
    r = -1
    while n > 0:
        n >>= 1
        r += 1
    return r


def insertion(v, lo, hi, guarded_to, keys, m, mode):
    """std::__insertion_sort of v[lo:hi] for i < guarded_to, __unguarded_linear_insert after
    (std::__final_insertion_sort: guarded_to = lo + 16)."""
    for i in range(lo + 1, hi):
        val = v[i]
        if i < guarded_to and _less(keys, m, val, v[lo], mode):
            for j in range(i, lo, -1):
                v[j] = v[j - 1]
            v[lo] = val
            continue
        j = i
        while j > lo and _less(keys, m, val, v[j - 1], mode):
            v[j] = v[j - 1]
            j -= 1
        v[j] = val


def adjust_heap(v, lo, hole, length, val, keys, m, mode):
    """std::__adjust_heap then std::__push_heap: sift val down from `hole` in the heap
    v[lo:lo + length]."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _less(keys, m, v[lo + child], v[lo + child - 1], mode):
            child -= 1
        v[lo + hole] = v[lo + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[lo + hole] = v[lo + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _less(keys, m, v[lo + parent], val, mode):
        v[lo + hole] = v[lo + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[lo + hole] = val


def heap_select(v, lo, mid, hi, keys, m, mode):
    """std::__heap_select: make_heap of v[lo:mid], then every later element less than the
    heap's top replaces it (std::__pop_heap)."""
    length = mid - lo
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(v, lo, parent, length, v[lo + parent], keys, m, mode)
    for i in range(mid, hi):
        if _less(keys, m, v[i], v[lo], mode):
            val = v[i]
            v[i] = v[lo]
            _adjust_heap(v, lo, 0, length, val, keys, m, mode)


def partial_sort(v, lo, mid, hi, keys, m, mode):
    """std::partial_sort(lo, mid, hi): heap_select, then std::__sort_heap of v[lo:mid]."""
    _heap_select(v, lo, mid, hi, keys, m, mode)
    for last in range(mid - 1, lo, -1):
        val = v[last]
        v[last] = v[lo]
        _adjust_heap(v, lo, 0, last - lo, val, keys, m, mode)


def partition_pivot(v, lo, hi, keys, m, mode):
    """std::__unguarded_partition_pivot: the median of v[lo + 1], the middle and v[hi - 1]
    moved to v[lo], then Hoare's partition of v[lo + 1:hi] around it; returns the cut."""
    a = lo + 1
    b = lo + (hi - lo) // 2
    c = hi - 1
    if _less(keys, m, v[a], v[b], mode):
        if _less(keys, m, v[b], v[c], mode):
            p = b
        elif _less(keys, m, v[a], v[c], mode):
            p = c
        else:
            p = a
    elif _less(keys, m, v[a], v[c], mode):
        p = a
    elif _less(keys, m, v[b], v[c], mode):
        p = c
    else:
        p = b
    t = v[lo]
    v[lo] = v[p]
    v[p] = t
    first = lo + 1
    last = hi
    piv = v[lo]
    while True:
        while first < hi - 1 and _less(keys, m, v[first], piv, mode):
            first += 1
        last -= 1
        while last > lo and _less(keys, m, piv, v[last], mode):
            last -= 1
        if first >= last:
            return first
        t = v[first]
        v[first] = v[last]
        v[last] = t
        first += 1


def std_sort(v, lo, hi, keys, m, mode, stack):
    """std::sort of v[lo:hi]: introsort (median-of-three quicksort down to runs of 16, heapsort
    below 2 lg(n) levels) then the final insertion sort. The ranges are independent, so a
    stack in any order replays C++'s recursion: `stack`, an int64 array of STACK (or more)
    elements (the frames' depths decrease from its bottom up: at most 2 lg(n) + 1 frames of 3;
    grown otherwise), passed in so that the caller allocates it once."""
    n = hi - lo
    if n < 2:
        return
    depth = 2 * _lg(n)
    top = 0
    stack[0] = lo
    stack[1] = hi
    stack[2] = depth
    top = 3
    while top > 0:
        top -= 3
        a = stack[top]
        b = stack[top + 1]
        d = stack[top + 2]
        while b - a > _THRESHOLD:
            if d == 0:
                _partial_sort(v, a, b, b, keys, m, mode)
                break
            d -= 1
            cut = _partition_pivot(v, a, b, keys, m, mode)
            if top + 3 > stack.size:
                grown = np.empty(stack.size * 2, dtype=np.int64)
                grown[:top] = stack[:top]
                stack = grown
            stack[top] = cut
            stack[top + 1] = b
            stack[top + 2] = d
            top += 3
            b = cut
    _insertion(v, lo, hi, lo + _THRESHOLD, keys, m, mode)


def nth_element(v, lo, nth, hi, keys, m, mode):
    """std::nth_element(lo, nth, hi): introselect (partitions as std::sort's, heap_select
    below 2 lg(n) levels) down to at most 3 elements, then insertion sort."""
    if lo == hi or nth == hi:
        return
    depth = 2 * _lg(hi - lo)
    while hi - lo > 3:
        if depth == 0:
            _heap_select(v, lo, nth + 1, hi, keys, m, mode)
            t = v[lo]
            v[lo] = v[nth]
            v[nth] = t
            return
        depth -= 1
        cut = _partition_pivot(v, lo, hi, keys, m, mode)
        if cut <= nth:
            lo = cut
        else:
            hi = cut
    _insertion(v, lo, hi, hi, keys, m, mode)


def quick_select(v, k, keys, m, mode):
    """TH's quick_select_template (Sedgewick's partition; torch's kthvalue): v[k] ends as the
    k-th element under `mode`'s order (torch passes gt_or_nan: DESC's comparator)."""
    lo = 0
    hi = len(v) - 1
    while True:
        if hi <= lo:
            return
        if hi == lo + 1:
            if _less(keys, m, v[lo], v[hi], mode):
                t = v[lo]
                v[lo] = v[hi]
                v[hi] = t
            return
        p = (lo + hi) >> 1
        t = v[p]
        v[p] = v[lo + 1]
        v[lo + 1] = t
        if _less(keys, m, v[lo + 1], v[hi], mode):
            t = v[lo + 1]
            v[lo + 1] = v[hi]
            v[hi] = t
        if _less(keys, m, v[lo], v[hi], mode):
            t = v[lo]
            v[lo] = v[hi]
            v[hi] = t
        if _less(keys, m, v[lo + 1], v[lo], mode):
            t = v[lo + 1]
            v[lo + 1] = v[lo]
            v[lo] = t
        i = lo + 1
        j = hi
        piv = v[lo]
        while True:
            i += 1
            while _less(keys, m, piv, v[i], mode):
                i += 1
            j -= 1
            while _less(keys, m, v[j], piv, mode):
                j -= 1
            if j < i:
                break
            t = v[i]
            v[i] = v[j]
            v[j] = t
        t = v[lo]
        v[lo] = v[j]
        v[j] = t
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


def sort_rows_loop(keys, out, mode):
    """out[r] = std::sort's order of row r of keys (rows of one key each)."""
    n = keys.shape[1]
    stack = np.empty(STACK, dtype=np.int64)
    for r in range(keys.shape[0]):
        v = out[r]
        for j in range(n):
            v[j] = j
        _std_sort(v, 0, n, keys[r], 1, mode, stack)


def topk_rows_loop(keys, out, k, mode, sorted_):
    """out[r] = torch's topk_impl_loop order of row r (all n ids; the first k are the
    result): partial_sort when k * 64 <= n, else nth_element at k - 1 and (sorted) std::sort
    of the first k - 1."""
    n = keys.shape[1]
    stack = np.empty(STACK, dtype=np.int64)
    for r in range(keys.shape[0]):
        v = out[r]
        for j in range(n):
            v[j] = j
        if k * 64 <= n:
            _partial_sort(v, 0, k, n, keys[r], 1, mode)
        else:
            _nth_element(v, 0, k - 1, n, keys[r], 1, mode)
            if sorted_:
                _std_sort(v, 0, k - 1, keys[r], 1, mode, stack)


def select_rows_loop(keys, out, k, mode, quick):
    """out[r] = the id TH's quick select (quick) or std::nth_element leaves at k in row r."""
    n = keys.shape[1]
    v = np.empty(n, dtype=np.int64)
    for r in range(keys.shape[0]):
        for j in range(n):
            v[j] = j
        if quick:
            _quick_select(v, k, keys[r], 1, mode)
        else:
            _nth_element(v, 0, k, n, keys[r], 1, mode)
        out[r] = v[k]


# the helpers the loops call by name: compiled ones once numba built them
_less, _lg, _insertion, _adjust_heap = less, lg, insertion, adjust_heap
_heap_select, _partial_sort, _partition_pivot = heap_select, partial_sort, partition_pivot
_std_sort, _nth_element, _quick_select = std_sort, nth_element, quick_select
_state = [None]  # the compiled loops (a namespace), False without numba, None before
_NAMES = ("less", "lg", "insertion", "adjust_heap", "heap_select", "partial_sort")
_NAMES += ("partition_pivot", "std_sort", "nth_element", "quick_select")


def _python_steps():
    """The algorithms as Python functions calling one another (not the compiled helpers that
    _build binds to the module's names): the path without numba or inside _fused.disabled()."""
    from types import FunctionType, SimpleNamespace

    g = dict(globals())
    for name in _NAMES:
        g[name] = g["_" + name] = FunctionType(g[name].__code__, g, name)
    return SimpleNamespace(**{name: g[name] for name in _NAMES})


_py = _python_steps()


def _compiled():
    """The compiled loops, or None without numba (or with FRAMEWORK_NUMBA=0, or inside
    ``_fused.disabled()``)."""
    from ._fused import kernels

    if kernels() is None:
        return None
    if _state[0] is None:
        _state[0] = _build()
    return _state[0] or None


def _build():
    """The loops compiled by numba (helpers first, by name, as _sum_kernel's); False where
    numba cannot compile them."""
    global _less, _lg, _insertion, _adjust_heap, _heap_select, _partial_sort
    global _partition_pivot, _std_sort, _nth_element, _quick_select
    from types import SimpleNamespace

    import numba

    def jit(fn):
        """fn compiled by numba (cached on disk), no fastmath."""
        return numba.njit(cache=True, nogil=True)(fn)

    try:
        _less, _lg, _insertion, _adjust_heap = jit(less), jit(lg), jit(insertion), jit(adjust_heap)
        _heap_select, _partial_sort = jit(heap_select), jit(partial_sort)
        _partition_pivot, _std_sort = jit(partition_pivot), jit(std_sort)
        _nth_element, _quick_select = jit(nth_element), jit(quick_select)
        return SimpleNamespace(
            sort_rows=jit(sort_rows_loop),
            topk_rows=jit(topk_rows_loop),
            select_rows=jit(select_rows_loop),
            float_keys=jit(float_keys_loop),
            std_sort=_std_sort,
        )
    except Exception:  # a numba that cannot compile these: the Python steps
        _less, _lg, _insertion, _adjust_heap = less, lg, insertion, adjust_heap
        _heap_select, _partial_sort, _partition_pivot = heap_select, partial_sort, partition_pivot
        _std_sort, _nth_element, _quick_select = std_sort, nth_element, quick_select
        return False


PY_LIMIT = 1 << 17  # elements: beyond, the Python steps (about 1 s) are not run


def can_replay(size):
    """Whether a replay of `size` elements runs: always compiled, up to PY_LIMIT in Python
    (callers keep NumPy's stable order beyond)."""
    return size <= PY_LIMIT or _compiled() is not None


def _keys(a):
    """a's values as numba-friendly keys of equal order: float64 for floating dtypes
    (float16/bfloat16/float32 convert exactly), int64 for integers and bool (uint64 kept)."""
    a = np.asarray(a)
    if a.dtype.kind in "iub" and a.dtype != np.uint64:
        return np.ascontiguousarray(a, dtype=np.int64)
    if a.dtype == np.uint64:
        return np.ascontiguousarray(a)
    return np.ascontiguousarray(a, dtype=np.float64)


_SIGN = np.int64(-(2**63))


def order_keys(a, mode):
    """int64 keys whose `<` is `mode`'s comparator (ASC or DESC) on a's values: a float's bits
    with the magnitude bits of negatives flipped (after -0 -> +0), NaN the largest; an
    unsigned 64-bit value with its top bit flipped; DESC the bitwise complement (~k = -k - 1:
    the order reversed, NaN then the smallest)."""
    a = np.asarray(a)
    if a.dtype == np.uint64:
        k = a.view(np.int64) ^ _SIGN
    elif a.dtype.kind in "iub":
        k = a.astype(np.int64)
    else:
        f = np.ascontiguousarray(a, dtype=np.float64)
        c = _compiled()
        if c is not None:  # one compiled pass instead of NumPy's five
            k = np.empty(f.shape, dtype=np.int64)
            c.float_keys(f.reshape(-1), f.reshape(-1).view(np.int64), k.reshape(-1), mode == DESC)
            return k
        f = f + 0.0  # -0 -> +0
        b = f.view(np.int64)
        k = np.where(b < 0, b ^ np.int64(2**63 - 1), b)
        k[f != f] = np.iinfo(np.int64).max
    if mode == DESC:
        k = ~k
    return np.ascontiguousarray(k)


def float_keys_loop(f, bits, out, desc):
    """order_keys of float64 values f (bits: their int64 view) into out, in one pass."""
    top = np.iinfo(np.int64).max
    for j in range(f.size):
        x = f[j]
        if x != x:
            k = top
        elif x == 0:
            k = 0
        else:
            k = bits[j]
            if k < 0:
                k = k ^ 0x7FFFFFFFFFFFFFFF
        out[j] = ~k if desc else k


def sort_rows(rows, mode):
    """std::sort's order of each row of the 2-D `rows` under `mode` (ASC or DESC): an int64
    array of rows' shape."""
    keys, mode = order_keys(rows, mode), ORDER
    out = np.empty(keys.shape, dtype=np.int64)
    k = _compiled()
    if k is not None:
        k.sort_rows(keys, out, mode)
        return out
    for r, row in enumerate(keys.tolist()):
        v = list(range(len(row)))
        _py.std_sort(v, 0, len(v), row, 1, mode, np.empty(STACK, np.int64))
        out[r] = v
    return out


def topk_rows(rows, k, mode, sorted_):
    """torch's topk order of each row of the 2-D `rows` (mode DESC for largest, else ASC):
    the (rows, k) ids."""
    keys, mode = order_keys(rows, mode), ORDER
    out = np.empty(keys.shape, dtype=np.int64)
    c = _compiled()
    if c is not None:
        c.topk_rows(keys, out, k, mode, sorted_)
        return out[:, :k]
    n = keys.shape[1]
    for r, row in enumerate(keys.tolist()):
        v = list(range(n))
        if k * 64 <= n:
            _py.partial_sort(v, 0, k, n, row, 1, mode)
        else:
            _py.nth_element(v, 0, k - 1, n, row, 1, mode)
            if sorted_:
                _py.std_sort(v, 0, k - 1, row, 1, mode, np.empty(STACK, np.int64))
        out[r] = v
    return out[:, :k]


def select_rows(rows, k, mode, quick):
    """The id that TH's quick select (`quick`) or std::nth_element leaves at position k of
    each row of the 2-D `rows`: an int64 array of len(rows)."""
    if mode in (ASC, DESC):
        keys, mode = order_keys(rows, mode), ORDER
    else:
        keys = _keys(rows)
    out = np.empty(keys.shape[0], dtype=np.int64)
    c = _compiled()
    if c is not None:
        c.select_rows(keys, out, k, mode, quick)
        return out
    for r, row in enumerate(keys.tolist()):
        v = list(range(len(row)))
        if quick:
            _py.quick_select(v, k, row, 1, mode)
        else:
            _py.nth_element(v, 0, k, len(v), row, 1, mode)
        out[r] = v[k]
    return out


def sort_order(keys, m, mode):
    """std::sort's order of the n = len(keys) // m elements of flat `keys` (m keys each,
    compared by `mode`): a list of ids."""
    n = len(keys) // m if m else 0
    c = _compiled()
    if c is not None and n:
        v = np.arange(n, dtype=np.int64)
        c.std_sort(v, 0, n, _keys(keys), m, mode, np.empty(STACK, np.int64))
        return v.tolist()
    v = list(range(n))
    keys = list(keys) if not isinstance(keys, list) else keys
    _py.std_sort(v, 0, n, keys, m, mode, np.empty(STACK, np.int64))
    return v


def row_order(flat, xp):
    """The order torch's unique_dim sorts the rows of `flat` in: std::sort of the row indices
    with a lexicographic `<` that skips a column where neither row is less (so -0 == 0, and a
    NaN ties with anything). Without NaN that is a strict weak ordering and a stable lexsort
    gives its order (torch's insertion sort, up to 16 rows, is stable too); with NaN it is not,
    and the order is std::sort's own, replayed (as for more than 16 rows with zeros of both
    signs, where the unstable sort picks which row represents its run)."""
    n = flat.shape[0]
    replay = flat.dtype.kind in "fc" and n > 1 and bool(xp.isnan(flat).any())
    if flat.dtype.kind == "f" and n > 16 and not replay:  # beyond insertion sort: unstable,
        zero = flat == 0  # so which of the rows equal up to a zero's sign comes first is its
        replay = bool(xp.signbit(flat[zero]).any() and (~xp.signbit(flat[zero])).any())
    if replay:
        m = flat.shape[1]
        return xp.asarray(sort_order(flat.reshape(-1).tolist(), m, LEX), dtype="int64")
    if not flat.shape[1]:
        return xp.arange(n)
    return xp.lexsort(flat.T[::-1])
