"""torch's CPU moment kernels, replayed: layer_norm's and group_norm's row moments
(``RowwiseMoments``), var/std/var_mean/std_mean (``WelfordOps`` and ``std_var_all_cpu``),
batch_norm's training statistics (``batch_norm_cpu_collect_stats_*``).

``RowwiseMoments`` (ATen ``moments_utils.h``) reads a row as vectors (8 float32 / 4 float64
lanes on torch's AVX2 build), runs a Welford update per lane over chunks of 16 vectors
(``m1 = fmadd(1/(j+1), x - m1, m1)``, ``m2 = fmadd(delta, x - m1, m2)``), merges the chunks in a
cascade (``AddMomentsVec``: ``m2 = fmadd(delta * m0, c * delta, m2 + m2_add)``), runs a scalar
Welford over the tail (not contracted: measured), then merges the lanes one by one into it
(``AddMoments``: contracted into ``m1 = fma(c, delta, m1)``, ``m2 += fma(delta * delta * c, m0,
m2_add)``: measured). The variance is ``m2 / N``. Each loop below does these operations in that
order, with a single-rounding fused multiply-add where torch's build has one (``fma``: LLVM's
``llvm.fma`` intrinsic under numba, ``framework._fma.fused`` in the NumPy replays). Compiled by
numba when it is there (``FRAMEWORK_NUMBA=0``: the NumPy replays, the same bits, slower).

Example:
    >>> import numpy as np
    >>> m, v = row_moments(np.arange(10, dtype=np.float32).reshape(1, 10))
    >>> float(m[0]), float(v[0])
    (4.5, 8.25)
"""

import math

import numpy as np

from .._fma import fused
from ._sum_kernel import ceil_log2

_CHUNK = 16
_STACK = 64  # kMaxDepth's largest value


def _lanes(dtype):
    """The vector lanes of torch's AVX2 kernels for dtype (32 bytes)."""
    return 32 // np.dtype(dtype).itemsize


# --- the compiled loops (plain Python here; numba compiles them in _build) -----------------


def fma(a, b, c):
    """a * b + c with one rounding (numba: llvm.fma; in Python, the exact emulation)."""
    return fused(np.asarray([a]), np.asarray([b], np.asarray(a).dtype), np.asarray([c]))[0]


def moments_row(x, base, N, L, stk, out, i):
    """RowwiseMomentsImpl over x[base:base + N] (L lanes) into out[i, 0] (mean), out[i, 1]
    (m2 / N); stk: a (2 * _STACK + 4, L) scratch array of x's dtype (its last row converts
    counts to the dtype: numba would promote a float32 with an integer to float64)."""
    n = N // L
    m = (n + _CHUNK - 1) // _CHUNK
    depth = _ceil_log2(m)
    cv = stk[2 * _STACK + 2]
    cv[0] = 0
    zero = cv[0]
    m0s = np.zeros(_STACK, np.int64)
    for d in range(depth):
        for lane in range(L):
            stk[d, lane] = zero
            stk[_STACK + d, lane] = zero
    v1 = 2 * _STACK  # the chunk's m1 and m2 vectors
    v2 = v1 + 1
    for ci in range(m):
        cnt = min(_CHUNK, n - ci * _CHUNK)
        for lane in range(L):
            stk[v1, lane] = zero
            stk[v2, lane] = zero
        for j in range(cnt):
            cv[0] = 1
            cv[1] = j + 1
            cv[0] = cv[0] / cv[1]
            cj = cv[0]
            o = base + (ci * _CHUNK + j) * L
            for lane in range(L):
                xv = x[o + lane]
                d = xv - stk[v1, lane]
                m1 = _fma(cj, d, stk[v1, lane])
                stk[v1, lane] = m1
                stk[v2, lane] = _fma(d, xv - m1, stk[v2, lane])
        _add_vec(cnt, stk, v1, v2, m0s, 0, L)
        mask = ci + 1
        j = 1
        while j < depth and (mask & 1) == 0:
            _add_vec(m0s[j - 1], stk, j - 1, _STACK + j - 1, m0s, j, L)
            m0s[j - 1] = 0
            for lane in range(L):
                stk[j - 1, lane] = zero
                stk[_STACK + j - 1, lane] = zero
            mask >>= 1
            j += 1
    for d in range(1, depth):
        _add_vec(m0s[d], stk, d, _STACK + d, m0s, 0, L)
    c0 = 0
    m1 = zero
    m2 = zero
    for k in range(n * L, N):
        xv = x[base + k]
        d = xv - m1
        c0 += 1
        cv[1] = c0
        m1 = m1 + d / cv[1]
        m2 = m2 + d * (xv - m1)
    for lane in range(L):
        nn = c0 + n
        cv[0] = n
        cv[1] = nn
        cv[2] = c0
        c = zero if nn == 0 else cv[0] / cv[1]
        delta = stk[0, lane] - m1
        m1 = _fma(c, delta, m1)
        m2 = m2 + _fma(delta * delta * c, cv[2], stk[_STACK, lane])
        c0 = nn
    cv[1] = N
    out[i, 0] = m1
    out[i, 1] = m2 / cv[1]


def add_vec(m0_add, stk, r1, r2, m0s, k, L):
    """AddMomentsVec of (m0_add, stk[r1], stk[r2]) into level k (stk[k], stk[_STACK + k])."""
    cv = stk[2 * _STACK + 3]
    m0 = m0s[k]
    n = m0 + m0_add
    cv[0] = 0
    cv[1] = m0_add
    cv[2] = n
    cv[3] = m0
    c = cv[0] if n == 0 else cv[1] / cv[2]
    fm0 = cv[3]
    for lane in range(L):
        m1 = stk[k, lane]
        m2 = stk[_STACK + k, lane]
        delta = stk[r1, lane] - m1
        m2t = m2 + stk[r2, lane]
        cd = c * delta
        m0d = delta * fm0
        stk[k, lane] = m1 + cd
        stk[_STACK + k, lane] = _fma(m0d, cd, m2t)
    m0s[k] = n


def rows_moments_loop(x, rows, N, L, out):
    """moments_row for each of the rows of the flat x (rows of N elements)."""
    stk = np.zeros((2 * _STACK + 4, L), x.dtype)
    for i in range(rows):
        _moments_row(x, i * N, N, L, stk, out, i)


def ln_forward_loop(x, rows, N, L, eps, w, b, flags, stats, out):
    """LayerNormKernelImplInternal: each row's moments into stats (mean, rstd = 1 / sqrt(var +
    eps)), then out = (x - mean) * rstd, * w + b fused where both are given (its vectorised
    map3), fma(x - mean, rstd, b) with the bias alone, (x - mean) * rstd * w with the weight
    alone (its scalar loop, as contracted)."""
    stk = np.zeros((2 * _STACK + 4, L), x.dtype)
    for i in range(rows):
        base = i * N
        _moments_row(x, base, N, L, stk, stats, i)
        mean = stats[i, 0]
        r = eps[1] / np.sqrt(stats[i, 1] + eps[0])
        stats[i, 1] = r
        bias = -mean
        if flags[0] and flags[1]:
            for j in range(N):
                out[base + j] = _fma((x[base + j] + bias) * r, w[j], b[j])
        elif flags[1]:
            for j in range(N):
                out[base + j] = _fma(x[base + j] + bias, r, b[j])
        elif flags[0]:
            for j in range(N):
                out[base + j] = (x[base + j] + bias) * r * w[j]
        else:
            for j in range(N):
                out[base + j] = (x[base + j] + bias) * r


def gn_forward_loop(x, groups, G, D, S, L, eps, w, b, flags, stats, out, tmp):
    """GroupNormKernelImplInternal (contiguous): each group's moments (D * S elements), rstd =
    1 / sqrt(max(var, 0) + eps) in float64 (eps a double), rounded to the dtype; without
    weight and bias out = (x - mean) * rstd, else per channel scale = rstd * w, bias =
    fma(-scale, mean, b), out = fma(scale, x, bias). tmp: a 1-element array of x's dtype."""
    stk = np.zeros((2 * _STACK + 4, L), x.dtype)
    N = D * S
    for i in range(groups):
        base = i * N
        _moments_row(x, base, N, L, stk, stats, i)
        mean = stats[i, 0]
        v = stats[i, 1]
        v = v if v > 0 else v - v
        tmp[0] = 1.0 / math.sqrt(float(v) + eps)
        r = tmp[0]
        stats[i, 1] = r
        if not (flags[0] or flags[1]):
            for j in range(N):
                out[base + j] = (x[base + j] - mean) * r
            continue
        g = i % G
        for j in range(D):
            c = g * D + j
            scale = r * w[c] if flags[0] else r
            bias = _fma(-scale, mean, b[c] if flags[1] else r - r)
            o = base + j * S
            for k in range(S):
                out[o + k] = _fma(scale, x[o + k], bias)


def welford_loop(x, rows, K, correction, root, var, mean):
    """WelfordOps over each row of K elements of the flat x, in float64 (binary_kernel_reduce,
    one thread): mean += delta / n, m2 += delta * (x - mean); var = m2 / max(n - correction, 0)
    (its square root with `root`), both rounded to the outputs' dtype."""
    for i in range(rows):
        m = 0.0
        m2 = 0.0
        base = i * K
        for k in range(K):
            d = float(x[base + k])
            delta = d - m
            m = m + delta / (k + 1)
            m2 = m2 + delta * (d - m)
        div = K - correction if K > correction else 0.0
        v = m2 / div
        var[i] = math.sqrt(v) if root else v
        mean[i] = m


def sq_dev_sum_loop(x, mean):
    """std_var_all_cpu's sum of (x - mean)^2 in float64, element after element."""
    acc = 0.0
    for k in range(x.size):
        d = float(x[k]) - mean
        acc = acc + d * d
    return acc


def bn_stats_loop(x, Nb, C, S, mean, vsum, tmp):
    """batch_norm_cpu_collect_stats (one thread) of the flat (Nb, C, S) x: with S > 1 (its
    contiguous kernel) the channel's sum in float64, mean = sum / N rounded to the dtype, the
    float64 sum of the dtype's (x - mean)^2; with S == 1 (its channels-last kernel, a 2-D
    input) both sums in the dtype, the squares fused (vectorised fmadd)."""
    N = Nb * S
    for c in range(C):
        if S > 1:
            s = 0.0
            for n in range(Nb):
                o = (n * C + c) * S
                for i in range(S):
                    s += x[o + i]
            tmp[0] = s / N
            m = tmp[0]
            acc = 0.0
            for n in range(Nb):
                o = (n * C + c) * S
                for i in range(S):
                    d = x[o + i] - m
                    acc += d * d
            mean[c] = m
            vsum[c] = acc
        else:
            tmp[1] = 0
            s = tmp[1]
            for n in range(Nb):
                s = s + x[n * C + c]
            tmp[0] = float(s) / N
            m = tmp[0]
            acc = tmp[1]
            for n in range(Nb):
                d = x[n * C + c] - m
                acc = _fma(d, d, acc)
            mean[c] = m
            vsum[c] = acc


_ceil_log2, _moments_row, _add_vec, _fma = ceil_log2, moments_row, add_vec, fma
_LOOPS = [None]


def _build():
    """The loops compiled by numba (None without numba or with FRAMEWORK_NUMBA=0)."""
    from . import _fused

    if _fused.kernels() is None:
        return None
    import numba
    from llvmlite import ir
    from numba.extending import intrinsic

    @intrinsic
    def fma_intrinsic(typingctx, a, b, c):
        """llvm.fma: a * b + c rounded once (an FMA instruction where the CPU has one)."""

        def codegen(context, builder, signature, args):
            a, b, c = (
                context.cast(builder, v, t, signature.return_type)
                for v, t in zip(args, signature.args)
            )
            ty = a.type
            fnty = ir.FunctionType(ty, [ty, ty, ty])
            fn = builder.module.declare_intrinsic("llvm.fma", [ty], fnty)
            return builder.call(fn, [a, b, c])

        return a(a, b, c), codegen

    def jit(fn):
        return numba.njit(cache=False, nogil=True, error_model="numpy")(fn)

    g = globals()
    g["_fma"] = fma_intrinsic
    g["_ceil_log2"] = jit(ceil_log2)
    g["_add_vec"] = jit(add_vec)
    g["_moments_row"] = jit(moments_row)
    from types import SimpleNamespace

    return SimpleNamespace(
        rows_moments=jit(rows_moments_loop),
        ln_forward=jit(ln_forward_loop),
        gn_forward=jit(gn_forward_loop),
        welford=jit(welford_loop),
        sq_dev_sum=jit(sq_dev_sum_loop),
        bn_stats=jit(bn_stats_loop),
    )


def loops():
    """The compiled loops, kept once built (torch's rounding is a numerical fact: they stay on
    inside ``_fused.disabled()``); None without numba."""
    k = _LOOPS[0]
    if k is None:
        k = _build()
        if k is not None:
            _LOOPS[0] = k
    return k


def row_moments(rows):
    """(mean, m2 / N) of each row of the 2-D float32/float64 NumPy array rows, as torch's
    RowwiseMoments."""
    rows = np.ascontiguousarray(rows)
    R, N = rows.shape
    k = loops()
    if k is not None:
        out = np.empty((R, 2), rows.dtype)
        k.rows_moments(rows.reshape(-1), R, N, _lanes(rows.dtype), out)
        return out[:, 0], out[:, 1]
    return _rowwise(rows)


def _f(a, b, c):
    """fused() on arrays broadcast to one shape (the NumPy replays)."""
    a, b, c = np.broadcast_arrays(a, b, c)
    return fused(np.ascontiguousarray(a), np.ascontiguousarray(b), np.ascontiguousarray(c))


def _add_vec_np(m0_add, m1_add, m2_add, m0, m1, m2, dt):
    """AddMomentsVec on (rows, lanes) arrays."""
    n = m0 + m0_add
    c = dt.type(0) if n == 0 else dt.type(m0_add) / dt.type(n)
    delta = m1_add - m1
    m2t = m2 + m2_add
    cd = c * delta
    return n, m1 + cd, _f(delta * dt.type(m0), cd, m2t)


def _rowwise(x):
    """moments_row for every row of the 2-D NumPy array x at once (the NumPy replay)."""
    dt = x.dtype
    L = _lanes(dt)
    rows, N = x.shape
    n = N // L
    m = -(-n // _CHUNK)
    depth = ceil_log2(m)
    zero = np.zeros((rows, L), dt)
    stk = [[0, zero, zero] for _ in range(depth)]
    with np.errstate(all="ignore"):
        for i in range(m):
            count = min(_CHUNK, n - i * _CHUNK)
            m1 = m2 = zero
            for j in range(count):
                xv = x[:, (i * _CHUNK + j) * L : (i * _CHUNK + j + 1) * L]
                d = xv - m1
                m1 = _f(dt.type(1) / dt.type(j + 1), d, m1)
                m2 = _f(d, xv - m1, m2)
            stk[0] = list(_add_vec_np(count, m1, m2, *stk[0], dt))
            mask, j = i + 1, 1
            while j < depth and mask & 1 == 0:
                stk[j] = list(_add_vec_np(*stk[j - 1], *stk[j], dt))
                stk[j - 1] = [0, zero, zero]
                mask >>= 1
                j += 1
        for i in range(1, depth):
            stk[0] = list(_add_vec_np(*stk[i], *stk[0], dt))
        c0, m1, m2 = 0, np.zeros(rows, dt), np.zeros(rows, dt)
        for i in range(n * L, N):
            d = x[:, i] - m1
            c0 += 1
            m1 = m1 + d / dt.type(c0)
            m2 = m2 + d * (x[:, i] - m1)
        for lane in range(L):
            nn = c0 + n
            c = dt.type(0) if nn == 0 else dt.type(n) / dt.type(nn)
            delta = stk[0][1][:, lane] - m1
            m1 = _f(c, delta, m1)
            m2 = m2 + _f(delta * delta * c, dt.type(c0), stk[0][2][:, lane])
            c0 = nn
        return m1, m2 / dt.type(N)


def replayable(x):
    """Whether x is a NumPy float32/float64 array (the arrays these replays take)."""
    return type(x) is np.ndarray and x.dtype.char in "fd"


def _vector(a, dt):
    """A weight/bias as a flat contiguous array of dt, or None."""
    return None if a is None else np.ascontiguousarray(a, dt).reshape(-1)


def layer_norm(rows, eps, weight, bias):
    """(out, mean, rstd) of torch's layer_norm over the rows of the 2-D array rows (float32 or
    float64 NumPy), weight and bias None or of the row's size."""
    rows = np.ascontiguousarray(rows)
    dt = rows.dtype
    R, N = rows.shape
    w, b = _vector(weight, dt), _vector(bias, dt)
    k = loops()
    if k is not None:
        out = np.empty_like(rows)
        stats = np.empty((R, 2), dt)
        flags = np.array([w is not None, b is not None], np.uint8)
        e = np.array([eps, 1], dt)
        k.ln_forward(
            rows.reshape(-1),
            R,
            N,
            _lanes(dt),
            e,
            stats[:, 0] if w is None else w,
            stats[:, 0] if b is None else b,
            flags,
            stats,
            out.reshape(-1),
        )
        return out, stats[:, 0].copy(), stats[:, 1].copy()
    with np.errstate(all="ignore"):
        mean, var = _rowwise(rows)
        rstd = dt.type(1) / np.sqrt(var + dt.type(eps))
        xc = rows + (-mean)[:, None]
        if w is not None and b is not None:
            out = _f(xc * rstd[:, None], w, b)
        elif b is not None:
            out = _f(xc, rstd[:, None], b)
        else:
            out = xc * rstd[:, None]
            if w is not None:
                out = out * w
    return out, mean, rstd


def group_norm(x, groups, eps, weight, bias):
    """(out, mean, rstd) of torch's group_norm (contiguous kernel) of the (N, C, *) float32 or
    float64 NumPy array x, mean and rstd shaped (N, groups)."""
    x = np.ascontiguousarray(x)
    dt = x.dtype
    n, c = x.shape[:2]
    D = c // groups
    S = math.prod(x.shape[2:])
    R = n * groups
    w, b = _vector(weight, dt), _vector(bias, dt)
    k = loops()
    if k is not None:
        out = np.empty_like(x)
        stats = np.empty((R, 2), dt)
        flags = np.array([w is not None, b is not None], np.uint8)
        k.gn_forward(
            x.reshape(-1),
            R,
            groups,
            D,
            S,
            _lanes(dt),
            float(eps),
            stats[:, 0] if w is None else w,
            stats[:, 0] if b is None else b,
            flags,
            stats,
            out.reshape(-1),
            np.empty(1, dt),
        )
        return out, stats[:, 0].reshape(n, groups), stats[:, 1].reshape(n, groups)
    with np.errstate(all="ignore"):
        mean, var = _rowwise(x.reshape(R, D * S))
        rstd = (1.0 / np.sqrt(np.maximum(var, 0).astype(np.float64) + float(eps))).astype(dt)
        if w is None and b is None:
            out = (x.reshape(R, -1) - mean[:, None]) * rstd[:, None]
            return out.reshape(x.shape), mean.reshape(n, groups), rstd.reshape(n, groups)
        scale = rstd.reshape(n, groups, 1) * (np.ones(c, dt) if w is None else w).reshape(groups, D)
        shift = _f(
            -scale,
            mean.reshape(n, groups, 1),
            (np.zeros(c, dt) if b is None else b).reshape(groups, D),
        )
        out = _f(scale.reshape(n, c, 1), x.reshape(n, c, S), shift.reshape(n, c, 1))
    return out.reshape(x.shape), mean.reshape(n, groups), rstd.reshape(n, groups)


def _welford_np(rows, correction, root):
    """welford_loop on the rows of a 2-D array at once (the NumPy replay)."""
    m = np.zeros(rows.shape[0])
    m2 = np.zeros(rows.shape[0])
    with np.errstate(all="ignore"):
        for k in range(rows.shape[1]):
            d = rows[:, k].astype(np.float64)
            delta = d - m
            m = m + delta / (k + 1)
            m2 = m2 + delta * (d - m)
        div = rows.shape[1] - correction if rows.shape[1] > correction else 0.0
        v = m2 / np.float64(div)
        return np.sqrt(v) if root else v, m


def _reduced_last(x, axes):
    """x's elements as (outputs, reduced) rows in torch's TensorIterator order: the kept
    axes in order, then the reduced ones, the smallest stride fastest."""
    kept = [a for a in range(x.ndim) if a not in axes]
    red = sorted(axes, key=lambda a: -abs(x.strides[a]) if x.shape[a] > 1 else 0)
    k = math.prod(x.shape[a] for a in axes)
    return np.ascontiguousarray(x.transpose(kept + red)).reshape(-1, k)


def welford(x, axes, correction, root):
    """(var or std, mean) of x over axes as torch's WelfordOps (float64 accumulation, one
    thread), as flat arrays of x's dtype in the kept axes' order; None where not replayed
    (not a float32/float64 NumPy array, or no element)."""
    if not replayable(x) or not x.size:
        return None
    rows = _reduced_last(x, tuple(axes))
    k = loops()
    if k is not None:
        v = np.empty(rows.shape[0])
        m = np.empty(rows.shape[0])
        k.welford(rows.reshape(-1), rows.shape[0], rows.shape[1], float(correction), root, v, m)
    else:
        v, m = _welford_np(rows, correction, root)
    with np.errstate(all="ignore"):
        return v.astype(x.dtype), m.astype(x.dtype)


def full_reduction(x, axes):
    """Whether torch's var/std of x over axes is its full reduction (every dimension of more
    than one element reduced: std_var_all_cpu)."""
    return all(a in axes or n == 1 for a, n in enumerate(x.shape))


def var_all(x, correction, root):
    """std_var_all_cpu: mean = torch's mean (its sum order, divided in x's dtype), then the
    sum of (x - mean)^2 in float64 element after element (memory order), divided by
    max(0, numel - correction); a 0-d array of x's dtype; None where not replayed."""
    if not replayable(x) or not x.size:
        return None
    from ._sum_kernel import torch_sum

    flat = _reduced_last(x, tuple(range(x.ndim))).reshape(-1)
    total = torch_sum(flat, (0,))
    if total is None:
        return None
    mean = float(total[0] / x.dtype.type(flat.size))
    k = loops()
    with np.errstate(all="ignore"):
        if k is not None:
            s = k.sq_dev_sum(flat, mean)
        else:
            s = 0.0
            d = flat.astype(np.float64) - mean
            for v in (d * d).tolist():
                s += v
        v = np.float64(s) / np.float64(max(0.0, flat.size - correction))
        return np.asarray(np.sqrt(v) if root else v).astype(x.dtype)


def _bn_stats_np(x3):
    """bn_stats_loop on a (Nb, C, S) array (the NumPy replay: channels at once)."""
    Nb, C, S = x3.shape
    dt = x3.dtype
    N = Nb * S
    with np.errstate(all="ignore"):
        if S > 1:
            s = np.zeros(C)
            for n in range(Nb):
                for i in range(S):
                    s = s + x3[n, :, i]
            mean = (s / N).astype(dt)
            acc = np.zeros(C)
            for n in range(Nb):
                for i in range(S):
                    d = x3[n, :, i] - mean
                    acc = acc + d * d
            return mean, acc.astype(dt)
        s = np.zeros(C, dt)
        for n in range(Nb):
            s = s + x3[n, :, 0]
        mean = (s.astype(np.float64) / N).astype(dt)
        acc = np.zeros(C, dt)
        for n in range(Nb):
            d = x3[n, :, 0] - mean
            acc = _f(d, d, acc)
        return mean, acc


def batch_norm_stats(x):
    """(mean, var_sum) per channel of a C-contiguous (N, C, *) float32/float64 NumPy array
    with elements, as torch's batch_norm_cpu_collect_stats (one thread); None otherwise."""
    if not replayable(x) or not x.size or x.ndim < 2 or not x.flags.c_contiguous:
        return None
    Nb, C = x.shape[:2]
    S = math.prod(x.shape[2:])
    k = loops()
    if k is None:
        return _bn_stats_np(x.reshape(Nb, C, S))
    mean = np.empty(C, x.dtype)
    vsum = np.empty(C, x.dtype)
    k.bn_stats(x.reshape(-1), Nb, C, S, mean, vsum, np.empty(2, x.dtype))
    return mean, vsum
