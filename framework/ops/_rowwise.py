"""Sums along the last axis of float arrays without NumPy's short-axis reduction.

NumPy reduces a (R, n) array over its last axis row by row, which for n in the tens to
hundreds is 3-10x slower than one matrix-vector product (BLAS) or an einsum over the same
numbers. The fused softmax, log_softmax, layer_norm and attention kernels take their row sums
here. The sums are of the same numbers in another order (last-bit differences only).
"""

SMALL = 4096  # below this many elements NumPy's own reduction costs no more (fewer calls)


def _rows_ok(a, axis):
    """Whether `a` is a float32/float64 array of SMALL or more elements, reduced over its last
    axis."""
    return (
        axis == a.ndim - 1
        and a.ndim
        and a.size >= SMALL
        and a.dtype.kind == "f"
        and a.dtype.itemsize >= 4
    )


def row_sum(xp, a, axis):
    """a.sum(axis, keepdims=True); over the last axis as one matrix-vector product."""
    if not (_rows_ok(a, axis) and a.flags.c_contiguous):
        return a.sum(axis=axis, keepdims=True)
    n = a.shape[-1]
    return (a.reshape(-1, n) @ xp.ones((n, 1), a.dtype)).reshape(a.shape[:-1] + (1,))


def row_dot(xp, a, b, axis):
    """(a * b).sum(axis, keepdims=True) without the product array, over the last axis."""
    if a.shape != b.shape or a.dtype != b.dtype or not _rows_ok(a, axis):
        return (a * b).sum(axis=axis, keepdims=True)
    return xp.einsum("...i,...i->...", a, b)[..., None]
