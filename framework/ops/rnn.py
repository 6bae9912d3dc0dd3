"""Recurrent cells and the layer loop behind nn.RNN / nn.LSTM / nn.GRU (torch's RNN.cpp order).

Each layer projects the whole input sequence once (x @ W_ih^T + b_ih), then steps the cell
through time; packed sequences shrink (forward) or grow (reverse) the batch step by step.
"""

from .activation import relu, tanh
from .join import cat, stack
from ._mkl_linear import linear_mkl as linear
from .rnn_layer import lstm_layer
from .rnn_fused import ThnnFusedGruCell, ThnnFusedLstmCell, _Tensors, gru_gates, lstm_gates


def rnn_tanh_cell(x_proj, h, w_hh, b_hh):
    """h' = tanh(h @ W_hh^T + b_hh + x_proj), x_proj the input already projected."""
    return tanh(linear(h, w_hh, b_hh) + x_proj)


def rnn_relu_cell(x_proj, h, w_hh, b_hh):
    """h' = relu(h @ W_hh^T + b_hh + x_proj)."""
    return relu(linear(h, w_hh, b_hh) + x_proj)


def lstm_cell(x_proj, hc, w_hh, b_hh, w_hr=None):
    """Gates i, f, g, o (torch's order); c' = f c + i g, h' = o tanh(c') (then h' W_hr^T)."""
    h, c = hc
    i, f, g, o, c, tc = lstm_gates(_Tensors, linear(h, w_hh, b_hh) + x_proj, c)
    h = o * tc
    return (h if w_hr is None else _project(h, w_hr)), c


def gru_cell(x_proj, h, w_hh, b_hh):
    """Gates r, z, n (torch's order): n = tanh(x_n + r (h W_hn + b_hn)), h' = (h - n) z + n."""
    return gru_gates(_Tensors, x_proj, linear(h, w_hh, b_hh), h)[4]


def fused_lstm_cell(x_proj, hc, w_hh, b_hh, w_hr=None):
    """lstm_cell as one ThnnFusedLstmCell node per step (the layer loop's fast path)."""
    h, c = ThnnFusedLstmCell.apply(x_proj, linear(hc[0], w_hh, b_hh), hc[1])
    return (h if w_hr is None else _project(h, w_hr)), c


def _project(h, w_hr):
    """h W_hr^T, torch's matmul of the (N, H) state: an mm, MKL's at any size."""
    return linear(h, w_hr)


def fused_gru_cell(x_proj, h, w_hh, b_hh):
    """gru_cell as one ThnnFusedGruCell node per step."""
    return ThnnFusedGruCell.apply(x_proj, linear(h, w_hh, b_hh), h)


CELLS = {
    "RNN_TANH": rnn_tanh_cell,
    "RNN_RELU": rnn_relu_cell,
    "LSTM": fused_lstm_cell,
    "GRU": fused_gru_cell,
}  # (the fused nodes' backward is the cells' graph's: torch's bits for every gradient)


def _map(fn, hidden):
    return tuple(fn(x) for x in hidden) if isinstance(hidden, tuple) else fn(hidden)


def _out(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _cat_hidden(parts):
    if isinstance(parts[0], tuple):
        return tuple(cat([p[k] for p in parts], 0) for k in range(len(parts[0])))
    return cat(parts, 0)


def _full_layer(cell, x_proj, hidden, args, reverse):
    """x_proj (T, N, G): returns (outputs (T, N, H), final hidden)."""
    steps = x_proj.unbind(0)
    outs = []
    for x_t in reversed(steps) if reverse else steps:
        hidden = cell(x_t, hidden, *args)
        outs.append(_out(hidden))
    if reverse:
        outs.reverse()
    return stack(outs, 0), hidden


def _packed_layer(cell, x_proj, hidden, args, batch_sizes):
    """Forward over packed rows: finished sequences leave the batch and keep their state."""
    finished, outs, offset, last = [], [], 0, batch_sizes[0]
    for b in batch_sizes:
        x_t = x_proj[offset : offset + b]
        offset += b
        if b < last:
            finished.append(_map(lambda t: t[b:last], hidden))
            hidden = _map(lambda t: t[:b], hidden)
        last = b
        hidden = cell(x_t, hidden, *args)
        outs.append(_out(hidden))
    finished.append(hidden)
    finished.reverse()
    return cat(outs, 0), _cat_hidden(finished)


def _reversed_packed_layer(cell, x_proj, hidden0, args, batch_sizes):
    """Backward over packed rows: sequences join the batch (with their initial state) when
    their last step comes."""
    offset, last = x_proj.shape[0], batch_sizes[-1]
    hidden = _map(lambda t: t[:last], hidden0)
    outs = []
    for b in reversed(batch_sizes):
        if b > last:
            hidden = _cat_hidden([hidden, _map(lambda t: t[last:b], hidden0)])
        x_t = x_proj[offset - b : offset]
        offset -= b
        last = b
        hidden = cell(x_t, hidden, *args)
        outs.append(_out(hidden))
    outs.reverse()
    return cat(outs, 0), hidden


def rnn_forward(
    mode,
    input,
    hx,
    weights,
    num_layers,
    dropout_p,
    training,
    bidirectional,
    batch_sizes=None,
    dropout_fn=None,
):
    """The whole stack (torch's _VF.rnn_tanh / lstm / gru): input (T, N, F) or packed rows.

    weights: per layer and direction (w_ih, w_hh, b_ih, b_hh, w_hr), biases/w_hr maybe None.
    hx: (layers*dirs, N, H) tensor, or an (h, c) pair for LSTM.
    Returns (output, h_n) or (output, (h_n, c_n)) for LSTM.
    """
    cell = CELLS[mode]
    dirs = 2 if bidirectional else 1
    lstm = mode == "LSTM"
    finals = []
    layer_input = input
    # torch's float32 LSTM runs oneDNN's RNN primitive (at::mkldnn_rnn_layer) on the CPU,
    # unpacked or packed with one batch size at every step (a packed input it then runs as
    # the unpacked (T, N, F) sequence); its layers with projections run the cells
    one_dnn = (
        lstm
        and input.dtype.name == "float32"
        and (batch_sizes is None or min(batch_sizes) == max(batch_sizes))
    )
    for layer in range(num_layers):
        outputs = []
        for d in range(dirs):
            k = layer * dirs + d
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[k]
            h0 = (hx[0][k], hx[1][k]) if lstm else hx[k]
            args = (w_hh, b_hh, w_hr) if lstm else (w_hh, b_hh)
            if lstm and one_dnn and w_hr is None:  # torch's oneDNN path: one node
                x = layer_input
                if batch_sizes is not None:  # packed rows, every step the same batch
                    x = x.reshape(len(batch_sizes), batch_sizes[0], x.shape[-1])
                out, h = lstm_layer(x, h0[0], h0[1], w_ih, w_hh, b_ih, b_hh, d == 1)
                if batch_sizes is not None:
                    out = out.reshape(-1, out.shape[-1])
                outputs.append(out)
                finals.append(h)
                continue
            x_proj = linear(layer_input, w_ih, b_ih)
            if batch_sizes is None:
                out, h = _full_layer(cell, x_proj, h0, args, reverse=d == 1)
            elif d == 0:
                out, h = _packed_layer(cell, x_proj, h0, args, batch_sizes)
            else:
                out, h = _reversed_packed_layer(cell, x_proj, h0, args, batch_sizes)
            outputs.append(out)
            finals.append(h)
        layer_input = outputs[0] if dirs == 1 else cat(outputs, outputs[0].dim() - 1)
        if dropout_p != 0 and training and layer < num_layers - 1:
            layer_input = dropout_fn(layer_input, dropout_p, True)
    if lstm:
        return layer_input, (stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0))
    return layer_input, stack(finals, 0)
