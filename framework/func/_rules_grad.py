"""Batching rules of the backward ops: what runs when `jacrev`, `hessian` or a vmapped
`vjp_fn` push a batch of cotangents through one recorded graph (and `jacfwd` a batch of
tangents through the jvp rules): max-pool scatters and gathers, average-pool spreading, the
convolution weight and input gradients, embedding's dense backward, resampling's adjoint
maps. Each runs the op once on the whole batch."""

import math
from types import SimpleNamespace

from ._batched import BatchedTensor, aligned, fallback, register, union, wrap
from ._rules import op_classes


def _first_only(args):
    """The first argument, batched, as (physical tensor, levels, batch shape); None when
    another argument is batched too."""
    if any(isinstance(a, BatchedTensor) for a in args[1:]):
        return None
    x = args[0]
    v = aligned(x, x._levels, expand=True)
    return v, x._levels, tuple(v.shape[: len(x._levels)])


def tiled_index(cls, args, params):
    """Ops whose index array is a parameter (max-pool scatters and gathers, their 3-D plane
    forms): the batch dims lead the data and the index is broadcast over them,
    so every leading-dims reshape inside the op sees one more (flattened) leading dim."""
    got = _first_only(args)
    if got is None:
        return fallback(cls, args, params)
    v, lvls, bs = got
    p = dict(params)
    key = "idx" if "idx" in p else "index"
    idx = p[key]
    p[key] = v.xp.broadcast_to(idx, bs + tuple(idx.shape))
    for k in ("in_shape", "out_shape"):
        if k in p:
            p[k] = bs + tuple(p[k])
    return wrap(cls.apply(v, *args[1:], **p), lvls)


def avg_pool_backward(cls, args, params):
    """AvgPool2DBackward: the batch dims fold into N (the forward's shapes with them)."""
    got = _first_only(args)
    if got is None:
        return fallback(cls, args, params)
    v, lvls, bs = got
    fwd = params["fwd"]
    n = math.prod(bs)
    k = len(fwd.in_shape) - 3  # 1 when the sample has N
    lead = n * (fwd.in_shape[0] if k else 1)
    folded = SimpleNamespace(p=fwd.p, in_shape=(lead,) + tuple(fwd.in_shape[k:]), div=fwd.div)
    g = v.reshape((lead,) + tuple(v.shape[len(bs) + k :]))
    out = cls.apply(g, fwd=folded)
    return wrap(out.reshape(bs + tuple(fwd.in_shape)), lvls)


def avg_pool3d_backward(cls, args, params):
    """AvgPool3DBackward: its kernel flattens every leading dim, so the batch dims lead the
    output shape."""
    got = _first_only(args)
    if got is None:
        return fallback(cls, args, params)
    v, lvls, bs = got
    fwd = params["fwd"]
    folded = SimpleNamespace(
        win=fwd.win,
        div=fwd.div,
        count_include_pad=fwd.count_include_pad,
        divisor_override=fwd.divisor_override,
        in_shape=bs + tuple(fwd.in_shape),
    )
    return wrap(cls.apply(v.contiguous(), fwd=folded), lvls)


def _as_one_batch(t, lvls):
    """t's physical tensor with its batch dims merged into one leading dim, and their shape."""
    v = aligned(t, lvls, expand=True)
    nb = len(lvls)
    bs = tuple(v.shape[:nb])
    return v.reshape((math.prod(bs),) + tuple(v.shape[nb:])), bs


def _grouped(v):
    """(B, N, C, *sp) -> (N, B * C, *sp): the samples side by side along channels."""
    return v.movedim(0, 1).reshape((v.shape[1], v.shape[0] * v.shape[2]) + tuple(v.shape[3:]))


def conv_weight_grad(cls, args, params):
    """ConvWeightGrad / Conv3dWeightGrad (the weight's gradient, conv_w(x, g)): the samples
    become groups (B * groups), as a batched weight's convolution does."""
    x, g = args[0], args[1]
    if x.dim() < 3 or g.dim() != x.dim():
        return fallback(cls, args, params)
    lvls = union(args[:2])
    xv, bs = _as_one_batch(x, lvls)
    gv, _ = _as_one_batch(g, lvls)
    n = xv.shape[0]
    p = dict(params)
    if "q" in p:
        p["q"] = dict(p["q"], groups=p["q"]["groups"] * n)
    else:
        p["groups"] = p["groups"] * n
    out = cls.apply(_grouped(xv), _grouped(gv), *args[2:], **p)  # (B * C_out, C_in / G, *k)
    return wrap(out.reshape(bs + (out.shape[0] // n if n else 0,) + tuple(out.shape[1:])), lvls)


def conv3d_input_grad(cls, args, params):
    """Conv3dInputGrad with a batched gradient and a plain weight: the batch folds into N."""
    got = _first_only(args)
    if got is None or args[0].dim() != 5:
        return fallback(cls, args, params)
    _, lvls, bs = got
    gv, _ = _as_one_batch(args[0], lvls)
    n = gv.shape[1]
    folded = gv.reshape((gv.shape[0] * n,) + tuple(gv.shape[2:]))
    out = cls.apply(folded, *args[1:], **params)
    return wrap(out.reshape(bs + (n,) + tuple(out.shape[1:])), lvls)


def embedding_dense_backward(cls, args, params):
    """EmbeddingDenseBackward: the batch dims move next to the embedding dims, so each
    weight row gathers a (B, D) block; then they move back in front."""
    got = _first_only(args)
    if got is None:
        return fallback(cls, args, params)
    _, lvls, bs = got
    v, _ = _as_one_batch(args[0], lvls)
    k = params["indices"].ndim
    out = cls.apply(v.movedim(0, k), **params)  # (num_weights, B, *tail)
    out = out.movedim(1, 0)
    return wrap(out.reshape(bs + tuple(out.shape[1:])), lvls)


def axis_maps(cls, args, params):
    """Resampling as axis maps (interpolate, adaptive average pooling, their adjoints): the
    mapped axes shift past the batch dims."""
    got = _first_only(args)
    if got is None:
        return fallback(cls, args, params)
    v, lvls, bs = got
    p = dict(params)
    p["mats"] = tuple((a + len(bs),) + tuple(rest) for a, *rest in p["mats"])
    return wrap(cls.apply(v, **p), lvls)


def _register():
    table = op_classes()

    def reg(rule, names):
        register(*[table[n] for n in names if n in table])(rule)

    reg(
        tiled_index,
        ["MaxPool2DWithIndicesBackward", "_MaxGather", "_ScatterPlanes", "_GatherPlanes"],
    )
    reg(avg_pool_backward, ["AvgPool2DBackward"])
    reg(avg_pool3d_backward, ["AvgPool3DBackward"])
    reg(conv_weight_grad, ["ConvWeightGrad", "Conv3dWeightGrad"])
    reg(conv3d_input_grad, ["Conv3dInputGrad"])
    reg(embedding_dense_backward, ["EmbeddingDenseBackward"])
    reg(axis_maps, ["_AxisMaps"])


_register()
