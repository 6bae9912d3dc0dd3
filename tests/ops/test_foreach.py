"""torch._foreach_* against torch: every function torch has, each overload of the other
operand (number, list of numbers, list of tensors, tensor), values, dtypes, node names
(grad_fn.name()), gradients for a random upstream gradient, the in-place forms (the list
returned, versions), and torch's errors for empty and mismatched lists."""

import numpy as np
import pytest
import torch

import framework
from helpers import same_outcome
from framework import _foreach as FE

LIBS = (framework, torch)
R = np.random.default_rng(11)
A = [R.uniform(0.2, 0.9, (2, 3)), R.uniform(0.2, 0.9, (4,)), R.uniform(0.2, 0.9, ())]
B = [R.uniform(0.2, 0.9, (2, 3)), R.uniform(0.2, 0.9, (4,)), R.uniform(0.2, 0.9, ())]
C = [R.uniform(0.2, 0.9, (2, 3)), R.uniform(0.2, 0.9, (4,)), R.uniform(0.2, 0.9, ())]


def _same(fn, rtol=1e-6):
    same_outcome(fn, rtol=rtol, atol=1e-12)


def _v(t):
    return np.asarray(t.detach().tolist(), dtype=float)


def _list(L, arrays, rg=False, dtype="float64"):
    return [L.tensor(a, dtype=getattr(L, dtype), requires_grad=rg) for a in arrays]


def _outputs(L, outs, leaves):
    """Values, dtypes and node names of the outputs; the leaves' gradients."""
    res = [type(outs).__name__]
    for o in outs:
        res += [_v(o), str(o.dtype), o.grad_fn.name() if o.grad_fn is not None else None]
    grads_of = [x for x in leaves if x.requires_grad]
    if grads_of and any(o.requires_grad for o in outs):
        ups = [
            L.tensor(np.random.default_rng(i).standard_normal(tuple(o.shape)), dtype=o.dtype)
            for i, o in enumerate(outs)
        ]
        pairs = [(o, u) for o, u in zip(outs, ups) if o.requires_grad]
        grads = L.autograd.grad(
            [o for o, _ in pairs], grads_of, [u for _, u in pairs], allow_unused=True
        )
        res += [None if g is None else _v(g) for g in grads]
    return res


@pytest.mark.parametrize("op", FE.UNARY)
def test_unary(op):
    def fn(L):
        xs = _list(L, A, rg=True)
        return _outputs(L, getattr(L, f"_foreach_{op}")(xs), xs)

    _same(fn)


def _other(L, kind, rg):
    if kind == "scalar":
        return 1.5
    if kind == "scalars":
        return [1.5, -0.5, 2.0]
    if kind == "tensors":
        return _list(L, B, rg)
    return L.tensor(0.75, dtype=L.float64)


@pytest.mark.parametrize("kind", ["scalar", "scalars", "tensors", "tensor"])
@pytest.mark.parametrize("op", list(FE.BINARY))
def test_binary(op, kind):
    def fn(L):
        xs = _list(L, A, rg=True)
        other = _other(L, kind, rg=True)
        leaves = xs + (other if kind == "tensors" else [])
        return _outputs(L, getattr(L, f"_foreach_{op}")(xs, other), leaves)

    _same(fn)


@pytest.mark.parametrize("kind", ["scalar", "scalars", "tensors", "tensor"])
@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha(op, kind):
    def fn(L):
        xs = _list(L, A, rg=True)
        out = getattr(L, f"_foreach_{op}")(xs, _other(L, kind, False), alpha=2)
        return _outputs(L, out, xs)

    _same(fn)


@pytest.mark.parametrize("kind", ["scalar", "scalars", "tensors", "tensor"])
@pytest.mark.parametrize("op", list(FE.BINARY))
def test_binary_inplace(op, kind):
    """The list itself returned, each tensor written (versions bumped), non-leaf history."""

    def fn(L):
        base = _list(L, A, rg=True)
        xs = [x * 1 for x in base]
        other = _other(L, kind, rg=False)
        out = getattr(L, f"_foreach_{op}_")(xs, other)
        res = [out is xs, [x._version for x in xs]]
        return res + _outputs(L, tuple(xs), base)[1:]

    _same(fn)


@pytest.mark.parametrize("op", FE.UNARY + ["zero"])
def test_unary_inplace(op):
    def fn(L):
        xs = _list(L, A)
        out = getattr(L, f"_foreach_{op}_")(xs)
        return [out is xs, [x._version for x in xs]] + [_v(x) for x in xs]

    _same(fn)


@pytest.mark.parametrize("value", ["scalar", "scalars", "default"])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("inplace", [False, True])
def test_pointwise_ternary(op, value, inplace):
    def fn(L):
        base = _list(L, A, rg=True)
        xs = [x * 1 for x in base] if inplace else base
        t1, t2 = _list(L, B), _list(L, C)
        args = {"scalar": (0.5,), "scalars": ([0.5, 2.0, -1.0],), "default": ()}[value]
        out = getattr(L, f"_foreach_{op}" + ("_" if inplace else ""))(xs, t1, t2, *args)
        if inplace:
            return [out is xs] + _outputs(L, tuple(xs), base)[1:]
        return _outputs(L, out, base)

    _same(fn)


@pytest.mark.parametrize("weight", ["scalar", "scalars", "tensors"])
@pytest.mark.parametrize("inplace", [False, True])
def test_lerp(weight, inplace):
    def fn(L):
        base = _list(L, A, rg=True)
        xs = [x * 1 for x in base] if inplace else base
        ends = _list(L, B, rg=True)
        w = {"scalar": 0.3, "scalars": [0.3, 0.6, 0.9], "tensors": _list(L, C)}[weight]
        out = getattr(L, "_foreach_lerp" + ("_" if inplace else ""))(xs, ends, w)
        if inplace:
            return [out is xs] + _outputs(L, tuple(xs), base + ends)[1:]
        return _outputs(L, out, base + ends)

    _same(fn)


REDUCTIONS = {
    "norm": lambda L, xs: L._foreach_norm(xs),
    "norm_1": lambda L, xs: L._foreach_norm(xs, 1),
    "norm_inf": lambda L, xs: L._foreach_norm(xs, float("inf")),
    "norm_dtype": lambda L, xs: L._foreach_norm([x.float() for x in xs], dtype=L.float64),
    "max": lambda L, xs: L._foreach_max(xs),
    "pow_base": lambda L, xs: L._foreach_pow(2.0, xs),
    "mm": lambda L, xs: L._foreach_mm([xs[0], xs[0].t()], [xs[0].t(), xs[0]]),
}


@pytest.mark.parametrize("case", list(REDUCTIONS))
def test_norm_max_pow_mm(case):
    def fn(L):
        xs = _list(L, A, rg=True)
        return _outputs(L, REDUCTIONS[case](L, xs), xs)

    _same(fn)


def test_clone_powsum_copy():
    """Values of _foreach_clone / _foreach_powsum; _foreach_copy_ writes and returns the list."""

    def fn(L):
        xs = _list(L, A)
        res = [_v(t) for t in L._foreach_clone(xs)] + [_v(t) for t in L._foreach_powsum(xs, 3)]
        dst = _list(L, B)
        out = L._foreach_copy_(dst, xs)
        return res + [out is dst] + [_v(t) for t in dst] + [[t._version for t in dst]]

    _same(fn)


ERRORS = {
    "empty": lambda L: L._foreach_add([], 1.0),
    "empty_unary": lambda L: L._foreach_exp([]),
    "tensor_lists": lambda L: L._foreach_add(_list(L, A), _list(L, B)[:2]),
    "scalar_list": lambda L: L._foreach_mul(_list(L, A), [1.0, 2.0]),
    "shapes": lambda L: L._foreach_add(_list(L, A), _list(L, B)[::-1]),
    "leaf_inplace": lambda L: L._foreach_add_(_list(L, A, rg=True), 1.0),
    "int_inplace_float": lambda L: L._foreach_div_([L.tensor([1, 2])], 2),
    "addcmul_lengths": lambda L: L._foreach_addcmul(_list(L, A), _list(L, B)[:1], _list(L, C)),
    "lerp_lengths": lambda L: L._foreach_lerp(_list(L, A), _list(L, B)[:1], 0.5),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    _same(lambda L: [_v(t) for t in ERRORS[case](L)])


def test_every_foreach_function_exists():
    """Every torch._foreach_ name exists here, with a docstring."""
    names = [n for n in dir(torch) if n.startswith("_foreach_")]
    assert len(names) > 80
    for name in names:
        assert getattr(framework, name).__doc__, name


def test_optimizer_style_update_matches_torch():
    """An Adam-like step written with foreach calls, as torch's foreach optimizers do."""

    def fn(L):
        params = _list(L, A)
        grads, exp_avg, exp_avg_sq = _list(L, B), _list(L, [a * 0 for a in A]), _list(L, C)
        L._foreach_lerp_(exp_avg, grads, 0.1)
        L._foreach_mul_(exp_avg_sq, 0.999)
        L._foreach_addcmul_(exp_avg_sq, grads, grads, 1 - 0.999)
        denom = L._foreach_sqrt(exp_avg_sq)
        L._foreach_add_(denom, 1e-8)
        L._foreach_addcdiv_(params, exp_avg, denom, [-1e-3, -2e-3, -3e-3])
        return [_v(p) for p in params]

    _same(fn, rtol=1e-12)
