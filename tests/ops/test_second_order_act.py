"""Second-order graphs of the activations against torch: the create_graph gradient's
requires_grad, node name (torch's XBackwardBackward0) and edges, the second-order gradients'
values for a random upstream gradient (zeros that require grad for the piecewise-linear ops,
torch's error for hardsigmoid), forward-over-reverse tangents with both the upstream gradient
and the input dual, and gradcheck/gradgradcheck of each backward op in float64."""

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfwd
import torch.nn.functional as TF

import framework
import framework.autograd.forward_ad as ffwd
import framework.nn.functional as FF


def F(L):
    return FF if L is framework else TF


# name -> (fn(L, x), torch's node name of the gradient)
CASES = {
    "gelu": (lambda L, x: F(L).gelu(x), "GeluBackwardBackward0"),
    "gelu_tanh": (lambda L, x: F(L).gelu(x, approximate="tanh"), "GeluBackwardBackward0"),
    "elu": (lambda L, x: F(L).elu(x, 0.7), "EluBackwardBackward0"),
    "celu": (lambda L, x: F(L).celu(x, 1.3), "EluBackwardBackward0"),
    "selu": (lambda L, x: F(L).selu(x), "EluBackwardBackward0"),
    "softplus": (lambda L, x: F(L).softplus(x, 2.0, 1.5), "SoftplusBackwardBackward0"),
    "sigmoid": (lambda L, x: L.sigmoid(x), "SigmoidBackwardBackward0"),
    "tanh": (lambda L, x: L.tanh(x), "TanhBackwardBackward0"),
    "logsigmoid": (lambda L, x: F(L).logsigmoid(x), "LogSigmoidBackwardBackward0"),
    "hardswish": (lambda L, x: F(L).hardswish(x), "HardswishBackwardBackward0"),
    "hardsigmoid": (lambda L, x: F(L).hardsigmoid(x), "torch::autograd::NotImplemented"),
    "leaky_relu": (lambda L, x: F(L).leaky_relu(x, 0.2), "LeakyReluBackwardBackward0"),
    "hardtanh": (lambda L, x: F(L).hardtanh(x, -2.0, 1.5), "HardtanhBackwardBackward0"),
    "relu6": (lambda L, x: F(L).relu6(x), "HardtanhBackwardBackward0"),
    "hardshrink": (lambda L, x: F(L).hardshrink(x, 0.7), "HardshrinkBackwardBackward0"),
    "softshrink": (lambda L, x: F(L).softshrink(x, 0.7), "SoftshrinkBackwardBackward0"),
    "rrelu_eval": (lambda L, x: F(L).rrelu(x, 0.1, 0.3), "RreluWithNoiseBackwardBackward0"),
    "relu": (lambda L, x: L.relu(x), "ThresholdBackwardBackward0"),
    "glu": (lambda L, x: F(L).glu(x, 1), "GluBackwardBackward0"),
    "softmax": (lambda L, x: L.softmax(x, 1), "SoftmaxBackwardDataBackward0"),
    "log_softmax": (lambda L, x: L.log_softmax(x, 0), "LogSoftmaxBackwardDataBackward0"),
    "nn.GELU": (lambda L, x: L.nn.GELU("tanh")(x), "GeluBackwardBackward0"),
    "nn.ELU": (lambda L, x: L.nn.ELU(0.5)(x), "EluBackwardBackward0"),
    "nn.LeakyReLU": (lambda L, x: L.nn.LeakyReLU(0.3)(x), "LeakyReluBackwardBackward0"),
    "nn.ReLU6": (lambda L, x: L.nn.ReLU6()(x), "HardtanhBackwardBackward0"),
    "nn.Softmax": (lambda L, x: L.nn.Softmax(1)(x), "SoftmaxBackwardDataBackward0"),
    "nn.RReLU": (lambda L, x: L.nn.RReLU().eval()(x), "RreluWithNoiseBackwardBackward0"),
}
PIECEWISE = {"leaky_relu", "hardtanh", "relu6", "hardshrink", "softshrink", "rrelu_eval", "relu"}


def _input(dtype="float64", shape=(3, 4), seed=0):
    """Values on every piece (beyond +-3 for hardswish/relu6, around the shrink bands)."""
    r = np.random.default_rng(seed)
    x = r.standard_normal(shape) * 2.5
    x.flat[:4] = [-4.0, 4.0, 7.0, -0.3][: x.size]
    return x.astype(dtype)


def _names(node):
    return tuple(None if n is None else n.name() for n, _ in node.next_functions)


def _third(s, L):
    """A second-order gradient's requires_grad, node name and edges."""
    fn = s.grad_fn
    if fn is None:
        return s.requires_grad, None, None
    return s.requires_grad, fn.name(), _names(fn)


def _first(L, name, x, c, dtype):
    """(x leaf, c leaf, create_graph gradient)."""
    fn = CASES[name][0]
    xt = L.tensor(x, requires_grad=True)
    y = fn(L, xt)
    ct = L.tensor(c[: y.shape[0], : y.shape[1]], requires_grad=True)
    (g,) = L.autograd.grad(y, xt, ct, create_graph=True)
    return xt, ct, g


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_node_and_second_order_values_as_torch(name, dtype):
    x = _input(dtype)
    r = np.random.default_rng(1)
    c, v = r.standard_normal((3, 4)).astype(dtype), r.standard_normal((3, 4)).astype(dtype)
    got = {}
    for L in (torch, framework):
        xt, ct, g = _first(L, name, x, c, dtype)
        assert g.requires_grad
        assert type(g.grad_fn).__name__ == CASES[name][1].split("::")[-1]
        got[L] = [g.grad_fn.name(), _names(g.grad_fn), g.detach().numpy()]
        try:
            second = L.autograd.grad(g, (xt, ct), L.tensor(v), create_graph=True)
        except RuntimeError as e:
            got[L].append(str(e))
            continue
        got[L].append([(_third(s, L), s.detach().numpy()) for s in second])
    (tn, te, tg, ts), (fn, fe, fg, fs) = got[torch], got[framework]
    assert (fn, fe) == (tn, te)
    np.testing.assert_allclose(fg, tg, rtol=1e-5, atol=1e-6)
    if isinstance(ts, str):  # hardsigmoid: torch's error
        assert fs == ts and "hardsigmoid_backward is not implemented" in ts
        return
    for (frg, fval), (trg, tval) in zip(fs, ts):
        assert frg == trg  # requires_grad, and the third-order node with its edges
        tol = 2e-4 if dtype == "float32" else 1e-9
        np.testing.assert_allclose(fval, tval, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(PIECEWISE))
def test_piecewise_second_derivative_is_zeros_that_a_third_grad_can_take(name):
    """torch: autograd.grad of the gradient in x gives zeros (not 'does not require grad')."""
    x = _input()
    for L in (torch, framework):
        xt = L.tensor(x, requires_grad=True)
        (g,) = L.autograd.grad(CASES[name][0](L, xt).sum(), xt, create_graph=True)
        assert g.requires_grad
        (gg,) = L.autograd.grad(g.sum(), xt)
        assert not gg.numpy().any()


@pytest.mark.parametrize("name", sorted(set(CASES) - {"hardsigmoid"}))
def test_backward_ops_gradcheck_and_gradgradcheck(name):
    """The gradient as a function of (x, upstream), float64: its derivatives (the new
    backward ops' backward) by finite differences, and theirs."""
    fn = CASES[name][0]
    x = framework.tensor(_input(shape=(2, 4), seed=3), requires_grad=True)  # off the kinks
    shape = tuple(fn(framework, x).shape)
    c = framework.tensor(np.random.default_rng(4).standard_normal(shape), requires_grad=True)

    def grad(a, b):
        return framework.autograd.grad(fn(framework, a), a, b, create_graph=True)[0]

    assert framework.autograd.gradcheck(grad, (x, c))
    assert framework.autograd.gradgradcheck(grad, (x, c))


def _fwd_over_rev(L, fwd, name, x, c, tx, tc):
    """Tangent of the gradient with both x and the upstream gradient dual."""
    fn = CASES[name][0]
    with fwd.dual_level():
        xd = fwd.make_dual(L.tensor(x, requires_grad=True), L.tensor(tx))
        y = fn(L, xd)
        cd = fwd.make_dual(L.tensor(c[: y.shape[0], : y.shape[1]]), L.tensor(tc[: y.shape[0]]))
        (g,) = L.autograd.grad(y, xd, cd, create_graph=True)
        t = fwd.unpack_dual(g).tangent
    return None if t is None else t.detach().numpy()


@pytest.mark.parametrize("which", ["both", "x", "upstream"])
@pytest.mark.parametrize("name", sorted(set(CASES) - {"hardsigmoid"}))
def test_forward_over_reverse_as_torch(name, which):
    """The backward ops' jvp (torch's `result:` formulas): None exactly where torch's is (a
    piecewise-linear kernel reads only the upstream gradient's tangent)."""
    r = np.random.default_rng(5)
    x = _input()
    c = r.standard_normal((3, 4))
    tx = r.standard_normal((3, 4)) * (which != "upstream")
    tc = r.standard_normal((3, 4))[:, : c.shape[1]] * (which != "x")
    if name == "glu":
        tc = tc[:, :2]
    want = _fwd_over_rev(torch, tfwd, name, x, c, tx, tc)
    got = _fwd_over_rev(framework, ffwd, name, x, c, tx, tc)
    assert (got is None) == (want is None)
    if want is not None:
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_hardsigmoid_records_torchs_not_implemented_node():
    """Its gradient requires grad through a node named torch::autograd::NotImplemented with
    torch's edges; a second gradient raises torch's error (as gradgradcheck does)."""
    x = _input()
    edges = []
    for L in (torch, framework):
        xt = L.tensor(x, requires_grad=True)
        c = L.ones(3, 4, dtype=L.float64, requires_grad=True)
        for upstream in (L.ones(3, 4, dtype=L.float64), c):
            (g,) = L.autograd.grad(F(L).hardsigmoid(xt), xt, upstream, create_graph=True)
            assert g.grad_fn.name() == "torch::autograd::NotImplemented"
            edges.append(_names(g.grad_fn))
            match = "aten::hardsigmoid_backward is not implemented"
            with pytest.raises(RuntimeError, match=match):
                L.autograd.grad(g.sum(), xt)
    assert edges[:2] == edges[2:]


@pytest.mark.parametrize("name", ["gelu", "gelu_tanh", "sigmoid", "tanh", "softmax", "elu"])
def test_first_gradient_bits_unchanged_by_create_graph(name):
    """The backward op's forward is the kernel the first gradient runs: the same bits with
    and without create_graph (float32, large enough for the compiled loops)."""
    x = _input("float32", shape=(64, 80), seed=7)
    c = np.random.default_rng(8).standard_normal((64, 80)).astype("float32")
    fn = CASES[name][0]
    out = []
    for create in (False, True):
        xt = framework.tensor(x, requires_grad=True)
        y = fn(framework, xt)
        (g,) = framework.autograd.grad(
            y, xt, framework.tensor(c[:, : y.shape[1]]), create_graph=create
        )
        out.append(g.detach().numpy())
    np.testing.assert_array_equal(out[0], out[1])


PRELU_SHAPES = [((2, 3, 4), (3,)), ((2, 3, 4), (1,)), ((5,), (1,)), ((), (1,)), ((2, 3), (3,))]


def _prelu_case(L, x_shape, w_shape, seed=0):
    r = np.random.default_rng(seed)
    x = L.tensor(r.standard_normal(x_shape), requires_grad=True)
    w = L.tensor(r.uniform(0.1, 0.5, w_shape), requires_grad=True)
    c = L.tensor(r.standard_normal(x_shape), requires_grad=True)
    return x, w, c


@pytest.mark.parametrize("x_shape,w_shape", PRELU_SHAPES)
def test_prelu_second_order_as_torch(x_shape, w_shape):
    """Both gradients are outputs of one PreluKernelBackwardBackward0 (the weight's summed to
    its shape by the engine, through torch's view of the weight), and the second-order
    gradients of x, the weight and the upstream gradient match torch's."""
    got = []
    for L in (torch, framework):
        x, w, c = _prelu_case(L, x_shape, w_shape)
        y = F(L).prelu(x, w)
        assert [n and n.name() for n, _ in y.grad_fn.next_functions][0].endswith("AccumulateGrad")
        gx, gw = L.autograd.grad(y, (x, w), c, create_graph=True)
        nodes = [(g.grad_fn.name(), _names(g.grad_fn)) for g in (gx, gw)]
        v = (gx * gx).sum() + (gw * 1.5).sum() + (gx * 0.5).sum()
        second = L.autograd.grad(v, (x, w, c))
        got.append((nodes, [s.numpy() for s in second]))
    assert got[0][0] == got[1][0]
    for t, f in zip(got[0][1], got[1][1]):
        np.testing.assert_allclose(f, t, rtol=1e-10, atol=1e-12)


def test_prelu_backward_gradcheck_and_gradgradcheck():
    x, w, c = _prelu_case(framework, (2, 3, 2), (3,), seed=2)

    def grads(a, b, u):
        y = FF.prelu(a, b)
        return framework.autograd.grad(y, (a, b), u, create_graph=True)

    assert framework.autograd.gradcheck(grads, (x, w, c))
    assert framework.autograd.gradgradcheck(grads, (x, w, c))


@pytest.mark.parametrize("duals", ["x", "w", "upstream", "all"])
def test_prelu_forward_over_reverse_as_torch(duals):
    """torch's result0/result1 formulas: each gradient's tangent, or None, as torch's."""
    r = np.random.default_rng(6)
    xa, wa, ca = r.standard_normal((2, 3, 4)), r.uniform(0.1, 0.5, 3), r.standard_normal((2, 3, 4))
    tx, tw, tc = r.standard_normal((2, 3, 4)), r.standard_normal(3), r.standard_normal((2, 3, 4))
    out = []
    for L, fwd in ((torch, tfwd), (framework, ffwd)):
        with fwd.dual_level():

            def leaf(a, t, name):
                p = L.tensor(a, requires_grad=name != "upstream")
                return fwd.make_dual(p, L.tensor(t)) if duals in (name, "all") else p

            x, w, c = leaf(xa, tx, "x"), leaf(wa, tw, "w"), leaf(ca, tc, "upstream")
            gs = L.autograd.grad(F(L).prelu(x, w), (x, w), c, create_graph=True)
            ts = [fwd.unpack_dual(g).tangent for g in gs]
        out.append([None if t is None else t.detach().numpy() for t in ts])
    for t, f in zip(*out):
        assert (f is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(f, t, rtol=1e-10, atol=1e-12)


HALF_EXACT = {
    "bfloat16": [
        "elu",
        "selu",
        "softplus",
        "sigmoid",
        "tanh",
        "logsigmoid",
        "hardswish",
        "hardsigmoid",
        "leaky_relu",
        "hardtanh",
        "softshrink",
        "rrelu_eval",
        "glu",
        "softmax",
    ],
    "float16": [
        "selu",
        "softplus",
        "sigmoid",
        "tanh",
        "logsigmoid",
        "hardswish",
        "hardsigmoid",
        "leaky_relu",
        "hardtanh",
        "softshrink",
        "rrelu_eval",
        "softmax",
    ],
}


@pytest.mark.parametrize("name,dtype", [(n, d) for d, names in HALF_EXACT.items() for n in names])
def test_half_first_gradient_bits_as_torch(name, dtype):
    """A half gradient runs the backward op (float32 inside, one rounding, as torch's half
    kernels; softshrink's lambd, glu's sigmoid and logsigmoid's buffer rounded where torch's
    kernel rounds them): bit for bit torch's on 2048 values."""
    r = np.random.default_rng(0)
    xa = (r.standard_normal((64, 32)) * 3).astype(np.float32)
    ca = r.standard_normal((64, 32)).astype(np.float32)
    out = []
    for L in (torch, framework):
        x = L.tensor(xa).to(getattr(L, dtype)).requires_grad_(True)
        y = CASES[name][0](L, x) if name != "softshrink" else F(L).softshrink(x, 0.3)
        c = L.tensor(ca[:, : y.shape[1]]).to(getattr(L, dtype))
        (g,) = L.autograd.grad(y, x, c)
        out.append(g.to(L.float32).numpy())
    np.testing.assert_array_equal(out[1], out[0])


@pytest.mark.parametrize("name", sorted(set(CASES) - {"hardsigmoid"}))
def test_backward_nodes_expose_torchs_saved_values_and_pack_them(name):
    """The backward op's node exposes torch's _saved_* fields (torchviz's show_saved), and
    saved_tensors_hooks pack the tensors torch's node packs (a third gradient unchanged)."""
    x = _input()
    c = np.random.default_rng(9).standard_normal((3, 4))
    out = []
    for L in (torch, framework):
        xt = L.tensor(x, requires_grad=True)
        y = CASES[name][0](L, xt)
        ct = L.tensor(c[: y.shape[0], : y.shape[1]], requires_grad=True)
        packed = []

        def pack(t):
            packed.append(tuple(t.shape))
            return t

        with L.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            (g,) = L.autograd.grad(y, xt, ct, create_graph=True)
        fields = sorted(a for a in dir(g.grad_fn) if a.startswith("_saved_"))
        scalars = {
            a: getattr(g.grad_fn, a)
            for a in fields
            if not isinstance(getattr(g.grad_fn, a), L.Tensor)
            and a not in ("_saved_noise", "_saved_lower", "_saved_upper", "_saved_training")
        }
        (gx,) = L.autograd.grad((g * g).sum(), xt, allow_unused=True)
        out.append((fields, scalars, sorted(packed), None if gx is None else gx.numpy()))
    (tf, ts, tp, tg), (ff, fs, fp, fg) = out
    assert set(ff) <= set(tf) and set(tf) - set(ff) <= {
        "_saved_buffer",
        "_saved_noise",
        "_saved_lower",
        "_saved_upper",
        "_saved_training",
    }
    assert {k: pytest.approx(v) if isinstance(v, float) else v for k, v in fs.items()} == ts
    # the tensors packed while the gradient's graph is recorded: torch's also packs
    # log_sigmoid's buffer and rrelu's noise, which ours keeps as arrays (not exposed)
    unexposed = 1 if name in ("logsigmoid", "rrelu_eval", "nn.RReLU") else 0
    assert fp == tp[unexposed:] and len(fp) + unexposed == len(tp)
    assert (fg is None) == (tg is None)
    if tg is not None:
        np.testing.assert_allclose(fg, tg, rtol=1e-10, atol=1e-12)
