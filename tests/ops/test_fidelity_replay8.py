"""Named regression tests for the fuzzer finds the eighth pass fixed (norm accumulation paths,
the older open items, seeds 26,000,000+): each compares the case across framework and torch
as the fuzzer does (same helpers as tests/ops/test_fidelity.py)."""

import math

import numpy as np
import pytest

from ops.test_fidelity import same, t

ORDS = [0, 1, 2, 3, math.inf, -math.inf, 0.5, -1]


@pytest.mark.parametrize("ord", ORDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vector_norm_with_empty_dim_tuple_is_the_all_reduce(ord, dtype):
    """dim=() is torch's all-reduce: over one element (a 0-dim tensor, shape (1, 1)) it returns
    |x| (no |x|^p to under/overflow) and its gradient is norm_backward at that |x| (NaN for
    p = 3 at -1e-30 in float32: x |x| / norm^2 is 0 / 0). Ours took dim=() of a 0-dim tensor
    as dim=-1, which torch reduces (seed 24050897: norm(p=3, dim=()) of -1e-30 gave 0)."""
    for v in (-1e-30, 1e-40, 1e30, -2.0, 0.0):
        for shape in ((), (1, 1)):
            x = t(np.full(shape, v), dtype)
            same(lambda L, a: L.linalg.vector_norm(a, ord=ord, dim=()), x)
            same(lambda L, a: L.norm(a, p=ord, dim=()), x)
            same(lambda L, a: L.linalg.vector_norm(a, ord=ord, dim=(), keepdim=True), x)


@pytest.mark.parametrize("ord", ORDS + [2.5, -2])
def test_vector_norm_accumulates_in_the_input_dtype_as_torch(ord):
    """torch's CPU norm kernels (NormOps, NormTwoOps, AbsMax/AbsMinOps, the p = 2 last-dim
    vector path) accumulate float32 in float32 (opmath_type<float> is float): |x|^p of tiny
    or huge values under/overflows as ours, for every dim form and scale."""
    r = np.random.default_rng(7)
    for scale in (1e-30, 1e-20, 1e-13, 1.0, 1e13, 1e19, 1e30):
        for dtype in ("float32", "float64"):
            a = (r.standard_normal((3, 5)) * scale).astype(dtype)
            a[0, 0] = 0.0
            for kw in ({}, {"dim": ()}, {"dim": -1}, {"dim": 0}, {"dim": (0, 1)}):
                same(lambda L, x: L.linalg.vector_norm(x, ord=ord, **kw), t(a, dtype))
