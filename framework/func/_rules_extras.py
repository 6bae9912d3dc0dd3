"""Batching rules for the ops that ran per sample under vmap: dist (its norm taken over
the logical dims only), forward AD's ZeroLink (Hessians through leaky_relu-style ops and
scalar products), and renorm and index_reduce, whose sample batch is folded into the
dimension they index (sample k's slice i becomes slice k * size + i), so the op runs once.

torch itself loops over renorm and index_reduce (its performance warning) and decomposes dist
into norm(input - other); ours keep the op's own node and backward on the physical tensors.
"""

import math

from ..tensor import Tensor
from ._batched import BatchedTensor, aligned, register, size_of, union, wrap
from ._rules import ldim, op_classes
from ._rules_breadth import leading


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


def per_row_loss(cls, args, params):
    """multi_margin_loss / multilabel_margin_loss: one loss per row of scores, so the
    samples' rows are rows of one call (reduction 'none'), reduced per sample after. A
    batched class weight (a constant: it may not require grad) scales each row's loss by
    its target's weight after (where the row has a term: torch's inf weight of a zero
    loss is 0)."""
    x, t = args[0], args[1]
    lvls = union(args)
    bs = _batch(lvls)
    xv, tv = aligned(x, lvls, expand=True), aligned(t, lvls, expand=True)
    if x.dim() == 0:  # one score per sample: a row of one
        xv, tv = xv.reshape(bs + (1,)), tv.reshape(bs + (1,))
    p = dict(params, reduction="none")
    w = args[2] if len(args) > 2 and isinstance(args[2], BatchedTensor) else None
    loss = cls.apply(xv, tv, *(args[2:] if w is None else (None,)), **p)
    if w is not None:
        wy = aligned(w, lvls, expand=True).gather(-1, tv.reshape(bs + (-1,)))
        loss = (loss * wy.reshape(loss.shape)).where(loss != 0, 0.0)
    logical = tuple(range(len(bs), loss.dim()))
    if params["reduction"] == "mean" and logical:
        loss = loss.mean(logical)
    elif params["reduction"] == "sum" and logical:
        loss = loss.sum(logical)
    return wrap(loss, lvls)


def embedding_bag_batched(plan_fn, plan):
    """embedding_bag with batched input, offsets, weight or per_sample_weights: each
    sample's bags are planned (its indices read), then one EmbeddingBag call takes every
    sample's bags, a batched weight's rows folded (sample k's row i is row k * rows + i).
    NotImplemented when nothing is batched (or for an empty batch)."""
    from .. import ops
    from ..ops.embedding_bag import EmbeddingBag

    input, weight, offsets, psw = plan[:4]
    lvls = union(plan[:4])
    bs = _batch(lvls)
    n = math.prod(bs)
    if not lvls or not n:
        return NotImplemented

    def sample(t, k, arrays):
        """Sample k of t (its raw array if `arrays`, else the tensor); t itself if unbatched."""
        if not isinstance(t, BatchedTensor):
            return t
        flat = _flat(t, lvls, n, tuple(t.shape))
        return Tensor._make(flat._data[k], t._device) if arrays else flat[k]

    plans = []
    for k in range(n):
        p = list(plan)
        p[0], p[1] = sample(input, k, True), sample(weight, k, False)
        p[2], p[3] = sample(offsets, k, True), sample(psw, k, False)
        plans.append(plan_fn(*p))
    xp = weight.xp
    rows, d = weight.shape
    step = rows if isinstance(weight, BatchedTensor) else 0
    nb = plans[0][3]
    idx = xp.concatenate([pl[1] + k * step for k, pl in enumerate(plans)])
    bag = xp.concatenate([pl[2] + k * nb for k, pl in enumerate(plans)])
    freq = plans[0][4]
    if freq is not None and not isinstance(freq, str):
        freq = xp.concatenate([pl[4] for pl in plans])
    w = _flat(weight, lvls, n, (rows, d)).reshape(n * rows, d) if step else weight
    pw = None if plans[0][0] is None else ops.cat([pl[0] for pl in plans])
    out = EmbeddingBag.apply(w, pw, idx=idx, bag=bag, n_bags=n * nb, mode=plan[4], freq=freq)
    return wrap(out.reshape(bs + (nb, d)), lvls)


def ctc_batched(ctc_loss, args, blank, reduction, zero_infinity):
    """ctc_loss with batched log_probs, targets or lengths: sample k's sequence j is
    sequence k * N + j of one call (reduction 'none'), each sample reduced after.
    NotImplemented when nothing is batched."""
    lvls = union(args)
    if not lvls:
        return NotImplemented
    lp, tg, il, tl = args
    bs = _batch(lvls)
    n = math.prod(bs)
    lpv = _flat(lp, lvls, n, tuple(lp.shape))
    if lp.dim() == 2:  # (T, C): one sequence per sample
        lpv = lpv.unsqueeze(2)
    t, m, c = lpv.shape[1:]
    tv = _flat(tg, lvls, n, tuple(tg.shape))
    tv = tv.reshape(n * m, -1) if tg.dim() == 2 else tv.reshape(-1)

    def lengths(v):
        """Every sample's lengths as one flat sequence."""
        if isinstance(v, Tensor):
            return _flat(v, lvls, n, tuple(v.shape)).reshape(-1)
        return list(v) * n

    tlen = lengths(tl)
    lpf = lpv.movedim(0, 1).reshape(t, n * m, c)
    loss = ctc_loss(lpf, tv, lengths(il), tlen, blank, "none", zero_infinity).reshape(n, m)
    if reduction == "mean":
        xp = lp.xp
        raw = tlen._data if isinstance(tlen, Tensor) else xp.asarray(tlen, dtype="int64")
        div = xp.maximum(raw, 1).astype(lpv._data.dtype).reshape(n, m)
        loss = (loss / Tensor._make(div, lpv._device)).mean(1)
    elif reduction == "sum":
        loss = loss.sum(1)
    elif lp.dim() == 2:
        loss = loss.reshape(n)
    return wrap(loss.reshape(bs + tuple(loss.shape[1:])), lvls)


def ctc_grad(cls, args, params):
    """ctc_loss's input gradient with a batched upstream gradient (jacrev): the fixed
    per-frame gradients repeated once per sample, as sequences of one call (its node kept:
    no double backward, as torch)."""
    grad = args[0]
    lvls = grad._levels
    bs = _batch(lvls)
    n = math.prod(bs)
    g, live = params["g"], params["live"]
    xp = grad.xp
    t, m, c = g.shape
    gf = _flat(grad, lvls, n, (m,)).reshape(n * m)
    out = cls.apply(gf, g=xp.concatenate([g] * n, 1), live=xp.concatenate([live] * n, 1))
    out = out.reshape(t, n, m, c).movedim(1, 0)
    return wrap(out.reshape(bs + (t, m, c)), lvls)


def view_copy(cls, args, params):
    """A ``*_copy`` function's node: the view of the batched input (through the view's own
    rule), then its copy."""
    return params["view"](args[0]).clone()


def _register():
    from .._surface_small import _ViewCopy

    register(_ViewCopy)(view_copy)
    table = op_classes()
    for rule, names in (
        (zero_link, ["ZeroLink"]),
        (dist, ["Dist"]),
        (renorm, ["Renorm"]),
        (index_reduce, ["IndexReduce"]),
        (per_row_loss, ["MultiMarginLoss", "MultilabelMarginLoss"]),
        # rrelu's node in evaluation (in training under vmap its wrapper draws the batch's
        # slopes: _paths.rrelu_training), fill_/zero_ with a number: one tensor, elementwise
        (leading, ["RreluWithNoise", "Fill", "_FillScalar", "_Zero"]),
        (ctc_grad, ["_CtcGrad"]),
    ):
        register(*[table[n] for n in names if n in table])(rule)


_register()
