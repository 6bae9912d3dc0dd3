"""Seventeenth pass, lead's fixes: SDPA's flash replay propagates a NaN as torch's kernel.

torch's `_mul_reduce_max_fusion_kernel` (no mask) takes each row's maximum with
`vec::maximum` over the block's full vectors, which keeps a NaN, and `std::max`-style
selects over the tail, which skip one; with a mask, `vec::reduce_all` of `vec::maximum`
reads every element. A NaN maximum makes the row's outputs NaN. The replay had kept the
strict `x > m` select everywhere: a NaN query or key gave 0s where torch gives NaN (220 of
300 random programs with NaNs apart, outputs or gradients)."""

import numpy as np
import pytest
import torch

import framework

from test_fidelity_pass16_mha import _same, _sdpa, _torchs_thread_count  # noqa: F401


def _with_nans(rng, a, count):
    for _ in range(count):
        a[tuple(int(rng.integers(0, s)) for s in a.shape)] = np.nan
    return a


@pytest.mark.parametrize("mode", ["none", "float_mask", "bool_mask", "causal"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sdpa_nan_rows_are_torchs(mode, dtype):
    rng = np.random.default_rng(17_000 + ["none", "float_mask", "bool_mask", "causal"].index(mode))
    for _ in range(6):
        n, s, e = int(rng.integers(1, 70)), int(rng.integers(1, 90)), int(rng.integers(2, 20))
        q, k, v = (rng.standard_normal((2, 2, m, e)).astype(dtype) for m in (n, s, s))
        for a in (q, k, v):
            _with_nans(rng, a, int(rng.integers(0, 3)))
        mask = None
        if mode == "float_mask":
            mask = rng.standard_normal((n, s)).astype(dtype)
        elif mode == "bool_mask":
            mask = rng.random((n, s)) > 0.3
        up = rng.standard_normal((2, 2, n, e)).astype(dtype)
        case = (q, k, v, mask, mode == "causal", up)
        f, t = _sdpa(framework, *case), _sdpa(torch, *case)
        assert _same(f, t), [int((a != b).sum()) for a, b in zip(f, t)]


def test_sdpa_nan_in_the_vector_part_is_nan_in_the_tail_is_not():
    """20 keys (float32, AVX2's 8 lanes: two full vectors and a tail of 4): a NaN score in
    a full vector makes the row NaN; one in the tail is skipped by the maximum, then
    reaches the row through its exp (NaN too). Both as torch."""
    rng = np.random.default_rng(17_100)
    q = rng.standard_normal((1, 1, 3, 4)).astype(np.float32)
    k = rng.standard_normal((1, 1, 20, 4)).astype(np.float32)
    v = rng.standard_normal((1, 1, 20, 4)).astype(np.float32)
    k[0, 0, 5, 1] = np.nan  # every row's score 5: in the vector part
    k2 = k.copy()
    k2[0, 0, 5, 1], k2[0, 0, 18, 2] = 1.0, np.nan  # score 18: in the tail
    for keys in (k, k2):
        f = framework.nn.functional.scaled_dot_product_attention(
            *(framework.tensor(a) for a in (q, keys, v))
        ).numpy()
        t = torch.nn.functional.scaled_dot_product_attention(
            *(torch.tensor(a) for a in (q, keys, v))
        ).numpy()
        assert np.isnan(t).all() and np.array_equal(f, t, equal_nan=True)
