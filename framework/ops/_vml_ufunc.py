"""MKL VML functions as NumPy ufuncs (numba required; imported by `_vml` on first use).

One inner loop, compiled once per process (or loaded from numba's cache) for every function
and dtype: NumPy calls it with (args, dimensions, steps, data), where ``data`` points to the
loop's own record (the VML function's address, its strided variant's, the item size). A
contiguous run goes to the function in one call (in chunks its 32-bit count can hold), a run
of positive strides to its strided variant (``vm?NameI``), any other one element at a time:
the three give the same bits (each element depends on its own input alone; checked on
60,000 values with the special ones for every function and dtype). NumPy allocates the output
and walks the layouts, so a small array costs what NumPy's own ufunc costs (~0.3 us), where a
compiled function's dispatch plus the output's allocation cost ~0.6 us.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numba.np.ufunc import _internal

_CHUNK = 1 << 30  # elements per call (MKL's n is a 32-bit int here)
_I64 = types.CPointer(types.int64)


@intrinsic
def _vml(typingctx, fn, n, x, out, mode):
    """fn(n, x, out, mode) of VML's contiguous signature, fn and the pointers as integers."""

    def codegen(context, builder, signature, args):
        """LLVM IR of the intrinsic's call."""
        f, count, px, po, m = args
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(32), i8p, i8p, ir.IntType(64)])
        fp = builder.inttoptr(f, fnty.as_pointer())
        count = builder.trunc(count, ir.IntType(32))
        builder.call(fp, [count, builder.inttoptr(px, i8p), builder.inttoptr(po, i8p), m])
        return context.get_dummy_value()

    return types.void(types.int64, types.int64, types.int64, types.int64, types.int64), codegen


@intrinsic
def _vml_strided(typingctx, fn, n, x, incx, out, incout, mode):
    """fn(n, x, incx, out, incout, mode) of VML's strided signature (increments in elements)."""

    def codegen(context, builder, signature, args):
        """LLVM IR of the intrinsic's call."""
        f, count, px, ix, po, io, m = args
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i32, i8p, i32, i8p, i32, ir.IntType(64)])
        fp = builder.inttoptr(f, fnty.as_pointer())
        a = [builder.trunc(count, i32), builder.inttoptr(px, i8p), builder.trunc(ix, i32)]
        a += [builder.inttoptr(po, i8p), builder.trunc(io, i32), m]
        builder.call(fp, a)
        return context.get_dummy_value()

    return types.void(*[types.int64] * 7), codegen


def _loop(args, dims, steps, data):
    """NumPy's inner loop (char **args, npy_intp *dims, npy_intp *steps, void *data) with the
    pointers read as integers; data: [function, strided function, item size, mode]."""
    fn, fn_strided, size, mode = data[0], data[1], data[2], data[3]
    n, px, po, sx, so = dims[0], args[0], args[1], steps[0], steps[1]
    contiguous = sx == size and so == size
    strided = sx > 0 and so > 0 and sx % size == 0 and so % size == 0
    strided = strided and sx // size < _CHUNK and so // size < _CHUNK
    start = 0
    while start < n:
        k = min(n - start, _CHUNK)
        if contiguous:
            _vml(fn, k, px + start * size, po + start * size, mode)
        elif strided:
            _vml_strided(
                fn_strided, k, px + start * sx, sx // size, po + start * so, so // size, mode
            )
        else:  # negative or unaligned steps: one element a call
            for i in range(start, start + k):
                _vml(fn, 1, px + i * sx, po + i * so, mode)
        start += k


def compile_loop():
    """The inner loop's address and the object keeping it alive (numba's cache where it is
    writable, else compiled in memory)."""
    sig = types.void(_I64, _I64, _I64, _I64)
    for cache in (True, False):
        try:
            c = numba.cfunc(sig, nopython=True, cache=cache)(_loop)
            return c.address, c
        except Exception:
            if not cache:
                raise
    raise AssertionError("unreachable")


def make_ufunc(name, loop, records, keep):
    """The ufunc `name` with one loop per (dtype, record): float32 and float64 in, the same
    out; each record an int64 array [function, strided function, item size, mode]."""
    address, owner = loop
    dtypes = [[np.dtype(np.float32).num] * 2, [np.dtype(np.float64).num] * 2]
    data = [int(r.ctypes.data) for r in records]
    doc = f"MKL VML's {name} (torch's mode) of a float32/float64 array."
    return _internal.fromfunc(
        name,
        doc,
        [address] * 2,
        dtypes,
        1,
        1,
        data,
        [owner, *records, keep],
        _internal.PyUFunc_None,
    )
