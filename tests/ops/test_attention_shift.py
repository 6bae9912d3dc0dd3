"""scaled_dot_product_attention's softmax shift through _sleef_jit.attention_shift (scores
times the scale plus the mask, the row maxima on lane vectors, the rows minus them; three
passes over all rows): bitwise _fused.softmax_shift_loop's scores and maxima where no row
holds a NaN, and the same NaN rows otherwise (every probability of such a row is NaN in
both); the attention's probabilities and logsumexp then equal the loop's. Skipped without
numba (neither loop exists then)."""

import numpy as np
import pytest

from framework.ops import _fused, _sleef
from framework.ops.attention import _probs_

SPECIAL = [np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e30, 3e38, -3e38]


def _kernels():
    j, k = _sleef._jit(), _fused.kernels()
    if j is None or k is None:
        pytest.skip("numba is not in use")
    return j, k


def _mask(kind, L, n, dtype, rng):
    if kind == "none":
        return np.empty((0, n), dtype)
    if kind == "causal":
        return np.triu(np.full((L, n), -np.inf, dtype), 1)
    m = rng.standard_normal((L, n)).astype(dtype)
    m[rng.random((L, n)) < 0.3] = -np.inf
    m[1] = -np.inf  # a row with every key masked
    return m


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 3, 4, 7, 8, 9, 17, 64, 100])
@pytest.mark.parametrize("kind", ["none", "causal", "random"])
@pytest.mark.parametrize("scaled", [True, False])
def test_attention_shift_bitwise_the_loop(dtype, n, kind, scaled):
    j, k = _kernels()
    for seed in range(6):
        rng = np.random.default_rng(seed)
        L = 5
        rows = (rng.standard_normal((4 * L, n)) * [0.1, 3, 40][seed % 3]).astype(dtype)
        if seed % 2:
            flat = rows.reshape(-1)
            flat[rng.integers(0, flat.size, 4)] = rng.choice(SPECIAL, 4)
        mask = _mask(kind, L, n, dtype, rng)
        scale = np.full(1 if scaled else 0, 0.125, dtype)
        consts = _sleef._CONSTS[rows.dtype]
        want, got = rows.copy(), rows.copy()
        mw, mg = np.empty(rows.shape[0], dtype), np.empty(rows.shape[0], dtype)
        k.softmax_shift(want, mw, scale, mask)
        j.attention_shift(got, mg, scale, mask, consts)
        nan_rows = np.isnan(want).any(axis=1)
        assert np.array_equal(np.isnan(want), np.isnan(got))
        _same_but_zero_signs(want[~nan_rows], got[~nan_rows])
        _same_but_zero_signs(mw[~nan_rows], mg[~nan_rows])
        assert np.isfinite(mg).all()


def _same_but_zero_signs(a, b):
    """Equal values, and equal bits where not zero: a zero maximum's sign follows each
    loop's order (+0 and -0 compare equal), and so may a zero after the shift; exp gives 1
    for both, so the probabilities are the same (test_zero_maxima_same_probabilities)."""
    assert np.array_equal(a, b)
    nz = a != 0
    assert np.array_equal(np.signbit(a[nz]), np.signbit(b[nz]))


def _probs_both(scores, scale, mask):
    """_probs_ with attention_shift, then with _fused's loop alone."""
    got = _probs_(np, scores.copy(), scale, mask)
    saved = _sleef._JIT[0]
    _sleef._JIT[0] = False
    try:
        want = _probs_(np, scores.copy(), scale, mask)
    finally:
        _sleef._JIT[0] = saved
    return got, want


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_maxima_same_probabilities(dtype):
    """Rows whose maximum is +0 or -0 (the two loops may pick either sign): the same bits
    of every probability and logsumexp."""
    _kernels()
    rng = np.random.default_rng(11)
    scores = -rng.random((3, 2, 24, 24)).astype(dtype)
    zeros = rng.random(scores.shape) < 0.4
    scores[zeros] = np.where(rng.random(zeros.sum()) < 0.5, 0.0, -0.0)
    for mask in (None, np.triu(np.full((24, 24), -np.inf, dtype), 1)):
        (got_p, got_l), (want_p, want_l) = _probs_both(scores, np.asarray(1.0, dtype), mask)
        assert np.array_equal(got_p.view(f"i{got_p.itemsize}"), want_p.view(f"i{got_p.itemsize}"))
        assert np.array_equal(got_l.view(f"i{got_l.itemsize}"), want_l.view(f"i{got_l.itemsize}"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_attention_probabilities_with_nan_rows(dtype):
    """Rows holding a NaN (a maximum that may differ from the loop's): NaN probabilities and
    logsumexp in the same rows; the other rows bitwise."""
    j, k = _kernels()
    rng = np.random.default_rng(7)
    scores = rng.standard_normal((2, 3, 16, 16)).astype(dtype) * 4
    scores[0, 1, 3, 5] = np.nan
    scores[1, 2, 7, 0] = np.nan
    mask = np.triu(np.full((16, 16), -np.inf, dtype), 1)
    scale = np.asarray(0.25, dtype)
    (got_p, got_l), (want_p, want_l) = _probs_both(scores, scale, mask)
    assert np.array_equal(got_p, want_p, equal_nan=True)
    assert np.array_equal(got_l, want_l, equal_nan=True)
    assert np.isnan(got_p[0, 1, 3]).all() and np.isnan(got_l[1, 2, 7])
