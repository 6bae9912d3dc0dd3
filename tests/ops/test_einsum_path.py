"""einsum's contraction order for 3+ operands (framework/ops/einsum_path.py) and
framework.backends.opt_einsum: the optimal search's cost against NumPy's optimal path, values
and gradients of long chains, an order that left to right cannot afford, the flags."""

import numpy as np
import pytest
import torch

import framework
import framework.backends.opt_einsum as opt_einsum
from framework.ops import einsum_path


def _random_equation(rng):
    n = int(rng.integers(3, 7))
    pick = lambda: "".join(rng.choice(list("abcdefgh"), int(rng.integers(1, 4)), replace=False))
    terms = [pick() for _ in range(n)]
    labels = sorted(set("".join(terms)))
    out = "".join(c for c in labels if rng.random() < 0.3)
    sizes = {c: int(rng.integers(2, 9)) for c in labels}
    return terms, out, sizes


@pytest.mark.parametrize("seed", range(40))
def test_optimal_cost_equals_numpys_optimal_path(seed):
    """The 'optimal' search finds a path as cheap as np.einsum_path's exhaustive one (no
    memory limit), counted the same way (opt_einsum's operation count)."""
    terms, out, sizes = _random_equation(np.random.default_rng(seed))
    ops = [np.empty([sizes[c] for c in t]) for t in terms]
    np_path = np.einsum_path(",".join(terms) + "->" + out, *ops, optimize=("optimal", 1e30))[0]
    sets, keep = [frozenset(t) for t in terms], frozenset(out)
    ours = einsum_path.optimal(sets, keep, sizes)
    cost = einsum_path.path_cost(sets, keep, sizes, ours)
    assert cost == einsum_path.path_cost(sets, keep, sizes, [tuple(p) for p in np_path[1:]])
    assert cost <= einsum_path.path_cost(sets, keep, sizes, einsum_path.greedy(sets, keep, sizes))


@pytest.mark.parametrize("strategy", ["auto", "greedy", "optimal"])
@pytest.mark.parametrize("seed", range(6))
def test_every_strategy_gives_einsums_values_and_gradients(strategy, seed):
    terms, out, sizes = _random_equation(np.random.default_rng(100 + seed))
    eq = ",".join(terms) + "->" + out
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal([sizes[c] for c in t]) for t in terms]
    fw = [framework.tensor(a, requires_grad=True) for a in arrays]
    th = [torch.tensor(a, requires_grad=True) for a in arrays]
    with opt_einsum.flags(strategy=strategy):
        got = framework.einsum(eq, *fw)
    want = torch.einsum(eq, *th)  # left to right: the same numbers up to rounding
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-10)
    up = rng.standard_normal(tuple(want.shape))
    got.backward(framework.tensor(up))
    want.backward(torch.tensor(up))
    for f, t in zip(fw, th):
        np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_long_chain_uses_greedy_and_matches_numpy():
    """Twelve matrices and a vector ('auto' is greedy beyond six operands)."""
    rng = np.random.default_rng(0)
    letters = "abcdefghijklm"
    eq = ",".join(letters[i : i + 2] for i in range(12)) + ",m->a"
    arrays = [rng.standard_normal((4, 4)) for _ in range(12)] + [rng.standard_normal(4)]
    got = framework.einsum(eq, *map(framework.tensor, arrays))
    np.testing.assert_allclose(got.numpy(), np.einsum(eq, *arrays), rtol=1e-10)


def test_order_that_left_to_right_cannot_afford():
    """'ab,cd,bc->ad' at n = 300: left to right forms the outer product of the first two
    (n^4 doubles, 65 GB); the planned order is two matrix products."""
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal((300, 300)) for _ in range(3))
    ts = [framework.tensor(x, requires_grad=True) for x in (a, b, c)]
    out = framework.einsum("ab,cd,bc->ad", *ts)
    np.testing.assert_allclose(out.detach().numpy(), a @ c @ b, rtol=1e-10)
    out.sum().backward()
    np.testing.assert_allclose(ts[1].grad.numpy(), (a @ c).sum(0)[:, None] * np.ones((1, 300)))


def test_gradcheck_through_a_planned_chain():
    rng = np.random.default_rng(2)
    ts = tuple(
        framework.tensor(rng.standard_normal(s), requires_grad=True)
        for s in ((2, 3), (4, 2), (3, 4), (4,))
    )
    fn = lambda *t: framework.einsum("ab,ca,bc,c->a", *t)
    assert framework.autograd.gradcheck(fn, ts)
    assert framework.autograd.gradgradcheck(fn, ts)


def test_flags_as_torch():
    """torch.backends.opt_einsum's settings: enabled/strategy, flags() restoring them, and
    torch's ValueErrors for a strategy that is unknown or set while disabled."""
    assert opt_einsum.is_available() and opt_einsum.enabled and opt_einsum.strategy == "auto"
    import framework.backends.opt_einsum as again

    assert again is framework.backends.opt_einsum
    with opt_einsum.flags(enabled=False):
        assert not opt_einsum.enabled
        with pytest.raises(ValueError, match="opt_einsum is not enabled, so setting a"):
            opt_einsum.strategy = "greedy"
    assert opt_einsum.enabled and opt_einsum.strategy == "auto"
    with pytest.raises(ValueError, match=r"must be one of the following: \[auto, greedy, optimal"):
        opt_einsum.strategy = "fast"
    assert opt_einsum.set_flags(True, "optimal") == (True, "auto")
    assert opt_einsum.set_flags(None, "auto") == (True, "optimal")
    # torch's wording (from its source: in this environment torch has no opt_einsum)
    src = open(torch.backends.opt_einsum.__file__).read()
    assert "must be one of the following: [auto, greedy, optimal] but is" in src
    assert "opt_einsum is not enabled, so setting a `strategy` to" in src
