"""Argument and sample validation as torch.distributions: the same exception type and message;
Distribution.set_default_validate_args; the samplers framework does not reproduce."""

import numpy as np
import pytest
import torch
from dist_cases import build, params

import framework

TD, FD = torch.distributions, framework.distributions


def _same_error(make):
    """make(D, lib) raises the same exception type and message in both libraries."""
    with pytest.raises(Exception) as want:
        make(TD, torch)
    with pytest.raises(Exception) as got:
        make(FD, framework)
    assert type(got.value) is type(want.value)
    assert _torch_names(str(got.value)) == str(want.value)


def _torch_names(msg):
    """Messages that print a class (``{type(self)}``) name framework's module: as torch's."""
    return msg.replace("<class 'framework.", "<class 'torch.")


BAD_ARGS = {
    "normal_scale": lambda D, t: D.Normal(t.zeros(2), t.tensor([1.0, -1.0])),
    "normal_nan_loc": lambda D, t: D.Normal(t.tensor([float("nan")]), t.ones(1)),
    "bernoulli_probs": lambda D, t: D.Bernoulli(t.tensor([0.2, 1.5])),
    "bernoulli_both": lambda D, t: D.Bernoulli(t.tensor(0.2), logits=t.tensor(0.1)),
    "bernoulli_neither": lambda D, t: D.Bernoulli(),
    "categorical_probs": lambda D, t: D.Categorical(t.tensor([0.2, -0.1])),
    "categorical_dim": lambda D, t: D.Categorical(t.tensor(0.5)),
    "categorical_both": lambda D, t: D.Categorical(t.ones(2), t.ones(2)),
    "uniform_order": lambda D, t: D.Uniform(t.tensor([1.0]), t.tensor([0.5])),
    "exponential_rate": lambda D, t: D.Exponential(t.tensor([-1.0])),
    "laplace_scale": lambda D, t: D.Laplace(t.zeros(1), t.zeros(1)),
    "mvn_none": lambda D, t: D.MultivariateNormal(t.zeros(2)),
    "mvn_two": lambda D, t: D.MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
    "mvn_loc_dim": lambda D, t: D.MultivariateNormal(t.tensor(0.0), t.eye(2)),
    "mvn_cov_dim": lambda D, t: D.MultivariateNormal(t.zeros(2), t.ones(2)),
    "mvn_not_pd": lambda D, t: D.MultivariateNormal(t.zeros(2), -t.eye(2)),
    "independent_ndims": lambda D, t: D.Independent(D.Normal(t.zeros(2), t.ones(2)), 2),
    "broadcast_all": lambda D, t: D.Normal("a", 1.0),
    "onehot_probs": lambda D, t: D.OneHotCategorical(t.tensor([0.5, -0.5])),
    "gamma_conc": lambda D, t: D.Gamma(t.tensor([-1.0]), t.ones(1)),
    "beta_conc": lambda D, t: D.Beta(t.tensor([0.0]), t.ones(1)),
    "poisson_rate": lambda D, t: D.Poisson(t.tensor([-1.0])),
    "mixture_not_categorical": lambda D, t: D.MixtureSameFamily(
        D.Normal(t.zeros(2), t.ones(2)), D.Normal(t.zeros(2), t.ones(2))
    ),
    "tanh_not_transform": lambda D, t: D.TransformedDistribution(D.Normal(0.0, 1.0), [1]),
    "mixture_batch": lambda D, t: D.MixtureSameFamily(
        D.Categorical(t.ones(3, 2)), D.Normal(t.zeros(4, 2), t.ones(4, 2))
    ),
    "lowrank_diag": lambda D, t: D.LowRankMultivariateNormal(t.zeros(3), t.ones(3, 1), t.ones(2)),
    "lowrank_factor": lambda D, t: D.LowRankMultivariateNormal(t.zeros(3), t.ones(2, 1), t.ones(3)),
    "transformed_event_dim": lambda D, t: D.TransformedDistribution(
        D.Normal(0.0, 1.0), D.transforms.SoftmaxTransform()
    ),
    "reshape_mismatch": lambda D, t: D.transforms.ReshapeTransform((2, 3), (6,)).forward_shape(
        t.Size([4, 3, 2])
    ),
    "reshape_inverse": lambda D, t: D.transforms.ReshapeTransform((2, 3), (6,)).inverse_shape(
        (4, 5)
    ),
    "wishart_df": lambda D, t: D.Wishart(t.tensor(0.5), t.eye(3)),
    "independent_reinterpreted": lambda D, t: D.Independent(D.Normal(t.zeros(2), t.ones(2)), 3),
}


@pytest.mark.parametrize("case", BAD_ARGS)
def test_invalid_arguments(case):
    _same_error(BAD_ARGS[case])


BAD_VALUES = {
    "normal_shape": lambda D, t: D.Normal(t.zeros(3), t.ones(3)).log_prob(t.zeros(2)),
    "normal_type": lambda D, t: D.Normal(t.zeros(3), t.ones(3)).log_prob([0.0]),
    "bernoulli_support": lambda D, t: D.Bernoulli(t.tensor(0.3)).log_prob(t.tensor(0.5)),
    "categorical_support": lambda D, t: D.Categorical(t.ones(3)).log_prob(t.tensor(3)),
    "uniform_support": lambda D, t: D.Uniform(0.0, 1.0).log_prob(t.tensor(2.0)),
    "exponential_support": lambda D, t: D.Exponential(t.ones(1)).log_prob(t.tensor([-1.0])),
    "mvn_event": lambda D, t: D.MultivariateNormal(t.zeros(2), t.eye(2)).log_prob(t.zeros(3)),
    "onehot_support": lambda D, t: D.OneHotCategorical(t.ones(3)).log_prob(t.ones(3)),
    "lognormal_support": lambda D, t: D.LogNormal(0.0, 1.0).log_prob(t.tensor(-1.0)),
}


@pytest.mark.parametrize("case", BAD_VALUES)
def test_invalid_values(case):
    _same_error(BAD_VALUES[case])


def test_shapes_computed_by_transforms_are_sizes():
    t = FD.transforms.ReshapeTransform((2, 3), (6,))
    got = t.forward_shape(framework.Size([4, 2, 3]))
    want = TD.transforms.ReshapeTransform((2, 3), (6,)).forward_shape(torch.Size([4, 2, 3]))
    assert repr(got) == repr(want) == "torch.Size([4, 6])"
    assert repr(t.inverse_shape((4, 6))) == "torch.Size([4, 2, 3])"


def test_validation_off_per_instance_and_by_default():
    for D, t in [(TD, torch), (FD, framework)]:
        d = D.Normal(t.zeros(1), t.tensor([-1.0]), validate_args=False)
        assert not d._validate_args
        assert D.Uniform(0.0, 1.0, validate_args=False).log_prob(t.tensor(2.0)).item() == -np.inf
    try:
        FD.Distribution.set_default_validate_args(False)
        FD.Normal(framework.zeros(1), framework.tensor([-1.0]))  # no error
        assert not FD.Normal(0.0, 1.0)._validate_args
    finally:
        FD.Distribution.set_default_validate_args(True)
    assert FD.Normal(0.0, 1.0)._validate_args
    with pytest.raises(ValueError):
        FD.Distribution.set_default_validate_args("yes")


def test_base_class_raises_not_implemented():
    d = FD.Distribution(validate_args=False)
    for m in ["rsample", "sample", "entropy", "enumerate_support"]:
        with pytest.raises(NotImplementedError):
            getattr(d, m)()
    for m in ["log_prob", "cdf", "icdf"]:
        with pytest.raises(NotImplementedError):
            getattr(d, m)(framework.zeros(1))
    for m in ["mean", "mode", "variance"]:
        with pytest.raises(NotImplementedError) as got:
            getattr(d, m)
        with pytest.raises(NotImplementedError) as want:
            getattr(TD.Distribution(validate_args=False), m)
        assert _torch_names(str(got.value)) == str(want.value)


def test_gamma_cdf_is_torchs_regularized_incomplete_gamma():
    d, _ = build("Gamma", params("Gamma"), framework)
    t, _ = build("Gamma", params("Gamma"), torch)
    got, want = d.cdf(d.mean), t.cdf(t.mean)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
