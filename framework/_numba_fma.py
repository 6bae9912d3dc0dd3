"""``fma``, a numba intrinsic for LLVM's ``llvm.fma``: ``a * b + c`` rounded once (an FMA
instruction where the CPU has one, else the C library's ``fma``), for compiled loops that must
round exactly where torch's build has a fused multiply-add and nowhere else (they compile
without fastmath flags). Imported only where numba is (the optimizer steps, the Sleef replay,
the moment kernels)."""

import numba
from numba import types
from numba.extending import intrinsic


def exact_jit(fn, cache=False):
    """fn compiled by numba without fastmath, so every rounding is the one written (the
    replays of torch's loops); ``cache``: numba's on-disk cache where it is writable."""
    return numba.njit(cache=cache, nogil=True, error_model="numpy")(fn)


@intrinsic
def fma(typingctx, a, b, c):
    """a * b + c rounded once; float32 or float64 operands, computed in ``a``'s type."""
    if not all(isinstance(t, types.Float) for t in (a, b, c)):
        return None

    def codegen(context, builder, signature, args):
        """The LLVM: the three operands cast to the result type, then one llvm.fma call."""
        ty = signature.return_type
        x, y, z = (context.cast(builder, v, t, ty) for v, t in zip(args, signature.args))
        return builder.fma(x, y, z)

    return a(a, b, c), codegen


@intrinsic
def vml_call(typingctx, address, n, x, out, mode):
    """MKL VML's ``vm?Name(n, x, out, mode)`` at the function `address` (an int64: the
    ctypes function's, passed in at run time, so the loop calling it caches on disk as
    any other); x and out are the arrays' data addresses (int64)."""
    if not all(isinstance(t, types.Integer) for t in (address, n, x, out, mode)):
        return None

    def codegen(context, builder, signature, args):
        """inttoptr to void(i32, i8*, i8*, i64)*, then the call."""
        from llvmlite import ir

        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(32), i8p, i8p, ir.IntType(64)])
        a, count, px, po, m = args
        fn = builder.inttoptr(a, fnty.as_pointer())
        builder.call(
            fn,
            [
                builder.trunc(count, ir.IntType(32)),
                builder.inttoptr(px, i8p),
                builder.inttoptr(po, i8p),
                m,
            ],
        )
        return context.get_dummy_value()

    return types.void(types.int64, types.int64, types.int64, types.int64, types.int64), codegen


def cached_jit(fn):
    """``exact_jit`` with numba's on-disk cache (a later process, or another pytest-xdist
    worker, loads the loop instead of compiling it) where the cache directory is writable, in
    memory otherwise."""
    try:
        return exact_jit(fn, cache=True)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return exact_jit(fn)


class ByDtype:
    """fn compiled by ``cached_jit`` once per dtype of its first argument, with the explicit
    signature ``sig(numba_dtype)`` (read-only input arrays there accept writable ones, so
    the inputs' writability, or a layout the signature leaves 'A', compiles no variant)."""

    __slots__ = ("fn", "sig", "by")

    def __init__(self, fn, sig):
        """fn compiled lazily by dtype with the signature builder sig."""
        self.fn, self.sig, self.by = fn, sig, {}

    def __call__(self, x, *args):
        """fn(x, *args), compiling (or loading) x.dtype's version on its first call."""
        f = self.by.get(x.dtype)
        if f is None:
            sig = self.sig(numba.from_dtype(x.dtype))
            try:
                f = numba.njit(sig, cache=True, nogil=True, error_model="numpy")(self.fn)
            except RuntimeError:  # no writable cache directory: in memory
                f = numba.njit(sig, nogil=True, error_model="numpy")(self.fn)
            self.by[x.dtype] = f
        return f(x, *args)
