"""The gamma family, torch.special and the other common functions of framework/ops/gamma.py,
extras4.py, histogram.py, matrix_fns.py, index_reduce.py against torch 2.13: values, dtypes,
node names (whole graphs), gradients for a random upstream gradient, errors; gradcheck and
gradgradcheck of every hand-written backward."""

import math
import warnings

import numpy as np
import pytest
import torch

import framework
from parity import F32, check, gradchecks, graph_names, same_error

RNG = np.random.default_rng(5)
X = RNG.standard_normal((3, 4))
POS = RNG.uniform(0.2, 4.0, (3, 4))
WIDE = np.array([-3.5, -1.5, -0.5, 1e-8, 0.3, 1.0, 2.0, 2.5, 7.3, 10.0, 10.5, 55.0])
EDGE = np.array([-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, np.inf, -np.inf, np.nan, 1e300])
PROB = RNG.uniform(0.01, 0.99, (3, 4))
SQ = RNG.standard_normal((2, 3, 3)) * 0.7
INTS = np.array([12, -18, 0, 7, 9])

CASES = {
    "lgamma": (lambda m, F, a: m.lgamma(a), [WIDE]),
    "lgamma_method": (lambda m, F, a: a.lgamma(), [X]),
    "digamma": (lambda m, F, a: m.digamma(a), [WIDE]),
    "polygamma1": (lambda m, F, a: m.polygamma(1, a), [WIDE]),
    "polygamma2": (lambda m, F, a: m.polygamma(2, a), [POS]),
    "polygamma3_method": (lambda m, F, a: a.polygamma(3), [POS]),
    "mvlgamma": (lambda m, F, a: m.mvlgamma(a, 3), [POS + 1]),
    "mvlgamma_method": (lambda m, F, a: a.mvlgamma(1), [POS]),
    "i0": (lambda m, F, a: m.i0(a * 5), [X]),
    "i0e": (lambda m, F, a: m.special.i0e(a * 5), [X]),
    "i1": (lambda m, F, a: m.special.i1(a * 5), [X]),
    "i1e": (lambda m, F, a: m.special.i1e(a * 5), [X]),
    "ndtr": (lambda m, F, a: m.special.ndtr(a), [X]),
    "log_ndtr": (lambda m, F, a: m.special.log_ndtr(a * 15), [X]),
    "ndtri": (lambda m, F, a: m.special.ndtri(a), [PROB]),
    "entr": (lambda m, F, a: m.special.entr(a), [POS]),
    "zeta_q": (lambda m, F, a: m.special.zeta(2.5, a), [POS]),
    "multigammaln": (lambda m, F, a: m.special.multigammaln(a, 2), [POS + 1]),
    "gammaln": (lambda m, F, a: m.special.gammaln(a), [POS]),
    "psi": (lambda m, F, a: m.special.psi(a), [POS]),
    "expit": (lambda m, F, a: m.special.expit(a), [X]),
    "special_logit": (lambda m, F, a: m.special.logit(a), [PROB]),
    "special_xlogy": (lambda m, F, a, b: m.special.xlogy(a, b), [X, POS]),
    "special_sinc": (lambda m, F, a: m.special.sinc(a), [X]),
    "special_softmax": (lambda m, F, a: m.special.softmax(a, 1), [X]),
    "special_log_softmax": (lambda m, F, a: m.special.log_softmax(a, 0), [X]),
    "special_logsumexp": (lambda m, F, a: m.special.logsumexp(a, 1), [X]),
    "special_erf": (lambda m, F, a: m.special.erf(a), [X]),
    "special_erfc": (lambda m, F, a: m.special.erfc(a), [X]),
    "special_erfinv": (lambda m, F, a: m.special.erfinv(a), [PROB]),
    "special_exp2": (lambda m, F, a: m.special.exp2(a), [X]),
    "special_expm1": (lambda m, F, a: m.special.expm1(a), [X]),
    "special_log1p": (lambda m, F, a: m.special.log1p(a), [POS]),
    "special_round": (lambda m, F, a: m.special.round(a * 10, decimals=1), [X]),
    "ldexp_int": (lambda m, F, a, e: m.ldexp(a, e), [X, np.array([-2, 0, 3, 1])]),
    "ldexp_float": (lambda m, F, a, e: a.ldexp(e), [X, X[0]]),
    "nextafter": (lambda m, F, a, b: m.nextafter(a, b), [X, X[::-1].copy()]),
    "logdet": (lambda m, F, a: m.logdet(a), [SQ + 2 * np.eye(3)]),
    "logdet_method": (lambda m, F, a: a.logdet(), [SQ]),
    "matrix_exp": (lambda m, F, a: m.matrix_exp(a), [SQ]),
    "linalg_matrix_exp": (lambda m, F, a: m.linalg.matrix_exp(a * 4), [SQ]),
    "renorm2": (lambda m, F, a: m.renorm(a, 2, 0, 1.0), [X]),
    "renorm1_dim1": (lambda m, F, a: a.renorm(1, 1, 0.5), [X]),
    "renorm_inf": (lambda m, F, a: m.renorm(a, math.inf, -1, 0.7), [X]),
    "renorm_3": (lambda m, F, a: m.renorm(a, 3, 0, 0.8), [SQ]),
    "combinations": (lambda m, F, a: m.combinations(a), [X[0]]),
    "combinations_r3_rep": (lambda m, F, a: m.combinations(a, 3, True), [X[0, :3]]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device)


@pytest.mark.parametrize(
    "name", ["lgamma", "digamma", "polygamma2", "i0e", "i1", "log_ndtr", "matrix_exp", "renorm2"]
)
def test_float32(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device, dtype=np.float32)


def _grad_x(m, a, fn):
    """fn(x) and its gradient for ones upstream, x = a (float64)."""
    x = m.tensor(a, requires_grad=True)
    y = fn(m, x)
    (g,) = m.autograd.grad(y.sum(), x, allow_unused=True)
    return y.detach().numpy(), None if g is None else g.numpy()


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.lgamma(x),
        lambda m, x: m.digamma(x),
        lambda m, x: m.polygamma(1, x),
        lambda m, x: m.i0(x),
        lambda m, x: m.special.i0e(x),
        lambda m, x: m.special.i1(x),
        lambda m, x: m.special.i1e(x),
        lambda m, x: m.special.entr(x),
        lambda m, x: m.special.log_ndtr(x),
        lambda m, x: m.special.ndtr(x),
    ],
    ids=["lgamma", "digamma", "trigamma", "i0", "i0e", "i1", "i1e", "entr", "log_ndtr", "ndtr"],
)
def test_poles_zeros_infinities_and_nan(fn):
    """Values and gradients at the poles, signed zeros, +-inf and NaN: torch's (copysign
    infinities of digamma at +-0, NaN at the negative integers, 0.5 slope of i1 at 0 and NaN)."""
    got, want = _grad_x(framework, EDGE, fn), _grad_x(torch, EDGE, fn)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, equal_nan=True)
        assert np.array_equal(np.signbit(g[np.isinf(w)]), np.signbit(w[np.isinf(w)]))


def test_log_ndtr_far_tail_and_ndtri_tails():
    """log_ndtr where erfc underflows (the asymptotic series) and ndtri at tiny / near-1
    probabilities (Newton-refined), float64, against torch's Cephes-based kernels."""
    x = np.array([-1e3, -200.0, -40.0, -25.0, -20.0, -5.0, 0.0, 8.0, 40.0, np.nan])
    np.testing.assert_allclose(
        framework.special.log_ndtr(framework.tensor(x)).numpy(),
        torch.special.log_ndtr(torch.tensor(x)).numpy(),
        rtol=1e-12,
        equal_nan=True,
    )
    p = np.array([1e-300, 1e-30, 1e-8, 0.001, 0.3, 0.5, 0.9, 1 - 1e-10, 0.0, 1.0, -0.1, 1.1])
    np.testing.assert_allclose(
        framework.special.ndtri(framework.tensor(p)).numpy(),
        torch.special.ndtri(torch.tensor(p)).numpy(),
        rtol=1e-10,
        equal_nan=True,
    )


def test_zeta_values_and_derivative_rules():
    """Hurwitz zeta against torch over x > 1, x == 1, x < 1 and non-positive q; the gradient
    exists for q only (x: torch's NotImplementedError), nodes SpecialZetaBackward0/1/2."""
    xs = np.array([2.0, 3.5, 1.0, 0.5, 2.0, 2.5, 1.2, 5.0])
    qs = np.array([0.5, 1.0, 2.0, 3.0, -1.0, -1.5, 3.3, 100.0])
    np.testing.assert_allclose(
        framework.special.zeta(framework.tensor(xs), framework.tensor(qs)).numpy(),
        torch.special.zeta(torch.tensor(xs), torch.tensor(qs)).numpy(),
        rtol=1e-12,
        equal_nan=True,
    )
    for m in (framework, torch):
        q = m.tensor([1.5, 2.0], requires_grad=True)
        assert m.special.zeta(m.tensor([2.0, 3.0]), q).grad_fn.name() == "SpecialZetaBackward0"
        assert m.special.zeta(2.0, q).grad_fn.name() == "SpecialZetaBackward1"
        assert m.special.zeta(q, 2.0).grad_fn.name() == "SpecialZetaBackward2"
        with pytest.raises(NotImplementedError, match="derivative for 'zeta' is not implemented"):
            m.special.zeta(q, m.tensor([1.0, 2.0])).sum().backward()


GRADCHECKS = {
    "lgamma": (lambda m, F, a: m.lgamma(a), [POS]),
    "digamma": (lambda m, F, a: m.digamma(a), [POS]),
    "polygamma": (lambda m, F, a: m.polygamma(2, a), [POS]),
    "mvlgamma": (lambda m, F, a: m.mvlgamma(a, 2), [POS + 1]),
    "i0": (lambda m, F, a: m.i0(a), [X]),
    "i0e": (lambda m, F, a: m.special.i0e(a), [X]),
    "i1": (lambda m, F, a: m.special.i1(a), [X]),
    "i1e": (lambda m, F, a: m.special.i1e(a), [X]),
    "log_ndtr": (lambda m, F, a: m.special.log_ndtr(a), [X]),
    "ndtri": (lambda m, F, a: m.special.ndtri(a), [PROB]),
    "entr": (lambda m, F, a: m.special.entr(a), [POS]),
    "zeta_q": (lambda m, F, q: m.special.zeta(m.tensor(2.5, dtype=m.float64), q), [POS]),
    "ldexp": (lambda m, F, a, e: m.ldexp(a, e), [X, X * 0.5]),
    "matrix_exp": (lambda m, F, a: m.matrix_exp(a), [SQ[0]]),
    "renorm": (lambda m, F, a: m.renorm(a, 2, 1, 0.8), [X]),
    "renorm_p3": (lambda m, F, a: m.renorm(a, 3, 0, 0.5), [X]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck_gradgradcheck(name):
    fn, arrays = GRADCHECKS[name]
    gradchecks(fn, arrays)


def test_nextafter_gradient_rules():
    """torch's nextafter passes input's gradient through (0 where input == other, an inf
    upstream included), other gets zeros; forward AD: input's tangent, the same mask."""
    a, b = np.array([2.5, -0.5, 0.0]), np.array([0.0, -0.5, 2.5])
    up = np.array([1.0, np.inf, 3.0])
    out = []
    for m in (framework, torch):
        x, o = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
        m.nextafter(x, o).backward(m.tensor(up))
        fw = m.autograd.forward_ad
        with fw.dual_level():
            t = fw.unpack_dual(m.nextafter(fw.make_dual(m.tensor(a), m.tensor(up)), o.detach()))
        out.append((x.grad.numpy(), o.grad.numpy(), t.tangent.numpy()))
    for g, w in zip(*out):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self, device):
    """Values (ties, zeros for prod), gradients of self and source, node, in both modes."""
    x = np.array([[1.0, 0.0], [3.0, 4.0], [5.0, 6.0]])
    src = np.array([[2.0, 3.0], [0.0, 5.0], [6.0, 0.0], [5.0, 6.0]])
    idx = np.array([0, 2, 0, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(
            lambda m, F, a, i, s: m.index_reduce(a, 0, i, s, reduce, include_self=include_self),
            [x, idx, src],
            device,
        )
        check(
            lambda m, F, a, i, s: a.index_reduce(1, i, s, reduce, include_self=include_self),
            [x.T.copy(), idx, src.T.copy()],
            device,
        )
        gx = RNG.standard_normal((3, 2)) + 3  # no ties, no zeros: smooth
        gs = RNG.standard_normal((4, 2)) + 3
        gradchecks(
            lambda m, F, a, s: m.index_reduce(
                a, 0, m.tensor(idx), s, reduce, include_self=include_self
            ),
            [gx, gs],
        )


def test_index_reduce_in_place_and_integers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in (framework, torch):
            x = m.tensor([[1, 2], [3, 4]])
            assert x.index_reduce_(0, m.tensor([0, 0]), m.tensor([[2, 3], [4, 6]]), "mean") is x
        check(
            lambda m, F, a, i, s: m.index_reduce(a, 0, i, s, "mean"),
            [np.array([[1, 2], [3, 4]]), np.array([0, 0]), np.array([[2, 3], [4, 6]])],
            requires_grad=[False] * 3,
        )


NO_GRAD = {
    "gcd": (lambda m, F, a, b: m.gcd(a, b), [INTS, INTS[::-1].copy()]),
    "lcm": (lambda m, F, a, b: a.lcm(b), [INTS, INTS[::-1].copy()]),
    "gcd_int32": (lambda m, F, a, b: m.gcd(a.int(), b), [INTS, np.array(6)]),
    "ldexp_ints": (lambda m, F, a, b: m.ldexp(a, b), [INTS, np.array([1, 2, 0, -1, 3])]),
    "lgamma_int": (lambda m, F, a: m.lgamma(a), [INTS]),
    "digamma_bool": (lambda m, F, a: m.digamma(a), [np.array([True, False])]),
    "i0_int": (lambda m, F, a: m.i0(a), [INTS]),
    "vander": (lambda m, F, a: m.vander(a), [X[0]]),
    "vander_n_inc": (lambda m, F, a: m.vander(a, N=5, increasing=True), [X[0]]),
    "vander_int": (lambda m, F, a: m.vander(a, 3), [np.array([1, 2, 3])]),
    "vander_bool": (lambda m, F, a: m.vander(a), [np.array([True, False])]),
    "combinations_int": (lambda m, F, a: m.combinations(a), [np.array([1, 2, 3])]),
    "combinations_r0": (lambda m, F, a: m.combinations(a, 0), [np.array([1, 2])]),
    "combinations_empty": (lambda m, F, a: m.combinations(a, 2), [np.zeros(0)]),
    "histogram": (lambda m, F, a: tuple(m.histogram(a, bins=4)), [X]),
    "histogram_range_w": (
        lambda m, F, a, w: tuple(m.histogram(a, 3, range=(-1.0, 1.0), weight=w, density=True)),
        [X, POS],
    ),
    "histogram_edges": (lambda m, F, a, e: tuple(a.histogram(e)), [X, np.array([-2, 0, 0.5, 3])]),
    "histogram_empty": (lambda m, F, a: tuple(m.histogram(a, 2)), [np.zeros(0)]),
    "histogram_constant": (lambda m, F, a: tuple(m.histogram(a, 2)), [np.array([2.0, 2.0])]),
    "histogramdd": (
        lambda m, F, a: (lambda r: (r.hist, *r.bin_edges))(m.histogramdd(a, bins=[3, 2])),
        [X[:, :2]],
    ),
    "histogramdd_density": (
        lambda m, F, a: (lambda r: (r.hist, *r.bin_edges))(m.histogramdd(a, 2, density=True)),
        [X[:, :3]],
    ),
    "scalar_tensor": (lambda m, F, a: m.scalar_tensor(3) + a, [X]),
    "scalar_tensor_dtype": (lambda m, F: m.scalar_tensor(True, dtype=m.int64), []),
    "detach": (lambda m, F, a: m.detach(a * 2), [X]),
}


@pytest.mark.parametrize("name", sorted(NO_GRAD))
def test_no_grad_functions(name):
    fn, arrays = NO_GRAD[name]  # (integer inputs give float32: float32 tolerance)
    check(fn, arrays, requires_grad=[False] * len(arrays), tol=F32)


def test_vander_backward_fails_as_torchs():
    """torch's vander copies cumprod's output into the slice cumprod saved: its backward
    raises the version-counter error (torch 2.13), here too, with the same message."""
    errs = []
    for m in (framework, torch):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            m.vander(x).sum().backward()
        errs.append(str(e.value).split(". Hint")[0])
    assert errs[0] == errs[1]


def test_histogram_returns_torchs_named_tuples():
    for m in (framework, torch):
        h = m.histogram(m.tensor([1.0, 2.0, 1.0, 4.0]), bins=3)
        assert type(h).__name__ == "histogram" and h.hist.tolist() == [2.0, 1.0, 1.0]
        d = m.histogramdd(m.tensor([[0.0, 1.0], [1.0, 0.0]]), bins=2)
        assert type(d).__name__ == "histogramdd" and isinstance(d.bin_edges, tuple)
    assert repr(framework.histogram(framework.tensor([1.0]), 1)).startswith(
        "torch.return_types.histogram("
    )


def test_graphs_as_torchs():
    """Composites record torch's whole graphs (ndtr, logdet, vander, combinations, ldexp,
    mvlgamma)."""
    cases = [
        (lambda m, x: m.special.ndtr(x), (3,)),
        (lambda m, x: m.logdet(x), (3, 3)),
        (lambda m, x: m.vander(x), (3,)),
        (lambda m, x: m.combinations(x, 2), (3,)),
        (lambda m, x: m.ldexp(x, x * 2), (3,)),
        (lambda m, x: m.mvlgamma(x + 2, 2), (3,)),
        (lambda m, x: m.matrix_exp(x), (2, 2)),
        (lambda m, x: m.renorm(x, 2, 0, 1.0), (2, 2)),
    ]
    for fn, shape in cases:
        a = RNG.standard_normal(shape) + (2 * np.eye(shape[0]) if len(shape) == 2 else 0)
        got, want = (
            graph_names(fn(m, m.tensor(a, requires_grad=True)).grad_fn) for m in (framework, torch)
        )
        assert got == want


def test_frombuffer_and_empty_strided():
    raw = bytearray(np.arange(6, dtype=np.int32).tobytes())
    for kw in ({}, {"count": 2, "offset": 4}):
        f = framework.frombuffer(raw, dtype=framework.int32, **kw)
        t = torch.frombuffer(raw, dtype=torch.int32, **kw)
        assert f.tolist() == t.tolist() and str(f.dtype) == str(t.dtype)
    f = framework.frombuffer(raw, dtype=framework.int32)
    f[0] = 9  # shares the buffer's memory, as torch's
    assert np.frombuffer(raw, dtype=np.int32)[0] == 9
    with pytest.warns(UserWarning, match="not writable"):
        framework.frombuffer(b"\x00\x00\x00\x00", dtype=framework.int32)
    for size, stride in (((2, 3), (1, 2)), ((4,), (3,)), ((2, 2, 2), (4, 1, 2))):
        f, t = framework.empty_strided(size, stride), torch.empty_strided(size, stride)
        assert (tuple(f.shape), f.stride(), str(f.dtype)) == (
            tuple(t.shape),
            t.stride(),
            str(t.dtype),
        )
    f = framework.empty_strided((2,), (1,), dtype=framework.float64, requires_grad=True)
    assert f.requires_grad and f.dtype == framework.float64 and f.is_leaf


ERRORS = [
    (lambda m, F, a: m.polygamma(-1, a), [X], "does not support negative n"),
    (lambda m, F, a: m.mvlgamma(a, 0), [X], "p has to be greater than or equal to 1"),
    (lambda m, F, a: m.mvlgamma(a > 0, 2), [X], "may not be a boolean tensor"),
    (lambda m, F, a: m.gcd(a, a), [X], "not implemented for 'Double'"),
    (lambda m, F, a: m.gcd(a, 3), [INTS], "must be Tensor, not int"),
    (lambda m, F, a: m.nextafter(a, a), [INTS], "nextafter_cpu"),
    (lambda m, F, a, b: m.ldexp(a, b), [X[0], np.array([True] * 4)], "ldexp_cpu_exp"),
    (lambda m, F, a: m.logdet(a), [X], "must be batches of square matrices"),
    (lambda m, F, a: m.logdet(a), [np.ones((2, 2), dtype=np.int64)], "Expected a floating"),
    (lambda m, F, a: m.matrix_exp(a), [X], "must be batches of square matrices"),
    (lambda m, F, a: m.matrix_exp(a), [X[0]], "at least 2 dimensions"),
    (lambda m, F, a: m.renorm(a, 0, 0, 1.0), [X], "non-positive-norm not supported"),
    (lambda m, F, a: m.renorm(a, 2, 0, -1.0), [X], "expected maxnorm to be >= 0 but got -1"),
    (lambda m, F, a: m.renorm(a, 2, 0, 1.0), [X[0]], "at least 2 dimensions, got 1"),
    (lambda m, F, a: m.renorm(a, 2, 2, 1.0), [X], "Dimension out of range"),
    (lambda m, F, a: m.renorm(a, math.inf, 1, 1.0), [np.ones((0, 2))], "dimension 0because"),
    (lambda m, F, a: m.vander(a), [X], "x must be a one-dimensional tensor."),
    (lambda m, F, a: m.vander(a, N=-1), [X[0]], "N must be non-negative."),
    (lambda m, F, a: m.combinations(a), [X], "Expect a 1D vector"),
    (lambda m, F, a: m.combinations(a, -1), [X[0]], "Expect a non-negative number"),
    (lambda m, F, a: m.histogram(a, 2), [INTS], "\"histogramdd\" not implemented for 'Long'"),
    (lambda m, F, a: m.histogram(a, 0), [X], "bins must be > 0, but got 0 for dimension 0"),
    (lambda m, F, a: m.histogram(a, 2, range=(3.0, 1.0)), [X], "min should not exceed max"),
    (lambda m, F, a: m.histogram(a.bfloat16(), 2), [X], "not implemented for 'BFloat16'"),
    (lambda m, F, a: m.special.log_ndtr(a.bfloat16()), [X], "log_ndtr_cpu"),
    (lambda m, F, a: m.special.zeta(a.half(), a.half()), [X], "zeta_cpu"),
    (lambda m, F, a: a.index_reduce(0, m.tensor([0]), a[:1], "sum"), [X], "one of prod"),
    (lambda m, F, a: a.index_reduce(0, m.tensor([0.0]), a[:1], "prod"), [X], "int32/int64"),
    (lambda m, F, a: a.index_reduce(0, m.tensor([0, 1]), a[:1], "prod"), [X], "Number of"),
    (lambda m, F, a: a.index_reduce(0, m.tensor([5]), a[:1], "prod"), [X], "out of range"),
    (lambda m, F, a: a.index_reduce(0, m.tensor([0]), a[:1].float(), "amax"), [X], "same"),
    (lambda m, F, a: (a > 0).index_reduce(0, m.tensor([0]), a[:1] > 0, "amax"), [X[0]], "Bool"),
    (
        lambda m, F, a: (a > 0).index_reduce(0, m.tensor([0]), a[:1] > 0, "mean"),
        [X],
        "div_floor_cpu",
    ),
    (
        lambda m, F, a: a.index_reduce(
            0, m.tensor([0]), m.ones(1, 2, dtype=a.dtype), "amin", include_self=False
        ),
        [np.zeros((0, 2))],
        "setStorage",
    ),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    fn, arrays, match = ERRORS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(fn, arrays, match)


def test_lgamma_of_tiny_negative_numbers_as_torch():
    """Regression (fuzz seed 13004293): the reflection's sin(pi x) took x - floor(x), which
    rounds -1e-30 to 1, and lgamma(-1e-30) came out 37.8 instead of 69.1."""
    x = np.array([-1e-30, -1e-10, -1e-300, -2.5, -1e-5, -0.3, -3.0, -100.5])
    got = framework.lgamma(framework.tensor(x)).numpy()
    want = torch.lgamma(torch.tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-13)


def _index_reduce_second(L, zeros, rg):
    """index_reduce prod's create_graph gradients (requires_grad, node type and name, edges)
    and the second derivatives or torch's error."""
    r = np.random.default_rng(0)
    xs, sv = r.standard_normal((2, 3)), r.standard_normal((3, 3))
    for z in zeros:
        sv[z] = 0
    x, s = L.tensor(xs, requires_grad=rg[0]), L.tensor(sv, requires_grad=rg[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = x.index_reduce(0, L.tensor([0, 0, 1]), s, "prod", include_self=False)
    leaves = [t for t in (x, s) if t.requires_grad]
    gs = L.autograd.grad(y, leaves, L.ones(tuple(y.shape)), create_graph=True)
    got = [(g.requires_grad, type(g.grad_fn).__name__, graph_names(g.grad_fn)) for g in gs]
    try:
        second = L.autograd.grad(list(gs), leaves, [L.ones(tuple(g.shape)) for g in gs])
        got.append([np.round(g.numpy(), 9).tolist() for g in second])
    except RuntimeError as e:
        got.append(str(e))
    return got


@pytest.mark.parametrize("zeros", [[(0, 0), (1, 0)], [(0, 0), (2, 0)], [(0, 0)]])
@pytest.mark.parametrize("rg", [(True, True), (False, True)])
def test_index_reduce_prod_several_zeros_is_torchs_error_node(zeros, rg):
    """Fuzz seed 60072074: the prod gradient of a source with more than one zero reduced into
    one position is torch's DelayedError node (type Error, torch::autograd::Error, one edge
    to the where), whose backward raises "Double backward is unsupported for source when >1
    zeros in source are scattered to the same position"; zeros at different positions keep
    the WhereBackward0 gradient."""
    assert _index_reduce_second(framework, zeros, rg) == _index_reduce_second(torch, zeros, rg)
