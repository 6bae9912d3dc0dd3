"""torch's CPU sigmoid, softmax and log_softmax (issue 9) bit for bit: Sleef's exp/log and
torch's AVX2 loops replayed by framework/ops/_sleef.py, float32 and float64, forward and
backward (random upstream gradients), every dim, sizes around the lane counts, strided
inputs, specials; the numba kernels and the NumPy replay give the same bits. torch runs on
one thread here (its kernels' tails move with a multi-threaded split, see _sleef)."""

import importlib.util
import os

import numpy as np
import pytest
import torch

import framework
from bits import one_torch_thread, replay_path, same_bits  # noqa: F401 (fixture)
import framework.nn.functional as F
from framework.ops import _sleef

DTYPES = ["float32", "float64"]
SIZES = [1, 7, 8, 9, 15, 16, 17, 31, 33, 1000]
SPECIAL = [-104.0, -103.9, 100.0, 100.1, 88.7, 88.8, -87.4, -0.0, 0.0, 709.8, -745.2, 1e-40]


def _replay(numba):
    """Run the block on the numba kernels or the NumPy replay."""
    return replay_path(_sleef._JIT, numba)


_same = same_bits


def _data(shape, dtype, seed, scale=4.0, special=True):
    x = np.asarray(np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)
    if special and x.size > 4:
        x.reshape(-1)[:3] = [-np.inf, 30.0, -30.0]
    return x


MODES = [True, False]


@pytest.mark.parametrize("numba", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sigmoid_bits(dtype, numba):
    x = _data(20011, dtype, 1, 20.0)
    x[: len(SPECIAL) + 3] = SPECIAL + [np.inf, -np.inf, np.nan]
    with _replay(numba):
        for n in [0, *SIZES, 20011]:
            out = framework.sigmoid(framework.tensor(x[:n])).numpy()
            _same(out, torch.sigmoid(torch.from_numpy(x[:n])).numpy())
        _same(
            framework.sigmoid(framework.tensor(x[5])).numpy(),
            torch.sigmoid(torch.tensor(x[5])).numpy(),
        )


VIEWS = [
    lambda a: a.T,
    lambda a: a[:, ::2],
    lambda a: a[:, :37],
    lambda a: a[::3, 5:150],
    lambda a: a[:, 3:19].T,
    lambda a: a.reshape(10, 20, 100).permute(2, 0, 1)[:, 1:, ::3],
    lambda a: a.reshape(10, 20, 100)[:, 2:5],
]


@pytest.mark.parametrize("numba", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("view", range(len(VIEWS)))
def test_sigmoid_strided_inputs(view, dtype, numba):
    """torch's TensorIterator walks a strided input in its memory order: contiguous inner
    rows keep the vector loop (and a tail each), other strides run the scalar loop."""
    a = _data((100, 200), dtype, 2, 20.0)
    fv, tv = VIEWS[view](framework.tensor(a)), VIEWS[view](torch.from_numpy(a))
    with _replay(numba):
        _same(framework.sigmoid(fv).numpy(), torch.sigmoid(tv).numpy())


def _shapes():
    rows = [(5, n) for n in SIZES]
    return [
        (),
        (7,),
        (33,),
        (1000,),
        (5, 1),
        (3, 5, 7),
        (2, 4, 9),
        (2, 3, 17),
        (2, 9, 33, 3),
        *rows,
    ]


CASES = [(s, d) for s in _shapes() for d in range(max(len(s), 1))]


@pytest.mark.parametrize("numba", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", CASES, ids=[f"{s}-{d}" for s, d in CASES])
def test_softmax_bits_and_gradients(shape, dim, fn, dtype, numba):
    """Values and the gradient for a random upstream gradient, every dim (the lastdim and
    the strided kernels), with -inf and large values in the rows."""
    x = _data(shape, dtype, 3)
    g = _data(shape, dtype, 4, 1.0, special=False)
    xt = torch.from_numpy(x).requires_grad_()
    yt = getattr(torch, fn)(xt, dim)
    yt.backward(torch.from_numpy(g))
    with _replay(numba):
        xf = framework.tensor(x, requires_grad=True)
        yf = getattr(framework, fn)(xf, dim)
        yf.backward(framework.tensor(g))
    _same(yf.detach().numpy(), yt.detach().numpy())
    _same(xf.grad.numpy(), xt.grad.numpy())
    assert type(yf.grad_fn).__name__ == type(yt.grad_fn).__name__


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_specials_and_strided_input(fn, dtype):
    """NaN and +inf rows, all -inf rows, huge values, -0; a transposed (non-contiguous)
    input, which torch makes contiguous first."""
    x = _data((6, 12), dtype, 5, 50.0)
    x[0, 3] = np.nan
    x[1, 5] = np.inf
    x[2] = -np.inf
    x[3, :4] = [3e38 if dtype == "float32" else 1e308, -0.0, 0.0, -3e38]
    x[4] = -0.0
    for t in (x, x.T):
        for dim in (0, 1):
            ref = getattr(torch, fn)(torch.from_numpy(t), dim).numpy()
            _same(getattr(framework, fn)(framework.tensor(t), dim).numpy(), ref)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7, 10), (33, 9), (64, 17), (5, 3, 4)])
def test_cross_entropy_losses_and_gradients(shape, dtype):
    """cross_entropy over its log_softmax: the logits' gradients and the per-row losses are
    torch's bits; 'sum' and 'mean' within their last bits where nll_loss adds the rows in
    another order (its own reduction, not this kernel's)."""
    x = _data(shape, dtype, 6, 3.0, special=False)
    t = np.random.default_rng(7).integers(0, shape[1], (shape[0],) + shape[2:])
    for kwargs in ({}, {"reduction": "sum"}, {"reduction": "none"}):
        xt = torch.from_numpy(x).requires_grad_()
        lt = torch.nn.functional.cross_entropy(xt, torch.from_numpy(t), **kwargs)
        g = _data(lt.shape, dtype, 8, 1.0, special=False)
        lt.backward(torch.from_numpy(g))
        xf = framework.tensor(x, requires_grad=True)
        lf = F.cross_entropy(xf, framework.tensor(t), **kwargs)
        lf.backward(framework.tensor(g))
        _same(xf.grad.numpy(), xt.grad.numpy())
        if kwargs.get("reduction") == "none":  # per-row losses: torch's bits
            _same(lf.detach().numpy(), lt.detach().numpy())
        else:
            np.testing.assert_allclose(lf.detach().numpy(), lt.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy_label_smoothing_log_probabilities(dtype):
    """The label-smoothing path's log-probabilities are torch's log_softmax: the loss with
    'none' reduction matches within the composition's last bits (torch sums its terms in
    another order), the log_softmax itself bit for bit."""
    x = _data((9, 11), dtype, 9, 3.0, special=False)
    t = np.random.default_rng(10).integers(0, 11, 9)
    ref = torch.nn.functional.cross_entropy(
        torch.from_numpy(x), torch.from_numpy(t), label_smoothing=0.1, reduction="none"
    )
    out = F.cross_entropy(
        framework.tensor(x), framework.tensor(t), label_smoothing=0.1, reduction="none"
    )
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6 if dtype == "float32" else 1e-14)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sleef_exp_log_numba_and_numpy_agree(dtype):
    """Sleef's exp and log: the compiled functions and the NumPy replay give the same bits
    over the whole range (specials, subnormals, the cut-offs)."""
    j = _sleef._jit()
    if j is None:  # numba off or absent: the replay alone, on values it must give exactly
        assert os.environ.get("FRAMEWORK_NUMBA") == "0" or importlib.util.find_spec("numba") is None
        x = np.array([0.0, -np.inf, np.inf, np.nan, -1100.0], dtype)
        _same(_sleef.exp_np(x), np.array([1.0, 0.0, np.inf, np.nan, 0.0], dtype))
        y = np.array([1.0, 0.0, np.inf, np.nan], dtype)
        _same(_sleef.log_np(y), np.array([0.0, -np.inf, np.inf, np.nan], dtype))
        return
    r = np.random.default_rng(11)
    x = np.concatenate([r.standard_normal(5000) * 300, r.uniform(-110, 110, 5000), SPECIAL])
    x = np.concatenate([x, [np.inf, -np.inf, np.nan]]).astype(dtype)
    out = np.empty_like(x)
    j.exp_array(x, out)
    _same(out, _sleef.exp_np(x))
    pos = np.abs(x)
    pos[:5] = [0.0, 1e-42, 1e-310 if dtype == "float64" else 1e-45, 1.0, np.inf]
    j.log_array(pos, out)
    _same(out, _sleef.log_np(pos))
    _same(_sleef.log_np(np.asarray(-1.0, dtype)), np.asarray(np.nan, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sleef_exp_matches_torch_softmax_of_pairs(dtype):
    """exp(d) itself is visible as softmax([d, 0]) * (1 + exp(d)) is not; a cleaner probe is
    log_softmax's sum: softmax over [0, d] with d < 0 gives 1 / (1 + exp(d)) and exp(d) / (1
    + exp(d)), so equal bits there over 4000 values check Sleef's exp in torch's own use."""
    d = -np.abs(np.random.default_rng(12).standard_normal(4000) * 20).astype(dtype)
    x = np.stack([np.zeros_like(d), d], 1)
    _same(
        framework.softmax(framework.tensor(x), 1).numpy(),
        torch.softmax(torch.from_numpy(x), 1).numpy(),
    )


def test_half_softmax_keeps_its_float32_math():
    """float16 ops compute in float32 and round once (their own torch kernels): the replay
    is for float32/float64 arrays only."""
    x = _data((4, 9), "float32", 13, special=False)
    out = framework.softmax(framework.tensor(x).half(), 1)
    ref = torch.softmax(torch.from_numpy(x).half(), 1)
    np.testing.assert_allclose(out.float().numpy(), ref.float().numpy(), atol=1e-3)


@pytest.mark.parametrize("numba", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 1000, 20011])
def test_silu_bits_and_gradient(n, dtype, numba):
    """silu: x / (1 + exp(-x)) with Sleef's exp in torch's two-vector body, the C library's
    in its tail; its backward dy s (1 + x (1 - s)) with the multiply-add contracted."""
    x = _data(n, dtype, 14, 10.0)
    x[: min(n, 6)] = [0.0, -0.0, -104.0, 100.0, 88.7, -745.2][: min(n, 6)]
    g = _data(n, dtype, 15, 1.0, special=False)
    xt = torch.from_numpy(x).requires_grad_()
    yt = torch.nn.functional.silu(xt)
    yt.backward(torch.from_numpy(g))
    with _replay(numba):
        xf = framework.tensor(x, requires_grad=True)
        yf = F.silu(xf)
        yf.backward(framework.tensor(g))
    _same(yf.detach().numpy(), yt.detach().numpy())
    _same(xf.grad.numpy(), xt.grad.numpy())
    assert type(yf.grad_fn).__name__ == "SiluBackward0"


@pytest.mark.parametrize("numba", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("view", range(len(VIEWS)))
def test_silu_strided_inputs(view, dtype, numba):
    a = _data((100, 200), dtype, 16, 20.0)
    fv, tv = VIEWS[view](framework.tensor(a)), VIEWS[view](torch.from_numpy(a))
    with _replay(numba):
        _same(F.silu(fv).numpy(), torch.nn.functional.silu(tv).numpy())
