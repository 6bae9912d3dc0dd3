"""torch's CPU row order for unique(dim=...): std::sort of the row indices with a
lexicographic `<`, replayed step by step (libstdc++'s introsort) where the comparator is not a
strict weak ordering (NaN) or the sort's instability shows (zeros of both signs)."""


def row_order(flat, xp):
    """The order torch's unique_dim sorts the rows of `flat` in: std::sort of the row indices
    with a lexicographic `<` that skips a column where neither row is less (so -0 == 0, and a
    NaN ties with anything). Without NaN that is a strict weak ordering and a stable lexsort
    gives its order (torch's insertion sort, up to 16 rows, is stable too); with NaN it is not,
    and the order is std::sort's own, replayed by `_std_sort` (as for more than 16 rows with
    zeros of both signs, where the unstable sort picks which row represents its run)."""
    n = flat.shape[0]
    replay = flat.dtype.kind in "fc" and n > 1 and bool(xp.isnan(flat).any())
    if flat.dtype.kind == "f" and n > 16 and not replay:  # beyond insertion sort: unstable,
        zero = flat == 0  # so which of the rows equal up to a zero's sign comes first is its
        replay = bool(xp.signbit(flat[zero]).any() and (~xp.signbit(flat[zero])).any())
    if replay:
        rows = [tuple(r) for r in flat.tolist()]

        def less(a, b):
            """Row a before row b by a lexicographic `<` (NaN compares false both ways)."""
            for x, y in zip(rows[a], rows[b]):
                if x < y:
                    return True
                if x > y:
                    return False
            return False

        return xp.asarray(_std_sort(list(range(n)), less), dtype="int64")
    if not flat.shape[1]:
        return xp.arange(n)
    return xp.lexsort(flat.T[::-1])


def _std_sort(v, less):
    """libstdc++'s std::sort of list v with comparator `less` (introsort: median-of-three
    quicksort down to runs of 16, then insertion sort), step by step, so that a comparator
    that is not a strict weak ordering (NaN) gives the same order as in torch. The unguarded
    scans stop at the ends of the list (C++ would read past them)."""
    n = len(v)

    def insertion(lo, hi, guarded_from):
        """std::__insertion_sort of v[lo:hi], unguarded from `guarded_from` on."""
        for i in range(lo + 1, hi):
            val = v[i]
            if i < guarded_from and less(val, v[lo]):
                v[lo + 1 : i + 1] = v[lo:i]
                v[lo] = val
                continue
            j = i
            while j > 0 and less(val, v[j - 1]):
                v[j] = v[j - 1]
                j -= 1
            v[j] = val

    def sift(lo, hole, length, val):
        """std::__adjust_heap: sift val down from `hole` in the heap v[lo:lo + length]."""
        top, child = hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if less(v[lo + child], v[lo + child - 1]):
                child -= 1
            v[lo + hole] = v[lo + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            v[lo + hole] = v[lo + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and less(v[lo + parent], val):
            v[lo + hole] = v[lo + parent]
            hole = parent
            parent = (hole - 1) // 2
        v[lo + hole] = val

    def heapsort(lo, hi):  # std::__partial_sort(lo, hi, hi): make_heap then sort_heap
        """std::__partial_sort(lo, hi, hi) of v[lo:hi]: make_heap then sort_heap."""
        length = hi - lo
        for parent in range((length - 2) // 2, -1, -1):
            sift(lo, parent, length, v[lo + parent])
        for last in range(hi - 1, lo, -1):
            val = v[last]
            v[last] = v[lo]
            sift(lo, 0, last - lo, val)

    def introsort(lo, hi, depth):
        """std::__introsort_loop over v[lo:hi] with `depth` quicksort levels left."""
        while hi - lo > 16:
            if depth == 0:
                heapsort(lo, hi)
                return
            depth -= 1
            a, b, c = lo + 1, lo + (hi - lo) // 2, hi - 1
            if less(v[a], v[b]):
                m = b if less(v[b], v[c]) else (c if less(v[a], v[c]) else a)
            else:
                m = a if less(v[a], v[c]) else (c if less(v[b], v[c]) else b)
            v[lo], v[m] = v[m], v[lo]
            first, last = lo + 1, hi
            while True:
                while first < hi - 1 and less(v[first], v[lo]):
                    first += 1
                last -= 1
                while last > lo and less(v[lo], v[last]):
                    last -= 1
                if first >= last:
                    break
                v[first], v[last] = v[last], v[first]
                first += 1
            introsort(first, hi, depth)
            hi = first

    if n > 1:
        introsort(0, n, 2 * (n.bit_length() - 1))
        insertion(0, n, 16)
    return v
