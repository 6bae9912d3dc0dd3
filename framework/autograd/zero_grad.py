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

from ..tensor import Tensor
from .grad_mode import state
from .op import AccumulateGrad

ZERO_IMMUTABLE = (
    "ZeroTensors are immutable. Please use the materialized zero tensor obtained using "
    ".clone() if you want a mutable tensor."
)
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


def zero_tensor(zeros):
    """Mark real zeros (a materialized ZeroTensor) so that a node's formula keeps torch's
    ZeroTensor where torch's own kernel for it would (a product with it: mv's matrix
    gradient grad.ger(vec) stays zero at an inf vec while vec's, mat.t().mv(grad), is NaN)."""
    zeros._zero_tensor = True
    return zeros


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


def zero_grads_in(task, fn, targets, captured):
    """Run node `fn` that received only ZeroTensors; returns its gradients per input edge:
    the formula's values on real zeros where torch materializes, None where the ZeroTensor
    goes on (recorded in task.zero_in for the node below). A leaf or requested input reached
    only that way gets zeros; a formula that fills its gradient in place raises."""
    arrived = task.zero_in.pop(fn)
    if fn.name() in _FILLS_GRAD_IN_PLACE or getattr(fn, "fills_grad_in_place", False):
        raise RuntimeError(ZERO_IMMUTABLE)
    if targets is not None and fn in targets:
        for _, i, t in targets[fn]:
            zero = Tensor._make(t.xp.zeros_like(t._data), t._device)
            if captured is not None:
                captured[i] = zero if captured[i] is None else captured[i]
            elif t.grad is None:
                t.grad = zero
        if captured is not None and isinstance(fn, AccumulateGrad):
            return ()
    if isinstance(fn, AccumulateGrad):
        leaf = fn.variable
        if leaf.grad is None:  # torch's .grad is then the ZeroTensor itself
            leaf.grad = zero_tensor(Tensor._make(leaf.xp.zeros_like(leaf._data), leaf._device))
        elif is_zero_tensor(leaf.grad) and not state.enabled:  # in-place += on it refuses
            raise RuntimeError(ZERO_IMMUTABLE)
        return ()
    grads = [None] * fn._n_out
    for nr, (shape, dtype), like in arrived:
        zeros = Tensor._make(like.xp.zeros(shape, dtype=dtype), like._device)
        grads[nr] = zero_tensor(zeros)
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
