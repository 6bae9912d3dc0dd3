"""Named regression tests for the older silent mismatches the differential fuzzer found
(seeds 17,0xx,xxx and earlier) and the seventh pass fixed: each compares the case across
framework and torch as the fuzzer does (same helpers as tests/ops/test_fidelity.py)."""

import math

import numpy as np
import torch

import framework
from ops.test_fidelity import INF, NAN, F, rand, same, t


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


def _nan_inf_places(fn, x):
    a = fn(torch, torch.tensor(x)).numpy()
    b = fn(framework, framework.tensor(x)).numpy()
    for pick in (np.isnan, np.isposinf, np.isneginf):
        assert np.array_equal(pick(a), pick(b)), (x, a, b)


def test_interpolate_source_index_is_torchs_fused_float_arithmetic():
    """torch's upsample kernels compute `scale * (i + 0.5) - 0.5` in the input's precision
    with one fused multiply-add (float32: 0.33333334 * 1.5 - 0.5 is 1.5e-8, not 0), floor it
    as floorf, and (bicubic) take the coefficients in float: whether a tap's weight is exactly
    0 decides if an inf input makes NaN (inf * 0) there (seed 17056238: trilinear -inf where
    ours gave NaN). Linear modes copy when the sizes agree, whatever the scale factor."""
    one = lambda dt: np.full((1, 1, 1), -INF, dt)
    for dt in ("float32", "float64"):
        for n in (3, 5, 7, 9, 12):
            _nan_inf_places(lambda L, a: F(L).interpolate(a, size=n, mode="linear"), one(dt))
        x = rand(1, 2, 4, 3).astype(dt)
        x[0, 0, 1, 2], x[0, 1, 2, 0], x[0, 1, 0, 1] = -INF, INF, 1e30
        for mode in ("bilinear", "bicubic"):
            for sf in (3.0, 2.5, 7 / 3):
                for ac in (False, True):
                    fn = lambda L, a: F(L).interpolate(
                        a, scale_factor=sf, mode=mode, align_corners=ac
                    )
                    _nan_inf_places(fn, x)
        x3 = rand(1, 1, 3, 4, 1).astype(dt)
        x3[0, 0, 1, 1, 0], x3[0, 0, 2, 2, 0] = 1e30, -INF
        _nan_inf_places(lambda L, a: F(L).interpolate(a, scale_factor=3, mode="trilinear"), x3)
    same(lambda L, a: F(L).interpolate(a, scale_factor=1.2, mode="linear"), t(rand(1, 2, 3)))


def test_lgamma_float64_rounds_as_torchs():
    """torch's float64 lgamma is (nearly) correctly rounded; ours, libm's fits evaluated in
    extended precision, agrees with it bit for bit on almost every x (the Lanczos form was
    an ulp or more off on most, and lgamma(1e30) = 6.8e31 an ulp off is another tan:
    seed 17058493)."""
    r = np.random.default_rng(3)
    x = np.concatenate(
        [r.uniform(0, 8, 2000), np.exp(r.uniform(2, 70, 2000)), r.uniform(-30, 0, 2000)]
    )
    want = torch.lgamma(torch.tensor(x)).numpy()
    got = framework.lgamma(framework.tensor(x)).numpy()
    assert (got == want).mean() > 0.97
    assert np.abs(got - want).max() <= 16 * np.spacing(np.abs(want)).max()
    big = np.array([1e30, 1e20, 1e17, 1e16, 1e15, 3e8, 0.5, 1.897072, 1.0, 2.0])
    same(lambda L, a: L.lgamma(a).tan(), t(big))


def test_grid_sample_grid_gradient_multiplies_each_tap_by_the_upstream_gradient():
    """torch's 2-D kernel accumulates the grid gradient tap by tap (value * gOut * weight
    derivative * weight): an inf upstream gradient times a tap whose weight is 0 (bicubic at
    a whole coordinate, or a size-1 axis) or whose value is 0 is NaN; summing the taps first
    gave -inf (seed 16037904: bicubic then exp). Its bilinear kernel sums the taps first."""
    x = np.array([[[[1.418634], [1e30], [-1.119101]], [[-1.0], [0.359], [0.58]]]])
    g = np.array([[[[0.047299, 0.173361], [1.002212, 0.251724], [-0.352289, -0.081913]]]])
    for mode in ("bicubic", "bilinear"):
        for ac in (True, False):
            fn = lambda L, a, b: F(L).grid_sample(
                a, b, mode=mode, padding_mode="zeros", align_corners=ac
            )
            for dt in ("float32", "float64"):
                same(lambda L, a, b: fn(L, a, b).exp(), t(x, dt), t(g, dt))


def test_gelu_float32_lower_tail_is_torchs():
    """Below -3 torch's float32 gelu (oneDNN's AVX2 kernel) cancels in 1 + erf (4% off at
    -5): ours replays it (framework/ops/_sleef_math.py), its tail included, bit for bit."""
    x = np.linspace(-8, 3, 20001).astype("float32")
    want = torch.nn.functional.gelu(torch.tensor(x)).numpy()
    got = framework.nn.functional.gelu(framework.tensor(x)).numpy()
    np.testing.assert_array_equal(got, want)


def test_gelu_float32_is_zero_where_torchs_avx2_kernel_is():
    """The zeros and the 1e-6 closeness of the test above hold against torch's AVX2 kernel."""
    x = np.linspace(-8, 3, 20001).astype("float32")
    want = torch.nn.functional.gelu(torch.tensor(x)).numpy()
    got = framework.nn.functional.gelu(framework.tensor(x)).numpy()
    assert np.array_equal(got == 0, want == 0)
    assert np.abs(got - want).max() < 1e-6


def test_renorm_wraps_dim_before_refusing_an_integer_input():
    """torch checks p, maxnorm and the input's rank, then wraps dim (IndexError), and only
    then refuses a bool/int input in the norm (seed 21003095: RuntimeError first here)."""
    for dt in ("bool", "int64"):
        x = t(np.zeros((2, 1)), dt)
        same(lambda L, a: L.renorm(a, 1, -3, 1.0), x)
        same(lambda L, a: L.renorm(a, 1, 0, 1.0), x)


def test_cumulative_trapezoid_refuses_bool_y_before_wrapping_dim_without_x():
    """torch's cumulative_trapezoid(y, dx=, dim=) refuses a bool y before it wraps dim; with
    a tensor x it wraps dim first (seed 21021310: IndexError here before)."""
    b = t(np.zeros((2, 3)), "bool")
    same(lambda L, y: L.cumulative_trapezoid(y, dim=5), b)
    same(lambda L, y: L.cumulative_trapezoid(y, dx=2.0, dim=-3), b)
    same(lambda L, y, x: L.cumulative_trapezoid(y, x, dim=5), b, t(np.zeros(3)))
    same(lambda L, y: L.trapezoid(y, dim=5), b)


def test_linalg_lu_solve_backward_materializes_a_zero_gradient_and_normalize_rounds_as_torch():
    """torch's lu_solve backward computes with real zeros from sgn's ZeroTensor (products
    with an inf in X give NaN in the LU gradient; seed 21019506), and its 2-norm backward is
    grad * (x / norm): normalize over a size-1 dim then gives exactly 0 (seed 21015605; ours
    was x * (grad / norm), rounding noise of 1.5e-5)."""
    a = t(np.array([[[1.906422, -0.099247], [0.135153, 1.877078]]] * 2), "float32")
    b = np.array([[[-0.0, 1.0], [-INF, -2.475563]], [[4.3, 2.4], [4.5, -1e-30]]])
    for left in (True, False):
        for adjoint in (True, False):
            fn = lambda L, m, r: L.linalg.lu_solve(
                *L.linalg.lu_factor(m), r, left=left, adjoint=adjoint
            ).sgn()
            same(fn, a, t(b, "float32"))
    x = np.array([[[-0.118857, -0.034178, 0.082918, -0.009666], [-0.016, -0.0626, 0.04, 0.03]]])
    same(lambda L, v: F(L).normalize(v, p=2.0, dim=0), t(x, "float32"))


def test_topk_ranks_nan_above_inf():
    """torch's topk counts NaN largest, above inf; the partition fast path (k < n / 2) keyed
    NaN as inf and could return the inf (seed 21043777)."""
    col = np.array([-0.0355, 0.0155, NAN, INF, -0.139, 2.0, -INF])
    for k in (1, 2, 3):
        for largest in (True, False):
            same(lambda L, a: L.topk(a, k, dim=0, largest=largest), t(np.stack([col] * 3, 1)))


def test_logcumsumexp_first_step_turns_minus_zero_into_plus_zero():
    """torch's running log-sum-exp starts from -inf and adds log1p(0) to the first element, so
    a -0 comes out +0; log2 then gives the same -inf but its gradient grad / (0 ln 2) has the
    other sign (seed 21083964, over a size-1 dim)."""
    x = np.array([[-0.0, 1.0], [2.0, -0.0], [-0.0, -INF]])
    for dim in (0, 1):
        for dt in ("float64", "float32"):
            same(lambda L, a: L.logcumsumexp(a, dim).reciprocal(), t(x, dt))
            same(lambda L, a: L.logcumsumexp(a, dim).log2(), t(x, dt))
    same(lambda L, a: L.logcumsumexp(a, 0).reciprocal(), t(np.array(-0.0)))


def test_huber_and_smooth_l1_dtype_error_names_the_gradient_being_computed():
    """torch's backward of a mixed-dtype huber/smooth_l1 loss raises from the first formula
    it runs: input's ('Found dtype <target> but expected <input>'), or, when only the target
    requires grad, the target's, with the roles swapped (seed 21109401)."""
    for fn in ("huber_loss", "smooth_l1_loss"):
        for rg in ((True, False), (False, True), (True, True)):
            a = t(np.ones(3), "float64", rg=rg[0])
            b = t(np.zeros(3), "float32", rg=rg[1])
            same(lambda L, x, y: getattr(F(L), fn)(x, y, reduction="sum"), a, b)


def test_index_reduce_extremum_keeps_the_first_of_tied_signed_zeros():
    """torch's index_reduce amin/amax keep the value already there on a tie (std::min/max);
    NumPy's minimum.at takes the new one, so +0 vs -0 came out the other sign, which lgamma's
    gradient (digamma(+-0) = -+inf) shows (seed 21141430)."""
    x = np.array([[0.0], [-0.0], [0.0]])
    src = np.array([[-0.0], [0.0], [-0.0], [0.0]])
    idx = t(np.array([0, 1, 1, 2]), "int64")
    for reduce in ("amin", "amax"):
        for inc in (True, False):
            fn = lambda L, a, i, s: a.index_reduce(0, i, s, reduce, include_self=inc).lgamma()
            same(fn, t(x), idx, t(src))


def test_masked_scatter_broadcasts_before_its_dtype_checks():
    """torch's out-of-place masked_scatter expands input and mask first (the broadcast error
    wins over the bool-mask refusal; seed 21226947); the in-place method expands the mask to
    self."""
    x, m, src = t(np.zeros((2, 3, 0, 4))), t(np.zeros((2, 2, 4))), t(np.zeros(1))
    same(lambda L, a, b, c: L.masked_scatter(a, b, c), x, m, src)
    same(lambda L, a, b, c: a.clone().masked_scatter_(b, c), x, m, src)
    same(lambda L, a, b, c: L.masked_scatter(a, b, c), t(np.zeros((2, 3))), t(np.zeros(3)), src)


def test_addmm_with_an_empty_inner_dim_is_beta_times_input():
    """With no inner dim torch's addmm returns beta * input (a -0 stays -0; ours added the
    empty product's +0), which a chained log2's gradient shows (seed 21225073)."""
    b = np.array([[-1.2], [2.8], [0.38], [-0.0]])
    for beta in (1, 2, 0.5, 0, -1):
        fn = lambda L, x, m: L.addmm(x, m, L.zeros(0, 1, dtype=x.dtype), beta=beta).log2()
        same(fn, t(b, "float32"), t(np.zeros((4, 0)), "float32"))


def test_addcdiv_tensor1_gradient_keeps_torchs_zero_tensor():
    """Under sgn's ZeroTensor torch's addcdiv backward materializes it only in tensor2's
    formula (-grad ...): tensor1's, grad * (value / tensor2), stays zeros even where tensor2
    is 0 (seed 21251727: ours NaN there)."""
    c = np.array([0.0, INF, 2.0, -0.0])
    for shape in ((4,), (1,)):
        fn = lambda L, a, b, d: L.addcdiv(a, b, d, value=0.5).sgn()
        same(fn, t(np.zeros(4), "float32"), t(np.ones(shape), "float32"), t(c, "float32"))


def test_dist_refuses_bool_before_broadcasting():
    """torch's dist subtracts first: a bool input's refusal comes before the broadcast error
    (seed 21250996)."""
    for a, b in (("bool", "bool"), ("bool", "float64"), ("float64", "bool")):
        same(lambda L, x, y: L.dist(x, y, p=math.inf), t(np.zeros(2), a), t(np.zeros(3), b))


def test_hardtanh_refuses_negative_limits_on_uint8():
    """torch refuses hardtanh's negative limits on an unsigned tensor (seed 21298033: ours
    failed converting -1 to uint8 with an OverflowError)."""
    x = t(np.array([1, 2]), "uint8")
    same(lambda L, a: F(L).hardtanh(a), x)
    same(lambda L, a: F(L).hardtanh(a, 0.0, 1.0), x)
    same(lambda L, a: F(L).relu6(a), x)
