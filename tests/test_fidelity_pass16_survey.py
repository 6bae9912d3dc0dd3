"""Sixteenth pass, fuzz survey (seeds 545M first order, 546M second order) and views: a
basic-index write follows torch's copy_to (a value of the destination's own shape is a copy_,
so a 0-dim value into a 0-dim destination is not a fill_), and every view is differentiable
whatever its dtype (views.as_view), so an int or bool view of a base that a fill_ made require
grad requires grad too, and detach_ refuses an int view as torch does."""

import numpy as np
import pytest
import torch

import framework


def _name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _attempt(fn):
    try:
        return fn()
    except Exception as e:  # the error itself is compared
        return type(e).__name__, str(e).split("\n")[0]


def _zero_dim_write(L, dtype, how):
    v = L.tensor(2.0, requires_grad=True)
    if how == "int_into_1d":  # x[0]: a 0-dim destination, the value copied
        x = L.zeros(3, dtype=getattr(L, dtype))
        x[0] = v
    elif how == "ellipsis_of_0d":
        x = L.zeros((), dtype=getattr(L, dtype))
        x[...] = v
    elif how == "none_of_0d":  # x[None]: a (1,) destination, the value filled
        x = L.zeros((), dtype=getattr(L, dtype))
        x[None] = v
    elif how == "through_view":
        base = L.zeros(4, dtype=getattr(L, dtype))
        x = base[1:]
        x[0] = v
        return base, v
    else:  # two indices: a 0-dim destination
        x = L.zeros(2, 3, dtype=getattr(L, dtype))
        x[1, 2] = v
    return x, v


@pytest.mark.parametrize(
    "how", ["int_into_1d", "ellipsis_of_0d", "none_of_0d", "through_view", "two_ints"]
)
@pytest.mark.parametrize("dtype", ["int64", "bool", "float32", "float64"])
def test_zero_dim_write_copies_as_torch(dtype, how):
    (theirs, tv), (ours, fv) = (
        _zero_dim_write(torch, dtype, how),
        _zero_dim_write(framework, dtype, how),
    )
    assert ours.requires_grad == theirs.requires_grad
    assert _name(ours) == _name(theirs)
    if ours.grad_fn is not None:
        assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert np.array_equal(ours.detach().numpy(), theirs.detach().numpy())
    if dtype.startswith("float"):
        up = np.random.default_rng(0).standard_normal(tuple(theirs.shape)).astype(dtype)
        theirs.backward(torch.tensor(up))
        ours.backward(framework.tensor(up))
        assert float(fv.grad) == float(tv.grad)


def test_zero_dim_float_destination_is_copy_backwards():
    """torch's copy_to copies a value of the destination's own shape: CopyBackwards, not
    FillBackward3, for a 0-dim tensor written whole."""
    for L in (torch, framework):
        x = L.zeros(()).clone()
        x[...] = L.tensor(2.0, requires_grad=True)
        assert type(x.grad_fn).__name__ == "CopyBackwards"


def _int_view_program(L, case):
    a = L.tensor(2.0, requires_grad=True)
    if case == "sibling_view":  # another view of the written base: AsStridedBackward0
        z = L.arange(4)
        v, other = z[1:], z[:2]
        v[...] = a
        return other.requires_grad, _name(other)
    if case == "parent_view":  # the view written through its own view
        z = L.zeros(3, 3, dtype=L.int64)
        w = z[1:]
        w[0] = a
        return z.requires_grad, _name(z), w.requires_grad, _name(w)
    if case == "slice_of_view":
        z = L.arange(4)
        w = z[1:]
        w[0:1] = a
        return z.requires_grad, _name(z), w.requires_grad, _name(w)
    if case == "bool_view":
        z = L.arange(4).to(L.bool)
        v = z[1:]
        v[...] = a
        return z.requires_grad, v.requires_grad, _name(v)
    if case == "ops_refused":  # an int tensor requiring grad: torch refuses its ops
        z = L.arange(4).reshape(2, 2)
        w = z[0]
        w[...] = a
        return _attempt(lambda: z[1]), _attempt(lambda: z + 1), _attempt(lambda: z.sum())
    if case == "detach_":  # an int view is a view: detach_ refuses it
        z = L.arange(4)
        return _attempt(lambda: z[1:].detach_())
    if case == "version_bump":  # a write without grad: the view keeps no history
        z = L.arange(4)
        v = z[1:]
        z.add_(1)
        return v.requires_grad, _name(v), v.tolist()
    raise AssertionError(case)


@pytest.mark.parametrize(
    "case",
    [
        "sibling_view",
        "parent_view",
        "slice_of_view",
        "bool_view",
        "ops_refused",
        "detach_",
        "version_bump",
    ],
)
def test_int_views_are_differentiable_views(case):
    assert _int_view_program(framework, case) == _int_view_program(torch, case)
