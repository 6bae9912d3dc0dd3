"""Behaviour that differed from torch 2.13: copy_'s shape errors, slogdet's gradient at a
singular matrix, mode with NaN and ties (torch's std::sort replayed)."""

import numpy as np
import pytest
import torch

import framework


def _run(lib, fn):
    try:
        return "ok", fn(lib)
    except Exception as e:
        return type(e).__name__, str(e)


def _same(fn, rtol=0.0):
    (ka, va), (kb, vb) = _run(framework, fn), _run(torch, fn)
    assert ka == kb, (va, vb)
    if ka != "ok":
        assert va == vb
        return
    for x, y in zip(va, vb):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=0, equal_nan=True)
        else:
            assert x == y


def _v(t):
    return np.asarray(t.detach().tolist())


COPIES = {
    "no_broadcast": lambda L: L.zeros(2, 3).copy_(L.ones(4)),
    "no_broadcast_grad": lambda L: (L.zeros(2, 3, requires_grad=True) * 1).copy_(L.ones(4)),
    "grows_self": lambda L: L.zeros(3).copy_(L.ones(2, 3)),
    "leading_one": lambda L: L.zeros(3).copy_(L.ones(1, 3)),
    "broadcast": lambda L: L.zeros(3, 2).copy_(L.ones(2)),
    "column": lambda L: L.zeros(3, 1).copy_(L.ones(3)),
    "leaf_first": lambda L: L.zeros(3, requires_grad=True).copy_(L.ones(4)),
    "view": lambda L: L.zeros(3, 2)[:, 0].copy_(L.ones(4)),
    "int_self": lambda L: L.zeros(3, dtype=L.int64).copy_(L.ones(2, 3)),
}


@pytest.mark.parametrize("case", list(COPIES))
def test_copy_shapes(case):
    """copy_ broadcasts src to self's shape; otherwise torch's RuntimeError (the size
    mismatch, or the output-shape error), never NumPy's ValueError."""
    _same(lambda L: [_v(COPIES[case](L))])


SINGULAR = {
    "rank1": [[1.0, 2.0], [2.0, 4.0]],
    "zeros": [[0.0, 0.0], [0.0, 0.0]],
    "zero_row": [[1.0, 0, 0], [0, 0, 0], [0, 0, 1]],
    "rank2": [[1.0, 2, 3], [4, 5, 6], [7, 8, 9]],
    "dependent_rows": [[2.0, 1, 0], [4, 2, 0], [1, 1, 1]],
    "batch": [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]]],
    "one_by_one": [[0.0]],
    "regular": np.random.default_rng(0).standard_normal((3, 4, 4)).tolist(),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn", ["linalg.slogdet", "slogdet"])
@pytest.mark.parametrize("case", list(SINGULAR))
def test_slogdet_gradient_at_singular_matrices(case, fn, dtype):
    """torch's slogdet backward solves with its forward's LU factors (no inversion): a
    singular matrix gives inf/NaN where the zero pivot divides, not an error."""

    def run(L):
        A = L.tensor(SINGULAR[case], dtype=getattr(L, dtype), requires_grad=True)
        f = L.linalg.slogdet if fn == "linalg.slogdet" else L.slogdet
        sign, logabs = f(A)
        up = L.tensor(np.random.default_rng(1).standard_normal(tuple(logabs.shape)))
        (g,) = L.autograd.grad((logabs * up.to(logabs.dtype)).sum() + sign.sum(), A)
        return [_v(sign), _v(logabs), _v(g), type(logabs.grad_fn).__name__]

    _same(run, rtol=1e-5 if case == "regular" or dtype == "float32" else 0.0)


def test_slogdet_create_graph_at_a_regular_matrix():
    """With create_graph the gradient is torch's solve (second derivatives through it)."""
    A0 = np.random.default_rng(2).standard_normal((3, 3))
    res = []
    for L in (framework, torch):
        A = L.tensor(A0, requires_grad=True)
        (g,) = L.autograd.grad(L.linalg.slogdet(A)[1], A, create_graph=True)
        (gg,) = L.autograd.grad((g * g).sum(), A)
        res.append((_v(g), _v(gg)))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-8)


def _mode_input(seed):
    r = np.random.default_rng(seed)
    shape = tuple(int(n) for n in r.integers(1, 40, size=int(r.integers(1, 3))))
    x = r.integers(0, 4, shape).astype(float)
    x[r.random(shape) < r.random()] = np.nan
    return x, int(r.integers(0, len(shape)))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("seed", range(40))
def test_mode_with_nan_and_ties(seed, dtype):
    """Values and indices as torch's CPU kernel: std::sort of (value, index) by value
    (unstable beyond 16 elements; a NaN breaks the ordering), then the first longest run
    of equal neighbours at its last pair; gradients follow the index."""
    x, dim = _mode_input(seed)
    if dtype == "int64":
        x = np.nan_to_num(x, nan=7.0)

    def run(L):
        t = L.tensor(x, dtype=getattr(L, dtype))
        if dtype != "int64":
            t.requires_grad_()
        v, i = L.mode(t, dim)
        out = [_v(v), _v(i)]
        if dtype != "int64":
            up = L.tensor(np.random.default_rng(seed).standard_normal(tuple(v.shape)))
            out.append(_v(L.autograd.grad(v, t, up.to(v.dtype))[0]))
        return out

    _same(run)


def test_mode_keepdim_and_rows_beyond_the_limit_are_consistent():
    """keepdim keeps the layout; an input beyond the replay limit keeps a valid mode (its
    value is torch's, the tied index may differ)."""
    from framework.ops import sorting

    x = np.array([[1.0, np.nan, 1.0], [2.0, 2.0, np.nan]])
    for L in (framework, torch):
        v, i = L.mode(L.tensor(x), 1, keepdim=True)
        assert tuple(v.shape) == (2, 1)
    big = np.tile(np.arange(3.0), 8)  # 24 elements, ties
    limit = sorting._MODE_REPLAY_LIMIT
    try:
        sorting._MODE_REPLAY_LIMIT = 0
        v, i = framework.mode(framework.tensor(big))
    finally:
        sorting._MODE_REPLAY_LIMIT = limit
    assert v.item() == torch.mode(torch.tensor(big)).values.item() and big[i.item()] == v.item()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["bool", "float32", "int64"])
def test_multilabel_margin_loss_empty_batch_keeps_input_dtype(dtype, reduction):
    """torch returns before its kernel on an empty batch: an output of the input's dtype
    (fresh fuzz seed 80087014: bool, then softplus refused it where ours had float64)."""
    out = []
    for L in (torch, framework):
        x = L.zeros(0, 3, dtype=getattr(L, dtype))
        y = L.zeros(0, 3, dtype=L.int64)
        r = L.nn.functional.multilabel_margin_loss(x, y, reduction=reduction)
        out.append((str(r.dtype), tuple(r.shape)))
    assert out[1] == out[0]


@pytest.mark.parametrize("fn", ["xlogy", "xlog1py", "xlogy_scalar"])
def test_xlogy_of_negative_zero_is_positive_zero(fn):
    """torch's kernels return 0 where x == 0: +0 for x = -0 (fresh fuzz seed 90089790, seen
    through a chained reciprocal: +inf in torch, -inf here before)."""
    x = np.array([-0.0, 0.0, -0.0, 2.0], np.float32)
    y = np.array([3.25, 0.5, np.nan, 1.5], np.float32)
    out = []
    for L in (torch, framework):
        f = {
            "xlogy": lambda: L.xlogy(L.tensor(x), L.tensor(y)),
            "xlog1py": lambda: L.special.xlog1py(L.tensor(x), L.tensor(y)),
            "xlogy_scalar": lambda: L.special.xlogy(L.tensor(x), 3.25),
        }[fn]
        r = f().numpy()
        out.append((np.signbit(r).tolist(), np.isnan(r).tolist(), r[~np.isnan(r)].tolist()))
    assert out[1] == out[0]
