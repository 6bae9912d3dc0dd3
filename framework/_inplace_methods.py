"""The in-place ``Tensor.<op>_`` methods that are the out-of-place op written back into self,
generated from one table and attached to ``Tensor`` at import (torch's ``x.sin_()`` is
``x.copy_(x.sin())`` with the node of ``sin``), plus the in-place operators (``x **= y``,
``x //= y``, ...) and the ``framework.<op>_`` functions torch exposes.

Every method goes through ``Tensor._inplace`` (version bump, leaf check, a saved copy of the
original for backward, CopySlices through views, torch's can't-be-cast error). The exceptions
keep torch's behaviour: comparisons record ``LtBackward0``-style nodes with zero gradients,
logical ops record nothing (self keeps its history), and the view-changing methods
(``t_``, ``transpose_``, ``squeeze_``, ``unsqueeze_``, ``as_strided_``) restride self.
"""

import sys

from .autograd.grad_mode import no_grad, state
from .autograd.op import Op
from .tensor import Tensor, View, _grad_leaf, LEAF_INPLACE
from . import dtypes
from .ops.extras4 import _need_tensor

# in-place name -> the out-of-place Tensor method computing its values
UNARY_AND_BINARY = {
    name + "_": name
    for name in (
        "abs acos acosh asin asinh atan atan2 atanh arccos arccosh arcsin arcsinh arctan "
        "arctan2 arctanh addbmm addmm addmv addr baddbmm bitwise_and bitwise_left_shift "
        "bitwise_not bitwise_or bitwise_right_shift bitwise_xor ceil clamp_max clamp_min "
        "copysign cos cosh cumprod deg2rad digamma erf erfc erfinv exp2 expm1 floor "
        "floor_divide fmod frac gcd heaviside hypot i0 lcm lgamma log log10 log1p log2 logit "
        "mvlgamma nextafter rad2deg reciprocal remainder renorm round rsqrt sgn sign sin sinc "
        "sinh square tan trunc xlogy polygamma"
    ).split()
}
# torch's aliases: the same op under another name (out of place and in place)
ALIASES = {
    "absolute": "abs",
    "negative": "neg",
    "multiply": "mul",
    "subtract": "sub",
    "divide": "div",
    "true_divide": "div",
    "fix": "trunc",
    "greater": "gt",
    "greater_equal": "ge",
    "less": "lt",
    "less_equal": "le",
    "not_equal": "ne",
    "swapdims": "transpose",
}
COMPARISONS = {"eq": "Eq", "ne": "Ne", "lt": "Lt", "le": "Le", "gt": "Gt", "ge": "Ge"}
LOGICAL = ("logical_and", "logical_or", "logical_xor", "logical_not")
# in-place name -> torch's node where it differs from the out-of-place op's
NODE_NAMES = {"polygamma_": "PolygammaBackward1"}
# torch has no derivative for these in place: a node that raises in backward
NOT_IMPLEMENTED = {
    name + "_": base
    for name, base in (
        ("asinh", "asinh"),
        ("arcsinh", "asinh"),
        ("acosh", "acosh"),
        ("arccosh", "acosh"),
        ("atanh", "atanh"),
        ("arctanh", "atanh"),
    )
}
# binary ops whose first argument is the other operand: torch checks that the promoted type
# casts to self's before the kernel refuses a dtype or divides by zero
OPERANDS = set(
    "atan2 arctan2 copysign fmod remainder hypot nextafter xlogy floor_divide "
    "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift gcd lcm".split()
)
# in-place name -> its first argument that must be a tensor (torch's argument parser)
TENSOR_ARGUMENT = {
    "atan2_": "other",
    "arctan2_": "other",
    "hypot_": "other",
    "nextafter_": "other",
    "gcd_": "other",
    "lcm_": "other",
    "heaviside_": "values",
    "logical_and_": "other",
    "logical_or_": "other",
    "logical_xor_": "other",
}
# in-place operators -> the in-place method (torch: the same kernels)
OPERATORS = {
    "__ipow__": "pow_",
    "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_",
    "__iand__": "bitwise_and_",
    "__ior__": "bitwise_or_",
    "__ixor__": "bitwise_xor_",
    "__ilshift__": "bitwise_left_shift_",
    "__irshift__": "bitwise_right_shift_",
    "__idiv__": "div_",
}


def _inplace_method(name, base):
    """``self.<base>(*args)`` written back into self (through ``Tensor._inplace``)."""
    node = NODE_NAMES.get(name)
    missing = NOT_IMPLEMENTED.get(name)
    need = TENSOR_ARGUMENT.get(name)
    operands = base in OPERANDS

    def op(src, *args, **kwargs):
        if missing is not None and ((state.enabled and src.requires_grad) or src._fw is not None):
            with no_grad():
                values = getattr(Tensor, base)(src, *args, **kwargs)
            return InplaceNotImplemented.apply(src, values=values._data, name=missing)
        out = getattr(Tensor, base)(src, *args, **kwargs)
        fn = out.grad_fn
        if fn is not None:
            if node is not None:
                fn._as(node)
            if getattr(fn, "aten", None) == base:  # NotImplemented: torch names the in-place op
                fn.aten = name
        return out

    def method(self, *args, **kwargs):
        if need is not None and args:
            _need_tensor(name, need, 1, args[0])
        if operands and args:
            if _grad_leaf(self):  # torch refuses the leaf before any shape or dtype check
                raise RuntimeError(LEAF_INPLACE)
            _castable_first(self, args[0])
        return self._inplace(op, *args, **kwargs)

    if base in ("clamp_min", "clamp_max"):

        def method(self, bound):
            if not isinstance(bound, Tensor) and self._data.dtype.kind in "biu":
                return self.clamp_(**{base[-3:]: bound})
            return self._inplace(op, bound)

    return _named(method, name, f"In-place version of :meth:`~Tensor.{base}`.")


def _put(self, index, source, accumulate=False):
    """See :func:`framework.put`."""
    from .ops.put import put

    return put(self, index, source, accumulate)


def _put_(self, index, source, accumulate=False):
    """In-place version of :meth:`~Tensor.put`."""
    from .ops.put import Put, _checked

    index, source = _checked(self, index, source, "put_")
    return self._inplace(Put.apply, index, source, accumulate=bool(accumulate))


def _resize_(self, *sizes, memory_format=None):
    """resize_(*sizes, memory_format=None) -> Tensor

    Gives self the sizes ``sizes`` with contiguous strides over its storage from its storage
    offset; a storage too small grows (the old values kept, new elements zeros where torch
    leaves them uninitialized). Refused for a tensor that requires grad.

    Args:
        sizes (torch.Size or int...): the new sizes.
        memory_format (framework.memory_format, optional): accepted for torch's signature;
            the strides are contiguous.

    Example:
        >>> x = framework.arange(6.0)
        >>> x.resize_(2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    from .backend import as_strided, storage_of
    from .ops.views import storage_offset

    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    sizes = tuple(int(n) for n in sizes)
    numel = 1
    for n in sizes:
        numel *= n
    if numel and any(n < 0 for n in sizes):
        raise RuntimeError("numel: integer multiplication overflow")  # torch's (unsigned) check
    strides, step = [], 1
    for n in reversed(sizes):
        strides.insert(0, step)
        step *= max(n, 1)
    storage, offset = storage_of(self._data), storage_offset(self._data)
    if offset + numel > storage.size:  # a new storage, the old values copied in
        grown = self.xp.zeros(offset + numel, dtype=self._data.dtype)
        grown[: storage.size] = storage.reshape(-1)
        storage = grown
    self._data = as_strided(storage, sizes, strides, offset)
    self._vc[0] += 1
    return self


def _resize_as_(self, the_template, memory_format=None):
    """resize_as_(the_template, memory_format=None) -> Tensor

    Resizes self to the size of ``the_template`` (see :meth:`Tensor.resize_`).

    Args:
        the_template (Tensor): the tensor whose size self takes.
        memory_format (framework.memory_format, optional): accepted for torch's signature.

    Example:
        >>> framework.arange(6.0).resize_as_(framework.zeros(3))
        tensor([0., 1., 2.])
    """
    return self.resize_(the_template.shape)


def _castable_first(self, other):
    """torch checks that the result type casts to self's dtype before the kernel runs
    (``int_tensor.bitwise_and_(2.5)``, ``bool_tensor.remainder_(int_zeros)``: the can't-be-cast
    error, not the kernel's dtype refusal or ZeroDivisionError)."""
    tensor = isinstance(other, Tensor)
    if not tensor and not isinstance(other, (bool, int, float)):
        return
    arrays, ndims = [self._data], [self.ndim]
    if tensor:
        from ._errors import broadcast_shapes, inplace_shape_error

        shape = broadcast_shapes(self._data.shape, other._data.shape)  # (its checks first)
        if shape != self._data.shape:
            raise inplace_shape_error(self._data.shape, shape)
        arrays.append(other._data)
        ndims.append(other.ndim)
    res = dtypes.result_type(arrays, ndims, [] if tensor else [other])
    if dtypes._kind(res) > dtypes._kind(self._data.dtype):
        raise RuntimeError(
            f"result type {dtypes.scalar_type_name(res)} can't be cast to the desired output "
            f"type {dtypes.scalar_type_name(self._data.dtype)}"
        )


def _float_power_(self, exponent):
    """In-place version of :meth:`~Tensor.float_power` (self must be float64, as torch)."""
    if self.dtype != dtypes.float64:
        raise RuntimeError(
            "the base given to float_power_ has dtype "
            f"{dtypes.scalar_type_name(self._data.dtype)} but the operation's result requires "
            "dtype Double"
        )
    return self._inplace(Tensor.float_power, exponent)


class ConjPhysicalInplace(Op):
    """``x.conj_physical_()`` of a real tensor: its values unchanged, torch's node
    ConjPhysicalBackward1 (the gradient passes through)."""

    node_name = "ConjPhysicalBackward1"

    def forward(self, x):
        return x

    def backward(self, grad):
        return grad

    jvp = Op.jvp_linear


def _conj_physical(self):
    """See :func:`framework.conj_physical`."""
    return self


def _conj_physical_(self):
    """In-place version of :meth:`~Tensor.conj_physical`."""
    return self._inplace(ConjPhysicalInplace.apply)


def conj_physical(input):
    """conj_physical(input) -> Tensor

    The elementwise complex conjugate, computed: for the real tensors of this framework,
    ``input`` itself (as torch returns it for a real tensor).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> x = framework.tensor([1.0, -2.0])
        >>> framework.conj_physical(x) is x
        True
    """
    return input


class InplaceNotImplemented(Op):
    """``x.asinh_()`` (acosh_, atanh_) with autograd: torch records ``AsinhBackward1``, whose
    backward raises NotImplementedError."""

    def forward(self, x, values, name):
        self._as(f"{name.capitalize()}Backward1")
        self.name = name
        return values

    def backward(self, grad):
        raise NotImplementedError(
            f"the derivative for 'inplace version of {self.name}' is not implemented."
        )

    def jvp(self, *tangents):
        raise NotImplementedError(
            f"Trying to use forward AD with {self.name}_ that does not support it because it "
            "has not been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
            "we can prioritize its implementation."
        )


class InplaceCompare(Op):
    """``self.lt_(other)`` and friends with autograd: the comparison in self's dtype; torch
    records ``LtBackward0`` (a scalar other) or ``LtBackward1`` (a tensor) whose gradients are
    zeros."""

    promote = True

    def forward(self, a, b, cmp, scalar, dtype):
        self._as(f"{cmp}Backward{0 if scalar else 1}")
        self.shapes = (a.shape, getattr(b, "shape", ()))
        return _COMPARE[cmp](a, b).astype(dtype)  # self's (an integer self too, as torch)

    def backward(self, grad):
        from .creation import zeros

        return tuple(zeros(s, dtype=grad.dtype, device=grad.device) for s in self.shapes)

    def jvp(self, *tangents):
        return self.result.detach() * 0  # (forward AD: a zero tangent, as torch's)


_COMPARE = {
    "Eq": lambda a, b: a == b,
    "Ne": lambda a, b: a != b,
    "Lt": lambda a, b: a < b,
    "Le": lambda a, b: a <= b,
    "Gt": lambda a, b: a > b,
    "Ge": lambda a, b: a >= b,
}


def _compare_method(name, base, cmp):
    def method(self, other):
        tensor = isinstance(other, Tensor)
        dual = self._fw is not None or (tensor and other._fw is not None)
        if dual or (state.enabled and (self.requires_grad or (tensor and other.requires_grad))):
            if _grad_leaf(self):
                raise RuntimeError(LEAF_INPLACE)
            return self._inplace(
                InplaceCompare.apply, other, cmp=cmp, scalar=not tensor, dtype=self._data.dtype
            )
        return self._inplace(getattr(Tensor, base), other)

    return _named(method, name, f"In-place version of :meth:`~Tensor.{base}`.")


def _logical_method(name, base):
    def method(self, *args):
        if args:
            _need_tensor(name, "other", 1, args[0])
        # torch records nothing: self keeps its history (and a leaf stays a leaf)
        with no_grad():
            values = getattr(Tensor, base)(self.detach(), *args)
        from .tensor import _write

        _write(self, values._data)
        return self

    return _named(method, name, f"In-place version of :meth:`~Tensor.{base}`.")


# the in-place functions torch exposes as ``torch.<op>_(input, ...)``: ``input.<op>_(...)``
FUNCTIONS = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ as_strided_ "
    "asin_ asinh_ atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ cos_ cosh_ "
    "deg2rad_ "
    "detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ "
    "ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ "
    "relu_ resize_as_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ "
    "xlogy_ zero_"
).split()


# the example of framework.<op>_: self and the other arguments (unary ops: a float tensor)
EXAMPLES = {
    "clamp_": ("[0.25, 0.5]", ", 0.3"),
    "clip_": ("[0.25, 0.5]", ", 0.3"),
    "clamp_max_": ("[0.25, 0.5]", ", 0.3"),
    "clamp_min_": ("[0.25, 0.5]", ", 0.3"),
    "fill_": ("[0.25, 0.5]", ", 2.0"),
    "gcd_": ("[4, 6]", ", framework.tensor([6, 4])"),
    "lcm_": ("[4, 6]", ", framework.tensor([6, 4])"),
    "ldexp_": ("[0.25, 0.5]", ", framework.tensor([1, 2])"),
    "xlogy_": ("[0.25, 0.5]", ", 2.0"),
    "as_strided_": ("[0.25, 0.5]", ", (1,), (1,)"),
    "addmv_": ("[0.25, 0.5]", ", framework.eye(2), framework.tensor([1.0, 2.0])"),
    "resize_as_": ("[0.25, 0.5]", ", framework.zeros(1)"),
    "index_put_": ("[0.25, 0.5]", ", (framework.tensor([0]),), framework.tensor(1.0)"),
}


def _function(name):
    def function(input, *args, **kwargs):
        """{name}(input, *args, **kwargs) -> Tensor

        In-place version of :func:`framework.{base}`: ``input.{name}(*args, **kwargs)``,
        which writes the result into ``input`` and returns it (the other arguments are those
        of :meth:`Tensor.{name}`).

        Args:
            input (Tensor): the tensor written in place.

        Example:
            >>> x = framework.tensor({values})
            >>> framework.{name}(x{args}) is x
            True
        """
        return getattr(Tensor, name)(input, *args, **kwargs)

    values, args = EXAMPLES.get(name, ("[0.25, 0.5]", ""))
    doc = function.__doc__.format(name=name, base=name[:-1], values=values, args=args)
    return _named(function, name, doc)


def _named(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _alias(base, name, doc):
    def method(self, *args, **kwargs):
        return getattr(self, base)(*args, **kwargs)

    return _named(method, name, doc)


# ----- view-changing methods: self takes the view's sizes and strides --------------------------
def _restride(self, out):
    """Self becomes `out` (a view op's result on self): its array, node and version."""
    if out.grad_fn is not None:
        if _grad_leaf(self):
            raise RuntimeError(LEAF_INPLACE)
        self.grad_fn, self._output_nr = out.grad_fn, out._output_nr
    self._data = out._data
    self._vc[0] += 1
    if type(self) is View:
        self._vattr = self._vc[0]  # its node is the one just recorded, not regenerated
    return self


# torch's node for the in-place form: the out-of-place view node renumbered
VIEW_NODES = {
    "TBackward0": "TBackward1",
    "TransposeBackward0": "TransposeBackward1",
    "UnsqueezeBackward0": "UnsqueezeBackward1",
    "SqueezeBackward0": "SqueezeBackward3",
    "SqueezeBackward1": "SqueezeBackward4",
    "SqueezeBackward2": "SqueezeBackward5",
    "AsStridedBackward0": "AsStridedBackward1",
}
VIEW_METHODS = (
    "t_",
    "transpose_",
    "swapaxes_",
    "swapdims_",
    "squeeze_",
    "unsqueeze_",
    "as_strided_",
)


def _view_method(name):
    base = name[:-1]

    def method(self, *args, **kwargs):
        if _grad_leaf(self):
            raise RuntimeError(LEAF_INPLACE)
        out = getattr(Tensor, base)(self, *args, **kwargs)
        if hasattr(out, "_levels"):  # under vmap: self takes the batched result's physical view
            self._value, self._levels, self._data = out._value, out._levels, out._data
            return self
        fn = out.grad_fn
        if fn is not None:
            fn._as(VIEW_NODES[fn.name()])
            self.grad_fn, self._output_nr = fn, out._output_nr
        self._data = out._data
        if out._fw is not None:  # forward AD: self's tangent restrided the same way
            from .tensor import _fw_copy

            _fw_copy(self, out)
        self._vc[0] += 1
        if type(self) is View:
            self._vattr = self._vc[0]  # its node is the one just recorded, not regenerated
        return self

    return _named(
        method,
        name,
        f"In-place version of :meth:`~Tensor.{base}` (self takes the view's sizes and strides).",
    )


def _install():
    """Attach the methods above to Tensor and the functions to the framework namespace."""
    for name, base in UNARY_AND_BINARY.items():
        if name not in vars(Tensor):
            setattr(Tensor, name, _inplace_method(name, base))
    for alias, base in ALIASES.items():
        if alias not in vars(Tensor):
            setattr(Tensor, alias, _alias(base, alias, f"See :func:`framework.{alias}`."))
        if alias + "_" not in vars(Tensor):
            doc = f"In-place version of :meth:`~Tensor.{alias}`."
            setattr(Tensor, alias + "_", _alias(base + "_", alias + "_", doc))
    for base, cmp in COMPARISONS.items():
        setattr(Tensor, base + "_", _compare_method(base + "_", base, cmp))
    for base in LOGICAL:
        setattr(Tensor, base + "_", _logical_method(base + "_", base))
    Tensor.float_power_ = _float_power_
    Tensor.put, Tensor.put_ = _put, _put_
    Tensor.conj_physical, Tensor.conj_physical_ = _conj_physical, _conj_physical_
    Tensor.resize_, Tensor.resize_as_ = _resize_, _resize_as_
    for name in VIEW_METHODS:
        setattr(Tensor, name, _view_method(name))
    for op, method in OPERATORS.items():
        if op not in vars(Tensor):
            setattr(Tensor, op, _alias(method, op, f"``self.{method}(other)``."))
    namespace = sys.modules["framework"]
    namespace.conj_physical = conj_physical
    from .ops.embedding import embedding_renorm_

    namespace.embedding_renorm_ = embedding_renorm_
    for name in FUNCTIONS:
        if not hasattr(namespace, name):
            setattr(namespace, name, _function(name))
    from .nn.functional_inplace import TOP_LEVEL

    for fn in TOP_LEVEL:  # torch.celu_, torch.dropout_, ...
        setattr(namespace, fn.__name__, fn)


_install()
