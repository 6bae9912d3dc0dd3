"""Convolution: conv1d, conv2d, conv_transpose1d/2d, as three bilinear primitives.

y = conv(x, w) is bilinear, so with <conv(x, w), g> = <x, conv_t(g, w)> = <w, conv_w(x, g)>
each of the three maps has a backward made of the other two. That closes the set under
differentiation: gradients of every order reuse the same fast kernels.

Kernels work on 4-D arrays (1-D convolutions get a unit height): im2col is one strided view
copied into a (groups, C/groups*kh*kw, N*oh*ow) buffer, and each map is ONE batched matmul
over the group axis; col2im adds kh*kw strided slices.
"""

from ..amp.autocast_mode import cast as _amp_cast, state as _amp
from ..autograd.op import Op, vmap_hook
from .conv_backward import convolution_grads
from ._conv_args import (
    check_conv,
    check_nonempty,
    check_transposed_size,
    conv_out_size,
    conv_params,
    expand,
    refuse_bool,
    same_padding,
    transposed_params,
)

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]


def _as4d(a):
    return a if a.ndim == 4 else a[:, :, None, :]


def _pad(xp, x, pads):
    """Zero-pad the two spatial axes by ((top, bottom), (left, right)); no copy without pads."""
    (t, b), (l, r) = pads
    if not (t or b or l or r):
        return x
    n, c, h, w = x.shape
    out = xp.zeros((n, c, h + t + b, w + l + r), dtype=x.dtype)
    out[:, :, t : t + h, l : l + w] = x
    return out


def _im2col(xp, x, ksize, out_hw, stride, pads, dilation, groups):
    """Columns (groups, C/groups*kh*kw, N*oh*ow), contiguous, from a 4-D input."""
    x = _pad(xp, x, pads)
    n, c = x.shape[:2]
    sn, sc, sh, sw = x.strides
    (kh, kw), (oh, ow) = ksize, out_hw
    view = xp.lib.stride_tricks.as_strided(
        x,
        (c, kh, kw, n, oh, ow),
        (sc, dilation[0] * sh, dilation[1] * sw, sn, stride[0] * sh, stride[1] * sw),
    )
    # explicit sizes, never -1: an empty batch makes -1 ambiguous
    return xp.ascontiguousarray(view).reshape(groups, c // groups * kh * kw, n * oh * ow)


def _by_group(xp, g, groups):
    """(N, O, oh, ow) -> (groups, O/groups, N*oh*ow), the layout matmul wants."""
    n, o = g.shape[:2]
    return xp.ascontiguousarray(g.transpose(1, 0, 2, 3)).reshape(groups, o // groups, -1)


def _conv(xp, x, w, stride, pads, dilation, groups):
    n, h, wd = x.shape[0], x.shape[2], x.shape[3]
    o, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    oh = conv_out_size(h, pads[0], kh, stride[0], dilation[0])
    ow = conv_out_size(wd, pads[1], kw, stride[1], dilation[1])
    cols = _im2col(xp, x, (kh, kw), (oh, ow), stride, pads, dilation, groups)
    y = xp.matmul(w.reshape(groups, o // groups, -1), cols)  # (G, O/G, N*oh*ow)
    return xp.ascontiguousarray(y.reshape(o, n, oh, ow).transpose(1, 0, 2, 3))


def _conv_t(xp, g, w, in_hw, stride, pads, dilation, groups):
    """Adjoint of _conv in x: col2im of w^T g into an input of spatial size in_hw."""
    n, oh, ow = g.shape[0], g.shape[2], g.shape[3]
    cg, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    c = cg * groups
    wg = w.reshape(groups, w.shape[0] // groups, -1).transpose(0, 2, 1)
    cols = xp.matmul(wg, _by_group(xp, g, groups)).reshape(c, kh, kw, n, oh, ow)
    (t, b), (l, r) = pads
    out = xp.zeros((c, n, in_hw[0] + t + b, in_hw[1] + l + r), dtype=cols.dtype)
    sh, sw = stride
    for i in range(kh):  # one strided add per kernel position, never per pixel
        hi = i * dilation[0]
        for j in range(kw):
            wj = j * dilation[1]
            out[:, :, hi : hi + sh * (oh - 1) + 1 : sh, wj : wj + sw * (ow - 1) + 1 : sw] += cols[
                :, i, j
            ]
    out = out[:, :, t : t + in_hw[0], l : l + in_hw[1]]
    return xp.ascontiguousarray(out.transpose(1, 0, 2, 3))


def _conv_w(xp, x, g, ksize, stride, pads, dilation, groups):
    """Adjoint of _conv in w: the weight gradient, one matmul against the columns of x."""
    o, oh, ow = g.shape[1], g.shape[2], g.shape[3]
    cols = _im2col(xp, x, ksize, (oh, ow), stride, pads, dilation, groups)
    gw = xp.matmul(_by_group(xp, g, groups), cols.transpose(0, 2, 1))  # (G, O/G, Cg*kh*kw)
    return gw.reshape((o, x.shape[1] // groups) + tuple(ksize))


def _keep_params(forward):
    """Store the convolution parameters on the node so backward can rebuild the maps."""

    def wrapped(self, *arrays, stride, pads, dilation, groups, **kw):
        self.p = dict(stride=stride, pads=pads, dilation=dilation, groups=groups)
        self.nd = arrays[0].ndim - 2
        return forward(
            self, *arrays, stride=stride, pads=pads, dilation=dilation, groups=groups, **kw
        )

    return wrapped


def _bias_shape(b, ndim):
    return b.reshape((1, -1) + (1,) * (ndim - 2))


class Convolution(Op):
    """y = conv(x, w) + b (torch's ConvolutionBackward0)."""

    saves_inputs = True
    saved_fields = {
        "bias_sym_sizes_opt": "sizes2",
        "dilation": lambda fn: fn.p["dilation"][-fn.nd :],
        "groups": lambda fn: fn.p["groups"],
        "input": "input0",  # torch saves both, whichever needs a gradient
        "output_padding": lambda fn: (0,) * fn.nd,
        "padding": lambda fn: tuple(p[0] for p in fn.p["pads"][-fn.nd :]),
        "stride": lambda fn: fn.p["stride"][-fn.nd :],
        "transposed": "=False",
        "weight": "input1",
    }

    @_keep_params
    def forward(self, x, w, b, stride, pads, dilation, groups):
        dilated = any(d != 1 for d in dilation)
        refuse_bool(x, "slow_conv_dilated<>" if dilated else "slow_conv2d_cpu")
        y = _conv(self.xp, _as4d(x), _as4d(w), stride, pads, dilation, groups)
        if x.ndim == 3:
            y = y[:, :, 0]
        if b is not None:
            y += _bias_shape(b, y.ndim)
        return y

    def backward(self, grad):
        x, w, b = self.inputs
        p = self.p
        need = self.needs_input_grad
        if not vmap_hook[0]:  # torch's convolution_backward: one node
            return convolution_grads(grad, x, w, need, _Maps, p, False)
        need_x, need_w, need_b = need  # batched gradients: the ops the batching rules know
        grad_x = ConvInputGrad.apply(grad, w, None, in_hw=x.shape[2:], **p) if need_x else None
        grad_w = ConvWeightGrad.apply(x, grad, ksize=w.shape[2:], **p) if need_w else None
        grad_b = grad.sum(dim=(0,) + tuple(range(2, grad.ndim))) if need_b else None
        return grad_x, grad_w, grad_b

    jvp = Op.jvp_multilinear
    additive = (2,)


class ConvTranspose(Op):
    """x = conv_t(g, w) + b, the adjoint of Convolution in its input (ConvolutionBackward0)."""

    node_name = "ConvolutionBackward0"
    saves_inputs = True

    @_keep_params
    def forward(self, g, w, b, in_hw, stride, pads, dilation, groups):
        refuse_bool(g, "slow_conv_transpose2d_out_cpu")
        in_hw = tuple(in_hw)
        hw = in_hw if len(in_hw) == 2 else (1,) + in_hw
        y = _conv_t(self.xp, _as4d(g), _as4d(w), hw, stride, pads, dilation, groups)
        if g.ndim == 3:
            y = y[:, :, 0]
        if b is not None:
            y += _bias_shape(b, y.ndim)
        return y

    def backward(self, grad):
        g, w, b = self.inputs
        p = self.p
        need = self.needs_input_grad
        if not vmap_hook[0] and type(self)._op is ConvTranspose:  # one node, as torch's
            return convolution_grads(grad, g, w, need, _Maps, p, True)
        need_g, need_w, need_b = need
        # <conv_t(g, w), u> = <g, conv(u, w)> = <w, conv_w(u, g)>
        grad_g = ConvGradGrad.apply(grad, w, None, **p) if need_g else None
        grad_w = ConvWeightGrad.apply(grad, g, ksize=w.shape[2:], **p) if need_w else None
        grad_b = grad.sum(dim=(0,) + tuple(range(2, grad.ndim))) if need_b else None
        return grad_g, grad_w, grad_b

    jvp = Op.jvp_multilinear
    additive = (2,)


class _Maps:
    """The 1-D/2-D convolution maps for ConvolutionBackward: on arrays (3-D or 4-D) and as
    Tensor ops, with a forward node's parameters `p`."""

    @staticmethod
    def geometry(p, nd):
        """(stride, padding, dilation, groups) of the last nd dims, as torch saves them."""
        pads = tuple(a for a, _ in p["pads"][-nd:])
        return tuple(p["stride"][-nd:]), pads, tuple(p["dilation"][-nd:]), p["groups"]

    @staticmethod
    def conv(xp, x, w, p):
        """The convolution of arrays x and w with these parameters (1-D as 2-D of height 1)."""
        y = _conv(xp, _as4d(x), _as4d(w), **p)
        return y[:, :, 0] if x.ndim == 3 else y

    @staticmethod
    def conv_t(xp, g, w, size, p):
        """The input gradient of a convolution on arrays (transposed, to `size`)."""
        hw = size if len(size) == 2 else (1,) + size
        y = _conv_t(xp, _as4d(g), _as4d(w), hw, **p)
        return y[:, :, 0] if g.ndim == 3 else y

    @staticmethod
    def conv_w(xp, x, g, k, p):
        """The weight gradient of a convolution on arrays, of kernel size `k`."""
        gw = _conv_w(xp, _as4d(x), _as4d(g), k if len(k) == 2 else (1,) + k, **p)
        return gw.reshape(gw.shape[:2] + k)

    @staticmethod
    def t_conv(x, w, p):
        """`conv` as a recorded op (Tensors in, a node out)."""
        return Convolution.apply(x, w, None, **p)

    @staticmethod
    def t_conv_t(g, w, size, p):
        """`conv_t` as a recorded op."""
        return ConvTranspose.apply(g, w, None, in_hw=size, **p)

    @staticmethod
    def t_conv_w(x, g, k, p):
        """`conv_w` as a recorded op."""
        return ConvWeightGrad.apply(x, g, ksize=k, **p)


class ConvInputGrad(ConvTranspose):
    """conv_t as the input gradient of a convolution (torch names it like this)."""

    node_name = "ConvolutionBackwardBackward0"


class ConvGradGrad(Convolution):
    """conv as a term of a double backward."""

    node_name = "ConvolutionBackwardBackward0"


class ConvWeightGrad(Op):
    """gw = conv_w(x, g), the adjoint of Convolution in its weight."""

    node_name = "ConvolutionBackwardBackward0"
    saves_inputs = True

    @_keep_params
    def forward(self, x, g, ksize, stride, pads, dilation, groups):
        ksize = tuple(ksize)
        k2 = ksize if len(ksize) == 2 else (1,) + ksize
        gw = _conv_w(self.xp, _as4d(x), _as4d(g), k2, stride, pads, dilation, groups)
        return gw.reshape(gw.shape[:2] + ksize)

    def backward(self, grad):
        x, g = self.inputs
        p = self.p
        need_x, need_g = self.needs_input_grad
        # <conv_w(x, g), v> = <conv(x, v), g>
        grad_x = ConvInputGrad.apply(g, grad, None, in_hw=x.shape[2:], **p) if need_x else None
        grad_g = ConvGradGrad.apply(x, grad, None, **p) if need_g else None
        return grad_x, grad_g

    jvp = Op.jvp_multilinear


def _convolution(x, w, b, stride, padding, dilation, groups, nd, name):
    """Shared body of conv1d/conv2d: argument checks, unbatched input, 'same' padding."""
    if _amp.active:  # autocast casts before torch's checks
        x, w, b = _amp_cast("Convolution", x.device.type, x, w, b)
    unbatched = check_conv(x, w, b, nd, name, groups)
    stride, pads, dilation = conv_params(w, stride, padding, dilation, nd)
    if isinstance(padding, str) and padding == "same":
        pads = same_padding(w, dilation, nd)
    if unbatched:
        x = x.unsqueeze(0)
    check_conv(x, w, b, nd, name, groups, batched=True, pads=pads, dilation=dilation)
    check_nonempty(x.shape, nd)
    y = Convolution.apply(x, w, b, stride=stride, pads=pads, dilation=dilation, groups=groups)
    return y.squeeze(0) if unbatched else y


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""Applies a 2-D convolution (a cross-correlation, as in torch) over an input signal composed
    of several input planes.

    .. math::
        \text{out}(N_i, C_{out_j}) = \text{bias}(C_{out_j}) + \sum_{k=0}^{C_{in}-1}
        \text{weight}(C_{out_j}, k) \star \text{input}(N_i, k)

    See :class:`~framework.nn.Conv2d` for the module form and the output size.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, H_{in}, W_{in})` (or without the batch
            dimension).
        weight (Tensor): the filters, :math:`(C_{out}, C_{in}/\text{groups}, k_H, k_W)`.
        bias (Tensor, optional): a bias per output channel, :math:`(C_{out})` (default: None).
        stride (int or tuple, optional): the stride of the convolving kernel (default: 1).
        padding (int, tuple or str, optional): implicit zero padding on both sides, or ``'valid'``
            (none) or ``'same'`` (the output has the input's size; stride 1 only) (default: 0).
        dilation (int or tuple, optional): the spacing between kernel elements (default: 1).
        groups (int, optional): split the input into groups; :math:`C_{in}` and :math:`C_{out}` must
            be divisible by it (default: 1).

    Returns:
        Tensor: :math:`(N, C_{out}, H_{out}, W_{out})`.

    Example:
        >>> x, w = framework.ones(1, 2, 5, 5), framework.ones(4, 2, 3, 3)
        >>> F.conv2d(x, w).shape
        torch.Size([1, 4, 3, 3])
        >>> F.conv2d(x, w, padding="same").shape
        torch.Size([1, 4, 5, 5])
    """
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""Applies a 1-D convolution (a cross-correlation, as in torch) over an input signal composed
    of several input planes.

    .. math::
        \text{out}(N_i, C_{out_j}) = \text{bias}(C_{out_j}) + \sum_{k=0}^{C_{in}-1}
        \text{weight}(C_{out_j}, k) \star \text{input}(N_i, k)

    See :class:`~framework.nn.Conv1d` for the module form and the output size.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, L_{in})` (or without the batch dimension).
        weight (Tensor): the filters, :math:`(C_{out}, C_{in}/\text{groups}, k_L)`.
        bias (Tensor, optional): a bias per output channel, :math:`(C_{out})` (default: None).
        stride (int or tuple, optional): the stride of the convolving kernel (default: 1).
        padding (int, tuple or str, optional): implicit zero padding on both sides, or ``'valid'``
            (none) or ``'same'`` (the output has the input's size; stride 1 only) (default: 0).
        dilation (int or tuple, optional): the spacing between kernel elements (default: 1).
        groups (int, optional): split the input into groups; :math:`C_{in}` and :math:`C_{out}` must
            be divisible by it (default: 1).

    Returns:
        Tensor: :math:`(N, C_{out}, L_{out})`.

    Example:
        >>> x, w = framework.ones(1, 2, 5), framework.ones(4, 2, 3)
        >>> F.conv1d(x, w).shape
        torch.Size([1, 4, 3])
        >>> F.conv1d(x, w, padding="same").shape
        torch.Size([1, 4, 5])
    """
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def _conv_transpose(x, w, b, stride, padding, output_padding, groups, dilation, nd, name):
    if _amp.active:
        x, w, b = _amp_cast("ConvTranspose", x.device.type, x, w, b)
    unbatched = check_conv(x, w, b, nd, name, groups, transposed=True)
    stride, pads, dilation, out_hw = transposed_params(
        x, w, stride, padding, output_padding, dilation, nd
    )
    if unbatched:
        x = x.unsqueeze(0)
    check_conv(x, w, b, nd, name, groups, batched=True, transposed=True)
    check_nonempty(x.shape, nd)
    check_transposed_size(
        x, w, out_hw, stride, dilation, expand(output_padding, nd, "output_padding"), groups
    )
    y = ConvTranspose.apply(
        x, w, b, in_hw=out_hw, stride=stride, pads=pads, dilation=dilation, groups=groups
    )
    return y.squeeze(0) if unbatched else y


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    r"""Applies a 2-D transposed convolution (sometimes called "deconvolution"): the gradient of
    :func:`conv2d` with respect to its input.

    See :class:`~framework.nn.ConvTranspose2d` for the module form and the output size.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, H_{in}, W_{in})` (or without the batch
            dimension).
        weight (Tensor): the filters, :math:`(C_{in}, C_{out}/\text{groups}, k_H, k_W)`.
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
        Tensor: :math:`(N, C_{out}, H_{out}, W_{out})`.

    Example:
        >>> x, w = framework.ones(1, 2, 5, 5), framework.ones(2, 4, 3, 3)
        >>> F.conv_transpose2d(x, w).shape
        torch.Size([1, 4, 7, 7])
        >>> F.conv_transpose2d(x, w, stride=2, output_padding=1).shape
        torch.Size([1, 4, 12, 12])
    """
    return _conv_transpose(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        2,
        "conv_transpose2d",
    )


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    r"""Applies a 1-D transposed convolution (sometimes called "deconvolution"): the gradient of
    :func:`conv1d` with respect to its input.

    See :class:`~framework.nn.ConvTranspose1d` for the module form and the output size.

    Args:
        input (Tensor): the input, :math:`(N, C_{in}, L_{in})` (or without the batch dimension).
        weight (Tensor): the filters, :math:`(C_{in}, C_{out}/\text{groups}, k_L)`.
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
        Tensor: :math:`(N, C_{out}, L_{out})`.

    Example:
        >>> x, w = framework.ones(1, 2, 5), framework.ones(2, 4, 3)
        >>> F.conv_transpose1d(x, w).shape
        torch.Size([1, 4, 7])
        >>> F.conv_transpose1d(x, w, stride=2, output_padding=1).shape
        torch.Size([1, 4, 12])
    """
    return _conv_transpose(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        1,
        "conv_transpose1d",
    )
