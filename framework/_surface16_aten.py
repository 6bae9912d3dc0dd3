"""torch's ATen functional forms with their positional signatures: the recurrent cells and
stacks (``torch.lstm_cell``, ``torch.gru``, ...), ``grid_sampler``, ``native_layer_norm`` /
``native_group_norm`` / ``native_batch_norm`` (with their saved statistics),
``native_dropout`` (with its mask) and ``conv_tbc``. Each runs the same kernels (and records
the same nodes) as the nn module or functional that torch builds on it."""

from .autograd.op import Op
from .ops import normalization as _norm
from .tensor import Tensor

# ---- recurrent cells ----


def _x_proj(input, w_ih, b_ih):
    from .ops.linalg import linear

    return linear(input, w_ih, b_ih)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an Elman RNN with tanh: :math:`h' = \\tanh(x W_{ih}^T + b_{ih} + h W_{hh}^T
    + b_{hh})`.

    Args:
        input (Tensor): :math:`(N, H_{in})`.
        hx (Tensor): :math:`(N, H)`.
        w_ih (Tensor): :math:`(H, H_{in})`.
        w_hh (Tensor): :math:`(H, H)`.
        b_ih (Tensor, optional): :math:`(H)`.
        b_hh (Tensor, optional): :math:`(H)`.

    Example:
        >>> h = framework.rnn_tanh_cell(framework.ones(1, 2), framework.zeros(1, 1),
        ...                             framework.ones(1, 2), framework.ones(1, 1))
        >>> h
        tensor([[0.9640]])
    """
    from .ops import rnn

    return rnn.rnn_tanh_cell(_x_proj(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an Elman RNN with ReLU: :math:`h' = \\max(0, x W_{ih}^T + b_{ih} + h
    W_{hh}^T + b_{hh})`.

    Args:
        input (Tensor): :math:`(N, H_{in})`.
        hx (Tensor): :math:`(N, H)`.
        w_ih (Tensor): :math:`(H, H_{in})`.
        w_hh (Tensor): :math:`(H, H)`.
        b_ih (Tensor, optional): :math:`(H)`.
        b_hh (Tensor, optional): :math:`(H)`.

    Example:
        >>> framework.rnn_relu_cell(framework.ones(1, 2), framework.zeros(1, 1),
        ...                         framework.ones(1, 2), framework.ones(1, 1))
        tensor([[2.]])
    """
    from .ops import rnn

    return rnn.rnn_relu_cell(_x_proj(input, w_ih, b_ih), hx, w_hh, b_hh)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step (gates i, f, g, o in torch's order): returns ``(h', c')``.

    Args:
        input (Tensor): :math:`(N, H_{in})`.
        hx (sequence of Tensor): ``(h, c)``, each :math:`(N, H)`.
        w_ih (Tensor): :math:`(4H, H_{in})`.
        w_hh (Tensor): :math:`(4H, H)`.
        b_ih (Tensor, optional): :math:`(4H)`.
        b_hh (Tensor, optional): :math:`(4H)`.

    Example:
        >>> h, c = framework.lstm_cell(framework.ones(1, 2), (framework.zeros(1, 1),
        ...     framework.zeros(1, 1)), framework.ones(4, 2), framework.ones(4, 1))
        >>> c
        tensor([[0.8491]])
    """
    from .ops import rnn

    h, c = hx
    return rnn.lstm_cell(_x_proj(input, w_ih, b_ih), (h, c), w_hh, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step (gates r, z, n in torch's order): :math:`h' = (1 - z) n + z h`.

    Args:
        input (Tensor): :math:`(N, H_{in})`.
        hx (Tensor): :math:`(N, H)`.
        w_ih (Tensor): :math:`(3H, H_{in})`.
        w_hh (Tensor): :math:`(3H, H)`.
        b_ih (Tensor, optional): :math:`(3H)`.
        b_hh (Tensor, optional): :math:`(3H)`.

    Example:
        >>> framework.gru_cell(framework.ones(1, 2), framework.zeros(1, 1),
        ...                    framework.ones(3, 2), framework.ones(3, 1))
        tensor([[0.1149]])
    """
    from .ops import rnn

    return rnn.gru_cell(_x_proj(input, w_ih, b_ih), hx, w_hh, b_hh)


# ---- recurrent stacks ----


def _layer_params(params, has_biases, num_layers, bidirectional, proj):
    """torch's flat parameter list cut into (w_ih, w_hh, b_ih, b_hh, w_hr) per layer and
    direction."""
    per = 2 + 2 * bool(has_biases) + bool(proj)
    groups = num_layers * (2 if bidirectional else 1)
    params = list(params)
    if len(params) != per * groups:
        raise RuntimeError(
            f"got an incorrect number of RNN parameters: expected {per * groups}, got {len(params)}"
        )
    out = []
    for k in range(groups):
        p = params[k * per : (k + 1) * per]
        w_ih, w_hh = p[0], p[1]
        b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
        out.append((w_ih, w_hh, b_ih, b_hh, p[-1] if proj else None))
    return out


def _stack(mode, args):
    """Dispatches torch's two overloads: (input, hx, params, has_biases, num_layers, dropout,
    train, bidirectional, batch_first) and (data, batch_sizes, hx, params, has_biases,
    num_layers, dropout, train, bidirectional)."""
    from .nn.dropout import dropout as _dropout
    from .ops import rnn
    from .ops.shape import TransposeInplace

    lstm = mode == "LSTM"
    packed = len(args) == 9 and isinstance(args[1], Tensor) and not isinstance(args[2], bool)
    packed = packed and (lstm or isinstance(args[2], Tensor)) and isinstance(args[3], (list, tuple))
    if packed:
        data, batch_sizes, hx, params, has_biases, layers, p, train, bidir = args
        batch_first = False
        sizes = [int(b) for b in batch_sizes.tolist()]
        x = data
    else:
        if len(args) != 9:
            raise TypeError(f"{mode.lower()}() takes 9 positional arguments ({len(args)} given)")
        x, hx, params, has_biases, layers, p, train, bidir, batch_first = args
        sizes = None
        if batch_first:
            x = x.transpose(0, 1)
    if lstm:
        h0, c0 = hx
        hidden = (h0, c0)
        proj = h0.shape[-1] != c0.shape[-1]
    else:
        hidden, proj = hx, False
    weights = _layer_params(params, has_biases, layers, bidir, proj)
    out, hidden = rnn.rnn_forward(
        mode, x, hidden, weights, layers, p, train, bidir, sizes, _dropout
    )
    if batch_first and not packed:
        out = out.transpose(0, 1) if lstm else TransposeInplace.apply(out, dim0=0, dim1=1)
    return (out, *hidden) if lstm else (out, hidden)


def lstm(*args):
    """torch.lstm: a multi-layer LSTM over a sequence, as :class:`nn.LSTM` runs it.

    ``lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first)`` or, for packed rows, ``lstm(data, batch_sizes, hx, params, has_biases,
    num_layers, dropout, train, bidirectional)``; returns ``(output, h_n, c_n)``.

    Args:
        args: ``input`` (T, N, F) (or N, T, F with ``batch_first``); ``hx`` the pair
            ``(h_0, c_0)``; ``params`` the flat list (w_ih, w_hh[, b_ih, b_hh][, w_hr]) per
            layer and direction; then the flags.

    Example:
        >>> m = nn.LSTM(2, 3)
        >>> x, h = framework.ones(4, 1, 2), framework.zeros(1, 1, 3)
        >>> out, hn, cn = framework.lstm(x, (h, h), m._flat_weights, True, 1, 0.0, False,
        ...                              False, False)
        >>> bool((out == m(x, (h, h))[0]).all())
        True
    """
    return _stack("LSTM", args)


def gru(*args):
    """torch.gru: a multi-layer GRU over a sequence, as :class:`nn.GRU` runs it; returns
    ``(output, h_n)``. The arguments are :func:`lstm`'s with ``hx`` one tensor.

    Args:
        args: see :func:`lstm`.

    Example:
        >>> m = nn.GRU(2, 3)
        >>> x, h = framework.ones(4, 1, 2), framework.zeros(1, 1, 3)
        >>> out, hn = framework.gru(x, h, m._flat_weights, True, 1, 0.0, False, False, False)
        >>> bool((out == m(x, h)[0]).all())
        True
    """
    return _stack("GRU", args)


def rnn_tanh(*args):
    """torch.rnn_tanh: a multi-layer Elman RNN with tanh, as :class:`nn.RNN` runs it;
    returns ``(output, h_n)``. The arguments are :func:`gru`'s.

    Args:
        args: see :func:`lstm`.

    Example:
        >>> m = nn.RNN(2, 3)
        >>> x, h = framework.ones(4, 1, 2), framework.zeros(1, 1, 3)
        >>> out, hn = framework.rnn_tanh(x, h, m._flat_weights, True, 1, 0.0, False, False,
        ...                              False)
        >>> out.shape
        torch.Size([4, 1, 3])
    """
    return _stack("RNN_TANH", args)


def rnn_relu(*args):
    """torch.rnn_relu: a multi-layer Elman RNN with ReLU; returns ``(output, h_n)``. The
    arguments are :func:`gru`'s.

    Args:
        args: see :func:`lstm`.

    Example:
        >>> m = nn.RNN(2, 3, nonlinearity="relu")
        >>> x, h = framework.ones(4, 1, 2), framework.zeros(1, 1, 3)
        >>> framework.rnn_relu(x, h, m._flat_weights, True, 1, 0.0, False, False, False)[1].shape
        torch.Size([1, 1, 3])
    """
    return _stack("RNN_RELU", args)


# ---- grid sampler ----

_MODES = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDINGS = {0: "zeros", 1: "border", 2: "reflection"}


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """The kernel behind :func:`F.grid_sample`, with the modes as integers:
    ``interpolation_mode`` 0 bilinear, 1 nearest, 2 bicubic; ``padding_mode`` 0 zeros,
    1 border, 2 reflection.

    Args:
        input (Tensor): :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`.
        grid (Tensor): :math:`(N, H_o, W_o, 2)` or :math:`(N, D_o, H_o, W_o, 3)`.
        interpolation_mode (int): 0, 1 or 2.
        padding_mode (int): 0, 1 or 2.
        align_corners (bool): whether -1 and 1 are the corner pixels' centres.

    Example:
        >>> framework.grid_sampler(framework.ones(1, 1, 2, 2), framework.zeros(1, 1, 1, 2),
        ...                        0, 0, False)
        tensor([[[[1.]]]])
    """
    from .ops.grid_sample import grid_sample

    return grid_sample(
        input,
        grid,
        mode=_MODES[int(interpolation_mode)],
        padding_mode=_PADDINGS[int(padding_mode)],
        align_corners=bool(align_corners),
    )


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """:func:`grid_sampler` for 4-D input (torch's 2-D kernel).

    Args:
        input (Tensor): :math:`(N, C, H, W)`.
        grid (Tensor): :math:`(N, H_o, W_o, 2)`.
        interpolation_mode (int): 0 bilinear, 1 nearest, 2 bicubic.
        padding_mode (int): 0 zeros, 1 border, 2 reflection.
        align_corners (bool): whether -1 and 1 are the corner pixels' centres.

    Example:
        >>> framework.grid_sampler_2d(framework.ones(1, 1, 2, 2), framework.zeros(1, 1, 1, 2),
        ...                           1, 0, True)
        tensor([[[[1.]]]])
    """
    if input.dim() != 4:
        raise RuntimeError(
            "grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
            f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """:func:`grid_sampler` for 5-D input (torch's 3-D kernel; no bicubic).

    Args:
        input (Tensor): :math:`(N, C, D, H, W)`.
        grid (Tensor): :math:`(N, D_o, H_o, W_o, 3)`.
        interpolation_mode (int): 0 bilinear, 1 nearest.
        padding_mode (int): 0 zeros, 1 border, 2 reflection.
        align_corners (bool): whether -1 and 1 are the corner pixels' centres.

    Example:
        >>> framework.grid_sampler_3d(framework.ones(1, 1, 2, 2, 2),
        ...                           framework.zeros(1, 1, 1, 1, 3), 0, 0, False)
        tensor([[[[[1.]]]]])
    """
    if input.dim() != 5:
        raise RuntimeError(
            "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
            f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


# ---- normalizations with their statistics ----


def _stats_op(base):
    """A subclass of the normalization Op `base` (same node name) whose forward also hands
    its saved statistics to the caller (through the `sink` list parameter)."""

    def forward(self, *args, sink=None, **params):
        out = base.forward(self, *args, **params)
        sink.append((self.mean, self.invstd))
        return out

    return type(f"_Stats{base.__name__}", (base,), {
        "forward": forward,
        "node_name": f"{base.__name__}Backward0",
        "__doc__": f"{base.__name__} that also returns its statistics.",
    })  # fmt: skip


_LayerNormStats = _stats_op(_norm.NativeLayerNorm)
_GroupNormStats = _stats_op(_norm.NativeGroupNorm)
_BatchNormStats = _stats_op(_norm.NativeBatchNorm)


def _stat(array, device, dtype=None):
    out = Tensor._make(array, device)
    return out if dtype is None or out.dtype is dtype else out.to(dtype)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Layer normalization returning ``(output, mean, rstd)``: the statistics over the
    trailing ``normalized_shape`` dimensions, kept as size 1 (what its backward reads).

    Args:
        input (Tensor): :math:`(*, \\text{normalized\\_shape})`.
        normalized_shape (list of int): the trailing shape normalized over.
        weight (Tensor or None): the scale.
        bias (Tensor or None): the shift.
        eps (float): added to the variance.

    Example:
        >>> out, mean, rstd = framework.native_layer_norm(
        ...     framework.tensor([[1.0, 3.0]]), [2], None, None, 1e-5)
        >>> mean, rstd
        (tensor([[2.]]), tensor([[1.0000]]))
    """
    shape = _norm.check_normalized_shape(input, normalized_shape)
    sink = []
    out = _LayerNormStats.apply(input, weight, bias, normalized_shape=shape, eps=eps, sink=sink)
    mean, rstd = sink[0]
    return out, _stat(mean, input._device, input.dtype), _stat(rstd, input._device, input.dtype)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Group normalization returning ``(output, mean, rstd)``, the statistics of shape
    ``(N, group)``.

    Args:
        input (Tensor): :math:`(N, C, *)`.
        weight (Tensor or None): the per-channel scale.
        bias (Tensor or None): the per-channel shift.
        N (int): the batch size.
        C (int): the channels.
        HxW (int): the elements per channel and sample.
        group (int): the number of groups.
        eps (float): added to the variance.

    Example:
        >>> out, mean, rstd = framework.native_group_norm(
        ...     framework.tensor([[1.0, 3.0]]), None, None, 1, 2, 1, 1, 1e-5)
        >>> mean
        tensor([[2.]])
    """
    sink = []
    out = _GroupNormStats.apply(input, weight, bias, num_groups=group, eps=eps, sink=sink)
    mean, rstd = sink[0]
    n = input.shape[0]
    return (
        out,
        _stat(mean.reshape(n, group), input._device, input.dtype),
        _stat(rstd.reshape(n, group), input._device, input.dtype),
    )


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Batch normalization returning ``(output, save_mean, save_invstd)``: in training the
    batch's mean and inverse standard deviation per channel (the running statistics updated
    in place), in evaluation empty tensors, as torch's CPU kernel.

    Args:
        input (Tensor): :math:`(N, C, *)`.
        weight (Tensor or None): the per-channel scale.
        bias (Tensor or None): the per-channel shift.
        running_mean (Tensor or None): the running mean, updated in training.
        running_var (Tensor or None): the running variance, updated in training.
        training (bool): use the batch statistics.
        momentum (float): the running statistics' update factor.
        eps (float): added to the variance.

    Example:
        >>> out, mean, invstd = framework.native_batch_norm(
        ...     framework.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 0.0)
        >>> mean, invstd
        (tensor([2.]), tensor([1.]))
    """
    from .autograd.grad_mode import state

    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.requires_grad and state.enabled:
            raise RuntimeError(
                f"The function 'native_batch_norm' is not differentiable with respect to "
                f"argument '{name}'. This input cannot have requires_grad True."
            )
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    sink = []
    out = _BatchNormStats.apply(
        input,
        weight,
        bias,
        running_mean=None if running_mean is None else running_mean._data,
        running_var=None if running_var is None else running_var._data,
        training=bool(training),
        momentum=momentum,
        eps=eps,
        sink=sink,
    )
    if training and running_mean is not None:
        running_mean._vc[0] += 1
        running_var._vc[0] += 1
    dev = input._device
    if not training:
        empty = input.xp.empty(0, dtype=input._data.dtype)
        return out, _stat(empty, dev), _stat(empty.copy(), dev)
    mean, invstd = sink[0]
    c = input.shape[1]
    return out, _stat(mean.reshape(c), dev, input.dtype), _stat(invstd.reshape(c), dev, input.dtype)


# ---- dropout with its mask ----


class NativeDropout(Op):
    """``input * mask * scale`` for a 0/1 mask drawn by the caller (torch's native_dropout)."""

    saves = ("mask",)

    def forward(self, x, mask, scale=1.0):
        """(output, mask) of torch.native_dropout: the mask from torch's Bernoulli draws, the kept
        values scaled by 1 / (1 - p)."""
        self.mask, self.scale = mask, scale
        y = x * mask.astype(x.dtype)
        y *= x.dtype.type(scale)
        return y

    def backward(self, grad):
        # native_dropout_backward: grad * mask * scale
        """grad * mask * scale (torch's native_dropout_backward)."""
        m = Tensor._make(self.mask.astype(grad._data.dtype), grad._device)
        return grad * m * self.scale, None

    def jvp(self, tx, tmask):
        """The tangent times mask * scale."""
        m = Tensor._make(self.mask.astype(tx._data.dtype), tx._device)
        return tx * m * self.scale


def native_dropout(input, p, train):
    """Dropout returning ``(output, mask)``: the mask (bool) draws ``bernoulli(1 - p)`` from
    the default generator as torch's CPU kernel (the draws of :func:`F.dropout`), the kept
    elements scaled by ``1 / (1 - p)``; ``train=False`` gives a copy and an all-true mask.

    Args:
        input (Tensor): the input.
        p (float): the probability of an element being zeroed.
        train (bool or None): whether to drop (None counts as True).

    Example:
        >>> out, mask = framework.native_dropout(framework.ones(3), 0.0, True)
        >>> out, mask
        (tensor([1., 1., 1.]), tensor([True, True, True]))
    """
    from .creation import empty_like, ones_like
    from . import dtypes

    if train is not None and not train or input.numel() == 0:
        mask = ones_like(input, dtype=dtypes.bool_)
        return NativeDropout.apply(input, mask, scale=1.0), mask
    p1m = 1.0 - p
    scale = 0.0 if p1m == 0 else 1.0 / p1m
    noise = empty_like(input).bernoulli_(p1m)
    mask = noise.to(dtypes.bool_)
    return NativeDropout.apply(input, mask, scale=scale), mask


# ---- conv_tbc ----


class ConvTbc(Op):
    """torch's conv_tbc kernel: the output starts as the bias, then for each of the K taps
    one matrix product of the shifted input rows with weight[k] is added (addmm)."""

    saves_inputs = True

    def forward(self, x, weight, bias, pad=0):
        """torch.conv_tbc: a 1-D convolution of a (time, batch, channel) input, one product per
        kernel tap in torch's order."""
        from .ops import _mkl

        xp = self.xp
        t, b, c_in = x.shape
        k, _, c_out = weight.shape
        self.pad = pad
        olen = t + 2 * pad - k + 1
        out = xp.empty((olen, b, c_out), dtype=x.dtype)
        out[...] = bias
        flat = out.reshape(olen * b, c_out)
        for tap in range(k):
            i_shift, o_shift = max(0, tap - pad), max(0, pad - tap)
            n = min(t + pad - tap, olen) - o_shift
            if n > 0:
                rows = x[i_shift : i_shift + n].reshape(n * b, c_in)
                o = flat[o_shift * b : (o_shift + n) * b]
                prod = _mkl.gemm(rows, weight[tap], bias=o) if xp.__name__ == "numpy" else None
                if prod is None:
                    o += rows @ weight[tap]
                else:
                    o[...] = prod
        return out

    def backward(self, grad):
        """The gradients of input, weight and bias, tap by tap as torch's conv_tbc_backward."""
        x, weight, bias = self.inputs
        return conv_tbc_backward(grad, x, weight, bias, self.pad)

    jvp = Op.jvp_not_implemented  # torch 2.13 has no forward derivative for conv_tbc
    jvp_name = "conv_tbc"


def conv_tbc_backward(grad, input, weight, bias, pad):
    """The gradients of :func:`conv_tbc` in torch's order (per tap, a matrix product added
    to the input's and the weight's gradient), in Tensor ops so that every order of
    derivative is recorded: ``(grad_input, grad_weight, grad_bias)``."""
    from .ops.join import cat, stack

    ilen, b, c_in = input.shape
    k, _, c_out = weight.shape
    olen = grad.shape[0]
    grad_input = grad.new_zeros(input.shape)
    taps = []
    for tap in range(k):
        i_shift, o_shift = max(0, tap - pad), max(0, pad - tap)
        n = min(ilen + pad - tap, olen) - o_shift
        if n <= 0:
            taps.append(weight.new_zeros((c_in, c_out)))
            continue
        d_o = grad[o_shift : o_shift + n].reshape(n * b, c_out)
        rows = input[i_shift : i_shift + n].reshape(n * b, c_in)
        part = d_o.mm(weight[tap].t()).reshape(n, b, c_in)
        before = grad_input.new_zeros((i_shift, b, c_in))
        after = grad_input.new_zeros((ilen - i_shift - n, b, c_in))
        grad_input = grad_input + cat([before, part, after], 0)
        taps.append(rows.t().mm(d_o))
    return grad_input, stack(taps, 0), grad.sum(0).sum(0)


def conv_tbc(input, weight, bias, pad=0):
    """A 1-D convolution over time of ``(time, batch, channels)`` input (torch.conv_tbc).

    Args:
        input (Tensor): :math:`(T, N, C_{in})`.
        weight (Tensor): :math:`(K, C_{in}, C_{out})`.
        bias (Tensor): :math:`(C_{out})`.
        pad (int, optional): zeros added on both ends of the time axis. Default: 0.

    Returns:
        Tensor: :math:`(T + 2 \\cdot pad - K + 1, N, C_{out})`.

    Example:
        >>> framework.conv_tbc(framework.ones(3, 1, 1), framework.ones(2, 1, 1),
        ...                    framework.zeros(1)).flatten()
        tensor([2., 2.])
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    return ConvTbc.apply(input, weight, bias, pad=int(pad))


# ---- SyncBatchNorm's statistics kernels ----


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """The batch's per-channel mean and (biased) variance, the running statistics updated in
    place as batch normalization in training updates them (the unbiased variance into
    ``running_var``). Not differentiable (as torch).

    Args:
        input (Tensor): :math:`(N, C, *)`.
        running_mean (Tensor or None): updated in place.
        running_var (Tensor or None): updated in place.
        momentum (float): the update factor.

    Returns:
        ``(mean, var)``, each :math:`(C)`.

    Example:
        >>> x, z, o = framework.ones(2, 2), framework.zeros(2), framework.ones(2)
        >>> n = framework.ones(1, dtype=framework.int32)
        >>> framework.batch_norm_update_stats(
        ...     framework.tensor([[1.0], [3.0]]), None, None, 0.1
        ... )
        (tensor([2.]), tensor([1.]))
    """
    import numpy as np

    from .ops import _moments
    from .ops.elementwise import NotImplementedBackward

    if input.dim() < 2:
        n = max(input.dim(), 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got 1)"
        )
    x = input._data
    xp, dt = input.xp, x.dtype
    c = x.shape[1]
    n = x.size // c if c else 0
    axes = (0,) + tuple(range(2, x.ndim))
    if _moments.replayable(x) and x.size and x.flags.c_contiguous:
        mean, vsum = _moments.batch_norm_stats(x)
    else:
        mean = x.mean(axis=axes)
        xc = x - mean.reshape((1, c) + (1,) * (x.ndim - 2))
        vsum = (xc * xc).sum(axis=axes)
    with np.errstate(all="ignore"):
        var = (vsum / dt.type(n)).astype(dt)
        m = dt.type(momentum)
        if running_mean is not None:
            rm = running_mean._data
            rm[...] = m * mean + (1 - m) * rm
            running_mean._vc[0] += 1
        if running_var is not None:
            rv = running_var._data
            unbiased = (vsum / dt.type(n - 1)).astype(xp.float64)
            rv[...] = (xp.float64(m) * unbiased + ((1 - m) * rv).astype(xp.float64)).astype(dt)
            running_var._vc[0] += 1
    mean, var = mean.astype(dt, copy=False), var
    if input.requires_grad:
        aten = "batch_norm_update_stats"
        return (
            NotImplementedBackward.apply(input, fn=lambda xp, a: mean, aten=aten),
            NotImplementedBackward.apply(input, fn=lambda xp, a: var, aten=aten),
        )
    return Tensor._make(mean, input._device), Tensor._make(var, input._device)


def _cuda_only(name, first):
    """torch's dispatcher error for a kernel it registers for CUDA only."""
    backend = "CUDA" if getattr(getattr(first, "_device", None), "type", "") == "cuda" else "CPU"
    raise NotImplementedError(
        f"Could not run 'aten::{name}' with arguments from the '{backend}' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted "
        "during the selective/custom build process (if using custom build)."
    )


def batch_norm_stats(input, eps):
    """Per-channel mean and inverse standard deviation of a batch.

    A SyncBatchNorm kernel torch registers for CUDA only: on the CPU it raises torch's
    NotImplementedError (as here; there is no CUDA kernel either).

    Args:
        input (Tensor or number): torch's argument.
        eps (Tensor or number): torch's argument.

    Example:
        >>> x, z, o = framework.ones(2, 2), framework.zeros(2), framework.ones(2)
        >>> n = framework.ones(1, dtype=framework.int32)
        >>> framework.batch_norm_stats(
        ...     x, 1e-5
        ... )
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::batch_norm_stats'...
    """
    _cuda_only("batch_norm_stats", input)


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """Normalizes a batch with given statistics.

    A SyncBatchNorm kernel torch registers for CUDA only: on the CPU it raises torch's
    NotImplementedError (as here; there is no CUDA kernel either).

    Args:
        input (Tensor or number): torch's argument.
        weight (Tensor or number): torch's argument.
        bias (Tensor or number): torch's argument.
        mean (Tensor or number): torch's argument.
        invstd (Tensor or number): torch's argument.
        eps (Tensor or number): torch's argument.

    Example:
        >>> x, z, o = framework.ones(2, 2), framework.zeros(2), framework.ones(2)
        >>> n = framework.ones(1, dtype=framework.int32)
        >>> framework.batch_norm_elemt(
        ...     x, None, None, z, o, 1e-5
        ... )
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::batch_norm_elemt'...
    """
    _cuda_only("batch_norm_elemt", input)


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """Combines the statistics of several processes.

    A SyncBatchNorm kernel torch registers for CUDA only: on the CPU it raises torch's
    NotImplementedError (as here; there is no CUDA kernel either).

    Args:
        input (Tensor or number): torch's argument.
        mean (Tensor or number): torch's argument.
        invstd (Tensor or number): torch's argument.
        running_mean (Tensor or number): torch's argument.
        running_var (Tensor or number): torch's argument.
        momentum (Tensor or number): torch's argument.
        eps (Tensor or number): torch's argument.
        count (Tensor or number): torch's argument.

    Example:
        >>> x, z, o = framework.ones(2, 2), framework.zeros(2), framework.ones(2)
        >>> n = framework.ones(1, dtype=framework.int32)
        >>> framework.batch_norm_gather_stats(
        ...     x, z[None], o[None], None, None, 0.1, 1e-5, 2
        ... )
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::batch_norm_gather_stats'...
    """
    _cuda_only("batch_norm_gather_stats", input)


def batch_norm_gather_stats_with_counts(
    input, mean, invstd, running_mean, running_var, momentum, eps, counts
):
    """Combines the statistics of several processes, weighted by their counts.

    A SyncBatchNorm kernel torch registers for CUDA only: on the CPU it raises torch's
    NotImplementedError (as here; there is no CUDA kernel either).

    Args:
        input (Tensor or number): torch's argument.
        mean (Tensor or number): torch's argument.
        invstd (Tensor or number): torch's argument.
        running_mean (Tensor or number): torch's argument.
        running_var (Tensor or number): torch's argument.
        momentum (Tensor or number): torch's argument.
        eps (Tensor or number): torch's argument.
        counts (Tensor or number): torch's argument.

    Example:
        >>> x, z, o = framework.ones(2, 2), framework.zeros(2), framework.ones(2)
        >>> n = framework.ones(1, dtype=framework.int32)
        >>> framework.batch_norm_gather_stats_with_counts(
        ...     x, z[None], o[None], None, None, 0.1, 1e-5, o[:1]
        ... )
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::batch_norm_gather_stats_with_counts'...
    """
    _cuda_only("batch_norm_gather_stats_with_counts", input)


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """The reductions of batch normalization's backward.

    A SyncBatchNorm kernel torch registers for CUDA only: on the CPU it raises torch's
    NotImplementedError (as here; there is no CUDA kernel either).

    Args:
        grad_out (Tensor or number): torch's argument.
        input (Tensor or number): torch's argument.
        mean (Tensor or number): torch's argument.
        invstd (Tensor or number): torch's argument.
        weight (Tensor or number): torch's argument.
        input_g (Tensor or number): torch's argument.
        weight_g (Tensor or number): torch's argument.
        bias_g (Tensor or number): torch's argument.

    Example:
        >>> x, z, o = framework.ones(2, 2), framework.zeros(2), framework.ones(2)
        >>> n = framework.ones(1, dtype=framework.int32)
        >>> framework.batch_norm_backward_reduce(
        ...     x, x, z, o, None, True, True, True
        ... )
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::batch_norm_backward_reduce'...
    """
    _cuda_only("batch_norm_backward_reduce", grad_out)


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """The elementwise part of batch normalization's backward.

    A SyncBatchNorm kernel torch registers for CUDA only: on the CPU it raises torch's
    NotImplementedError (as here; there is no CUDA kernel either).

    Args:
        grad_out (Tensor or number): torch's argument.
        input (Tensor or number): torch's argument.
        mean (Tensor or number): torch's argument.
        invstd (Tensor or number): torch's argument.
        weight (Tensor or number): torch's argument.
        sum_dy (Tensor or number): torch's argument.
        sum_dy_xmu (Tensor or number): torch's argument.
        count (Tensor or number): torch's argument.

    Example:
        >>> x, z, o = framework.ones(2, 2), framework.zeros(2), framework.ones(2)
        >>> n = framework.ones(1, dtype=framework.int32)
        >>> framework.batch_norm_backward_elemt(
        ...     x, x, z, o, None, z, z, n
        ... )
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::batch_norm_backward_elemt'...
    """
    _cuda_only("batch_norm_backward_elemt", grad_out)


# ---- embedding_bag's ATen form ----


def embedding_bag(
    weight,
    indices,
    offsets,
    scale_grad_by_freq=False,
    mode=0,
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """torch.embedding_bag: :func:`F.embedding_bag` with ATen's argument order and integer
    ``mode`` (0 sum, 1 mean, 2 max), returning torch's four tensors ``(output, offset2bag,
    bag_size, max_indices)``: the bag of each index (empty for a plain sum, as torch's fast
    path), the number of non-padding indices per bag (zeros in sum mode) and, in max mode,
    the index each maximum came from (in mean mode torch's uninitialized buffer holds the
    bag sizes, as here; in sum mode zeros).

    Args:
        weight (Tensor): the embeddings, :math:`(V, D)`.
        indices (Tensor): 1-D indices.
        offsets (Tensor): the start of each bag.
        scale_grad_by_freq (bool, optional): scale the gradient by the indices' inverse
            frequency. Default: False.
        mode (int, optional): 0 sum, 1 mean, 2 max. Default: 0.
        sparse (bool, optional): accepted (the gradient is dense). Default: False.
        per_sample_weights (Tensor, optional): a weight per index (sum mode).
        include_last_offset (bool, optional): ``offsets`` ends with the end of the last bag.
            Default: False.
        padding_idx (int, optional): an index left out of its bag.

    Example:
        >>> w = framework.arange(6.0).view(3, 2)
        >>> out, offset2bag, bag_size, max_indices = framework.embedding_bag(
        ...     w, framework.tensor([0, 2, 1]), framework.tensor([0, 2]), False, 2)
        >>> out, max_indices
        (tensor([[4., 5.],
                [2., 3.]]), tensor([[2, 2],
                [1, 1]]))
    """
    import numpy as np

    from .ops.embedding_bag import embedding_bag as _bag

    name = {0: "sum", 1: "mean", 2: "max"}[int(mode)]
    v = weight.shape[0]
    pad = None if padding_idx is None else (padding_idx + v if padding_idx < 0 else padding_idx)
    out = _bag(
        indices,
        weight,
        offsets,
        scale_grad_by_freq=scale_grad_by_freq,
        mode=name,
        sparse=sparse,
        per_sample_weights=per_sample_weights,
        include_last_offset=include_last_offset,
        padding_idx=pad,
    )
    to_np = (lambda a: a) if indices.xp is np else indices.xp.asnumpy
    idx = to_np(indices._data).reshape(-1)
    off = to_np(offsets._data).astype(np.int64).reshape(-1)
    bags = out.shape[0]
    dt = offsets._data.dtype
    starts = off[:bags]
    ends = np.append(off[1 : bags + 1], idx.size) if not include_last_offset else off[1 : bags + 1]
    ends = np.minimum(ends[:bags], idx.size)
    o2b = np.zeros(idx.size, dt)
    counts = np.zeros(bags, dt)
    for b in range(bags):
        o2b[starts[b] : ends[b]] = b
        seg = idx[starts[b] : ends[b]]
        counts[b] = seg.size if pad is None else int((seg != pad).sum())
    fast_sum = name == "sum" and pad is None
    if fast_sum:
        o2b = np.zeros(0, dt)
    bag_size = counts if name != "sum" else np.zeros(bags, dt)
    if name == "max":
        w = to_np(weight._data)
        max_indices = np.zeros((bags, weight.shape[1]), dt)
        for b in range(bags):
            seg = idx[starts[b] : ends[b]]
            if pad is not None:
                seg = seg[seg != pad]
            if seg.size:
                max_indices[b] = seg[np.argmax(w[seg], axis=0)]
    else:
        max_indices = bag_size.copy()
    dev, xp = indices._device, indices.xp
    return (
        out,
        Tensor._make(xp.asarray(o2b), dev),
        Tensor._make(xp.asarray(bag_size), dev),
        Tensor._make(xp.asarray(max_indices), dev),
    )


__all__ = [
    "rnn_tanh_cell",
    "rnn_relu_cell",
    "lstm_cell",
    "gru_cell",
    "lstm",
    "gru",
    "rnn_tanh",
    "rnn_relu",
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "native_layer_norm",
    "native_group_norm",
    "native_batch_norm",
    "native_dropout",
    "conv_tbc",
    "embedding_bag",
    "batch_norm_update_stats",
    "batch_norm_stats",
    "batch_norm_elemt",
    "batch_norm_gather_stats",
    "batch_norm_gather_stats_with_counts",
    "batch_norm_backward_reduce",
    "batch_norm_backward_elemt",
]
