"""ATen's samplers reproduced in framework/distributions/_samplers.py, against torch's kernels:
torch._standard_gamma (values, the generator's position after it, its gradient and node),
torch._sample_dirichlet, torch._dirichlet_grad and torch.binomial, over several seeds, both
float dtypes and parameters that reach every branch (concentrations below 1, large counts,
probabilities at and near 0, 1/2 and 1)."""

import numpy as np
import pytest
import torch

import framework
from framework.distributions import _samplers as S

DTYPES = [(torch.float32, framework.float32), (torch.float64, framework.float64)]
IDS = ["float32", "float64"]


def _same_stream_after():
    np.testing.assert_array_equal(framework.randn(3).numpy(), torch.randn(3).numpy())


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_standard_gamma_draws_and_gradient(dt, seed):
    rng = np.random.default_rng(seed)
    a = np.concatenate([rng.uniform(0.01, 1, 20), rng.uniform(1, 10, 20), rng.uniform(10, 200, 8)])
    a = a.reshape(6, 8)
    ta = torch.tensor(a, dtype=dt[0], requires_grad=True)
    fa = framework.tensor(a, dtype=dt[1], requires_grad=True)
    torch.manual_seed(seed)
    framework.manual_seed(seed)
    want, got = torch._standard_gamma(ta), S.standard_gamma(fa)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    _same_stream_after()
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__ == "StandardGammaBackward0"
    up = rng.standard_normal(a.shape)
    want.backward(torch.tensor(up, dtype=dt[0]))
    got.backward(framework.tensor(up, dtype=dt[1]))
    np.testing.assert_array_equal(fa.grad.numpy(), ta.grad.numpy())


def test_standard_gamma_of_zero_and_a_non_contiguous_input():
    a = np.array([[0.0, 0.5], [2.0, 0.0]])
    torch.manual_seed(3)
    framework.manual_seed(3)
    want = torch._standard_gamma(torch.tensor(a).T)
    got = S.standard_gamma(framework.tensor(a).T)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    _same_stream_after()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_sample_dirichlet(dt, seed):
    a = np.random.default_rng(seed).uniform(0.05, 5, (7, 4))
    torch.manual_seed(seed)
    framework.manual_seed(seed)
    want = torch._sample_dirichlet(torch.tensor(a, dtype=dt[0]))
    got = S.sample_dirichlet(framework.tensor(a, dtype=dt[1]))
    # float64: the normalising sum over the last dim rounds as framework's sum, not torch's
    rtol = 0 if dt[0] is torch.float32 else 1e-15
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol)
    _same_stream_after()


@pytest.mark.parametrize("lo, hi", [(0.05, 1.0), (0.5, 4.0), (7.0, 30.0)])
@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_dirichlet_grad(dt, lo, hi):
    a = torch.tensor(np.random.default_rng(4).uniform(lo, hi, (60, 3)), dtype=dt[0])
    torch.manual_seed(0)
    x = torch._sample_dirichlet(a)
    total = a.sum(-1, True).expand_as(a)
    want = torch._dirichlet_grad(x, a, total)
    got = S.dirichlet_grad(*(framework.tensor(t.numpy()) for t in (x, a, total)))
    if dt[0] is torch.float64:
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:  # computed in double where torch keeps a few float steps
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_binomial(dt, seed):
    rng = np.random.default_rng(seed)
    count = rng.integers(0, 300, 200).astype(float)
    prob = rng.uniform(0, 1, 200)
    prob[:6] = [0.0, 1.0, 0.5, 0.01, 0.99, 0.5]
    count[:6] = [10, 10, 0, 5000, 5000, 40]
    torch.manual_seed(seed)
    framework.manual_seed(seed)
    want = torch.binomial(torch.tensor(count, dtype=dt[0]), torch.tensor(prob, dtype=dt[0]))
    got = framework.binomial(
        framework.tensor(count, dtype=dt[1]), framework.tensor(prob, dtype=dt[1])
    )
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    _same_stream_after()


def test_binomial_distribution_sample_shapes():
    p = np.random.default_rng(0).uniform(0.1, 0.9, (2, 3))
    t = torch.distributions.Binomial(torch.tensor([[7.0], [40.0]]), torch.tensor(p))
    f = framework.distributions.Binomial(framework.tensor([[7.0], [40.0]]), framework.tensor(p))
    torch.manual_seed(5)
    framework.manual_seed(5)
    np.testing.assert_array_equal(f.sample((4,)).numpy(), t.sample((4,)).numpy())
