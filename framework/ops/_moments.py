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
    >>> float(m[0]), float(v[0])  # torch's native_layer_norm: mean 4.499999523162842
    (4.499999523162842, 8.250001907348633)
"""

import math

import numpy as np

from .._fma import fused
from ._sum_kernel import ceil_log2

_CHUNK = 16
_GRAIN = 32768  # at::internal::GRAIN_SIZE
_STACK = 64  # kMaxDepth's largest value


def _lanes(dtype):
    """The vector lanes of torch's AVX2 kernels for dtype (32 bytes)."""
    return 32 // np.dtype(dtype).itemsize


# --- the compiled loops (plain Python here; numba compiles them in _build) -----------------


def fma(a, b, c):
    """a * b + c with one rounding (numba: llvm.fma; in Python, the exact emulation)."""
    return fused(np.asarray([a]), np.asarray([b], np.asarray(a).dtype), np.asarray([c]))[0]


def moments_row(x, base, N, L, stk, m0s, out, i):
    """RowwiseMomentsImpl over x[base:base + N] (L lanes) into out[i, 0] (mean), out[i, 1]
    (m2 / N); stk: a (2 * _STACK + 5, _CHUNK) scratch array of x's dtype (the level stack,
    the chunk's vectors, then rows converting counts to the dtype: numba would promote a
    float32 with an integer to float64, and the factors 1 / (j + 1): _scratch); m0s: the
    levels' counts (_STACK integers)."""
    n = N // L
    m = (n + _CHUNK - 1) // _CHUNK
    depth = _ceil_log2(m)
    cv = stk[2 * _STACK + 2]
    cv[0] = 0
    zero = cv[0]
    for d in range(depth):
        m0s[d] = 0
        for lane in range(L):
            stk[d, lane] = zero
            stk[_STACK + d, lane] = zero
    v1 = 2 * _STACK  # the chunk's m1 and m2 vectors
    v2 = v1 + 1
    for ci in range(m):
        cnt = min(_CHUNK, n - ci * _CHUNK)
        if L == 8:
            _chunk8(x, base + ci * _CHUNK * L, cnt, stk[2 * _STACK + 3], stk[v1], stk[v2])
        else:
            _chunk4(x, base + ci * _CHUNK * L, cnt, stk[2 * _STACK + 3], stk[v1], stk[v2])
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


def chunk(x, o, cnt, fac, m1v, m2v, L):
    """UpdateMomentsVec: a Welford pass of each of the L lanes over cnt vectors from x[o]
    (m1 = fmadd(1 / (j + 1), x - m1, m1), m2 = fmadd(x - m1_old, x - m1, m2); the factors
    fac[j] in x's dtype) from zero, into m1v and m2v. Under numba an intrinsic emitting
    the same operations on LLVM vectors of L lanes (_vector_chunk: numba does not vectorise
    this loop by itself)."""
    for lane in range(L):
        m1 = m2 = fac[0] * 0
        for j in range(cnt):
            xv = x[o + j * L + lane]
            d = xv - m1
            m1 = fma(fac[j], d, m1)
            m2 = fma(d, xv - m1, m2)
        m1v[lane] = m1
        m2v[lane] = m2


def _vector_chunk(L):
    """chunk for L lanes as a numba intrinsic over LLVM vectors (one vector FMA per step)."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def chunk_vec(typingctx, x, o, cnt, fac, m1v, m2v):
        """The chunk pass on LLVM vectors of L lanes (one vector FMA per Welford step)."""

        def codegen(context, builder, sig, args):
            """The LLVM of chunk_vec: the lanes' Welford updates as vector fmas."""
            x, o, cnt, fac, m1v, m2v = (
                context.make_array(t)(context, builder, v) if isinstance(t, types.Array) else v
                for v, t in zip(args, sig.args)
            )
            ety = context.get_data_type(sig.args[0].dtype)
            vty = ir.VectorType(ety, L)
            name = f"llvm.fma.v{L}f{ety.get_abi_size(context.target_data) * 8}"
            fma = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(vty, [vty] * 3), name
            )
            m1p = cgutils.alloca_once_value(builder, ir.Constant(vty, None))
            m2p = cgutils.alloca_once_value(builder, ir.Constant(vty, None))
            lane0 = ir.Constant(ir.VectorType(ir.IntType(32), L), [0] * L)
            with cgutils.for_range(builder, cnt) as loop:
                j = loop.index
                at = builder.add(o, builder.mul(j, ir.Constant(j.type, L)))
                xv = builder.load(
                    builder.bitcast(builder.gep(x.data, [at]), vty.as_pointer()), align=1
                )
                c = builder.load(builder.gep(fac.data, [j]))
                c = builder.insert_element(
                    ir.Constant(vty, ir.Undefined), c, ir.Constant(ir.IntType(32), 0)
                )
                c = builder.shuffle_vector(c, ir.Constant(vty, ir.Undefined), lane0)
                m1 = builder.load(m1p)
                d = builder.fsub(xv, m1)
                m1 = builder.call(fma, [c, d, m1])
                m2 = builder.call(fma, [d, builder.fsub(xv, m1), builder.load(m2p)])
                builder.store(m1, m1p)
                builder.store(m2, m2p)
            for src, dst in ((m1p, m1v), (m2p, m2v)):
                builder.store(
                    builder.load(src), builder.bitcast(dst.data, vty.as_pointer()), align=1
                )
            return context.get_dummy_value()

        return types.void(x, o, cnt, fac, m1v, m2v), codegen

    return chunk_vec


def scratch(x):
    """moments_row's scratch arrays for rows of x's dtype, the factors 1 / (j + 1) filled in."""
    stk = np.zeros((2 * _STACK + 5, _CHUNK), x.dtype)
    cv = stk[2 * _STACK + 2]
    for j in range(_CHUNK):
        cv[0] = 1
        cv[1] = j + 1
        stk[2 * _STACK + 3, j] = cv[0] / cv[1]
    return stk, np.zeros(_STACK, np.int64)


def add_vec(m0_add, stk, r1, r2, m0s, k, L):
    """AddMomentsVec of (m0_add, stk[r1], stk[r2]) into level k (stk[k], stk[_STACK + k])."""
    cv = stk[2 * _STACK + 4]
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
    stk, m0s = _scratch(x)
    for i in range(rows):
        if L == 8:  # (a constant lane count: the lane loops unroll)
            _moments_row(x, i * N, N, 8, stk, m0s, out, i)
        else:
            _moments_row(x, i * N, N, 4, stk, m0s, out, i)


def ln_forward_loop(x, rows, N, L, eps, w, b, flags, stats, out):
    """LayerNormKernelImplInternal: each row's moments into stats (mean, rstd = 1 / sqrt(var +
    eps)), then out = (x - mean) * rstd, * w + b fused where both are given (its vectorised
    map3), fma(x - mean, rstd, b) with the bias alone, (x - mean) * rstd * w with the weight
    alone (its scalar loop, as contracted). Three passes (the moments of every row, the rstds,
    the outputs, the flags tested once): each row's operations as in torch's row loop, and
    the output loop vectorises (one loop with all three inlined per row ran twice as long)."""
    stk, m0s = _scratch(x)
    for i in range(rows):
        if L == 8:  # (a constant lane count: the lane loops unroll)
            _moments_row(x, i * N, N, 8, stk, m0s, stats, i)
        else:
            _moments_row(x, i * N, N, 4, stk, m0s, stats, i)
    for i in range(rows):
        stats[i, 1] = eps[1] / np.sqrt(stats[i, 1] + eps[0])
    zero = eps[2]  # (+0: the loop's `* gamma + beta` with beta 0 gives no -0)
    if flags[0] and flags[1]:
        for i in range(rows):
            base, bias, r = i * N, -stats[i, 0], stats[i, 1]
            for j in range(N):
                out[base + j] = _fma((x[base + j] + bias) * r, w[j], b[j])
    elif flags[1]:
        for i in range(rows):
            base, bias, r = i * N, -stats[i, 0], stats[i, 1]
            for j in range(N):
                out[base + j] = _fma(x[base + j] + bias, r, b[j])
    elif flags[0]:
        for i in range(rows):
            base, bias, r = i * N, -stats[i, 0], stats[i, 1]
            for j in range(N):
                out[base + j] = (x[base + j] + bias) * r * w[j] + zero
    else:
        for i in range(rows):
            base, bias, r = i * N, -stats[i, 0], stats[i, 1]
            for j in range(N):
                out[base + j] = (x[base + j] + bias) * r + zero


def gn_forward_loop(x, groups, G, D, S, L, eps, w, b, flags, stats, out, tmp):
    """GroupNormKernelImplInternal (contiguous): each group's moments (D * S elements), rstd =
    1 / sqrt(max(var, 0) + eps) in float64 (eps a double), rounded to the dtype; without
    weight and bias out = (x - mean) * rstd, else per channel scale = rstd * w, bias =
    fma(-scale, mean, b), out = fma(scale, x, bias). tmp: a 1-element array of x's dtype."""
    stk, m0s = _scratch(x)
    N = D * S
    for i in range(groups):
        base = i * N
        if L == 8:  # (a constant lane count: the lane loops unroll)
            _moments_row(x, base, N, 8, stk, m0s, stats, i)
        else:
            _moments_row(x, base, N, 4, stk, m0s, stats, i)
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


def bn_stats_loop(x, Nb, C, S, T, mean, vsum, tmp, buf, odd):
    """batch_norm_cpu_collect_stats of the flat (Nb, C, S) x: with S > 1 (its contiguous
    kernel, one channel per task) the channel's sum in float64, mean = sum / N rounded to the
    dtype, the float64 sum of the dtype's (x - mean)^2 (odd = 1 for float64 with an odd S:
    torch's AVX2 and AVX-512 builds square a plane's elements two at a time, unfused, and fuse
    the odd last one, fma(d, d, acc): measured); with S == 1 (its channels-last kernel, a 2-D
    input) the rows split into T chunks as at::parallel_for splits them over T threads, each
    chunk's sums in the dtype (the squares fused: vectorised fmadd) into buf (T, C), the chunks
    then added in float64."""
    N = Nb * S
    if S == 1:
        chunk = (Nb + T - 1) // T
        for t in range(T):
            for c in range(C):
                buf[t, c] = 0
        for t in range(T):
            for n in range(t * chunk, min(Nb, (t + 1) * chunk)):
                for c in range(C):
                    buf[t, c] = buf[t, c] + x[n * C + c]
        for c in range(C):
            s = 0.0
            for t in range(T):
                s += buf[t, c]
            mean[c] = s / N
            for t in range(T):
                buf[t, c] = 0
        for t in range(T):
            for n in range(t * chunk, min(Nb, (t + 1) * chunk)):
                for c in range(C):
                    d = x[n * C + c] - mean[c]
                    buf[t, c] = _fma(d, d, buf[t, c])
        for c in range(C):
            s = 0.0
            for t in range(T):
                s += buf[t, c]
            vsum[c] = s
        return
    for c in range(C):
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
            for i in range(S - odd):
                d = x[o + i] - m
                acc += d * d
            if odd:
                d = x[o + S - 1] - m
                acc = _fma(d, d, acc)
        mean[c] = m
        vsum[c] = acc


_ceil_log2, _moments_row, _add_vec, _fma, _scratch = ceil_log2, moments_row, add_vec, fma, scratch


def _chunk8(x, o, cnt, fac, m1v, m2v):
    chunk(x, o, cnt, fac, m1v, m2v, 8)


def _chunk4(x, o, cnt, fac, m1v, m2v):
    chunk(x, o, cnt, fac, m1v, m2v, 4)


_LOOPS = [None]


def _build():
    """The loops compiled by numba (None without numba or with FRAMEWORK_NUMBA=0)."""
    from . import _fused

    if _fused.kernels() is None:
        return None
    import numba

    from .._numba_fma import cached_jit as jit
    from .._numba_fma import ByDtype
    from .._numba_fma import fma as fma_intrinsic

    g = globals()
    g["_fma"] = fma_intrinsic
    g["_ceil_log2"] = jit(ceil_log2)
    inline = numba.njit(cache=False, nogil=True, error_model="numpy", inline="always")
    g["_chunk8"], g["_chunk4"] = _vector_chunk(8), _vector_chunk(4)
    g["_add_vec"] = inline(add_vec)
    g["_scratch"] = jit(scratch)
    g["_moments_row"] = inline(moments_row)
    from types import SimpleNamespace

    return SimpleNamespace(
        rows_moments=jit(rows_moments_loop),
        ln_forward=ByDtype(ln_forward_loop, _ln_sig),
        gn_forward=ByDtype(gn_forward_loop, _gn_sig),
        welford=jit(welford_loop),
        sq_dev_sum=jit(sq_dev_sum_loop),
        bn_stats=jit(bn_stats_loop),
    )


def _ln_sig(t):
    """ln_forward_loop's numba signature for the float type t (one compiled version per
    dtype whatever the inputs' writability; stats, mean and rstd as columns, any layout)."""
    from numba import types as nt

    ro = nt.Array(t, 1, "C", readonly=True)
    i = nt.int64
    u8 = nt.Array(nt.uint8, 1, "C", readonly=True)
    return (ro, i, i, i, ro, ro, ro, u8, nt.Array(t, 2, "A"), nt.Array(t, 1, "C"))


def _gn_sig(t):
    """gn_forward_loop's numba signature for the float type t (weight and bias: per channel,
    any layout, a column of stats where absent)."""
    from numba import types as nt

    i = nt.int64
    ro_a = nt.Array(t, 1, "A", readonly=True)
    u8 = nt.Array(nt.uint8, 1, "C", readonly=True)
    c1 = nt.Array(t, 1, "C")
    x = nt.Array(t, 1, "C", readonly=True)
    return (x, i, i, i, i, i, nt.float64, ro_a, ro_a, u8, nt.Array(t, 2, "A"), c1, c1)


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


_LN_CONSTS = {}  # (eps, dtype, weight?, bias?) -> layer_norm's constant arrays (read-only use)


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
        stats = np.empty((2, R), dt)  # (mean and rstd each contiguous: no copies out)
        key = (eps, dt.char, w is not None, b is not None)
        consts = _LN_CONSTS.get(key)
        if consts is None:
            if len(_LN_CONSTS) > 64:
                _LN_CONSTS.clear()
            consts = _LN_CONSTS[key] = (
                np.array([eps, 1, 0], dt),
                np.array([w is not None, b is not None], np.uint8),
            )
        k.ln_forward(
            rows.reshape(-1),
            R,
            N,
            _lanes(dt),
            consts[0],
            stats[0] if w is None else w,
            stats[0] if b is None else b,
            consts[1],
            stats.T,
            out.reshape(-1),
        )
        return out, stats[0], stats[1]
    with np.errstate(all="ignore"):
        mean, var = _rowwise(rows)
        rstd = dt.type(1) / np.sqrt(var + dt.type(eps))
        xc = rows + (-mean)[:, None]
        if w is not None and b is not None:
            out = _f(xc * rstd[:, None], w, b)
        elif b is not None:
            out = _f(xc, rstd[:, None], b)
        else:  # (times 1 or the weight, plus 0: a zero's sign as torch's loop)
            out = xc * rstd[:, None]
            if w is not None:
                out = out * w
            out += dt.type(0)
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
    (not a float32/float64 NumPy array, or no element, or one output of GRAIN_SIZE elements
    or more with more than one thread: torch splits that one and merges the parts)."""
    if not replayable(x) or not x.size:
        return None
    if x.size >= _GRAIN and x.size == math.prod(x.shape[a] for a in axes) and torch_threads() > 1:
        return None  # one output of 32,768 elements or more: torch splits it over threads
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


def _odd(x, S):
    """1 where torch's contiguous batch_norm statistics fuse a plane's last square (float64,
    S odd: bn_stats_loop), else 0."""
    return int(x.dtype == np.float64 and S % 2 == 1)


def _bn_stats_np(x3, T):
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
            odd = _odd(x3, S)
            for n in range(Nb):
                for i in range(S - odd):
                    d = x3[n, :, i] - mean
                    acc = acc + d * d
                if odd:
                    d = x3[n, :, S - 1] - mean
                    acc = fused(d, d, acc)
            return mean, acc.astype(dt)
        chunk = -(-Nb // T)
        parts = range(0, Nb, chunk)
        s = np.zeros(C)
        for p in parts:
            b = np.zeros(C, dt)
            for n in range(p, min(Nb, p + chunk)):
                b = b + x3[n, :, 0]
            s = s + b
        mean = (s / N).astype(dt)
        acc = np.zeros(C)
        for p in parts:
            b = np.zeros(C, dt)
            for n in range(p, min(Nb, p + chunk)):
                d = x3[n, :, 0] - mean
                b = _f(d, d, b)
            acc = acc + b
        return mean, acc.astype(dt)


def torch_threads():
    """The thread count torch's CPU kernels split work over: what framework.set_num_threads
    set, else OMP_NUM_THREADS, else the CPU count (torch's default)."""
    import os

    from .._namespace import _threads

    if _threads["n"] is not None:
        return _threads["n"]
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "")))
    except ValueError:
        return os.cpu_count() or 1


def batch_norm_stats(x):
    """(mean, var_sum) per channel of a C-contiguous (N, C, *) float32/float64 NumPy array
    with elements, as torch's batch_norm_cpu_collect_stats; None otherwise."""
    if not replayable(x) or not x.size or x.ndim < 2 or not x.flags.c_contiguous:
        return None
    Nb, C = x.shape[:2]
    S = math.prod(x.shape[2:])
    # the rows' split over threads (2-D input): measured with 2 threads, a batch of 2 runs
    # as one chunk
    T = 1 if Nb <= 2 else min(torch_threads(), Nb)
    k = loops()
    if k is None:
        return _bn_stats_np(x.reshape(Nb, C, S), T)
    mean = np.empty(C, x.dtype)
    vsum = np.empty(C, x.dtype)
    buf = np.empty((T, C) if S == 1 else (1, 1), x.dtype)
    k.bn_stats(x.reshape(-1), Nb, C, S, T, mean, vsum, np.empty(2, x.dtype), buf, _odd(x, S))
    return mean, vsum
