"""torch's CPU lgamma is vml.h's map of Sleef's u10 lgamma over every element (contiguous or
buffered strided input, the last partial vector padded: no glibc tail); framework's
`_sleef_lgamma` replays it (NumPy below JIT_MIN elements, numba from there), so lgamma,
special.gammaln, mvlgamma (torch's composition: lgamma_ then torch's sum) and their
gradients are torch's bits for any data and layout.

Every test draws its data from its own seeded generator (parametrized seeds)."""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _sleef_lgamma

DTYPES = ["float32", "float64"]
SEEDS = range(3)


def draw(rng, dt, n):
    """n values of dtype dt: N(0, 3), wide log-uniform magnitudes of both signs, negative
    half-integers and near-integers (lgamma's poles and zeros), around the branch points
    0.5 / 1.1 / 1.2 / 2.3 / 7, large values, and inf, NaN, +-0, denormals, the largest."""
    fi = np.finfo(dt)
    lo, hi = np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max))
    k = rng.integers(-60, 60, n).astype(np.float64)
    parts = [
        rng.standard_normal(n) * 3,
        np.exp2(rng.uniform(lo, hi, n)) * rng.choice([-1.0, 1.0], n),
        k + 0.5,
        k + rng.normal(0, 1e-4, n),
        rng.choice([0.5, 1.1, 1.2, 2.3, 7.0, 1.0, 2.0], n) + rng.normal(0, 1e-3, n),
        rng.uniform(-1e6, 1e6, n),
    ]
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, 2.0, -1.0, 0.5, -0.5, float(fi.max)]
    special += [float(fi.smallest_subnormal), -float(fi.smallest_subnormal), float(fi.tiny)]
    pool = np.concatenate(parts + [np.array(special)])
    return rng.permutation(pool)[:n].astype(dt)


def bits_equal(ours, theirs):
    """Equal bit patterns, NaN where the other has NaN."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    nan = np.isnan(ours)
    assert np.array_equal(nan, np.isnan(theirs))
    u = np.uint32 if ours.dtype == np.float32 else np.uint64
    a = np.ascontiguousarray(np.where(nan, 0, ours)).view(u)
    b = np.ascontiguousarray(np.where(nan, 0, theirs)).view(u)
    bad = np.flatnonzero(a != b)
    assert bad.size == 0, (bad.size, ours.ravel()[bad[:3]], theirs.ravel()[bad[:3]])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
def test_lgamma_values_are_torch_bits(dt, seed):
    """20,000 drawn values (the compiled loop) and 600 (the NumPy replay): 0 apart."""
    rng = np.random.default_rng([16, seed])
    for n in (20000, 600):
        x = draw(rng, dt, n)
        bits_equal(
            framework.lgamma(framework.tensor(x)).numpy(), torch.lgamma(torch.from_numpy(x)).numpy()
        )
        bits_equal(
            framework.special.gammaln(framework.tensor(x)).numpy(),
            torch.special.gammaln(torch.from_numpy(x)).numpy(),
        )


@pytest.mark.parametrize("dt", DTYPES)
def test_lgamma_every_length_and_strided_views(dt):
    """Lengths 0..40 (no scalar tail: every element is Sleef's) and transposed, stepped and
    sliced views."""
    rng = np.random.default_rng([16, 11])
    for n in range(41):
        x = draw(rng, dt, n) if n else np.zeros(0, dt)
        bits_equal(
            framework.lgamma(framework.tensor(x)).numpy(), torch.lgamma(torch.from_numpy(x)).numpy()
        )
    base = draw(rng, dt, 60 * 37).reshape(60, 37)
    ours, theirs = framework.from_numpy(base.copy()), torch.from_numpy(base.copy())
    for view in (lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[::3, 1::2].t()):
        bits_equal(framework.lgamma(view(ours)).numpy(), torch.lgamma(view(theirs)).numpy())


@pytest.mark.parametrize("dt", DTYPES)
def test_lgamma_inplace(dt):
    """lgamma_ (Tensor method) takes the same kernel."""
    x = draw(np.random.default_rng([16, 12]), dt, 3000)
    f, t = framework.tensor(x), torch.from_numpy(x.copy())
    bits_equal(f.clone().lgamma_().numpy(), t.clone().lgamma_().numpy())
    bits_equal(f.lgamma().numpy(), t.lgamma().numpy())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
def test_mvlgamma_is_torch_bits(dt, seed):
    """mvlgamma = (arange + x.unsqueeze(-1)).lgamma_().sum(-1) + p (p - 1) log(pi) / 4, each
    step torch's kernel (Sleef's lgamma, torch's summation order); gradients too."""
    rng = np.random.default_rng([16, 20 + seed])
    for p in (1, 2, 3, 5, 9):
        x = (np.abs(rng.standard_normal(3000) * 4) + (p - 1) / 2 + 1e-3).astype(dt)
        bits_equal(
            framework.mvlgamma(framework.tensor(x), p).numpy(),
            torch.mvlgamma(torch.from_numpy(x), p).numpy(),
        )
        bits_equal(
            framework.special.multigammaln(framework.tensor(x), p).numpy(),
            torch.special.multigammaln(torch.from_numpy(x), p).numpy(),
        )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
def test_lgamma_gradient_is_torch_bits(dt, seed):
    """LgammaBackward0 (grad * digamma(x)) for a random upstream gradient."""
    rng = np.random.default_rng([16, 40 + seed])
    x = draw(rng, dt, 4000)
    x = x[np.isfinite(x) & (np.abs(x) < 1e6)]
    g = rng.standard_normal(x.size).astype(dt)
    tx = torch.tensor(x, requires_grad=True)
    torch.lgamma(tx).backward(torch.from_numpy(g))
    fx = framework.tensor(x, requires_grad=True)
    out = framework.lgamma(fx)
    assert type(out.grad_fn).__name__ == "LgammaBackward0"
    out.backward(framework.tensor(g))
    bits_equal(fx.grad.numpy(), tx.grad.numpy())


def test_lgamma_gradcheck_gradgradcheck_and_forward_ad():
    """Float64 gradcheck, gradgradcheck and the forward-mode Jacobian."""
    x = framework.tensor([0.3, 1.7, 4.2, -0.6, 12.5], dtype=framework.float64, requires_grad=True)
    assert framework.autograd.gradcheck(framework.lgamma, (x,))
    assert framework.autograd.gradgradcheck(framework.lgamma, (x,))
    assert framework.autograd.gradcheck(
        framework.lgamma, (x,), check_forward_ad=True, check_backward_ad=False
    )


@pytest.mark.parametrize("dt", DTYPES)
def test_compiled_and_numpy_replays_agree(dt, monkeypatch):
    """The compiled loop (JIT_MIN elements or more) and the NumPy replay give the same bits;
    without numba (the module's jit off) the NumPy replay answers."""
    from framework.ops import _sleef_atanh

    x = draw(np.random.default_rng([16, 13]), dt, 5001)
    compiled = framework.lgamma(framework.tensor(x)).numpy()
    monkeypatch.setattr(_sleef_lgamma, "JIT_MIN", 1 << 40)
    bits_equal(framework.lgamma(framework.tensor(x)).numpy(), compiled)
    monkeypatch.setattr(_sleef_lgamma, "JIT_MIN", 1)
    monkeypatch.setattr(_sleef_atanh, "_JIT", [False])
    bits_equal(framework.lgamma(framework.tensor(x)).numpy(), compiled)
    bits_equal(compiled, torch.lgamma(torch.from_numpy(x)).numpy())


def test_half_and_bfloat16_keep_their_path():
    """float16/bfloat16 keep the float64 libm-algorithm path, rounded (close to torch's)."""
    x = np.linspace(-5.3, 9.1, 97)
    for name in ("float16", "bfloat16"):
        ours = framework.lgamma(framework.tensor(x).to(getattr(framework, name)))
        theirs = torch.lgamma(torch.tensor(x).to(getattr(torch, name)))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(
            ours.float().numpy(), theirs.float().numpy(), rtol=2e-2, atol=2e-2
        )
