"""The engine's and Op.apply's fast paths (issue 17): the same results and hooks as the
general paths, against torch where torch has the behaviour."""

import numpy as np
import pytest
import torch

import framework
from helpers import RNG, assert_close, to_fw, to_torch


def _mlp(lib, seed=0):
    rng = np.random.default_rng(seed)
    w1, b1 = rng.standard_normal((6, 4)), rng.standard_normal(6)
    w2, b2 = rng.standard_normal((3, 6)), rng.standard_normal(3)
    return [lib.tensor(a, requires_grad=True) for a in (w1, b1, w2, b2)]


def _loss(lib, params, x, t):
    w1, b1, w2, b2 = params
    F = lib.nn.functional
    return F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), t)


def test_linear_mlp_gradients_match_torch_and_weights_take_their_gradient():
    """Addmm's three-tensor path and bias sum, the inline AccumulateGrad: torch's gradients;
    a weight's gradient array is taken by .grad (a view of the product), not copied."""
    x, t = RNG.standard_normal((5, 4)), RNG.integers(0, 3, 5)
    fp, tp = _mlp(framework), _mlp(torch)
    _loss(framework, fp, to_fw(x), to_fw(t)).backward()
    _loss(torch, tp, to_torch(x), to_torch(t)).backward()
    for f, p in zip(fp, tp):
        assert_close(f.grad, p.grad)
    for w in (fp[0], fp[2]):  # (a copy would own its memory)
        assert w.grad._data.base is not None
    _loss(framework, fp, to_fw(x), to_fw(t)).backward()  # a second backward accumulates
    _loss(torch, tp, to_torch(x), to_torch(t)).backward()
    for f, p in zip(fp, tp):
        assert_close(f.grad, p.grad)


def test_accumulate_grad_hooks_still_run():
    """Leaf hooks, post-accumulate hooks and a hook on the AccumulateGrad node itself take the
    general path; their effects are torch's. (A pre-hook on that node runs before the leaf's
    hooks here, after them in torch, and a post-hook on it sees the gradient before the leaf's
    hooks where torch's sees it after: known differences of the general path, not covered.)"""
    seen = {}
    results = []
    for lib in (framework, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        w.register_hook(lambda g: g * 2)

        def post(p, name=lib.__name__):
            seen[name] = p.grad * 1

        w.register_post_accumulate_grad_hook(post)
        y = w * 3
        acc = y.grad_fn.next_functions[0][0]
        calls = []
        acc.register_hook(lambda gi, go: calls.append(go[0] * 1))
        y.sum().backward()
        assert len(calls) == 1
        results.append((w.grad, seen[lib.__name__]))
    for f, t in zip(*results):
        assert_close(f, t)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_implicit_root_gradient(dtype):
    """loss.backward() on a float scalar: ones of its dtype; other roots keep torch's errors."""
    x = RNG.standard_normal(3).astype(dtype)
    f, t = to_fw(x, requires_grad=True), to_torch(x, requires_grad=True)
    (f * f).sum().backward()
    (t * t).sum().backward()
    assert_close(f.grad, t.grad)
    for make in (lambda lib, a: lib.tensor([1.0, 2.0]).sum(), lambda lib, a: a * 2):
        errors = []
        for lib, a in ((framework, f), (torch, t)):
            with pytest.raises(RuntimeError) as err:
                make(lib, a).backward()
            errors.append(str(err.value))
        assert errors[0] == errors[1]


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
def test_implicit_root_gradient_is_fresh_each_backward(shape):
    """The implicit 1 is a new array per backward (copied from a cached one): a scalar leaf's
    `.grad` takes it and accumulates in place, a hook changes its gradient in place, and the
    next backward still starts from 1, as torch's."""
    results = []
    for lib in (framework, torch):
        z = lib.full(shape, 2.0, requires_grad=True)
        z.backward()
        z.backward()  # .grad (the first backward's 1) summed in place
        y = z * 3
        y.register_hook(lambda g: g.mul_(5))  # changes the root gradient in place
        y.backward()
        (z * 1).backward()
        results.append((z.grad.clone(), z.grad.shape))
    assert_close(results[0][0], results[1][0])
    assert tuple(results[0][1]) == tuple(results[1][1])


def test_three_tensor_ops_match_torch():
    """addmm with a broadcast bias, addcmul and where: the three-tensor path of Op.apply."""
    a, b, c = (RNG.standard_normal(s) for s in ((1, 3), (2, 4), (4, 3)))
    for fn in (
        lambda L, x, y, z: L.addmm(x, y, z),
        lambda L, x, y, z: L.addmm(x, y, z, beta=0.5, alpha=2.0),
    ):
        ins_f = [to_fw(v, requires_grad=True) for v in (a, b, c)]
        ins_t = [to_torch(v, requires_grad=True) for v in (a, b, c)]
        out_f, out_t = fn(framework, *ins_f), fn(torch, *ins_t)
        assert_close(out_f, out_t)
        assert type(out_f.grad_fn).__name__ == type(out_t.grad_fn).__name__
        up = RNG.standard_normal(out_t.shape)
        out_f.backward(to_fw(up))
        out_t.backward(to_torch(up))
        for f, t in zip(ins_f, ins_t):
            assert_close(f.grad, t.grad)
    x, y, z = (RNG.standard_normal((3, 4)) for _ in range(3))
    ins_f = [to_fw(v, requires_grad=True) for v in (x, y, z)]
    ins_t = [to_torch(v, requires_grad=True) for v in (x, y, z)]
    out_f = framework.addcmul(*ins_f, value=0.5)
    out_t = torch.addcmul(*ins_t, value=0.5)
    assert_close(out_f, out_t)
    assert type(out_f.grad_fn).__name__ == type(out_t.grad_fn).__name__
    out_f.sum().backward()
    out_t.sum().backward()
    for f, t in zip(ins_f, ins_t):
        assert_close(f.grad, t.grad)


def test_three_tensor_op_input_modified_in_place_is_refused():
    """A saved input of a three-tensor node modified after forward: torch's error."""
    errors = []
    for lib in (framework, torch):
        bias = lib.zeros(3, requires_grad=True)
        m1 = lib.ones(2, 4, requires_grad=True)
        m2 = lib.ones(4, 3) * 1.0
        m2.requires_grad_(True)
        h = m1 * 1.0
        out = lib.addmm(bias, h, m2)
        h.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as err:
            out.sum().backward()
        errors.append(str(err.value).split(";")[0].split("[")[0])
    assert errors[0] == errors[1]
