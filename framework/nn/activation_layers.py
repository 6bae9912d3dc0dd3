"""Module forms of the activations in ops/nonlinear.py (and softmin, softmax2d)."""

import warnings

from ..creation import empty
from ..ops import nonlinear as _f
from ..ops.activation import softmax
from . import init
from .module import Module
from .parameter import Parameter


def _inplace(extra, inplace):
    return extra + (", " if extra else "") + "inplace=True" if inplace else extra


class _Pointwise(Module):
    """A parameter-free activation with an optional in-place flag."""

    fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self).fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace("", self.inplace)


class SiLU(_Pointwise):
    r"""Applies the Sigmoid Linear Unit (SiLU, or swish) function elementwise.

    .. math::
        \text{SiLU}(x) = x \sigma(x)

    See :func:`~framework.nn.functional.silu` for the functional form.

    Args:
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.SiLU()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.2384, -0.1888,  0.0000,  0.7311,  2.8577])
    """

    fn = staticmethod(_f.silu)


class Mish(_Pointwise):
    r"""Applies the Mish function elementwise (a self-regularized non-monotonic activation).

    .. math::
        \text{Mish}(x) = x \tanh(\text{Softplus}(x))

    See :func:`~framework.nn.functional.mish` for the functional form.

    Args:
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Mish()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.2525, -0.2207,  0.0000,  0.8651,  2.9865])
    """

    fn = staticmethod(_f.mish)


class Hardswish(_Pointwise):
    r"""Applies the Hardswish function elementwise (Searching for MobileNetV3).

    .. math::
        \text{Hardswish}(x) = x \cdot \text{ReLU6}(x + 3) / 6

    See :func:`~framework.nn.functional.hardswish` for the functional form.

    Args:
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Hardswish()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.3333, -0.2083,  0.0000,  0.6667,  3.0000])
    """

    fn = staticmethod(_f.hardswish)


class Hardsigmoid(_Pointwise):
    r"""Applies the Hardsigmoid function elementwise.

    .. math::
        \text{Hardsigmoid}(x) = \begin{cases} 0 & x \le -3 \\ 1 & x \ge 3 \\ x / 6 + 1 / 2 &
        \text{otherwise} \end{cases}

    See :func:`~framework.nn.functional.hardsigmoid` for the functional form.

    Args:
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Hardsigmoid()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([0.1667, 0.4167, 0.5000, 0.6667, 1.0000])
    """

    fn = staticmethod(_f.hardsigmoid)


class SELU(_Pointwise):
    r"""Applies the SELU function elementwise, with :math:`\alpha \approx 1.6733` and
    :math:`\text{scale} \approx 1.0507`.

    .. math::
        \text{SELU}(x) = \text{scale} (\max(0, x) + \min(0, \alpha (\exp(x) - 1)))

    See :func:`~framework.nn.functional.selu` for the functional form.

    Args:
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.SELU()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-1.5202, -0.6918,  0.0000,  1.0507,  3.1521])
    """

    fn = staticmethod(_f.selu)


class ReLU6(_Pointwise):
    r"""Applies the ReLU6 function elementwise.

    .. math::
        \text{ReLU6}(x) = \min(\max(0, x), 6)

    See :func:`~framework.nn.functional.relu6` for the functional form.

    Args:
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.ReLU6()
        >>> m(framework.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """

    fn = staticmethod(_f.relu6)


class _NoArgs(Module):
    fn = None

    def forward(self, input):
        return type(self).fn(input)


class LogSigmoid(_NoArgs):
    r"""Applies the log-sigmoid function elementwise, computed stably.

    .. math::
        \text{LogSigmoid}(x) = \log\left(\frac{1}{1 + \exp(-x)}\right)

    See :func:`~framework.nn.functional.logsigmoid` for the functional form.

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.LogSigmoid()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-2.1269, -0.9741, -0.6931, -0.3133, -0.0486])
    """

    fn = staticmethod(_f.logsigmoid)


class Softsign(_NoArgs):
    r"""Applies the SoftSign function elementwise.

    .. math::
        \text{SoftSign}(x) = \frac{x}{1 + |x|}

    See :func:`~framework.nn.functional.softsign` for the functional form.

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Softsign()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.6667, -0.3333,  0.0000,  0.5000,  0.7500])
    """

    fn = staticmethod(_f.softsign)


class Tanhshrink(_NoArgs):
    r"""Applies the Tanhshrink function elementwise.

    .. math::
        \text{Tanhshrink}(x) = x - \tanh(x)

    See :func:`~framework.nn.functional.tanhshrink` for the functional form.

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Tanhshrink()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-1.0360, -0.0379,  0.0000,  0.2384,  2.0049])
    """

    fn = staticmethod(_f.tanhshrink)


class Softplus(Module):
    r"""Applies the Softplus function elementwise, a smooth approximation of ReLU; it reverts to the
    identity where :math:`\beta x > \text{threshold}`.

    .. math::
        \text{Softplus}(x) = \frac{1}{\beta} \log(1 + \exp(\beta x))

    See :func:`~framework.nn.functional.softplus` for the functional form.

    Args:
        beta (float, optional): the :math:`\beta` value (default: 1).
        threshold (float, optional): values of :math:`\beta x` above this revert to a linear
            function (default: 20).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Softplus()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([0.1269, 0.4741, 0.6931, 1.3133, 3.0486])
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return _f.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    r"""Applies the Exponential Linear Unit (ELU) function elementwise.

    .. math::
        \text{ELU}(x) = \begin{cases} x & x > 0 \\ \alpha (\exp(x) - 1) & x \le 0 \end{cases}

    See :func:`~framework.nn.functional.elu` for the functional form.

    Args:
        alpha (float, optional): the :math:`\alpha` value (default: 1.0).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.ELU()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.8647, -0.3935,  0.0000,  1.0000,  3.0000])
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return _f.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return _inplace(f"alpha={self.alpha}", self.inplace)


class CELU(ELU):
    r"""Applies the CELU function elementwise.

    .. math::
        \text{CELU}(x) = \max(0, x) + \min(0, \alpha (\exp(x / \alpha) - 1))

    See :func:`~framework.nn.functional.celu` for the functional form.

    Args:
        alpha (float, optional): the :math:`\alpha` value (default: 1.0).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.CELU()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.8647, -0.3935,  0.0000,  1.0000,  3.0000])
    """

    def forward(self, input):
        return _f.celu(input, self.alpha, self.inplace)


class Hardtanh(Module):
    r"""Applies the HardTanh function elementwise: the identity on ``[min_val, max_val]``, clamped
    outside.

    .. math::
        \text{HardTanh}(x) = \min(\max(x, \text{min\_val}), \text{max\_val})

    See :func:`~framework.nn.functional.hardtanh` for the functional form.

    Args:
        min_val (float, optional): minimum value of the linear region range (default: -1).
        max_val (float, optional): maximum value of the linear region range (default: 1).
        inplace (bool, optional): do the operation in place (default: False).
        min_value (float, optional): deprecated, use ``min_val`` (default: None).
        max_value (float, optional): deprecated, use ``max_val`` (default: None).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Hardtanh(-2.0, 2.0)
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-2.0000, -0.5000,  0.0000,  1.0000,  2.0000])
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn(
                "keyword argument `min_value` is deprecated and renamed to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            warnings.warn(
                "keyword argument `max_value` is deprecated and renamed to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if max_val <= min_val:
            raise AssertionError()

    def forward(self, input):
        return _f.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return _inplace(f"min_val={self.min_val}, max_val={self.max_val}", self.inplace)


class PReLU(Module):
    r"""Applies the parametric ReLU elementwise, with a learnable slope :math:`a` for the negative
    part (one shared, or one per channel).

    .. math::
        \text{PReLU}(x) = \max(0, x) + a \min(0, x)

    See :func:`~framework.nn.functional.prelu` for the functional form.

    Args:
        num_parameters (int, optional): the number of :math:`a` to learn: 1, or the number of
            channels (dimension 1 of the input) (default: 1).
        init (float, optional): the initial value of :math:`a` (default: 0.25).
        device (framework.device, optional): where to create the parameter (default: None).
        dtype (framework.dtype, optional): its dtype (default: None).

    Shape:
        - Input: :math:`(*)`, channels at dimension 1 when ``num_parameters > 1``.
        - Output: :math:`(*)`, the same shape.

    Example:
        >>> m = nn.PReLU()
        >>> m.weight
        Parameter containing:
        tensor([0.2500], requires_grad=True)
        >>> m(framework.tensor([-2.0, 1.0]))
        tensor([-0.5000,  1.0000], grad_fn=<PreluKernelBackward0>)
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as the constructor does (torch's initialization)."""
        init_ = init.constant_
        init_(self.weight, self.init)

    def forward(self, input):
        return _f.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class GLU(Module):
    r"""Applies the gated linear unit: :math:`a \otimes \sigma(b)`, where :math:`a` is the first
    half of the input along ``dim`` and :math:`b` the second.

    See :func:`~framework.nn.functional.glu` for the functional form.

    Args:
        dim (int, optional): the dimension on which to split the input (default: -1).

    Shape:
        - Input: :math:`(*_1, N, *_2)`.
        - Output: :math:`(*_1, M, *_2)`, where :math:`M = N / 2`.

    Example:
        >>> m = nn.GLU()
        >>> m(framework.tensor([[1.0, -1.0, 0.0, 2.0]]))
        tensor([[ 0.5000, -0.8808]])
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return _f.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softshrink(Module):
    r"""Applies the soft shrinkage function elementwise.

    .. math::
        \text{SoftShrink}(x) = \begin{cases} x - \lambda & x > \lambda \\ x + \lambda & x < -\lambda
        \\ 0 & \text{otherwise} \end{cases}

    See :func:`~framework.nn.functional.softshrink` for the functional form.

    Args:
        lambd (float, optional): the :math:`\lambda` value, at least 0 (default: 0.5).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Softshrink(1.0)
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-1., -0.,  0.,  0.,  2.])
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return _f.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Softshrink):
    r"""Applies the hard shrinkage function elementwise.

    .. math::
        \text{HardShrink}(x) = \begin{cases} x & |x| > \lambda \\ 0 & \text{otherwise} \end{cases}

    See :func:`~framework.nn.functional.hardshrink` for the functional form.

    Args:
        lambd (float, optional): the :math:`\lambda` value (default: 0.5).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Hardshrink()
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-2.,  0.,  0.,  1.,  3.])
    """

    def forward(self, input):
        return _f.hardshrink(input, self.lambd)


class Threshold(Module):
    r"""Thresholds each element of the input: elements not greater than ``threshold`` are replaced
    by ``value``.

    .. math::
        y = \begin{cases} x & x > \text{threshold} \\ \text{value} & \text{otherwise} \end{cases}

    See :func:`~framework.nn.functional.threshold` for the functional form.

    Args:
        threshold (float): the value to threshold at.
        value (float): the value to replace with.
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.Threshold(0.5, -1.0)
        >>> m(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-1., -1., -1.,  1.,  3.])
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return _f.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return _inplace(f"threshold={self.threshold}, value={self.value}", self.inplace)


class RReLU(Module):
    r"""Applies the randomized leaky ReLU (Empirical Evaluation of Rectified Activations): in
    training each negative element gets a random slope :math:`a \sim \mathcal{U}(\text{lower},
    \text{upper})`; in evaluation the mean slope.

    .. math::
        \text{RReLU}(x) = \begin{cases} x & x \ge 0 \\ a x & \text{otherwise} \end{cases}

    See :func:`~framework.nn.functional.rrelu` for the functional form.

    Args:
        lower (float, optional): lower bound of the uniform distribution (default: 1/8).
        upper (float, optional): upper bound of the uniform distribution (default: 1/3).
        inplace (bool, optional): do the operation in place (default: False).

    Shape:
        - Input: :math:`(*)`, where :math:`*` means any number of dimensions.
        - Output: :math:`(*)`, the same shape as the input.

    Example:
        >>> m = nn.RReLU(0.1, 0.3).eval()
        >>> m(framework.tensor([-3.0, 2.0]))
        tensor([-0.6000,  2.0000])
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return _f.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return _inplace(f"lower={self.lower}, upper={self.upper}", self.inplace)


class Softmin(Module):
    r"""Applies the softmin function along ``dim``: the softmax of the negated input.

    .. math::
        \text{Softmin}(x_i) = \frac{\exp(-x_i)}{\sum_j \exp(-x_j)}

    See :func:`~framework.nn.functional.softmin` for the functional form.

    Args:
        dim (int): the dimension along which Softmin is computed.

    Shape:
        - Input: :math:`(*)`.
        - Output: :math:`(*)`, the same shape, values in [0, 1].

    Example:
        >>> m = nn.Softmin(dim=0)
        >>> m(framework.tensor([1.0, 2.0, 3.0]))
        tensor([0.6652, 0.2447, 0.0900])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Applies softmax over the channels at each spatial location of a :math:`(N, C, H, W)` or
    :math:`(C, H, W)` input.

    Shape:
        - Input: :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        - Output: the same shape, values in [0, 1].

    Example:
        >>> m = nn.Softmax2d()
        >>> m(framework.zeros(1, 2, 1, 2))
        tensor([[[[0.5000, 0.5000]],
        <BLANKLINE>
                 [[0.5000, 0.5000]]]])
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return softmax(input, -3)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    r"""Applies the softmin function along ``dim``: the softmax of ``-input``.

    .. math::
        \text{Softmin}(x_i) = \frac{\exp(-x_i)}{\sum_j \exp(-x_j)}

    See :class:`~framework.nn.Softmin` for the module form.

    Args:
        input (Tensor): the input.
        dim (int): the dimension along which softmin is computed.
        dtype (framework.dtype, optional): cast ``input`` to this dtype before the operation, e.g.
            to prevent overflow (default: None).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.softmin(framework.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([0.6652, 0.2447, 0.0900])
    """
    from .activation import _softmax_dim

    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return softmax(-input, dim, dtype=dtype)
