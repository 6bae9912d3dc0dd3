"""The optional compiled loops of framework/ops/_fused.py (numba; issue 17): each gives bitwise
the NumPy path's values (compared with the loops off), matches torch (values, node names,
gradients of a random upstream gradient), and passes gradcheck / gradgradcheck in float64.
Without numba installed the loops are off and these tests check the NumPy path alone (the
comparison with the loops off is then trivially equal), so they never skip."""

import contextlib
import os

import numpy as np
import pytest
import torch.nn.functional as TF

import framework
import framework.nn.functional as F
from framework.autograd import gradcheck, gradgradcheck
from framework.ops import _fused
from tests.helpers import compare_with_torch

RNG = np.random.default_rng(1717)
TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6)}
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 6.0, -6.0, 5.3, -5.3, 1e-40, -1e-40, 30.0, -30.0]


@pytest.fixture
def fused_everywhere(monkeypatch):
    """The compiled loops on every size (they start at _fused.MIN_SIZE elements), so small
    inputs of parity tests and gradcheck take them (not the small-array ufuncs)."""
    monkeypatch.setattr(_fused, "MIN_SIZE", 1)
    monkeypatch.setattr(_fused, "SMALL", 0)


def _big(shape, dtype, scale=3.0):
    a = (RNG.standard_normal(shape) * scale).astype(dtype)
    a.reshape(-1)[: len(SPECIAL)] = SPECIAL
    return a


def _run(fn, arrays, loops):
    """fn's outputs and the gradients of its inputs (upstream gradient the last array), as
    arrays, with the compiled loops on or off."""
    with contextlib.nullcontext() if loops else _fused.disabled():
        leaves = [framework.tensor(a, requires_grad=True) for a in arrays[:-1]]
        out = fn(*leaves)
        out.backward(framework.tensor(arrays[-1]))
        return [out.detach().numpy()] + [t.grad.numpy() for t in leaves]


def _bitwise(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8)) or (
        np.array_equal(a, b, equal_nan=True)
        and np.array_equal(np.signbit(a), np.signbit(b))
        and np.array_equal(np.isnan(a), np.isnan(b))
    )


def test_loops_available_where_numba_is():
    try:
        import numba  # noqa: F401
    except ImportError:
        assert _fused.kernels() is None
    else:  # FRAMEWORK_NUMBA=0 turns them off
        wanted = os.environ.get("FRAMEWORK_NUMBA", "1") != "0"
        assert (_fused.kernels() is not None) == wanted
    with _fused.disabled():
        assert _fused.kernels() is None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_loops_bitwise_numpy_path(dtype):
    x = _big((8, 64, 64), dtype)
    g = RNG.standard_normal(x.shape).astype(dtype)
    on, off = _run(F.gelu, [x, g], True), _run(F.gelu, [x, g], False)
    for a, b in zip(on, off):
        _bitwise(a, b)


@pytest.mark.parametrize("low", [None, -3.5, -3.0, -5.6, np.nan])
def test_gelu_loops_tail_scan_gated_bitwise(low):
    """The erfc tail runs only where the array's NaN-ignoring minimum is below -3: arrays
    with nothing below it (the tail skipped), one element in the tail (among NaN too), one
    at its end points, all give the NumPy path's bits."""
    x = (RNG.standard_normal((8, 64, 64)) * 0.5).clip(-2.9, None).astype("float32")
    if low is not None:
        x.reshape(-1)[1000] = low
        x.reshape(-1)[7] = np.nan
    g = RNG.standard_normal(x.shape).astype("float32")
    on, off = _run(F.gelu, [x, g], True), _run(F.gelu, [x, g], False)
    for a, b in zip(on, off):
        _bitwise(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_loops_match_torch(dtype, fused_everywhere):
    rtol, atol = TOL[dtype]
    x = (RNG.standard_normal((5, 7)) * 3).astype(dtype)
    out, _ = compare_with_torch(F.gelu, TF.gelu, [x], rtol=rtol, atol=atol)
    assert type(out.grad_fn).__name__ == "GeluBackward0"
    big = _big((4, 64, 80), dtype)[..., :]  # past MIN_SIZE without the fixture too
    big[np.isnan(big) | np.isinf(big)] = 1.0
    compare_with_torch(F.gelu, TF.gelu, [big], rtol=rtol, atol=atol)


def test_gelu_loops_gradcheck(fused_everywhere):
    x = framework.tensor(RNG.standard_normal((3, 5)) * 2, requires_grad=True)
    assert gradcheck(F.gelu, (x,))
    assert gradgradcheck(F.gelu, (x,))


def test_gelu_loops_strided_and_broadcast_gradients(fused_everywhere):
    """Non-contiguous inputs and an expanded upstream gradient keep the NumPy path; the
    results are the same either way."""
    x = _big((64, 40), "float32").T  # a transposed view
    for grad in (np.ones((40, 64), np.float32), None):
        with contextlib.nullcontext():
            t = framework.tensor(x, requires_grad=True)
            y = F.gelu(t)
            (y.sum() if grad is None else (y * framework.tensor(grad)).sum()).backward()
        with _fused.disabled():
            u = framework.tensor(x, requires_grad=True)
            z = F.gelu(u)
            (z.sum() if grad is None else (z * framework.tensor(grad)).sum()).backward()
        _bitwise(y.detach().numpy(), z.detach().numpy())
        _bitwise(t.grad.numpy(), u.grad.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "shape, norm, affine",
    [
        ((4, 5, 6), (6,), (True, True)),
        ((3, 4, 5), (4, 5), (True, True)),
        ((7, 6), (6,), (True, False)),
        ((2, 3, 6), (6,), (False, False)),
        ((16, 32, 64), (64,), (True, True)),  # past MIN_SIZE
    ],
)
def test_layer_norm_loops_match_torch(shape, norm, affine, dtype, fused_everywhere):
    rtol, atol = TOL[dtype]
    if dtype == "float32" and len(shape) == 3 and shape[0] > 8:
        # weight/bias gradients sum 512 rows: torch's float32 sums are 1e-5 off the exact
        # ones (the loops accumulate in float64 and are closer; measured against float64)
        rtol, atol = 1e-4, 1e-4
    ins = [(RNG.standard_normal(shape) * 2 + 0.5).astype(dtype)]
    ins += [RNG.standard_normal(norm).astype(dtype) for on in affine if on]
    fw = lambda x, *wb: F.layer_norm(x, norm, *wb)
    th = lambda x, *wb: TF.layer_norm(x, norm, *wb)
    out, _ = compare_with_torch(fw, th, ins, rtol=rtol, atol=atol)
    assert type(out.grad_fn).__name__ == "NativeLayerNormBackward0"


def test_layer_norm_loops_gradcheck(fused_everywhere):
    x = framework.tensor(RNG.standard_normal((3, 4, 5)), requires_grad=True)
    w = framework.tensor(RNG.standard_normal(5), requires_grad=True)
    b = framework.tensor(RNG.standard_normal(5), requires_grad=True)
    fn = lambda x, w, b: F.layer_norm(x, (5,), w, b)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    assert gradcheck(lambda x: F.layer_norm(x, (4, 5)), (x,))


def test_layer_norm_loops_partial_grads_and_fallbacks(fused_everywhere):
    """Weight-only affine, a frozen weight, a non-contiguous input and rows past torch's
    Welford range (which keep the NumPy path) give the same values with the loops off."""
    big = RNG.standard_normal((6, 8)).astype("float32")
    big[2] *= 1e19  # squares overflow float32: torch's moments, via the NumPy path
    cases = [
        (RNG.standard_normal((5, 8)), RNG.standard_normal(8), None, True),
        (RNG.standard_normal((5, 8)), RNG.standard_normal(8), RNG.standard_normal(8), False),
        (RNG.standard_normal((8, 5)).T, None, None, True),
        (big, None, None, True),
    ]
    for x, w, b, w_grad in cases:
        runs = []
        for ctx in (contextlib.nullcontext(), _fused.disabled()):
            with ctx:
                t = framework.tensor(x, requires_grad=True)
                wt = None if w is None else framework.tensor(w, requires_grad=w_grad)
                bt = None if b is None else framework.tensor(b, requires_grad=True)
                y = F.layer_norm(t, (8,) if x.shape[-1] == 8 else (5,), wt, bt)
                y.backward(framework.tensor(np.ones(x.shape, x.dtype)))
                runs.append((y.detach().numpy(), t.grad.numpy()))
        np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(runs[0][1], runs[1][1], rtol=1e-4, atol=1e-5)


def _sdpa(causal, mask=None):
    def fw(q, k, v):
        m = None if mask is None else framework.tensor(mask)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)

    def th(q, k, v):
        import torch

        m = None if mask is None else torch.from_numpy(mask)
        return TF.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)

    return fw, th


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("shape", [(2, 3, 5, 4), (4, 4, 64, 16)])
def test_attention_softmax_loops_match_torch(shape, causal, dtype, fused_everywhere):
    rtol, atol = TOL[dtype]
    ins = [RNG.standard_normal(shape).astype(dtype) for _ in range(3)]
    fw, th = _sdpa(causal)
    out, _ = compare_with_torch(fw, th, ins, rtol=rtol, atol=atol)
    assert type(out.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"


def test_attention_softmax_loops_masked_rows_and_specials(fused_everywhere):
    """A boolean mask with a fully masked row (zeros, logsumexp -inf), inf and NaN scores:
    the same values with the loops off (the max is exact, sums within rounding)."""
    q, k, v = (RNG.standard_normal((2, 2, 6, 3)) for _ in range(3))
    mask = RNG.random((6, 6)) > 0.4
    mask[2] = False
    q[0, 0, 1, 0] = np.inf
    q[1, 1, 4, 2] = np.nan
    runs = []
    for ctx in (contextlib.nullcontext(), _fused.disabled()):
        with ctx:
            ts = [framework.tensor(a) for a in (q, k, v)]
            runs.append(
                F.scaled_dot_product_attention(*ts, attn_mask=framework.tensor(mask)).numpy()
            )
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-12, atol=1e-14, equal_nan=True)
    assert np.isnan(runs[0]).any() and np.isnan(runs[0]).sum() == np.isnan(runs[1]).sum()


def test_attention_softmax_loops_gradcheck(fused_everywhere):
    q, k, v = (
        framework.tensor(RNG.standard_normal((1, 2, 4, 3)), requires_grad=True) for _ in range(3)
    )
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert gradcheck(fn, (q, k, v))
    with pytest.raises(RuntimeError, match="derivative for aten::_scaled_dot_product_flash"):
        gradgradcheck(fn, (q, k, v))  # torch's kernel has no derivative (NotImplemented)


def test_loops_skip_read_only_arrays():
    """Read-only arrays keep the NumPy paths (the loops are compiled for writeable arrays);
    the values are the NumPy path's either way."""
    x = _big((4, 64, 80), "float32")
    x[np.isnan(x) | np.isinf(x)] = 0.5
    ro = x.copy()
    ro.flags.writeable = False
    w = RNG.standard_normal(80).astype("float32")
    w_ro = w.copy()
    w_ro.flags.writeable = False
    for a in (ro,):
        t = framework.from_numpy(a)
        with _fused.disabled():
            ref = [F.gelu(t).numpy(), F.layer_norm(t, (80,)).numpy()]
        got = [F.gelu(t).numpy(), F.layer_norm(t, (80,)).numpy()]
        for r, g in zip(ref, got):
            np.testing.assert_array_equal(r, g)
    t = framework.from_numpy(x)
    np.testing.assert_allclose(
        F.layer_norm(t, (80,), framework.from_numpy(w_ro)).numpy(),
        F.layer_norm(t, (80,), framework.from_numpy(w)).numpy(),
        rtol=1e-6,
        atol=1e-6,
    )
    assert _fused.flat(x.astype(">f4")) is None and _fused.flat(ro) is None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 7), (3, 4, 6), (2048, 96)])
def test_log_softmax_loops_match_torch(shape, dtype, fused_everywhere):
    rtol, atol = TOL[dtype]
    if dtype == "float32" and shape[0] > 1000:
        atol = 1e-5  # (96-term float32 sums, torch's and ours rounded apart)
    x = (RNG.standard_normal(shape) * 3).astype(dtype)
    out, _ = compare_with_torch(
        lambda t: F.log_softmax(t, -1), lambda t: TF.log_softmax(t, -1), [x], rtol=rtol, atol=atol
    )
    assert type(out.grad_fn).__name__ == "LogSoftmaxBackward0"


def test_log_softmax_loops_specials_and_other_dims(fused_everywhere):
    """NaN, inf and -inf rows give torch's NaN pattern and values; a dim other than the last
    keeps the NumPy path."""
    import torch

    x = RNG.standard_normal((6, 9)).astype("float32")
    x[1, 2], x[2], x[3, 4], x[4] = np.nan, -np.inf, np.inf, 1e30
    ours = F.log_softmax(framework.tensor(x), 1).numpy()
    theirs = torch.log_softmax(torch.from_numpy(x), 1).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6, equal_nan=True)
    y = RNG.standard_normal((4, 5, 3))
    compare_with_torch(
        lambda t: F.log_softmax(t, 1), lambda t: TF.log_softmax(t, 1), [y], rtol=1e-10, atol=1e-12
    )


def test_log_softmax_loops_gradcheck(fused_everywhere):
    x = framework.tensor(RNG.standard_normal((3, 5)), requires_grad=True)
    fn = lambda t: F.log_softmax(t, -1)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def _recurrent_layer(kind, dtype, rng):
    """A 2-layer nn.LSTM or nn.GRU (6 -> 8, seeded) run forward and backward on a (5, 3, 6)
    input with a random upstream gradient and the last state's sum: (y, upstream, arrays:
    y, x's and every parameter's gradient)."""
    framework.manual_seed(0)
    layer = getattr(framework.nn, kind)(6, 8, num_layers=2)
    if dtype == "float64":
        layer = layer.double()
    x = framework.tensor(rng.standard_normal((5, 3, 6)).astype(dtype), requires_grad=True)
    y, state = layer(x)
    up = framework.tensor(rng.standard_normal(y.shape).astype(dtype))
    ((y * up).sum() + (state[1] if kind == "LSTM" else state).sum()).backward()
    grads = [y.detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in layer.parameters()]
    return up, grads


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", [{}, {"padding_idx": 3}, {"scale_grad_by_freq": True}])
def test_embedding_rows_add_loop_bitwise_numpy_path(dtype, options):
    """The embedding's backward scatter-add by the compiled loop gives add.at's bits (rows
    summed in the same order; -0.0 gradients and the special values among them)."""
    weight = RNG.standard_normal((50, 33)).astype(dtype)
    idx = RNG.integers(0, 50, (16, 40))
    g = _big((16, 40, 33), dtype)
    g[0, 1] = -0.0

    def fn(w):
        return F.embedding(framework.from_numpy(idx), w, **options)

    on, off = _run(fn, [weight, g], True), _run(fn, [weight, g], False)
    for a, b in zip(on, off):
        _bitwise(a, b)


def test_embedding_rows_add_loop_matches_torch(fused_everywhere):
    import torch

    weight = RNG.standard_normal((7, 5))
    idx = RNG.integers(0, 7, (4, 6))
    g = RNG.standard_normal((4, 6, 5))
    w = framework.tensor(weight, requires_grad=True)
    tw = torch.tensor(weight, requires_grad=True)
    F.embedding(framework.from_numpy(idx), w).backward(framework.tensor(g))
    TF.embedding(torch.from_numpy(idx), tw).backward(torch.tensor(g))
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lstm_grads_loop_bitwise_numpy_path(dtype):
    """The LSTM layer's and fused cell's backward through _fused.lstm_grads_loop: outputs and
    every gradient bitwise the NumPy path's (loops off), with and without an upstream c
    gradient."""
    from framework.ops.rnn_fused import ThnnFusedLstmCell

    def run(loops):
        with contextlib.nullcontext() if loops else _fused.disabled():
            rng = np.random.default_rng(3)
            up, out = _recurrent_layer("LSTM", dtype, rng)
            cell_in = [rng.standard_normal(s).astype(dtype) for s in ((3, 32), (3, 32), (3, 8))]
            cell_in = [framework.tensor(a, requires_grad=True) for a in cell_in]
            h1, c1 = ThnnFusedLstmCell.apply(*cell_in)
            ((h1 * up[0]).sum() + (c1 * up[1]).sum()).backward()
            (h2, _) = ThnnFusedLstmCell.apply(*cell_in)  # no gradient for c'
            (h2 * up[2]).sum().backward()
            return out + [h1.detach().numpy()] + [t.grad.numpy() for t in cell_in]

    for a, b in zip(run(True), run(False)):
        _bitwise(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lstm_gates_loops_bitwise_numpy_path(dtype):
    """rnn_fused.lstm_gates through _fused's cap and gate loops (NumPy's exp and tanh
    between them): i, f, g, o, c', tanh(c') bitwise the NumPy path's, specials included
    (NaN, infinities, gates past exp's cap)."""
    from framework.ops.rnn_fused import _Arrays, lstm_gates

    gates = _big((5, 4 * 7), dtype, scale=40.0)
    c = _big((5, 7), dtype)
    got = lstm_gates(_Arrays(np), gates, c)
    with _fused.disabled():
        want = lstm_gates(_Arrays(np), gates, c)
    assert len(got) == len(want) == 6
    for a, b in zip(got, want):
        _bitwise(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gru_grads_loop_bitwise_numpy_path(dtype):
    """The GRU layer's backward (ThnnFusedGruCell per step) through _fused.gru_grads_loop,
    its hidden n-gate part a strided view: outputs and every gradient bitwise the NumPy
    path's (loops off)."""

    def run(loops):
        with contextlib.nullcontext() if loops else _fused.disabled():
            return _recurrent_layer("GRU", dtype, np.random.default_rng(4))[1]

    for a, b in zip(run(True), run(False)):
        _bitwise(a, b)
