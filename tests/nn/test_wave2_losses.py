"""Wave-2 losses (functional and modules) against torch: values, node names, gradients with
a random upstream gradient, gradcheck/gradgradcheck of the margin-loss primitives, errors."""

import warnings

import numpy as np
import pytest
import torch

import framework
from helpers import randn
from parity import check, gradchecks, same_error

RNG = np.random.default_rng(3)
X, Y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
S = RNG.standard_normal(3)
SIGN = np.sign(Y)
T = np.array([1, 0, 3])
ML = np.array([[0, 1, -1, 0], [2, -1, 0, 0], [3, 2, 1, 0]])

CASES = {
    "kl_div": (lambda m, F, a, b, r: F.kl_div(a.log_softmax(1), b.softmax(1), reduction=r), [X, Y]),
    "kl_div_log_target": (
        lambda m, F, a, b, r: F.kl_div(a, b, reduction=r, log_target=True),
        [X, Y],
    ),
    "soft_margin": (lambda m, F, a, b, r: F.soft_margin_loss(a, b, reduction=r), [X, SIGN]),
    "multilabel_soft_margin": (
        lambda m, F, a, b, r: F.multilabel_soft_margin_loss(a, b, reduction=r),
        [X, (Y > 0).astype(float)],
    ),
    "multi_margin": (lambda m, F, a, r: F.multi_margin_loss(a, m.tensor(T), reduction=r), [X]),
    "multi_margin_p2_weight": (
        lambda m, F, a, r: F.multi_margin_loss(
            a,
            m.tensor(T),
            p=2,
            margin=0.7,
            weight=m.tensor([0.5, 1.0, 2.0, 1.5], dtype=m.float64),
            reduction=r,
        ),
        [X],
    ),
    "multilabel_margin": (
        lambda m, F, a, r: F.multilabel_margin_loss(a, m.tensor(ML), reduction=r),
        [X],
    ),
    "hinge_embedding": (lambda m, F, a, b, r: F.hinge_embedding_loss(a, b, reduction=r), [X, SIGN]),
    "cosine_embedding": (
        lambda m, F, a, b, c, r: F.cosine_embedding_loss(a, b, c, 0.1, reduction=r),
        [X, Y, np.sign(S)],
    ),
    "margin_ranking": (
        lambda m, F, a, b, c, r: F.margin_ranking_loss(a, b, c, 0.2, reduction=r),
        [S, S[::-1].copy(), np.sign(S)],
    ),
    "triplet_margin": (
        lambda m, F, a, b, c, r: F.triplet_margin_loss(a, b, c, reduction=r),
        [X, Y, Y * 2],
    ),
    "triplet_margin_swap_p1": (
        lambda m, F, a, b, c, r: F.triplet_margin_loss(a, b, c, p=1, swap=True, reduction=r),
        [X, Y, Y * 2],
    ),
    "poisson_nll": (lambda m, F, a, b, r: F.poisson_nll_loss(a, b, reduction=r), [X, np.abs(Y)]),
    "poisson_nll_full": (
        lambda m, F, a, b, r: F.poisson_nll_loss(
            a.abs(), b, log_input=False, full=True, reduction=r
        ),
        [X, np.abs(Y) * 3],
    ),
    "gaussian_nll": (
        lambda m, F, a, b, c, r: F.gaussian_nll_loss(a, b, c, reduction=r),
        [X, Y, np.abs(Y) + 0.1],
    ),
    "gaussian_nll_full_1d_var": (
        lambda m, F, a, b, c, r: F.gaussian_nll_loss(a, b, c, full=True, reduction=r),
        [X, Y, np.abs(S) + 0.1],
    ),
}
NOGRAD_TARGET = {"soft_margin", "hinge_embedding", "cosine_embedding", "margin_ranking"}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_losses(name, reduction, device):
    fn, arrays = CASES[name]
    rg = None
    if name in NOGRAD_TARGET:
        rg = [True] * (len(arrays) - 1) + [False]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kl_div's 'mean' warning (checked below)
        check(lambda m, F, *t: fn(m, F, *t, reduction), arrays, device, requires_grad=rg)


@pytest.mark.parametrize(
    "name",
    [
        "kl_div",
        "soft_margin",
        "multi_margin",
        "triplet_margin",
        "gaussian_nll",
        "multilabel_soft_margin",
    ],
)
def test_losses_float32(name):
    fn, arrays = CASES[name]
    rg = [True, False] if name == "soft_margin" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m, F, *t: fn(m, F, *t, "mean"), arrays, dtype=np.float32, requires_grad=rg)


def test_kl_div_batchmean_and_warning():
    check(lambda m, F, a, b: F.kl_div(a, b.softmax(1), reduction="batchmean"), [X, Y])
    with pytest.warns(UserWarning, match="batchmean"):
        framework.nn.functional.kl_div(framework.tensor(X), framework.tensor(Y))


@pytest.mark.parametrize(
    "name", ["soft_margin", "multi_margin", "multi_margin_p2", "multilabel_margin"]
)
def test_gradcheck(name):
    fns = {
        "soft_margin": lambda m, F, a: F.soft_margin_loss(
            a, m.tensor([1.0, -1.0, 1.0], dtype=m.float64)
        ),
        "multi_margin": lambda m, F, a: F.multi_margin_loss(a, m.tensor([1, 0])),
        "multi_margin_p2": lambda m, F, a: F.multi_margin_loss(
            a, m.tensor([1, 0]), p=2, reduction="sum"
        ),
        "multilabel_margin": lambda m, F, a: F.multilabel_margin_loss(
            a, m.tensor([[1, -1, 0], [0, 2, -1]]), reduction="none"
        ),
    }
    shape = (3,) if name == "soft_margin" else (2, 3)
    if name == "soft_margin":
        gradchecks(fns[name], [randn(*shape)])
        return
    # torch's margin kernels have no derivative of their own: gradcheck passes, and a second
    # backward raises torch's NotImplemented error, in both libraries
    x = randn(*shape)
    errors = []
    for m, F in ((torch, torch.nn.functional), (framework, framework.nn.functional)):
        a = m.tensor(x, requires_grad=True)
        f = lambda t: fns[name](m, F, t)
        assert m.autograd.gradcheck(f, (a,))
        with pytest.raises(RuntimeError, match="derivative for aten::multi") as e:
            m.autograd.gradgradcheck(f, (a,))
        errors.append(str(e.value))
    assert errors[0] == errors[1]


MODULES = [
    ("KLDivLoss", {"reduction": "batchmean"}, "kl_div"),
    ("SoftMarginLoss", {}, "soft_margin"),
    ("MultiLabelSoftMarginLoss", {}, "multilabel_soft_margin"),
    ("HingeEmbeddingLoss", {"margin": 0.5}, "hinge_embedding"),
    ("CosineEmbeddingLoss", {"margin": 0.1}, "cosine_embedding"),
    ("MarginRankingLoss", {"margin": 0.2}, "margin_ranking"),
    ("TripletMarginLoss", {"p": 1.0}, "triplet_margin"),
    ("PoissonNLLLoss", {}, "poisson_nll"),
    ("GaussianNLLLoss", {}, "gaussian_nll"),
]


@pytest.mark.parametrize("case", range(len(MODULES)))
def test_modules(case):
    name, kw, data = MODULES[case]
    th, fw = getattr(torch.nn, name)(**kw), getattr(framework.nn, name)(**kw)
    assert repr(fw) == repr(th)
    arrays = CASES[data][1]
    rg = [True] * (len(arrays) - 1) + [False] if data in NOGRAD_TARGET else None
    check(lambda m, F, *t: (fw if m is framework else th)(*t), arrays, requires_grad=rg)


def test_index_target_modules():
    for name, kw, tgt in (("MultiMarginLoss", {"p": 2}, T), ("MultiLabelMarginLoss", {}, ML)):
        th, fw = getattr(torch.nn, name)(**kw), getattr(framework.nn, name)(**kw)
        check(lambda m, F, a: (fw if m is framework else th)(a, m.tensor(tgt)), [X])


ERRORS = [
    (
        lambda m, F, a: F.multi_margin_loss(a, m.tensor([0, 1, 2]), p=3),
        [X],
        "only p == 1 and p == 2 supported",
    ),
    (lambda m, F, a: F.gaussian_nll_loss(a, a, -a.abs() - 1), [X], "var has negative entry"),
    (lambda m, F, a: F.gaussian_nll_loss(a, a, a[:, :2].abs()), [X], "var is of incorrect size"),
    (lambda m, F, a: F.soft_margin_loss(a, a.requires_grad_()), [X], "not differentiable"),
    (lambda m, F, a: F.kl_div(a, a, reduction="avg"), [X], "avg is not a valid value"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    fn, arrays, match = ERRORS[case]
    same_error(fn, arrays, match)
