"""Bit-for-bit comparison helpers shared by the replayed-kernel tests."""

import contextlib

import numpy as np
import pytest
import torch


def same_bits(a, b):
    """Equal bits, any NaN matching any NaN (torch's NaN payloads are not replayed)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    nan = np.isnan(a)
    np.testing.assert_array_equal(nan, np.isnan(b))
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.itemsize]
    bad = np.ascontiguousarray(a).view(ints) != np.ascontiguousarray(b).view(ints)
    assert not (bad & ~nan).any(), f"{int((bad & ~nan).sum())} of {a.size} differ"


@contextlib.contextmanager
def replay_path(jit_cell, numba):
    """Run the block on a module's numba kernels (where numba is usable) or, with `numba`
    false, on its NumPy replay: `jit_cell` is the module's one-element `_JIT` list."""
    saved = jit_cell[0]
    if not numba:
        jit_cell[0] = False
    try:
        yield
    finally:
        jit_cell[0] = saved


def tensor_bits(ours, theirs):
    """ours (a framework tensor or array) has theirs' (a torch tensor's) dtype, shape, bits."""
    a = ours.detach().numpy() if hasattr(ours, "detach") else np.asarray(ours)
    b = theirs.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)), (
        f"{np.sum(a != b)} of {a.size} differ"
    )


@pytest.fixture(autouse=True)
def one_torch_thread():
    """torch on one thread for the test (its kernels split rows by thread count); a module
    that imports this fixture gets it for every test."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
