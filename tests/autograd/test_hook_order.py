"""The order in which backward runs hooks, as torch's evaluate_function: autograd.grad's
captures, tensor hooks (a leaf's own hooks on its AccumulateGrad node) and retain_grad, node
pre-hooks, the node, post-accumulate-grad hooks, node post-hooks. Each scenario logs every
hook call with the gradient it sees, in both libraries, and compares logs and results."""

import numpy as np
import pytest
import torch

import framework


def _fmt(v):
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        return tuple(_fmt(x) for x in v)
    return np.asarray(v.detach().numpy()).round(6).tolist()


def _graph(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    y = (h * 3).sum()
    x.register_hook(lambda g: log.append(("leaf hook", _fmt(g))) or g * 10)
    h.register_hook(lambda g: log.append(("h hook", _fmt(g))) or g * 100)
    h.grad_fn.register_prehook(lambda gs: log.append(("h pre", _fmt(gs))))
    h.grad_fn.register_hook(lambda gi, go: log.append(("h post", _fmt(gi), _fmt(go))))
    acc = h.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda gs: log.append(("acc pre", _fmt(gs))))
    acc.register_hook(lambda gi, go: log.append(("acc post", _fmt(gi), _fmt(go))))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post acc", _fmt(t.grad))))
    return x, h, y


SCENARIOS = {
    "backward": lambda L, x, h, y: y.backward(),
    "backward_retain_h": lambda L, x, h, y: (h.retain_grad(), y.backward()),
    "backward_inputs_leaf": lambda L, x, h, y: y.backward(inputs=[x]),
    "backward_inputs_h": lambda L, x, h, y: y.backward(inputs=[h]),
    "grad_leaf": lambda L, x, h, y: L.autograd.grad(y, [x]),
    "grad_h": lambda L, x, h, y: L.autograd.grad(y, [h]),
    "grad_leaf_and_h": lambda L, x, h, y: L.autograd.grad(y, [x, h]),
    "grad_h_retained": lambda L, x, h, y: (h.retain_grad(), L.autograd.grad(y, [h])),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_hooks_run_in_torchs_order_with_torchs_gradients(name):
    logs, results = [], []
    for L in (torch, framework):
        log = []
        x, h, y = _graph(L, log)
        out = SCENARIOS[name](L, x, h, y)
        logs.append(log)
        results.append((_fmt(out), _fmt(x.grad), _fmt(h.grad if h.retains_grad else None)))
    assert logs[1] == logs[0]
    assert results[1] == results[0]
