"""Edge values the fuzzer's reshuffled seeds found (pre-existing, outside this file's ops):
layer_norm of rows whose mean squared overflows (torch's kernel takes E[x^2] - E[x]^2, so
inf - inf is NaN there) and slogdet of a matrix holding NaN (torch's sign is 0)."""

import numpy as np
import pytest
import torch

import framework


@pytest.mark.parametrize(
    "row", [[1e30, 1.0, 1.0], [1e30], [1e20, -1e20, 1.0], [3e19] * 3, [1e19, 1.0, 2.0]]
)
def test_layer_norm_overflowing_rows(row):
    x = np.array([row], np.float32)
    got = framework.nn.functional.layer_norm(framework.tensor(x), (len(row),)).numpy()
    want = torch.nn.functional.layer_norm(torch.tensor(x), (len(row),)).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_slogdet_sign_of_a_nan_matrix_is_zero():
    a = np.eye(3)
    b = a.copy()
    b[1, 1] = np.nan
    got = framework.linalg.slogdet(framework.tensor(np.stack([a, b])))
    want = torch.linalg.slogdet(torch.tensor(np.stack([a, b])))
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(np.isnan(got[1].numpy()), np.isnan(want[1].numpy()))
