"""Forward-mode AD (torch.autograd.forward_ad): dual tensors carry a tangent per dual level.

Inside `dual_level()`, `make_dual(x, t)` gives a tensor whose tangent is `t`; every op applied
to it also computes its outputs' tangents with the op's `jvp` rule (written in Tensor ops next
to its `backward`), so `unpack_dual(f(make_dual(x, t))).tangent` is the Jacobian-vector
product J_f(x) t. Tangents are themselves Tensors: reverse mode through them
(forward-over-reverse and reverse-over-forward) composes.

Levels belong to the thread that opens them, like grad mode. The public API allows one level
at a time, as torch does; `framework.func` nests levels with `_enter`/`_exit` (an inner level
sees the outer levels' tangents, as functorch's level stack does).
"""

import collections
import functools
import re
import weakref

from .grad_mode import fw_in_use, state

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

_NO_LEVEL = (
    "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
    "enter_dual_level() first."
)


class _Level:
    """One open dual level: its index (what enter_dual_level returns) and the tangent holders
    of the tensors that got a tangent at it, emptied when the level exits."""

    __slots__ = ("idx", "holders", "__weakref__")

    def __init__(self, idx):
        self.idx = idx
        self.holders = {}


class _Tangents(dict):
    """A tensor's tangents, keyed by level (views made by an op share their result's)."""

    __slots__ = ("__weakref__",)


def _enter():
    """Open a dual level in this thread (nesting allowed) and return it."""
    level = _Level(len(state.fw_levels))
    state.fw_levels = state.fw_levels + (level,)
    fw_in_use[0] += 1
    return level


def _exit(level):
    """Close `level` (the innermost one): every tangent set at it is dropped."""
    state.fw_levels = state.fw_levels[:-1]
    fw_in_use[0] -= 1
    for ref in list(level.holders.values()):  # weakref callbacks may pop entries meanwhile
        holder = ref()
        if holder is not None:
            holder.pop(level, None)
    level.holders.clear()


def enter_dual_level():
    """Open a new forward AD level and return its index (0): tangents made with `make_dual`
    belong to it and are dropped by `exit_dual_level`. Nesting is refused, as in torch.

    Example:
        >>> lvl = framework.autograd.forward_ad.enter_dual_level()
        >>> framework.autograd.forward_ad.exit_dual_level(level=lvl)
    """
    if state.fw_levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    return _enter().idx


def exit_dual_level(*, level=None):
    """Closes a forward-AD level: every dual tensor of that level loses its tangent.

    Prefer the :class:`dual_level` context manager, which enters and exits for you.

    Args:
        level (int, optional): the level to exit; it must be the innermost one opened
            (default: None, the current level).

    Example:
        >>> import framework.autograd.forward_ad as fwAD
        >>> lvl = fwAD.enter_dual_level()
        >>> x = fwAD.make_dual(framework.tensor([1.0]), framework.tensor([2.0]))
        >>> fwAD.exit_dual_level(level=lvl)
        >>> fwAD.unpack_dual(x).tangent is None
        True
    """
    levels = state.fw_levels
    if level is None:
        level = len(levels) - 1
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != len(levels) - 1:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that "
            "was created. This is not supported."
        )
    _exit(levels[-1])


class dual_level:
    """Context manager (and decorator) for forward AD: opens a dual level on entry, returns its
    index, and closes it on exit (tangents made inside are then gone).

    Example:
        >>> import framework.autograd.forward_ad as fwAD
        >>> x = framework.tensor([1.0, 2.0])
        >>> with fwAD.dual_level():
        ...     y = fwAD.make_dual(x, framework.ones(2)) ** 2
        ...     fwAD.unpack_dual(y).tangent
        tensor([2., 4.])
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)

        return wrapper


class UnpackedDualTensor(collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """Namedtuple returned by :func:`unpack_dual` containing the primal and tangent components
    of the dual tensor.

    See :func:`unpack_dual` for more details.
    """

    __slots__ = ()


def _level_at(level):
    levels = state.fw_levels
    if level is None:
        level = len(levels) - 1
    return levels[level] if 0 <= level < len(levels) else None


def _is_float(t):
    return t._data.dtype.kind in "fcV"


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` whose tangent at the current (or given) level is `tangent`.

    Args:
        tensor: the primal, a floating point or complex tensor.
        tangent: a tensor of the same size (stored as it is, not copied).
        level: the dual level (default: the innermost open one).

    Returns:
        A tensor that is a view of `tensor`; ops on it propagate the tangent.

    Example:
        >>> import framework.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(framework.zeros(2), framework.ones(2))
        ...     fwAD.unpack_dual(d.sin()).tangent
        tensor([1., 1.])
    """
    if level is None:
        level = len(state.fw_levels) - 1
    if level < 0:
        raise RuntimeError(_NO_LEVEL)
    if not _is_float(tensor):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not _is_float(tangent):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    lvl = _level_at(level)
    if lvl is None:
        raise RuntimeError("Invalid level given to _make_dual")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{_size(tensor)} while the given forward gradient is of size {_size(tangent)}."
        )
    if tensor._fw is not None and lvl in tensor._fw:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward "
            f"gradient at the same level {level} is not supported."
        )
    out = tensor.view(tensor.shape)
    if not state.inference:  # inference mode computes no tangents (as torch)
        _set(out, lvl, tangent)
    return out


def _size(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def unpack_dual(tensor, *, level=None):
    """Splits a dual tensor into its primal and its tangent.

    Args:
        tensor (Tensor): the tensor to unpack (any tensor: one without a tangent at ``level``
            gives a tangent of None).
        level (int, optional): the forward-AD level (default: None, the current one).

    Returns:
        UnpackedDualTensor: a named tuple ``(primal, tangent)``; ``primal`` is a view of
        ``tensor`` without the tangent, ``tangent`` is None for a tensor without one at that
        level, and for every tensor once the level has exited.

    Example:
        >>> import framework.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     y = fwAD.make_dual(framework.tensor([2.0]), framework.tensor([1.0])) ** 2
        ...     fwAD.unpack_dual(y).tangent  # d(x^2) = 2x dx
        tensor([4.])
        >>> fwAD.unpack_dual(framework.ones(1))
        UnpackedDualTensor(primal=tensor([1.]), tangent=None)
    """
    lvl = _level_at(level)
    if lvl is None:
        return UnpackedDualTensor(tensor, None)
    tangent = tensor._fw.get(lvl) if tensor._fw is not None else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    levels = state.fw_levels
    state.fw_levels = tuple(v for v in levels if v is not lvl)
    try:
        primal = tensor.view(tensor.shape)
    finally:
        state.fw_levels = levels
    return UnpackedDualTensor(primal, tangent)


# ----- what Op.apply calls when a level is open ------------------------------------------------
def _set(t, level, tangent):
    """Give tensor `t` its tangent at `level`."""
    holder = t._fw
    if holder is None:
        holder = t._fw = _Tangents()
    key = id(holder)
    if key not in level.holders:
        level.holders[key] = weakref.ref(holder, lambda _, k=key, h=level.holders: h.pop(k, None))
    holder[level] = tangent


def tangents_of(args, level):
    """The tangent of each argument at `level` (None for plain tensors and non-tensors)."""
    return [
        a._fw.get(level) if a is not None and getattr(a, "_fw", None) is not None else None
        for a in args
    ]


def apply(fn, args, out, dev, record, params):
    """Op.apply's tail under open dual levels: make the outputs as usual, then for each level
    (outermost first) at which an input has a tangent, run the op's `jvp` rule with that level
    and the inner ones closed, and attach the tangents."""
    from ..tensor import Tensor

    if record:
        res = fn._record(args, out, dev)
    elif type(out) is tuple:
        res = tuple(Tensor._make(o, dev) for o in out)
    else:
        res = Tensor._make(out, dev)
    levels = state.fw_levels
    if not levels or not fn.differentiable or state.inference:
        return res
    for k, level in enumerate(levels):
        tangents = tangents_of(args, level)
        if all(t is None for t in tangents):
            continue
        state.fw_levels = levels[:k]
        try:
            _attach(fn, args, res, params, tangents, level)
        finally:
            state.fw_levels = levels
        if record and fn.fw_zero_grads:
            fn._fw_in_levels = getattr(fn, "_fw_in_levels", ()) + (level,)
    return res


def zero_tangents(fn, grads):
    """The gradients of a node whose input had a tangent at a still open level (ops with
    `fw_zero_grads`): each without a tangent there gets zeros, as torch's backward ops, which
    take that input, give."""
    open_ = [lv for lv in getattr(fn, "_fw_in_levels", ()) if lv in state.fw_levels]
    for g in grads:
        if g is None or not _is_float(g):
            continue
        for level in open_:
            if g._fw is None or g._fw.get(level) is None:
                _set(g, level, g.new_zeros(tuple(g.shape)))
    return grads


def _attach(fn, args, res, params, tangents, level):
    outs = res if type(res) is tuple else (res,)
    fn._fw_args, fn._fw_params, fn._fw_out, fn._fw_outs = args, params, outs[0], outs
    had_inputs = getattr(fn, "_inputs", None) is not None
    had_out = getattr(fn, "_out", None) is not None
    if not had_inputs:  # backward-based rules read the inputs and output as saved
        fn._inputs = args
    if not had_out:
        fn._out = outs[0]._data
    try:
        got = fn.jvp(*tangents)
    finally:
        del fn._fw_args, fn._fw_params, fn._fw_out, fn._fw_outs
        if not had_inputs:
            del fn._inputs
        if not had_out:
            del fn._out
    if type(got) is not tuple:
        got = (got,)
    for i, (o, t) in enumerate(zip(outs, got)):
        if t is None or i in fn.non_differentiable or not _is_float(o):
            continue
        if fn.jvp_reads_primal and state.enabled and not t.requires_grad:
            t = _link_primals(t, args)
        _set(o, level, fit(t, o))
    if fn.saves_output and outs[0]._fw is not None and outs[0].grad_fn is fn:
        fn._out_fw = outs[0]._fw  # backward reads the output with its tangents
    if len(outs) > 1 and any(o.grad_fn is fn for o in outs):
        fn._outs_fw = tuple(o._fw if o.grad_fn is fn else None for o in outs)


def _link_primals(t, args):
    """`t` made to depend (with zero derivative) on the primal inputs that require grad:
    torch's jvp formula of a piecewise-linear op (leaky_relu, hardtanh, the shrinks) calls its
    backward op with the primal, so the tangent's gradient with respect to it is zeros, not
    missing."""
    from ..tensor import Tensor
    from .op import ZeroLink

    needs = [a for a in args if isinstance(a, Tensor) and a.requires_grad]
    return ZeroLink.apply(t, *needs) if needs else t


def fit(tangent, like):
    """`tangent` with the shape and dtype of its primal `like` (broadcast, cast)."""
    if tangent.shape != like.shape:
        tangent = tangent.expand(like.shape)
    if tangent._data.dtype != like._data.dtype:
        tangent = tangent._cast(like._data.dtype)
    return tangent


def not_implemented(name):
    """torch's error for an op whose forward derivative torch has not implemented yet."""
    return NotImplementedError(
        f"Trying to use forward AD with {name} that does not support it because it has not "
        "been implemented yet.\nPlease file an issue to PyTorch at "
        "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we "
        "can prioritize its implementation or submit a PR adding the implementation to "
        "derivatives.yaml"
    )


def refuse_early(cls, args):
    """torch's error for an op without a forward derivative given an input with a tangent at
    an open level, raised before the op runs (as torch's generated code does)."""
    if state.inference or not cls.differentiable:
        return
    for level in state.fw_levels:
        if any(t is not None for t in tangents_of(args, level)):
            name = cls.jvp_name
            raise not_implemented(name if isinstance(name, str) else name(args))


def not_supported(fn):
    """torch's error for an op without a forward derivative."""
    name = getattr(fn, "aten", None)
    if not isinstance(name, str):
        base = re.sub(r"Backward\d*$", "", fn.name()).split("::")[-1]
        name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()
    return NotImplementedError(
        f"Trying to use forward AD with aten::{name} that does not support it."
    )


def function_jvp(cls, ctx, args, out):
    """A custom Function's outputs get tangents from its `jvp(ctx, *input_tangents)`: zeros
    for tensor inputs without one, None for other inputs; `ctx.saved_tensors` gives what
    `ctx.save_for_forward` saved."""
    from ..tensor import Tensor

    levels = () if state.inference else state.fw_levels
    outs = out if type(out) is tuple else (out,)
    for k, level in enumerate(levels):
        tangents = tangents_of([a if isinstance(a, Tensor) else None for a in args], level)
        if all(t is None for t in tangents):
            continue
        tangents = [
            t if t is not None or not isinstance(a, Tensor) else a.new_zeros(a.shape)
            for a, t in zip(args, tangents)
        ]
        state.fw_levels = levels[:k]
        ctx._fw_saved = getattr(ctx, "_saved_for_forward", ())
        try:
            got = cls.jvp(ctx, *tangents)
        finally:
            state.fw_levels = levels
            ctx._fw_saved = None
        if type(got) is not tuple:
            got = (got,)
        for o, t in zip(outs, got):
            if (
                isinstance(o, Tensor)
                and t is not None
                and _is_float(o)
                and id(o) not in (ctx._non_diff)
            ):
                _set(o, level, t)


def zeros_for(t, tangent):
    """A zero tangent for `t`, which has none, about to take `tangent` in place: under vmap
    batched at `tangent`'s batch levels too (torch's `_new_zeros_with_same_feature_meta`),
    so a tangent batched where its primal is not (jacfwd) can be written into it."""
    from ..tensor import Tensor
    from .op import vmap_hook

    if vmap_hook[0] and tangent is not None:
        from ..func import _batched as B

        lvls = B.union((t, tangent))
        if lvls != B.lvls_of(t):
            full = tuple(B.size_of(lv) for lv in lvls)
            z = t.xp.zeros(full + tuple(t.shape), dtype=t._data.dtype)
            return B.wrap(Tensor._make(z, t._device), lvls)
    return t.detach().new_zeros(t.shape)


def setitem(x, index, value):
    """x[index] = value under forward AD: x's tangent becomes its old one (or zeros) with
    value's tangent (or zeros) written at index."""
    levels = state.fw_levels
    for k, level in enumerate(levels):
        tx, tv = tangents_of((x, value), level)
        if tx is None and tv is None:
            continue
        state.fw_levels = levels[:k]
        try:
            new = tx.clone() if tx is not None else zeros_for(x, tv)
            new[index] = tv if tv is not None else value.detach().new_zeros(value.shape)
        finally:
            state.fw_levels = levels
        _set(x, level, new)


def keep_history(old, new):
    """`new`'s values with `old`'s autograd history: a tangent changed in place under no_grad
    (torch writes into it, so reverse mode sees it as unchanged, e.g. a clamp_ that did not
    clamp). `new` itself when `old` has no history or another shape."""
    if not old.requires_grad or old.shape != new.shape:
        return new
    olds, news = getattr(old, "_levels", None), getattr(new, "_levels", None)
    if (olds or news) and (olds != news or old._value.shape != new._value.shape):
        return new  # (under vmap: only a tangent batched as the old one keeps its history)
    prev = state.enabled
    state.enabled = True
    try:
        kept = old.clone()
    finally:
        state.enabled = prev
    if olds:  # BatchedTensors: the values of every sample (_data is sample 0's view)
        kept._value._data[...] = new._value._data
    else:
        kept._data[...] = new._data
    return kept


def _region(new, view, offset):
    """(new, the view of new that `view` is of its base); under vmap taken on the physical
    tensor of a batched `new` (made contiguous), its batch dims kept."""
    from .op import vmap_hook

    if vmap_hook[0]:
        from ..func import _batched as B

        lvls = B.lvls_of(new)
        if lvls:
            phys = B.physical(new).contiguous()
            n = len(lvls)
            shape = tuple(phys.shape[:n]) + tuple(view.shape)
            stride = tuple(phys.stride()[:n]) + tuple(view.stride())
            region = phys.as_strided(shape, stride, phys.storage_offset() + offset)
            return B.wrap(phys, lvls), B.wrap(region, lvls)
    return new, new.as_strided(view.shape, view.stride(), offset)


def write_through_view(view, out):
    """An in-place op on a view also changes its base: the base's tangent (or zeros) gets
    the view's new tangent written into the view's region, and the view's tangent becomes
    that region of it. Bases that are not contiguous keep their tangent (a known gap)."""
    base = view._vbase
    if not base._data.flags.c_contiguous:
        return
    offset = view.storage_offset() - base.storage_offset()
    levels = state.fw_levels
    for k, level in enumerate(levels):
        tangent = out._fw.get(level) if out._fw is not None else None
        if tangent is None:
            continue
        state.fw_levels = levels[:k]
        try:
            old = base._fw.get(level) if base._fw is not None else None
            new = old.clone() if old is not None else zeros_for(base, tangent)
            new, region = _region(new, view, offset)
            region.copy_(tangent)
        finally:
            state.fw_levels = levels
        _set(base, level, new)
        _set(view, level, region)
