"""Named regression tests for what the differential fuzzer found in the seventh pass (seeds
18,000,000-18,099,999 and 20,000,000 on; continues tests/ops/test_fidelity_silent6.py, same
helpers): each compares the case across framework and torch with a random upstream gradient,
as the fuzzer does."""

import numpy as np
import pytest
import torch

import framework

from ops.test_fidelity import F, rand, same, t


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("scale", [1e-8, 1e-5, 1e-3, 0.03, 0.2, 0.5, 1.0, 2.0, 5.0, 50.0])
def test_matrix_exp_is_torchs_taylor_algorithm_bit_for_bit(dtype, batch, scale):
    """torch's matrix_exp: Taylor polynomials of degree 1..18 chosen by the 1-norm for a single
    matrix, degree 18 with scaling and squaring for a batch, in the input's precision. Up to
    5 x 5 our result is torch's to the bit on any CPU (each degree's branch, each scaling):
    torch multiplies such matrices (under 400 multiply-adds) with its own kernel, k in order.
    An 8 x 8 product goes to MKL, whose order depends on the CPU: in order without a fused
    multiply-add on the AVX2 machines measured (bit for bit there too), with one on AVX-512
    (Xeon SPR: 40 ulps of the largest entry after 50's squarings, and which overflowed
    entries are inf or NaN follows that order); the test asserts bits where torch's 8 x 8
    product is the unfused sum, elsewhere the same finite entries within the ulp bound."""
    r = np.random.default_rng(int(scale * 1e8) % 2**32 + batch)
    for n in (2, 3, 5, 8):
        a = (r.standard_normal((batch, n, n)) * scale).astype(dtype)
        ours = framework.linalg.matrix_exp(framework.tensor(a)).numpy()
        theirs = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
        if n < 8 or _torch_mm_is_unfused(dtype):
            np.testing.assert_array_equal(ours, theirs)
        else:
            np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(theirs))
            finite = np.isfinite(theirs)
            if finite.any():
                bound = 64 * np.finfo(dtype).eps * np.abs(theirs[finite]).max()
                assert np.abs(ours[finite] - theirs[finite]).max() <= bound


def _torch_mm_is_unfused(dtype):
    """Whether torch's 8 x 8 product (MKL on this CPU) is the in-order unfused sum ours is."""
    from framework.ops._expm import mm

    r = np.random.default_rng(0)
    a, b = (r.standard_normal((3, 8, 8)).astype(dtype) for _ in range(2))
    return np.array_equal(mm(np, a, b), (torch.tensor(a) @ torch.tensor(b)).numpy())


def test_matrix_exp_gradient_is_torchs_float32_block_exponential():
    """The gradient is exp([[A^T, G], [0, A^T]])'s upper-right block; with a large G (exp's
    chained gradient, 1e6) torch's float32 scaling squares 20 times and is 3% off the exact
    gradient: ours, the same algorithm in float32, is torch's (seed 18068149; the float64
    Pade of before was the exact gradient, 3% from torch's)."""
    a = rand(4, 3, 3).astype("float32") * 1.5
    a[0, 0, 2] = 3.5
    a[0, 2, 2] = 2.6
    same(lambda L, x: L.linalg.matrix_exp(x).exp(), t(a, "float32"))
    same(lambda L, x: L.linalg.matrix_exp(x), t(rand(1, 2, 2) * 40, "float32"))


def test_matrix_exp_nonfinite_and_sizes_as_torch():
    """A NaN or inf in a matrix makes all of it NaN (torch: no Taylor branch takes a NaN
    norm; inf scales to NaN), a huge entry too; 1 x 1 is exp, 0 x 0 a copy."""
    nan, inf = float("nan"), float("inf")
    same(lambda L, x: L.linalg.matrix_exp(x), t([[1.0, nan], [0.0, 1.0]], "float32"))
    same(
        lambda L, x: L.linalg.matrix_exp(x),
        t([[[1.0, inf], [0.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]]], "float32"),
    )
    same(
        lambda L, x: L.linalg.matrix_exp(x),
        t([[[1e30, 0.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]]], "float32", rg=False),
    )
    same(lambda L, x: L.linalg.matrix_exp(x), t([[100.0, 0.0], [0.0, 1.0]], "float32", rg=False))
    same(lambda L, x: L.linalg.matrix_exp(x), t(rand(3, 1, 1)))
    same(lambda L, x: L.linalg.matrix_exp(x), t(np.zeros((2, 0, 0))))


@pytest.mark.parametrize("method", ["addcmul_", "addcdiv_", "lerp_"])
def test_inplace_output_shape_checked_before_the_kernels_dtype(method):
    """torch's TensorIterator checks an in-place result's broadcast shape before its kernel
    refuses the dtype: a bool addcmul_ into a smaller output is the shape RuntimeError, not
    the kernel's NotImplementedError (seed 18071441); a broadcast mismatch is the size error."""

    def call(L, a, b):
        args = (b, b) if method != "lerp_" else (b, 0.5)
        return getattr(a.clone(), method)(*args)

    for sa, sb in (((3, 0), (1, 3, 0)), ((3, 1), (3, 2)), ((3, 2), (4, 2)), ((3, 2), (3, 2))):
        for dtype in ("bool", "int64"):
            same(call, t(np.zeros(sa), dtype), t(np.ones(sb), dtype), wording=method != "lerp_")


@pytest.mark.parametrize("rg", [(False, True), (True, False), (True, True)])
def test_huber_loss_mixed_dtype_backward_message_as_torch(rg):
    """huber_loss of float64 input and float32 target (or the other way) fails in backward;
    torch names the dtypes the other way round when only the target requires grad (seed
    18093111); smooth_l1_loss's backward works."""
    for dx, dy in (("float64", "float32"), ("float32", "float64")):
        for shape in ((2, 3), (4, 0, 1, 2)):
            x, y = t(rand(*shape), dx, rg=rg[0]), t(rand(*shape), dy, rg=rg[1])
            same(lambda L, a, b: F(L).huber_loss(a, b), x, y)
            same(lambda L, a, b: F(L).smooth_l1_loss(a, b, reduction="sum"), x, y)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize(
    "shape", [(3, 3), (7, 3), (3, 7), (5, 3), (4, 3), (2, 2, 2), (3, 3, 3), (0, 0), (6, 0), (6, 1)]
)
def test_fill_diagonal_is_torchs(shape, dtype, wrap):
    """Tensor.fill_diagonal_(value, wrap): torch's strided fill of the main diagonal (wrapping
    every width + 1 rows of a tall matrix), the value cast to the dtype, CopySlices node and a
    zero gradient on the diagonal; the copy fills in place and returns itself."""
    x = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape) * 0.5 - 1

    def call(L, a, v):
        b = a * 1 if a.requires_grad else a.clone()
        out = b.fill_diagonal_(v, wrap=wrap)
        assert out is b
        return out

    for value in (1.5, -2, True, float("nan")):
        same(call, t(x, dtype), value)


def test_fill_diagonal_errors_as_torch():
    """A 1-D or 0-dim tensor, unequal sides of a 3-D one, a leaf that requires grad."""
    for shape in ((3,), (), (3, 3, 2), (2, 3, 3)):
        same(lambda L, a: a.clone().fill_diagonal_(1.0), t(np.zeros(shape)))
    same(lambda L, a: a.fill_diagonal_(1.0), t(np.zeros((2, 2))))


@pytest.mark.parametrize("self_dtype", ["float32", "float64", "float16", "int64", "bool"])
@pytest.mark.parametrize("other_dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_ldexp_inplace_is_torchs(self_dtype, other_dtype):
    """Tensor.ldexp_(other): self * 2 ** other written into self (LdexpBackward0), an
    integer/bool self refused first ("ldexp can't be cast to the desired output type"), a
    broadcast that would grow self refused, a number for other a TypeError; a float16 self's
    exponent gradient is torch's (grad * self * ln 2 rounded to float16, then * 2 ** other)."""
    for ss, os_ in (((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 3), (4, 3))):
        if self_dtype == "float16" and other_dtype[0] == "f" and ss != os_:
            continue  # torch sums a broadcast exponent's gradient in float16 (README)
        x = np.arange(1, 1 + int(np.prod(ss))).reshape(ss) * 0.75
        e = np.arange(int(np.prod(os_))).reshape(os_) % 3 - 1
        same(
            lambda L, a, b: (a * 1 if a.requires_grad else a.clone()).ldexp_(b),
            t(x, self_dtype),
            t(e, other_dtype),
        )
    same(lambda L, a: a.clone().ldexp_(2), t(np.ones(2), self_dtype))


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_index_of_each_later_nan_as_torch(op):
    """torch's scan takes every NaN it meets (x != x), so after a NaN each later NaN moves the
    index to itself (seed 20006093: [-inf, nan, nan, -1, 0] has indices 0 1 2 2 2); values,
    ties (the later index) and the gradient follow the index."""
    nan, inf = float("nan"), float("inf")
    x = np.array([[-inf, nan, nan, -1.0, 0.0], [1.0, 1.0, nan, 2.0, nan], [nan, 3, 3, nan, 1]])
    for dtype in ("float32", "float64"):
        same(lambda L, a: getattr(L, op)(a, 1), t(x, dtype))
        same(lambda L, a: getattr(L, op)(a, 0), t(x.T.copy(), dtype))
    same(lambda L, a: getattr(L, op)(a, 0), t([3, 1, 1, 5, 5], "int64"))


def test_triangular_solves_substitute_as_trsm_without_mixing_rows():
    """A triangular solve is a substitution as torch's trsm: a component depends only on the
    entries of B it should (seed 20011400: a unit lower triangle with B = [-0.49, -0, 1e30];
    NumPy's pivoting LU solve put 1e30's rounding, 4e13, into x0 and x1), for
    solve_triangular, triangular_solve, cholesky_solve and lu_solve alike."""
    A = np.array([[2.93, -1.28, 4.23], [-2.0, -1.74, -4.26], [3.3, 1.3, 4.34]])
    B = np.array([[-0.487], [-0.0], [1e30]])
    for dtype in ("float32", "float64"):
        for upper, b in ((False, B), (True, B[::-1].copy())):
            same(
                lambda L, a, c: L.linalg.solve_triangular(a, c, upper=upper, unitriangular=True),
                t(A, dtype),
                t(b, dtype),
            )
            same(
                lambda L, a, c: L.triangular_solve(c, a, upper=upper).solution,
                t(A, dtype),
                t(b, dtype),
            )
        same(lambda L, a, c: L.linalg.solve_triangular(a, c, upper=False, left=False), t(A), t(B.T))
    chol = np.linalg.cholesky(A @ A.T + np.eye(3))
    same(lambda L, c, l: L.cholesky_solve(c, l), t(B), t(chol))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize(
    "mode, shape, size",
    [
        ("linear", (1, 2, 1), 5),
        ("linear", (2, 1, 4), 5),
        ("linear", (1, 1, 3), 7),
        ("bilinear", (1, 1, 1, 4), (5, 5)),
        ("bilinear", (1, 2, 3, 3), (5, 10)),
        ("trilinear", (2, 1, 3, 1, 4), (2, 5, 5)),
        ("trilinear", (1, 1, 2, 3, 2), (3, 7, 5)),
    ],
)
def test_linear_interpolation_weights_place_inf_and_nan_as_torch(
    mode, shape, size, align_corners, dtype
):
    """torch computes a linear mode's source position in the input's precision with one fused
    multiply-add (scale * (i + 0.5) - 0.5, contracted in its AVX2 build): at scale 1/5 output
    2's weight on the next input is 7e-9, not 0, so an inf there gives inf, not NaN (seed
    20017955). With inf/NaN inputs every output reads the taps torch's kernel reads."""
    r = np.random.default_rng(len(shape) * 7 + int(align_corners))
    x = r.standard_normal(shape)
    x.flat[r.integers(x.size, size=2)] = (float("inf"), float("-inf"))
    if x.size > 4:
        x.flat[r.integers(x.size)] = float("nan")

    def call(L, a):
        return F(L).interpolate(a, size=size, mode=mode, align_corners=align_corners)

    same(call, t(x, dtype))
    same(lambda L, a: F(L).interpolate(a, scale_factor=2.5, mode=mode), t(x, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_interpolation_taps_for_every_size_pair(dtype):
    """For every size pair up to 7 -> 23, an inf at each input position (one channel each)
    reaches exactly the outputs torch's taps reach, with weight 0 (NaN) where torch's is 0:
    the float64 kernel's fused multiply-add and float floor (floorf) included."""
    for n_in in range(1, 8):
        x = np.ones((1, n_in, n_in))
        x[0, np.arange(n_in), np.arange(n_in)] = float("inf")
        for n_out in range(1, 24):
            same(
                lambda L, a: F(L).interpolate(a, size=n_out, mode="linear"),
                t(x, dtype, rg=False),
            )


@pytest.mark.parametrize("eps", [None, 0.0, 1e-3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logit_backward_at_zero_and_one_is_torchs_scalar_kernel(dtype, eps):
    """torch's logit backward (its scalar loop, which a tensor shorter than one vectorised
    chunk runs) gives grad * inf at x == 0 or 1: x = -0 with a positive grad is +inf, not
    grad / (-0) = -inf (seed 20133993); NaN outside [0, 1] without eps, 0 outside
    [eps, 1 - eps] with it."""
    x = [-0.0, 0.0, 1.0, 0.5, 2.0]
    same(lambda L, a: L.logit(a) if eps is None else L.logit(a, eps), t(x, dtype))
    same(lambda L, a: L.logit(a) if eps is None else L.logit(a, eps), t([-0.0, 1.0, -0.0], dtype))


def test_two_gradients_of_a_zero_dim_input_sum_to_an_array():
    """The engine's sum of two gradients of a 0-dim tensor is a 0-dim array, not a NumPy
    scalar: index_fill's backward, which fills a copy of it, wrote into a temporary and
    passed the gradient unmasked (seed 20100287: index_fill then tanhshrink, y - tanh(y))."""
    for fn in (
        lambda L, x: (lambda y: y + y)(L.index_fill(x, -1, L.tensor([0, -1, -1]), 3.25)),
        lambda L, x: F(L).tanhshrink(L.index_fill(x, 0, L.tensor([0]), 3.25)),
        lambda L, x: (lambda y: y * y + y)(x.index_fill(0, L.tensor([-1]), 0.5)),
    ):
        same(fn, t(-1.78, "float32"))
        same(fn, t(0.5))


@pytest.mark.parametrize("ord", [3, 2, 1, 0.5, float("inf"), -1, 0])
def test_vector_norm_of_a_zero_dim_tensor_with_a_dim_reduces_as_torch(ord):
    """A 0-dim tensor with dim given goes through torch's reduction (|x|^p summed, then
    ^(1/p)): 1e30 in float32 overflows to inf for p = 2, 3 (seed 20212839); without dim, or
    a one-element 1-D tensor, torch returns |x|."""
    for v in (1e30, 1e-30, -2.0, 0.0):
        for kw in ({}, {"dim": -1}, {"dim": 0}):
            same(lambda L, a: L.linalg.vector_norm(a, ord=ord, **kw), t(v, "float32"))
            same(lambda L, a: L.linalg.vector_norm(a, ord=ord, **kw), t([v], "float32"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("v", [1e30, -1e30, 1e8, -2e8, 1.0, -0.5])
@pytest.mark.parametrize("bins", [1, 2, 3, 7, 10])
def test_histc_of_one_huge_value_is_torchs_middle_bin(dtype, v, bins):
    """histc over a range of one value widens it to [v - 1, v + 1] in the input's dtype; where
    that rounds back to v (1e30, 1e8 in float32) torch counts v in bin bins // 2, where ours
    divided 0 by 0 into a negative index and NumPy's ValueError (fuzzer seed 22092392)."""
    for x, kw in (([v], {}), ([v, v, v], {}), ([v, 2 * v, v], dict(min=v, max=v))):
        ours = framework.histc(framework.tensor(x, dtype=getattr(framework, dtype)), bins, **kw)
        theirs = torch.histc(torch.tensor(x, dtype=getattr(torch, dtype)), bins, **kw)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_native_norm_backwards_materialize_sgns_zero_gradient_as_torch():
    """torch's native_layer_norm/native_group_norm backward kernels take sgn's ZeroTensor
    gradient as real zeros: 0 times the NaN statistics of a row or group holding inf is NaN
    there (ours passed the zeros through: fuzzer seed 23026801). Rows without inf get 0 from
    layer_norm; torch's group_norm leaves unwritten memory in those groups (1e-310 or 1e72
    from run to run), so only the NaN group is compared there."""
    x = np.array([[1.0, np.inf, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]])
    cases = (
        (lambda L, a: L.nn.functional.layer_norm(a, (4,)), slice(None)),
        (lambda L, a: L.nn.functional.group_norm(a.reshape(2, 2, 2), 1), slice(0, 1)),
    )
    for fn, rows in cases:
        grads = []
        for L in (torch, framework):
            a = L.tensor(x, requires_grad=True)
            y = fn(L, a).sgn()
            y.backward(L.ones_like(y))
            grads.append(a.grad.numpy()[rows])
        np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("x_dtype", ["int64", "int32", "uint8"])
@pytest.mark.parametrize("t_dtype", ["float64", "float32", "float16", "bfloat16", "int64", "bool"])
def test_soft_margin_loss_integer_input_names_the_promoted_result_type(x_dtype, t_dtype):
    """soft_margin_loss of an integer input: torch's formula's result (a floating target's type
    by integer-with-float promotion, else exp's default Float) cannot be cast into the input's
    type; the message names that type (ours always said Float: fuzzer seed 24093712)."""
    msgs = []
    for L in (torch, framework):
        x, y = (
            L.zeros((2, 0), dtype=getattr(L, x_dtype)),
            L.zeros((2, 0), dtype=getattr(L, t_dtype)),
        )
        with pytest.raises(RuntimeError) as e:
            L.nn.functional.soft_margin_loss(x, y, reduction="none")
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0]
