"""The optional MKL matrix products (framework/ops/_mkl.py): torch's BLAS, called as torch
calls it, gives torch's bits for mm, addmm and F.linear and their gradients.

The test extra installs the ``mkl`` wheel on x86-64 Linux, the platform it is published for:
there the bit tests always run (and `test_mkl_loads_where_the_test_extra_installs_it` fails if
MKL cannot be loaded). On other platforms there is no wheel and the products stay NumPy's; the
loader and layout tests run everywhere."""

import itertools

import numpy as np
import pytest
import torch

import framework
from framework.ops import _mkl

import platform
import sys

MKL_PLATFORM = sys.platform == "linux" and platform.machine() == "x86_64"
MKL_LOADED = _mkl.available()  # (loaded at collection, as the bit tests expect)
needs_mkl = pytest.mark.skipif(not MKL_PLATFORM, reason="no mkl wheel for this platform")


@needs_mkl
def test_mkl_loads_where_the_test_extra_installs_it():
    """x86-64 Linux: the test extra's mkl==2024.2.2 is installed and loads (so the bit tests
    below compare MKL's products, never a silently absent library)."""
    assert MKL_LOADED


SHAPES = [(3, 5, 7), (32, 64, 128), (128, 784, 512), (7, 1, 3), (5, 300, 2), (64, 2, 64)]


def _operands(rng, dt, m, k, n, tx, tw):
    """x (m, k) and w (k, n), each C-contiguous or a transposed (column-major) view."""
    x = rng.standard_normal((k, m) if tx else (m, k)).astype(dt)
    w = rng.standard_normal((n, k) if tw else (k, n)).astype(dt)
    return (x.T if tx else x), (w.T if tw else w)


def _run(L, x, w, b, g):
    """mm, addmm, linear and the gradients of x, w and b under upstream gradient g."""

    def leaf(a):
        t = L.tensor(np.ascontiguousarray(a.T)).t() if a.flags.f_contiguous else L.tensor(a)
        return t.detach().requires_grad_()

    X, W, B = leaf(x), leaf(w), L.tensor(b).requires_grad_()
    G = L.tensor(g)
    y1, y2 = L.mm(X, W), L.addmm(B, X, W)
    ((y1 * G).sum() + (y2 * G).sum()).backward()
    lin = L.nn.functional.linear(X.detach(), W.detach().t(), B.detach())
    return [y1, y2, X.grad, W.grad, B.grad, lin]


@needs_mkl
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_products_and_gradients_are_torchs_bits(monkeypatch, dt, m, k, n):
    """Every layout of both operands (C-contiguous or a transposed view, as a Linear weight's
    .t()), a random bias and upstream gradient: every element equal to torch's (the bias
    gradient too: its row sum is torch's replayed column order). Every size goes to MKL
    here (MIN_MACS 0; by default the small ones stay NumPy's, for speed)."""
    monkeypatch.setattr(_mkl, "MIN_MACS", 0)
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    for tx, tw in itertools.product((False, True), repeat=2):
        x, w = _operands(rng, dt, m, k, n, tx, tw)
        b = rng.standard_normal(n).astype(dt)
        g = rng.standard_normal((m, n)).astype(dt)
        ours, theirs = _run(framework, x, w, b, g), _run(torch, x, w, b, g)
        names = ["mm", "addmm", "x.grad", "w.grad", "b.grad", "linear"]
        for name, a, t in zip(names, ours, theirs):
            a, t = a.detach().numpy(), t.detach().numpy()
            assert a.shape == t.shape, name
            np.testing.assert_array_equal(a, t, err_msg=f"{name} {tx} {tw}")


def test_linear_bias_gradient_is_torchs_sum(monkeypatch):
    """A Linear bias's gradient over 128 rows of 512 columns (above the sum replay's
    single-thread grain): torch's column sums, bit for bit, whichever BLAS computes the
    products."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    w = rng.standard_normal((512, 64)).astype(np.float32)
    g = rng.standard_normal((128, 512)).astype(np.float32)
    grads = []
    for L in (framework, torch):
        b = L.zeros(512, requires_grad=True)
        L.nn.functional.linear(L.tensor(x), L.tensor(w), b).backward(L.tensor(g))
        grads.append(b.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


@needs_mkl
def test_mlp_training_step_values_are_torchs():
    """A 784-512-512-10 Linear/ReLU forward in float32: every activation torch's bits."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    ws = [
        (rng.uniform(-0.05, 0.05, (o, i)).astype(np.float32), rng.uniform(-0.05, 0.05, o))
        for i, o in ((784, 512), (512, 512), (512, 10))
    ]
    outs = []
    for L in (framework, torch):
        h = L.tensor(x)
        for w, b in ws:
            h = L.nn.functional.linear(h, L.tensor(w), L.tensor(b.astype(np.float32)))
            h = L.relu(h) if w.shape[0] != 10 else h
        outs.append(h.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_operand_layouts():
    """cblas row-major flags and leading dimensions: C rows, transposed views, row slices;
    None where neither dimension is unit-strided."""
    a = np.zeros((6, 8), np.float32)
    assert _mkl._operand(a, 6, 8) == (_mkl._NO_TRANS, 8)
    assert _mkl._operand(a.T, 8, 6) == (_mkl._TRANS, 8)
    assert _mkl._operand(a[:, :5], 6, 5) == (_mkl._NO_TRANS, 8)
    assert _mkl._operand(a[::2, ::2], 3, 4) is None


def test_library_path_from_the_environment(monkeypatch, tmp_path):
    """FRAMEWORK_MKL=0 turns MKL off; a folder or file naming libmkl_rt.so.2 is taken; a
    missing one falls back to the environment's lib folder."""
    monkeypatch.setenv("FRAMEWORK_MKL", "0")
    assert _mkl._library_path() is None
    lib = tmp_path / "libmkl_rt.so.2"
    lib.write_bytes(b"")
    monkeypatch.setenv("FRAMEWORK_MKL", str(tmp_path))
    assert _mkl._library_path() == str(lib)
    monkeypatch.setenv("FRAMEWORK_MKL", str(lib))
    assert _mkl._library_path() == str(lib)
    monkeypatch.setattr(_mkl.sys, "prefix", str(tmp_path / "none"))
    monkeypatch.setenv("FRAMEWORK_MKL", str(tmp_path / "missing"))
    assert _mkl._library_path() is None


def test_products_without_mkl_are_numpys(monkeypatch):
    """With MKL unavailable, gemm declines and linear's value is NumPy's product plus bias."""
    monkeypatch.setattr(_mkl, "_state", [False])
    monkeypatch.setattr(_mkl, "MIN_MACS", _mkl._NEVER)
    for name in ("INTO", "MM", "REC", "REC_ADD"):  # (the compiled call's state)
        monkeypatch.setattr(_mkl, name, None)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 40)).astype(np.float32)
    w = rng.standard_normal((24, 40)).astype(np.float32)
    b = rng.standard_normal(24).astype(np.float32)
    assert _mkl.gemm(x, w.T) is None
    got = framework.nn.functional.linear(
        framework.tensor(x), framework.tensor(w), framework.tensor(b)
    )
    want = x.dot(w.T)
    want += b
    np.testing.assert_array_equal(got.numpy(), want)
