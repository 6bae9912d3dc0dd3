"""The gamma family and Bessel functions: lgamma, digamma, polygamma, mvlgamma, i0, and the
torch.special ones with nodes of their own (i0e, i1, i1e, log_ndtr, entr, zeta).

Values come from _gamma_math (float64, after ATen's Math.h); backward formulas are torch's
derivatives.yaml entries, written in Tensor ops so double backward works.
"""

import math

import numpy as np

from .. import dtypes
from .._errors import bool_negation
from ..autograd.op import Op
from ..tensor import Tensor
from . import _gamma_math as K
from . import _vec_binary
from ._lgamma import lgamma as _lgamma_kernel
from .gamma_special import igamma, igammac
from .unary import _float, _zeros

__all__ = ["digamma", "i0", "igamma", "igammac", "lgamma", "mvlgamma", "polygamma"]


class _Special(Op):
    """A float unary special function computed by `kernel(xp, x)` in float64."""

    saves_inputs = True
    kernel = None

    def forward(self, x):
        """The values, computed in float64 and rounded to the input dtype."""
        x = _float(x)
        return type(self).kernel(self.xp, x).astype(x.dtype, copy=False)

    jvp = Op.jvp_elementwise


def _lgamma(xp, x):
    """torch's lgamma: Sleef's (``_sleef_lgamma``) for float32/float64 NumPy arrays, libm's
    algorithm in float64 (``_lgamma``) for the rest."""
    if xp is np and x.dtype in (np.float32, np.float64):
        from ._sleef_lgamma import lgamma as sleef

        return sleef(x)
    return _lgamma_kernel(xp, x)


class Lgamma(_Special):
    """lgamma(x): log|Gamma(x)| (LgammaBackward0: grad * digamma(x))."""

    kernel = staticmethod(_lgamma)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        return grad * digamma(self.inputs[0])


class Digamma(_Special):
    """digamma(x): the derivative of lgamma (DigammaBackward0: grad * polygamma(1, x))."""

    kernel = staticmethod(K.digamma)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        return grad * polygamma(1, self.inputs[0])


class Polygamma(_Special):
    """polygamma(n, x): the n-th derivative of digamma (its backward: polygamma(n + 1, x))."""

    def forward(self, x, n):
        """The values, in the input's float arithmetic as torch's kernel (finite at poles)."""
        self.n = n
        x = _float(x)
        return K.polygamma(self.xp, n, x, x.dtype).astype(x.dtype, copy=False)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        return grad * polygamma(self.n + 1, self.inputs[0])


class I0(_Special):
    """i0(x): the modified Bessel function of order 0 (I0Backward0: grad * i1(x))."""

    kernel = staticmethod(K.i0)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        return grad * special_i1(self.inputs[0])


class SpecialI0E(_Special):
    """special.i0e(x) = exp(-|x|) i0(x) (its backward: i1e(x) - sgn(x) i0e(x))."""

    node_name = "SpecialI0EBackward0"
    saves_output = True
    kernel = staticmethod(K.i0e)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        x = self.inputs[0]
        return grad * (special_i1e(x) - x.sgn() * self.output)


def _not_tiny(x, name):
    """torch's i1 / i1e backward: |x| > eps (else, NaN included, the slope is 0.5) and x
    replaced by eps there; float and double only."""
    from .._errors import refuse
    from .._finfo import finfo

    if x._data.dtype.itemsize < 4:
        refuse(x._data, x._data.dtype.kind, name)

    eps = finfo(x.dtype).eps
    keep = x.abs() > eps
    return keep, x.where(keep, _zeros(x) + eps)


class SpecialI1(_Special):
    """special.i1(x): the modified Bessel function of order 1."""

    node_name = "SpecialI1Backward0"
    saves_output = True
    kernel = staticmethod(K.i1)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        keep, safe = _not_tiny(self.inputs[0], "i1_backward")
        slope = i0(safe) - self.output * safe.reciprocal()
        return grad * slope.where(keep, _zeros(slope) + 0.5)


class SpecialI1E(_Special):
    """special.i1e(x) = exp(-|x|) i1(x)."""

    node_name = "SpecialI1EBackward0"
    saves_output = True
    kernel = staticmethod(K.i1e)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        keep, safe = _not_tiny(self.inputs[0], "i1e_backward")
        slope = special_i0e(safe) - self.output * (safe.sgn() + safe.reciprocal())
        return grad * slope.where(keep, _zeros(slope) + 0.5)


def _log_ndtr(xp, x):
    """log of the standard normal CDF: torch's bits (calc_log_ndtr, erfcx below -1) by
    ``_special_more`` (NumPy float32/float64 with numba), else `_log_ndtr_float64`."""
    exact = K._exact_input(xp, x)
    if exact is not None:
        from . import _special_more

        out = _special_more.apply("log_ndtr", exact, python=False)
        if out is not None:
            return out
    return _log_ndtr_float64(xp, x)


def _log_ndtr_float64(xp, x):
    """log of the standard normal CDF in float64: log1p(-erfc(x/sqrt2)/2) above -1,
    log(erfc(-x/sqrt2)/2) below, and the asymptotic series far in the lower tail (where erfc
    underflows)."""
    from .special import _erfc64 as _erfc

    x = xp.asarray(x, xp.float64)
    t = x * math.sqrt(0.5)
    with K._quiet(xp):
        upper = xp.log1p(-_erfc(xp, t) / 2)
        lower = xp.log(_erfc(xp, -t) / 2)
        z = xp.where(x < -20, x, -20.0)
        inv, term, total = 1 / (z * z), xp.ones_like(z), xp.ones_like(z)
        for k in range(1, 12):
            term = -term * (2 * k - 1) * inv
            total = total + term
        tail = -0.5 * z * z - xp.log(-z) - 0.5 * math.log(2 * math.pi) + xp.log(total)
    out = xp.where(x >= -1, upper, xp.where(x >= -20, lower, tail))
    return xp.where(xp.isnan(x), xp.nan, out)


class SpecialLogNdtr(_Special):
    """special.log_ndtr(x): log of the standard normal CDF, accurate in the tails."""

    node_name = "SpecialLogNdtrBackward0"
    no_bfloat16 = "log_ndtr_cpu"
    no_bfloat16_empty = True
    saves_output = True
    kernel = staticmethod(_log_ndtr)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        x = self.inputs[0]
        return grad / math.sqrt(2 * math.pi) * (self.output + x * x / 2).neg().exp()


def _entr(xp, x):
    if xp is np and getattr(x, "dtype", None) == np.float32:  # torch: -x * logf(x) in float
        with K._quiet(xp):
            out = -x * _vec_binary.libm("log", np.where(x > 0, x, np.float32(1)))
        return np.where(x < 0, np.float32(-np.inf), np.where(x == 0, np.float32(0), out))
    x = xp.asarray(x, xp.float64)
    with K._quiet(xp):
        out = -x * xp.log(xp.where(x > 0, x, 1.0))
    return xp.where(x < 0, -xp.inf, xp.where(x == 0, 0.0, out))


class SpecialEntr(_Special):
    """special.entr(x) = -x log x (0 at 0, -inf below 0)."""

    node_name = "SpecialEntrBackward0"
    kernel = staticmethod(_entr)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        return grad * -(1 + self.inputs[0].log())


class SpecialZeta(Op):
    """zeta(x, q): torch differentiates q only (x: "the derivative for 'zeta' is not
    implemented"); a Python number x or q gives SpecialZetaBackward1 / 2."""

    promote = True
    saves_inputs = True
    no_bfloat16 = "zeta_cpu"
    no_bfloat16_empty = True
    bool_input = None  # torch's formula negates the (unpromoted) input: its error for bool

    def forward(self, x, q):
        """Hurwitz zeta(x, q), in the promoted float dtype."""
        x, q = _float(x), _float(q)
        return K.zeta(self.xp, x, q).astype(q.dtype if hasattr(q, "dtype") else x.dtype)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        x, q = self.inputs
        if self.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        if self.bool_input is not None:
            raise self.bool_input()
        return None, grad * -x * special_zeta(x + 1.0, q)

    def jvp(self, tx, tq):
        """torch's: q's tangent only (a tangent on x: not implemented)."""
        from ..autograd import forward_ad

        if tx is not None:
            raise forward_ad.not_implemented("special_zeta")
        x, q = self._fw_args
        return None if tq is None else tq * -x * special_zeta(x + 1.0, q)


def lgamma(input):
    """The natural log of the absolute value of the gamma function, elementwise.

    Args:
        input: the tensor.

    Example:
        >>> framework.lgamma(framework.tensor([0.5, 3.0]))
        tensor([0.5724, 0.6931])
    """
    return Lgamma.apply(input)


def digamma(input):
    """The logarithmic derivative of the gamma function, psi(x) = d/dx log Gamma(x).

    Args:
        input: the tensor.

    Example:
        >>> framework.digamma(framework.tensor([1.0, 0.5]))
        tensor([-0.5772, -1.9635])
    """
    return Digamma.apply(input)


def polygamma(n, input):
    """The n-th derivative of digamma (n = 0 is digamma itself).

    Args:
        n: the order, an int >= 0.
        input: the tensor.

    Example:
        >>> framework.polygamma(1, framework.tensor([1.0, 0.5]))
        tensor([1.6449, 4.9348])
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(
            f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return Polygamma.apply(input, n=n)


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: sum_i lgamma(x - i/2) + p(p-1)/4 log(pi).

    Args:
        input: the tensor.
        p: the dimension, >= 1.

    Example:
        >>> framework.mvlgamma(framework.tensor([2.5]), 2)
        tensor([0.8570])
    """
    from ..creation import arange

    if input.dtype == dtypes.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if input.dtype.is_floating_point else input.to(_default())
    args = arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=x.dtype, device=x.device)
    return Mvlgamma.apply(x, args, p=p)


def _default():
    return dtypes.get_default_dtype()


class Mvlgamma(Op):
    """torch's mvlgamma node: sum of lgamma over the shifted arguments, its own backward."""

    no_edge = (1,)  # the arange of p's offsets
    saves_inputs = True

    def forward(self, x, args, p):
        """sum_i lgamma(x + args_i) + p (p - 1) / 4 log(pi), in the input dtype."""
        xp = self.xp
        self.p = p
        shifted = x[..., None] + args  # torch: args.add(x.unsqueeze(-1)).lgamma_().sum(-1)
        if xp is np and x.dtype in (np.float32, np.float64):
            from ._sum_kernel import torch_sum

            lg = _lgamma(xp, shifted)  # torch's float/double bits; summed and offset in x's type
            total = torch_sum(lg, (lg.ndim - 1,))  # (None without numba: NumPy's order)
            total = lg.sum(-1) if total is None else total.reshape(lg.shape[:-1])
            return total + x.dtype.type(p * (p - 1) * math.log(math.pi) / 4)
        total = _lgamma_kernel(xp, shifted).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)
        return total.astype(x.dtype, copy=False)

    def backward(self, grad):
        """The input gradient by torch's formula, in Tensor ops (double backward works)."""
        x, args = self.inputs
        return grad * digamma(x.unsqueeze(-1) + args).sum(-1), None

    jvp = Op.jvp_elementwise


def i0(input):
    """The modified Bessel function of the first kind of order 0, elementwise.

    Args:
        input: the tensor.

    Example:
        >>> framework.i0(framework.tensor([0.0, 1.0]))
        tensor([1.0000, 1.2661])
    """
    return I0.apply(input)


def special_i0e(input):
    """exp(-|x|) * i0(x) (torch.special.i0e)."""
    return SpecialI0E.apply(input)


def special_i1(input):
    """The modified Bessel function of the first kind of order 1 (torch.special.i1)."""
    return SpecialI1.apply(input)


def special_i1e(input):
    """exp(-|x|) * i1(x) (torch.special.i1e)."""
    return SpecialI1E.apply(input)


def special_log_ndtr(input):
    """log of the standard normal CDF, accurate in the lower tail (torch.special.log_ndtr)."""
    return SpecialLogNdtr.apply(input)


def special_entr(input):
    """-x log x for x > 0, 0 at 0, -inf below (torch.special.entr)."""
    return SpecialEntr.apply(input)


def _scalar_bool_negation():
    return RuntimeError("torch boolean negative, the `-` operator, is not supported.")


def special_zeta(input, other):
    """The Hurwitz zeta function sum_k (k + other) ** -input (torch.special.zeta)."""
    from .. import creation

    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("special_zeta(): expected at least one Tensor argument")
    ref = input if isinstance(input, Tensor) else other
    out = SpecialZeta.apply(
        input if isinstance(input, Tensor) else creation.tensor(input, device=ref.device),
        other if isinstance(other, Tensor) else creation.tensor(other, device=ref.device),
    )
    if out.grad_fn is not None and isinstance(input, Tensor) and input.dtype == dtypes.bool_:
        out.grad_fn.bool_input = bool_negation
    elif out.grad_fn is not None and isinstance(input, bool):  # torch's Scalar negation
        out.grad_fn.bool_input = _scalar_bool_negation
    if out.grad_fn is not None and not isinstance(input, Tensor):
        out.grad_fn._as("SpecialZetaBackward1")
    elif out.grad_fn is not None and not isinstance(other, Tensor):
        out.grad_fn._as("SpecialZetaBackward2")
    return out
