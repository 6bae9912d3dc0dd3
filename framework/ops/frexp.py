"""frexp: a float tensor split into mantissa and power-of-two exponent (torch.frexp)."""

from ..autograd.op import Op
from ..tensor import Tensor
from .extrema import return_types

__all__ = ["frexp"]


class Frexp(Op):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent, |mantissa| in [0.5, 1);
    FrexpBackward0 as torch: grad / exponent.exp2() (the int32 exponent's exp2 in the default
    float dtype), the exponent not differentiable."""

    non_differentiable = (1,)
    saves = ("exponent",)

    def forward(self, x):
        mantissa, exponent = self.xp.frexp(x)
        self.exponent = exponent.astype("int32", copy=False)
        return mantissa.astype(x.dtype, copy=False), self.exponent

    def backward(self, grad, _):
        return grad / Tensor._make(self.exponent, grad.device).exp2()

    def jvp(self, t):
        return t / Tensor._make(self.exponent, t.device).exp2()


def frexp(input):
    """frexp(input) -> (Tensor, Tensor)

    Decomposes ``input`` into a mantissa in ``(-1, -0.5] U [0.5, 1)`` (0 for 0, inf and NaN
    kept) and an int32 exponent with ``input == mantissa * 2 ** exponent``.

    Args:
        input (Tensor): a floating-point tensor.

    Example:
        >>> framework.frexp(framework.tensor([8.0, 0.75]))
        torch.return_types.frexp(
        mantissa=tensor([0.5000, 0.7500]),
        exponent=tensor([4, 0], dtype=torch.int32))
    """
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(*Frexp.apply(input))
