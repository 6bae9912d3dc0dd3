"""Fused multiply-add with one rounding, as torch's AVX2 build computes ``x * y + z``.

NumPy has no FMA ufunc, so both are emulated exactly with rounding to odd (Boldo and
Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
odd", IEEE TC 2008): the exact result is first rounded to odd in a wider (or split) format,
and rounding that to the target precision gives the correctly rounded fused result.
"""

import numpy as np

_F32, _F64 = np.float32, np.float64
_SPLIT = _F64(2.0**27 + 1)
_BIG, _DOWN, _UP = _F64(2.0**995), _F64(2.0**-128), _F64(2.0**128)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_to_odd(s, err):
    """Move an inexact round-to-nearest result with an even last bit to its odd neighbour
    on the side of the exact value."""
    inexact = (err != 0) & np.isfinite(err)
    if not inexact.any():
        return s
    even = (s.view(np.int64) & 1) == 0
    fix = inexact & even
    return np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def fma32(a, b, c):
    """``a * b + c`` in float32 with a single rounding (float32 inputs).

    The float32 product is exact in float64; the float64 sum rounded to odd then rounds to
    float32 correctly (53 >= 24 + 2 bits)."""
    p = np.asarray(a, dtype=_F64) * _F64(b)
    s, err = _two_sum(p, np.asarray(c, dtype=_F64))
    return _round_to_odd(np.asarray(s), np.asarray(err)).astype(_F32)


def _split(x):
    t = _SPLIT * x
    hi = t - (t - x)
    return hi, x - hi


def _finite_big(x):
    return (np.abs(x) > _BIG) & np.isfinite(x)


def fma64(a, b, c):
    """``a * b + c`` in float64 with a single rounding (no overflow in the partial products).

    The product is made exact as a sum of two doubles (Veltkamp/Dekker), the low parts are
    added with rounding to odd, and the final addition rounds once."""
    a = np.asarray(a, dtype=_F64)
    b = np.asarray(b, dtype=_F64)
    c = np.asarray(c, dtype=_F64)
    with np.errstate(invalid="ignore"):  # (inf and nan are not big: they pass through)
        big = (_finite_big(a) | _finite_big(b)) | _finite_big(c)
    if big.any():  # Veltkamp's split overflows near the maximum: scale by 2**-128 (exact for
        # such magnitudes) the larger factor and the addend, then scale the result back
        a, b = np.broadcast_arrays(a, b)
        first = np.abs(a) >= np.abs(b)
        down = np.where(big, _DOWN, _F64(1))
        a2, b2 = np.where(big & first, a * down, a), np.where(big & ~first, b * down, b)
        return fma64(a2, b2, c * down) * np.where(big, _UP, _F64(1))
    ph = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
    th, tl = _two_sum(c, ph)
    v, e = _two_sum(tl, pl)
    v = _round_to_odd(np.asarray(v, dtype=_F64), np.asarray(e))
    out = th + v
    finite = np.isfinite(ph) & np.isfinite(c)  # inf/nan as plain arithmetic gives them
    return np.where(finite, out, ph + c)


def fused(a, b, c, out=None):
    """``a * b + c`` with one rounding, elementwise with broadcasting, for float32/float64
    NumPy arrays of one dtype (``b`` may be a scalar of that dtype): torch's CPU kernels
    that call ``vec::fmadd`` (add/sub with alpha, lerp, addcmul) and whose scalar loops are
    compiled with FMA contraction. Compiled FMA loops where numba is installed (the ``fast``
    extra; checked at first use to round once), else the exact emulation above. ``out``:
    write the result there."""
    loops = _LOOPS[0]
    if loops is None:
        loops = _load_loops()
    if loops:
        scalar, array, ufunc = loops
        if (
            type(a) is np.ndarray
            and type(c) is np.ndarray
            and a.shape == c.shape
            and a.flags.c_contiguous
            and c.flags.c_contiguous
            and (out is None or out.shape == c.shape and out.flags.c_contiguous)
        ):
            target = np.empty_like(c) if out is None else out
            if type(b) is np.ndarray:
                if b.shape == c.shape and b.flags.c_contiguous and array is not None:
                    array(a.reshape(-1), b.reshape(-1), c.reshape(-1), target.reshape(-1))
                    return target
            elif scalar is not None:
                scalar(a.reshape(-1), b, c.reshape(-1), target.reshape(-1))
                return target
        if ufunc is not None:
            return ufunc(a, b, c) if out is None else ufunc(a, b, c, out=out)
    dt = np.result_type(a, b, c)
    res = fma32(a, b, c) if dt == _F32 else fma64(a, b, c)
    res = res.reshape(np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c)))
    if out is None:
        return res
    out[...] = res
    return out


_LOOPS = [None]  # (flat scalar loop, flat array loop, broadcasting ufunc), or False


def _load_loops():
    """The compiled FMA loops, kept once built (torch's single rounding is a numerical fact,
    so they stay on inside ``_fused.disabled()``); False (the emulation) until then."""
    from .ops._fused import kernels

    k = kernels()
    if k is None:
        return False
    _LOOPS[0] = loops = (k.fma_scalar, k.fma_array, k.ufunc.fma)
    return loops


def fusable(first, *others):
    """True for NumPy float32/float64 arrays (``others``: arrays or scalars) of one dtype:
    where torch's CPU kernels fuse the multiply-add and ``fused`` gives the same bits (the one
    test the ops and the optimizers share)."""
    if type(first) is not np.ndarray or first.dtype.char not in "fd":
        return False
    dt = first.dtype
    for o in others:
        if getattr(o, "dtype", None) != dt:
            return False
    return True


def add_scaled(a, b, alpha):
    """``a + alpha * b`` as torch's CPU ``add``/``sub`` with ``alpha`` on float32/float64:
    ``vec::fmadd(other, alpha, self)``, one rounding, alpha first rounded to the arrays'
    dtype (the kernel's opmath type)."""
    return fused(b, a.dtype.type(alpha), a)
