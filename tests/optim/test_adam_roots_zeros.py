"""Adam's roots where second moments are zero, and fused Adam without the compiled loops.

The compiled Adam loops take VML's root a chunk at a time and pass it no zero operands (VML's
High Accuracy root is slow on zeros: a dead input's weights keep exp_avg_sq at 0); the root of
a zero is the zero itself. torch's fused CPU Adam (``fused=True``) rounds each tensor's last
elements in its scalar loop; the NumPy path (numba off) replays that tail too, per tensor even
for groups it would otherwise flatten. Every run is compared with torch's bits; each test
draws its data from its own seeded generator."""

import platform
import sys

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused

needs_mkl = pytest.mark.skipif(
    not (sys.platform == "linux" and platform.machine() == "x86_64"),
    reason="no mkl wheel for this platform",
)

# sizes: a chunk boundary of the compiled loops (2,048) crossed, tails of the fused kernel
SHAPES = [(70, 61), (53,), (3, 4, 5), (2049,), (17,), (9, 7)]


def _run(L, params0, grads, kwargs):
    params = [L.nn.Parameter(L.tensor(a.copy())) for a in params0]
    opt = L.optim.Adam(params, lr=0.01, **kwargs)
    for step in grads:
        for p, g in zip(params, step):
            p.grad = L.tensor(g)
        opt.step()
    out = [p.detach().numpy().copy() for p in params]
    return out, [{k: v.numpy().copy() for k, v in opt.state[p].items()} for p in params]


def _data(seed, dt, steps, shapes, zeros=True):
    """Parameters and gradients; with `zeros` a third of each gradient's elements are 0 at
    every step (some -0.0) and a few more are 0 at some steps."""
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(dt) for s in shapes]
    dead = [rng.random(s) < 1 / 3 for s in shapes]
    grads = []
    for _ in range(steps):
        step = []
        for a, d in zip(params, dead):
            g = (rng.standard_normal(a.shape) * 0.1).astype(dt)
            if zeros:
                g[d] = 0
                g[d & (rng.random(a.shape) < 0.3)] = -0.0
                g[rng.random(a.shape) < 0.05] = 0
            step.append(g)
        grads.append(step)
    return params, grads


def _same(ours, theirs):
    for (pa, sa), (pb, sb) in zip(zip(*ours), zip(*theirs)):
        assert pa.dtype == pb.dtype
        assert np.array_equal(pa, pb), f"{(pa != pb).sum()} of {pa.size} apart"
        for k in sb:
            assert np.array_equal(sa[k], sb[k]), k


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"amsgrad": True}, {"weight_decay": 0.1, "maximize": True}, {"foreach": True}],
    ids=["plain", "amsgrad", "l2-maximize", "foreach"],
)
@pytest.mark.parametrize("group", [True, False], ids=["group", "one"])
def test_zero_second_moments_are_torchs_bits(kwargs, dt, group):
    """Dead gradient elements (exp_avg_sq stays 0): torch's bits, in a group's one compiled
    call and for a lone parameter (its own loop), across the loops' chunks."""
    shapes = SHAPES if group else SHAPES[:1]
    params, grads = _data(3000 + len(kwargs) + group, dt, 40, shapes)
    theirs = _run(torch, params, grads, kwargs)
    ours = _run(framework, params, grads, kwargs)
    _same(ours, theirs)


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"amsgrad": True}, {"weight_decay": 0.1, "maximize": True}],
    ids=["plain", "amsgrad", "l2-maximize"],
)
@pytest.mark.parametrize("n", [3, 6], ids=["3-params", "6-params"])
def test_fused_numpy_path_is_torchs_bits(kwargs, dt, n):
    """fused=True without the compiled loops (numba off): each tensor's scalar tail as
    torch's fused kernel rounds it, six parameters (a group the NumPy path would flatten)
    as three."""
    params, grads = _data(4000 + len(kwargs) + n, dt, 60, SHAPES[:n], zeros=False)
    kw = dict(kwargs, fused=True)
    theirs = _run(torch, params, grads, kw)
    with _fused.disabled():
        ours = _run(framework, params, grads, kw)
    _same(ours, theirs)
