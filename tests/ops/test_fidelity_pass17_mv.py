"""Seventeenth pass: mv and addmv are MKL's ?gemv as torch's addmv_impl_cpu calls it.

torch computes every float32/float64 mv/addmv by one ?gemv (a matrix of unit-strided columns
as column-major, one of unit-strided rows as the transpose, any other one copied; alpha and
beta passed to MKL, the input copied into the result first). NumPy's dot sums in OpenBLAS's
order: 93-95 % of random products were 1 ulp apart; fresh fuzz seed 590015677 (addmv then
lgamma near a pole) showed it in a gradient."""

import sys

import numpy as np
import pytest
import torch

import framework
from framework.ops import _mkl

needs_mkl = pytest.mark.skipif(not _mkl.available(), reason="needs the mkl wheel")


def _layout(lib, a, kind):
    """a as a C-ordered, F-ordered or column-strided (every other column) matrix."""
    if kind == 1:
        return lib.tensor(a.T.copy()).t()
    if kind == 2:
        return lib.tensor(np.repeat(a, 2, 1))[:, ::2]
    return lib.tensor(a)


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_mv_is_torchs_bits(dt):
    rng = np.random.default_rng(17_400)
    for _ in range(100):
        m, n = (int(x) for x in rng.integers(1, 30, 2))
        A, x = rng.standard_normal((m, n)).astype(dt), rng.standard_normal(n).astype(dt)
        kind, up = int(rng.integers(3)), rng.standard_normal(m).astype(dt)
        got = []
        for lib in (framework, torch):
            a = _layout(lib, A, kind).requires_grad_(True)
            v = lib.tensor(x, requires_grad=True)
            y = lib.mv(a, v)
            y.backward(lib.tensor(up))
            got.append([y.detach().numpy(), a.grad.numpy(), v.grad.numpy()])
            assert type(y.grad_fn).__name__ == "MvBackward0"
        for f, t in zip(*got):
            assert np.array_equal(f, t)


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_addmv_is_torchs_bits(dt):
    rng = np.random.default_rng(17_401)
    for _ in range(100):
        m, n = (int(x) for x in rng.integers(1, 30, 2))
        A, x = rng.standard_normal((m, n)).astype(dt), rng.standard_normal(n).astype(dt)
        b = rng.standard_normal([(m,), (1,), ()][rng.integers(3)]).astype(dt)
        if rng.random() < 0.15:
            b[...] = np.nan  # beta == 0 ignores it, as torch
        beta, alpha = [0.0, 1.0, 0.5, -2.0][rng.integers(4)], [1.0, 2.0, 0.3][rng.integers(3)]
        kind, up = int(rng.integers(3)), rng.standard_normal(m).astype(dt)
        got = []
        for lib in (framework, torch):
            a = _layout(lib, A, kind).requires_grad_(True)
            v, bb = lib.tensor(x, requires_grad=True), lib.tensor(b, requires_grad=True)
            y = lib.addmv(bb, a, v, beta=beta, alpha=alpha)
            y.backward(lib.tensor(up))
            got.append([y.detach().numpy(), a.grad.numpy(), v.grad.numpy(), bb.grad.numpy()])
            assert type(y.grad_fn).__name__ == "AddmvBackward0"
        for f, t in zip(*got):
            assert np.array_equal(f, t, equal_nan=True)


def test_mv_and_addmv_gradcheck():
    rng = np.random.default_rng(17_402)
    a = framework.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    v = framework.tensor(rng.standard_normal(3), requires_grad=True)
    b = framework.tensor(rng.standard_normal(4), requires_grad=True)
    gc, ggc = framework.autograd.gradcheck, framework.autograd.gradgradcheck
    assert gc(framework.mv, (a, v)) and ggc(framework.mv, (a, v))
    f = lambda b, a, v: framework.addmv(b, a, v, beta=0.5, alpha=2.0)
    assert gc(f, (b, a, v)) and ggc(f, (b, a, v))


def test_fuzz_seed_590015677_agrees():
    sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/tests")
    import fuzz.runner as R

    assert R.run_program(590015677) == []
