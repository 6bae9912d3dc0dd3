"""Sampling from tensors of parameters: multinomial, bernoulli, normal, poisson.

Numbers are drawn on the CPU from the global stream (or a Generator) and moved, as the
factory functions do; they are not torch's exact streams.
"""
import numpy as _np

from .. import backend, dtypes
from ..backend import move
from ..tensor import Tensor


def _rng(generator):
    return generator.rng if generator is not None else backend.rng()


def _host(t):
    return backend.to_numpy(t._data)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Draw `num_samples` category indices per row, with probabilities proportional to input.

    Args:
        input: non-negative weights, 1-D (categories) or 2-D (rows, categories).
        num_samples: how many indices to draw per row.
        replacement: draw with replacement (else each index at most once).
        generator: a Generator to draw from (default: the global stream).

    Returns:
        int64 tensor of shape (num_samples,) or (rows, num_samples).

    Example:
        >>> framework.manual_seed(0)
        >>> framework.multinomial(framework.tensor([0., 1.]), 2, replacement=True)
        tensor([1, 1])
    """
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_type_word(input.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    p = _host(input).astype(_np.float64).reshape(-1, input.shape[-1])
    n = p.shape[1]
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not _np.isfinite(p).all() or (p < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    total = p.sum(axis=1, keepdims=True)
    if (total <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    if replacement:  # inverse CDF
        cdf = _np.cumsum(p / total, axis=1)
        u = rng.random((p.shape[0], num_samples))
        out = _np.stack([_np.searchsorted(c, r, side="right") for c, r in zip(cdf, u)])
        out = _np.minimum(out, n - 1)
    else:  # exponential race: the first arrivals of Exp(p_i) clocks, a draw without replacement
        with _np.errstate(divide="ignore"):
            keys = rng.standard_exponential(p.shape) / p
        out = _np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    out = out.astype(_np.int64)
    if input.dim() == 1:
        out = out[0]
    return Tensor._make(move(out, input.device), input.device)


def _type_word(dt):
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "uint8": "Byte"}.get(dt.name,
                                                                                 dt.name)


def bernoulli(input, p=None, *, generator=None):
    """0/1 draws with probability `input` (or the number `p`), in input's dtype.

    Example:
        >>> framework.bernoulli(framework.tensor([0., 1.]))
        tensor([0., 1.])
    """
    probs = _host(input) if p is None else _np.full(input.shape, p)
    if ((probs < 0) | (probs > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    u = _rng(generator).random(input.shape)
    out = (u < probs).astype(input._data.dtype)
    return Tensor._make(move(out, input.device), input.device)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Normal draws: tensor mean and/or std broadcast, or numbers with an explicit size.

    Example:
        >>> framework.normal(0.0, 1.0, size=(2,)).shape
        torch.Size([2])
    """
    rng = _rng(generator)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments")
        from ..creation import _finish, _np_dtype
        dt = _np_dtype(dtype) or dtypes.get_default_dtype().np
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        arr = (rng.standard_normal(tuple(size)) * std + mean).astype(dt)
        return _finish(arr, device, requires_grad)
    ref = mean if isinstance(mean, Tensor) else std
    m = _host(mean) if isinstance(mean, Tensor) else mean
    s = _host(std) if isinstance(std, Tensor) else std
    if _np.any(_np.asarray(s) < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    shape = _np.broadcast_shapes(_np.shape(m), _np.shape(s))
    out = (rng.standard_normal(shape) * s + m).astype(ref._data.dtype)
    return Tensor._make(move(out, ref.device), ref.device)


def poisson(input, generator=None):
    """Poisson draws with rates `input`, in input's dtype."""
    out = _rng(generator).poisson(_host(input)).astype(input._data.dtype)
    return Tensor._make(move(out, input.device), input.device)


__all__ = ["multinomial", "bernoulli", "normal", "poisson"]
