"""Forward-mode transforms: jvp, linearize, jacfwd, hessian (torch.func).

jvp opens an internal dual level (autograd.forward_ad) and gives each primal its tangent.
Under vmap a batched primal's dual is made on its physical tensor, whose tangent then holds
the primal's batch dims as leading logical dims: the op's jvp rule runs once on the physical
tensors, and jacfwd (vmap of jvp over the basis tangents) is one batched forward pass.
"""

import functools

from ..autograd import forward_ad as _fw
from ..tensor import Tensor
from . import _batched as B
from . import _pytree
from .eager import _basis, _check_argnums, _depth, _detach_out, _outer_rg, _with_args

_PT = "jvp(f, primals, tangents): "


def _merge(t, lvls, keep):
    """Tensor t (maybe batched) with its first len(lvls) logical dims turned into the batch
    dims of `lvls` (disjoint from t's own levels); sorted level order."""
    if not lvls:
        return t
    own = B.lvls_of(t)
    v = B.physical(t)
    order = list(own) + list(lvls)  # v's leading dims, in this order
    if not keep:
        return t
    srt = sorted(order)
    perm = [order.index(lv) for lv in srt]
    n = len(order)
    v = v.permute(*(perm + list(range(n, v.dim())))) if perm != list(range(n)) else v
    return B.wrap(v, tuple(srt))


def _split(t, lvls):
    """The tangent for a physical tensor batched at `lvls`: t's batch dims of `lvls` (made
    with expand where t lacks them) become its leading logical dims."""
    if not lvls:
        return t
    own = B.lvls_of(t)
    allv = tuple(sorted(set(own) | set(lvls)))
    v = B.aligned(t, allv, expand=True)
    outer = [lv for lv in allv if lv not in lvls]
    order = [allv.index(lv) for lv in outer] + [allv.index(lv) for lv in lvls]
    n = len(allv)
    v = v.permute(*(order + list(range(n, v.dim())))) if order != list(range(n)) else v
    return B.wrap(v, tuple(outer))


def _check(primals, tangents):
    if not isinstance(primals, tuple):
        raise RuntimeError(
            _PT + "Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    p_leaves, p_spec = _pytree.flatten(primals)
    t_leaves, t_spec = _pytree.flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            _PT + "Expected primals and tangents to have the same python "
            "structure. For example, if primals is a tuple of 3 tensors, tangents "
            "also must be."
        )
    if not p_leaves:
        raise RuntimeError(_PT + "Expected primals to contain at least one Tensor.")
    for p in p_leaves:
        if not isinstance(p, Tensor):
            raise RuntimeError(_PT + f"Expected primals to only contain Tensors, got {type(p)}")
    for t in t_leaves:
        if not isinstance(t, Tensor):
            raise RuntimeError(_PT + f"Expected tangents to only contain Tensors, got {type(t)}")
    return p_leaves, t_leaves, p_spec


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """The output of func at primals and its Jacobian-vector product with tangents, computed
    in one forward pass with forward-mode AD.

    Args:
        func (Callable): a function of tensors returning a Tensor or a tuple of Tensors.
        primals (tuple): the inputs, as ``func(*primals)``.
        tangents (tuple): one tangent per primal, of the same structure and shapes.
        strict (bool, optional): accepted for compatibility; it has no effect, as in torch (default:
            False).
        has_aux (bool, optional): ``func`` returns ``(output, aux)``; ``aux`` is returned last
            (default: False).

    Returns:
        `(output, jvp_out)`, or `(output, jvp_out, aux)` with has_aux.

    Example:
        >>> x = framework.tensor([0.0, 1.0])
        >>> framework.func.jvp(framework.sin, (x,), (framework.ones(2),))[1]  # cos(x)
        tensor([1.0000, 0.5403])
    """
    p_leaves, t_leaves, spec = _check(primals, tangents)
    level = _fw._enter()
    _depth[0] += 1
    try:
        duals = []
        for p, t in zip(p_leaves, t_leaves):
            lv = B.lvls_of(p)
            phys = B.physical(p)
            tan = _split(t, lv)
            duals.append(B.wrap(_fw.make_dual(phys, tan, level=level.idx), lv))
        out = func(*_pytree.unflatten(duals, spec))
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(
                    _PT + "output of function f should be a tuple: (output, aux) if has_aux is True"
                )
            out, aux = out
        outs, ospec = _pytree.flatten(out)
        prim, tans = [], []
        for o in outs:
            if not isinstance(o, Tensor):
                raise RuntimeError(
                    _PT + "expected f(*primals) to return only tensors, got "
                    f"unsupported type {type(o)}"
                )
            phys = B.physical(o)
            tan = phys._fw.get(level) if phys._fw is not None else None
            if tan is None:
                from ..creation import zeros_like

                tan = zeros_like(phys)
            prim.append(o)
            tans.append(_merge(tan, B.lvls_of(o), True))
    finally:
        _depth[0] -= 1
        _fw._exit(level)
    done = functools.partial(_detach_out, keep=_outer_rg(primals))
    res = (
        _pytree.tree_map(done, _pytree.unflatten(prim, ospec)),
        _pytree.tree_map(done, _pytree.unflatten(tans, ospec)),
    )
    return res + (_pytree.tree_map(done, aux),) if has_aux else res


def linearize(func, *primals):
    """Returns ``func``'s output at ``primals`` and a function computing Jacobian-vector products
    at that point.

    ``jvp_fn(*tangents)`` equals ``jvp(func, primals, tangents)[1]``. func runs once (with
    forward AD on, so an op without a forward derivative raises torch's error here, and a
    reverse graph recorded); each call then runs only the linear map: the derivative of the
    recorded backward (J^T u, linear in u) in u, which is J t. Under vmap or inside another
    transform each call runs the jvp again instead.

    Args:
        func (Callable): a function of tensors returning a tensor or a tuple of tensors.
        *primals (Tensor): the point at which to linearize.

    Returns:
        ``(output, jvp_fn)``.

    Example:
        >>> x = framework.tensor([0.0, 1.0])
        >>> out, jvp_fn = framework.func.linearize(framework.sin, x)
        >>> out
        tensor([0.0000, 0.8415])
        >>> jvp_fn(framework.ones(2))
        tensor([1.0000, 0.5403])
    """
    leaves = _pytree.flatten(primals)[0]
    plain = (
        not B.levels
        and not _depth[0]
        and all(type(x) is Tensor and not x.requires_grad and x._fw is None for x in leaves)
        and all(x.dtype.is_floating_point for x in leaves)
    )
    if not plain:
        out = func(*primals)

        def jvp_fn(*tangents):
            return jvp(func, primals, tangents)[1]

        return _pytree.tree_map(_detach_out, out), jvp_fn
    return _linearize_once(func, primals, leaves)


def _linearize_once(func, primals, leaves):
    """linearize without vmap or outer transforms: one run of func; the linear map is the
    double backward of its recorded graph."""
    from ..autograd import grad
    from ..autograd.grad_mode import enable_grad
    from ..creation import zeros_like

    _, p_spec = _pytree.flatten(primals)
    xs = [x.detach().requires_grad_(True) for x in leaves]
    with enable_grad():
        level = _fw._enter()
        try:
            duals = [_fw.make_dual(x, zeros_like(x), level=level.idx) for x in xs]
            out = func(*_pytree.unflatten(duals, p_spec))
        finally:
            _fw._exit(level)
        outs, o_spec = _pytree.flatten(out)
        diff = [k for k, o in enumerate(outs) if o.requires_grad]
        us = [zeros_like(outs[k]).requires_grad_(True) for k in diff]
        gs = grad([outs[k] for k in diff], xs, us, create_graph=True, allow_unused=True)
    pairs = [(g, x) for g, x in zip(gs, range(len(xs))) if g is not None and g.requires_grad]

    def jvp_fn(*tangents):
        t_leaves, t_spec = _pytree.flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(
                f"Expected the tangents {t_spec} to have the same argspec as the primals {p_spec}"
            )
        for idx, (t, x) in enumerate(zip(t_leaves, xs)):  # torch's checks, in its order
            for what in ("shape", "device", "dtype"):
                if getattr(t, what) != getattr(x, what):
                    raise RuntimeError(
                        f"tangent:{idx} with {what} {getattr(t, what)} in flattened pytree "
                        f"doesn't match the {what} {getattr(x, what)} of the corresponding "
                        "primal."
                    )
        res = [None] * len(diff)
        if pairs:
            with enable_grad():
                res = grad(
                    [g for g, _ in pairs],
                    us,
                    [t_leaves[k] for _, k in pairs],
                    retain_graph=True,
                    allow_unused=True,
                )
        got = dict(zip(diff, res))
        jt = [
            got[k].detach() if got.get(k) is not None else zeros_like(o.detach())
            for k, o in enumerate(outs)
        ]
        return _pytree.unflatten(jt, o_spec)

    return _pytree.unflatten([o.detach() for o in outs], o_spec), jvp_fn


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func with respect to its `argnums` inputs, by forward mode: one jvp per
    input element, all at once through vmap.

    Args:
        func: returns a Tensor or a tuple of Tensors (and aux with has_aux).
        argnums (int or tuple of ints): inputs to differentiate. Default 0.
        has_aux (bool): func returns `(output, aux)`. Default False.
        randomness (str): vmap's randomness for the batched jvp. Default 'error'.

    Returns:
        A function returning the Jacobian (`output.shape + input.shape` blocks, nested as
        outputs then argnums).

    Example:
        >>> x = framework.tensor([1.0, 2.0])
        >>> framework.func.jacfwd(lambda x: x ** 2)(x)
        tensor([[2., 0.],
                [0., 4.]])
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from .vmap import vmap

        nums = _check_argnums(argnums, args)
        single = isinstance(argnums, int)
        primals = tuple(args[i] for i in nums)
        p_leaves, p_spec = _pytree.flatten(primals)
        sizes = [p.numel() for p in p_leaves]
        basis = _basis(p_leaves)
        f = _with_args(func, args, nums, kwargs)

        def push(*ts):
            r = jvp(f, primals, _pytree.unflatten(list(ts), p_spec), has_aux=has_aux)
            return (r[1], r[2]) if has_aux else r[1]

        res = vmap(push, out_dims=(0, None) if has_aux else 0, randomness=randomness)(*basis)
        tans, aux = res if has_aux else (res, None)
        outs, ospec = _pytree.flatten(tans)
        per_out = []
        for t in outs:  # (total, *out.shape) -> out.shape + in.shape per primal
            blocks, start = [], 0
            for p, n in zip(p_leaves, sizes):
                blk = t[start : start + n].movedim(0, -1) if t.dim() else t[start : start + n]
                blocks.append(blk.reshape(tuple(t.shape[1:]) + tuple(p.shape)))
                start += n
            grouped = _pytree.unflatten(blocks, p_spec)
            per_out.append(grouped[0] if single else grouped)
        jac = _pytree.unflatten(per_out, ospec)
        return (jac, aux) if has_aux else jac

    return wrapper


def hessian(func, argnums=0):
    """Computes the Hessian of ``func`` with respect to the arguments at ``argnums``, as
    ``jacfwd(jacrev(func, argnums), argnums)`` (forward-over-reverse).

    Args:
        func (Callable): a function returning a one-element Tensor.
        argnums (int or Tuple[int], optional): which positional arguments to differentiate
            (default: 0).

    Returns:
        Callable: a function with the arguments of ``func`` returning the Hessian, of shape
        ``input.shape + input.shape`` for a single argument (nested tuples for several).

    Example:
        >>> x = framework.tensor([1.0, 2.0])
        >>> framework.func.hessian(lambda x: (x ** 3).sum())(x)
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    from .eager import jacrev

    return jacfwd(jacrev(func, argnums), argnums)
