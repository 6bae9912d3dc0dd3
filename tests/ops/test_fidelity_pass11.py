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
