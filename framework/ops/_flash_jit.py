"""numba replay of torch 2.13's CPU flash-attention kernels (ATen's FlashAttentionKernel.cpp,
float32/float64, no packing), for `attention`'s fused node: torch's bits.

torch splits the queries in blocks of 32, 64 or 256 rows (by the query length) and the keys
in blocks of 512, and per (batch, head, query block) computes the scores by MKL's ``?gemm``
(column-major, the operands as torch passes them), scales them and adds the mask, takes each
row's maximum, its exponentials (``exp_u20`` on the full vectors of the row, the C library's
``exp`` on the rest) and their sum (lane-wise, then the lanes by the AVX-512 shuffle tree for
float32, in order for float64; the rest added one by one), the products with the values by
``?gemm`` again, and finally one reciprocal of the sum per row. The backward recomputes the
probabilities from the saved log-sum-exp (Sleef's exp on every element), and accumulates the
gradients with ``?gemm`` over the blocks. Imported only where numba is (see ``attention``).
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

from .._numba_fma import ByDtype, fma
from ._sleef_jit import from_bits, vexp

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}
_COL, _N, _T = 102, 111, 112  # CblasColMajor, CblasNoTrans, CblasTrans
F = np.float32


@intrinsic
def _gemm(typingctx, address, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    """cblas_?gemm(ColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) at the
    function `address` (an int64 passed in at run time, so the loops cache on disk); a, b, c
    are data addresses (int64); alpha and beta float32 (sgemm) or float64 (dgemm)."""
    if not isinstance(alpha, types.Float):
        return None

    def codegen(context, builder, sig, args):
        """inttoptr to the gemm's type, then the call."""
        real = ir.FloatType() if sig.args[6] == types.float32 else ir.DoubleType()
        i32, i8p = ir.IntType(32), ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(
            ir.VoidType(), [i32] * 6 + [real, i8p, i32, i8p, i32, real, i8p, i32]
        )
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        ints = [builder.trunc(v, i32) for v in args[1:6]]
        cast = [
            context.cast(builder, args[6], sig.args[6], sig.args[6]),
            builder.inttoptr(args[7], i8p),
            builder.trunc(args[8], i32),
            builder.inttoptr(args[9], i8p),
            builder.trunc(args[10], i32),
            context.cast(builder, args[11], sig.args[11], sig.args[6]),
            builder.inttoptr(args[12], i8p),
            builder.trunc(args[13], i32),
        ]
        builder.call(fn, [ir.Constant(i32, _COL)] + ints + cast)
        return context.get_dummy_value()

    i = types.int64
    return types.void(i, i, i, i, i, i, alpha, i, i, i, i, alpha, i, i), codegen


def _lane_loop(width, mode):
    """An intrinsic f(address, other, count, init) -> `width` lanes: over `count` vectors of
    `width` elements from the data address (int64), each lane's running largest value
    (mode "max": the strict `x > m` select, a NaN never kept), sum (init + x0 + x1 ..., in
    turn) or sum of products with the vectors at `other` (mode "dot": each product rounded,
    then added; `other` unused otherwise), as one loop on LLVM vectors (numba's own loops
    index with wrap-around checks and stay scalar)."""

    @intrinsic
    def lanes(typingctx, address, other, count, init):
        """The lane loop; init is the float type's starting value of every lane."""
        if not isinstance(init, types.Float):
            return None

        def codegen(context, builder, sig, args):
            """entry -> loop (phi index, phi lanes) -> done (the lanes as a tuple)."""
            at, at2, n, start = args
            i64, i32 = ir.IntType(64), ir.IntType(32)
            vty = ir.VectorType(context.get_value_type(sig.args[3]), width)
            first = ir.Constant(vty, ir.Undefined)
            for k in range(width):
                first = builder.insert_element(first, start, ir.Constant(i32, k))
            ptr = builder.inttoptr(at, vty.as_pointer())
            ptr2 = builder.inttoptr(at2, vty.as_pointer())
            entry = builder.block
            loop = builder.append_basic_block("lanes.loop")
            done = builder.append_basic_block("lanes.done")
            builder.cbranch(builder.icmp_signed(">", n, ir.Constant(i64, 0)), loop, done)
            builder.position_at_end(loop)
            i = builder.phi(i64)
            acc = builder.phi(vty)
            align = init.bitwidth // 8
            x = builder.load(builder.gep(ptr, [i]), align=align)
            if mode == "max":
                nxt = builder.select(builder.fcmp_ordered(">", x, acc), x, acc)
            elif mode == "dot":
                y = builder.load(builder.gep(ptr2, [i]), align=align)
                nxt = builder.fadd(acc, builder.fmul(x, y))
            else:
                nxt = builder.fadd(acc, x)
            step = builder.add(i, ir.Constant(i64, 1))
            i.add_incoming(ir.Constant(i64, 0), entry)
            i.add_incoming(step, loop)
            acc.add_incoming(first, entry)
            acc.add_incoming(nxt, loop)
            builder.cbranch(builder.icmp_signed("<", step, n), loop, done)
            builder.position_at_end(done)
            res = builder.phi(vty)
            res.add_incoming(first, entry)
            res.add_incoming(nxt, loop)
            out = [builder.extract_element(res, ir.Constant(i32, k)) for k in range(width)]
            return context.make_tuple(builder, sig.return_type, out)

        i = types.int64
        return types.UniTuple(init, width)(i, i, i, init), codegen

    return lanes


_max8 = _lane_loop(8, "max")
_sum4, _sum8, _sum16 = (_lane_loop(w, "sum") for w in (4, 8, 16))
_dot4, _dot8, _dot16 = (_lane_loop(w, "dot") for w in (4, 8, 16))


@njit(**_OPTS)
def _exp_u20(x):
    """Vectorized<float>::exp_u20 of one lane (AVX-512): a degree-5 polynomial of the
    remainder times 2^n, every step rounded as the intrinsics."""
    lo, hi = from_bits(np.int32(-1028740016)), from_bits(np.int32(0x42B17218))
    below = x < lo
    s = x if x < hi else hi  # _mm512_min_ps(x, hi): hi where x is NaN
    s = s if s > lo else lo
    fx = fma(s, from_bits(np.int32(0x3FB8AA3B)), F(0.5))
    fx = F(np.floor(fx))
    p = fma(-fx, from_bits(np.int32(0x3F317218)), s)
    r = fma(p, F(0.00828929059), F(0.0418978221))
    r = fma(p, r, F(0.166676521))
    r = fma(p, r, F(0.499991506))
    r = fma(p, r, F(0.999999701))
    r = fma(p, r, F(1.0))
    e = np.int32(fx - F(1.0))
    two = F(0.0) if below else from_bits(np.int32((e + 127) << 23))
    return r * two * F(2.0)


def _exp_vec(x):
    """Vectorized<T>::exp_u20 of one lane: float32's polynomial, float64's Sleef exp."""


@overload(_exp_vec)
def _exp_vec_typed(x):
    if x == types.float32:
        return lambda x: _exp_u20(x)
    if x == types.float64:
        return lambda x: vexp(x)
    return None


def _cexp(x):
    """The scalar exp of torch's loops: a float32 is computed by the C library's double exp
    and rounded (measured: glibc's expf differs in the last bit in some cases)."""


def _lse(top, total):
    """max + log(sum) of a row as torch's kernel gives it: the C library's log of the row's
    type (logf for float32, unlike the exps), then the sum."""


@overload(_cexp)
def _cexp_typed(x):
    if x == types.float32:
        return lambda x: np.float32(np.exp(np.float64(x)))
    return lambda x: np.exp(x)


@overload(_lse)
def _lse_typed(top, total):
    if top == types.float32:
        return lambda top, total: top + np.log(total)
    return lambda top, total: top + np.log(total)


@njit(**_OPTS)
def _lanes_sum(acc, lanes):
    """vec_reduce_all(+) of the accumulator: the shuffle tree for 16 float32 lanes (AVX-512)
    or 8 (AVX2, float32 only), in order for float64's lanes (no SIMD specialisation)."""
    if lanes == 8 and acc.itemsize == 4:
        return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]))
    if lanes == 16:
        w = np.empty(8, acc.dtype)
        for i in range(8):
            w[i] = acc[i] + acc[i + 8]
        return ((w[0] + w[4]) + (w[2] + w[6])) + ((w[1] + w[5]) + (w[3] + w[7]))
    r = acc[0]
    for i in range(1, lanes):
        r = r + acc[i]
    return r


def _row_dots(x, y, lanes, out):
    """out[i, j, r] = vec::map2_reduce_all(x * y, +) over the last dim of x and y (4-D): the
    products (rounded, not fused), lane-wise sums over the full vectors (`_dot8` and its
    kin where both rows are contiguous: -0 + p is p), the tail added into the first lanes,
    then the lanes reduced as `_lanes_sum` does; a row shorter than a vector added in turn."""
    nb, nh, nq, ne = x.shape
    it = x.itemsize
    acc = np.empty(lanes, x.dtype)
    full = ne - ne % lanes
    fast = x.strides[3] == it and y.strides[3] == it and lanes in (4, 8, 16)
    start = x.dtype.type(-0.0)
    xs, ys = x.strides, y.strides
    for i in range(nb):
        for j in range(nh):
            for r in range(nq):
                if fast and ne >= lanes:  # by address: no row views (a row is 16 elements)
                    xa = x.ctypes.data + i * xs[0] + j * xs[1] + r * xs[2]
                    ya = y.ctypes.data + i * ys[0] + j * ys[1] + r * ys[2]
                    if lanes == 8:
                        t = _dot8(xa, ya, full // 8, start)
                        for c in range(8):
                            acc[c] = t[c]
                    elif lanes == 16:
                        t16 = _dot16(xa, ya, full // 16, start)
                        for c in range(16):
                            acc[c] = t16[c]
                    else:
                        t4 = _dot4(xa, ya, full // 4, start)
                        for c in range(4):
                            acc[c] = t4[c]
                    for c in range(full, ne):
                        acc[c - full] = acc[c - full] + x[i, j, r, c] * y[i, j, r, c]
                    out[i, j, r] = _lanes_sum(acc, lanes)
                    continue
                xr, yr = x[i, j, r], y[i, j, r]
                if ne < lanes:
                    s = xr[0] * yr[0]
                    for c in range(1, ne):
                        s = s + xr[c] * yr[c]
                    out[i, j, r] = s
                    continue
                for c in range(lanes):
                    acc[c] = xr[c] * yr[c]
                for c0 in range(lanes, full, lanes):
                    for c in range(lanes):
                        acc[c] = acc[c] + xr[c0 + c] * yr[c0 + c]
                for c in range(full, ne):
                    acc[c - full] = acc[c - full] + xr[c] * yr[c]
                out[i, j, r] = _lanes_sum(acc, lanes)


def row_dots(x, y, lanes):
    """Each row's x . y over the last dim (4-D arrays of one dtype), in torch's lane order
    (`_row_dots`, compiled per dtype): a (B, H, L) array."""
    out = np.empty(x.shape[:3], x.dtype)
    _ROW_DOTS(x, y, lanes, out)
    return out


@njit(**_OPTS)
def _scale_max(row, scale, add, top, vec_end):
    """row[c] = row[c] * scale, or fma(row[c], scale, add[c]) where add is not empty (torch's
    build contracts a * scale + mask), in place; returns the largest of top and the row as
    the kernel keeps it. A NaN among the elements its vector loop reads (`vec_end`: the
    block's full vectors without a mask, `_mul_reduce_max_fusion_kernel`; every element with
    one, `vec::reduce_all`), whose `vec::maximum` propagates it, makes the maximum NaN (the
    row's outputs NaN, as torch's); the scalar tail's `x > m` select never keeps one. The
    products in a loop of their own, the maximum in 8 lanes (`_max8`), then the rest in
    turn: a maximum is the same in any order (of equal zeros of either sign the one kept
    may differ, which no result shows: two zero maxima make the row's sum at least 2, its
    log not 0)."""
    n = row.shape[0]
    if add.shape[0]:
        for c in range(n):
            row[c] = fma(row[c], scale, add[c])
    else:
        for c in range(n):
            row[c] = row[c] * scale
    for c in range(min(vec_end, n)):
        if row[c] != row[c]:
            return row[c]
    full = n - n % 8
    m0, m1, m2, m3, m4, m5, m6, m7 = _max8(row.ctypes.data, 0, full // 8, top)
    for c in range(full, n):
        m0 = row[c] if row[c] > m0 else m0
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    m4 = m5 if m5 > m4 else m4
    m6 = m7 if m7 > m6 else m6
    m0 = m2 if m2 > m0 else m0
    m4 = m6 if m6 > m4 else m4
    return m4 if m4 > m0 else m0


@njit(**_OPTS)
def _exp_row(row, top):
    """row[c] = exp_u20(row[c] - top) (the forward's vector body), a loop LLVM vectorises."""
    for c in range(row.shape[0]):
        row[c] = _exp_vec(row[c] - top)


@njit(**_OPTS)
def _exp_sum(row, top, lanes, zero, kept):
    """_exp_reduce_sum_fusion_kernel: row[c] = exp(row[c] - top) in place (exp_u20 over the
    full vectors, the C library's exp on the rest) and the row's sum as torch adds it: lane
    sums over the vectors, the lanes reduced by `_lanes_sum`'s tree, then the rest in turn.
    Elements from `kept` on are the causal mask's -inf (left unwritten): their exps are +0,
    written as such (adding +0 to a lane or the sum changes nothing: both start at +0)."""
    n = row.shape[0]
    full = n - n % lanes
    e = min(kept, full)
    _exp_row(row[:e], top)  # a loop of its own: vectorised
    for c in range(e, full):
        row[c] = zero
    at = row.ctypes.data
    if lanes == 8:
        a0, a1, a2, a3, a4, a5, a6, a7 = _sum8(at, 0, full // 8, zero)
        if row.itemsize == 4:
            s = ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))
        else:
            s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
    elif lanes == 16:
        a = _sum16(at, 0, full // 16, zero)
        a0, a1, a2, a3 = a[0] + a[8], a[1] + a[9], a[2] + a[10], a[3] + a[11]
        a4, a5, a6, a7 = a[4] + a[12], a[5] + a[13], a[6] + a[14], a[7] + a[15]
        s = ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))
    elif lanes == 4:
        a0, a1, a2, a3 = _sum4(at, 0, full // 4, zero)
        s = a0 + a1 + a2 + a3
    else:
        acc = np.full(lanes, zero)
        for c0 in range(0, full, lanes):
            for c in range(lanes):
                acc[c] = acc[c] + row[c0 + c]
        s = _lanes_sum(acc, lanes)
    for c in range(full, n):
        e = _cexp(row[c] - top) if c < kept else zero
        s = s + e
        row[c] = e
    return s


@njit(**_OPTS)
def _sleef_exp_rows(attn, rows, width, norms, causal_from):
    """attn[r * width + c] = Sleef exp(attn[r * width + c] - norms[r]) for r < rows (the
    backward's probabilities), the block in one call (a call per row cost as much as its
    exps), each row's loop vectorised; where causal_from > -width (a block the causal mask
    cuts) only c < causal_from + r: the kernel zeroes the rest next."""
    for r in range(rows):
        row = attn[r * width : (r + 1) * width]
        norm = norms[r]
        for c in range(min(max(causal_from + r, 0), width)):
            row[c] = vexp(row[c] - norm)


@njit(**_OPTS)
def _aligned(n, dtype):
    """n elements of dtype starting at a 64-byte boundary (as ATen's allocations)."""
    raw = np.empty(n + 64, dtype)
    skip = (-raw.ctypes.data) % 64 // raw.itemsize
    return raw[skip : skip + n]


def _flash_forward(q, k, v, mask, causal, out, lse, scale, qsplit, kvsplit, lanes, threads, gemm):
    """cpu_flash_attention: out (B, H, L, E) and lse (B, H, L) from q, k, v (B, H, *, E: any
    strides, the last 1) and mask (B, H, L, S, broadcast strides allowed; size 0: none)."""
    nb, nh, nq, ne = q.shape
    nk = k.shape[2]
    it = q.itemsize
    qs = min(qsplit, nq)
    ks = min(kvsplit, nk)
    has_mask = mask.size > 0
    per = qs * ks + 2 * qs + qs * ne  # torch's buffer per thread: qk, max, sum, dst
    buf = _aligned(threads * per, q.dtype)
    total = nb * nh * ((nq + qs - 1) // qs)
    chunk = (total + min(threads, total) - 1) // min(threads, total)
    zero, one, ninf = q.dtype.type(0), q.dtype.type(1), q.dtype.type(-np.inf)
    none = np.empty(0, q.dtype)  # no mask row
    qsb, qsh, qsm = q.strides[0] // it, q.strides[1] // it, q.strides[2] // it
    ksb, ksh, ksn = k.strides[0] // it, k.strides[1] // it, k.strides[2] // it
    vsb, vsh, vsn = v.strides[0] // it, v.strides[1] // it, v.strides[2] // it
    qa, ka, va = q.ctypes.data, k.ctypes.data, v.ctypes.data
    z = 0
    for i in range(nb):
        for j in range(nh):
            for m in range(0, nq, qs):
                at = (z // chunk) * per  # the thread's buffer (torch's ompIdx)
                z += 1
                qk = buf[at : at + qs * ks]
                qmax = buf[at + qs * ks : at + qs * ks + qs]
                qsum = buf[at + qs * ks + qs : at + qs * ks + 2 * qs]
                dst = buf[at + qs * ks + 2 * qs : at + per]
                qka, dsta = qk.ctypes.data, dst.ctypes.data
                qb = min(qs, nq - m)
                for r in range(qb):
                    qmax[r] = ninf
                    qsum[r] = zero
                keys = min(m + qb, nk) if causal else nk
                for n in range(0, keys, ks):
                    kb = min(ks, nk - n)
                    gemm_at = ka + (i * ksb + j * ksh + n * ksn) * it
                    q_at = qa + (i * qsb + j * qsh + m * qsm) * it
                    _gemm(gemm, _T, _N, kb, qb, ne, one, gemm_at, max(ksn, ne), q_at,
                          max(qsm, ne), zero, qka, kb)  # fmt: skip
                    cut = causal and keys - n <= ks
                    # the causal mask's elements stay -inf after the scale (no additive
                    # mask, scale > 0): never a maximum, their exps +0, so they are not
                    # written as -inf, scaled nor raised (`_exp_sum` writes the zeros)
                    short = cut and not has_mask and scale > zero
                    if cut and not short:
                        for r in range(qb):
                            for c in range(max(m + r - n + 1, 0), kb):
                                qk[r * kb + c] = ninf
                    for r in range(qb):
                        o = r * kb
                        kept = min(max(m + r - n + 1, 0), kb) if short else kb
                        add = mask[i, j, m + r, n : n + kb] if has_mask else none
                        vec_end = kb if has_mask else kb - kb % lanes
                        top = _scale_max(qk[o : o + kept], scale, add, ninf, vec_end)
                        if qmax[r] > top:
                            top = qmax[r]
                        if top == ninf:
                            for c in range(kb):
                                qk[o + c] = zero
                            continue
                        s = _exp_sum(qk[o : o + kb], top, lanes, zero, kept)
                        shift = _cexp(qmax[r] - top)
                        qsum[r] = fma(shift, qsum[r], s)
                        qmax[r] = top
                        if n > 0:
                            for c in range(ne):
                                dst[r * ne + c] = dst[r * ne + c] * shift
                    v_at = va + (i * vsb + j * vsh + n * vsn) * it
                    _gemm(gemm, _N, _N, ne, qb, kb, one, v_at, max(vsn, ne), qka, kb,
                          zero if n == 0 else one, dsta, ne)  # fmt: skip
                for r in range(qb):
                    if qmax[r] == ninf:
                        qmax[r] = zero
                    if qsum[r] == zero:
                        qsum[r] = one
                    rec = one / qsum[r]
                    for c in range(ne):
                        out[i, j, m + r, c] = dst[r * ne + c] * rec
                    lse[i, j, m + r] = _lse(qmax[r], qsum[r])


def _flash_backward(g, q, k, v, dots, lse, mask, causal, gq, gk, gv, scale, qsplit, kvsplit,
                   lanes, threads, gemm):  # fmt: skip
    """cpu_flash_attention_backward: gq, gk, gv (zeros on entry, (B, H, *, E) views of
    sequence-major arrays) from the output's gradient g (C-contiguous (B, L, H, E) viewed as
    (B, H, L, E)), the inputs, lse, and `dots` (B, H, L): each row's g . out in torch's lane
    order (`row_dots`)."""
    nb, nh, nq, ne = q.shape
    nk = k.shape[2]
    it = q.itemsize
    qs = min(qsplit, nq)
    ks = min(kvsplit, nk)
    has_mask = mask.size > 0
    per = 2 * qs * ks  # torch's buffer per thread: attn, grad_attn
    buf = _aligned(threads * per, q.dtype)
    total = nb * nh
    chunk = (total + min(threads, total) - 1) // min(threads, total)
    dsum = np.empty(qs, q.dtype)
    zero, one = q.dtype.type(0), q.dtype.type(1)
    st = [x // it for x in (q.strides + k.strides + v.strides + g.strides)]
    sg = [x // it for x in (gq.strides + gk.strides + gv.strides)]
    qa, ka, va, ga = q.ctypes.data, k.ctypes.data, v.ctypes.data, g.ctypes.data
    gqa, gka, gva = gq.ctypes.data, gk.ctypes.data, gv.ctypes.data
    for i in range(nb):
        for j in range(nh):
            at = ((i * nh + j) // chunk) * per  # the thread's buffer (torch's ompIdx)
            attn = buf[at : at + qs * ks]
            grad = buf[at + qs * ks : at + per]
            aa, gra = attn.ctypes.data, grad.ctypes.data
            for m in range(0, nq, qs):
                qb = min(qs, nq - m)
                for r in range(qb):
                    dsum[r] = dots[i, j, m + r]
                keys = min(m + qb, nk) if causal else nk
                q_at = qa + (i * st[0] + j * st[1] + m * st[2]) * it
                g_at = ga + (i * st[12] + j * st[13] + m * st[14]) * it
                lq, lg = max(st[2], ne), max(st[14], ne)
                for n in range(0, keys, ks):
                    kb = min(ks, nk - n)
                    k_at = ka + (i * st[4] + j * st[5] + n * st[6]) * it
                    v_at = va + (i * st[8] + j * st[9] + n * st[10]) * it
                    lk, lv = max(st[6], ne), max(st[10], ne)
                    _gemm(gemm, _T, _N, kb, qb, ne, scale, k_at, lk, q_at, lq, zero, aa, kb)
                    if has_mask:
                        for r in range(qb):
                            o = r * kb
                            for c in range(kb):
                                attn[o + c] = attn[o + c] + mask[i, j, m + r, n + c]
                    cut = m - n + 1 if causal and keys - n <= ks else kb  # keys kept in row 0
                    _sleef_exp_rows(attn, qb, kb, lse[i, j, m : m + qb], cut)
                    if causal and keys - n <= ks:
                        for r in range(qb):
                            for c in range(max(m + r - n + 1, 0), kb):
                                attn[r * kb + c] = zero
                    gv_at = gva + (i * sg[8] + j * sg[9] + n * sg[10]) * it
                    _gemm(gemm, _N, _T, ne, kb, qb, one, g_at, lg, aa, kb, one, gv_at,
                          max(sg[10], ne))  # fmt: skip
                    _gemm(gemm, _T, _N, kb, qb, ne, one, v_at, lv, g_at, lg, zero, gra, kb)
                    for r in range(qb):
                        d = dsum[r]
                        for c in range(kb):
                            grad[r * kb + c] = attn[r * kb + c] * (grad[r * kb + c] - d)
                    gq_at = gqa + (i * sg[0] + j * sg[1] + m * sg[2]) * it
                    _gemm(gemm, _N, _N, ne, qb, kb, scale, k_at, lk, gra, kb, one, gq_at,
                          max(sg[2], ne))  # fmt: skip
                    gk_at = gka + (i * sg[4] + j * sg[5] + n * sg[6]) * it
                    _gemm(gemm, _N, _T, ne, kb, qb, scale, q_at, lq, gra, kb, one, gk_at,
                          max(sg[6], ne))  # fmt: skip


def _arrays(dt, n, *writable):
    """numba array types ('A' layout, n-D, read-only unless writable) of dtype dt."""
    return [types.Array(dt, n, "A", readonly=not w) for w in writable]


def _forward_sig(dt):
    """flash_forward's one signature per dtype: any layout, read-only inputs accepted."""
    q, k, v, mask, out = _arrays(dt, 4, False, False, False, False, True)
    (lse,) = _arrays(dt, 3, True)
    i = types.int64
    return types.void(q, k, v, mask, types.boolean, out, lse, dt, i, i, i, i, i)


def _backward_sig(dt):
    """flash_backward's one signature per dtype (as `_forward_sig`)."""
    g, q, k, v, mask, gq, gk, gv = _arrays(dt, 4, *[False] * 5, True, True, True)
    dots, lse = _arrays(dt, 3, False, False)
    i = types.int64
    return types.void(g, q, k, v, dots, lse, mask, types.boolean, gq, gk, gv, dt, i, i, i, i, i)


def _row_dots_sig(dt):
    """_row_dots' one signature per dtype (as `_forward_sig`)."""
    x, y = _arrays(dt, 4, False, False)
    (out,) = _arrays(dt, 3, True)
    return types.void(x, y, types.int64, out)


# compiled on the first call, once per dtype (one signature: no recompiling per layout)
_ROW_DOTS = ByDtype(_row_dots, _row_dots_sig)
flash_forward = ByDtype(_flash_forward, _forward_sig)
flash_backward = ByDtype(_flash_backward, _backward_sig)
