"""Which elements torch's CPU kernels (AVX2 build) compute in their scalar tail loop.

A TensorIterator kernel over a contiguous tensor of n elements runs serially below 32768
elements, else splits the range into min(threads, ceil(n / 32768)) equal chunks. Each chunk
runs its vectorized loop two vectors (32 half values on AVX2) at a time and leaves the last
`len % 32` elements to a scalar loop. For half types some kernels round differently there:
`add`/`sub` with alpha round `alpha * y` before adding (the vectorized body rounds once), and
bfloat16 `rsqrt` rounds the square root; float32 `pow` by a Scalar exponent computes
`std::pow(float, double)` there (in double, then rounded), two `Vectorized<float>` (16 values)
at a time in the body. `with_tail(fast, slow)` puts `slow`'s values at those positions of
`fast`; `tail_of(fast, fn, width)` recomputes them with `fn` of the flat input's slices.

Example:
    >>> tail_ranges(40)
    [(32, 40)]
"""

import os

GRAIN = 32768  # at::internal::GRAIN_SIZE
WIDTH = 32  # 2 * Vectorized<Half or BFloat16>::size() on AVX2


def _threads():
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def tail_ranges(n, threads=None, width=WIDTH):
    """(start, stop) ranges of the scalar-loop elements of a contiguous n-element kernel whose
    vectorized loop takes `width` elements at a time."""
    if n < GRAIN:
        chunks = [(0, n)]
    else:
        tasks = min(threads or _threads(), -(-n // GRAIN))
        size = -(-n // tasks)
        chunks = [(s, min(s + size, n)) for s in range(0, n, size)]
    return [(s + (e - s) // width * width, e) for s, e in chunks if (e - s) % width]


def with_tail(fast, slow, width=WIDTH):
    """`fast` (C-contiguous) with the scalar-loop elements taken from `slow` (same shape)."""
    ranges = tail_ranges(fast.size, width=width)
    if not ranges:
        return fast
    out, alt = fast.reshape(-1), slow.reshape(-1)
    for s, e in ranges:
        out[s:e] = alt[s:e]
    return fast


def tail_of(out, x, fn, width):
    """`out` (C-contiguous, the vectorized result of an elementwise kernel of the C-contiguous
    `x`) with the scalar-loop elements replaced by `fn(x's flat slice)` (cast to out's dtype)."""
    n = out.size
    if n < GRAIN:  # one chunk (the common case, without the ranges' list)
        start = n - n % width
        if start < n:
            out.reshape(-1)[start:] = fn(x.reshape(-1)[start:])
        return out
    ranges = tail_ranges(n, width=width)
    if ranges:
        flat, src = out.reshape(-1), x.reshape(-1)
        for s, e in ranges:
            flat[s:e] = fn(src[s:e])
    return out
