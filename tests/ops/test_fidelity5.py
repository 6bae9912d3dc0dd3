"""Named regression tests for the silent mismatches the differential fuzzer found in the fifth
pass (seeds 10,000,000-10,099,999; continues tests/ops/test_fidelity4.py, same helpers): each
compares the case across framework and torch with a random upstream gradient, as the fuzzer
does."""

import numpy as np

from ops.test_fidelity import INF, NAN, rand, same, t


def test_det_and_slogdet_of_non_finite_matrices_follow_torchs_lu():
    """torch factors A^T (its row-major data read as column-major) and multiplies out U's
    diagonal: sign = prod(sgn(diag)) * sign(P) with sgn(NaN) = 0, logabsdet = sum(log|diag|).
    An inf/NaN spreads where that elimination spreads it (NumPy factors A: ours gave sign 1,
    logabsdet inf where torch has 0, NaN)."""
    a = np.array([[-0.0185, INF], [-1.519, -INF]])
    b = rand(4, 3, 3)
    b[1, 0, 2], b[1, 2, 2], b[2, 1, 1], b[3, 1, 0], b[0, 0, 0] = -INF, -INF, INF, -INF, NAN
    for x in (a, b, np.array([[NAN]]), np.array([[INF, 1.0], [2.0, 3.0]])):
        for dtype in ("float64", "float32"):
            same(lambda L, m: L.linalg.slogdet(m), t(x, dtype, rg=False))
            same(lambda L, m: L.linalg.det(m), t(x, dtype, rg=False))
