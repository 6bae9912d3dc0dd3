"""Second-order graphs of composed derivative formulas against torch: each create_graph
gradient's node and edges follow torch's formula's op order (atanh's and log10's
DivBackward0, exp2's mul.Scalar MulBackward1, prod's grad * (result / input), addcdiv's
tensor1 and tensor2 terms, a full sum where a 0-dim input was broadcast), and the
second-order gradients' values for a random upstream gradient."""

import numpy as np
import pytest
import torch

import framework


def _names(g):
    if g is None or g.grad_fn is None:
        return None if g is None else (g.requires_grad, None, ())
    return (
        g.requires_grad,
        g.grad_fn.name(),
        tuple(None if n is None else n.name() for n, _ in g.grad_fn.next_functions),
    )


CASES = {
    "atanh": (lambda L, x: L.atanh(x * 0.5), [(3, 4)]),
    "log10": (lambda L, x: L.log10(x.abs() + 0.5), [(3, 4)]),
    "log2": (lambda L, x: L.log2(x.abs() + 0.5), [(3, 4)]),
    "exp2": (lambda L, x: L.exp2(x), [(3, 4)]),
    "prod_all": (lambda L, x: x.prod(), [(3, 4)]),
    "prod_dim": (lambda L, x: x.prod(1), [(3, 4)]),
    "prod_keepdim": (lambda L, x: x.prod(0, keepdim=True), [(3, 4)]),
    "addcdiv": (lambda L, a, b, c: L.addcdiv(a, b, c.abs() + 1), [(3, 4), (3, 4), (3, 4)]),
    "addcdiv_value": (
        lambda L, a, b, c: L.addcdiv(a, b, c.abs() + 1, value=0.5),
        [(1,), (), (1,)],
    ),
    "addcdiv_bcast": (lambda L, a, b, c: L.addcdiv(a, b, c.abs() + 1), [(4,), (3, 4), (3, 1)]),
    "pow_0dim_base": (lambda L, a, b: (a.abs() + 0.5) ** b, [(), (3, 4)]),
    "mul_0dim": (lambda L, a, b: a * b, [(), (2, 3)]),
    "zeta_0dim_q": (
        lambda L, q: L.special.zeta(L.tensor([2.5, 3.0, 4.0], dtype=L.float64), q.abs() + 1),
        [()],
    ),
}


def _run(L, name, seed):
    fn, shapes = CASES[name]
    r = np.random.default_rng(seed)
    leaves = [L.tensor(r.standard_normal(s), requires_grad=True) for s in shapes]
    y = fn(L, *leaves)
    c = L.tensor(r.standard_normal(tuple(y.shape)), requires_grad=True)
    grads = L.autograd.grad(y, leaves, c, create_graph=True, allow_unused=True)
    weights = [L.tensor(r.standard_normal(tuple(g.shape))) for g in grads]
    total = sum((g * w).sum() for g, w in zip(grads, weights))
    second = L.autograd.grad(total, leaves + [c], allow_unused=True)
    return [_names(g) for g in grads], [None if s is None else s.numpy() for s in second]


@pytest.mark.parametrize("name", sorted(CASES))
def test_create_graph_gradient_follows_torchs_formula(name):
    (t_nodes, t_second), (f_nodes, f_second) = (_run(L, name, 0) for L in (torch, framework))
    assert f_nodes == t_nodes
    for f, t in zip(f_second, t_second):
        assert (f is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(f, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_sum_to_size_of_no_dims_is_a_full_sum(shape):
    """torch's sum_to with an empty size: sum() (SumBackward0), even of a 0-dim tensor."""
    got = []
    for L in (torch, framework):
        x = L.ones(shape, requires_grad=True)
        y = x.sum_to_size(())
        got.append((y.grad_fn.name(), tuple(y.shape), float(y)))
    assert got[0] == got[1]
