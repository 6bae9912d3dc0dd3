"""RNNCell, LSTMCell, GRUCell: one time step, torch's parameter names and gate order."""

import math

from ..creation import empty, zeros
from ..ops import rnn as _rnn
from ..ops._mkl_linear import linear_mkl as linear
from . import init
from .module import Module
from .parameter import Parameter


class RNNCellBase(Module):
    r"""Base class for :class:`RNNCell`, :class:`LSTMCell` and :class:`GRUCell`: creates
    ``weight_ih`` :math:`(G H, H_{in})`, ``weight_hh`` :math:`(G H, H)`, ``bias_ih`` and ``bias_hh``
    :math:`(G H)` for G gates, initialized from :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`, :math:`k =
    1 / \text{hidden\_size}`. Use the subclasses.

    Args:
        input_size (int): the number of expected features in the input :math:`x`.
        hidden_size (int): the number of features in the hidden state :math:`h`.
        bias (bool, optional): use the bias weights :math:`b_{ih}` and :math:`b_{hh}`.
        num_chunks (int): the number of gates G (1 for RNNCell, 4 for LSTMCell, 3 for GRUCell).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Example:
        >>> cell = nn.GRUCell(4, 6)
        >>> isinstance(cell, nn.RNNCellBase), cell.weight_ih.shape
        (True, torch.Size([18, 4]))
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as the constructor does (torch's initialization)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input, hx, n_states):
        """Check dims as torch does; add the batch dim to unbatched input; zeros for hx."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = None if hx is None else (hx if n_states > 1 else (hx,))
        if states is not None:
            for idx, value in enumerate(states):
                if value.dim() not in (1, 2):
                    what = f"hx[{idx}]" if n_states > 1 else "hidden"
                    raise ValueError(
                        f"{name}: Expected {what} to be 1D or 2D, got {value.dim()}D instead"
                    )
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if states is None:
            z = zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            states = (z,) * n_states
        elif not batched:
            states = tuple(s.unsqueeze(0) for s in states)
        return input, states, batched

    def _x_proj(self, input):
        return linear(input, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    r"""An Elman RNN cell with tanh or ReLU non-linearity: one step of :class:`RNN`.

    .. math::
        h' = \tanh(W_{ih} x + b_{ih} + W_{hh} h + b_{hh})

    Args:
        input_size (int): the number of expected features in the input :math:`x`.
        hidden_size (int): the number of features in the hidden state :math:`h`.
        bias (bool, optional): use the bias weights :math:`b_{ih}` and :math:`b_{hh}` (default:
            True).
        nonlinearity (str, optional): ``'tanh'`` or ``'relu'`` (default: ``'tanh'``).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - input: :math:`(N, H_{in})` or :math:`(H_{in})`.
        - hidden: :math:`(N, H_{out})` or :math:`(H_{out})`; zeros if not provided.
        - output: :math:`(N, H_{out})` or :math:`(H_{out})`, the next hidden state.

    Example:
        >>> rnn = nn.RNNCell(10, 20)
        >>> x, hx = framework.randn(6, 3, 10), framework.randn(3, 20)
        >>> for i in range(6):
        ...     hx = rnn(x[i], hx)
        >>> hx.shape
        torch.Size([3, 20])
    """

    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, hx, 1)
        if self.nonlinearity == "tanh":
            cell = _rnn.rnn_tanh_cell
        elif self.nonlinearity == "relu":
            cell = _rnn.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = cell(self._x_proj(input), h, self.weight_hh, self.bias_hh)
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""A long short-term memory (LSTM) cell: one step of :class:`LSTM`.

    .. math::
        \begin{array}{ll}
        i = \sigma(W_{ii} x + b_{ii} + W_{hi} h + b_{hi}) \\
        f = \sigma(W_{if} x + b_{if} + W_{hf} h + b_{hf}) \\
        g = \tanh(W_{ig} x + b_{ig} + W_{hg} h + b_{hg}) \\
        o = \sigma(W_{io} x + b_{io} + W_{ho} h + b_{ho}) \\
        c' = f \odot c + i \odot g \\
        h' = o \odot \tanh(c')
        \end{array}

    The gates (i, f, g, o) are stacked in that order in ``weight_ih`` and ``weight_hh``.

    Args:
        input_size (int): the number of expected features in the input :math:`x`.
        hidden_size (int): the number of features in the hidden state :math:`h`.
        bias (bool, optional): use the bias weights :math:`b_{ih}` and :math:`b_{hh}` (default:
            True).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - input: :math:`(N, H_{in})` or :math:`(H_{in})`.
        - (h_0, c_0): each :math:`(N, H_{out})` or :math:`(H_{out})`; zeros if not provided.
        - output: (h_1, c_1), the next hidden and cell states.

    Example:
        >>> rnn = nn.LSTMCell(10, 20)
        >>> x, hx, cx = framework.randn(2, 3, 10), framework.randn(3, 20), framework.randn(3, 20)
        >>> for i in range(2):
        ...     hx, cx = rnn(x[i], (hx, cx))
        >>> hx.shape, cx.shape
        (torch.Size([3, 20]), torch.Size([3, 20]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hc, batched = self._prepare(input, hx, 2)
        h, c = _rnn.lstm_cell(self._x_proj(input), hc, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    r"""A gated recurrent unit (GRU) cell: one step of :class:`GRU`.

    .. math::
        \begin{array}{ll}
        r = \sigma(W_{ir} x + b_{ir} + W_{hr} h + b_{hr}) \\
        z = \sigma(W_{iz} x + b_{iz} + W_{hz} h + b_{hz}) \\
        n = \tanh(W_{in} x + b_{in} + r \odot (W_{hn} h + b_{hn})) \\
        h' = (1 - z) \odot n + z \odot h
        \end{array}

    Args:
        input_size (int): the number of expected features in the input :math:`x`.
        hidden_size (int): the number of features in the hidden state :math:`h`.
        bias (bool, optional): use the bias weights :math:`b_{ih}` and :math:`b_{hh}` (default:
            True).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - input: :math:`(N, H_{in})` or :math:`(H_{in})`.
        - hidden: :math:`(N, H_{out})` or :math:`(H_{out})`; zeros if not provided.
        - output: :math:`(N, H_{out})` or :math:`(H_{out})`, the next hidden state.

    Example:
        >>> rnn = nn.GRUCell(10, 20)
        >>> rnn(framework.randn(3, 10)).shape
        torch.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, hx, 1)
        ret = _rnn.gru_cell(self._x_proj(input), h, self.weight_hh, self.bias_hh)
        return ret if batched else ret.squeeze(0)
