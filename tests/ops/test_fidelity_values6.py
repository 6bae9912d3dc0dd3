"""Named regression tests for the silent mismatches (values, NaN/inf positions, gradients)
the differential fuzzer found in its sixth pass (seeds 13,000,000-13,099,999; continues
tests/ops/test_fidelity5.py, same helpers): each compares the case across framework and torch
with a random upstream gradient, as the fuzzer does."""

import numpy as np
import pytest

import framework

from ops.test_fidelity import F, INF, NAN, rand, same, t
from ops.test_fidelity3 import grads_ok


def test_sinc_gradient_is_zero_where_torchs_denominator_underflows():
    """torch's sinc_backward divides by x * x * pi and returns 0 where that is 0: for
    |x| < ~1e-23 in float32 (x^2 underflows) as well as at x = 0 (ours checked x == 0 only
    and gave NaN)."""
    x = np.array([0.0, -1e-30, 1e-30, 1e-20, 0.5, -3.0, 1e-200, INF, 1e30])
    same(lambda L, a: L.sinc(a), t(x, "float32"))
    same(lambda L, a: L.sinc(a), t(x))
    grads_ok(lambda a: a.sinc(), [0.3, -1.7, 2.5])


def test_nan_to_num_gradient_is_grad_times_isfinite():
    """torch's gradient is grad * isfinite(x): a NaN upstream gradient (asin of the finite
    replacement) stays NaN at the replaced positions (ours masked it to 0)."""
    x = np.array([[0.1, -INF, 0.3], [INF, NAN, 1.0]])
    same(lambda L, a: L.nan_to_num(a).asin(), t(x))
    same(lambda L, a: L.nan_to_num(a, nan=2.0, posinf=3.0).sqrt(), t(x, "float32"))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (3, 4, 1), (2, 4, 2, 3), (2, 4, 1, 2, 2)])
def test_nll_loss_nan_gradient_reaches_only_the_targets(shape, reduction):
    """torch's nll_loss(2d) backward scatters -w[t] g to each kept target: a NaN upstream
    gradient (erfinv of a loss beyond 1) reaches no other class (ours multiplied g by a
    one-hot matrix, NaN * 0 = NaN everywhere)."""
    n_classes = shape[0] if len(shape) == 1 else shape[1]
    r = np.random.default_rng(len(shape))
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    target = r.integers(0, n_classes, tshape)
    x = t(rand(*shape) * 4)
    w = t(np.abs(rand(n_classes)), rg=False)
    for kw in ({}, {"weight": w}, {"ignore_index": int(target.reshape(-1)[0])}):
        same(
            lambda L, a, b, **k: F(L).nll_loss(a, b, reduction=reduction, **k).erfinv(),
            x,
            t(target, "int64"),
            **kw,
        )


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_histc_bins_in_the_inputs_dtype_as_torchs_linear_kernel(dtype):
    """torch's histc kernel takes the outer edges of linspace(min, max) in the input's dtype
    and bins x at (x - lo) * bins / (hi - lo), each step rounded to that dtype: a 0-dim
    -0.78235704 (range widened to [x - 1, x + 1]) lands in bin 4 in float32 (ours computed in
    float64 from the unrounded edges: bin 5)."""
    r = np.random.default_rng(1)
    same(lambda L, a: L.histc(a, bins=10), t(np.float32(-0.78235704), "float32", rg=False))
    for _ in range(40):
        x = np.round(r.standard_normal(int(r.integers(0, 20))) * 10.0 ** r.integers(-3, 3), 2)
        bins = int(r.integers(1, 20))
        lo, hi = (0, 0) if r.random() < 0.5 else sorted(np.round(r.standard_normal(2) * 3, 1))
        same(
            lambda L, a: L.histc(a.to(getattr(L, dtype)), bins=bins, min=lo, max=hi).double(),
            t(x, rg=False),
        )


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8", "bool", "float32", "float64"])
@pytest.mark.parametrize(
    "start, end, steps",
    [(2, -2.5, 5), (2.7, 3.9, 1), (0, 1, 0), (-1.5, 3.5, 6), (0.5, 2.5, 3), (1, 70, 4), (-3, 2, 4)],
)
def test_logspace_follows_torchs_kernel(start, end, steps, dtype):
    """torch converts start and end to the dtype first (an integer dtype truncates: -2.5 is
    -2, so logspace(2, -2.5, 5) in int64 is [100, 10, 1, 0, 0]), steps the exponent in double
    and casts pow(base, e) as C does; one step is a checked fill of pow(base, start); bool
    has no kernel (ours took exponents from a float linspace and cast the result)."""
    for base in (10.0, 2, -2.0, 0.5):
        same(lambda L: L.logspace(start, end, steps, base=base, dtype=getattr(L, dtype)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, k", [((1, 1), 1), ((3, 2), 2), ((4, 3), 2), ((2, 3, 3), 3)])
def test_householder_product_backward_is_torchs_reflector_walk(shape, k, dtype):
    """torch's householder_product_backward carries K = Q grad^T from factor to factor
    (H(tau)^-1 = H(tau / (tau |v|^2 - 1))), updating rows/columns i.. in place: an infinite
    upstream gradient (log1p at -1: tau = 2 on a 1x1 reflector) turns into NaN where that walk
    meets inf - inf (ours, from the product's prefix and suffix matrices: inf)."""
    r = np.random.default_rng(k)
    tau = r.standard_normal(shape[:-2] + (k,))
    for taus in (tau, np.full_like(tau, 2.0)):
        same(
            lambda L, a, b: L.linalg.householder_product(a, b).log1p(),
            t(r.standard_normal(shape), dtype),
            t(taus, dtype),
        )
    grads_ok(framework.linalg.householder_product, rand(*shape[-2:]), rand(k))


def test_lgamma_of_a_subnormal_is_minus_log_abs_x():
    """For a subnormal x, pi * x (the reflection formula's sine) rounds on the subnormal grid:
    ours was 6.5e-5 off at -1e-320 and 0.05 at 5e-324 (inside the fuzzer's tolerance, so
    checked tightly here); libm (torch) returns -log|x|."""
    import torch

    x = [-1e-320, 1e-320, -5e-324, 5e-324, -1e-310, -2.2250738585072014e-308, 2.2e-308, -1e-300]
    ours = framework.lgamma(framework.tensor(x, dtype=framework.float64)).numpy()
    np.testing.assert_allclose(ours, torch.lgamma(torch.tensor(x, dtype=torch.float64)), rtol=1e-15)
    same(lambda L, a: L.lgamma(a), t(x))
    same(lambda L, a: L.lgamma(a), t([-1e-45, 1e-45, -1e-40, -1.17e-38], "float32"))


def test_embedding_bag_max_keeps_the_first_row_unless_a_later_one_is_greater():
    """torch's max bag takes its first row, then each later row where strictly greater: a
    NaN wins only if it comes first (ours took NumPy's argmax, where NaN always wins); ties
    keep the first row (its gradient)."""
    w = rand(5, 4)
    w[1, 0], w[2, 1], w[3, 2] = NAN, NAN, INF
    w[4, 3] = w[0, 3]
    for idx in ([[4, 4], [0, 1]], [[1, 0], [2, 3]], [[0, 4, 2, 3]], [[3, 1, 2]]):
        same(lambda L, a, b: F(L).embedding_bag(a, b, mode="max"), t(idx, "int64"), t(w))
        same(
            lambda L, a, b: F(L).embedding_bag(a, b, mode="max"),
            t(idx, "int64"),
            t(w, "float32"),
        )


def test_pdist_p0_gradient_is_zero_whatever_the_upstream_gradient():
    """torch's _pdist_backward for p = 0 leaves its zero-filled result: an inf/NaN upstream
    gradient (erfinv at 1) gives 0, not 0 * inf = NaN."""
    x = t([[-1.0947882], [-1.0947882], [0.21659265]], "float32")
    same(lambda L, a: F(L).pdist(a, 0.0).erfinv(), x)
    same(lambda L, a: F(L).pdist(a, 0.0).log(), t(rand(4, 3)))
