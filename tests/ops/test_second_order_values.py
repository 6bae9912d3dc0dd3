"""Second-order values against torch (issue 9, the fuzzer's gg-silent classes): each test names
the seeds of the class it fixes. Where the second derivative cancels (lp_pool's (x^p)^(1/p),
cosine_similarity's normalized product), torch's rounding of each primitive and the order in
which its second backward sums decide the float32 bits, so those tests compare bit for bit."""

import numpy as np
import pytest
import torch

import framework
from fuzz.runner import compare_arrays
from parity import gradchecks

F = {framework: framework.nn.functional, torch: torch.nn.functional}


def _second(fn, arrays, seed=0):
    """(torch, ours): [create_graph gradients, second gradients] as arrays, and the
    create_graph gradients' node names, for random upstreams."""
    out = []
    for m in (torch, framework):
        rng = np.random.default_rng(seed)
        xs = [m.tensor(a, requires_grad=True) for a in arrays]
        y = fn(m, *xs)
        up = m.tensor(rng.standard_normal(tuple(y.shape)).astype(arrays[0].dtype))
        gs = m.autograd.grad(y, xs, up, create_graph=True)
        ups = [
            m.tensor(rng.standard_normal(tuple(g.shape)).astype(g.detach().numpy().dtype))
            for g in gs
        ]
        gg = m.autograd.grad(gs, xs, ups)
        out.append(
            (
                [g.detach().numpy() for g in gs] + [g.numpy() for g in gg],
                [g.grad_fn.name() for g in gs],
            )
        )
    return out


def _assert_same(t, f, exact):
    (tv, tn), (fv, fn) = t, f
    assert fn == tn
    for a, b in zip(tv, fv):
        if exact:
            np.testing.assert_array_equal(b, a)
        else:
            assert compare_arrays(b, a) is None


EDGES = [1e30, -1e30, np.inf, -np.inf, np.nan, 25.0, -25.0, 0.0, 0.7, -1.3, 19.0, -40.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mish_second_order_as_torch(dtype):
    """gg-silent mish (seeds 60015158, 60057014, 50014190, 50039914): torch's gradient is
    infinitely_differentiable_mish_backward, the softplus as log1p(exp(x)) with no threshold:
    at 1e30 its second derivative is 0 * inf = NaN (ours was 0)."""
    x = np.array(EDGES, dtype=dtype)
    t, f = _second(lambda m, x: F[m].mish(x), [x])
    _assert_same(t, f, exact=False)


@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 40, 100])
@pytest.mark.parametrize("exponent", [1 / 3, -2 / 3, 0.37, 1.5, 4.0, -0.5])
def test_float32_pow_scalar_tail_as_torch(exponent, n):
    """torch's float32 pow by a Scalar computes its scalar tail loop (the last n % 16
    elements, all of a short tensor) as std::pow(float, double); its rsqrt for -0.5 is
    1 / sqrt(x) (NaN at -inf, seed 50017884). The vectorized body (Sleef) is 1 ulp at most off
    ours."""
    rng = np.random.default_rng(n)
    a = (np.abs(rng.standard_normal(n)) * 10.0 ** rng.integers(-6, 6, n)).astype(np.float32)
    a[:2] = [-np.inf, 0.0][: min(n, 2)]
    t = torch.tensor(a).pow(exponent).numpy()
    f = framework.tensor(a).pow(exponent).numpy()
    tail = slice(n - n % 16, n)
    np.testing.assert_array_equal(f[tail], t[tail])
    np.testing.assert_array_max_ulp(f, t, maxulp=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_power_half_gradient_nan_as_torch(dtype):
    """silent float_power (seed 50017884): the gradient of x ** 0.5 reads x ** -0.5, torch's
    rsqrt: NaN at -inf, where pow(-inf, -0.5) is 0."""
    x = np.array([-np.inf, np.inf, 0.0, 4.0, -1.0, 2.5], dtype=dtype)
    res = []
    for m in (torch, framework):
        xt = m.tensor(x, requires_grad=True)
        (g,) = m.autograd.grad(m.float_power(xt, 0.5).sum(), xt)
        res.append(g.numpy())
    np.testing.assert_array_equal(res[1], res[0])


def test_pow_gradient_graph_as_torch():
    """pow_backward is grad * (exponent * self.pow(exponent - 1)): the Scalar product
    (MulBackward1) before the product with grad."""
    names = []
    for m in (torch, framework):
        x = m.tensor([0.5, 2.0, 3.0], requires_grad=True)
        (g,) = m.autograd.grad(x.pow(2.5).sum(), x, create_graph=True)
        names.append([n.name() for n, _ in g.grad_fn.next_functions if n is not None])
    assert names[1] == names[0]


@pytest.mark.parametrize(
    "fn,shape",
    [
        (lambda m, x: F[m].lp_pool1d(x, 3.0, 1), (2, 1, 4)),
        (lambda m, x: F[m].lp_pool1d(x, 2.5, 2), (2, 3, 6)),
        (lambda m, x: F[m].lp_pool2d(x, 3.0, 1), (1, 2, 3, 3)),
        (lambda m, x: F[m].lp_pool2d(x, 1.5, 2), (1, 2, 4, 4)),
    ],
)
def test_lp_pool_float32_second_order_bits_as_torch(fn, shape):
    """gg-silent lp_pool1d/lp_pool2d (seeds 60007022, 60099455, 50000386, 50012158,
    50091510): (x^p)^(1/p) differentiated twice cancels; torch's float32 pow (its scalar tail
    in double) and pow_backward's Scalar product first give its bits."""
    x = (np.random.default_rng(3).standard_normal(shape) * 0.2).astype(np.float32)
    t, f = _second(fn, [x])
    _assert_same(t, f, exact=False)


def test_div_mul_second_backward_sums_in_torchs_order():
    """gg-silent cosine_similarity (seed 50049633): torch's generated DivBackward0 and
    MulBackward0 build other's gradient before self's (derivatives.yaml keys sorted), so a
    second backward runs those nodes, and sums a leaf's gradient, in that order."""
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((2, 400)) * 0.1).astype(np.float32)
    for fn in (lambda m, x, y: x / y, lambda m, x, y: (x * y) / (y * x + 1)):
        t, f = _second(fn, [a, b])
        _assert_same(t, f, exact=False)


@pytest.mark.parametrize(
    "shape,dim",
    [((50, n), 1) for n in range(2, 24)] + [((4, 3, 1), 1), ((2, 3, 4), (1, 2)), ((9,), None)],
)
def test_float32_short_row_norm_bits_as_torch(shape, dim):
    """torch's float32 2-norm over trailing contiguous dims (AVX2): fma lanes, the lanes summed
    in order, a 4-value block's squares, then an fma tail; replayed for rows up to 23."""
    a = (np.random.default_rng(len(shape)).standard_normal(shape) * 0.3).astype(np.float32)
    t = torch.linalg.vector_norm(torch.tensor(a), 2, dim).numpy()
    f = framework.linalg.vector_norm(framework.tensor(a), 2, dim).numpy()
    np.testing.assert_array_equal(f, t)


@pytest.mark.parametrize(
    "shapes,dim", [(((3, 5, 1, 1), (3, 5, 1, 1)), -2), (((4, 2), (4, 1)), 1), (((6, 5), (6, 5)), 1)]
)
def test_cosine_similarity_float32_second_order_bits_as_torch(shapes, dim):
    """gg-silent cosine_similarity (seeds 60024005, 60062373, 50049633): norm_backward's
    masked_fill (not a where), the short rows' norms and the second backward's order as
    torch's."""
    rng = np.random.default_rng(7)
    arrays = [(rng.standard_normal(s) * 0.1).astype(np.float32) for s in shapes]
    t, f = _second(lambda m, x, y: F[m].cosine_similarity(x, y, dim=dim), arrays)
    _assert_same(t, f, exact=False)


def test_det_gradient_at_a_huge_entry_as_torch():
    """gg-silent det (seed 60092855: 4.8e12 off at an entry of 1e30): without a graph torch's
    det backward solves with the forward's LU (of A^T for a contiguous A, else of A, solved
    adjoint), not through the inverse's LU of A; the first gradient and the create_graph
    gradient's values as torch's. (A transposed input, factorized as is, still differs there:
    both results are cancellation noise, 5e12 where the cofactor is -0.69.)"""
    a = np.array([[-6.985246, 1e30], [-2.868152, -0.6914514]])
    transposed = False
    res = []
    for m in (torch, framework):
        x = m.tensor(a, requires_grad=True)
        d = m.linalg.det(x.mT if transposed else x)
        (g,) = m.autograd.grad(d, x)
        (gc,) = m.autograd.grad(m.linalg.det(x.mT if transposed else x), x, create_graph=True)
        res.append((g.numpy(), gc.detach().numpy(), gc.grad_fn.name()))
    (tg, tc, tn), (fg, fc, fn) = res
    assert fn == tn
    np.testing.assert_allclose(fg, tg, rtol=1e-12)
    np.testing.assert_allclose(fc, tc, rtol=1e-12)


def test_det_and_solve_backward_gradcheck_gradgradcheck():
    """The no-graph det and solve backwards (LU replays) on contiguous and transposed inputs."""
    a = np.random.default_rng(0).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = np.random.default_rng(1).standard_normal((2, 3, 2))
    for fn, args in (
        (lambda m, F, x: m.linalg.det(x), [a]),
        (lambda m, F, x: m.linalg.det(x.mT), [a]),
        (lambda m, F, x, y: m.linalg.solve(x.mT, y), [a, b]),
        (lambda m, F, x, y: m.linalg.solve(x, y), [a, b]),
    ):
        gradchecks(fn, args)


def test_special_i1_float32_second_order_as_torch():
    """gg-silent special_i1 (seed 50021817): torch's float i1 uses Cephes' float Chebyshev
    tables (17 and 7 coefficients); the full double tables put a third of the float32 values
    an ulp off, which i1's cancelling second derivative magnified to 5e-4."""
    x = (np.random.default_rng(2).standard_normal((1, 1, 3, 5)) * 0.1).astype(np.float32)
    t, f = _second(lambda m, x: m.special.i1(x), [x])
    _assert_same(t, f, exact=False)
    big = (np.random.default_rng(3).standard_normal(200) * 12).astype(np.float32)
    for fn in ("i1", "i1e"):
        tv = getattr(torch.special, fn)(torch.tensor(big)).numpy()
        fv = getattr(framework.special, fn)(framework.tensor(big)).numpy()
        np.testing.assert_array_max_ulp(fv, tv, maxulp=1)
        if fn == "i1e":  # (no exp: to the bit)
            np.testing.assert_array_equal(fv, tv)


@pytest.mark.parametrize("shape", [(1, 2, 3), (1, 3, 2, 1), (2, 4, 3)])
def test_local_response_norm_of_integers_as_torch(shape):
    """silent local_response_norm (seed 50018692): torch averages an integer tensor's squares
    with its integer avg_pool (truncating), then scales in float."""
    x = np.random.default_rng(4).integers(-5, 6, shape)
    t = F[torch].local_response_norm(torch.tensor(x), 2)
    f = F[framework].local_response_norm(framework.tensor(x), 2)
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    assert compare_arrays(framework.tan(f).numpy(), torch.tan(t).numpy()) is None


ORDER_CASES = {
    "mul": lambda m, a, b, c: a * b,
    "div": lambda m, a, b, c: a / b,
    "mm": lambda m, a, b, c: a @ b,
    "pow_tensor": lambda m, a, b, c: a**b,
    "hypot": lambda m, a, b, c: m.hypot(a, b),
    "xlogy": lambda m, a, b, c: m.xlogy(a, b),
    "lerp": lambda m, a, b, c: m.lerp(a, b, c),
    "addcmul": lambda m, a, b, c: m.addcmul(c, a, b),
    "atan2": lambda m, a, b, c: m.atan2(a, b),
}


@pytest.mark.parametrize("name", sorted(ORDER_CASES))
def test_input_gradients_built_in_torchs_order(name):
    """torch's generated nodes compute their derivatives.yaml keys in sorted order (other
    before self, mat2 before self, exponent before self, end/self/weight): the create_graph
    gradients' nodes are created in that order, the order a second backward runs them and
    sums each leaf's gradient in (float32 bits, seed 50049633)."""
    orders = []
    for m in (torch, framework):
        xs = [
            m.tensor(v, requires_grad=True)
            for v in np.random.default_rng(1).random((3, 3, 3)) + 0.5
        ]
        gs = m.autograd.grad(
            ORDER_CASES[name](m, *xs), xs, m.ones(3, 3), create_graph=True, allow_unused=True
        )
        seq = [g.grad_fn._sequence_nr() for g in gs if g is not None and g.grad_fn is not None]
        orders.append(np.argsort(seq).tolist())
    assert orders[1] == orders[0]


@pytest.mark.parametrize("name", ["hypot", "lerp", "div", "mul"])
def test_float32_second_order_bits_in_torchs_order(name):
    """The second-order gradients of those ops to the bit in float32 (the summation order)."""
    arrays = list((np.random.default_rng(5).random((3, 40, 40)) + 0.5).astype(np.float32))
    if name == "lerp":
        t, f = _second(ORDER_CASES[name], arrays)
    else:
        t, f = _second(lambda m, a, b: ORDER_CASES[name](m, a, b, None), arrays[:2])
    for a, b in zip(t[0], f[0]):
        np.testing.assert_array_equal(b, a)
