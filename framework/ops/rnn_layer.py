"""One whole LSTM layer (one direction) as a single node, as torch's oneDNN kernel records it
for float32 on the CPU (MkldnnRnnLayerBackward0).

float32 arrays where numba is: oneDNN's own arithmetic replayed (_dnnl_rnn_jit; its
inference forward without grad, its reference RNN's training forward and backward with
grad). Otherwise forward steps through time on arrays and keeps the gate activations;
backward runs backpropagation through time on arrays with one matmul per step, then forms
the weight gradients with one matmul over all steps. Under create_graph the same loops run
on Tensors rebuilt from the inputs, so higher derivatives stay exact.
"""

from functools import partial

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op
from ..tensor import Tensor
from .join import stack
from . import _fused, _mkl
from ._mkl_linear import mkl_any_size
from .linalg import matmul
from .rnn_fused import _Arrays, _Tensors, _lstm_grads, layer_loops, lstm_gates


class _ArrayLinalg(_Arrays):
    def mm(self, a, b):
        """a @ b: MKL's gemm where loaded and the product is large enough (see _mkl: a step's
        32 x 128 by 128 x 512 float32 product 40 us against OpenBLAS's 48, its backward's
        32 x 512 by 512 x 128 34 against 50), else NumPy's."""
        if self.xp is not np:
            return a @ b
        with mkl_any_size(a.shape[0] * a.shape[1] * b.shape[1]):  # torch's bits at any size
            out = _mkl.gemm(a, b)
        return a @ b if out is None else out

    def t(self, a):
        return a.T

    def sigmoid(self, x):
        """torch's float32 layer is oneDNN's RNN primitive (replayed where numba is; this is
        the path without numba): the formula of the compiled layer loops (_LayerLoops), so
        both paths agree; float64 torch's kernel."""
        if x.dtype == np.float32:
            return self.numpy_sigmoid(x)
        return super().sigmoid(x)

    def t_packed(self, a):
        """a.T, C-contiguous: the B operand of every step's product. OpenBLAS multiplies a few
        rows by a C-contiguous B a third faster than by the transposed view (same bits: only
        its packing of B differs)."""
        return self.xp.ascontiguousarray(a.T)

    def stack(self, xs):
        return self.xp.stack(xs)

    @staticmethod
    def add_(a, b):
        """a + b, into a (a fresh product: no other holder) where the dtypes agree."""
        if a.dtype != b.dtype:
            return a + b
        a += b
        return a

    def steps_out(self, n, like, width):
        """An empty (n, rows of like, width) array in like's dtype: backward's gate gradients
        are written into it step by step (no stack of the steps' arrays afterwards)."""
        return self.xp.empty((n, like.shape[0], width), like.dtype)

    layer_loops = staticmethod(layer_loops)


class _TensorLinalg(_Tensors):
    mm = staticmethod(matmul)

    @staticmethod
    def t(a):
        return a.t()

    t_packed = t  # (the graph records the transpose torch's math path records)

    @staticmethod
    def stack(xs):
        return stack(xs, 0)

    @staticmethod
    def add_(a, b):
        return a + b  # (recorded: AddBackward0)

    @staticmethod
    def steps_out(n, like, width):
        return None  # (a graph: the steps' gradients are stacked)

    @staticmethod
    def layer_loops(*arrays):
        """No compiled layer loops on the graph path (the formulas are recorded)."""
        return None  # (a graph: the formulas are recorded)


def _dnnl_kernels():
    """_dnnl_rnn_jit where numba is (and FRAMEWORK_NUMBA is not 0), else None."""
    if _DNNL[0] is None:
        _DNNL[0] = False
        if _fused.kernels() is not None:  # (numba importable and allowed)
            try:
                from . import _dnnl_rnn_jit

                _DNNL[0] = _dnnl_rnn_jit
            except ImportError:
                pass
    return _DNNL[0] or None


_DNNL = [None]


def _dnnl_forward(j, x, w_ih, w_hh, b_ih, b_hh, h, c, reverse, training=False):
    """_forward on float32 arrays as oneDNN's LSTM primitive computes it (_dnnl_rnn_jit: its
    product chains, bias and gate kernels): torch's bits. Same returns as _forward.
    training: forward_training's reference RNN, whose products are oneDNN's nocopy sgemm
    (the layer's over the steps in the order the direction walks them)."""
    t_len, n, f = x.shape
    hid = w_hh.shape[1]
    f32 = np.float32
    w_ih_t = np.ascontiguousarray(w_ih.T)
    w_hh_t = np.ascontiguousarray(w_hh.T)
    bias = np.zeros(4 * hid, f32) if b_ih is None else (b_ih + b_hh).astype(f32, copy=False)
    gx = np.empty((t_len * n, 4 * hid), f32)
    if training:
        walked = x[::-1] if reverse else x  # (the right-to-left direction's copy)
        _sgemm(j, np.ascontiguousarray(walked).reshape(t_len * n, f), w_ih_t, gx, False)
        gx = gx.reshape(t_len, n, 4 * hid)
        if reverse:
            gx = gx[::-1]
    else:
        j.gemm_chain(np.ascontiguousarray(x).reshape(t_len * n, f), w_ih_t, gx, False)
        gx = gx.reshape(t_len, n, 4 * hid)
    merged = not training and f == hid and n > 1  # one chain over [x_t, h], the input's
    #                              continued by the state's (measured: not at batch 1)
    steps = range(t_len - 1, -1, -1) if reverse else range(t_len)
    outs, saved = [None] * t_len, [None] * t_len
    hw = np.empty((n, 4 * hid), f32)
    h = np.ascontiguousarray(h, f32)
    c = np.ascontiguousarray(c, f32)
    for t in steps:
        if training:
            _sgemm(j, h, w_hh_t, gx[t], True)
        elif merged:
            j.gemm_chain(h, w_hh_t, gx[t], True)
        else:
            j.gemm_chain(h, w_hh_t, hw, False)
        acts = np.empty((6, n, hid), f32)
        j.lstm_cell(gx[t], hw, bias, not (merged or training), c, j.TANH_TABLE, *acts)
        saved[t] = (h, c, tuple(acts))
        h, c = acts[3] * acts[5], acts[4]
        outs[t] = h
    return outs, saved, h, c


def _dnnl_replay(k, x, w_ih, w_hh, b_ih, b_hh, h, c, inference):
    """_dnnl_rnn_jit where the layer is replayed as oneDNN computes it (float32 arrays and
    numba), else None."""
    j = _dnnl_kernels() if isinstance(k, _ArrayLinalg) and k.xp is np else None
    if j is None or not all(
        a is None or (type(a) is np.ndarray and a.dtype == np.float32)
        for a in (x, w_ih, w_hh, b_ih, b_hh, h, c)
    ):
        return None
    return j


def _sgemm(j, a, b, out, accumulate, trans_b=False):
    """out (+)= a @ b as oneDNN's sgemm computes C (b's columns, a's rows) with inner size
    a's columns: its nocopy kernel's tiles where nocopy_checker takes it (k blocks of 256,
    96 where B is transposed: the weights' gradients), else the copy-based kernel."""
    tiles = j.sgemm_is_nocopy(b.shape[1], a.shape[0], a.shape[1], trans_b)
    j.sgemm(a, b, out, accumulate, 96 if trans_b and tiles else 256, tiles)


def _forward(k, x, w_ih, w_hh, b_ih, b_hh, h, c, reverse, inference=False, j=None):
    """Steps of the layer; returns (outputs list in time order, per-step (h_prev, c_prev, acts)).
    inference: torch runs oneDNN's forward_inference (grad mode off), else forward_training;
    j (_dnnl_replay's): both replayed on float32 arrays."""
    if j is not None:
        return _dnnl_forward(j, x, w_ih, w_hh, b_ih, b_hh, h, c, reverse, not inference)
    x_proj = k.mm(x.reshape(-1, x.shape[-1]), k.t(w_ih)).reshape(x.shape[:2] + (-1,))
    if b_ih is not None:
        x_proj = k.add_(x_proj, b_ih)
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    outs, saved = [None] * x.shape[0], [None] * x.shape[0]
    w_hh_t = k.t_packed(w_hh)
    fast = k.layer_loops(x_proj, w_hh_t, b_hh, h, c)  # (compiled loops: arrays of one dtype)
    for t in steps:
        if fast is not None:
            acts = fast.gates(k.mm(h, w_hh_t), x_proj[t], b_hh, c)
        else:
            gates = k.add_(k.mm(h, w_hh_t), x_proj[t])
            if b_hh is not None:
                gates = k.add_(gates, b_hh)
            acts = lstm_gates(k, gates, c)
        saved[t] = (h, c, acts)
        h, c = acts[3] * acts[5], acts[4]
        outs[t] = h
    return outs, saved, h, c


def _dnnl_backward(j, _, x, w_ih, w_hh, saved, g_out, g_h, g_c, reverse, has_bias):
    """_backward on float32 arrays as oneDNN's reference RNN computes it: each step's gate
    gradients by its backward postgemm and the recurrent gradient by its sgemm, walking the
    direction's steps from the last; then the input's gradient and both weights' over every
    step at once (sgemm, the weights' on zeros with beta 1), the bias's summed step by step."""
    t_len, n, f = x.shape
    hid = w_hh.shape[1]
    f32 = np.float32
    walk = list(range(t_len - 1, -1, -1)) if reverse else list(range(t_len))
    zeros = np.zeros((n, hid), f32)
    dh = zeros if g_h is None else np.ascontiguousarray(g_h, f32)
    dc = zeros if g_c is None else np.ascontiguousarray(g_c, f32)
    d_gates = np.empty((t_len, n, 4 * hid), f32)  # in walked order
    grad_b = np.zeros(4 * hid, f32)
    w_hh_c = np.ascontiguousarray(w_hh)
    for s in range(t_len - 1, -1, -1):
        t = walk[s]
        h_prev, c_prev, acts = saved[t]
        dy = zeros if g_out is None else np.ascontiguousarray(g_out[t], f32)
        dc_prev = np.empty((n, hid), f32)
        j.lstm_cell_backward(
            acts[0], acts[1], acts[2], acts[3], acts[5], c_prev, dh, dy, dc, d_gates[s], dc_prev
        )
        dh = np.empty((n, hid), f32)
        _sgemm(j, d_gates[s], w_hh_c, dh, False)
        dc = dc_prev
        j.bias_sum(d_gates[s], grad_b)
    flat = d_gates.reshape(t_len * n, 4 * hid)
    grad_x = np.empty((t_len * n, f), f32)
    _sgemm(j, flat, np.ascontiguousarray(w_ih), grad_x, False)
    grad_x = grad_x.reshape(t_len, n, f)
    if reverse:
        grad_x = grad_x[::-1]
    walked_x = (x[::-1] if reverse else x).reshape(t_len * n, f)
    h_prev = np.stack([saved[t][0] for t in walk]).reshape(t_len * n, hid)
    grad_w_ih = np.zeros((f, 4 * hid), f32)
    _sgemm(j, np.ascontiguousarray(walked_x.T), flat, grad_w_ih, True, True)
    grad_w_hh = np.zeros((hid, 4 * hid), f32)
    if reverse:
        _sgemm(j, np.ascontiguousarray(h_prev.T), flat, grad_w_hh, True, True)
    else:
        _sgemm(j, np.ascontiguousarray(h_prev[n:].T), flat[n:], grad_w_hh, True, True)
        _sgemm(j, np.ascontiguousarray(h_prev[:n].T), flat[:n], grad_w_hh, True, True)
    grad_b = grad_b if has_bias else None
    return (
        np.ascontiguousarray(grad_x),
        np.ascontiguousarray(grad_w_ih.T),
        np.ascontiguousarray(grad_w_hh.T),
        grad_b,
        grad_b,
        dh,
        dc,
    )


def _backward(k, x, w_ih, w_hh, saved, g_out, g_h, g_c, reverse, has_bias):
    """Backpropagation through time; returns grads of (x, w_ih, w_hh, b_ih, b_hh, h0, c0)."""
    n = len(saved)
    dh, dc = g_h, g_c
    d_gates = [None] * n
    buf = k.steps_out(n, saved[0][2][0], w_hh.shape[0]) if n else None
    fast = k.layer_loops(saved[0][2][0], w_hh, g_out, g_h, g_c) if n else None
    for t in range(n) if reverse else range(n - 1, -1, -1):
        if fast is not None:  # (the step's output gradient added inside the loop)
            go = None if g_out is None else g_out[t]
            d_gates[t], dc = fast.grads(saved[t][2], saved[t][1], dh, go, dc, buf[t])
            dh = k.mm(d_gates[t], w_hh)
            continue
        if g_out is not None:
            dh = g_out[t] if dh is None else dh + g_out[t]
        h_prev, c_prev, acts = saved[t]
        out = None if buf is None else buf[t]
        d_gates[t], dc = _lstm_grads(k, acts, c_prev, dh, dc, out)
        if out is not None and d_gates[t] is not out:  # (not the compiled loop's)
            out[...] = d_gates[t]
        dh = k.mm(d_gates[t], w_hh)
    dg = buf if buf is not None else k.stack(d_gates)
    flat = dg.reshape(-1, dg.shape[-1])
    h_prev = k.stack([s[0] for s in saved])
    grad_x = k.mm(flat, w_ih).reshape(x.shape)
    grad_w_ih = k.mm(k.t(flat), x.reshape(-1, x.shape[-1]))
    grad_w_hh = k.mm(k.t(flat), h_prev.reshape(-1, h_prev.shape[-1]))
    grad_b = flat.sum(0) if has_bias else None
    return grad_x, grad_w_ih, grad_w_hh, grad_b, grad_b, dh, dc


class MkldnnRnnLayer(Op):
    """(x (T, N, F), w_ih, w_hh, b_ih, b_hh, h0, c0) -> (output (T, N, H), h_T, c_T)."""

    saves_inputs = True
    saves = ("steps",)

    def forward(self, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=False, inference=False):
        """The layer over x's T steps (reversed where `reverse`); `inference`: oneDNN's
        forward_inference replay (grad mode off), else the training forward."""
        self.reverse = reverse
        k = _ArrayLinalg(self.xp)
        self.dnnl = _dnnl_replay(k, x, w_ih, w_hh, b_ih, b_hh, h0, c0, inference)
        outs, self.steps, h, c = _forward(
            k, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, inference, self.dnnl
        )
        return self.xp.stack(outs), h, c

    def backward(self, g_out, g_h, g_c):
        x, w_ih, w_hh, b_ih, b_hh, h0, c0 = self.inputs
        has_bias = b_ih is not None
        if is_grad_enabled():  # create_graph: the same loops on a differentiable graph
            _, steps, _, _ = _forward(
                _TensorLinalg, x, w_ih, w_hh, b_ih, b_hh, h0, c0, self.reverse
            )
            return _backward(
                _TensorLinalg, x, w_ih, w_hh, steps, g_out, g_h, g_c, self.reverse, has_bias
            )
        ref = next(g for g in (g_out, g_h, g_c) if g is not None)
        dnnl = self.dnnl is not None
        raw = (partial(_dnnl_backward, self.dnnl) if dnnl else _backward)(
            None if dnnl else _ArrayLinalg(self.xp),
            x._data,
            w_ih._data,
            w_hh._data,
            self.steps,
            *(None if g is None else g._data for g in (g_out, g_h, g_c)),
            self.reverse,
            has_bias,
        )
        return tuple(None if a is None else Tensor._make(a, ref.device) for a in raw)

    jvp = Op.jvp_transpose


def lstm_layer(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse=False):
    """A full (unpacked) LSTM layer in one node: returns (outputs, (h_T, c_T))."""
    out, h, c = MkldnnRnnLayer.apply(
        x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=reverse, inference=not is_grad_enabled()
    )
    return out, (h, c)
