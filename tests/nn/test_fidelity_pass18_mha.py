"""Eighteenth pass, node types: multi-head attention's weights path is torch's
baddbmm(attn_mask, q_scaled, k^T) (BaddbmmBackward0), local_response_norm is torch's formula
(pad, avg_pool2d/avg_pool3d, mul/add/pow, div), inner of 1-D operands a dot without reshapes;
each output's whole first-order node tree, its values and its gradients agree with torch.
Also the pieces that made the bits agree: a strided gradient summed onto a bias in torch's
memory order (a batch_first MHA's projection bias) and avg_pool backward's overlapping
windows added in torch's output order."""

import random
import warnings

import numpy as np
import pytest
import torch

import framework
from fuzz.runner import fuzz


def _names(fn):
    out = []

    def walk(f):
        if f is None:
            return
        out.append(f.name())
        for nxt, _ in f.next_functions:
            walk(nxt)

    walk(fn)
    return out


def _mha_case(seed):
    """One random MultiheadAttention configuration: (module kwargs, call kwargs, arrays)."""
    r = random.Random(seed)
    rs = np.random.RandomState(seed)
    H, hd = r.choice([1, 2, 4]), r.choice([2, 3, 4, 8])
    E, L, S, B = H * hd, r.randint(1, 7), r.randint(1, 7), r.randint(1, 4)
    dt = r.choice([np.float32, np.float64])
    bias, kv, zero = r.random() < 0.7, r.random() < 0.3, r.random() < 0.3
    kdim, bf = r.choice([None, None, 3, 5]), r.random() < 0.5
    same = r.random() < 0.4 and kdim is None
    mask = r.choice(["none", "float2", "bool2", "float3", "kpm", "both"])
    nw, avg = r.random() < 0.7, r.random() < 0.5
    mod = dict(
        embed_dim=E, num_heads=H, bias=bias, add_bias_kv=kv, add_zero_attn=zero,
        kdim=kdim, vdim=kdim, batch_first=bf,
    )  # fmt: skip
    if same:
        S = L
    kd = kdim or E
    q = rs.randn(*((B, L, E) if bf else (L, B, E))).astype(dt)
    k = q if same else rs.randn(*((B, S, kd) if bf else (S, B, kd))).astype(dt)
    v = k if same else rs.randn(*k.shape).astype(dt)
    am = kpm = None
    if mask in ("float2", "both"):
        am = rs.randn(L, S).astype(dt)
    if mask == "bool2":
        am = rs.rand(L, S) < 0.3
    if mask == "float3":
        am = rs.randn(B * H, L, S).astype(dt)
    if mask in ("kpm", "both"):
        kpm = rs.rand(B, S) < 0.3
        kpm[:, 0] = False
    return mod, dict(need_weights=nw, average_attn_weights=avg), (q, k, v, am, kpm, same, dt, rs)


def _mha_run(lib, seed):
    mod, call, (q, k, v, am, kpm, same, dt, rs) = _mha_case(seed)
    torch.manual_seed(0)
    m = lib.nn.MultiheadAttention(**mod).to(lib.float64 if dt == np.float64 else lib.float32)
    params = dict(m.named_parameters())
    with lib.no_grad():
        for name in sorted(params):
            params[name].copy_(
                lib.tensor(np.random.RandomState(len(name)).randn(*params[name].shape))
            )
    tq = lib.tensor(q, requires_grad=True)
    tk = tq if same else lib.tensor(k, requires_grad=True)
    tv = tq if same else lib.tensor(v, requires_grad=True)
    am = None if am is None else lib.tensor(am)
    kpm = None if kpm is None else lib.tensor(kpm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, w = m(tq, tk, tv, key_padding_mask=kpm, attn_mask=am, **call)
    g = lib.tensor(np.random.RandomState(seed + 1).randn(*out.shape).astype(dt))
    loss = (out * g).sum() + (w.sum() if w is not None else 0)
    loss.backward()
    trees = [_names(out.grad_fn)] + ([_names(w.grad_fn)] if w is not None else [])
    values = [out.detach().numpy()] + ([w.detach().numpy()] if w is not None else [])
    grads = [params[n].grad.numpy() for n in sorted(params)]
    grads += [t.grad.numpy() for t in ((tq,) if same else (tq, tk, tv))]
    return trees, values, grads


@pytest.mark.parametrize("seed", range(40))
def test_mha_node_tree_values_grads(seed):
    """need_weights True/False, float/bool/3-D masks, key_padding_mask, batch_first,
    kdim/vdim, add_bias_kv, add_zero_attn: torch's node tree, values and gradients."""
    t_trees, t_vals, t_grads = _mha_run(torch, seed)
    f_trees, f_vals, f_grads = _mha_run(framework, seed)
    assert f_trees == t_trees
    for a, b in zip(t_vals + t_grads, f_vals + f_grads):
        np.testing.assert_array_equal(b, a)


def test_mha_weights_path_is_baddbmm():
    x = framework.randn(3, 2, 4)
    m = framework.nn.MultiheadAttention(4, 2)
    _, w = m(x, x, x, attn_mask=framework.zeros(3, 3), average_attn_weights=False)
    assert "BaddbmmBackward0" in _names(w.grad_fn)
    _, w = m(x, x, x, average_attn_weights=False)
    assert "BaddbmmBackward0" not in _names(w.grad_fn) and "BmmBackward0" in _names(w.grad_fn)


def _lrn_case(seed):
    r = random.Random(seed)
    rs = np.random.RandomState(seed)
    nd = r.choice([3, 4, 5])
    shape = [r.randint(1, 4), r.randint(1, 9)] + [r.randint(1, 5) for _ in range(nd - 2)]
    dt = r.choice([np.float32, np.float64])
    args = (r.randint(1, 6), r.choice([1e-4, 0.5, 2.0]), r.choice([0.75, 0.5, 1.3]))
    args += (r.choice([1.0, 2.0, 0.5]),)
    x = (rs.randn(*shape) * r.choice([1, 5])).astype(dt)
    return x, rs.randn(*shape).astype(dt), args


@pytest.mark.parametrize("seed", range(30))
def test_local_response_norm_tree_values_grads(seed):
    x, g, args = _lrn_case(seed)
    res = []
    for lib in (torch, framework):
        t = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.local_response_norm(t, *args)
        out.backward(lib.tensor(g))
        res.append((_names(out.grad_fn), out.detach().numpy(), t.grad.numpy()))
    assert res[1][0] == res[0][0]
    np.testing.assert_array_equal(res[1][1], res[0][1])
    np.testing.assert_array_equal(res[1][2], res[0][2])


@pytest.mark.parametrize(
    "shape,kernel,stride,padding",
    [((2, 3, 9, 4), (4, 2), 1, 0), ((1, 2, 7, 7), 3, 1, 1), ((2, 1, 8, 5), (3, 3), (2, 1), 1)],
)
def test_avg_pool2d_backward_overlapping_windows(shape, kernel, stride, padding):
    rs = np.random.RandomState(sum(shape))
    for dt in (np.float32, np.float64):
        x = rs.randn(*shape).astype(dt)
        grads = []
        for lib in (torch, framework):
            t = lib.tensor(x, requires_grad=True)
            out = lib.nn.functional.avg_pool2d(t, kernel, stride, padding)
            out.backward(lib.tensor(np.random.RandomState(1).randn(*out.shape).astype(dt)))
            grads.append(t.grad.numpy())
        np.testing.assert_array_equal(grads[1], grads[0])


def test_avg_pool3d_backward_overlapping_windows():
    rs = np.random.RandomState(3)
    x = rs.randn(2, 2, 6, 5, 4).astype(np.float32)
    grads = []
    for lib in (torch, framework):
        t = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.avg_pool3d(t, (3, 2, 2), 1, 1)
        out.backward(lib.tensor(np.random.RandomState(1).randn(*out.shape).astype(np.float32)))
        grads.append(t.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (4, 3)), ((2, 3), (4, 3))])
def test_inner_node_tree(shapes):
    trees = []
    for lib in (torch, framework):
        a = lib.ones(*shapes[0], dtype=lib.float64, requires_grad=True)
        b = lib.ones(*shapes[1], dtype=lib.float64, requires_grad=True)
        trees.append(_names(lib.inner(a, b).grad_fn))
    assert trees[1] == trees[0]


@pytest.mark.parametrize("layout", ["transposed", "sliced"])
def test_strided_gradient_sums_onto_bias_in_memory_order(layout):
    """A broadcast bias's gradient from a transposed (memory-order B, L, E) or sliced one."""
    rs = np.random.RandomState(7)
    base = rs.randn(5, 3, 9, 7).astype(np.float32)
    bias = rs.randn(7).astype(np.float32)
    grads = []
    for lib in (torch, framework):
        b = lib.tensor(bias, requires_grad=True)
        y = lib.zeros(3, 5, 7) + b if layout == "transposed" else lib.zeros(5, 3, 9, 6) + b[:6]
        src = lib.tensor(base)
        g = src[:, :, 0, :].transpose(0, 1) if layout == "transposed" else src[..., 1:]
        y.backward(g)
        grads.append(b.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("seed", [620000184, 620001632])
def test_fuzz_node_seeds(seed):
    """Fuzz finds of this pass (local_response_norm, inner): no mismatch, node trees included."""
    assert not fuzz(1, seed)
