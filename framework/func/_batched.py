"""Batched tensors: what a function under `vmap` sees.

A `BatchedTensor` holds a *physical* Tensor (`_value`) whose leading dimensions are the batch
dimensions of the vmap levels in `_levels` (sorted, outermost first), followed by the
*logical* per-sample dimensions. Its own `_data` is the array of sample 0, so every shape,
dtype and stride question asked in Python (`x.shape`, `x.dim()`, the checks inside op wrappers)
is answered per sample, as torch's vmap promises. Values are never read from `_data`: every
primitive reaches `Op.apply`, which hands a batched call to `dispatch` (one flag check when no
vmap is active), and the op's batching rule runs the op once on the physical tensors.
"""

import warnings

from ..backend import xp_for

from ..autograd import op as _op
from ..tensor import Tensor

_new = object.__new__
_warned = set()


class Level:
    """One active vmap: its id (outer levels have smaller ids), batch size and randomness."""

    __slots__ = ("id", "size", "randomness")

    def __init__(self, id, size, randomness):
        self.id, self.size, self.randomness = id, size, randomness


levels = []  # the active vmap levels, outermost first


class BatchedTensor(Tensor):
    """A tensor under vmap: per-sample shape outside, one physical batched tensor inside."""

    @property
    def requires_grad(self):
        return self._value.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._value.requires_grad = value
        self._rg = self._value._rg

    def item(self):
        raise RuntimeError(
            "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
            "calling .item() on a Tensor, please try to rewrite what you're doing with other "
            "operations. If error is occurring somewhere inside PyTorch internals, please file "
            "a bug report."
        )

    def tolist(self):
        raise RuntimeError(
            "vmap: It looks like you're calling .tolist() on a Tensor; vmap "
            "does not support data-dependent Python values."
        )

    def __bool__(self):
        raise RuntimeError(
            "vmap: It looks like you're attempting to use a Tensor in some data-dependent "
            "control flow. We don't support that yet, please shout over at "
            "https://github.com/pytorch/functorch/issues/257 ."
        )

    def numpy(self, force=False):
        raise RuntimeError("vmap: cannot convert a batched Tensor to a NumPy array")

    def __repr__(self):
        lv = self._levels[-1]
        return f"BatchedTensor(lvl={lv}, bdim={len(self._levels) - 1}, value=\n{self._value!r}\n)"

    def __getitem__(self, index):
        """Indexing under vmap: always through the ops (their rules see the batch)."""
        from ..ops import indexing as ix

        items = index if isinstance(index, tuple) else (index,)
        if any(type(i) is BatchedTensor for i in items):
            from ._paths import index_batched

            return index_batched(self, index)
        steps, adv, key = ix._parse(self, index)
        out = ix._basic(self, steps)
        if adv:
            return ix.Index.apply(out, key=ix._adv_key(adv, out.ndim))
        return out

    def _inplace(self, op, *args, **kwargs):
        """In-place under vmap: compute out of place, then write into the physical tensor (from
        a copy of self when autograd records: the op may save the values it overwrites)."""
        src = self
        if _op.state.enabled and (
            self.requires_grad or any(isinstance(a, Tensor) and a.requires_grad for a in args)
        ):
            src = self.clone()
        out = op(src, *args, **kwargs)
        if isinstance(out, BatchedTensor) and not set(out._levels) <= set(self._levels):
            raise RuntimeError(INPLACE)
        if self._value.numel():
            self._value.copy_(aligned(out, self._levels, self.dim()))
        self._rg = self._value._rg
        return self


BatchedTensor.__name__ = BatchedTensor.__qualname__ = "Tensor"
INPLACE = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
    "Tensor `other` in extra_args that has more elements than `self`. This happened due "
    "to `other` being vmapped over but `self` not being vmapped over in a vmap. Please "
    "try to use out-of-place operators instead of inplace arithmetic. If said operator "
    "is being called inside the PyTorch framework, please file a bug report instead."
)


def wrap(value, lvls):
    """A BatchedTensor over physical `value` whose leading dims belong to levels `lvls`."""
    if not lvls:
        return value
    t = _new(BatchedTensor)
    t._value = value
    t._levels = lvls
    t._data = _sample(value, len(lvls))
    t._device = value._device
    t._rg = value._rg
    t.grad = None
    t.grad_fn = None
    t._output_nr = 0
    t._vc = [0]
    return t


def lvls_of(x):
    """The vmap levels ``x`` is batched over (``()`` for a plain tensor or value)."""
    return x._levels if type(x) is BatchedTensor else ()


def physical(x):
    """The underlying tensor of a BatchedTensor (``x`` itself otherwise)."""
    return x._value if type(x) is BatchedTensor else x


def union(args):
    """The sorted union of the levels of the batched tensors among args."""
    out = set()
    for a in args:
        if type(a) is BatchedTensor:
            out.update(a._levels)
    return tuple(sorted(out))


def batched_like(us, tangents):
    """Leaf tensors `us` (zeros requiring grad, None kept) batched at every level of the
    batched `tangents`: jvp_transpose's seeds under vmap, one per sample."""
    lvls = union(tangents)
    if not lvls:
        return us
    bs = tuple(size_of(lv) for lv in lvls)
    out = []
    for u in us:
        if u is None:
            out.append(None)
            continue
        z = u.xp.zeros(bs + u._data.shape, dtype=u._data.dtype)
        out.append(wrap(Tensor._make(z, u._device, True), lvls))
    return out


def size_of(lv):
    """The batch size of the active vmap level ``lv``."""
    for L in levels:
        if L.id == lv:
            return L.size
    raise RuntimeError("vmap: a batched tensor escaped the vmap that made it")


def aligned(x, lvls, ndim=None, expand=False):
    """x's physical tensor with one leading dim per level in `lvls` (size 1 where x is not
    batched, or the full size with expand=True) and, given ndim, its logical dims left-padded
    with size-1 dims to that rank (broadcasting)."""
    have = lvls_of(x)
    v = physical(x)
    if have != lvls:
        shape = list(v.shape)
        lead = []
        i = 0
        for lv in lvls:
            if i < len(have) and have[i] == lv:
                lead.append(shape[i])
                i += 1
            else:
                lead.append(1)
        v = v.reshape(tuple(lead) + tuple(shape[len(have) :]))
    if ndim is not None:
        n = v.dim() - len(lvls)
        if n < ndim:
            s = tuple(v.shape)
            v = v.reshape(s[: len(lvls)] + (1,) * (ndim - n) + s[len(lvls) :])
    if expand:
        full = tuple(size_of(lv) for lv in lvls)
        if tuple(v.shape[: len(lvls)]) != full:
            v = v.expand(full + tuple(v.shape[len(lvls) :]))
    return v


def rewrap(out, lvls):
    """Each tensor of an op's output (one, a tuple or a list) wrapped at the levels ``lvls``."""
    if type(out) is tuple:
        return tuple(wrap(o, lvls) for o in out)
    if type(out) is list:
        return [wrap(o, lvls) for o in out]
    return wrap(out, lvls)


def dispatch(cls, args, params):
    """Op.apply's hook under vmap: run the op's batching rule when an argument is batched."""
    for a in args:
        if type(a) is BatchedTensor:
            break
    else:
        return NotImplemented
    rule = _rules.get(cls)
    if rule is None:
        for base in cls.__mro__[1:]:
            rule = _rules.get(base)
            if rule is not None:
                break
        else:
            rule = fallback
        _rules[cls] = rule
    return rule(cls, args, params)


_rules = {}


def register(*classes):
    """Decorator: the batching rule of these Op classes, rule(cls, args, params)."""

    def deco(fn):
        for c in classes:
            _rules[c] = fn
        return fn

    return deco


def fallback(cls, args, params):
    """No batching rule: run the op per sample and stack (warns once per op)."""
    if cls not in _warned:
        _warned.add(cls)
        warnings.warn(
            f"There is a performance drop because we have not yet implemented the batching rule "
            f"for {cls.__name__}. Please file us an issue on GitHub so that we can prioritize "
            f"its implementation.",
            UserWarning,
            stacklevel=4,
        )
    return per_sample(lambda *xs: cls.apply(*xs, **params), args)


def per_sample(fn, args):
    """fn over each sample of the batched args (unbatched args passed whole), the results
    stacked and batched again: the loop behind the fallback and the value-reading wrappers."""
    from .. import ops

    lvls = union(args)
    full = tuple(size_of(lv) for lv in lvls)
    n = 1
    for s in full:
        n *= s
    flat = [
        (
            aligned(a, lvls, expand=True).reshape((n,) + tuple(a.shape))
            if n  # an empty batch: one zero sample gives the results' shapes
            else Tensor._make(a.xp.zeros((1,) + tuple(a.shape), a._data.dtype), a._device)
        )
        if type(a) is BatchedTensor
        else a
        for a in args
    ]
    outs = [
        fn(*[f[i] if type(a) is BatchedTensor else a for a, f in zip(args, flat)])
        for i in range(n or 1)
    ]

    def stacked(col):
        return wrap(ops.stack(list(col))[:n].reshape(full + tuple(col[0].shape)), lvls)

    if type(outs[0]) is tuple:
        return tuple(stacked(col) for col in zip(*outs))
    return stacked(outs)


_op.vmap_hook[1] = dispatch


def _sample(value, n):
    """The array of sample 0 (a view), or an empty array of the per-sample shape."""
    arr = value._data
    if 0 in arr.shape[:n]:
        return xp_for(value._device).empty(arr.shape[n:], arr.dtype)
    return arr[(0,) * n]
