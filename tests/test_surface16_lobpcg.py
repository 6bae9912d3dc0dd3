"""lobpcg (torch's code on framework tensors) against torch from the same seed: eigenvalues
and eigenvectors (up to sign) for both methods, largest and smallest, with B, X and a
preconditioner, batches; gradients through torch's LOBPCGAutogradFunction; the errors."""

import numpy as np
import pytest
import torch

import framework as fw


def _spd(m, seed):
    a = np.random.default_rng(seed).standard_normal((m, m))
    return a @ a.T + m * np.eye(m)


def _same(f, t, rtol=1e-8):
    np.testing.assert_allclose(f[0].detach().numpy(), t[0].detach().numpy(), rtol=rtol, atol=1e-10)
    fx, tx = f[1].detach().numpy(), t[1].detach().numpy()
    sign = np.sign((fx * tx).sum(-2, keepdims=True))
    np.testing.assert_allclose(fx * sign, tx, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_lobpcg_matches_torch(method, largest, seed):
    a = _spd(24, seed)
    torch.manual_seed(seed)
    fw.manual_seed(seed)
    t = torch.lobpcg(torch.tensor(a), k=3, largest=largest, method=method, niter=-1)
    f = fw.lobpcg(fw.tensor(a), k=3, largest=largest, method=method, niter=-1)
    _same(f, t)
    np.testing.assert_array_equal(fw.rand(2).numpy(), torch.rand(2).numpy())


def test_lobpcg_with_b_x_and_preconditioner():
    a, b = _spd(20, 3), _spd(20, 4)
    x = np.random.default_rng(5).standard_normal((20, 4))
    ik = np.linalg.inv(a)
    t = torch.lobpcg(
        torch.tensor(a), k=2, B=torch.tensor(b), X=torch.tensor(x), iK=torch.tensor(ik)
    )
    f = fw.lobpcg(fw.tensor(a), k=2, B=fw.tensor(b), X=fw.tensor(x), iK=fw.tensor(ik))
    _same(f, t, rtol=1e-6)


def test_lobpcg_gradient():
    a = _spd(15, 6)
    ta, fa = torch.tensor(a, requires_grad=True), fw.tensor(a, requires_grad=True)
    torch.manual_seed(1)
    fw.manual_seed(1)
    te, tx = torch.lobpcg(ta, k=2, niter=-1)
    fe, fx = fw.lobpcg(fa, k=2, niter=-1)
    assert type(fe.grad_fn).__name__ == type(te.grad_fn).__name__
    g = np.random.default_rng(2).standard_normal(2)
    (te * torch.tensor(g)).sum().backward()
    (fe * fw.tensor(g)).sum().backward()
    np.testing.assert_allclose(fa.grad.numpy(), ta.grad.numpy(), rtol=1e-6, atol=1e-8)


def test_lobpcg_too_small_error():
    with pytest.raises(ValueError) as te:
        torch.lobpcg(torch.eye(5, dtype=torch.float64), k=2)
    with pytest.raises(ValueError) as fe:
        fw.lobpcg(fw.eye(5, dtype=fw.float64), k=2)
    assert str(fe.value) == str(te.value)
