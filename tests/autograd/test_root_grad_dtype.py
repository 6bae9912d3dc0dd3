"""A given upstream gradient of another dtype is cast to its output's dtype before the walk, as
torch's engine does (validate_outputs): the gradient's values, dtype and (under create_graph)
its graph are torch's."""

import numpy as np
import pytest
import torch

import framework


def _run(L, fn, gdtype, create_graph):
    x = L.tensor(np.linspace(-1.5, 2.0, 6).reshape(1, 1, 6), dtype=L.float64, requires_grad=True)
    y = fn(L, x)
    g = L.tensor(np.linspace(0.3, 1.1, y.numel()).reshape(tuple(y.shape)), dtype=gdtype)
    if create_graph:
        g.requires_grad_()
    (dx,) = L.autograd.grad(y, x, g, create_graph=create_graph)
    name = None if dx.grad_fn is None else dx.grad_fn.name()
    edges = None
    if dx.grad_fn is not None:
        edges = [None if n is None else n.name() for n, _ in dx.grad_fn.next_functions]
    return dx.detach().numpy(), str(dx.dtype).split(".")[-1], dx.requires_grad, name, edges


FNS = {
    "leaf": lambda L, x: x,
    "exp": lambda L, x: x.exp(),
    "max_pool1d": lambda L, x: L.nn.functional.max_pool1d(x, 2),
    "mul": lambda L, x: x * 3.0,
}


# (upstream dtype, create_graph): only a floating upstream can itself require grad
CASES = [("float32", False), ("int64", False), ("bool", False), ("float32", True)]


@pytest.mark.parametrize("gdtype, create_graph", CASES)
@pytest.mark.parametrize("fn", sorted(FNS))
def test_upstream_gradient_cast_to_output_dtype(fn, gdtype, create_graph):
    ours = _run(framework, FNS[fn], getattr(framework, gdtype), create_graph)
    theirs = _run(torch, FNS[fn], getattr(torch, gdtype), create_graph)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]
