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


def adam_loop(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low, nb, nv):
    """Adam on flat arrays: torch's _single_tensor_adam (optim/adam.py's NumPy path) with
    nb = nv = p.size, its fused CPU kernel (``fused=True``) with nb, nv = the ends of its
    vectorized body and of the compiler's vectorized part of the scalar loop (`fused_split`).
    k = (weight_decay, 1 - lr * weight_decay, w = 1 - beta1, 1 - w, beta2, 1 - beta2,
    bias_correction2_sqrt, eps, -step_size) in the arrays' dtype; wd_mode 0 none, 1 L2
    (grad.add(param, alpha=wd)), 2 decoupled (param.mul_); low: |w| < 0.5 (lerp's side)."""
    n = p.size
    _adam_range(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low, 0, nb, False, False)
    _adam_range(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low, nb, nv, True, False)
    _adam_range(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low, nv, n, True, True)


def adam_range(p, g, m, v, vmax, k, maximize, wd_mode, amsgrad, low, start, stop, smax, first):
    """adam_loop's elements start..stop. smax: amsgrad's maximum is std::max(vmax, v) (the
    fused kernel's scalar loop), else NaN-propagating (torch.maximum, its vector body).
    first: exp_avg_sq * beta2 + (1 - beta2) * g * g fuses the first product (the scalar
    loop's contraction), else the second (addcmul_, the vector body)."""
    wd, decay, w, omw, beta2, c2, bc2, eps, nss = (
        k[0],
        k[1],
        k[2],
        k[3],
        k[4],
        k[5],
        k[6],
        k[7],
        k[8],
    )
    for i in range(start, stop):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if wd_mode == 1:
            gi = _fma(pi, wd, gi)
        elif wd_mode == 2:
            pi = pi * decay
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
            vi = a
        d = np.sqrt(vi) / bc2
        d = d + eps
        p[i] = pi + (mi * nss) / d


def adam_group(ps, gs, ms, vs, vmaxs, ks, maximize, wd_mode, amsgrad, low):
    """adam_loop (non-fused) over each parameter of a group in one call: tuples of flat
    arrays (vmaxs: any arrays when not amsgrad) and each parameter's constants ks[j]; the
    same elements in the same order, so the same bits as one adam_loop per parameter."""
    for j in range(len(ps)):
        p = ps[j]
        n = p.size
        _adam_range(
            p,
            gs[j],
            ms[j],
            vs[j],
            vmaxs[j],
            ks[j],
            maximize,
            wd_mode,
            amsgrad,
            low,
            0,
            n,
            False,
            False,
        )


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


def adagrad_loop(p, g, acc, k, maximize, l2):
    """Adagrad on flat arrays: torch's _single_tensor_adagrad (optim/adagrad.py's NumPy
    path) and its fused CPU kernel alike (both fuse g * g + sum; the fused scalar loop has
    no second product to contract). k = (weight_decay, eps, -clr) in the arrays' dtype."""
    wd, eps, nclr = k[0], k[1], k[2]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if l2:
            gi = _fma(pi, wd, gi)
        s = _fma(gi, gi, acc[i])
        acc[i] = s
        d = np.sqrt(s) + eps
        p[i] = pi + (gi * nclr) / d


def lerp(start, end, w, omw, low):
    """torch's lerp_vec for one element: start + w * (end - start) fused on the side of 0.5
    where it is accurate (omw = 1 - w in the dtype; low: |weight| < 0.5)."""
    diff = end - start
    if low:
        return _fma(diff, w, start)
    return _fma(-diff, omw, end)


def rmsprop_loop(p, g, sq, ga, buf, k, maximize, l2, centered, momentum, low):
    """RMSprop on flat arrays: torch's _single_tensor_rmsprop (optim/rmsprop.py's NumPy
    path). k = (weight_decay, alpha, 1 - alpha, w = 1 - alpha for the lerp, 1 - w, eps,
    momentum, -lr) in the arrays' dtype (ga, buf: any array when unused)."""
    wd, alpha, c, w, omw, eps, mom, nlr = k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if l2:
            gi = _fma(pi, wd, gi)
        s = sq[i] * alpha
        s = _fma(c * gi, gi, s)
        sq[i] = s
        if centered:
            a = _lerp(ga[i], gi, w, omw, low)
            ga[i] = a
            avg = np.sqrt(_fma(-a, a, s))  # addcmul(value=-1): (-1 * a) rounded, then fused
        else:
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


def nadam_loop(p, g, m, v, k, maximize, wd_mode, low, foreach):
    """NAdam on flat arrays: torch's _single_tensor_nadam, or with `foreach` its
    _multi_tensor_nadam, which divides the root by sqrt(bias_correction2) instead of taking
    the root of the quotient (optim/nadam.py's NumPy path). k = moments' six, then
    bias_correction2 (its root with `foreach`), eps, the gradient's and exp_avg's addcdiv
    values."""
    bc2, eps, a1, a2 = k[6], k[7], k[8], k[9]
    for i in range(p.size):
        pi, gi, mi, vi = _moments(p, g, m, v, i, k, maximize, wd_mode, low)
        if foreach:
            d = np.sqrt(vi) / bc2 + eps
        else:
            d = np.sqrt(vi / bc2) + eps
        pi = pi + (gi * a1) / d
        p[i] = pi + (mi * a2) / d


def radam_loop(p, g, m, v, k, maximize, wd_mode, low, rectify, foreach):
    """RAdam on flat arrays: torch's _single_tensor_radam, or its _multi_tensor_radam with
    `foreach` (optim/radam.py's NumPy path). k = moments' six, then bias_correction1, lr,
    sqrt(bias_correction2), eps, rect, 1, and the multi-tensor code's two step sizes."""
    bc1, lr, bc2s, eps, rect, one, size, unrect = k[6], k[7], k[8], k[9], k[10], k[11], k[12], k[13]
    for i in range(p.size):
        pi, gi, mi, vi = _moments(p, g, m, v, i, k, maximize, wd_mode, low)
        if foreach:
            b = (np.sqrt(vi) + eps) / size
            b = one / b
            p[i] = _fma(mi, b + unrect, pi)
            continue
        u = (mi / bc1) * lr
        if rectify:
            a = one / (np.sqrt(vi) + eps)  # torch's number / tensor: reciprocal() * number
            u = u * (a * bc2s)
            u = u * rect
        p[i] = pi - u


def adadelta_loop(p, g, sq, acc, k, maximize, l2):
    """Adadelta on flat arrays: torch's _single_tensor_adadelta (optim/adadelta.py's NumPy
    path). k = (weight_decay, rho, 1 - rho, eps, -lr) in the arrays' dtype."""
    wd, rho, c, eps, nlr = k[0], k[1], k[2], k[3], k[4]
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if l2:
            gi = _fma(pi, wd, gi)
        s = sq[i] * rho
        s = _fma(c * gi, gi, s)
        sq[i] = s
        a = acc[i]
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


_adam_range, _sgd_range, _lerp, _moments = adam_range, sgd_range, lerp, moments  # compiled
#                                                                       once _build ran


def _build():
    try:
        import numba  # noqa: F401 (importable with this NumPy: the loops below need it)
    except Exception:  # not importable with this NumPy: the NumPy paths
        return False

    from .._numba_fma import exact_jit, fma

    global _fma
    _fma = fma
    from types import SimpleNamespace

    for cache in (True, False):  # no writable cache directory: compile in memory
        try:

            def jit(fn, cache=cache):
                """fn compiled by numba without fastmath (cached on disk if writable)."""
                return exact_jit(fn, cache)

            global _adam_range, _sgd_range, _lerp, _moments
            _adam_range, _sgd_range, _lerp = jit(adam_range), jit(sgd_range), jit(lerp)
            _moments = jit(moments)
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
    _fma, _adam_range, _sgd_range, _lerp, _moments = _fma_py, adam_range, sgd_range, lerp, moments
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
