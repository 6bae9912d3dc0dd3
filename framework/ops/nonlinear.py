"""Activation primitives beyond relu/sigmoid/tanh: softplus, elu/selu/celu, silu, mish,
hardswish, hardsigmoid, hardtanh, logsigmoid, soft/hardshrink, threshold, glu, prelu, rrelu.

Forward runs on arrays; backward is written with Tensor ops, so every one of them has
second derivatives."""

import numpy as np

from .. import dtypes
from .._errors import refuse
from ..amp.autocast_mode import entry as _amp_entry
from ..autograd.op import Op, vmap_hook
from .activation import ThresholdBackward
from ._fastgrad import wrap
from .activation import plain32
from . import _sleef, _sleef_act
from .elementwise import NotImplementedBackward
from .nonlinear_grad import (
    EluBackward,
    GluBackward,
    HardshrinkBackward,
    HardswishBackward,
    HardtanhBackward,
    LogSigmoidBackward,
    PreluKernelBackward,
    RreluWithNoiseBackward,
    SoftplusBackward,
    SoftshrinkBackward,
    _f32,
    hardsigmoid_grad,
    prelu_grad,
)


def _where(cond, a, b):
    return a.where(cond, b)


def _grad(op, grad, x, **consts):
    """The backward kernel `op` of an activation: on the arrays when there is no graph to
    record, else as an op (torch's XBackwardBackward0 node)."""
    if plain32(grad):
        return wrap(op.kernel(x.xp, grad._data, x._data, **consts), grad)
    return op.apply(grad, x, **consts)


class Softplus(Op):
    saves_inputs = True

    def forward(self, x, beta=1.0, threshold=20.0):
        refuse(x, "biu", "softplus_cpu")
        xp = self.xp
        self.beta, self.threshold = beta, threshold
        if self.half is None and _sleef_act.applies(x):  # torch's CPU kernel, bit for bit
            return _sleef_act.softplus(x, beta, threshold)
        bx = x * x.dtype.type(beta)
        soft = xp.log1p(xp.exp(xp.minimum(bx, threshold))) / x.dtype.type(beta)
        return xp.where(bx > threshold, x, soft)

    def backward(self, grad):
        (x,) = self.inputs
        return _grad(SoftplusBackward, grad, x, beta=self.beta, threshold=self.threshold)

    jvp = Op.jvp_elementwise


class Elu(Op):
    """scale * x for x > 0, else scale * alpha * (exp(input_scale * x) - 1)."""

    saves_inputs = True

    def forward(self, x, alpha=1.0, scale=1.0, input_scale=1.0):
        refuse(x, "biu", "elu_cpu")
        xp, dt = self.xp, x.dtype.type
        self.alpha, self.scale, self.input_scale = alpha, scale, input_scale
        if self.half is None and _sleef_act.applies(x):  # torch's CPU kernel, bit for bit
            return _sleef_act.elu(x, alpha, scale, input_scale)
        neg_x = xp.where(x > 0, dt(0), x)  # keeps -0 (minimum(-0, 0) is +0): elu(-0) = -0
        neg = dt(scale * alpha) * xp.expm1(neg_x * dt(input_scale))
        return xp.where(x > 0, x * dt(scale), neg)

    def backward(self, grad):
        (x,) = self.inputs
        return _grad(
            EluBackward, grad, x, alpha=self.alpha, scale=self.scale, input_scale=self.input_scale
        )

    jvp = Op.jvp_elementwise


class Celu(Elu):
    def backward(self, grad):
        # torch's derivative uses 1.0 / alpha.toFloat(): alpha rounded to float first
        self.input_scale = 1.0 / _f32(self.alpha)
        return super().backward(grad)

    jvp = Op.jvp_elementwise


class Silu(Op):
    saves_inputs = True

    def forward(self, x):
        refuse(x, "biu", "silu_cpu")
        if self.half is None and _sleef.applies(x):  # torch's CPU kernel, bit for bit
            return _sleef.sigmoid(x, silu=True)
        return x / (1 + self.xp.exp(-x))

    def backward(self, grad):
        (x,) = self.inputs
        if plain32(grad) and _sleef.applies(grad._data, x._data):  # no graph: the kernel
            d = _sleef.silu_backward(grad._data, x._data)
            if d is not None:
                return wrap(d, grad)
        s = x.sigmoid()
        return grad * s * (1 + x * (1 - s))

    jvp = Op.jvp_elementwise


class Mish(Op):
    saves_inputs = True

    def forward(self, x):
        refuse(x, "biu", "mish_cpu")
        if self.half is None and _sleef_act.applies(x):  # torch's CPU kernel, bit for bit
            return _sleef_act.mish(x)
        xp = self.xp
        sp = xp.logaddexp(x, x.dtype.type(0))
        return x * xp.tanh(sp)

    def backward(self, grad):
        (x,) = self.inputs
        if plain32(grad) and _sleef_act.applies(grad._data, x._data):  # no graph: the kernel
            d = _sleef_act.mish_backward(grad._data, x._data)
            if d is not None:
                return wrap(d, grad)
        # torch's infinitely_differentiable_mish_backward (and its kernel): the softplus as
        # log1p(exp(x)), without softplus's threshold, so that exp's overflow reaches the
        # second derivative (0 * inf: NaN at x = 1e30 as torch's)
        t = x.exp().log1p().tanh()
        return grad * (t + x * x.sigmoid() * (1 - t * t))

    jvp = Op.jvp_elementwise


class Hardswish(Op):
    saves_inputs = True

    def forward(self, x):
        refuse(x, "biu", "hardswish_cpu")
        return x * self.xp.clip(x + 3, 0, 6) / x.dtype.type(6)

    def backward(self, grad):
        (x,) = self.inputs
        return _grad(HardswishBackward, grad, x)

    jvp = Op.jvp_elementwise


class Hardsigmoid(Op):
    saves_inputs = True

    def forward(self, x):
        refuse(x, "biu", "hardsigmoid_cpu")
        return self.xp.clip(x + 3, 0, 6) / x.dtype.type(6)

    def backward(self, grad):
        (x,) = self.inputs
        if plain32(grad):
            return wrap(hardsigmoid_grad(self.xp, grad._data, x._data), grad)
        # torch records a node without a derivative (its second derivative raises)
        return NotImplementedBackward.apply(
            grad, x, fn=hardsigmoid_grad, aten="hardsigmoid_backward"
        )

    jvp = Op.jvp_elementwise


class Hardtanh(Op):
    jvp_reads_primal = True  # (torch's jvp calls the backward op with the input)
    saves_inputs = True

    def forward(self, x, min_val=-1.0, max_val=1.0):
        if x.dtype.kind == "b":
            raise RuntimeError("Bool inputs not supported for hardtanh")
        self.lo, self.hi = min_val, max_val
        return self.xp.clip(x, x.dtype.type(min_val), x.dtype.type(max_val))

    def backward(self, grad):
        (x,) = self.inputs
        if plain32(grad):
            return wrap(
                HardtanhBackward.kernel(self.xp, grad._data, x._data, self.lo, self.hi), grad
            )
        return HardtanhBackward.apply(grad, x, min_val=self.lo, max_val=self.hi)

    jvp = Op.jvp_elementwise


class LogSigmoid(Op):
    saves_inputs = True

    def forward(self, x):
        refuse(x, "biu", "log_sigmoid_cpu")
        if self.half is None and _sleef_act.applies(x):  # torch's CPU kernel, bit for bit
            return _sleef_act.log_sigmoid(x)
        xp = self.xp
        return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))

    def backward(self, grad):
        (x,) = self.inputs
        return _grad(LogSigmoidBackward, grad, x)

    jvp = Op.jvp_elementwise


class Softshrink(Op):
    jvp_reads_primal = True  # (torch's jvp calls the backward op with the input)
    saves_inputs = True

    def forward(self, x, lambd=0.5):
        refuse(x, "biu", "softshrink_check")
        xp, l = self.xp, x.dtype.type(lambd)
        self.lambd = lambd
        out = xp.where(x > l, x - l, xp.where(x < -l, x + l, x * 0))
        if xp is np and _sleef_act.applies(x) and x.size:  # torch's vector body blends in
            # +0 where its scalar code's x * 0 keeps x's sign (-0 + 0 is +0, the rest stays)
            if x.flags.c_contiguous and out.flags.c_contiguous:
                _sleef_act.contiguous_body(out)[...] += 0
            else:
                out[_sleef_act.vector_body(x)] += 0
        return out

    grad_op = SoftshrinkBackward

    def backward(self, grad):
        (x,) = self.inputs
        if plain32(grad):
            return wrap(self.grad_op.kernel(self.xp, grad._data, x._data, self.lambd), grad)
        return self.grad_op.apply(grad, x, lambd=self.lambd)

    jvp = Op.jvp_elementwise


class Hardshrink(Softshrink):
    grad_op = HardshrinkBackward

    def forward(self, x, lambd=0.5):
        refuse(x, "biu", "hardshrink_cpu")
        self.lambd = lambd
        l = x.dtype.type(lambd)
        # torch: (x >= -l && x <= l) ? 0 : x, so -0.5 gives +0 and NaN stays NaN
        return self.xp.where((x >= -l) & (x <= l), x.dtype.type(0), x)


class Threshold(Op):
    saves_inputs = True

    def forward(self, x, threshold=0.0, value=0.0):
        refuse(x, "b", "threshold_cpu")
        self.threshold = threshold
        return self.xp.where(x <= threshold, x.dtype.type(value), x)  # a nan x stays nan

    def backward(self, grad):
        (x,) = self.inputs
        return ThresholdBackward.apply(grad, x, threshold=self.threshold)

    jvp = Op.jvp_elementwise


class Glu(Op):
    saves_inputs = True

    def forward(self, x, dim=-1):
        xp = self.xp
        self.dim = dim
        a, b = xp.split(x, 2, axis=dim)
        if type(x) is np.ndarray and x.dtype.char in "fd" and x.dtype.isnative:
            return a * _sleef.sigmoid(b)  # torch's glu_kernel: a * (1 / (1 + exp(-b))),
        return a / (1 + xp.exp(-b))  # its exp Sleef's in the vector body (the sigmoid's)

    def backward(self, grad):
        (x,) = self.inputs
        return _grad(GluBackward, grad, x, dim=self.dim)

    jvp = Op.jvp_transpose


class PreluKernel(Op):
    """x for x > 0, else weight * x with weight broadcast along dim 1."""

    saves_inputs = True

    def forward(self, x, w):
        self.wshape = w.shape
        return self.xp.where(x > 0, x, x * w)

    def backward(self, grad):
        x, w = self.inputs
        if plain32(grad):  # torch selects 0 (a NaN grad stays out)
            gx, gw = prelu_grad(self.xp, grad._data, x._data, w._data)
            return wrap(gx, grad), wrap(gw, grad)
        return PreluKernelBackward.apply(grad, x, w)

    def jvp(self, tx, tw):
        """torch's rule: tx where x >= 0 (the slope at 0 is 1 here), else w tx + tw x."""
        x, w = self.primals
        neg = (w * tx if tx is not None else 0) + (tw * x if tw is not None else 0)
        return _where(x >= 0, tx if tx is not None else x * 0, neg)


class RreluWithNoise(Op):
    """Randomized leaky relu: negative slopes drawn in training, their mean in eval."""

    jvp_reads_primal = True  # (torch's jvp calls the backward op with the input)

    saves_inputs = True
    saves = ("noise",)

    def forward(self, x, lower=1 / 8, upper=1 / 3, training=False, noise=None):
        xp = self.xp
        refuse(x, "biu", "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu")
        if training:
            slope = xp.asarray(noise, dtype=x.dtype)
        else:
            slope = xp.full(x.shape, (lower + upper) / 2, dtype=x.dtype)
        self.noise = xp.where(x > 0, x.dtype.type(1), slope)
        return x * self.noise

    def backward(self, grad):
        (x,) = self.inputs
        if plain32(grad):
            return wrap(grad._data * self.noise, grad)
        return RreluWithNoiseBackward.apply(grad, x, noise=self.noise)

    jvp = Op.jvp_elementwise


def softplus(input, beta=1.0, threshold=20.0):
    r"""Applies the Softplus function elementwise, a smooth approximation of ReLU; for numerical
    stability it is linear where :math:`\beta x > \text{threshold}`.

    .. math::
        \text{Softplus}(x) = \frac{1}{\beta} \log(1 + e^{\beta x})

    See :class:`~framework.nn.Softplus` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        beta (float, optional): the :math:`\beta` value (default: 1.0).
        threshold (float, optional): above this value of :math:`\beta x` the result is ``x``
            (default: 20.0).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.softplus(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([0.1269, 0.4741, 0.6931, 1.3133, 3.0486])
    """
    return Softplus.apply(input, beta=beta, threshold=threshold)


def _inplace_or(input, inplace, op, **params):
    if not inplace:
        return op.apply(input, **params)
    node = INPLACE_NODES.get(op.__name__)  # torch's in-place overload reads the result
    if node is None:
        return input._inplace(op.apply, **params)
    return input._inplace(lambda x, **kw: _renamed(op.apply(x, **kw), node), **params)


INPLACE_NODES = {
    "Elu": "EluBackward1",
    "Celu": "CeluBackward1",
    "Threshold": "ThresholdBackward1",
    "RreluWithNoise": "RreluWithNoiseBackward1",
    "LeakyRelu": "LeakyReluBackward1",
}


def _renamed(out, node):
    if out.grad_fn is not None:
        out.grad_fn._as(node)
    return out


def elu(input, alpha=1.0, inplace=False):
    r"""Applies the Exponential Linear Unit (ELU) elementwise.

    .. math::
        \text{ELU}(x) = \begin{cases} x & x > 0 \\ \alpha (e^{x} - 1) & x \le 0 \end{cases}

    See :class:`~framework.nn.ELU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        alpha (float, optional): the :math:`\alpha` value (default: 1.0).
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.elu(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.8647, -0.3935,  0.0000,  1.0000,  3.0000])
    """
    return _inplace_or(input, inplace, Elu, alpha=alpha)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input, inplace=False):
    r"""Applies the Scaled ELU (SELU) elementwise, with torch's fixed constants.

    .. math::
        \text{SELU}(x) = \lambda (\max(0, x) + \min(0, \alpha (e^{x} - 1))),\ \alpha \approx
        1.6733,\ \lambda \approx 1.0507

    See :class:`~framework.nn.SELU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.selu(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-1.5202, -0.6918,  0.0000,  1.0507,  3.1521])
    """
    return _inplace_or(input, inplace, Elu, alpha=_SELU_ALPHA, scale=_SELU_SCALE)


def celu(input, alpha=1.0, inplace=False):
    r"""Applies the Continuously differentiable ELU (CELU) elementwise.

    .. math::
        \text{CELU}(x) = \max(0, x) + \min(0, \alpha (e^{x/\alpha} - 1))

    See :class:`~framework.nn.CELU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        alpha (float, optional): the :math:`\alpha` value (default: 1.0).
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.celu(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]), alpha=2.0)
        tensor([-1.2642, -0.4424,  0.0000,  1.0000,  3.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _inplace_or(input, inplace, Celu, alpha=alpha, input_scale=1.0 / alpha)


def silu(input, inplace=False):
    r"""Applies the Sigmoid Linear Unit (SiLU, or swish) elementwise.

    .. math::
        \text{SiLU}(x) = x \sigma(x)

    See :class:`~framework.nn.SiLU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.silu(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.2384, -0.1888,  0.0000,  0.7311,  2.8577])
    """
    return _inplace_or(input, inplace, Silu)


def mish(input, inplace=False):
    r"""Applies the Mish function elementwise (a self-regularized non-monotonic activation).

    .. math::
        \text{Mish}(x) = x \tanh(\text{Softplus}(x))

    See :class:`~framework.nn.Mish` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.mish(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.2525, -0.2207,  0.0000,  0.8651,  2.9865])
    """
    return _inplace_or(input, inplace, Mish)


def hardswish(input, inplace=False):
    r"""Applies the Hardswish function elementwise (Searching for MobileNetV3).

    .. math::
        \text{Hardswish}(x) = x \cdot \text{ReLU6}(x + 3) / 6

    See :class:`~framework.nn.Hardswish` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.hardswish(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.3333, -0.2083,  0.0000,  0.6667,  3.0000])
    """
    return _inplace_or(input, inplace, Hardswish)


def hardsigmoid(input, inplace=False):
    r"""Applies the Hardsigmoid function elementwise.

    .. math::
        \text{Hardsigmoid}(x) = \text{ReLU6}(x + 3) / 6

    See :class:`~framework.nn.Hardsigmoid` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.hardsigmoid(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([0.1667, 0.4167, 0.5000, 0.6667, 1.0000])
    """
    return _inplace_or(input, inplace, Hardsigmoid)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    r"""Applies the HardTanh function elementwise: clamps to ``[min_val, max_val]``; the gradient is
    1 strictly inside, 0 outside.

    .. math::
        \text{HardTanh}(x) = \min(\max(x, \text{min\_val}), \text{max\_val})

    See :class:`~framework.nn.Hardtanh` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        min_val (float, optional): the lower end of the linear region (default: -1.0).
        max_val (float, optional): the upper end of the linear region (default: 1.0).
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.hardtanh(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-1.0000, -0.5000,  0.0000,  1.0000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype.name == "uint8" and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return _inplace_or(input, inplace, Hardtanh, min_val=min_val, max_val=max_val)


def relu6(input, inplace=False):
    r"""Applies the ReLU6 function elementwise.

    .. math::
        \text{ReLU6}(x) = \min(\max(0, x), 6)

    See :class:`~framework.nn.ReLU6` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.relu6(framework.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def logsigmoid(input):
    r"""Applies the log-sigmoid function elementwise, computed stably.

    .. math::
        \text{LogSigmoid}(x) = \log \frac{1}{1 + e^{-x}}

    See :class:`~framework.nn.LogSigmoid` for the module form.

    Args:
        input (Tensor): the input, of any shape.

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.logsigmoid(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-2.1269, -0.9741, -0.6931, -0.3133, -0.0486])
    """
    return LogSigmoid.apply(input)


def softsign(input):
    r"""Applies the SoftSign function elementwise.

    .. math::
        \text{SoftSign}(x) = \frac{x}{1 + |x|}

    See :class:`~framework.nn.Softsign` for the module form.

    Args:
        input (Tensor): the input, of any shape.

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.softsign(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-0.6667, -0.3333,  0.0000,  0.5000,  0.7500])
    """
    return input / (input.abs() + 1)


def tanhshrink(input):
    r"""Applies the Tanhshrink function elementwise.

    .. math::
        \text{Tanhshrink}(x) = x - \tanh(x)

    See :class:`~framework.nn.Tanhshrink` for the module form.

    Args:
        input (Tensor): the input, of any shape.

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.tanhshrink(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-1.0360, -0.0379,  0.0000,  0.2384,  2.0049])
    """
    return input - input.tanh()


def softshrink(input, lambd=0.5):
    r"""Applies the soft shrinkage function elementwise.

    .. math::
        \text{SoftShrink}(x) = \begin{cases} x - \lambda & x > \lambda \\ x + \lambda & x < -\lambda
        \\ 0 & \text{otherwise} \end{cases}

    See :class:`~framework.nn.Softshrink` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        lambd (float, optional): the :math:`\lambda` value, at least 0 (default: 0.5).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.softshrink(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]), 1.0)
        tensor([-1., -0.,  0.,  0.,  2.])
    """
    return Softshrink.apply(input, lambd=lambd)


def hardshrink(input, lambd=0.5):
    r"""Applies the hard shrinkage function elementwise.

    .. math::
        \text{HardShrink}(x) = \begin{cases} x & |x| > \lambda \\ 0 & \text{otherwise} \end{cases}

    See :class:`~framework.nn.Hardshrink` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        lambd (float, optional): the :math:`\lambda` value (default: 0.5).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.hardshrink(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]))
        tensor([-2.,  0.,  0.,  1.,  3.])
    """
    return Hardshrink.apply(input, lambd=lambd)


def threshold(input, threshold, value, inplace=False):
    r"""Thresholds each element: keeps ``x`` where it is greater than ``threshold``, else writes
    ``value``.

    .. math::
        y = \begin{cases} x & x > \text{threshold} \\ \text{value} & \text{otherwise} \end{cases}

    See :class:`~framework.nn.Threshold` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        threshold (float): the value to threshold at.
        value (float): the value to replace with.
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.threshold(framework.tensor([-2.0, -0.5, 0.0, 1.0, 3.0]), 0.5, -1.0)
        tensor([-1., -1., -1.,  1.,  3.])
    """
    return _inplace_or(input, inplace, Threshold, threshold=threshold, value=value)


def glu(input, dim=-1):
    r"""Applies the Gated Linear Unit: the first half of ``input`` along ``dim`` gated by the
    sigmoid of the second half.

    .. math::
        \text{GLU}(a, b) = a \otimes \sigma(b)

    See :class:`~framework.nn.GLU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        dim (int, optional): the dimension that is halved; its size must be even (default: -1).

    Returns:
        Tensor: ``input``'s shape with ``dim`` halved.

    Example:
        >>> F.glu(framework.tensor([[1.0, -1.0, 0.0, 2.0]]))
        tensor([[ 0.5000, -0.8808]])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    from .shape import _dim

    d = _dim(dim, input.dim())
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    refuse(input._data, "biu", "glu_cpu")
    return Glu.apply(input, dim=d)


@_amp_entry("prelu")
def prelu(input, weight):
    r"""Applies the PReLU function elementwise, with a learnable slope for the negative part.

    .. math::
        \text{PReLU}(x) = \max(0, x) + a \min(0, x)

    See :class:`~framework.nn.PReLU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        weight (Tensor): the slopes :math:`a`: one element, or one per channel (``input.shape[1]``).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.prelu(framework.tensor([[-2.0, 1.0], [-1.0, -4.0]]), framework.tensor([0.1, 0.5]))
        tensor([[-0.2000,  1.0000],
                [-0.1000, -2.0000]])
    """
    refuse(input._data, "biu", "prelu_cpu")
    n = weight.numel()
    channels = input.shape[1] if input.dim() >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(
            f"Mismatch of parameter numbers and input channel size. Found "
            f"parameter numbers = {n} and channel size = {channels}."
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got "
            f"{dtypes.scalar_type_name(input._data.dtype)} and "
            f"{dtypes.scalar_type_name(weight._data.dtype)}"
        )
    if input.dim() >= 2:  # as torch: (1, C, 1, ...) (a view even of one weight), as is for
        w = weight.reshape((1, n) + (1,) * (input.dim() - 2))  # 1-dim input, 0-dim for 0-dim
    elif input.dim() == 0:
        w = weight.reshape(())
    else:
        w = weight
    return PreluKernel.apply(input, w)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    r"""Applies the randomized leaky ReLU: in training each negative element gets a slope drawn from
    :math:`\mathcal{U}(\text{lower}, \text{upper})`; in evaluation the mean slope
    :math:`(\text{lower} + \text{upper}) / 2`.

    .. math::
        \text{RReLU}(x) = \begin{cases} x & x \ge 0 \\ a x & x < 0 \end{cases}

    See :class:`~framework.nn.RReLU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        lower (float, optional): lower bound of the slope distribution (default: 1/8).
        upper (float, optional): upper bound of the slope distribution (default: 1/3).
        training (bool, optional): draw random slopes (default: False).
        inplace (bool, optional): write the result into ``input`` (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.rrelu(framework.tensor([-3.0, 2.0]), lower=0.1, upper=0.3)  # eval: slope 0.2
        tensor([-0.6000,  2.0000])
    """
    return rrelu_from(input, lower, upper, training, inplace, None)


def rrelu_from(input, lower, upper, training, inplace, generator):
    """`rrelu` with its slopes drawn from `generator` (None: the default one), for
    ``torch.rrelu``'s generator argument."""
    noise = None
    if training and vmap_hook[0]:  # a draw per sample (or one for the batch), batched
        from ..func._paths import rrelu_training

        out = rrelu_training(input, lower, upper, inplace)
        if out is not NotImplemented:
            return out
    if training:  # torch's CPU kernel: one 53-bit uniform per element <= 0, in memory order
        from .._distributions import rrelu_noise
        from ..backend import move, to_numpy
        from ..random import _generator_for

        x = to_numpy(input._data)
        gen = _generator_for(generator, input.device)
        noise = move(rrelu_noise(gen, x, lower, upper), input.device)
    return _inplace_or(
        input, inplace, RreluWithNoise, lower=lower, upper=upper, training=training, noise=noise
    )


__all__ = [
    "softplus",
    "elu",
    "selu",
    "celu",
    "silu",
    "mish",
    "hardswish",
    "hardsigmoid",
    "hardtanh",
    "relu6",
    "logsigmoid",
    "softsign",
    "tanhshrink",
    "softshrink",
    "hardshrink",
    "threshold",
    "glu",
    "prelu",
    "rrelu",
]
