"""Graphs as torch builds them, found by the next_functions survey (tests/scripts/
edges_survey.py): nll_loss/cross_entropy of 3-D and 5-D+ inputs (torch's nll_loss_nd views),
ctc_loss of an unbatched input (reduced before any squeeze), diff (n clamped to the size, n = 0
a copy, torch's argument checks) and x[index] = value with another dtype (copy_ casts inside,
the value keeps its own edge). Each compares the whole graph's node names depth first, the
values, and the gradients with torch."""

import warnings

import numpy as np
import pytest
import torch

import framework


def _walk(fn, depth=0, out=None):
    """(depth, name) of every node reached from fn, depth first, next_functions in order."""
    out = [] if out is None else out
    if fn is None or depth > 7:
        return out
    out.append((depth, fn.name()))
    for f, _ in fn.next_functions:
        _walk(f, depth + 1, out)
    return out


def _outcome(build):
    """Per library: the graph of the output and its shape (or the error), and the values and
    the leaves' gradients for a random upstream."""
    res = []
    for L in (framework, torch):
        r = np.random.default_rng(0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out, leaves = build(L, r)
        except Exception as e:
            res.append(((type(e).__name__, str(e)), []))
            continue
        up = L.tensor(r.standard_normal(tuple(out.shape))).to(out.dtype)
        wrt = [t for t in leaves if t.requires_grad]
        grads = L.autograd.grad(out, wrt, up, allow_unused=True) if out.requires_grad else ()
        arrays = [out.detach().numpy()] + [None if g is None else g.numpy() for g in grads]
        res.append(((tuple(out.shape), _walk(out.grad_fn)), arrays))
    return res


def _same(build):
    (ours, ours_arrays), (theirs, theirs_arrays) = _outcome(build)
    assert ours == theirs
    assert len(ours_arrays) == len(theirs_arrays)
    for a, b in zip(ours_arrays, theirs_arrays):
        assert (a is None) == (b is None)
        if b is not None:
            assert a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, equal_nan=True)


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(4, 4, 3), (2, 3, 4, 5), (2, 3, 2, 2, 2), (2, 3, 0), (0, 3, 4)])
def test_nll_loss_nd_views_as_torch(fn, reduction, shape):
    """Edges survey seed 13001440: a 3-D or 5-D+ input runs through nll_loss2d viewed as
    (N, C, 1, -1), its 'none' loss viewed back (ViewBackward0 around NllLoss2DBackward0)."""

    def build(L, r):
        x = L.tensor(r.standard_normal(shape), requires_grad=True)
        t = L.tensor(r.integers(0, shape[1], shape[:1] + shape[2:]))
        return getattr(L.nn.functional, fn)(x, t, reduction=reduction), [x]

    _same(build)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("targets", [[], [1], [1, 2]])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_unbatched_reduces_before_squeezing(reduction, targets, zero_infinity):
    """Edges survey seed 60000066: an unbatched ctc_loss is reduced from its (1,) loss as
    torch's (SumBackward0/DivBackward0 straight onto CtcLossBackward0); only 'none'
    squeezes."""

    def build(L, r):
        x = L.tensor(r.standard_normal((3, 3)), requires_grad=True)
        lp = x.log_softmax(-1)
        t = L.tensor(np.array(targets, dtype=np.int64))
        out = L.nn.functional.ctc_loss(
            lp,
            t,
            L.tensor(np.array(3)),
            L.tensor(np.array(len(targets))),
            reduction=reduction,
            zero_infinity=zero_infinity,
        )
        return out, [x]

    _same(build)


DIFF = [
    ((3, 4), dict(n=0, dim=1)),  # a copy (CopyBackwards), not the input itself
    ((3, 4), dict(n=2, dim=0)),
    ((3, 4), dict(n=5, dim=1)),  # n clamped to the size: SliceBackward0 edges
    ((5, 0, 1), dict(n=2, dim=-1)),  # edges survey seed 60000836
    ((0, 3), dict(n=1, dim=0)),  # n clamped to 0: the input itself
    ((3, 4), dict(n=-1)),
    ((), dict(n=1)),  # torch's RuntimeError before the dim is wrapped
    ((3, 4), dict(n=1, dim=1, prepend=(3, 2))),
    ((3, 4), dict(n=2, dim=1, prepend=(3, 2), append=(3, 1))),
    ((3, 4), dict(n=1, dim=1, prepend=(2, 4))),  # shape mismatch off the dim
    ((3, 4), dict(n=1, dim=1, prepend=(4,))),  # another number of dims
    ((3, 4), dict(n=0, dim=1, append=(2, 4))),  # n = 0 still checks, then ignores append
]


@pytest.mark.parametrize("shape,kw", DIFF)
def test_diff_as_torchs_diff_helper(shape, kw):
    """Edges survey seed 60000836: torch's diff clamps n to the size of dim (no aliases of
    empty slices), copies for n = 0, and checks a 0-dim input, a negative n and the
    prepend/append shapes first (RuntimeError with torch's messages)."""

    def build(L, r):
        x = L.tensor(r.standard_normal(shape), requires_grad=True)
        args = dict(kw)
        for k in ("prepend", "append"):
            if k in args:
                args[k] = L.tensor(r.standard_normal(args[k]))
        return L.diff(x, **args), [x]

    _same(build)


def _setitem(index, xd, vd, vshape):
    def build(L, r):
        x = L.tensor(np.arange(12.0).reshape(3, 4).astype(xd), requires_grad=True)
        y = x * 1
        v = L.tensor(r.standard_normal(vshape).astype(vd), requires_grad=True)
        key = index(L)
        y[key] = v
        return y, [x, v]

    return build


SETITEM = [
    (lambda L: 1, (4,)),
    (lambda L: 1, ()),  # a 0-dim value is a fill_: its own edge
    (lambda L: 1, (1, 4)),  # leading 1s viewed off (ViewBackward0)
    (lambda L: (slice(None), 1), (3,)),
    (lambda L: Ellipsis, (4,)),  # viewed, then expanded
    (lambda L: L.tensor([True, False, True]), (1,)),  # a mask with one value
    (lambda L: L.tensor([True, False, True]), ()),
]


@pytest.mark.parametrize("index,vshape", SETITEM)
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("f8", "f8")])
def test_setitem_value_keeps_its_edge_across_dtypes(index, vshape, dtypes):
    """Edges survey: x[index] = value of another float dtype casts inside copy_ / the mask's
    fill (the value's edge is its own node, no ToCopyBackward0; its gradient in its dtype),
    and a value of another shape is viewed without its leading 1s and expanded, as torch's
    copy_to."""
    _same(_setitem(index, *dtypes, vshape))


FLOOR_REMAINDER = [
    lambda L: (
        L.tensor([1.5, 2.5, -3.0], requires_grad=True)
        // L.tensor([[1.0, 2.0, 2.0]], dtype=L.float32, requires_grad=True)
    ),  # seed 40000004
    lambda L: L.floor_divide(
        L.tensor([3.0, 4.0], dtype=L.float32, requires_grad=True),
        L.tensor([2.0], requires_grad=True),
    ),
    lambda L: L.tensor([1.5, 2.5], dtype=L.float32, requires_grad=True) // L.tensor([1, 2]),
    lambda L: 7.0 // L.tensor([1.5, 2.5], dtype=L.float32, requires_grad=True),
    lambda L: 5.5 % L.tensor([1.5, -2.5], dtype=L.float32, requires_grad=True),
    lambda L: True % L.tensor([1.5, 2.5], requires_grad=True),
]


@pytest.mark.parametrize("make", FLOOR_REMAINDER)
def test_not_implemented_binary_edges_lead_to_the_inputs_as_given(make):
    """Edges survey seed 40000004: floor_divide (and Scalar % Tensor) of mixed dtypes is
    torch's NotImplemented node with edges to the inputs themselves (the promotion happens
    inside, no ToCopyBackward0); the values in the promoted dtype."""
    res = []
    for L in (framework, torch):
        y = make(L)
        edges = [None if f is None else f.name() for f, _ in y.grad_fn.next_functions]
        res.append((y.grad_fn.name(), edges, str(y.dtype), y.detach().numpy().tolist()))
    assert res[0] == res[1]
