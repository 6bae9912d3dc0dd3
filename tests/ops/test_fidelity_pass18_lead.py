"""Named regressions of the eighteenth pass's lead: graph differences the whole-tree
comparison (fuzzer and `same`) found after the merge, each against torch."""

import numpy as np
import pytest

from ops.test_fidelity import same, t


@pytest.mark.parametrize("shape", [(1,), (3,), (), (2, 3)])
def test_repeat_interleave_without_dim_flattens_as_torch(shape):
    """dim=None: torch's input.flatten() returns a 1-D input itself (no ViewBackward0; fresh
    fuzz seeds 630048050 and 6 more), a 0-dim or n-D one through a view."""
    x = np.arange(1.0, 1.0 + np.prod(shape, dtype=int)).reshape(shape)
    same(lambda L, a: L.repeat_interleave(a, 2), t(x))
    same(lambda L, a, r: L.repeat_interleave(a, r), t(x), t(np.full(x.size, 2), "int64"))


def test_cosine_similarity_of_float32_and_float64_keeps_each_dtype():
    """torch casts only integral inputs: the float32 input is normalised in float32 (no
    ToCopyBackward0), the product promotes."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    same(lambda L, x, y: L.nn.functional.cosine_similarity(x, y), t(a, "float32"), t(b))
    same(lambda L, x, y: L.nn.functional.cosine_similarity(x, y), t(a, "int64"), t(b))


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_matrix_norm_svd_orders_with_keepdim_unsqueeze_once(ord):
    """torch reduces the singular values with keepdim, then one unsqueeze and the permute."""
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    same(lambda L, a: L.linalg.matrix_norm(a, ord=ord, keepdim=True), t(x))
    same(lambda L, a: L.linalg.matrix_norm(a, ord=ord, dim=(0, 2), keepdim=True), t(x))
