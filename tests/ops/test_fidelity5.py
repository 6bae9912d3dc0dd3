"""Named regression tests for the silent mismatches the differential fuzzer found in the fifth
pass (seeds 10,000,000-10,099,999; continues tests/ops/test_fidelity4.py, same helpers): each
compares the case across framework and torch with a random upstream gradient, as the fuzzer
does."""

import numpy as np

from ops.test_fidelity import INF, NAN, F, rand, same, t
from ops.test_fidelity3 import grads_ok


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


def test_layer_and_group_norm_statistics_overflow_as_torchs_welford_kernel():
    """torch's RowwiseMoments (vectorised Welford, 8 float32 / 4 float64 lanes, then a scalar
    merge of the lanes into the tail) overflows where |x| is beyond sqrt(max) / 2: NaN where
    the scalar merge meets an empty side (inf * 0), inf (so y = 0) elsewhere; a two-pass
    variance stayed finite (ours gave 0 where torch has NaN, and the reverse)."""
    rows = np.zeros((6, 8), "float32")
    rows[0, 3] = rows[1, 0] = -1e30
    rows[2] = 1e30
    rows[3, :2] = [1.5e19, -1.5e19]
    rows[4, 5] = 1e20
    rows[5] = rand(8)
    for width in (1, 2, 8):
        same(lambda L, a: F(L).layer_norm(a, (width,)), t(rows[:, :width], "float32"))
    long = rand(3, 520).astype("float32")
    long[0, 518], long[1, 3], long[2, 100:104] = -1e30, 1e30, 1e30
    same(lambda L, a: F(L).layer_norm(a, (520,)), t(long, "float32"))
    big = rand(2, 3, 200)
    big[0, 1, 7], big[1, 2, 190] = 1e300, -1e200
    same(lambda L, a: F(L).layer_norm(a, (200,)), t(big))
    same(lambda L, a: F(L).group_norm(a, 1), t([[-0.42], [1e30]], "float32"))
    g = t([[1e30, -2.63, 0.59, -0.67], [-0.3, 0.67, 0.5, NAN]], "float32")
    w, b = t([-0.66, 1.69, 0.49, 0.18], "float32"), t([-0.04, -0.19, -0.02, -0.06], "float32")
    same(lambda L, a, c, d: F(L).group_norm(a, 2, c, d), g, w, b)


def test_group_norm_uses_torchs_fused_scale_and_shift():
    """torch's group_norm kernel with an affine part is y = x * scale + (beta - mean * scale),
    scale = rstd * gamma: a large mean cancels in float32 (ours normalised first), and its
    input gradient is c1 dy + c2 x + c3 (GroupNormInputBackward), whose terms cancel alike."""
    x = t([[[[-1e-30]]], [[[1.0]]]], "float32")
    w, b = t([7.17562], "float32"), t([-1.17514], "float32")
    same(lambda L, a, c, d: F(L).group_norm(a, 1, c, d), x, w, b)
    same(lambda L, a, c, d: F(L).group_norm(a, 1, c, d).selu(), x, w, b)
    same(lambda L, a, c, d: F(L).group_norm(a, 3, c, d), t(rand(2, 6, 5)), t(rand(6)), t(rand(6)))


def test_unique_keeps_every_nan_distinct_in_input_order():
    """torch's sort-based unique compares neighbours with !=: each NaN is its own value (and
    count 1), in input order; NumPy's unique merged them (equal_nan)."""
    x = t([[-0.0, -1.0, 0.0], [0.0, NAN, 0.0], [2.0, INF, NAN], [NAN, -1.0, 1.0]], "float32")
    for inverse in (False, True):
        for counts in (False, True):
            same(lambda L, a: L.unique(a, return_inverse=inverse, return_counts=counts), x)
    same(lambda L, a: L.unique(a, return_inverse=True), t([NAN, NAN, 1.0], rg=False))


def test_atan2_gradient_is_zero_where_the_denominator_is_zero():
    """torch's atan2_backward masks recip = 1 / (y^2 + x^2) to 0 where the denominator is 0
    (both zero, or their squares underflow in float32): ours gave NaN / inf there."""
    y = t([0.0, 1e-30, -1e-30, 0.0, 1e-45, 2.0, NAN], "float32")
    x = t([0.0, 0.0, 1e-30, -1e-30, 1e-45, 0.0, 1.0], "float32")
    same(lambda L, a, b: L.atan2(a, b), y, x)
    same(lambda L, a, b: L.atan2(a, b), t([0.0, 1.0, -0.0]), t([0.0, 0.0, -0.0]))
    grads_ok(lambda a, b: a.atan2(b), rand(3) + 2, rand(3) - 2)


def test_cdist_and_pdist_backward_follow_torchs_distance_kernels():
    """torch's distance backward kernels: p=1 is grad * sign(diff) with a vectorised sign that
    keeps NaN (sgn gives 0); p=2 and general p return 0 where dist == 0 before meeting the
    gradient (an inf gradient from log(0) gives 0, not NaN); each pair's term reaches only its
    two rows (a NaN term must not spread through an incidence matmul)."""
    a, b = rand(2, 4, 3), rand(2, 3, 3)
    b[1, 1, 1] = NAN
    same(lambda L, x, y: L.cdist(x, y, p=1.0), t(a), t(b))
    rows = rand(3, 4).astype("float32")
    rows[1] = rows[0]
    for p in (1.0, 1.5, 2.0, 3.0):
        same(lambda L, x: F(L).pdist(x, p=p).log(), t(rows, "float32"))
    nan_rows = rand(4, 3)
    nan_rows[2, 1] = NAN
    for p in (1.0, 2.0, INF):
        same(lambda L, x: F(L).pdist(x, p=p), t(nan_rows))


def test_median_of_all_elements_gives_a_nan_gradient_to_the_median_only():
    """torch's evenly_distribute_backward on CPU fills zeros with grad / count at the median's
    elements: a NaN upstream gradient (sqrt of a negative median) stays there (ours
    multiplied the mask by it: NaN everywhere)."""
    x = t([[-0.89, -1.13, 0.013], [-0.41, 0.18, 0.33], [-0.11, 1.39, -0.022]], "float32")
    for name in ("median", "nanmedian"):
        same(lambda L, a: getattr(L, name)(a).sqrt(), x)
        same(lambda L, a: getattr(L, name)(a).log(), t([1.0, -2.0, NAN, -3.0]))


def test_ctc_loss_gradient_is_zero_past_each_input_length_even_for_a_nan_upstream():
    """torch's ctc_loss_backward writes (exp(lp) - ...) * grad_out for t < input_length and
    zeroes the rest (and a zero_infinity sample): an impossible alignment (inf loss, then
    cos: NaN upstream) gives NaN only on the sample's own frames (ours: NaN everywhere)."""
    lp = t(np.log(np.random.default_rng(3).dirichlet(np.ones(3), size=(6, 1))))
    tg, il, tl = t([2, 2, 2], "int64"), t([4], "int64"), t([3], "int64")
    for zi in (False, True):
        fn = lambda L, a, b, c, d: F(L).ctc_loss(a, b, c, d, reduction="none", zero_infinity=zi)
        same(lambda L, *a: fn(L, *a).cos(), lp, tg, il, tl)
        same(
            lambda L, *a: fn(L, *a).sqrt(),
            lp,
            t([[1, 2]], "int64"),
            t([5], "int64"),
            t([2], "int64"),
        )


GELU_ZEROS = [-0.0, -6.0, -10.0, -30.0, -1e30, 0.0, 1.0]


def test_gelu_zero_signs_of_float64_and_the_tanh_form():
    """float64 gelu and the tanh form give -0 where the result is zero, as x * cdf
    (reciprocal tells)."""
    for dtype, approximate in (("float64", "none"), ("float32", "tanh"), ("float64", "tanh")):
        fn = lambda L, a: F(L).gelu(a, approximate=approximate).reciprocal()
        same(fn, t(GELU_ZEROS, dtype, rg=False))


def test_float32_gelu_underflows_to_plus_zero():
    """torch's float32 gelu AVX2 kernel (fma(x/2, erf, x/2)) gives +0 where the result is
    zero (x <= -6, and x = -0)."""
    same(lambda L, a: F(L).gelu(a).reciprocal(), t(GELU_ZEROS, "float32", rg=False))
    same(lambda L, a: F(L).gelu(a), t(-7.0, "float32"))


def test_float_remainder_zero_keeps_the_dividends_sign_as_torchs_kernel():
    """torch's remainder is fmod(a, b) plus b where the result is nonzero and its sign
    differs from b's: a zero result keeps the sign of fmod (0 % -0.5 and False % -inf are
    +0), NumPy's remainder gives -0 (then reciprocal: -inf where torch has inf)."""
    x = t([-0.5, 0.0, -0.0, 2.0, INF, -INF, NAN, -7.25], rg=False)
    same(lambda L, a: (False % a).reciprocal(), x)
    same(lambda L, a: (0.0 % a).reciprocal(), t([-0.5, -INF, 3.0], "float32", rg=False))
    same(lambda L, a: L.remainder(a, -0.5).reciprocal(), x)
    same(lambda L, a, b: L.remainder(a, b), t(rand(5) * 4), t(rand(5)))


def test_multi_margin_loss_gradient_skips_a_nan_logit_as_torchs_kernel():
    """torch's multi_margin_loss kernel adds a class only where z = margin - x[y] + x[i] > 0:
    a NaN logit (NaN > 0 is false) drops out of the loss and its gradient; ours picked x[y]
    by a one-hot product (NaN * 0 = NaN reached every class)."""
    x = t([[-0.8659, NAN, -0.46472], [0.3, -0.2, 1.1]], "float32")
    for p in (1, 2):
        same(lambda L, a, b: F(L).multi_margin_loss(a, b, p=p, margin=0.5), x, t([0, 2], "int64"))


def test_solve_and_inv_of_non_finite_matrices_follow_torchs_lu_solver():
    """torch solves by getrf then getrs' two substitutions (inv is solve(A, I)): an inf/NaN in
    A spreads where that elimination spreads it (NumPy's gesv left other entries finite)."""
    a = rand(4, 3, 3)
    a[0] = [[-2.61915, -0.60269, -0.16928], [3.34006, INF, 5.43945], [-0.43888, -1.3771, -1.18525]]
    a[1, 2, 0], a[2, 0, 2], a[3, 1, 0] = NAN, -INF, NAN
    b = rand(4, 3, 2)
    b[0] = [[-0.13864, -0.01452], [1.00449, 0.00996], [-0.49549, 0.34547]]
    same(lambda L, m, r: L.linalg.solve(m, r), t(a, rg=False), t(b, rg=False))
    same(lambda L, m, r: L.linalg.solve(m, r), t(a[0], rg=False), t(b[0, :, 0], rg=False))
    same(lambda L, m: L.linalg.inv(m), t(a, rg=False))
    same(lambda L, m: L.linalg.matrix_power(m, -1), t(a, "float32", rg=False))


def test_scatter_reduce_prod_self_gradient_is_torchs_masked_ratio():
    """torch's scatter_reduce backward for prod: grad * masked_result / masked_self with self's
    zeros set to 1, then the scattered places zeroed without include_self: an inf/NaN self
    gives NaN even where nothing is scattered; a zero self gets the product of its sources."""
    x = rand(4, 5, 1)
    x[1, 1, 0], x[2, 0, 0], x[3, 3, 0] = -INF, 1e30, 0.0
    empty = t(np.zeros((4, 0, 0)), "int64")
    fn = lambda L, a, i, s, inc: a.scatter_reduce(-2, i, s, "prod", include_self=inc)
    for inc in (False, True):
        same(lambda L, a, i, s: fn(L, a, i, s, inc), t(x), empty, t(np.zeros((4, 0, 0))))
        idx = t([[[0], [2]], [[1], [1]], [[4], [0]], [[3], [2]]], "int64")
        same(lambda L, a, i, s: fn(L, a, i, s, inc), t(x), idx, t(rand(4, 2, 1) + 3))
