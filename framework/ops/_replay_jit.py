"""Compiled loops (numba) for the exact-bits replays of torch's CPU reductions and resampling:
vector norms and products (``_norm_kernel``, ``_prod_kernel``), adaptive average pooling
(``_adaptive_avg``), cdist and small bmm (``products``, ``linalg``) and the generic
interpolation kernel (``resample``).

Each loop performs the IEEE operations of the NumPy replay beside it in the same order
(compiled without fastmath: no contraction, no reassociation; a fused multiply-add only where
written, as ``fma``: LLVM's ``llvm.fma``), so the two give the same bits; the NumPy replays stay
the reference and the path without numba (or with ``FRAMEWORK_NUMBA=0``, or inside
``_fused.disabled()``, which the tests use to compare both). Accumulators are typed from the
arrays (``out[o] = 0`` then read back): a Python float literal would promote a float32 sum to
float64. Powers (``pow``) stay in NumPy around the loops.

Example:
    >>> import numpy as np
    >>> k = loops()
    >>> out = np.ones(1, np.float32) * 3
    >>> if k is not None:
    ...     k.fold_rows(np.ones((1, 3), np.float32), ADD, out)
    >>> float(out[0])
    3.0
"""

import numpy as np

from .._fma import fused
from . import _fused

ADD_ABS, ADD_SQUARE, ADD, MULTIPLY = 0, 1, 2, 3  # fold_rows' step: acc + |v|, + v*v, + v, * v


def fma(a, b, c):
    """``a * b + c`` rounded once (numba: the llvm.fma intrinsic, swapped in by ``_build``)."""
    return fused(np.asarray([a]), b, np.asarray([c]))[0]


def _step(acc, v, mode):
    """One fold step of ``fold_rows`` (two roundings for a square: multiply, then add)."""
    if mode == ADD_ABS:
        return acc + abs(v)
    if mode == ADD_SQUARE:
        return acc + v * v
    if mode == ADD:
        return acc + v
    return acc * v


def fold_rows(rows, mode, out):
    """``out[o]``: row o of ``rows`` (outputs, n; any strides) folded in order from 0 (from 1
    for MULTIPLY) with ``_step``: binary_kernel_reduce's one accumulator per output. Rows
    along memory are read row by row, strided ones column by column (the same steps)."""
    count, n = rows.shape
    for o in range(count):
        out[o] = 1 if mode == MULTIPLY else 0
    if rows.strides[1] <= rows.strides[0]:
        for o in range(count):
            acc = out[o]
            for k in range(n):
                acc = _step(acc, rows[o, k], mode)
            out[o] = acc
    else:
        for k in range(n):
            for o in range(count):
                out[o] = _step(out[o], rows[o, k], mode)


def vector_fold(x, o, cnt, square, acc):
    """``acc`` (L lanes) <- the ``cnt`` L-lane vectors from ``x[o]`` folded lane-wise from the
    first: ``acc + v * v`` from ``v * v`` (``square``: two roundings), else ``acc * v`` from
    ``v``. Under numba an intrinsic on LLVM vectors (``_vector_fold``: numba does not
    vectorise the lanes by itself); the same operations lane by lane."""
    L = acc.shape[0]
    for lane in range(L):
        v = x[o + lane]
        a = v * v if square else v
        for j in range(1, cnt):
            v = x[o + j * L + lane]
            a = a + v * v if square else a * v
        acc[lane] = a


def _vector_fold(L, square):
    """vector_fold for L lanes as a numba intrinsic over LLVM vectors (square: a vector
    multiply and a vector add per step, no contraction; else one vector multiply)."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def fold_vec(typingctx, x, o, cnt, acc):
        """The fold on LLVM vectors of L lanes."""

        def codegen(context, builder, sig, args):
            """The LLVM of fold_vec: one vector load and one or two vector operations per
            step, the accumulator stored into acc's first L values."""
            x, o, cnt, acc = (
                context.make_array(t)(context, builder, v) if isinstance(t, types.Array) else v
                for v, t in zip(args, sig.args)
            )
            ety = context.get_data_type(sig.args[0].dtype)
            vty = ir.VectorType(ety, L)

            def load(j):
                """The LLVM vector of lanes j*L .. j*L + L - 1 of the row."""
                at = builder.add(o, builder.mul(j, ir.Constant(j.type, L)))
                ptr = builder.bitcast(builder.gep(x.data, [at]), vty.as_pointer())
                return builder.load(ptr, align=1)

            first = load(ir.Constant(o.type, 0))
            accp = cgutils.alloca_once_value(
                builder, builder.fmul(first, first) if square else first
            )
            with cgutils.for_range(builder, builder.sub(cnt, ir.Constant(cnt.type, 1))) as loop:
                v = load(builder.add(loop.index, ir.Constant(o.type, 1)))
                a = builder.load(accp)
                a = builder.fadd(a, builder.fmul(v, v)) if square else builder.fmul(a, v)
                builder.store(a, accp)
            builder.store(builder.load(accp), builder.bitcast(acc.data, vty.as_pointer()), align=1)
            return context.get_dummy_value()

        return types.void(x, o, cnt, acc), codegen

    return fold_vec


def _squares8(x, o, cnt, acc):
    """vector_fold of squares over 8 lanes (numba: the vector intrinsic)."""
    vector_fold(x, o, cnt, True, acc)


def _squares4(x, o, cnt, acc):
    """vector_fold of squares over 4 lanes (numba: the vector intrinsic)."""
    vector_fold(x, o, cnt, True, acc)


def _products32(x, o, cnt, acc):
    """vector_fold of products over 32 lanes (numba: the vector intrinsic)."""
    vector_fold(x, o, cnt, False, acc)


def _products16(x, o, cnt, acc):
    """vector_fold of products over 16 lanes (numba: the vector intrinsic)."""
    vector_fold(x, o, cnt, False, acc)


def lastdim_norm2(flat, n, width, four, out):
    """``_norm_kernel._lastdim_norm2`` on the C-ordered rows of n values in ``flat``: squares
    of ``width``-lane vectors added lane-wise, the lanes added in order, then (``four``:
    float32) a block of four squares added one by one, the rest fused-multiply-added; the
    square root."""
    count = out.shape[0]
    nvec = n // width
    lanes = np.empty(width, flat.dtype)
    for o in range(count):
        base = o * n
        out[o] = 0
        total = out[o]
        if nvec:
            if width == 8:
                _squares8(flat, base, nvec, lanes)
            else:
                _squares4(flat, base, nvec, lanes)
            total = lanes[0]
            for lane in range(1, width):
                total = total + lanes[lane]
        d = nvec * width
        if four and n - d >= 4:
            for k in range(d, d + 4):
                v = flat[base + k]
                total = total + v * v
            d += 4
        for k in range(d, n):
            v = flat[base + k]
            total = fma(v, v, total)
        out[o] = np.sqrt(total)


def prod_blocks(flat, n, width, out):
    """``_prod_kernel.torch_prod`` on the C-ordered rows of n values (at least one block) in
    ``flat``: four ``width``-lane accumulators from the first block times each later block,
    combined as ``(a0 * a1) * (a2 * a3)``, the lanes multiplied in order, then the tail one
    by one."""
    count = out.shape[0]
    w4 = 4 * width
    blocks = n // w4
    acc = np.empty(w4, flat.dtype)
    for o in range(count):
        base = o * n
        if width == 8:
            _products32(flat, base, blocks, acc)
        else:
            _products16(flat, base, blocks, acc)
        res = (acc[0] * acc[width]) * (acc[2 * width] * acc[3 * width])
        for lane in range(1, width):
            a01 = acc[lane] * acc[width + lane]
            res = res * (a01 * (acc[2 * width + lane] * acc[3 * width + lane]))
        for k in range(blocks * w4, n):
            res = res * flat[base + k]
        out[o] = res


def cdist_pairs(x1, x2, p2, body, out):
    """``products._cdist_sequential`` for p = 1 (``p2`` False) or 2 on x1 (B, P, M) and x2
    (B, R, M): per pair |x1 - x2| summed from 0 in column order (p = 2: the first ``body``
    squares rounded then added, the rest fused; the square root)."""
    nb, np_, m = x1.shape
    nr = x2.shape[1]
    for b in range(nb):
        for i in range(np_):
            for j in range(nr):
                out[b, i, j] = 0
                acc = out[b, i, j]
                if p2:
                    for k in range(body):
                        d = abs(x1[b, i, k] - x2[b, j, k])
                        acc = acc + d * d
                    for k in range(body, m):
                        d = abs(x1[b, i, k] - x2[b, j, k])
                        acc = fma(d, d, acc)
                    out[b, i, j] = np.sqrt(acc)
                else:
                    for k in range(m):
                        acc = acc + abs(x1[b, i, k] - x2[b, j, k])
                    out[b, i, j] = acc


def cdist_backward(x, other, g, d, p2, consts, out):
    """torch's run_backward_parallel_cdist for p = 1 (``p2`` False) or 2: out (B, N, M), from
    0, adds for each row j of ``other`` (B, R, M) in order ``g * sign(x - other_j)`` (sign:
    1, -1, +0 at a zero, NaN at NaN) or ``(g * (x - other_j)) / d`` (+0 where d == 0), with
    g and d (B, N, R) at (i, j); ``consts``: 0, 1, -1 in the dtype."""
    nb, n, m = x.shape
    r = other.shape[1]
    zero, one, minus = consts[0], consts[1], consts[2]
    for b in range(nb):
        for i in range(n):
            acc = out[b, i]
            for c in range(m):
                acc[c] = zero
            for j in range(r):
                gij = g[b, i, j]
                dij = d[b, i, j]
                if p2 and dij == zero:
                    for c in range(m):
                        acc[c] = acc[c] + zero
                    continue
                for c in range(m):
                    diff = x[b, i, c] - other[b, j, c]
                    if p2:
                        t = gij * diff / dij
                    else:
                        s = one if diff > zero else (minus if diff < zero else zero)
                        if diff != diff:
                            s = diff
                        t = gij * s
                    acc[c] = acc[c] + t


def small_bmm(a, b, out):
    """torch's baddbmm_cpu_kernel: each entry summed from 0 over k in order, products and
    sums rounded apart; a (B, N, K), b (B, K, P), out (B, N, P)."""
    nb, n, kk = a.shape
    pp = b.shape[2]
    for q in range(nb):
        for i in range(n):
            for j in range(pp):
                out[q, i, j] = 0
                acc = out[q, i, j]
                for k in range(kk):
                    acc = acc + a[q, i, k] * b[q, k, j]
                out[q, i, j] = acc


def aap_forward(x, hs, he, ws, we, kh, kw, out):
    """``_adaptive_avg.forward`` on x (N, H, W): each window summed from 0 in row-major
    order, then divided by its height and then by its width."""
    for c in range(x.shape[0]):
        for i in range(hs.shape[0]):
            for j in range(ws.shape[0]):
                out[c, i, j] = 0
                acc = out[c, i, j]
                for r in range(hs[i], he[i]):
                    for q in range(ws[j], we[j]):
                        acc = acc + x[c, r, q]
                out[c, i, j] = acc / kh[i] / kw[j]


def aap_backward(g, hs, he, ws, we, kh, kw, out):
    """``_adaptive_avg.backward``: each g (N, oh, ow) divided by its window's height and width
    added into the window's positions of the zero-filled ``out`` (N, H, W), windows row by
    row."""
    for c in range(g.shape[0]):
        for i in range(hs.shape[0]):
            for j in range(ws.shape[0]):
                delta = g[c, i, j] / kh[i] / kw[j]
                for r in range(hs[i], he[i]):
                    for q in range(ws[j], we[j]):
                        out[c, r, q] = out[c, r, q] + delta


def axis_taps(x, idx, w, out):
    """One axis of ``resample._generic_linear``: x (outer, n_in, inner) to out (outer, n_out,
    inner), each output ``fma(t0, w0, t1 * w1)`` then ``fma(tk, wk, acc)`` for its further
    taps (idx, w: (n_out, taps), at least two taps)."""
    outer, _, inner = x.shape
    n_out, taps = idx.shape
    if inner == 1:  # the last axis: one output per tap set and row
        for a in range(outer):
            for i in range(n_out):
                acc = fma(x[a, idx[i, 0], 0], w[i, 0], x[a, idx[i, 1], 0] * w[i, 1])
                for k in range(2, taps):
                    acc = fma(x[a, idx[i, k], 0], w[i, k], acc)
                out[a, i, 0] = acc
        return
    for a in range(outer):
        for i in range(n_out):
            i0, i1 = idx[i, 0], idx[i, 1]
            w0, w1 = w[i, 0], w[i, 1]
            for q in range(inner):
                acc = fma(x[a, i0, q], w0, x[a, i1, q] * w1)
                for k in range(2, taps):
                    acc = fma(x[a, idx[i, k], q], w[i, k], acc)
                out[a, i, q] = acc


_LOOPS = [None]  # the compiled namespace once built, False where it cannot be


def _build():
    """The loops compiled by numba (False where numba cannot build them)."""
    try:
        import numba

        from .._numba_fma import ByDtype
        from .._numba_fma import fma as fma_intrinsic
    except Exception:
        return False
    from types import SimpleNamespace

    g = globals()
    for cache in (True, False):  # no writable cache directory: compile in memory
        try:
            opts = {"cache": cache, "nogil": True, "error_model": "numpy"}
            g["fma"] = fma_intrinsic
            g["_step"] = numba.njit(inline="always", **opts)(_STEP)
            g["_squares8"], g["_squares4"] = _vector_fold(8, True), _vector_fold(4, True)
            g["_products32"], g["_products16"] = _vector_fold(32, False), _vector_fold(16, False)
            names = (
                "fold_rows",
                "lastdim_norm2",
                "prod_blocks",
                "cdist_pairs",
                "cdist_backward",
                "small_bmm",
                "aap_forward",
                "aap_backward",
                "axis_taps",
            )
            ns = SimpleNamespace(**{n: numba.njit(**opts)(_PLAIN[n]) for n in names})
            # small_bmm: one version per dtype, the operands read-only in any layout (a
            # version per layout and writability of each compiled 64 times in a test run)
            ns.small_bmm = ByDtype(_PLAIN["small_bmm"], _bmm_sig)
            return ns
        except Exception:
            continue
    return False


_STEP = _step
_PLAIN = {
    f.__name__: f
    for f in (
        fold_rows,
        lastdim_norm2,
        prod_blocks,
        cdist_pairs,
        cdist_backward,
        small_bmm,
        aap_forward,
        aap_backward,
        axis_taps,
    )
}


def _bmm_sig(t):
    """small_bmm's numba signature for the float type t: a and b read-only, any layout."""
    from numba import types as nt

    ro = nt.Array(t, 3, "A", readonly=True)
    return (ro, ro, nt.Array(t, 3, "C"))


def loops():
    """The compiled loops (a namespace), or None without numba, with FRAMEWORK_NUMBA=0 or
    inside ``_fused.disabled()`` (the NumPy replays then run: the same bits)."""
    k = _LOOPS[0]
    if k and _fused._state[0]:  # (built, and _fused's kernels on: the common case)
        return k
    if _fused.kernels() is None:
        return None
    if k is None:
        k = _LOOPS[0] = _build()
    return k or None
