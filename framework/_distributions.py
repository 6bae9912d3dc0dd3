"""torch's CPU distributions as NumPy arrays, drawn from a :class:`framework.random.Generator`.

Each function reproduces the transformation torch 2.13 applies to its mt19937 stream (see
ATen's DistributionTemplates.h and TransformationHelper.h), including which draws are 32-
and which 64-bit, the order of the draws and the fused multiply-adds of the AVX2 build.
All work on flat arrays of ``n`` elements in the tensor's memory order.
"""

import math

import numpy as np

from ._fma import fma32, fma64
from ._normal_avx2 import normal_fill_float32

_F32, _F64 = np.float32, np.float64
_M24, _M53 = np.uint64(0xFFFFFF), np.uint64(2**53 - 1)
_BLOCK, _BLOCKED_BELOW = 1024, 65536  # uniform: the FMA path of tensors this small, in blocks
_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}  # mantissa bits


def is_float(dt):
    """Floating dtypes, bfloat16 (ml_dtypes, NumPy kind 'V') included."""
    return dt.name in _DIGITS


def uniform(gen, n, dt, low=0.0, high=1.0):
    """torch's uniform_: 24 random bits (float32, float16) or 53 (float64), then
    ``x * (to - from) + from`` with one rounding (an FMA on AVX2) in float32 or float64; a
    value that rounds to ``to`` in the tensor's dtype becomes ``from`` (torch keeps [from, to))."""
    if _BLOCK < n < _BLOCKED_BELOW and (low, high) != (0.0, 1.0):
        # the FMA's emulation keeps ~6 float64 temporaries alive: for a small tensor (a
        # Linear(512, 10) weight: 40 KiB each) they grew the C heap, whose top then stays
        # resident (glibc keeps 128 KiB of it); in blocks they fit its free lists. Every step
        # is elementwise and the stream sequential, so the values are the same.
        out = np.empty(n, dt)
        for i in range(0, n, _BLOCK):
            out[i : i + _BLOCK] = uniform(gen, min(_BLOCK, n - i), dt, low, high)
        return out
    if dt == np.float64:
        x = uniform53(gen, n)
        lo, hi = _F64(low), _F64(high)
        if (low, high) != (0.0, 1.0):
            x = fma64(x, hi - lo, np.full_like(x, lo))
    else:
        x = (gen._random(n) & _M24).astype(_F32) * _F32(2.0**-24)
        if (low, high) != (0.0, 1.0):
            x = fma32(x, _F32(high) - _F32(low), _F32(low))
        x = x.astype(dt, copy=False)
        lo, hi = dt.type(low), dt.type(high)
    x[x == hi] = lo
    return x


def normal(gen, n, dt, mean=0.0, std=1.0, contiguous=True):
    """torch's ``normal_``: Box-Muller in blocks of 16 for 16+ contiguous elements (float32:
    AVX2 polynomials), else one double Box-Muller per element sharing a left-over value."""
    if n >= 16 and contiguous and is_float(dt):
        fill = {np.float32: normal_fill_float32, np.float64: _normal_fill_float64}.get(
            dt.type, _normal_fill_half
        )
        ut = _F64 if dt == np.float64 else _F32  # float16 computes in float (opmath)
        u = uniform(gen, n, np.dtype(ut))
        tail = uniform(gen, 16, np.dtype(ut)) if n % 16 else None
        out = fill(u[: n - n % 16].reshape(-1, 16), mean, std).ravel()
        if tail is not None:
            out = np.concatenate([out[: n - 16], fill(tail.reshape(1, 16), mean, std).ravel()])
        return out.astype(dt, copy=False)
    return _normal_serial(gen, n, mean, std).astype(dt, copy=False)


def uniform53(gen, n):
    """n doubles in [0, 1) from 53 random bits each (torch's uniform_real<double>)."""
    return (gen._random64(n) & _M53).astype(_F64) * _F64(2.0**-53)


def _normal_fill_float64(u, mean, std):
    """normal_fill_16 in double: element j pairs with j + 8 of its block of 16."""
    u1, u2 = 1.0 - u[:, :8], u[:, 8:]
    radius = np.sqrt(-2.0 * np.log(u1))
    theta = (2.0 * math.pi) * u2
    out = np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1)
    if (mean, std) != (0.0, 1.0):
        out = fma64(out, _F64(std), np.full_like(out, mean))
    return out


def _normal_fill_half(u, mean, std):
    """normal_fill_16 for float16: float32 uniforms and float arithmetic (libm's float log,
    sin and cos, here correctly rounded from double), rounded to half by the caller."""
    u1, u2 = _F32(1) - u[:, :8], u[:, 8:]
    radius = np.sqrt(_F32(-2) * np.log(u1.astype(_F64)).astype(_F32))
    theta = ((2.0 * math.pi) * u2.astype(_F64)).astype(_F32).astype(_F64)
    out = np.concatenate(
        [radius * np.cos(theta).astype(_F32), radius * np.sin(theta).astype(_F32)], axis=1
    )
    if (mean, std) != (0.0, 1.0):
        out = fma32(out, _F32(std), _F32(mean))
    return out


def _normal_serial(gen, n, mean, std):
    """at::normal_distribution<double>, one element at a time in memory order: a left-over
    ``r * sin(theta)`` from the previous pair is used first and is kept in the generator."""
    out = np.empty(n, dtype=_F64)
    start = 0
    if n and gen._next_double is not None:
        out[0], gen._next_double, start = gen._next_double, None, 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = (gen._random64(2 * pairs) & _M53).astype(_F64) * _F64(2.0**-53)
        r = np.sqrt(-2.0 * np.log1p(-u[1::2]))
        theta = (2.0 * math.pi) * u[0::2]
        both = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1).ravel()
        out[start:] = both[: n - start]
        if (n - start) % 2:
            gen._next_double = float(both[-1])
    if (mean, std) != (0.0, 1.0):
        out = fma64(out, _F64(std), np.full_like(out, mean))
    return out


def exponential(gen, n, lambd):
    """torch's CPU exponential: ``-1 / lambda * log1p(-u)`` in double."""
    return (-1.0 / lambd) * np.log1p(-uniform53(gen, n))


def geometric(gen, n, p):
    """torch's geometric: ``ceil(log(u) / log1p(-p))`` in double."""
    return np.ceil(np.log(uniform53(gen, n)) / math.log1p(-p))


def log_normal(gen, n, mean, std):
    """torch's log_normal: ``exp(normal(mean, std))``, one double Box-Muller per element."""
    return np.exp(_normal_serial(gen, n, mean, std))


def cauchy(gen, n, median, sigma):
    """torch's cauchy: ``median + sigma * tan(pi * (u - 0.5))`` in double."""
    return median + sigma * np.tan(math.pi * (uniform53(gen, n) - 0.5))


def rrelu_noise(gen, x, lower, upper):
    """rrelu's training slopes: ``u * (upper - lower) + lower`` in double for each element
    <= 0 in memory order (bounds rounded to the opmath type first), 1 elsewhere."""
    neg = np.ascontiguousarray(x) <= 0
    noise = np.ones(x.shape, dtype=x.dtype)
    u = uniform53(gen, int(neg.sum()))
    opmath = _F64 if x.dtype == _F64 else _F32  # the bounds pass through torch's opmath type
    lo, hi = _F64(opmath(lower)), _F64(opmath(upper))
    noise[neg] = (u * (hi - lo) + lo).astype(x.dtype)  # no FMA: Activation.cpp, generic flags
    return noise


def bernoulli_scalar(gen, n, p):
    """bernoulli_(float p) and dropout masks: one 53-bit uniform per element, ``u < p``."""
    return uniform53(gen, n) < p


def bernoulli_tensor(gen, p):
    """bernoulli(p tensor): a uniform of p's precision per element (24 bits unless double)."""
    if p.dtype == np.float64:
        return uniform53(gen, p.size) < p.ravel()
    u = (gen._random(p.size) & _M24).astype(_F32) * _F32(2.0**-24)
    return u < p.ravel().astype(_F32)


def random_from_to(gen, n, low, span, dt):
    """random_(from, to): ``word % range + from``; 64-bit words when range >= 2**28 (torch
    2.13's uniform_int_from_to_distribution, measured for int32, int64 and floats)."""
    if span >= 2**28:
        v = gen._random64(n) % np.uint64(span)
    else:
        v = gen._random(n) % np.uint64(span)
    return (v.astype(np.int64) + np.int64(low)).astype(dt, copy=False)


def random_full64(gen, n, dt):
    """random_(-2**63, None): all 64 bits, read as int64."""
    return gen._random64(n).view(np.int64).astype(dt, copy=False)


def random_default(gen, n, dt):
    """random_() with no bounds: [0, max] of the dtype (floats: [0, 2**mantissa digits])."""
    if dt == np.bool_:
        return (gen._random(n) & np.uint64(1)).astype(np.bool_)
    mod = 2 ** _DIGITS[dt.name] + 1 if is_float(dt) else int(np.iinfo(dt).max) + 1
    wide = dt in (np.int64, np.float64)
    v = (gen._random64(n) if wide else gen._random(n)) % np.uint64(mod)
    return v.astype(dt)


def randperm(gen, n):
    """torch's CPU randperm: forward Fisher-Yates, swapping i with i + random() % (n - i)."""
    if n < 0xFFFFFFFF // 20:
        z = (gen._random(max(n - 1, 0)) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        r = list(range(n))
        for i, k in enumerate(z):
            j = i + k
            r[i], r[j] = r[j], r[i]
        return np.array(r, dtype=np.int64)
    r = np.arange(n, dtype=np.int64)  # torch's "inside-out" variant for huge n
    z = (gen._random64(n) % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64)
    for i in range(n):
        r[i], r[z[i]] = r[z[i]], i
    return r


def multinomial_with_replacement(gen, probs, num_samples):
    """One 53-bit uniform per draw, searched (leftmost) in the row's normalised cumulative
    sum computed sequentially in the probabilities' dtype; rows one after another."""
    rows = probs.reshape(-1, probs.shape[-1])
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows):
        cum = np.cumsum(row, dtype=row.dtype)
        cum = cum / cum[-1]
        cum[-1] = 1
        out[i] = np.searchsorted(cum.astype(_F64), uniform53(gen, num_samples), side="left")
    return out.reshape(probs.shape[:-1] + (num_samples,))
