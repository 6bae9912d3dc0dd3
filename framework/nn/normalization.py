"""batch_norm and layer_norm primitives (hand-written backward) and their modules."""
import numbers

from .._errors import refuse
from ..ops.reduction import array_mean
from ..autograd.grad_mode import state
from ..creation import empty, ones, tensor, zeros
from ..autograd.op import Op
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


class NativeBatchNorm(Op):
    """Normalise over every dim but 1 (the channels); updates running stats in training."""
    saves_inputs = True

    def forward(self, x, weight, bias, running_mean=None, running_var=None, training=True,
                momentum=0.1, eps=1e-5):
        xp = self.xp
        refuse(x, "biu", "batch_norm")
        self.axes = (0,) + tuple(range(2, x.ndim))
        self.shape = (1, -1) + (1,) * (x.ndim - 2)
        self.training, self.eps = training, eps
        if training:
            mean = array_mean(x, self.axes)
            xc = x - mean.reshape(self.shape)
            var = array_mean(xc * xc, self.axes)  # biased: used to normalise
            if running_mean is not None:
                n = x.size // x.shape[1]
                running_mean *= 1 - momentum
                running_mean += momentum * mean
                running_var *= 1 - momentum
                running_var += (momentum * n / max(n - 1, 1)) * var  # unbiased in the buffer
        else:
            mean, var = running_mean, running_var
            xc = x - mean.reshape(self.shape)
        self.mean = mean
        self.invstd = 1.0 / xp.sqrt(var + eps)
        y = xc * self.invstd.reshape(self.shape).astype(x.dtype, copy=False)
        if weight is not None:
            y *= weight.reshape(self.shape)
        if bias is not None:
            y += bias.reshape(self.shape)
        return y

    def backward(self, grad):
        x, weight, _ = self.inputs
        need_x, need_w, need_b = self.needs_input_grad
        axes, shape = self.axes, self.shape
        if self.training and state.enabled:
            # create_graph: mean and invstd depend on x, so rebuild them with Tensor ops
            mean = x.mean(dim=axes, keepdim=True)
            xc = x - mean
            invstd = ((xc * xc).mean(dim=axes, keepdim=True) + self.eps) ** -0.5
        else:
            mean = Tensor._make(self.mean.reshape(shape), x.device)
            invstd = Tensor._make(self.invstd.reshape(shape).astype(x._data.dtype), x.device)
            xc = x - mean
        xhat = xc * invstd
        grad_w = (grad * xhat).sum(dim=axes) if need_w else None
        grad_b = grad.sum(dim=axes) if need_b else None
        grad_x = None
        if need_x:
            if self.training:
                n = x.numel() // x.shape[1]
                g_mean = grad.sum(dim=axes, keepdim=True) / n
                gx_mean = (grad * xhat).sum(dim=axes, keepdim=True) / n
                grad_x = (grad - g_mean - xhat * gx_mean) * invstd
            else:
                grad_x = grad * invstd
            if weight is not None:
                grad_x = grad_x * weight.reshape(shape)
        return grad_x, grad_w, grad_b


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training:
        size = input.shape
        n = size[0]
        for s in size[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {size!r}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    if input.numel() == 0:  # torch: a clone (scaled and shifted), running stats untouched
        out = input.clone()
        out = out * weight[0] if weight is not None else out
        return out + bias[0] if bias is not None else out
    rm = running_mean._data if running_mean is not None else None
    rv = running_var._data if running_var is not None else None
    out = NativeBatchNorm.apply(input, weight, bias, running_mean=rm, running_var=rv,
                                training=training, momentum=momentum, eps=eps)
    if training and running_mean is not None:
        running_mean._vc[0] += 1  # updated in place, as torch bumps their versions
        running_var._vc[0] += 1
    return out


class NativeLayerNorm(Op):
    """Normalise over the trailing len(normalized_shape) dims."""
    saves_inputs = True

    def forward(self, x, weight, bias, normalized_shape=(), eps=1e-5):
        xp = self.xp
        refuse(x, "biu", "LayerNormKernelImpl")
        self.axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        self.eps = eps
        mean = array_mean(x, self.axes, keepdims=True)
        xc = x - mean
        self.mean = mean
        self.invstd = 1.0 / xp.sqrt(array_mean(xc * xc, self.axes, keepdims=True) + eps)
        y = xc * self.invstd
        if weight is not None:
            y *= weight
        if bias is not None:
            y += bias
        return y

    def backward(self, grad):
        x, weight, _ = self.inputs
        need_x, need_w, need_b = self.needs_input_grad
        axes = self.axes
        if state.enabled:  # create_graph: keep mean and invstd as functions of x
            xc = x - x.mean(dim=axes, keepdim=True)
            invstd = ((xc * xc).mean(dim=axes, keepdim=True) + self.eps) ** -0.5
        else:
            xc = x - Tensor._make(self.mean, x.device)
            invstd = Tensor._make(self.invstd, x.device)
        xhat = xc * invstd
        grad_x = None
        if need_x:
            gw = grad * weight if weight is not None else grad
            grad_x = (gw - gw.mean(dim=axes, keepdim=True)
                      - xhat * (gw * xhat).mean(dim=axes, keepdim=True)) * invstd
        # the engine sums these over the leading (batch) dims down to the weight's shape
        return grad_x, (grad * xhat if need_w else None), (grad if need_b else None)


def check_normalized_shape(input, normalized_shape):
    """normalized_shape as a tuple, checked against input's trailing dims (torch's message)."""
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) \
        else tuple(normalized_shape)
    k = len(normalized_shape)
    if input.dim() < k or tuple(input.shape[input.dim() - k:]) != normalized_shape:
        shape = ", ".join(str(s) for s in normalized_shape)
        got = ", ".join(str(s) for s in input.shape)
        raise RuntimeError(f"Given normalized_shape=[{shape}], expected input with shape "
                           f"[*, {shape}], but got input of size[{got}]")
    return normalized_shape


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    normalized_shape = check_normalized_shape(input, normalized_shape)
    return NativeLayerNorm.apply(input, weight, bias, normalized_shape=normalized_shape, eps=eps)


class _BatchNorm(Module):
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if use_buffers else None,
                          self.running_var if use_buffers else None, self.weight, self.bias,
                          bn_training, factor, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and \
                key not in state_dict:  # checkpoints from before the counter existed
            state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None \
                else tensor(0)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")
