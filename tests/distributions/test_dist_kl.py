"""kl_divergence for every pair torch registers, against torch: values (inf where torch gives
inf), gradients with a random upstream, the dispatch (most specific pair) and register_kl."""

import numpy as np
import pytest
import torch
from torch.distributions.kl import _KL_REGISTRY

import framework

TD, FD = torch.distributions, framework.distributions


def _maker(cls_name):
    """Parameters (batch shape (3,)) and a builder for the family named cls_name."""
    u = lambda lo, hi, *s: ("u", lo, hi, s)
    n = lambda *s: ("n", s)
    table = {
        "Bernoulli": ([u(0.1, 0.9, 3)], lambda D, p: D.Bernoulli(p)),
        "Beta": ([u(0.5, 2, 3), u(0.5, 2, 3)], lambda D, a, b: D.Beta(a, b)),
        "Binomial": ([u(0.1, 0.9, 3)], lambda D, p: D.Binomial(5, p)),
        "Cauchy": ([n(3), u(0.5, 2, 3)], lambda D, a, b: D.Cauchy(a, b)),
        "Categorical": ([u(0.1, 1, 3, 4)], lambda D, p: D.Categorical(p)),
        "ContinuousBernoulli": ([u(0.1, 0.9, 3)], lambda D, p: D.ContinuousBernoulli(p)),
        "Dirichlet": ([u(0.5, 2, 3, 4)], lambda D, a: D.Dirichlet(a)),
        "Exponential": ([u(0.5, 2, 3)], lambda D, r: D.Exponential(r)),
        "Gamma": ([u(0.5, 2, 3), u(0.5, 2, 3)], lambda D, a, b: D.Gamma(a, b)),
        "Gumbel": ([n(3), u(0.5, 2, 3)], lambda D, a, b: D.Gumbel(a, b)),
        "Geometric": ([u(0.1, 0.9, 3)], lambda D, p: D.Geometric(p)),
        "HalfNormal": ([u(0.5, 2, 3)], lambda D, s: D.HalfNormal(s)),
        "Laplace": ([n(3), u(0.5, 2, 3)], lambda D, a, b: D.Laplace(a, b)),
        "LowRankMultivariateNormal": (
            [n(3, 2), n(3, 2, 2), u(0.5, 2, 3, 2)],
            lambda D, m, f, d: D.LowRankMultivariateNormal(m, f, d),
        ),
        "MultivariateNormal": (
            [n(3, 2), n(3, 2, 2)],
            lambda D, m, a: D.MultivariateNormal(m, a @ a.mT + 0.5 * _eye(a)),
        ),
        "Normal": ([n(3), u(0.5, 2, 3)], lambda D, a, b: D.Normal(a, b)),
        "OneHotCategorical": ([u(0.1, 1, 3, 4)], lambda D, p: D.OneHotCategorical(p)),
        "Pareto": ([u(0.5, 2, 3), u(1, 3, 3)], lambda D, s, a: D.Pareto(s, a)),
        "Poisson": ([u(0.5, 4, 3)], lambda D, r: D.Poisson(r)),
        "Uniform": ([n(3), u(0.5, 2, 3)], lambda D, a, w: D.Uniform(a, a + w)),
    }
    return table[cls_name]


def _eye(a):
    return (torch if isinstance(a, torch.Tensor) else framework).eye(a.shape[-1], dtype=a.dtype)


def _draw(spec, rng):
    if spec[0] == "u":
        return rng.uniform(spec[1], spec[2], spec[3])
    return rng.standard_normal(spec[1])


PAIRS = sorted(
    (p.__name__, q.__name__)
    for p, q in _KL_REGISTRY
    if p.__name__ not in ("ExponentialFamily", "TransformedDistribution", "Independent")
)


def _build(lib, specs_p, specs_q, mk_p, mk_q, seed):
    rng = np.random.default_rng(seed)
    D = TD if lib is torch else FD
    pp = [lib.tensor(_draw(s, rng), requires_grad=True) for s in specs_p]
    qp = [lib.tensor(_draw(s, rng), requires_grad=True) for s in specs_q]
    return mk_p(D, *pp), mk_q(D, *qp), pp + qp


def _check(tp, tq, fp, fq, tparams, fparams, seed=0):
    want, got = TD.kl_divergence(tp, tq), FD.kl_divergence(fp, fq)
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-14)
    keep = torch.isfinite(want).detach().numpy()
    if want.requires_grad and keep.any():
        up = np.random.default_rng(seed).standard_normal(keep.sum())
        (want[torch.tensor(keep)] * torch.tensor(up)).sum().backward()
        (got[framework.tensor(keep)] * framework.tensor(up)).sum().backward()
        for f, t in zip(fparams, tparams):
            assert (f.grad is None) == (t.grad is None)
            if t.grad is not None:
                g, w = f.grad.numpy(), t.grad.numpy()
                np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("p, q", PAIRS, ids=[f"{p}-{q}" for p, q in PAIRS])
def test_registered_pair(p, q):
    (sp, mp), (sq, mq) = _maker(p), _maker(q)
    seed = sum(map(ord, p + q))
    tp, tq, tparams = _build(torch, sp, sq, mp, mq, seed)
    fp, fq, fparams = _build(framework, sp, sq, mp, mq, seed)
    _check(tp, tq, fp, fq, tparams, fparams, seed)


def test_independent_and_transformed_pairs():
    rng = np.random.default_rng(0)
    a = [rng.standard_normal((2, 3)), rng.uniform(0.5, 2, (2, 3))]
    b = [rng.standard_normal((2, 3)), rng.uniform(0.5, 2, (2, 3))]
    out = {}
    for lib, D in [(torch, TD), (framework, FD)]:
        ps = [lib.tensor(x, requires_grad=True) for x in a + b]
        p = D.Independent(D.Normal(ps[0], ps[1]), 1)
        q = D.Independent(D.Normal(ps[2], ps[3]), 1)
        lp = D.LogNormal(ps[0], ps[1])
        lq = D.TransformedDistribution(D.Normal(ps[2], ps[3]), [D.ExpTransform()])
        out[lib] = (p, q, lp, lq, ps)
    (tp, tq, tlp, tlq, tps), (fp, fq, flp, flq, fps) = out[torch], out[framework]
    _check(tp, tq, fp, fq, tps, fps)
    for t in tps + fps:
        t.grad = None
    _check(tlp, tlq, flp, flq, tps, fps)


def test_unregistered_pair_raises_as_torch():
    with pytest.raises(NotImplementedError) as want:
        TD.kl_divergence(TD.Cauchy(0.0, 1.0), TD.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError) as got:
        FD.kl_divergence(FD.Cauchy(0.0, 1.0), FD.Normal(0.0, 1.0))
    assert str(got.value) == str(want.value)


def test_register_kl_custom_pair():
    class MyNormal(FD.Normal):
        pass

    @FD.register_kl(MyNormal, FD.Normal)
    def _kl(p, q):
        return framework.zeros(p.batch_shape)

    p = MyNormal(framework.zeros(2), framework.ones(2))
    assert FD.kl_divergence(p, FD.Normal(0.0, 1.0)).tolist() == [0.0, 0.0]
    # the built-in (Normal, Normal) still answers for plain normals
    got = FD.kl_divergence(FD.Normal(0.0, 1.0), FD.Normal(1.0, 1.0))
    assert got.item() == pytest.approx(0.5)
