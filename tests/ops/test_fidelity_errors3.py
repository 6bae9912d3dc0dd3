"""Named regression tests for the exception-type and wording mismatches the differential
fuzzer found in its sixth pass (seeds 13,000,000-13,099,999; continues
tests/ops/test_fidelity_errors2.py, same helpers): each runs the case in framework and torch
and compares the exception type and message (or the result: values, dtype, node names,
gradients)."""

import warnings

import numpy as np
import pytest

from ops.test_fidelity import same, t

INF, NAN = float("inf"), float("nan")


def _index_reduce(L, x, dim, idx, src, reduce, include_self):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's "index_reduce() is in beta" warning
        return x.index_reduce(
            dim, L.tensor(idx, dtype=L.int64), src, reduce, include_self=include_self
        )


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
@pytest.mark.parametrize(
    "shape, dim, idx",
    [
        ((0,), 0, [0, 2, 1, 0]),  # empty 1-D self: the dtype dispatch, then the index check
        ((0, 1), 0, [0, 1, 2, 3, 4]),  # empty along dim: select(dim, 0) fails first
        ((3, 0), 1, [0, 1, 2, 3]),
        ((0, 0), 0, [0, 1, 2, 3]),
        ((5, 0), -1, [0, 1, 2, 3, 4]),  # index_fill_ restrides the fresh result first
        ((0, 3), 0, [1, 0]),
        ((4, 3), 1, [0, 3, 1]),  # out of range: index_fill_'s words, else the loop's
        ((4, 3), 0, [-1, 0]),  # negative: refused (index_fill_ alone would wrap it)
        ((3,), 0, [-1]),
        ((3,), 0, [3]),
        ((), 0, [0]),  # 0-dim self: the slice is the element
        ((), -1, [1]),
        ((2, 3), 1, []),
    ],
)
def test_index_reduce_checks_in_torchs_kernel_order(shape, dim, idx, dtype, reduce, include_self):
    """torch's index_reduce_func_impl: with include_self False the exclude-init dtype
    dispatch and index_fill_ of the contiguous result; then (2-D and up) select(dim, 0) and
    indices in [0, size), or (1-D, 0-dim) the dtype dispatch and the loop; last the floor
    division of a bool mean (ours raised other types and messages, wrapped negative indices)."""
    x = np.zeros(shape)
    src_shape = list(shape) if shape else []
    if src_shape:
        src_shape[dim] = len(idx)
    x, src = t(x, dtype), t(np.ones(src_shape), dtype)
    same(lambda L, a, b: _index_reduce(L, a, dim, idx, b, reduce, include_self), x, src)


@pytest.mark.parametrize(
    "shape, dim, idx, src_shape",
    [
        ((3, 2), 1, [0], (2,)),  # dim past the source's dims
        ((3, 2), 1, [0], ()),
        ((3, 2), 0, [0], ()),  # a 0-dim source of a 2-D self: the shape check
        ((3, 2), -1, [0, 1], (3, 3)),  # the count check names the wrapped dim
        ((3, 2), -1, [0, 1], (3, 2, 1)),
        ((), 0, [0, 0], (2,)),
        ((4,), 0, [1], (1, 1)),
        ((3,), 0, [0], ()),
    ],
)
def test_index_reduce_argument_checks_as_torchs_meta_function(shape, dim, idx, src_shape):
    x, src = t(np.zeros(shape)), t(np.ones(src_shape))
    same(lambda L, a, b: _index_reduce(L, a, dim, idx, b, "amax", True), x, src)
    same(
        lambda L, a, b: a.index_reduce(dim, L.tensor([idx]), b, "amax"),
        x,
        src,
    )


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_of_a_0_dim_self_has_torchs_gradient(reduce):
    for include_self in (True, False):
        same(lambda L, a, b: _index_reduce(L, a, 0, [0], b, reduce, include_self), t(2.0), t(3.0))

