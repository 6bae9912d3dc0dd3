"""Named regression tests for the older silent mismatches the differential fuzzer found
(seeds 17,0xx,xxx and earlier) and the seventh pass fixed: each compares the case across
framework and torch as the fuzzer does (same helpers as tests/ops/test_fidelity.py)."""

import numpy as np
import torch

import framework
from ops.test_fidelity import INF, NAN


def _unique_dim_agrees(x, dim):
    kw = {"dim": dim, "return_inverse": True, "return_counts": True}
    want = torch.unique(torch.tensor(x), **kw)
    got = framework.unique(framework.tensor(x), **kw)
    v, tv = got[0].numpy(), want[0].numpy()
    assert np.array_equal(v, tv, equal_nan=True), (x, v, tv)
    assert np.array_equal(np.signbit(v), np.signbit(tv)), (x, v, tv)  # which zero represents
    for a, b in zip(got[1:], want[1:]):
        assert np.array_equal(a.numpy(), b.numpy()), (x, a, b)


def test_unique_dim_orders_nan_rows_as_torchs_std_sort():
    """torch's unique_dim sorts row indices with std::sort and a lexicographic `<` under which
    a NaN ties with anything (the next column decides): rows with NaN land where libstdc++'s
    insertion sort / introsort puts them, not last as in NumPy's sort (seed 17051370), and
    each NaN row stays its own (NaN != NaN). Over 16 rows the sort is unstable, which also
    picks which of the rows equal up to a zero's sign represents them."""
    _unique_dim_agrees(np.array([[-0.0, 0.0, NAN], [-INF, 0.0, -0.0], [-0.0, 0.0, -0.0]]), 0)
    _unique_dim_agrees(np.array([[1.0, NAN], [1.0, 2.0], [0.0, 5.0], [1.0, NAN], [-0.0, 5.0]]), 0)
    r = np.random.default_rng(7)
    for n in (3, 16, 17, 40, 200):
        for dt in ("float64", "float32"):
            x = r.choice([0.0, -0.0, 1.0, 2.0, NAN, -INF], size=(n, 2)).astype(dt)
            _unique_dim_agrees(x, 0)
            _unique_dim_agrees(x.T.copy(), 1)
            _unique_dim_agrees(np.where(np.isnan(x), 0.5, x), 0)  # zeros of both signs only
