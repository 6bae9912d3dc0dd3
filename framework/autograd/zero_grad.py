"""torch's efficient ZeroTensor gradients in the backward walk.

Real sgn's backward gives torch's ZeroTensor: zeros that own no memory. torch's kernels for
products and quotients (`mul`, `div`, views, `expand`, `sum`) return a ZeroTensor again when
one operand is one, so a formula such as MulBackward0's `grad * other` passes it on untouched
(0 * inf stays 0). Every other op (`neg`, `mm`, a native `*_backward` kernel, the engine's
`sum_to` of a broadcast input, a dtype cast) materializes it: it computes with real zeros, and
0 * inf = NaN reaches the inputs below. The engine follows the zero node by node (see
`zero_grads_in`): a node that got only ZeroTensors runs its formula on real zeros, and for
each input it either passes the ZeroTensor on (`CARRIES`) or sends the real result.
"""

import weakref

from ..tensor import Tensor
from .grad_mode import state
from .op import AccumulateGrad

ZERO_IMMUTABLE = (
    "ZeroTensors are immutable. Please use the materialized zero tensor obtained using "
    ".clone() if you want a mutable tensor."
)
# copy_ and index assignment (torch's copy kernel) word it differently
ZERO_IMMUTABLE_COPY = (
    "ZeroTensors are immutable. Please materialize the tensor using `.clone()`, if you want a "
    "mutable zero tensor."
)
# The arrays of the ZeroTensors handed to users (a leaf's `.grad`, autograd.grad's results),
# id -> weakref: read-only NumPy arrays, so every write into them or a view of them (view,
# detach, .data, indexing) fails in NumPy, and `refuse_write` turns that into torch's error.
_ARRAYS = {}
# backward formulas that write into their incoming gradient (std_backward's masked_fill_)
_FILLS_GRAD_IN_PLACE = {"StdBackward0", "StdMeanBackward0"}

# The inputs (by position) for which a node's formula turns a ZeroTensor gradient into a
# ZeroTensor again; every input of every other node gets the formula's value on real zeros.
# Measured in torch 2.13: op(...).sgn().backward() over the op table with node hooks, the
# gradients a node sends (`_is_zerotensor()`) when every gradient it received was a
# ZeroTensor (tests/ops/test_fidelity_zero_tensor.py checks the table against torch).
_ALL = (0,)
CARRIES = {
    **dict.fromkeys(
        (
            "AbsBackward0",
            "AcosBackward0",
            "AcoshBackward0",
            "AddBackward1",
            "AddbmmBackward0",
            "AddmmBackward0",
            "AddrBackward0",
            "AliasBackward0",
            "AmaxBackward0",
            "AminBackward0",
            "AminmaxBackward0",
            "AsinBackward0",
            "AsinhBackward0",
            "AtanBackward0",
            "AtanhBackward0",
            "BaddbmmBackward0",
            "CloneBackward0",
            "CopysignBackward0",
            "CopysignBackward1",
            "CosBackward0",
            "CoshBackward0",
            "Deg2RadBackward0",
            "DiagEmbedBackward0",
            "DigammaBackward0",
            "DivBackward0",
            "ErfBackward0",
            "ErfcBackward0",
            "ErfinvBackward0",
            "Exp2Backward0",
            "ExpBackward0",
            "ExpandBackward0",
            "Expm1Backward0",
            "FmodBackward0",
            "FmodBackward1",
            "FracBackward0",
            "I0Backward0",
            "IndexAddBackward0",
            "IndexPutBackward0",
            "IndexReduceBackward0",
            "LerpBackward0",
            "LgammaBackward0",
            "LinalgVectorNormBackward0",
            "Log10Backward0",
            "Log1PBackward0",
            "Log2Backward0",
            "LogBackward0",
            "LogsumexpBackward0",
            "MulBackward1",
            "MvBackward0",
            "MvlgammaBackward0",
            "NanToNumBackward0",
            "NansumBackward0",
            "NormBackward1",
            "PermuteBackward0",
            "PolygammaBackward0",
            "PowBackward0",
            "PowBackward2",
            "ProdBackward1",
            "Rad2DegBackward0",
            "RemainderBackward0",
            "RemainderBackward1",
            "RepeatBackward0",
            "ReshapeAliasBackward0",
            "RsqrtBackward0",
            "ScatterAddBackward0",
            "ScatterReduceBackward0",
            "SgnBackward0",
            "SinBackward0",
            "SinhBackward0",
            "SpecialEntrBackward0",
            "SpecialI0EBackward0",
            "SpecialI1Backward0",
            "SpecialI1EBackward0",
            "SpecialNdtriBackward0",
            "SqrtBackward0",
            "SqueezeBackward0",
            "SqueezeBackward1",
            "SqueezeBackward4",
            "SubBackward0",
            "SumBackward0",
            "SumBackward1",
            "TBackward0",
            "TanBackward0",
            "TransposeBackward0",
            "TransposeBackward1",
            "UnsafeViewBackward0",
            "UnsqueezeBackward0",
            "UnsqueezeBackward1",
            "VarBackward0",
            "VarMeanBackward0",
            "ViewBackward0",
        ),
        _ALL,
    ),
    **dict.fromkeys(
        (
            "AddBackward0",
            "Atan2Backward0",
            "BinaryCrossEntropyWithLogitsBackward0",
            "DistBackward0",
            "DotBackward0",
            "HypotBackward0",
            "LdexpBackward0",
            "LinalgCrossBackward0",
            "LogaddexpBackward0",
            "MulBackward0",
            "VdotBackward0",
        ),
        (0, 1),
    ),
    **dict.fromkeys(("AddcmulBackward0", "BlockDiagBackward0", "CatBackward0"), (0, 1, 2)),
    **dict.fromkeys(("LerpBackward1", "StackBackward0"), (0, 1, 2)),
    "AddcdivBackward0": (0, 1),
    "AddmvBackward0": (0, 1),
    "PowBackward1": (1,),
    "SpecialZetaBackward0": (1,),
    "XlogyBackward0": (1,),
}
# (cat and stack carry to every input, block_diag too)
_ANY_INPUT = {"BlockDiagBackward0", "CatBackward0", "StackBackward0"}
# nodes whose inputs broadcast to the output: the engine's sum_to of a broadcast input (and
# expand/repeat's own sum over the repeated dims) materializes the ZeroTensor (real zeros)
BROADCASTS = {
    "AddBackward0",
    "AddbmmBackward0",
    "AddcdivBackward0",
    "AddcmulBackward0",
    "AddmmBackward0",
    "AddmvBackward0",
    "AddrBackward0",
    "Atan2Backward0",
    "BaddbmmBackward0",
    "CopysignBackward0",
    "DivBackward0",
    "ExpandBackward0",
    "FmodBackward1",
    "HypotBackward0",
    "LdexpBackward0",
    "LerpBackward0",
    "LerpBackward1",
    "LinalgCrossBackward0",
    "LogaddexpBackward0",
    "MulBackward0",
    "PowBackward1",
    "RemainderBackward1",
    "RepeatBackward0",
    "SpecialZetaBackward0",
    "SubBackward0",
    "XlogyBackward0",
}


# Nodes with several outputs that get sgn's ZeroTensor for one output and a real gradient for
# another (measured in torch 2.13, tests/ops/test_fidelity_zero_tensor.py): std_mean's
# std_backward fills the std gradient in place (masked_fill_) and aminmax's formula adds the
# max term into the min term in place (+=), so a ZeroTensor there raises; slogdet ignores a
# real input's sign gradient and solves with the ZeroTensor, materialized (zeros). Every other
# formula skips a missing gradient where torch's multiplies by its ZeroTensor (the same).
_MIXED_RAISES = {"StdMeanBackward0": 0, "AminmaxBackward0": 0}
_MIXED_ZEROS = {"LinalgSlogdetBackward0"}


def mixed_grads(task, fn, grads_out):
    """The gradients node `fn` runs on when sgn's ZeroTensor reached some of its outputs and
    real gradients others (a ZeroTensor beside a real gradient for one output adds nothing):
    as received, or torch's error where its formula writes into the ZeroTensor."""
    arrived = task.zero_in.pop(fn)
    name = fn.name()
    for nr, (shape, dtype), like in arrived:
        if grads_out[nr] is not None:
            continue
        if _MIXED_RAISES.get(name, -1) == nr:
            raise RuntimeError(ZERO_IMMUTABLE)
        if name in _MIXED_ZEROS:
            grads_out = list(grads_out)
            zeros = Tensor._make(like.xp.zeros(shape, dtype=dtype), like._device)
            grads_out[nr] = zero_tensor(zeros)
    return grads_out


def zero_tensor(zeros):
    """Mark real zeros (a materialized ZeroTensor) so that a node's formula keeps torch's
    ZeroTensor where torch's own kernel for it would (a product with it: mv's matrix
    gradient grad.ger(vec) stays zero at an inf vec while vec's, mat.t().mv(grad), is NaN)."""
    zeros._zero_tensor = True
    return zeros


def user_zero_tensor(like):
    """torch's ZeroTensor as a user sees it (a leaf's `.grad`, autograd.grad's result): zeros
    shaped as `like` whose array refuses writes (NumPy's read-only flag; a CuPy array has
    none, so on a GPU in-place ops on it still write)."""
    return _frozen(like.xp.zeros_like(like._data), like._device)


def _frozen(arr, device):
    """Zeros `arr` made torch's ZeroTensor: read-only and known to aliases_zero_tensor."""
    if hasattr(arr.flags, "writeable"):
        arr.flags.writeable = False
    key = id(arr)
    _ARRAYS[key] = weakref.ref(arr, lambda _, key=key: _ARRAYS.pop(key, None))
    return zero_tensor(Tensor._make(arr, device))


def aliases_zero_tensor(t):
    """Whether t's array is, or is a view of, a ZeroTensor's (torch's view, detach, .data
    and indexing of a ZeroTensor are ZeroTensors). Off the hot path: only a failed write and
    `Tensor._is_zerotensor` ask."""
    arr = t._data
    while arr is not None:
        ref = _ARRAYS.get(id(arr))
        if ref is not None and ref() is arr:
            return True
        arr = getattr(arr, "base", None)
    return False


def refuse_write(t, error, message=ZERO_IMMUTABLE):
    """Called where NumPy refused to write into t's read-only array (`error`): torch's
    "ZeroTensors are immutable" RuntimeError when t is a ZeroTensor, else `error` itself."""
    if aliases_zero_tensor(t):
        return RuntimeError(message)
    return error


def setitem_refused(t, error, index, adv, scalar):
    """refuse_write for t[index] = value, worded as the kernel torch's setitem reaches: an
    advanced index is index_put_, a number into slices/Ellipsis/None is fill_ (the plain
    message), anything else (an int index's select, a tensor value) is copy_."""
    items = index if isinstance(index, tuple) else (index,)
    select = any(isinstance(i, int) and not isinstance(i, bool) for i in items)
    fill = adv or (scalar and not select)
    return refuse_write(t, error, ZERO_IMMUTABLE if fill else ZERO_IMMUTABLE_COPY)


def check_mutable(t, message=ZERO_IMMUTABLE):
    """Raise torch's error before an in-place write into a ZeroTensor that does not go
    through Tensor's in-place methods (zero_grad(set_to_none=False), clip_grad_*)."""
    if not getattr(t._data.flags, "writeable", True) and aliases_zero_tensor(t):
        raise RuntimeError(message)


def is_zero_tensor(grad):
    """Whether `grad` is a materialized ZeroTensor (see zero_tensor)."""
    return grad.__dict__.get("_zero_tensor", False)


def carries(fn, k, arrived):
    """Whether node `fn` passes a ZeroTensor that `arrived` ((shape, dtype) of its output
    gradient) on to its input `k` as a ZeroTensor (True) or sends real values (False)."""
    name = fn.name()
    ks = CARRIES.get(name)
    if ks is None or (k not in ks and name not in _ANY_INPUT):
        return False
    shape, dtype = fn._in_meta[k]
    if dtype != arrived[1]:  # the engine casts the gradient to the input's dtype: real zeros
        return False
    return name not in BROADCASTS or tuple(shape) == tuple(arrived[0])


def send(task, fn, like):
    """Record that `fn` sends a ZeroTensor (shaped as each input, on `like`'s device) to
    every input it has an edge to."""
    for k, nxt in enumerate(fn._next):
        if nxt is not None:
            task.zero_in.setdefault(nxt, []).append((fn._nrs[k], fn._in_meta[k], like))


def _accumulate_zero(leaf):
    """AccumulateGrad of a ZeroTensor: the leaf's hooks see it; `.grad` becomes it when
    unset (torch's ZeroTensor; real zeros under create_graph, which clones), stays as it is
    when set (+= zero), and a ZeroTensor `.grad` refuses the in-place +=. A hook's
    replacement is accumulated as any gradient; the post-accumulate hooks run after."""
    g = zero = user_zero_tensor(leaf)
    for hook in list((leaf._hooks or {}).values()):
        r = hook(g)
        if r is not None:
            g = r
    if g is not zero:
        from .engine import _grad_lock, _store_grad

        with _grad_lock:
            _store_grad(leaf, g, state.enabled)
    elif leaf.grad is None:
        leaf.grad = (
            Tensor._make(leaf.xp.zeros_like(leaf._data), leaf._device) if state.enabled else g
        )
    elif is_zero_tensor(leaf.grad) and not state.enabled:  # in-place += on it refuses
        raise RuntimeError(ZERO_IMMUTABLE)
    for hook in list((leaf._post_hooks or {}).values()):
        hook(leaf)


def zero_grads_in(task, fn, targets, captured):
    """Run node `fn` that received only ZeroTensors; returns its gradients per input edge:
    the formula's values on real zeros where torch materializes, None where the ZeroTensor
    goes on (recorded in task.zero_in for the node below). A leaf or requested input reached
    only that way gets zeros; a formula that fills its gradient in place raises."""
    arrived = task.zero_in.pop(fn)
    if fn.name() in _FILLS_GRAD_IN_PLACE or getattr(fn, "fills_grad_in_place", False):
        raise RuntimeError(ZERO_IMMUTABLE)
    if fn.name() in _MIXED_RAISES and len({nr for nr, _, _ in arrived}) > 1:
        raise RuntimeError(ZERO_IMMUTABLE)  # (aminmax: max's term added into min's)
    leaf = fn.variable if isinstance(fn, AccumulateGrad) else None
    if targets is not None and fn in targets:
        for _, i, t in targets[fn]:
            if captured is not None:  # autograd.grad returns the ZeroTensor itself
                captured[i] = user_zero_tensor(t) if captured[i] is None else captured[i]
            elif leaf is None and t.grad is None:  # retain_grad's copy: real zeros
                t.grad = Tensor._make(t.xp.zeros_like(t._data), t._device)
        if captured is not None and leaf is not None:
            return ()
    if leaf is not None:
        _accumulate_zero(leaf)
        return ()
    grads = [None] * fn._n_out
    hooked = fn._tensor_hooks or fn._retain
    for nr, (shape, dtype), like in arrived:
        zeros = like.xp.zeros(shape, dtype=dtype)
        if hooked:  # a hook sees torch's ZeroTensor
            grads[nr] = _frozen(zeros, like._device)
        else:
            grads[nr] = zero_tensor(Tensor._make(zeros, like._device))
    if hooked:  # tensor hooks and retain_grad see the ZeroTensor; one a hook replaces is
        from .engine import _tensor_hooks  # real from there on

        sent = list(grads)
        grads = _tensor_hooks(fn, grads, None, state.enabled)
        if any(g is not s for g, s in zip(grads, sent)):
            fn.check_saved()
            res = fn.backward(*grads)
            return res if isinstance(res, tuple) else (res,)
    fn.check_saved()
    res = fn.backward(*grads)
    if res is None:
        return ()  # no gradient, or it sent a ZeroTensor on itself (sgn)
    res = list(res) if isinstance(res, (tuple, list)) else [res]
    like = arrived[0][2]
    out_meta = arrived[0][1]
    for k, g in enumerate(res):
        if g is None or k >= len(fn._next) or fn._next[k] is None:
            continue
        if carries(fn, k, out_meta):
            res[k] = None
            task.zero_in.setdefault(fn._next[k], []).append((fn._nrs[k], fn._in_meta[k], like))
        elif fn.name() in CARRIES and (k in CARRIES[fn.name()] or fn.name() in _ANY_INPUT):
            shape, dtype = fn._in_meta[k]  # materialized by the engine's sum_to or cast
            res[k] = Tensor._make(like.xp.zeros(shape, dtype=dtype), like._device)
    return tuple(res)
