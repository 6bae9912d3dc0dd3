"""layer_norm's and batch_norm's backward as one node each under create_graph, torch's
NativeLayerNormBackwardBackward0 and NativeBatchNormBackwardBackward0: the first gradients
come from the forward node's own (array) backward, and their derivatives are torch's
layer_norm_double_backward and batchnorm_double_backward in Tensor ops."""

import math

from ..autograd.grad_mode import no_grad
from ..autograd.op import Op
from ..backend import device_of
from ..tensor import Tensor
from . import _norm_grad
from ._sum_kernel import torch_sum


def _tensors(got, shapes, dev):
    """The replayed gradient arrays as tensors of the inputs' shapes (None where not wanted)."""
    return tuple(
        None if a is None else Tensor._make(a.reshape(shape), dev) for a, shape in zip(got, shapes)
    )


def _arrays(grad, x, weight):
    """(grad, x, weight) arrays where torch's kernels are replayed (NumPy float32/float64
    arrays of one dtype, with elements), else None."""
    w = None if weight is None else weight._data
    g, a = grad._data, x._data
    if not a.size or not _norm_grad.replayable(a, g, w):
        return None
    return g, a, w


def layer_norm_grads(fwd, grad, x, weight, need):
    """(grad_x, grad_w, grad_b) of layer_norm node `fwd` by torch's backward kernel, replayed
    (_norm_grad); None where it is not (other dtypes, CuPy, an empty input)."""
    arrays = _arrays(grad, x, weight)
    width = math.prod(fwd.normalized_shape)
    if arrays is None or not width:
        return None
    g, a, w = arrays
    rows = (-1, width)
    got = _norm_grad.layer_norm_backward(
        g.reshape(rows), a.reshape(rows), fwd.mean, fwd.invstd, w, need
    )
    shapes = (a.shape, fwd.normalized_shape, fwd.normalized_shape)
    return _tensors(got, shapes, grad.device)


def group_norm_grads(fwd, grad, x, weight, need):
    """(grad_x, grad_w, grad_b) of group_norm node `fwd` by torch's backward kernel, replayed;
    None where it is not."""
    arrays = _arrays(grad, x, weight)
    if arrays is None:
        return None
    g, a, w = arrays
    got = _norm_grad.group_norm_backward(g, a, fwd.mean, fwd.invstd, w, fwd.groups, need)
    c = (a.shape[1],)
    return _tensors(got, (a.shape, c, c), grad.device)


def batch_norm_grads(fwd, grad, x, weight, need):
    """(grad_x, grad_w, grad_b) of batch_norm node `fwd` by torch's contiguous backward
    kernels, replayed; None where they are not (torch's other kernel: a gradient or input that
    is not C-contiguous; or no running stats in evaluation)."""
    arrays = _arrays(grad, x, weight)
    if arrays is None or x.dim() < 2:
        return None
    g, a, w = arrays
    if not (g.flags.c_contiguous and a.flags.c_contiguous):
        return None
    if fwd.training:
        stats = fwd.invstd
    elif fwd.running_var is None:
        return None
    else:
        stats = (fwd.running_var, fwd.eps)
    got = _norm_grad.batch_norm_backward(g, a, w, fwd.mean, stats, fwd.training, need)
    c = (a.shape[1],)
    return _tensors(got, (a.shape, c, c), grad.device)


def _first_grads(fwd, g, shapes):
    """(grad_x, grad_w, grad_b) arrays of forward node `fwd` for upstream array `g`, each
    summed to its input's shape (an empty placeholder where `fwd` gives none)."""
    with no_grad():
        got = fwd.backward(Tensor._make(g, device_of(g)))
    out = []
    for a, shape in zip(got, shapes):
        if a is None or shape is None:
            out.append(g.reshape(-1)[:0])
            continue
        a = a._data
        if a.shape != shape:  # as the engine's _fit sums it (torch's order where reproduced)
            axes = tuple(range(a.ndim - len(shape)))
            summed = torch_sum(a, axes)
            a = (a.sum(axis=axes) if summed is None else summed).reshape(shape)
        out.append(a)
    return tuple(out)


def _affine_only(shapes, ggW, ggB):
    """The incoming gradients of the weight's and bias's outputs, None where the call had no
    weight or bias (their outputs are empty placeholders, as torch's are undefined)."""
    return (ggW if shapes[1] is not None else None), (ggB if shapes[2] is not None else None)


def _sum_to(t, keep):
    """t summed over every dim but `keep`'s, keepdim."""
    return t.sum(tuple(i for i in range(t.dim()) if i not in keep), keepdim=True)


class NativeLayerNormBackward(Op):
    """torch's native_layer_norm_backward(grad, input, mean, rstd, weight, bias): the three
    first gradients of layer_norm node `fwd` (edges to all six inputs, as torch's node)."""

    node_name = "NativeLayerNormBackwardBackward0"
    saves_inputs = True

    def forward(self, g, x, mean, rstd, w, b, fwd=None):
        self.axes, self.shapes = fwd.axes, fwd.shapes
        return _first_grads(fwd, g, self.shapes)

    def backward(self, ggI, ggW, ggB):
        # torch's layer_norm_double_backward, on the (M, N) rows it reshapes to (so each
        # result is a view of its input's shape, as torch's)
        gO, x, mean, rstd, w, _ = self.inputs
        need_g, need_x, _, _, need_w, _ = self.needs_input_grad
        ggW, ggB = _affine_only(self.shapes, ggW, ggB)
        n = math.prod(x.shape[x.dim() - len(self.axes) :])
        m = math.prod(x.shape[: x.dim() - len(self.axes)])
        xc = x.reshape(m, n) - mean.reshape(m, 1)
        go = gO.reshape(m, n)
        s1 = rstd.reshape(m, 1)
        s2, s3 = s1.pow(2), s1.pow(3)
        x_s3 = xc * s3
        gamma = w.reshape(1, n) if w is not None else None
        ggI = ggI.reshape(m, n) if ggI is not None else None
        ggW = ggW.reshape(1, n) if ggW is not None else None
        gI = gG = ggO = None
        if ggI is not None and need_x:
            gxhat = go * gamma if gamma is not None else go
            gxhat_mu_sum = (gxhat * xc).sum(1, keepdim=True)
            gxhat_sum = gxhat.sum(1, keepdim=True)
            ggI_sum = ggI.sum(1, keepdim=True)
            ggI_mu_sum = (ggI * xc).sum(1, keepdim=True)
            all_sub = (
                ggI_sum * gxhat_sum / n
                - (ggI * gxhat).sum(1, keepdim=True)
                + s2 * gxhat_mu_sum * ggI_mu_sum * (3.0 / n if n else math.inf)
            )
            gI = (
                x_s3 * all_sub / n
                + ggI_mu_sum * s3 / n * (gxhat_sum / n - gxhat)
                + gxhat_mu_sum * s3 / n * (ggI_sum / n - ggI)
            )
        if ggW is not None and gamma is not None and need_x:
            t = go * ggW
            term = t * s1 - s1 * t.sum(1, keepdim=True) / n
            term = term - x_s3 * (t * xc).sum(1, keepdim=True) / n
            gI = term if gI is None else gI + term
        gI = gI.reshape(*x.shape) if gI is not None else None

        def first(g, gam):
            """The first-order gradient, in Tensor ops (the kernel's formula, differentiable)."""
            h0 = s1 / n if gam is None else gam * s1 / n
            h1 = n * g - g.sum(1, keepdim=True) - xc * s2 * (g * xc).sum(1, keepdim=True)
            return h0 * h1

        if ggI is not None and gamma is not None and need_w:
            gG = (go * first(ggI, None)).sum(0).reshape(*w.shape)
        if need_g:
            if ggI is not None:
                ggO = first(ggI, gamma)
            if ggW is not None:
                term = ggW * xc * s1
                ggO = term if ggO is None else ggO + term
            if ggB is not None:
                term = ggB.reshape(1, n)
                ggO = term if ggO is None else ggO + term
            if ggO is not None:
                ggO = ggO.expand(m, n).reshape(*x.shape)
        return ggO, gI, None, None, gG, None

    jvp = Op.jvp_transpose


class NativeBatchNormBackward(Op):
    """torch's native_batch_norm_backward(grad, input, weight, save_mean, save_invstd): the
    three first gradients of batch_norm node `fwd` (in evaluation the running statistics
    stand for the saved ones, as in torch's formula)."""

    node_name = "NativeBatchNormBackwardBackward0"
    saves_inputs = True

    def forward(self, g, x, w, mean, invstd, fwd=None):
        self.training, self.shapes = fwd.training, fwd.shapes
        return _first_grads(fwd, g, self.shapes)

    def backward(self, ggI, ggW, ggB):
        gO, x, w, mean, invstd = self.inputs
        need_g, need_x, need_w, _, _ = self.needs_input_grad
        ggW, ggB = _affine_only(self.shapes, ggW, ggB)
        shape = (1, -1) + (1,) * (x.dim() - 2)
        keep = (1,)
        m = x.numel() // max(x.shape[1], 1)
        mu, s1 = mean.reshape(shape), invstd.reshape(shape)
        s2, s3 = s1**2, s1**3
        gamma = w.reshape(shape) if w is not None else None
        # torch multiplies by a 0-dim one without a weight (its result's node: MulBackward0)
        gamma_e = (
            gamma if gamma is not None else Tensor._make(x.xp.ones((), x._data.dtype), x.device)
        )
        ggW = ggW.reshape(shape) if ggW is not None else None
        ggB = ggB.reshape(shape) if ggB is not None else None
        xc = x - mu
        x_s3 = xc * s3
        gI = gG = ggO = None
        if need_x:
            gO_sum = _sum_to(gO, keep)
            gOinmu_sum = _sum_to(gO * xc, keep)
            if ggI is not None and self.training:
                ggI_sum = _sum_to(ggI, keep)
                ggIinmu_sum = _sum_to(ggI * xc, keep)
                all_sub = (
                    ggI_sum * gO_sum / m
                    - _sum_to(gO * ggI, keep)
                    + s2 * gOinmu_sum * ggIinmu_sum * (3.0 / m)
                )
                gI = (
                    x_s3 * all_sub / m
                    + ggIinmu_sum * s3 / m * (gO_sum / m - gO)
                    + gOinmu_sum * s3 / m * (ggI_sum / m - ggI)
                )
                gI = gamma_e * gI
            if ggW is not None:
                if self.training:
                    term = gO * s1 - s1 * gO_sum / m - x_s3 * gOinmu_sum / m
                    term = ggW * term
                else:
                    term = ggW * s1 * gO
                gI = term if gI is None else gI + term

        def first(go, gam):
            """The first-order gradient, in Tensor ops (the kernel's formula, differentiable)."""
            h0 = s1 / m if gam is None else gam * s1 / m
            h1 = m * go - _sum_to(go, keep) - xc * s2 * _sum_to(go * xc, keep)
            return h0 * h1

        if need_w and gamma is not None and ggI is not None:
            gG = ggI * first(gO, None) if self.training else ggI * gO * s1
            gG = gG.sum(tuple(i for i in range(gG.dim()) if i != 1))
        if need_g:
            if ggI is not None:
                if self.training:
                    ggO = first(ggI, gamma)
                else:
                    ggO = ggI * s1 if gamma is None else ggI * s1 * gamma
            if ggW is not None:
                term = ggW * xc * s1
                ggO = term if ggO is None else ggO + term
            if ggB is not None:
                ggO = ggB.expand(*x.shape) if ggO is None else ggO + ggB
        return ggO, gI, gG, None, None

    jvp = Op.jvp_transpose


class GroupNormStats(Op):
    """The mean and rstd of a group_norm call as differentiable tensors, for torch's
    create_graph formula (infinitely_differentiable_native_group_norm_backward), where they
    are outputs of the forward node: named as it, with its edges (input, weight, bias), so
    they require grad exactly when torch's do. Backward: their gradients reach the input
    through var_mean_backward."""

    node_name = "NativeGroupNormBackward0"
    saves_inputs = True
    saves = ("rstd",)

    def forward(self, x, w, b, mean=None, rstd=None):
        self.rstd = rstd
        return mean, rstd

    def backward(self, dmean, drstd):
        x = self.inputs[0]
        if not self.needs_input_grad[0] or (dmean is None and drstd is None):
            return None, None, None
        n, g = self.rstd.shape[:2]
        count = math.prod(x.shape[1:]) // g
        xg = x.reshape(n, g, count)
        rstd = Tensor._make(self.rstd, x.device)
        grad = None
        if drstd is not None:  # d rstd = -rstd^3 / 2 d var; d var = 2 (x - mean) / count
            dvar = -0.5 * rstd * rstd * rstd * drstd
            grad = dvar * 2 / count * (xg - xg.mean(2, keepdim=True))
        if dmean is not None:
            term = dmean.expand(n, g, count) / count
            grad = term if grad is None else grad + term
        return grad.reshape(*x.shape), None, None

    jvp = Op.jvp_transpose


def group_norm_double(grad, x, w, b, mean, rstd, groups, needs):
    """(grad_x, grad_w, grad_b) of group_norm under create_graph: torch's
    infinitely_differentiable_native_group_norm_backward, in its order (its nodes: the
    input's and weight's gradients are views of a sum, the bias's needs grad to require it)."""
    n, c = x.shape[0], x.shape[1]
    d = c // groups
    hw = math.prod(x.shape[2:])
    mean_t, rstd_t = GroupNormStats.apply(x, w, b, mean=mean, rstd=rstd)
    xt = x.reshape(n, groups, d, hw)
    mean_t, rstd_t = mean_t.reshape(n, groups, 1, 1), rstd_t.reshape(n, groups, 1, 1)
    gy = grad.reshape(n, groups, d, hw)
    ds = (gy * xt).sum(3).unsqueeze(-1)
    db = gy.sum(3).unsqueeze(-1)
    s = 1.0 / (d * hw) if d * hw else float("inf")
    gx = gw = gb = None
    if needs[0]:
        gamma = w.reshape(1, groups, d, 1) if w is not None else None
        a = rstd_t * gamma if gamma is not None else rstd_t
        bb = ((ds * gamma).sum(2) if gamma is not None else ds.sum(2)).unsqueeze(-2)
        cc = ((db * gamma).sum(2) if gamma is not None else db.sum(2)).unsqueeze(-2)
        bb = (cc * mean_t - bb) * (rstd_t * rstd_t * rstd_t) * s
        cc = -bb * mean_t - cc * rstd_t * s
        gx = (a * gy + bb * xt + cc).reshape(*x.shape)
    if needs[1] and w is not None:
        gw = ((ds - db * mean_t) * rstd_t).sum(0).reshape(*w.shape)
    if needs[2] and b is not None:
        gb = db.sum(0).reshape(*b.shape)
    return gx, gw, gb
