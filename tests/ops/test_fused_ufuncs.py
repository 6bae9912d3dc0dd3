"""The small-array ufuncs of framework/ops/_fused.py (numba; issue 17): sigmoid's forward
(correctly rounded from float64 in float32), sigmoid's and tanh's backward and exact float32
GELU's forward and backward, each one compiled call on arrays of up to _fused.SMALL elements.
Backwards and GELU give bitwise the NumPy path's values (compared with the loops off); all
match torch (values, node names, random upstream gradients) and pass gradcheck /
gradgradcheck in float64. Without numba the NumPy paths run and these tests check them alone
(the comparisons with the loops off are then trivially equal), so they never skip."""

import contextlib

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
import framework.nn.functional as F
from framework.autograd import gradcheck, gradgradcheck
from framework.ops import _fused
from tests.helpers import compare_with_torch

RNG = np.random.default_rng(1718)
TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6)}
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 30.0, -30.0, -100.0, 100.0]
SPECIAL += [5.3, -5.3, -5.5430408, -5.54304, -3.0, -3.0000002, -2.9999998, 88.7, -88.7]
OPS = {
    "sigmoid": (framework.sigmoid, torch.sigmoid, "SigmoidBackward0"),
    "tanh": (framework.tanh, torch.tanh, "TanhBackward0"),
    "gelu": (F.gelu, TF.gelu, "GeluBackward0"),
}


def _small(n, dtype, scale=4.0):
    a = (RNG.standard_normal(n) * scale).astype(dtype)
    k = min(n, len(SPECIAL))
    a[:k] = SPECIAL[:k]
    return a


def _run(fn, x, g, loops, create_graph=False):
    """fn(x) and x's gradient for upstream g (arrays), with the compiled code on or off."""
    with contextlib.nullcontext() if loops else _fused.disabled():
        t = framework.tensor(x, requires_grad=True)
        out = fn(t)
        out.backward(framework.tensor(g), create_graph=create_graph)
        return out.detach().numpy(), t.grad.detach().numpy()


def _bitwise(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8)) or (
        np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b))
    )


@pytest.mark.parametrize("n", [1, 16, 300, _fused.SMALL])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_small_ufuncs_bitwise_numpy_path(name, dtype, n):
    """Backwards (and GELU's forward) as the NumPy path; sigmoid's forward is checked
    against the float64 formula below, its backward against the NumPy path's products on
    the same forward result."""
    x, g = _small(n, dtype), RNG.standard_normal(n).astype(dtype)
    (y_on, g_on), (y_off, g_off) = _run(OPS[name][0], x, g, True), _run(OPS[name][0], x, g, False)
    if name == "sigmoid":
        one = np.ones((), dtype)
        g_off = (one - y_on) * g * y_on  # Sigmoid.backward's NumPy path, in its order
    else:
        _bitwise(y_on, y_off)
    _bitwise(g_on, g_off)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_sigmoid_forward_is_torchs(dtype):
    """sigmoid's forward is torch's CPU kernel bit for bit (Sleef's exp and its scalar tail:
    framework/ops/_sleef.py, tested in test_sleef_bits.py), no longer the float64 formula."""
    x = _small(_fused.SMALL, dtype, 10.0)
    out = framework.sigmoid(framework.tensor(x)).numpy()
    ref = torch.sigmoid(torch.from_numpy(x)).numpy()
    assert np.array_equal(np.isnan(out), np.isnan(ref))
    assert np.array_equal(out[~np.isnan(ref)], ref[~np.isnan(ref)])
    assert out[x == np.inf] == 1 and out[x == -np.inf] == 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_small_ufuncs_match_torch(name, dtype):
    rtol, atol = TOL[dtype]
    fw, th, node = OPS[name]
    x = (RNG.standard_normal((6, 7)) * 3).astype(dtype)
    x.reshape(-1)[:6] = [0.0, -0.0, 30.0, -30.0, -4.0, -5.5]
    out, _ = compare_with_torch(fw, th, [x], rtol=rtol, atol=atol)
    assert type(out.grad_fn).__name__ == node


@pytest.mark.parametrize("name", sorted(OPS))
def test_small_ufuncs_gradcheck(name):
    x = framework.tensor(RNG.standard_normal((3, 5)) * 2, requires_grad=True)
    assert gradcheck(OPS[name][0], (x,))
    assert gradgradcheck(OPS[name][0], (x,))


def test_small_gelu_float32_double_backward_and_fallbacks():
    """After the small forward (Phi not kept), create_graph recomputes Phi as a node, a
    backward with the loops turned off in between recomputes it by NumPy, and strided,
    broadcast, 0-dim and float16 inputs keep the NumPy path: each as torch / as before."""
    x = _small(40, "float32")
    x[np.isnan(x) | np.isinf(x)] = 1.0
    g = RNG.standard_normal(40).astype(np.float32)
    t = framework.tensor(x, requires_grad=True)
    (dx,) = framework.autograd.grad(F.gelu(t), t, framework.tensor(g), create_graph=True)
    tt = torch.tensor(x, requires_grad=True)
    (dtx,) = torch.autograd.grad(TF.gelu(tt), tt, torch.tensor(g), create_graph=True)
    np.testing.assert_allclose(dx.detach().numpy(), dtx.detach().numpy(), rtol=1e-5, atol=1e-6)
    (ddx,) = framework.autograd.grad(dx.sum(), t)
    (ddtx,) = torch.autograd.grad(dtx.sum(), tt)
    np.testing.assert_allclose(ddx.numpy(), ddtx.numpy(), rtol=1e-4, atol=1e-5)

    t = framework.tensor(x, requires_grad=True)
    y = F.gelu(t)
    with _fused.disabled():
        y.backward(framework.tensor(g))
    _bitwise(t.grad.numpy(), _run(F.gelu, x, g, False)[1])

    for name in sorted(OPS):
        fn = OPS[name][0]
        m = _small(48, "float32").reshape(6, 8).T  # a transposed view
        gm = np.ones((1, 6), np.float32)  # broadcast upstream gradient
        for loops in (True, False):
            with contextlib.nullcontext() if loops else _fused.disabled():
                u = framework.tensor(m, requires_grad=True)
                (fn(u) * framework.tensor(gm)).sum().backward()
                res = (fn(u).detach().numpy(), u.grad.numpy())
            if loops:
                on = res
        if name == "sigmoid":  # its backward's products on the same forward result
            res = (on[0], (np.float32(1) - on[0]) * np.broadcast_to(gm, m.shape) * on[0])
        _bitwise(on[0], res[0])
        _bitwise(on[1], res[1])
        for a in (np.float32(-3.5), np.array([0.5, -4.0], np.float16)):
            compare_with_torch(fn, OPS[name][1], [np.asarray(a)], rtol=1e-3, atol=1e-3)


def test_small_ufuncs_missing_fall_back(monkeypatch):
    """A ufunc numba could not build is None: each op then takes its NumPy path (GELU's
    backward too, after a forward by the small ufunc), with the NumPy path's values."""
    k = _fused.kernels()
    x = _small(30, "float32")
    g = RNG.standard_normal(30).astype(np.float32)
    want = {name: _run(OPS[name][0], x, g, False) for name in OPS}
    if k is not None:  # (without numba the NumPy paths are all there is)
        for name in ("sigmoid", "sigmoid_grad", "tanh_grad", "gelu32_square"):
            monkeypatch.setattr(k.ufunc, name, None)
    for name in sorted(OPS):
        got = _run(OPS[name][0], x, g, True)
        _bitwise(got[0], want[name][0])
        _bitwise(got[1], want[name][1])
