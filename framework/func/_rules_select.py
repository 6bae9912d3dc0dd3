"""Batching rules for the selection and scatter ops that used to run per sample under vmap,
jacrev and jacfwd: masked_select (unbatched mask) and masked_scatter, take, index_put (both
forms), copy_, embedding's lookup, the as_strided gathers and scatters, max_unpool,
affine_grid, pdist's backward, floor_divide. Each runs once on the whole batch.

torch itself has no batching rule (it loops, with its performance warning) for masked_scatter,
take, affine_grid_generator's backward and _pdist_backward; ours are written anyway, as Tensor
ops (so they differentiate again).
"""

import math

import numpy

from ..tensor import Tensor
from ._batched import BatchedTensor, aligned, fallback, register, size_of, union, wrap
from ._rules import elementwise, op_classes
from ._rules_nn import fold_n


def _batch(lvls):
    return tuple(size_of(lv) for lv in lvls)


def _const(array, like):
    return Tensor._make(array, like.device)


def masked_select(cls, args, params):
    """masked_select(x, mask) with an unbatched mask: every sample picks the same positions
    (one index_select); a batched mask is torch's error (each sample's size would differ)."""
    x, mask = args[0], args[1]
    if isinstance(mask, BatchedTensor):
        raise RuntimeError(
            "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot "
            "support this because for each batch this would return a differently shaped "
            "Tensor. Please file an issue at https://github.com/pytorch/pytorch/issues if you "
            "need this feature."
        )
    lvls = x._levels
    bs = _batch(lvls)
    xp = x.xp
    shape = numpy.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
    where = xp.flatnonzero(xp.broadcast_to(mask._data, shape))
    xv = aligned(x, lvls, len(shape)).expand(bs + shape).reshape(bs + (math.prod(shape),))
    return wrap(xv.index_select(-1, _const(where, x)), lvls)


def masked_scatter(cls, args, params):
    """masked_scatter(x, mask, source): the k-th True position of each sample takes element k
    of its source (a cumulative count of the mask gathers from the source, then where)."""
    x, mask, source = args
    lvls = union(args)
    bs = _batch(lvls)
    shape = tuple(x.shape)
    m = aligned(mask, lvls, len(shape)).expand(bs + shape)
    flat = m.reshape(bs + (math.prod(shape),)).long()
    if flat.numel() and int(flat.sum(-1).max()) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    pos = (flat.cumsum(-1) - 1).clamp(min=0)
    sv = aligned(source, lvls, expand=True).reshape(bs + (source.numel(),))
    if not source.numel():  # (no True in the mask: a zero to gather, never picked)
        sv = sv.new_zeros(bs + (1,))
    picked = sv.gather(-1, pos).reshape(bs + shape)
    return wrap(picked.where(m, aligned(x, lvls, len(shape))), lvls)


def take(cls, args, params):
    """take(x, index) (index already non-negative): one gather from the flattened samples."""
    x, index = args[0], args[1]
    lvls = union(args)
    bs = _batch(lvls)
    xv = aligned(x, lvls, expand=True).reshape(bs + (x.numel(),))
    if not isinstance(index, BatchedTensor):
        return wrap(xv.index_select(-1, index.reshape(-1)).reshape(bs + tuple(index.shape)), lvls)
    iv = aligned(index, lvls, expand=True).reshape(bs + (index.numel(),))
    return wrap(xv.gather(-1, iv).reshape(bs + tuple(index.shape)), lvls)


def copy_into(cls, args, params):
    """copy_(dst, src): src broadcast to the (expanded) batched destination."""
    dst, src = args[0], args[1]
    lvls = union(args)
    return wrap(cls.apply(aligned(dst, lvls, expand=True), aligned(src, lvls, dst.dim())), lvls)


def embedding(cls, args, params):
    """weight[indices] with a batched weight: the batch dims move behind the rows, so one
    lookup (and one dense backward, padding_idx and scale_grad_by_freq kept) serves them."""
    w = args[0]
    lvls = w._levels
    nb = len(lvls)
    v = w._value.movedim(tuple(range(nb)), tuple(range(1, nb + 1)))
    out = cls.apply(v, **params)
    ni = params["indices"].ndim
    return wrap(out.movedim(tuple(range(ni, ni + nb)), tuple(range(nb))), lvls)


def _split(adv):
    """The positions of adv's array items, if they are not adjacent (NumPy then moves their
    broadcast dims to the front), else None."""
    pos = [i for i, k in enumerate(adv) if hasattr(k, "shape")]
    if pos and pos != list(range(pos[0], pos[-1] + 1)):
        return numpy.broadcast_shapes(*[adv[i].shape for i in pos])
    return None


def index_put(cls, args, params):
    """index_put / setitem (IndexPut: x[key][adv] = value; IndexPutAccumulate: x[key] +=
    values) with an unbatched index: batch dims in front of the key, the value aligned to the
    indexed target (moved behind split advanced dims as NumPy orders them)."""
    x, value = args[0], args[1]
    if not isinstance(value, Tensor):
        return fallback(cls, args, params)
    lvls = union(args)
    nb = len(lvls)
    p = dict(params)
    lead = (slice(None),) * nb
    if "adv" in p:
        key, adv = tuple(p["key"]), tuple(p["adv"])
        target = x._data[key + (Ellipsis,)]
        p["key"] = lead + key
        p["adv"] = lead + adv if adv else adv
    else:
        key = adv = tuple(p["key"])
        target = x._data
        p["key"] = lead + key
    tshape = target[adv].shape if adv else target.shape
    v = aligned(value, lvls, len(tshape))
    split = _split(adv)
    if split is not None:
        v = v.expand(tuple(v.shape[:nb]) + tshape)
        v = v.movedim(tuple(range(nb)), tuple(range(len(split), len(split) + nb)))
    return wrap(cls.apply(aligned(x, lvls, expand=True), v, **p), lvls)


def _extent(geom):
    """One past the largest storage position a (shape, strides, offset) geometry touches."""
    shape, st, offset = geom
    if 0 in shape:
        return offset + 1
    return offset + 1 + sum((n - 1) * abs(s) for n, s in zip(shape, st))


def strided(cls, args, params):
    """The as_strided gathers/scatters (_StridedGather, _StridedScatter, _StridedCopy): the
    batch becomes one more outer geometry dim whose stride passes both geometries' storage,
    so samples never share a position."""
    lvls = union(args)
    bs = _batch(lvls)
    n = math.prod(bs)
    in_g, out_g = params["in_geom"], params["out_geom"]
    span = max(_extent(in_g), _extent(out_g))

    def outer(g):
        """A geometry (shape, strides, offset) with the batch as its outer dimension."""
        return ((n,) + tuple(g[0]), (span,) + tuple(g[1]), g[2])

    name = cls.__name__
    ranks = {"_StridedGather": (in_g,), "_StridedScatter": (out_g,)}.get(name, (in_g, out_g))
    phys = []
    for a, g in zip(args, ranks):
        if isinstance(a, Tensor):
            a = aligned(a, lvls, len(g[0]), expand=True)
            a = a.reshape((n,) + tuple(a.shape[len(lvls) :]))
        phys.append(a)
    out = cls.apply(*phys, in_geom=outer(in_g), out_geom=outer(out_g))
    return wrap(out.reshape(bs + tuple(out.shape[1:])), lvls)


def unpool(cls, args, params):
    """max_unpool (values, indices): both get every batch dim (its kernel flattens the
    leading dims)."""
    lvls = union(args)
    return wrap(cls.apply(*[aligned(a, lvls, expand=True) for a in args], **params), lvls)


def pdist_backward(cls, args, params):
    """_pdist_backward(grad, x, dist): its kernel broadcasts over leading dims."""
    lvls = union(args)
    return wrap(cls.apply(*[aligned(a, lvls) for a in args], **params), lvls)


def not_implemented_backward(cls, args, params):
    """The ops without a derivative node: floor_divide, number % tensor, heaviside and
    hardsigmoid's backward are elementwise (bincount's runs per sample)."""
    if params.get("aten") in ("floor_divide", "remainder", "heaviside", "hardsigmoid_backward"):
        return elementwise(cls, args, params)
    return fallback(cls, args, params)


def block_diag(cls, args, params):
    """block_diag of batched blocks: each block (0-D as 1x1, 1-D as one row) padded with zeros
    to the full width, the block rows then stacked (cat), the batch dims in front."""
    from .. import ops

    lvls = union(args)
    nb = len(lvls)
    mats = []
    for a in args:
        v = aligned(a, lvls, expand=True)
        bs, core = tuple(v.shape[:nb]), tuple(v.shape[nb:])
        mats.append(
            v.reshape(bs + ((1, 1) if not core else (1,) + core if len(core) == 1 else core))
        )
    width = sum(m.shape[-1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape[-2], m.shape[-1]
        pad = [m.new_zeros(tuple(m.shape[:nb]) + (r, k)) for k in (left, width - left - c)]
        rows.append(ops.cat([pad[0], m, pad[1]], dim=-1))
        left += c
    return wrap(ops.cat(rows, dim=-2), lvls)


def _register():
    table = op_classes()
    for rule, names in (
        (masked_select, ["MaskedSelect"]),
        (masked_scatter, ["MaskedScatter"]),
        (take, ["Take"]),
        (copy_into, ["CopyInto"]),
        (embedding, ["EmbeddingLookup"]),
        (index_put, ["IndexPut", "IndexPutAccumulate"]),
        (strided, ["_StridedGather", "_StridedScatter", "_StridedCopy"]),
        (unpool, ["MaxUnpool2D"]),
        (fold_n, ["AffineGridGenerator"]),
        (pdist_backward, ["PdistBackward"]),
        (not_implemented_backward, ["NotImplementedBackward"]),
        (block_diag, ["BlockDiag"]),
    ):
        register(*[table[n] for n in names if n in table])(rule)


_register()
