"""torch's efficient ZeroTensor (sgn's gradient) through the engine, node by node, against
torch: products and quotients pass it on untouched, every other formula (and the engine's
sum_to of a broadcast input, or a dtype cast) materializes it, and 0 * inf = NaN appears
exactly there (framework/autograd/zero_grad.py). Each case runs in both libraries with a
random upstream gradient, as the fuzzer does."""

import math

import numpy as np
import pytest

from fuzz.runner import EXCEPTION, SILENT, Program, seed_drawing
from fuzz.runner import compare_program
from ops.optable import CHAIN, OPS
from ops.test_fidelity import same, t

INF, NAN = math.inf, math.nan
X = [[1.5, 0.0, -2.0], [NAN, 3.0, -0.5]]
W = [[INF, 1.0, 2.0], [1.0, -INF, 0.5]]


def test_rdiv_then_sgn_materializes_at_reciprocal_not_at_mul():
    """2.0 / x is reciprocal(x) * 2: MulBackward0 passes sgn's ZeroTensor on, and
    ReciprocalBackward0's -grad * result^2 materializes it, so x = 0 (result inf) gives NaN
    (fuzzer seed 24064649)."""
    same(lambda L, x: (2.0 / x).sgn(), t(X))
    same(lambda L, x: (2.0 / x).sgn(), t(X, "float32"))


def test_multilabel_soft_margin_loss_with_inf_weight_then_sgn():
    """The loss's mean materializes the ZeroTensor; the weight's product below it is then
    0 * inf = NaN (fuzzer seed 24033981)."""
    x = t([[-0.0134, 1.1486], [0.3, -2.0]])
    y = t([[0.0, 1.0], [1.0, 1.0]], rg=False)
    w = t([0.5, INF], rg=False)
    same(
        lambda L, x, y, w: L.nn.functional.multilabel_soft_margin_loss(x, y, weight=w).sgn(),
        x,
        y,
        w,
    )
    same(lambda L, x, y: L.nn.functional.multilabel_soft_margin_loss(x, y).sgn(), x, y)


# f(x * w) then sgn, with inf in w: the product's node tells whether the node above it sent
# the ZeroTensor on (x's gradient 0) or real zeros (NaN where w is inf)
PROBES = {
    "identity": lambda L, v: v,
    "mul_scalar": lambda L, v: v * 2.0,
    "mul_tensor": lambda L, v: v * L.tensor([2.0, 3.0, 4.0], dtype=v.dtype),
    "mul_broadcast": lambda L, v: v * L.ones(4, 2, 3, dtype=v.dtype),
    "div_scalar": lambda L, v: v / 2.0,
    "div_tensor": lambda L, v: v / L.tensor([2.0, 3.0, 4.0], dtype=v.dtype),
    "rdiv_tensor": lambda L, v: L.tensor([2.0, 3.0, 4.0], dtype=v.dtype) / v,
    "mean": lambda L, v: v.mean(),
    "sum": lambda L, v: v.sum(),
    "sum_dim": lambda L, v: v.sum(0),
    "expand": lambda L, v: v.expand(3, 2, 3),
    "view": lambda L, v: v.view(3, 2),
    "transpose": lambda L, v: v.t(),
    "neg": lambda L, v: -v,
    "add": lambda L, v: v + 1,
    "sub": lambda L, v: v - 1,
    "rsub": lambda L, v: 1 - v,
    "add_broadcast": lambda L, v: v + L.zeros(4, 2, 3, dtype=v.dtype),
    "clone": lambda L, v: v.clone(),
    "exp": lambda L, v: v.exp(),
    "sqrt": lambda L, v: v.abs().sqrt(),
    "tanh": lambda L, v: v.tanh(),
    "sigmoid": lambda L, v: v.sigmoid(),
    "relu": lambda L, v: v.relu(),
    "square": lambda L, v: v * v,
    "pow_tensor": lambda L, v: v ** L.tensor([2.0, 0.0, 3.0], dtype=v.dtype),
    "softmax": lambda L, v: v.softmax(-1),
    "cumsum": lambda L, v: v.cumsum(0),
    "flip": lambda L, v: v.flip(0),
    "index": lambda L, v: v[0],
    "cat": lambda L, v: L.cat([v, v]),
    "stack": lambda L, v: L.stack([v, v]),
    "matmul": lambda L, v: v @ L.ones(3, 2, dtype=v.dtype),
    "to_float32": lambda L, v: v.to(L.float32),
    "where": lambda L, v: L.where(v > 0, v, 0.0),
    "two_ops": lambda L, v: (v.exp() * 3).sum(-1),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(PROBES))
def test_zero_tensor_carried_or_materialized_as_torch(name, dtype):
    """Each node passes the ZeroTensor on, or materializes it, where torch does."""
    f = PROBES[name]
    same(lambda L, x, w: f(L, x * w).sgn(), t(X, dtype), t(W, dtype, rg=False))


def test_zero_tensor_reaches_a_node_with_a_real_gradient_too():
    """A node that gets a real gradient besides the ZeroTensor runs on the real one alone."""
    same(lambda L, x, w: (x * w).sgn() + (x * w).exp(), t(X), t(W, rg=False))
    same(lambda L, x, w: ((2.0 / x).sgn() + x).sum(), t(X), t(W, rg=False))


def test_pow_sinc_renorm_keep_torchs_product_with_the_zero_tensor():
    """Formulas whose product with grad comes before the materializing where/sum: pow's
    exponent * x^(e-1) and sinc's quotient stay zero at inf, renorm's sum(x * grad) is zero
    and its norm_backward is 0 * inf = NaN at the inf element only."""
    x = t([[0.03, 1e30, 0.5], [-0.08, INF, 0.2]])
    same(lambda L, x, e: (x**e).sgn(), x, t([[0.4, -1.2, 1.0], [2.0, 0.5, -0.3]]))
    same(lambda L, x: x.sinc().sgn(), t([[0.0, INF, 2.5], [-INF, 1e-30, NAN]]))
    same(lambda L, x: L.renorm(x, 2, 0, 0.5).sgn(), x)


def test_group_norm_then_sgn_gradients_are_torchs_uninitialized_memory():
    """Evidence for the fuzzer's known rule: torch's gradients of group_norm(x).sgn() differ
    between two runs of the same program (its kernel leaves the buffers unwritten after the
    ZeroTensor); ours are zeros. (Passes if any of 20 runs differ from the first.)"""
    import torch

    r = np.random.default_rng(5)
    x, w, b = r.standard_normal((1, 2, 2)), r.standard_normal(2), r.standard_normal(2)
    grads = []
    for _ in range(20):
        junk = [torch.randn(1000, dtype=torch.float64) * 1e5 for _ in range(10)]
        del junk
        xs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
        torch.nn.functional.group_norm(xs[0], 1, xs[1], xs[2]).sgn().sum().backward()
        grads.append(np.concatenate([v.grad.numpy().ravel() for v in xs]))
    assert any(not np.array_equal(g, grads[0]) for g in grads[1:])


def test_zero_tensor_into_autograd_grad_inputs():
    """autograd.grad of an input reached only by the ZeroTensor: zeros (not unused)."""
    import framework
    import torch

    for L in (framework, torch):
        x = L.tensor([1.0, 0.0, INF], requires_grad=True)
        (g,) = L.autograd.grad((2.0 / x).sgn().sum(), x)
        if L is framework:
            ours = g.numpy()
        else:
            theirs = g.numpy()
    np.testing.assert_array_equal(ours, theirs)


SGN = next(op for op in CHAIN if op.name == "sgn")


@pytest.mark.parametrize("op", [op for op in OPS if op.grad], ids=lambda op: op.name)
def test_op_then_sgn_gradients_as_torch(op):
    """Every differentiable op of the table followed by sgn (inputs with inf/NaN as the
    fuzzer draws them), backward with a random upstream gradient: the gradients agree."""
    i = OPS.index(op)
    for k in range(3):
        p = Program(seed_drawing(i, k))
        assert p.op is op
        p.then, p.inplace = SGN, False
        bad = [
            m
            for m in compare_program(p)
            if m.kind in (SILENT, EXCEPTION) and m.what.startswith("grad")
        ]
        assert not bad, "\n".join(map(repr, bad))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_and_index_reduce_then_sgn_are_zeros(reduce, include_self):
    """torch's scatter_reduce/index_reduce formulas keep the ZeroTensor through grad / count
    (even a count of 0) and gather/index_select it as zeros: zero gradients, no 0 / 0 NaN
    (sweep seeds 9001032, 12001766, 12007434)."""
    x = t([[0.0, 1.0, -2.0], [-1.0, -0.0, -1.0], [0.0, 0.0, 1.0]])
    src = t([[INF, -1.0, 1.0], [2.0, -1.0, 0.0], [NAN, -0.0, -0.0]])
    idx = t([1, 0, 2], "int64")
    kw = {"reduce": reduce, "include_self": include_self}
    same(lambda L, x, i, s: x.index_reduce(-1, i, s, **kw).sgn(), x, idx, src)
    same(lambda L, x, s: x.scatter_reduce(1, L.tensor([[1, 0, 2]] * 3), s, **kw).sgn(), x, src)
    if reduce != "sum":  # (index_reduce has no sum)
        same(lambda L, x, i, s: x.index_reduce(0, i, s, **kw).sgn(), t(X[0] * 1), idx, src)


def test_ldexp_then_sgn_carries_to_the_exponent():
    """ldexp's exponent gradient is a product with the ZeroTensor (sweep seed 12011349)."""
    x = t([[1, 4, 3], [3, -4, 3]], "int64")
    e = t([[0.13, -0.14, NAN], [1e30, 0.05, -INF]], "float32")
    same(lambda L, x, e: L.ldexp(x, e).sgn(), x, e)
    same(
        lambda L, x, e: L.ldexp(x, e).sgn(),
        t([[1.5, 0.0, INF], [2.0, -1.0, 3.0]]),
        t([[1.0, 2000.0, NAN], [3.0, 1.0, -INF]]),
    )


def test_leaf_grad_left_by_the_zero_tensor_refuses_in_place_accumulation():
    """torch's .grad reached only by sgn's ZeroTensor is that ZeroTensor: a second backward's
    in-place += raises its error; an out-of-place one (create_graph) and a real .grad that
    gets the ZeroTensor added are fine."""
    import framework
    import torch

    for L in (framework, torch):
        x = L.tensor([1.0, 0.0], requires_grad=True)
        z = (x.exp() * L.tensor([INF, 1.0])).sgn()
        z.backward(L.ones(2), retain_graph=True)
        assert x.grad.abs().sum().item() == 0
        with pytest.raises(RuntimeError, match="ZeroTensors are immutable"):
            z.backward(L.ones(2))
        with pytest.raises(RuntimeError, match="ZeroTensors are immutable"):
            (x * 2).sum().backward()
        y = L.tensor([1.0, 0.0], requires_grad=True)
        y.sgn().sum().backward()
        (g,) = L.autograd.grad((y * 2).sum(), y, create_graph=True)
        assert g.tolist() == [2.0, 2.0]
        w = L.tensor([1.0, 0.0], requires_grad=True)
        (w * 2).sum().backward()
        w.sgn().sum().backward()
        assert w.grad.tolist() == [2.0, 2.0]
