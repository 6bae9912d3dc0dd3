"""The distributions the parity tests build in both libraries, from the same parameters.

A case is a name, a builder ``make(D, *params)`` called with ``D`` = torch.distributions or
framework.distributions, and the parameters as NumPy arrays (a ``lo``/``hi`` range for
positive or bounded ones). ``SAMPLES`` lists the families whose sampler framework
reproduces (all of them).
"""

import numpy as np
import torch

import framework


def _rng(name):
    return np.random.default_rng(sum(map(ord, name)))


def pos(*shape, lo=0.2, hi=2.0):
    """A positive parameter in [lo, hi)."""
    return ("u", shape, lo, hi)


def real(*shape):
    """A real parameter, standard normal."""
    return ("n", shape)


def spd(n):
    """A symmetric positive definite n x n matrix."""
    return ("spd", n)


def tril(n):
    """The Cholesky factor of a symmetric positive definite matrix."""
    return ("tril", n)


def draw(spec, rng):
    if spec[0] == "u":
        return rng.uniform(spec[2], spec[3], spec[1])
    if spec[0] == "n":
        return rng.standard_normal(spec[1])
    a = rng.standard_normal((spec[1], spec[1]))
    m = a @ a.T + np.eye(spec[1])
    return m if spec[0] == "spd" else np.linalg.cholesky(m)


def scalar(D, x):
    """A 0-d tensor of D's library."""
    return torch.tensor(x) if D is torch.distributions else framework.tensor(x)


CASES = {
    "Normal": (lambda D, a, b: D.Normal(a, b), [real(2, 3), pos(2, 3)]),
    "Bernoulli_probs": (lambda D, p: D.Bernoulli(p), [pos(3, 4, lo=0.05, hi=0.95)]),
    "Bernoulli_logits": (lambda D, x: D.Bernoulli(logits=x), [real(3, 4)]),
    "Categorical_probs": (lambda D, p: D.Categorical(p), [pos(3, 5)]),
    "Categorical_logits": (lambda D, x: D.Categorical(logits=x), [real(2, 3, 5)]),
    "OneHotCategorical": (lambda D, p: D.OneHotCategorical(p), [pos(3, 5)]),
    "OneHotCategorical_logits": (lambda D, x: D.OneHotCategorical(logits=x), [real(4)]),
    "Uniform": (lambda D, a, w: D.Uniform(a, a + w), [real(2, 3), pos(2, 3)]),
    "Exponential": (lambda D, r: D.Exponential(r), [pos(2, 3)]),
    "Laplace": (lambda D, a, b: D.Laplace(a, b), [real(2, 3), pos(2, 3)]),
    "Independent": (lambda D, a, b: D.Independent(D.Normal(a, b), 1), [real(2, 3), pos(2, 3)]),
    "MVN_covariance": (
        lambda D, m, c: D.MultivariateNormal(m, covariance_matrix=c),
        [real(2, 3), spd(3)],
    ),
    "MVN_precision": (
        lambda D, m, c: D.MultivariateNormal(m, precision_matrix=c),
        [real(2, 3), spd(3)],
    ),
    "MVN_scale_tril": (lambda D, m, c: D.MultivariateNormal(m, scale_tril=c), [real(3), tril(3)]),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, b), [real(2, 3), pos(2, 3)]),
    "TanhNormal": (
        lambda D, a, b: D.TransformedDistribution(
            D.Normal(a, b), [D.transforms.TanhTransform(), D.transforms.AffineTransform(1.0, 2.0)]
        ),
        [real(4), pos(4)],
    ),
    "SigmoidNormal": (
        lambda D, a, b: D.TransformedDistribution(D.Normal(a, b), D.SigmoidTransform()),
        [real(4), pos(4)],
    ),
    "ExpUniform": (
        lambda D, a, w: D.TransformedDistribution(D.Uniform(a, a + w), [D.ExpTransform()]),
        [real(4), pos(4)],
    ),
    "Beta": (lambda D, a, b: D.Beta(a, b), [pos(2, 3), pos(2, 3)]),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), [pos(2, 3), pos(2, 3)]),
    "Dirichlet": (lambda D, a: D.Dirichlet(a), [pos(2, 4)]),
    "Poisson": (lambda D, r: D.Poisson(r), [pos(2, 3, hi=6.0)]),
    "Binomial": (lambda D, p: D.Binomial(10, p), [pos(2, 3, lo=0.05, hi=0.95)]),
    "Geometric": (lambda D, p: D.Geometric(p), [pos(2, 3, lo=0.05, hi=0.95)]),
    "RelaxedBernoulli": (
        lambda D, p: D.RelaxedBernoulli(scalar(D, 0.5), probs=p),
        [pos(2, 3, lo=0.05, hi=0.95)],
    ),
    "Gumbel": (lambda D, a, b: D.Gumbel(a, b), [real(2, 3), pos(2, 3)]),
    "StudentT": (
        lambda D, df, a, b: D.StudentT(df, a, b),
        [pos(3, lo=1.0, hi=5.0), real(3), pos(3)],
    ),
    "Cauchy": (lambda D, a, b: D.Cauchy(a, b), [real(2, 3), pos(2, 3)]),
    "HalfNormal": (lambda D, s: D.HalfNormal(s), [pos(2, 3)]),
    "MixtureSameFamily": (
        lambda D, w, a, b: D.MixtureSameFamily(D.Categorical(w), D.Normal(a, b)),
        [pos(3, 4), real(3, 4), pos(3, 4)],
    ),
    "Chi2": (lambda D, df: D.Chi2(df), [pos(3, lo=1.0, hi=4.0)]),
    "Multinomial": (lambda D, p: D.Multinomial(7, p), [pos(2, 4)]),
    "Pareto": (lambda D, s, a: D.Pareto(s, a), [pos(3), pos(3, lo=2.5, hi=4.0)]),
    "Weibull": (lambda D, s, c: D.Weibull(s, c), [pos(3), pos(3)]),
    "Kumaraswamy": (lambda D, a, b: D.Kumaraswamy(a, b), [pos(3), pos(3)]),
    "ContinuousBernoulli": (lambda D, p: D.ContinuousBernoulli(p), [pos(3, lo=0.05, hi=0.95)]),
    "HalfCauchy": (lambda D, s: D.HalfCauchy(s), [pos(3)]),
    "LowRankMVN": (
        lambda D, m, f, d: D.LowRankMultivariateNormal(m, f, d),
        [real(3), real(3, 2), pos(3)],
    ),
    "LogisticNormal": (lambda D, a, b: D.LogisticNormal(a, b), [real(3), pos(3)]),
}

# families whose sample() framework reproduces draw for draw: all
SAMPLES = list(CASES)


def params(name, dtype=np.float64):
    rng = _rng(name)
    return [draw(s, rng).astype(dtype) for s in CASES[name][1]]


def build(name, arrays, lib, requires_grad=False):
    """The case's distribution in ``lib`` (torch or framework) and its parameter tensors."""
    D = torch.distributions if lib is torch else framework.distributions
    ts = [lib.tensor(a, requires_grad=requires_grad) for a in arrays]
    return CASES[name][0](D, *ts), ts
