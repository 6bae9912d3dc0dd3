"""Optional compiled CPU loops (numba) for multi-pass elementwise kernels on the hot paths.

NumPy evaluates a formula like GELU's rational erf as ~25 passes over the array; one compiled
loop does the same float operations element by element. numba is optional (``pip install
framework[fast]``): without it, or with ``FRAMEWORK_NUMBA=0`` in the environment, every op runs
its NumPy composition unchanged. Each loop here performs the same IEEE operations in the same
order as the NumPy code it replaces (compiled without fastmath: no fused multiply-adds, no
reassociation; constants come in as float32 arrays so nothing is promoted), so its results are
bitwise the NumPy path's; transcendental functions (exp) stay in NumPy for that reason. The
exceptions are row sums (LayerNorm's statistics and backward, the attention softmax's
denominators): accumulated in float64 (in any order, so they vectorise), they differ from the
NumPy path's float32 sums in the last bits, as both differ from torch's. Used by: exact GELU
(float32 forward, backward's tail), LayerNorm's backward, the softmax inside
scaled_dot_product_attention, the embedding's backward scatter-add. The loops run on the
calling thread only (no thread pool), and numba caches the compiled code on disk
(``cache=True``) so later processes skip compiling.

Example:
    >>> k = kernels()  # None without numba
    >>> k is None or callable(k.gelu32)
    True
"""

import contextlib
import math
import os

MIN_SIZE = 16384  # below this many elements NumPy's passes cost about as little
SMALL = 1024  # up to this many elements a compiled ufunc beats NumPy's several calls
_state = [None]  # the compiled kernels, False where unavailable, None before the first call


def jit_module(name, cell, svml=False):
    """The compiled-kernel module ``framework.ops.<name>`` where numba is usable (and
    FRAMEWORK_NUMBA is not 0), else None; remembered in ``cell[0]`` (False once refused: a
    numba that cannot build it, or, with `svml`, one mapping the C library's functions to
    Intel's SVML, whose vector functions would replace them in the loops' scalar tails)."""
    j = cell[0]
    if j is None:
        j = False
        if os.environ.get("FRAMEWORK_NUMBA", "1") != "0" and kernels() is not None:
            try:
                import importlib

                import numba

                j = importlib.import_module(f"{__package__}.{name}")
                if svml and numba.config.USING_SVML:
                    j = False
            except Exception:  # a numba that cannot build these: the NumPy replay
                j = False
        cell[0] = j
    return j or None


def kernels():
    """The compiled kernels (a namespace), or None without numba or with FRAMEWORK_NUMBA=0.
    The first call imports numba; each loop compiles on its own first call."""
    k = _state[0]
    if k is None:
        k = _state[0] = _compile()
    return k or None


@contextlib.contextmanager
def disabled():
    """Run the block on the NumPy paths (tests compare both)."""
    saved = _state[0]
    _state[0] = False
    try:
        yield
    finally:
        _state[0] = saved


def phi32_main(v, c):
    """activation._phi32's Horner steps for one float32 element (before its tail patch):
    1/2 + xc p(u) / q(u) with xc = v clipped to +-c[0], u = xc^2, c = (clip, 1/2, 0,
    p0..p5, q0..q4, -3, -5.5430408)."""
    xc = v
    if v > c[0]:
        xc = c[0]
    elif v < -c[0]:
        xc = -c[0]
    u = xc * xc
    p = u + c[3]
    p = p * u + c[4]
    p = p * u + c[5]
    p = p * u + c[6]
    p = p * u + c[7]
    p = p * u + c[8]
    q = u * c[9] + c[10]
    q = q * u + c[11]
    q = q * u + c[12]
    q = q * u + c[13]
    p = p * xc
    p = p / q
    return p + c[1]


def gelu32_loop(x, c, cof, cdf, out, tail):
    """Phi(x) into cdf and x * Phi(x) + 0 into out, for flat float32 x: phi32_main, then
    (where `tail`: the caller saw an x below -3) _phi32_tail's erfc where -5.5430408 < x < -3
    (cof = (-1/sqrt 2, then special._ERFC_COF)). The tail is a second loop: a test for it
    inside the first one stops that loop's vectorisation."""
    zero = c[2]
    for j in range(x.size):
        v = x[j]
        p = _phi32_main(v, c)
        cdf[j] = p
        out[j] = v * p + zero
    if tail:
        _gelu32_tail(x, c[14], c[15], zero, cof, cdf, out)


def gelu32_tail(x, hi, lo, zero, cof, cdf, out):
    """gelu32_loop's patch where lo < x < hi: cdf = float32(erfc(-x / sqrt 2) / 2), out = x *
    cdf + 0; the blocks of 64 without such an x skipped after a branch-free test."""
    n = x.size
    for start in range(0, n, 64):
        stop = min(start + 64, n)
        hit = False
        for j in range(start, stop):
            hit = hit | (x[j] < hi)
        if hit:
            for j in range(start, stop):
                v = x[j]
                if v < hi and v > lo:
                    cdf[j] = _half_erfc(v, cof)
                    p = cdf[j]
                    out[j] = v * p + zero


def half_erfc(v, cof):
    """0.5 * erfc(-v / sqrt 2) in float64 (special._erfc_abs's Clenshaw steps, in order),
    stored by the caller in v's float32: _phi32_tail for one element."""
    z = float(v) * cof[0]
    t = 2.0 / (2.0 + z)
    ty = 4.0 * t - 2.0
    d = 0.0
    dd = 0.0
    for k in range(cof.size - 1, 1, -1):
        nxt = ty * d
        nxt = nxt - dd
        nxt = nxt + cof[k]
        dd = d
        d = nxt
    d = d * ty
    d = d + cof[1]
    d = d * 0.5
    d = d - dd
    d = d - z * z
    return 0.5 * (t * math.exp(d))


_half_erfc = half_erfc  # the compiled helpers once _build ran
_gelu32_tail = gelu32_tail
_phi32_main = phi32_main


def gelu_grad_head_loop(a, half, d):
    """d = a * a * half[0] (half = -1/2 in a's dtype; each product rounded): the argument of
    Gelu's backward's exp in one pass instead of NumPy's two."""
    h = half[0]
    for j in range(a.size):
        e = a[j] * a[j]
        d[j] = e * h


def gelu_grad_tail_loop(a, cdf, g, scale, d):
    """d = (d * scale * a + cdf) * g in place, d holding exp(-a^2 / 2) (Gelu's backward)."""
    s = scale[0]
    for j in range(a.size):
        e = d[j] * s
        e = e * a[j]
        e = e + cdf[j]
        d[j] = e * g[j]


def log_softmax_shift_loop(rows, out):
    """out = x - max(x) per row (log_softmax's first step; a NaN in the row makes the row's
    maximum NaN, as NumPy's max)."""
    n = rows.shape[1]
    for i in range(rows.shape[0]):
        top, nan = _row_max(rows, i)
        if nan:
            for j in range(n):
                if rows[i, j] != rows[i, j]:
                    top = rows[i, j]
                    break
        for j in range(n):
            out[i, j] = rows[i, j] - top


def log_softmax_finish_loop(out, e):
    """out -= log(sum of the row of e) per row (the sum and log in float64, then rounded)."""
    n = out.shape[1]
    for i in range(out.shape[0]):
        acc = 0.0
        for j in range(n):
            acc += e[i, j]
        e[i, 0] = math.log(acc)
        ls = e[i, 0]
        for j in range(n):
            out[i, j] = out[i, j] - ls


def log_softmax_grad_loop(g, d, tmp):
    """d = g - d * sum(g) per row in place, d holding exp(log_softmax): the row sum in
    float64, rounded to the dtype (through tmp), then the product and difference in it."""
    n = g.shape[1]
    for i in range(g.shape[0]):
        acc = 0.0
        for j in range(n):
            acc += g[i, j]
        tmp[0] = acc
        s = tmp[0]
        for j in range(n):
            d[i, j] = g[i, j] - d[i, j] * s


def ln_backward_loop(g, rows, mean, invstd, w, has_w, grad_x, grad_w, grad_b, td):
    """LayerNorm's input gradient (gw - mean(gw) - xhat mean(gw xhat)) invstd with gw = g w,
    row by row (the two row means accumulated in float64 into the (rows, 2) float64 td), and
    the column sums of g xhat and g into the float64 grad_w and grad_b. Three passes over all
    rows (the row means, the input gradient, the column sums): a quarter faster than one
    pass per row doing all three, whose loops LLVM vectorises less."""
    r, n = rows.shape
    for i in range(r):
        m, s = mean[i], invstd[i]
        t = 0.0
        d = 0.0
        for j in range(n):
            xh = (rows[i, j] - m) * s
            gw = g[i, j] * w[j] if has_w else g[i, j]
            t += gw
            d += gw * xh
        td[i, 0] = t / n
        td[i, 1] = d / n
    for i in range(r):
        m, s = mean[i], invstd[i]
        t = td[i, 0]
        d = td[i, 1]
        for j in range(n):
            xh = (rows[i, j] - m) * s
            gw = g[i, j] * w[j] if has_w else g[i, j]
            grad_x[i, j] = (gw - t - xh * d) * s
    for i in range(r):
        m, s = mean[i], invstd[i]
        for j in range(n):
            xh = (rows[i, j] - m) * s
            gv = g[i, j]
            grad_w[j] += gv * xh
            grad_b[j] += gv


def rows_add_loop(target, indices, values):
    """target[indices[k]] += values[k] row by row in k's order (np.add.at's order: the same
    sums, bit for bit), for a 2-D target and values and 1-D integer indices. Returns False
    (target untouched) where an index is outside [0, rows): the caller's add.at words the
    error or wraps."""
    n = target.shape[0]
    for k in range(indices.size):
        if indices[k] < 0 or indices[k] >= n:
            return False
    for k in range(indices.size):
        r = indices[k]
        for j in range(values.shape[1]):
            target[r, j] += values[k, j]
    return True


def row_max(rows, i):
    """(the exact maximum of row i, whether the row holds a NaN): four running maxima, so
    the compare chain does not serialise the loop."""
    n = rows.shape[1]
    t0 = rows[i, 0]
    t1, t2, t3 = t0, t0, t0
    nan = False
    j = 0
    while j + 4 <= n:
        a, b, c, d = rows[i, j], rows[i, j + 1], rows[i, j + 2], rows[i, j + 3]
        t0 = a if a > t0 else t0
        t1 = b if b > t1 else t1
        t2 = c if c > t2 else t2
        t3 = d if d > t3 else t3
        nan = nan | (a != a) | (b != b) | (c != c) | (d != d)
        j += 4
    while j < n:
        a = rows[i, j]
        t0 = a if a > t0 else t0
        nan = nan | (a != a)
        j += 1
    for t in (t1, t2, t3):
        if t > t0:
            t0 = t
    return t0, nan


_row_max = row_max  # the compiled helper once _build ran (the loops below call it by name)


def softmax_shift_loop(rows, m, scale, mask):
    """Each row times scale[0] plus its row of mask (row i takes mask[i % L]; neither when
    scale is empty), then its maximum into m (0 where it is not finite or the row has a NaN,
    as the safe softmax takes it), subtracted from the row in place. The maximum is exact
    (only the sign of a zero maximum may differ from NumPy's, which leaves every probability
    the same)."""
    n = rows.shape[1]
    for i in range(rows.shape[0]):
        if scale.size:  # scores * scale + mask, rounded after each operation as NumPy's
            s = scale[0]
            if mask.shape[0]:
                mi = i % mask.shape[0]
                for j in range(n):
                    v = rows[i, j] * s
                    rows[i, j] = v + mask[mi, j]
            else:
                for j in range(n):
                    rows[i, j] = rows[i, j] * s
        top, nan = _row_max(rows, i)
        if nan or not (top - top == 0):  # NaN, inf or -inf
            m[i] = 0
            top = m[i]
        else:
            m[i] = top
        for j in range(n):
            rows[i, j] = rows[i, j] - top


def softmax_grad_loop(gs, row, p, scale):
    """gs = (gs - row) * p * scale[0] in place, each row of the 2-D gs and p minus its entry
    of the 1-D row (attention's softmax backward after its row dots), each operation rounded
    as NumPy's three in-place passes (one pass instead)."""
    s = scale[0]
    n = gs.shape[1]
    for i in range(gs.shape[0]):
        r = row[i]
        for j in range(n):
            v = gs[i, j] - r
            v = v * p[i, j]
            gs[i, j] = v * s


def softmax_scale_loop(rows, one, sums):
    """Each row's sum (float64 accumulation, rounded) into sums, then the row times one / sum
    in place (times 1 for a zero sum: an all-masked row stays zero)."""
    n = rows.shape[1]
    for i in range(rows.shape[0]):
        acc = 0.0
        for j in range(n):
            acc += rows[i, j]
        sums[i] = acc
        s = sums[i]
        r = one[0] if s == 0 else one[0] / s
        for j in range(n):
            rows[i, j] = rows[i, j] * r


def lstm_cap_loop(gates, cap, e):
    """e = min(-gates, cap[0]) elementwise (NaN stays NaN, as np.minimum): the argument of
    the exp in _Arrays.sigmoid, for all 4H columns at once."""
    n, w = gates.shape
    c = cap[0]
    for r in range(n):
        for j in range(w):
            v = -gates[r, j]
            e[r, j] = c if v > c else v


def lstm_gates_loop(e, g, c, one, i, f, o, cn):
    """rnn_fused.lstm_gates after NumPy's exp into e (N, 4H; or N, 3H without the g block)
    and tanh into g (N, H): i, f, o = 1 / (1 + e) of their column blocks (o's the last),
    cn = f * c + i * g (each product rounded, as NumPy's), written into the (N, H) arrays
    i, f, o, cn; one = (1,) in the dtype."""
    n, h = c.shape
    ob = e.shape[1] - h
    u = one[0]
    for r in range(n):
        for j in range(h):
            iv = u / (u + e[r, j])
            fv = u / (u + e[r, h + j])
            i[r, j] = iv
            f[r, j] = fv
            o[r, j] = u / (u + e[r, ob + j])
            a = fv * c[r, j]
            b = iv * g[r, j]
            cn[r, j] = a + b


def lstm_pre_loop(gates, x, b, has_b, cap, e):
    """One step of rnn_layer's forward before the exp: gates = gates + x, + b (the hidden
    bias, a row) where has_b, in place (its two NumPy additions, in that order), and e =
    min(-gates, cap[0]) as lstm_cap_loop, in one pass; e (N, 3H) takes the i, f and o
    blocks only (the g block's exp was never used)."""
    n, w = gates.shape
    h = w // 4
    c = cap[0]
    for r in range(n):
        for j in range(w):
            v = gates[r, j] + x[r, j]
            if has_b:
                v = v + b[j]
            gates[r, j] = v
        for j in range(2 * h):
            v = -gates[r, j]
            e[r, j] = c if v > c else v
        for j in range(h):
            v = -gates[r, 3 * h + j]
            e[r, 2 * h + j] = c if v > c else v


def lstm_grads_loop(i, f, g, o, tc, c, dh, go, gc, has_dh, has_go, has_gc, out, dcf):
    """rnn_fused._lstm_grads on (N, H) arrays: with gh = dh + go (dh alone, go alone, or 0:
    has_dh, has_go; rnn_layer's backward adds the step's output gradient go to the
    carried dh), dc = gh * o * (1 - tc^2) [+ gc] (1 - y^2 one fused multiply-add, as torch's
    tanh_backward), the gate gradients dc g (1 - i) i, dc c
    (1 - f) f, dc i (1 - g^2), gh tc (1 - o) o into the column blocks of out (N, 4H), and
    dc * f into dcf; each product in the order of torch's graph of the cell (mul's, then
    sigmoid_backward's grad * (1 - y) * y, tanh_backward's grad * (1 - y^2)). One short
    loop per block and row (dc kept in dcf meanwhile): loops over a few arrays vectorise
    (LLVM checks the arrays' overlap before vectorising, and gives up on a dozen); one loop
    over all ran 2.7x longer."""
    n, h = i.shape
    one = _to32(1.0)  # (float32; exact and promoted in float64 arrays)
    zero = one - one
    for r in range(n):
        for j in range(h):
            if has_dh and has_go:
                ghv = dh[r, j] + go[r, j]
            elif has_dh:
                ghv = dh[r, j]
            elif has_go:
                ghv = go[r, j]
            else:
                ghv = zero
            t, ov = tc[r, j], o[r, j]
            out[r, 3 * h + j] = ghv * t * (one - ov) * ov
            dc = ghv * ov
            dc = dc * _fma(-t, t, one)  # (tanh_backward: 1 - y^2 one fused multiply-add)
            if has_gc:
                dc = dc + gc[r, j]
            dcf[r, j] = dc
        for j in range(h):
            iv = i[r, j]
            out[r, j] = dcf[r, j] * g[r, j] * (one - iv) * iv
        for j in range(h):
            fv = f[r, j]
            out[r, h + j] = dcf[r, j] * c[r, j] * (one - fv) * fv
        for j in range(h):
            gv = g[r, j]
            out[r, 2 * h + j] = dcf[r, j] * i[r, j] * _fma(-gv, gv, one)
        for j in range(h):
            dcf[r, j] = dcf[r, j] * f[r, j]


def gru_grads_loop(r, z, nn, hn, h, g, gx, gh, gz):
    """rnn_fused._gru_grads on (N, H) arrays: dn = (g - g z) (1 - n^2), dr = dn hn (1 - r) r,
    dz = g (h - n) (1 - z) z into the column blocks of gx = [dr, dz, dn] and gh = [dr, dz,
    dn r] (N, 3H), and g z into gz; each product in the order of torch's graph of the cell
    (n's gradient g from the last add plus -(g z) from h - n)."""
    n, w = r.shape
    one = _to32(1.0)  # (float32; exact and promoted in float64 arrays)
    for i in range(n):
        for j in range(w):
            rv, zv, nv, gv = r[i, j], z[i, j], nn[i, j], g[i, j]
            gzv = gv * zv
            dn = gv - gzv
            dn = dn * _fma(-nv, nv, one)  # (tanh_backward: 1 - y^2 one fused multiply-add)
            dr = dn * hn[i, j] * (one - rv) * rv
            dz = gv * (h[i, j] - nv) * (one - zv) * zv
            gx[i, j] = dr
            gx[i, w + j] = dz
            gx[i, 2 * w + j] = dn
            gh[i, j] = dr
            gh[i, w + j] = dz
            gh[i, 2 * w + j] = dn * rv
            gz[i, j] = gzv


def erf_ufunc(x):
    """The C library's erf (``special.libm_erf``'s compiled loop)."""
    return math.erf(x)


def erfc_ufunc(x):
    """The C library's erfc (``special.libm_erfc``'s compiled loop)."""
    return math.erfc(x)


def sigmoid_ufunc(x):
    """e / (e + 1) with e = exp(min(x, 709.7)) in float64 (NaN stays NaN), rounded once to
    x's dtype: the float64 NumPy path's operations, a correctly rounded float32 result."""
    t = float(x)
    if t > 709.7:
        t = 709.7
    e = math.exp(t)
    return e / (e + 1.0)


def sigmoid_grad_ufunc(y, g):
    """(1 - y) * g * y, Sigmoid's backward (its NumPy path's operations, in that order; the
    1 a float32 constant, exact in either dtype, so float32 stays float32)."""
    t = _to32(1.0) - y
    t = t * g
    return t * y


def relu_grad_ufunc(y, g):
    """torch's threshold_backward(g, y, 0) for one element of ReLU's output y: +0 where
    y <= 0, else g (a NaN y passes g, as torch's select; a NaN or inf g passes unchanged)."""
    if y <= 0:
        return 0.0
    return g


def tanh_grad_ufunc(y, g):
    """g * (1 - y * y), Tanh's backward as torch's tanh_backward: 1 - y * y one fused
    multiply-add (compiled with ``contract``, checked after compiling, see _Ufuncs)."""
    t = _to32(1.0) - y * y
    return t * g


def phi32(v, c, cof):
    """Phi(v) of one float32 element: phi32_main, with the erfc tail of gelu32_tail."""
    if v < c[14] and v > c[15]:
        return _to32(_half_erfc(v, cof))
    return _phi32_main(v, c)


def gelu32_ufunc(x):
    """x * Phi(x) + 0 of a float32 x (Gelu's forward, exact form)."""
    c = _GELU32_C
    return x * _phi32(x, c, _GELU32_COF) + c[2]


def gelu32_square_ufunc(x):
    """x * x * -1/2 of a float32 x (the argument of Gelu's backward exp)."""
    d = x * x
    return d * _GELU32_C[16]


def gelu32_grad_ufunc(x, e, g):
    """(e / sqrt(2 pi) * x + Phi(x)) * g of float32 x, e = exp(x * x * -1/2) (from NumPy's
    exp, so the values are bitwise Gelu's NumPy backward's), g."""
    c = _GELU32_C
    d = e * c[17]
    d = d * x
    d = d + _phi32(x, c, _GELU32_COF)
    return d * g


def fma_ufunc(b, alpha, a):
    """b * alpha + a with one rounding: compiled with LLVM's ``contract`` flag alone, so the
    multiply-add is one FMA instruction (checked after compiling, see _Ufuncs.fma)."""
    return b * alpha + a


def fma_scalar_loop(a, alpha, c, out):
    """out = a * alpha + c over flat arrays, one rounding each (compiled with ``contract``:
    LLVM vectorises it into FMA instructions)."""
    for i in range(a.size):
        out[i] = a[i] * alpha + c[i]


def fma_array_loop(a, b, c, out):
    """out = a * b + c over flat arrays of one size, one rounding each (see fma_scalar_loop)."""
    for i in range(a.size):
        out[i] = a[i] * b[i] + c[i]


def _fused_once(fma, t):
    """True where ``fma`` rounds once: (1 + e)^2 - (1 + 2e) is e^2 exactly, 0 when the
    product is rounded first (e = 2^-12 in float32, 2^-27 in float64)."""
    import numpy

    e = t(2.0 ** (-12 if t == numpy.float32 else -27))
    one = t(1)
    return fma(one + e, one + e, -(one + e + e)) == e * e


def _tanh_grad_fused_once(tanh_grad, t):
    """True where ``tanh_grad``'s 1 - y * y rounds once: -(2e + e^2) exactly at y = 1 + e,
    -2e when y * y is rounded first (e = 2^-12 in float32, 2^-27 in float64)."""
    import numpy

    e = t(2.0 ** (-12 if t == numpy.float32 else -27))
    return tanh_grad(t(1) + e, t(1)) == -(e + e + e * e)


def _to32(v):
    """v rounded to float32 (numba.float32 once _build ran)."""
    return v


_phi32 = phi32
_fma = None  # llvm.fma (_numba_fma.fma) once _build ran: the recurrent gradient loops' 1 - y^2
# activation._gelu32_constants(), set before a ufunc using them compiles (frozen into it)
_GELU32_C = _GELU32_COF = None


class _Ufuncs:
    """NumPy ufuncs compiled by numba on first use (float32 and float64 loops), for small
    arrays: one ufunc call (~0.45 us) where the NumPy path makes three to thirty (relu_grad
    at any size: one pass where the NumPy select makes three). An attribute is None where
    numba could not build the ufunc."""

    SIGNATURES = {
        "sigmoid": (sigmoid_ufunc, 1),
        "sigmoid_grad": (sigmoid_grad_ufunc, 2),
        "tanh_grad": (tanh_grad_ufunc, 2),
        "relu_grad": (relu_grad_ufunc, 2),
        "gelu32": (gelu32_ufunc, 1),
        "gelu32_square": (gelu32_square_ufunc, 1),
        "gelu32_grad": (gelu32_grad_ufunc, 3),
        "fma": (fma_ufunc, 3),
        "erf": (erf_ufunc, 1),
        "erfc": (erfc_ufunc, 1),
    }

    def __init__(self, numba, cache):
        self._numba, self._cache = numba, cache

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.SIGNATURES:
            raise AttributeError(name)
        fn, arity = self.SIGNATURES[name]
        types = ("float32", "float64")
        if name.startswith("gelu32"):  # its constants frozen into the compiled code
            from .activation import _gelu32_constants

            global _GELU32_C, _GELU32_COF
            _GELU32_C, _GELU32_COF = _gelu32_constants()
            types = ("float32",)
        sigs = [f"{t}({', '.join([t] * arity)})" for t in types]
        ufunc = None  # where numba cannot build it: the callers' NumPy paths
        opts = {"fastmath": {"contract"}} if name in ("fma", "tanh_grad") else {}
        for cache in dict.fromkeys((self._cache, False)):  # no writable cache: in memory
            try:
                ufunc = self._numba.vectorize(sigs, nopython=True, cache=cache, **opts)(fn).ufunc
                break
            except Exception:
                continue
        if name == "fma" and ufunc is not None:
            import numpy

            if not all(_fused_once(ufunc, t) for t in (numpy.float32, numpy.float64)):
                ufunc = None  # no FMA instruction on this CPU: the exact emulation instead
        if name == "tanh_grad" and ufunc is not None:
            import numpy

            if not all(_tanh_grad_fused_once(ufunc, t) for t in (numpy.float32, numpy.float64)):
                ufunc = None  # 1 - y * y rounded twice: the caller's emulation instead
        setattr(self, name, ufunc)
        return ufunc


def _compile():
    if os.environ.get("FRAMEWORK_NUMBA", "1") == "0":
        return False
    try:
        import numba
    except Exception:  # not installed, or not importable with this NumPy: the NumPy paths
        return False
    for cache in (True, False):  # no writable cache directory: compile in memory
        try:
            return _build(numba, cache)
        except Exception:  # a numba that cannot compile these loops: the NumPy paths
            continue
    return False


def _build(numba, cache):
    """The loops as numba dispatchers; each compiles (or loads from numba's cache) on its first
    call per dtype, so a process pays only for the loops it runs."""
    from types import SimpleNamespace

    def jit(fn, sums=False):
        """fn compiled lazily by numba (no fastmath except reassociated float64 sums)."""
        # sums: the loop's float64 accumulations may be reordered (vectorised); nothing else
        fastmath = {"reassoc"} if sums else False
        return numba.njit(cache=cache, nogil=True, error_model="numpy", fastmath=fastmath)(fn)

    global _row_max, _half_erfc, _gelu32_tail, _phi32_main, _phi32, _to32, _fma
    from .._numba_fma import fma as _fma

    _to32 = numba.float32
    _phi32_main = jit(phi32_main)
    _phi32 = jit(phi32)
    _row_max = jit(row_max)
    _half_erfc = jit(half_erfc)
    _gelu32_tail = jit(gelu32_tail)
    from . import _sum_kernel as sk  # torch's summation order: helpers first, by name

    sk._ceil_log2 = jit(sk.ceil_log2)
    from .._numba_fma import lanes_add4, lanes_add8

    sk._lanes_add4, sk._lanes_add8 = lanes_add4, lanes_add8
    sk._block_add_loop = jit(sk.block_add)
    sk._block_add = jit(sk.block_add_vec)
    sk._multi_row_sum = jit(sk.multi_row_sum)
    sk._row_sum = jit(sk.row_sum)
    sk._inner_row = jit(sk.inner_row)
    import numpy

    return SimpleNamespace(
        ndarray=numpy.ndarray,  # the arrays the ufuncs below take (not CuPy's)
        ufunc=_Ufuncs(numba, cache),
        gelu32=jit(gelu32_loop),
        lstm_grads=jit(lstm_grads_loop),
        lstm_pre=jit(lstm_pre_loop),
        lstm_cap=jit(lstm_cap_loop),
        lstm_gates=jit(lstm_gates_loop),
        gru_grads=jit(gru_grads_loop),
        gelu_grad_head=jit(gelu_grad_head_loop),
        gelu_grad_tail=jit(gelu_grad_tail_loop),
        softmax_shift=jit(softmax_shift_loop),
        softmax_scale=jit(softmax_scale_loop, sums=True),
        softmax_grad=jit(softmax_grad_loop),
        log_softmax_shift=jit(log_softmax_shift_loop),
        log_softmax_finish=jit(log_softmax_finish_loop, sums=True),
        log_softmax_grad=jit(log_softmax_grad_loop, sums=True),
        ln_backward=jit(ln_backward_loop, sums=True),
        fma_scalar=_contracted(numba, cache, fma_scalar_loop),
        fma_array=_contracted(numba, cache, fma_array_loop),
        torch_inner_sum=jit(sk.inner_sum_loop),
        torch_outer_sum=jit(sk.outer_sum_loop),
        torch_strided_sum=jit(sk.strided_sum_loop),
        torch_nll_sums=jit(sk.nll_sums_loop),
        rows_add=jit(rows_add_loop),
    )


def _contracted(numba, cache, fn):
    """fn compiled with LLVM's ``contract`` flag alone (a * b + c as one FMA), or None where
    the result does not round once (no FMA instruction): callers then take the ufunc or the
    emulation (framework._fma.fused)."""
    import numpy

    loop = numba.njit(cache=cache, nogil=True, fastmath={"contract"})(fn)
    for t in (numpy.float32, numpy.float64):
        e = t(2.0 ** (-12 if t == numpy.float32 else -27))
        a = numpy.full(3, 1 + e, t)
        out = numpy.empty(3, t)
        b = a if fn is fma_array_loop else t(1 + e)
        loop(a, b, numpy.full(3, -(1 + e + e), t), out)
        if not (out == e * e).all():
            return None
    return loop


def flat(*arrays):
    """The arrays as flat 1-D views when all are writeable, C-contiguous, plain NumPy arrays
    (no subclass) of one native float32/float64 dtype and shape, of at least MIN_SIZE
    elements; else None (the caller keeps its NumPy path: the loops are compiled for exactly
    these)."""
    first = arrays[0]
    kind = type(first)
    if kind.__module__ != "numpy" or kind.__name__ != "ndarray" or first.size < MIN_SIZE:
        return None
    if first.dtype.char not in "fd" or not first.dtype.isnative:
        return None
    out = []
    for a in arrays:
        if type(a) is not kind or a.dtype != first.dtype or a.shape != first.shape:
            return None
        if not (a.flags.c_contiguous and a.flags.writeable):
            return None
        out.append(a.reshape(-1))
    return out
