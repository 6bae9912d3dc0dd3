"""The pointwise losses' backward kernels as nodes under create_graph, as torch records them:
MseLossBackwardBackward0, SmoothL1LossBackwardBackward0, HuberLossBackwardBackward0,
SoftMarginLossBackwardBackward0 and BinaryCrossEntropyBackwardBackward0. Each computes the
first gradient of one input with the loss's own formula (the same values as a plain backward)
and differentiates it with torch's double-backward formulas (FunctionsManual.cpp)."""

from .._cpu_loops import tail_ranges
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op
from ..backend import CPU, device_of, xp_for
from ..tensor import Tensor


def _t(a):
    return Tensor._make(a, device_of(a))


def _norm(value, reduction, numel):
    """The kernels' scale: value / numel for a mean (a double, as torch's `norm`), else value."""
    if reduction != "mean":
        return value
    return value / numel if numel else float("inf")  # (an empty input: no element reads it)


def _refuse_bool_target(bool_target):
    """torch's double backward subtracts the target itself: a bool target raises there (ours
    was promoted by the forward)."""
    if bool_target:
        from .._errors import bool_subtraction

        raise bool_subtraction(False)


def kernel(node_cls, g, x, y, **params):
    """The first gradient of a pointwise loss, `node_cls.first` on the arrays (g, x, y): the
    plain backward's values and the create_graph node's forward, the same bits."""
    return xp_for(device_of(x)).asarray(node_cls.first(g, x, y, **params))


def _per_element(g, reduction, numel):
    """The upstream gradient of each element: a 'mean' spreads it over numel elements."""
    return g / numel if reduction == "mean" else g


def _mean_of(g, reduction, numel):
    """torch's `g / numel` for a 'mean' in its C++ formulas (div.Scalar: DivBackward1)."""
    from .extras2 import DivScalar  # (extras2 imports loss, which imports this file)

    return DivScalar.apply(g, other=numel) if reduction == "mean" else g


class _LossBackward(Op):
    """Base of the nodes over (grad, self, target): forward is `first` (the input's gradient,
    in Tensor ops, run without a graph) on the arrays; `params` are the loss's settings."""

    saves_inputs = True

    def forward(self, g, x, y, **params):
        self.kernel_params = params
        return kernel(self, g, x, y, **params).astype(x.dtype, copy=False)  # self's dtype,
        #  as torch's (mixed mse_loss)

    def backward(self, gg):
        go, x, y = self.inputs
        need_go, need_x, need_y = self.needs_input_grad
        p = self.kernel_params
        grad_go = self.grad_output(gg, go, x, y, **p) if need_go else None
        both = self.double(gg * go, x, y, **p) if (need_x or need_y) else None
        return grad_go, (both if need_x else None), (-both if need_y else None)

    def grad_output(self, gg, go, x, y, **p):
        """The derivative for grad: the kernel itself of the incoming gradient, summed down
        to a reduced grad's 0-dim shape (torch's sum_to: SumBackward0)."""
        out = type(self).apply(gg, x, y, **p)
        return out.sum() if go.dim() == 0 and out.dim() else out

    jvp = Op.jvp_transpose


class MseLossBackward(_LossBackward):
    """torch's mse_loss_backward(grad, self, target): 2 (self - target) grad [/ numel]."""

    node_name = "MseLossBackwardBackward0"

    @staticmethod
    def first(g, x, y, reduction="mean", numel=1):
        """The first-order gradient: torch's mse_backward kernel, (norm (x - y)) g with
        norm = 2 [/ numel] in the computation's dtype."""
        d = x - y
        return d.dtype.type(_norm(2.0, reduction, numel)) * d * g

    @staticmethod
    def double(g, x, y, reduction="mean", numel=1):
        """`first` differentiated in x, times the incoming gradient (torch's formula)."""
        return _mean_of(2 * g, reduction, numel)


class SmoothL1LossBackward(_LossBackward):
    """torch's smooth_l1_loss_backward (and huber_loss_backward: `scale` = delta = beta)."""

    node_name = "SmoothL1LossBackwardBackward0"

    huber = False

    @classmethod
    def first(cls, g, x, y, reduction="mean", numel=1, beta=1.0, scale=1.0, bool_target=False):
        """The first-order gradient: torch's smooth_l1_backward (huber_backward) kernel,
        its vectorized body `norm * out * g` (out: x / beta or +-1; huber: x or +-delta) and
        its scalar tail's own order for the last elements (see framework/_cpu_loops.py)."""
        d = x - y
        t, dev = d.dtype.type, device_of(d)
        xp = xp_for(dev)
        norm, b = t(_norm(1.0, reduction, numel)), t(beta)
        sign = xp.where(d > 0, t(1), t(-1))
        if cls.huber:
            body = norm * xp.where(xp.abs(d) >= b, sign * b, d) * g
        else:
            body = norm * xp.where(xp.abs(d) >= b, sign, d / b) * g
        body = xp.asarray(body, dtype=d.dtype)
        g = xp.asarray(g, dtype=d.dtype)
        contiguous = d.flags.c_contiguous and (g.size == 1 or g.shape == d.shape)
        if dev is not CPU or not contiguous or not d.size:  # (a broadcast input: most
            return body  # elements go through the vectorized body)
        width = 64 // d.dtype.itemsize  # torch's AVX2 loop: two vectors per step
        flat, df, gf = body.reshape(-1), d.reshape(-1), g.reshape(-1)
        for s, e in tail_ranges(d.size, width=width):  # the scalar lambda: beta (delta) a
            dd, gg = df[s:e], (gf if g.size == 1 else gf[s:e])  # double, as it is captured
            if cls.huber:
                inside, outside = (
                    norm * dd * gg,
                    ((norm * gg).astype(xp.float64) * beta).astype(d.dtype),
                )
            else:
                inside, outside = (
                    ((norm * dd * gg).astype(xp.float64) / beta).astype(d.dtype),
                    norm * gg,
                )
            flat[s:e] = xp.where(dd <= -beta, -outside, xp.where(dd >= beta, outside, inside))
        return body

    @staticmethod
    def double(g, x, y, reduction="mean", numel=1, beta=1.0, scale=1.0, bool_target=False):
        """`first` differentiated in x, times the incoming gradient (torch's formula)."""
        from .extras2 import DivScalar

        _refuse_bool_target(bool_target)

        inside = ((x - y).abs() < beta).to(g.dtype)
        return _mean_of(DivScalar.apply(g * inside, other=beta), reduction, numel)


class HuberLossBackward(SmoothL1LossBackward):
    """torch's huber_loss_backward; its derivative for grad is the kernel of ones, summed
    against the incoming gradient (torch's huber_loss_double_backward_grad_output)."""

    node_name = "HuberLossBackwardBackward0"
    huber = True
    jvp = Op.jvp_not_implemented  # as torch 2.13
    jvp_name = "huber_loss_backward"

    @staticmethod
    def double(g, x, y, reduction="mean", numel=1, beta=1.0, scale=1.0, bool_target=False):
        """`first` differentiated in x, times the incoming gradient (torch's formula)."""
        _refuse_bool_target(bool_target)
        return _mean_of(g * ((x - y).abs() < beta).to(g.dtype), reduction, numel)

    def grad_output(self, gg, go, x, y, **p):
        """The derivative in the upstream gradient (torch's double_backward_grad_output)."""
        if p["reduction"] == "none":
            return HuberLossBackward.apply(gg, x, y, **p)
        ones = Tensor._make(go.xp.ones_like(go._data), go.device)
        return (HuberLossBackward.apply(ones, x, y, **p) * gg).sum()


class SoftMarginLossBackward(_LossBackward):
    """torch's soft_margin_loss_backward(grad, self, target): -y z / (1 + z) grad with
    z = exp(-x y); over (grad, self) only, the target being a parameter (not differentiable)."""

    node_name = "SoftMarginLossBackwardBackward0"
    jvp = Op.jvp_not_implemented  # as torch 2.13
    jvp_name = "soft_margin_loss_backward"

    def forward(self, g, x, target=None, reduction="mean", numel=1):
        self.target, self.kernel_params = target, {"reduction": reduction, "numel": numel}
        with no_grad():
            out = self.first(_t(g), _t(x), target, reduction, numel)._data
        return out.astype(x.dtype, copy=False)  # self's dtype (a float64 target), as torch's

    @staticmethod
    def first(g, x, y, reduction="mean", numel=1):
        """The first-order gradient, in Tensor ops (the kernel's formula, differentiable)."""
        g = _per_element(g, reduction, numel)
        z = (-x * y).exp()  # torch's formula: -y z / (1 + z), inf / inf = NaN included
        return (y * z).neg() / (z + 1) * g

    def backward(self, gg):
        go, x = self.inputs
        need_go, need_x = self.needs_input_grad
        y, p = self.target, self.kernel_params
        grad_go = grad_x = None
        if need_go and p["reduction"] == "none":
            grad_go = SoftMarginLossBackward.apply(gg, x, target=y, **p)
        elif need_go:
            ones = Tensor._make(go.xp.ones_like(go._data), go.device)
            grad_go = (SoftMarginLossBackward.apply(ones, x, target=y, **p) * gg).sum()
        if need_x:
            z = (x * -y).exp()
            zp1 = z + 1
            grad_x = _mean_of(gg * go * y * y * z / (zp1 * zp1), p["reduction"], p["numel"])
        return grad_go, grad_x


class BinaryCrossEntropyBackward(_LossBackward):
    """torch's binary_cross_entropy_backward(grad, self, target, weight):
    grad w (x - y) / max(x (1 - x), 1e-12) [/ numel]; the weight is a parameter."""

    node_name = "BinaryCrossEntropyBackwardBackward0"

    @staticmethod
    def first(g, x, y, reduction="mean", numel=1, weight=None):
        """The first-order gradient: torch's kernel g (x - y) / max((1 - x) x, 1e-12), then
        times the weight, then / numel for a mean (each rounded, in torch's order)."""
        t = x.dtype.type
        denom = (t(1) - x) * x
        xp = xp_for(device_of(x))
        out = g * (x - y) / xp.where(denom < t(1e-12), t(1e-12), denom)  # std::max (NaN kept)
        if weight is not None:
            out = out * (weight._data if isinstance(weight, Tensor) else weight)
        return out / t(numel) if reduction == "mean" else out

    def backward(self, gg):
        go, x, y = self.inputs
        need_go, need_x, need_y = self.needs_input_grad
        p = self.kernel_params
        red, n, w = p["reduction"], p["numel"], p["weight"]
        eps = 1e-12
        grad_go = grad_x = grad_y = None
        if need_x:  # torch's binary_cross_entropy_double_backward
            gi = (x * x - 2 * x * y + y) / ((x + eps).pow(2) * (1 - x + eps).pow(2))
            gi = gi * (gg * go)
            grad_x = _mean_of(gi * w if w is not None else gi, red, n)
        if need_y:  # ... _double_backward_target
            res = -gg * go
            res = res * w if w is not None else res
            denom = (1 - x) * x  # clamped in value only, as torch's clamp_min_ under no_grad
            kept = denom.detach()
            denom = denom + (kept.clamp(min=eps) - kept)
            grad_y = _mean_of(res / denom, red, n)
        if need_go:  # ... _double_backward_grad_output
            ggo = (x - y) / ((x + eps) * (1 - x + eps)) * gg
            grad_go = _mean_of(ggo * w if w is not None else ggo, red, n)
            if go.dim() == 0 and grad_go.dim():  # torch's sum_to a reduced grad's shape
                grad_go = grad_go.sum()
        return grad_go, grad_x, grad_y


def bce_target_backward(grad, x, weight, reduction, numel):
    """torch's binary_cross_entropy_target_backward in its order (composed, as torch):
    -logit(x) grad w [/ numel]."""
    from .extras2 import logit

    g = logit(x).neg() * grad
    g = g * weight if weight is not None else g
    return _mean_of(g, reduction, numel)


def bce_logits_input_backward(grad, x, y, w, pw, reduction, numel):
    """torch's binary_cross_entropy_with_logits_backward under create_graph, in its order:
    ((pw y + 1 - y) sigmoid(x) - pw y, or sigmoid(x) - y) grad w [/ numel]."""
    if pw is not None:
        t = pw * y
        g = (t + 1 - y) * x.sigmoid() - t
    else:
        g = x.sigmoid() - y
    g = g * grad
    g = g * w if w is not None else g
    return _mean_of(g, reduction, numel)


def bce_logits_target_backward(grad, x, y, w, pw, reduction, numel):
    """torch's binary_cross_entropy_with_logits_target_backward, in its order:
    (logsigmoid(-x) - logsigmoid(x) pw, or -x) grad w [/ numel]."""
    from .nonlinear import logsigmoid

    if pw is not None:
        g = (logsigmoid(-x) - logsigmoid(x) * pw) * grad
    else:
        g = -x * grad
    g = g * w if w is not None else g
    return _mean_of(g, reduction, numel)


def loss_double_backward(node_cls, grad, x, y, needs, **params):
    """(grad_x, grad_y) of a pointwise loss under create_graph: one node per input that needs
    one, over (grad, that input, the other) as torch's (the target's is the kernel with the
    two swapped, which flips its sign)."""
    need_x, need_y = needs
    gx = node_cls.apply(grad, x, y, **params) if need_x else None
    gy = node_cls.apply(grad, y, x, **params) if need_y else None
    return gx, gy
