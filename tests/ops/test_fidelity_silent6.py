"""Named regression tests for the silent mismatches the differential fuzzer found in the sixth
pass (seeds 13,000,000-13,099,999; continues tests/ops/test_fidelity5.py, same helpers): each
compares the case across framework and torch with a random upstream gradient, as the fuzzer
does."""

import warnings

import numpy as np

from ops.test_fidelity import INF, NAN, rand, same, t


def _chain(L, *ms):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # chain_matmul's deprecation, in both
        return L.chain_matmul(*ms)


def test_chain_matmul_and_multi_dot_multiply_in_torchs_order():
    """torch's multi_dot picks the cheapest order (two orders compared for three matrices,
    CLRS's dynamic programme for more, first minimum on ties) and an inf meets other zeros
    and signs in each order: NaN / values where ours, left to right, had others. Its 1-D ends
    are unsqueezed and the result is a view (ViewBackward0)."""
    a = rand(2, 3)
    a[1, 2] = INF
    b, c, d = rand(3, 4), rand(4, 3), rand(3, 1)
    c[0, 0] = -INF
    same(_chain, t(a), t(b), t(c), t(d))
    same(lambda L, *ms: L.linalg.multi_dot(list(ms)), t(a), t(b), t(c), t(d))
    e = rand(5, 4).astype("float32")
    e[3, 1] = INF
    same(_chain, t(e, "float32"), t(rand(4, 2), "float32"), t(np.zeros((2, 0)), "float32"))
    same(
        _chain,
        t(rand(1, 2)),
        t(rand(2, 3)),
        t([[INF, 1, 0], [0, NAN, 2], [1, 1, 1]]),
        t(rand(3, 0)),
    )
    for shapes in ([(3,), (3, 1), (1, 5), (5, 3), (3,)], [(2, 3), (3, 4), (4,)], [(4,), (4, 2)]):
        ms = [rand(*s) for s in shapes]
        ms[0].flat[0] = INF
        same(lambda L, *m: L.linalg.multi_dot(list(m)), *[t(m) for m in ms])
    same(_chain, t(rand(2, 2)))  # one matrix: a clone
    same(_chain, t(rand(2, 2, 2)))  # torch's checkAllSameDim message
    same(lambda L, a, b: L.linalg.multi_dot([a, b]), t(rand(2, 3)), t(rand(3, 2), "float32"))
    same(lambda L, a, b: L.linalg.multi_dot([a, b]), t(rand(2, 3)), t(rand(2, 2)))
    same(lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), t(rand(2)), t(rand(2)), t(rand(2)))


def _cov_and_input(L, a, **kw):
    y = a * 1  # torch zeroes it in place: compare it (and its ZeroBackward0) too
    return L.cov(y, **kw), y


def test_cov_of_one_observation_with_one_weight_zeroes_the_input_as_torch():
    """With one observation and exactly one of fweights / aweights torch 2.13 zeroes the
    (viewed) input in place instead of centring it, and an integer input becomes float32, so
    float64 aweights meet it in mm's dtype check; with aweights and correction 1 the
    normaliser is exactly 0 (ours centred: inf - inf = NaN, and int64 promoted to w's
    dtype)."""
    for kw in (
        {"aweights": t([2.0], rg=False)},
        {"fweights": t([3], "int64")},
        {"aweights": t([2.0], "float32", rg=False), "correction": 2},
    ):
        same(_cov_and_input, t([[1.5], [INF]], "float32"), **kw)
        same(_cov_and_input, t([[1.5], [-2.0]]), **kw)
        same(_cov_and_input, t(3.0), **kw)
        same(lambda L, a, **k: L.cov(a, **k), t([[1], [3]], "int64"), **kw)
    same(lambda L, a, w: L.cov(a, aweights=w), t(np.zeros((0, 1)), "int64"), t([1.0], rg=False))
    same(lambda L, a, w: L.cov(a, aweights=w), t([[2.0], [1.0]]), t([1e300], rg=False))
    same(lambda L, a, w: L.cov(a, aweights=w), t(rand(2, 3)), t([1.0, 2.0, 0.5], rg=False))
