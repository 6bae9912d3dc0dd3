"""torch's CPU elu/selu/celu, softplus, mish, logsigmoid and gelu(approximate='tanh')
kernels (forward and backward) bit for bit, for float32/float64 NumPy arrays.

torch's ``cpu_kernel_vec`` loops run their vector body two AVX2 vectors at a time (16 float
/ 8 double elements) with ``Vectorized<T>``'s Sleef functions (expm1, log1p, tanh: replayed
in ``_sleef_math``; exp: ``_sleef``), and the n % 16 (8) elements left over through the
scalar code with the C library's functions; log_sigmoid's own loop runs every element in
its vector code. GCC contracts some of their multiply-adds into FMAs (mish's and gelu-tanh's
backward, gelu-tanh's inner x + kappa x^3): the replay fuses exactly those (measured on
torch 2.13's AVX2 build). Compiled loops (``_sleef_act_jit``) where numba is, else the same
operations in NumPy.

Reproduced: contiguous inputs and unary ops on any layout (``_sleef._rows``: a gapped
inner dimension runs the scalar code, as torch's); a backward's two inputs in one layout.
Not reproduced: torch's multithreaded split of 32,768 elements or more (it moves the scalar
tails), its AVX-512 build (see README "Known differences").

Example:
    >>> import numpy as np
    >>> float(elu(np.float32([-1.0]), 1.0, 1.0, 1.0)[0])
    -0.6321205496788025
"""

import ctypes
import ctypes.util
import math
from fractions import Fraction

import numpy as np

from . import _fused, _sleef
from ._vec_binary import _order
from . import _sleef_math as M

_JIT = [None]
_KAPPA = 0.044715
_BETA = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5  # M_SQRT2 * M_2_SQRTPI * 0.5
MISH_FUSED = 3  # 1 - t^2 and t + x s (1 - t^2) contracted (measured)
GELU_TANH_FUSED = 7  # x + kappa x^3, 1 - t^2 and 1 + 3 kappa x^2 contracted (measured)


def _jit():
    """``_sleef_act_jit`` where numba is usable (and FRAMEWORK_NUMBA is not 0), else None."""
    return _fused.jit_module("_sleef_act_jit", _JIT, svml=True)


applies = _sleef.applies


# ---- the C library's scalar functions (torch's scalar tails) ----------------------------------

_LIBM = {}


def _libm(name, dt):
    """The C library's `name` (exp, expm1, log1p, tanh) for dtype dt on a 1-D array."""
    key = (name, dt)
    f = _LIBM.get(key)
    if f is None:
        if dt == np.float64:
            g = getattr(math, name)

            def f(v):
                """math.<name> of each element of the 1-D float64 v (inf on overflow, NaN on
                a domain error), e.g. f(np.array([0.0])) -> array([...])."""
                out = []
                for a in v.tolist():
                    try:
                        out.append(g(a))
                    except OverflowError:
                        out.append(math.inf)
                    except ValueError:
                        out.append(math.nan)
                return np.array(out, np.float64)
        else:
            try:
                lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
                c = getattr(lib, name + "f")
                c.restype, c.argtypes = ctypes.c_float, [ctypes.c_float]
            except (OSError, AttributeError):  # no C library: the correctly rounded value
                c = None

            def f(v):
                """The C library's <name>f of each element of the 1-D float32 v (NumPy's
                float64 value rounded where there is no C library)."""
                if c is None:
                    with np.errstate(all="ignore"):
                        return getattr(np, name)(v.astype(np.float64)).astype(np.float32)
                return np.array([c(a) for a in v.tolist()], np.float32)

        _LIBM[key] = f
    return f


def _split(n, itemsize, vec=True):
    """Where cpu_kernel_vec's scalar tail starts in a row of n elements."""
    return n - n % (64 // itemsize) if vec else 0


def _two_ways(x, vec, fv, fs):
    """fv (the vector body's function) on the rows' heads, fs (the scalar code's) on their
    tails, of the 2-D x."""
    nv = _split(x.shape[1], x.itemsize, vec)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        out[:, :nv] = fv(x[:, :nv])
        if nv < x.shape[1]:
            out[:, nv:] = fs(x[:, nv:])
    return out


def _funcs(dt):
    """Sleef's vector functions for dtype dt (the NumPy replay), exp included."""
    fs = dict(M.numpy_funcs(dt))
    fs["exp"] = _sleef.exp_np
    return fs


def _tail(dt):
    """The C library's functions for dtype dt, on arrays of any shape."""

    def get(name):
        """The NumPy form of the C library's function `name` (any shape)."""
        f = _libm(name, np.dtype(dt))
        return lambda a: f(np.asarray(a).ravel()).reshape(np.shape(a))

    return {n: get(n) for n in ("exp", "expm1", "log1p", "tanh")}


# ---- the NumPy replay --------------------------------------------------------------------


def _elu_np(x2, vec, c):
    neg, pos, ipt = c
    dt = x2.dtype

    def body(fs):
        """elu of an array given the math functions `fs`."""
        return lambda a: np.where((a >= 0) | (a != a), a * pos, fs["expm1"](a * ipt) * neg)

    return _two_ways(x2, vec, body(_funcs(dt)), body(_tail(dt)))


def _elu_backward_np(g, x, vec, c):
    neg, pos, ipt = c
    nv = _split(x.size, x.itemsize, vec)
    with np.errstate(all="ignore"):
        e = np.concatenate([_sleef.exp_np(x[:nv] * ipt), _libm("exp", x.dtype)(x[nv:] * ipt)])
        pos_side = x > 0
        pos_side[nv:] |= x[nv:] != x[nv:]  # the scalar code's b <= 0 test: NaN takes g scale
        return np.where(pos_side, g * pos, g * ipt * neg * e)


def _softplus_np(x2, vec, c):
    beta, thr = c[0], c[1]
    dt = x2.dtype

    def body(fs):
        """softplus of an array given the math functions `fs`."""

        def f(a):
            """torch's softplus: x above the threshold, log1p(exp(beta x)) / beta below."""
            b = a * beta
            return np.where(b > thr, a, fs["log1p"](fs["exp"](b)) / beta)

        return f

    return _two_ways(x2, vec, body(_funcs(dt)), body(_tail(dt)))


def _softplus_backward_np(g, x, vec, c):
    beta, thr, one = c
    nv = _split(x.size, x.itemsize, vec)
    with np.errstate(all="ignore"):
        b = x * beta
        z = np.concatenate([_sleef.exp_np(b[:nv]), _libm("exp", x.dtype)(b[nv:])])
        return np.where(b > thr, g, g * z / (z + one))


def _mish_np(x2, vec):
    def body(fs):
        """mish of an array given the math functions `fs`."""
        return lambda a: a * fs["tanh"](fs["log1p"](fs["exp"](a)))

    return _two_ways(x2, vec, body(_funcs(x2.dtype)), body(_tail(x2.dtype)))


def _mish_backward_np(g, x, vec, fused):
    dt = x.dtype
    one = dt.type(1)
    nv = _split(x.size, x.itemsize, vec)
    with np.errstate(all="ignore"):
        parts = []
        for fs, a in ((_funcs(dt), x[:nv]), (_tail(dt), x[nv:])):
            s = one / (one + fs["exp"](dt.type(0) - a))
            t = fs["tanh"](fs["log1p"](fs["exp"](a)))
            parts.append((s, t))
        s = np.concatenate([parts[0][0], parts[1][0]])
        t = np.concatenate([parts[0][1], parts[1][1]])
        u = _sleef._fma(-t, t, np.full_like(t, one)) if fused & 1 else one - t * t
        xs = x * s
        return g * (_sleef._fma(xs, u, t) if fused & 2 else t + xs * u)


def _log_sigmoid_np(x):
    fs = _funcs(x.dtype)
    with np.errstate(all="ignore"):
        b = _sleef.exp_np(-np.abs(x))
        m = np.where((x < 0) | (x != x), x, x.dtype.type(0))
        return m - fs["log1p"](b), b


def _log_sigmoid_backward_np(g, x):
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        b = _sleef.exp_np(-np.abs(x))
        neg = x < 0
        md = np.where(neg, one, x.dtype.type(0))
        sg = np.where(neg, one, -one)
        return (md - sg * (b / (one + b))) * g


def _gelu_tanh_inner(a, c, fused):
    cube = a * a * a
    inner = _sleef._fma(np.full_like(a, c[1]), cube, a) if fused & 1 else a + c[1] * cube
    return c[0] * inner


def _gelu_tanh_np(x2, vec, c):
    def body(fs):
        """gelu(tanh) of an array given the math functions `fs`."""
        return lambda a: c[3] * a * (c[2] + fs["tanh"](_gelu_tanh_inner(a, c, GELU_TANH_FUSED)))

    return _two_ways(x2, vec, body(_funcs(x2.dtype)), body(_tail(x2.dtype)))


def _gelu_tanh_backward_np(g, x, vec, c):
    beta, _, one, half, k3 = c
    fused = GELU_TANH_FUSED
    nv = _split(x.size, x.itemsize, vec)
    with np.errstate(all="ignore"):
        inner = _gelu_tanh_inner(x, c, fused)
        t = np.concatenate(
            [_funcs(x.dtype)["tanh"](inner[:nv]), _libm("tanh", x.dtype)(inner[nv:])]
        )
        sq = x * x
        dleft = half * (one + t)
        dt = _sleef._fma(-t, t, np.full_like(t, one)) if fused & 2 else one - t * t
        k = (
            _sleef._fma(np.full_like(sq, k3), sq, np.full_like(sq, one))
            if fused & 4
            else one + k3 * sq
        )
        dinner = beta * k
        lt = (half * x) * dt
        return g * (_sleef._fma(lt, dinner, dleft) if fused & 8 else dleft + lt * dinner)


# ---- the kernels ------------------------------------------------------------------------


def _unary(x, jit_kernel, np_kernel, *args):
    """A unary kernel over x as torch's TensorIterator walks it (``_sleef._rows``)."""
    if x.size == 0:
        return np.empty_like(x)
    j = _jit()
    if j is not None and x.flags.c_contiguous:
        out = np.empty_like(x)
        j.kernels(x.dtype)[jit_kernel](x.reshape(-1), out.reshape(-1), True, *args)
        return out
    x2, vec, back = _sleef._rows(x)
    if j is not None:
        k = j.kernels(x.dtype)[jit_kernel]
        out = np.empty_like(x2)
        for r in range(x2.shape[0]):
            row = np.ascontiguousarray(x2[r])
            o = np.empty_like(row)
            k(row, o, vec, *args)  # (a strided row: the scalar code)
            out[r] = o
        return back(out)
    return back(np_kernel(x2, vec, *args))


def _binary(g, x, jit_kernel, np_kernel, *args):
    """A backward kernel over g and x of one shape as torch's TensorIterator walks them: its
    vector body on the contiguous rows of both where they share one layout (a C-contiguous
    x with a broadcast g included), all in the scalar code where they do not; None for
    other shapes."""
    if g.shape != x.shape:
        return None
    j = _jit()
    if j is not None and x.flags.c_contiguous and g.flags.c_contiguous:  # the hot path
        out = np.empty_like(x)
        j.kernels(x.dtype)[jit_kernel](g.reshape(-1), x.reshape(-1), out.reshape(-1), True, *args)
        return out
    if x.size == 0:
        return np.empty_like(x)
    if x.flags.c_contiguous and (g.flags.c_contiguous or not any(g.strides)):
        rows = [(np.ascontiguousarray(g).reshape(-1), x.reshape(-1))]
        vec, back = True, lambda r: r.reshape(x.shape)
    elif g.strides == x.strides:  # one layout: torch's walk of it
        x2, vec, back = _sleef._rows(x)
        g2 = _sleef._rows(g)[0]
        rows = [(np.ascontiguousarray(g2[r]), np.ascontiguousarray(x2[r])) for r in range(len(x2))]
    else:  # the inner loop is strided for one of them: torch's scalar code throughout
        rows = [(np.ascontiguousarray(g).reshape(-1), np.ascontiguousarray(x).reshape(-1))]
        vec, back = False, lambda r: r.reshape(x.shape)
    out = np.empty((len(rows), rows[0][1].size), x.dtype)
    for r, (gr, xr) in enumerate(rows):
        if j is None:
            out[r] = np_kernel(gr, xr, vec, *args)
        else:
            j.kernels(x.dtype)[jit_kernel](gr, xr, out[r], vec, *args)
    return back(out)


def _walk(shape, strides, itemsize):
    """TensorIterator's walk of inputs of one shape with byte strides `strides` (one tuple
    per input, in argument order; the output is allocated to follow them): its dims
    outermost first (``reorder_dimensions``: by the first input whose strides tell two dims
    apart, a broadcast one telling nothing), the length of its innermost row after
    ``coalesce_dimensions``, and whether ``cpu_kernel_vec`` runs that row's vector body
    (every input contiguous in it, or one of them a broadcast scalar)."""
    nd = len(shape)
    perm = _order(shape, strides)  # innermost first
    sizes = [shape[d] for d in perm]
    sts = [[st[d] for d in perm] for st in strides]
    inner = sizes[0] if nd else 1
    for k in range(1, nd):  # the innermost dims that coalesce into one row
        if inner == 1 or sizes[k] == 1:
            if inner == 1:
                for st in sts:
                    st[0] = st[k]
            inner *= sizes[k]
            continue
        if all(inner * st[0] == st[k] for st in sts):
            inner *= sizes[k]
            continue
        break
    inner_strides = [st[0] if nd else itemsize for st in sts]
    contiguous = [s == itemsize for s in inner_strides]
    vec = all(contiguous) or (  # (is_contiguous_scalar: one broadcast input, the rest dense)
        sum(s == 0 for s in inner_strides) == 1 and sum(contiguous) == len(strides) - 1
    )
    return perm[::-1], inner, vec


def contiguous_body(a):
    """The elements of the C-contiguous array a that a unary ``cpu_kernel_vec`` over it runs
    through its vector body: a flat view of its head (the rest is the scalar tail)."""
    return a.reshape(-1)[: _split(a.size, a.itemsize)]


def vector_body(*arrays):
    """Which elements torch's ``cpu_kernel_vec`` runs through its vector body for a kernel of
    `arrays` (its inputs in argument order, NumPy arrays of one shape; two AVX2 vectors at a
    time per row of ``_walk``, the rest of each row in its scalar code): a bool array of
    their shape, or None for other shapes. Its vector and scalar code disagree at NaN (a
    blend on comparisons where the scalar code branches) and in the sign of some zeros.
    torch's multithreaded split of 32,768 elements or more is not replayed."""
    x = arrays[-1]
    if any(a.shape != x.shape for a in arrays):
        return None
    if not x.size:
        return np.zeros(x.shape, bool)
    order, inner, vec = _walk(x.shape, [a.strides for a in arrays], x.itemsize)
    body = np.arange(inner) < _split(inner, x.itemsize, vec)
    ids = np.arange(x.size).reshape(x.shape).transpose(order).reshape(-1)
    out = np.empty(x.size, bool)
    out[ids] = np.tile(body, x.size // inner)
    return out.reshape(x.shape)


_CONSTS = {}


def _consts(dt, *values):
    """The kernel constants `values` as an array of dtype dt (cached: small tensors' calls
    are dominated by such overheads)."""
    key = (dt, values)
    c = _CONSTS.get(key)
    if c is None:
        c = _CONSTS[key] = np.array(values, dt)
        c.flags.writeable = False
    return c


def elu_consts(dt, alpha, scale, input_scale):
    """torch's elu coefficients in the kernel's type: (alpha scale, scale, input_scale),
    alpha and scale rounded before their product."""
    t = np.dtype(dt).type
    return _consts(dt, float(t(alpha) * t(scale)), scale, input_scale)


def elu(x, alpha, scale, input_scale):
    """torch's CPU elu (selu, celu) of a float32/float64 NumPy array."""
    c = elu_consts(x.dtype, alpha, scale, input_scale)
    return _unary(x, "elu", lambda x2, vec, c: _elu_np(x2, vec, tuple(c)), c)


def elu_backward(g, x, alpha, scale, input_scale):
    """torch's CPU elu_backward(grad, alpha, scale, input_scale, is_result=False, x)."""
    c = elu_consts(x.dtype, alpha, scale, input_scale)
    return _binary(g, x, "elu_backward", lambda g, x, v, c: _elu_backward_np(g, x, v, tuple(c)), c)


def softplus(x, beta, threshold):
    """torch's CPU softplus of a float32/float64 NumPy array."""
    c = _consts(x.dtype, beta, threshold, 1)
    return _unary(x, "softplus", _softplus_np, c)


def softplus_backward(g, x, beta, threshold):
    """torch's CPU softplus_backward(grad, x, beta, threshold)."""
    c = _consts(x.dtype, beta, threshold, 1)
    return _binary(g, x, "softplus_backward", _softplus_backward_np, c)


def mish(x):
    """torch's CPU mish of a float32/float64 NumPy array."""
    return _unary(x, "mish", _mish_np)


def mish_backward(g, x):
    """torch's CPU mish_backward(grad, x) (its kernel: no graph recorded)."""
    c = _consts(x.dtype, 0, 1)
    np_kernel = lambda g, x, v, c: _mish_backward_np(g, x, v, MISH_FUSED)
    return _binary(g, x, "mish_backward", np_kernel, c)


def log_sigmoid(x):
    """torch's CPU log_sigmoid_forward's output for a float32/float64 NumPy array (its
    loop runs every element in the vector code: any layout gives the same values)."""
    xf = np.ascontiguousarray(x).reshape(-1)
    j = _jit()
    if j is None:
        return _log_sigmoid_np(xf)[0].reshape(x.shape)
    out = np.empty_like(xf)
    j.kernels(x.dtype)["log_sigmoid"](xf, out, _consts(x.dtype, 0))
    return out.reshape(x.shape)


def log_sigmoid_backward(g, x):
    """torch's CPU log_sigmoid_backward(grad, x, buffer), forward's buffer recomputed."""
    np_kernel = lambda g, x, v, c: _log_sigmoid_backward_np(g, x)
    return _binary(g, x, "log_sigmoid_backward", np_kernel, _consts(x.dtype, 0, 1))


def gelu_tanh_consts(dt):
    """(beta, kappa, 1, 1/2, 3 kappa) in dtype dt, as torch's vector constants."""
    t = np.dtype(dt).type
    return _consts(dt, _BETA, _KAPPA, 1, 0.5, float(t(3) * t(_KAPPA)))


def gelu_tanh(x):
    """torch's CPU gelu(approximate='tanh') of a float32/float64 NumPy array."""
    c = gelu_tanh_consts(x.dtype)
    return _unary(x, "gelu_tanh", _gelu_tanh_np, c)


def gelu_tanh_backward(g, x):
    """torch's CPU gelu_backward(grad, x, approximate='tanh')."""
    c = gelu_tanh_consts(x.dtype)
    return _binary(
        g,
        x,
        "gelu_tanh_backward",
        _gelu_tanh_backward_np,
        c,
    )


_SQRT1_2 = math.sqrt(0.5)  # M_SQRT1_2 (1 / math.sqrt(2) is an ulp below it)
_ERF_BETA = 1.12837916709551257390 * _SQRT1_2 * 0.5  # M_2_SQRTPI * M_SQRT1_2 * 0.5


def _verf(dt):
    """Vectorized<T>::erf for dtype dt (the NumPy replay): ATen's float erf, Sleef's double."""
    return M.numpy_funcs(dt)["erf_aten" if dt == np.float32 else "erf"]


def _gelu_erf_np(x2, vec, c):
    alpha, half, one = c

    def body(erf):
        """gelu(none) of an array given an erf."""
        return lambda a: a * half * (one + erf(a * alpha))

    f = _libm("erf", x2.dtype)
    erf_tail = lambda a: f(np.asarray(a).ravel()).reshape(np.shape(a))
    return _two_ways(x2, vec, body(_verf(x2.dtype)), body(erf_tail))


def _gelu_erf_backward_np(g, x, vec, c):
    alpha, beta, half, one, mhalf = c
    nv = _split(x.size, x.itemsize, vec)
    with np.errstate(all="ignore"):
        erf = np.concatenate(
            [
                _verf(x.dtype)(x[:nv] * alpha),
                _libm("erf", x.dtype)(x[nv:] * alpha),
            ]
        )
        e = np.concatenate(
            [_sleef.exp_np(x[:nv] * x[:nv] * mhalf), _libm("exp", x.dtype)(x[nv:] * x[nv:] * mhalf)]
        )
        cdf = half * (one + erf)
        pdf = beta * e
        fused = _sleef._fma(x[:nv], pdf[:nv], cdf[:nv])
        for i in np.flatnonzero(np.abs(pdf[:nv]) < 2.0**-969):  # the emulation's splits
            a, p, q = x[i], pdf[i], cdf[i]  # underflow there: exact rationals instead
            if np.isfinite(a) and np.isfinite(p) and np.isfinite(q):
                fused[i] = float(Fraction(float(a)) * Fraction(float(p)) + Fraction(float(q)))
        return g * np.concatenate([fused, cdf[nv:] + x[nv:] * pdf[nv:]])


def gelu_erf(x):
    """torch's CPU gelu(approximate='none') ATen kernel for a float64 NumPy array, or a
    float32 one that torch does not hand to oneDNN (``gelu_dnnl``: strided)."""
    c = _consts(x.dtype, _SQRT1_2, 0.5, 1)
    return _unary(x, "gelu_erf", lambda x2, vec, c: _gelu_erf_np(x2, vec, tuple(c)), c)


def gelu_erf_backward(g, x):
    """torch's CPU gelu_backward(grad, x, approximate='none') ATen kernel (float64; float32
    where x is strided); the constants rounded to x's dtype."""
    c = _consts(x.dtype, _SQRT1_2, _ERF_BETA, 0.5, 1, -0.5)
    np_kernel = lambda g, x, v, c: _gelu_erf_backward_np(g, x, v, tuple(c))
    return _binary(g, x, "gelu_erf_backward", np_kernel, c)


_SQRT1_2_F = float(np.float32(_SQRT1_2))  # float(M_SQRT1_2), torch's float32 scalar constant


def gelu_dnnl(x):
    """torch's CPU gelu(approximate='none') of a float32 NumPy array: oneDNN's AVX2
    gelu_erf (``_sleef_math.gelu_dnnlf``) where torch calls it (a contiguous tensor of more
    than one element), its scalar code (the C library's erff) for one element; None for
    the other layouts (ATen's vector erf: not replayed)."""
    if x.size <= 1:
        with np.errstate(all="ignore"):
            a = x.astype(np.float32)
            t = np.float32
            e = _libm("erf", np.dtype(np.float32))((a * t(_SQRT1_2_F)).reshape(-1)).reshape(a.shape)
            return a * t(0.5) * (t(1) + e)
    if not x.flags.c_contiguous:
        return None
    j = _jit()
    if j is None:
        return M.numpy_funcs(np.float32)["gelu_dnnl"](x)
    out = np.empty_like(x)
    j.kernels(x.dtype)["gelu_dnnl"](x.reshape(-1), out.reshape(-1))
    return out


def gelu_dnnl_backward(g, x):
    """torch's CPU gelu_backward(grad, x) (approximate='none') for float32 NumPy arrays of
    one shape: oneDNN's where x is contiguous with more than one element, the scalar code
    (the C library's erff/expf, unfused) for one element; None otherwise."""
    if g.shape != x.shape:
        return None
    t = np.float32
    if x.size <= 1:
        with np.errstate(all="ignore"):
            erf = _libm("erf", np.dtype(t))((x * t(_SQRT1_2_F)).reshape(-1)).reshape(x.shape)
            e = _libm("exp", np.dtype(t))((x * x * t(-0.5)).reshape(-1)).reshape(x.shape)
            cdf = t(0.5) * (t(1) + erf)
            pdf = t(_ERF_BETA) * e
            return g * (cdf + x * pdf)
    if not x.flags.c_contiguous:
        return None
    g = np.ascontiguousarray(g)
    j = _jit()
    if j is None:
        with np.errstate(all="ignore"):
            return M.numpy_funcs(np.float32)["gelu_dnnl_grad"](x) * g
    out = np.empty_like(x)
    j.kernels(x.dtype)["gelu_dnnl_backward"](g.reshape(-1), x.reshape(-1), out.reshape(-1))
    return out
