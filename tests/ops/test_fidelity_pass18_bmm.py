"""Batched products from 400 multiply-adds a matrix and dot are torch's bits (eighteenth pass,
issue 9).

torch's bmm/baddbmm (batched matmul and their backward too) from 400 multiply-adds a matrix
call MKL's cblas_?gemm_batch once for the batch where each operand's matrices have
unit-strided rows or columns (bmm_out_or_baddbmm_ -> baddbmm_with_gemm_ ->
cpublas::gemm_batched_with_stride), else addmm_impl_cpu_'s gemm a matrix; ours used NumPy's
matmul there (28 % of the elements apart on random shapes and layouts; a ?gemm per matrix:
21 % of a 2 x 7 x 7 by 7 x 33 float32 product on 2 threads). Now `_mkl.batch_product` makes
the same call: 0 apart. torch's dot is MKL's ?dot_ with the vectors' strides (NumPy's dot:
about half the results 1 ulp apart); now `_mkl.dot`. Without MKL (or numba) both stay
NumPy's. baddbmm below 400 multiply-adds a matrix replays torch's own kernel (as bmm did).

Every test draws its data from its own seeded generator (parametrized seeds)."""

import platform
import sys

import numpy as np
import pytest
import torch

import framework
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


def _layout(rng, x):
    """A batch x as is, its matrices column-major, a strided view (every other column), the
    batch dimension innermost, or x's first matrix expanded over the batch (stride 0)."""
    kind = rng.integers(5)
    if kind == 1:
        return np.ascontiguousarray(x.transpose(0, 2, 1)).transpose(0, 2, 1)
    if kind == 2:
        big = np.zeros(x.shape[:2] + (2 * x.shape[2] + 1,), x.dtype)
        big[:, :, 1::2] = x
        return big[:, :, 1::2]
    if kind == 3:
        return np.ascontiguousarray(x.transpose(1, 2, 0)).transpose(2, 0, 1)
    if kind == 4:
        return np.broadcast_to(x[:1], x.shape)
    return x


def _clone(x):
    """A copy of x with x's strides (non-negative)."""
    extent = sum((d - 1) * st for d, st in zip(x.shape, x.strides)) // x.itemsize + 1
    view = np.lib.stride_tricks.as_strided(np.zeros(extent, x.dtype), x.shape, x.strides)
    view[...] = x
    return view


def _pair(x, grad=True):
    """(framework, torch) leaves holding x with x's strides."""
    ours = framework.from_numpy(_clone(x)).requires_grad_(grad)
    return ours, torch.from_numpy(_clone(x)).requires_grad_(grad)


def _shape(rng, small=False):
    """(batch, m, k, n) of at least 400 multiply-adds a matrix (fewer with `small`)."""
    while True:
        nb, m, k, n = (int(v) for v in rng.choice([1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33], 4))
        if (m * k * n >= 400) != small:
            return nb, m, k, n


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
        if b is not None:
            _bits_equal(a.numpy(), b.numpy())


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(3))
def test_bmm_is_torchs_bits(dt, seed):
    """bmm from 400 multiply-adds a matrix: values and both gradients (whose products are
    bmm's of transposed operands), any layout."""
    rng = np.random.default_rng(seed)
    for _ in range(25):
        nb, m, k, n = _shape(rng)
        a = _layout(rng, rng.standard_normal((nb, m, k)).astype(dt))
        b = _layout(rng, rng.standard_normal((nb, k, n)).astype(dt))
        _compare(lambda L, x, y: L.bmm(x, y), [_pair(a), _pair(b)], rng)


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(2))
def test_batched_matmul_is_torchs_bits(dt, seed):
    """matmul of batches (broadcast, one side 3-D or 4-D) through bmm, and its backward."""
    rng = np.random.default_rng(50 + seed)
    for _ in range(15):
        nb, m, k, n = _shape(rng)
        a = rng.standard_normal((nb, m, k)).astype(dt)
        b = rng.standard_normal((2, 1, k, n)).astype(dt)
        _compare(lambda L, x, y: L.matmul(x, y), [_pair(a), _pair(b)], rng)
        b3 = _layout(rng, rng.standard_normal((nb, k, n)).astype(dt))
        _compare(lambda L, x, y: x @ y, [_pair(a), _pair(b3)], rng)


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("small", [False, True])
def test_baddbmm_is_torchs_bits(dt, small):
    """baddbmm from 400 multiply-adds a matrix: the input copied into the result (not when
    beta is 0: a NaN input ignored), alpha and beta passed to MKL; below, torch's
    baddbmm_cpu_kernel (each entry summed in order, then input * beta + alpha * sum: NumPy's
    matmul had 20 % of the elements apart); the gradients."""
    rng = np.random.default_rng(100 + small)
    for _ in range(15):
        nb, m, k, n = _shape(rng, small)
        a = _layout(rng, rng.standard_normal((nb, m, k)).astype(dt))
        b = _layout(rng, rng.standard_normal((nb, k, n)).astype(dt))
        c = rng.standard_normal([(nb, m, n), (m, n), (1, n)][rng.integers(3)]).astype(dt)
        beta, alpha = [(1, 1), (0, 1), (0.5, -2.0), (2, 0.3), (0.0, 1.5)][rng.integers(5)]
        if beta == 0:
            c[...] = np.nan
        _compare(
            lambda L, c, x, y: L.baddbmm(c, x, y, beta=beta, alpha=alpha),
            [_pair(c, beta != 0), _pair(a), _pair(b)],
            rng,
        )


@needs_mkl
def test_batched_gemm_differs_from_a_gemm_per_matrix():
    """The shape where a ?gemm per matrix was 21 % apart from torch (2 MKL threads): the
    batched call is torch's bits whatever the thread count."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 7, 7)).astype(np.float32)
    b = rng.standard_normal((2, 7, 33)).astype(np.float32)
    ours = framework.bmm(framework.from_numpy(a), framework.from_numpy(b)).numpy()
    _bits_equal(ours, torch.bmm(torch.from_numpy(a), torch.from_numpy(b)).numpy())


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_dot_and_vdot_are_torchs_bits(dt):
    """dot/vdot (and matmul of two vectors) are MKL's ?dot_ with the vectors' strides:
    values and gradients, lengths 0 to 4097, unit and larger strides."""
    rng = np.random.default_rng(9)
    for _ in range(40):
        n = int(rng.choice([0, 1, 2, 3, 5, 16, 17, 31, 100, 257, 1000, 4097]))
        sx, sy = (int(v) for v in rng.choice([1, 1, 2, 3], 2))
        x = rng.standard_normal(n * sx).astype(dt)[::sx]
        y = rng.standard_normal(n * sy).astype(dt)[::sy]
        for fn in (
            lambda L, u, v: L.dot(u, v),
            lambda L, u, v: L.vdot(u, v),
            lambda L, u, v: L.matmul(u, v),
        ):
            _compare(fn, [_pair(x), _pair(y)], rng)


def test_without_mkl_numpy_route(monkeypatch):
    """Without MKL (or numba) bmm, baddbmm and dot are NumPy's: close to torch's, the same
    nodes."""
    monkeypatch.setattr(_mkl, "_entries", {"batch": None, "dot": None})
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 8, 9)).astype(np.float32)
    b = rng.standard_normal((3, 9, 10)).astype(np.float32)
    c = rng.standard_normal((3, 8, 10)).astype(np.float32)
    y = framework.bmm(framework.tensor(a, requires_grad=True), framework.tensor(b))
    assert type(y.grad_fn).__name__ == "BmmBackward0"
    assert np.array_equal(y.detach().numpy(), a @ b)
    z = framework.baddbmm(framework.tensor(c), framework.tensor(a), framework.tensor(b), beta=0.5)
    t = torch.baddbmm(torch.tensor(c), torch.tensor(a), torch.tensor(b), beta=0.5)
    np.testing.assert_allclose(z.numpy(), t.numpy(), rtol=1e-5, atol=1e-5)
    x, v = a[0, 0], b[0, :, 0]
    d = framework.dot(framework.tensor(x), framework.tensor(v))
    assert d.numpy() == np.dot(x, v)


@pytest.mark.parametrize("op", ["bmm", "baddbmm", "dot"])
def test_gradcheck_float64(op):
    """The MKL routes keep the gradients right, to second order (products of 400 and more
    multiply-adds a matrix)."""
    rng = np.random.default_rng(3)
    if op == "dot":
        x = framework.tensor(rng.standard_normal(7), requires_grad=True)
        y = framework.tensor(rng.standard_normal(7), requires_grad=True)
        args, fn = (x, y), framework.dot
    else:
        x = framework.tensor(rng.standard_normal((2, 5, 8)), requires_grad=True)
        y = framework.tensor(rng.standard_normal((2, 8, 10)), requires_grad=True)
        c = framework.tensor(rng.standard_normal((1, 10)), requires_grad=True)
        if op == "bmm":
            args, fn = (x, y), framework.bmm
        else:
            args = (c, x, y)

            def fn(c, x, y):
                return framework.baddbmm(c, x, y, beta=0.5, alpha=2.0)

    assert framework.autograd.gradcheck(fn, args)
    assert framework.autograd.gradgradcheck(fn, args)
