"""Batching rules of the neural-network ops: conv and pooling, normalisation, losses,
gather/scatter and joins."""

import math

from ..tensor import Tensor
from ._batched import BatchedTensor, aligned, fallback, register, union, wrap
from ._rules import ldim, op_classes, wdim


def _fold(v, k):
    """Merge v's first k dims into one, sized explicitly (a -1 is ambiguous when v is empty)."""
    return v.reshape((math.prod(v.shape[:k]),) + tuple(v.shape[k:]))


def fold_batch(cls, args, params, core=3):
    """Conv/pool style ops on (N, C, *spatial) or (C, *spatial): the batch dims become N."""
    x = args[0]
    if any(isinstance(a, BatchedTensor) for a in args[1:]):
        return fallback(cls, args, params)
    lvls, nb = x._levels, len(x._levels)
    bs = tuple(x._value.shape[:nb])
    has_n = ldim(x) == core + 1
    if has_n:
        v = x._value.reshape((math.prod(bs) * x.shape[0],) + tuple(x._value.shape[nb + 1 :]))
    else:
        v = x._value.reshape((math.prod(bs),) + tuple(x._value.shape[nb:]))
    out = cls.apply(v, *args[1:], **params)
    lead = bs + ((x.shape[0],) if has_n else ())

    def back(o):
        if tuple(o.shape) == (0,):  # max_pool's indices when nobody needs them
            return wrap(o.reshape(lead + (0,)), lvls)
        return wrap(o.reshape(lead + tuple(o.shape[1:])), lvls)

    return tuple(back(o) for o in out) if type(out) is tuple else back(out)


def fold_n(cls, args, params):
    """Ops whose input always has N first (interpolate, group_norm, grid_sample): the batch
    dims fold into N; grid_sample's grid gets them too."""
    grid = cls.__name__.startswith("GridSampler")
    if not grid and any(isinstance(a, BatchedTensor) for a in args[1:]):
        return fallback(cls, args, params)
    lvls = union(args)
    nb = len(lvls)
    folded = (0, 1) if grid else (0,)
    phys = [
        _fold(aligned(a, lvls, expand=True), nb + 1) if i in folded else a
        for i, a in enumerate(args)
    ]
    bs = tuple(aligned(args[0], lvls, expand=True).shape[:nb])
    out = cls.apply(*phys, **params)
    lead = bs + (args[0].shape[0],)  # every output keeps the input's N first

    def back(o):
        return wrap(o.reshape(lead + tuple(o.shape[1:])), lvls)

    return tuple(back(o) for o in out) if type(out) is tuple else back(out)


def aligned_dims(cls, args, params):
    """index_add/index_copy/cross: the data inputs share every batch dim, dim shifts."""
    lvls = union(args)
    nb = len(lvls)
    index = [1] if cls.__name__.startswith("Index") else []
    nd = max(ldim(a) for i, a in enumerate(args) if isinstance(a, Tensor) and i not in index)
    if any(isinstance(args[i], BatchedTensor) for i in index):
        return fallback(cls, args, params)
    p = dict(params)
    p["dim"] = wdim(p.get("dim", -1 if cls.__name__ == "LinalgCross" else 0), nd) + nb
    phys = [
        aligned(a, lvls, nd, expand=True) if isinstance(a, Tensor) and i not in index else a
        for i, a in enumerate(args)
    ]
    return wrap(cls.apply(*phys, **p), lvls)


def trace(cls, args, params):
    """vmap rule of trace: the sum of each sample's diagonal."""
    x = args[0]
    nb = len(x._levels)
    return wrap(x._value.diagonal(0, nb, nb + 1).sum(-1), x._levels)


def conv(cls, args, params):
    """Convolution: batched input folds into N; a batched weight runs as grouped conv."""
    x, w = args[0], args[1]
    if not isinstance(w, BatchedTensor) and not isinstance(args[2], BatchedTensor):
        core = w.dim() - 1
        return fold_batch(cls, args, params, core)
    if len(union(args)) != 1:
        return fallback(cls, args, params)
    # per-sample weights: stack the samples along channels, groups * B (the same layout for
    # the transposed convs, whose weight is (C_in, C_out / groups, *k))
    lvls = union(args)
    n = math.prod(aligned(w, lvls, expand=True).shape[:1])
    core = w.dim() - 1
    xv = aligned(x, lvls, expand=True)
    has_n = xv.dim() - 1 == core + 1
    if not has_n:
        xv = xv.unsqueeze(1)
    N = xv.shape[1]
    # explicit sizes, never -1: a zero-size sample makes -1 ambiguous
    xv = xv.movedim(0, 1).reshape((N, n * xv.shape[2]) + tuple(xv.shape[3:]))
    wv = _fold(aligned(w, lvls, expand=True), 2)
    b = args[2]
    bv = _fold(aligned(b, lvls, expand=True), 2) if b is not None else None
    p = dict(params)
    if "q" in p:  # conv3d / conv_transpose3d keep their parameters in one dict
        p["q"] = dict(p["q"], groups=p["q"]["groups"] * n)
    else:
        p["groups"] = params["groups"] * n
    out = cls.apply(xv, wv, bv, **p)
    c_out = out.shape[1] // n if n else 0
    out = out.reshape((N, n, c_out) + tuple(out.shape[2:])).movedim(1, 0)
    if not has_n:
        out = out.squeeze(1)
    return wrap(out, lvls)


def layer_norm(cls, args, params):
    """native_layer_norm normalises trailing dims: batch dims in front need no change; a
    batched weight or bias is applied after."""
    x, w, b = args[0], args[1], args[2]
    lvls = union(args)
    xv = aligned(x, lvls, expand=True)
    if isinstance(w, BatchedTensor) or isinstance(b, BatchedTensor):
        res = cls.apply(xv, None, None, **params)
        out = res[0] if type(res) is tuple else res
        nd = ldim(x)
        if w is not None:
            out = out * aligned(w, lvls, nd)
        if b is not None:
            out = out + aligned(b, lvls, nd)
        if type(res) is tuple:
            return (wrap(out, lvls),) + tuple(wrap(o, lvls) for o in res[1:])
        return wrap(out, lvls)
    out = cls.apply(xv, w, b, **params)
    return tuple(wrap(o, lvls) for o in out) if type(out) is tuple else wrap(out, lvls)


def _reduce(loss, reduction, nb):
    if reduction == "none":
        return loss
    dims = tuple(range(nb, loss.dim()))
    if not dims:
        return loss
    return loss.sum(dims) if reduction == "sum" else loss.mean(dims)


def pointwise_loss(cls, args, params):
    """mse/l1/huber/bce...: per element with reduction='none', then reduce per sample."""
    lvls = union(args)
    tensors = [a for a in args if isinstance(a, Tensor)]
    nd = max(ldim(a) for a in tensors)
    phys = [aligned(a, lvls, nd, expand=True) if isinstance(a, Tensor) else a for a in args]
    p = dict(params)
    reduction = p.get("reduction", "mean")
    p["reduction"] = "none"
    out = cls.apply(*phys, **p)
    return wrap(_reduce(out, reduction, len(lvls)), lvls)


def class_loss(cls, args, params):
    """cross_entropy / nll_loss: (C) or (N, C, *d) inputs; the batch dims fold into N and the
    reduction is redone per sample (weighted mean over the non-ignored targets)."""
    x, t, w = args[0], args[1], args[2]
    if isinstance(w, BatchedTensor):
        return fallback(cls, args, params)
    lvls = union(args)
    nb = len(lvls)
    xv = aligned(x, lvls, expand=True)
    tv = aligned(t, lvls, expand=True)
    bs = tuple(xv.shape[:nb])
    probs = t._data.dtype.kind == "f"
    has_n = ldim(x) >= 2
    k = nb + 1 if has_n else nb  # (B.., N, C, d..) -> (B*N, C, d..)
    xf, tf = _fold(xv, k), _fold(tv, k)
    p = dict(params)
    reduction = p.get("reduction", "mean")
    p["reduction"] = "none"
    loss = cls.apply(xf, tf, w, **p)
    loss = loss.reshape(
        bs
        + tuple(
            tv.shape[nb:]
            if not probs
            else xv.shape[nb : nb + (1 if has_n else 0)] + xv.shape[nb + 2 :]
            if has_n
            else ()
        )
    )
    if reduction == "none":
        return wrap(loss, lvls)
    dims = tuple(range(nb, loss.dim()))
    if reduction == "sum" or not dims:
        return wrap(loss.sum(dims) if dims else loss, lvls)
    if probs:
        return wrap(loss.mean(dims), lvls)
    ignore = params.get("ignore_index", -100)
    valid = tv != ignore
    wt = valid.to(loss.dtype)
    if w is not None:
        wt = wt * w[tv.clamp(0, w.shape[0] - 1)]
    return wrap(loss.sum(dims) / wt.sum(dims), lvls)


def gather(cls, args, params):
    """gather/scatter: input and index get every batch dim; dim shifts past them."""
    lvls = union(args)
    nb = len(lvls)
    p = dict(params)
    p["dim"] = wdim(p["dim"], ldim(args[0])) + nb
    scalar = params.get("overload") == 1  # scatter(value=...): a 0-dim value stays one
    if scalar and isinstance(args[2], BatchedTensor) or ldim(args[0]) == 0:
        return fallback(cls, args, params)
    phys = [
        aligned(a, lvls, expand=True) if isinstance(a, Tensor) and not (scalar and i == 2) else a
        for i, a in enumerate(args)
    ]
    return wrap(cls.apply(*phys, **p), lvls)


def index_select(cls, args, params):
    """vmap rule of index_select: the logical ``dim`` shifted past the batch dims (a batched index
    falls back to the per-sample loop).
    """
    x, idx = args[0], args[1]
    if isinstance(idx, BatchedTensor):
        return fallback(cls, args, params)
    nb = len(x._levels)
    return wrap(cls.apply(x._value, idx, dim=wdim(params["dim"], ldim(x)) + nb), x._levels)


def join(cls, args, params):
    """cat/stack: every input gets every batch dim (expanded); dim shifts past them."""
    lvls = union(args)
    nb = len(lvls)
    ref = (
        next(a for a in args if isinstance(a, Tensor) and a.dim() > 0)
        if cls.__name__ == "Cat"
        else args[0]
    )
    n = ldim(ref) + (1 if cls.__name__ == "Stack" else 0)
    p = dict(params)
    p["dim"] = wdim(p["dim"], n) + nb
    phys = [aligned(a, lvls, expand=True) for a in args]
    return wrap(cls.apply(*phys, **p), lvls)


def embedding(weight, input, padding_idx, scale_grad_by_freq):
    """F.embedding under vmap (called by it: the indices are a parameter, not an input)."""
    from ..ops.embedding import EmbeddingLookup

    params = dict(padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)
    if not isinstance(input, BatchedTensor):  # a batched weight only: its rule (one lookup)
        return EmbeddingLookup.apply(weight, indices=input._data, **params)
    if isinstance(weight, BatchedTensor):
        from ._paths import loop

        return loop(
            lambda w, i: EmbeddingLookup.apply(
                w, indices=i._data, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq
            ),
            weight,
            input,
        )
    out = EmbeddingLookup.apply(
        weight,
        indices=input._value._data,
        padding_idx=padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
    )
    return wrap(out, input._levels)


def _register():
    table = op_classes()

    def reg(rule, names):
        register(*[table[n] for n in names if n in table])(rule)

    reg(fold_batch, ["MaxPool2DWithIndices", "AvgPool2D", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D"])
    reg(lambda c, a, p: fold_batch(c, a, p, 4), ["AvgPool3D", "MaxPool3DWithIndices"])
    reg(lambda c, a, p: fold_batch(c, a, p, 2), ["Col2Im"])
    reg(fold_batch, ["Im2Col"])
    reg(
        fold_n,
        [
            "UpsampleBicubic2D",
            "UpsampleLinear1D",
            "UpsampleTrilinear3D",
            "AdaptiveAvgPool3D",
            "NativeGroupNorm",
            "GridSampler2D",
        ],
    )
    reg(
        aligned_dims,
        [
            "IndexAdd",
            "IndexCopy",
            "LinalgCross",
            "SoftmaxBackwardData",
            "LogSoftmaxBackwardData",
            "GluBackward",
        ],
    )
    reg(trace, ["Trace"])
    reg(conv, ["Convolution", "ConvTranspose", "Conv3d", "ConvTranspose3d"])
    reg(layer_norm, ["NativeLayerNorm"])
    reg(
        pointwise_loss,
        [
            "MseLoss",
            "SmoothL1Loss",
            "HuberLoss",
            "BinaryCrossEntropy",
            "BinaryCrossEntropyWithLogits",
            "SoftMarginLoss",
        ],
    )
    reg(class_loss, ["CrossEntropy", "NllLoss"])
    reg(gather, ["Gather", "ScatterAdd", "Scatter"])
    reg(index_select, ["IndexSelect"])
    reg(join, ["Cat", "Stack"])


_register()
