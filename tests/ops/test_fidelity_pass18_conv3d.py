"""conv3d on torch's slow_conv3d path (float64; float32 with one sample, where torch keeps
oneDNN out) bit for bit with torch, output, input gradient and weight gradient: the products
are MKL's gemm as torch calls it, per group and sample (the eighteenth pass; NumPy's OpenBLAS
differed in the last bit on an AMD EPYC). Without MKL the products stay NumPy's, and with
groups torch calls MKL's batched gemm (gemm_batch_strided, not replayed: 1 element of 420
apart measured): there only the values are checked."""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _mkl


def _run(L, x, w, up, kw):
    xt, wt = L.tensor(x, requires_grad=True), L.tensor(w, requires_grad=True)
    y = L.nn.functional.conv3d(xt, wt, **kw)
    gx, gw = L.autograd.grad(y, (xt, wt), L.tensor(up))
    return [y.detach().numpy(), gx.numpy(), gw.numpy()]


@pytest.mark.parametrize("seed", range(12))
def test_slow_conv3d_is_torchs_bits(seed):
    r = np.random.default_rng(18_300 + seed)
    dt = np.float64 if seed % 2 else np.float32
    n = 1 if dt == np.float32 else int(r.integers(1, 3))
    g = 1 if dt == np.float32 else int(r.choice([1, 1, 2]))  # (float32 groups: oneDNN)
    c, o = g * int(r.integers(1, 3)), g * int(r.integers(1, 3))
    sp = tuple(int(r.integers(3, 7)) for _ in range(3))
    k = tuple(int(r.integers(1, 4)) for _ in range(3))
    kw = dict(stride=int(r.integers(1, 3)), padding=int(r.integers(0, 2)), groups=g)
    x = r.standard_normal((n, c) + sp).astype(dt)
    w = r.standard_normal((o, c // g) + k).astype(dt)
    out = torch.nn.functional.conv3d(torch.tensor(x), torch.tensor(w), **kw)
    up = r.standard_normal(tuple(out.shape)).astype(dt)
    want, got = _run(torch, x, w, up, kw), _run(framework, x, w, up, kw)
    for a, b in zip(want, got):
        if _mkl.available() and g == 1:
            np.testing.assert_array_equal(b, a)
        else:
            np.testing.assert_allclose(b, a, rtol=1e-5 if dt == np.float32 else 1e-12, atol=1e-5)
