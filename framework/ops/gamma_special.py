"""torch.special's Math.h functions without Sleef: erfcx, the Bessel/Airy family, the
orthogonal polynomials of (x, n) and the regularized incomplete gamma functions (igamma /
igammac, torch.special.gammainc / gammaincc).

Values come from ``_special_more`` (torch's scalar kernels replayed bit for bit where numba
is). As in torch, the Bessel/Airy functions and the polynomials record no graph (their
outputs never require grad), erfcx has SpecialErfcxBackward0, and igamma/igammac
differentiate their second argument only ("the derivative for 'igamma: input' is not
implemented."). float16/bfloat16 inputs are refused (torch's CPU kernels lack them), except
by igamma/igammac, which compute in float and round; integer inputs give the default float
dtype (igamma/igammac refuse them).
"""

import math

import numpy as np

from .._errors import bool_subtraction, cast_error, must_be_tensor, refuse
from .. import dtypes
from ..autograd.op import Op
from ..tensor import Tensor
from . import _special_more
from .unary import _float

__all__ = ["igamma", "igammac"]

BESSEL = (
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
)  # fmt: skip
POLYNOMIALS = _special_more.K.POLYNOMIALS


def run(xp, name, x, n=None):
    """torch's `name` of the float32/float64 array x (and n), on x's device."""
    if xp is np:
        return _special_more.apply(name, x, n)
    host = _special_more.apply(name, xp.asnumpy(x), None if n is None else xp.asnumpy(n))
    return xp.asarray(host)


class _MathH(Op):
    """A unary Math.h function of torch.special: no graph (torch's outputs never require
    grad); `fn_name` picks the kernel."""

    differentiable = False
    no_bfloat16_empty = True
    fn_name = None

    def forward(self, x):
        """The values in x's float dtype (integers: the default float dtype)."""
        return run(self.xp, self.fn_name, _float(x))


def _unary_class(name):
    """The Op of the unary function `name` (its torch kernel "<name>_cpu")."""
    title = "".join(p.title() for p in name.split("_"))
    return type(f"Special{title}", (_MathH,), {"fn_name": name, "no_bfloat16": f"{name}_cpu"})


UNARY_OPS = {name: _unary_class(name) for name in BESSEL}


class SpecialErfcx(Op):
    """special.erfcx(x) = exp(x^2) erfc(x) (its backward: (2 x erfcx(x) - 2/sqrt(pi)) g)."""

    saves_inputs = True
    saves_output = True
    no_bfloat16 = "erfcx_cpu"
    no_bfloat16_empty = True

    def forward(self, x):
        """Faddeeva's erfcx as ATen's calc_erfcx computes it."""
        return run(self.xp, "erfcx", _float(x))

    def backward(self, grad):
        """torch's formula (2 * x * result - 2 / sqrt(pi)) * grad, in Tensor ops."""
        x = self.inputs[0]
        return (x * 2.0 * self.output - 2.0 / math.sqrt(math.pi)) * grad

    jvp = Op.jvp_elementwise


class _Polynomial(Op):
    """An orthogonal polynomial of torch.special at (x, n): x and n promoted together, n cast
    to int64 per element as C++ does; no graph."""

    differentiable = False
    promote = True
    no_bfloat16_empty = True
    fn_name = None

    def forward(self, x, n):
        """The values in the promoted float dtype."""
        x, n = _float(x), _float(n)
        return run(self.xp, self.fn_name, x, n.astype(x.dtype, copy=False))


def _polynomial_class(name):
    """The Op of the polynomial `name` (its torch kernel "<name>_cpu")."""
    title = "".join(p.title() for p in name.split("_"))
    return type(f"Special{title}", (_Polynomial,), {"fn_name": name, "no_bfloat16": f"{name}_cpu"})


POLYNOMIAL_OPS = {name: _polynomial_class(name) for name in POLYNOMIALS}


def polynomial(name, x, n):
    """torch.special.<name>(x, n): x or n may be a Python number (not both)."""
    x_t, n_t = isinstance(x, Tensor), isinstance(n, Tensor)
    if not x_t and not n_t:
        raise TypeError(
            f"special_{name}() received an invalid combination of arguments - got "
            f"({type(x).__name__}, {type(n).__name__}), but expected one of:\n"
            " * (Tensor x, Tensor n, *, Tensor out = None)\n"
            " * (Number x, Tensor n, *, Tensor out = None)\n"
            " * (Tensor x, Number n, *, Tensor out = None)\n"
        )
    return POLYNOMIAL_OPS[name].apply(x, n)


def unary(name, x, arg="input"):
    """torch.special.<name>(x) for a Tensor x (a number: torch's TypeError)."""
    if not isinstance(x, Tensor):
        raise must_be_tensor(f"special_{name}", arg, 1, x)
    if name == "erfcx":
        return SpecialErfcx.apply(x)
    return UNARY_OPS[name].apply(x)


class _IncompleteGamma(Op):
    """igamma / igammac(a, x): the regularized lower / upper incomplete gamma function;
    torch differentiates x only (a: "the derivative for 'igamma: input' is not
    implemented.")."""

    promote = True
    saves_inputs = True
    fn_name = None
    sign = 1.0
    bool_input = False  # a was bool: torch's formula subtracts from it (its bool error)

    def forward(self, a, x):
        """The values in the promoted float dtype (integers and bool: torch's refusal)."""
        refuse(a, "biu", f"{self.fn_name}_cpu")
        return run(self.xp, self.fn_name, a, x.astype(a.dtype, copy=False))

    def _slope(self, a, x):
        """exp((a - 1) log x - x - lgamma(a)), torch's formula in Tensor ops."""
        return ((a - 1) * x.log() - x - a.lgamma()).exp()

    def backward(self, grad):
        """x's gradient (a's: torch's NotImplementedError)."""
        a, x = self.inputs
        if self.needs_input_grad[0]:
            raise NotImplementedError(
                f"the derivative for '{self.fn_name}: input' is not implemented."
            )
        if self.bool_input:
            raise bool_subtraction(False)
        g = grad if self.sign > 0 else -grad
        return None, g * self._slope(a, x)

    def jvp(self, ta, tx):
        """torch has no forward derivative for igamma/igammac."""
        from ..autograd import forward_ad

        raise forward_ad.not_implemented(self.fn_name)


class Igamma(_IncompleteGamma):
    """igamma(a, x) = P(a, x) (IgammaBackward0)."""

    fn_name = "igamma"


class Igammac(_IncompleteGamma):
    """igammac(a, x) = Q(a, x) = 1 - P(a, x) (IgammacBackward0)."""

    fn_name = "igammac"
    sign = -1.0


def _check(fname, input, other, first=1):
    """torch's TypeError for a Python number argument (`first`: other's position - 1)."""
    if not isinstance(input, Tensor):
        raise must_be_tensor(fname, "input", 1, input)
    if not isinstance(other, Tensor):
        raise must_be_tensor(fname, "other", first + 1, other)


def incomplete_gamma(name, fname, input, other):
    """igamma / igammac (`name`) of (input, other), `fname` naming torch's signature in its
    TypeError for a number argument (special_gammainc ...)."""
    _check(fname, input, other)
    out = (Igamma if name == "igamma" else Igammac).apply(input, other)
    if out.grad_fn is not None and input.dtype == dtypes.bool_:
        out.grad_fn.bool_input = True
    return out


def igamma(input, other):
    """The regularized lower incomplete gamma function P(input, other), elementwise
    (torch.igamma, torch.special.gammainc); differentiable in `other` only.

    Args:
        input: the tensor a (> 0).
        other: the tensor x (>= 0), broadcast with input.

    Example:
        >>> framework.igamma(framework.tensor([1.0]), framework.tensor([1.0]))
        tensor([0.6321])
    """
    return incomplete_gamma("igamma", "igamma", input, other)


def igammac(input, other):
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P(input,
    other), elementwise (torch.igammac, torch.special.gammaincc); differentiable in `other`
    only.

    Args:
        input: the tensor a (> 0).
        other: the tensor x (>= 0), broadcast with input.

    Example:
        >>> framework.igammac(framework.tensor([1.0]), framework.tensor([1.0]))
        tensor([0.3679])
    """
    return incomplete_gamma("igammac", "igammac", input, other)


def _igamma_method(self, other):
    """See :func:`framework.igamma`."""
    _check("igamma", self, other, 0)
    return igamma(self, other)


def _igammac_method(self, other):
    """See :func:`framework.igammac`."""
    _check("igammac", self, other, 0)
    return igammac(self, other)


def _check_cast(self, other):
    """torch's in-place check, made before the kernel's dtype check: the promoted result
    type must cast to self's (a bool self with an int64 other: "result type Long can't be
    cast to the desired output type Bool"; fuzz seeds 560041559, 560052790). The shapes
    come first (TensorIterator's shape, then its types): where other does not broadcast to
    self's shape the in-place path raises torch's shape error (fuzz seed 575019899)."""
    try:
        shape = np.broadcast_shapes(tuple(self.shape), tuple(other.shape))
    except ValueError:
        return
    if shape != tuple(self.shape):
        return
    res = dtypes.result_type([self._data, other._data], [self.dim(), other.dim()], [])
    rank = {"b": 0, "i": 1, "u": 1}
    if rank.get(res.kind, 2) > rank.get(self._data.dtype.kind, 2):
        raise cast_error(dtypes.scalar_type_name(res), self._data.dtype)


def _igamma_(self, other):
    """In-place :func:`framework.igamma`: P(self, other) written into self.

    Args:
        other: the tensor x (>= 0), broadcast to self's shape.

    Example:
        >>> framework.tensor([1.0]).igamma_(framework.tensor([1.0]))
        tensor([0.6321])
    """
    _check("igamma_", self, other, 0)
    _check_cast(self, other)
    return self._inplace(igamma, other)


def _igammac_(self, other):
    """In-place :func:`framework.igammac`: Q(self, other) written into self.

    Args:
        other: the tensor x (>= 0), broadcast to self's shape.

    Example:
        >>> framework.tensor([1.0]).igammac_(framework.tensor([1.0]))
        tensor([0.3679])
    """
    _check("igammac_", self, other, 0)
    _check_cast(self, other)
    return self._inplace(igammac, other)


_igamma_method.__name__ = "igamma"
_igammac_method.__name__ = "igammac"
_igamma_.__name__ = "igamma_"
_igammac_.__name__ = "igammac_"
Tensor.igamma = _igamma_method
Tensor.igammac = _igammac_method
Tensor.igamma_ = _igamma_
Tensor.igammac_ = _igammac_
