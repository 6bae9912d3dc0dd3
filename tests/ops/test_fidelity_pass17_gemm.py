"""Small float32/float64 matrix products are torch's bits (seventeenth pass, issue 9).

torch's mm/addmm (F.linear, matmul of matrices, 1-D @ 2-D, bmm from 400 multiply-adds a
matrix, their backward) call MKL's ?gemm at every size; ours used NumPy's dot (OpenBLAS)
below 2**18 multiply-adds and differed in the last bit of 10-47 % of the elements of small
products (a grid of shapes up to 32 x 64 x 20). With MKL and numba every such product now
calls MKL's gemm as torch calls it (`ops/_mkl_gemm`: addmm_impl_cpu_'s operand and transpose
choices, cpublas's leading dimensions): 0 elements apart, values and gradients, any layout.
Without MKL (or numba) the products stay NumPy's. (dot, mv and bmm from 400 multiply-adds a
matrix: tests/ops/test_fidelity_pass17_mv.py and test_fidelity_pass18_bmm.py.)

Every test draws its data from its own seeded generator (parametrized seeds)."""

import platform
import sys

import numpy as np
import pytest
import torch

import framework
import framework.nn.functional as F
from framework.ops import _mkl

needs_mkl = pytest.mark.skipif(
    not (sys.platform == "linux" and platform.machine() == "x86_64")
    or _mkl.library() is None
    or not _mkl.available()
    or _mkl.MM is None,
    reason="MKL's runtime or numba is missing: the NumPy route (test_without_mkl_numpy_route)",
)


def _bits_equal(ours, theirs):
    """Equal bits (NaN where torch's is NaN), dtype and shape."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    same = np.where(nan, 0, ours).view(f"i{ours.itemsize}") == np.where(nan, 0, theirs).view(
        f"i{ours.itemsize}"
    )
    assert same.all(), f"{(~same).mean():.0%} of the elements apart"


def _layout(rng, array):
    """array as is, transposed twice (column-major), or a strided view of a larger one."""
    kind = rng.integers(3)
    if kind == 1:
        return np.asfortranarray(array)
    if kind == 2:
        big = np.zeros((array.shape[0], 2 * array.shape[1] + 1), array.dtype)
        big[:, 1::2] = array
        return big[:, 1::2]
    return array


def _clone(x):
    """A copy of x with x's strides (non-negative)."""
    extent = sum((d - 1) * st for d, st in zip(x.shape, x.strides)) // x.itemsize + 1
    view = np.lib.stride_tricks.as_strided(np.zeros(extent, x.dtype), x.shape, x.strides)
    view[...] = x
    return view


def _pair(x):
    """(framework, torch) leaves holding x with x's strides."""
    ours = framework.from_numpy(_clone(x)).requires_grad_(True)
    return ours, torch.from_numpy(_clone(x)).requires_grad_(True)


def _shape(rng):
    """(m, k, n): sizes 1 to 33, often small, 1 on some side now and then."""
    return tuple(int(v) for v in rng.choice([1, 2, 3, 4, 5, 7, 8, 16, 17, 33], 3))


def _compare(run, leaves, rng):
    """run(lib, *leaves) in both libraries: the value, then every leaf's gradient for a random
    upstream gradient, bit for bit, and the node's name."""
    outs = []
    up = int(rng.integers(1 << 30))
    for side in (0, 1):
        xs = [pair[side] for pair in leaves]
        lib = framework if side == 0 else torch
        y = run(lib, *xs)
        g = np.random.default_rng(up).standard_normal(tuple(y.shape))
        y.backward(lib.tensor(g.astype(str(y.dtype).split(".")[-1])))
        outs.append((y, [x.grad for x in xs]))
    (y0, g0), (y1, g1) = outs
    assert type(y0.grad_fn).__name__ == type(y1.grad_fn).__name__
    _bits_equal(y0.detach().numpy(), y1.detach().numpy())
    for a, b in zip(g0, g1):
        _bits_equal(a.numpy(), b.numpy())


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(3))
def test_mm_and_matmul_are_torchs_bits(dt, seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        m, k, n = _shape(rng)
        a = _layout(rng, rng.standard_normal((m, k)).astype(dt))
        b = _layout(rng, rng.standard_normal((k, n)).astype(dt))
        _compare(lambda L, x, y: L.mm(x, y), [_pair(a), _pair(b)], rng)
        _compare(lambda L, x, y: L.matmul(x, y), [_pair(a), _pair(b)], rng)
        _compare(lambda L, x, y: L.matmul(x[0], y), [_pair(a), _pair(b)], rng)  # 1-D @ 2-D


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(3))
def test_addmm_and_linear_are_torchs_bits(dt, seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(30):
        m, k, n = _shape(rng)
        x = _layout(rng, rng.standard_normal((m, k)).astype(dt))
        w = rng.standard_normal((n, k)).astype(dt)
        b = rng.standard_normal(n).astype(dt)
        c = rng.standard_normal((m, n)).astype(dt)
        _compare(
            lambda L, x, w, b: L.nn.functional.linear(x, w, b), [_pair(v) for v in (x, w, b)], rng
        )
        _compare(lambda L, x, w: L.nn.functional.linear(x, w), [_pair(x), _pair(w)], rng)
        x3 = rng.standard_normal((2, m, k)).astype(dt)
        _compare(
            lambda L, x, w, b: L.nn.functional.linear(x, w, b), [_pair(v) for v in (x3, w, b)], rng
        )
        beta, alpha = [(1, 1), (0, 1), (0.5, -2.0), (2, 0.25)][rng.integers(4)]
        _compare(
            lambda L, c, x, y: L.addmm(c, x, y, beta=beta, alpha=alpha),
            [_pair(c), _pair(x), _pair(np.ascontiguousarray(w.T))],
            rng,
        )


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(2))
def test_small_bmm_and_batched_matmul_are_torchs_bits(dt, seed):
    """torch's own bmm kernel below 400 multiply-adds a matrix (replayed), matmul's broadcast
    batch through it, the backward's bmm products too. (From 400 on torch calls MKL's
    ?gemm_batch: test_fidelity_pass18_bmm.py.)"""
    rng = np.random.default_rng(200 + seed)
    done = 0
    while done < 20:
        m, k, n = _shape(rng)
        if m * k * n >= 400:  # (the backward's products have the same size)
            continue
        done += 1
        nb = int(rng.integers(1, 4))
        a = rng.standard_normal((nb, m, k)).astype(dt)
        b = rng.standard_normal((nb, k, n)).astype(dt)
        _compare(lambda L, x, y: L.bmm(x, y), [_pair(a), _pair(b)], rng)
        b2 = rng.standard_normal((2, 1, k, n)).astype(dt)
        _compare(lambda L, x, y: L.matmul(x, y), [_pair(a), _pair(b2)], rng)


@needs_mkl
def test_signed_zeros_and_specials_follow_torch():
    """An inner size of 1 (torch's gemm: the exact outer product, -0 kept), inf and NaN."""
    a = np.array([[0.0], [-0.0], [np.inf], [1.0]], np.float32)
    b = np.array([[-1.0, 0.0, np.nan, 2.0]], np.float32)
    for x, y in ((a, b), (b.T, a.T), (a[:1], b)):
        ours = framework.mm(framework.tensor(x), framework.tensor(y)).numpy()
        _bits_equal(ours, torch.mm(torch.tensor(x), torch.tensor(y)).numpy())


def test_without_mkl_numpy_route(monkeypatch):
    """Without MKL every product is NumPy's (the callers' size test never passes): the values
    match torch's to rounding, the nodes are torch's."""
    monkeypatch.setattr(_mkl, "_state", [False])
    monkeypatch.setattr(_mkl, "MIN_MACS", _mkl._NEVER)
    for name in ("INTO", "MM", "REC", "REC_ADD"):
        monkeypatch.setattr(_mkl, name, None)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    y = F.linear(framework.tensor(x, requires_grad=True), framework.tensor(w), framework.tensor(b))
    assert type(y.grad_fn).__name__ == "AddmmBackward0"
    assert np.array_equal(y.detach().numpy(), (x.dot(w.T) + b).astype(np.float32))
    z = framework.tensor(x, requires_grad=True).mm(framework.tensor(w.T))
    assert type(z.grad_fn).__name__ == "MmBackward0"
    assert np.array_equal(z.detach().numpy(), x.dot(w.T))
    np.testing.assert_allclose(
        z.detach().numpy(), torch.mm(torch.tensor(x), torch.tensor(w.T)).numpy(), rtol=1e-5
    )


@needs_mkl
def test_entry_points_take_any_layout_and_batch():
    """`_mkl.product` (numba's dispatch) and the hot paths' entry points agree on C, F and
    strided operands and on batches (torch's clone of an operand no BLAS layout takes)."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((6, 10)).astype(np.float64)[:, ::2]  # neither stride a unit
    b = rng.standard_normal((5, 3)).astype(np.float64)
    ref = torch.mm(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    _bits_equal(_mkl.product(a, b), ref)
    out = np.empty((6, 3))
    _mkl.MM[1](_mkl.REC[1], a, b, out)
    _bits_equal(out, ref)
    a3 = rng.standard_normal((3, 4, 20)).astype(np.float32)
    b3 = rng.standard_normal((3, 20, 6)).astype(np.float32)
    each = np.stack([torch.mm(torch.tensor(x), torch.tensor(y)).numpy() for x, y in zip(a3, b3)])
    _bits_equal(_mkl.product(a3, b3), each)


@pytest.mark.parametrize("op", ["mm", "addmm", "linear"])
def test_gradcheck_float64(op):
    """The backward products through MKL keep the gradients right, to second order."""
    rng = np.random.default_rng(3)
    x = framework.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = framework.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    b = framework.tensor(rng.standard_normal(2), requires_grad=True)
    fn = {
        "mm": lambda x, w, b: x.mm(w) + b,
        "addmm": lambda x, w, b: framework.addmm(b, x, w, beta=0.5, alpha=2.0),
        "linear": lambda x, w, b: F.linear(x, w.t(), b),
    }[op]
    assert framework.autograd.gradcheck(fn, (x, w, b))
    assert framework.autograd.gradgradcheck(fn, (x, w, b))
