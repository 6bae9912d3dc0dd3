"""torch.binomial: torch's CPU sampler (ATen's ``sample_binomial``): inversion by geometric
waiting times when ``n * min(p, 1 - p) < 10``, else Hormann's BTRS transformed rejection,
element by element in memory order, each uniform a 53-bit double of the generator (torch's
``uniform_real_distribution<double>``), so a seed gives torch's samples."""

import math

import numpy as np

from .tensor import Tensor

_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _stirling_tail(k):
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


class _Uniforms:
    """53-bit uniform doubles from a generator, drawn in blocks as the sampler asks."""

    def __init__(self, gen):
        self.gen = gen

    def sample(self):
        w = int(self.gen._random64(1)[0])
        return (w & ((1 << 53) - 1)) * 2.0**-53


def _inversion(count, prob, u, s):
    """ATen's binomial_inversion (s: the scalar type, float32 or float64)."""
    logprob = float(np.log1p(s(-prob)))
    geom_sum, num_geom = 0.0, 0
    while True:
        geom = math.ceil(math.log(u.sample()) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(count, prob, u, s):
    """ATen's btrs (its scalar_t arithmetic in `s`, its accscalar_t in Python floats)."""
    count, prob = s(count), s(prob)
    stddev = float(np.sqrt(count * prob * (s(1) - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (s(1) - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float((count + s(1)) * prob))
    n = float(count)
    while True:
        U = u.sample() - 0.5
        V = u.sample()
        us = 0.5 - abs(U)
        k = float(s(math.floor((2 * a / us + b) * U + c)))
        if k < 0 or k > n:
            continue
        if us >= 0.07 and V <= v_r:
            return k
        V = math.log(V * alpha / (a / (us * us) + b))
        nk1 = float(count - s(k) + s(1))
        upperbound = (
            (m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
            + float(count + s(1)) * math.log((n - m + 1) / nk1)
            + (k + 0.5) * math.log(r * nk1 / float(s(k) + s(1)))
            + _stirling_tail(m)
            + _stirling_tail(n - m)
            - _stirling_tail(k)
            - _stirling_tail(float(count - s(k)))
        )
        if V <= upperbound:
            return k


def _sample(count, prob, u, s):
    """ATen's sample_binomial for one element."""
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if float(s(count) * s(prob)) >= 10.0:
            return _btrs(count, prob, u, s)
        return _inversion(count, prob, u, s)
    if prob > 0.5:
        q = float(s(1) - s(prob))
        if float(s(count) * s(q)) >= 10.0:
            return float(s(count) - s(_btrs(count, q, u, s)))
        return float(s(count) - s(_inversion(count, q, u, s)))
    return math.nan


def binomial(count, prob, generator=None):
    """Samples from Binomial(``count``, ``prob``) elementwise with torch's CPU algorithm and
    draws (the same samples from the same seed). Not differentiable.

    Args:
        count (Tensor): the numbers of trials (floating point).
        prob (Tensor): the success probabilities, of ``count``'s shape and dtype.
        generator (framework.Generator, optional): the random stream. Default: the global one.

    Example:
        >>> _ = framework.manual_seed(0)
        >>> framework.binomial(framework.tensor([10.0, 100.0]), framework.tensor([0.5, 0.2]))
        tensor([ 7., 21.])
    """
    from .random import _generator_for

    from .dtypes import scalar_type_name

    if count._data.dtype.kind != "f":
        raise ValueError(
            "binomial only supports floating-point dtypes for count, got: "
            f"{scalar_type_name(count._data.dtype)}"
        )
    if prob._data.dtype != count._data.dtype:
        raise RuntimeError(
            f"Found dtype {scalar_type_name(prob._data.dtype)} but expected "
            f"{scalar_type_name(count._data.dtype)}"
        )
    shape = _broadcast(tuple(count.shape), tuple(prob.shape))
    to_np = (lambda a: a) if count.xp is np else count.xp.asnumpy
    c = np.broadcast_to(to_np(count._data), shape).reshape(-1)
    p = np.broadcast_to(to_np(prob._data), shape).reshape(-1)
    s = c.dtype.type
    u = _Uniforms(_generator_for(generator, count.device))
    out = np.array([_sample(float(n), float(q), u, s) for n, q in zip(c, p)], dtype=c.dtype)
    out = count.xp.asarray(out.reshape(shape))
    if count.requires_grad or prob.requires_grad:
        from .ops.elementwise import NotImplementedBackward

        return NotImplementedBackward.apply(count, prob, fn=lambda xp, a, b: out, aten="binomial")
    return Tensor._make(out, count._device)


def _broadcast(a, b):
    """The broadcast shape, or torch's error naming the first dimension that differs."""
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and 1 not in (pa[i], pb[i]):
            raise RuntimeError(
                f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                f"non-singleton dimension {i}"
            )
    return tuple(max(x, y) for x, y in zip(pa, pb))


__all__ = ["binomial"]
