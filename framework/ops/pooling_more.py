"""adaptive_max_pool3d, max_unpool1d/3d and pdist (torch.nn.functional), with torch's nodes
(AdaptiveMaxPool3DBackward0, MaxUnpool2DBackward0 under squeeze/unsqueeze, MaxUnpool3DBackward0,
PdistBackward0 whose gradient node PdistBackwardBackward0 refuses double backward, as torch's).
"""

import itertools
import math

from .._errors import refuse
from ._pool_args import window_argmax
from ..autograd.op import Op, per_sample_under_vmap
from ..tensor import Tensor
from .loss import _quiet
from .pooling3d import (
    AdaptiveMaxPool3DBackward,
    MaxUnpool2D,
    _adaptive_sizes,
    max_unpool2d,
    scatter_back,
)


class AdaptiveMaxPool3D(Op):
    """Max over torch's adaptive windows [floor(i n / o), ceil((i + 1) n / o)) of a (D, H, W)
    volume; the indices are flat positions in the volume (first maximum, NaN wins)."""

    fw_zero_grads = True  # (torch's backward op gives zeros_like(self) a tangent)

    non_differentiable = (1,)
    saves = ("index",)
    saves_inputs = True  # torch's node keeps `self`
    saved_fields = {"self": "input0", "result1": "index"}

    def forward(self, x, out=(1, 1, 1)):
        """The maxima over the adaptive windows of the last three dimensions and their flat
        indices."""
        xp = self.xp
        refuse(x, "biu", "adaptive_max_pool3d_cpu")
        self.in_shape = x.shape
        size = x.shape[-3:]
        lead = x.shape[:-3]
        vals = xp.empty(lead + tuple(out), dtype=x.dtype)
        idx = xp.empty(lead + tuple(out), dtype="int64")
        windows = [
            [((i * n) // o, -(-((i + 1) * n) // o)) for i in range(o)] for n, o in zip(size, out)
        ]
        for pos in itertools.product(*(range(o) for o in out)):
            (d0, d1), (h0, h1), (w0, w1) = (windows[a][i] for a, i in enumerate(pos))
            win = x[..., d0:d1, h0:h1, w0:w1].reshape(lead + ((d1 - d0) * (h1 - h0) * (w1 - w0),))
            a = window_argmax(xp, win)
            vals[(...,) + pos] = xp.take_along_axis(win, a[..., None], axis=-1)[..., 0]
            hw = (h1 - h0) * (w1 - w0)
            d, r = a // hw, a % hw
            h, w = r // (w1 - w0), r % (w1 - w0)
            idx[(...,) + pos] = ((d0 + d) * size[1] + h0 + h) * size[2] + w0 + w
        self.index = idx
        return vals, idx

    def backward(self, grad, _=None):
        """``grad`` scattered to the input positions of the maxima."""
        return scatter_back(self, AdaptiveMaxPool3DBackward, grad, self.in_shape[-3:])

    jvp = Op.jvp_transpose


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) to a fixed (D, H, W) output size.

    Args:
        input (Tensor): 4-D or 5-D input.
        output_size (int or tuple): target (D, H, W); None keeps that input size.
        return_indices (bool): also return the flat index of each maximum in its volume.

    Example::

        >>> x = framework.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> F.adaptive_max_pool3d(x, 1).flatten()
        tensor([7.])
    """
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {list(input.shape)}"
        )
    out = _adaptive_sizes(input, output_size, 3, "adaptive_max_pool3d")
    vals, idx = AdaptiveMaxPool3D.apply(input, out=out)
    return (vals, idx) if return_indices else vals


class MaxUnpool3D(MaxUnpool2D):
    """Each value at its flat index of a (D, H, W) volume of zeros."""

    kernel = "max_unpool3d"


def _single(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _unpool_size(input, k, s, p, output_size, nd):
    """torch's _unpool_output_size: the default (n - 1) s - 2 p + k, or output_size's last nd
    entries (checked against the sizes reachable with this stride)."""
    spatial = tuple(input.shape[-nd:])
    default = tuple((n - 1) * s_ - 2 * p_ + k_ for n, k_, s_, p_ in zip(spatial, k, s, p))
    if output_size is None:
        return default
    size = tuple(int(v) for v in output_size)
    if len(size) == nd + 2:
        size = size[2:]
    if len(size) != nd:
        raise ValueError(
            f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it "
            f"has a length of '{len(size)}'"
        )
    for d, (want, lo, st) in enumerate(zip(size, default, s)):
        if not lo - st < want < lo + st:
            raise ValueError(
                f"invalid output_size \"{list(size)}\" (dim {d} must be between {lo - st} "
                f"and {lo + st})"
            )
    return size


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: values back at their max positions, zeros elsewhere.

    Args:
        input (Tensor): (N, C, L_out) or (C, L_out) pooled values.
        indices (Tensor): the indices max_pool1d returned.
        kernel_size (int or tuple): the pooling's window size.
        stride (int or tuple, optional): the pooling's stride. Default: kernel_size.
        padding (int or tuple): the pooling's implicit zero padding. Default: 0.
        output_size (optional): the length to restore (the default inverts the pooling).

    Example::

        >>> x = framework.tensor([[[1.0, 3.0, 2.0, 4.0]]])
        >>> y, i = F.max_pool1d(x, 2, return_indices=True)
        >>> F.max_unpool1d(y, i, 2)
        tensor([[[0., 3., 0., 4.]]])
    """
    k = _single(kernel_size, 1)
    s = _single(stride, 1) if stride is not None else k
    p = _single(padding, 1)
    (n,) = _unpool_size(input, k, s, p, output_size, 1)
    out = max_unpool2d(
        input.unsqueeze(-1), indices.unsqueeze(-1), k + (1,), s + (1,), p + (0,), (n, 1)
    )
    return out.squeeze(-1)


@per_sample_under_vmap
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d: values back at their max positions, zeros elsewhere.

    Args:
        input (Tensor): (N, C, D, H, W) or (C, D, H, W) pooled values.
        indices (Tensor): the indices max_pool3d returned.
        kernel_size (int or tuple): the pooling's window size.
        stride (int or tuple, optional): the pooling's stride. Default: kernel_size.
        padding (int or tuple): the pooling's implicit zero padding. Default: 0.
        output_size (optional): the (D, H, W) to restore.

    Example::

        >>> x = framework.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> y, i = F.max_pool3d(x, 2, return_indices=True)
        >>> F.max_unpool3d(y, i, 2).flatten()
        tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    k = _single(kernel_size, 3)
    s = _single(stride, 3) if stride is not None else k
    p = _single(padding, 3)
    size = _unpool_size(input, k, s, p, output_size, 3)
    return MaxUnpool3D.apply(input, Tensor._make(indices._data, input.device), out_hw=size)


# ----- pdist ---------------------------------------------------------------------------------
def _dist(xp, diff, p):
    a = abs(diff)
    if p == 0:  # torch's zdist: min(ceil(|d|), 1) summed (NaN stays NaN)
        return xp.minimum(xp.ceil(a), 1).sum(-1)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return xp.sqrt((a * a).sum(-1))
    if math.isinf(p):
        return a.max(-1) if a.shape[-1] else xp.zeros(a.shape[:-1], diff.dtype)
    return (a**p).sum(-1) ** (1.0 / p)


class Pdist(Op):
    """Distances between the rows of a matrix, for every pair i < j (torch's _pdist_forward)."""

    no_bfloat16 = "pdist"
    saves_inputs = True
    saves_output = True
    saved_fields = {"p": "p", "result": "result", "self": "input0"}

    def forward(self, x, p=2.0):
        """The p-norm distances between rows i < j, in row-major order of the pairs."""
        xp, self.p = self.xp, p
        i, j = xp.triu_indices(x.shape[-2], 1)  # (rows are dim -2: leading dims batch)
        return _dist(xp, x[..., i, :] - x[..., j, :], p).astype(x.dtype, copy=False)

    def backward(self, grad):
        """The gradient of the rows, through the PdistBackward op (torch's _pdist_backward)."""
        (x,) = self.inputs
        return PdistBackward.apply(grad, x, self.output, p=self.p)

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative
    jvp_name = "_pdist_forward"


class PdistBackward(Op):
    """torch's _pdist_backward: sum over pairs of grad * d dist / d row (its kernels' zero
    conventions at equal rows); no derivative of its own, as torch's."""

    node_name = "PdistBackwardBackward0"

    def forward(self, grad, x, dist, p=2.0):
        """The gradient of the rows: each pair's ``grad * d dist / d row`` added to row i and
        subtracted from row j."""
        xp = self.xp
        if p == 0:  # torch's kernel leaves its zero-filled result: no 0 * inf from grad
            return xp.zeros(x.shape, x.dtype)
        n = x.shape[-2]
        i, j = xp.triu_indices(n, 1)
        diff = x[..., i, :] - x[..., j, :]
        d = dist[..., None]
        zero = xp.zeros((), x.dtype)
        with _quiet(xp):
            if p == 1:
                slope = xp.sign(diff)
            elif math.isinf(p):
                # torch's formula: a NaN distance (vectorised max) reaches its whole pair
                slope = xp.sign(diff) * (1 - xp.minimum(1, xp.ceil(abs(abs(diff) - d))))
            elif p < 2:
                slope = xp.where(
                    (d == 0) | ((diff == 0) & (p < 1)),
                    zero,
                    xp.sign(diff) * abs(diff) ** (p - 1) / d ** (p - 1),
                )
            elif p == 2:
                slope = xp.where(d == 0, zero, diff / xp.where(d == 0, 1, d))
            else:
                slope = xp.where(d == 0, zero, diff * abs(diff) ** (p - 2) / d ** (p - 1))
            contrib = grad[..., None] * slope
            if p not in (0, 1) and not math.isinf(p):  # torch: dist == 0 ? 0 : grad * ...
                contrib = xp.where(d == 0, zero, contrib)  # (an inf grad meets no 0 there)
        contrib = contrib.astype(x.dtype, copy=False)
        pairs = xp.arange(len(i))
        incidence = xp.zeros((n, len(i)), x.dtype)  # +1 at each pair's row i, -1 at row j
        incidence[i, pairs] = 1
        incidence[j, pairs] = -1
        if bool(xp.isfinite(contrib).all()):
            return incidence @ contrib
        # torch adds each pair's term to its two rows only: an inf/NaN term must not meet
        # the incidence matrix's zeros (0 * NaN)
        out = xp.zeros(x.shape, contrib.dtype)
        for rows, sign in ((i, 1), (j, -1)):
            for k in range(len(rows)):
                out[..., int(rows[k]), :] += sign * contrib[..., k, :]
        return out

    def backward(self, grad):
        """Refuses, as torch: _pdist_backward has no derivative."""
        raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


def pdist(input, p=2):
    """p-norm distances between every pair of rows of an (N, M) matrix: the upper triangle of
    ``cdist(input, input)`` without the diagonal, flattened row by row (N (N - 1) / 2 values).

    Args:
        input (Tensor): (N, M) floating matrix.
        p (float): the norm's order, >= 0 (inf allowed).

    Example::

        >>> F.pdist(framework.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
        tensor([ 5., 10.,  5.])
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return Pdist.apply(input.contiguous(), p=float(p))


__all__ = []
