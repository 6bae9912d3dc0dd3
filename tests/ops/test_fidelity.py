"""Named regression tests, one per class of mismatch the differential fuzzer found: each runs
the case in framework and torch and compares values (NaN/inf placed exactly), dtype, shape,
requires_grad, node names, gradients (random upstream gradient), exception types and
messages, and that no NumPy warning escapes."""

import warnings

import numpy as np
import pytest
import torch

import framework
from fuzz.runner import NODE, WORDING, compare_call
from ops.opgen import T

INF, NAN = float("inf"), float("nan")


def F(L):
    return L.nn.functional


def t(values, dtype="float64", rg=None):
    """An input tensor for compare_call; floating ones require grad unless rg says no."""
    a = np.asarray(values, dtype=dtype)
    return T(a, a.dtype.kind == "f" if rg is None else rg)


def same(fn, *args, wording=True, nodes=True, **kwargs):
    """fn(L, *args) agrees across the libraries (with the exception message too, unless
    `wording` is False: then only its type; node names unless `nodes` is False)."""
    found = [
        m
        for m in compare_call(fn, args, kwargs)
        if (wording or m.kind != WORDING) and (nodes or m.kind != NODE)
    ]
    assert not found, "\n".join(map(repr, found))


R = np.random.default_rng(0)


def rand(*shape):
    return R.standard_normal(shape)


# ----- errors -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a, b: a + b,
        lambda L, a, b: a * b,
        lambda L, a, b: L.maximum(a, b),
        lambda L, a, b: a // b,
        lambda L, a, b: a % b,
        lambda L, a, b: a**b,
        lambda L, a, b: L.logical_and(a, b),
        lambda L, a, b: a < b,
        lambda L, a, b: L.where(a > 0, a, b),
        lambda L, a, b: L.clamp(a, min=b),
        lambda L, a, b: F(L).mse_loss(a, b),
        lambda L, a, b: F(L).l1_loss(a, b),
        lambda L, a, b: L.masked_fill(a, b > 0, 1.0),
    ],
)
def test_broadcast_mismatch_is_torchs_runtime_error(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's loss size warning
        same(fn, t(rand(2, 3)), t(rand(4)))
        same(fn, t(rand(5, 2, 3)), t(rand(4, 1, 3)))


def test_broadcast_error_when_dtype_is_refused_too():
    """torch checks shapes before dtypes: the broadcast error wins."""
    same(lambda L, a, b: a % b, t([True, False], "bool"), t([True, False, True], "bool"))


@pytest.mark.parametrize(
    "fn, dtype",
    [
        (lambda L, x: F(L).gelu(x), "int64"),
        (lambda L, x: F(L).gelu(x), "bool"),
        (lambda L, x: F(L).leaky_relu(x), "int64"),
        (lambda L, x: F(L).mse_loss(x, x), "int64"),
        (lambda L, x: F(L).huber_loss(x, x), "int64"),
        (lambda L, x: F(L).smooth_l1_loss(x, x), "int64"),
        (lambda L, x: F(L).binary_cross_entropy_with_logits(x, x), "bool"),
        (lambda L, x: x - x, "bool"),
        (lambda L, x: x - 1, "bool"),
        (lambda L, x: 1 - x, "bool"),
        (lambda L, x: x // x, "bool"),
        (lambda L, x: x % x, "bool"),
        (lambda L, x: x**x, "bool"),
        (lambda L, x: L.div(x, x, rounding_mode="trunc"), "bool"),
        (lambda L, x: +x, "bool"),
        (lambda L, x: L.bitwise_not(x), "float32"),
        (lambda L, x: ~x, "float32"),
        (lambda L, x: L.round(x, decimals=1), "int64"),
        (lambda L, x: L.softmax(x, -1), "int64"),
        (lambda L, x: L.log_softmax(x, 0), "int64"),
        (lambda L, x: L.mm(x, x), "bool"),
        (lambda L, x: L.matmul(x[0], x[0]), "bool"),
        (lambda L, x: F(L).layer_norm(x, (2,)), "int64"),
        (lambda L, x: F(L).adaptive_avg_pool1d(x[None], 2), "int64"),
        (lambda L, x: F(L).max_pool1d(x[None], 2), "int64"),
    ],
)
def test_int_and_bool_refusals(fn, dtype):
    same(fn, t([[1, 0], [1, 1]], dtype))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a, b: L.add(a, b, alpha=2),
        lambda L, a, b: a**False,
        lambda L, a, b: a**True,
        lambda L, a, b: a + b,
        lambda L, a, b: a * b,
        lambda L, a, b: L.div(a, b),
        lambda L, a, b: a % 2,
    ],
)
def test_bool_result_dtypes(fn):
    same(fn, t([True, False], "bool"), t([True, True], "bool"))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a, b: a // b,
        lambda L, a, b: a % b,
        lambda L, a, b: 7 % b,
        lambda L, a, b: L.div(a, b, rounding_mode="floor"),
        lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
        lambda L, a, b: a // 0,
    ],
)
def test_integer_division_by_zero(fn):
    same(fn, t([3, -4], "int64"), t([2, 0], "int64"))
    same(fn, t(np.zeros((0, 2)), "int64"), t([2, 0], "int64"))  # nothing to divide: no error
    same(fn, t([3.0, -4.0]), t([0.0, 0.0]))  # floats: inf and nan, silently


@pytest.mark.parametrize(
    "fn, index",
    [
        (lambda L, x, i: L.index_select(x, 0, i), [-1]),
        (lambda L, x, i: L.index_select(x, 0, i), [3]),
        (lambda L, x, i: L.gather(x, 0, i), [-1]),
        (lambda L, x, i: L.gather(x, 0, i), [3]),
        (lambda L, x, i: L.scatter(x, 0, i, x[:1]), [3]),
        (lambda L, x, i: F(L).embedding(i, x[:, None]), [3]),
        (lambda L, x, i: F(L).embedding(i, x[:, None]), [-1]),
    ],
)
def test_index_range_errors(fn, index):
    same(fn, t([1.0, 2.0, 3.0]), t(index, "int64"), wording=False)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.sum(x, keepdim=True),
        lambda L, x: L.mean(x, keepdim=False),
        lambda L, x: L.prod(x, keepdim=True),
        lambda L, x: L.var(x, unbiased=True, keepdim=True),
        lambda L, x: L.sum(x, dim=None, keepdim=True),
        lambda L, x: L.var(x, keepdim=True),
        lambda L, x: L.squeeze(x, (0, 0)),
        lambda L, x: L.squeeze(x, (0, -2)),
        lambda L, x: L.unflatten(x, 0, ()),
        lambda L, x: L.split(x[0, 0], 1),
        lambda L, x: L.chunk(x[0, 0], 2),
        lambda L, x: L.amax(x[:0], 0),
        lambda L, x: L.amin(x[:0], (0, 1)),
        lambda L, x: L.max(x[:0], 0),
        lambda L, x: L.maximum(x, 1.0),
        lambda L, x: L.logical_xor(x, 1),
        lambda L, x: L.clamp(x, min=x, max=1.0),
        lambda L, x: L.clamp(x, min=x[0, 0], max=1.0),
        lambda L, x: L.unbind(x[0, 0], -1),
        lambda L, x: L.masked_fill(x.long(), x > 0, NAN),
        lambda L, x: F(L).pad(x, (-3, 1)),
        lambda L, x: F(L).pad(x[None], (3, 0), mode="circular"),
        lambda L, x: F(L).pad(x[None, :, :0], (1, 1), mode="replicate"),
    ],
)
def test_argument_checks(fn):
    same(fn, t(rand(2, 2)))


def test_index_put_dtype_mismatch():
    fn = lambda L, x, i, v: L.index_put(x, (i,), v)
    same(fn, t([1.0, 2.0]), t([0], "int64"), t([1], "int64"))

    def setitem(L, x, i, v):
        x = x.clone()
        x[i] = v
        return x

    same(setitem, t([1.0, 2.0]), t([0], "int64"), t([1], "int64"))
    same(setitem, t([1.0, 2.0]), t([True, False], "bool"), t([1], "int64"))  # a mask casts


def test_integer_output_refuses_backward():
    same(lambda L, x: L.sum(x, dtype=L.int64), t([1.5, 2.0]))


# ----- values at the edges -------------------------------------------------------------------
def test_relu_then_sqrt_gradient_is_zero_below_zero():
    same(lambda L, x: L.relu(x).sqrt(), t([-1.0, 0.0, 2.0, NAN]))


def test_cross_entropy_and_nll_with_every_target_ignored():
    for fn in (F(torch).cross_entropy, F(torch).nll_loss):
        name = fn.__name__
        same(lambda L, x, y: getattr(F(L), name)(x, y), t(rand(3, 4)), t([-100] * 3, "int64"))
        same(
            lambda L, x, y: getattr(F(L), name)(x, y, ignore_index=1),
            t([[0.0, INF], [1.0, 2.0]]),
            t([1, 0], "int64"),
        )


@pytest.mark.parametrize("correction", [0, 1, 2, 3, 5])
def test_var_and_std_with_correction_up_to_and_past_n(correction):
    for name in ("var", "std"):
        same(lambda L, x: getattr(L, name)(x, dim=1, correction=correction), t(rand(2, 3)))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.amax(x, 1),
        lambda L, x: L.amin(x, 1),
        lambda L, x: L.max(x),
        lambda L, x: L.max(x, 1).values,
        lambda L, x: L.min(x, 0).values,
        lambda L, x: L.sign(x),
        lambda L, x: L.abs(x),
        lambda L, x: L.softmax(x, 1),
        lambda L, x: L.log_softmax(x, 1),
        lambda L, x: L.softmax(x, 0),
        lambda L, x: F(L).smooth_l1_loss(x, x * 0, reduction="none"),
        lambda L, x: F(L).adaptive_avg_pool1d(x[None], 2),
    ],
)
def test_nan_and_inf(fn):
    same(fn, t([[1.0, NAN, 3.0], [INF, -INF, 1.0], [-INF, -INF, 0.0]]))


def test_batch_norm_on_an_empty_batch_leaves_running_stats():
    for L in (framework, torch):
        mean, var = L.zeros(3), L.ones(3)
        F(L).batch_norm(L.ones(0, 3), mean, var, training=True)
        assert mean.tolist() == [0.0] * 3 and var.tolist() == [1.0] * 3
    same(
        lambda L, x, w, b: F(L).batch_norm(x, L.zeros(3), L.ones(3), w, b, training=True),
        t(np.zeros((0, 3))),
        t(rand(3)),
        t(rand(3)),
    )


def test_cat_with_legacy_empty_tensors():
    same(lambda L, a, b: L.cat([a, b], -1), t(rand(3, 4)), t(np.zeros(0)))
    same(lambda L, a, b: L.cat([a, b]), t([[True]], "bool"), t(np.zeros(0), "int64"))


def test_chunk_and_split_of_a_zero_size_dim():
    same(lambda L, x: L.chunk(x, 3, 1), t(np.zeros((2, 0))))
    same(lambda L, x: L.split(x, 2, 1), t(np.zeros((2, 0))))


def test_boolean_mask_assignment_with_a_broadcast_value():
    def assign(L, x, v):
        x = x * 1
        x[x > 0] = v
        return x

    same(assign, t([[1.0, -1.0], [2.0, 3.0]]), t([5.0]))
    same(assign, t([[1.0, -1.0], [2.0, 3.0]]), t(7.0))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_pads(mode):
    """Values, gradients and nodes (circular padding ends in torch's CopySlices)."""
    same(lambda L, x: F(L).pad(x, (2, 1), mode=mode), t(rand(1, 2, 3)))
    same(lambda L, x: F(L).pad(x, (1, 0, 2, 2), mode=mode), t(rand(1, 2, 3, 3)))
    x = framework.tensor(rand(1, 2, 3, 3), requires_grad=True)
    fn = lambda x: F(framework).pad(x, (1, 0, 2, 2), mode=mode)
    assert framework.autograd.gradcheck(fn, (x,))
    assert framework.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize(
    "fn",
    [
        F(torch).mse_loss,
        F(torch).l1_loss,
        F(torch).smooth_l1_loss,
        F(torch).huber_loss,
        F(torch).binary_cross_entropy_with_logits,
    ],
)
def test_loss_dtype_promotion(fn):
    name = fn.__name__
    for dx, dy in (("float32", "float64"), ("float64", "float32")):
        same(
            lambda L, x, y: getattr(F(L), name)(x, y, reduction="none"),
            t(rand(3), dx),
            t(rand(3), dy, rg=False),
        )
        same(lambda L, x, y: getattr(F(L), name)(x, y), t(rand(3), dx), t(rand(3), dy, rg=False))


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda L, x: L.softmax(x, 0), [(0, 3)]),
        (lambda L, x: L.log_softmax(x, 1), [(2, 0)]),
        (lambda L, x: L.sum(x, 0), [(0, 3)]),
        (lambda L, x: L.mean(x, 0), [(0, 3)]),
        (lambda L, x: L.var(x, 0), [(0, 3)]),
        (lambda L, x: L.prod(x, 1), [(2, 0)]),
        (lambda L, x: L.logsumexp(x, 0), [(0, 2)]),
        (lambda L, x: L.amax(x, 1), [(0, 2)]),
        (lambda L, a, b: L.mm(a, b), [(3, 0), (0, 2)]),
        (lambda L, a, b: L.matmul(a, b), [(0,), (3, 0, 1)]),
        (lambda L, a, b, c: F(L).linear(a, b, c), [(3, 5, 0), (3, 0), (3,)]),
        (lambda L, x: F(L).embedding(L.zeros(0, dtype=L.int64), x), [(2, 3)]),
        (lambda L, x: L.transpose(x, 0, -1), [()]),
        (lambda L, x: L.movedim(x, 0, -1), [()]),
        (lambda L, x: L.nonzero(x), [()]),
        (lambda L, x: L.gather(x, 0, L.zeros(0, 2, dtype=L.int64)), [(2, 2)]),
        (lambda L, x: F(L).gelu(x), [()]),
        (lambda L, x: L.unflatten(x, 1, (-1, 1)), [(2, 0, 3)]),
    ],
)
def test_zero_size_and_zero_dim(fn, shapes):
    same(fn, *[t(rand(*s)) for s in shapes])


def test_integer_powers_and_averages():
    same(
        lambda L, a, b: a**b, t([2, -1, 1, 0, 3, -1], "int64"), t([-1, -3, -2, -1, 2, -4], "int64")
    )
    same(lambda L, x: F(L).avg_pool1d(x, 3, stride=1), t([[[-7, 2, 5, -3]]], "int64"))
    same(
        lambda L, a, b, c: L.addmm(a, b, c, alpha=2.0),
        t([[1]], "int64"),
        t([[2, 3]], "int64"),
        t([[1], [2]], "int64"),
    )


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.log(x),
        lambda L, x: 1 / x,
        lambda L, x: x / x,
        lambda L, x: L.sqrt(-x),
        lambda L, x: L.exp(x * 1e4),
        lambda L, x: L.mean(x[:0]),
        lambda L, x: L.var(x[:1]),
        lambda L, x: F(L).mse_loss(x[:0], x[:0]),
        lambda L, x: F(L).layer_norm(x[:, :0], (0,)),
    ],
)
def test_no_numpy_warning_escapes(fn):
    """torch is silent on log(0), x/0, overflow, empty means; so are we (and agree)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.filterwarnings("ignore", category=UserWarning)  # torch's own dof warning
        same(fn, t([[0.0, 1.0], [2.0, 0.0]]))


def test_maximum_minimum_gradient_with_nan_and_ties():
    for name in ("maximum", "minimum"):
        same(
            lambda L, a, b: getattr(L, name)(a, b), t([NAN, 1.0, 2.0, 3.0]), t([1.0, NAN, 2.0, 0.0])
        )


def test_lookups_into_empty_sources_and_empty_one_hot():
    same(lambda L, x, i: L.index_select(x, 1, i), t(np.zeros((1, 2, 0))), t([-1, 0], "int64"))
    same(lambda L, i, w: F(L).embedding(i, w), t([4], "int64"), t(np.zeros((4, 0))))
    same(lambda L, i: F(L).one_hot(i), t(np.zeros((4, 0)), "int64"))


def test_integer_addmm_casts_alpha_and_beta():
    same(
        lambda L, a, b, c: L.addmm(a, b, c, beta=0.5),
        t([[-3]], "int64"),
        t([[2, 3]], "int64"),
        t([[4], [5]], "int64"),
    )


def test_pow_with_a_bool_exponent_and_overflowing_fills():
    same(lambda L, a, b: a**b, t([1.5, 2.0]), t([True, False], "bool"))

    def fill(L, x):
        x = x.clone()
        x[0] = INF
        return x

    same(fill, t([1, 2], "int64"))
    same(lambda L, x: L.masked_fill(x, x > 1, NAN), t([1, 2], "int64"))


@pytest.mark.parametrize(
    "name",
    [
        "elu",
        "selu",
        "celu",
        "silu",
        "mish",
        "softplus",
        "hardswish",
        "hardsigmoid",
        "logsigmoid",
        "softshrink",
        "hardshrink",
        "hardtanh",
    ],
)
def test_functional_activations_refuse_integers_and_pass_inf(name):
    same(lambda L, x: getattr(F(L), name)(x), t([1, 0], "int64"))
    same(lambda L, x: getattr(F(L), name)(x), t([True, False], "bool"))
    same(lambda L, x: getattr(F(L), name)(x), t([-INF, -1.0, 0.0, 2.0, INF, NAN]))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.nansum(x, 0),
        lambda L, x: L.count_nonzero(x, -1),
        lambda L, x: L.flip(x, (0,)),
        lambda L, x: L.roll(x, 1, 0),
        lambda L, x: L.softmax(x[None][:0], 0),
    ],
)
def test_zero_dim_dims_of_wave2_ops(fn):
    same(fn, t(2.5))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a, b: L.fmax(a, 1.0),
        lambda L, a, b: L.fmin(a, 1.0),
        lambda L, a, b: L.hypot(a, 2),
        lambda L, a, b: L.atan2(a, True),
        lambda L, a, b: L.logaddexp(a.long(), b.long()),
        lambda L, a, b: L.fmod(a > 0, b > 0),
        lambda L, a, b: L.hypot(a > 0, b > 0),
        lambda L, a, b: L.bitwise_left_shift(a > 0, b > 0),
        lambda L, a, b: L.topk(a > 0, 1),
        lambda L, a, b: L.bitwise_left_shift(a.long(), b[:1].long().expand(3)[:2]),
    ],
)
def test_wave2_argument_and_dtype_checks(fn):
    same(fn, t([1.0, -2.0, 3.0]), t([0.5, 2.0, -1.0]))
