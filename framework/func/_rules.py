"""Batching rules: each runs one op once on the physical (batched) tensors.

A rule is `rule(cls, args, params)`: `args` mix BatchedTensors (leading batch dims, see
_batched.py), plain tensors and Python values; it returns the op's result as BatchedTensors.
Most ops need no thought: elementwise ops broadcast, so aligning ranks suffices; ops with a
`dim` parameter shift it past the batch dims. The rest (matmul, indexing, conv, losses) have
their own rules here and in _rules_nn.py.
"""

import functools
import math

from .. import dtypes
from ..autograd.op import Op
from ..tensor import Tensor
from ._batched import BatchedTensor, aligned, lvls_of, register, rewrap, union, wrap


@functools.lru_cache(maxsize=None)
def op_classes():
    """Every Op subclass by class name (the rules name ops without importing each module)."""
    out, stack = {}, [Op]
    while stack:
        c = stack.pop()
        for s in c.__subclasses__():
            if "_op" in s.__dict__ and s._op is s:
                out.setdefault(s.__name__, s)
            stack.append(s)
    return out


def ops(*names):
    """The Op classes with these names (names of ops not defined are skipped)."""
    table = op_classes()
    return [table[n] for n in names if n in table]


def ldim(x):
    """The logical (per-sample) rank."""
    return x._data.ndim if isinstance(x, Tensor) else 0


def wdim(d, n):
    """Dim d of a rank-n tensor, wrapped to be non-negative."""
    return d + n if d < 0 else d


# ----- elementwise ---------------------------------------------------------------------------
ELEMENTWISE = (
    "Exp Expm1 Log Log1p Sqrt Rsqrt Reciprocal Sin Cos Abs Sign Floor Ceil Trunc Round Frac "
    "ToCopy Clone Lerp LerpTensor Addcmul Addcdiv Fmod NanToNum Erf Erfc Erfinv Add Sub Rsub "
    "Mul MulScalar Div DivRounding Remainder RemainderScalar Neg Pow PowTensor PowScalarBase Clamp "
    "ClampTensor ClampMin ClampMax Maximum Minimum Where Softplus Elu Celu Silu Mish Hardswish "
    "Hardsigmoid Hardtanh LogSigmoid Softshrink Hardshrink Threshold Tanh Sigmoid Relu LeakyRelu "
    "NormalCdf Gelu Eq Ne Lt Le Gt Ge LogicalNot LogicalAnd LogicalOr LogicalXor BitwiseAnd "
    "BitwiseOr BitwiseXor BitwiseNot Sgn Alias Atan Atan2 Tan Asin Acos Sinh Cosh Asinh Acosh "
    "Atanh Log2 Log10 Exp2 Sinc Xlogy Hypot Copysign Logit Digamma Lgamma Polygamma I0 "
    "Special Heaviside Nextafter Deg2rad Rad2deg Square Float Positive Conj Real Imag "
    "ThresholdBackward LogAddExp LogAddExp2 Logaddexp Logaddexp2 Fmax Fmin Angle Isnan Isinf "
    "Isfinite Signbit Ldexp Frexp Exponent Mvlgamma Softsign Tanhshrink Selu Relu6 Rrelu "
    "EluBackward GeluBackward SiluBackward SigmoidBackward TanhBackward SoftplusBackward "
    "LogSigmoidBackward HardswishBackward LeakyReluBackward HardtanhBackward "
    "SoftshrinkBackward HardshrinkBackward RreluWithNoiseBackward Deg2Rad Rad2Deg SpecialEntr "
    "SpecialI0E SpecialI1 SpecialI1E SpecialLogNdtr SpecialZeta _AddScalar _Ndtri _IntBinary "
    "DivScalar SpecialXlog1Py SpecialXlog1PyScalarSelf SpecialXlog1PyScalarOther InplaceCompare "
    "LinalgMatrixExp _Named"  # (one input whose forward takes leading batch dims)
    " SpecialErfcx Igamma Igammac"
).split()


def _special16_names():
    """The sixteenth pass's torch.special classes (Bessel/Airy and polynomials, made by
    name in ops.gamma_special): elementwise."""
    from ..ops import gamma_special as G

    return [c.__name__ for c in (*G.UNARY_OPS.values(), *G.POLYNOMIAL_OPS.values())]


def elementwise(cls, args, params):
    """Broadcasting ops: batch dims in front, logical ranks padded to the largest."""
    lvls = union(args)
    tensors = [a for a in args if isinstance(a, Tensor)]
    nd = max(ldim(a) for a in tensors)
    if getattr(cls, "promote", False) and len({a._data.dtype for a in tensors}) > 1:
        # torch promotes by the per-sample ranks (a batched 0-dim tensor stays 0-dim)
        target = dtypes.result_type(
            [a._data for a in tensors],
            [ldim(a) for a in tensors],
            [a for a in args if a is not None and not isinstance(a, Tensor)],
        )
        args = [
            a._cast(target) if isinstance(a, Tensor) and a._data.dtype != target else a
            for a in args
        ]
    phys = [aligned(a, lvls, nd) if isinstance(a, Tensor) else a for a in args]
    return rewrap(cls.apply(*phys, **params), lvls)


def masked_fill(cls, args, params):
    """masked_fill(x, mask, value): x and mask broadcast; a batched 0-dim value becomes a
    where() over the batch."""
    x, mask, value = args[0], args[1], args[2]
    lvls = union(args)
    nd = max(ldim(x), ldim(mask))
    if isinstance(value, BatchedTensor):
        from .. import ops as O

        return wrap(
            O.where(
                aligned(mask, lvls, nd), aligned(value, lvls, nd).to(x.dtype), aligned(x, lvls, nd)
            ),
            lvls,
        )
    return rewrap(
        cls.apply(aligned(x, lvls, nd), aligned(mask, lvls, nd), *args[2:], **params), lvls
    )


def unary(cls, args, params):
    """One tensor, the op sees whole trailing dims (tril, pixel_shuffle, linalg inverses)."""
    x = args[0]
    return rewrap(cls.apply(x._value, *args[1:], **params), x._levels)


# ----- ops with a dim parameter --------------------------------------------------------------
REDUCTIONS = (
    "Sum Mean Prod Var Std VarMean StdMean Nansum Logsumexp Amax Amin All Any LinalgVectorNorm"
).split()
DIM_OPS = (
    "Softmax SafeSoftmax LogSoftmax Cumsum Cumprod Cummax Cummin Glu MaxDim MinDim Sort "
    "SortStable "
    "Topk Kthvalue MedianDim NanmedianDim Mode Flip Transpose Unsqueeze Unbind Split "
    "Diagonal Unfold Permute Squeeze Roll Argmax Argmin LogcumsumexpOp Rot90 IndexFill "
    "Aminmax TransposeInplace DiagEmbed"
).split()
DIM_KEYS = ("dim", "dims", "dim0", "dim1", "dim2", "axis")


def _shift(d, n, nb):
    if isinstance(d, (tuple, list)):
        return type(d)(wdim(int(i), n) + nb for i in d)
    return wdim(int(d), n) + nb


def with_dims(cls, args, params, all_if_none=False):
    """One batched tensor input: shift its dim parameters past the batch dims."""
    from ._batched import fallback

    x = args[0]
    if any(isinstance(a, BatchedTensor) for a in args[1:]):
        return fallback(cls, args, params)
    lvls, nb = lvls_of(x), len(lvls_of(x))
    name = cls.__name__
    v = x._value
    n = ldim(x) + (1 if name in ("Unsqueeze", "DiagEmbed") else 0)  # dims of the output
    p = dict(params)
    scalar = n == 0 and (all_if_none or any(p.get(k) is not None for k in DIM_KEYS))
    if scalar:  # a 0-dim sample: give it a dim of one, drop it after
        v, n = v.unsqueeze(-1), 1
        if "keepdim" in p:
            p["keepdim"] = False
            scalar = False  # the reduction drops it
    for k in DIM_KEYS:
        if k not in p:
            continue
        d = p[k]
        empty = isinstance(d, (tuple, list)) and not d
        if d is None or (empty and all_if_none and not issubclass(cls, _bool_reduce())):
            if all_if_none:
                p[k] = tuple(range(nb, nb + n))
            elif name in ("Argmax", "Argmin", "Aminmax"):
                bs = tuple(v.shape[:nb])
                flat = v.reshape(bs + (math.prod(v.shape[nb:]),))
                out = cls.apply(flat, dim=nb, keepdim=False)
                if p.get("keepdim"):
                    out = (
                        tuple(o.reshape(bs + (1,) * ldim(x)) for o in out)
                        if type(out) is tuple
                        else out.reshape(bs + (1,) * ldim(x))
                    )
                return rewrap(out, lvls)
            elif name == "Squeeze":
                p[k] = tuple(i + nb for i, s in enumerate(x.shape) if s == 1)
        elif name == "Permute":
            p[k] = tuple(range(nb)) + _shift(d, n, nb)
        elif not empty:
            p[k] = _shift(d, n, nb)
    if name == "Squeeze" and p.get("overload") == 0:
        p["overload"] = 2
    out = cls.apply(v, *args[1:], **p)
    if scalar:
        out = tuple(o.squeeze(-1) for o in out) if type(out) is tuple else out.squeeze(-1)
    return rewrap(out, lvls)


def _bool_reduce():
    return op_classes()["_BoolReduce"]


def reduction(cls, args, params):
    """vmap rule of a reduction: its ``dim`` shifted past the batch dims (``None``: all logical
    dims)."""
    return with_dims(cls, args, params, all_if_none=True)


def max_all(cls, args, params):
    """max()/min() over every per-sample element: amax over the logical dims."""
    x = args[0]
    nb = len(x._levels)
    amax, amin = ops("Amax", "Amin")
    op = amax if cls.__name__ == "MaxAll" else amin
    return wrap(op.apply(x._value, dim=tuple(range(nb, x._value.dim())), keepdim=False), x._levels)


# ----- views ---------------------------------------------------------------------------------
def _batch_shape(x, lvls):
    return tuple(x._value.shape[: len(lvls)])


def view(cls, args, params):
    """view/reshape/expand: the batch shape in front of the per-sample target shape."""
    x = args[0]
    lvls = x._levels
    nb, bs = len(lvls), _batch_shape(x, lvls)
    p = dict(params)
    v = x._value
    if cls.__name__ == "Expand":
        shape = tuple(p["shape"])
        extra = len(shape) - ldim(x)
        if extra:
            v = v.reshape(bs + (1,) * extra + tuple(v.shape[nb:]))
        return wrap(v.expand(bs + shape), lvls)
    if cls.__name__ == "Repeat":
        reps = tuple(p["repeats"])
        extra = len(reps) - ldim(x)
        if extra:
            v = v.reshape(bs + (1,) * extra + tuple(v.shape[nb:]))
        return wrap(cls.apply(v, repeats=(1,) * nb + reps), lvls)
    return wrap(v.reshape(bs + tuple(p["shape"])), lvls)


def transpose2(cls, args, params):
    """t(): the last two per-sample dims (a no-op below 2-D)."""
    x = args[0]
    nb = len(x._levels)
    if ldim(x) < 2:
        return wrap(x._value.view_as(x._value), x._levels)
    return wrap(x._value.transpose(nb, nb + 1), x._levels)


def basic_index(cls, args, params):
    """Select/Slice: the batch dims are kept whole in front of the key."""
    x = args[0]
    key = (slice(None),) * len(x._levels) + tuple(params["key"])
    return wrap(cls.apply(x._value, key=key), x._levels)


def embed(cls, args, params):
    """The backward of indexing (zeros with the gradient written in): batch dims in front."""
    g = args[0]
    lvls, nb = g._levels, len(g._levels)
    p = dict(params)
    p["shape"] = _batch_shape(g, lvls) + tuple(p["shape"])
    p["key"] = (slice(None),) * nb + tuple(p["key"])
    return wrap(cls.apply(g._value, **p), lvls)


def adv_index(cls, args, params):
    """Index with (unbatched) integer arrays; NumPy moves split advanced dims to the front."""
    x = args[0]
    lvls, nb = x._levels, len(x._levels)
    key = tuple(params["key"])
    pos = [i for i, k in enumerate(key) if not isinstance(k, slice)]
    out = cls.apply(x._value, key=(slice(None),) * nb + key)
    if pos and pos != list(range(pos[0], pos[-1] + 1)):  # split: adv dims went first
        import numpy

        k = numpy.broadcast_shapes(*[key[i].shape for i in pos])
        out = out.movedim(tuple(range(len(k))), tuple(range(nb, nb + len(k))))
    return wrap(out, lvls)


# ----- products ------------------------------------------------------------------------------
def _mat(a, lvls):
    """A matmul operand: batched ones get every level (size 1 where missing), plain ones stay."""
    return aligned(a, lvls) if isinstance(a, BatchedTensor) else a


def mm(cls, args, params):
    """mm/bmm/mv/dot as one broadcasting matmul over the batch dims."""
    from .. import ops as O

    lvls = union(args)
    a, b = args[0], args[1]
    # (subclasses: vdot is a Dot)
    name = next(c.__name__ for c in cls.__mro__ if c.__name__ in ("Mm", "Mv", "Dot", "Bmm"))
    if name == "Mv":
        out = O.matmul(_mat(a, lvls), _mat(b, lvls).unsqueeze(-1)).squeeze(-1)
    elif name == "Dot":
        out = (aligned(a, lvls, 1) * aligned(b, lvls, 1)).sum(-1)
    else:
        pa, pb = _mat(a, lvls), _mat(b, lvls)
        if name == "Bmm" and (pa.dim() == 3 or pb.dim() == 3):  # one side unbatched by vmap
            pa = pa if pa.dim() > 3 or not isinstance(b, BatchedTensor) else pa.unsqueeze(0)
            pb = pb if pb.dim() > 3 or not isinstance(a, BatchedTensor) else pb.unsqueeze(0)
        out = O.matmul(pa, pb)
    return wrap(out, lvls)


def addmm(cls, args, params):
    """addmm(bias, m1, m2): beta * bias + alpha * m1 @ m2 with batched operands."""
    from .. import ops as O

    bias, m1, m2 = args[0], args[1], args[2]
    beta, alpha = params.get("beta", 1), params.get("alpha", 1)
    lvls = union(args)
    prod = O.matmul(_mat(m1, lvls), _mat(m2, lvls))
    if alpha != 1:
        prod = prod * alpha
    if isinstance(bias, BatchedTensor):
        bias = aligned(bias, lvls, 2)
    if beta == 0:
        return wrap(prod, lvls)
    return wrap(prod + (bias if beta == 1 else bias * beta), lvls)


def trilinear(cls, args, params):
    """torch's _trilinear with batched operands: every operand gets every level (expanded),
    the batch dims in front of each one's dims and of the output's (none summed), and the
    unroll dim moved with them."""
    lvls = union(args)
    nb = len(lvls)
    ins = [aligned(a, lvls, expand=True) for a in args[:3]]
    shift = lambda dims: tuple(d + nb for d in dims)
    p = {k: shift(params[k]) for k in ("expand1", "expand2", "expand3", "sumdim")}
    p["unroll_dim"] = params.get("unroll_dim", 1) + nb
    return wrap(cls.apply(*ins, **p), lvls)


def pad_backward(cls, args, params):
    """A reflect/replicate pad's backward kernel (zeros of the input's shape with the gradient
    summed in at the pad's source indices): batch dims in front of the key and the shape."""
    lvls = union(args)
    nb = len(lvls)
    g, x = (aligned(a, lvls, expand=True) for a in args[:2])
    p = dict(params)
    p["key"] = (slice(None),) * nb + tuple(p["key"])
    return wrap(cls.apply(g, x, **p), lvls)


def dynamic_shape(cls, args, params):
    """torch refuses ops whose output size depends on the values."""
    raise RuntimeError(
        "vmap: We do not support batching operators that can output dynamic "
        "shape. Attempted to vmap over aten::_unique2. Please file an issue at "
        "https://github.com/pytorch/functorch/issues"
    )


def _register():
    table = op_classes()

    def reg(rule, names):
        register(*[table[n] for n in names if n in table])(rule)

    reg(elementwise, ELEMENTWISE + ["FmodTensor"] + _special16_names())
    reg(masked_fill, ["MaskedFill"])
    reg(dynamic_shape, ["Unique2", "UniqueConsecutive", "UniqueDim", "MaskedSelect"])
    reg(reduction, REDUCTIONS)
    reg(with_dims, DIM_OPS)
    reg(max_all, ["MaxAll", "MinAll"])
    reg(view, ["View", "ReshapeAlias", "UnsafeView", "Expand", "Repeat"])
    reg(transpose2, ["T"])
    reg(basic_index, ["Select", "Slice", "_Basic"])
    reg(embed, ["_Embed", "_IndexAccumulate"])
    reg(adv_index, ["Index"])
    reg(mm, ["Mm", "Mv", "Dot", "Bmm"])
    reg(addmm, ["Addmm"])
    reg(trilinear, ["Trilinear"])
    reg(
        pad_backward,
        [f"{k}Pad{n}DBackward" for k in ("Reflection", "Replication") for n in (1, 2, 3)],
    )
    reg(
        unary,
        [
            "Tril",
            "Triu",
            "LinalgInvEx",
            "LinalgDet",
            "LinalgSlogdet",
            "LinalgCholeskyEx",
            "LinalgQr",
            "LinalgEigh",
            "LinalgSvd",
            "LinalgPinv",
            "PixelShuffle",
            "PixelUnshuffle",
            "ConstantPadNd",
        ],
    )


_register()
