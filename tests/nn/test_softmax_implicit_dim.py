"""softmax/log_softmax/softmin without `dim`: torch's legacy dimension and its deprecation
warning (message, category, and the caller's line for the functional forms)."""

import warnings

import numpy as np
import pytest
import torch

import framework

FUNCS = ("softmax", "log_softmax", "softmin")
MODULES = ("Softmax", "LogSoftmax", "Softmin")


def _record(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, [(w.category, str(w.message)) for w in caught], caught


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (2, 3, 4, 2)])
def test_functional_implicit_dim(name, shape):
    x = np.random.default_rng(0).standard_normal(shape)
    ours, ours_w, caught = _record(
        lambda: getattr(framework.nn.functional, name)(framework.tensor(x))
    )
    theirs, theirs_w, _ = _record(lambda: getattr(torch.nn.functional, name)(torch.tensor(x)))
    assert ours_w == theirs_w and len(ours_w) == 1
    assert caught[0].filename == __file__  # stacklevel: the caller's line, as torch's
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", MODULES)
def test_module_implicit_dim(name):
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    ours, ours_w, _ = _record(lambda: getattr(framework.nn, name)()(framework.tensor(x)))
    theirs, theirs_w, _ = _record(lambda: getattr(torch.nn, name)()(torch.tensor(x)))
    assert ours_w == theirs_w and len(ours_w) == 1
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", FUNCS)
def test_explicit_dim_is_silent(name):
    _, ours_w, _ = _record(lambda: getattr(framework.nn.functional, name)(framework.ones(2, 3), 1))
    assert ours_w == []


def test_softmin_dtype_negates_first():
    ours = framework.nn.functional.softmin(framework.tensor([1, 2]), 0, dtype=framework.float64)
    theirs = torch.nn.functional.softmin(torch.tensor([1, 2]), 0, dtype=torch.float64)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-15, atol=0)
