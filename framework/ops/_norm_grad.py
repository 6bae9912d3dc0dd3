"""torch's CPU backward kernels of layer_norm, group_norm and batch_norm, replayed (its float32
and float64 bits on its AVX2 build).

The row reductions are ATen's ``vec::reduce_all`` / ``map2_reduce_all`` / ``map3_reduce_all``:
a row read as vectors of L lanes (8 float32, 4 float64), the first vector the accumulator, each
later full vector added lane by lane (``acc + x * y``: not contracted, measured), the tail's
lanes ``fma(x, y, acc)`` where the kernel's build contracts it (layer_norm's rows,
batch_norm's planes, group_norm's float64 planes: measured; group_norm's float32 planes add
the product), then the
lanes added (float32: ``((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7))``, AVX2's shuffles;
float64: in order); a row shorter than L adds its products in order.

- layer_norm (``LayerNormBackwardKernelImplInternal``): per row ds, db as above (with the
  weight: ``(dy * x) * w`` and ``dy * w``); ``b = fma(db, mean, -ds) * a * a * a / N``,
  ``c = fma(-b, mean, -(db * a / N))``, ``dx = fma(b, x, a * dy * w) + c``. dgamma and dbeta:
  each thread's rows into its own buffer row (``fma(dy, fma(a, x, -a * mean), buf)``, ``buf +
  dy``), at::parallel_for's split of the rows over torch's threads, then the buffers added in
  thread order from zero.
- group_norm (``GroupNormBackward``, contiguous): ds, db per channel plane; per group the
  weighted sums over its channels (lanes of fma, the lanes added in order from zero, the
  channels past the last full vector fma'd on), ``c2 = fma(db, mean, -ds) * r * r * r * s``,
  ``c3 = fma(-(db * r), s, -c2 * mean)``, ``dx = fma(r * w, dy, c2 * x) + c3``; dgamma the
  batch's ``fma(fma(-db, mean, ds), r, acc)`` in order, dbeta the batch's db in order.
- batch_norm (``batch_norm_cpu_backward_contiguous_impl``, and its channels-last kernel for an
  input with one element per channel and sample): the planes' sums in float64 of reductions in
  the dtype (contiguous), or each thread's rows into buffers added in float64 (channels last);
  ``k = dotp * invstd * invstd / N``, ``dx = (dy - sum / N - (x - mean) * k) * invstd * w``
  (the product fused into the subtraction, except in the channels-last kernel's tail lanes);
  in evaluation ``invstd = 1 / sqrt(running_var + eps)`` in float64, rounded to the dtype.

Compiled by numba where it is installed (``FRAMEWORK_NUMBA=0``: NumPy replays of the same
operations, the same bits, slower).

Example:
    >>> x = np.array([[1.0, 2.0, 4.0]], np.float32)
    >>> dx, _, _ = layer_norm_backward(x, x, x.mean(1), 1 / x.std(1), None, (True, False, False))
    >>> dx.dtype, dx.shape
    (dtype('float32'), (1, 3))
"""

import math

import numpy as np

from .._fma import fused
from ._moments import torch_threads

# --- the compiled loops (plain Python here; numba compiles them in _build) -----------------


def fma(a, b, c):
    """a * b + c with one rounding (numba: llvm.fma)."""
    return fused(np.asarray([a]), np.asarray([b], np.asarray(a).dtype), np.asarray([c]))[0]


def element(a, b, c, s, o, j, kind):
    """Element j of a map over a row of a and b from o (c from 0: the weight): kind 1 a, 2 a *
    b, 3 (a * b) * c, 4 (a - s) * b, 5 a * c, 6 b."""
    if kind == 1:
        return a[o + j]
    if kind == 2:
        return a[o + j] * b[o + j]
    if kind == 3:
        return a[o + j] * b[o + j] * c[j]
    if kind == 4:
        return (a[o + j] - s) * b[o + j]
    if kind == 5:
        return a[o + j] * c[j]
    return b[o + j]


def fused_on(a, b, c, s, o, j, kind, acc):
    """acc + element(j), its last product fused into the addition."""
    if kind == 2:
        return _fma(a[o + j], b[o + j], acc)
    if kind == 3:
        return _fma(a[o + j] * b[o + j], c[j], acc)
    if kind == 4:
        return _fma(a[o + j] - s, b[o + j], acc)
    if kind == 5:
        return _fma(a[o + j], c[j], acc)
    return acc + _element(a, b, c, s, o, j, kind)


def reducers(k1, k2, deco, adder):
    """A pair of ATen's vec::map*_reduce_all over one row (maps k1 and k2 of element, one
    pass; numba keeps the two chains apart): the first vector the accumulator, the full
    vectors added lane by lane (adder: lanes_add for the pair), the tail's lanes fused where
    `fuse`, then the lanes added (8: AVX2's shuffles; 4: in order); a row shorter than the
    lanes adds its products in order. Each function made by `deco` (numba.njit, or nothing)."""

    @deco
    def hsum(acc, o, L):
        """The lanes acc[o:o + L] added as vec_reduce_all adds them."""
        if L == 8:
            return ((acc[o] + acc[o + 4]) + (acc[o + 2] + acc[o + 6])) + (
                (acc[o + 1] + acc[o + 5]) + (acc[o + 3] + acc[o + 7])
            )
        r = acc[o]
        for lane in range(1, L):
            r = r + acc[o + lane]
        return r

    @deco
    def red(a, b, c, s, o, n, fuse, acc):
        """(map k1's reduction, map k2's) over the n elements of a row from o (indices, not
        slices: a slice per row cost more than the row's sums); acc: 2 L scratch elements."""
        L = acc.size // 2
        if n < L:
            r1 = _element(a, b, c, s, o, 0, k1)
            r2 = _element(a, b, c, s, o, 0, k2)
            for j in range(1, n):
                r1 = r1 + _element(a, b, c, s, o, j, k1)
                r2 = r2 + _element(a, b, c, s, o, j, k2)
            return r1, r2
        full = n - n % L
        adder(acc, a, b, c, s, o, full)
        for j in range(full, n):
            lane = j - full
            if fuse:
                acc[lane] = _fused_on(a, b, c, s, o, j, k1, acc[lane])
                acc[L + lane] = _fused_on(a, b, c, s, o, j, k2, acc[L + lane])
            else:
                acc[lane] = acc[lane] + _element(a, b, c, s, o, j, k1)
                acc[L + lane] = acc[L + lane] + _element(a, b, c, s, o, j, k2)
        return hsum(acc, 0, L), hsum(acc, L, L)

    return red


def lanes_add(acc, a, b, c, s, o, stop, k1, k2):
    """acc[lane] = the sum of map k1's elements d + lane, acc[L + lane] of map k2's, for d
    from 0 to stop by L = acc.size / 2, each lane from -0 (-0 + v is v, bit for bit: the
    first vector as the accumulator, ATen's start); under numba an intrinsic on LLVM vectors
    of L lanes (numba does not vectorise this loop)."""
    L = acc.size // 2
    acc[:] = -0.0
    for d in range(0, stop, L):
        for lane in range(L):
            acc[lane] = acc[lane] + element(a, b, c, s, o, d + lane, k1)
            acc[L + lane] = acc[L + lane] + element(a, b, c, s, o, d + lane, k2)


def _vector_lanes_add(k1, k2):
    """lanes_add of maps k1 and k2 as a numba intrinsic: vector multiplies and adds."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def lanes_add_vec(typingctx, acc, a, b, c, s, o, stop):
        """lanes_add on LLVM vectors."""

        def codegen(context, builder, sig, args):
            """The LLVM of lanes_add_vec: a loop of vector loads, multiplies and adds."""
            acc, a, b, c, s, o, stop = (
                context.make_array(t)(context, builder, v) if isinstance(t, types.Array) else v
                for v, t in zip(args, sig.args)
            )
            ety = context.get_data_type(sig.args[0].dtype)
            L = 32 // ety.get_abi_size(context.target_data)
            vty = ir.VectorType(ety, L)
            ptrs = [
                builder.bitcast(builder.gep(acc.data, [ir.Constant(o.type, k)]), vty.as_pointer())
                for k in (0, L)
            ]
            neg0 = ir.Constant(vty, [ir.Constant(ety, -0.0)] * L)
            accs = [cgutils.alloca_once_value(builder, neg0) for _ in ptrs]
            sv = builder.insert_element(
                ir.Constant(vty, ir.Undefined), s, ir.Constant(ir.IntType(32), 0)
            )
            lane0 = ir.Constant(ir.VectorType(ir.IntType(32), L), [0] * L)
            sv = builder.shuffle_vector(sv, ir.Constant(vty, ir.Undefined), lane0)
            n = builder.sdiv(stop, ir.Constant(stop.type, L))
            n = builder.select(
                builder.icmp_signed(">", n, ir.Constant(n.type, 0)), n, ir.Constant(n.type, 0)
            )
            with cgutils.for_range(builder, n) as loop:
                at = builder.mul(loop.index, ir.Constant(o.type, L))
                row_at = builder.add(o, at)
                loaded = {}

                def load(arr):
                    """The L elements of arr from o + `at` (c, the weight: from `at`), loaded
                    once."""
                    if id(arr) not in loaded:
                        i = at if arr is c else row_at
                        ptr = builder.bitcast(builder.gep(arr.data, [i]), vty.as_pointer())
                        loaded[id(arr)] = builder.load(ptr, align=1)
                    return loaded[id(arr)]

                for k, p in zip((k1, k2), accs):
                    if k == 1:
                        m = load(a)
                    elif k == 2:
                        m = builder.fmul(load(a), load(b))
                    elif k == 3:
                        m = builder.fmul(builder.fmul(load(a), load(b)), load(c))
                    elif k == 4:
                        m = builder.fmul(builder.fsub(load(a), sv), load(b))
                    elif k == 5:
                        m = builder.fmul(load(a), load(c))
                    else:
                        m = load(b)
                    builder.store(builder.fadd(builder.load(p), m), p)
            for p, q in zip(ptrs, accs):
                builder.store(builder.load(q), p, align=1)
            return context.get_dummy_value()

        return types.void(acc, a, b, c, s, o, stop), codegen

    return lanes_add_vec


PAIRS = ((3, 5), (2, 1), (4, 6))  # layer_norm with a weight; without, group_norm; batch_norm


def chunk_rows(rows, T):
    """The rows per thread of at::parallel_for(0, rows, 1) with T threads."""
    nt = min(T, rows) if rows > 1 else 1
    return (rows + nt - 1) // nt


def chunk_of(i, rows, T):
    """The thread at::parallel_for(0, rows, 1) gives row i with T threads."""
    return i // _chunk_rows(rows, T)


def ln_loop(dy, x, mean, rstd, w, flags, M, N, T, dx, buf, acc, sc):
    """LayerNormBackwardKernelImplInternal over M rows of N; flags: (weight given, dx, dgamma,
    dbeta wanted); buf: (2, T, N) zeros (the threads' dgamma and dbeta rows); sc: (1 / N, 0)
    in the dtype."""
    scale = sc[0]
    bg, bb = buf[0], buf[1]
    per = _chunk_rows(M, T)
    L = acc.size // 2
    full = N - N % L
    k1, k2 = (3, 5) if flags[0] else (2, 1)
    for i in range(M):  # (indices, not row slices: a row's slices cost more than its work)
        o = i * N
        t = i // per
        a = rstd[i]
        m = mean[i]
        if flags[2]:
            b = -a * m
            for j in range(N):
                bg[t, j] = _fma(dy[o + j], _fma(a, x[o + j], b), bg[t, j])
        if flags[3]:
            for j in range(N):
                bb[t, j] = bb[t, j] + dy[o + j]
        if not flags[1]:
            continue
        if N < L:  # (_red0 / _red1 written out: as a call per row they cost 3 times the sums)
            ds = _element(dy, x, w, a, o, 0, k1)
            db = _element(dy, x, w, a, o, 0, k2)
            for j in range(1, N):
                ds = ds + _element(dy, x, w, a, o, j, k1)
                db = db + _element(dy, x, w, a, o, j, k2)
        else:
            if flags[0]:
                _lanes_w(acc, dy, x, w, a, o, full)
            else:
                _lanes_nw(acc, dy, x, w, a, o, full)
            for j in range(full, N):
                lane = j - full
                acc[lane] = _fused_on(dy, x, w, a, o, j, k1, acc[lane])
                acc[L + lane] = _fused_on(dy, x, w, a, o, j, k2, acc[L + lane])
            if L == 8:
                ds = ((acc[0] + acc[4]) + (acc[2] + acc[6])) + (
                    (acc[1] + acc[5]) + (acc[3] + acc[7])
                )
                db = ((acc[8] + acc[12]) + (acc[10] + acc[14])) + (
                    (acc[9] + acc[13]) + (acc[11] + acc[15])
                )
            else:
                ds = ((acc[0] + acc[1]) + acc[2]) + acc[3]
                db = ((acc[4] + acc[5]) + acc[6]) + acc[7]
        b = _fma(db, m, -ds) * a * a * a * scale
        c = _fma(-b, m, -(db * a * scale))
        if flags[0]:
            for j in range(N):
                dx[o + j] = _fma(b, x[o + j], a * dy[o + j] * w[j]) + c
        else:
            for j in range(N):
                dx[o + j] = _fma(b, x[o + j], a * dy[o + j]) + c


def gn_loop(dy, x, mean, rstd, w, flags, Nb, C, S, G, L, fuse, ds, db, dx, dw, dbias, acc, sc):
    """GroupNormBackwardKernelImplInternal (contiguous) of (Nb, C, S) arrays, G groups; w: the
    weight or ones; flags: (dx, dgamma, dbeta wanted); fuse: its planes' tails fused; ds, db:
    Nb * C scratch; sc: (1 / (C / G * S), 0) in the dtype."""
    zero = sc[1]
    for i in range(Nb * C):
        ds[i], db[i] = _red1(dy, x, x, zero, i * S, S, fuse, acc)
    D = C // G
    if flags[0]:
        s = sc[0]
        d = D // L * L
        for i in range(Nb * G):
            g = i % G
            for lane in range(L):
                acc[lane] = zero
                acc[L + lane] = zero
            for j in range(0, d, L):
                for lane in range(L):
                    k = i * D + j + lane
                    acc[lane] = _fma(ds[k], w[g * D + j + lane], acc[lane])
                    acc[L + lane] = _fma(db[k], w[g * D + j + lane], acc[L + lane])
            ds_v = zero
            db_v = zero
            for lane in range(L):
                ds_v = ds_v + acc[lane]
                db_v = db_v + acc[L + lane]
            for j in range(d, D):
                ds_v = _fma(ds[i * D + j], w[g * D + j], ds_v)
                db_v = _fma(db[i * D + j], w[g * D + j], db_v)
            r = rstd[i]
            m = mean[i]
            c2 = _fma(db_v, m, -ds_v) * r * r * r * s
            c3 = _fma(-(db_v * r), s, -c2 * m)
            for j in range(D):
                c1 = r * w[g * D + j]
                o = (i * D + j) * S
                for k in range(S):
                    dx[o + k] = _fma(c1, dy[o + k], c2 * x[o + k]) + c3
    for c in range(C if flags[1] or flags[2] else 0):
        i = c // D
        aw = zero
        ab = zero
        for n in range(Nb):
            k = n * C + c
            aw = _fma(_fma(-db[k], mean[n * G + i], ds[k]), rstd[n * G + i], aw)
            ab = ab + db[n * C + c]
        dw[c] = aw
        dbias[c] = ab


def bn_loop(dy, x, w, mean, invstd, flags, Nb, C, S, T, dx, dw, dbias, buf, acc, sc):
    """batch_norm_cpu_backward of the flat (Nb, C, S) arrays: its contiguous kernel (S > 1),
    its channels-last one (S == 1, buf: (2, T, C) zeros); w: the weight or ones; mean, invstd:
    the saved statistics or the running mean and 1 / sqrt(var + eps); flags: (training, dx
    wanted); sc: (N, 0) in the dtype. dw and dbias: dotp * invstd and the gradient's sum."""
    N = Nb * S
    nf = sc[0]
    if S > 1:
        for c in range(C):
            m = mean[c]
            total = 0.0
            dotp = 0.0
            for n in range(Nb):
                o = (n * C + c) * S
                dp, tt = _red2(x, dy, dy, m, o, S, True, acc)
                total += tt
                dotp += dp
            sc[2] = dotp
            sc[3] = total / N
            sc[4] = dotp * invstd[c]
            sc[5] = total
            r = invstd[c]
            if flags[1]:
                k = sc[2] * r * r / nf
                gm = sc[3]
                for n in range(Nb):
                    o = (n * C + c) * S
                    for j in range(S):
                        if flags[0]:
                            v = _fma(-(x[o + j] - m), k, dy[o + j] - gm)
                            dx[o + j] = v * r * w[c]
                        else:
                            dx[o + j] = dy[o + j] * r * w[c]
            dw[c] = sc[4]
            dbias[c] = sc[5]
        return
    for i in range(Nb):
        t = _chunk_of(i, Nb, T)
        o = i * C
        for c in range(C):
            buf[0, t, c] = buf[0, t, c] + dy[o + c]
            buf[1, t, c] = _fma(x[o + c] - mean[c], dy[o + c], buf[1, t, c])
    for c in range(C):
        total = 0.0
        dotp = 0.0
        for t in range(T):
            total += buf[0, t, c]
            dotp += buf[1, t, c]
        buf[0, 0, c] = total
        buf[1, 0, c] = dotp
    main = C - C % (acc.size // 2)
    for i in range(Nb if flags[1] else 0):
        o = i * C
        for c in range(C):
            r = invstd[c]
            if flags[0]:
                k = buf[1, 0, c] * r * r / nf
                xc = x[o + c] - mean[c]
                gm = buf[0, 0, c] / nf
                if c < main:
                    v = _fma(-xc, k, dy[o + c] - gm)
                else:
                    v = dy[o + c] - gm - xc * k
                dx[o + c] = v * r * w[c]
            else:
                dx[o + c] = dy[o + c] * r * w[c]
    for c in range(C):
        dw[c] = buf[1, 0, c] * invstd[c]
        dbias[c] = buf[0, 0, c]


_fma, _chunk_of, _chunk_rows, _element, _fused_on = fma, chunk_of, chunk_rows, element, fused_on
_lanes_w, _lanes_nw = (lambda *a, p=_p: lanes_add(*a, *p) for _p in PAIRS[:2])
_red0, _red1, _red2 = (
    reducers(*_p, lambda f: f, lambda *a, p=_p: lanes_add(*a, *p)) for _p in PAIRS
)
_LOOPS = [None]


def _build():
    """The loops compiled by numba (None without numba or with FRAMEWORK_NUMBA=0)."""
    from . import _fused

    if _fused.kernels() is None:
        return None

    from .._numba_fma import cached_jit as jit
    from .._numba_fma import fma as fma_intrinsic

    g = globals()
    g["_fma"] = fma_intrinsic
    g["_element"], g["_fused_on"] = jit(element), jit(fused_on)
    for i, p in enumerate(PAIRS):
        g[f"_red{i}"] = reducers(*p, jit, _vector_lanes_add(*p))
    g["_lanes_w"], g["_lanes_nw"] = (_vector_lanes_add(*p) for p in PAIRS[:2])
    g["_chunk_of"], g["_chunk_rows"] = jit(chunk_of), jit(chunk_rows)
    from types import SimpleNamespace

    return SimpleNamespace(ln=jit(ln_loop), gn=jit(gn_loop), bn=jit(bn_loop))


def loops():
    """The compiled loops, kept once built; None without numba."""
    k = _LOOPS[0]
    if k is None:
        k = _build()
        if k is not None:
            _LOOPS[0] = k
    return k


def _lanes(dt):
    """The vector lanes of torch's AVX2 kernels for dt (32 bytes)."""
    return 32 // dt.itemsize


# --- the NumPy replays (the same operations on whole arrays) --------------------------------


def _f(a, b, c):
    """fused() on arrays broadcast to one shape."""
    a, b, c = np.broadcast_arrays(a, b, c)
    return fused(np.ascontiguousarray(a), np.ascontiguousarray(b), np.ascontiguousarray(c))


def _reduce_np(p, q, fuse_tail):
    """vreduce of each row of the 2-D p (times q's where q is given: the tail fused)."""
    dt = p.dtype
    L = _lanes(dt)
    n = p.shape[1]
    if n < L:
        v = p * q if q is not None else p
        r = v[:, 0]
        for j in range(1, n):
            r = r + v[:, j]
        return r
    acc = p[:, :L] * q[:, :L] if q is not None else p[:, :L].copy()
    full = n - n % L
    for d in range(L, full, L):
        acc = acc + (p[:, d : d + L] * q[:, d : d + L] if q is not None else p[:, d : d + L])
    k = n - full
    if k:
        if q is None:
            acc[:, :k] = acc[:, :k] + p[:, full:]
        elif fuse_tail:
            acc[:, :k] = _f(p[:, full:], q[:, full:], acc[:, :k])
        else:
            acc[:, :k] = acc[:, :k] + p[:, full:] * q[:, full:]
    if L == 8:
        return ((acc[:, 0] + acc[:, 4]) + (acc[:, 2] + acc[:, 6])) + (
            (acc[:, 1] + acc[:, 5]) + (acc[:, 3] + acc[:, 7])
        )
    r = acc[:, 0]
    for lane in range(1, L):
        r = r + acc[:, lane]
    return r


def _chunks(rows, T):
    """at::parallel_for(0, rows, 1)'s row ranges, one per thread used."""
    nt = min(T, rows) if rows > 1 else 1
    size = -(-rows // nt)
    return [(s, min(rows, s + size)) for s in range(0, rows, size)]


def _ln_np(dy, x, mean, rstd, w, need, T):
    """ln_loop on (M, N) arrays."""
    dt = x.dtype
    M, N = x.shape
    a, m = rstd[:, None], mean[:, None]
    dx = gw = gb = None
    if need[0]:
        if w is not None:
            ds = _reduce_np(dy * x, np.broadcast_to(w, x.shape), True)
            db = _reduce_np(dy, np.broadcast_to(w, x.shape), True)
        else:
            ds, db = _reduce_np(dy, x, True), _reduce_np(dy, None, True)
        scale = dt.type(1) / dt.type(N)
        b = _f(db, mean, -ds) * rstd * rstd * rstd * scale
        c = _f(-b, mean, -(db * rstd * scale))
        t = a * dy * w if w is not None else a * dy
        dx = _f(b[:, None], x, t) + c[:, None]
    if need[1] or need[2]:
        gw, gb = np.zeros(N, dt), np.zeros(N, dt)
        parts = []
        for s, e in _chunks(M, T):
            bw, bb = np.zeros(N, dt), np.zeros(N, dt)
            for i in range(s, e):
                if need[1]:
                    bw = _f(dy[i], _f(a[i], x[i], -a[i] * m[i]), bw)
                bb = bb + dy[i]
            parts.append((bw, bb))
        for bw, bb in parts:
            gw, gb = gw + bw, gb + bb
    return dx, gw, gb


def _gn_np(dy, x, mean, rstd, w, need, G, fuse):
    """gn_loop on (Nb, C, S) arrays (mean, rstd: (Nb, G); w: the weight or ones)."""
    dt = x.dtype
    Nb, C, S = x.shape
    D = C // G
    L = _lanes(dt)
    X, Y = x.reshape(Nb * C, S), dy.reshape(Nb * C, S)
    ds = _reduce_np(Y, X, fuse).reshape(Nb, G, D)
    db = _reduce_np(Y, None, fuse).reshape(Nb, G, D)
    dx = gw = gb = None
    if need[0]:
        gam = w.reshape(G, D)
        d = D // L * L
        acc_s = np.zeros((Nb, G, L), dt)
        acc_b = np.zeros((Nb, G, L), dt)
        for j in range(0, d, L):
            acc_s = _f(ds[:, :, j : j + L], gam[:, j : j + L], acc_s)
            acc_b = _f(db[:, :, j : j + L], gam[:, j : j + L], acc_b)
        ds_v, db_v = np.zeros((Nb, G), dt), np.zeros((Nb, G), dt)
        for lane in range(L):
            ds_v, db_v = ds_v + acc_s[:, :, lane], db_v + acc_b[:, :, lane]
        for j in range(d, D):
            ds_v = _f(ds[:, :, j], gam[:, j], ds_v)
            db_v = _f(db[:, :, j], gam[:, j], db_v)
        s = dt.type(1) / dt.type(D * S)
        c2 = _f(db_v, mean, -ds_v) * rstd * rstd * rstd * s
        c3 = _f(-(db_v * rstd), s, -c2 * mean)
        c1 = (rstd[:, :, None] * gam)[..., None]
        X4, Y4 = x.reshape(Nb, G, D, S), dy.reshape(Nb, G, D, S)
        dx = _f(c1, Y4, c2[:, :, None, None] * X4) + c3[:, :, None, None]
        dx = dx.reshape(x.shape)
    if need[1] or need[2]:
        gw, gb = np.zeros((G, D), dt), np.zeros((G, D), dt)
        for n in range(Nb):
            m, r = mean[n][:, None], rstd[n][:, None]
            gw = _f(_f(-db[n], m, ds[n]), r, gw)
            gb = gb + db[n]
        gw, gb = gw.reshape(C), gb.reshape(C)
    return dx, gw, gb


def _bn_np(dy, x, w, mean, invstd, train, need_x, T):
    """bn_loop on (Nb, C, S) arrays."""
    dt = x.dtype
    Nb, C, S = x.shape
    N = Nb * S
    dx = None
    if S > 1:
        total, dotp = np.zeros(C), np.zeros(C)
        for n in range(Nb):
            total = total + _reduce_np(dy[n], None, True)
            dotp = dotp + _reduce_np(x[n] - mean[:, None], dy[n], True)
        if need_x:
            r, wc = invstd[:, None], w[:, None]
            if train:
                k = (dotp.astype(dt) * invstd * invstd / dt.type(N))[:, None]
                gm = (total / N).astype(dt)[:, None]
                dx = _f(-(x - mean[:, None]), k, dy - gm) * r * wc
            else:
                dx = dy * r * wc
        return dx, (dotp * invstd).astype(dt), total.astype(dt)
    X, Y = x[:, :, 0], dy[:, :, 0]
    total, dotp = np.zeros(C), np.zeros(C)
    for s, e in _chunks(Nb, T):
        bs, bd = np.zeros(C, dt), np.zeros(C, dt)
        for i in range(s, e):
            bs = bs + Y[i]
            bd = _f(X[i] - mean, Y[i], bd)
        total, dotp = total + bs, dotp + bd
    total, dotp = total.astype(dt), dotp.astype(dt)
    if need_x:
        if train:
            k = dotp * invstd * invstd / dt.type(N)
            xc = X - mean
            gm = total / dt.type(N)
            main = C - C % _lanes(dt)
            dx = np.empty_like(X)
            dx[:, :main] = _f(-xc[:, :main], k[:main], Y[:, :main] - gm[:main])
            dx[:, main:] = Y[:, main:] - gm[main:] - xc[:, main:] * k[main:]
            dx = dx * invstd * w
        else:
            dx = Y * invstd * w
        dx = dx[:, :, None]
    return dx, dotp * invstd, total


# --- entry points ---------------------------------------------------------------------------


def replayable(*arrays):
    """Whether the arrays (None skipped) are NumPy float32/float64 arrays of one dtype."""
    given = [a for a in arrays if a is not None]
    dt = given[0].dtype
    return dt.char in "fd" and all(type(a) is np.ndarray and a.dtype == dt for a in given)


def threads():
    """The thread count torch's kernels split rows over (the forward replays' rule)."""
    return torch_threads()


def layer_norm_backward(dy, x, mean, rstd, weight, need):
    """(dx, dgamma, dbeta) of torch's layer_norm backward on (M, N) arrays (mean, rstd: M);
    need: which of the three are wanted (None for the others)."""
    dy, x = np.ascontiguousarray(dy), np.ascontiguousarray(x)
    dt = x.dtype
    M, N = x.shape
    mean, rstd = (
        np.ascontiguousarray(mean, dt).reshape(-1),
        np.ascontiguousarray(rstd, dt).reshape(-1),
    )
    w = None if weight is None else np.ascontiguousarray(weight).reshape(-1)
    T = threads() if (need[1] or need[2]) and M > 1 else 1
    k = loops()
    if k is None:
        with np.errstate(all="ignore"):
            dx, gw, gb = _ln_np(dy, x, mean, rstd, w, need, T)
    else:
        dx = np.empty_like(x) if need[0] else mean
        buf = np.zeros((2, T, N), dt)
        flags = np.array([w is not None, need[0], need[1], need[2]], np.uint8)
        sc = np.array([dt.type(1) / dt.type(N), 0], dt)
        wv = w if w is not None else mean
        k.ln(
            dy.reshape(-1),
            x.reshape(-1),
            mean,
            rstd,
            wv,
            flags,
            M,
            N,
            T,
            dx.reshape(-1),
            buf,
            np.empty(2 * _lanes(dt), dt),
            sc,
        )
        gw = _ordered(buf[0]) if need[1] else None
        gb = _ordered(buf[1]) if need[2] else None
    return (dx if need[0] else None), gw, gb


def _ordered(rows):
    """The rows added in order from zero."""
    out = rows[0] + 0
    for r in rows[1:]:
        out += r
    return out


def group_norm_backward(dy, x, mean, rstd, weight, groups, need):
    """(dx, dgamma, dbeta) of torch's group_norm backward on (N, C, *) arrays (mean, rstd:
    (N, groups)); need: which are wanted (None for the others)."""
    dy, x = np.ascontiguousarray(dy), np.ascontiguousarray(x)
    dt = x.dtype
    Nb, C = x.shape[:2]
    S = math.prod(x.shape[2:])
    mean = np.ascontiguousarray(mean, dt).reshape(-1)
    rstd = np.ascontiguousarray(rstd, dt).reshape(-1)
    w = np.ones(C, dt) if weight is None else np.ascontiguousarray(weight).reshape(-1)
    fuse = dt == np.float64  # (its float32 planes' tails add the products: measured)
    k = loops()
    with np.errstate(all="ignore"):
        if k is None:
            x3, y3 = x.reshape(Nb, C, S), dy.reshape(Nb, C, S)
            m2, r2 = mean.reshape(Nb, groups), rstd.reshape(Nb, groups)
            dx, gw, gb = _gn_np(y3, x3, m2, r2, w, need, groups, fuse)
            dx = None if dx is None else dx.reshape(x.shape)
        else:
            dx = np.empty_like(x) if need[0] else np.empty(1, dt)
            gw, gb = np.empty(C, dt), np.empty(C, dt)
            flags = np.array(need, np.uint8)
            sc = np.array([dt.type(1) / dt.type(C // groups * S), 0], dt)
            k.gn(
                dy.reshape(-1),
                x.reshape(-1),
                mean,
                rstd,
                w,
                flags,
                Nb,
                C,
                S,
                groups,
                _lanes(dt),
                fuse,
                np.empty(Nb * C, dt),
                np.empty(Nb * C, dt),
                dx.reshape(-1),
                gw,
                gb,
                np.empty(2 * _lanes(dt), dt),
                sc,
            )
    return (dx if need[0] else None), (gw if need[1] else None), (gb if need[2] else None)


def batch_norm_backward(dy, x, weight, mean, invstd, train, need):
    """(dx, dweight, dbias) of torch's batch_norm backward (its contiguous kernels) on
    C-contiguous (N, C, *) arrays: mean, invstd the saved statistics in training, else the
    running mean and var (invstd computed here as torch's backward does)."""
    dt = x.dtype
    Nb, C = x.shape[:2]
    S = math.prod(x.shape[2:])
    w = np.ones(C, dt) if weight is None else np.ascontiguousarray(weight).reshape(-1)
    mean = np.ascontiguousarray(mean, dt).reshape(-1)
    with np.errstate(all="ignore"):
        if train:
            invstd = np.ascontiguousarray(invstd, dt).reshape(-1)
        else:  # (torch's backward: 1 / sqrt(var + eps) with a double eps)
            var, eps = invstd
            invstd = (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(dt)
        T = threads()
        k = loops()
        if k is None:
            x3, y3 = x.reshape(Nb, C, S), dy.reshape(Nb, C, S)
            dx, gw, gb = _bn_np(y3, x3, w, mean, invstd, train, need[0], T)
            dx = None if dx is None else dx.reshape(x.shape)
        else:
            dx = np.empty_like(x) if need[0] else np.empty(1, dt)
            gw, gb = np.empty(C, dt), np.empty(C, dt)
            buf = np.zeros((2, T, C) if S == 1 else (2, 1, 1), dt)
            k.bn(
                dy.reshape(-1),
                x.reshape(-1),
                w,
                mean,
                invstd,
                np.array([train, need[0]], np.uint8),
                Nb,
                C,
                S,
                T,
                dx.reshape(-1),
                gw,
                gb,
                buf,
                np.empty(2 * _lanes(dt), dt),
                np.array([Nb * S, 0, 0, 0, 0, 0], dt),
            )
    return (dx if need[0] else None), (gw if need[1] else None), (gb if need[2] else None)
