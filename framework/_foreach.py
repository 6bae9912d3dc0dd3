"""torch._foreach_*: an op applied to each tensor of a list (with a scalar, a list of scalars,
a list of tensors or a tensor as the other operand), as the optimizers' ``foreach=True``
paths and user code call them. Each result is the per-tensor op's (values, dtypes, errors,
gradients), its node renamed to torch's foreach node (``ForeachAddBackward1Scalar``; torch
records one node for the whole list, ours one per tensor). The in-place forms (``_foreach_
add_``) run the tensors' in-place methods and return the list.

All functions are generated from the tables below and attached to the framework namespace.
"""

import numbers
import sys

from .ops.elementwise import NotImplementedBackward
from .tensor import Tensor

UNARY = (
    "abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 log1p "
    "log2 neg reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc"
).split()

# binary op -> torch's node per kind of other operand (scalar, scalars, tensors, tensor)
BINARY = {
    "add": (
        "ForeachAddBackward1Scalar",
        "ForeachAddBackward1ScalarList",
        "ForeachAddBackward0List",
        "ForeachAddBackward1Scalar",
    ),
    "sub": (
        "ForeachSubBackward1Scalar",
        "ForeachSubBackward1ScalarList",
        "ForeachSubBackward0List",
        "ForeachSubBackward1Scalar",
    ),
    "mul": (
        "ForeachMulBackward1Scalar",
        "ForeachMulBackward1ScalarList",
        "ForeachMulBackward0List",
        "ForeachMulBackward0Tensor",
    ),
    "div": (
        "ForeachDivBackward1Scalar",
        "ForeachDivBackward1ScalarList",
        "ForeachDivBackward0",
        "ForeachDivBackward0Tensor",
    ),
    "clamp_max": (
        "ForeachClampMaxBackward0Scalar",
        "ForeachClampMaxBackward0ScalarList",
        "ForeachClampMaxBackward1List",
        "ForeachClampMaxBackward0Scalar",
    ),
    "clamp_min": (
        "ForeachClampMinBackward0Scalar",
        "ForeachClampMinBackward0ScalarList",
        "ForeachClampMinBackward1List",
        "ForeachClampMinBackward0Scalar",
    ),
    "maximum": (
        "ForeachMaximumBackward0",
        "ForeachMaximumBackward1",
        "ForeachMaximumBackward0List",
        "ForeachMaximumBackward0",
    ),
    "minimum": (
        "ForeachMinimumBackward0",
        "ForeachMinimumBackward1",
        "ForeachMinimumBackward0List",
        "ForeachMinimumBackward0",
    ),
    "pow": (
        "ForeachPowBackward0Scalar",
        "ForeachPowBackward1",
        "ForeachPowBackward0",
        "ForeachPowBackward0Scalar",
    ),
}
# the nodes the in-place forms leave on a non-leaf (torch calls the Scalar overloads: AddBackward1;
# None: the per-tensor op's own node; torch's NotImplemented nodes are not reproduced)
INPLACE_NODES = {
    "add": ("AddBackward1", "AddBackward1", None, "AddBackward1"),
    "sub": ("SubBackward1", "SubBackward1", None, "SubBackward1"),
    "mul": ("MulBackward1", "MulBackward1", None, "MulBackward0"),
    "div": ("DivBackward1", "DivBackward1", None, "DivBackward0"),
    "clamp_max": ("ClampMaxBackward0", "ClampMaxBackward0", None, "ClampMaxBackward0"),
    "clamp_min": ("ClampMinBackward0", "ClampMinBackward0", None, "ClampMinBackward0"),
    "maximum": (None, None, None, None),
    "minimum": (None, None, None, None),
    "pow": ("PowBackward0", "PowBackward0", "PowBackward1", "PowBackward0"),
}
# maximum/minimum with a number: clamp_min/clamp_max (the elementwise ops take tensors only)
SCALAR_FORMS = {"maximum": "clamp_min", "minimum": "clamp_max"}
# pointwise ops of three lists (the last argument a scalar, scalars or a tensor of scalars)
TERNARY = {
    "addcmul": ("ForeachAddcmulBackward0Scalar", "ForeachAddcmulBackward0ScalarList"),
    "addcdiv": ("ForeachAddcdivBackward0Scalar", "ForeachAddcdivBackward0ScalarList"),
}
SCALAR, SCALARS, TENSORS, TENSOR = range(4)


class ForeachNotImplemented(NotImplementedBackward):
    """The node torch records for an in-place foreach op without a derivative
    (_foreach_maximum_ with a number): its backward raises torch's error."""

    node_name = "torch::autograd::NotImplemented"

    def backward(self, grad):
        raise RuntimeError(f"derivative for {self.aten} is not implemented")


def _maximum(xp, a, b):
    return xp.maximum(a, b)


def _minimum(xp, a, b):
    return xp.minimum(a, b)


def _framework():
    return sys.modules["framework"]


def _tensors(tensors):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return tensors


def _same_length(a, b):
    if len(a) != len(b):
        raise RuntimeError(
            f"Tensor lists must have the same number of tensors, got {len(a)} and {len(b)}"
        )


def _per_tensor(tensors, other):
    """(kind of `other`, its value for each tensor) with torch's length checks."""
    if isinstance(other, Tensor):
        return TENSOR, [other] * len(tensors)
    if isinstance(other, numbers.Number):
        return SCALAR, [other] * len(tensors)
    other = list(other)
    if other and all(isinstance(o, Tensor) for o in other):
        _same_length(tensors, other)
        return TENSORS, other
    if len(other) != len(tensors):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    return SCALARS, other


def _renamed(out, name):
    if name is not None and out.grad_fn is not None:
        out.grad_fn._as(name)
    return out


def _unary(op, inplace):
    def function(self):
        tensors = _tensors(self)
        if inplace:
            for t in tensors:
                getattr(t, op + "_")()
            return self if isinstance(self, list) else tensors
        outs = []
        for t in tensors:
            out = getattr(_framework(), op)(t)
            fn = out.grad_fn
            outs.append(_renamed(out, None if fn is None else "Foreach" + fn.name()))
        return tuple(outs)

    name = f"_foreach_{op}" + ("_" if inplace else "")
    what = "in place, returning the list" if inplace else "returning a tuple of new tensors"
    return _named(function, name, f"{name}(self) -> {op} of each tensor of ``self``, {what}.")


def _binary(op, nodes, inplace):
    def function(self, other, *, alpha=None):
        tensors = _tensors(self)
        kind, others = _per_tensor(tensors, other)
        kw = {}
        if alpha is not None:
            _check_alpha(op, kind, self, other, alpha)
            kw["alpha"] = alpha
        name = (
            nodes[kind] if kind != TENSOR or not kw else f"Foreach{op.capitalize()}Backward0Tensor"
        )
        f = getattr(_framework(), op)
        if kind in (SCALAR, SCALARS) and op in SCALAR_FORMS:
            f = getattr(_framework(), SCALAR_FORMS[op])
        if inplace:
            node = INPLACE_NODES[op][kind]
            for t, o in zip(tensors, others):
                method = getattr(t, f.__name__ + "_", None)
                if op in SCALAR_FORMS and kind != TENSORS:  # torch: no derivative
                    fn = _maximum if op == "maximum" else _minimum
                    t._inplace(ForeachNotImplemented.apply, o, fn=fn, aten=f"_foreach_{op}_")
                elif method is not None:
                    method(o, **kw)
                else:  # maximum/minimum with tensors: no Tensor method
                    t._inplace(f, o)
                _renamed(t, node)
            return self if isinstance(self, list) else tensors
        return tuple(_renamed(f(t, o, **kw), name) for t, o in zip(tensors, others))

    name = f"_foreach_{op}" + ("_" if inplace else "")
    return _named(
        function,
        name,
        f"{name}(self, other, *, alpha=None): {op} of each tensor of ``self`` with ``other`` "
        "(a number, a list of numbers, a list of tensors or a tensor)"
        + (", in place, returning the list." if inplace else ", as a tuple."),
    )


def _check_alpha(op, kind, self, other, alpha):
    """torch's overloads take alpha with a list of tensors (and add with a tensor) only."""
    if kind == SCALAR and op == "add":
        raise TypeError(
            "_foreach_add() received an invalid combination of arguments - got "
            f"({type(self).__name__}, {type(other).__name__}, alpha={type(alpha).__name__}), "
            "but expected one of:\n * (tuple of Tensors self, Number scalar)\n * (tuple of "
            "Tensors self, tuple of Scalars scalars)\n * (tuple of Tensors self, Tensor other, "
            "*, Number alpha = 1)\n * (tuple of Tensors self, tuple of Tensors other, *, Number "
            "alpha = 1)\n"
        )
    if kind == SCALARS:
        raise TypeError(
            f"expected Tensor as element 0 in argument 1, but got {type(other[0]).__name__}"
        )
    if kind == SCALAR or (kind == TENSOR and op != "add"):
        raise TypeError(
            f"_foreach_{op}(): argument 'other' (position 2) must be tuple of Tensors, not "
            f"{type(other).__name__}"
        )


def _ternary(op, nodes, inplace):
    def function(self, tensor1, tensor2, value=1):
        tensors = _tensors(self)
        tensor1, tensor2 = list(tensor1), list(tensor2)
        _same_length(tensors, tensor1)
        _same_length(tensors, tensor2)
        if isinstance(value, Tensor):
            value = value.tolist()
        kind, values = _per_tensor(tensors, value)
        if inplace:
            for t, a, b, v in zip(tensors, tensor1, tensor2, values):
                getattr(t, op + "_")(a, b, value=v)
            return self if isinstance(self, list) else tensors
        f = getattr(_framework(), op)
        return tuple(
            _renamed(f(t, a, b, value=v), nodes[kind])
            for t, a, b, v in zip(tensors, tensor1, tensor2, values)
        )

    name = f"_foreach_{op}" + ("_" if inplace else "")
    return _named(
        function,
        name,
        f"{name}(self, tensor1, tensor2, value=1): {op} over the three lists (value: a number, "
        "one per tensor, or a tensor of them)" + (", in place." if inplace else "."),
    )


def _lerp(inplace):
    def function(self, tensors1, weight):
        tensors = _tensors(self)
        ends = list(tensors1)
        _same_length(tensors, ends)
        kind, weights = _per_tensor(tensors, weight)
        name = {
            SCALAR: "ForeachLerpBackward0Scalar",
            SCALARS: "ForeachLerpBackward0ScalarList",
            TENSORS: "ForeachLerpBackward1List",
        }.get(kind)
        if inplace:
            for t, e, w in zip(tensors, ends, weights):
                t.lerp_(e, w)
            return self if isinstance(self, list) else tensors
        f = _framework().lerp
        return tuple(_renamed(f(t, e, w), name) for t, e, w in zip(tensors, ends, weights))

    name = "_foreach_lerp" + ("_" if inplace else "")
    return _named(
        function,
        name,
        f"{name}(self, tensors1, weight): lerp of each tensor toward tensors1's (weight: a "
        "number, one per tensor, or a list of tensors)" + (", in place." if inplace else "."),
    )


def _foreach_pow_scalar_base(self, exponent):
    """pow with a number base: ``self ** exponent[i]`` (ForeachPowBackward2)."""
    tensors = _tensors(exponent)
    f = _framework().pow
    return tuple(_renamed(f(self, t), "ForeachPowBackward2") for t in tensors)


def _foreach_pow(self, exponent):
    """_foreach_pow(self, exponent): each tensor of ``self`` to the power ``exponent`` (a number,
    numbers, tensors); or a number ``self`` to each tensor of ``exponent``."""
    if isinstance(self, numbers.Number):
        return _foreach_pow_scalar_base(self, exponent)
    return _binary("pow", BINARY["pow"], False)(self, exponent)


def _foreach_norm(self, ord=2, dtype=None):
    """_foreach_norm(self, ord=2, dtype=None): the vector norm of each tensor
    (ForeachNormBackward0)."""
    f = _framework().linalg.vector_norm
    return tuple(_renamed(f(t, ord, dtype=dtype), "ForeachNormBackward0") for t in _tensors(self))


def _foreach_max(self):
    """_foreach_max(self): the maximum of each tensor (ForeachMaxBackward1)."""
    return tuple(_renamed(t.max(), "ForeachMaxBackward1") for t in _tensors(self))


def _foreach_zero_(self):
    """_foreach_zero_(self): zero each tensor in place; returns the list."""
    tensors = _tensors(self)
    for t in tensors:
        t.zero_()
    return self if isinstance(self, list) else tensors


def _foreach_copy_(self, src, non_blocking=False):
    """_foreach_copy_(self, src, non_blocking=False): copy src[i] into self[i]; returns the list."""
    tensors, srcs = _tensors(self), list(src)
    _same_length(tensors, srcs)
    for t, s in zip(tensors, srcs):
        t.copy_(s, non_blocking)
    return self if isinstance(self, list) else tensors


def _foreach_clone(self, *, memory_format=None):
    """_foreach_clone(self): a clone of each tensor (CloneBackward0 each, as torch)."""
    return tuple(_renamed(t.clone(), "ForeachCloneBackward0") for t in _tensors(self))


def _foreach_powsum(self, ord=2, dtype=None):
    """_foreach_powsum(self, ord=2, dtype=None): the sum of |x| ** ord over each tensor."""
    return tuple((t.abs() ** ord).sum(dtype=dtype) for t in _tensors(self))


def _foreach_mm(self, mat2):
    """_foreach_mm(self, mat2): the matrix product of each pair."""
    tensors, others = _tensors(self), list(mat2)
    _same_length(tensors, others)
    return tuple(_renamed(a.mm(b), "ForeachMmBackward0") for a, b in zip(tensors, others))


def _named(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def functions():
    """{name: function} of every _foreach_ function."""
    out = {}
    for op in UNARY:
        for inplace in (False, True):
            fn = _unary(op, inplace)
            out[fn.__name__] = fn
    for op, nodes in BINARY.items():
        for inplace in (False, True):
            fn = _binary(op, nodes, inplace)
            out[fn.__name__] = fn
    for op, nodes in TERNARY.items():
        for inplace in (False, True):
            fn = _ternary(op, nodes + (None, None), inplace)
            out[fn.__name__] = fn
    for inplace in (False, True):
        fn = _lerp(inplace)
        out[fn.__name__] = fn
    out["_foreach_pow"] = _foreach_pow
    for fn in (
        _foreach_norm,
        _foreach_max,
        _foreach_zero_,
        _foreach_copy_,
        _foreach_clone,
        _foreach_powsum,
        _foreach_mm,
    ):
        out[fn.__name__] = fn
    return out
