"""One compiled loop per optimizer step and parameter (numba), bit for bit the NumPy path.

The NumPy composition of a step (``_util``'s ``_lerp_``, ``_addcmul_``, ``_axpy_``: torch's
single-tensor code op by op) makes several passes and temporaries per parameter; here each
element is read once, updated in registers and written back. The loops are compiled without
fastmath (no contraction, no reassociation): every operation rounds separately, in the order
of the NumPy path, and the fused multiply-adds torch's kernels perform (``vec::fmadd`` in
``add(alpha=)``, ``lerp``, ``addcmul``) are emitted explicitly as ``llvm.fma`` (``_fma``
below, one rounding whatever the CPU). The scalars come in rounded to the arrays' dtype, as
NumPy rounds a Python float against a float32 array. ``sqrt`` is the correctly rounded one,
as ``np.sqrt``.

Loops: SGD, Adam/AdamW, Adagrad, RMSprop, Adamax, NAdam, RAdam, Adadelta, each from the raw gradient
(maximize and weight decay folded in) or from a prepared one (the flat buckets of ``_flat``).
They follow torch's single-tensor code, and its multi-tensor code where that rounds otherwise
(NAdam's and RAdam's ``foreach=True``). ``adam_loop``/``sgd_loop`` also give torch's fused CPU
kernels (``FusedAdamKernel.cpp``, ``FusedSGDKernel.cpp``, ``fused=True``): their vectorized
body rounds as the single-tensor code, and `fused_split` says where the compiler's scalar
tail begins, whose contraction fuses the other product of a two-product sum (Adagrad's fused
kernel has no such sum: its single-tensor loop serves).

Used where numba is installed and ``FRAMEWORK_NUMBA`` is not 0 (``framework.ops._fused``
decides); ``get()`` is None otherwise and the optimizers keep their NumPy path.
"""

import numpy as np

_state = [None]  # the compiled namespace, False where unavailable, None before the first call
_fused = []  # framework.ops._fused once imported (ops import the optimizers' modules late)


def get():
    """The compiled step loops (a namespace), or None (no numba, FRAMEWORK_NUMBA=0, inside
    ``framework.ops._fused.disabled()``, or a numba that cannot build them)."""
    if not _fused:
        from ..ops import _fused as fused

        _fused.append(fused)
    if _fused[0].kernels() is None:
        return None
    k = _state[0]
    if k is None:
        k = _state[0] = _build()
    return k or None


def usable(*arrays):
    """The arrays as flat 1-D views when all are plain NumPy float32/float64 arrays of one
    dtype, shape and memory order (C or Fortran contiguous, native byte order) and all but
    the second (the gradient: only read) writeable; else None (the caller keeps its NumPy
    path)."""
    first = arrays[0]
    if type(first) is not np.ndarray:
        return None
    dt, shape, strides = first.dtype, first.shape, first.strides
    if dt.char not in "fd" or not dt.isnative:
        return None
    flags = first.flags
    if not (flags.c_contiguous or flags.f_contiguous):
        return None
    g = arrays[1]
    for a in arrays:
        if (
            type(a) is not np.ndarray
            or a.shape != shape
            or a.strides != strides
            or (a.dtype is not dt and a.dtype != dt)
            or not (a is g or a.flags.writeable)
        ):
            return None
    return [a.ravel("K") for a in arrays]  # views, in memory order (one for all)


def _fma_py(a, b, c):
    return a * b + c  # replaced by the llvm.fma intrinsic in _build


_fma = _fma_py


def adam_loop(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low, nb, nv, r, root):
    """Adam on flat arrays: torch's _single_tensor_adam (optim/adam.py's NumPy path) with
    nb = nv = p.size, its fused CPU kernel (``fused=True``) with nb, nv = the ends of its
    vectorized body and of the compiler's vectorized part of the scalar loop (`fused_split`).
    k = (weight_decay, 1 - lr * weight_decay, w = 1 - beta1, 1 - w, beta2, 1 - beta2,
    bias_correction2_sqrt, eps, -step_size) in the arrays' dtype; wd_mode 0 none, 1 L2
    (grad.add(param, alpha=wd)), 2 decoupled (param.mul_); low: |w| < 0.5 (lerp's side).
    root: `roots`' (VML's function and mode, r its scratch; (0, 0) for np.sqrt: the fused
    kernel's correctly rounded root). Two vectorized passes (`adam_state`, `adam_finish`)
    on views of each part."""
    n = p.size
    for lo, hi, smax, first in ((0, nb, False, False), (nb, nv, True, False), (nv, n, True, True)):
        _adam_state(
            p[lo:hi],
            g[lo:hi],
            m[lo:hi],
            v[lo:hi],
            vmax[lo:hi],
            k,
            maximize,
            wd_mode,
            amsgrad,
            low,
            smax,
            first,
        )
    _adam_root_finish(p, m, vmax if amsgrad else v, k, r, root)


ROOT_CHUNK = 2048  # elements per VML call of the Adam loops: the chunk's state, operands,
#                   roots and update stay in L1 (r, the scratch, needs no more)


def _adam_root_finish_py(p, m, s, k, r, root):
    """The update from the second moments s: their roots by VML (root = (address, mode)) a
    chunk at a time in r (`root_operands`, `adam_finish_roots`), or np.sqrt's (root[0] ==
    0)."""
    if root[0]:
        n = p.size
        for lo in range(0, n, ROOT_CHUNK):
            hi = min(lo + ROOT_CHUNK, n)
            _root_operands(s[lo:hi], r)
            _vml_call(root[0], hi - lo, r.ctypes.data, r.ctypes.data, root[1])
            _adam_finish_roots(p[lo:hi], m[lo:hi], s[lo:hi], r, k)
    else:
        _adam_finish(p, m, s, k, False)


def root_operands(s, r):
    """r[:s.size] = s, with each zero replaced by 1: VML's High Accuracy root takes a slow
    path for zero operands (~13 cycles each: a dead input's weights, whose second moments
    stay 0, made about a quarter of the digits MLP's Adam step), and the root of +-0 is +-0
    itself (`adam_finish_roots` takes it from s)."""
    for i in range(s.size):
        x = s[i]
        r[i] = x if x != 0 else 1


def adam_state(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low, smax, first):
    """Adam's state on (views of) flat arrays: exp_avg, exp_avg_sq, max_exp_avg_sq, and the
    decoupled decay of the parameter. smax: amsgrad's maximum is std::max(vmax, v) (the
    fused kernel's scalar loop), else NaN-propagating (torch.maximum, its vector body).
    first: exp_avg_sq * beta2 + (1 - beta2) * g * g fuses the first product (the scalar
    loop's contraction), else the second (addcmul_, the vector body). A loop over
    range(p.size) on views: over range(start, stop) (a possibly negative index) LLVM leaves
    it scalar, and a loop that also finishes the step does not vectorize either (measured on
    9,610 float32 elements: 7.4 us as one loop, 1.6 + 2.8 us in two)."""
    wd, decay, w, omw, beta2, c2 = k[0], k[1], k[2], k[3], k[4], k[5]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        if wd_mode == 1:
            gi = _fma(p[i], wd, gi)
        elif wd_mode == 2:
            p[i] = p[i] * decay
        mi = m[i]
        diff = gi - mi
        if low:
            mi = _fma(diff, w, mi)
        else:
            mi = _fma(-diff, omw, gi)
        m[i] = mi
        if first:
            vi = _fma(v[i], beta2, (c2 * gi) * gi)
        else:
            vi = v[i] * beta2
            vi = _fma(c2 * gi, gi, vi)
        v[i] = vi
        if amsgrad:
            a = vmax[i]
            if smax:
                if a < vi:
                    a = vi
            elif not (a >= vi or a != a):  # the first unless the second is larger or NaN
                a = vi
            vmax[i] = a


def adam_state_plain(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low):
    """`adam_state` for torch's single-tensor and multi-tensor code (smax and first False):
    two flags fewer, and LLVM vectorizes it (9,610 float32 elements: 1.6 us, against 7 us
    with the fused kernel's flags)."""
    wd, decay, w, omw, beta2, c2 = k[0], k[1], k[2], k[3], k[4], k[5]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        if wd_mode == 1:
            gi = _fma(p[i], wd, gi)
        elif wd_mode == 2:
            p[i] = p[i] * decay
        mi = m[i]
        diff = gi - mi
        if low:
            mi = _fma(diff, w, mi)
        else:
            mi = _fma(-diff, omw, gi)
        m[i] = mi
        vi = v[i] * beta2
        vi = _fma(c2 * gi, gi, vi)
        v[i] = vi
        if amsgrad:
            a = vmax[i]
            if not (a >= vi or a != a):  # the first unless the second is larger or NaN
                a = vi
            vmax[i] = a


def adam_finish(p, m, s, k, roots):
    """Adam's parameter update from exp_avg m and the second moment s (its roots with
    `roots`, else np.sqrt's): p + (exp_avg * -step_size) / (sqrt(s) / bc2_sqrt + eps)."""
    bc2, eps, nss = k[6], k[7], k[8]
    for i in range(p.size):
        d = s[i] if roots else np.sqrt(s[i])
        d = d / bc2
        d = d + eps
        p[i] = p[i] + (m[i] * nss) / d


def adam_finish_roots(p, m, s, r, k):
    """`adam_finish` from the roots r of the second moments s (`root_operands`: a zero's
    root is the zero in s)."""
    bc2, eps, nss = k[6], k[7], k[8]
    for i in range(p.size):
        x = s[i]
        d = r[i] if x != 0 else x
        d = d / bc2
        d = d + eps
        p[i] = p[i] + (m[i] * nss) / d


def adam_group(ps, gs, ms, vs, vmaxs, ks, maximize, wd_mode, amsgrad, low, r, root):
    """adam_loop (non-fused) over each parameter of a group in one call: tuples of flat
    arrays (vmaxs: any arrays when not amsgrad) and each parameter's constants ks[j]; the
    same elements in the same order, so the same bits as one adam_loop per parameter.
    r, root: adam_loop's (r of min(largest parameter, ROOT_CHUNK) elements). With VML each
    chunk of ROOT_CHUNK elements runs its state, roots and update in turn (in L1)."""
    for j in range(len(ps)):
        p, g, m, v, vmax, k = ps[j], gs[j], ms[j], vs[j], vmaxs[j], ks[j]
        if not root[0]:
            _adam_state_plain(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low)
            _adam_finish(p, m, vmax if amsgrad else v, k, False)
            continue
        n = p.size
        for lo in range(0, n, ROOT_CHUNK):
            hi = min(lo + ROOT_CHUNK, n)
            pc, mc, vc, xc = p[lo:hi], m[lo:hi], v[lo:hi], vmax[lo:hi]
            _adam_state_plain(pc, g[lo:hi], mc, vc, xc, k, maximize, wd_mode, amsgrad, low)
            sc = xc if amsgrad else vc
            _root_operands(sc, r)
            _vml_call(root[0], hi - lo, r.ctypes.data, r.ctypes.data, root[1])
            _adam_finish_roots(pc, mc, sc, r, k)


def sgd_loop(p, g, buf, k, maximize, l2, mode, nesterov, nv):
    """SGD on flat arrays: torch's _single_tensor_sgd (optim/sgd.py's NumPy path) with
    nv = p.size, its fused CPU kernel with nv = the end of its vectorized part (`fused_split`;
    after it, the scalar loop's momentum update fuses its first product).
    k = (weight_decay, momentum, 1 - dampening, -lr) in the arrays' dtype; mode 0 no
    momentum, 1 the first step (buf starts as the gradient), 2 later steps."""
    _sgd_range(p, g, buf, k, maximize, l2, mode, nesterov, 0, nv, False)
    _sgd_range(p, g, buf, k, maximize, l2, mode, nesterov, nv, p.size, True)


def sgd_group(ps, gs, bufs, k, maximize, l2, mode, nesterov):
    """sgd_loop (non-fused) over each parameter of a group in one call: tuples of flat
    arrays (bufs: any arrays when mode is 0), the same elements in the same order."""
    for j in range(len(ps)):
        p = ps[j]
        _sgd_range(p, gs[j], bufs[j], k, maximize, l2, mode, nesterov, 0, p.size, False)


def sgd_range(p, g, buf, k, maximize, l2, mode, nesterov, start, stop, first):
    """sgd_loop's elements start..stop; first: buf * momentum + g * (1 - dampening) fuses
    the first product, else the second (add_(alpha=), the vector body)."""
    wd, mom, omd, nlr = k[0], k[1], k[2], k[3]
    for i in range(start, stop):
        gi = g[i]
        if maximize:
            gi = -gi
        if l2:
            gi = _fma(p[i], wd, gi)
        if mode != 0:
            if mode == 1:
                b = gi
            elif first:
                b = _fma(buf[i], mom, gi * omd)
            else:
                b = buf[i] * mom
                b = _fma(gi, omd, b)
            buf[i] = b
            if nesterov:
                gi = _fma(b, mom, gi)
            else:
                gi = b
        p[i] = _fma(gi, nlr, p[i])


def adagrad_loop(p, g, acc, k, maximize, l2, r, phase):
    """Adagrad on flat arrays: torch's _single_tensor_adagrad (optim/adagrad.py's NumPy
    path) and its fused CPU kernel alike (both fuse g * g + sum; the fused scalar loop has
    no second product to contract). k = (weight_decay, eps, -clr) in the arrays' dtype.
    r, phase: `split`'s (torch's fused Adagrad takes the correctly rounded root: phase 0)."""
    wd, eps, nclr = k[0], k[1], k[2]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if l2:
            gi = _fma(pi, wd, gi)
        if phase == 2:
            d = r[i] + eps
        else:
            s = _fma(gi, gi, acc[i])
            acc[i] = s
            if phase == 1:
                r[i] = s
                continue
            d = np.sqrt(s) + eps
        p[i] = pi + (gi * nclr) / d


def lerp(start, end, w, omw, low):
    """torch's lerp_vec for one element: start + w * (end - start) fused on the side of 0.5
    where it is accurate (omw = 1 - w in the dtype; low: |weight| < 0.5)."""
    diff = end - start
    if low:
        return _fma(diff, w, start)
    return _fma(-diff, omw, end)


def rmsprop_loop(p, g, sq, ga, buf, k, maximize, l2, centered, momentum, low, r, phase):
    """RMSprop on flat arrays: torch's _single_tensor_rmsprop (optim/rmsprop.py's NumPy
    path). k = (weight_decay, alpha, 1 - alpha, w = 1 - alpha for the lerp, 1 - w, eps,
    momentum, -lr) in the arrays' dtype (ga, buf: any array when unused). r, phase:
    `split`'s."""
    wd, alpha, c, w, omw, eps, mom, nlr = k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if l2:
            gi = _fma(pi, wd, gi)
        if phase == 2:
            avg = r[i]
        else:
            s = sq[i] * alpha
            s = _fma(c * gi, gi, s)
            sq[i] = s
            if centered:
                a = _lerp(ga[i], gi, w, omw, low)
                ga[i] = a
                s = _fma(-a, a, s)  # addcmul(value=-1): (-1 * a) rounded, then fused
            if phase == 1:
                r[i] = s
                continue
            avg = np.sqrt(s)
        avg = avg + eps
        if momentum:
            b = buf[i] * mom
            b = b + gi / avg
            buf[i] = b
            p[i] = _fma(b, nlr, pi)
        else:
            p[i] = pi + (gi * nlr) / avg


def adamax_loop(p, g, m, u, k, maximize, l2, low):
    """Adamax on flat arrays: torch's _single_tensor_adamax (optim/adamax.py's NumPy path).
    k = (weight_decay, w = 1 - beta1, 1 - w, beta2, eps, -clr) in the arrays' dtype."""
    wd, w, omw, beta2, eps, nclr = k[0], k[1], k[2], k[3], k[4], k[5]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if l2:
            gi = _fma(pi, wd, gi)
        mi = _lerp(m[i], gi, w, omw, low)
        m[i] = mi
        a = u[i] * beta2
        b = abs(gi) + eps
        if not (a >= b or a != a):  # np.maximum: NaN-propagating
            a = b
        u[i] = a
        p[i] = pi + (mi * nclr) / a


def moments(p, g, m, v, i, k, maximize, wd_mode, low):
    """The prologue NAdam and RAdam share with Adam for element i: the gradient (maximize, L2
    or decoupled decay: k[0], k[1]), exp_avg's lerp (k[2], k[3]), exp_avg_sq * beta2 +
    (1 - beta2) g^2 (k[4], k[5]); returns (param, grad, exp_avg, exp_avg_sq)."""
    gi = g[i]
    if maximize:
        gi = -gi
    pi = p[i]
    if wd_mode == 1:
        gi = _fma(pi, k[0], gi)
    elif wd_mode == 2:
        pi = pi * k[1]
    mi = _lerp(m[i], gi, k[2], k[3], low)
    m[i] = mi
    vi = v[i] * k[4]
    vi = _fma(k[5] * gi, gi, vi)
    v[i] = vi
    return pi, gi, mi, vi


def again(p, g, m, i, k, maximize, wd_mode):
    """moments' (param, grad, exp_avg) for element i once it ran (`split`'s phase 2): the
    decoupled decay already in p, the state already updated."""
    gi = g[i]
    if maximize:
        gi = -gi
    pi = p[i]
    if wd_mode == 1:
        gi = _fma(pi, k[0], gi)
    return pi, gi, m[i]


def nadam_loop(p, g, m, v, k, maximize, wd_mode, low, foreach, r, phase):
    """NAdam on flat arrays: torch's _single_tensor_nadam, or with `foreach` its
    _multi_tensor_nadam, which divides the root by sqrt(bias_correction2) instead of taking
    the root of the quotient (optim/nadam.py's NumPy path). k = moments' six, then
    bias_correction2 (its root with `foreach`), eps, the gradient's and exp_avg's addcdiv
    values. r, phase: `split`'s."""
    bc2, eps, a1, a2 = k[6], k[7], k[8], k[9]
    for i in range(p.size):
        if phase == 2:
            pi, gi, mi = _again(p, g, m, i, k, maximize, wd_mode)
            root = r[i]
        else:
            pi, gi, mi, vi = _moments(p, g, m, v, i, k, maximize, wd_mode, low)
            x = vi if foreach else vi / bc2
            if phase == 1:
                r[i] = x
                p[i] = pi
                continue
            root = np.sqrt(x)
        if foreach:
            d = root / bc2 + eps
        else:
            d = root + eps
        pi = pi + (gi * a1) / d
        p[i] = pi + (mi * a2) / d


def radam_loop(p, g, m, v, k, maximize, wd_mode, low, rectify, foreach, r, phase):
    """RAdam on flat arrays: torch's _single_tensor_radam, or its _multi_tensor_radam with
    `foreach` (optim/radam.py's NumPy path). k = moments' six, then bias_correction1, lr,
    sqrt(bias_correction2), eps, rect, 1, and the multi-tensor code's two step sizes.
    r, phase: `split`'s."""
    bc1, lr, bc2s, eps, rect, one, size, unrect = k[6], k[7], k[8], k[9], k[10], k[11], k[12], k[13]
    for i in range(p.size):
        if phase == 2:
            pi, gi, mi = _again(p, g, m, i, k, maximize, wd_mode)
            root = r[i]
        else:
            pi, gi, mi, vi = _moments(p, g, m, v, i, k, maximize, wd_mode, low)
            if phase == 1:
                r[i] = vi
                p[i] = pi
                continue
            root = np.sqrt(vi)
        if foreach:
            b = (root + eps) / size
            b = one / b
            p[i] = _fma(mi, b + unrect, pi)
            continue
        u = (mi / bc1) * lr
        if rectify:
            a = one / (root + eps)  # torch's number / tensor: reciprocal() * number
            u = u * (a * bc2s)
            u = u * rect
        p[i] = pi - u


def adadelta_loop(p, g, sq, acc, k, maximize, l2, r, phase):
    """Adadelta on flat arrays: torch's _single_tensor_adadelta (optim/adadelta.py's NumPy
    path). k = (weight_decay, rho, 1 - rho, eps, -lr) in the arrays' dtype. r, phase:
    `split`'s, with two roots an element (r[i], r[n + i])."""
    n = p.size
    wd, rho, c, eps, nlr = k[0], k[1], k[2], k[3], k[4]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if l2:
            gi = _fma(pi, wd, gi)
        a = acc[i]
        if phase == 2:
            d = r[i] / r[n + i]
        else:
            s = sq[i] * rho
            s = _fma(c * gi, gi, s)
            sq[i] = s
            if phase == 1:
                r[i] = a + eps
                r[n + i] = s + eps
                continue
            d = np.sqrt(a + eps) / np.sqrt(s + eps)
        d = d * gi
        a = a * rho
        acc[i] = _fma(c * d, d, a)
        p[i] = _fma(d, nlr, pi)


def fused_split(n, itemsize):
    """(nb, nv) for torch's fused CPU kernels on n elements: the end of the Vectorized body
    (64-byte vectors where torch runs its AVX-512 kernels, else 32), and of the part of the
    scalar loop GCC vectorized with 32-byte vectors in the AVX-512 build (measured: a tail of
    15 float32 values runs 8 vectorized, 7 scalar; none under ATEN_CPU_CAPABILITY=avx2)."""
    from ..ops._sum_kernel import vector_bytes

    vb = vector_bytes()
    body = (vb or 64) // itemsize
    nb = n - n % body
    if vb is not None:
        return nb, nb
    half = 32 // itemsize
    return nb, nb + (n - nb) // half * half


_adam_state, _adam_finish, _sgd_range, _lerp = adam_state, adam_finish, sgd_range, lerp
_adam_state_plain, _adam_root_finish = adam_state_plain, _adam_root_finish_py
_root_operands, _adam_finish_roots = root_operands, adam_finish_roots
_vml_call = None  # (the intrinsic once _build ran)
_moments, _again = moments, again
# (compiled once _build ran)

_NONE = {}  # dtype -> the empty scratch array of phase 0


def split(run, n, dtype, roots=1):
    """Run a step loop as torch's single-tensor and multi-tensor code round: their roots are
    ``Tensor.sqrt`` / ``_foreach_sqrt``, MKL VML's vsSqrt/vdSqrt in High Accuracy mode (not
    correctly rounded: ~0.7 % of values 1 ulp below ``np.sqrt``; `framework.ops._vml`). With
    VML loaded: ``run(r, 1)`` updates the state and writes each root's operand into the
    scratch r (`roots` an element), VML takes the roots in place, ``run(r, 2)`` finishes the
    parameters from them; without VML (or for a fused kernel's caller, which passes phase 0
    itself) ``run(empty, 0)``: one loop, ``np.sqrt``."""
    from ..ops import _vml

    if not _vml.available():
        run(empty(dtype), 0)
        return
    r = np.empty(n * roots, dtype)
    run(r, 1)
    run(sqrt_in_place(r), 2)


def vml():
    """True where MKL's VML is loaded (`split` then runs three phases)."""
    from ..ops import _vml

    return _vml.available()


def roots(dtype, size):
    """(scratch, (address, mode)) for the Adam loops: VML's vsSqrt/vdSqrt called from the
    compiled loop itself (torch's root: see `split`), with a scratch array of
    min(size, ROOT_CHUNK) elements (the loops take the roots a chunk at a time); (an empty
    array, (0, 0)) where VML is not loaded (np.sqrt)."""
    from ..ops import _vml

    a = _vml.address("sqrt", dtype)
    if a is None:
        return empty(dtype), (0, 0)
    return np.empty(min(size, ROOT_CHUNK), dtype), a


def sqrt_in_place(r):
    """r's elements replaced by their roots as torch's optimizers take them (VML's: see
    `split`; a float32/float64 C-contiguous array, VML loaded); returns r."""
    from ..ops import _vml

    return _vml.unary_in_place("sqrt", r)


def empty(dtype):
    """The scratch array of phase 0 (no split: the correctly rounded root in the loop)."""
    e = _NONE.get(dtype)
    if e is None:
        e = _NONE[dtype] = np.empty(0, dtype)
    return e


def _build():
    try:
        import numba  # noqa: F401 (importable with this NumPy: the loops below need it)
    except Exception:  # not importable with this NumPy: the NumPy paths
        return False

    from .._numba_fma import exact_jit, fma, vml_call

    global _fma
    _fma = fma
    from types import SimpleNamespace

    for cache in (True, False):  # no writable cache directory: compile in memory
        try:

            def jit(fn, cache=cache):
                """fn compiled by numba without fastmath (cached on disk if writable)."""
                return exact_jit(fn, cache)

            global _adam_state, _adam_finish, _sgd_range, _lerp, _moments, _again
            global _adam_state_plain, _adam_root_finish, _vml_call
            global _root_operands, _adam_finish_roots
            _vml_call = vml_call
            _root_operands, _adam_finish_roots = jit(root_operands), jit(adam_finish_roots)
            _adam_state, _adam_finish = jit(adam_state), jit(adam_finish)
            _adam_state_plain, _adam_root_finish = jit(adam_state_plain), jit(_adam_root_finish_py)
            _sgd_range, _lerp = jit(sgd_range), jit(lerp)
            _moments, _again = jit(moments), jit(again)
            k = SimpleNamespace(
                adam=jit(adam_loop),
                adam_group=jit(adam_group),
                sgd=jit(sgd_loop),
                sgd_group=jit(sgd_group),
                adagrad=jit(adagrad_loop),
                rmsprop=jit(rmsprop_loop),
                adamax=jit(adamax_loop),
                nadam=jit(nadam_loop),
                radam=jit(radam_loop),
                adadelta=jit(adadelta_loop),
            )
            if _rounds_once(k):
                return k
            return False
        except Exception:  # a numba that cannot compile these loops: the NumPy paths
            continue
    _fma, _adam_state, _adam_finish = _fma_py, adam_state, adam_finish
    _adam_state_plain, _adam_root_finish = adam_state_plain, _adam_root_finish_py
    _root_operands, _adam_finish_roots = root_operands, adam_finish_roots
    _sgd_range, _lerp = sgd_range, lerp
    _moments, _again = moments, again
    return False


def _rounds_once(k):
    """SGD's p + (-lr) * g on (1 + e)^2 - (1 + 2e): e^2 exactly only with one rounding."""
    for t in (np.float32, np.float64):
        e = t(2.0 ** (-12 if t == np.float32 else -27))
        p = np.full(3, -(1 + e + e), t)
        g = np.full(3, 1 + e, t)
        k.sgd(p, g, p, np.array([0, 0, 0, 1 + e], t), False, False, 0, False, 3)
        if not (p == e * e).all():
            return False
    return True
