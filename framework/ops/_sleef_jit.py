"""numba kernels for ``_sleef``: Sleef's exp/log and torch's AVX2 softmax, log_softmax and
sigmoid loops, one compiled loop per kernel (imported only where numba is; see ``_sleef``).

Fused multiply-adds are emitted explicitly (``fma``, LLVM's ``llvm.fma``; no fastmath
flags), so each rounds once as Sleef's ``vmla`` does on AVX2; float bits are moved with
``bits``/``from_bits`` (LLVM bitcasts). The scalar tails of torch's loops call ``np.exp``,
which numba lowers to the C library's ``exp``/``expf``: glibc's, as torch's ``std::exp``.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types, vectorize
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .._numba_fma import fma

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy"}


@intrinsic
def bits(typingctx, a):
    """The IEEE bits of a float32 (as int32) or float64 (as int64)."""
    if a == types.float32:
        return types.int32(a), lambda c, b, s, args: b.bitcast(args[0], ir.IntType(32))
    if a == types.float64:
        return types.int64(a), lambda c, b, s, args: b.bitcast(args[0], ir.IntType(64))
    return None


@intrinsic
def from_bits(typingctx, a):
    """The float32 (from int32) or float64 (from int64) with these bits."""
    if a == types.int32:
        return types.float32(a), lambda c, b, s, args: b.bitcast(args[0], ir.FloatType())
    if a == types.int64:
        return types.float64(a), lambda c, b, s, args: b.bitcast(args[0], ir.DoubleType())
    return None


F, D = np.float32, np.float64


def expf(d):
    """Sleef_expf8_u10 (xexpf) of one float32."""
    qf = np.rint(d * F(1.442695040888963407359924681001892137426645954152985934135449406931))
    if not qf > F(-300.0):  # (outside [-300, 300] the result is masked below; NaN too)
        qf = F(-300.0)
    if qf > F(300.0):
        qf = F(300.0)
    q = np.int32(qf)
    s = fma(qf, F(-0.693145751953125), d)
    s = fma(qf, F(-1.428606765330187045e-06), s)
    u = F(0.000198527617612853646278381)
    u = fma(u, s, F(0.00139304355252534151077271))
    u = fma(u, s, F(0.00833336077630519866943359))
    u = fma(u, s, F(0.0416664853692054748535156))
    u = fma(u, s, F(0.166666671633720397949219))
    u = fma(u, s, F(0.5))
    u = F(1.0) + fma(s * s, u, s)
    h = q >> 1
    u = u * from_bits(np.int32((h + 127) << 23))
    u = u * from_bits(np.int32((q - h + 127) << 23))
    if d < F(-104.0):
        u = F(0.0)
    if F(100.0) < d:
        u = F(np.inf)
    return u


def exp64(d):
    """Sleef_expd4_u10 (xexp) of one float64."""
    u = np.rint(d * 1.442695040888963407359924681001892137426645954152985934135449406931)
    qf = u
    if not qf > -3000.0:
        qf = -3000.0
    if qf > 3000.0:
        qf = 3000.0
    q = np.int64(qf)
    s = fma(u, -0.69314718055966295651160180568695068359375, d)
    s = fma(u, -0.28235290563031577122588448175013436025525412068e-12, s)
    s2 = s * s
    s4 = s2 * s2
    s8 = s4 * s4
    hi = fma(
        s2,
        fma(s, 0.2755762628169491192e-6, 0.2755723402025388239e-5),
        fma(s, 0.2480158687479686264e-4, 0.1984126989855865850e-3),
    )
    lo = fma(
        s2,
        fma(s, 0.1388888888914497797e-2, 0.8333333333314938210e-2),
        fma(s, 0.4166666666666602598e-1, 0.1666666666666669072e0),
    )
    u = fma(s8, fma(s, 0.2081276378237164457e-8, 0.2511210703042288022e-7), fma(s4, hi, lo))
    u = fma(u, s, 0.5)
    u = fma(u, s, 1.0)
    u = fma(u, s, 1.0)
    h = q >> 1
    u = u * from_bits(np.int64((h + 1023) << 52))
    u = u * from_bits(np.int64((q - h + 1023) << 52))
    if d > 709.78271114955742909217217426:
        u = np.inf
    if d < -1000.0:
        u = 0.0
    return u


def logf(d):
    """Sleef_logf8_u10 (xlogf_u1) of one float32."""
    o = d < F(1.17549435e-38)
    if o:
        d = d * F(18446744073709551616.0)
    e = ((bits(d * F(1.3333333333333333)) >> 23) & 0xFF) - 0x7F
    m = from_bits(np.int32(bits(d) - (e << 23)))
    if o:
        e = e - 64
    ef = F(e)
    sx = F(0.69314718246459960938) * ef
    sy = fma(F(-1.904654323148236017e-09), ef, fma(F(0.69314718246459960938), ef, -sx))
    nx = F(-1.0) + m  # dfadd2(-1, m)
    v = nx - F(-1.0)
    ny = (F(-1.0) - (nx - v)) + (m - v)
    dx = F(1.0) + m  # dfadd2(1, m)
    v = dx - F(1.0)
    dy = (F(1.0) - (dx - v)) + (m - v)
    t = F(1.0) / dx  # dfdiv
    xx = nx * t
    uu = fma(t, nx, -xx)
    xy = fma(-dy, t, fma(-dx, t, F(1.0)))
    xy = fma(xx, xy, fma(ny, t, uu))
    x2 = xx * xx
    t = F(0.3027294874)
    t = fma(t, x2, F(0.3996108174))
    t = fma(t, x2, F(0.6666694880))
    rx = sx + xx * F(2.0)  # dfadd(s, dfscale(x, 2))
    ry = (((sx - rx) + xx * F(2.0)) + sy) + xy * F(2.0)
    y = (x2 * xx) * t  # dfadd(s, y)
    sx = rx + y
    sy = ((rx - sx) + y) + ry
    r = sx + sy
    if d == F(np.inf):
        r = F(np.inf)
    if d < F(0.0) or d != d:
        r = F(np.nan)
    if d == F(0.0):
        r = F(-np.inf)
    return r


def log64(d):
    """Sleef_logd4_u10 (xlog_u1) of one float64."""
    o = d < 2.2250738585072014e-308
    if o:
        d = d * 18446744073709551616.0
    e = ((bits(d * (1.0 / 0.75)) >> 52) & 0x7FF) - 0x3FF
    m = from_bits(np.int64(bits(d) - (e << 52)))
    if o:
        e = e - 64
    ef = D(e)
    sx = 0.693147180559945286226764 * ef
    sy = fma(2.319046813846299558417771e-17, ef, fma(0.693147180559945286226764, ef, -sx))
    nx = -1.0 + m
    v = nx + 1.0
    ny = (-1.0 - (nx - v)) + (m - v)
    dx = 1.0 + m
    v = dx - 1.0
    dy = (1.0 - (dx - v)) + (m - v)
    t = 1.0 / dx
    xx = nx * t
    uu = fma(t, nx, -xx)
    xy = fma(-dy, t, fma(-dx, t, 1.0))
    xy = fma(xx, xy, fma(ny, t, uu))
    x2 = xx * xx
    x4 = x2 * x2
    x8 = x4 * x4
    t = fma(
        x8,
        fma(x4, 0.1532076988502701353, fma(x2, 0.1525629051003428716, 0.1818605932937785996)),
        fma(
            x4,
            fma(x2, 0.2222214519839380009, 0.2857142932794299317),
            fma(x2, 0.3999999999635251990, 0.6666666666667333541),
        ),
    )
    rx = sx + xx * 2.0
    ry = (((sx - rx) + xx * 2.0) + sy) + xy * 2.0
    y = (x2 * xx) * t
    sx = rx + y
    sy = ((rx - sx) + y) + ry
    r = sx + sy
    if d == np.inf:
        r = np.inf
    if d < 0.0 or d != d:
        r = np.nan
    if d == 0.0:
        r = -np.inf
    return r


_expf, _exp64, _logf, _log64 = (njit(inline="always")(f) for f in (expf, exp64, logf, log64))


def vexp(x):
    """Vectorized<T>::exp() of one element (Sleef's u10 exp for its type)."""


def vlog(x):
    """Vectorized<T>::log() of one element (Sleef's u10 log for its type)."""


@overload(vexp)
def _vexp(x):
    if x == types.float32:
        return lambda x: _expf(x)
    if x == types.float64:
        return lambda x: _exp64(x)
    return None


@overload(vlog)
def _vlog(x):
    if x == types.float32:
        return lambda x: _logf(x)
    if x == types.float64:
        return lambda x: _log64(x)
    return None


@njit(**_OPTS)
def vmax(a, b):
    """vec::maximum's lane: a > b ? a : b, NaN where either is NaN."""
    if a > b:
        return a
    if a != a or b != b:
        return a + b
    return b


SUM, MAX, DOT = 0, 1, 2  # the row reductions of ``reduce_row``


def _lanes_reduce(op):
    """An intrinsic reduce(x, y, o, n) of the n >= lanes elements from flat offset o of the
    C-contiguous 1-D x (and y) on LLVM vectors of torch's AVX2 lane count (8 float32, 4
    float64; numba does not vectorise the lanes by itself): see ``reduce_row``."""

    @intrinsic
    def reduce(typingctx, x, y, o, n):
        """numba's typing of the intrinsic: (signature, codegen) for x's dtype's lanes."""
        lanes = 8 if x.dtype == types.float32 else 4

        def codegen(context, builder, sig, args):
            """The LLVM: a vector accumulator from the first vector, one vector operation per
            further vector (DOT: the products rounded, then added), the partial vector's
            elements into the first lanes one by one (float32 DOT: each contracted, as
            torch's build), then the lanes combined."""
            xa, ya = (
                context.make_array(t)(context, builder, v) for v, t in zip(args[:2], sig.args[:2])
            )
            o, n = args[2], args[3]
            ety = context.get_data_type(sig.args[0].dtype)
            vty = ir.VectorType(ety, lanes)
            size = ir.Constant(n.type, lanes)

            def load(arr, at, ty):
                """The ty (element or vector) at flat index ``at`` of arr."""
                ptr = builder.bitcast(builder.gep(arr.data, [at]), ty.as_pointer())
                return builder.load(ptr, align=1)  # (rows start anywhere)

            def combine(a, v, at, ty):
                """a op v, v the value (vector or element) at index ``at``."""
                if op == MAX:
                    return builder.select(builder.fcmp_ordered(">", a, v), a, v)
                if op == DOT:
                    w = load(ya, at, ty)
                    if ty is ety and lanes == 8:
                        return builder.fma(v, w, a)
                    v = builder.fmul(v, w)
                return builder.fadd(a, v)

            nv = builder.sdiv(n, size)
            first = load(xa, o, vty)
            if op == DOT:
                first = builder.fmul(first, load(ya, o, vty))
            accp = cgutils.alloca_once_value(builder, first)
            one = ir.Constant(n.type, 1)
            with cgutils.for_range(builder, builder.sub(nv, one)) as loop:
                at = builder.add(o, builder.mul(builder.add(loop.index, one), size))
                builder.store(combine(builder.load(accp), load(xa, at, vty), at, vty), accp)
            acc = builder.load(accp)
            lane = [
                cgutils.alloca_once_value(
                    builder, builder.extract_element(acc, ir.Constant(ir.IntType(32), k))
                )
                for k in range(lanes)
            ]
            d = builder.add(o, builder.mul(nv, size))
            rest = builder.sub(builder.add(o, n), d)
            for k in range(lanes - 1):  # the partial vector (Vec::set keeps the other lanes)
                with builder.if_then(builder.icmp_signed(">", rest, ir.Constant(n.type, k))):
                    at = builder.add(d, ir.Constant(n.type, k))
                    v = combine(builder.load(lane[k]), load(xa, at, ety), at, ety)
                    builder.store(v, lane[k])
            v = [builder.load(p) for p in lane]

            def join(a, b):
                """Two lanes combined."""
                if op == MAX:
                    return builder.select(builder.fcmp_ordered(">", a, b), a, b)
                return builder.fadd(a, b)

            if lanes == 8:  # AVX2's shuffle tree
                return join(
                    join(join(v[0], v[4]), join(v[2], v[6])),
                    join(join(v[1], v[5]), join(v[3], v[7])),
                )
            return join(join(join(v[0], v[1]), v[2]), v[3])  # 4 double lanes in order

        return x.dtype(x, y, o, n), codegen

    return reduce


_reduce_sum, _reduce_max, _reduce_dot = (_lanes_reduce(op) for op in (SUM, MAX, DOT))


@njit(inline="always")
def reduce_row(x, y, o, n, op):
    """vec::reduce_all (SUM, MAX) or map2_reduce_all of x * y (DOT) over the n elements from
    flat offset o of the C-contiguous 1-D x (and y), in torch's lane order: the full vectors
    lane-wise, the partial vector into its first lanes (Vec::set), the lanes by AVX2's shuffle
    tree for 8 float lanes, in order for 4 double lanes; fewer elements than a vector one by
    one. MAX takes a > b ? a : b where torch's vec::maximum gives NaN for a NaN: the maximum
    may then differ, but a row holding a NaN has a NaN exp sum either way, so every softmax /
    log_softmax output of that row is NaN, as torch's."""
    if n < 32 // x.itemsize:
        r = x[o] if op != DOT else x[o] * y[o]
        for k in range(o + 1, o + n):
            v = x[k] if op != DOT else x[k] * y[k]
            if op == MAX:
                r = r if r > v else v
            else:
                r = r + v
        return r
    if op == SUM:
        return _reduce_sum(x, y, o, n)
    if op == MAX:
        return _reduce_max(x, y, o, n)
    return _reduce_dot(x, y, o, n)


@njit(**_OPTS)
def unary(v, vec, silu, zero, one):
    """torch's sigmoid (silu where silu) of one element: the vector body with Sleef's exp
    where vec, else the scalar code with the C library's exp."""
    if vec:
        e = vexp(zero - v)
        return v / (one + e) if silu else one / (e + one)
    return (v if silu else one) / (one + np.exp(-v))


@njit(**_OPTS)
def sigmoid_rows(x, out, vec, silu, c):
    """torch's CPU sigmoid (silu where silu) over the rows of the 2-D x (its
    TensorIterator's inner loop): two vectors at a time with Sleef's exp where vec
    (contiguous rows), the rest in the scalar code; c = (0, 1) in x's dtype."""
    rows, n = x.shape
    step = 64 // x.itemsize
    zero, one = c[0], c[1]
    nv = n - n % step if vec else 0
    for r in range(rows):
        for i in range(n):
            out[r, i] = unary(x[r, i], i < nv, silu, zero, one)


@njit(**_OPTS)
def silu_backward(g, x, out, fused, c):
    """torch's CPU silu_backward over flat contiguous g and x: dy s (1 + x (1 - s)) with
    s = 1 / (1 + exp(-x)) (Sleef's exp in the two-vector body, the C library's in the
    tail); fused: 1 + x (1 - s) contracted."""
    n = g.size
    zero, one = c[0], c[1]
    nv = n - n % (64 // g.itemsize)
    for i in range(n):
        v = x[i]
        e = vexp(zero - v) if i < nv else np.exp(-v)
        s = one / (one + e)
        t = fma(v, one - s, one) if fused else one + v * (one - s)
        out[i] = g[i] * s * t


@njit(**_OPTS)
def softmax_lastdim(x, out, log, c):
    """_vec_softmax_lastdim / _vec_log_softmax_lastdim over the rows of the C-contiguous 2-D
    x: the maxima and the sums in torch's lane order (``reduce_row``), Sleef's exp and log,
    each a pass over all rows (the exp and output loops vectorise); c = (0, 1)."""
    rows, n = x.shape
    xf, of = x.reshape(x.size), out.reshape(out.size)
    m = np.empty(rows, x.dtype)
    s = np.empty(rows, x.dtype)
    for r in range(rows):
        m[r] = reduce_row(xf, xf, r * n, n, MAX)
    for r in range(rows):
        mr = m[r]
        for j in range(n):
            out[r, j] = vexp(x[r, j] - mr)
    for r in range(rows):
        s[r] = reduce_row(of, of, r * n, n, SUM)
    if log:
        for r in range(rows):
            s[r] = vlog(s[r])
        for r in range(rows):
            mr, lr = m[r], s[r]
            for j in range(n):
                out[r, j] = (x[r, j] - mr) - lr
    else:
        for r in range(rows):
            s[r] = c[1] / s[r]
        for r in range(rows):
            sr = s[r]
            for j in range(n):
                out[r, j] = out[r, j] * sr


@njit(**_OPTS)
def softmax_inner(x, out, log, c):
    """_vec_softmax / _vec_logsoftmax over the middle axis of the 3-D x (outer, dim, inner):
    columns a vector at a time with Sleef's exp, the last inner % lanes with std::exp;
    softmax divides by the column sums, log_softmax subtracts the max and Sleef's log of
    the sum; c = (0, 1, -inf)."""
    outer, dim, inner = x.shape
    w = 32 // x.itemsize
    nv = inner - inner % w
    zero, ninf = c[0], c[2]
    for a in range(outer):
        for j in range(inner):
            vec = j < nv
            m = x[a, 0, j]
            if log:  # blendv(max, x, x > max) from -inf (a NaN never becomes the max)
                m = ninf
                for d in range(dim):
                    if x[a, d, j] > m:
                        m = x[a, d, j]
            elif vec:
                for d in range(1, dim):
                    m = vmax(m, x[a, d, j])
            else:  # std::max(m, x)
                for d in range(1, dim):
                    if m < x[a, d, j]:
                        m = x[a, d, j]
            s = zero
            for d in range(dim):
                e = vexp(x[a, d, j] - m) if vec else np.exp(x[a, d, j] - m)
                if not log:
                    out[a, d, j] = e
                s = s + e
            if log:
                ls = vlog(s)
                for d in range(dim):
                    out[a, d, j] = (x[a, d, j] - m) - ls
            else:
                for d in range(dim):
                    out[a, d, j] = out[a, d, j] / s


@njit(**_OPTS)
def softmax_backward_lastdim(g, y, out, log):
    """_vec_host_softmax_backward_lastdim over the rows of the C-contiguous 2-D g and y:
    softmax's (g - sum(g y)) y, log_softmax's g - exp(y) sum(g) with exp(y) sum(g)
    contracted into the difference (one rounding), as torch's compiled kernel; the row sums
    in torch's lane order (``reduce_row``), each step a pass over all rows."""
    rows, n = g.shape
    gf, yf = g.reshape(g.size), y.reshape(y.size)
    s = np.empty(rows, g.dtype)
    if log:
        for r in range(rows):
            s[r] = reduce_row(gf, gf, r * n, n, SUM)
        for r in range(rows):
            sr = s[r]
            for j in range(n):
                out[r, j] = fma(-vexp(y[r, j]), sr, g[r, j])
    else:
        for r in range(rows):
            s[r] = reduce_row(gf, yf, r * n, n, DOT)
        for r in range(rows):
            sr = s[r]
            for j in range(n):
                out[r, j] = (g[r, j] - sr) * y[r, j]


@njit(**_OPTS)
def softmax_backward_inner(g, y, out, log, c):
    """_vec_softmax_backward / _vec_log_softmax_backward over the middle axis of the 3-D
    g and y (outer, dim, inner): column sums in order (softmax's g y contracted into them),
    softmax's y (g - sum), log_softmax's g - exp(y) sum contracted, with Sleef's exp (the
    C library's on the last inner % lanes columns); c = (0,)."""
    outer, dim, inner = g.shape
    nv = inner - inner % (32 // g.itemsize)
    for a in range(outer):
        for j in range(inner):
            s = c[0]
            for d in range(dim):
                if log:
                    s = s + g[a, d, j]
                else:
                    s = fma(g[a, d, j], y[a, d, j], s)
            for d in range(dim):
                if log:
                    e = vexp(y[a, d, j]) if j < nv else np.exp(y[a, d, j])
                    gv = g[a, d, j]
                    out[a, d, j] = fma(-e, s, gv)
                else:
                    out[a, d, j] = y[a, d, j] * (g[a, d, j] - s)


@njit(**_OPTS)
def attention_shift(rows, m, scale, mask, c):
    """_fused.softmax_shift_loop's values (the attention's scores times scale[0] plus row
    i % L of the (L, n) mask, rounded after each operation, or neither where scale is empty;
    each row's maximum into m, 0 where it is not finite; the row minus it in place) in three
    passes over all rows, the maxima on lane vectors (``reduce_row``). A row holding a NaN
    (m 0 there) may get another m here, but its exp sum is NaN either way: every probability
    and the logsumexp of that row are NaN in both. c = (0, 1, -inf)."""
    count, n = rows.shape
    flat = rows.reshape(rows.size)
    zero = c[0]
    nm = mask.shape[0]
    if scale.size:
        s = scale[0]
        for i in range(count):
            if nm:
                mi = i % nm
                for j in range(n):
                    v = rows[i, j] * s
                    rows[i, j] = v + mask[mi, j]
            else:
                for j in range(n):
                    rows[i, j] = rows[i, j] * s
    for i in range(count):
        top = reduce_row(flat, flat, i * n, n, MAX)
        m[i] = top if top - top == zero else zero
    for i in range(count):
        mi = m[i]
        for j in range(n):
            rows[i, j] = rows[i, j] - mi


@njit(**_OPTS)
def exp_array(x, out):
    """Sleef's exp of each element of the flat x."""
    for i in range(x.size):
        out[i] = vexp(x[i])


@njit(**_OPTS)
def log_array(x, out):
    """Sleef's log of each element of the flat x."""
    for i in range(x.size):
        out[i] = vlog(x[i])


def _sigmoid_body(x):
    """torch's vectorized sigmoid of one element, 1 / (exp(0 - x) + 1) with Sleef's exp (a
    ufunc: one call for a small tensor; the float32 constants are exact in float64)."""
    return F(1.0) / (vexp(F(0.0) - x) + F(1.0))


sigmoid_body = vectorize(["float32(float32)", "float64(float64)"], cache=True)(_sigmoid_body).ufunc


@njit(**_OPTS)
def sigmoid_contiguous(x, silu, c, out):
    """sigmoid_rows of a C-contiguous array of any shape as one row, into `out` (C-contiguous,
    x's shape and dtype: made by the caller, as an array numba makes carries a dtype object
    other than NumPy's, which identity checks downstream miss); c = (0, 1) in x's dtype. One
    call for the small tensors' hot path."""
    xf, of = x.reshape(x.size), out.reshape(out.size)
    n = xf.size
    zero, one = c[0], c[1]
    nv = n - n % (64 // x.itemsize)
    for i in range(n):
        of[i] = unary(xf[i], i < nv, silu, zero, one)
