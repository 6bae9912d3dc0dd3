"""scaled_dot_product_attention's backward through _fused.softmax_grad_loop (the softmax
gradient's (g_p - row) * p * scale in one pass): bitwise NumPy's three in-place passes
(special values included), and the attention's gradients in nanoGPT's layout (q, k, v split
from one fused projection: heads inside sequence) match torch's. Without numba both sides
take NumPy's passes (the comparison still runs)."""

import numpy as np
import pytest
import torch

import framework
import framework.nn.functional as F
from framework.ops import _fused
from framework.ops.attention import _softmax_grad_

RNG = np.random.default_rng(2417)
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e30, 3e38]


def _bitwise(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True)
    assert np.array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 4, 64, 64), (1, 3, 70, 33), (2, 2, 3, 0)])
def test_softmax_grad_loop_bitwise_numpy(dtype, shape):
    gs = RNG.standard_normal(shape).astype(dtype) * 3
    p = RNG.random(shape).astype(dtype)
    gs.reshape(-1)[: len(SPECIAL)] = SPECIAL[: gs.size]
    p.reshape(-1)[-len(SPECIAL) :] = SPECIAL[: p.size]
    row = np.einsum("...i,...i->...", gs, p)[..., None]
    scale = np.asarray(0.125, dtype)
    got = gs.copy()
    _softmax_grad_(np, got, row, p, scale)
    want = gs.copy()
    with _fused.disabled():
        _softmax_grad_(np, want, row, p, scale)
    _bitwise(got, want)
    ref = gs.copy()
    with np.errstate(all="ignore"):
        ref -= row
        ref *= p
        ref *= scale
    _bitwise(got, ref)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal", [True, False])
def test_attention_grads_heads_inside_layout_match_torch(dtype, causal):
    """(B, L, 3C) -> q, k, v views (B, H, L, E) as nanoGPT splits them; random upstream."""
    b, n, h, e = 4, 64, 4, 16
    qkv = RNG.standard_normal((b, n, 3 * h * e)).astype(dtype)
    up = RNG.standard_normal((b, h, n, e)).astype(dtype)
    grads = []
    for lib, fn in ((framework, F), (torch, torch.nn.functional)):
        x = lib.tensor(qkv, requires_grad=True)
        q, k, v = (t.view(b, n, h, e).transpose(1, 2) for t in x.split(h * e, dim=2))
        y = fn.scaled_dot_product_attention(q, k, v, is_causal=causal)
        y.backward(lib.tensor(up))
        grads.append((y.detach().numpy(), x.grad.numpy()))
    tol = {"float32": 2e-5, "float64": 1e-12}[dtype]
    for a, t in zip(*grads):
        np.testing.assert_allclose(a, t, rtol=tol, atol=tol)
