"""torch's ZeroTensor as a user meets it: the `.grad` of a leaf (or autograd.grad's result)
that only sgn's efficient zero gradient reached. It reads as zeros (`_is_zerotensor()`, as
its views, detach and .data), refuses every in-place write with torch's message (copy_ and
index assignment word it differently), is plain zeros under create_graph, and hooks see it.
A node with several outputs that gets the ZeroTensor on one and a real gradient on another
runs as torch's formula does (framework/autograd/zero_grad.py's mixed_grads)."""

import math

import pytest
import torch

import framework
from fuzz.runner import compare_call
from ops.test_fidelity import t

INF, NAN = math.inf, math.nan


def _zero_grad_leaf(L):
    x = L.tensor([1.0, 0.0], requires_grad=True)
    x.sgn().sum().backward()
    return x


def _outcome(L, fn):
    """What fn(L, .grad) gives: its error, or its value and whether .grad is still a
    ZeroTensor afterwards (torch's ZeroTensor results are never read as arrays: some crash)."""
    x = _zero_grad_leaf(L)
    try:
        r = fn(L, x.grad)
    except Exception as e:
        return type(e).__name__, str(e)
    if isinstance(r, L.Tensor):
        r = "ZeroTensor" if r._is_zerotensor() else r.tolist()
    return "ok", r, x.grad._is_zerotensor() or x.grad.tolist()


CALLS = {
    "add_": lambda L, g: g.add_(1),
    "sub_": lambda L, g: g.sub_(1),
    "mul_": lambda L, g: g.mul_(2),
    "div_": lambda L, g: g.div_(2),
    "iadd": lambda L, g: g.__iadd__(1),
    "imul": lambda L, g: g.__imul__(2),
    "zero_": lambda L, g: g.zero_(),
    "fill_": lambda L, g: g.fill_(1),
    "neg_": lambda L, g: g.neg_(),
    "exp_": lambda L, g: g.exp_(),
    "sqrt_": lambda L, g: g.sqrt_(),
    "relu_": lambda L, g: g.relu_(),
    "clamp_": lambda L, g: g.clamp_(0, 1),
    "addcmul_": lambda L, g: g.addcmul_(g, g),
    "lerp_": lambda L, g: g.lerp_(L.ones(2), 0.5),
    "masked_fill_": lambda L, g: g.masked_fill_(L.tensor([True, False]), 1.0),
    "index_add_": lambda L, g: g.index_add_(0, L.tensor([0]), L.ones(1)),
    "index_fill_": lambda L, g: g.index_fill_(0, L.tensor([0]), 1.0),
    "scatter_": lambda L, g: g.scatter_(0, L.tensor([0]), L.ones(1)),
    "uniform_": lambda L, g: g.uniform_(),
    "normal_": lambda L, g: g.normal_(),
    "bernoulli_": lambda L, g: g.bernoulli_(),
    "init_zeros_": lambda L, g: L.nn.init.zeros_(g),
    "copy_": lambda L, g: g.copy_(L.ones(2)),
    "copy_bad_shape": lambda L, g: g.copy_(L.ones(3)),
    "add_bad_shape": lambda L, g: g.add_(L.ones(3)),
    "setitem": lambda L, g: g.__setitem__(0, 5.0),
    "setitem_slice": lambda L, g: g.__setitem__(slice(0, 1), 5.0),
    "setitem_index": lambda L, g: g.__setitem__(L.tensor([0]), 5.0),
    "view_add_": lambda L, g: g.view(2).add_(1),
    "slice_fill_": lambda L, g: g[0:1].fill_(1),
    "item_add_": lambda L, g: g[0].add_(1),
    "detach_add_": lambda L, g: g.detach().add_(1),
    "data_add_": lambda L, g: g.data.add_(1),
    # reads and out-of-place ops are fine; metadata-only in-place ops too
    "detach_": lambda L, g: g.detach_(),
    "requires_grad_": lambda L, g: g.requires_grad_(),
    "clone": lambda L, g: g.clone(),
    "add": lambda L, g: g + 1,
    "exp": lambda L, g: g.exp(),
    "sum": lambda L, g: g.sum(),
    "item": lambda L, g: g[0].item(),
    "str": lambda L, g: str(g),
    "stride": lambda L, g: g.stride(),
    "into_other_add_": lambda L, g: L.ones(2).add_(g),
    "into_other_copy_": lambda L, g: L.ones(2).copy_(g),
    "set_data": lambda L, g: setattr(g, "data", L.ones(2)),
    "is_zerotensor": lambda L, g: g._is_zerotensor(),
    "view_is_zerotensor": lambda L, g: g.view(2)._is_zerotensor(),
    "item_is_zerotensor": lambda L, g: g[0]._is_zerotensor(),
    "detach_is_zerotensor": lambda L, g: g.detach()._is_zerotensor(),
    "data_is_zerotensor": lambda L, g: g.data._is_zerotensor(),
    "contiguous_is_zerotensor": lambda L, g: g.contiguous()._is_zerotensor(),
    "clone_is_zerotensor": lambda L, g: g.clone()._is_zerotensor(),
    "neg_is_zerotensor": lambda L, g: (-g)._is_zerotensor(),
    "cast_is_zerotensor": lambda L, g: g.to(L.float64)._is_zerotensor(),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_zero_tensor_grad_in_place_and_reads_as_torch(name):
    """Each in-place op on the ZeroTensor `.grad` (or a view or alias of it) raises torch's
    error, torch's own wording first (before a shape check); reads and out-of-place ops
    agree, and `.grad` stays the ZeroTensor."""
    assert _outcome(framework, CALLS[name]) == _outcome(torch, CALLS[name])


STEPS = {
    "opt_zero_grad_keep": lambda L, x: L.optim.SGD([x], lr=0.1).zero_grad(set_to_none=False),
    "opt_zero_grad_none": lambda L, x: L.optim.SGD([x], lr=0.1).zero_grad(),
    "sgd_momentum_step": lambda L, x: L.optim.SGD([x], lr=0.1, momentum=0.9).step(),
    "adam_decay_step": lambda L, x: L.optim.Adam([x], lr=0.1, weight_decay=0.1).step(),
    "adamw_step": lambda L, x: L.optim.AdamW([x], lr=0.1).step(),
    "clip_grad_norm_": lambda L, x: L.nn.utils.clip_grad_norm_([x], 1.0),
    "clip_grad_value_": lambda L, x: L.nn.utils.clip_grad_value_([x], 1.0),
    "backward_again": lambda L, x: x.sgn().sum().backward(),
    "backward_real": lambda L, x: (x * 2).sum().backward(),
    "backward_real_create_graph": lambda L, x: (x * 2).sum().backward(create_graph=True),
}


@pytest.mark.parametrize("name", sorted(STEPS))
def test_optimizers_and_utilities_on_a_zero_tensor_grad(name):
    """Optimizer steps only read `.grad` (fine); zero_grad(set_to_none=False), the
    clip_grad_* utilities and accumulating into it write in place (torch's error)."""

    def run(L):
        x = _zero_grad_leaf(L)
        try:
            STEPS[name](L, x)
        except RuntimeError as e:
            return str(e)
        return x.detach().tolist(), x.grad is None or x.grad._is_zerotensor() or x.grad.tolist()

    assert run(framework) == run(torch)


OPTIMIZERS = [
    "SGD",
    "Adam",
    "AdamW",
    "Adamax",
    "Adagrad",
    "Adadelta",
    "RMSprop",
    "Rprop",
    "ASGD",
    "NAdam",
    "RAdam",
    "LBFGS",
]


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_every_optimizer_steps_on_a_zero_tensor_grad(name):
    """Each optimizer (weight decay, maximize, momentum where it has them) only reads the
    ZeroTensor `.grad`: two steps give torch's parameters and leave `.grad` a ZeroTensor."""

    def run(L):
        x = L.tensor([1.0, -2.0], requires_grad=True)
        x.sgn().sum().backward()
        kw = {"lr": 0.1}
        if name not in ("LBFGS", "Rprop"):
            kw["weight_decay"] = 0.1
        if name != "LBFGS":
            kw["maximize"] = True
        if name == "SGD":
            kw["momentum"] = 0.9
        opt = getattr(L.optim, name)([x], **kw)
        for _ in range(2):
            opt.step((lambda: x.sgn().sum()) if name == "LBFGS" else None)
        return x.detach().tolist(), x.grad._is_zerotensor()

    assert run(framework) == run(torch)


def _read(g):
    """A gradient's values, or "ZeroTensor" (torch's tolist() of one raises)."""
    return "ZeroTensor" if g._is_zerotensor() else g.tolist()


def _grad_kind(L, how):
    x = L.tensor([1.0, 0.0], requires_grad=True)
    if how == "create_graph":
        x.sgn().sum().backward(create_graph=True)
        g = x.grad
    elif how == "inputs":
        x.sgn().sum().backward(inputs=[x])
        g = x.grad
    else:
        (g,) = L.autograd.grad(x.sgn().sum(), x, create_graph=how == "grad_create_graph")
    return g._is_zerotensor() or g.tolist(), g.requires_grad


@pytest.mark.parametrize("how", ["create_graph", "inputs", "grad", "grad_create_graph"])
def test_which_results_are_zero_tensors(how):
    """backward(inputs=) and autograd.grad give the ZeroTensor itself; backward with
    create_graph clones it into real zeros."""
    assert _grad_kind(framework, how) == _grad_kind(torch, how)


def test_hooks_and_retain_grad_see_the_zero_tensor():
    """A leaf's hooks and a non-leaf's hooks get the ZeroTensor (a replacement they return
    is accumulated as a real gradient); retain_grad keeps real zeros; the post-accumulate
    hooks run."""

    def run(L):
        seen = []
        x = L.tensor([1.0, 0.0], requires_grad=True)
        x.register_hook(lambda g: seen.append(("leaf", g._is_zerotensor())) or g + 1)
        x.register_post_accumulate_grad_hook(lambda p: seen.append(("post", _read(p.grad))))
        y = x * 1
        y.retain_grad()
        y.register_hook(lambda g: seen.append(("y", _read(g))))
        y.sgn().sum().backward()
        seen.append(_read(x.grad))
        seen.append(_read(y.grad))
        z = L.tensor([1.0, 0.0], requires_grad=True)
        w = z * 1
        w.register_hook(lambda g: g + 2)
        w.sgn().sum().backward()
        seen.append(_read(z.grad))
        return seen

    assert run(framework) == run(torch)


# ----- multi-output nodes: sgn's ZeroTensor on one output, a real gradient on another ------
X = [[1.5, INF, -2.0, 0.0], [NAN, 3.0, -0.5, 1e30], [2.0, -INF, 0.5, 0.25]]
Y = [[1.5, 2.0, -2.0, 0.1], [4.0, 3.0, -0.5, 1.0], [2.0, -1.0, 0.5, 0.25]]
MULTI = {
    "var_mean": (lambda L, x: L.var_mean(x, 1), (0, 1)),
    "var_mean_all": (lambda L, x: L.var_mean(x), (0, 1)),
    "std_mean": (lambda L, x: L.std_mean(x, 1), (0, 1)),
    "std_mean_all": (lambda L, x: L.std_mean(x), (0, 1)),
    "aminmax": (lambda L, x: L.aminmax(x, dim=1), (0, 1)),
    "aminmax_all": (lambda L, x: L.aminmax(x), (0, 1)),
    "max_dim": (lambda L, x: L.max(x, 1), (0,)),
    "sort": (lambda L, x: L.sort(x, 1), (0,)),
    "topk": (lambda L, x: L.topk(x, 2, 1), (0,)),
    "cummax": (lambda L, x: L.cummax(x, 1), (0,)),
    "split": (lambda L, x: L.split(x, 2, 1), (0, 1)),
    "unbind": (lambda L, x: L.unbind(x, 0), (0, 1, 2)),
    "chunk": (lambda L, x: L.chunk(x, 2, 1), (0, 1)),
    "slogdet": (lambda L, x: L.linalg.slogdet(x[:, :3]), (0, 1)),
    "qr": (lambda L, x: L.linalg.qr(x[:, :3]), (0, 1)),
    "svd": (lambda L, x: L.linalg.svd(x[:, :3]), (0, 1, 2)),
}
# (the linear-algebra ops take finite inputs only: LAPACK of inf/NaN matrices is not what
# these tests are about)
CASES = [
    (name, k, sgn_all, values)
    for name, (_, outs) in MULTI.items()
    for k in outs
    for sgn_all in (False, True)
    if not sgn_all or k == outs[0]
    for values in ("inf_nan", "finite")
    if values == "finite" or name not in ("slogdet", "qr", "svd")
]


@pytest.mark.parametrize("name,k,sgn_all,values", CASES, ids=lambda v: str(v))
def test_multi_output_node_with_a_zero_tensor_beside_a_real_gradient(name, k, sgn_all, values):
    """sgn on output k (every output with sgn_all), the others through a product or exp:
    the gradients (or torch's "ZeroTensors are immutable": std_mean's std, aminmax's min)
    agree with torch's; a slogdet input gets zeros."""
    f, outs = MULTI[name]

    def fn(L, x):
        r = f(L, x)
        total = 0
        for j in outs:
            total = total + (r[j].sgn() if sgn_all or j == k else r[j].exp() * 3).sum()
        return total

    assert not compare_call(fn, (t(X if values == "inf_nan" else Y),), {})
