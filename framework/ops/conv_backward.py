"""torch's convolution_backward as one graph node (ConvolutionBackwardBackward0).

The first gradient of a convolution, taken with create_graph=True, is one node with three
outputs (grad_input, grad_weight, grad_bias) and three inputs (grad_output, input, weight), as
torch's: each output requires grad whenever any of the three does, even where it does not
depend on it (grad_input = conv_t(grad_output, weight) when only the input requires grad).
Its own backward is torch's _convolution_double_backward, made of the convolution maps again.

The maps come from the forward's family (`maps`: 1-D/2-D in conv.py, 3-D in conv3d.py), each
with three array kernels and their Tensor ops:

- conv(x, w): the convolution,
- conv_t(g, w, size): its adjoint in x (the transposed convolution to spatial `size`),
- conv_w(x, g, k): its adjoint in w (the weight gradient, kernel size `k`).
"""

from ..autograd.op import Op
from ._conv_args import check_nonempty
from ._fastgrad import plain, wrap


def _sum_bias(xp, g):
    return g.sum(axis=(0,) + tuple(range(2, g.ndim)))


def _geometry(fn, i):
    """(stride, padding, dilation, groups)[i] as torch saves them, one entry per spatial dim."""
    return fn.maps.geometry(fn.p, fn.nd)[i]


def _output_padding(fn):
    """The transposed convolution's output_padding, from the sizes (0 otherwise)."""
    if not fn.transposed:
        return (0,) * fn.nd
    stride, padding, dilation, _ = fn.maps.geometry(fn.p, fn.nd)
    out_sp, in_sp, k = fn.sizes
    return tuple(
        o - ((i - 1) * s + d * (kk - 1) + 1 - 2 * pd)
        for o, i, kk, s, pd, d in zip(out_sp, in_sp, k, stride, padding, dilation)
    )


def _terms(terms):
    terms = [t for t in terms if t is not None]
    if not terms:
        return None
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


def _check_empty_output(g, ggx, ggw, groups, nd):
    """torch's _convolution_double_backward of a transposed convolution with an empty output
    (batch and channels not empty) convolves grad_output again: first for the weight's term
    (grad_output with batch and channels swapped, one group's channels), then for the
    input's; both are empty inputs that torch's convolution refuses."""
    n, c = g.shape[:2]
    if g.numel() or not n or not c:
        return
    if ggx is not None:
        check_nonempty((c // groups, n) + tuple(g.shape[2:]), nd)
    if ggw is not None:
        check_nonempty(tuple(g.shape), nd)


class ConvolutionBackward(Op):
    """(grad_input, grad_weight, grad_bias) of y = conv(x, w) + b, or of the transposed
    convolution y = conv_t(x, w) + b; outputs outside `mask` are empty placeholders (torch's
    undefined tensors), never handed out."""

    node_name = "ConvolutionBackwardBackward0"
    saves_inputs = True
    saved_fields = {
        "dilation": lambda fn: _geometry(fn, 2),
        "grad_output": "input0",
        "groups": lambda fn: _geometry(fn, 3),
        "input": "input1",
        "output_padding": _output_padding,
        "padding": lambda fn: _geometry(fn, 1),
        "stride": lambda fn: _geometry(fn, 0),
        "transposed": "transposed",
        "weight": "input2",
    }

    def forward(self, g, x, w, maps=None, p=None, transposed=False, mask=(True, True, False)):
        self.maps, self.p, self.transposed, self.mask = maps, p, transposed, mask
        self.nd = x.ndim - 2
        self.sizes = (g.shape[2:], x.shape[2:], w.shape[2:])
        xp = self.xp
        outs = self.kernel(xp, g, x, w, maps, p, transposed, mask)
        return tuple(xp.empty((0,), dtype=g.dtype) if o is None else o for o in outs)

    @staticmethod
    def kernel(xp, g, x, w, maps, p, transposed, mask):
        """The three gradients on arrays (None outside mask)."""
        k = tuple(w.shape[2:])
        if transposed:  # y = conv_t(x, w): <y, g> = <x, conv(g, w)> = <w, conv_w(g, x)>
            gx = maps.conv(xp, g, w, p) if mask[0] else None
            gw = maps.conv_w(xp, g, x, k, p) if mask[1] else None
        else:  # y = conv(x, w): <y, g> = <x, conv_t(g, w)> = <w, conv_w(x, g)>
            gx = maps.conv_t(xp, g, w, tuple(x.shape[2:]), p) if mask[0] else None
            gw = maps.conv_w(xp, x, g, k, p) if mask[1] else None
        gb = _sum_bias(xp, g) if mask[2] else None
        return gx, gw, gb

    def backward(self, ggx, ggw, ggb):
        """torch's _convolution_double_backward: each gradient is bilinear in (g, w) or (x, g),
        so the terms are the same maps with one factor replaced."""
        g, x, w = self.inputs
        need_g, need_x, need_w = self.needs_input_grad
        m, p = self.maps, self.p
        mask = self.mask
        ggx = ggx if mask[0] else None
        ggw = ggw if mask[1] else None
        ggb = ggb if mask[2] else None
        out_sp, in_sp, k = tuple(g.shape[2:]), tuple(x.shape[2:]), tuple(w.shape[2:])
        dg = dx = dw = None
        bias = None
        if need_g and ggb is not None:
            bias = ggb.reshape((1, -1) + (1,) * (g.ndim - 2)).expand(tuple(g.shape))
        if not x.numel():  # torch: an empty input keeps only the bias term
            return bias, None, None
        if self.transposed:
            _check_empty_output(g, ggx, ggw, _geometry(self, 3), self.nd)
            if need_g:
                dg = _terms(
                    [
                        m.t_conv_t(ggx, w, out_sp, p) if ggx is not None else None,
                        m.t_conv_t(x, ggw, out_sp, p) if ggw is not None else None,
                        bias,
                    ]
                )
            if need_x and ggw is not None:
                dx = m.t_conv(g, ggw, p)
            if need_w and ggx is not None:
                dw = m.t_conv_w(g, ggx, k, p)
        else:
            if need_g:
                dg = _terms(
                    [
                        m.t_conv(ggx, w, p) if ggx is not None else None,
                        m.t_conv(x, ggw, p) if ggw is not None else None,
                        bias,
                    ]
                )
            if need_x and ggw is not None:
                dx = m.t_conv_t(g, ggw, in_sp, p)
            if need_w and ggx is not None:
                dw = m.t_conv_w(ggx, g, k, p)
        return dg, dx, dw

    def jvp(self, tg, tx, tw):
        """Each output is bilinear: the sum of its two terms with one factor's tangent (torch's
        rule for convolution_backward's results)."""
        g, x, w = self._fw_args
        m, p, mask = self.maps, self.p, self.mask
        in_sp, k = tuple(x.shape[2:]), tuple(w.shape[2:])
        if self.transposed:
            gx = [
                m.t_conv(tg, w, p) if tg is not None else None,
                m.t_conv(g, tw, p) if tw is not None else None,
            ]
            gw = [
                m.t_conv_w(tg, x, k, p) if tg is not None else None,
                m.t_conv_w(g, tx, k, p) if tx is not None else None,
            ]
        else:
            gx = [
                m.t_conv_t(tg, w, in_sp, p) if tg is not None else None,
                m.t_conv_t(g, tw, in_sp, p) if tw is not None else None,
            ]
            gw = [
                m.t_conv_w(tx, g, k, p) if tx is not None else None,
                m.t_conv_w(x, tg, k, p) if tg is not None else None,
            ]
        gb = tg.sum(dim=(0,) + tuple(range(2, tg.ndim))) if tg is not None else None
        return (
            _terms(gx) if mask[0] else None,
            _terms(gw) if mask[1] else None,
            gb if mask[2] else None,
        )


def convolution_grads(grad, x, w, need, maps, p, transposed):
    """A convolution node's gradients (input, weight, bias; None where `need` is False): on
    the arrays when no graph is recorded, else as torch's one ConvolutionBackwardBackward0
    node."""
    if plain(grad):
        got = ConvolutionBackward.kernel(
            grad.xp, grad._data, x._data, w._data, maps, p, transposed, need
        )
        return tuple(None if a is None else wrap(a, grad) for a in got)
    outs = ConvolutionBackward.apply(
        grad, x, w, maps=maps, p=p, transposed=transposed, mask=tuple(need)
    )
    return tuple(o if n else None for o, n in zip(outs, need))
