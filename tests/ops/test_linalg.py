"""Matrix products (framework/ops/linalg.py) against torch: values, node names, gradients."""

import pytest
import torch
import torch.nn.functional as F

import framework
from framework.autograd import gradcheck, gradgradcheck
from helpers import compare_with_torch, randn


def _chain(t):
    """Node names along next_functions[0], the way torch shows how matmul was composed."""
    out, fn = [], t.grad_fn
    while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
        out.append(fn.name())
        fn = fn.next_functions[0][0]
    return out


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((4, 5, 2, 3), (4, 5, 3, 4)),
    ((4, 5, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (4, 5, 3, 4)),
    ((4, 5, 2, 3), (3, 4)),
    ((4, 5, 2, 3), (3,)),
    ((3,), (4, 5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (1, 3, 4)),
    ((1, 2, 3), (1, 3, 4)),
    ((2, 1, 2, 3), (5, 3, 4)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_every_rank(sa, sb, device):
    fw, th = compare_with_torch(
        lambda a, b: a @ b, lambda a, b: a @ b, [randn(*sa), randn(*sb)], device=device
    )
    # the whole composed chain, not only the outer node
    assert _chain(fw) == _chain(th)


@pytest.mark.parametrize("name", ["mm", "bmm", "mv", "dot", "matmul", "outer"])
def test_named_products(name, device):
    shapes = {
        "mm": [(2, 3), (3, 4)],
        "bmm": [(5, 2, 3), (5, 3, 4)],
        "mv": [(2, 3), (3,)],
        "dot": [(4,), (4,)],
        "matmul": [(2, 3), (3, 4)],
        "outer": [(3,), (4,)],
    }[name]
    fw, th = compare_with_torch(
        getattr(framework, name), getattr(torch, name), [randn(*s) for s in shapes], device=device
    )
    assert _chain(fw) == _chain(th)
    compare_with_torch(
        lambda a, b: getattr(a, name)(b),
        lambda a, b: getattr(a, name)(b),
        [randn(*s) for s in shapes],
        device=device,
    )


@pytest.mark.parametrize("bias_shape", [(4,), (2, 4), (1, 4), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0)])
def test_addmm(bias_shape, beta, alpha, device):
    compare_with_torch(
        lambda b, x, w: framework.addmm(b, x, w, beta=beta, alpha=alpha),
        lambda b, x, w: torch.addmm(b, x, w, beta=beta, alpha=alpha),
        [randn(*bias_shape), randn(2, 3), randn(3, 4)],
        device=device,
    )


def test_addmm_beta_zero_ignores_nan_bias(device):
    bias = randn(4)
    bias[0] = float("nan")
    compare_with_torch(
        lambda b, x, w: framework.addmm(b, x, w, beta=0),
        lambda b, x, w: torch.addmm(b, x, w, beta=0),
        [bias, randn(2, 3), randn(3, 4)],
        device=device,
    )


@pytest.mark.parametrize("x_shape", [(2, 3), (3,), (5, 2, 3), (4, 5, 2, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear(x_shape, bias, device):
    inputs = [randn(*x_shape), randn(4, 3)] + ([randn(4)] if bias else [])
    fw, th = compare_with_torch(framework.nn.functional.linear, F.linear, inputs, device=device)
    assert _chain(fw) == _chain(th)


def test_linear_is_one_addmm_node():
    x = framework.randn(8, 3)
    w = framework.randn(4, 3, requires_grad=True)
    b = framework.randn(4, requires_grad=True)
    y = framework.nn.functional.linear(x, w, b)
    assert y.grad_fn.name() == "AddmmBackward0"
    assert [n.name() if n else None for n, _ in y.grad_fn.next_functions] == [
        "torch::autograd::AccumulateGrad",
        None,
        "TBackward0",
    ]


def test_float32_and_int(device):
    a, b = framework.randn(2, 3, device=device), framework.randn(3, 4, device=device)
    assert (a @ b).dtype == framework.float32
    assert framework.addmm(framework.zeros(4, device=device), a, b).dtype == framework.float32
    i = framework.ones(2, 3, dtype=framework.int64, device=device)
    j = framework.ones(3, 2, dtype=framework.int64, device=device)
    assert (i @ j).dtype == framework.int64 and (i @ j).tolist() == [[3, 3], [3, 3]]


GRAD_CASES = [
    (framework.mm, [(2, 3), (3, 4)]),
    (framework.mv, [(2, 3), (3,)]),
    (framework.dot, [(3,), (3,)]),
    (framework.bmm, [(2, 2, 3), (2, 3, 2)]),
    (lambda b, x, w: framework.addmm(b, x, w, beta=0.5, alpha=2.0), [(3,), (2, 3), (3, 3)]),
    (framework.nn.functional.linear, [(2, 2, 3), (4, 3), (4,)]),
    (framework.outer, [(3,), (2,)]),
    (framework.matmul, [(2, 2, 3), (3,)]),
    (framework.matmul, [(3,), (2, 3, 2)]),
    (framework.matmul, [(2, 1, 2, 3), (2, 3, 2)]),
    (framework.matmul, [(2, 3), (2, 3, 2)]),
]


@pytest.mark.parametrize("k", range(len(GRAD_CASES)))
def test_gradcheck(k):
    fn, shapes = GRAD_CASES[k]
    inputs = tuple(framework.randn(*s, dtype=framework.float64, requires_grad=True) for s in shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def R(m, *shape, dtype=None):
    return m.randn(*shape, dtype=dtype or m.float32) if shape else m.tensor(1.0)


ERRORS = [
    lambda m: R(m, 2, 3).mm(R(m, 4, 5)),
    lambda m: R(m, 2, 3).mm(R(m, 3, 4, dtype=m.float64)),
    lambda m: R(m, 3).mm(R(m, 3, 4)),
    lambda m: R(m, 2, 3).mm(R(m, 3)),
    lambda m: R(m, 2, 3).mv(R(m, 4)),
    lambda m: R(m, 3).mv(R(m, 3)),
    lambda m: R(m, 2, 3).mv(R(m, 3, 1)),
    lambda m: R(m, 2, 3).mv(R(m, 3, dtype=m.float64)),
    lambda m: R(m, 3).dot(R(m, 4)),
    lambda m: R(m, 3, 1).dot(R(m, 3)),
    lambda m: R(m, 3).dot(R(m, 3, dtype=m.float64)),
    lambda m: m.bmm(R(m, 5, 2, 3), R(m, 5, 4, 4)),
    lambda m: m.bmm(R(m, 5, 2, 3), R(m, 4, 3, 4)),
    lambda m: m.bmm(R(m, 2, 3), R(m, 5, 3, 4)),
    lambda m: m.bmm(R(m, 5, 2, 3), R(m, 5, 3, 4, dtype=m.float64)),
    lambda m: R(m) @ R(m, 3),
    lambda m: R(m, 2, 3) @ R(m, 4, 5),
    lambda m: R(m, 3) @ R(m, 4),
    lambda m: R(m, 2, 3) @ R(m, 4),
    lambda m: R(m, 3) @ R(m, 4, 5),
    lambda m: R(m, 5, 2, 3) @ R(m, 5, 4, 4),
    lambda m: R(m, 5, 2, 3) @ R(m, 4, 3, 4),
    lambda m: R(m, 5, 2, 3) @ R(m, 4, 4),
    lambda m: R(m, 5, 2, 3) @ R(m, 4),
    lambda m: R(m, 3) @ R(m, 5, 4, 4),
    lambda m: R(m, 2, 3) @ R(m, 3, 4, dtype=m.float64),
    lambda m: R(m, 5, 2, 3) @ R(m, 5, 3, 4, dtype=m.float64),
    lambda m: m.addmm(R(m, 3), R(m, 2, 3), R(m, 3, 4)),
    lambda m: m.outer(R(m, 2, 2), R(m, 3)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    with pytest.raises(RuntimeError) as want:
        ERRORS[k](torch)
    with pytest.raises(RuntimeError) as got:
        ERRORS[k](framework)
    assert str(got.value) == str(want.value)


def test_linear_error_message():
    with pytest.raises(RuntimeError) as want:
        F.linear(torch.zeros(2, 3), torch.zeros(4, 5))
    with pytest.raises(RuntimeError) as got:
        framework.nn.functional.linear(framework.zeros(2, 3), framework.zeros(4, 5))
    assert str(got.value) == str(want.value)


def test_mm_inner_size_one_inf_times_zero_is_nan_as_torch():
    """(m, 1) @ (1, 1) with an inf against a zero: NaN as torch (NumPy's ndarray.dot gives
    0 there, matmul NaN)."""
    import numpy as np

    a = np.full((3, 1), np.inf)
    b = np.zeros((1, 1))
    for fn in (lambda L, x, y: L.mm(x, y), lambda L, x, y: L.addmm(L.zeros(3, 1).double(), x, y)):
        got, want = (fn(L, L.tensor(a), L.tensor(b)).numpy() for L in (framework, torch))
        np.testing.assert_array_equal(got, want)
