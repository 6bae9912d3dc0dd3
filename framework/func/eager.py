"""Reverse-mode transforms: grad, grad_and_value, vjp, jacrev (torch.func).

Each transform differentiates with the ordinary autograd engine. Under vmap the inputs it
differentiates are first given every active batch dim, so the one backward over the physical
(batched) graph yields per-sample gradients: samples never mix inside a batching rule.
"""

import functools

from .. import autograd
from ..autograd.grad_mode import enable_grad, state
from ..tensor import Tensor
from . import _batched as B
from . import _pytree

_depth = [0]  # transforms (grad/vjp/jacrev/jvp) currently running: their results stay
#              differentiable for the outer ones


def _check_argnums(argnums, args):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if isinstance(argnums, tuple) and not argnums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -len(args) <= a < len(args):
            raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
    return tuple(a % len(args) for a in nums)


def _prepare(x, lvls):
    """A fresh differentiable alias of x carrying the vmap levels `lvls` (expanded)."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    lvls = tuple(sorted(set(lvls) | set(B.lvls_of(x))))
    v = B.aligned(x, lvls, expand=True) if lvls else x
    if v._rg and state.enabled:  # an outer transform differentiates through this one
        v = v.view_as(v)
    else:
        tangents = v._fw
        v = v.detach().requires_grad_(True)
        if tangents:  # forward AD outside (jacfwd of jacrev): the leaf keeps its tangents
            from ..autograd.forward_ad import _set

            for level, t in list(tangents.items()):
                _set(v, level, t)
    return B.wrap(v, lvls)


def _levels_in(tree):
    """The vmap levels of the tensors in a pytree: differentiated inputs get all of them, so
    per-sample gradients never sum over a batch (samples never mix inside a rule)."""
    return B.union(_pytree.flatten(tree)[0])


def _diff_args(args, argnums, lvls):
    """args with the differentiated ones replaced by fresh aliases; those as a list."""
    args = list(args)
    leaves_all = []
    for i in argnums:
        leaves, spec = _pytree.flatten(args[i])
        new = [_prepare(x, lvls) for x in leaves]
        leaves_all.extend(new)
        args[i] = _pytree.unflatten(new, spec)
    return args, leaves_all


def _grads(outs, inputs, cts, create_graph):
    """Gradients of physical outputs w.r.t. the physical inputs (zeros where unused)."""
    from ..creation import zeros_like

    outs_p = [B.physical(o) for o in outs]
    ins_p = [B.physical(i) for i in inputs]
    pairs = [(o, c) for o, c in zip(outs_p, cts) if o._rg]
    if not pairs:
        gs = [None] * len(ins_p)
    else:
        gs = autograd.grad(
            [o for o, _ in pairs],
            ins_p,
            [c for _, c in pairs],
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
    lvls = [B.lvls_of(i) for i in inputs]
    return [B.wrap(zeros_like(p) if g is None else g, lv) for g, p, lv in zip(gs, ins_p, lvls)]


def _call_at_levels(func, args, nums, kwargs, has_aux, aux_error):
    """``func`` on differentiable copies of ``args[nums]``, run again at the union of levels
    while its output carries a vmap level the arguments lack (a batched closure); returns
    ``(leaves, out, aux, levels)``. ``aux_error``: the message for a bad ``(output, aux)``."""
    lvls = _levels_in(args)
    while True:
        new, leaves = _diff_args(args, nums, lvls)
        out = func(*new, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(aux_error)
            out, aux = out
        extra = set(_levels_in(out)) - set(lvls)
        if not extra:
            return leaves, out, aux, lvls
        lvls = tuple(sorted(set(lvls) | extra))


def _with_args(func, args, nums, kwargs):
    """``func`` as a function of ``args[nums]`` alone (the other arguments fixed)."""

    def f(*p):
        full = list(args)
        for i, v in zip(nums, p):
            full[i] = v
        return func(*full, **kwargs)

    return f


def _detach_out(x, keep=False):
    """A result leaving the outermost transform: its internal graph is dropped unless plain
    autograd outside differentiates through the transform (`keep`)."""
    if keep or _depth[0] or not isinstance(x, Tensor):
        return x
    return B.wrap(B.physical(x).detach(), B.lvls_of(x)) if x._rg or B.physical(x)._rg else x


def grad_and_value(func, argnums=0, has_aux=False):
    """Returns a function that computes both the gradient and the value of ``func``.

    Like :func:`grad`, but the returned function gives ``(gradient, value)`` (or
    ``(gradient, (value, aux))`` with ``has_aux``), so the output is not recomputed.

    Args:
        func (Callable): a function returning a one-element Tensor (or ``(output, aux)`` with
            ``has_aux``).
        argnums (int or Tuple[int], optional): which positional arguments to differentiate
            (default: 0).
        has_aux (bool, optional): ``func`` returns ``(output, aux)``; ``aux`` is passed through
            undifferentiated (default: False).

    Returns:
        Callable: a function with the arguments of ``func`` returning ``(grad, value)``; the
        gradient is a tuple for tuple ``argnums``.

    Example:
        >>> x = framework.tensor([1.0, 2.0])
        >>> g, v = framework.func.grad_and_value(lambda x: (x ** 2).sum())(x)
        >>> g, v
        (tensor([2., 4.]), tensor(5.))
        >>> f = lambda x: ((x ** 2).sum(), x.mean())
        >>> framework.func.grad_and_value(f, has_aux=True)(x)
        (tensor([2., 4.]), (tensor(5.), tensor(1.5000)))
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from ..creation import ones_like

        nums = _check_argnums(argnums, args)
        _depth[0] += 1
        try:
            with enable_grad():
                leaves, out, aux, _ = _call_at_levels(
                    func,
                    args,
                    nums,
                    kwargs,
                    has_aux,
                    "grad_and_value(f)(*args): output of function f should be a tuple: "
                    "(output, aux) if has_aux is True",
                )
                if not isinstance(out, Tensor):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): Expected f(*args) to return a "
                        f"Tensor, got {type(out)}"
                    )
                if out.dim() != 0:
                    raise RuntimeError(
                        "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                        f"got tensor with {out.dim()} dims. Maybe you wanted to use the vjp or "
                        "jacrev APIs instead?"
                    )
                phys = B.physical(out)
                keep = _outer_rg(args)
                gs = _grads([out], leaves, [ones_like(phys)], _depth[0] > 1 or keep)
        finally:
            _depth[0] -= 1
        g = _regroup(args, nums, gs, isinstance(argnums, int))
        done = functools.partial(_detach_out, keep=keep)
        g = _pytree.tree_map(done, g)
        value = done(out)
        if has_aux:
            return g, (value, _pytree.tree_map(done, aux))
        return g, value

    return wrapper


def _outer_rg(args):
    """Whether plain autograd outside wants to differentiate through this transform."""
    if not state.enabled:
        return False
    return any(isinstance(x, Tensor) and B.physical(x)._rg for x in _pytree.flatten(args)[0])


def _regroup(args, nums, gs, single):
    """The flat gradients back in the structure of the differentiated arguments."""
    it = iter(gs)
    res = []
    for i in nums:
        leaves, spec = _pytree.flatten(args[i])
        res.append(_pytree.unflatten([next(it) for _ in leaves], spec))
    return res[0] if single else tuple(res)


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function with respect to its `argnums` inputs.

    Args:
        func: returns a scalar Tensor (or `(scalar, aux)` with has_aux).
        argnums (int or tuple of ints): which positional arguments to differentiate. Default 0.
        has_aux (bool): func returns `(output, aux)`; aux is returned beside the gradient.

    Returns:
        A function computing the gradient (a tuple for tuple argnums; `(grad, aux)` with
        has_aux). It composes with vmap and with itself (`grad(grad(f))`).

    Example:
        >>> x = framework.tensor(1.0)
        >>> framework.func.grad(framework.func.grad(framework.sin))(x)  # -sin(1)
        tensor(-0.8415)
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux=False):
    r"""Computes ``func``'s output at ``primals`` and returns a function giving its
    vector-Jacobian products :math:`v^\top J` at that point, for any cotangent :math:`v`.

    Args:
        func (Callable): a function of one or more tensors returning a tensor or a (nested)
            tuple of tensors.
        *primals (Tensor): the point at which the Jacobian is taken.
        has_aux (bool, optional): ``func`` returns ``(output, aux)``; ``aux`` is returned as a
            third item (default: False).

    Returns:
        ``(output, vjp_fn)``, or ``(output, vjp_fn, aux)`` with ``has_aux``. ``vjp_fn(*cotangents)``
        takes cotangents shaped like the output and returns a tuple with one gradient per
        primal; it may be called several times and vmapped (that is how :func:`jacrev` works).

    Example:
        >>> x = framework.tensor([1.0, 2.0])
        >>> out, vjp_fn = framework.func.vjp(framework.sin, x)
        >>> vjp_fn(framework.ones(2))[0]  # cos(x)
        tensor([ 0.5403, -0.4161])
        >>> out, vjp_fn = framework.func.vjp(framework.mul, x, framework.tensor([3.0, 4.0]))
        >>> vjp_fn(framework.ones(2))
        (tensor([3., 4.]), tensor([1., 2.]))
    """
    nums = tuple(range(len(primals)))
    _depth[0] += 1
    try:
        with enable_grad():
            leaves, out, aux, lvls = _call_at_levels(
                func,
                primals,
                nums,
                {},
                has_aux,
                "vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                "has_aux is True",
            )
            outs, spec = _pytree.flatten(out)
            for o in outs:
                if not isinstance(o, Tensor):
                    raise RuntimeError(
                        "vjp(f, *primals): Expected f(*primals) to return only "
                        f"tensors, got unsupported type {type(o)}"
                    )
    finally:
        _depth[0] -= 1
    create = _outer_rg(primals) or _depth[0] > 0
    full = [B.wrap(B.aligned(o, lvls, expand=True), lvls) for o in outs]

    def vjp_fn(*cotangents):
        ct = cotangents[0] if len(cotangents) == 1 else cotangents
        cts, cspec = _pytree.flatten(ct)
        if len(cts) != len(outs):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree "
                "structure of outputs to the function."
            )
        for c, o in zip(cts, outs):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[0] has a shape of {c.shape} "
                    f"and output[0] has a shape of {o.shape}."
                )
        with enable_grad():
            if set(B.union(cts)) - set(lvls):  # vmap over vjp_fn: one batched backward
                gs = _batched_grads(full, leaves, cts, create or _depth[0] > 0)
            else:
                phys_cts = [B.aligned(c, lvls, expand=True) for c in cts]
                gs = _grads(full, leaves, phys_cts, create or _depth[0] > 0)
        return tuple(_pytree.tree_map(done, g) for g in _regroup(primals, nums, gs, False))

    done = functools.partial(_detach_out, keep=create)
    result = (_pytree.tree_map(done, out), vjp_fn)
    return result + (_pytree.tree_map(done, aux),) if has_aux else result


def _batched_grads(outs, inputs, cts, create_graph):
    """Gradients for cotangents batched at levels the graph lacks (vmap over vjp_fn): the
    recorded graph runs backward once with the batched cotangents (zeros where unused)."""
    from ..creation import zeros_like
    from ._paths import batched_grad

    pairs = [(o, c) for o, c in zip(outs, cts) if B.physical(o)._rg]
    gs = [None] * len(inputs)
    if pairs:
        gs = batched_grad(
            [o for o, _ in pairs], inputs, [c for _, c in pairs], True, create_graph, True
        )
    return [
        B.wrap(zeros_like(B.physical(i)), B.lvls_of(i)) if g is None else g
        for g, i in zip(gs, inputs)
    ]


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func with respect to its `argnums` inputs, by reverse mode: one vjp per
    output element, all computed at once through vmap.

    Args:
        func: returns a Tensor or a tuple of Tensors (and aux with has_aux).
        argnums (int or tuple of ints): inputs to differentiate. Default 0.
        has_aux (bool): func returns `(output, aux)`. Default False.
        chunk_size (int, optional): vmap chunk size over the output elements.

    Returns:
        A function returning the Jacobian: `output.shape + input.shape` per (output, input),
        nested as outputs then argnums (tuples where either is a tuple).

    Example:
        >>> x = framework.tensor([1.0, 2.0])
        >>> framework.func.jacrev(lambda x: x ** 2)(x)
        tensor([[2., 0.],
                [0., 4.]])
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from .vmap import vmap

        nums = _check_argnums(argnums, args)
        single = isinstance(argnums, int)
        f = _with_args(func, args, nums, kwargs)
        res = vjp(f, *[args[i] for i in nums], has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        outs, spec = _pytree.flatten(out)
        basis = _basis(outs)
        grads = vmap(vjp_fn, chunk_size=chunk_size)(_pytree.unflatten(basis, spec))
        jac = _split_rows(outs, spec, grads, [args[i] for i in nums], single)
        return (jac, res[2]) if has_aux else jac

    return wrapper


def _basis(outs):
    """The rows of the identity over all elements of ``outs``, split and shaped per tensor."""
    from ..creation import eye

    sizes = [o.numel() for o in outs]
    total = sum(sizes)
    e = eye(total, dtype=outs[0].dtype, device=outs[0].device)
    parts, start = [], 0
    for o, n in zip(outs, sizes):
        parts.append(e[:, start : start + n].reshape((total,) + tuple(o.shape)))
        start += n
    return parts


def _split_rows(outs, spec, grads, primals, single):
    """Jacobian blocks: the rows of each output, shaped out.shape + in.shape."""
    per_out = []
    start = 0
    for o in outs:
        n = o.numel()
        blocks = []
        for g, p in zip(grads, primals):
            leaves, pspec = _pytree.flatten(g)
            pl = _pytree.flatten(p)[0]
            blocks.append(
                _pytree.unflatten(
                    [
                        x[start : start + n].reshape(tuple(o.shape) + tuple(q.shape))
                        for x, q in zip(leaves, pl)
                    ],
                    pspec,
                )
            )
        per_out.append(blocks[0] if single else tuple(blocks))
        start += n
    return _pytree.unflatten(per_out, spec)
