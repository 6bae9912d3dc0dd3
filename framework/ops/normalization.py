"""group_norm as one primitive (torch's NativeGroupNormBackward0)."""
from ..autograd.grad_mode import state
from ..autograd.op import Op
from ..tensor import Tensor


class NativeGroupNorm(Op):
    """Normalise each of G channel groups of each sample, then scale/shift per channel."""
    saves_inputs = True
    saves = ("mean", "invstd")

    def forward(self, x, weight, bias, num_groups=1, eps=1e-5):
        xp = self.xp
        n, c = x.shape[0], x.shape[1]
        self.groups, self.eps = num_groups, eps
        self.wshape = (1, c) + (1,) * (x.ndim - 2)
        g = x.reshape(n, num_groups, -1)
        mean = g.mean(axis=2, keepdims=True)
        gc = g - mean
        invstd = 1.0 / xp.sqrt((gc * gc).mean(axis=2, keepdims=True) + eps)
        self.mean, self.invstd = mean, invstd
        y = (gc * invstd).reshape(x.shape)
        if weight is not None:
            y = y * weight.reshape(self.wshape)
        if bias is not None:
            y = y + bias.reshape(self.wshape)
        return y

    def backward(self, grad):
        x, weight, _ = self.inputs
        need_x, need_w, need_b = self.needs_input_grad
        n = x.shape[0]
        g = x.reshape(n, self.groups, -1)
        if state.enabled:  # create_graph: mean and invstd as functions of x
            gc = g - g.mean(dim=2, keepdim=True)
            invstd = ((gc * gc).mean(dim=2, keepdim=True) + self.eps) ** -0.5
        else:
            gc = g - Tensor._make(self.mean, x.device)
            invstd = Tensor._make(self.invstd, x.device)
        xhat = (gc * invstd).reshape(x.shape)
        red = (0,) + tuple(range(2, x.dim()))
        grad_w = (grad * xhat).sum(dim=red) if need_w else None
        grad_b = grad.sum(dim=red) if need_b else None
        grad_x = None
        if need_x:
            gw = (grad * weight.reshape(self.wshape) if weight is not None else grad)
            gw = gw.reshape(n, self.groups, -1)
            xh = xhat.reshape(n, self.groups, -1)
            grad_x = ((gw - gw.mean(dim=2, keepdim=True)
                       - xh * (gw * xh).mean(dim=2, keepdim=True)) * invstd).reshape(x.shape)
        return grad_x, grad_w, grad_b


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Group normalisation: statistics over each group of C/num_groups channels per sample.

    Args:
        input: (N, C, *).
        num_groups: G, dividing C.
        weight, bias: optional (C,) affine parameters.
        eps: added to the variance.

    Example:
        >>> F.group_norm(framework.tensor([[1., 3.]]), 1)
        tensor([[-1.0000,  1.0000]])
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    c = input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} "
                               f"and input of shape {list(input.shape)}")
    return NativeGroupNorm.apply(input, weight, bias, num_groups=num_groups, eps=eps)


__all__ = []
