"""Batching rules for the ops that ran per sample under vmap: dist (its norm taken over
the logical dims only), forward AD's ZeroLink (Hessians through leaky_relu-style ops and
scalar products), and renorm and index_reduce, whose sample batch is folded into the
dimension they index (sample k's slice i becomes slice k * size + i), so the op runs once.

torch itself loops over renorm and index_reduce (its performance warning) and decomposes dist
into norm(input - other); ours keep the op's own node and backward on the physical tensors.
"""

import math

from ..tensor import Tensor
from ._batched import aligned, register, size_of, union, wrap
from ._rules import ldim, op_classes


def _batch(lvls):
    return tuple(size_of(lv) for lv in lvls)


def dist(cls, args, params):
    """dist(a, b, p): the difference broadcast over the batch dims, its p-norm over the
    logical dims alone."""
    lvls = union(args)
    nd = max(ldim(a) for a in args[:2])
    a, b = (aligned(t, lvls, nd) for t in args[:2])
    nb = len(lvls)
    return wrap(cls.apply(a, b, **params, dim=tuple(range(nb, nb + nd))), lvls)


def _fold(v, n, d):
    """(n, *shape) -> shape with dim d holding the n samples' slices one after another."""
    shape = tuple(v.shape[1:])
    return v.movedim(0, d).reshape(shape[:d] + (n * shape[d],) + shape[d + 1 :])


def _unfold(v, n, d, lvls, bs):
    """_fold's inverse, the samples' batch dims back in front."""
    shape = tuple(v.shape)
    size = shape[d] // n if n else 0
    v = v.reshape(shape[:d] + (n, size) + shape[d + 1 :]).movedim(d, 0)
    return wrap(v.reshape(bs + tuple(v.shape[1:])), lvls)


def _flat(t, lvls, n, shape):
    """t's physical tensor with every level, its batch dims flattened into one."""
    return aligned(t, lvls, expand=True).reshape((n,) + shape)


def renorm(cls, args, params):
    """renorm(x, p, dim, maxnorm): each sample's slices along dim are slices of one tensor
    (the batch folded into dim); the norms are over the other dims, as per sample."""
    x = args[0]
    lvls = x._levels
    bs = _batch(lvls)
    n, d = math.prod(bs), params["dim"]
    out = cls.apply(_fold(_flat(x, lvls, n, tuple(x.shape)), n, d), **params)
    return _unfold(out, n, d, lvls, bs)


def index_reduce(cls, args, params):
    """index_reduce(x, index, source, dim): sample k's index i is row k * size + i of x with
    the batch folded into dim, its source rows folded the same way (index, 1-D, batched or
    not)."""
    x, index, src = args
    lvls = union(args)
    bs = _batch(lvls)
    n, d = math.prod(bs), params["dim"]
    scalar = x.dim() == 0  # one element: as a 1-D tensor of size 1
    xs = (1,) if scalar else tuple(x.shape)
    ss = (1,) if src.dim() == 0 else tuple(src.shape)
    size = xs[d]
    iv = _flat(index, lvls, n, (index.numel(),))
    step = iv.xp.arange(n, dtype=iv._data.dtype).reshape(n, 1) * size
    iv = iv + Tensor._make(step, iv._device)
    out = cls.apply(
        _fold(_flat(x, lvls, n, xs), n, d),
        iv.reshape(-1),
        _fold(_flat(src, lvls, n, ss), n, d),
        **params,
    )
    out = _unfold(out, n, d, lvls, bs)
    return wrap(out._value.reshape(bs), lvls) if scalar else out


def zero_link(cls, args, params):
    """forward AD's ZeroLink (a tangent tied to the primals with zero derivative): the
    tangent with every level, the primals as they are (their zero gradients take their
    shapes)."""
    lvls = union(args)
    t = aligned(args[0], lvls, expand=True)
    return wrap(cls.apply(t, *[aligned(a, lvls) for a in args[1:]], **params), lvls)


def _register():
    table = op_classes()
    for rule, names in (
        (zero_link, ["ZeroLink"]),
        (dist, ["Dist"]),
        (renorm, ["Renorm"]),
        (index_reduce, ["IndexReduce"]),
    ):
        register(*[table[n] for n in names if n in table])(rule)


_register()
