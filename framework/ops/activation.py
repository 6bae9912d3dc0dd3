"""Activations: sigmoid, tanh, relu, softmax and log_softmax (stable primitives)."""
from .._errors import refuse
from ..autograd.op import Op
from .unary import _float, exp
from .reduction import _wrap_dim


class Tanh(Op):
    saves_output = True

    def forward(self, x):
        return self.xp.tanh(_float(x))

    def backward(self, grad):
        y = self.output
        return grad * (1 - y * y)  # d/dx tanh = 1 - tanh(x)**2


def tanh(input):
    return Tanh.apply(input)


class Sigmoid(Op):
    saves_output = True

    def forward(self, x):
        x = _float(x)
        xp = self.xp
        # stable for large |x|: exp of a non-positive number only
        e = xp.exp(-xp.abs(x))
        return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    def backward(self, grad):
        y = self.output
        return grad * y * (1 - y)  # d/dx sigmoid = s (1 - s)


def sigmoid(input):
    return Sigmoid.apply(input)


class Relu(Op):
    saves_output = True

    def forward(self, x):
        if x.dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu")
        return self.xp.maximum(x, 0).astype(x.dtype, copy=False)

    def backward(self, grad):
        # torch's threshold_backward selects (no inf * 0 = nan below 0; nan outputs pass grad);
        # its subgradient at 0 is 0
        from .elementwise import where
        return where(self.output <= 0, 0.0, grad)


def relu(input):
    return Relu.apply(input)


def _check_float(x, kernel, dim):
    """torch's refusal of integer inputs, naming the last-dim kernel when dim is the last."""
    if x.size == 0:  # torch dispatches no kernel for an empty tensor
        return
    if x.ndim and _wrap_dim(dim, x.ndim) == x.ndim - 1:
        kernel = kernel.replace("_kernel", "_lastdim_kernel")
    refuse(x, "biu", kernel)


class Softmax(Op):
    saves_output = True

    def forward(self, x, dim):
        _check_float(x, "softmax_kernel_impl", dim)
        self.axis = _wrap_dim(dim, x.ndim)
        xp = self.xp
        if x.ndim == 0:
            return xp.ones_like(x)
        if x.size == 0:
            return x.copy()
        e = xp.exp(x - x.max(axis=self.axis, keepdims=True))  # shifted: no overflow
        e /= e.sum(axis=self.axis, keepdims=True)
        return e

    def backward(self, grad):
        y = self.output
        if y.ndim == 0:
            return grad * 0
        # J^T g = y * (g - sum(g * y))
        return y * (grad - (grad * y).sum(self.axis, keepdim=True))


def softmax(input, dim, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return Softmax.apply(input, dim=dim)


class LogSoftmax(Op):
    saves_output = True

    def forward(self, x, dim):
        _check_float(x, "log_softmax_kernel_impl", dim)
        self.axis = _wrap_dim(dim, x.ndim)
        xp = self.xp
        if x.ndim == 0:
            return xp.zeros_like(x)
        if x.size == 0:
            return x.copy()
        shifted = x - x.max(axis=self.axis, keepdims=True)
        shifted -= xp.log(xp.exp(shifted).sum(axis=self.axis, keepdims=True))
        return shifted

    def backward(self, grad):
        y = self.output
        if y.ndim == 0:
            return grad * 0
        # d/dx log_softmax: g - softmax(x) * sum(g)
        return grad - exp(y) * grad.sum(self.axis, keepdim=True)


def log_softmax(input, dim, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return LogSoftmax.apply(input, dim=dim)
