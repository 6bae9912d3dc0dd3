"""numba replay of oneDNN's float32 LSTM primitive on an AVX2 CPU, as torch 2.13 runs it
for a float32 nn.LSTM layer on the CPU (at::mkldnn_rnn_layer): with grad mode off its
forward_inference (brgemm), with grad mode on its reference RNN's forward_training and
backward (products by oneDNN's sgemm: sgemm, sgemm_is_nocopy; the backward postgemm:
lstm_cell_backward): torch's bits.

forward_inference, measured against torch (ONEDNN_MAX_CPU_ISA=AVX2, one thread; sizes 1
to 300):

- the products are one fused multiply-add chain per gate element, in the order of the inner
  index, from 0: the input's product for every step at once (x W_ih^T), then each step's
  recurrent product added (h W_hh^T, its own chain); where the input size equals the hidden
  size, one chain over the concatenated [x_t, h] instead (the input's chain continued by the
  state's);
- the bias is b_ih + b_hh, added to the sum last;
- the gates take oneDNN's eltwise injector: logistic from its exp (a degree-5 polynomial of
  the remainder, 2^(n-1) * 2), tanh from its 32 degree-6 polynomials on half binades (linear
  below 0x39ddb3d7, 1 above 0x41102cb3);
- c' = fma(i, g, f c), h' = o tanh(c').

Exact pre-activations (multiples of 1/8) isolate the gates: 0 of 3,910 elements apart with
this replay (1,505 with torch's own sigmoid and tanh kernels). Imported only where numba is.
"""

import numpy as np
from numba import njit

from .._numba_fma import fma
from ._sleef_jit import bits as to_bits, from_bits

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}
F = np.float32

# oneDNN's tanh polynomials: degree 0 to 6 (rows), one per half binade (columns), as the
# bits of jit_uni_eltwise_injector's table (cpu/x64, tanh_polynomial_table)
_TANH_TABLE = (
    "00000000 39bfffff 39ffffff 3a3ffffe 3a7ffffb 3abffff7 3affffeb 3b3fffdc 3b7fffab 3bbfff70 "
    "3bfffeab 3c3ffdc0 3c7ffaab 3cbff701 3cffeaad 3d3fdc08 3d7faacd 3dbf7081 3dfeacc9 3e3dc7fd "
    "3e7acbf5 3eb77a9f 3eec9a9f 3f22991f 3f42f7d6 3f67b7cc 3f76ca83 3f7ebbe9 3f7fd40c 3f7fff32 "
    "3f7ffffc 3f800000 "
    "3f800000 3f800018 3f7fffe8 3f7fffda 3f7fffdc 3f7fffdc 3f7fffac 3f7fff70 3f7ffeec 3f7ffdc0 "
    "3f7ffbed 3f7ff704 3f7feff5 3f7fdbca 3f7fbfff 3f7f7041 3f7f009b 3f7dc36c 3f7c0aa8 3f7734b8 "
    "3f70a4de 3f5f1fd8 3f495493 3f18b9ec 3ed706cb 3e390b06 3d90b11f 3c21a053 3aaf7fdb 37ccc1a3 "
    "355c6733 00000000 "
    "00000000 be4e0ff1 3d25b1b1 3d6b6dab 3c9fb1d5 babff06f 3c07b3f6 bb3fc1bc 3a9f5921 bbbf06f2 "
    "bbb0f402 bc47db9e bc73d5e7 bca25bda bcfca780 bd40e07c bd7dab03 bdbe4a0f bdfb14a5 be36cc8d "
    "be6bd102 be9fe7c5 beba0f10 bec206a8 bea3c388 be277d62 bd8b7960 bc209f49 baad44ca b7c6eeac "
    "b663aa41 00000000 "
    "00000000 45b3ae96 c414eb20 c450e02e c3152b4e bead2f56 c2162e02 beb4bd5a c11a59a4 bed2f507 "
    "c020d32c 3dd0f506 bf2a75e2 bff950e3 bed47334 be809b8c beb64532 be961a5b be9b63ac bea0d4b2 "
    "be828a77 be378612 bdc20908 3d2d3957 3dd46e89 3db3f629 3d2c5e7b 3bd20403 3a59dfae 3770af45 "
    "372cc014 00000000 "
    "00000000 cc981a1b 4a7edd3d 4ab1007c 48fedd9c 41a557b5 477ee32a 422557f5 45ff3ce4 42a55641 "
    "446e0867 c33dc19a 42915214 43af4fad 4110fe88 c1099b75 3fc8a8dc bfbeaef5 be365aad 3f4d9652 "
    "3ddfa08f 3e34e9b8 3e2d07a6 3dc63567 3cdaeb78 bcd17537 bc92829c bb43ab99 b9b471dd b6baad5a "
    "b78bafc7 00000000 "
    "00000000 52f688d5 d0505c72 d08f98e3 ce505cc9 c7162b8a cc5061d6 c7162bdf ca50b37f c7162a3a "
    "c8422086 471a714e c5ece1f1 c70e3d90 c3eba94a 43e0c424 c21f4552 42217cc8 405e7dc4 c10dd401 "
    "3e96b602 bd1a6d2f bd393883 bd674682 bd310016 b961e269 3ba32495 3a7680d5 38b3173c 35a9deea "
    "375c3f2a 00000000 "
    "00000000 d8995ed1 558285ea 55b2cd69 53028625 4bc9991f 5082898a 4b4999b3 4e02c07c 4ac99764 "
    "4b72c822 ca40c0e1 489413e4 49b12224 46134c4e c60c2d57 43c83910 c3c872d1 c186bc9e 42325bc3 "
    "bf2ffa4a 3d9a203c bc545a43 bae08fee 3c80225d 3b1fd1df ba36b9d1 b91de544 b71f100f b408e2ed "
    "b685fec8 00000000"
)
TANH_TABLE = (
    np.array([int(h, 16) for h in _TANH_TABLE.split()], np.uint32).view(np.float32).reshape(7, 32)
)


@njit(**_OPTS)
def dnnl_exp(x):
    """oneDNN's exp_compute_vector_fwd of one float32 lane."""
    lo, hi = from_bits(np.int32(-1028740016)), from_bits(np.int32(0x42B17218))  # ln FLT_MIN/MAX
    below = x < lo
    s = x if x < hi else hi  # (minps: hi where x is NaN)
    s = s if s > lo else lo
    fx = s * from_bits(np.int32(0x3FB8AA3B))  # mul then add: two roundings
    fx = fx + F(0.5)
    fx = F(np.floor(fx))
    r = fma(-fx, from_bits(np.int32(0x3F317218)), s)
    e = np.int32(fx - F(1.0))
    two = F(0.0) if below else from_bits(np.int32((e + 127) << 23))
    p = fma(F(0.00828929059), r, F(0.0418978221))
    p = fma(p, r, F(0.166676521))
    p = fma(p, r, F(0.499991506))
    p = fma(p, r, F(0.999999701))
    p = fma(p, r, F(1.0))
    return p * two * F(2.0)


@njit(**_OPTS)
def dnnl_logistic(x):
    """oneDNN's logistic: e = exp(-|x|), y = e / (e + 1); 1 - y where x's sign bit is clear."""
    bits = to_bits(x)
    negative = bits < 0
    e = dnnl_exp(from_bits(np.int32(bits | np.int32(-2147483648))))
    y = e / (e + F(1.0))
    return y if negative else F(1.0) - y


@njit(**_OPTS)
def dnnl_tanh(x, table):
    """oneDNN's tanh_compute_vector_fwd (AVX2) of one float32 lane."""
    bits = to_bits(x)
    a_bits = np.int32(bits & np.int32(0x7FFFFFFF))
    a = from_bits(a_bits)
    idx = ((a_bits - np.int32(0x39800000)) & np.int32(-4194304)) >> 22
    idx = idx & 31  # (vgatherdps reads the table by these 32-bit indices)
    s = a - from_bits(np.int32(a_bits & np.int32(-4194304)))
    p = table[6, idx]
    for d in range(5, -1, -1):
        p = fma(p, s, table[d, idx])
    out = F(1.0)
    if from_bits(np.int32(0x41102CB3)) > a:
        out = p
    if from_bits(np.int32(0x39DDB3D7)) > a:
        out = a
    return -out if bits < 0 else out


@njit(**_OPTS)
def gemm_chain(a, b, out, accumulate):
    """out (M, N) = a (M, K) @ b (K, N) as one fused multiply-add chain per element in the
    order of k, from 0 (or from out's values where accumulate)."""
    m, k = a.shape
    n = b.shape[1]
    for i in range(m):
        if not accumulate:
            for j in range(n):
                out[i, j] = F(0.0)
        for q in range(k):
            v = a[i, q]
            for j in range(n):
                out[i, j] = fma(v, b[q, j], out[i, j])


@njit(**_OPTS)
def lstm_cell(g, hw, bias, add_hw, c, table, i_out, f_out, g_out, o_out, c_out, tc_out):
    """One step's gates from the pre-activation sums g (N, 4H) (plus hw where add_hw: the
    recurrent product added first) and the bias: oneDNN's postgemm."""
    n, h = c.shape
    for r in range(n):
        for j in range(h):
            s0, s1, s2, s3 = g[r, j], g[r, h + j], g[r, 2 * h + j], g[r, 3 * h + j]
            if add_hw:
                s0 = s0 + hw[r, j]
                s1 = s1 + hw[r, h + j]
                s2 = s2 + hw[r, 2 * h + j]
                s3 = s3 + hw[r, 3 * h + j]
            gi = dnnl_logistic(s0 + bias[j])
            gf = dnnl_logistic(s1 + bias[h + j])
            gg = dnnl_tanh(s2 + bias[2 * h + j], table)
            go = dnnl_logistic(s3 + bias[3 * h + j])
            cn = fma(gi, gg, gf * c[r, j])
            tc = dnnl_tanh(cn, table)
            i_out[r, j], f_out[r, j], g_out[r, j], o_out[r, j] = gi, gf, gg, go
            c_out[r, j], tc_out[r, j] = cn, tc


# forward_training: torch asks oneDNN's reference RNN ("ref" in ONEDNN_VERBOSE), whose
# products are oneDNN's sgemm (column-major C (4H, rows) = W (4H, K) x (K, rows)): the layer's
# over every step at once, each step's recurrent one added to it (beta 1). On an AVX2 CPU at
# one thread with small sizes that is the "nocopy" kernel of cpu/x64/gemm/f32/jit_avx_gemm_f32
# (rows of C in tiles of 16 or 8, columns in tiles of 6 with a 1-5 tail), a single row (a
# matrix-vector product) its gemv kernel.


def sgemm_is_nocopy(m, n, k, trans_b=False):
    """Whether oneDNN's gemm_driver takes the nocopy kernel (nocopy_checker_avx2, one thread)
    for C (m, n) with inner size k, B transposed or not; n == 1 is its gemv kernel."""
    if n == 1 or 1.0 / m + 1.0 / n >= 0.0038:
        return True
    if (m <= 378 and n <= 378 and k >= 378) or (m >= 378 and k >= 378):
        return False
    if trans_b:
        return (m <= 128 and n <= 128) or n <= 1 or k <= 1
    return (m <= 128 and n <= 128) or n <= 16 or k <= 2 or (m <= 64 and n >= 16)


@njit(**_OPTS)
def _split_row(a, b, r, k0, k1, fused, e, o):
    """e = row r's products with b's columns over k0..k1 as the nocopy tiles other than the
    16-row ones with 4 to 6 columns sum them (8 rows, or 3 columns: fused; 1 or 2 columns:
    each product rounded before its add): the even and the odd k in two chains, added,
    then an odd last k (o: scratch). b, e and o are views from column 0 (loops the
    compiler can vectorise)."""
    n = e.shape[0]
    for j in range(n):
        e[j] = F(0.0)
        o[j] = F(0.0)
    kk = k0 + ((k1 - k0) & ~1)
    for q in range(k0, kk, 2):
        v, w = a[r, q], a[r, q + 1]
        if fused:
            for j in range(n):
                e[j] = fma(v, b[q, j], e[j])
                o[j] = fma(w, b[q + 1, j], o[j])
        else:
            for j in range(n):
                e[j] = e[j] + v * b[q, j]
                o[j] = o[j] + w * b[q + 1, j]
    for j in range(n):
        e[j] = e[j] + o[j]
    if kk < k1:
        v = a[r, kk]
        if fused:
            for j in range(n):
                e[j] = fma(v, b[kk, j], e[j])
        else:
            for j in range(n):
                e[j] = e[j] + v * b[kk, j]


@njit(**_OPTS)
def _block(start, n, big, half_above):
    """sgemm_nocopy_driver's next block size from start (of n): big where at least twice
    that is left, half of what is left above half_above, else all of it."""
    size = n - start
    if size >= 2 * big:
        return big
    if size > half_above:
        return (size + 1) // 2
    return size


@njit(**_OPTS)
def _lanes_sum(v):
    """The AVX sum of 8 lanes: vhaddps, the halves added, vhaddps."""
    return ((v[0] + v[1]) + (v[4] + v[5])) + ((v[2] + v[3]) + (v[6] + v[7]))


@njit(**_OPTS)
def _gemv_t(a, b, r, k, y):
    """y + a[r] . b[:, 0] as jit_avx_gemv_t_f32_kern sums it, in blocks of 512 k: 8 lanes of
    FMA chains over 16 k at a time (lane l: k = l, l + 8 of each), their sum added to y;
    then the remaining 8, 4, 2 and 1 k, each piece's products summed and added."""
    lanes = np.zeros(8, np.float32)
    for b0 in range(0, k, 512):
        size = min(512, k - b0)
        main = size // 16 * 16
        if main:
            lanes[:] = F(0.0)
            for c0 in range(b0, b0 + main, 16):
                for half in range(2):
                    for lane in range(8):
                        q = c0 + 8 * half + lane
                        lanes[lane] = fma(a[r, q], b[q, 0], lanes[lane])
            y = y + _lanes_sum(lanes)
        q0 = b0 + main
        for piece in (8, 4, 2, 1):
            if (size - main) & piece:
                lanes[:] = F(0.0)
                for lane in range(piece):
                    lanes[lane] = a[r, q0 + lane] * b[q0 + lane, 0]
                y = y + _lanes_sum(lanes)
                q0 += piece
    return y


@njit(**_OPTS)
def sgemm(a, b, out, accumulate, k_block=256, tiles=True):
    """out (N, M) = a (N, K) @ b (K, M) as oneDNN's nocopy AVX2 sgemm computes C = W x, M
    being C's rows (the gates), N its columns (a's rows); accumulate: out + the product
    (beta 1). Blocks of k_block k (256; 96 where B is transposed, the weights' gradients;
    later blocks added to C), 4032 rows, 48 columns. tiles False: the copy-based kernel
    (jit_avx2_kernel_sgemm_kern, where sgemm_is_nocopy is not), measured as one FMA chain
    per element in each block of 256 k."""
    nr, k = a.shape
    m = b.shape[1]
    if m == 1 and nr > 1:  # C of one row: the transposed gemv kernel
        for r in range(nr):
            out[r, 0] = _gemv_t(a, b, r, k, out[r, 0] if accumulate else F(0.0))
        return
    if nr == 1:  # gemv: one FMA chain per element, from C's value where accumulate
        if not accumulate:
            out[0, :] = F(0.0)
        for q in range(k):
            v = a[0, q]
            for j in range(m):
                out[0, j] = fma(v, b[q, j], out[0, j])
        return
    e = np.empty((4, m), np.float32)
    o = np.empty(m, np.float32)
    k0 = 0
    while k0 < k:
        k1 = k0 + _block(k0, k, k_block, k_block)
        m0 = 0
        while m0 < m:
            m1 = m0 + _block(m0, m, 4032, 6048)
            if m1 - m0 == m:
                _nocopy_block(a, b, out, k0, k1, accumulate or k0 > 0, tiles, e, o)
            else:  # (a block of C's rows: contiguous copies, the loops' arrays from 0)
                part = np.ascontiguousarray(out[:, m0:m1])
                _nocopy_block(
                    a,
                    np.ascontiguousarray(b[:, m0:m1]),
                    part,
                    k0,
                    k1,
                    accumulate or k0 > 0,
                    tiles,
                    e,
                    o,
                )
                out[:, m0:m1] = part
            m0 = m1
        k0 = k1


@njit(**_OPTS)
def _store(out, r, e, beta1):
    """out[r] = e, or out[r] + e where beta1."""
    if beta1:
        for j in range(e.shape[0]):
            out[r, j] = out[r, j] + e[j]
    else:
        for j in range(e.shape[0]):
            out[r, j] = e[j]


@njit(**_OPTS)
def _chain_rows(a, b, out, r0, r1, k0, k1, beta1, split_from, e, o):
    """Rows r0..r1 of out as one FMA chain per element in k order, four rows at a time
    (each of b's rows loaded once for the four); columns from split_from (an 8-row tile
    tail) as _split_row sums them (fused). e: (4, width) scratch, o: (width,)."""
    width = b.shape[1]
    for r in range(r0, r1, 4):
        rows = min(4, r1 - r)
        e[:, :] = F(0.0)
        e0, e1, e2, e3 = e[0], e[1], e[2], e[3]
        q4 = k0
        if rows == 4:  # four k per pass: each chain's four FMAs nested (the same order)
            while q4 + 4 <= k1:
                b0, b1, b2, b3 = b[q4], b[q4 + 1], b[q4 + 2], b[q4 + 3]
                a0, a1, a2, a3 = (
                    a[r, q4 : q4 + 4],
                    a[r + 1, q4 : q4 + 4],
                    a[r + 2, q4 : q4 + 4],
                    a[r + 3, q4 : q4 + 4],
                )
                u0, u1, u2, u3 = a0[0], a0[1], a0[2], a0[3]
                v0, v1, v2, v3 = a1[0], a1[1], a1[2], a1[3]
                w0, w1, w2, w3 = a2[0], a2[1], a2[2], a2[3]
                z0, z1, z2, z3 = a3[0], a3[1], a3[2], a3[3]
                for j in range(width):
                    x0, x1, x2, x3 = b0[j], b1[j], b2[j], b3[j]
                    e0[j] = fma(u3, x3, fma(u2, x2, fma(u1, x1, fma(u0, x0, e0[j]))))
                    e1[j] = fma(v3, x3, fma(v2, x2, fma(v1, x1, fma(v0, x0, e1[j]))))
                    e2[j] = fma(w3, x3, fma(w2, x2, fma(w1, x1, fma(w0, x0, e2[j]))))
                    e3[j] = fma(z3, x3, fma(z2, x2, fma(z1, x1, fma(z0, x0, e3[j]))))
                q4 += 4
        for q in range(q4, k1):
            bq = b[q]
            if rows == 4:
                v0, v1, v2, v3 = a[r, q], a[r + 1, q], a[r + 2, q], a[r + 3, q]
                for j in range(width):
                    x = bq[j]
                    e0[j] = fma(v0, x, e0[j])
                    e1[j] = fma(v1, x, e1[j])
                    e2[j] = fma(v2, x, e2[j])
                    e3[j] = fma(v3, x, e3[j])
            else:
                for i in range(rows):
                    v = a[r + i, q]
                    ei = e[i]
                    for j in range(width):
                        ei[j] = fma(v, bq[j], ei[j])
        for i in range(rows):
            if split_from < width:
                _split_row(a, b[:, split_from:], r + i, k0, k1, True, e[i, split_from:], o)
            _store(out, r + i, e[i], beta1)


@njit(**_OPTS)
def _nocopy_block(a, b, out, k0, k1, beta1, tiles, e, o):
    """sgemm over one block of k (k0..k1) and all of C's rows (b's and out's columns,
    C-contiguous; loops from 0, which the compiler vectorises): every column in blocks of
    48 (tiles of 6 with a 1 to 5 column tail); beta1: added to out."""
    nr = a.shape[0]
    width = b.shape[1]
    full = width // 16 * 16  # 16-row tiles, then a 16- or 8-row tail
    split_from = width if width - full > 8 or not tiles else full
    n0 = 0
    while n0 < nr:
        nsz = _block(n0, nr, 48, 72)
        if not tiles:
            _chain_rows(a, b, out, n0, n0 + nsz, k0, k1, beta1, width, e, o)
            n0 += nsz
            continue
        nfull = nsz // 6 * 6
        tail = nsz - nfull
        chained = nsz if tail >= 4 else nfull  # (16-row tiles of 4 to 6 columns: a chain)
        _chain_rows(a, b, out, n0, n0 + chained, k0, k1, beta1, split_from, e, o)
        for r in range(n0 + chained, n0 + nsz):
            _split_row(a, b, r, k0, k1, tail == 3, e[0], o)
            _store(out, r, e[0], beta1)
        n0 += nsz


@njit(**_OPTS)
def lstm_cell_backward(i, f, g, o, tc, c_prev, dh, dy, dc, d_gates, dc_prev):
    """One step of oneDNN's backward postgemm (jit_uni_lstm_cell_postgemm_bwd): the gate
    gradients d_gates (N, 4H) and dc_prev from the step's activations, the recurrent
    gradient dh, the output's dy and the cell's dc."""
    n, h = c_prev.shape
    for r in range(n):
        for j in range(h):
            d_h = dh[r, j] + dy[r, j]
            t = tc[r, j]
            d_c = dc[r, j] + fma(-t, t, F(1.0)) * d_h * o[r, j]
            gi, gf, gg, go = i[r, j], f[r, j], g[r, j], o[r, j]
            d_gates[r, j] = fma(-gi, gi, gi) * d_c * gg
            d_gates[r, h + j] = fma(-gf, gf, gf) * d_c * c_prev[r, j]
            d_gates[r, 2 * h + j] = fma(-gg, gg, F(1.0)) * (gi * d_c)
            d_gates[r, 3 * h + j] = fma(-go, go, go) * d_h * t
            dc_prev[r, j] = d_c * gf


@njit(**_OPTS)
def bias_sum(d_gates, out):
    """oneDNN's gates_reduction of one step: out += each row of d_gates, in row order."""
    for r in range(d_gates.shape[0]):
        for j in range(d_gates.shape[1]):
            out[j] = out[j] + d_gates[r, j]
