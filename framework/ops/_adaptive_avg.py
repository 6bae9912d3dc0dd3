"""torch's CPU adaptive average pooling kernels (ATen ``AdaptiveAvgPoolKernel.cpp``,
contiguous layout) replayed to the bit for float32/float64.

Forward: each window (rows ``start_index`` to ``end_index``, the same for columns) is summed
from 0 in row-major order (one accumulator in the dtype), then divided by its height and then
by its width (``sum / kh / kw``). Backward: each output gradient divided the same way is
added into its window's input positions, windows visited row by row, onto a zero-filled
gradient. Both gather the window positions and fold them in order (each partial sum rounded
in the dtype), so the arrays are exact as torch's loops, with or without numba; where numba
is, compiled loops (``_replay_jit``) run the same additions and divisions in the same order.
"""

import functools

import numpy as np

from ._norm_kernel import down
from ._replay_jit import loops


@functools.lru_cache(maxsize=128)
def windows(size, out):
    """torch's start_index/end_index of each of the ``out`` windows over ``size`` values, as
    (starts, ends) int64 arrays (read-only, kept per size pair)."""
    i = np.arange(out, dtype=np.int64)
    start = (i // out) * size + ((i % out) * size) // out
    end = 1 + ((i + 1) * size - 1) // out
    start.flags.writeable = end.flags.writeable = False
    return start, end


def _padded(lists, fill):
    """The ragged ``lists`` as a rectangular int64 array, short rows padded with ``fill``."""
    width = max((len(v) for v in lists), default=0)
    out = np.full((len(lists), width), fill, np.int64)
    for r, v in enumerate(lists):
        out[r, : len(v)] = v
    return out


def _window_sums(flat, idx):
    """Each output's sum from 0 of ``flat[..., idx[o, k]]`` for k in order (an index to a zero
    pads a short window). The positions are folded row by row (``down``); adding +0 at the
    end gives what a sum started from +0 gives (they differ only in the sign of a zero)."""
    picked = flat[..., idx]  # lead + (outputs..., K)
    cols = np.moveaxis(picked, -1, 0).reshape(idx.shape[-1], -1)
    return (down(cols) + flat.dtype.type(0)).reshape(picked.shape[:-1])


def forward(x, oh, ow):
    """Adaptive average pooling of ``x`` (..., H, W) to (..., oh, ow) as torch computes it."""
    h, w = x.shape[-2:]
    hs, he = windows(h, oh)
    ws, we = windows(w, ow)
    kh = (he - hs).astype(x.dtype)[:, None]
    kw = (we - ws).astype(x.dtype)[None, :]
    lead = x.shape[:-2]
    k = loops()
    if k is not None:
        out = np.empty(lead + (oh, ow), x.dtype)
        x3 = np.ascontiguousarray(x).reshape(-1, h, w)
        k.aap_forward(x3, hs, he, ws, we, kh[:, 0], kw[0], out.reshape(-1, oh, ow))
        return out
    if h % oh == 0 and w % ow == 0:  # equal windows: a view, the positions in row order
        v = x.reshape(lead + (oh, h // oh, ow, w // ow))
        v = np.moveaxis(v, (-3, -1), (0, 1)).reshape((h // oh) * (w // ow), -1)
        total = (down(v) + x.dtype.type(0)).reshape(lead + (oh, ow))
        return total / kh / kw
    rows = _padded([range(a, b) for a, b in zip(hs, he)], h)  # (oh, KH), pad: row h (zeros)
    cols = _padded([range(a, b) for a, b in zip(ws, we)], w)  # (ow, KW), pad: column w
    flat = np.zeros(lead + (h + 1, w + 1), x.dtype)
    flat[..., :h, :w] = x
    flat = flat.reshape(lead + ((h + 1) * (w + 1),))
    idx = rows[:, None, :, None] * (w + 1) + cols[None, :, None, :]  # (oh, ow, KH, KW)
    return _window_sums(flat, idx.reshape(oh, ow, -1)) / kh / kw


def backward(g, h, w):
    """The input gradient (..., h, w) of adaptive average pooling for grad_output ``g``
    (..., oh, ow), as torch's cpu_adaptive_avg_pool_backward adds it up."""
    oh, ow = g.shape[-2:]
    hs, he = windows(h, oh)
    ws, we = windows(w, ow)
    kh = (he - hs).astype(g.dtype)[:, None]
    kw = (we - ws).astype(g.dtype)[None, :]
    lead = g.shape[:-2]
    k = loops()
    if k is not None:
        out = np.zeros(lead + (h, w), g.dtype)
        g3 = np.ascontiguousarray(g).reshape(-1, oh, ow)
        k.aap_backward(g3, hs, he, ws, we, kh[:, 0], kw[0], out.reshape(-1, h, w))
        return out
    delta = g / kh / kw
    by_row = _padded([np.nonzero((hs <= i) & (i < he))[0] for i in range(h)], oh)  # (h, KH)
    by_col = _padded([np.nonzero((ws <= j) & (j < we))[0] for j in range(w)], ow)  # (w, KW)
    flat = np.zeros(lead + (oh + 1, ow + 1), g.dtype)
    flat[..., :oh, :ow] = delta
    flat = flat.reshape(lead + ((oh + 1) * (ow + 1),))
    idx = by_row[:, None, :, None] * (ow + 1) + by_col[None, :, None, :]  # (h, w, KH, KW)
    return _window_sums(flat, idx.reshape(h, w, -1))
