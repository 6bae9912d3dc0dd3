"""distributions.transforms and distributions.utils against torch: forward, inverse,
log|det J| and their gradients (random upstream), shapes, caching, equality; biject_to; the
SAC-style tanh-squashed Gaussian policy; logits_to_probs / probs_to_logits / clamp_probs."""

import numpy as np
import pytest
import torch

import framework

TD, FD = torch.distributions, framework.distributions


def _t(D, lib):
    T = D.transforms
    return {
        "exp": T.ExpTransform(),
        "affine": T.AffineTransform(lib.tensor([0.5, -1.0, 2.0]), lib.tensor([2.0, 0.5, -3.0])),
        "affine_scalar": T.AffineTransform(1.5, 0.25),
        "sigmoid": T.SigmoidTransform(),
        "tanh": T.TanhTransform(),
        "abs_power": T.PowerTransform(lib.tensor(2.0)),
        "softplus": T.SoftplusTransform(),
        "softmax": T.SoftmaxTransform(),
        "stick_breaking": T.StickBreakingTransform(),
        "lower_cholesky": T.LowerCholeskyTransform(),
        "compose": T.ComposeTransform([T.AffineTransform(0.0, 0.5), T.TanhTransform()]),
        "inverse_sigmoid": T.SigmoidTransform().inv,
        "independent": T.IndependentTransform(T.ExpTransform(), 1),
        "reshape": T.ReshapeTransform((3,), (3, 1)),
        "cat": T.CatTransform(
            [T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=0, lengths=[1, 2]
        ),
        "stack": T.StackTransform([T.ExpTransform(), T.SigmoidTransform(), T.TanhTransform()], 0),
        "cumulative": T.CumulativeDistributionTransform(D.Normal(0.0, 1.0)),
    }


NAMES = list(_t(TD, torch))


def _x(name):
    rng = np.random.default_rng(len(name))
    if name == "lower_cholesky":
        return rng.standard_normal((2, 3, 3))
    if name == "abs_power":
        return rng.uniform(0.2, 2.0, (3,))
    return (
        rng.standard_normal((3,))
        if name in ("cat", "stack", "reshape")
        else rng.standard_normal((2, 3))
    )


@pytest.mark.parametrize("name", NAMES)
def test_transform(name):
    tt, ft = _t(TD, torch)[name], _t(FD, framework)[name]
    assert repr(ft) == repr(tt)
    assert (
        ft.domain.event_dim == tt.domain.event_dim
        and ft.codomain.event_dim == tt.codomain.event_dim
    )
    assert ft.bijective == tt.bijective
    if name in ("exp", "tanh", "affine_scalar"):
        assert ft.sign == tt.sign
    x = _x(name)
    tx, fx = torch.tensor(x, requires_grad=True), framework.tensor(x, requires_grad=True)
    ty, fy = tt(tx), ft(fx)
    np.testing.assert_allclose(fy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    assert ft.forward_shape(fx.shape) == tt.forward_shape(tx.shape)
    assert ft.inverse_shape(fy.shape) == tt.inverse_shape(ty.shape)
    outs_t, outs_f = [ty], [fy]
    if tt.bijective and name != "lower_cholesky":
        yt, yf = ty.detach().requires_grad_(), fy.detach().requires_grad_()
        xt, xf = tt.inv(yt), ft.inv(yf)
        np.testing.assert_allclose(xf.detach().numpy(), xt.detach().numpy(), rtol=1e-9, atol=1e-12)
        lt, lf = tt.log_abs_det_jacobian(tx, ty), ft.log_abs_det_jacobian(fx, fy)
        np.testing.assert_allclose(lf.detach().numpy(), lt.detach().numpy(), rtol=1e-10, atol=1e-12)
        outs_t, outs_f = [ty, lt], [fy, lf]
    rng = np.random.default_rng(1)
    ups = [rng.standard_normal(tuple(o.shape)) for o in outs_t]
    tot_t = sum((o * torch.tensor(u)).sum() for o, u in zip(outs_t, ups))
    tot_f = sum((o * framework.tensor(u)).sum() for o, u in zip(outs_f, ups))
    tot_t.backward()
    tot_f.backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_cache_size_one_returns_the_cached_input():
    for D, lib in [(TD, torch), (FD, framework)]:
        t = D.transforms.TanhTransform(cache_size=1)
        x = lib.tensor([0.5, 30.0])
        y = t(x)
        assert t.inv(y) is x  # tanh(30) == 1 in float32: only the cache gets x back
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        FD.transforms.ExpTransform(cache_size=2)


def test_transform_equality_and_inverse_of_inverse():
    T = FD.transforms
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.SigmoidTransform()
    assert T.ExpTransform().inv.inv == T.ExpTransform()
    assert T.identity_transform == T.ComposeTransform([])


@pytest.mark.parametrize(
    "constraint",
    ["positive", "real", "unit_interval", "simplex", "lower_cholesky", "corr_cholesky"],
)
def test_biject_to(constraint):
    tc, fc = getattr(TD.constraints, constraint), getattr(FD.constraints, constraint)
    if constraint == "lower_cholesky":  # torch registers it with transform_to only
        with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky"):
            FD.biject_to(fc)
    pick = "transform_to" if constraint == "lower_cholesky" else "biject_to"
    tt, ft = getattr(TD, pick)(tc), getattr(FD, pick)(fc)
    assert repr(ft) == repr(tt)
    n = 3 if constraint == "corr_cholesky" else 4
    shape = (2, 3, 3) if constraint == "lower_cholesky" else (2, n)
    x = np.random.default_rng(0).standard_normal(shape)
    ty, fy = tt(torch.tensor(x)), ft(framework.tensor(x))
    np.testing.assert_allclose(fy.numpy(), ty.numpy(), rtol=1e-12, atol=1e-14)
    assert fc.check(fy).all().item()


def test_sac_tanh_gaussian_policy():
    """A SAC actor's action and log-probability: rsample through Normal, tanh, affine rescale."""
    rng = np.random.default_rng(5)
    mu, log_std = rng.standard_normal((4, 2)), rng.uniform(-1, 0.5, (4, 2))
    res = {}
    for lib, D in [(torch, TD), (framework, FD)]:
        m = lib.tensor(mu, requires_grad=True)
        s = lib.tensor(log_std, requires_grad=True)
        base = D.Normal(m, s.exp())
        dist = D.TransformedDistribution(
            base, [D.transforms.TanhTransform(cache_size=1), D.transforms.AffineTransform(0.0, 2.0)]
        )
        lib.manual_seed(11)
        a = dist.rsample()
        logp = dist.log_prob(a).sum(-1)
        loss = (logp * 0.2 - a.pow(2).sum(-1)).mean()
        loss.backward()
        res[lib] = [x.detach().numpy() for x in (a, logp, m.grad, s.grad)]
    for got, want in zip(res[framework], res[torch]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_utils():
    U, V = TD.utils, FD.utils
    x = np.random.default_rng(2).standard_normal((3, 4))
    for fn, args in [
        ("logits_to_probs", (x,)),
        ("logits_to_probs", (x, True)),
        ("probs_to_logits", (np.abs(x) / 4,)),
        ("probs_to_logits", (np.abs(x) / 4, True)),
        ("clamp_probs", (np.array([0.0, 0.5, 1.0], dtype=np.float32),)),
        ("clamp_probs", (np.array([0.0, 0.5, 1.0]),)),
    ]:
        tx = torch.tensor(args[0], requires_grad=True)
        fx = framework.tensor(args[0], requires_grad=True)
        want, got = getattr(U, fn)(tx, *args[1:]), getattr(V, fn)(fx, *args[1:])
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_allclose(
            got.detach().numpy(), want.detach().numpy(), rtol=0 if fn == "clamp_probs" else 1e-14
        )
        up = np.random.default_rng(3).standard_normal(tuple(want.shape))
        want.backward(torch.tensor(up))
        got.backward(framework.tensor(up))
        np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    a, b = V.broadcast_all(framework.zeros(2, 1), 1.5)
    assert a.shape == b.shape == (2, 1) and b.dtype == framework.float32
    with pytest.raises(ValueError) as got:
        V.broadcast_all("x")
    with pytest.raises(ValueError) as want:
        U.broadcast_all("x")
    assert str(got.value) == str(want.value)
    m = framework.tensor(np.arange(9.0).reshape(3, 3))
    v = V.tril_matrix_to_vec(m)
    assert v.tolist() == U.tril_matrix_to_vec(torch.tensor(m.numpy())).tolist()
    assert (
        V.vec_to_tril_matrix(v).tolist() == U.vec_to_tril_matrix(torch.tensor(v.numpy())).tolist()
    )
