"""torch's CPU atan2, logaddexp, logaddexp2, xlogy and pow kernels bit for bit, for float32/float64
NumPy arrays of any layout and broadcast.

torch's ``cpu_kernel_vec`` runs a TensorIterator's inner rows through its vector body two
AVX2 vectors at a time (16 float / 8 double elements) with ``Vectorized<T>``'s Sleef
functions (atan2, exp, exp2, log1p, pow: ``_sleef_bin_math``, ``_sleef``, ``_sleef_math``), and
the n % 16 (8) elements left over, rows whose inner stride is neither contiguous nor (for
one operand) 0, and every element of a ``cpu_kernel`` (xlogy) through its scalar code with
the C library's functions. ``walk`` replays how TensorIterator orders, coalesces and splits
the dimensions of two broadcast operands into those rows. Compiled loops
(``_vec_binary_jit``) where numba is, else the same operations in NumPy (the scalar code
through the C library by ctypes, element by element).

Reproduced: torch's single-threaded kernels (a split across threads of 32,768 elements or
more moves the scalar tails to the split points), its AVX2 or default CPU capability.

Example:
    >>> import numpy as np
    >>> float(atan2(np.float32([1.0]), np.float32([1.0]))[0])
    0.7853981852531433
"""

import ctypes
import ctypes.util
import math

import numpy as np

from . import _fused, _sleef
from . import _sleef_bin_math as BM
from . import _sleef_math as M

_JIT = [None]
# logaddexp2's `m + log1p(...) * inv_log_2`: whether GCC contracted it into an FMA in the
# vector body (1) and the scalar code (2) of torch 2.13's AVX2 build (measured).
LAE2_FUSED = 3
ATAN2, LOGADDEXP, LOGADDEXP2, XLOGY, POW, POW_DOUBLE = range(6)


def _jit():
    """``_vec_binary_jit`` where numba is usable (and FRAMEWORK_NUMBA is not 0), else None."""
    return _fused.jit_module("_vec_binary_jit", _JIT, svml=True)


def applies(a, b):
    """True for two NumPy arrays of one dtype, float32 or float64 (what the kernels replay)."""
    return (
        type(a) is np.ndarray
        and type(b) is np.ndarray
        and a.dtype == b.dtype
        and (a.dtype.char in "fd")
    )


# ---- TensorIterator's walk -----------------------------------------------------------------


def _order(shape, strides):
    """TensorIterator's reorder_dimensions for a new output: its dimensions innermost first,
    sorted by the inputs' strides (a broadcast 0 skipped, ties to the smaller size)."""
    nd = len(shape)

    def swap(d0, d1):
        """TensorIterator's reorder comparison of dims d0 and d1: -1 or 1 by the first
        operand whose nonzero strides there differ (or, where they are equal, 1 if d0 is the
        larger dim), else 0."""
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _inner(shape, strides, perm, itemsize):
    """The coalesced innermost dimension's size and the inputs' strides along it
    (TensorIterator's coalesce_dimensions; the new output contiguous in perm's order)."""
    sh = [shape[d] for d in perm]
    st = [[s[d] for d in perm] for s in strides]
    out, acc = [], itemsize
    for n in sh:
        out.append(acc)
        acc *= n
    st.append(out)
    prev = 0
    for d in range(1, len(sh)):
        s0, s1 = sh[prev], sh[d]
        if s0 == 1 or s1 == 1 or all(s0 * s[prev] == s[d] for s in st):
            if s0 == 1:
                for s in st:
                    s[prev] = s[d]
            sh[prev] *= s1
        else:
            prev += 1
            if prev != d:
                for s in st:
                    s[prev] = s[d]
                sh[prev] = sh[d]
    return sh[0], [s[0] for s in st[:-1]]


def walk(a, b):
    """a and b (broadcast together) as torch's TensorIterator walks them: two C-contiguous
    (rows, n) arrays in that order, how many elements of each row its vector body takes,
    and how to put a (rows, n) result back into the broadcast shape (in torch's layout)."""
    item = a.itemsize
    if a.shape == b.shape and a.flags.c_contiguous and b.flags.c_contiguous:  # the hot path
        n = a.size
        return a.reshape(1, n), b.reshape(1, n), n - n % (64 // item), (a.shape, None)
    shape = np.broadcast_shapes(a.shape, b.shape)
    av, bv = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    if not shape or 0 in shape:
        return av.reshape(1, -1), bv.reshape(1, -1), 0, (shape, None)
    perm = _order(shape, (av.strides, bv.strides))
    n, (sa, sb) = _inner(shape, (av.strides, bv.strides), perm, item)
    vec = (sa == item or sa == 0) and (sb == item or sb == 0) and (sa or sb)
    order = perm[::-1]  # outermost first
    a2 = np.ascontiguousarray(av.transpose(order)).reshape(-1, n)
    b2 = np.ascontiguousarray(bv.transpose(order)).reshape(-1, n)
    back = (tuple(shape[d] for d in order), np.argsort(order))
    return a2, b2, (n - n % (64 // item)) if vec else 0, back


def _back(r, back):
    """The (rows, n) result r in the broadcast shape (``walk``'s ``back``)."""
    shp, inv = back
    r = r.reshape(shp)
    return r if inv is None else r.transpose(inv)


# ---- the NumPy replay ----------------------------------------------------------------------

_LIBM = {}


def _libm(name, dt):
    """The C library's `name` (atan2, exp, exp2, log1p, log) for dtype dt, elementwise over
    1-D arrays (ctypes; the float32 functions ``atan2f``...)."""
    key = (name, dt)
    f = _LIBM.get(key)
    if f is None:
        ct = ctypes.c_float if dt == np.float32 else ctypes.c_double
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
            c = getattr(lib, name + ("f" if dt == np.float32 else ""))
        except (OSError, AttributeError):  # no C library: NumPy's (not bit-exact)
            c = None
        nargs = 2 if name in ("atan2", "pow") else 1
        if c is not None:
            c.restype, c.argtypes = ct, [ct] * nargs

        def f(*args):
            """The C library's <name> of each element of the 1-D arrays args."""
            if c is None:
                with np.errstate(all="ignore"):
                    return getattr(np, {"atan2": "arctan2", "pow": "power"}.get(name, name))(*args)
            cols = [v.tolist() for v in args]
            return np.array([c(*v) for v in zip(*cols)], dt)

        _LIBM[key] = f
    return f


def _vec_np(which, a, b, dt):
    """The vector body of kernel `which` on 1-D arrays (NumPy)."""
    t = dt.type
    with np.errstate(all="ignore"):
        if which == ATAN2:
            return BM.numpy_funcs(t)["atan2"](a, b)
        if which in (POW, POW_DOUBLE):
            return BM.numpy_funcs(t)["pow"](a, b)
        m = np.where(np.isnan(a) | np.isnan(b), t(np.nan), np.where(a > b, a, b))
        d = -np.abs(a - b)
        if which == LOGADDEXP:
            r = m + M.numpy_funcs(t)["log1p"](_sleef.exp_np(d))
        else:
            v = M.numpy_funcs(t)["log1p"](BM.numpy_funcs(t)["exp2"](d))
            c = t(1.0 / math.log(2.0))
            r = _sleef._fma(v, np.full_like(v, c), m) if LAE2_FUSED & 1 else m + v * c
        return np.where((a == b) & (np.abs(a) == np.inf), a, r).astype(dt)


def _scalar_np(which, a, b, dt, e64=0.0):
    """The scalar code of kernel `which` on 1-D arrays (the C library by ctypes)."""
    t = dt.type
    with np.errstate(all="ignore"):
        if which == ATAN2:
            return _libm("atan2", dt)(a, b)
        if which == POW:
            return _libm("pow", dt)(a, b)
        if which == POW_DOUBLE:
            f64 = np.dtype(np.float64)
            return _libm("pow", f64)(a.astype(f64), np.full(a.shape, e64)).astype(dt)
        if which == XLOGY:
            r = a * _libm("log", dt)(b)
            return np.where(np.isnan(b), t(np.nan), np.where(a == 0, t(0), r)).astype(dt)
        m = np.where(a < b, b, a)
        d = -np.abs(a - b)
        if which == LOGADDEXP:
            r = m + _libm("log1p", dt)(_libm("exp", dt)(d))
        else:
            v = _libm("log1p", dt)(_libm("exp2", dt)(d))
            c = t(1.0 / math.log(2.0))
            r = _sleef._fma(v, np.full_like(v, c), m) if LAE2_FUSED & 2 else m + v * c
        return np.where(np.isinf(a) & (a == b), a, r).astype(dt)


def _run_np(which, a2, b2, nvec, dt, e64):
    """Kernel `which` over the (rows, n) walks (NumPy)."""
    out = np.empty(a2.shape, dt)
    if which == XLOGY:
        nvec = 0
    if nvec:
        out[:, :nvec] = _vec_np(which, a2[:, :nvec].ravel(), b2[:, :nvec].ravel(), dt).reshape(
            a2.shape[0], nvec
        )
    if nvec < a2.shape[1]:
        a_t, b_t = a2[:, nvec:].ravel(), b2[:, nvec:].ravel()
        out[:, nvec:] = _scalar_np(which, a_t, b_t, dt, e64).reshape(a2.shape[0], -1)
    return out


def run(which, a, b, e64=0.0):
    """torch's CPU kernel `which` (ATAN2, LOGADDEXP, LOGADDEXP2, XLOGY, POW, POW_DOUBLE: pow
    with std::pow(float, double) in the scalar code) of the float32/float64
    arrays a and b of one dtype (broadcast together), bit for bit (e64: POW_DOUBLE's
    exponent as a double)."""
    j = _JIT[0]
    if j and a.size and b.size:  # the hot paths: one compiled call on the arrays as they are
        sa = 0 if a.size == 1 and a.ndim <= b.ndim else 1
        sb = 0 if b.size == 1 and b.ndim <= a.ndim else 1
        x = b if sa == 0 and sb else a
        if (
            (sa == 0 or a.flags.c_contiguous)
            and (sb == 0 or b.flags.c_contiguous)
            and (a.shape == b.shape or (sa == 0) != (sb == 0))
        ):
            n = x.size
            out = np.empty_like(x)
            k = j.kernel_for(which, a.dtype, LAE2_FUSED)
            # (TensorIterator: contiguous, or a scalar; xlogy is a cpu_kernel: no vector body)
            nvec = 0 if which == XLOGY else n - n % (64 // x.itemsize)
            k(a.reshape(-1), b.reshape(-1), out.reshape(-1), 1, n, nvec, float(e64), sa, sb)
            return out
    a2, b2, nvec, back = walk(a, b)
    if a2.size == 0:
        return np.empty(back[0], a.dtype)
    j = _jit()
    if j is not None:
        out = np.empty(a2.shape, a.dtype)
        rows, n = a2.shape
        k = j.kernel_for(which, a.dtype, LAE2_FUSED)
        nvec = 0 if which == XLOGY else nvec
        k(a2.reshape(-1), b2.reshape(-1), out.reshape(-1), rows, n, nvec, float(e64), 1, 1)
    else:
        out = _run_np(which, a2, b2, nvec, a.dtype, e64)
    return _back(out, back)


def atan2(a, b):
    """torch's CPU atan2(a, b) (see ``run``)."""
    return run(ATAN2, a, b)


def logaddexp(a, b):
    """torch's CPU logaddexp(a, b) (see ``run``)."""
    return run(LOGADDEXP, a, b)


def logaddexp2(a, b):
    """torch's CPU logaddexp2(a, b) (see ``run``)."""
    return run(LOGADDEXP2, a, b)


def pow(a, b):
    """torch's CPU pow(a, b) of two tensors (see ``run``)."""
    return run(POW, a, b)


def pow_scalar(a, exponent):
    """torch's CPU pow(a, exponent) for a Scalar exponent outside its special cases (its
    vector body with the exponent in a's dtype, its scalar code's std::pow(float, double))."""
    e = np.asarray(exponent, a.dtype)
    return run(POW_DOUBLE if a.dtype == np.float32 else POW, a, e, float(exponent))


def xlogy(a, b):
    """torch's CPU xlogy(a, b) (see ``run``)."""
    return run(XLOGY, a, b)


def libm(name, x):
    """The C library's ``name`` (sin or log) of each element of the float32/float64 array x,
    as torch's scalar kernels call it (``sinf``/``logf`` for float32: NumPy's own SIMD
    functions round otherwise)."""
    x = x if x.flags.c_contiguous else x.copy()  # (ascontiguousarray makes 0-dim 1-D)
    j = _jit()
    if j is None:
        return _libm(name, x.dtype)(x.reshape(-1)).reshape(x.shape)
    out = np.empty_like(x)
    j.libm_map(x.reshape(-1), out.reshape(-1), 0 if name == "sin" else 1)
    return out
