"""Second-order graphs of losses, normalisations and attention against torch: under
create_graph, each gradient's requires_grad, node name and edges (next_functions), the
second derivatives for a random upstream gradient (one that requires grad too), gradcheck and
gradgradcheck of the new backward nodes, and torch's refusal where its kernel has no
derivative (NotImplemented)."""

import warnings

import numpy as np
import pytest
import torch

import framework

RNG = np.random.default_rng(20261124)


def _arr(shape, kind):
    if kind == "prob":  # inside (0, 1), off its ends
        return RNG.uniform(0.1, 0.9, shape)
    if kind == "pos":
        return RNG.uniform(1.0, 4.0, shape)
    return RNG.standard_normal(shape)


def _specs(specs):
    """Fixed arrays for (shape, kind, requires_grad) specs, shared by both libraries."""
    return [(s, k, rg, _arr(s, k)) for s, k, rg in specs]


def _F(L):
    return L.nn.functional


def _names(fn):
    return None if fn is None else [None if f is None else f.name() for f, _ in fn.next_functions]


def _run(L, fn, specs, up_rg, seed):
    """(per-gradient (requires_grad, node, edges), first-order arrays, second-order arrays)."""
    r = np.random.default_rng(seed)
    xs = [L.tensor(a, requires_grad=rg) for _, _, rg, a in specs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(L, *xs)
    leaves = [x for x in xs if x.requires_grad]
    up = L.tensor(r.standard_normal(tuple(out.shape))).to(out.dtype).requires_grad_(up_rg)
    gs = L.autograd.grad(out, leaves, up, create_graph=True, allow_unused=True)
    nodes = [None if g is None else (g.requires_grad, _node(g), _names(g.grad_fn)) for g in gs]
    first = [None if g is None else g.detach().numpy() for g in gs]
    live = [(g, r.standard_normal(tuple(g.shape))) for g in gs if g is not None and g.requires_grad]
    second = None
    if live:
        total = sum((g * L.tensor(v).to(g.dtype)).sum() for g, v in live)
        wrt = leaves + ([up] if up_rg else [])
        got = L.autograd.grad(total, wrt, create_graph=True, allow_unused=True)
        second = [None if h is None else h.detach().numpy() for h in got]
        nodes.append([None if h is None else (h.requires_grad, _node(h)) for h in got])
    return nodes, first, second


def _node(g):
    return None if g.grad_fn is None else g.grad_fn.name()


# (name, fn(L, *inputs), [(shape, kind, requires_grad)])
_RG = True
CASES = []
for red in ("mean", "sum", "none"):
    CASES += [
        (
            f"mse_{red}",
            lambda L, x, y, red=red: _F(L).mse_loss(x, y, reduction=red),
            [((3, 4), "n", _RG), ((3, 4), "n", _RG)],
        ),
        (
            f"mse_broadcast_{red}",
            lambda L, x, y, red=red: _F(L).mse_loss(x, y, reduction=red),
            [((3, 4), "n", _RG), ((4,), "n", _RG)],
        ),
        (
            f"huber_{red}",
            lambda L, x, y, red=red: _F(L).huber_loss(x, y, reduction=red, delta=0.7),
            [((3, 4), "n", _RG), ((3, 4), "n", _RG)],
        ),
        (
            f"smooth_l1_{red}",
            lambda L, x, y, red=red: _F(L).smooth_l1_loss(x, y, reduction=red, beta=0.5),
            [((3, 4), "n", _RG), ((3, 4), "n", False)],
        ),
        (
            f"soft_margin_{red}",
            lambda L, x, red=red: _F(L).soft_margin_loss(
                x, L.tensor([[1.0, -1, 1, -1]] * 3, dtype=L.float64), reduction=red
            ),
            [((3, 4), "n", _RG)],
        ),
        (
            f"bce_{red}",
            lambda L, x, y, red=red: _F(L).binary_cross_entropy(x, y, reduction=red),
            [((3, 4), "prob", _RG), ((3, 4), "prob", _RG)],
        ),
        (
            f"bce_weight_{red}",
            lambda L, x, y, w, red=red: _F(L).binary_cross_entropy(x, y, w, reduction=red),
            [((3, 4), "prob", _RG), ((3, 4), "prob", False), ((3, 4), "pos", False)],
        ),
        (
            f"bce_logits_pos_weight_{red}",
            lambda L, x, y, red=red: _F(L).binary_cross_entropy_with_logits(
                x, y, reduction=red, pos_weight=L.tensor([1.0, 2, 3, 4], dtype=L.float64)
            ),
            [((3, 4), "n", _RG), ((3, 4), "prob", _RG)],
        ),
        (
            f"nll_{red}",
            lambda L, x, red=red: _F(L).nll_loss(x, L.tensor([0, 2, -100]), reduction=red),
            [((3, 4), "n", _RG)],
        ),
        (
            f"nll_weight_3d_{red}",
            lambda L, x, red=red: _F(L).nll_loss(
                x,
                L.tensor([[0, 2], [1, 1], [3, 3]]),
                weight=L.tensor([1.0, 2, 3, 4], dtype=L.float64),
                reduction=red,
            ),
            [((3, 4, 2), "n", _RG)],
        ),
        (
            f"nll_4d_{red}",
            lambda L, x, red=red: _F(L).nll_loss(
                x, L.tensor([[[0, 2]], [[1, 1]], [[3, 3]]]), reduction=red
            ),
            [((3, 4, 1, 2), "n", _RG)],
        ),
    ]
CASES += [
    (
        "nll_1d",
        lambda L, x: _F(L).nll_loss(x, L.tensor(2)),
        [((4,), "n", _RG)],
    ),
    (
        "layer_norm",
        lambda L, x, w, b: _F(L).layer_norm(x, (5,), w, b),
        [((4, 3, 5), "n", _RG), ((5,), "n", _RG), ((5,), "n", _RG)],
    ),
    (
        "layer_norm_2d_shape",
        lambda L, x, w, b: _F(L).layer_norm(x, (3, 5), w, b),
        [((4, 3, 5), "n", _RG), ((3, 5), "n", _RG), ((3, 5), "n", _RG)],
    ),
    (
        "layer_norm_rows",  # the row kernels' size
        lambda L, x, w, b: _F(L).layer_norm(x, (64,), w, b),
        [((40, 64), "n", _RG), ((64,), "n", _RG), ((64,), "n", _RG)],
    ),
    ("layer_norm_plain", lambda L, x: _F(L).layer_norm(x, (5,)), [((4, 3, 5), "n", _RG)]),
    (
        "layer_norm_bias_only",
        lambda L, x, w, b: _F(L).layer_norm(x, (5,), w, b),
        [((4, 3, 5), "n", False), ((5,), "n", False), ((5,), "n", _RG)],
    ),
    (
        "layer_norm_weight_only",
        lambda L, x, w, b: _F(L).layer_norm(x, (5,), w, b),
        [((4, 3, 5), "n", False), ((5,), "n", _RG), ((5,), "n", False)],
    ),
    (
        "group_norm",
        lambda L, x, w, b: _F(L).group_norm(x, 3, w, b),
        [((4, 6, 5), "n", _RG), ((6,), "n", _RG), ((6,), "n", _RG)],
    ),
    ("group_norm_plain", lambda L, x: _F(L).group_norm(x, 2), [((4, 6, 5), "n", _RG)]),
    (
        "group_norm_empty_batch",
        lambda L, x, w, b: _F(L).group_norm(x, 2, w, b),
        [((0, 4, 3), "n", _RG), ((4,), "n", _RG), ((4,), "n", _RG)],
    ),
    (
        "group_norm_empty_groups",
        lambda L, x, w, b: _F(L).group_norm(x, 2, w, b),
        [((2, 4, 2, 0), "n", _RG), ((4,), "n", _RG), ((4,), "n", _RG)],
    ),
    (
        "instance_norm_affine",
        lambda L, x, w, b: _F(L).instance_norm(x, weight=w, bias=b),
        [((4, 3, 5), "n", _RG), ((3,), "n", _RG), ((3,), "n", _RG)],
    ),
    (
        "repeat",  # instance_norm's weight: torch's repeat_backward order (a view, then a sum)
        lambda L, x: x.repeat(2, 1, 3),
        [((2, 3), "n", _RG)],
    ),
    (
        "group_norm_weight_only",
        lambda L, x, w, b: _F(L).group_norm(x, 3, w, b),
        [((4, 6, 5), "n", False), ((6,), "n", _RG), ((6,), "n", _RG)],
    ),
    ("instance_norm", lambda L, x: _F(L).instance_norm(x), [((4, 3, 5), "n", _RG)]),
    (
        "instance_norm_eval",
        lambda L, x: _F(L).instance_norm(
            x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), use_input_stats=False
        ),
        [((4, 3, 5), "n", _RG)],
    ),
    (
        "sdpa_math_3d",
        lambda L, q, k, v: _F(L).scaled_dot_product_attention(q, k, v),
        [((2, 2, 2), "n", _RG), ((2, 3, 2), "n", _RG), ((2, 3, 1), "n", _RG)],
    ),
]
for training in (True, False):
    CASES += [
        (
            f"batch_norm_training_{training}",
            lambda L, x, w, b, t=training: _F(L).batch_norm(
                x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), w, b, training=t
            ),
            [((4, 3, 5), "n", _RG), ((3,), "n", _RG), ((3,), "n", _RG)],
        ),
        (
            f"batch_norm_input_only_{training}",
            lambda L, x, t=training: _F(L).batch_norm(
                x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), training=t
            ),
            [((4, 3), "n", _RG)],
        ),
        (
            f"batch_norm_weight_only_{training}",
            lambda L, x, w, b, t=training: _F(L).batch_norm(
                x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), w, b, training=t
            ),
            [((4, 3, 2, 2), "n", False), ((3,), "n", _RG), ((3,), "n", False)],
        ),
    ]
CASES.append(
    (
        "batch_norm_no_stats",
        lambda L, x, w, b: _F(L).batch_norm(x, None, None, w, b, training=True),
        [((4, 3), "n", _RG), ((3,), "n", _RG), ((3,), "n", _RG)],
    )
)


def _close(got, want):
    if want is None or got is None:  # torch's undefined gradient: ours None, or zeros
        other = want if got is None else got
        return other is None or not np.any(other)
    return got.shape == want.shape and np.allclose(got, want, rtol=1e-7, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("up_rg", [False, True], ids=["upstream", "upstream_rg"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_second_order_matches_torch(case, up_rg):
    """requires_grad, node names and edges of the create_graph gradients, their values, and
    the second derivatives (of the inputs, and of the upstream when it requires grad) with
    their requires_grad and node names."""
    _, fn, specs = case
    specs = _specs(specs)
    t_nodes, t_first, t_second = _run(torch, fn, specs, up_rg, 5)
    f_nodes, f_first, f_second = _run(framework, fn, specs, up_rg, 5)
    assert f_nodes == t_nodes
    assert all(_close(f, t) for f, t in zip(f_first, t_first))
    assert (f_second is None) == (t_second is None)
    if t_second is not None:
        assert len(f_second) == len(t_second)
        for f, t in zip(f_second, t_second):
            assert _close(f, t), (f, t)


def _plain_first(fn, specs):
    xs = [framework.tensor(a, requires_grad=rg) for _, _, rg, a in specs]
    out = fn(framework, *xs)
    up = framework.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)))
    leaves = [x for x in xs if x.requires_grad]
    plain = framework.autograd.grad(out, leaves, up, retain_graph=True)
    graph = framework.autograd.grad(out, leaves, up, create_graph=True)
    return plain, graph


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if not c[0].startswith(("sdpa", "instance", "bce_logits", "group"))],
    ids=lambda c: c[0],
)
def test_create_graph_first_gradient_is_the_plain_one(case):
    """The new nodes' outputs are the plain backward's kernels: the same bits."""
    _, fn, specs = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain, graph = _plain_first(fn, _specs(specs))
    for p, g in zip(plain, graph):
        assert np.array_equal(p.numpy(), g.detach().numpy(), equal_nan=True)


GRADGRAD = {
    "mse": (lambda x, y: _F(framework).mse_loss(x, y), [(3, 4), (3, 4)]),
    "huber": (lambda x, y: _F(framework).huber_loss(x, y, delta=0.6), [(3, 4), (3, 4)]),
    "smooth_l1": (
        lambda x, y: _F(framework).smooth_l1_loss(x, y, beta=0.6, reduction="sum"),
        [(3, 4), (3, 4)],
    ),
    "soft_margin": (
        lambda x: _F(framework).soft_margin_loss(
            x, framework.tensor([1.0, -1, 1], dtype=framework.float64), reduction="none"
        ),
        [(3,)],
    ),
    "bce": (
        lambda x, y: _F(framework).binary_cross_entropy(x.sigmoid(), y.sigmoid()),
        [(3, 4), (3, 4)],
    ),
    "nll": (
        lambda x: _F(framework).nll_loss(x, framework.tensor([0, 2, 1]), reduction="sum"),
        [(3, 4)],
    ),
    "nll_2d": (
        lambda x: _F(framework).nll_loss(x, framework.tensor([[0, 2], [1, 1]]), reduction="none"),
        [(2, 3, 2)],
    ),
    "layer_norm": (lambda x, w, b: _F(framework).layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
    "group_norm": (
        lambda x, w, b: _F(framework).group_norm(x, 2, w, b),
        [(3, 4, 2), (4,), (4,)],
    ),
    "batch_norm": (
        lambda x, w, b: _F(framework).batch_norm(x, None, None, w, b, training=True),
        [(3, 4), (4,), (4,)],
    ),
    "batch_norm_eval": (
        lambda x, w, b: _F(framework).batch_norm(
            x,
            framework.zeros(4, dtype=framework.float64),
            framework.ones(4, dtype=framework.float64),
            w,
            b,
        ),
        [(3, 4), (4,), (4,)],
    ),
}


@pytest.mark.parametrize("name", sorted(GRADGRAD))
def test_gradcheck_and_gradgradcheck(name):
    """float64 gradcheck and gradgradcheck through the new backward nodes (their backward is
    the double backward; gradgradcheck's own backward goes a third order down)."""
    fn, shapes = GRADGRAD[name]
    xs = [framework.tensor(RNG.standard_normal(s), requires_grad=True) for s in shapes]
    assert framework.autograd.gradcheck(fn, xs)
    assert framework.autograd.gradgradcheck(fn, xs)


NOT_IMPLEMENTED = [
    ("multi_margin_loss", lambda L, x: _F(L).multi_margin_loss(x, L.tensor([0, 2, 1])), [(3, 4)]),
    (
        "multi_margin_loss_p2",
        lambda L, x: _F(L).multi_margin_loss(x, L.tensor([0, 2, 1]), p=2, reduction="none"),
        [(3, 4)],
    ),
    (
        "multilabel_margin_loss",
        lambda L, x: _F(L).multilabel_margin_loss(x, L.tensor([[0, 1, -1, 0]] * 3)),
        [(3, 4)],
    ),
    (
        "ctc_loss",
        lambda L, x: _F(L).ctc_loss(
            x, L.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], reduction="none"
        ),
        [(5, 2, 4)],
    ),
    (
        "ctc_loss_unbatched",
        lambda L, x: _F(L).ctc_loss(x, L.tensor([1, 2]), [5], [2], reduction="sum"),
        [(5, 4)],
    ),
    (
        "sdpa_flash",
        lambda L, q, k, v: _F(L).scaled_dot_product_attention(q, k, v, is_causal=True),
        [(1, 3, 2, 4), (1, 3, 3, 4), (1, 3, 3, 4)],
    ),
    (
        "sdpa_flash_query_only",
        lambda L, q, k, v: _F(L).scaled_dot_product_attention(q, k.detach(), v.detach()),
        [(1, 3, 2, 4), (1, 3, 3, 4), (1, 3, 3, 4)],
    ),
]


@pytest.mark.parametrize("up_rg", [False, True], ids=["upstream", "upstream_rg"])
@pytest.mark.parametrize("case", NOT_IMPLEMENTED, ids=[c[0] for c in NOT_IMPLEMENTED])
def test_not_implemented_double_backward(case, up_rg):
    """torch's NotImplemented node: edges only to what requires grad (the forward's output
    too for ctc and attention), the first gradients' values, and the second backward's
    error in torch's words."""
    name, fn, shapes = case
    arrays = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    if name.startswith("ctc"):  # log-probabilities over the last dim
        arrays = [np.log(RNG.dirichlet(np.ones(s[-1]), s[:-1])).astype(np.float32) for s in shapes]
    seen = []
    for L in (torch, framework):
        xs = [L.tensor(a, requires_grad=True) for a in arrays]
        out = fn(L, *xs)
        up = L.ones_like(out).requires_grad_(up_rg)
        gs = L.autograd.grad(out, xs, up, create_graph=True, allow_unused=True)
        nodes = [
            None if g is None else (g.requires_grad, type(g.grad_fn).__name__, _names(g.grad_fn))
            for g in gs
        ]
        with pytest.raises(RuntimeError) as e:
            L.autograd.grad(gs[0].sum(), xs, allow_unused=True)
        seen.append((nodes, [None if g is None else g.detach().numpy() for g in gs], str(e.value)))
    (t_nodes, t_vals, t_err), (f_nodes, f_vals, f_err) = seen
    assert f_nodes == t_nodes
    assert f_err == t_err
    for f, t in zip(f_vals, t_vals):
        if t is not None:
            np.testing.assert_allclose(f, t, rtol=1e-5, atol=1e-6)


CROSS_ENTROPY = []
for red in ("mean", "sum", "none"):
    CROSS_ENTROPY += [
        (
            f"fast_path_{red}",  # (N, C) class indices: _loss_fast's nodes for 'mean'
            lambda L, x, red=red: _F(L).cross_entropy(x, L.tensor([0, 2, 1]), reduction=red),
            [((3, 4), "n", _RG)],
        ),
        (
            f"smoothing_ignore_weight_{red}",
            lambda L, x, red=red: _F(L).cross_entropy(
                x,
                L.tensor([0, -100, 1]),
                weight=L.tensor([1.0, 2, 3, 4], dtype=L.float64),
                reduction=red,
                label_smoothing=0.2,
            ),
            [((3, 4), "n", _RG)],
        ),
        (
            f"smoothing_spatial_{red}",
            lambda L, x, red=red: _F(L).cross_entropy(
                x, L.tensor([[0, 2], [1, 1], [3, 3]]), reduction=red, label_smoothing=0.1
            ),
            [((3, 4, 2), "n", _RG)],
        ),
        (
            f"probabilities_weight_smoothing_{red}",
            lambda L, x, y, red=red: _F(L).cross_entropy(
                x,
                y,
                weight=L.tensor([1.0, 2, 3, 4], dtype=L.float64),
                reduction=red,
                label_smoothing=0.3,
            ),
            [((3, 4), "n", _RG), ((3, 4), "prob", _RG)],
        ),
    ]
CROSS_ENTROPY.append(
    (
        "smoothing_unbatched",
        lambda L, x: _F(L).cross_entropy(x, L.tensor(2), label_smoothing=0.1),
        [((4,), "n", _RG)],
    )
)


@pytest.mark.parametrize("up_rg", [False, True], ids=["upstream", "upstream_rg"])
@pytest.mark.parametrize("case", CROSS_ENTROPY, ids=[c[0] for c in CROSS_ENTROPY])
def test_cross_entropy_second_order(case, up_rg):
    """cross_entropy under create_graph is torch's composition (log_softmax, then nll_loss,
    smoothing or the probabilities' product): requires_grad, the second derivatives, and the
    node feeding log_softmax's backward (the nll node, AddBackward0, MulBackward0) as
    torch's; the target's gradient node and edges too. (log_softmax's own backward node is
    activation code's.)"""
    _, fn, specs = case
    specs = _specs(specs)
    t_nodes, t_first, t_second = _run(torch, fn, specs, up_rg, 9)
    f_nodes, f_first, f_second = _run(framework, fn, specs, up_rg, 9)
    n = len(specs) - sum(not s[2] for s in specs)  # the first-order gradients' entries
    assert [g[0] for g in f_nodes[:n]] == [g[0] for g in t_nodes[:n]]
    assert f_nodes[0][2][0] == t_nodes[0][2][0]
    assert f_nodes[1:n] == t_nodes[1:n]
    assert all(_close(f, t) for f, t in zip(f_first, t_first))
    assert len(f_second) == len(t_second)
    for f, t in zip(f_second, t_second):
        assert _close(f, t), (f, t)


FORWARD_OVER_REVERSE = {
    "layer_norm_no_affine": (lambda L, x: _F(L).layer_norm(x, (3,)), [(2, 3)]),
    "layer_norm_weight_only": (
        lambda L, x, w: _F(L).layer_norm(x, (3,), w),
        [(2, 3), (3,)],
    ),
    "batch_norm_weight_only": (
        lambda L, x, w: _F(L).batch_norm(x, None, None, w, training=True),
        [(4, 3), (3,)],
    ),
    "batch_norm_eval": (
        lambda L, x, w, b: _F(L).batch_norm(
            x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), w, b
        ),
        [(4, 3), (3,), (3,)],
    ),
    "group_norm": (lambda L, x, w, b: _F(L).group_norm(x, 2, w, b), [(3, 4, 2), (4,), (4,)]),
    "mse": (lambda L, x, y: _F(L).mse_loss(x, y), [(3, 4), (3, 4)]),
    "smooth_l1": (lambda L, x, y: _F(L).smooth_l1_loss(x, y, beta=0.7), [(3, 4), (3, 4)]),
    "bce": (
        lambda L, x, y: _F(L).binary_cross_entropy(x.sigmoid(), y.sigmoid(), reduction="sum"),
        [(3, 4), (3, 4)],
    ),
    "nll": (lambda L, x: _F(L).nll_loss(x, L.tensor([0, 2, 1])), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(FORWARD_OVER_REVERSE))
def test_forward_over_reverse_matches_torch(name):
    """The tangents of the create_graph gradients (every input dual) are torch's, None where
    torch's are; and ours pass gradgradcheck's forward-over-reverse check."""
    fn, shapes = FORWARD_OVER_REVERSE[name]
    arrays = [RNG.standard_normal(s) for s in shapes]
    tangents = [RNG.standard_normal(s) for s in shapes]
    up = None
    seen = []
    for L in (torch, framework):
        fwd = L.autograd.forward_ad
        with fwd.dual_level():
            xs = [
                fwd.make_dual(L.tensor(a, requires_grad=True), L.tensor(t))
                for a, t in zip(arrays, tangents)
            ]
            out = fn(L, *xs)
            if up is None:
                up = RNG.standard_normal(tuple(out.shape))
            gs = L.autograd.grad(out, xs, L.tensor(up), create_graph=True, allow_unused=True)
            seen.append([None if g is None else fwd.unpack_dual(g).tangent for g in gs])
    for f, t in zip(*seen):
        assert (f is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=1e-7, atol=1e-9)
    xs = [framework.tensor(a, requires_grad=True) for a in arrays]
    assert framework.autograd.gradgradcheck(
        lambda *t: fn(framework, *t), xs, check_fwd_over_rev=True
    )
