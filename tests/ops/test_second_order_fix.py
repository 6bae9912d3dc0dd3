"""Second-order parity fixes found by the fuzzer's second-order stage (issue 9): each test
names the class it fixes and compares with torch (the create_graph gradient's values, node
name and requires_grad, the second gradient or torch's error)."""

import numpy as np
import pytest
import torch

import framework
from parity import gradchecks


def _pair(shape, seed=0, dtype=np.float32):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return (
        framework.tensor(a, requires_grad=True),
        torch.tensor(a, requires_grad=True),
    )


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 70)])
def test_gelu_create_graph_0dim(shape, approximate):
    """gg-exception gelu (seeds 34001593, 33000537): create_graph of a 0-dim float32 gelu
    raised TypeError (the small ufunc returns a scalar for a 0-dim input)."""
    fx, tx = _pair(shape)
    out = [
        m.autograd.grad(F.gelu(x, approximate=approximate).sum(), x, create_graph=True)[0]
        for m, F, x in ((framework, framework.nn.functional, fx), (torch, torch.nn.functional, tx))
    ]
    (fg, tg) = out
    assert fg.grad_fn.name() == tg.grad_fn.name() and fg.requires_grad
    np.testing.assert_allclose(fg.detach().numpy(), tg.detach().numpy(), rtol=1e-6, atol=1e-6)
    f2 = framework.autograd.grad(fg.sum(), fx)[0].numpy()
    t2 = torch.autograd.grad(tg.sum(), tx)[0].numpy()
    np.testing.assert_allclose(f2, t2, rtol=1e-5, atol=1e-6)


CDIST = [
    (p, rows, mode)
    for p in (0.0, 1.0, 2.0, 3.0, float("inf"))
    for rows in (3, 30)
    for mode in (
        "use_mm_for_euclid_dist_if_necessary",
        "use_mm_for_euclid_dist",
        "donot_use_mm_for_euclid_dist",
    )
]


@pytest.mark.parametrize("p,rows,mode", CDIST)
def test_cdist_second_derivative_refused(p, rows, mode):
    """gg-silent cdist (seeds 34000411, 31000295, 33000227): torch's _cdist_backward has no
    derivative; only its matrix-product path (p = 2, use_mm...) differentiates twice."""
    a = np.random.default_rng(1).standard_normal((rows, 4))
    b = np.random.default_rng(2).standard_normal((5, 4))
    res = []
    for m in (torch, framework):
        x1, x2 = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
        g = m.autograd.grad(m.cdist(x1, x2, p, mode).sum(), x1, create_graph=True)[0]
        assert g.requires_grad
        try:
            res.append([t.numpy() for t in m.autograd.grad(g.pow(2).sum(), [x1, x2])])
        except NotImplementedError as e:
            res.append(str(e))
    th, fw = res
    if isinstance(th, str):
        assert fw == th
    else:
        for t, f in zip(th, fw):
            np.testing.assert_allclose(f, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_cdist_gradcheck_mm(p):
    """cdist's first derivative on every path and the second on the matrix-product one."""
    mode = "use_mm_for_euclid_dist" if p == 2 else "donot_use_mm_for_euclid_dist"
    x = tuple(
        framework.tensor(np.random.default_rng(s).standard_normal(sh), requires_grad=True)
        for s, sh in ((3, (2, 3)), (4, (4, 3)))
    )
    assert framework.autograd.gradcheck(lambda a, b: framework.cdist(a, b, p, mode), x)
    if p == 2:
        gradchecks(lambda m, F, a, b: m.cdist(a, b, compute_mode=mode), [t.detach() for t in x])


EDGES = [0.0, -0.0, 1e-30, -1e-30, 0.004, 0.05, 0.5, 0.95, 1.0, 1.5, -0.2, float("nan"), 0.1]


def _create_graph_pair(fn_t, fn_f, values, dtype):
    """(torch, ours): the create_graph gradient's node name and values and the second
    gradient, for a random upstream on each."""
    rng = np.random.default_rng(5)
    up1, up2 = rng.standard_normal((2, len(values)))
    res = []
    for m, fn in ((torch, fn_t), (framework, fn_f)):
        x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
        u1, u2 = (m.tensor(u, dtype=x.dtype) for u in (up1, up2))
        (g,) = m.autograd.grad(fn(x), x, u1, create_graph=True)
        (g2,) = m.autograd.grad(g, x, u2)
        res.append((g.grad_fn.name(), g.detach().numpy(), g2.numpy()))
    return res


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sinc_second_order_as_torch(dtype):
    """gg-silent sinc (seed 31001297: -1e-30 gave -16.8 where torch's sum of terms rounds to
    0): with create_graph, torch's sinc_backward formula op by op."""
    t, f = _create_graph_pair(torch.sinc, framework.sinc, EDGES, dtype)
    assert t[0] == f[0]
    # NaN positions and zeros exact; at x = 0.004 the quotient cancels (an ulp of sin or cos
    # there is 1e-3 of the float32 value)
    for a, b in zip(t[1:], f[1:]):
        np.testing.assert_allclose(b, a, rtol=2e-3 if dtype == "float32" else 1e-10, atol=0)


@pytest.mark.parametrize("eps", [None, 0.1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logit_second_order_as_torch(dtype, eps):
    """gg-silent logit (seed 31004345: NaN positions): with create_graph, torch's
    infinitely_differentiable_logit_backward (a where on [eps, 1 - eps], zeros or NaN off)."""
    t, f = _create_graph_pair(
        lambda x: torch.logit(x, eps), lambda x: framework.logit(x, eps), EDGES, dtype
    )
    assert t[0] == f[0]
    for a, b in zip(t[1:], f[1:]):
        np.testing.assert_array_equal(b, a)


def _top_nodes(fn, args, up_seed=7):
    """(torch, ours): for each input, the create_graph gradient's node name (None without a
    graph), its values and the second gradient's values for random upstreams."""
    res = []
    for m in (torch, framework):
        xs = [m.tensor(a, requires_grad=True) for a in args]
        out = fn(m, *xs)
        rng = np.random.default_rng(up_seed)
        u = m.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype)
        gs = m.autograd.grad(out, xs, u, create_graph=True)
        names = [g.grad_fn.name() if g.requires_grad else None for g in gs]
        live = [g for g in gs if g.requires_grad]
        ups = [m.tensor(rng.standard_normal(tuple(g.shape)), dtype=g.dtype) for g in live]
        g2 = m.autograd.grad(live, xs, ups, allow_unused=True) if live else []
        res.append(
            (
                names,
                [g.detach().numpy() for g in gs],
                [None if g is None else g.numpy() for g in g2],
            )
        )
    return res


NODE_CASES = {
    # gg-node atan (seeds 34000317, 33000569): torch's grad / (self * self + 1)
    "atan": (lambda m, x: m.atan(x), [np.array([0.3, -2.0, 0.0, np.inf, np.nan, 1e20])]),
    # gg-node xlogy (seeds 34003394, 31000454): xlogy(grad, other).masked_fill(...)
    "xlogy": (
        lambda m, x, y: m.xlogy(x, y),
        [np.array([0.0, 0.0, 1.0, 2.0, -1.0, 3.0]), np.array([0.0, -1.0, 0.0, 2.0, 2.0, 1.0])],
    ),
    "special_xlogy": (
        lambda m, x, y: m.special.xlogy(x, y),
        [np.array([0.0, 0.0, 1.0, 2.0]), np.array([0.0, -1.0, 0.5, 2.0])],
    ),
    "xlogy_scalar_other": (lambda m, y: m.xlogy(2.0, y), [np.array([0.5, 2.0, 0.0])]),
    # gg-node std (seed 33002666): std_backward's masked_fill_, var_backward's order; with
    # N <= correction torch's where of Python floats is float32, cast back (ToCopyBackward0)
    "std_whole_dof0": (lambda m, x: m.std(x, correction=5), [np.array([0.5, -1.0])]),
    "std_empty": (lambda m, x: m.std(x, correction=5), [np.zeros((4, 1, 0, 3))]),
    "std": (lambda m, x: m.std(x), [np.random.default_rng(0).standard_normal((4, 3))]),
    "std_dim": (lambda m, x: m.std(x, 1), [np.random.default_rng(1).standard_normal((4, 3))]),
    "var": (lambda m, x: m.var(x, 0), [np.random.default_rng(2).standard_normal((4, 3))]),
    # gg-node ldexp (seeds 40000805, 40001241): other's gradient grad * result * log(2), the
    # Scalar product last (MulBackward1)
    "ldexp": (
        lambda m, x, e: m.ldexp(x, e),
        [np.array([0.5, -2.0, 3.0]), np.array([1.0, -2.0, 0.5])],
    ),
}


@pytest.mark.parametrize("name", sorted(NODE_CASES))
def test_create_graph_node_as_torch(name):
    """gg-node atan / xlogy / std: the create_graph gradient's node is torch's (its formula's
    last op), values and second-order values as torch's."""
    fn, args = NODE_CASES[name]
    t, f = _top_nodes(fn, args)
    assert f[0] == t[0]
    for a, b in zip(t[1] + t[2], f[1] + f[2]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)
