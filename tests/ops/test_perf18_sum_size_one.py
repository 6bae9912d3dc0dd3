"""sum over dims of size 1 only (nothing is added: Sum's fast path, 0 + each element): the
bytes torch gives for -0, NaN payloads, infinities and subnormals, every dim/keepdim, both
float dtypes, and the gradient."""

import warnings

import numpy as np
import pytest
import torch

import framework

_SPECIAL32 = np.array(
    [0x80000000, 0x00000000, 0x3FC00000, 0xFF800000, 0x7F800000, 0x00000001, 0x80000001]
    + [0x7FC00001, 0xFFC12345, 0x7FA00000],  # quiet NaNs with payloads, a signalling NaN
    np.uint32,
).view(np.float32)


def _values(dtype):
    rng = np.random.default_rng(0)
    special = _SPECIAL32.astype(dtype) if dtype == "float64" else _SPECIAL32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.concatenate([special, rng.standard_normal(6).astype(dtype)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 16), (16, 1), (2, 1, 8), (1, 1, 16), (1,)])
def test_sum_over_size_one_dims_is_torchs_bits(dtype, shape):
    flat = _values(dtype)
    a = np.resize(flat, shape).astype(dtype)
    for dim in [d for d in range(len(shape)) if shape[d] == 1] + [-1]:
        if shape[dim] != 1:
            continue
        for keepdim in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the signalling NaN: NumPy's invalid)
                ours = framework.tensor(a).sum(dim, keepdim=keepdim).numpy()
                theirs = torch.tensor(a).sum(dim, keepdim=keepdim).numpy()
            assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
            assert ours.tobytes() == theirs.tobytes(), (shape, dim, keepdim)


def test_sum_over_size_one_dim_gradient_and_node():
    x = framework.tensor(np.arange(4.0, dtype=np.float32).reshape(1, 4), requires_grad=True)
    y = x.sum(0, keepdim=True)
    assert type(y.grad_fn).__name__ == "SumBackward1"
    assert y._data is not x._data  # a new tensor, as torch's
    (y * framework.tensor([[1.0, 2.0, 3.0, 4.0]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 2.0, 3.0, 4.0]]
    z = x.sum(0)
    assert z.shape == (4,) and z.grad_fn._saved_self_sym_sizes == (1, 4)
    assert z.grad_fn._saved_dim == (0,) and z.grad_fn._saved_keepdim is False
