"""Regressions from the eleventh pass's fuzzing and user programs (each named by its find)."""

import numpy as np
import pytest
import torch

import framework


def _message(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("batched", [False, True])
def test_cholesky_batch_element_in_message(batched):
    """fuzz seed 600004739: linalg.cholesky of a batch names the failing batch element
    ("(Batch element 0): ..."), as torch; an unbatched matrix does not."""
    a = np.array([[[1.0, 1, 1], [1, 1, 1], [1, 1, 1]], [[1.0, 0, 1], [0, 1, 0], [1, 0, 1]]])
    a = a if batched else a[1]
    ours = _message(lambda: framework.linalg.cholesky(framework.tensor(a)))
    theirs = _message(lambda: torch.linalg.cholesky(torch.tensor(a)))
    assert ours == theirs


def test_cholesky_later_batch_element():
    a = np.stack([np.eye(3), np.eye(3), -np.eye(3)])
    ours = _message(lambda: framework.linalg.cholesky(framework.tensor(a)))
    assert ours == _message(lambda: torch.linalg.cholesky(torch.tensor(a)))
    assert "(Batch element 2)" in ours[1]


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("shape", [(3, 4, 0), (2, 3)])
def test_bool_target_second_order_refused(name, shape):
    """fuzz seed 340057483: torch's double backward of smooth_l1/huber subtracts the (bool)
    target and raises; the first order and the create_graph gradient work in both."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(shape), rng.random(shape) > 0.5
    results = []
    for L in (torch, framework):
        xt = L.tensor(x, requires_grad=True)
        loss = getattr(L.nn.functional, name)(xt, L.tensor(y), reduction="none")
        up = L.ones(shape, dtype=L.float64, requires_grad=True)
        try:  # (huber's create_graph gradient refuses a bool target itself, in both)
            (g,) = L.autograd.grad(loss, xt, up, create_graph=True)
        except RuntimeError as e:
            results.append(((None, str(e)), None))
            continue
        first = (type(g.grad_fn).__name__, g.detach().numpy().copy())
        second = _message(lambda: L.autograd.grad(g, xt, L.ones(shape, dtype=L.float64)))
        results.append((first, second))
    (tf, ts), (ff, fs) = results
    assert tf[0] == ff[0] and ts == fs
    if tf[0] is None:
        assert tf[1] == ff[1]
    else:
        assert ts is not None
        np.testing.assert_array_equal(ff[1], tf[1])
