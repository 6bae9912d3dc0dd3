"""Named regression tests for what the differential fuzzer found in the eighth pass (seeds
24,000,000 on and 25,000,000-25,099,999; continues tests/ops/test_fidelity_silent7.py, same
helpers; the ZeroTensor cases are in tests/ops/test_fidelity_zero_tensor.py): each compares
the case across framework and torch with a random upstream gradient, as the fuzzer does."""

import math

import numpy as np
import pytest
import torch

import framework

from ops.test_fidelity import same, t


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,n", [(3, 3), (5, 7), (1, 3), (3, 1), (1, 1), (2, 1), (40, 40)])
def test_mm_with_an_inner_dim_of_one_keeps_the_products_zero_sign(m, n, dtype):
    """torch's gemm with k = 1 (m, n > 1) is the outer product exactly: a zero row times a
    negative value is -0 (BLAS's accumulate into +0 gave +0); a row or column (gemv) is +0
    in both. rsqrt then tells the signs apart (-inf / inf)."""
    a = np.zeros((m, 1), dtype)
    a[0, 0] = 1.5
    b = -np.abs(np.random.default_rng(m * n).standard_normal((1, n))).astype(dtype) - 0.1
    for fn in (lambda L, x, y: L.mm(x, y), lambda L, x, y: x @ y):
        ours = fn(framework, framework.tensor(a), framework.tensor(b)).numpy()
        theirs = fn(torch, torch.tensor(a), torch.tensor(b)).numpy()
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
    same(lambda L, x, y: L.mm(x, y).rsqrt(), t(a, dtype), t(b, dtype))


def test_chain_matmul_with_a_zero_row_then_rsqrt():
    """Fuzzer seed 24037076: chain_matmul's cheapest order ends in a k = 1 product; the zero
    row of A gives -0 (torch) where rsqrt is -inf."""
    a = [[3.5035], [0.0], [1.5865]]
    b = [[-0.1446, 0.2548]]
    c = [[-0.3917, -1.8699, -1.0320, 0.8304], [-1.3099, -0.5374, -1.0707, 0.7220]]
    d = [[3.699, -2.805, -4.324], [4.717, 1.077, math.nan], [-3.325, 4.040, 3.149]]
    d.append([-0.5065, 1.7266, 0.9027])
    same(lambda L, *m: L.linalg.multi_dot(list(m)).rsqrt(), t(a), t(b), t(c), t(d))
    same(lambda L, *m: L.chain_matmul(*m).rsqrt(), t(a), t(b), t(c), t(d))


def test_sinc_float32_gradient_is_torchs_where_it_cancels():
    """sinc_backward's (pi x cos(pi x) - sin(pi x)) / (pi x^2) cancels for small x. Since the
    fourteenth pass ours evaluates it as torch does, in float32 with MKL's VML cos and sin, so
    the gradient is torch's bits there too (until then ours took the quotient in float64,
    more exact but 73 % of float32 gradients off torch's; seeds 25015574, 490015137)."""
    r = np.random.default_rng(1)
    scales = np.repeat([1e-3, 1e-2, 0.1, 1.0, 10.0, 1e5], 2000)
    x = (r.standard_normal(scales.size) * scales).astype("float32")
    up = r.standard_normal(x.size).astype("float32")
    grads = []
    for L in (framework, torch):
        v = L.tensor(x, requires_grad=True)
        v.sinc().backward(L.tensor(up))
        grads.append(v.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    same(
        lambda L, c, a, b: L.where(c, a, b).sinc(),
        t([[False], [True]], "bool"),
        t([[3.7e-3]], "float32"),
        t([[0.5]], "float32"),
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bilinear_then_sgn_materializes_the_zero_tensor_as_torchs_trilinear(dtype):
    """torch's bilinear is _trilinear (two bmm-like sum-products, TrilinearBackward0): sgn's
    ZeroTensor is materialized there, so a NaN in input2 gives NaN in input1's row and an
    inf in input1 NaN in input2's. Ours sums the second product with bmm (BmmBackward0
    materializes it too); the product-then-sum passed the ZeroTensor on (zeros)."""
    r = np.random.default_rng(3)
    a, b, w = r.standard_normal((3, 4)), r.standard_normal((3, 3)), r.standard_normal((2, 4, 3))
    b[0, 2] = math.nan
    a[1, 1] = math.inf
    same(
        lambda L, a, b, w: L.nn.functional.bilinear(a, b, w).sgn(),
        t(a, dtype),
        t(b, dtype),
        t(w, dtype),
    )
    bias = t(r.standard_normal(2), dtype)
    same(
        lambda L, a, b, w, c: L.nn.functional.bilinear(a, b, w, c).sgn(),
        t(a, dtype),
        t(b, dtype),
        t(w, dtype),
        bias,
    )
    same(
        lambda L, a, b, w: L.nn.functional.bilinear(a, b, w), t(a, dtype), t(b, dtype), t(w, dtype)
    )
