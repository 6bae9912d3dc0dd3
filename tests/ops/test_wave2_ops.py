"""Wave-2 ops against torch: values, dtypes, node names, gradients (float64 to 1e-10 and
float32), gradcheck + gradgradcheck of every new backward, errors."""

import numpy as np
import pytest
import torch

import framework
from helpers import randn
from parity import check, gradchecks, same_error

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((3, 4))
Z = RNG.standard_normal((2, 3, 4))
XZ = X.copy()
XZ[1, 2] = XZ[2, 0] = XZ[2, 3] = 0.0  # zeros: cumprod's division-free gradient
XN = X.copy()
XN[0, 0], XN[1, 1], XN[2, 2] = np.nan, np.inf, -np.inf
TIES = np.array([[1.0, 2.0, 2.0, 5.0], [7.0, 7.0, 3.0, 3.0]])
U = np.tanh(X) * 0.9  # inside (-1, 1)
IDX = np.array([[0, 1, 2, 0], [1, 1, 0, 2]])

CASES = {
    "tril": (lambda m, F, a: m.tril(a, 1), [X]),
    "triu": (lambda m, F, a: a.triu(-1), [Z]),
    "flip": (lambda m, F, a: a.flip(0, 2), [Z]),
    "fliplr": (lambda m, F, a: m.fliplr(a), [X]),
    "flipud": (lambda m, F, a: m.flipud(a), [X]),
    "roll_flat": (lambda m, F, a: a.roll(5), [X]),
    "roll_dims": (lambda m, F, a: m.roll(a, (1, -2), (0, 2)), [Z]),
    "rot90": (lambda m, F, a: a.rot90(1, (1, 2)), [Z]),
    "rot90_3": (lambda m, F, a: m.rot90(a, 3, (1, 0)), [X]),
    "cumsum": (lambda m, F, a: a.cumsum(1), [Z]),
    "cumsum_dtype": (lambda m, F, a: m.cumsum(a, -1, dtype=m.float32), [X]),
    "cumprod": (lambda m, F, a: a.cumprod(1), [Z]),
    "cumprod_zeros": (lambda m, F, a: a.cumprod(1), [XZ]),
    "cummax": (lambda m, F, a: a.cummax(1), [Z]),
    "cummin": (lambda m, F, a: m.cummin(a, 0), [Z]),
    "sort": (lambda m, F, a: a.sort(1), [Z]),
    "sort_desc": (lambda m, F, a: m.sort(a, 0, descending=True), [Z]),
    "sort_stable": (lambda m, F, a: a.sort(stable=True, descending=True), [TIES]),
    "argsort": (lambda m, F, a: a.argsort(1, descending=True), [Z]),
    "topk": (lambda m, F, a: a.topk(2), [Z]),
    "topk_smallest": (lambda m, F, a: m.topk(a, 2, 1, largest=False), [Z]),
    "kthvalue": (lambda m, F, a: a.kthvalue(2, 1), [Z]),
    "kthvalue_keepdim": (lambda m, F, a: a.kthvalue(3, -1, True), [Z]),
    "median": (lambda m, F, a: a.median(), [TIES]),
    "median_dim": (lambda m, F, a: a.median(1), [Z]),
    "nanmedian": (lambda m, F, a: a.nanmedian(), [Z]),
    "mode": (lambda m, F, a: a.mode(1), [TIES]),
    "erf": (lambda m, F, a: a.erf(), [X * 2]),
    "erfc": (lambda m, F, a: m.erfc(a), [X * 3]),
    "erfinv": (lambda m, F, a: a.erfinv(), [U]),
    "tan": (lambda m, F, a: a.tan(), [U]),
    "sinh": (lambda m, F, a: a.sinh(), [X]),
    "cosh": (lambda m, F, a: m.cosh(a), [X]),
    "asin": (lambda m, F, a: a.asin(), [U]),
    "acos": (lambda m, F, a: m.acos(a), [U]),
    "atan": (lambda m, F, a: a.atan(), [X]),
    "asinh": (lambda m, F, a: a.asinh(), [X]),
    "acosh": (lambda m, F, a: a.acosh(), [np.abs(X) + 1.5]),
    "atanh": (lambda m, F, a: m.atanh(a), [U]),
    "log2": (lambda m, F, a: a.log2(), [np.abs(X) + 0.1]),
    "log10": (lambda m, F, a: m.log10(a), [np.abs(X) + 0.1]),
    "exp2": (lambda m, F, a: a.exp2(), [X]),
    "lerp": (lambda m, F, a, b: a.lerp(b, 0.3), [X, Y]),
    "lerp_big_weight": (lambda m, F, a, b: m.lerp(a, b, 0.7), [X, Y]),
    "lerp_tensor": (lambda m, F, a, b, w: a.lerp(b, w), [X, Y, RNG.random(4)]),
    "addcmul": (lambda m, F, a, b, c: m.addcmul(a, b, c, value=0.5), [X, Y, Z]),
    "addcdiv": (lambda m, F, a, b, c: a.addcdiv(b, c, value=2), [X, Y, np.abs(Z) + 1]),
    "atan2": (lambda m, F, a, b: m.atan2(a, b), [X, Y]),
    "hypot": (lambda m, F, a, b: a.hypot(b), [X, Y]),
    "xlogy": (lambda m, F, a, b: m.xlogy(a, b), [X, np.abs(Y)]),
    "logaddexp": (lambda m, F, a, b: a.logaddexp(b), [X, Y]),
    "fmod": (lambda m, F, a: a.fmod(0.7), [X * 3]),
    "fmod_tensor": (lambda m, F, a, b: m.fmod(a, b), [X * 3, np.abs(Y) + 0.5]),
    "nan_to_num": (lambda m, F, a: a.nan_to_num(), [XN]),
    "nan_to_num_args": (lambda m, F, a: m.nan_to_num(a, 1.0, 2.0, -3.0), [XN]),
    "masked_select": (lambda m, F, a: a.masked_select(a > 0), [X]),
    "masked_select_bcast": (lambda m, F, a, b: m.masked_select(a, b > 0), [X, Y[0]]),
    "masked_scatter": (lambda m, F, a, b: a.masked_scatter(a > 0, b), [X, Z]),
    "take": (lambda m, F, a: a.take(m.tensor([[0, 5], [-1, 3]])), [X]),
    "take_along_dim": (lambda m, F, a: m.take_along_dim(a, a.argsort(1), 1), [X]),
    "take_along_dim_flat": (lambda m, F, a: m.take_along_dim(a, m.tensor([3, 0])), [X]),
    "index_add": (lambda m, F, a, b: a.index_add(0, m.tensor([0, 2, 0]), b, alpha=2), [X, Z[0]]),
    "index_copy": (lambda m, F, a, b: a.index_copy(0, m.tensor([2, 0]), b), [X, Z[0, :2]]),
    "index_fill": (lambda m, F, a: a.index_fill(1, m.tensor([1, 3]), -1.0), [X]),
    "index_fill_tensor": (
        lambda m, F, a, v: a.index_fill(1, m.tensor([1, 3]), v),
        [X, np.array(2.0)],
    ),
    "norm": (lambda m, F, a: a.norm(), [X]),
    "norm_dim": (lambda m, F, a: m.norm(a, dim=1, keepdim=True), [X]),
    "norm_p1": (lambda m, F, a: a.norm(p=1), [X]),
    "linalg_norm": (lambda m, F, a: m.linalg.norm(a), [Z]),
    "matrix_norm_fro": (lambda m, F, a: m.linalg.matrix_norm(a), [Z]),
    "matrix_norm_1": (lambda m, F, a: m.linalg.matrix_norm(a, 1), [Z]),
    "matrix_norm_inf": (lambda m, F, a: m.linalg.matrix_norm(a, float("inf"), keepdim=True), [Z]),
    "range_index": (lambda m, F, a: a[range(1, 3)], [X]),
    "range_pair_index": (lambda m, F, a: a[range(2), range(1, 3)], [X]),
    "int32_index": (lambda m, F, a: a[m.tensor([0, 2], dtype=m.int32)], [X]),
}
for _p in (2, 1, 3, 0.5, float("inf"), -float("inf"), 0):
    CASES[f"vector_norm_{_p}"] = (lambda m, F, a, p=_p: m.linalg.vector_norm(a, p, 1), [X])
for _r in ("sum", "prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        CASES[f"scatter_reduce_{_r}_{_inc}"] = (
            lambda m, F, a, b, r=_r, inc=_inc: a.scatter_reduce(
                0, m.tensor(IDX), b, r, include_self=inc
            ),
            [X, Y[:2]],
        )


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device)


FLOAT32 = [
    "tril",
    "flip",
    "roll_dims",
    "cumsum",
    "cumprod",
    "sort",
    "topk",
    "erf",
    "erfinv",
    "lerp",
    "addcmul",
    "addcdiv",
    "atan2",
    "masked_select",
    "index_add",
    "norm",
    "vector_norm_2",
    "logaddexp",
    "median_dim",
    "cummax",
    "sinh",
    "asin",
]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device, dtype=np.float32)


GRADCHECK = {
    "tril": (lambda m, F, a: a.tril(), [randn(3, 3)]),
    "flip": (lambda m, F, a: a.flip(0), [randn(3, 2)]),
    "roll": (lambda m, F, a: a.roll(1, 1), [randn(2, 3)]),
    "rot90": (lambda m, F, a: a.rot90(), [randn(2, 3)]),
    "cumsum": (lambda m, F, a: a.cumsum(0), [randn(4, 2)]),
    "cumprod": (lambda m, F, a: a.cumprod(1), [randn(2, 4)]),
    "cumprod_zero": (lambda m, F, a: a.cumprod(0), [np.array([1.5, 0.0, -2.0, 0.7])]),
    "cummax": (lambda m, F, a: a.cummax(1)[0], [randn(2, 4)]),
    "sort": (lambda m, F, a: a.sort(1)[0], [randn(2, 4)]),
    "topk": (lambda m, F, a: a.topk(2)[0], [randn(2, 4)]),
    "kthvalue": (lambda m, F, a: a.kthvalue(2)[0], [randn(2, 4)]),
    "median": (lambda m, F, a: a.median(), [randn(5)]),
    "median_dim": (lambda m, F, a: a.median(0)[0], [randn(3, 2)]),
    "erf": (lambda m, F, a: a.erf(), [randn(4)]),
    "erfc": (lambda m, F, a: a.erfc(), [randn(4)]),
    "erfinv": (lambda m, F, a: a.erfinv(), [np.tanh(randn(4)) * 0.8]),
    "trig": (
        lambda m, F, a: a.tan() + a.sinh() + a.cosh() + a.atan() + a.asinh(),
        [randn(4) * 0.5],
    ),
    "inverse_trig": (lambda m, F, a: a.asin() + a.acos() + a.atanh(), [np.tanh(randn(4)) * 0.8]),
    "logs": (
        lambda m, F, a: a.log2() + a.log10() + a.exp2() + (a + 1).acosh(),
        [np.abs(randn(4)) + 0.5],
    ),
    "lerp": (lambda m, F, a, b: a.lerp(b, 0.3), [randn(3), randn(3)]),
    "lerp_tensor": (lambda m, F, a, b, w: a.lerp(b, w), [randn(3), randn(3), randn(3)]),
    "addcmul": (lambda m, F, a, b, c: a.addcmul(b, c, value=0.5), [randn(3), randn(3), randn(3)]),
    "addcdiv": (lambda m, F, a, b, c: a.addcdiv(b, c), [randn(3), randn(3), randn(3) + 4]),
    "atan2_hypot": (lambda m, F, a, b: a.atan2(b) + a.hypot(b), [randn(3), randn(3)]),
    "xlogy_logaddexp": (
        lambda m, F, a, b: a.xlogy(b.abs() + 1) + a.logaddexp(b),
        [randn(3), randn(3)],
    ),
    "fmod": (lambda m, F, a, b: a.fmod(b.abs() + 2) + a.fmod(1.5), [randn(3), randn(3)]),
    "nan_to_num": (lambda m, F, a: a.nan_to_num(), [randn(3)]),
    "masked_select": (lambda m, F, a: a.masked_select(m.tensor([True, False, True])), [randn(3)]),
    "masked_scatter": (
        lambda m, F, a, s: a.masked_scatter(m.tensor([True, False, True]), s),
        [randn(3), randn(4)],
    ),
    "take": (lambda m, F, a: a.take(m.tensor([0, 3, 3])), [randn(2, 2)]),
    "index_add": (
        lambda m, F, a, s: a.index_add(0, m.tensor([1, 1]), s, alpha=2),
        [randn(3, 2), randn(2, 2)],
    ),
    "index_copy": (
        lambda m, F, a, s: a.index_copy(0, m.tensor([2, 0]), s),
        [randn(3, 2), randn(2, 2)],
    ),
    "index_fill": (lambda m, F, a, v: a.index_fill(0, m.tensor([1]), v), [randn(3, 2), randn()]),
    "scatter_reduce_mean": (
        lambda m, F, a, s: a.scatter_reduce(0, m.tensor([0, 2, 0]), s, "mean"),
        [randn(3), randn(3)],
    ),
    "scatter_reduce_amax": (
        lambda m, F, a, s: a.scatter_reduce(0, m.tensor([0, 2, 0]), s, "amax"),
        [randn(3), randn(3)],
    ),
    "scatter_reduce_prod": (
        lambda m, F, a, s: a.scatter_reduce(0, m.tensor([0, 2, 0]), s, "prod"),
        [randn(3), randn(3)],
    ),
    "vector_norm": (
        lambda m, F, a: (
            m.linalg.vector_norm(a, 2, 1)
            + m.linalg.vector_norm(a, 3, 1)
            + m.linalg.vector_norm(a, 1, 1)
            + m.linalg.vector_norm(a, 0.5, 1)
        ),
        [randn(2, 3)],
    ),
    "vector_norm_inf": (lambda m, F, a: m.linalg.vector_norm(a, float("inf")), [randn(4)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    fn, arrays = GRADCHECK[name]
    gradchecks(fn, arrays)


def test_double_backward_vs_torch():
    from test_elementwise import compare_double_backward

    for name in ("erfinv", "cumprod", "lerp_tensor", "addcdiv", "vector_norm"):
        fn, arrays = GRADCHECK[name]
        compare_double_backward(
            lambda *t: fn(framework, None, *t), lambda *t: fn(torch, None, *t), arrays
        )


ERRORS = [
    (lambda m, F, a: m.tril(a), [np.ones(3)], "tril: input tensor must have at least 2 dim"),
    (lambda m, F, a: a.topk(5), [np.ones(3)], "selected index k out of range"),
    (lambda m, F, a: a.kthvalue(4), [np.ones(3)], "kthvalue(): selected number k out of range"),
    (lambda m, F, a: a.roll((1, 2), 0), [np.ones(3)], "shifts and dimensions must align"),
    (lambda m, F, a: a.flip(0, 0), [np.ones(3)], "appears multiple times"),
    (lambda m, F, a: a.masked_select(a), [np.ones(3)], "expected BoolTensor for mask"),
    (lambda m, F, a: a.take(m.tensor([5])), [np.ones(3)], "out of range"),
    (lambda m, F, a: m.multinomial(a, 4), [np.ones(3)], "cannot sample n_sample > prob_dist"),
    (lambda m, F, a: m.multinomial(-a, 1), [np.ones(3)], "probability tensor contains"),
    (
        lambda m, F, a: m.addcdiv(a, m.tensor([1]), m.tensor([2])),
        [np.ones(1)],
        "Integer division with addcdiv is no longer supported",
    ),
    (lambda m, F, a: a.rot90(1, (0, 0)), [np.ones((2, 2))], "expected rotation dims to be"),
    (
        lambda m, F, a: a.index_add(0, m.tensor([0, 1]), a.float()),
        [np.ones((2,))],
        "must have the same scalar type",
    ),
    (
        lambda m, F, a: a.scatter_reduce(0, m.tensor([0]), a, "maximum"),
        [np.ones(2)],
        "reduce argument must be either sum, prod, mean, amax or amin",
    ),
    (
        lambda m, F, a: m.linalg.vector_norm(m.tensor([1, 2])),
        [np.ones(1)],
        "linalg.vector_norm: Expected a floating point or complex tensor as input",
    ),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    fn, arrays, match = ERRORS[case]
    same_error(fn, arrays, match)


def test_sort_nan_and_ties():
    a = np.array([3.0, np.nan, 1.0, 3.0, 1.0, np.nan])
    for kw in ({}, {"descending": True}, {"stable": True}):
        check(lambda m, F, t: t.sort(**kw), [a], requires_grad=[False])
    check(lambda m, F, t: t.median(0), [a], requires_grad=[False])
    check(lambda m, F, t: t.nanmedian(0), [a], requires_grad=[False])
    check(lambda m, F, t: t.mode(), [np.array([3.0, 1.0, 3.0, 2.0, 1.0, 3.0])])
    one_nan = RNG.standard_normal((3, 12))
    one_nan[1, 4] = np.nan
    for kw in ({}, {"largest": False}):
        check(lambda m, F, t: t.topk(3, **kw), [one_nan])


def test_int_inputs():
    ints = np.array([[3, 1, 2], [0, 5, 5]])
    for fn in (
        lambda m, F, t: t.cumsum(1),
        lambda m, F, t: t.cumprod(0),
        lambda m, F, t: t.sort(1),
        lambda m, F, t: t.flip(1),
        lambda m, F, t: t.tril(),
        lambda m, F, t: t.erf(),
        lambda m, F, t: t.topk(2),
        lambda m, F, t: t.mode(1),
        lambda m, F, t: t.cummax(1),
        lambda m, F, t: m.isclose(t, t),
        lambda m, F, t: t.roll(1, 0),
        lambda m, F, t: t.median(),
    ):
        check(fn, [ints], dtype=np.float32)  # float32 tolerance for erf's float result
    check(lambda m, F, t: t.cumsum(0), [np.array([True, False, True])])


def test_predicates():
    for name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "sgn", "isreal"):
        check(lambda m, F, t, n=name: getattr(m, n)(t), [XN], requires_grad=[False])
    check(lambda m, F, a, b: m.isclose(a, b, rtol=0.1, equal_nan=True), [XN, XN * 1.05])
    assert framework.allclose(framework.tensor([1.0]), framework.tensor([1.0 + 1e-9]))


def test_sampling_shapes_and_laws():
    framework.manual_seed(0)
    p = framework.tensor([[0.1, 0.0, 0.9], [0.5, 0.5, 0.0]])
    s = framework.multinomial(p, 2000, replacement=True)
    assert s.dtype == framework.int64 and tuple(s.shape) == (2, 2000)
    counts = np.stack([np.bincount(r, minlength=3) for r in s.numpy()]) / 2000
    np.testing.assert_allclose(counts, p.numpy(), atol=0.04)
    s = framework.multinomial(p, 2)  # without replacement: distinct, zero-probability last
    assert all(len(set(r)) == 2 for r in s.tolist())
    assert set(s[1].tolist()) == {0, 1}
    g = framework.Generator().manual_seed(3)
    a = framework.multinomial(framework.ones(10), 10, generator=g)
    assert sorted(a.tolist()) == list(range(10))
    b = framework.bernoulli(framework.full((4000,), 0.3))
    assert b.dtype == framework.float32 and abs(b.mean().item() - 0.3) < 0.03
    n = framework.normal(framework.zeros(3000) + 2.0, 0.5)
    assert abs(n.mean().item() - 2.0) < 0.05 and abs(n.std().item() - 0.5) < 0.05
    assert tuple(framework.normal(0.0, 1.0, size=(2, 3)).shape) == (2, 3)
    assert tuple(framework.tensor([0.2, 0.8]).multinomial(1).shape) == (1,)


def test_return_types_print_as_torch():
    fw = framework.tensor([3.0, 1.0, 2.0]).sort()
    th = torch.tensor([3.0, 1.0, 2.0]).sort()
    assert repr(fw) == repr(th)
    assert fw.values.tolist() == th.values.tolist() and fw.indices.tolist() == th.indices.tolist()


def test_bitwise_shifts():
    ints = np.array([1, 2, 8, 100])
    check(
        lambda m, F, a: (
            a << 2,
            a >> 1,
            m.bitwise_left_shift(a, a % 3),
            m.bitwise_right_shift(a, 1),
            3 << (a % 4),
        ),
        [ints],
    )
    same_error(lambda m, F, a: a << 1, [np.ones(2)], "\"lshift_cpu\" not implemented for 'Double'")


def _cumprod_second(L, xs, d):
    x = L.tensor(xs, requires_grad=True)
    up = L.tensor(np.random.default_rng(1).standard_normal(xs.shape))
    (g,) = L.autograd.grad(x.cumprod(d), x, up, create_graph=True)
    f = g.grad_fn
    edges = [(a.name() if a else None, i) for a, i in f.next_functions]
    (g2,) = L.autograd.grad(g, x, L.tensor(np.random.default_rng(2).standard_normal(xs.shape)))
    return (type(f).__name__, f.name(), edges), g.detach().numpy(), g2.numpy()


@pytest.mark.parametrize("shape,dim", [((4, 3), -1), ((2, 4, 4), -2), ((5, 1, 4), -3), ((3,), 0)])
def test_cumprod_create_graph_gradient_with_zeros_is_torchs_copy_slices(shape, dim):
    """Fuzz seeds 60007761, 60043949, 60090601: with a zero in the input and create_graph,
    torch's cumprod backward is its O(n^2) loop copying each slice's sum into a zeros
    gradient in place (CopySlices, edges to the previous CopySlices and the slice's
    SumBackward1); its second derivative's values as torch's."""
    xs = np.random.default_rng(len(shape)).standard_normal(shape)
    xs.reshape(-1)[[0, 2]] = 0
    ours, theirs = _cumprod_second(framework, xs, dim), _cumprod_second(torch, xs, dim)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    x = framework.tensor(xs, requires_grad=True)
    assert framework.autograd.gradcheck(lambda t: t.cumprod(dim), (x,))
    assert framework.autograd.gradgradcheck(lambda t: t.cumprod(dim), (x,))
