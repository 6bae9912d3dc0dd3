"""Sums over reduced dims that are not adjacent, in torch's CPU order (thirteenth pass).

torch's reduction iterator puts the reduced dims innermost and runs its 2-D cascade-sum loop
over the first two iterator dims, adding each block's sums onto the zero-filled output once
per outer index (framework/ops/_sum_kernel.py, ``strided_sum_loop``). Before, these sums
(``x.sum((0, 2))``, and every broadcast gradient's sum_to_size from (3, 3, 4, 3) to
(1, 3, 1, 3)) took NumPy's pairwise order: the second-order fuzzer found the difference as
noise around exactly-zero second derivatives (seed 390007193: copysign, ours 1.2e-4 off the
float64 value where torch's is 1.5e-5; seed 390010605: cosine_similarity, 3e-5 apart).
Each bit test draws several data sets: the order must hold for any data.
"""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused

APART = [
    ((3, 3, 4, 3), (0, 2)),
    ((2, 4, 4, 5), (0, 3)),
    ((5, 7, 9), (0, 2)),
    ((2, 3, 4, 5), (1, 3)),
    ((2, 3, 4, 5), (0, 2, 3)),
    ((2, 3, 4, 5), (0, 1, 3)),
    ((8, 3, 16, 2), (0, 2)),
    ((17, 4, 33), (0, 2)),
    ((4, 9, 40), (0, 2)),
    ((40, 3, 9), (0, 2)),
    ((3, 40, 2, 17), (1, 3)),
    ((6, 1, 24, 1, 5), (0, 2, 4)),
    ((2, 64, 3, 8), (1, 3)),
    ((65, 2, 31), (0, 2)),
]
SEEDS = range(6)


def _exact(f, t, dt):
    """Bit-equal where the compiled loops run, else within NumPy's-order rounding."""
    if _fused.kernels() is None:  # NumPy's order (README, Known differences)
        tol = (1e-5, 1e-4) if dt == np.float32 else (1e-13, 1e-11)
        np.testing.assert_allclose(f, t, rtol=tol[0], atol=tol[1])
    else:
        np.testing.assert_array_equal(f, t)


def _data(shape, dt, seed):
    r = np.random.default_rng(seed)
    return (r.standard_normal(shape) * 10 ** r.uniform(-3, 3, shape)).astype(dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dims", APART)
def test_sum_mean_over_dims_apart_bitwise(shape, dims, dt):
    for seed in SEEDS:
        a = _data(shape, dt, seed)
        for op in ("sum", "mean"):
            for keepdim in (False, True):
                t = getattr(torch.tensor(a), op)(dims, keepdim=keepdim)
                f = getattr(framework.tensor(a), op)(dims, keepdim=keepdim)
                assert tuple(f.shape) == tuple(t.shape)
                _exact(f.numpy(), t.numpy(), dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dims", APART)
def test_broadcast_gradient_over_dims_apart_bitwise(shape, dims, dt):
    """x (size 1 on `dims`) * y: x's gradient is the engine's sum_to_size of y * grad, with
    and without create_graph."""
    small = tuple(1 if d in dims else n for d, n in enumerate(shape))
    for seed in SEEDS:
        xa, ya, ga = _data(small, dt, seed), _data(shape, dt, seed + 50), _data(shape, dt, 99)
        for create_graph in (False, True):
            grads = []
            for lib in (torch, framework):
                x, y = lib.tensor(xa, requires_grad=True), lib.tensor(ya)
                (g,) = lib.autograd.grad(x * y, x, lib.tensor(ga), create_graph=create_graph)
                grads.append(g.detach().numpy())
            _exact(grads[1], grads[0], dt)


def _second_order(lib, fn, arrays, up1, up2):
    """The leaves' create_graph gradients for `up1`, then the second-order gradients of
    those that require grad for `up2` (the leaves' shapes)."""
    leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
    gs = lib.autograd.grad(fn(lib, *leaves), leaves, lib.tensor(up1), create_graph=True)
    live = [(g, lib.tensor(u)) for g, u in zip(gs, up2) if g.requires_grad]
    ggs = lib.autograd.grad([g for g, _ in live], leaves, [u for _, u in live], allow_unused=True)
    return [g.detach().numpy() for g in gs] + [None if g is None else g.numpy() for g in ggs]


CASES = {
    # fuzz seed 390007193: copysign of (1, 3, 1, 3) by (3, 3, 4, 3); the second derivative
    # is exactly 0 (sign(x) is constant), each library's value is its sums' rounding
    "copysign": (lambda L, a, b: L.copysign(a, b), [(1, 3, 1, 3), (3, 3, 4, 3)]),
    # fuzz seed 390010605: cosine_similarity of (2, 4, 4, 5) and (1, 4, 4, 1) over dim -1
    "cosine_similarity": (
        lambda L, a, b: L.nn.functional.cosine_similarity(a, b, dim=-1),
        [(2, 4, 4, 5), (1, 4, 4, 1)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_noise_is_torchs(name):
    """The float32 second-order gradients bit for bit, over several data sets."""
    fn, shapes = CASES[name]
    for seed in SEEDS:
        r = np.random.default_rng(seed)
        arrays = [r.standard_normal(s).astype(np.float32) for s in shapes]
        out_shape = fn(torch, *map(torch.tensor, arrays)).shape
        up1 = r.standard_normal(tuple(out_shape)).astype(np.float32)
        up2 = [r.standard_normal(s).astype(np.float32) for s in shapes]
        t = _second_order(torch, fn, arrays, up1, up2)
        f = _second_order(framework, fn, arrays, up1, up2)
        for fa, ta in zip(f, t):
            assert (fa is None) == (ta is None)
            if ta is not None:
                _exact(fa, ta, np.float32)
