"""Random tensors: rand, randn, randint, randperm, normal, bernoulli, multinomial, the *_like
factories and the in-place samplers (uniform_, normal_, random_, exponential_, ...).

Every function draws from a :class:`framework.random.Generator` (the default one unless
``generator=`` is given) on the CPU, exactly as torch 2.13's CPU kernels draw, and then moves
the result to the tensor's device: one seed, the same numbers on every device.
"""

import warnings

import numpy as np

from . import _distributions as D, dtypes
from .backend import move, to_numpy
from ._memory_format import in_memory_order, preserved_empty
from .random import _generator_for
from .tensor import Tensor, _write
from .autograd.op import vmap_hook as _vmap


def _float_only(dt, what):
    if not D.is_float(dt):
        raise NotImplementedError(f'"{what}" not implemented for \'{dtypes.scalar_type_name(dt)}\'')


def _fill(t, draw, what=None, generator=None):
    """Fill tensor ``t`` in place with ``draw(gen, n, dtype, contiguous)``, generated in the
    order of t's memory (torch's TensorIterator order) and moved to t's device."""
    if _vmap[0]:  # under vmap: randomness='error' raises, 'different' draws per sample
        from .func._paths import random_target

        target = random_target(t)
        if target is not None:
            _fill_array(target[0], draw, what, generator)
            return target[1]
    return _fill_array(t, draw, what, generator)


def _fill_array(t, draw, what, generator):
    arr = t._data
    if what is not None:
        _float_only(arr.dtype, what)
    gen = _generator_for(generator, t.device)
    contiguous = bool(arr.flags.c_contiguous)
    if contiguous or arr.ndim < 2:
        vals = np.asarray(draw(gen, arr.size, arr.dtype, contiguous)).reshape(arr.shape)
    else:  # lay the values out along the strides, outermost (largest stride) first
        perm = sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d]))
        vals = np.asarray(draw(gen, arr.size, arr.dtype, False))
        vals = vals.reshape([arr.shape[d] for d in perm]).transpose(np.argsort(perm))
    vals = move(np.asarray(vals, dtype=arr.dtype), t.device)
    if t.requires_grad:  # torch's leaf-in-place error, or a node for a non-leaf
        return t.copy_(Tensor._make(vals, t.device))
    _write(t, vals)
    return t


# ----- in-place samplers (Tensor methods) ---------------------------------------------------
def uniform_(t, a=0.0, b=1.0, *, generator=None):
    """Fill with U(a, b): 24 (float32) or 53 (float64) random bits, ``u * (b - a) + a``."""
    a, b = float(a), float(b)
    dt = t._data.dtype
    if D.is_float(dt):
        top = _max_of(dt)
        name = dtypes.cpp_type_name(dt)
        for v, what in ((a, "from"), (b, "to")):
            if not -top <= v <= top:
                raise RuntimeError(f"{what} is out of bounds for {name}")
        if b - a > top:
            raise RuntimeError(
                f"uniform_ expects to-from <= std::numeric_limits<"
                f"{dtypes.scalar_type_name(dt)}>::max(), but found to={b:g} and from={a:g} "
                "which result in to-from to exceed the limit"
            )
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found "
            f"from={_fmt(a)} > to={_fmt(b)}"
        )
    return _fill(
        t, lambda g, n, dt, c: D.uniform(g, n, dt, a, b), "check_uniform_bounds", generator
    )


def normal_(t, mean=0.0, std=1.0, *, generator=None):
    """Fill with N(mean, std**2), by torch's algorithm for this size and dtype."""
    mean, std = float(mean), float(std)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    return _fill(
        t, lambda g, n, dt, c: D.normal(g, n, dt, mean, std, c), "normal_kernel_cpu", generator
    )


def exponential_(t, lambd=1.0, *, generator=None):
    """Fill with Exp(lambd): ``-1 / lambd * log1p(-u)`` from a 53-bit uniform."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    return _fill(
        t, lambda g, n, dt, c: D.exponential(g, n, float(lambd)), "exponential_cpu", generator
    )


def geometric_(t, p, *, generator=None):
    """Fill with Geometric(p): ``ceil(log(u) / log1p(-p))``."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    return _fill(t, lambda g, n, dt, c: D.geometric(g, n, float(p)), None, generator)


def cauchy_(t, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy(median, sigma)."""
    return _fill(
        t, lambda g, n, dt, c: D.cauchy(g, n, float(median), float(sigma)), "cauchy_cpu", generator
    )


def log_normal_(t, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp(N(mean, std**2))."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    return _fill(
        t,
        lambda g, n, dt, c: D.log_normal(g, n, float(mean), float(std)),
        "log_normal_cpu",
        generator,
    )


_NO_TO = object()


def random_(t, from_=None, to=_NO_TO, *, generator=None):
    """random_(), random_(to), random_(from, to) or random_(from, None): integers drawn as
    torch draws them ([0, max of the dtype] by default; floats up to 2**mantissa digits)."""
    dt = t._data.dtype
    if to is _NO_TO:
        from_, to = (None, None) if from_ is None else (0, from_)  # random_() / random_(to)
    if from_ is None:
        return _fill(t, lambda g, n, d, c: D.random_default(g, n, d), None, generator)
    from_ = int(from_)
    if to is None:
        if from_ == -(2**63):
            return _fill(t, lambda g, n, d, c: D.random_full64(g, n, d), None, generator)
        to_inc = (
            2 ** D._DIGITS[dt.name]
            if D.is_float(dt)
            else (1 if dt == np.bool_ else int(np.iinfo(dt).max))
        )
        span = to_inc - from_ + 1
        _check_range(from_, to_inc, dt)
    else:
        to = int(to)
        if from_ >= to:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
            )
        span = to - from_
        _check_range(from_, to - 1, dt)
    return _fill(t, lambda g, n, d, c: D.random_from_to(g, n, from_, span, d), None, generator)


def _check_range(lo, hi, dt):
    if D.is_float(dt):
        digits = D._DIGITS[dt.name]
        name = {"float16": "Half", "bfloat16": "BFloat16", "float32": "float", "float64": "double"}[
            dt.name
        ]
        for v, what in ((lo, "from"), (hi, "to - 1")):
            if not -(2**digits) <= v <= 2**digits:
                warnings.warn(
                    f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                    f"precision limitations {name} can support discrete uniform "
                    "distribution only within this range. This warning will become "
                    "an error in version 1.7 release, please fix the code in advance"
                )
    if dt.kind in "iub":
        info = (0, 1) if dt == np.bool_ else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
        name = dtypes.cpp_type_name(dt)
        if not info[0] <= lo <= info[1]:
            raise RuntimeError(f"from is out of bounds for {name}")
        if not info[0] <= hi <= info[1]:
            raise RuntimeError(f"to - 1 is out of bounds for {name}")


def bernoulli_(t, p=0.5, *, generator=None):
    """Fill with 0/1: ``u < p`` with a 53-bit uniform per element (p a number), or with a
    uniform of p's precision per element (p a tensor, broadcast to t)."""
    if isinstance(p, Tensor):
        parr = np.broadcast_to(to_numpy(p._data), t._data.shape)
        _float_only(parr.dtype, "bernoulli_tensor_cpu_p_")
        return _fill(
            t, lambda g, n, d, c: D.bernoulli_tensor(g, np.ascontiguousarray(parr)), None, generator
        )
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    return _fill(t, lambda g, n, d, c: D.bernoulli_scalar(g, n, float(p)), None, generator)


def _max_of(dt):
    """The largest finite value of a floating dtype (bfloat16: 3.39e38)."""
    return 3.3895313892515355e38 if dt.name == "bfloat16" else float(np.finfo(dt).max)


def _fmt(v):
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)


# ----- factories ---------------------------------------------------------------------------
def _empty(size, dtype, device, default=None):
    from .creation import _np_dtype, empty

    dt = dtype or default or dtypes.get_default_dtype()
    _np_dtype(dt)
    return empty(size, dtype=dt, device=device)


def _done(t, requires_grad=False):
    """A factory's result: filled below autograd, so version 0 as in torch."""
    t._vc[0] = 0
    if requires_grad:
        t.requires_grad_(True)
    return t


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples on [0, 1) (torch's numbers for the same seed).

    Args:
        *size (int...): a sequence of integers defining the shape of the output tensor.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example::

        >>> _ = framework.manual_seed(0); framework.rand(2)
        tensor([0.4963, 0.7682])
    """
    from .creation import _need_size

    t = _empty(_need_size(size, "rand"), dtype, device)
    return _done(uniform_(t, generator=generator), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples (torch's numbers for the same seed).

    Args:
        *size (int...): a sequence of integers defining the shape of the output tensor.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example::

        >>> _ = framework.manual_seed(0); framework.randn(2)
        tensor([ 1.5410, -0.2934])
    """
    from .creation import _need_size

    t = _empty(_need_size(size, "randn"), dtype, device)
    return _done(normal_(t, generator=generator), requires_grad)


def randint(
    low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False
):
    """Integers in [low, high): randint(high, size) or randint(low, high, size).

    Args:
        low (int, optional): the lowest integer drawn. Default: ``0``.
        high (int): one above the highest integer drawn.
        size (tuple of ints): the shape of the output.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.randint(3, 5, (4,)).shape
        torch.Size([4])
        >>> x = framework.randint(3, 5, (100,))
        >>> bool(((x >= 3) & (x < 5)).all())
        True
    """
    from .creation import _size

    if size is None and (isinstance(high, (tuple, list)) or hasattr(high, "__len__")):
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    t = _empty(_size((size,), "randint"), dtype, device, dtypes.int64)
    t = random_(t, int(low), int(high), generator=generator)
    return _done(t, requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0..n-1 (torch's forward Fisher-Yates).

    Args:
        n (int): the upper bound (exclusive).
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.randperm(5).sort().values
        tensor([0, 1, 2, 3, 4])
    """
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    from .creation import _finish, _np_dtype

    gen = _generator_for(generator, device)
    dt = _np_dtype(dtype or dtypes.int64)
    return _finish(D.randperm(gen, int(n)).astype(dt), device, requires_grad)


def _strided_like(input, dtype, device, memory_format, kinds="fV"):
    """torch's ``rand_like``/``randn_like``/``randint_like`` are ``empty_like(input)`` filled
    in place: for an input laid out otherwise than C-contiguous (transposed, permuted), the
    empty tensor in its layout (the in-place fill then draws in memory order); else None (the
    contiguous factories give the same numbers, and their dtype checks and messages)."""
    from .creation import _like_array, _np_dtype

    dt = _np_dtype(dtype) if dtype is not None else input._data.dtype
    if dt.kind not in kinds:
        return None
    arr = _like_array(input, dtype or input.dtype, device, memory_format)
    if arr is None:
        return None
    return Tensor._make(arr, input.device if device is None else device)


def _finish_like(t, requires_grad):
    if requires_grad:
        from .creation import _factory_requires_grad

        _factory_requires_grad(t)
    return t


def rand_like(
    input, *, dtype=None, device=None, requires_grad=False, generator=None, memory_format=None
):
    r"""Returns a tensor of the size of ``input`` with numbers from :math:`\mathcal{U}[0, 1)`.

    Args:
        input (Tensor): the input tensor.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.
        memory_format (:class:`framework.memory_format`, optional): the layout of the result.
            Default: ``framework.preserve_format`` (a transposed or permuted input's layout,
            filled in memory order as torch).

    Example:
        >>> framework.rand_like(framework.zeros(2, 3)).shape
        torch.Size([2, 3])
    """
    out = _strided_like(input, dtype, device, memory_format)
    if out is not None:  # torch: empty_like(input).uniform_(), filled in memory order
        return _finish_like(out.uniform_(0, 1, generator=generator), requires_grad)
    return rand(
        input.shape,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
        generator=generator,
    )


def randn_like(
    input, *, dtype=None, device=None, requires_grad=False, generator=None, memory_format=None
):
    r"""Returns a tensor of the size of ``input`` with numbers from :math:`\mathcal{N}(0, 1)`.

    Args:
        input (Tensor): the input tensor.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.
        memory_format (:class:`framework.memory_format`, optional): the layout of the result.
            Default: ``framework.preserve_format`` (a transposed or permuted input's layout,
            filled in memory order as torch).

    Example:
        >>> framework.randn_like(framework.zeros(2, 3)).shape
        torch.Size([2, 3])
    """
    out = _strided_like(input, dtype, device, memory_format)
    if out is not None:  # torch: empty_like(input).normal_(), filled in memory order
        return _finish_like(out.normal_(0, 1, generator=generator), requires_grad)
    return randn(
        input.shape,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
        generator=generator,
    )


def randint_like(
    input,
    low=0,
    high=None,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    generator=None,
    memory_format=None,
):
    """Returns a tensor of the size of ``input`` with integers from ``[low, high)``.

    Args:
        input (Tensor): the input tensor.
        low (int, optional): the lowest integer drawn. Default: ``0``.
        high (int): one above the highest integer drawn.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.
        memory_format (:class:`framework.memory_format`, optional): the layout of the result.
            Default: ``framework.preserve_format`` (a transposed or permuted input's layout,
            filled in memory order as torch).

    Example:
        >>> framework.randint_like(framework.zeros(2, 3), 5).shape
        torch.Size([2, 3])
    """
    if high is None:
        low, high = 0, low
    out = _strided_like(input, dtype, device, memory_format, kinds="fViu")
    if out is not None:  # torch: empty_like(input).random_(low, high), in memory order
        return _finish_like(out.random_(low, high, generator=generator), requires_grad)
    return randint(
        low,
        high,
        input.shape,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
        generator=generator,
    )


def normal(
    mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False
):
    """normal(mean, std) with tensor or number mean/std, or normal(mean, std, size).

    As torch: standard normals for the output's shape, then ``* std`` and ``+ mean``.

    Args:
        mean (Tensor or float): the mean(s) of the distribution.
        std (Tensor or float, optional): the standard deviation(s). Default: ``1.0``.
        size (tuple of ints, optional): the output's shape when ``mean`` and ``std`` are numbers.
            Default: ``None``.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.normal(framework.tensor([0.0, 100.0]), 1e-6).round()
        tensor([  0., 100.])
    """
    from .creation import tensor as _tensor

    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments")
        return _done(
            normal_(_empty(size, dtype, device), mean, std, generator=generator), requires_grad
        )
    if st and (to_numpy(std._data) < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    ref = mean if mt else std
    shape = np.broadcast_shapes(mean.shape, std.shape) if mt and st else ref.shape
    from .autograd.grad_mode import no_grad

    with no_grad():
        out = _empty(tuple(shape), ref.dtype, ref.device)
        if mt and not st:
            return _done(normal_(out, 0.0, std, generator=generator).add_(mean))
        normal_(out, generator=generator).mul_(std)
        return _done(out.add_(mean if mt else _tensor(mean, dtype=out.dtype, device=out.device)))


def bernoulli(input, p=None, *, generator=None):
    """0/1 samples with probabilities ``input`` (or the number ``p``), in input's dtype.

    Args:
        input (Tensor): the probabilities of drawing 1, in ``[0, 1]``.
        p (float, optional): one probability for every element, used instead of ``input``'s values.
            Default: ``None``.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.

    Example:
        >>> framework.bernoulli(framework.tensor([0.0, 1.0, 1.0]))
        tensor([0., 1., 1.])
    """
    from ._memory_format import contiguous_format
    from .creation import empty_like

    out = empty_like(input, memory_format=contiguous_format)  # torch's LEGACY_CONTIGUOUS
    return _done(bernoulli_(out, input if p is None else p, generator=generator))


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices sampled from the rows of ``input`` (non-negative weights).

    Args:
        input (Tensor): non-negative weights, one row ``(k,)`` or a batch ``(n, k)``.
        num_samples (int): the number of samples to draw per row.
        replacement (bool, optional): draw with replacement. Default: ``False``.
        generator (:class:`framework.Generator`, optional): a pseudorandom number generator for
            sampling. Default: the global generator.

    Example:
        >>> framework.multinomial(framework.tensor([0.0, 1.0, 0.0]), 2, replacement=True)
        tensor([1, 1])
    """
    from .creation import _finish

    probs = to_numpy(input._data)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    _float_only(probs.dtype, "multinomial")
    n_cat = probs.shape[-1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n_cat:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if n_cat > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    gen = _generator_for(generator, input.device)
    if not replacement or num_samples == 1:
        if not (np.isfinite(probs).all() and (probs >= 0).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (probs.reshape(-1, n_cat).sum(-1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        # torch: empty_like(probs).exponential_(1), so drawn in probs' memory order
        q = preserved_empty(np, probs, probs.dtype)
        view = in_memory_order(q)
        view[...] = D.exponential(gen, probs.size, 1.0).astype(probs.dtype).reshape(view.shape)
        score = probs / q  # torch's Gumbel trick: argmax / top-k of p / Exp(1)
        idx = np.argsort(-score, axis=-1, kind="stable")[..., :num_samples]
    else:
        if not np.isfinite(probs).all():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (probs < 0).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (probs.reshape(-1, n_cat).sum(-1) <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        idx = D.multinomial_with_replacement(gen, probs, num_samples)
    return _finish(idx.astype(np.int64), input.device, False)


__all__ = [
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "normal",
    "bernoulli",
    "multinomial",
]
