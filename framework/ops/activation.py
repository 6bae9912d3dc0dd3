"""Activations: sigmoid, tanh, relu, softmax, log_softmax, leaky_relu and gelu primitives."""

import math

from .._errors import refuse
from .._fma import fusable, fused
from ..autograd.grad_mode import state
from ..autograd.op import Op, vmap_hook
from ..tensor import Tensor
from . import _fused, _sleef, _sleef_act, _vml
from ..backend import np as _np  # (relu's float32 fast path)
from ._rowwise import row_dot, row_sum
from ._fastgrad import plain, wrap, zero_where
from .special import _ERF32_P, _ERF32_Q, _ERFC_COF, _erf, _erfc_abs, _is_array
from .unary import _float, exp
from .reduction import _wrap_dim

_new = object.__new__

__all__ = ["log_softmax", "relu", "sigmoid", "softmax", "tanh"]


class Tanh(Op):
    saves_output = True
    saved_fields = {"result": "result"}

    def forward(self, x):
        if x.dtype.kind in "fc":  # (not _float's call: the common case, one check)
            return _vml.unary("tanh", x, self.xp.tanh)  # torch's MKL VML tanh
        return _vml.unary("tanh", _float(x), self.xp.tanh)

    def backward(self, grad):
        g = grad._data
        if (  # the common case as Relu's: plain() and wrap() inlined, one compiled ufunc
            (g.dtype is _F32 or g.dtype is _F64)
            and type(g) is _ndarray
            and g.ndim
            and not state.enabled
            and not vmap_hook[0]
        ):
            k = _fused._state[0]
            if k is None:
                k = _fused.kernels()
            y = self._out
            u = k.ufunc.tanh_grad if k and type(y) is _ndarray and y.dtype is g.dtype else None
            if u is not None:
                t = _new(Tensor)
                t._data, t._device, t._rg, t.grad, t.grad_fn, t._output_nr = (
                    u(y, g),
                    grad._device,
                    False,
                    None,
                    None,
                    0,
                )
                t._vc = [0]
                return t
        if plain(grad) and g.dtype.itemsize > 2:  # no graph: the kernel on arrays
            return wrap(tanh_grad(self.xp, g, self._out), grad)
        return _grad_ops().TanhBackward.apply(grad, self.output)

    jvp = Op.jvp_elementwise


def tanh_grad(xp, g, y):
    """torch's tanh_backward(grad, result): grad * (1 - y**2), with 1 - y**2 one fused
    multiply-add in float32/float64 as torch's AVX2 kernels (vectorised and scalar loops)
    compute it (two roundings put 68 % of random elements 1 ulp apart)."""
    if type(y) is _ndarray and type(g) is _ndarray:  # the common case, checked cheaply
        dt = y.dtype
        if g.dtype is dt and (dt is _F32 or dt is _F64):
            k = _fused.kernels()
            u = k.ufunc.tanh_grad if k else None
            if u is not None:  # one compiled call
                return u(y, g)
    if y.dtype == g.dtype and fusable(y, g):  # NumPy float32/float64
        k = _fused.kernels()
        u = k.ufunc.tanh_grad if k else None
        if u is not None:  # one compiled call
            return u(y, g)
        t = xp.asarray(fused(xp.negative(y), y, _const(xp, y.dtype, 1)))  # (the emulation)
        xp.copyto(t, y, where=xp.isnan(y))  # y's own NaN, as the compiled loop's (not -NaN)
        return t * g
    if y.ndim and y.dtype == g.dtype:  # (a 0-dim constant, not the scalar 1: faster)
        t = y * y
        xp.subtract(_const(xp, y.dtype, 1), t, out=t)
        t *= g
        return t
    return g * (1 - y * y)  # d/dx tanh = 1 - tanh(x)**2


def plain32(grad):
    """`plain`, for float32/float64 only: a half gradient goes to the backward op, which
    computes in float32 and rounds once, as torch's half kernels (sigmoid's float16 gradient
    is torch's on the float16 arrays)."""
    return plain(grad) and grad._data.dtype.itemsize > 2


def _grad_ops():
    """activation_grad (the backward kernels as ops), imported on first use: it imports
    this module's kernels."""
    from . import activation_grad

    return activation_grad


def tanh(input):
    """tanh(input) -> Tensor

    Computes the hyperbolic tangent of each element.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.tanh(framework.tensor([0.0, 1.0]))
        tensor([0.0000, 0.7616])
    """
    return _tanh_apply(input)


_EXP_MAX = {2: 11.08, 4: 88.7, 8: 709.7}  # by itemsize: exp stays finite below these


class Sigmoid(Op):
    saves_output = True
    saved_fields = {"result": "result"}

    def forward(self, x):
        if self.half is None and type(x) is _ndarray and x.dtype in _FLOATS:
            return _sleef.sigmoid(x)  # torch's kernel: Sleef's exp, its scalar tail
        return sigmoid_array(self.xp, _float(x))

    def backward(self, grad):
        g = grad._data
        if (  # the common case: plain(), _small_ufunc and wrap() inlined (as Relu's)
            (g.dtype is _F32 or g.dtype is _F64)
            and type(g) is _ndarray
            and g.ndim
            and g.size <= _fused.SMALL
            and not state.enabled
            and not vmap_hook[0]
        ):
            k = _fused._state[0]
            if k is None:
                k = _fused.kernels()
            y = self._out
            u = k.ufunc.sigmoid_grad if k else None  # (None where numba could not build it)
            if u is not None and type(y) is _ndarray and y.dtype is g.dtype:
                t = _new(Tensor)  # sigmoid_grad's one compiled call, wrapped
                t._data, t._device, t._rg, t.grad, t.grad_fn, t._output_nr = (
                    u(y, g),
                    grad._device,
                    False,
                    None,
                    None,
                    0,
                )
                t._vc = [0]
                return t
        if plain(grad):  # no graph to record: the kernel on the arrays (float16 too, as torch)
            return wrap(sigmoid_grad(self.xp, grad._data, self._out), grad)
        return _grad_ops().SigmoidBackward.apply(grad, self.output)

    jvp = Op.jvp_elementwise


def sigmoid_array(xp, x):
    """The logistic sigmoid of a float (or complex) array."""
    if x.ndim and x.dtype.kind == "f":
        u = _small_ufunc(x, "sigmoid")
        if u is not None:  # the same formula in float64, rounded once: one call
            return u(x)
        # e / (1 + e) with e = exp(min(x, log of the largest float)): 4 NumPy calls and no
        # min() check, as e never overflows (a very negative x underflows to 0, silently);
        # exactly 0 at -inf and 1 at +inf as torch's 1 / (1 + exp(-x)), nan stays nan,
        # within 2 ulp of it elsewhere (2.7e-7 relative in float32, 4.4e-16 in float64)
        t = xp.minimum(x, _const(xp, x.dtype, _EXP_MAX[x.dtype.itemsize]))
        xp.exp(t, out=t)
        return xp.divide(t, t + _const(xp, x.dtype, 1), out=t)  # (0-dim: no scalar path)
    # 0-dim (NumPy returns scalars, which out= refuses), complex: exp of -|x| only
    e = xp.exp(-xp.abs(x))
    d = 1 + e
    return xp.where(x >= 0, 1 / d, e / d)  # 1 / (1 + e) from 0 up


def sigmoid_grad(xp, g, y):
    """torch's sigmoid_backward(grad, result): d/dx sigmoid = s (1 - s), multiplied in
    torch's order, grad * (1 - s) * s, in one buffer."""
    if y.ndim and y.dtype == g.dtype:
        u = _small_ufunc(y, "sigmoid_grad")
        if u is not None:  # the same operations in one call
            return u(y, g)
        t = xp.subtract(_const(xp, y.dtype, 1), y)
        t *= g
        t *= y
        return t
    return g * (1 - y) * y


def sigmoid(input):
    """sigmoid(input) -> Tensor

    Applies the logistic sigmoid :math:`1 / (1 + e^{-x_i})` elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.sigmoid(framework.tensor([0.0, 2.0]))
        tensor([0.5000, 0.8808])
    """
    return Sigmoid.apply(input)


class Relu(Op):
    saves_output = True
    saved_fields = {"result": "result"}

    def forward(self, x):
        # torch's CPU relu is clamp_min(x, 0): std::max(x, 0) and AVX2's max(0, x) both keep
        # x where it equals 0, so -0 stays -0; NumPy's maximum returns its second argument
        # there (and NaN from either)
        if x.dtype is _F32 and self.xp is _np:  # the common case: its zero without a lookup
            return _np.maximum(_Z32, x)
        if x.dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu")
        if self.xp is _np:
            return _np.maximum(_const(_np, x.dtype), x)
        return self.xp.maximum(x, _const(self.xp, x.dtype))

    def backward(self, grad):
        # torch's threshold_backward(grad, result, 0): one masked select
        g = grad._data
        if (  # the common case, plain() and wrap() inlined (two calls less per node)
            (g.dtype is _F32 or g.dtype is _F64)
            and type(g) is _ndarray
            and g.ndim
            and not state.enabled
            and not vmap_hook[0]
        ):
            k = _fused._state[0]
            if k is None:
                k = _fused.kernels()
            y = self._out
            if k and type(y) is _ndarray and y.dtype is g.dtype and y.shape == g.shape:
                r = k.ufunc.relu_grad  # the select as one compiled ufunc (2-3x NumPy's
            else:  # passes at any size), or None where numba could not build it
                r = None
            if r is not None:
                r = r(y, g)
            elif g.dtype is _F32 and g.size <= 1024:
                r = g.copy()  # the same select as a copy and putmask: 0.6 us less on small
                _np.putmask(r, y <= _Z32, _Z32)  # arrays (the bit mask wins on large ones)
        else:
            r = None
        if r is not None:
            t = _new(Tensor)
            t._data, t._device, t._rg, t.grad, t.grad_fn, t._output_nr = (
                r,
                grad._device,
                False,
                None,
                None,
                0,
            )
            t._vc = [0]
            return t
        if plain(grad):
            g, xp = grad._data, self.xp
            z = _Z32 if g.dtype is _F32 and xp is _np else _const(xp, g.dtype)
            if g.ndim and g.size <= 1024:  # the same select as a copy and putmask: 0.6 us
                r = g.copy()  # less on small arrays (the bit mask wins on large ones)
                xp.putmask(r, self._out <= z, z)
                return wrap(r, grad)
            return wrap(zero_where(xp, self._out <= z, g), grad)
        return ThresholdBackward.apply(grad, self.output, threshold=0)

    jvp = Op.jvp_elementwise


_relu_apply = Relu._unary  # Relu.apply(input) (a positional operand), bound once
_tanh_apply = Tanh._unary  # (as relu's)
_consts = {}  # (xp, dtype, value) -> a 0-dim array: NumPy's ufuncs and where take it faster
#               than a Python or NumPy scalar, and it keeps the other operand's dtype


def _small_ufunc(a, name, chars="fd"):
    """_fused's compiled ufunc `name` for a NumPy array of one of the dtypes `chars` of at
    most _fused.SMALL elements (one call instead of NumPy's three to thirty), else None (also
    where numba could not build it)."""
    k = _fused._state[0]
    if k is None:
        k = _fused.kernels()
    if not k or a.size > _fused.SMALL or a.dtype.char not in chars or type(a) is not k.ndarray:
        return None
    return getattr(k.ufunc, name)


def _const(xp, dtype, value=0):
    key = (xp, dtype, value)
    c = _consts.get(key)
    if c is None:
        c = _consts[key] = xp.full((), value, dtype)
    return c


_F32 = _np.dtype("float32")
_F64 = _np.dtype("float64")
_FLOATS = (_F32, _F64)  # (`in` compares by identity, then by equality: an array numba made
#                       carries an equal float32 dtype that is another object)
_ndarray = _np.ndarray
_Z32 = _const(_np, _F32)  # relu's zero for float32 NumPy arrays (the same cached constant)


def relu(input):
    r"""relu(input) -> Tensor

    Applies the rectified linear unit :math:`\max(0, x_i)` elementwise.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.relu(framework.tensor([-1.0, 0.5]))
        tensor([0.0000, 0.5000])
    """
    return _relu_apply(input)


class ThresholdBackward(Op):
    """torch's threshold_backward(grad, x, threshold): `grad` where x > threshold, else 0.

    The backward of relu (x is its output) and of threshold. A select, not a product: no
    inf * 0 = nan below the threshold, a nan x passes its gradient, and the subgradient at the
    threshold is 0. Its own derivative: the same select of the incoming gradient for `grad`,
    zeros for `x` (piecewise constant), as torch's ThresholdBackwardBackward0.
    """

    node_name = "ThresholdBackwardBackward0"
    saves_inputs = True
    saved_fields = {"self": "input1", "threshold": "threshold"}
    saved_for = ((), (0,))  # x is read for grad's gradient; grad is never read

    @staticmethod
    def kernel(xp, g, x, threshold):
        return zero_where(xp, x <= threshold, g)

    def forward(self, g, x, threshold=0):
        self.threshold = threshold
        return self.kernel(self.xp, g, x, threshold)

    def backward(self, gg):
        _, x = self.inputs
        need_g, need_x = self.needs_input_grad
        return (
            ThresholdBackward.apply(gg, x, threshold=self.threshold) if need_g else None,
            Tensor._make(gg.xp.zeros_like(gg._data), gg.device) if need_x else None,
        )

    def jvp(self, t_g, t_x):
        """Linear in grad, piecewise constant in x: threshold_backward(grad's tangent, x), as
        torch's rule (a zero tangent when only x has one)."""
        g, x = self.primals
        if t_g is None:
            return Tensor._make(g.xp.zeros_like(g._data), g.device)
        return ThresholdBackward.apply(t_g, x, threshold=self.threshold)


def _check_float(x, kernel, dim):
    """torch's refusal of integer inputs, naming the last-dim kernel when dim is the last."""
    nd = max(x.ndim, 1)  # (a 0-dim tensor takes dims 0 and -1, its last)
    last = _wrap_dim(dim, nd) == nd - 1  # the dim is checked first
    if x.size == 0:  # torch dispatches no kernel for an empty tensor
        return
    if last:
        kernel = kernel.replace("_kernel", "_lastdim_kernel")
    refuse(x, "biu", kernel)


class Softmax(Op):
    saves_output = True
    saved_fields = {"dim": "axis", "result": "result"}

    def forward(self, x, dim):
        _check_float(x, "softmax_kernel_impl", dim)
        self.axis = _wrap_dim(dim, x.ndim)
        xp = self.xp
        if x.ndim == 0:  # 1, or NaN at +-inf / NaN (exp(x - max), as torch)
            return xp.exp(x - x)
        if x.size == 0:
            return x.copy()
        if self.half is None and _sleef.applies(x):  # torch's CPU kernel, bit for bit
            return _sleef.softmax(x, self.axis, False)
        e = xp.exp(x - x.max(axis=self.axis, keepdims=True))  # shifted: no overflow
        e /= row_sum(xp, e, self.axis)
        return e

    def backward(self, grad):
        if plain(grad) and grad._data.dtype.itemsize > 2:  # no graph: the kernel on arrays
            return wrap(softmax_grad(self.xp, grad._data, self._out, self.axis), grad)
        return _grad_ops().SoftmaxBackwardData.apply(grad, self.output, dim=self.axis)

    jvp = Op.jvp_elementwise


def softmax_grad(xp, g, y, axis, exact=True):
    """torch's _softmax_backward_data(grad, result, dim): J^T g = y * (g - sum(g * y));
    exact: float32/float64 NumPy arrays run torch's kernel (not a half op's float32 math)."""
    if exact and g.shape == y.shape and _sleef.applies(g, y):  # torch's CPU kernel, bit for bit
        return _sleef.softmax_backward(g, y, axis, False)
    if not y.ndim:  # the formula on one element (NaN stays NaN)
        return y * (g - g * y)
    d = g - row_dot(xp, g, y, axis)
    d *= y
    return d


class SafeSoftmax(Softmax):
    """torch's _safe_softmax (the math attention's softmax): zeros for a row whose entries are
    all -inf (every key masked), where softmax gives NaN."""

    def forward(self, x, dim):
        """Softmax of ``x`` over ``dim``, with zeros for rows whose entries are all ``-inf``."""
        xp, dead = self.xp, None
        if x.ndim and x.size:
            dead = (x == -xp.inf).all(axis=_wrap_dim(dim, x.ndim), keepdims=True)
            if dead.any():
                x = xp.where(dead, xp.zeros((), x.dtype), x)
            else:
                dead = None
        out = Softmax.forward(self, x, dim)
        return out if dead is None else xp.where(dead, xp.zeros((), out.dtype), out)


def softmax(input, dim, dtype=None):
    r"""softmax(input, dim, dtype=None) -> Tensor

    Applies :math:`\exp(x_i) / \sum_j \exp(x_j)` along ``dim``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension along which softmax is computed.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.softmax(framework.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([0.0900, 0.2447, 0.6652])
    """
    if dtype is not None:
        input = input.to(dtype)
    return Softmax.apply(input, dim=dim)


def _fused_log_softmax(xp, x, axis):
    """log_softmax over the last axis with _fused's loops around NumPy's exp (the max found
    and subtracted in one pass; the row sums and their logs in float64), or None."""
    k = _fused.kernels() if axis == x.ndim - 1 and x.size >= _fused.MIN_SIZE else None
    if k is None or _fused.flat(x) is None or not x.shape[-1]:
        return None
    n = x.shape[-1]
    out = xp.empty_like(x)
    k.log_softmax_shift(x.reshape(-1, n), out.reshape(-1, n))
    k.log_softmax_finish(out.reshape(-1, n), xp.exp(out).reshape(-1, n))
    return out


class LogSoftmax(Op):
    saves_output = True
    saved_fields = {"dim": "axis", "result": "result"}

    def forward(self, x, dim):
        _check_float(x, "log_softmax_kernel_impl", dim)
        self.axis = _wrap_dim(dim, x.ndim)
        xp = self.xp
        if x.ndim == 0:  # 0, or NaN at +-inf / NaN
            return x - x
        if x.size == 0:
            return x.copy()
        if self.half is None and _sleef.applies(x):  # torch's CPU kernel, bit for bit
            return _sleef.softmax(x, self.axis, True)
        fused = _fused_log_softmax(xp, x, self.axis)
        if fused is not None:
            return fused
        shifted = x - x.max(axis=self.axis, keepdims=True)
        shifted -= xp.log(row_sum(xp, xp.exp(shifted), self.axis))
        return shifted

    def backward(self, grad):
        if plain(grad) and grad._data.dtype.itemsize > 2:  # no graph: the kernel on arrays
            return wrap(log_softmax_grad(self.xp, grad._data, self._out, self.axis), grad)
        return _grad_ops().LogSoftmaxBackwardData.apply(grad, self.output, dim=self.axis)

    def jvp(self, t):
        y = self.result
        if y.ndim == 0:
            return t * 0
        return t - (exp(y) * t).sum(self.axis, keepdim=True)  # t - <softmax, t>


def log_softmax_grad(xp, g, y, axis, exact=True):
    """torch's _log_softmax_backward_data(grad, result, dim): d/dx log_softmax is g -
    softmax(x) * sum(g); exact: as softmax_grad's."""
    if exact and g.shape == y.shape and _sleef.applies(g, y):  # torch's CPU kernel, bit for bit
        return _sleef.softmax_backward(g, y, axis, True)
    if not y.ndim:
        return g - xp.exp(y) * g
    d = xp.exp(y)
    k = _fused.kernels() if axis == g.ndim - 1 and g.size >= _fused.MIN_SIZE else None
    if k is not None and _fused.flat(g, d) is not None:  # sum, product, difference
        n = g.shape[-1]  # in one compiled loop
        k.log_softmax_grad(g.reshape(-1, n), d.reshape(-1, n), xp.empty(1, g.dtype))
        return d
    d *= row_sum(xp, g, axis)
    return xp.subtract(g, d, out=d) if d.dtype == g.dtype else g - d


def log_softmax(input, dim, dtype=None):
    r"""log_softmax(input, dim, dtype=None) -> Tensor

    Applies :math:`\log(\operatorname{softmax}(x))` along ``dim``, computed stably.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension along which log_softmax is computed.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.log_softmax(framework.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([-2.4076, -1.4076, -0.4076])
    """
    if dtype is not None:
        input = input.to(dtype)
    return LogSoftmax.apply(input, dim=dim)


class LeakyRelu(Op):
    jvp_reads_primal = True  # (torch's jvp calls the backward op with the input)
    saves_inputs = True
    saved_fields = {"negative_slope": "slope", "self": "input0"}

    def forward(self, x, negative_slope=0.01):
        refuse(x, "biu", "leaky_relu_cpu")
        self.slope = negative_slope
        return self.xp.where(x > 0, x, x * x.dtype.type(negative_slope))

    def backward(self, grad):
        (x,) = self.inputs
        if plain32(grad):
            return wrap(leaky_relu_grad(self.xp, grad._data, x._data, self.slope), grad)
        return _grad_ops().LeakyReluBackward.apply(grad, x, negative_slope=self.slope)

    jvp = Op.jvp_elementwise


def leaky_relu_grad(xp, g, x, negative_slope):
    """torch's leaky_relu_backward(grad, x, negative_slope): grad where x > 0, else grad *
    negative_slope."""
    dt = x.dtype.type
    return g * xp.where(x > 0, dt(1), dt(negative_slope))


def leaky_relu(input, negative_slope=0.01, inplace=False):
    r"""Applies the leaky ReLU elementwise.

    .. math::
        \text{LeakyReLU}(x) = \max(0, x) + \text{negative\_slope} \cdot \min(0, x)

    See :class:`~framework.nn.LeakyReLU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        negative_slope (float, optional): the slope for negative inputs (default: 0.01).
        inplace (bool, optional): do the operation in place (default: False).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.leaky_relu(framework.tensor([-1.0, 0.0, 2.0]), 0.1)
        tensor([-0.1000,  0.0000,  2.0000])
    """
    if inplace:  # (LeakyReluBackward1, as torch's in-place overload)
        from .nonlinear import _inplace_or

        return _inplace_or(input, True, LeakyRelu, negative_slope=negative_slope)
    return LeakyRelu.apply(input, negative_slope=negative_slope)


class NormalCdf(Op):
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2, the standard normal CDF (used by gelu's backward)."""

    saves_inputs = True

    def forward(self, x):
        return 0.5 * (1.0 + _erf(self.xp, x * x.dtype.type(1 / math.sqrt(2))))

    def backward(self, grad):
        (x,) = self.inputs
        return grad * _normal_pdf(x)

    jvp = Op.jvp_elementwise


def _normal_pdf(x):
    return (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))


def _phi_coefficients():
    """_erf's float32 rational erf(z) = z P(z^2) / Q(z^2) rewritten for Phi(x) = 1/2 +
    1/2 erf(x / sqrt 2) in u = x^2: 1/2 and 1/sqrt 2 folded into the coefficients and P made
    monic, so Phi(x) = 1/2 + x p(u) / q(u) costs 24 array passes instead of 29."""
    p = [c * 0.5 ** (len(_ERF32_P) - 1 - k) * 0.5 / math.sqrt(2) for k, c in enumerate(_ERF32_P)]
    q = [c * 0.5 ** (len(_ERF32_Q) - 1 - k) for k, c in enumerate(_ERF32_Q)]
    return tuple(c / p[0] for c in p[1:]), tuple(c / p[0] for c in q)


_PHI32_P, _PHI32_Q = _phi_coefficients()
# Phi is 0 and 1 in float32 beyond +-5.3 (true tails 6e-8), and 1/2 + x p / q rounds to exactly
# 0 and 1 there (at 4 sqrt 2, _erf's clip of z at 4, it gives -6e-8): gelu(x <= -5.3) is 0
_PHI32_CLIP = 5.3
_PHI32_TAIL_END = -5.5430408  # torch's 1 + erf(x / sqrt 2) rounds to 0 at and below this


def _phi32(xp, x):
    """The standard normal CDF of a float32 array (gelu's Phi), a fresh array."""
    f = xp.float32
    xc = xp.clip(x, -_PHI32_CLIP, _PHI32_CLIP)
    u = xc * xc
    p = u + f(_PHI32_P[0])  # monic p(u), by Horner's scheme
    for c in _PHI32_P[1:]:
        p *= u
        p += f(c)
    q = u * f(_PHI32_Q[0])
    q += f(_PHI32_Q[1])
    for c in _PHI32_Q[2:]:
        q *= u
        q += f(c)
    p *= xc
    p /= q
    p += f(0.5)
    _phi32_tail(xp, x, p)
    return p


def _phi32_tail(xp, x, p):
    """Below -3, 0.5 + x p / q cancels (5e-2 relative at -5): there Phi is erfc(|x| / sqrt 2)
    / 2 in double (its relative error 1e-7 where torch's float erf gives 4e-2 at -5), down to
    where torch's 1 + erf rounds to 0 (x <= -5.5430408: gelu is 0 there, as ours below).
    Writes into the contiguous p; returns the flat indices it rewrote."""
    f = xp.float32
    (tail,) = xp.nonzero((x < f(-3)).ravel())
    if tail.size:
        z = x.ravel()[tail]
        tail = tail[z > f(_PHI32_TAIL_END)]
        z = x.ravel()[tail].astype("float64") * -(1 / math.sqrt(2))
        p.ravel()[tail] = (0.5 * _erfc_abs(xp, z)).astype("float32")
    return tail


_GELU32_CONSTS = []


def _gelu32_constants():
    """The float32 constants of _fused's GELU loops and ufuncs (clip, 1/2, 0, p0..p5, q0..q4,
    -3, the tail's end, -1/2, 1/sqrt(2 pi)) and the float64 (-1/sqrt 2, erfc's Chebyshev
    coefficients), as NumPy arrays (made once)."""
    if not _GELU32_CONSTS:
        import numpy  # only with numba, which needs NumPy: these go to compiled CPU code

        assert len(_PHI32_P) == 6 and len(_PHI32_Q) == 5  # the loop's unrolled Horner steps
        tail = (-3.0, _PHI32_TAIL_END, -0.5, 1 / math.sqrt(2 * math.pi))
        consts = (_PHI32_CLIP, 0.5, 0.0) + _PHI32_P + _PHI32_Q + tail
        _GELU32_CONSTS.append(numpy.asarray(consts, dtype=numpy.float32))
        cof = (-(1 / math.sqrt(2)),) + _ERFC_COF
        _GELU32_CONSTS.append(numpy.asarray(cof, dtype=numpy.float64))
    return tuple(_GELU32_CONSTS)


def _gelu32_fused(xp, x):
    """(Phi(x), gelu(x)) of a float32 array from _fused's compiled loop (bitwise _phi32's
    values, _phi32_tail's patch included, and Gelu.forward's), or None where it does not run
    (no numba, small or strided)."""
    k = _fused.kernels() if x.size >= _fused.MIN_SIZE else None
    arrays = _fused.flat(x) if k is not None else None
    if arrays is None:
        return None
    cdf, out = xp.empty_like(x), xp.empty_like(x)
    c, cof = _gelu32_constants()
    # the erfc tail's scan only where an x is below its upper end (NumPy's SIMD minimum, NaN
    # ignored, costs a sixth of the compiled scan): activations of a trained net rarely are
    tail = bool(xp.fmin.reduce(arrays[0]) < c[14])
    k.gelu32(arrays[0], c, cof, cdf.reshape(-1), out.reshape(-1), tail)
    return cdf, out


def _one_plus_tanh(xp, x):
    """1 + tanh(K (x + C x^3)) of a float array, as 2 / (1 + exp(-2 z)) (NumPy's exp is ~3x
    faster than its tanh), then minus and plus 1 so it rounds as torch's 1 + tanh: exactly 0
    where tanh(z) rounds to -1, so gelu(x) is -0 there as torch's."""
    dt = x.dtype.type
    z = x * x
    z *= dt(_C)
    z += dt(1)
    z *= x
    z *= dt(-2 * _K)  # -2 z
    xp.exp(z, out=z)
    z += dt(1)
    xp.divide(dt(2), z, out=z)
    z -= dt(1)  # tanh(z)
    z += dt(1)
    return z


_K = math.sqrt(2 / math.pi)
_C = 0.044715


class Gelu(Op):
    saves_inputs = True
    saves = ("cdf", "tanh1")
    saved_fields = {"approximate": "approximate", "self": "input0"}
    cdf = tanh1 = None  # Phi(x) (approximate='none') or 1 + tanh(...) ('tanh') where kept

    def forward(self, x, approximate="none"):
        refuse(x, "biu", "GeluKernelImpl")
        self.approximate = approximate
        xp, dt = self.xp, x.dtype.type
        if approximate == "tanh":
            if self.half is None and _sleef_act.applies(x):  # torch's kernel, bit for bit
                return _sleef_act.gelu_tanh(x)
            if _is_array(xp, x) and x.dtype.kind == "f" and x.dtype.itemsize >= 4:
                self.tanh1 = _one_plus_tanh(xp, x)  # kept for backward
                out = x * self.tanh1
                out *= dt(0.5)
                return out
            return dt(0.5) * x * (1 + xp.tanh(dt(_K) * (x + dt(_C) * x * x * x)))
        if self.half is None and x.dtype == _F64 and _sleef_act.applies(x):  # torch's kernel
            self.cdf = None
            return _sleef_act.gelu_erf(x)
        if self.half is None and x.dtype == _F32 and _sleef_act.applies(x):  # oneDNN's
            out = _sleef_act.gelu_dnnl(x)  # (None for a strided x: ATen's kernel)
            self.cdf = None
            return _sleef_act.gelu_erf(x) if out is None else out
        if x.dtype == xp.float32 and _is_array(xp, x):
            u = _small_ufunc(x, "gelu32", "f")
            if u is not None:  # the same values in one call; backward recomputes Phi
                self.cdf = None
                return u(x)
            fused = _gelu32_fused(xp, x)
            if fused is not None:  # the same values in one compiled loop, tail included
                self.cdf, out = fused
                return out
        self.cdf = cdf = _gelu_cdf(xp, x)  # kept for backward
        out = x * cdf
        if x.dtype == xp.float32:
            # torch's float32 kernel is fma(x / 2, erf, x / 2): a zero result is +0 there
            # (x / 2 - x / 2), -0 as x * cdf; -0 + 0 is +0, other values are unchanged
            if _is_array(xp, out):
                out += dt(0)
            else:
                out = out + dt(0)
        return out

    def backward(self, grad):
        (x,) = self.inputs
        if (
            plain(grad) and grad._data.dtype.itemsize > 2
        ):  # no graph: the kernel on arrays, forward's Phi reused
            d = gelu_grad(self.xp, grad._data, x._data, self.approximate, self.cdf, self.tanh1)
            return wrap(d, grad)
        return _grad_ops().GeluBackward.apply(grad, x, approximate=self.approximate)

    jvp = Op.jvp_elementwise


def _gelu_cdf(xp, x):
    """Phi(x) as Gelu.forward computes it (its compiled loop gives _phi32's bits); float16
    (a first gradient on the half dtype's arrays) in _phi32's float32 constants too."""
    if x.dtype.char in "fe" and _is_array(xp, x):
        return _phi32(xp, x)
    cdf = _erf(xp, x * x.dtype.type(1 / math.sqrt(2)), scratch=True)
    if _is_array(xp, cdf):  # 0.5 * (1 + erf), in place on the fresh erf array
        cdf += 1.0
        cdf *= 0.5
        return cdf
    return 0.5 * (1.0 + cdf)


def gelu_grad(xp, g, a, approximate="none", cdf=None, tanh1=None, exact=True):
    """torch's gelu_backward(grad, x, approximate) on arrays: grad * d/dx gelu(x). `cdf` is
    forward's Phi(x) and `tanh1` its 1 + tanh(...) where kept (else recomputed); exact:
    float32/float64 NumPy arrays run torch's kernel where replayed (not a half op's)."""
    dt = a.dtype.type
    if approximate == "tanh":
        if exact and _sleef_act.applies(g, a):  # torch's CPU kernel, bit for bit
            d = _sleef_act.gelu_tanh_backward(g, a)
            if d is not None:
                return d
        if tanh1 is None and _is_array(xp, a) and a.dtype.kind == "f" and a.dtype.itemsize >= 4:
            tanh1 = _one_plus_tanh(xp, a)  # as forward
        if tanh1 is not None and g.dtype == tanh1.dtype:
            # torch's 0.5 (1 + t) + 0.5 x (1 - t^2) K (1 + 3 C x^2) with 1 + t = h kept from
            # forward and 1 - t^2 = (2 - h) h: no tanh, in place on two arrays
            d = a * a
            d *= dt(3 * _C)
            d += dt(1)
            d *= a
            d *= dt(0.5 * _K)
            b = dt(2) - tanh1
            b *= d
            b += dt(0.5)
            b *= tanh1
            b *= g
            return b
        t = xp.tanh((a + a * a * a * dt(_C)) * dt(_K))
        d = (t + dt(1)) * dt(0.5) + a * dt(0.5) * (dt(1) - t * t) * dt(_K) * (
            a * a * dt(3 * _C) + dt(1)
        )
        return g * d
    if exact and a.dtype == _F64 and _sleef_act.applies(g, a):  # torch's CPU kernel
        d = _sleef_act.gelu_erf_backward(g, a)
        if d is not None:
            return d
    if exact and a.dtype == _F32 and _sleef_act.applies(g, a):  # oneDNN's (contiguous x)
        d = _sleef_act.gelu_dnnl_backward(g, a)
        if d is None:  # a strided x: ATen's kernel
            d = _sleef_act.gelu_erf_backward(g, a)
        if d is not None:
            return d
    u = _small_ufunc(a, "gelu32_grad", "f") if cdf is None else None
    sq = _small_ufunc(a, "gelu32_square", "f") if u is not None else None
    if sq is not None and g.dtype == a.dtype:  # after forward's small ufunc:
        d = sq(a)  # the formula below in 3 calls
        if a.ndim == 0:  # ufuncs return scalars for 0-dim arrays
            return xp.asarray(u(a, xp.exp(d), g))
        xp.exp(d, out=d)
        return u(a, d, g)
    if cdf is None:
        cdf = _gelu_cdf(xp, a)
    if not _is_array(xp, a) or g.dtype != a.dtype:
        pdf = xp.exp(a * a * dt(-0.5)) * dt(1 / math.sqrt(2 * math.pi))
        return g * (cdf + a * pdf)
    k = _fused.kernels() if a.size >= _fused.MIN_SIZE else None
    arrays = _fused.flat(a, cdf, g) if k is not None else None
    if arrays is not None:  # the passes below in two compiled loops around NumPy's exp
        d = xp.empty_like(a)
        flat_d = d.reshape(-1)
        k.gelu_grad_head(arrays[0], xp.asarray([-0.5], dtype=a.dtype), flat_d)
        xp.exp(d, out=d)
        scale = xp.asarray([1 / math.sqrt(2 * math.pi)], dtype=a.dtype)
        k.gelu_grad_tail(*arrays, scale, flat_d)
        return d
    d = a * a  # the same formula, in place on one temporary (same values)
    d *= dt(-0.5)
    xp.exp(d, out=d)
    d *= dt(1 / math.sqrt(2 * math.pi))
    d *= a
    d += cdf
    d *= g
    return d


def gelu(input, approximate="none"):
    r"""Applies the Gaussian Error Linear Unit elementwise.

    .. math::
        \text{GELU}(x) = x \Phi(x)

    where :math:`\Phi` is the standard normal CDF. With ``approximate='tanh'``:
    :math:`0.5 x (1 + \tanh(\sqrt{2/\pi} (x + 0.044715 x^3)))`.

    See :class:`~framework.nn.GELU` for the module form.

    Args:
        input (Tensor): the input, of any shape.
        approximate (str, optional): ``'none'`` (exact) or ``'tanh'`` (default: ``'none'``).

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.gelu(framework.tensor([-1.0, 0.0, 2.0]))
        tensor([-0.1587,  0.0000,  1.9545])
        >>> F.gelu(framework.tensor([-1.0, 0.0, 2.0]), approximate="tanh")
        tensor([-0.1588,  0.0000,  1.9546])
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return Gelu.apply(input, approximate=approximate)
