"""Fused LSTM and GRU cell steps (torch's _thnn_fused_lstm_cell / _thnn_fused_gru_cell).

One node per step instead of about a dozen: the forward runs on arrays and keeps the gate
activations; the backward is a few array expressions. Under create_graph the same formulas
run on Tensors rebuilt from the inputs, so higher derivatives stay exact.
"""

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op
from ..tensor import Tensor
from .._fma import fused
from . import _fused, _sleef, _vml
from .activation import sigmoid, tanh
from .join import cat


class _Arrays:
    """The array forms of the few functions the cell formulas need."""

    def __init__(self, xp):
        self.xp = xp

    def sigmoid(self, x):
        """torch's cells call sigmoid_ on the gates' chunks: its kernel's values (x a view
        as torch's chunk: each row's vector body and tail)."""
        if type(x) is np.ndarray and x.dtype.char in "fd" and x.dtype.isnative:
            return _sleef.sigmoid(x)
        return self.numpy_sigmoid(x)

    def numpy_sigmoid(self, x):
        """1 / (1 + e^-x) with -x capped below exp's overflow: one exp, no warnings (the
        compiled layer loops' formula)."""
        cap = {2: 11.0, 4: 88.0}.get(x.dtype.itemsize, 700.0)
        return 1 / (1 + self.xp.exp(self.xp.minimum(-x, cap)))

    def tanh(self, x):
        return _vml.unary("tanh", x, self.xp.tanh)  # torch's cells call tanh: MKL's VML

    def cat(self, xs):
        return self.xp.concatenate(xs, axis=1)

    def zeros_like(self, x):
        return self.xp.zeros_like(x)


class _Tensors:
    sigmoid, tanh = staticmethod(sigmoid), staticmethod(tanh)

    @staticmethod
    def cat(xs):
        return cat(xs, 1)

    @staticmethod
    def zeros_like(x):
        return x * 0


def lstm_gates(k, gates, c):
    """(i, f, g, o, c', tanh(c')) from pre-activation gates (N, 4H) in torch's i, f, g, o order."""
    n = gates.shape[1] // 4
    i, f = k.sigmoid(gates[:, :n]), k.sigmoid(gates[:, n : 2 * n])
    g, o = k.tanh(gates[:, 2 * n : 3 * n]), k.sigmoid(gates[:, 3 * n :])
    c_new = f * c + i * g
    return i, f, g, o, c_new, k.tanh(c_new)


def _lstm_grads(k, acts, c, grad_h, grad_c, out=None):
    """(gate gradients (N, 4H), c's gradient) of one step; on arrays the compiled loop writes
    the gate gradients into `out` where given (the caller checks what came back)."""
    i, f, g, o, _, tc = acts
    if grad_h is None:
        grad_h = k.zeros_like(tc)
    if isinstance(k, _Arrays):
        fused = _fused_lstm_grads(k.xp, (i, f, g, o, tc, c, grad_h), grad_c, out)
        if fused is not None:
            return fused
    dc = grad_h * o * _one_minus_square(k, tc)  # through h' = o tanh(c')
    if grad_c is not None:
        dc = dc + grad_c
    grad_gates = k.cat(  # (torch's graph of the cell: mul's, then sigmoid_backward's
        [  # grad * (1 - y) * y and tanh_backward's grad * (1 - y^2))
            dc * g * (1 - i) * i,
            dc * c * (1 - f) * f,
            dc * i * _one_minus_square(k, g),
            grad_h * tc * (1 - o) * o,
        ]
    )
    return grad_gates, dc * f


def _one_minus_square(k, y):
    """1 - y^2 as torch's tanh_backward forms it: one fused multiply-add on arrays (_fma);
    on the graph path the Tensor ops."""
    if isinstance(k, _Arrays):
        return fused(-y, y, y.dtype.type(1))
    return 1 - y * y


def _fused_kernels_for(arrays, contiguous=True):
    """_fused's kernels when `arrays` are 2-D NumPy arrays of one float32/float64 dtype and
    shape (C-contiguous where asked), else None."""
    k = _fused.kernels()
    first = arrays[0]
    if k is None or type(first) is not k.ndarray or first.ndim != 2 or first.dtype.char not in "fd":
        return None
    for a in arrays:
        if type(a) is not k.ndarray or a.dtype != first.dtype or a.shape != first.shape:
            return None
        if contiguous and not a.flags.c_contiguous:
            return None
    return k


def _fused_gru_grads(xp, arrays):
    """_gru_grads' formulas in one compiled loop (_fused: the same operations in the same
    order, so the same values); None where it does not run. hn may be a strided view."""
    k = _fused_kernels_for(arrays[:3] + arrays[4:]) and _fused_kernels_for(arrays, False)
    if k is None:
        return None
    n, h = arrays[0].shape
    gx, gh = xp.empty((n, 3 * h), arrays[0].dtype), xp.empty((n, 3 * h), arrays[0].dtype)
    gz = xp.empty_like(arrays[0])
    k.gru_grads(*arrays, gx, gh, gz)
    return gx, gh, gz


def _fused_lstm_grads(xp, arrays, grad_c, out=None):
    """_lstm_grads' formulas in one compiled loop (_fused: the same operations in the same
    order, so the same values), for C-contiguous NumPy arrays of one float32/float64 dtype and
    shape; None where it does not run (no numba, other arrays). The gate gradients go into
    `out` where given (C-contiguous, (N, 4H), their dtype)."""
    k = _fused_kernels_for(arrays + (() if grad_c is None else (grad_c,)))
    if k is None:
        return None
    first = arrays[0]
    n, h = first.shape
    if out is None or out.shape != (n, 4 * h) or out.dtype != first.dtype:
        out = xp.empty((n, 4 * h), first.dtype)
    dcf = xp.empty_like(first)
    gh = arrays[-1]
    gc = gh if grad_c is None else grad_c
    k.lstm_grads(*arrays[:-1], gh, gh, gc, True, False, grad_c is not None, out, dcf)
    return out, dcf


class _LayerLoops:
    """_fused's loops over the steps of one LSTM layer (rnn_layer's arrays path), its arrays
    checked once for the layer (NumPy, one float32/float64 dtype) and its constants made
    once: the same operations in the same order as lstm_gates and _lstm_grads."""

    def __init__(self, k, dtype):
        self.k = k
        self.cap = np.asarray([88.0 if dtype.itemsize == 4 else 700.0], dtype)
        self.one = np.ones(1, dtype)

    def gates(self, gates, x, b, c):
        """lstm_gates of gates + x (+ b), gates a fresh (N, 4H) product (overwritten)."""
        n, h = c.shape
        e = np.empty((n, 3 * h), gates.dtype)
        self.k.lstm_pre(gates, x, gates[0] if b is None else b, b is not None, self.cap, e)
        np.exp(e, out=e)
        g = _vml.unary("tanh", gates[:, 2 * h : 3 * h], np.tanh)
        i, f, o, cn = np.empty((4,) + c.shape, c.dtype)
        self.k.lstm_gates(e, g, c, self.one, i, f, o, cn)
        return i, f, g, o, cn, _vml.unary("tanh", cn, np.tanh)

    def grads(self, acts, c, dh, go, dc, out):
        """(gate gradients into out, c's gradient) of one step; dh + go is h's gradient."""
        i, f, g, o, _, tc = acts
        dcf = np.empty_like(c)
        none = dh if dh is not None else go if go is not None else c
        self.k.lstm_grads(
            i,
            f,
            g,
            o,
            tc,
            c,
            none if dh is None else dh,
            none if go is None else go,
            c if dc is None else dc,
            dh is not None,
            go is not None,
            dc is not None,
            out,
            dcf,
        )
        return out, dcf


def layer_loops(*arrays):
    """A _LayerLoops where _fused's kernels run on `arrays` (None entries skipped): NumPy
    arrays of one float32/float64 dtype; else None (the generic formulas run)."""
    k = _fused.kernels()
    arrays = [a for a in arrays if a is not None]
    if k is None or not arrays:
        return None
    dt = arrays[0].dtype
    if dt.char not in "fd" or not dt.isnative:
        return None
    if any(type(a) is not k.ndarray or a.dtype != dt for a in arrays):
        return None
    return _LayerLoops(k, dt)


class ThnnFusedLstmCell(Op):
    """(x_gates, h_gates (N, 4H), c (N, H)) -> (h', c'); x_gates = x W_ih^T + b_ih and
    h_gates = h W_hh^T + b_hh are summed inside (one node per step)."""

    saves_inputs = True
    saves = ("acts",)

    def forward(self, x_gates, h_gates, c):
        self.acts = lstm_gates(_Arrays(self.xp), h_gates + x_gates, c)
        return self.acts[3] * self.acts[5], self.acts[4]

    def backward(self, grad_h, grad_c):
        x_gates, h_gates, c = self.inputs
        if is_grad_enabled():  # create_graph: the same formulas on a differentiable graph
            acts = lstm_gates(_Tensors, h_gates + x_gates, c)
            grad_gates, grad_c0 = _lstm_grads(_Tensors, acts, c, grad_h, grad_c)
            return grad_gates, grad_gates, grad_c0
        dev = (grad_h if grad_h is not None else grad_c).device
        grad_gates, grad_c0 = _lstm_grads(
            _Arrays(self.xp),
            self.acts,
            c._data,
            None if grad_h is None else grad_h._data,
            None if grad_c is None else grad_c._data,
        )
        grad_gates = Tensor._make(grad_gates, dev)
        return grad_gates, grad_gates, Tensor._make(grad_c0, dev)

    jvp = Op.jvp_transpose


def gru_gates(k, x_gates, h_gates, h):
    """(r, z, n, h_n part, h') for input/hidden gates (N, 3H) in torch's r, z, n order."""
    m = h.shape[1]
    if isinstance(k, _Arrays):  # torch adds into the hidden gates' chunks, then sigmoid_
        s = h_gates + x_gates  # on each (N, H) view of the (N, 3H) sum: its rows' vector
        r, z = k.sigmoid(s[:, :m]), k.sigmoid(s[:, m : 2 * m])  # bodies and tails
    else:  # the same: sigmoid of (N, H) views of rows 2H long (torch's rows 3H long)
        s = x_gates[:, : 2 * m] + h_gates[:, : 2 * m]
        r, z = k.sigmoid(s[:, :m]), k.sigmoid(s[:, m:])
    hn = h_gates[:, 2 * m :]
    n = k.tanh(x_gates[:, 2 * m :] + r * hn)
    return r, z, n, hn, (h - n) * z + n


def _gru_grads(k, acts, h, grad):
    r, z, n, hn, _ = acts
    if isinstance(k, _Arrays):
        fused = _fused_gru_grads(k.xp, (r, z, n, hn, h, grad))
        if fused is not None:
            return fused
    gz = grad * z  # torch's graph of the cell: n's gradient is grad (the last add) plus
    dn = (grad - gz) * _one_minus_square(k, n)  # -(grad z) (from h - n), then tanh_backward
    dr = dn * hn * (1 - r) * r  # sigmoid_backward: grad * (1 - y) * y
    dz = grad * (h - n) * (1 - z) * z
    return k.cat([dr, dz, dn]), k.cat([dr, dz, dn * r]), gz


class ThnnFusedGruCell(Op):
    """(x_gates, h_gates, h) -> h'; x_gates = x W_ih^T + b_ih, h_gates = h W_hh^T + b_hh."""

    saves_inputs = True
    saves = ("acts",)

    def forward(self, x_gates, h_gates, h):
        self.acts = gru_gates(_Arrays(self.xp), x_gates, h_gates, h)
        return self.acts[4]

    def backward(self, grad):
        x_gates, h_gates, h = self.inputs
        if is_grad_enabled():
            return _gru_grads(_Tensors, gru_gates(_Tensors, x_gates, h_gates, h), h, grad)
        raw = _gru_grads(_Arrays(self.xp), self.acts, h._data, grad._data)
        return tuple(Tensor._make(a, grad.device) for a in raw)

    jvp = Op.jvp_transpose
