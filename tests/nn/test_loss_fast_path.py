"""cross_entropy / nll_loss's common case (float (N, C), int64 in-range targets, defaults)
takes a fast path (framework/ops/_loss_fast.py): it must match torch and the general path."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
from framework.ops import loss as F
from helpers import RNG, assert_close, randn, to_fw, to_torch

SHAPES = [(1, 1), (1, 5), (32, 10), (7, 3)]


def _case(shape, dtype):
    x = randn(*shape, dtype=dtype)
    t = RNG.integers(0, shape[1], shape[0]).astype(np.int64)
    return x, t


def _graph_names(fn):
    """The node names of a graph, breadth first, with each node's next_functions arity."""
    out, todo = [], [fn]
    while todo:
        node = todo.pop(0)
        if node is None:
            out.append(None)
            continue
        out.append((type(node).__name__, len(node.next_functions)))
        todo.extend(n for n, _ in node.next_functions)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("which", ["cross_entropy", "nll_loss"])
def test_fast_path_matches_torch(which, shape, dtype):
    x, t = _case(shape, dtype)
    if which == "nll_loss":
        x = np.log(np.exp(x) / np.exp(x).sum(1, keepdims=True)).astype(dtype)
    fx, tx = to_fw(x, requires_grad=True), to_torch(x, requires_grad=True)
    fl = getattr(F, which)(fx, to_fw(t))
    tl = getattr(TF, which)(tx, to_torch(t))
    rtol = 1e-6 if dtype == np.float64 else 1e-5
    assert_close(fl, tl, rtol=rtol, atol=1e-6)
    assert _graph_names(fl.grad_fn) == _graph_names(tl.grad_fn)
    for name in ("_saved_total_weight", "_saved_target", "_saved_self"):
        assert_close(getattr(fl.grad_fn, name), getattr(tl.grad_fn, name), rtol=rtol)
    for name in ("_saved_reduction", "_saved_ignore_index", "_saved_weight"):
        assert getattr(fl.grad_fn, name) == getattr(tl.grad_fn, name)
    up = randn(dtype=dtype)
    fl.backward(to_fw(up))
    tl.backward(to_torch(up))
    assert_close(fx.grad, tx.grad, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("which", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("ignore", [-100, -1, 10, 1000])
def test_fast_path_is_bitwise_the_general_path(which, dtype, ignore, monkeypatch):
    """Any ignore_index outside [0, C) (no target can equal it: the GPT examples pass -1)
    takes the fast path: the general path's bits, and its saved ignore_index."""
    x, t = _case((32, 10), dtype)
    up = randn(dtype=dtype)
    res = []
    for general in (False, True):
        if general:
            monkeypatch.setattr(F._fast, "_common", lambda *args: None)
        fx = to_fw(x, requires_grad=True)
        loss = getattr(F, which)(fx, to_fw(t), ignore_index=ignore)
        saved = loss.grad_fn._saved_ignore_index
        loss.backward(to_fw(up))
        res.append((loss.detach().numpy(), fx.grad.numpy(), saved))
    theirs = getattr(TF, which)(to_torch(x, requires_grad=True), to_torch(t), ignore_index=ignore)
    assert res[0][2] == res[1][2] == theirs.grad_fn._saved_ignore_index
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


@pytest.mark.parametrize("which", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("ignore", [-1, 3])
def test_ignore_index_matches_torch(which, ignore):
    """ignore_index=-1 (outside the classes: the fast path) and 3 (a class some targets
    take: the general path, those rows left out) as torch, values, saved fields, gradient."""
    x, t = _case((16, 7), np.float64)
    t[::3] = 3
    fx, tx = to_fw(x, requires_grad=True), to_torch(x, requires_grad=True)
    fl = getattr(F, which)(fx, to_fw(t), ignore_index=ignore)
    tl = getattr(TF, which)(tx, to_torch(t), ignore_index=ignore)
    assert_close(fl, tl, rtol=1e-12)
    assert _graph_names(fl.grad_fn) == _graph_names(tl.grad_fn)
    assert fl.grad_fn._saved_ignore_index == tl.grad_fn._saved_ignore_index
    assert_close(fl.grad_fn._saved_total_weight, tl.grad_fn._saved_total_weight, rtol=0)
    up = randn(dtype=np.float64)
    fl.backward(to_fw(up))
    tl.backward(to_torch(up))
    assert_close(fx.grad, tx.grad, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("which", ["cross_entropy", "nll_loss"])
def test_fast_path_double_backward_matches_torch(which):
    x, t = _case((6, 4), np.float64)
    fx, tx = to_fw(x, requires_grad=True), to_torch(x, requires_grad=True)
    v = randn(6, 4)
    (fg,) = framework.autograd.grad(getattr(F, which)(fx, to_fw(t)), fx, create_graph=True)
    (tg,) = torch.autograd.grad(getattr(TF, which)(tx, to_torch(t)), tx, create_graph=True)
    assert_close(fg, tg)  # (the first gradient's node is composed: torch's is one
    #                        LogSoftmaxBackwardDataBackward0, the general path's the same)
    if which == "nll_loss":  # linear in x: torch records NllLossBackwardBackward0 (a zero
        return  # second derivative), the general path and this one no node (known difference)
    (fg * to_fw(v)).sum().backward()
    (tg * to_torch(v)).sum().backward()
    assert_close(fx.grad, tx.grad)


@pytest.mark.parametrize("which", ["cross_entropy", "nll_loss"])
def test_fast_path_gradcheck_and_gradgradcheck(which):
    x, t = _case((5, 4), np.float64)
    fx = to_fw(x, requires_grad=True)
    ft = to_fw(t)

    def fn(a):
        return getattr(F, which)(a, ft)

    assert framework.autograd.gradcheck(fn, (fx,))
    assert framework.autograd.gradgradcheck(fn, (fx,))


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize("which", ["cross_entropy", "nll_loss"])
def test_target_modified_in_place_is_refused(which, general):
    """torch saves the target and checks its version (the general path too, since this pass)."""
    x, t = _case((4, 3), np.float32)
    kw = {"ignore_index": -101} if general else {}
    results = []
    for lib, mod, make in ((framework, F, to_fw), (torch, TF, to_torch)):
        a, b = make(x, requires_grad=True), make(t)
        loss = getattr(mod, which)(a, b, **kw)
        b.add_(0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as err:
            loss.backward()
        results.append(str(err.value).split(";")[0].split("[")[0])
    assert results[0] == results[1]


def test_fast_path_without_grad_and_under_no_grad():
    x, t = _case((8, 5), np.float32)
    ref = TF.cross_entropy(to_torch(x), to_torch(t))
    out = F.cross_entropy(to_fw(x), to_fw(t))
    assert out.grad_fn is None and not out.requires_grad
    assert_close(out, ref, rtol=1e-5)
    with framework.no_grad():
        out = F.cross_entropy(to_fw(x, requires_grad=True), to_fw(t))
    assert out.grad_fn is None and not out.requires_grad
    assert_close(out, ref, rtol=1e-5)


def test_fast_path_frees_saved_data_and_retains_on_request():
    x, t = _case((4, 3), np.float32)
    fx = to_fw(x, requires_grad=True)
    loss = F.cross_entropy(fx, to_fw(t))
    loss.backward(retain_graph=True)
    first = fx.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(fx.grad.numpy(), 2 * first, rtol=1e-6)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


@pytest.mark.parametrize("bad", [10, -1, -100])
@pytest.mark.parametrize("which", ["cross_entropy", "nll_loss"])
def test_targets_out_of_range_take_the_general_path(which, bad):
    """A target outside [0, C) (or ignore_index's -100) leaves the fast path: torch's result
    or error."""
    x, t = _case((4, 10), np.float32)
    t[2] = bad
    if bad == -100:  # ignored: the mean over the other rows
        fx, tx = to_fw(x, requires_grad=True), to_torch(x, requires_grad=True)
        fl, tl = getattr(F, which)(fx, to_fw(t)), getattr(TF, which)(tx, to_torch(t))
        assert_close(fl, tl, rtol=1e-5)
        fl.backward()
        tl.backward()
        assert_close(fx.grad, tx.grad, rtol=1e-5, atol=1e-7)
        return
    with pytest.raises(IndexError) as theirs:
        getattr(TF, which)(to_torch(x), to_torch(t))
    with pytest.raises(IndexError) as ours:
        getattr(F, which)(to_fw(x), to_fw(t))
    assert str(ours.value) == str(theirs.value)


def test_module_form_and_other_cases_keep_torch_results():
    """CrossEntropyLoss (the module) takes the fast path; int32 targets, weights, 'sum' and
    label smoothing the general one, each as torch."""
    x, t = _case((6, 4), np.float32)
    fm, tm = framework.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    assert_close(fm(to_fw(x), to_fw(t)), tm(to_torch(x), to_torch(t)), rtol=1e-5)
    w = RNG.uniform(0.5, 2, 4).astype(np.float32)
    for kw in ({"reduction": "sum"}, {"label_smoothing": 0.1}, {"weight": w}):
        fkw = {k: (to_fw(v) if k == "weight" else v) for k, v in kw.items()}
        tkw = {k: (to_torch(v) if k == "weight" else v) for k, v in kw.items()}
        assert_close(
            F.cross_entropy(to_fw(x), to_fw(t), **fkw),
            TF.cross_entropy(to_torch(x), to_torch(t), **tkw),
            rtol=1e-5,
        )
    with pytest.raises(RuntimeError) as theirs:
        TF.cross_entropy(to_torch(x), to_torch(t.astype(np.int32)))
    with pytest.raises(RuntimeError) as ours:
        F.cross_entropy(to_fw(x), to_fw(t.astype(np.int32)))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("which", ["cross_entropy", "nll_loss"])
def test_views_take_the_fast_path(which, monkeypatch):
    """A view input and target (the GPT's logits.view(-1, C), targets.view(-1)): the general
    path's bits, torch's graph, gradients into the base."""
    x = randn(4, 8, 6, dtype=np.float32)
    t = RNG.integers(0, 6, (4, 8)).astype(np.int64)
    up = randn(dtype=np.float32)
    res = []
    for general in (False, True):
        if general:
            monkeypatch.setattr(F._fast, "_common", lambda *args: None)
        fx = to_fw(x, requires_grad=True)
        loss = getattr(F, which)(fx.view(-1, 6), to_fw(t).view(-1), ignore_index=-1)
        names = _graph_names(loss.grad_fn)
        loss.backward(to_fw(up))
        res.append((loss.detach().numpy(), fx.grad.numpy(), names))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])
    tx = to_torch(x, requires_grad=True)
    tl = getattr(TF, which)(tx.view(-1, 6), to_torch(t).view(-1), ignore_index=-1)
    assert res[0][2] == res[1][2] == _graph_names(tl.grad_fn)
    tl.backward(to_torch(up))
    assert_close(to_fw(res[0][1]), tx.grad, rtol=1e-5, atol=1e-7)
