"""Where code outside the batching rules meets batched tensors: op wrappers that read values
in Python (run per sample), in-place writes and indexing, random fills, autograd.grad."""

from ..autograd import op as _op
from ..tensor import Tensor
from . import _batched
from ._batched import (
    BatchedTensor,
    aligned,
    levels,
    lvls_of,
    physical,
    size_of,
    union,
    wrap,
)


def check_inplace(self, args):
    """torch's error for an in-place op on an unbatched tensor with batched arguments."""
    lvls = union(args)
    if lvls:  # torch: the physical broadcast does not fit the unbatched self
        import numpy

        shape = tuple(size_of(lv) for lv in lvls) + tuple(
            numpy.broadcast_shapes(
                tuple(self.shape), *[tuple(a.shape) for a in args if isinstance(a, Tensor)]
            )
        )
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}"
        )


def index_batched(x, index):
    """x[index] with a batched index tensor: per sample (the keys differ per sample)."""
    if isinstance(index, tuple):
        return loop(lambda a, *k: a[k], x, *index)
    return loop(lambda a, k: a[k], x, index)


def loop(fn, *args):
    """fn(*args) per sample over the batched args (a Python function whose results depend on
    values it reads, such as indices): the results stacked and batched."""
    saved = _op.vmap_hook[0]
    _op.vmap_hook[0] = 0  # the samples are plain tensors
    try:
        return _batched.per_sample(fn, args)  # (looked up per call: tests replace it)
    finally:
        _op.vmap_hook[0] = saved


def setitem(x, index, value):
    """x[index] = value for a batched x: written into its physical tensor (per sample when
    the index itself is batched)."""
    items = index if isinstance(index, tuple) else (index,)
    others = union(items + (value,))
    if not set(others) <= set(x._levels):
        raise RuntimeError(
            "vmap: index_put_(self, *extra_args) is not possible because there exists a Tensor "
            "`other` in extra_args that has more elements than `self`. This happened due to "
            "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try "
            "to use out-of-place operators instead of inplace arithmetic. If said operator is "
            "being called inside the PyTorch framework, please file a bug report instead."
        )
    nb = len(x._levels)
    if not x._value.numel():
        return
    if not any(type(i) is BatchedTensor for i in items):
        target = x._value[(slice(None),) * nb + items]
        v = aligned(value, x._levels, target.dim() - nb) if isinstance(value, Tensor) else value
        x._value[(slice(None),) * nb + items] = v
        return
    n = 1
    for s in x._value.shape[:nb]:
        n *= s
    xs = x._value.view((n,) + tuple(x.shape))
    ks = [
        aligned(i, x._levels, expand=True).reshape((n,) + tuple(i.shape))
        if type(i) is BatchedTensor
        else i
        for i in items
    ]
    vs = (
        aligned(value, x._levels, expand=True).reshape((n,) + tuple(value.shape))
        if type(value) is BatchedTensor
        else None
    )
    saved = _op.vmap_hook[0]
    _op.vmap_hook[0] = 0
    try:
        for b in range(n):
            key = tuple(k[b] if type(i) is BatchedTensor else k for i, k in zip(items, ks))
            xs[b][key] = vs[b] if vs is not None else value
    finally:
        _op.vmap_hook[0] = saved


def loop_if_batched(fn, *args):
    """For op wrappers that read tensor values in Python: per sample when an arg is batched."""
    if not any(type(a) is BatchedTensor for a in args):
        return NotImplemented
    return loop(fn, *args)


def on_physical(fn, x):
    """fn(physical) rewrapped for a batched x, where fn treats leading dims as a batch
    (composites written along the last dims); NotImplemented for a plain x."""
    if type(x) is not BatchedTensor:
        return NotImplemented
    return wrap(fn(x._value), x._levels)


def flat_values(t):
    """(every sample's values of t as one flat array, remake) for a wrapper that checks and
    rewrites integer values (indices) in Python: remake(array of those values) is the 1-D
    tensor per sample, batched as t."""
    v = physical(t)
    nb = len(lvls_of(t))

    def remake(arr):
        """The flat values back as t's batched per-sample 1-D tensor."""
        return wrap(Tensor._make(arr.reshape(tuple(v.shape[:nb]) + (-1,)), v._device), lvls_of(t))

    return v._data.reshape(-1), remake


RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use "
    "the 'same' or 'different' randomness flags on vmap or perform the randomness "
    "operation out of vmap"
)


def random_levels(t):
    """For a random op on t under vmap: (levels of its result, batch shape of its draws):
    t's levels and those asking for 'different' randomness, the draws of size 1 at a 'same'
    level; None where no level asks; 'error' raises torch's error."""
    if not levels:
        return None
    if any(L.randomness == "error" for L in levels):
        raise RuntimeError(RANDOM_ERROR)
    diff = {L.id for L in levels if L.randomness == "different"}
    lvls = tuple(sorted(set(lvls_of(t)) | diff))
    if not lvls:
        return None
    return lvls, tuple(size_of(lv) if lv in diff else 1 for lv in lvls)


def rrelu_training(input, lower, upper, inplace):
    """rrelu(training=True) under vmap, once for the batch: a slope drawn per element of
    every sample at a 'different' level (shared at a 'same' one); NotImplemented where no
    level asks for a draw of its own. (torch refuses rrelu under vmap.)"""
    got = random_levels(input)
    if got is None:
        return NotImplemented
    import numpy

    from .._distributions import rrelu_noise
    from ..backend import move, to_numpy
    from ..ops.nonlinear import RreluWithNoise
    from ..random import _generator_for

    lvls, draws = got
    x = aligned(input, lvls, expand=True)
    every = numpy.full(draws + tuple(input.shape), -1.0, dtype=to_numpy(x._data).dtype)
    noise = move(rrelu_noise(_generator_for(None, input.device), every, lower, upper), x.device)
    out = wrap(RreluWithNoise.apply(x, lower=lower, upper=upper, training=True, noise=noise), lvls)
    return input.copy_(out) if inplace else out


def random_target(t):
    """Where a random fill of t goes under vmap: None (fill t itself), or (tensor to fill,
    result). 'error' raises; 'different' fills a tensor with the batch dims of the levels
    asking for it; 'same' fills once and, for a batched t, broadcasts over its batch."""
    if not levels:
        return None
    if any(L.randomness == "error" for L in levels):
        raise RuntimeError(RANDOM_ERROR)
    diff = tuple(L.id for L in levels if L.randomness == "different")
    if type(t) is BatchedTensor:
        if set(t._levels) <= set(diff):
            v = aligned(t, diff, expand=True)
            if v is t._value:
                return v, t
            return v, wrap(v, diff)  # a batched tensor gets more levels: a new one
        from ..creation import empty

        same = empty(tuple(t.shape), dtype=t.dtype, device=t.device)
        return same, t._inplace(lambda s, o: o, same)
    if not diff:
        return None
    from ..creation import empty

    phys = empty(tuple(size_of(lv) for lv in diff) + tuple(t.shape), dtype=t.dtype, device=t.device)
    return phys, wrap(phys, diff)


def batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    """autograd.grad under vmap: the engine runs on the physical (batched) tensors. Gradients
    batched at levels the outputs lack (vmap over a backward, as jacrev, gradcheck's batched
    check and is_grads_batched do) stay BatchedTensors at those levels: every backward formula
    then runs once for the whole batch through the batching rules."""
    from ..autograd import _engine
    from ..creation import ones_like

    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    extra = set()
    for o, g in zip(outputs, grad_outputs):
        if g is not None:
            extra |= set(lvls_of(g)) - set(lvls_of(o))
    extra = tuple(sorted(extra))
    gos = []
    for o, g in zip(outputs, grad_outputs):
        if g is None and o.numel() == 1:
            g = ones_like(o)
        gos.append(_lift(g, lvls_of(o), extra) if g is not None else None)
    if retain_graph is None:
        retain_graph = create_graph
    res = _engine.run(
        [physical(o) for o in outputs],
        gos,
        retain_graph,
        create_graph or bool(extra),  # (batched gradients: the Tensor formulas, no raw paths)
        [physical(i) for i in inputs],
        capture=True,
        allow_unused=allow_unused,
    )
    return tuple(
        None if r is None else _lower(r, lvls_of(i), extra, create_graph)
        for r, i in zip(res, inputs)
    )


def _lift(g, own, extra):
    """Gradient g of an output batched at levels `own`: its physical tensor at those levels
    (their dims leading the logical ones), batched at the `extra` levels."""
    every = tuple(sorted(set(own) | set(extra)))
    v = aligned(g, every, expand=True)
    order = [every.index(lv) for lv in extra] + [every.index(lv) for lv in own]
    if order != list(range(len(order))):
        v = v.permute(*order, *range(len(order), v.dim()))
    return wrap(v, extra)


def _lower(r, own, extra, create_graph):
    """The inverse of _lift for a gradient r of an input batched at levels `own`."""
    if not extra:
        return wrap(r, own)
    if not create_graph:  # (the engine recorded the batched backward)
        r = wrap(physical(r).detach(), lvls_of(r))
    have = lvls_of(r)
    v = aligned(r, extra, expand=True) if have else r
    if not have:
        return wrap(v, own)
    every = tuple(sorted(set(own) | set(extra)))
    pos = list(extra) + list(own)
    order = [pos.index(lv) for lv in every]
    if order != list(range(len(order))):
        v = v.permute(*order, *range(len(order), v.dim()))
    return wrap(v, every)
