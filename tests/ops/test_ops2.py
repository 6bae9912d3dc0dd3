"""Common top-level helpers (framework/ops/extras2.py) against torch 2.13: values, dtypes,
node names, gradients for a random upstream gradient; gradcheck/gradgradcheck of own Ops."""

import math

import numpy as np
import pytest

import framework
from parity import check, gradchecks, same_error

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
Z = RNG.standard_normal((2, 3, 4))
P = RNG.uniform(0.05, 0.95, (3, 4))
PE = np.array([0.0, 0.05, 0.5, 0.95, 1.0, 0.3])
XZ = np.array([0.0, 0.5, -1.5, 2.25, 1e-3])
XI = np.array([-2.0, 0.0, 3.0, 0.0])

CASES = {
    "tile": (lambda m, F, a: m.tile(a, (2,)), [X]),
    "tile_more": (lambda m, F, a: a.tile((2, 1, 3)), [X]),
    "tile_method_ints": (lambda m, F, a: a.tile(2), [X]),
    "tile_method_unpacked": (lambda m, F, a: a.tile(2, 1, 1), [X]),
    "diag_vec": (lambda m, F, a: m.diag(a), [V]),
    "diag_vec_offset": (lambda m, F, a: m.diag(a, -2), [V]),
    "diag_embed": (lambda m, F, a: m.diag_embed(a), [X]),
    "diag_embed_dims": (lambda m, F, a: m.diag_embed(a, 1, 0, 2), [Z]),
    "diag_embed_neg": (lambda m, F, a: a.diag_embed(-1, -1, 0), [X]),
    "diagflat": (lambda m, F, a: m.diagflat(a), [X]),
    "diagflat_offset": (lambda m, F, a: a.diagflat(2), [V]),
    "broadcast_tensors": (lambda m, F, a, b: m.broadcast_tensors(a, b), [X, V]),
    "logit": (lambda m, F, a: m.logit(a), [P]),
    "logit_eps": (lambda m, F, a: a.logit(eps=0.1), [PE]),
    "logit_eps_gc": (lambda m, F, a: a.logit(eps=0.1), [np.array([0.02, 0.3, 0.7, 0.97])]),
    "block_diag": (lambda m, F, a, b, c: m.block_diag(a, b, c), [X, V, np.array(2.0)]),
    "deg2rad": (lambda m, F, a: m.deg2rad(a), [X]),
    "rad2deg": (lambda m, F, a: a.rad2deg(), [X]),
    "sinc": (lambda m, F, a: m.sinc(a), [XZ]),
    "sinc_gc": (lambda m, F, a: m.sinc(a), [XZ[1:]]),  # torch's masked 0 at x=0 is a kink
    "ravel": (lambda m, F, a: m.ravel(a), [X]),
    "ravel_t": (lambda m, F, a: a.t().ravel(), [X]),
    "inner": (lambda m, F, a, b: m.inner(a, b), [X, V]),
    "inner_batch": (lambda m, F, a, b: a.inner(b), [Z, X]),
    "hsplit": (lambda m, F, a: m.hsplit(a, 2), [X]),
    "hsplit_1d": (lambda m, F, a: a.hsplit([1, 3]), [V]),
    "vsplit": (lambda m, F, a: m.vsplit(a, [1]), [X]),
    "dsplit": (lambda m, F, a: a.dsplit(2), [Z]),
    "dist": (lambda m, F, a, b: m.dist(a, b), [X, V]),
    "dist_1": (lambda m, F, a, b: a.dist(b, 1), [X, V]),
    "dist_inf": (lambda m, F, a, b: m.dist(a, b, math.inf), [X, V]),
    "dist_3": (lambda m, F, a, b: m.dist(a, b, 3), [X, V]),
    "logcumsumexp": (lambda m, F, a: m.logcumsumexp(a, 1), [X]),
    "logcumsumexp_dim0": (lambda m, F, a: a.logcumsumexp(0), [Z]),
    "trapezoid": (lambda m, F, a: m.trapezoid(a), [X]),
    "trapezoid_dx": (lambda m, F, a: m.trapezoid(a, dx=0.5, dim=0), [X]),
    "trapezoid_x": (lambda m, F, a, b: m.trapezoid(a, b), [X, V]),
    "trapezoid_x2": (lambda m, F, a, b: m.trapezoid(a, b, dim=0), [X, X]),
    "cumulative_trapezoid": (lambda m, F, a: m.cumulative_trapezoid(a), [X]),
    "cumulative_trapezoid_x": (lambda m, F, a, b: m.cumulative_trapezoid(a, b), [X, V]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device)


# (sinc's float32 gradient at 1e-3 is torch's cancellation, 1% off; ours is the exact quotient:
# tests/ops/test_fidelity_silent8.py compares both with the float64 gradient)
@pytest.mark.parametrize("name", ["diag_embed", "logit", "logcumsumexp", "dist", "inner"])
def test_float32(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device, dtype=np.float32)


NO_GRAD = {
    "diag_mat": (lambda m, F, a: m.diag(a, 1), [X]),
    "isin": (lambda m, F, a, b: m.isin(a, b), [np.arange(6), np.array([1, 4, 9])]),
    "isin_invert": (lambda m, F, a, b: m.isin(a, b, invert=True), [np.arange(6), np.array([1, 4])]),
    "signbit": (lambda m, F, a: m.signbit(a), [np.array([-1.0, -0.0, 0.0, 2.0])]),
    "signbit_int": (lambda m, F, a: a.signbit(), [np.array([-1, 0, 2])]),
    "deg2rad_int": (lambda m, F, a: m.deg2rad(a), [np.array([0, 90, 180])]),
    "sinc_int": (lambda m, F, a: m.sinc(a), [np.array([0, 1, 2])]),
    "argwhere": (lambda m, F, a: m.argwhere(a), [XI.reshape(2, 2)]),
    "positive": (lambda m, F, a: m.positive(a), [X]),
    "block_diag_mixed": (
        lambda m, F, a, b: m.block_diag(a, b),
        [X.astype(np.float32), np.ones((1, 2), np.int64)],
    ),
}


@pytest.mark.parametrize("name", sorted(NO_GRAD))
def test_no_grad_values(name, device):
    fn, arrays = NO_GRAD[name]
    check(fn, arrays, device, requires_grad=[False] * len(arrays))


@pytest.mark.parametrize(
    "name",
    [
        "diag_embed_dims",
        "logit_eps_gc",
        "block_diag",
        "sinc_gc",
        "logcumsumexp",
        "dist_3",
        "deg2rad",
    ],
)
def test_gradchecks(name):
    fn, arrays = CASES[name]
    gradchecks(fn, arrays)


def test_diag_matrix():
    for k in (0, 1, -2):
        check(lambda m, F, a: m.diag(a, k), [X])
    gradchecks(lambda m, F, a: a.diag(1), [X])
    a = framework.tensor(X)
    d = framework.diag(a)
    d += 1  # a copy, not a view
    np.testing.assert_array_equal(a.numpy(), X)


def test_forward_ad():
    import torch

    for name in ("diag_embed", "logit", "sinc", "deg2rad", "block_diag", "dist", "copysign"):
        fn, arrays = {**CASES, **CASES2}[name]
        outs = []
        for m in (framework, torch):
            fwad = m.autograd.forward_ad
            with fwad.dual_level():
                ins = [fwad.make_dual(m.tensor(a), m.tensor(np.ones_like(a) * 0.5)) for a in arrays]
                outs.append(fwad.unpack_dual(fn(m, None, *ins)).tangent.detach().numpy())
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-10, atol=1e-12, err_msg=name)


def test_indices():
    import torch

    for args in [(3, 3), (4, 3, 1), (3, 5, -1), (0, 3)]:
        for name in ("tril_indices", "triu_indices"):
            fw, th = getattr(framework, name)(*args), getattr(torch, name)(*args)
            assert fw.dtype == framework.int64
            np.testing.assert_array_equal(fw.numpy(), th.numpy())
    assert framework.tril_indices(3, 3, dtype=framework.int32).dtype == framework.int32


def test_predicates():
    import torch

    for m in (framework, torch):
        assert m.is_same_size(m.zeros(2, 3), m.ones(2, 3))
        assert not m.is_same_size(m.zeros(2, 3), m.ones(3, 2))
        assert m.is_nonzero(m.tensor([2.0])) and not m.is_nonzero(m.tensor(0))
        assert m.zeros(1).is_nonzero() is False


def test_positive_is_input():
    a = framework.tensor(X)
    assert framework.positive(a) is a


def test_block_diag_empty():
    import torch

    fw, th = framework.block_diag(), torch.block_diag()
    assert tuple(fw.shape) == tuple(th.shape) and str(fw.dtype) == str(th.dtype)


ERRORS = {
    "tile_int": (lambda m, F, a: m.tile(a, 2), [X], "must be tuple of ints, not int"),
    "diag_3d": (lambda m, F, a: m.diag(a), [Z], "Supports 1D or 2D"),
    "block_diag_3d": (lambda m, F, a: m.block_diag(a), [Z], "Input 0 has 3 dimensions"),
    "hsplit_indivisible": (
        lambda m, F, a: m.hsplit(a, 3),
        [X],
        "not divisible by the split_size 3",
    ),
    "vsplit_1d": (lambda m, F, a: m.vsplit(a, 2), [V], "at least 2 dimension,"),
    "dsplit_2d": (lambda m, F, a: m.dsplit(a, 2), [X], "at least 3 dimension,"),
    "is_nonzero_many": (lambda m, F, a: m.is_nonzero(a), [V], "more than one value"),
    "is_nonzero_empty": (lambda m, F, a: m.is_nonzero(a), [np.zeros(0)], "no values"),
    "positive_bool": (lambda m, F, a: m.positive(a), [np.array([True])], "on a bool tensor"),
    "diag_embed_same": (lambda m, F, a: m.diag_embed(a, 0, 1, 1), [X], "cannot be identical"),
    "inner_mismatch": (
        lambda m, F, a, b: m.inner(a, b),
        [X, Z[..., :3]],
        "last dimension must match",
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    fn, arrays, match = ERRORS[name]
    same_error(fn, arrays, match)


XN = np.array([[1.5, -2.0, 0.0], [-0.5, 3.0, 2.0]])
W = np.array([1, 2, 3])
AW = np.array([0.5, 1.0, 2.0])
CASES2 = {
    "float_power": (lambda m, F, a: m.float_power(a, 2), [X]),
    "float_power_t": (lambda m, F, a, b: a.float_power(b), [np.abs(X) + 0.5, V]),
    "float_power_scalar_base": (lambda m, F, a: m.float_power(2, a), [X]),
    "float_power_f32": (lambda m, F, a, b: m.float_power(a, b), [X.astype(np.float32), V]),
    "copysign": (lambda m, F, a, b: m.copysign(a, b), [XN, V[:3]]),
    "copysign_scalar": (lambda m, F, a: a.copysign(-1.0), [XN]),
    "chain_matmul": (lambda m, F, a, b, c: m.chain_matmul(a, b, c), [X, X.T, X]),
    "chain_matmul_one": (lambda m, F, a: m.chain_matmul(a), [X]),
    "cov": (lambda m, F, a: m.cov(a), [X]),
    "cov_1d": (lambda m, F, a: a.cov(correction=0), [V]),
    "cov_w": (lambda m, F, a, w: m.cov(a, fweights=w), [XN, W]),
    "cov_aw": (lambda m, F, a, w, aw: m.cov(a, fweights=w, aweights=aw), [XN, W, AW]),
    "corrcoef": (lambda m, F, a: m.corrcoef(a), [X]),
    "corrcoef_1d": (lambda m, F, a: a.corrcoef(), [V]),
}


@pytest.mark.parametrize("name", sorted(CASES2))
def test_float64_more(name, device):
    import warnings

    fn, arrays = CASES2[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # chain_matmul's deprecation, in both
        check(fn, arrays, device)


def test_copysign_gradchecks():
    gradchecks(CASES2["copysign"][0], [X[:2, :3], V[:3]])  # no zeros: the kink at 0
    gradchecks(CASES2["copysign_scalar"][0], [X])


def test_copysign_int_dtype():
    check(lambda m, F, a, b: m.copysign(a, b), [np.array([1, -2]), np.array([-1, 1])])


def test_chain_matmul_warns():
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        framework.chain_matmul(framework.eye(2), framework.eye(2))


def test_logspace():
    import torch

    for args, kw in [((0, 2, 5), {}), ((-1, 1, 4), {"base": 2}), ((0, 3, 7), {"dtype": "float64"})]:
        dt = kw.pop("dtype", None)
        fw = framework.logspace(*args, **kw, dtype=getattr(framework, dt) if dt else None)
        th = torch.logspace(*args, **kw, dtype=getattr(torch, dt) if dt else None)
        assert str(fw.dtype) == str(th.dtype)
        np.testing.assert_allclose(fw.numpy(), th.numpy(), rtol=1e-6 if dt is None else 1e-14)


def test_dtype_queries():
    import torch

    names = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
    for a in names:
        for b in names:
            fa, fb, ta, tb = (getattr(m, n) for m in (framework, torch) for n in (a, b))
            assert str(framework.promote_types(fa, fb)) == str(torch.promote_types(ta, tb))
            assert framework.can_cast(fa, fb) == torch.can_cast(ta, tb), (a, b)
    for m in (framework, torch):
        pass
    pairs = [
        (lambda m: m.tensor([1, 2]), lambda m: 1.0),
        (lambda m: m.tensor([1.0], dtype=m.float16), lambda m: m.tensor(2.0)),
        (lambda m: m.tensor(1, dtype=m.int8), lambda m: m.tensor([1], dtype=m.uint8)),
        (lambda m: m.tensor([True]), lambda m: 3),
    ]
    for a, b in pairs:
        assert str(framework.result_type(a(framework), b(framework))) == str(
            torch.result_type(a(torch), b(torch))
        )


def test_heaviside_int_and_backward():
    check(lambda m, F, a, b: a.heaviside(b), [np.array([-1, 0, 3]), np.array(7)])
    check(lambda m, F, a, b: m.heaviside(a, b), [XN, V[:3]], requires_grad=[False, False])
    import torch

    for m in (framework, torch):
        y = m.heaviside(m.tensor([-1.0, 0.0], requires_grad=True), m.tensor(0.5))
        assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
    x = framework.tensor([-1.0, 0.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        framework.heaviside(x, framework.tensor(0.5)).sum().backward()


ERRORS2 = {
    "heaviside_dtypes": (
        lambda m, F, a, b: m.heaviside(a, b),
        [np.array([1.0]), np.array([1])],
        "different dtypes",
    ),
    "cov_3d": (lambda m, F, a: m.cov(a), [Z], "two or fewer dimensions"),
    "corrcoef_3d": (lambda m, F, a: m.corrcoef(a), [Z], "two or fewer dimensions"),
    "cov_bool": (lambda m, F, a: m.cov(a), [np.array([True, False])], "bool dtype"),
}


@pytest.mark.parametrize("name", sorted(ERRORS2))
def test_errors_more(name):
    fn, arrays, match = ERRORS2[name]
    same_error(fn, arrays, match)


EDGE = [
    "m.block_diag(m.tensor([1, 2]), m.tensor([[1.5]]))",
    "m.tile(m.tensor(2.0), (2, 2))",
    "m.tile(m.ones(2), [])",
    "m.isin(m.tensor([1, 2, 3]), 2)",
    "m.isin(3, m.tensor([1, 2, 3]))",
    "m.logit(m.tensor([1, 0]))",
    "m.sinc(m.tensor([0, 1]))",
    "m.hsplit(m.arange(6), 3)",
    "m.tril_indices(3, 4, 2)",
    "m.triu_indices(4, 3, -1)",
    "m.inner(m.tensor(2.0), m.ones(3))",
    "m.trapezoid(m.ones(0))",
    "m.trapezoid(m.arange(4.0), m.tensor([0.0, 1, 3, 6]))",
    "m.cumulative_trapezoid(m.arange(4.0), dx=2)",
    "m.dist(m.ones(3), m.zeros(3), 0)",
    "m.float_power(m.tensor([2]), m.tensor([0.5]))",
    "m.copysign(m.tensor([1, 2]), -1)",
    "m.cov(m.tensor([[1, 2, 4], [0, 3, 1]]))",
    "m.corrcoef(m.tensor([1.0, 2.0]))",
    "m.logspace(0, 1, 1)",
    "m.logspace(1, 3, 3, dtype=m.int64)",
    "m.logcumsumexp(m.tensor([[float('-inf'), 0.0]]), 1)",
    "m.argwhere(m.tensor(5))",
    "m.diagflat(m.tensor([[1, 2], [3, 4]]), -1)",
    "m.broadcast_tensors(m.ones(2, 1), m.ones(1, 3), m.tensor(1.0))[2].shape",
    "m.signbit(m.tensor([True]))",
    "m.deg2rad(m.tensor([True]))",
    "m.vsplit(m.arange(12).reshape(4, 3), [1, 3])[2]",
]


@pytest.mark.parametrize("expr", EDGE)
def test_edge_cases_print_as_torch(expr):
    """Edge inputs (integers, bools, empty, 0-d, one step): the same printed result."""
    import torch

    fw, th = (repr(eval(expr, {"m": m})) for m in (framework, torch))
    assert fw == th
