"""float32 nn.LSTM with grad mode on is torch's bits (eighteenth pass).

torch 2.13 runs a float32 LSTM layer on the CPU through oneDNN's reference RNN
(forward_training and backward, node MkldnnRnnLayerBackward0). Its products are oneDNN's
sgemm: the nocopy kernel's tiles (16/8 rows of C by 6 columns, one FMA chain, even/odd
chains, rounded products in 1-2 column tails), its gemv kernels for a single row or
column, the copy-based kernel (one chain per 256 k) where nocopy_checker declines; the gate
gradients are jit_uni_lstm_cell_postgemm_bwd's. framework/ops/_dnnl_rnn_jit replays them
(numba), rnn_layer._dnnl_forward/_dnnl_backward drive them.

Before this pass (972fafa..e418f9e), 60 random programs: outputs apart in 51, every gradient
in 52 or more. Every output and gradient is compared bit for bit with torch on one thread
(tests/cpu_pin.py's pin), with random upstream gradients on the output, h_n and c_n."""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused

pytestmark = pytest.mark.skipif(
    _fused.kernels() is None, reason="the replay of oneDNN's kernels is compiled by numba"
)


@pytest.fixture(autouse=True)
def _one_thread():
    """torch (and oneDNN's sgemm) on one thread: its blocking depends on the thread count."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _pair(i, h, seed, **kw):
    torch.manual_seed(seed)
    t = torch.nn.LSTM(i, h, **kw)
    f = framework.nn.LSTM(i, h, **kw)
    f.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return f, t


def _run(lib, m, x, state, ups):
    """Outputs, h_n, c_n and every gradient (input, initial state, parameters)."""
    xx = lib.tensor(x, requires_grad=True)
    st = None if state is None else tuple(lib.tensor(s, requires_grad=True) for s in state)
    y, (hn, cn) = m(xx, st)
    loss = sum((a * lib.tensor(u)).sum() for a, u in zip((y, hn, cn), ups, strict=True))
    loss.backward()
    got = [y, hn, cn, xx.grad] + ([] if st is None else [s.grad for s in st])
    got += [p.grad for p in m.parameters()]
    return [g.detach().numpy() for g in got], type(y.grad_fn).__name__


def _compare(i, h, t, n, seed, state=False, **kw):
    f, tm = _pair(i, h, seed, **kw)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, t, i) if kw.get("batch_first") else (t, n, i)).astype("f4")
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    st = None
    if state:
        st = [rng.standard_normal((layers, n, h)).astype("f4") for _ in range(2)]
    out_shape = (n, t, h) if kw.get("batch_first") else (t, n, h)
    out_shape = out_shape[:2] + (h * (2 if kw.get("bidirectional") else 1),)
    ups = [rng.standard_normal(s).astype("f4") for s in (out_shape, (layers, n, h), (layers, n, h))]
    got, node = _run(framework, f, x, st, ups)
    want, _ = _run(torch, tm, x, st, ups)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    return node


@pytest.mark.parametrize("seed", range(16))
def test_float32_lstm_training_is_onednns_bits(seed):
    """Random layers (sizes 1-40, 1-8 steps and rows, 1-2 layers, bidirectional,
    batch_first, bias, given initial states): outputs and every gradient."""
    rng = np.random.default_rng(18_000 + seed)
    i, h = (int(v) for v in rng.integers(1, 41, 2))
    t, n = (int(v) for v in rng.integers(1, 9, 2))
    kw = {
        "num_layers": int(rng.integers(1, 3)),
        "bidirectional": bool(rng.integers(0, 2)),
        "batch_first": bool(rng.integers(0, 2)),
        "bias": bool(rng.integers(0, 4) > 0),
    }
    _compare(i, h, t, n, seed, state=bool(rng.integers(0, 2)), **kw)


@pytest.mark.parametrize(
    "i,h,t,n,kw",
    [
        (300, 8, 3, 2, {}),  # the inner size in two blocks (nocopy: 150 + 150)
        (8, 8, 16, 8, {}),  # 128 columns of C: blocks of 48, 40, 40; weight gradients'
        #                      inner size 128: two blocks of 96's rule (64 + 64)
        (5, 5, 20, 7, {"bidirectional": True}),  # 8-row tails of C, right-to-left walk
        (3, 40, 10, 10, {}),  # C of 3 rows (the input's gradient)
        (1, 1, 5, 1, {"num_layers": 2}),  # one row and one column: gemv kernels
        (2, 1, 6, 5, {}),  # C of one row: the transposed gemv kernel's lanes
        (32, 128, 20, 32, {}),  # 512 x 640 x 32: the copy-based kernel
    ],
)
def test_float32_lstm_training_at_kernel_edges(i, h, t, n, kw):
    """Sizes that take each of oneDNN's sgemm paths: torch's bits, node MkldnnRnnLayer."""
    node = _compare(i, h, t, n, 0, state=True, **kw)
    assert node == ("CatBackward0" if kw.get("bidirectional") else "MkldnnRnnLayerBackward0")


def test_nocopy_checker_thresholds():
    """oneDNN's nocopy_checker_avx2 at one thread (B plain, then transposed)."""
    from framework.ops import _dnnl_rnn_jit as j

    assert j.sgemm_is_nocopy(512, 32, 128)  # 1/m + 1/n >= 0.0038
    assert not j.sgemm_is_nocopy(512, 2048, 32)  # the benchmark's layer product
    assert j.sgemm_is_nocopy(512, 2048, 2)  # k <= 2
    assert not j.sgemm_is_nocopy(600, 600, 400)  # m and k >= 378
    assert j.sgemm_is_nocopy(512, 1, 4096)  # a single column: gemv
    assert not j.sgemm_is_nocopy(512, 640, 2, True)  # B transposed: k <= 1 only
    assert j.sgemm_is_nocopy(128, 100, 2, True)


def test_float32_lstm_double_backward_keeps_the_graph_path():
    """create_graph on a float32 layer: the recorded cells (a differentiable graph), whose
    first derivatives agree with the replay's to float32 rounding."""
    f, _ = _pair(3, 4, 0)
    x = framework.randn(5, 2, 3, requires_grad=True)
    y = f(x)[0].pow(2).sum()
    (g,) = framework.autograd.grad(y, x, create_graph=True)
    (g_replay,) = framework.autograd.grad(f(x)[0].pow(2).sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), g_replay.numpy(), rtol=1e-4, atol=1e-5)
    (gg,) = framework.autograd.grad(g.sum(), x)
    assert gg.shape == x.shape and np.isfinite(gg.numpy()).all()
