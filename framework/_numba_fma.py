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


def _lanes_add(width):
    """An intrinsic f(dst, src, count, stride, like): the `width` elements at address dst
    (int64) plus, lane by lane and in turn, the `count` vectors of `width` elements at src,
    src + stride, ... (bytes), stored back: ``for t: for l: dst[l] += src[t][l]`` with the
    lanes in one LLVM vector (numba's own loops over an accumulator array stay scalar: the
    array may alias the source). `like` is a float of the elements' type (typing only)."""

    @intrinsic
    def lanes_add(typingctx, dst, src, count, stride, like):
        """The loop; dst, src, count and stride int64, like float32 or float64."""
        if not isinstance(like, types.Float):
            return None

        def codegen(context, builder, sig, args):
            """entry (load dst) -> loop (phi index, phi lanes) -> done (store dst)."""
            from llvmlite import ir

            d, src0, n, step = args[:4]
            i64, i8p = ir.IntType(64), ir.IntType(8).as_pointer()
            vty = ir.VectorType(context.get_value_type(sig.args[4]), width)
            align = like.bitwidth // 8
            dp = builder.inttoptr(d, vty.as_pointer())
            first = builder.load(dp, align=align)
            base = builder.inttoptr(src0, i8p)
            entry = builder.block
            loop = builder.append_basic_block("lanes.loop")
            done = builder.append_basic_block("lanes.done")
            builder.cbranch(builder.icmp_signed(">", n, ir.Constant(i64, 0)), loop, done)
            builder.position_at_end(loop)
            i = builder.phi(i64)
            acc = builder.phi(vty)
            at = builder.gep(base, [builder.mul(i, step)])
            x = builder.load(builder.bitcast(at, vty.as_pointer()), align=align)
            nxt = builder.fadd(acc, x)
            inc = builder.add(i, ir.Constant(i64, 1))
            i.add_incoming(ir.Constant(i64, 0), entry)
            i.add_incoming(inc, loop)
            acc.add_incoming(first, entry)
            acc.add_incoming(nxt, loop)
            builder.cbranch(builder.icmp_signed("<", inc, n), loop, done)
            builder.position_at_end(done)
            res = builder.phi(vty)
            res.add_incoming(first, entry)
            res.add_incoming(nxt, loop)
            builder.store(res, dp, align=align)
            return context.get_dummy_value()

        i = types.int64
        return types.void(i, i, i, i, like), codegen

    return lanes_add


lanes_add4, lanes_add8 = _lanes_add(4), _lanes_add(8)


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
