"""Recurrent layers' gradients and LSTMCell at batch 1 are torch's bits (seventeenth pass).

- LSTMCell at batch 1: the gate chunks of a one-row gate sum are C-contiguous, and
  `_sleef.sigmoid` ran them through a compiled function whose result array carried a float32
  dtype that is another object than NumPy's; the next step's `Sigmoid` then missed its
  `dtype is float32` test and ran NumPy's formula. Fixed at both ends.
- GRU and LSTM layers: the fused cell nodes' backward forms the gate gradients in the order
  of torch's autograd graph of RNN.cpp's GRUCell / LSTMCell (mul's, sigmoid_backward's
  grad * (1 - y) * y, tanh_backward's 1 - y^2 as one FMA, GRU's n gradient g - g z); the
  weights' gradients were already summed step by step by the engine. The float32 LSTM layer
  with grad on stays oneDNN's training kernels (not replayed; README); with grad off its
  forward_inference is replayed (_dnnl_rnn_jit).
- torch's linear on a non-contiguous 3-D input (a batch_first layer's input) is matmul's mm,
  then the bias added: other float64 bits than addmm's.
- LSTM projections: h W_hr^T by MKL at any size.

Sizes are drawn per test from a seeded generator (1 to 11); every output and gradient is
compared bit for bit with torch on one thread (tests/cpu_pin.py's pin)."""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused, _mkl, _sleef, _sum_kernel

pytestmark = pytest.mark.skipif(
    _sum_kernel.vector_bytes() is None or not _mkl.available() or _fused.kernels() is None,
    reason="replays of torch's AVX2 kernels and MKL's products (compiled by numba)",
)


@pytest.fixture(autouse=True)
def _one_thread():
    """torch on one thread, as the framework's MKL products (bits depend on the split)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _pair(kind, i, h, seed, dtype, **kw):
    torch.manual_seed(seed)
    t = getattr(torch.nn, kind)(i, h, **kw).to(getattr(torch, dtype))
    f = getattr(framework.nn, kind)(i, h, **kw, dtype=getattr(framework, dtype))
    f.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return f, t


def _run(lib, m, kind, x, seed, lens=None):
    xx = lib.tensor(x, requires_grad=True)
    if kind == "LSTMCell":
        state, ys = None, []
        for s in range(x.shape[0]):
            state = m(xx[s], state)
            ys.append(state[0])
        y = lib.stack(ys)
    elif lens is not None:
        packed = lib.nn.utils.rnn.pack_padded_sequence(
            xx, lib.tensor(lens), batch_first=m.batch_first, enforce_sorted=False
        )
        y = m(packed)[0].data
    else:
        y = m(xx)[0]
    up = np.random.default_rng(seed).standard_normal(tuple(y.shape)).astype(x.dtype)
    y.backward(lib.tensor(up))
    grads = [p.grad.numpy() for p in m.parameters()]
    return [y.detach().numpy(), xx.grad.numpy()] + grads


def _draw(seed, dtype, batch=None, batch_first=False, packed=False):
    rng = np.random.default_rng(seed)
    i, h, t, n = (int(v) for v in rng.integers(1, 12, 4))
    n = batch or n
    x = rng.standard_normal((n, t, i) if batch_first else (t, n, i)).astype(dtype)
    lens = None
    if packed:
        lens = [int(v) for v in rng.integers(1, t + 1, n)]
        lens[0] = t
    return i, max(h, 2), x, lens


def _assert_bits(got, want):
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(8))
def test_lstm_cell_batch_one_sequences(seed, dtype):
    """Outputs and every gradient of a multi-step LSTMCell sequence at batch 1 (was: from
    the second step, 33 of 40 float32 programs apart)."""
    i, h, x, _ = _draw(17_100 + seed, dtype, batch=1)
    f, t = _pair("LSTMCell", i + 1, h, seed, dtype)  # (input size 1 at batch 1: see README)
    x = np.concatenate([x, x[..., :1]], -1)
    _assert_bits(_run(framework, f, "LSTMCell", x, seed), _run(torch, t, "LSTMCell", x, seed))


def test_sigmoid_of_a_one_row_chunk_keeps_numpys_dtype():
    """The compiled hot path's result has NumPy's float32 dtype object (identity tests on
    it downstream pick torch's kernels)."""
    g = np.random.default_rng(0).standard_normal((1, 40)).astype(np.float32)
    for view in (g[:, :10], g[:, 10:20], g):
        assert _sleef.sigmoid(view).dtype is np.dtype(np.float32)
    s = framework.sigmoid(framework.tensor(g)[:, 10:20])
    assert s._data.dtype is np.dtype(np.float32)


_CONFIGS = [
    {},
    {"bias": False},
    {"bidirectional": True},
    {"num_layers": 2},
    {"batch_first": True},
    {"packed": True},
    {"packed": True, "bidirectional": True},
    {"batch": 1},
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cfg", _CONFIGS, ids=lambda c: "-".join(c) or "plain")
@pytest.mark.parametrize("seed", range(3))
def test_gru_layer_gradients(seed, cfg, dtype):
    """The GRU layer's outputs and every gradient (was: every gradient apart in 8 of 8
    programs of every configuration)."""
    cfg = dict(cfg)
    packed, batch = cfg.pop("packed", False), cfg.pop("batch", None)
    i, h, x, lens = _draw(17_200 + seed, dtype, batch, cfg.get("batch_first", False), packed)
    f, t = _pair("GRU", i, h, seed, dtype, **cfg)
    _assert_bits(_run(framework, f, "GRU", x, seed, lens), _run(torch, t, "GRU", x, seed, lens))


@pytest.mark.parametrize("cfg", _CONFIGS, ids=lambda c: "-".join(c) or "plain")
@pytest.mark.parametrize("seed", range(3))
def test_float64_lstm_layer_gradients(seed, cfg):
    """The float64 LSTM layer (torch's cells, not oneDNN): outputs and every gradient."""
    cfg = dict(cfg)
    packed, batch = cfg.pop("packed", False), cfg.pop("batch", None)
    i, h, x, lens = _draw(17_300 + seed, "float64", batch, cfg.get("batch_first", False), packed)
    f, t = _pair("LSTM", i, h, seed, "float64", **cfg)
    _assert_bits(_run(framework, f, "LSTM", x, seed, lens), _run(torch, t, "LSTM", x, seed, lens))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_lstm_with_projections(seed, layers, dtype):
    """LSTM with proj_size (torch's cells in float32 too): outputs and every gradient."""
    i, h, x, _ = _draw(17_400 + seed, dtype)
    kw = {"num_layers": layers, "bidirectional": layers == 2}
    f, t = _pair("LSTM", i, h, seed, dtype, proj_size=h // 2 or 1, **kw)
    _assert_bits(_run(framework, f, "LSTM", x, seed), _run(torch, t, "LSTM", x, seed))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_of_a_non_contiguous_sequence(dtype):
    """torch's linear of a transposed (T, N, F) input (a weight that requires grad): an mm
    of the copied rows, then the bias added (AddBackward0), not addmm."""
    rng = np.random.default_rng(17)
    from framework.ops._mkl_linear import linear_mkl

    for n, t_, i, o in [(2, 11, 2, 18), (6, 2, 3, 30), (5, 9, 7, 48)]:
        x = rng.standard_normal((n, t_, i)).astype(dtype)
        w = rng.standard_normal((o, i)).astype(dtype)
        b = rng.standard_normal(o).astype(dtype)
        tw, tb = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
        want = torch.nn.functional.linear(torch.tensor(x).transpose(0, 1), tw, tb)
        fw, fb = framework.tensor(w, requires_grad=True), framework.tensor(b, requires_grad=True)
        got = linear_mkl(framework.tensor(x).transpose(0, 1), fw, fb)
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
        assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__ == "AddBackward0"


@pytest.mark.parametrize("lens", [[4], [1, 1, 1], [3, 3]])
def test_packed_float32_lstm_with_one_batch_size_is_onednns_layer(lens):
    """torch runs packed rows with one batch size at every step through oneDNN's layer
    (profiled: at::mkldnn_rnn_layer); ours through its one-node layer, the same class."""
    m = framework.nn.LSTM(3, 5)
    x = framework.randn(max(lens), len(lens), 3, requires_grad=True)
    packed = framework.nn.utils.rnn.pack_padded_sequence(x, framework.tensor(lens))
    out = m(packed)[0].data
    names, todo = set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and type(node).__name__ not in names:
            names.add(type(node).__name__)
            todo.extend(n for n, _ in node.next_functions)
    assert "MkldnnRnnLayerBackward0" in names
    t = torch.nn.LSTM(3, 5)
    tx = torch.randn(max(lens), len(lens), 3)
    with torch.autograd.profiler.profile() as prof:
        t(torch.nn.utils.rnn.pack_padded_sequence(tx, torch.tensor(lens)))
    assert "aten::mkldnn_rnn_layer" in {e.name for e in prof.function_events}


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_fused_cell_layers_gradcheck(kind):
    """The layers' fused cell nodes (hand-written backward in the graph's order): gradcheck
    and gradgradcheck in float64."""
    m = getattr(framework.nn, kind)(2, 3, dtype=framework.float64)
    x = framework.randn(3, 2, 2, dtype=framework.float64, requires_grad=True)
    assert framework.autograd.gradcheck(lambda v: m(v)[0], (x,))
    assert framework.autograd.gradgradcheck(lambda v: m(v)[0], (x,))


@pytest.mark.parametrize(
    "cfg",
    _CONFIGS[:5] + [{"batch": 1}, {"batch": 1, "num_layers": 2}],
    ids=lambda c: "-".join(c) or "plain",
)
@pytest.mark.parametrize("seed", range(3))
def test_float32_lstm_layer_without_grad_is_onednns_inference(seed, cfg):
    """Grad mode off: torch's oneDNN forward_inference, replayed (_dnnl_rnn_jit): outputs,
    h_n and c_n bit for bit (input size equal to the hidden size included: its merged
    chain; at batch 1 the unmerged one)."""
    cfg = dict(cfg)
    batch = cfg.pop("batch", None)
    i, h, x, _ = _draw(17_500 + seed, "float32", batch, cfg.get("batch_first", False))
    for size in (i, h):  # (the second: input size == hidden size)
        xs = np.resize(x, x.shape[:2] + (size,)).astype(np.float32)
        f, t = _pair("LSTM", size, h, seed, "float32", **cfg)
        with framework.no_grad(), torch.no_grad():
            (fo, (fh, fc)), (to, (th, tc)) = f(framework.tensor(xs)), t(torch.tensor(xs))
        _assert_bits([fo.numpy(), fh.numpy(), fc.numpy()], [to.numpy(), th.numpy(), tc.numpy()])


def test_float32_lstm_layer_without_grad_at_a_model_size():
    """nn.LSTM(32, 128, 2) on (16, 8, 32) without grad: torch's bits (longer chains)."""
    f, t = _pair("LSTM", 32, 128, 0, "float32", num_layers=2)
    x = np.random.default_rng(17).standard_normal((16, 8, 32)).astype(np.float32)
    with framework.no_grad(), torch.no_grad():
        (fo, (fh, fc)), (to, (th, tc)) = f(framework.tensor(x)), t(torch.tensor(x))
    _assert_bits([fo.numpy(), fh.numpy(), fc.numpy()], [to.numpy(), th.numpy(), tc.numpy()])


def test_onednn_gate_kernels_against_their_formulas():
    """_dnnl_rnn_jit's logistic and tanh at the kernels' edges: saturation, the linear range
    of tanh, zeros and infinities (tanh odd, logistic(-x) = 1 - logistic(x) there)."""
    from numba import njit

    from framework.ops import _dnnl_rnn_jit as J

    @njit
    def both(x, table):
        a, b = np.empty_like(x), np.empty_like(x)
        for k in range(x.size):
            a[k], b[k] = J.dnnl_logistic(x[k]), J.dnnl_tanh(x[k], table)
        return a, b

    x = np.array([0.0, -0.0, 1e-4, -1e-4, 9.1, -9.1, 100, -100, np.inf, -np.inf], np.float32)
    s, th = both(x, J.TANH_TABLE)
    np.testing.assert_array_equal(th[:4], x[:4])  # below the linear bound: x itself
    np.testing.assert_array_equal(th[4:], np.sign(x[4:]))  # saturated
    np.testing.assert_array_equal(s[[0, 1, 6, 7, 8, 9]], [0.5, 0.5, 1, 0, 1, 0])
    y = np.random.default_rng(0).standard_normal(1000).astype(np.float32) * 4
    sy, ty = both(y, J.TANH_TABLE)
    np.testing.assert_allclose(sy, 1 / (1 + np.exp(-y.astype(np.float64))), rtol=3e-7, atol=0)
    np.testing.assert_allclose(ty, np.tanh(y.astype(np.float64)), rtol=3e-7, atol=1e-9)
