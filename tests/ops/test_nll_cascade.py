"""nll_loss's 'mean'/'sum' in torch's order (ATen nll_loss_out_frame / nll_loss2d: eight
cascaded partial sums of -x[t] w[t] and of w[t]), bit for bit with numba (without it NumPy's
order: README, Known differences); the total weight the gradient divides by is that sum too."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
import framework.nn.functional as F
from framework.ops._fused import kernels

pytestmark = pytest.mark.skipif(kernels() is None, reason="torch's order needs numba")


def _bits(t):
    a = t.detach().numpy()
    return a.view(np.int64 if a.dtype == np.float64 else np.int32)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "shape", [(5,), (1, 7), (17, 10), (300, 10), (5000, 3), (2, 5, 6, 7), (3, 4, 50)]
)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_bits(shape, dtype, weighted, ignore, reduction):
    rng = np.random.default_rng(sum(shape))
    c = shape[0] if len(shape) == 1 else shape[1]
    x = rng.standard_normal(shape) * 3
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = rng.integers(0, c, tshape)
    if ignore and t.ndim:
        t.reshape(-1)[::5] = -100
    w = rng.uniform(0.1, 2.0, c) if weighted else None
    td, fd = getattr(torch, dtype), getattr(framework, dtype)
    tx = torch.from_numpy(x).to(td).requires_grad_()
    fx = framework.tensor(x).to(fd).requires_grad_()
    kw_t = {"reduction": reduction, "weight": None if w is None else torch.from_numpy(w).to(td)}
    kw_f = {"reduction": reduction, "weight": None if w is None else framework.tensor(w).to(fd)}
    tl = TF.nll_loss(tx, torch.from_numpy(t), **kw_t)
    fl = F.nll_loss(fx, framework.tensor(t), **kw_f)
    np.testing.assert_array_equal(_bits(fl), _bits(tl))
    up = float(rng.standard_normal())
    (tg,) = torch.autograd.grad(tl, tx, torch.tensor(up, dtype=td))
    (fg,) = framework.autograd.grad(fl, fx, framework.tensor(up, dtype=fd))
    np.testing.assert_array_equal(_bits(fg), _bits(tg))


@pytest.mark.parametrize("n", [1, 16, 17, 257, 4097])
def test_fast_path_sum_order(n):
    """nll_loss's common case (a float32 (N, C) batch, class targets, 'mean': the fast path
    cross_entropy shares, framework/ops/_loss_fast.py) sums in torch's order too."""
    rng = np.random.default_rng(n)
    logp = torch.log_softmax(torch.from_numpy(rng.standard_normal((n, 9)).astype(np.float32)), 1)
    t = rng.integers(0, 9, n)
    ours = F.nll_loss(framework.tensor(logp.numpy()), framework.tensor(t))
    np.testing.assert_array_equal(_bits(ours), _bits(TF.nll_loss(logp, torch.from_numpy(t))))
