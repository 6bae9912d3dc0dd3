"""torch's CPU row moments (layer_norm, group_norm) where they overflow.

torch's kernels take the mean and variance of each row with a vectorised Welford pass
(``RowwiseMoments`` in ATen's ``moments_utils.h``): 16-vector chunks per lane, combined in a
cascade, a scalar Welford over the tail, then the lanes merged into the tail. The merge adds
``delta * delta * c * m0``: where ``delta`` squared overflows (``|x|`` beyond the square root of
the dtype's maximum) and one side is empty (``m0 == 0`` or ``c == 0``) that is
``inf * 0 = NaN``, and a running ``m2`` overflows to inf where a two-pass variance stays
finite. The fast two-pass statistics are exact elsewhere; rows with such magnitudes get this
emulation (lane widths of the AVX2 kernels: 8 float32, 4 float64)."""

import math

from ..backend import to_numpy

_CHUNK = 16


def _add(m0_add, m1_add, m2_add, m0, m1, m2, dt, vec=False):
    """ATen's AddMoments (AddMomentsVec with `vec`): merge (m0_add, m1_add, m2_add) into
    (m0, m1, m2). As measured on torch's AVX2 build, the vector merge's delta term is 0 where
    one side is empty (c * m0 == 0) even if delta squared overflows, as if it were
    delta * (delta * (c * m0)); the scalar one is (delta * delta) * c * m0: inf * 0 = NaN."""
    n = m0 + m0_add
    c = dt.type(0) if n == 0 else dt.type(m0_add) / dt.type(n)
    delta = m1_add - m1
    if vec:
        return n, m1 + c * delta, m2 + (m2_add + delta * (delta * (c * dt.type(m0))))
    return n, m1 + c * delta, m2 + (m2_add + delta * delta * c * dt.type(m0))


def _rowwise(x):
    """(mean, biased variance) of each row of the 2-D NumPy array x, as torch's kernel."""
    import numpy as np

    dt = x.dtype
    lanes = 32 // dt.itemsize
    rows, N = x.shape
    n = N // lanes
    m = -(-n // _CHUNK)
    depth = 1 if m <= 2 else math.ceil(math.log2(m))
    zero = np.zeros((rows, lanes), dt)
    stk = [[0, zero, zero] for _ in range(depth)]
    with np.errstate(all="ignore"):
        for i in range(m):
            count = min(_CHUNK, n - i * _CHUNK)
            m1 = m2 = zero
            for j in range(count):
                xv = x[:, (i * _CHUNK + j) * lanes : (i * _CHUNK + j + 1) * lanes]
                delta = xv - m1
                m1 = m1 + delta * (dt.type(1) / dt.type(j + 1))
                m2 = m2 + delta * (xv - m1)
            stk[0] = list(_add(count, m1, m2, *stk[0], dt, True))
            mask, j = i + 1, 1
            while j < depth and mask & 1 == 0:
                stk[j] = list(_add(*stk[j - 1], *stk[j], dt, True))
                stk[j - 1] = [0, zero, zero]
                mask >>= 1
                j += 1
        for i in range(1, depth):
            stk[0] = list(_add(*stk[i], *stk[0], dt, True))
        m0, m1, m2 = 0, np.zeros(rows, dt), np.zeros(rows, dt)
        for i in range(n * lanes, N):
            delta = x[:, i] - m1
            m0 += 1
            m1 = m1 + delta / dt.type(m0)
            m2 = m2 + delta * (x[:, i] - m1)
        for lane in range(lanes):
            m0, m1, m2 = _add(n, stk[0][1][:, lane], stk[0][2][:, lane], m0, m1, m2, dt)
        return m1, m2 / dt.type(N)


def kernel_moments(xp, rows, mean, var):
    """Replace, in place, the (mean, var) of the rows of `rows` (2-D: one row per normalised
    group; mean and var shaped (R,)) whose magnitudes overflow torch's Welford merge by the
    kernel's own values (NaN or inf where it gives them); True if any row was replaced."""
    if rows.dtype.kind != "f" or rows.dtype.itemsize not in (4, 8) or not rows.size:
        return False
    limit = math.sqrt(float(xp.finfo(rows.dtype).max)) / 2
    # |x| <= |mean| + sqrt(N var) bounds each row from the statistics at hand (O(rows) work)
    bound = abs(mean) + xp.sqrt(var * rows.shape[1])
    maybe = bound > limit / 2
    if not bool(maybe.any()):
        return False
    big = xp.zeros(maybe.shape, bool)
    big[maybe] = xp.abs(rows[maybe]).max(axis=1) > limit
    if not bool(big.any()):
        return False
    m, v = _rowwise(to_numpy(rows[big]))
    mean[big] = xp.asarray(m)
    var[big] = xp.asarray(v)
    return True
