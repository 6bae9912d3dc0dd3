"""Batching rules for ops that used to run per sample: index_add/index_copy/index_fill with
batched indices (one scatter), linalg.solve and cdist (their batch dims broadcast), the full
median()/nanmedian() (one median per sample), scatter_reduce, prelu, and group_norm with a
batched weight or bias."""

from ..tensor import Tensor
from ._batched import BatchedTensor, aligned, fallback, register, union, wrap
from ._rules import elementwise, ldim, op_classes, wdim
from ._rules_nn import fold_n, gather


def _index_key(iv, like, nb, d):
    """The batched 1-D indices iv (batch dims, k) shaped for a scatter along dim nb + d into
    a tensor shaped like `like` with that dim of size k."""
    k = iv.shape[-1]
    shape = [1] * like.dim()
    shape[:nb] = list(iv.shape[:nb])
    shape[nb + d] = k
    target = list(like.shape)
    target[nb + d] = k
    return iv.reshape(shape).expand(target)


def index_ops(cls, args, params):
    """index_add / index_copy / index_fill with a batched index: a scatter along the dim, the
    batch dims in front (each sample writes at its own indices)."""
    x, index = args[0], args[1]
    nd = ldim(x)
    src = args[2] if len(args) > 2 else None
    if isinstance(index, BatchedTensor) and x.numel() == 0:
        # nothing is written into an empty self (and no index checked): any sample's index
        # gives the result
        index = Tensor._make(index._data, index._device)
        args = (x, index) + tuple(args[2:])
    if (
        not isinstance(index, BatchedTensor)
        or nd == 0
        or x.numel() == 0  # (index_add into nothing accepts any index: per sample)
        or (src is not None and ldim(src) != nd)
        or cls.__name__ not in ("IndexAdd", "IndexCopy", "IndexFill")
    ):
        rule = next(_plain[c] for c in cls.__mro__ if c in _plain)
        return rule(cls, args, params)
    lvls = union(args)
    nb = len(lvls)
    d = wdim(params.get("dim", 0), nd)
    xv = aligned(x, lvls, nd, expand=True)
    iv = aligned(index, lvls, expand=True)
    if cls.__name__ == "IndexFill":
        n = x.shape[d]
        iv = iv.where(iv >= 0, iv + n)  # index_fill takes negative indices
        return wrap(xv.scatter(nb + d, _index_key(iv, xv, nb, d), params["value"]), lvls)
    sv = aligned(src, lvls, nd, expand=True)
    key = _index_key(iv, sv, nb, d)
    if cls.__name__ == "IndexCopy":
        return wrap(xv.scatter(nb + d, key, sv), lvls)
    alpha = params.get("alpha", 1)
    return wrap(xv.scatter_add(nb + d, key, sv * alpha if alpha != 1 else sv), lvls)


_plain = {}  # the rule each index op had before (for an unbatched index)


def _broadcast_batch(args, lvls, core):
    """Each tensor with every level (expanded) and its logical batch dims (those before its
    `core` trailing dims) left-padded to a common rank, so the op broadcasts them."""
    nb = len(lvls)
    ranks = [ldim(a) - c for a, c in zip(args, core)]
    top = max(ranks)
    out = []
    for a, c, r in zip(args, core, ranks):
        v = aligned(a, lvls, expand=True)
        if r < top:
            s = tuple(v.shape)
            v = v.reshape(s[:nb] + (1,) * (top - r) + s[nb:])
        out.append(v)
    return out


def solve(cls, args, params):
    """linalg.solve(A, B): batch dims broadcast (B a vector when `vector`)."""
    A, B = args[0], args[1]
    lvls = union(args)
    core = (2, 1 if params.get("vector") else 2)
    av, bv = _broadcast_batch((A, B), lvls, core)
    out = cls.apply(av, bv, **params)
    return tuple(wrap(o, lvls) for o in out) if type(out) is tuple else wrap(out, lvls)


def cdist(cls, args, params):
    """cdist(x1 (.., P, M), x2 (.., R, M)): batch dims broadcast."""
    lvls = union(args)
    return wrap(cls.apply(*_broadcast_batch(args[:2], lvls, (2, 2)), **params), lvls)


def median(cls, args, params):
    """median() / nanmedian() of every per-sample element: one median per sample."""
    x = args[0]
    return wrap(cls.apply(x._value, lead=len(x._levels), **params), x._levels)


def group_norm(cls, args, params):
    """native_group_norm with a batched weight or bias: normalise with the batch folded into N,
    then scale and shift per sample (as the layer_norm rule does)."""
    x, w, b = args[0], args[1], args[2]
    if not (isinstance(w, BatchedTensor) or isinstance(b, BatchedTensor)):
        return fold_n(cls, args, params)
    lvls = union(args)
    nb = len(lvls)
    res = fold_n(cls, (x, None, None), params)
    xv = aligned(res, lvls, expand=True)
    tail = (1,) * (ldim(x) - 2)

    def per_channel(t):  # (batch dims, C) -> (batch dims, 1, C, 1, ...)
        v = aligned(t, lvls, expand=True)
        return v.reshape(tuple(v.shape[:nb]) + (1, v.shape[-1]) + tail)

    if w is not None:
        xv = xv * per_channel(w)
    if b is not None:
        xv = xv + per_channel(b)
    return wrap(xv, lvls)


def add_product(cls, args, params):
    """baddbmm / addbmm / addmv / addr: the product as one broadcasting matmul (or outer
    product) over the batch dims, then beta * input + alpha * product."""
    from .. import ops as O

    bias, a, b = args[0], args[1], args[2]
    beta, alpha = params.get("beta", 1), params.get("alpha", 1)
    if a.dtype != b.dtype or not a.dtype.is_floating_point or a.dtype.itemsize == 2:
        return fallback(cls, args, params)  # (integer scalars, half accumulation, promotion)
    lvls = union((a, b))
    pa, pb = aligned(a, lvls), aligned(b, lvls)
    name = cls.__name__
    if name == "Addmv":
        prod = O.matmul(pa, pb.unsqueeze(-1)).squeeze(-1)
    elif name == "Addr":
        prod = pa.unsqueeze(-1) * pb.unsqueeze(-2)
    else:
        prod = O.matmul(pa, pb)
        if name == "Addbmm":
            prod = prod.sum(-3)
    prod = wrap(prod if alpha == 1 else prod * alpha, lvls)
    if beta == 0:  # (input ignored, even NaN, as torch)
        return prod
    return prod + (bias if beta == 1 else bias * beta)  # (batched: through the rules)


def _register():
    from ._batched import _rules

    table = op_classes()
    for name in ("IndexAdd", "IndexCopy", "IndexFill"):
        if name in table:
            _plain[table[name]] = _rules.get(table[name], fallback)
            register(table[name])(index_ops)
    for rule, names in (
        (solve, ["LinalgSolveEx"]),
        (cdist, ["Cdist", "EuclideanDist"]),
        (median, ["Median"]),
        (gather, ["ScatterReduceTwo"]),
        (
            elementwise,
            ["PreluKernel", "PreluKernelBackward"],
        ),  # (its weight is already shaped to broadcast)
        (group_norm, ["NativeGroupNorm"]),
        (add_product, ["Baddbmm", "Addbmm", "Addmv", "Addr"]),
    ):
        register(*[table[n] for n in names if n in table])(rule)


_register()
