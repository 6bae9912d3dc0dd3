"""vmap: vectorising map (torch.func.vmap)."""

import functools
import itertools

from ..autograd import op as _op
from ..tensor import Tensor
from . import _batched as B
from . import _pytree
from . import _rules  # noqa: F401  (registers the batching rules)
from . import _rules_nn  # noqa: F401
from . import _rules_more  # noqa: F401
from . import _rules_breadth  # noqa: F401
from . import _rules_grad  # noqa: F401
from . import _rules_select  # noqa: F401
from . import _rules_extras  # noqa: F401

_ids = itertools.count(1)
RANDOMNESS = ("error", "different", "same")


def _name(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorise `func` over a dimension of its inputs: `vmap(f)(xs)` equals
    `torch.stack([f(x) for x in xs])`, computed in one batched call per op.

    Inside `func` every tensor has its per-sample shape. Each op runs once on the whole batch
    through its batching rule (ops without one run per sample, with a one-time warning).

    Args:
        func: a function of tensors (and other values) returning tensors (a pytree of them).
        in_dims (int, None or a pytree matching the inputs): the mapped dim of each input;
            None leaves an input unmapped. Default 0.
        out_dims (int, None or a pytree matching the outputs): where the mapped dim goes in
            each output. Default 0.
        randomness ('error', 'different' or 'same'): what random ops do under vmap: raise,
            draw independently per sample, or draw once for the whole batch. Default 'error'.
        chunk_size (int, optional): run the batch in chunks of this many samples (less
            memory). Default None (one chunk).

    Returns:
        A function taking the same arguments as `func`, returning batched outputs.

    Example:
        >>> x, w = framework.randn(5, 3), framework.randn(3)
        >>> framework.func.vmap(framework.dot, in_dims=(0, None))(x, w).shape
        torch.Size([5])
    """
    if randomness not in RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or "
            f"'same'. Got {randomness}"
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        flat, spec = _pytree.flatten(args)
        dims = _in_dims(func, in_dims, args, flat)
        size = _batch_size(func, in_dims, flat, dims)
        if chunk_size is None or chunk_size >= size:
            return _run(func, args, kwargs, flat, spec, dims, size, out_dims, randomness)
        parts = []
        for start in range(0, size, chunk_size):
            n = min(chunk_size, size - start)
            chunk = [x.narrow(d, start, n) if d is not None else x for x, d in zip(flat, dims)]
            parts.append(_run(func, args, kwargs, chunk, spec, dims, n, out_dims, randomness))
        return _concat(parts, out_dims)

    return wrapped


def _in_dims(func, in_dims, args, flat):
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"{where}: expected `in_dims` to be int or a (potentially nested) tuple "
            f"matching the structure of inputs, got: {type(in_dims)}."
        )
    if isinstance(in_dims, tuple):
        try:
            dims = _pytree.broadcast_prefix(in_dims, args, "")
        except ValueError:
            raise ValueError(
                f"{where}: in_dims is not compatible with the structure of `inputs`."
            ) from None
    else:
        dims = [in_dims] * len(flat)
    for x, d in zip(flat, dims):
        if d is None:
            continue
        if not isinstance(x, Tensor):
            raise ValueError(
                f"{where}: Got in_dim={d} for an input but the input is of type "
                f"{type(x)}. We cannot vmap over non-Tensor arguments, please use "
                "None as the respective in_dim"
            )
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(
                f"{where}: Got in_dim={d} for some input, but that input is a Tensor "
                f"of dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim "
                f"< {n}."
            )
    return [None if d is None else d % x.dim() for x, d in zip(flat, dims)]


def _batch_size(func, in_dims, flat, dims):
    sizes = [x.shape[d] for x, d in zip(flat, dims) if d is not None]
    if not sizes:
        raise ValueError(
            f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one "
            "input must be a Tensor mapped over a dimension (in_dims not None)"
        )
    if len(set(sizes)) > 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped "
            f"dimension, got sizes {sizes} for the mapped dimension"
        )
    return sizes[0]


def _add_level(x, d, lv):
    """x (maybe batched at outer levels) with its logical dim d made the batch dim of lv."""
    nb = len(B.lvls_of(x))
    v = B.physical(x).movedim(nb + d, nb)
    return B.wrap(v, B.lvls_of(x) + (lv,))


def _run(func, args, kwargs, flat, spec, dims, size, out_dims, randomness):
    lv = next(_ids)
    B.levels.append(B.Level(lv, size, randomness))
    _op.vmap_hook[0] += 1
    try:
        inner = [_add_level(x, d, lv) if d is not None else x for x, d in zip(flat, dims)]
        out = func(*_pytree.unflatten(inner, spec), **kwargs)
    finally:
        _op.vmap_hook[0] -= 1
        B.levels.pop()
    return _unwrap(func, out, out_dims, lv, size)


def _unwrap(func, out, out_dims, lv, size):
    leaves, spec = _pytree.flatten(out)
    if isinstance(out_dims, tuple) and isinstance(out, tuple) and len(out_dims) == len(out):
        dims = _pytree.broadcast_prefix(out_dims, out, "")
    elif isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(leaves)
    else:
        try:
            dims = _pytree.broadcast_prefix(out_dims, out, "")
        except ValueError:
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims "
                "is not compatible with the structure of `outputs`."
            ) from None
    res = []
    for o, d in zip(leaves, dims):
        if not isinstance(o, Tensor):
            if d is None:
                res.append(o)
                continue
            raise ValueError(
                f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                f"Tensors, got type {type(o)}. Did you mean to set out_dims= to "
                "None for output?"
            )
        res.append(_take_level(func, o, d, lv, size))
    return _pytree.unflatten(res, spec)


def _take_level(func, o, d, lv, size):
    """Output o with level lv's batch dim moved to logical position d (made if absent)."""
    lvls = B.lvls_of(o)
    if lv not in lvls:
        if d is None:
            return o
        n = o.dim() + 1
        if not -n <= d < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
            )
        return o.unsqueeze(d).expand(*(size if i == d % n else -1 for i in range(n)))
    if d is None:
        raise ValueError(
            f"vmap({_name(func)}, ...): `{_name(func)}` can not return a "
            "BatchedTensor when out_dim is None"
        )
    i = lvls.index(lv)
    rest = lvls[:i] + lvls[i + 1 :]
    n = o.dim() + 1
    if not -n <= d < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
        )
    v = o._value.movedim(i, len(rest) + d % n)
    return B.wrap(v, rest)


def _concat(parts, out_dims):
    from .. import ops

    leaves0, spec = _pytree.flatten(parts[0])
    cols = list(zip(*[_pytree.flatten(p)[0] for p in parts]))
    dims = (
        [out_dims] * len(leaves0)
        if not isinstance(out_dims, tuple)
        else _pytree.broadcast_prefix(out_dims, parts[0], "")
    )
    return _pytree.unflatten(
        [ops.cat(list(c), dim=d) if d is not None else c[0] for c, d in zip(cols, dims)], spec
    )
