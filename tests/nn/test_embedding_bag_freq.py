"""EmbeddingBag / F.embedding_bag with scale_grad_by_freq=True in 'sum' and 'mean' modes
against torch (CPU): values, node names, weight and per-sample-weight gradients (random
upstream), the module form, torch's refusals (max mode; sparse gradients in backward), and
gradcheck/gradgradcheck. torch's dense CPU kernel scales the i-th distinct index's rows by
1 / count(sorted input[i]) rather than by its own count; that is what torch computes, so it is
what is compared (the true-frequency form, used on CUDA as torch's CUDA kernel does, is
checked against its definition)."""

import numpy as np
import pytest
import torch

import framework
from framework.autograd import gradcheck, gradgradcheck
from framework.ops.embedding_bag import _inverse_freq
from tests.helpers import assert_close

IDX = np.array([0, 2, 2, 1, 2, 5, 0, 6, 6, 6])
CASES = {
    "offsets": dict(input=IDX[:7], offsets=np.array([0, 3, 5])),
    "empty_bag": dict(input=np.array([4, 4, 4, 3, 1, 1]), offsets=np.array([0, 0, 2, 2])),
    "last_offset": dict(input=IDX[:7], offsets=np.array([0, 3, 7]), include_last_offset=True),
    "padding_idx": dict(input=IDX, offsets=np.array([0, 3, 5]), padding_idx=2),
    "two_d": dict(input=IDX[:9].reshape(3, 3)),
    "all_same": dict(input=np.array([3, 3, 3, 3]), offsets=np.array([0, 1])),
}


def _run(L, mode, kw, dtype, psw=None):
    rng = np.random.default_rng(0)
    w = L.tensor(rng.standard_normal((7, 3))).to(getattr(L, dtype)).requires_grad_()
    args = {k: (L.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    p = None
    if psw is not None:
        p = L.tensor(psw).to(getattr(L, dtype)).requires_grad_()
    out = L.nn.functional.embedding_bag(
        weight=w, mode=mode, scale_grad_by_freq=True, per_sample_weights=p, **args
    )
    out.backward(L.tensor(rng.standard_normal(tuple(out.shape))).to(out.dtype))
    return out, w.grad, (p.grad if p is not None else None)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_scale_grad_by_freq_matches_torch(case, mode, dtype):
    tol = (1e-12, 1e-12) if dtype == "float64" else (1e-6, 1e-6)
    want = _run(torch, mode, CASES[case], dtype)
    got = _run(framework, mode, CASES[case], dtype)
    assert type(got[0].grad_fn).__name__ == type(want[0].grad_fn).__name__
    assert_close(got[0], want[0], *tol)
    assert_close(got[1], want[1], *tol)


@pytest.mark.parametrize("case", ["offsets", "two_d", "padding_idx"])
def test_scale_grad_by_freq_with_per_sample_weights(case):
    """The weight's gradient is scaled; the per-sample weights' gradient is not (torch's
    _embedding_bag_per_sample_weights_backward ignores the flag)."""
    n = CASES[case]["input"].shape
    psw = np.random.default_rng(1).standard_normal(n)
    want = _run(torch, "sum", CASES[case], "float64", psw)
    got = _run(framework, "sum", CASES[case], "float64", psw)
    for g, w in zip(got, want):
        assert_close(g, w, 1e-12, 1e-12)


def test_module_form_matches_torch():
    torch.manual_seed(0)
    th = torch.nn.EmbeddingBag(8, 3, mode="mean", scale_grad_by_freq=True).double()
    fw = framework.nn.EmbeddingBag(8, 3, mode="mean", scale_grad_by_freq=True).double()
    fw.load_state_dict({"weight": framework.tensor(th.weight.detach().numpy())})
    assert repr(fw) == repr(th)
    x = np.array([[0, 2, 2, 7], [4, 0, 2, 7]])
    up = np.random.default_rng(2).standard_normal((2, 3))
    th(torch.tensor(x)).backward(torch.tensor(up))
    fw(framework.tensor(x)).backward(framework.tensor(up))
    assert_close(fw.weight.grad, th.weight.grad, 1e-12, 1e-12)


def test_sparse_gradients_refused_in_backward():
    msgs = []
    for L in (torch, framework):
        w = L.ones(5, 2, requires_grad=True)
        out = L.nn.functional.embedding_bag(
            L.tensor([[0, 1]]), w, mode="sum", scale_grad_by_freq=True, sparse=True
        )
        with pytest.raises(RuntimeError) as e:
            out.sum().backward()
        msgs.append(str(e.value).split("\n")[0])
    assert (
        msgs[0]
        == msgs[1]
        == ("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    )


def test_true_frequency_form():
    """cpu=False (CUDA's kernel): each index's rows are divided by how often it occurs."""
    every = np.array([0, 2, 2, 1, 2, 5, 0])
    idx = np.array([2, 0, 5, 1])
    assert np.allclose(_inverse_freq(np, every, idx, 7), [1 / 3, 1 / 2, 1, 1])
    # torch's CPU kernel: distinct indices 0,1,2,5 are groups 0..3; sorted input is
    # [0,0,1,2,2,2,5], so group g uses count(sorted[g]): 0->2, 1->2, 2->1, 5->3
    assert np.allclose(_inverse_freq(np, every, idx, 7, cpu=True), [1, 1 / 2, 1 / 3, 1 / 2])


def test_gradcheck_of_the_unscaled_inputs():
    """The scaled weight gradient is by design not the derivative (gradcheck does not apply
    to it, in torch either); the per-sample weights' gradient is, flag or not."""
    rng = np.random.default_rng(3)
    w = framework.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    psw = framework.tensor(rng.standard_normal(6), requires_grad=True)
    idx, offs = framework.tensor([1, 2, 4, 2, 1, 1]), framework.tensor([0, 2, 4])
    fn = lambda p: framework.nn.functional.embedding_bag(
        idx, w, offs, mode="sum", scale_grad_by_freq=True, per_sample_weights=p
    )
    assert gradcheck(fn, (psw,)) and gradgradcheck(fn, (psw,))
