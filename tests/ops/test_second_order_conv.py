"""Second-order graphs of convolution, pooling and sampling ops against torch: the gradient
taken with create_graph=True has torch's requires_grad, node name (ConvolutionBackward-
Backward0, AvgPool2DBackwardBackward0, MaxPool3DWithIndicesBackwardBackward0, ...) and edges,
and its own gradient for a random upstream has torch's values (None where torch's is None),
for every combination of inputs that require grad. The new backward ops get gradcheck and
gradgradcheck in float64, and forward-over-reverse is compared with torch."""

import itertools
import zlib

import numpy as np
import pytest
import torch

import framework


def _F(L):
    return L.nn.functional


def _samples(L, x, k, **kw):
    """grid_sample's grid as a second input."""
    return _F(L).grid_sample(x, k, align_corners=False, **kw)


# name -> (fn(L, *tensors), input shapes); inputs after the first are floating too
CASES = {
    "conv1d": (
        lambda L, x, w, b: _F(L).conv1d(x, w, b, stride=2, padding=1),
        [(2, 3, 7), (4, 3, 3), (4,)],
    ),
    "conv2d": (
        lambda L, x, w, b: _F(L).conv2d(x, w, b, padding=1),
        [(2, 3, 5, 5), (4, 3, 3, 3), (4,)],
    ),
    "conv2d_groups": (
        lambda L, x, w: _F(L).conv2d(x, w, stride=(2, 1), dilation=(1, 2), groups=2),
        [(2, 4, 6, 6), (6, 2, 2, 2)],
    ),
    "conv2d_unbatched": (lambda L, x, w: _F(L).conv2d(x, w), [(3, 4, 4), (2, 3, 2, 2)]),
    "conv3d": (
        lambda L, x, w, b: _F(L).conv3d(x, w, b, padding=1),
        [(2, 3, 3, 4, 3), (4, 3, 2, 2, 2), (4,)],
    ),
    "conv3d_same": (
        lambda L, x, w: _F(L).conv3d(x, w, padding="same"),
        [(1, 2, 3, 3, 3), (2, 2, 2, 3, 2)],
    ),
    "conv_transpose1d": (
        lambda L, x, w, b: _F(L).conv_transpose1d(x, w, b, stride=2, output_padding=1),
        [(2, 3, 5), (3, 4, 3), (4,)],
    ),
    "conv_transpose2d": (
        lambda L, x, w, b: _F(L).conv_transpose2d(x, w, b, stride=2, padding=1, groups=3),
        [(2, 3, 4, 4), (3, 2, 3, 3), (6,)],
    ),
    "conv_transpose3d": (
        lambda L, x, w, b: _F(L).conv_transpose3d(x, w, b, stride=(1, 2, 1)),
        [(2, 3, 2, 3, 2), (3, 4, 2, 2, 2), (4,)],
    ),
    "avg_pool1d": (lambda L, x: _F(L).avg_pool1d(x, 3, 2, 1), [(2, 3, 7)]),
    "avg_pool2d": (lambda L, x: _F(L).avg_pool2d(x, 2), [(2, 3, 4, 6)]),
    "avg_pool2d_pad": (
        lambda L, x: _F(L).avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        [(2, 3, 5, 5)],
    ),
    "avg_pool3d": (lambda L, x: _F(L).avg_pool3d(x, 2, 1, 1), [(2, 2, 3, 4, 3)]),
    "max_pool1d": (lambda L, x: _F(L).max_pool1d(x, 3, 2, 1), [(2, 3, 7)]),
    "max_pool2d": (lambda L, x: _F(L).max_pool2d(x, 3, 2, 1), [(2, 3, 5, 5)]),
    "max_pool2d_disjoint": (lambda L, x: _F(L).max_pool2d(x, 2), [(3, 4, 6)]),
    "max_pool3d": (lambda L, x: _F(L).max_pool3d(x, 2, 1), [(2, 2, 3, 4, 3)]),
    "adaptive_avg_pool1d": (lambda L, x: _F(L).adaptive_avg_pool1d(x, 3), [(2, 3, 7)]),
    "adaptive_avg_pool2d": (lambda L, x: _F(L).adaptive_avg_pool2d(x, (3, 2)), [(2, 3, 7, 5)]),
    "adaptive_avg_pool3d": (lambda L, x: _F(L).adaptive_avg_pool3d(x, 2), [(2, 2, 3, 5, 4)]),
    "adaptive_max_pool1d": (lambda L, x: _F(L).adaptive_max_pool1d(x, 3), [(2, 3, 7)]),
    "adaptive_max_pool2d": (lambda L, x: _F(L).adaptive_max_pool2d(x, (3, 2)), [(2, 3, 7, 5)]),
    "adaptive_max_pool3d": (lambda L, x: _F(L).adaptive_max_pool3d(x, 2), [(2, 2, 3, 5, 4)]),
    "max_unpool2d": (
        lambda L, x: _F(L).max_unpool2d(*_F(L).max_pool2d(x, 2, return_indices=True), 2),
        [(2, 3, 4, 4)],
    ),
    "max_unpool3d": (
        lambda L, x: _F(L).max_unpool3d(*_F(L).max_pool3d(x, 2, return_indices=True), 2),
        [(1, 2, 4, 4, 2)],
    ),
    "interpolate_area": (
        lambda L, x: _F(L).interpolate(x, size=(2, 3), mode="area"),
        [(2, 3, 5, 7)],
    ),
    "interpolate_bilinear": (
        lambda L, x: _F(L).interpolate(x, scale_factor=2, mode="bilinear"),
        [(2, 3, 3, 3)],
    ),
    "grid_sample": (lambda L, x, k: _samples(L, x, k), [(2, 3, 4, 5), (2, 3, 2, 2)]),
    "grid_sample_nearest": (
        lambda L, x, k: _samples(L, x, k, mode="nearest"),
        [(2, 3, 4, 5), (2, 3, 2, 2)],
    ),
    "grid_sample_bicubic_border": (
        lambda L, x, k: _samples(L, x, k, mode="bicubic", padding_mode="border"),
        [(2, 3, 4, 5), (2, 3, 2, 2)],
    ),
    "grid_sample_3d_reflection": (
        lambda L, x, k: _samples(L, x, k, padding_mode="reflection"),
        [(1, 2, 3, 4, 3), (1, 2, 2, 2, 3)],
    ),
    "cdist": (lambda L, a, b: L.cdist(a, b), [(2, 4, 3), (2, 5, 3)]),
    "cdist_p1": (lambda L, a, b: L.cdist(a, b, p=1.0), [(4, 3), (5, 3)]),
    "cdist_p3": (lambda L, a, b: L.cdist(a, b, p=3.0), [(4, 3), (5, 3)]),
    "cdist_inf": (lambda L, a, b: L.cdist(a, b, p=float("inf")), [(4, 3), (5, 3)]),
}

# torch refuses cdist's double backward on its direct path (small inputs), and so does ours;
# its matrix-product path (p = 2, use_mm...) is differentiated twice (gradgradcheck in
# test_second_order_fix.py)
NO_TORCH_SECOND = ("cdist",)


def _arrays(name):
    r = np.random.default_rng(zlib.crc32(name.encode()))
    arrays = [r.standard_normal(s) for s in CASES[name][1]]
    if name.startswith("grid_sample"):
        arrays[1] = r.uniform(-1.2, 1.2, CASES[name][1][1])  # some taps off the input
    return arrays


def _combos(n):
    return [c for c in itertools.product((False, True), repeat=n) if any(c)]


def _edges(fn):
    return (
        None if fn is None else [(None if f is None else f.name(), i) for f, i in fn.next_functions]
    )


def _first(L, name, rg, upstream_rg=False):
    """The create_graph gradients of the op's output for one requires-grad combination."""
    fn = CASES[name][0]
    leaves = [L.tensor(a, requires_grad=r) for a, r in zip(_arrays(name), rg)]
    out = fn(L, *leaves)
    up = L.tensor(
        np.random.default_rng(1).standard_normal(tuple(out.shape)), requires_grad=upstream_rg
    )
    wrt = [t for t in leaves if t.requires_grad] + ([up] if upstream_rg else [])
    gs = L.autograd.grad(out, wrt, up, create_graph=True, allow_unused=True)
    return gs, wrt


def _second(L, gs, wrt):
    outs = [g for g in gs if g is not None and g.requires_grad]
    ups = [
        L.tensor(np.random.default_rng(2 + i).standard_normal(tuple(o.shape)))
        for i, o in enumerate(outs)
    ]
    got = L.autograd.grad(outs, wrt, ups, allow_unused=True)
    return [None if t is None else t.detach().numpy() for t in got]


PARAMS = [(n, c) for n in CASES for c in _combos(len(CASES[n][1]))]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize(
    "name,rg", PARAMS, ids=[f"{n}-{''.join('01'[b] for b in c)}" for n, c in PARAMS]
)
def test_second_order_graph_matches_torch(name, rg):
    ours, ours_wrt = _first(framework, name, rg)
    theirs, their_wrt = _first(torch, name, rg)
    for g, t in zip(ours, theirs):
        assert (g is None) == (t is None)
        if t is None:
            continue
        np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
        assert g.requires_grad == t.requires_grad, name
        if t.grad_fn is not None:
            assert g.grad_fn.name() == t.grad_fn.name()
            assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__
            edges, want = _edges(g.grad_fn), _edges(t.grad_fn)
            if not name.startswith("cdist"):  # torch's x2 edge is result.mT().contiguous()
                assert edges == want
            else:
                assert [e is None for e, _ in edges] == [e is None for e, _ in want]
    if name.startswith(NO_TORCH_SECOND):  # ours raises as torch (test_second_order_fix.py)
        for L, outs, wrt in ((torch, theirs, their_wrt), (framework, ours, ours_wrt)):
            with pytest.raises(NotImplementedError, match="'_cdist_backward' is not"):
                _second(L, outs, wrt)
        return
    got, want = _second(framework, ours, ours_wrt), _second(torch, theirs, their_wrt)
    for g, t in zip(got, want):
        assert (g is None) == (t is None), name
        if t is not None:
            np.testing.assert_allclose(g, t, rtol=1e-9, atol=1e-10)


CONVS = ["conv1d", "conv2d", "conv3d", "conv_transpose2d", "conv_transpose3d"]


@pytest.mark.parametrize("name", CONVS)
def test_conv_upstream_edge_and_third_order_match_torch(name):
    """With an upstream gradient that requires grad, the node has its grad_output edge, and the
    third-order gradients (through _convolution_double_backward's maps) agree."""
    rg = (True, True, True)
    res = []
    for L in (framework, torch):
        gs, wrt = _first(L, name, rg, upstream_rg=True)
        assert _edges(gs[0].grad_fn)[0][0] is not None
        r = np.random.default_rng(5)
        s = sum((g * L.tensor(r.standard_normal(tuple(g.shape)))).sum() for g in gs[:3])
        h = L.autograd.grad(s, wrt, create_graph=True, allow_unused=True)
        names = [None if t is None else t.requires_grad for t in h]
        res.append(([None if t is None else t.detach().numpy() for t in h], names))
    (got, got_rg), (want, want_rg) = res
    assert got_rg == want_rg
    for g, t in zip(got, want):
        assert (g is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(g, t, rtol=1e-9, atol=1e-10)


GRADCHECK = [
    "conv1d",
    "conv2d_groups",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose3d",
    "avg_pool2d_pad",
    "avg_pool3d",
    "max_pool2d",
    "max_pool3d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "grid_sample",
    "grid_sample_bicubic_border",
    "grid_sample_3d_reflection",
]  # cdist: gradcheck, and gradgradcheck of its matrix-product path: test_second_order_fix.py


@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck_and_gradgradcheck(name):
    """The new backward ops (ConvolutionBackward, the pooling backward ops with `self`,
    GridSampler2DBackward/3D, CdistBackward) against finite differences, for each input alone
    and all together."""
    fn, shapes = CASES[name]
    arrays = _arrays(name)
    for rg in [tuple(i == j for j in range(len(shapes))) for i in range(len(shapes))] + [
        (True,) * len(shapes)
    ]:
        ins = [framework.tensor(a, requires_grad=r) for a, r in zip(arrays, rg)]
        wrt = [i for i, r in zip(ins, rg) if r]

        def f(*ts, ins=ins, rg=rg):
            it = iter(ts)
            return fn(framework, *[next(it) if r else t for t, r in zip(ins, rg)])

        assert framework.autograd.gradcheck(f, wrt)
        assert framework.autograd.gradgradcheck(f, wrt)


def _fwd(L):
    return L.autograd.forward_ad


@pytest.mark.parametrize(
    "name,rg",
    [
        (n, c)
        for n in ("conv2d", "conv_transpose3d", "avg_pool2d", "adaptive_avg_pool3d", "max_pool3d")
        for c in _combos(len(CASES[n][1]))
    ],
)
def test_forward_over_reverse_matches_torch(name, rg):
    """The tangent of the create_graph gradients (a tangent on each input that requires
    grad): the jvp rules of the backward nodes, None exactly where torch's is None."""
    res = []
    for L in (framework, torch):
        fn = CASES[name][0]
        arrays = _arrays(name)
        r = np.random.default_rng(3)
        with _fwd(L).dual_level():
            ins = []
            for a, need in zip(arrays, rg):
                t = L.tensor(a, requires_grad=need)
                if need:
                    t = _fwd(L).make_dual(t, L.tensor(r.standard_normal(a.shape)))
                ins.append(t)
            out = fn(L, *ins)
            up = L.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))
            wrt = [t for t in ins if t.requires_grad]
            gs = L.autograd.grad(out, wrt, up, create_graph=True, allow_unused=True)
            tans = [None if g is None else _fwd(L).unpack_dual(g).tangent for g in gs]
        res.append([None if t is None else t.detach().numpy() for t in tans])
    for g, t in zip(*res):
        assert (g is None) == (t is None), name
        if t is not None:
            np.testing.assert_allclose(g, t, rtol=1e-9, atol=1e-10)


def test_first_order_without_graph_is_unchanged():
    """Without create_graph the kernels run on the arrays: the gradients need no graph and
    equal the create_graph ones."""
    for name in (
        "conv2d",
        "conv3d",
        "avg_pool3d",
        "max_pool2d",
        "adaptive_avg_pool2d",
        "grid_sample",
        "cdist",
    ):
        fn = CASES[name][0]
        ins = [framework.tensor(a, requires_grad=True) for a in _arrays(name)]
        out = fn(framework, *ins)
        up = framework.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))
        plain = framework.autograd.grad(out, ins, up, retain_graph=True)
        graph = framework.autograd.grad(out, ins, up, create_graph=True)
        for p, g in zip(plain, graph):
            assert not p.requires_grad and g.requires_grad
            np.testing.assert_array_equal(p.numpy(), g.detach().numpy())


EMPTY = {
    "conv2d": (lambda L, x, w, b: _F(L).conv2d(x, w, b), [(0, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    "conv1d": (lambda L, x, w, b: _F(L).conv1d(x, w, b), [(0, 3, 5), (4, 3, 3), (4,)]),
    "conv3d": (lambda L, x, w, b: _F(L).conv3d(x, w, b), [(0, 3, 3, 3, 3), (4, 3, 2, 2, 2), (4,)]),
    "conv_transpose2d": (
        lambda L, x, w, b: _F(L).conv_transpose2d(x, w, b),
        [(0, 3, 5, 5), (3, 4, 3, 3), (4,)],
    ),
    "conv_transpose3d": (
        lambda L, x, w, b: _F(L).conv_transpose3d(x, w, b),
        [(0, 3, 3, 3, 3), (3, 4, 2, 2, 2), (4,)],
    ),
    "max_pool2d": (lambda L, x: _F(L).max_pool2d(x, 2), [(0, 3, 4, 4)]),
    "max_pool2d_pad": (lambda L, x: _F(L).max_pool2d(x, 3, 1, 1), [(0, 3, 4, 4)]),
    "adaptive_max_pool2d": (lambda L, x: _F(L).adaptive_max_pool2d(x, 3), [(0, 3, 4, 4)]),
    "adaptive_max_pool3d": (lambda L, x: _F(L).adaptive_max_pool3d(x, 3), [(0, 2, 4, 4, 4)]),
    "max_unpool2d": (
        lambda L, x: _F(L).max_unpool2d(*_F(L).max_pool2d(x, 2, return_indices=True), 2),
        [(0, 3, 4, 4)],
    ),
    "grid_sample": (lambda L, x, k: _samples(L, x, k), [(0, 3, 4, 4), (0, 2, 2, 2)]),
    "grid_sample_3d": (lambda L, x, k: _samples(L, x, k), [(0, 3, 4, 4, 4), (0, 2, 2, 2, 3)]),
}


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_empty_batch_first_and_second_order(name):
    """An empty batch: the weight's gradient is zeros (the columns' reshape no longer infers a
    size from 0 elements), and the create_graph gradients are torch's nodes."""
    fn, shapes = EMPTY[name]
    res = []
    for L in (framework, torch):
        ins = [L.ones(*s, requires_grad=True) for s in shapes]
        y = fn(L, *ins)
        up = L.ones(tuple(y.shape))
        plain = L.autograd.grad(y, ins, up, retain_graph=True)
        graph = L.autograd.grad(y, ins, up, create_graph=True)
        second = L.autograd.grad(
            graph, ins, [L.ones(tuple(g.shape)) for g in graph], allow_unused=True
        )
        res.append(
            (
                [(tuple(g.shape), g.numpy().sum()) for g in plain],
                [(g.requires_grad, g.grad_fn.name()) for g in graph],
                [None if g is None else tuple(g.shape) for g in second],
            )
        )
    assert res[0] == res[1]


THIRD = {
    "max_pool2d": (lambda L, x: _F(L).max_pool2d(x, 2), (2, 3, 4, 4)),
    "max_pool1d": (lambda L, x: _F(L).max_pool1d(x, 3, 2, 1), (2, 3, 7)),
    "avg_pool2d": (lambda L, x: _F(L).avg_pool2d(x, 2), (2, 3, 4, 4)),
    "adaptive_avg_pool2d": (lambda L, x: _F(L).adaptive_avg_pool2d(x, 3), (2, 3, 5, 5)),
    "adaptive_max_pool2d": (lambda L, x: _F(L).adaptive_max_pool2d(x, 3), (2, 3, 5, 5)),
    "max_pool3d": (lambda L, x: _F(L).max_pool3d(x, 2), (2, 3, 4, 4, 4)),
    "avg_pool3d": (lambda L, x: _F(L).avg_pool3d(x, 2), (2, 3, 4, 4, 4)),
    "adaptive_avg_pool3d": (lambda L, x: _F(L).adaptive_avg_pool3d(x, 3), (2, 3, 5, 5, 5)),
    "adaptive_max_pool3d": (lambda L, x: _F(L).adaptive_max_pool3d(x, 3), (2, 3, 5, 5, 5)),
}


@pytest.mark.parametrize("name", sorted(THIRD))
def test_pooling_double_backward_nodes_match_torch(name):
    """The derivative of a pooling backward in grad_output (an upstream that requires grad):
    the pooling again (AvgPool2DBackward0, ...) or torch's max_pool_double_backward (a view ->
    gather -> view), with torch's values; zeros in the input."""
    fn, shape = THIRD[name]
    res = []
    for L in (framework, torch):
        r = np.random.default_rng(0)
        x = L.tensor(r.standard_normal(shape), requires_grad=True)
        y = fn(L, x)
        up = L.tensor(r.standard_normal(tuple(y.shape)), requires_grad=True)
        (g,) = L.autograd.grad(y, x, up, create_graph=True)
        v = L.tensor(r.standard_normal(shape))
        h = L.autograd.grad(g, (up, x), v, create_graph=True)
        res.append(
            (
                [(t.requires_grad, None if t.grad_fn is None else t.grad_fn.name()) for t in h],
                [t.detach().numpy() for t in h],
            )
        )
    (nodes, got), (want_nodes, want) = res
    assert nodes == want_nodes
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


def test_max_unpool_gradient_of_an_upstream_that_requires_grad():
    """max_unpool2d's input gradient is torch's max_pool_double_backward (ViewBackward0) when
    the upstream gradient requires grad."""
    res = []
    for L in (framework, torch):
        r = np.random.default_rng(0)
        y, idx = _F(L).max_pool2d(L.tensor(r.standard_normal((2, 3, 4, 4))), 2, return_indices=True)
        v = y.detach().requires_grad_()
        u = _F(L).max_unpool2d(v, idx, 2)
        up = L.tensor(r.standard_normal(tuple(u.shape)), requires_grad=True)
        (g,) = L.autograd.grad(u, v, up, create_graph=True)
        (h,) = L.autograd.grad(g, up, L.tensor(r.standard_normal(tuple(g.shape))))
        res.append((g.grad_fn.name(), g.detach().numpy(), h.numpy()))
    assert res[0][0] == res[1][0]
    for a, b in zip(res[0][1:], res[1][1:]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "name,size",
    [
        ("avg_pool2d", 2),
        ("adaptive_avg_pool2d", 3),
        ("avg_pool3d", 2),
        ("adaptive_avg_pool3d", 3),
        ("adaptive_max_pool2d", 3),
        ("max_pool3d", 2),
    ],
)
def test_pooling_keeps_its_input_as_torch(name, size):
    """The forward node keeps `self` (its backward op takes it), so modifying the input in
    place before backward raises torch's error (it passed silently before)."""
    msgs = []
    for L in (framework, torch):
        shape = (2, 3, 4, 4, 4) if "3d" in name else (2, 3, 5, 5)
        h = L.ones(*shape, requires_grad=True) * 1
        y = getattr(_F(L), name)(h, size)
        h.add_(1)
        with pytest.raises(RuntimeError) as err:
            y.sum().backward()
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]


SAVED = [
    ("conv1d", (2, 3, 7), (4, 3, 3), dict(stride=2, padding=1)),
    (
        "conv2d",
        (2, 4, 6, 6),
        (6, 2, 2, 2),
        dict(stride=(2, 1), dilation=(1, 2), groups=2, padding=(1, 0)),
    ),
    (
        "conv_transpose1d",
        (2, 3, 4),
        (3, 2, 3),
        dict(stride=3, padding=1, output_padding=2, dilation=2),
    ),
    ("conv_transpose2d", (2, 3, 4, 4), (3, 2, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), dict(padding=1, stride=(1, 2, 1))),
    (
        "conv_transpose3d",
        (1, 2, 3, 3, 3),
        (2, 2, 2, 2, 2),
        dict(padding=1, stride=(1, 2, 1), output_padding=(0, 1, 0)),
    ),
]


@pytest.mark.parametrize("name,xs,ws,kw", SAVED, ids=[c[0] for c in SAVED])
def test_convolution_backward_saved_fields_match_torch(name, xs, ws, kw):
    """ConvolutionBackwardBackward0's `_saved_*` (torchviz's show_saved): the tensors and the
    geometry torch keeps (output_padding of a transposed convolution recovered from the sizes);
    the tensors raise torch's error once backward freed them."""
    res = []
    for L in (framework, torch):
        r = np.random.default_rng(0)
        x = L.tensor(r.standard_normal(xs), requires_grad=True)
        w = L.tensor(r.standard_normal(ws), requires_grad=True)
        y = getattr(_F(L), name)(x, w, **kw)
        g, _ = L.autograd.grad(y, (x, w), L.ones(tuple(y.shape)), create_graph=True)
        node = g.grad_fn
        names = sorted(a for a in dir(node) if a.startswith("_saved_"))
        fields = {a: getattr(node, a) for a in names}
        fields = {
            a: v.detach().numpy() if isinstance(v, L.Tensor) else v for a, v in fields.items()
        }
        g.sum().backward()
        with pytest.raises(RuntimeError, match="freed"):
            node._saved_input
        res.append((names, fields, node._saved_stride))
    (names, got, stride), (want_names, want, want_stride) = res
    assert names == want_names and stride == want_stride
    for a in names:
        if isinstance(want[a], np.ndarray):
            np.testing.assert_array_equal(got[a], want[a])
        else:
            assert got[a] == want[a], a


POOL_SAVED = {
    "max_pool2d": (lambda L, x: _F(L).max_pool2d(x, 3, 2, 1), (2, 3, 5, 5)),
    "max_pool2d_unbatched": (lambda L, x: _F(L).max_pool2d(x, 2), (3, 4, 4)),
    "avg_pool2d": (lambda L, x: _F(L).avg_pool2d(x, 2), (2, 3, 4, 4)),
    "avg_pool2d_args": (
        lambda L, x: _F(L).avg_pool2d(x, 3, 2, 1, True, False, 2),
        (2, 3, 5, 5),
    ),
    "avg_pool1d": (lambda L, x: _F(L).avg_pool1d(x, 2), (2, 3, 6)),
    "adaptive_avg_pool2d": (lambda L, x: _F(L).adaptive_avg_pool2d(x, (3, 2)), (2, 3, 5, 5)),
    "adaptive_max_pool2d": (lambda L, x: _F(L).adaptive_max_pool2d(x, 3), (2, 3, 5, 5)),
    "max_pool3d": (lambda L, x: _F(L).max_pool3d(x, 2), (2, 3, 4, 4, 4)),
    "avg_pool3d_args": (
        lambda L, x: _F(L).avg_pool3d(x, 3, (2, 1, 2), 1, True, False, 3),
        (2, 3, 5, 4, 5),
    ),
    "adaptive_avg_pool3d": (lambda L, x: _F(L).adaptive_avg_pool3d(x, (3, 2, 1)), (2, 3, 5, 5, 5)),
    "adaptive_max_pool3d": (lambda L, x: _F(L).adaptive_max_pool3d(x, 3), (2, 3, 5, 5, 5)),
    "grid_sample": (
        lambda L, x: _samples(L, x, L.ones(2, 3, 2, 2, dtype=x.dtype) * 0.3, mode="bicubic"),
        (2, 3, 4, 4),
    ),
}


def _saved(L, node):
    out = {}
    for a in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            v = getattr(node, a)
        except RuntimeError as e:
            v = ("raises", "freed" in str(e))
        out[a] = v.detach().numpy().tolist() if isinstance(v, L.Tensor) else v
    return out


@pytest.mark.parametrize("name", sorted(POOL_SAVED))
def test_pooling_backward_saved_fields_match_torch(name):
    """The pooling and grid_sample backward nodes' `_saved_*` as torch's, before and after
    backward frees the tensors among them."""
    fn, shape = POOL_SAVED[name]
    res = []
    for L in (framework, torch):
        x = L.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
        y = fn(L, x)
        (g,) = L.autograd.grad(y, x, L.ones(tuple(y.shape), dtype=y.dtype), create_graph=True)
        node = g.grad_fn
        while node.name().startswith("Squeeze"):
            node = node.next_functions[0][0]
        before = (node.name(), _saved(L, node))
        g.sum().backward()
        res.append((before, _saved(L, node)))
    assert res[0] == res[1]


EMPTY_OUTPUT = {  # float32 transposed convolutions to a spatial size 0 (torch's oneDNN kernel)
    "conv_transpose1d": ((2, 3, 2), (3, 2, 1), dict(padding=1)),
    "conv_transpose1d_groups": ((3, 4, 2), (4, 5, 1), dict(padding=1, groups=2)),
    "conv_transpose2d": ((3, 4, 2, 2), (4, 5, 1, 1), dict(padding=1)),
    "conv_transpose3d": ((3, 4, 2, 2, 2), (4, 5, 1, 1, 1), dict(padding=(1, 0, 0), groups=2)),
}


def _second_order_outcome(L, name, xs, ws, kw, need, differentiate):
    r = np.random.default_rng(0)
    fn = getattr(_F(L), name.split("_groups")[0])
    ins = [
        L.tensor(r.standard_normal(s).astype(np.float32), requires_grad=n)
        for s, n in zip((xs, ws, (ws[1] * kw.get("groups", 1),)), need)
    ]
    y = fn(*ins, **kw)
    leaves = [t for t in ins if t.requires_grad]
    first = L.autograd.grad(y, leaves, L.ones(tuple(y.shape)), create_graph=True)
    gs = [g for g, d in zip(first, differentiate) if d]
    try:
        second = L.autograd.grad(
            gs, leaves, [L.ones(tuple(g.shape)) for g in gs], allow_unused=True
        )
    except RuntimeError as e:
        return "RuntimeError", str(e)
    return [None if g is None else (tuple(g.shape), g.detach().numpy().sum()) for g in second]


@pytest.mark.parametrize("name", sorted(EMPTY_OUTPUT))
def test_double_backward_of_empty_transposed_output_raises_as_torch(name):
    """Fuzz seeds 60009005, 50054689 (conv_transpose1d/2d with an output of length 0): torch's
    _convolution_double_backward convolves the empty grad_output again (for the weight's
    term, with batch and channels swapped, then for the input's) and its convolution refuses
    an empty spatial input, naming the shape; a second derivative through the bias alone
    runs none. The same for every set of inputs that require grad and gradients
    differentiated."""
    xs, ws, kw = EMPTY_OUTPUT[name]
    for need in itertools.product((False, True), repeat=3):
        for differentiate in itertools.product((False, True), repeat=sum(need)):
            if not any(differentiate):
                continue
            got = [
                _second_order_outcome(L, name, xs, ws, kw, need, differentiate)
                for L in (framework, torch)
            ]
            assert got[0] == got[1], (need, differentiate)


def _grid_sample_second(L, x, grid, kw, rg, upstream_rg):
    """grid_sample's create_graph gradients, then their gradients (values as arrays; None
    where the library gives none)."""
    ins = [L.tensor(a, requires_grad=r) for a, r in zip((x, grid), rg)]
    out = _F(L).grid_sample(*ins, **kw)
    r = np.random.default_rng(5)
    up = L.tensor(r.standard_normal(tuple(out.shape)), requires_grad=upstream_rg)
    wrt = [t for t in ins if t.requires_grad] + ([up] if upstream_rg else [])
    gs = L.autograd.grad(out, wrt[: len(wrt) - upstream_rg], up, create_graph=True)
    ups = [L.tensor(r.standard_normal(tuple(g.shape))) for g in gs]
    second = L.autograd.grad(list(gs), wrt, ups, allow_unused=True)
    first = [g.detach().numpy() for g in gs]
    return first, [None if g is None else g.numpy() for g in second]


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_double_backward_inf_and_borders_as_torch(nd, padding, align):
    """Fuzz seeds 60013980, 60003516, 50030452, 50076668 (NaN positions of the second order):
    torch's grid_sampler_2d/3d_double_backward gathers every corner at clamped indices (with
    zeros padding times the in-bounds mask, so an inf read off the input is NaN), takes the
    mixed second derivatives only, and scales by d coordinate / d grid, 0 where border or
    reflection clip (borders included, as the first-order gradient now does too). An input
    with inf/NaN, grid points on the borders and off the input; every requires-grad
    combination, an upstream that requires grad."""
    r = np.random.default_rng(nd * 10 + len(padding) + align)
    x = r.standard_normal((2, 2) + (3,) * nd)
    x.reshape(-1)[[1, 7, 12]] = [np.inf, -np.inf, np.nan]
    grid = r.uniform(-1.6, 1.6, (2,) + (3,) * nd + (nd,))
    grid.reshape(-1)[[0, 4, 9, 15]] = [1.0, -1.0, 1 / 3, 2.0]  # borders, folds
    kw = dict(padding_mode=padding, align_corners=align)
    for rg in ((True, False), (False, True), (True, True)):
        for upstream_rg in (False, True):
            got = [_grid_sample_second(L, x, grid, kw, rg, upstream_rg) for L in (framework, torch)]
            for f, t in zip(got[0][0] + got[0][1], got[1][0] + got[1][1]):
                assert (f is None) == (t is None), (rg, upstream_rg)
                if t is not None:
                    np.testing.assert_allclose(f, t, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize(
    "nd,padding,align", [(2, "border", True), (2, "zeros", False), (3, "zeros", True)]
)
def test_grid_sample_bilinear_double_backward_gradgradcheck(nd, padding, align):
    """The bilinear double backward (torch's explicit formula) against finite differences:
    gradcheck and gradgradcheck in float64 (the latter differentiates the double backward)."""
    r = np.random.default_rng(nd)
    x = framework.tensor(r.standard_normal((1, 2) + (3,) * nd), requires_grad=True)
    grid = framework.tensor(r.uniform(-0.9, 0.9, (1,) + (2,) * nd + (nd,)), requires_grad=True)

    def f(a, b):
        return _F(framework).grid_sample(a, b, padding_mode=padding, align_corners=align)

    assert framework.autograd.gradcheck(f, (x, grid))
    assert framework.autograd.gradgradcheck(f, (x, grid))
