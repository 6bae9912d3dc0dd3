"""conv3d and conv_transpose3d as three bilinear primitives (as conv.py does in 2-D):
conv(x, w), its adjoint in x (conv_t) and its adjoint in w (conv_w), each one im2col view
plus one batched matmul over the groups; each backward is made of the other two."""

import math

from ..amp.autocast_mode import cast as _amp_cast, state as _amp
from ..autograd.op import Op, vmap_hook
from . import _mkl
from ._conv_args import check_groups, check_nonempty, check_transposed_size, refuse_bool
from .conv_backward import convolution_grads


def _triple(v):
    return (v,) * 3 if isinstance(v, int) else tuple(int(a) for a in v) * (3 if len(v) == 1 else 1)


def _padded(xp, x, p):
    if not any(p):
        return x
    n, c, *sp = x.shape
    out = xp.zeros((n, c) + tuple(s + 2 * q for s, q in zip(sp, p)), dtype=x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(q, q + s) for q, s in zip(p, sp))] = x
    return out


def _out_sp(sp, k, s, p, d):
    return tuple(
        (n + 2 * q - dd * (kk - 1) - 1) // ss + 1 for n, kk, ss, q, dd in zip(sp, k, s, p, d)
    )


def _cols(xp, x, k, out, s, p, d, groups):
    """(groups, C/groups * kd*kh*kw, N * od*oh*ow) columns of x."""
    x = _padded(xp, x, p)
    n, c = x.shape[:2]
    st = x.strides
    view = xp.lib.stride_tricks.as_strided(
        x,
        (c,) + tuple(k) + (n,) + tuple(out),
        (st[1],)
        + tuple(dd * t for dd, t in zip(d, st[2:]))
        + (st[0],)
        + tuple(ss * t for ss, t in zip(s, st[2:])),
    )
    # explicit sizes, never -1: an empty batch makes -1 ambiguous
    return xp.ascontiguousarray(view).reshape(
        groups, c // groups * math.prod(k), n * math.prod(out)
    )


def _grouped(xp, g, groups):
    """(N, O, *out) -> (groups, O/groups, N * prod(out))."""
    n, o = g.shape[:2]
    return xp.ascontiguousarray(xp.moveaxis(g, 1, 0)).reshape(groups, o // groups, -1)


def _by_mkl(xp, a, b):
    """Whether products of a and b go to MKL (NumPy float32/float64 of one dtype, loaded)."""
    return (
        xp.__name__ == "numpy" and a.dtype == b.dtype and a.dtype.char in "fd" and _mkl.available()
    )


def _matmul(xp, a, b, samples=1):
    """a @ b over the groups, (g, m, k) @ (g, k, n), b's columns `samples` blocks of one
    sample each. With MKL (`_by_mkl`) group by group and sample by sample as torch's
    slow_conv3d calls cpublas::gemm (its operands' layouts kept: a transposed weight stays a
    view); measured on an AMD EPYC, NumPy's OpenBLAS differs from torch's MKL in the last
    bit (the Xeon's happened to agree). Else xp.matmul."""
    if not _by_mkl(xp, a, b) or not samples:
        return xp.matmul(a, b)
    from .linalg import _dot

    p = b.shape[2] // samples
    return xp.stack(
        [
            xp.concatenate(
                [_dot(u, xp.ascontiguousarray(v[:, i * p : (i + 1) * p])) for i in range(samples)],
                1,
            )
            for u, v in zip(a, b)
        ]
    )


def _conv(xp, x, w, q):
    k, out = w.shape[2:], _out_sp(x.shape[2:], w.shape[2:], q["s"], q["p"], q["d"])
    g = q["groups"]
    cols = _cols(xp, x, k, out, q["s"], q["p"], q["d"], g)
    y = _matmul(xp, w.reshape(g, w.shape[0] // g, -1), cols, x.shape[0])
    return xp.ascontiguousarray(xp.moveaxis(y.reshape((w.shape[0], x.shape[0]) + out), 0, 1))


def _conv_t(xp, gy, w, in_sp, q):
    """Adjoint of _conv in x: scatter w^T gy back over the (padded) input positions."""
    g, k, out = q["groups"], w.shape[2:], gy.shape[2:]
    n, c = gy.shape[0], w.shape[1] * g
    wg = w.reshape(g, w.shape[0] // g, -1).transpose(0, 2, 1)
    cols = _matmul(xp, wg, _grouped(xp, gy, g), n).reshape((c,) + tuple(k) + (n,) + tuple(out))
    p, s, d = q["p"], q["s"], q["d"]
    buf = xp.zeros((c, n) + tuple(a + 2 * b for a, b in zip(in_sp, p)), dtype=cols.dtype)
    for a in range(k[0]):
        for b in range(k[1]):
            for e in range(k[2]):
                key = (slice(None), slice(None)) + tuple(
                    slice(i * dd, i * dd + ss * (o - 1) + 1, ss)
                    for i, dd, ss, o in zip((a, b, e), d, s, out)
                )
                buf[key] += cols[:, a, b, e]
    buf = buf[(slice(None), slice(None)) + tuple(slice(b, b + a) for a, b in zip(in_sp, p))]
    return xp.ascontiguousarray(xp.moveaxis(buf, 0, 1))


def _conv_w(xp, x, gy, k, q):
    g = q["groups"]
    cols = _cols(xp, x, k, gy.shape[2:], q["s"], q["p"], q["d"], g)
    gyg = _grouped(xp, gy, g)
    if _by_mkl(xp, cols, gyg):  # torch: sample by sample, beta = 1
        p = math.prod(gy.shape[2:])
        gw = xp.zeros(gyg.shape[:2] + cols.shape[1:2], gyg.dtype)
        for j in range(g):
            for i in range(x.shape[0]):
                c = xp.ascontiguousarray(cols[j, :, i * p : (i + 1) * p])
                o = xp.ascontiguousarray(gyg[j, :, i * p : (i + 1) * p])
                gw[j] = _mkl.gemm(o, c.T, bias=gw[j])
    else:
        gw = xp.matmul(gyg, cols.transpose(0, 2, 1))
    return gw.reshape((gy.shape[1], x.shape[1] // g) + tuple(k))


def _kernel_name(k, q):
    """The kernel torch's conv3d dispatches on the dtype first (named in its refusals): the
    dilated one, or slow_conv3d's column builder unless a 1x1x1 kernel reads the input as is."""
    if any(d != 1 for d in q["d"]):
        return "slow_conv_dilated<>"
    plain = q["groups"] == 1 and not any(q["p"]) and all(v == 1 for v in tuple(k) + q["s"])
    return "slow_conv3d_cpu" if plain else "compute_columns3d"


def _bias(b):
    return b.reshape((1, -1, 1, 1, 1))


class Conv3d(Op):
    """y = conv3d(x, w) + b."""

    saves_inputs = True
    node_name = "ConvolutionBackward0"

    def forward(self, x, w, b, q=None):
        refuse_bool(x, _kernel_name(w.shape[2:], q))
        self.q = q
        y = _conv(self.xp, x, w, q)
        return y + _bias(b) if b is not None else y

    def backward(self, grad):
        x, w, _ = self.inputs
        nx, nw, nb = need = self.needs_input_grad
        if not vmap_hook[0]:  # torch's convolution_backward: one node
            return convolution_grads(grad, x, w, need, _Maps, self.q, False)
        return (  # batched gradients: the ops the batching rules know
            Conv3dInputGrad.apply(grad, w, in_sp=tuple(x.shape[2:]), q=self.q) if nx else None,
            Conv3dWeightGrad.apply(x, grad, k=tuple(w.shape[2:]), q=self.q) if nw else None,
            grad.sum((0, 2, 3, 4)) if nb else None,
        )

    jvp = Op.jvp_multilinear
    additive = (2,)


class Conv3dInputGrad(Op):
    """conv_t(g, w): the adjoint of conv3d in x (also conv_transpose3d's forward)."""

    saves_inputs = True

    def forward(self, g, w, in_sp=(), q=None):
        self.q, self.in_sp = q, in_sp
        return _conv_t(self.xp, g, w, in_sp, q)

    def backward(self, h):
        g, w = self.inputs
        ng, nw = self.needs_input_grad
        return (
            Conv3d.apply(h, w, None, q=self.q) if ng else None,
            Conv3dWeightGrad.apply(h, g, k=tuple(w.shape[2:]), q=self.q) if nw else None,
        )

    jvp = Op.jvp_multilinear


class Conv3dWeightGrad(Op):
    """conv_w(x, g): the adjoint of conv3d in w."""

    saves_inputs = True

    def forward(self, x, g, k=(), q=None):
        self.q = q
        return _conv_w(self.xp, x, g, k, q)

    def backward(self, h):
        x, g = self.inputs
        nx, ng = self.needs_input_grad
        return (
            Conv3dInputGrad.apply(g, h, in_sp=tuple(x.shape[2:]), q=self.q) if nx else None,
            Conv3d.apply(x, h, None, q=self.q) if ng else None,
        )

    jvp = Op.jvp_multilinear


class ConvTranspose3d(Op):
    """y = conv_transpose3d(x, w) + b: conv3d's adjoint in x, with w as (C_in, C_out/g, k)."""

    saves_inputs = True
    node_name = "ConvolutionBackward0"

    def forward(self, x, w, b, out_sp=(), q=None):
        refuse_bool(x, "slow_conv_transpose3d_out_cpu")
        self.q = q
        y = _conv_t(self.xp, x, w, out_sp, q)
        return y + _bias(b) if b is not None else y

    def backward(self, grad):
        x, w, _ = self.inputs
        nx, nw, nb = need = self.needs_input_grad
        if not vmap_hook[0]:  # torch's convolution_backward: one node
            return convolution_grads(grad, x, w, need, _Maps, self.q, True)
        return (  # batched gradients: the ops the batching rules know
            Conv3d.apply(grad, w, None, q=self.q) if nx else None,
            Conv3dWeightGrad.apply(grad, x, k=tuple(w.shape[2:]), q=self.q) if nw else None,
            grad.sum((0, 2, 3, 4)) if nb else None,
        )

    jvp = Op.jvp_multilinear
    additive = (2,)


class _Maps:
    """The 3-D convolution maps for ConvolutionBackward: on arrays and as Tensor ops, with a
    forward node's parameters `q`."""

    @staticmethod
    def geometry(q, nd):
        """(stride, padding, dilation, groups), as torch saves them."""
        return tuple(q["s"]), tuple(q["p"]), tuple(q["d"]), q["groups"]

    @staticmethod
    def conv(xp, x, w, q):
        """The convolution of arrays x and w with these parameters (1-D as 2-D of height 1)."""
        return _conv(xp, x, w, q)

    @staticmethod
    def conv_t(xp, g, w, size, q):
        """The input gradient of a convolution on arrays (transposed, to `size`)."""
        return _conv_t(xp, g, w, size, q)

    @staticmethod
    def conv_w(xp, x, g, k, q):
        """The weight gradient of a convolution on arrays, of kernel size `k`."""
        return _conv_w(xp, x, g, k, q)

    @staticmethod
    def t_conv(x, w, q):
        """`conv` as a recorded op (Tensors in, a node out)."""
        return Conv3d.apply(x, w, None, q=q)

    @staticmethod
    def t_conv_t(g, w, size, q):
        """`conv_t` as a recorded op."""
        return ConvTranspose3d.apply(g, w, None, out_sp=size, q=q)

    @staticmethod
    def t_conv_w(x, g, k, q):
        """`conv_w` as a recorded op."""
        return Conv3dWeightGrad.apply(x, g, k=k, q=q)


def _check(input, weight, name, transposed, groups):
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"Expected 4D (unbatched) or 5D (batched) input to {name}, but got "
            f"input of size: {list(input.shape)}"
        )
    if weight.dim() != 5:
        raise RuntimeError("weight should have at least three dimensions")
    check_groups(weight, groups)
    c = input.shape[-4]
    want = weight.shape[0] if transposed else weight.shape[1] * groups
    if c != want:
        if transposed:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(weight.shape)}, "
                f"expected input{list(input.shape)} to have {weight.shape[0]} "
                f"channels, but got {c} channels instead"
            )
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, "
            f"expected input{list(input.shape)} to have {want} channels, but "
            f"got {c} channels instead"
        )


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""Applies a 3-D convolution (a cross-correlation, as in torch) over an input signal composed
    of several input planes.

    .. math::
        \text{out}(N_i, C_{out_j}) = \text{bias}(C_{out_j}) + \sum_{k=0}^{C_{in}-1}
        \text{weight}(C_{out_j}, k) \star \text{input}(N_i, k)

    See :class:`~framework.nn.Conv3d` for the module form and the output size.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` (or without the batch
            dimension).
        weight (Tensor): the filters, :math:`(C_{out}, C_{in}/\text{groups}, k_D, k_H, k_W)`.
        bias (Tensor, optional): a bias per output channel, :math:`(C_{out})` (default: None).
        stride (int or tuple, optional): the stride of the convolving kernel (default: 1).
        padding (int, tuple or str, optional): implicit zero padding on both sides, or ``'valid'``
            (none) or ``'same'`` (the output has the input's size; stride 1 only) (default: 0).
        dilation (int or tuple, optional): the spacing between kernel elements (default: 1).
        groups (int, optional): split the input into groups; :math:`C_{in}` and :math:`C_{out}` must
            be divisible by it (default: 1).

    Returns:
        Tensor: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})`.

    Example:
        >>> x, w = framework.ones(1, 2, 3, 3, 3), framework.ones(4, 2, 2, 2, 2)
        >>> F.conv3d(x, w).shape
        torch.Size([1, 4, 2, 2, 2])
        >>> F.conv3d(x, w, padding="same").shape
        torch.Size([1, 4, 3, 3, 3])
    """
    if _amp.active:  # autocast casts before torch's checks
        input, weight, bias = _amp_cast("Conv3d", input.device.type, input, weight, bias)
    _check(input, weight, "conv3d", False, groups)
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    if padding == "valid":
        padding = 0
    elif padding == "same":
        d = _triple(dilation)
        total = [dd * (k - 1) for dd, k in zip(d, weight.shape[2:])]
        if any(t % 2 for t in total):
            from ..nn.functional import pad

            x = pad(x, tuple(v for t in reversed(total) for v in (t // 2, t - t // 2)))
            padding = 0
        else:
            padding = tuple(t // 2 for t in total)
    check_nonempty(x.shape, 3)
    q = dict(s=_triple(stride), p=_triple(padding), d=_triple(dilation), groups=groups)
    out = Conv3d.apply(x, weight, bias, q=q)
    return out.squeeze(0) if unbatched else out


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    r"""Applies a 3-D transposed convolution (sometimes called "deconvolution"): the gradient of
    :func:`conv3d` with respect to its input.

    See :class:`~framework.nn.ConvTranspose3d` for the module form and the output size.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})` (or without the batch
            dimension).
        weight (Tensor): the filters, :math:`(C_{in}, C_{out}/\text{groups}, k_D, k_H, k_W)`.
        bias (Tensor, optional): a bias per output channel, :math:`(C_{out})` (default: None).
        stride (int or tuple, optional): the stride of the convolving kernel (default: 1).
        padding (int or tuple, optional): ``dilation * (kernel_size - 1) - padding`` zero padding is
            added to both sides of each dimension of the input (default: 0).
        output_padding (int or tuple, optional): additional size added to one side of each dimension
            of the output, smaller than ``stride`` or ``dilation`` (default: 0).
        groups (int, optional): split the input into groups; :math:`C_{in}` must be divisible by it
            (default: 1).
        dilation (int or tuple, optional): the spacing between kernel elements (default: 1).

    Returns:
        Tensor: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})`.

    Example:
        >>> x, w = framework.ones(1, 2, 3, 3, 3), framework.ones(2, 4, 2, 2, 2)
        >>> F.conv_transpose3d(x, w).shape
        torch.Size([1, 4, 4, 4, 4])
        >>> F.conv_transpose3d(x, w, stride=2, output_padding=1).shape
        torch.Size([1, 4, 7, 7, 7])
    """
    if _amp.active:
        input, weight, bias = _amp_cast("ConvTranspose3d", input.device.type, input, weight, bias)
    _check(input, weight, "conv_transpose3d", True, groups)
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    check_nonempty(x.shape, 3)
    s, p, d, op = _triple(stride), _triple(padding), _triple(dilation), _triple(output_padding)
    out_sp = tuple(
        (n - 1) * ss - 2 * pp + dd * (k - 1) + o + 1
        for n, ss, pp, dd, k, o in zip(x.shape[2:], s, p, d, weight.shape[2:], op)
    )
    check_transposed_size(x, weight, out_sp, s, d, op, groups)
    q = dict(s=s, p=p, d=d, groups=groups)
    out = ConvTranspose3d.apply(x, weight, bias, out_sp=out_sp, q=q)
    return out.squeeze(0) if unbatched else out


__all__ = []
