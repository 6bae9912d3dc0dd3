"""The LSTM layer's per-step compiled loops (rnn_fused._LayerLoops: the pre-activation sum
with the exp's cap in one pass, the step's output gradient added inside the gate-gradient
loop): outputs and every gradient bitwise the NumPy path's (loops off), across the layouts
the layer meets (batch_first, so a strided output gradient; no biases; both directions;
given states; gradients of only some outputs), and the values of torch's nn.LSTM. Without
numba both runs take the NumPy path, so the comparison still runs (no skips)."""

import contextlib

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused, rnn_fused

CASES = [
    {},
    {"batch_first": True},
    {"bias": False},
    {"bidirectional": True, "batch_first": True},
    {"num_layers": 2, "bias": False, "bidirectional": True},
]


def _bitwise(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True)
    assert np.array_equal(np.signbit(a), np.signbit(b))


def _run(lib, options, dtype, state, which, loops=True):
    """An nn.LSTM (seeded weights) forward and backward on a (3, 5, 4) input: the outputs
    and the gradients of the input, the states and the parameters, as arrays."""
    rng = np.random.default_rng(7)
    tensor = lib.tensor
    layer = lib.nn.LSTM(4, 6, **{"num_layers": 1, **options})
    with lib.no_grad():
        for p in layer.parameters():
            p.copy_(tensor(rng.uniform(-0.6, 0.6, tuple(p.shape))))
    layer = layer.double() if dtype == "float64" else layer
    x = tensor(rng.standard_normal((3, 5, 4)).astype(dtype), requires_grad=True)
    d = 2 if options.get("bidirectional") else 1
    shape = (options.get("num_layers", 1) * d, 3 if options.get("batch_first") else 5, 6)
    h0 = tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
    c0 = tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
    with contextlib.nullcontext() if loops else _fused.disabled():
        y, (h, c) = layer(x, (h0, c0)) if state else layer(x)
        parts = {"y": y, "h": h, "c": c}
        loss = sum((parts[k] * tensor(rng.standard_normal(parts[k].shape))).sum() for k in which)
        loss.backward()
    leaves = [x] + ([h0, c0] if state else []) + list(layer.parameters())
    return [t.detach().numpy() for t in (y, h, c)] + [t.grad.numpy() for t in leaves]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", CASES)
@pytest.mark.parametrize(("state", "which"), [(False, "y"), (True, "yhc"), (True, "c")])
def test_layer_loops_bitwise_numpy_path_and_torch(dtype, options, state, which):
    got = _run(framework, options, dtype, state, which)
    for a, b in zip(got, _run(framework, options, dtype, state, which, loops=False)):
        _bitwise(a, b)
    want = _run(torch, options, dtype, state, which)
    tol = {"float32": 2e-5, "float64": 1e-12}[dtype]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_layer_loops_only_for_one_numpy_float_dtype():
    """The per-layer check: NumPy arrays of one float32/float64 dtype (None skipped)."""
    f32, f64 = np.zeros((2, 3), np.float32), np.zeros((2, 3))
    on = _fused.kernels() is not None
    assert (rnn_fused.layer_loops(f32, None, f32) is not None) == on
    assert rnn_fused.layer_loops(f32, f64) is None
    assert rnn_fused.layer_loops(np.zeros((2, 3), np.float16)) is None
    assert rnn_fused.layer_loops(None) is None
    with _fused.disabled():
        assert rnn_fused.layer_loops(f32) is None


class _NumpyGates(rnn_fused._Arrays):
    """The arrays path with the layer loops' sigmoid (the cells' is torch's kernel)."""

    sigmoid = rnn_fused._Arrays.numpy_sigmoid


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_layer_step_gates_specials_bitwise_numpy_path(dtype, bias):
    """One step's gates through _LayerLoops.gates (sum, cap, exp of the i/f/o blocks only)
    against the NumPy path's additions and lstm_gates, specials included (NaN, infinities,
    gates past exp's cap)."""
    rng = np.random.default_rng(11)
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 100.0, -100.0, 800.0, -800.0, 1e-40]
    mm = (rng.standard_normal((5, 4 * 7)) * 40).astype(dtype)
    mm.reshape(-1)[::3][: len(special)] = special
    x = (rng.standard_normal((5, 4 * 7)) * 3).astype(dtype)
    b = (rng.standard_normal(4 * 7) * 3).astype(dtype) if bias else None
    c = (rng.standard_normal((5, 7)) * 3).astype(dtype)
    c.reshape(-1)[: len(special)] = special
    want_gates = mm + x if b is None else (mm + x) + b
    with _fused.disabled():  # (the layer's formula: torch's float32 layer is oneDNN's)
        want = rnn_fused.lstm_gates(_NumpyGates(np), want_gates, c)
    loops = rnn_fused.layer_loops(mm, c)
    got = want if loops is None else loops.gates(mm.copy(), x, b, c)
    assert len(got) == len(want) == 6
    for a, w in zip(got, want):
        _bitwise(a, w)
