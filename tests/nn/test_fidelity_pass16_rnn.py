"""Recurrent cells and layers in float32: torch's bits where replayed (the gate products by
MKL at any size, ops/_mkl_linear; GRUCell's r/z sigmoids per row as torch's sigmoid_ on its
gate chunks). The sigmoid/tanh replays follow torch's AVX2 kernels: on a CPU where torch
picks its AVX-512 ones (and ATEN_CPU_CAPABILITY does not say avx2) these tests skip. The
float32 LSTM layer (torch: oneDNN's RNN primitive) and the layers' gradients are not
replayed (see the README)."""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _mkl, _sum_kernel

pytestmark = pytest.mark.skipif(
    _sum_kernel.vector_bytes() is None or not _mkl.available(),
    reason="replays of torch's AVX2 kernels and MKL's products",
)


def _pair(kind, i, h, seed):
    torch.manual_seed(seed)
    t = getattr(torch.nn, kind)(i, h)
    f = getattr(framework.nn, kind)(i, h)
    f.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return f, t


def _run(lib, m, kind, x, up_seed):
    xx = lib.tensor(x, requires_grad=True)
    if kind.endswith("Cell"):
        h, ys = None, []
        for s in range(x.shape[0]):
            h = m(xx[s], h)
            ys.append(h[0] if kind == "LSTMCell" else h)
        y = lib.stack(ys)
    else:
        y = m(xx)[0]
    up = np.random.default_rng(up_seed).standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(lib.tensor(up))
    return [y.detach().numpy(), xx.grad.numpy()] + [p.grad.numpy() for p in m.parameters()]


def _draw(seed):
    rng = np.random.default_rng(seed)
    i, h, t, n = (int(v) for v in rng.integers(1, 20, 4))
    return i, h, rng.standard_normal((t, n, i)).astype(np.float32)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", ["GRUCell", "RNNCell"])
def test_cell_sequences_are_torchs_bits(kind, seed):
    """Outputs and every gradient of a multi-step float32 cell sequence."""
    i, h, x = _draw(16_300 + seed)
    f, t = _pair(kind, i, h, seed)
    got, want = _run(framework, f, kind, x, seed), _run(torch, t, kind, x, seed)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", ["GRU", "RNN"])
def test_layer_outputs_are_torchs_bits(kind, seed):
    """The float32 GRU and RNN layers' outputs (the RNN layer's gradients too)."""
    i, h, x = _draw(16_400 + seed)
    f, t = _pair(kind, i, h, seed)
    got, want = _run(framework, f, kind, x, seed), _run(torch, t, kind, x, seed)
    np.testing.assert_array_equal(got[0], want[0])
    if kind == "RNN":
        for a, b in zip(got[1:], want[1:]):
            np.testing.assert_array_equal(a, b)


def test_gru_cell_records_torchs_nodes():
    f, t = _pair("GRUCell", 3, 5, 0)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    a, b = f(framework.tensor(x)).grad_fn, t(torch.tensor(x)).grad_fn
    assert type(a).__name__ == type(b).__name__ == "AddBackward0"
    names = sorted(type(n).__name__ for n, _ in a.next_functions)
    assert names == sorted(type(n).__name__ for n, _ in b.next_functions)
