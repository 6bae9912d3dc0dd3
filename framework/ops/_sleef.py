"""torch's CPU sigmoid, softmax and log_softmax (forward and backward) bit for bit, for
float32/float64 NumPy arrays.

torch's vectorized kernels do not call the C library's exp and log: ``Vectorized<T>::exp()``
and ``log()`` are Sleef's u10 functions (``Sleef_expf8_u10``, ``Sleef_logd4_u10`` ...),
whose multiply-adds are fused on AVX2; their reductions (``vec::reduce_all``,
``map_reduce_all``) keep one accumulator per lane, fold a partial last vector in with
``Vec::set`` and finish with the AVX2 shuffle tree (float: ((l0+l4)+(l2+l6))+((l1+l5)+
(l3+l7))) or lane by lane (double); the elements their vector loops leave over go through
the scalar code and the C library's ``std::exp``. This module replays the AVX2 build (8
float / 4 double lanes): numba loops (``_sleef_jit``, one call per kernel) where numba is
installed, else the same operations in NumPy, the fused multiply-adds emulated exactly
(``framework._fma``) and the scalar tails calling the C library's ``exp``/``expf``.

Reproduced: torch's kernels on its thread count (softmax's rows do not depend on it; a
sigmoid of 32,768 elements or more split across threads has its scalar tails at the split
points: `_sigmoid_split`; a non-last-dim softmax over more columns than GRAIN_SIZE / dim
may move them too: not replayed), torch's AVX2 or default CPU capability (AVX-512 builds
run 16/8 lanes: not reproduced, see README "Known differences").

Example:
    >>> import numpy as np
    >>> float(softmax(np.zeros(4, np.float32), 0, False)[0])
    0.25
"""

import ctypes
import ctypes.util
import math

import numpy as np

from .._fma import fma32, fma64
from . import _fused

_F32, _F64 = np.dtype("float32"), np.dtype("float64")
_CONSTS = {dt: np.array([0, 1, -np.inf], dt) for dt in (_F32, _F64)}
_JIT = [None]  # the numba module, False without numba (FRAMEWORK_NUMBA=0)


def _jit():
    """``_sleef_jit`` where numba is usable (and FRAMEWORK_NUMBA is not 0), else None."""
    return _fused.jit_module("_sleef_jit", _JIT)


def applies(*arrays):
    """True for NumPy float32/float64 arrays of one dtype (what the kernels replay)."""
    dt = arrays[0].dtype
    return all(type(a) is np.ndarray and a.dtype == dt for a in arrays) and dt.char in "fd"


# ---- the NumPy replay -------------------------------------------------------------------


def _fma(a, b, c):
    """a * b + c rounded once (framework._fma's exact emulation), inf and NaN operands as
    plain arithmetic gives them (the FMA's result there)."""
    if a.dtype == _F32:
        return fma32(a, b, c)
    a, b, c = np.broadcast_arrays(a, b, c)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    if ok.all():
        return fma64(a, b, c)
    z = np.float64(0)
    with np.errstate(all="ignore"):
        out = fma64(np.where(ok, a, z), np.where(ok, b, z), np.where(ok, c, z))
        return np.where(ok, out, a * b + c)


def _pow2(q, dt):
    """2**q (integer array q in the exponent range) built from its exponent bits."""
    if dt == _F32:
        return ((q.astype(np.int32) + 127) << 23).view(np.float32)
    return ((q.astype(np.int64) + 1023) << 52).view(np.float64)


def exp_np(d):
    """Sleef's u10 exp (xexpf / xexp) of a float32/float64 array, as AVX2 computes it."""
    d = np.asarray(d)
    t = d.dtype.type
    with np.errstate(all="ignore"):
        if d.dtype == _F32:
            qf = np.rint(d * t(1.442695040888963407359924681001892137426645954152985934))
            qf = np.clip(np.nan_to_num(qf, nan=-300.0), -300, 300).astype(_F32)
            s = _fma(qf, t(-0.693145751953125), d)
            s = _fma(qf, t(-1.428606765330187045e-06), s)
            u = np.full_like(d, t(0.000198527617612853646278381))
            for c in (
                0.00139304355252534151077271,
                0.00833336077630519866943359,
                0.0416664853692054748535156,
                0.166666671633720397949219,
                0.5,
            ):
                u = _fma(u, s, t(c))
            u = t(1.0) + _fma(s * s, u, s)
            lo, hi = t(-104.0), t(100.0)
        else:
            qf = np.rint(d * 1.442695040888963407359924681001892137426645954152985934)
            u0 = qf
            qf = np.clip(np.nan_to_num(qf, nan=-3000.0), -3000, 3000)
            s = _fma(u0, t(-0.69314718055966295651160180568695068359375), d)
            s = _fma(u0, t(-0.28235290563031577122588448175013436025525412068e-12), s)
            s2 = s * s
            s4 = s2 * s2
            s8 = s4 * s4

            def p2(a, b):
                """One Horner step of the polynomial, a fused multiply-add (Sleef's vmla)."""
                return _fma(s, np.full_like(s, a), np.full_like(s, b))

            hi_ = _fma(
                s2,
                p2(0.2755762628169491192e-6, 0.2755723402025388239e-5),
                p2(0.2480158687479686264e-4, 0.1984126989855865850e-3),
            )
            lo_ = _fma(
                s2,
                p2(0.1388888888914497797e-2, 0.8333333333314938210e-2),
                p2(0.4166666666666602598e-1, 0.1666666666666669072e0),
            )
            u = _fma(s8, p2(0.2081276378237164457e-8, 0.2511210703042288022e-7), _fma(s4, hi_, lo_))
            for c in (0.5, 1.0, 1.0):
                u = _fma(u, s, np.full_like(s, c))
            lo, hi = t(-1000.0), t(709.78271114955742909217217426)
        q = qf.astype(np.int64)
        h = q >> 1
        u = u * _pow2(h, d.dtype)
        u = u * _pow2(q - h, d.dtype)
        u = np.where(d < lo, t(0), u)
        return np.where(d > hi, t(np.inf), u)


def log_np(d):
    """Sleef's u10 log (xlogf_u1 / xlog_u1) of a float32/float64 array, as AVX2 computes it."""
    d = np.asarray(d)
    t = d.dtype.type
    f32 = d.dtype == _F32
    ib, sh, bias = (np.int32, 23, 0x7F) if f32 else (np.int64, 52, 0x3FF)
    with np.errstate(all="ignore"):
        o = d < (t(1.17549435e-38) if f32 else t(2.2250738585072014e-308))
        d = np.where(o, d * t(18446744073709551616.0), d)
        e = ((((d * t(1.0 / 0.75)).view(ib) >> sh) & (0xFF if f32 else 0x7FF)) - bias).astype(ib)
        m = (d.view(ib) - (e << sh)).view(d.dtype)
        e = np.where(o, e - 64, e)
        ef = e.astype(d.dtype)
        c0, c1 = (
            (0.69314718246459960938, -1.904654323148236017e-09)
            if f32
            else (0.693147180559945286226764, 2.319046813846299558417771e-17)
        )
        sx = t(c0) * ef
        sy = _fma(np.full_like(ef, c1), ef, _fma(np.full_like(ef, c0), ef, -sx))
        one = t(1.0)
        nx = -one + m
        v = nx - (-one)
        ny = (-one - (nx - v)) + (m - v)
        dx = one + m
        v = dx - one
        dy = (one - (dx - v)) + (m - v)
        tt = one / dx
        xx = nx * tt
        uu = _fma(tt, nx, -xx)
        xy = _fma(-dy, tt, _fma(-dx, tt, np.full_like(dx, one)))
        xy = _fma(xx, xy, _fma(ny, tt, uu))
        x2 = xx * xx
        if f32:
            tt = np.full_like(x2, t(0.3027294874))
            tt = _fma(tt, x2, np.full_like(x2, t(0.3996108174)))
            tt = _fma(tt, x2, np.full_like(x2, t(0.6666694880)))
        else:
            x4 = x2 * x2
            x8 = x4 * x4

            def p2(x, a, b):
                """One Horner step of the polynomial, a fused multiply-add (Sleef's vmla)."""
                return _fma(x, np.full_like(x, a), np.full_like(x, b))

            tt = _fma(
                x8,
                _fma(
                    x4,
                    np.full_like(x4, 0.1532076988502701353),
                    p2(x2, 0.1525629051003428716, 0.1818605932937785996),
                ),
                _fma(
                    x4,
                    p2(x2, 0.2222214519839380009, 0.2857142932794299317),
                    p2(x2, 0.3999999999635251990, 0.6666666666667333541),
                ),
            )
        two = t(2.0)
        rx = sx + xx * two
        ry = (((sx - rx) + xx * two) + sy) + xy * two
        y = (x2 * xx) * tt
        sx = rx + y
        sy = ((rx - sx) + y) + ry
        r = sx + sy
        r = np.where(d == np.inf, t(np.inf), r)
        r = np.where((d < 0) | np.isnan(d), t(np.nan), r)
        return np.where(d == 0, t(-np.inf), r)


def _libm_expf():
    """The C library's expf through ctypes (None where it cannot be found)."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        f = lib.expf
    except (OSError, AttributeError):
        return None
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    return f


_EXPF = []


def libm_exp(x):
    """The C library's exp (float64) or expf (float32) of each element: torch's std::exp in
    its scalar tails (Python's math.exp is the C library's exp)."""
    x = np.asarray(x)
    if x.dtype == _F64:
        return np.array(
            [math.inf if v > 709.8 else math.exp(v) for v in x.ravel().tolist()], _F64
        ).reshape(x.shape)
    if not _EXPF:
        _EXPF.append(_libm_expf())
    f = _EXPF[0]
    if f is None:  # no C library at hand: the correctly rounded value
        with np.errstate(all="ignore"):
            return np.exp(x.astype(_F64)).astype(_F32)
    return np.array([f(v) for v in x.ravel().tolist()], _F32).reshape(x.shape)


def _tree(acc, add):
    """vec_reduce_all of (rows, lanes) accumulators (see the module docstring)."""
    f = np.add if add else np.maximum
    if acc.shape[1] == 8:
        a = [f(acc[:, k], acc[:, k + 4]) for k in range(4)]
        return f(f(a[0], a[2]), f(a[1], a[3]))
    r = acc[:, 0]
    for k in range(1, acc.shape[1]):
        r = f(r, acc[:, k])
    return r


def _reduce(x, add, tail=None):
    """vec::reduce_all over the last axis of the 2-D x (+ where add, else maximum), per row;
    tail(acc, start): the partial vector's step where it is not acc + x."""
    n = x.shape[1]
    w = 32 // x.itemsize
    f = np.add if add else np.maximum
    if n < w:
        r = x[:, 0]
        for k in range(1, n):
            r = f(r, x[:, k])
        return r
    acc = x[:, :w].copy()
    stop = n - n % w
    for d in range(w, stop, w):
        acc = f(acc, x[:, d : d + w])
    if stop < n:
        rem = n - stop
        if tail is not None:
            acc[:, :rem] = tail(acc[:, :rem], stop)
        else:
            acc[:, :rem] = f(acc[:, :rem], x[:, stop:])
    return _tree(acc, add)


def _sigmoid_np(x2, out2, vec, silu=False):
    n = x2.shape[1]
    step = 64 // x2.itemsize
    nv = n - n % step if vec else 0
    one, zero = x2.dtype.type(1), x2.dtype.type(0)
    with np.errstate(all="ignore"):
        xv, xs = x2[:, :nv], x2[:, nv:]
        e = exp_np(zero - xv)
        out2[:, :nv] = xv / (one + e) if silu else one / (e + one)
        out2[:, nv:] = (xs if silu else one) / (one + libm_exp(-xs))


def _silu_backward_np(g, x, fused):
    n = g.size
    nv = n - n % (64 // g.itemsize)
    one = g.dtype.type(1)
    with np.errstate(all="ignore"):
        e = np.concatenate([exp_np(g.dtype.type(0) - x[:nv]), libm_exp(-x[nv:])])
        s = one / (one + e)
        t = _fma(x, one - s, np.full_like(x, one)) if fused else one + x * (one - s)
        return g * s * t


def _softmax_lastdim_np(x, out, log):
    with np.errstate(all="ignore"):
        m = _reduce(x, False)[:, None]
        if log:
            ls = log_np(_reduce(exp_np(x - m), True))[:, None]
            out[...] = (x - m) - ls
        else:
            e = exp_np(x - m)
            out[...] = e * (x.dtype.type(1) / _reduce(e, True))[:, None]


def _softmax_inner_np(x, out, log):
    _, dim, inner = x.shape
    nv = inner - inner % (32 // x.itemsize)
    with np.errstate(all="ignore"):
        for cols, vec in ((slice(0, nv), True), (slice(nv, inner), False)):
            xs = x[:, :, cols]
            if not xs.size:
                continue
            if log:
                m = np.full(xs[:, 0].shape, -np.inf, x.dtype)
                for d in range(dim):
                    m = np.where(xs[:, d] > m, xs[:, d], m)
            else:
                m = xs[:, 0]
                for d in range(1, dim):
                    m = np.maximum(m, xs[:, d]) if vec else np.where(m < xs[:, d], xs[:, d], m)
            e = (exp_np if vec else libm_exp)(xs - m[:, None])
            s = np.zeros_like(m)
            for d in range(dim):
                s = s + e[:, d]
            if log:
                out[:, :, cols] = (xs - m[:, None]) - log_np(s)[:, None]
            else:
                out[:, :, cols] = e / s[:, None]


def _backward_lastdim_np(g, y, out, log):
    with np.errstate(all="ignore"):
        if log:
            s = _reduce(g, True)[:, None]
            out[...] = _fma(-exp_np(y), np.broadcast_to(s, g.shape).copy(), g)
            return
        w = 32 // g.itemsize
        tail = None
        if w == 8:  # the partial vector's products contracted into the sums (float32)

            def tail(acc, start):
                """The partial vector's products fused into the sums (float32)."""
                return _fma(g[:, start:], y[:, start:], acc)

        s = _reduce(g * y, True, tail)[:, None]
        out[...] = (g - s) * y


def _backward_inner_np(g, y, out, log):
    _, dim, inner = g.shape
    nv = inner - inner % (32 // g.itemsize)
    with np.errstate(all="ignore"):
        s = np.zeros_like(g[:, 0])
        for d in range(dim):
            s = s + g[:, d] if log else _fma(g[:, d], y[:, d], s)
        s = np.broadcast_to(s[:, None], g.shape)
        if log:
            e = np.empty_like(y)
            e[:, :, :nv] = exp_np(y[:, :, :nv])
            e[:, :, nv:] = libm_exp(y[:, :, nv:])
            out[...] = _fma(-e, s.copy(), g)
        else:
            out[...] = y * (g - s)


# ---- the kernels ------------------------------------------------------------------------


def _rows(x):
    """x's elements as torch's TensorIterator walks them for a unary op: a 2-D array (rows,
    inner) in that order, whether the inner rows are contiguous (its vector loop applies),
    and how to put a (rows, inner) result back into x's shape."""
    if x.flags.c_contiguous or min(x.strides, default=0) < 0:
        return np.ascontiguousarray(x).reshape(1, -1), True, lambda r: r.reshape(x.shape)
    dims = sorted(
        (d for d in range(x.ndim) if x.shape[d] != 1), key=lambda d: -x.strides[d]
    )  # outermost first (sorted is stable: equal strides keep their order)
    perm = [d for d in range(x.ndim) if x.shape[d] == 1] + dims
    xt = x.transpose(perm)
    if xt.flags.c_contiguous:
        inner = xt.size
    else:  # coalesce the innermost dimensions that follow each other in memory
        k = xt.ndim - 1
        inner = xt.shape[k]
        while k > 0 and xt.strides[k - 1] == xt.shape[k] * xt.strides[k]:
            k -= 1
            inner *= xt.shape[k]
    vec = xt.ndim == 0 or xt.strides[-1] == x.itemsize or xt.flags.c_contiguous
    back = np.argsort(perm)
    return xt.reshape(-1, max(inner, 1)), vec, lambda r: r.reshape(xt.shape).transpose(back)


def sigmoid(x, silu=False):
    """torch's CPU sigmoid (silu where silu) of a float32/float64 NumPy array (see the
    module docstring)."""
    if x.size >= _GRAIN:
        from ._moments import torch_threads

        tasks = min(torch_threads(), -(-x.size // _GRAIN))
        if tasks > 1:
            return _sigmoid_split(x, silu, tasks)
    j = _JIT[0]
    if j and x.flags.c_contiguous and x.ndim:  # the hot path: one compiled call
        if silu or x.size % (64 // x.itemsize):
            out = np.empty_like(x)
            j.sigmoid_contiguous(x, silu, _CONSTS[x.dtype], out)
            return out
        return j.sigmoid_body(x)  # (no scalar tail: the ufunc)
    if x.size == 0:
        return np.empty_like(x)
    x2, vec, back = _rows(x)
    out = np.empty(x2.shape, x.dtype)
    j = _jit()  # (the first call builds it)
    if j is not None:
        j.sigmoid_rows(x2, out, vec, silu, _CONSTS[x.dtype])
    else:
        _sigmoid_np(x2, out, vec, silu)
    return back(out)


def _sigmoid_split(x, silu, tasks):
    """sigmoid as torch's TensorIterator runs it on `tasks` threads (at::parallel_for over
    the elements in TensorIterator order, GRAIN_SIZE a task at least: chunks of
    ceil(n / tasks) elements, each walked row by row from its first element): every chunk's
    part of a row is one inner loop, its vector body from the part's start and its scalar
    tail at the part's end (fuzzer: glu of a 60 x 37 x 30 float32 tensor along dim 0, 1 of
    33,300 elements 1 ulp apart at the first chunk's tail)."""
    x2, vec, back = _rows(x)
    rows, inner = x2.shape
    out = np.empty(x2.shape, x.dtype)
    flat_in, flat_out = x2.reshape(-1), out.reshape(-1)
    n = x2.size
    chunk = -(-n // tasks)
    j = _jit()
    for begin in range(0, n, chunk):
        end = min(begin + chunk, n)
        i = begin
        while i < end:
            r, c = divmod(i, inner)
            if c == 0 and end - i >= inner:  # whole rows: one call
                k = (end - i) // inner
                seg_x, seg_o = x2[r : r + k], out[r : r + k]
                stop = i + k * inner
            else:
                stop = min(end, (r + 1) * inner)
                seg_x = flat_in[i:stop].reshape(1, -1)
                seg_o = flat_out[i:stop].reshape(1, -1)
            if j is not None:
                j.sigmoid_rows(seg_x, seg_o, vec, silu, _CONSTS[x.dtype])
            else:
                _sigmoid_np(seg_x, seg_o, vec, silu)
            i = stop
    return back(out)


_GRAIN = 32768  # at::internal::GRAIN_SIZE


SILU_FUSED = True  # torch 2.13 contracts 1 + x (1 - s) into one FMA (measured, both loops)


def silu_backward(g, x):
    """torch's CPU silu_backward(grad, x) for C-contiguous float32/float64 arrays of one
    shape (its two-vector body with Sleef's exp, the scalar tail), or None elsewhere."""
    if g.shape != x.shape or not (g.flags.c_contiguous and x.flags.c_contiguous):
        return None
    gf, xf = g.reshape(-1), x.reshape(-1)
    j = _jit()
    if j is None:
        return _silu_backward_np(gf, xf, SILU_FUSED).reshape(x.shape)
    out = np.empty_like(gf)
    j.silu_backward(gf, xf, out, SILU_FUSED, _CONSTS[x.dtype])
    return out.reshape(x.shape)


def _split(shape, axis):
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1 :], dtype=np.int64))
    return outer, shape[axis], inner


def softmax(x, axis, log):
    """torch's CPU softmax (log_softmax where log) of a float32/float64 NumPy array over
    ``axis`` (non-negative; a 0-dim array as one element): its lastdim kernel for the last
    axis, its strided kernel otherwise, on a C-contiguous copy as torch's."""
    shape = x.shape
    x = np.ascontiguousarray(x).reshape(shape or (1,))
    out = np.empty_like(x)
    if x.size:
        j = _jit()
        if axis == x.ndim - 1:
            x2, o2 = x.reshape(-1, x.shape[-1]), out.reshape(-1, x.shape[-1])
            if j is not None:
                j.softmax_lastdim(x2, o2, log, _CONSTS[x.dtype])
            else:
                _softmax_lastdim_np(x2, o2, log)
        else:
            s3 = _split(x.shape, axis)
            x3, o3 = x.reshape(s3), out.reshape(s3)
            if j is not None:
                j.softmax_inner(x3, o3, log, _CONSTS[x.dtype])
            else:
                _softmax_inner_np(x3, o3, log)
    return out.reshape(shape)


def softmax_backward(g, y, axis, log):
    """torch's CPU _softmax_backward_data (log where log) of float32/float64 NumPy arrays
    of one shape over ``axis`` (see ``softmax``)."""
    if axis == 1 and y.ndim == 2 and y.size and g.flags.c_contiguous and y.flags.c_contiguous:
        j = _jit()  # (N, C) rows as they are: the lastdim kernel without the reshapes below
        if j is not None:
            out = np.empty_like(y)
            j.softmax_backward_lastdim(g, y, out, log)
            return out
    shape = y.shape
    g = np.ascontiguousarray(g).reshape(shape or (1,))
    y = np.ascontiguousarray(y).reshape(shape or (1,))
    out = np.empty_like(y)
    if y.size:
        j = _jit()
        if axis == y.ndim - 1:
            n = y.shape[-1]
            g2, y2, o2 = g.reshape(-1, n), y.reshape(-1, n), out.reshape(-1, n)
            if j is not None:
                j.softmax_backward_lastdim(g2, y2, o2, log)
            else:
                _backward_lastdim_np(g2, y2, o2, log)
        else:
            s3 = _split(y.shape, axis)
            g3, y3, o3 = g.reshape(s3), y.reshape(s3), out.reshape(s3)
            if j is not None:
                j.softmax_backward_inner(g3, y3, o3, log, _CONSTS[y.dtype])
            else:
                _backward_inner_np(g3, y3, o3, log)
    return out.reshape(shape)
