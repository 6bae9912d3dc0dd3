"""Branch-free forms of masked selects (issue 17): ReLU/threshold backward as a bit mask
(_fastgrad.zero_where) and max pooling's maxima and first-maximum indices without masked
copies (pooling._max_first). Each bitwise against torch, on random, tied, NaN, inf, -0 and
integer inputs, with gradcheck and gradgradcheck in float64."""

import contextlib

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
import framework.nn.functional as F
from framework.autograd import gradcheck, gradgradcheck
from framework.ops import _fused

RNG = np.random.default_rng(1718)


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("op", ["relu", "threshold"])
def test_relu_threshold_backward_bits_match_torch(op, dtype):
    x = RNG.standard_normal((48, 70)).astype(dtype)
    x[0, :5] = [np.nan, -0.0, 0.0, np.inf, 0.3]
    g = RNG.standard_normal(x.shape).astype(dtype)
    g[1, :4] = [np.nan, np.inf, -np.inf, -0.0]
    grads = []
    for lib in (framework, torch):
        t = lib.from_numpy(x.copy()).requires_grad_()
        fn = (
            lib.nn.functional.relu
            if op == "relu"
            else (lambda a: lib.nn.functional.threshold(a, 0.3, 2.0))
        )
        fn(t).backward(lib.from_numpy(g.copy()))
        grads.append(t.grad.numpy())
    _same_bits(*grads)


def _relu_grad(x, g, loops):
    """x's gradient through relu for upstream g, with _fused's compiled select on or off."""
    with contextlib.nullcontext() if loops else _fused.disabled():
        t = framework.from_numpy(x.copy()).requires_grad_()
        F.relu(t).backward(framework.from_numpy(g.copy()))
        return t.grad.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1,), (16,), (1024,), (32, 128), (128, 512), (3, 5, 7)])
def test_relu_backward_compiled_select_bits(shape, dtype):
    """ReLU's backward as _fused's compiled ufunc (relu_grad, any size): bitwise torch's
    threshold_backward and the NumPy select (loops off), on NaN/inf/-0/0 outputs and
    gradients, random data from several seeds, and transposed (non-contiguous) arrays."""
    for seed in range(4):
        rng = np.random.default_rng([1718, seed, len(shape)])
        x = rng.standard_normal(shape).astype(dtype)
        g = rng.standard_normal(shape).astype(dtype)
        flat_x, flat_g = x.reshape(-1), g.reshape(-1)
        flat_x[: min(6, x.size)] = [np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-40][: min(6, x.size)]
        flat_g[-min(4, g.size) :] = [np.nan, np.inf, -np.inf, -0.0][-min(4, g.size) :]
        for xs, gs in ((x, g), (x.T, g.T)):
            ref = torch.from_numpy(xs.copy()).requires_grad_()
            TF.relu(ref).backward(torch.from_numpy(gs.copy()))
            on, off = _relu_grad(xs, gs, True), _relu_grad(xs, gs, False)
            _same_bits(on, ref.grad.numpy())
            _same_bits(off, ref.grad.numpy())


def test_relu_backward_without_compiled_select(monkeypatch):
    """Where numba could not build relu_grad (None), the NumPy selects give the same bits."""
    x = RNG.standard_normal((32, 128)).astype(np.float32)
    x[0, :3] = [np.nan, -0.0, 0.0]
    g = RNG.standard_normal(x.shape).astype(np.float32)
    want = _relu_grad(x, g, True)
    k = _fused.kernels()
    if k is not None:  # (without numba the NumPy selects are all there is)
        monkeypatch.setattr(k.ufunc, "relu_grad", None)
    for xs, gs in ((x, g), (x[:8, :8], g[:8, :8])):  # above and below 1024 elements
        _same_bits(_relu_grad(xs, gs, True), want[: xs.shape[0], : xs.shape[1]])


def test_relu_backward_broadcast_gradient_and_gradcheck():
    x = framework.tensor(RNG.standard_normal((4, 5)), requires_grad=True)
    F.relu(x).sum().backward()  # an expanded ones gradient
    np.testing.assert_array_equal(x.grad.numpy(), (x.detach().numpy() > 0).astype(float))
    y = framework.tensor(RNG.standard_normal((3, 4)) + 0.05, requires_grad=True)
    assert gradcheck(F.relu, (y,))
    assert gradgradcheck(F.relu, (y,))


CASES = [
    ((8, 4, 26, 26), 2, None, 0, 1),
    ((8, 4, 11, 11), 2, None, 0, 1),  # floor mode drops the last row and column
    ((2, 3, 9, 9), 3, 2, 0, 1),
    ((2, 3, 9, 9), 3, 2, 1, 1),  # padded: the scan
    ((2, 3, 10, 10), 2, 2, 0, 2),  # dilated
    ((2, 3, 7, 7), 3, 1, 0, 1),  # overlapping windows
]


@pytest.mark.parametrize("kind", ["random", "ties", "nan", "inf", "int"])
@pytest.mark.parametrize("shape, k, s, pad, dil", CASES)
def test_max_pool2d_indices_match_torch(shape, k, s, pad, dil, kind):
    x = RNG.standard_normal(shape).astype(np.float32)
    if kind == "ties":
        x = np.round(x).astype(np.float32)
        x[0, 0, :2] = -0.0
    elif kind == "nan":
        x.reshape(-1)[::37] = np.nan
    elif kind == "inf":
        x[0, 0] = -np.inf
        x[0, 1, ::2] = np.inf
    elif kind == "int":
        x = (x * 3).astype(np.int64)
    out = []
    for lib in (framework, torch):
        y, i = lib.nn.functional.max_pool2d(
            lib.from_numpy(x.copy()), k, s, pad, dil, return_indices=True
        )
        out.append((y.numpy(), i.numpy()))
    _same_bits(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_max_pool2d_gradients_match_torch_and_gradcheck():
    x = np.round(RNG.standard_normal((2, 3, 8, 8)) * 2)  # ties: the first maximum's gradient
    g = RNG.standard_normal((2, 3, 4, 4))
    grads = []
    for lib in (framework, torch):
        t = lib.from_numpy(x.copy()).requires_grad_()
        lib.nn.functional.max_pool2d(t, 2).backward(lib.from_numpy(g.copy()))
        grads.append(t.grad.numpy())
    np.testing.assert_array_equal(*grads)
    xt = framework.tensor(RNG.standard_normal((1, 2, 6, 6)), requires_grad=True)
    fn = lambda a: F.max_pool2d(a, 2)
    assert gradcheck(fn, (xt,))
    assert gradgradcheck(fn, (xt,))
    assert TF is not None


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_max_pool2d_signed_zero_ties_match_torch(dtype):
    """-0 and +0 tie: torch keeps the first; the maxima loop relies on NumPy's maximum
    returning its second operand on ties, probed per dtype (float16's loop does not)."""
    x = RNG.choice(np.array([-0.0, 0.0, -1.0], dtype), size=(2, 3, 8, 8))
    out = []
    for lib in (framework, torch):
        y, i = lib.nn.functional.max_pool2d(lib.from_numpy(x.copy()), 2, return_indices=True)
        out.append((y.numpy(), i.numpy()))
    _same_bits(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])
