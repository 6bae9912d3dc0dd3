"""MKL's ?gemm called as torch's addmm_impl_cpu_ calls it, compiled by numba (imported by
`_mkl.product_into` on first use).

torch 2.13 computes every float32/float64 mm/addmm (F.linear, matmul of matrices, their
backward) by ``at::native::cpublas::gemm``, which calls MKL's Fortran ``sgemm_``/``dgemm_``
at any size; bmm/baddbmm from 400 multiply-adds a matrix by one ``cblas_?gemm_batch`` call
(`batch_into`) and dot by ``?dot_`` (`dot_into`). A product's bits depend on the
call (which operand is ``a``, the transpose flags, ``m``/``n``/``k``, the leading dimensions),
so `_product` makes torch's choices from the operands' real strides: addmm_impl_cpu_'s
result-transpose test (a C-ordered result of more than one column: the operands swapped),
its tests of each operand (unit-strided rows or columns, else a C-ordered clone), then
cpublas's normalize_last_dims on the leading dimensions (0 of 4,800 small cases apart from
torch.mm: C, F and strided layouts, sizes of 1). `product_into(record, a, b, out)` is the
entry; its record holds the function's address, the item size, alpha and beta (float64 bits)
and an optional ``MKL_Set_Num_Threads_Local`` (0: MKL's own thread count, as torch's; see
`SERIAL_MACS`); the hot paths pass its address instead (`product_at`). The hot paths call
the compiled CPython entry points (`entry_points`; mm's backward: `grads_at`): a 4 x 4
float32 product costs 0.58 us there, 0.80 us through numba's dispatch, 0.57 us by NumPy's
dot (OpenBLAS) and ~2.5 us by ctypes (`_mkl.gemm` without numba); the caller's np.empty adds
~0.17 us. (A NumPy gufunc costs ~1.5 us more: its generic setup, and NumPy passes 0 as the
stride of a core dimension of size 1, where torch's tests read the tensor's own.)
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

SERIAL_MACS = 1 << 18  # with a thread-setting function in the record (`make_record`; none
#              passed): products of fewer multiply-adds run on one MKL thread. Off: torch
#              runs every product on MKL's own thread count, and a small product's bits can
#              depend on it (5 x 17 by 17 x 33 float32: 9 % of its elements apart, 1 vs 2)
_N, _T = 78, 84  # BLAS's 'N' and 'T'


def _gemm_call(real):
    """An intrinsic calling a Fortran ?gemm_ (every argument by pointer) of float type `real`
    (an llvmlite type) at an address; alpha and beta given as float64."""

    @intrinsic
    def call(typingctx, fn, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        """fn(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc)."""

        def codegen(context, builder, signature, args):
            """LLVM IR of the call, its scalars in stack slots."""
            f, ta_, tb_, m_, n_, k_, al, pa, lda_, pb, ldb_, be, pc, ldc_ = args
            i8, i32 = ir.IntType(8), ir.IntType(32)
            i8p, i32p, rp = i8.as_pointer(), i32.as_pointer(), real.as_pointer()

            def slot(ty, value):
                """A stack slot holding value."""
                p = cgutils.alloca_once(builder, ty)
                builder.store(value, p)
                return p

            def int_slot(v):
                """A 32-bit int slot of an int64 value."""
                return slot(i32, builder.trunc(v, i32))

            def real_slot(v):
                """A `real` slot of a float64 value."""
                return slot(
                    real, v if isinstance(real, ir.DoubleType) else builder.fptrunc(v, real)
                )

            fnty = ir.FunctionType(
                ir.VoidType(), [i8p, i8p, i32p, i32p, i32p, rp, rp, i32p, rp, i32p, rp, rp, i32p]
            )
            call_args = [
                slot(i8, builder.trunc(ta_, i8)),
                slot(i8, builder.trunc(tb_, i8)),
                int_slot(m_),
                int_slot(n_),
                int_slot(k_),
                real_slot(al),
                builder.inttoptr(pa, rp),
                int_slot(lda_),
                builder.inttoptr(pb, rp),
                int_slot(ldb_),
                real_slot(be),
                builder.inttoptr(pc, rp),
                int_slot(ldc_),
            ]
            builder.call(builder.inttoptr(f, fnty.as_pointer()), call_args)
            return context.get_dummy_value()

        i = types.int64
        return types.void(i, i, i, i, i, i, types.float64, i, i, i, i, types.float64, i, i), codegen

    return call


_sgemm, _dgemm = _gemm_call(ir.FloatType()), _gemm_call(ir.DoubleType())


def _batch_call(real):
    """An intrinsic calling MKL's cblas_?gemm_batch of float type `real` at an address as
    torch's mkl_gemm_batched calls it: column-major, one group of `count` products sharing
    the transposes, sizes, alpha, beta and leading dimensions; pa, pb, pc the addresses of
    arrays of the matrices' addresses."""

    @intrinsic
    def call(typingctx, fn, ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc, count):
        """fn(102, &ta, &tb, &m, &n, &k, &alpha, pa, &lda, pb, &ldb, &beta, pc, &ldc, 1,
        &count)."""

        def codegen(context, builder, signature, args):
            """LLVM IR of the call, its scalars in stack slots."""
            f, ta_, tb_, m_, n_, k_, al, pa_, lda_, pb_, ldb_, be, pc_, ldc_, cnt = args
            i32 = ir.IntType(32)
            i32p, rp, vpp = i32.as_pointer(), real.as_pointer(), ir.IntType(8).as_pointer()

            def slot(ty, value):
                """A stack slot holding value."""
                p = cgutils.alloca_once(builder, ty)
                builder.store(value, p)
                return p

            def int_slot(v):
                """A 32-bit int slot of an int64 value."""
                return slot(i32, builder.trunc(v, i32))

            def real_slot(v):
                """A `real` slot of a float64 value."""
                return slot(
                    real, v if isinstance(real, ir.DoubleType) else builder.fptrunc(v, real)
                )

            fnty = ir.FunctionType(
                ir.VoidType(),
                [i32, i32p, i32p, i32p, i32p, i32p, rp, vpp, i32p, vpp, i32p, rp, vpp, i32p]
                + [i32, i32p],
            )
            call_args = [
                ir.Constant(i32, 102),  # CblasColMajor
                int_slot(ta_),
                int_slot(tb_),
                int_slot(m_),
                int_slot(n_),
                int_slot(k_),
                real_slot(al),
                builder.inttoptr(pa_, vpp),
                int_slot(lda_),
                builder.inttoptr(pb_, vpp),
                int_slot(ldb_),
                real_slot(be),
                builder.inttoptr(pc_, vpp),
                int_slot(ldc_),
                ir.Constant(i32, 1),  # one group
                int_slot(cnt),
            ]
            builder.call(builder.inttoptr(f, fnty.as_pointer()), call_args)
            return context.get_dummy_value()

        i, d = types.int64, types.float64
        return types.void(i, i, i, i, i, i, d, i, i, i, i, d, i, i, i), codegen

    return call


_sbatch, _dbatch = _batch_call(ir.FloatType()), _batch_call(ir.DoubleType())


def _dot_call(real):
    """An intrinsic calling a Fortran ?dot_ (n, x, incx, y, incy by pointer) of float type
    `real` at an address: the result widened to float64."""

    @intrinsic
    def call(typingctx, fn, n, x, incx, y, incy):
        """fn(&n, x, &incx, y, &incy)."""

        def codegen(context, builder, signature, args):
            """LLVM IR of the call, its ints in stack slots."""
            f, n_, x_, incx_, y_, incy_ = args
            i32 = ir.IntType(32)
            i32p, rp = i32.as_pointer(), real.as_pointer()

            def int_slot(v):
                """A 32-bit int slot of an int64 value."""
                p = cgutils.alloca_once(builder, i32)
                builder.store(builder.trunc(v, i32), p)
                return p

            fnty = ir.FunctionType(real, [i32p, rp, i32p, rp, i32p])
            out = builder.call(
                builder.inttoptr(f, fnty.as_pointer()),
                [
                    int_slot(n_),
                    builder.inttoptr(x_, rp),
                    int_slot(incx_),
                    builder.inttoptr(y_, rp),
                    int_slot(incy_),
                ],
            )
            if isinstance(real, ir.DoubleType):
                return out
            return builder.fpext(out, ir.DoubleType())

        i = types.int64
        return types.float64(i, i, i, i, i, i), codegen

    return call


_sdot, _ddot = _dot_call(ir.FloatType()), _dot_call(ir.DoubleType())


@intrinsic
def _as_double(typingctx, bits):
    """The float64 whose bits are the int64 `bits`."""

    def codegen(context, builder, signature, args):
        """A bitcast."""
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@intrinsic
def _set_threads(typingctx, fn, count):
    """MKL_Set_Num_Threads_Local(count) at address fn: the previous local count."""

    def codegen(context, builder, signature, args):
        """The call, its int argument and result widened to int64."""
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(i32, [i32])
        out = builder.call(
            builder.inttoptr(args[0], fnty.as_pointer()), [builder.trunc(args[1], i32)]
        )
        return builder.sext(out, ir.IntType(64))

    return types.int64(types.int64, types.int64), codegen


@intrinsic
def _i64_at(typingctx, address):
    """An int64 pointer of an address."""

    def codegen(context, builder, signature, args):
        """An inttoptr."""
        return builder.inttoptr(args[0], ir.IntType(64).as_pointer())

    return types.CPointer(types.int64)(types.int64), codegen


@intrinsic
def _f32_at(typingctx, address):
    """A float32 pointer of an address."""

    def codegen(context, builder, signature, args):
        """An inttoptr."""
        return builder.inttoptr(args[0], ir.FloatType().as_pointer())

    return types.CPointer(types.float32)(types.int64), codegen


@intrinsic
def _f64_at(typingctx, address):
    """A float64 pointer of an address."""

    def codegen(context, builder, signature, args):
        """An inttoptr."""
        return builder.inttoptr(args[0], ir.DoubleType().as_pointer())

    return types.CPointer(types.float64)(types.int64), codegen


@numba.njit(inline="always", cache=True)
def _elements(step, size):
    """A byte stride in elements, or -1 where it is no whole number of them (no BLAS layout)."""
    return step // size if step % size == 0 else -1


@numba.njit(cache=True)
def _copy(src, rows, cols, s0, s1, size, dst):
    """The rows x cols matrix at address src (byte strides s0, s1) into dst, C-ordered (the
    contiguous clone torch makes of an operand BLAS cannot take)."""
    if size == 4:
        out = _f32_at(dst)
        for i in range(rows):
            for j in range(cols):
                out[i * cols + j] = _f32_at(src + i * s0 + j * s1)[0]
    else:
        out64 = _f64_at(dst)
        for i in range(rows):
            for j in range(cols):
                out64[i * cols + j] = _f64_at(src + i * s0 + j * s1)[0]


@numba.njit(nogil=True, cache=True)
def _product(record, M, K, N, pa, a0, a1, pb, b0, b1, pc, c0, c1):
    """One M x K by K x N product into the M x N result at pc (byte strides throughout), as
    torch's addmm_impl_cpu_ and cpublas::gemm call BLAS."""
    size, beta = record[1], _as_double(record[3])
    if M == 0 or N == 0:
        return
    if K == 0:  # torch: the result zeroed (beta 0) or scaled by beta, no BLAS call
        for i in range(M):
            for j in range(N):
                q = pc + i * c0 + j * c1
                if size == 4:
                    p32 = _f32_at(q)
                    p32[0] = 0.0 if beta == 0.0 else p32[0] * np.float32(beta)
                else:
                    p64 = _f64_at(q)
                    p64[0] = 0.0 if beta == 0.0 else p64[0] * beta
        return
    e = _elements
    # the result: column-major as it is (one column, or unit rows), else transposed (swapped)
    tc = not (e(c0, size) == 1 and (N == 1 or e(c1, size) >= max(1, M)))
    if tc:  # m1 = b, m2 = a: (address, rows, cols, byte strides) each
        m, n, ldc = N, M, e(c0, size)
        p1, r1, q1, s10, s11, p2, r2, q2, s20, s21 = pb, K, N, b0, b1, pa, M, K, a0, a1
    else:
        m, n, ldc = M, N, e(c1, size)
        p1, r1, q1, s10, s11, p2, r2, q2, s20, s21 = pa, M, K, a0, a1, pb, K, N, b0, b1
    k = K
    x1, y1, x2, y2 = e(s10, size), e(s11, size), e(s20, size), e(s21, size)
    u1, v1 = (y1, x1) if tc else (x1, y1)  # torch's m1_strides[tc ? 1 : 0], [tc ? 0 : 1]
    u2, v2 = (y2, x2) if tc else (x2, y2)
    keep1 = (u1 == 1 and v1 >= max(1, m)) or (v1 == 1 and u1 >= max(1, k))
    keep2 = (u2 == 1 and v2 >= max(1, k)) or (v2 == 1 and u2 >= max(1, n))
    if keep1 and keep2:
        ta = not (u1 == 1 and v1 >= max(1, m))
        tb = not (u2 == 1 and v2 >= max(1, k))
        _call(record, tc, m, n, k, ta, p1, x1, y1, tb, p2, x2, y2, pc, ldc)
        return
    # torch's C-ordered clones of the operands BLAS cannot take (then transposed as the result)
    buf1 = np.empty(0 if keep1 else r1 * q1, np.float64)
    buf2 = np.empty(0 if keep2 else r2 * q2, np.float64)
    if keep1:
        ta = not (u1 == 1 and v1 >= max(1, m))
    else:
        ta = not tc
        _copy(p1, r1, q1, s10, s11, size, buf1.ctypes.data)
        p1, x1, y1 = buf1.ctypes.data, q1, 1
    if keep2:
        tb = not (u2 == 1 and v2 >= max(1, k))
    else:
        tb = not tc
        _copy(p2, r2, q2, s20, s21, size, buf2.ctypes.data)
        p2, x2, y2 = buf2.ctypes.data, q2, 1
    _call(record, tc, m, n, k, ta, p1, x1, y1, tb, p2, x2, y2, pc, ldc)
    if buf1.size + buf2.size < 0:  # (keeps the clones alive through the call)
        print(buf1[0], buf2[0])


@numba.njit(nogil=True, cache=True)
def _call(record, tc, m, n, k, ta, p1, x1, y1, tb, p2, x2, y2, pc, ldc):
    """The gemm call of `_product`'s choices: leading dimensions as torch reads them off
    the operands' strides (x, y: rows, columns), then `_gemm`."""
    lda = y1 if ta == tc else x1
    ldb = y2 if tb == tc else x2
    _gemm(record, ta, tb, m, n, k, p1, lda, p2, ldb, pc, ldc)


@numba.njit(nogil=True, cache=True)
def _gemm(record, ta, tb, m, n, k, pa, lda, pb, ldb, pc, ldc):
    """cpublas::gemm: normalize_last_dims on the leading dimensions, then ?gemm_ (alpha and
    beta the record's)."""
    fn, alpha, beta = record[0], _as_double(record[2]), _as_double(record[3])
    lda, ldb, ldc = _normalized(ta, tb, m, n, k, lda, ldb, ldc)
    serial = record[4] != 0 and m * n * k < SERIAL_MACS
    threads = _set_threads(record[4], 1) if serial else 0
    fa, fb = _T if ta else _N, _T if tb else _N
    if record[1] == 4:
        _sgemm(fn, fa, fb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc)
    else:
        _dgemm(fn, fa, fb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc)
    if serial:
        _set_threads(record[4], threads)


@numba.njit(inline="always", cache=True)
def _normalized(ta, tb, m, n, k, lda, ldb, ldc):
    """cpublas's normalize_last_dims: the leading dimensions BLAS reads no other of."""
    if n == 1:
        ldc = m
    if ta:
        if m == 1:
            lda = k
    elif k == 1:
        lda = m
    if tb:
        if k == 1:
            ldb = n
    elif n == 1:
        ldb = k
    return lda, ldb, ldc


@numba.njit(inline="always", cache=True)
def _items_blas(size, s1, s2, n1, n2):
    """bmm_out_or_baddbmm_'s batch_items_contiguous_or_transposed of an operand's matrices
    (byte strides s1, s2; sizes n1, n2): unit-strided rows or columns (a size-1 dimension's
    stride not read)."""
    e1, e2 = _elements(s1, size), _elements(s2, size)
    return (e2 == 1 and (n1 == 1 or e1 >= n2)) or (e1 == 1 and (n2 == 1 or e2 >= n1))


@numba.njit(nogil=True, cache=True)
def batch_into(record, a, b, out):
    """out = alpha * a @ b + beta * out for float32/float64 batches (a: B x M x K, b: B x K
    x N, out: C-ordered, B x M x N, M, N and K non-zero) as torch's bmm_out_or_baddbmm_
    computes them from 400 multiply-adds a matrix: where each operand's matrices have
    unit-strided rows or columns, baddbmm_with_gemm_'s one cblas_?gemm_batch (the operands
    swapped, as column-major: mat2 first) by cpublas::gemm_batched_with_stride (one matrix:
    a plain `_gemm`); else addmm_impl_cpu_ a matrix (`_product`). The record: `make_record`'s
    with the ?gemm_batch address."""
    size = record[1]
    B, M, K, N = a.shape[0], a.shape[1], a.shape[2], b.shape[2]
    sa0, sa1, sa2 = a.strides[0], a.strides[1], a.strides[2]
    sb0, sb1, sb2 = b.strides[0], b.strides[1], b.strides[2]
    if not (_items_blas(size, sa1, sa2, M, K) and _items_blas(size, sb1, sb2, K, N)):
        product_into(record, a, b, out)  # torch's split along the batch
        return
    e = _elements
    ta = e(sb1, size) == 1 and e(sb2, size) >= K  # baddbmm_with_gemm_'s is_transposed
    tb = e(sa1, size) == 1 and e(sa2, size) >= M
    m, n, k = N, M, K
    lda = e(sb2, size) if ta else e(sb1, size)
    ldb = e(sa2, size) if tb else e(sa1, size)
    ldc = N
    pa, pb, pc = b.ctypes.data, a.ctypes.data, out.ctypes.data
    if B == 1:
        _gemm(record, ta, tb, m, n, k, pa, lda, pb, ldb, pc, ldc)
        return
    lda, ldb, ldc = _normalized(ta, tb, m, n, k, lda, ldb, ldc)
    usable = (
        max(m, n, k, lda, ldb, ldc) < 1 << 31
        and lda >= max(1, k if ta else m)
        and ldb >= max(1, n if tb else k)
        and ldc >= max(1, m)
    )  # cpublas's use_blas_gemm
    if not usable:  # (torch: gemm a matrix; never met: the tests above leave none)
        for i in range(B):
            pc_i = pc + i * M * N * size
            _gemm(record, ta, tb, m, n, k, pa + i * sb0, lda, pb + i * sa0, ldb, pc_i, ldc)
        return
    ptrs = np.empty(3 * B, np.int64)
    for i in range(B):
        ptrs[i] = pa + i * sb0
        ptrs[B + i] = pb + i * sa0
        ptrs[2 * B + i] = pc + i * M * N * size
    p = ptrs.ctypes.data
    alpha, beta = _as_double(record[2]), _as_double(record[3])
    fa, fb = 112 if ta else 111, 112 if tb else 111  # CblasTrans, CblasNoTrans
    if size == 4:
        _sbatch(record[5], fa, fb, m, n, k, alpha, p, lda, p + 8 * B, ldb, beta, p + 16 * B, ldc, B)
    else:
        _dbatch(record[5], fa, fb, m, n, k, alpha, p, lda, p + 8 * B, ldb, beta, p + 16 * B, ldc, B)
    if ptrs.size < 0:  # (keeps the addresses alive through the call)
        print(ptrs[0])


@numba.njit(nogil=True, cache=True)
def dot_into(record, x, y, out):
    """out[0] = x . y of float32/float64 vectors as torch's dot_impl computes it: MKL's
    ?dot_ (the record's address) with the vectors' strides as incx and incy (both 1 for one
    element)."""
    size, n = record[1], x.shape[0]
    incx, incy = (1, 1) if n == 1 else (x.strides[0] // size, y.strides[0] // size)
    if size == 4:
        out[0] = _sdot(record[0], n, x.ctypes.data, incx, y.ctypes.data, incy)
    else:
        out[0] = _ddot(record[0], n, x.ctypes.data, incx, y.ctypes.data, incy)


@numba.njit(nogil=True, cache=True)
def product_into(record, a, b, out):
    """out = alpha * a @ b + beta * out (record: `make_record`'s) for float32 or float64
    matrices, or batches of them (3-D, one product a batch element), of one dtype; out
    C-ordered."""
    if a.ndim == 2:
        _product(
            record,
            a.shape[0],
            a.shape[1],
            b.shape[1],
            a.ctypes.data,
            a.strides[0],
            a.strides[1],
            b.ctypes.data,
            b.strides[0],
            b.strides[1],
            out.ctypes.data,
            out.strides[0],
            out.strides[1],
        )
        return
    for i in range(a.shape[0]):
        _product(
            record,
            a.shape[1],
            a.shape[2],
            b.shape[2],
            a.ctypes.data + i * a.strides[0],
            a.strides[1],
            a.strides[2],
            b.ctypes.data + i * b.strides[0],
            b.strides[1],
            b.strides[2],
            out.ctypes.data + i * out.strides[0],
            out.strides[1],
            out.strides[2],
        )


@numba.njit(nogil=True, cache=True)
def product_at(address, a, b, out):
    """`product_into` with its record at `address` (a live record's data: an int argument costs
    ~0.2 us less than an array's)."""
    product_into(numba.carray(_i64_at(address), _RECORD), a, b, out)


@numba.njit(nogil=True, cache=True)
def batch_at(address, a, b, out):
    """`batch_into` with its record at `address` (see `product_at`)."""
    batch_into(numba.carray(_i64_at(address), _RECORD), a, b, out)


@numba.njit(nogil=True, cache=True)
def dot_at(address, x, y, out):
    """`dot_into` with its record at `address` (see `product_at`)."""
    dot_into(numba.carray(_i64_at(address), _RECORD), x, y, out)


@numba.njit(nogil=True, cache=True)
def grads_at(address, g, m1, m2, d1, d2, flags):
    """mm's backward products in one call (mm_mat2_backward's and mm_mat1_backward's, each
    laid out like its matrix), with the record at `address`: flags 2: d2 = m1.T @ g into the
    K x N d2, or with 8 (a column-major m2) g.T @ m1 into the N x K d2 (the caller's result
    d2.T); flags 1: d1 = g @ m2.T into the M x K d1, or with 4 (a column-major m1) m2 @ g.T
    into the K x M d1 (the caller's result d1.T). ~1 us less than two `product_at` calls
    and the transposed views they take."""
    record = numba.carray(_i64_at(address), _RECORD)
    if flags & 2:
        if flags & 8:
            product_into(record, g.T, m1, d2)
        else:
            product_into(record, m1.T, g, d2)
    if flags & 1:
        if flags & 4:
            product_into(record, m2, g.T, d1)
        else:
            product_into(record, g, m2.T, d1)


def grads_entry_points():
    """`grads_at`'s CPython entry points (float32, float64; see `entry_points`)."""
    out = []
    for t in (types.float32, types.float64):
        a, c = types.Array(t, 2, "A"), types.Array(t, 2, "C")
        sig = (types.int64, a, a, a, c, c, types.int64)
        grads_at.compile(sig)
        out.append(grads_at.overloads[sig].entry_point)
    return tuple(out)


def entry_points(ndim, function=None):
    """The CPython entry points of `product_at` (or `function`: `batch_at`, `dot_at`) for
    float32 and float64 operands of `ndim` dimensions (a, b of any layout, out C-ordered,
    1-D for `dot_at`), compiled (or loaded from numba's cache) now. Called without numba's
    dispatch (the type of each argument: ~0.2 us, a third of a 4 x 4 product), so the caller
    guarantees the types: nothing checks them; the first argument is a record's address
    (`make_record`'s array, kept alive by the caller)."""
    function = product_at if function is None else function
    out = []
    for t in (types.float32, types.float64):
        sig = (
            types.int64,
            types.Array(t, ndim, "A"),
            types.Array(t, ndim, "A"),
            types.Array(t, ndim if function is not dot_at else 1, "C"),
        )
        function.compile(sig)
        out.append(function.overloads[sig].entry_point)
    return tuple(out)


_RECORD = 6  # a record's length (`make_record`)


def make_record(gemm, size, set_threads, alpha, beta, batch=0):
    """`product_into`'s record: the ?gemm_ function's address, the item size (4: float32),
    alpha and beta (float64 bits), MKL_Set_Num_Threads_Local's address (0: leave MKL's
    threads as they are), cblas_?gemm_batch's address (`batch_into`; 0: none). `dot_into`
    reads the address (?dot_'s there) and the item size."""
    bits = np.array([alpha, beta], np.float64).view(np.int64)
    return np.array([gemm, size, bits[0], bits[1], set_threads, batch], np.int64)
