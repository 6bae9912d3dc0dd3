"""nn.AdaptiveLogSoftmaxWithLoss, nn.CrossMapLRN2d and nn.UninitializedBuffer against torch:
values, node names, gradients with a random upstream gradient, errors, repr; gradcheck of
CrossMapLRN2d's hand-written backward."""

import numpy as np
import pytest
import torch

import framework as fw
from framework.autograd import gradcheck


def _copy_params(fm, tm):
    fm.load_state_dict({k: fw.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})


@pytest.mark.parametrize("head_bias", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_adaptive_log_softmax_forward_backward(head_bias, seed):
    torch.manual_seed(seed)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(
        16, 20, [4, 10, 15], div_value=2.0, head_bias=head_bias
    )
    fm = fw.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10, 15], div_value=2.0, head_bias=head_bias)
    _copy_params(fm, tm)
    assert repr(fm) == repr(tm)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((9, 16)).astype(np.float32)
    y = rng.integers(0, 20, 9)
    tx, fx = torch.tensor(x, requires_grad=True), fw.tensor(x, requires_grad=True)
    t = tm(tx, torch.tensor(y))
    f = fm(fx, fw.tensor(y))
    np.testing.assert_allclose(
        f.output.detach().numpy(), t.output.detach().numpy(), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(f.loss.item(), t.loss.item(), rtol=1e-6)
    assert type(f.loss.grad_fn).__name__ == type(t.loss.grad_fn).__name__
    assert type(f).__name__ == "_ASMoutput" and f._fields == t._fields
    g = rng.standard_normal(9).astype(np.float32)
    (t.output * torch.tensor(g)).sum().backward()
    (f.output * fw.tensor(g)).sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    for (n, tp), (_, fp) in zip(tm.named_parameters(), fm.named_parameters()):
        np.testing.assert_allclose(
            fp.grad.numpy(), tp.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=n
        )
    tl, fl = tm.log_prob(tx), fm.log_prob(fx)
    np.testing.assert_allclose(fl.detach().numpy(), tl.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(fm.predict(fx).numpy(), tm.predict(tx).numpy())


def test_adaptive_log_softmax_unbatched_and_predict_paths():
    torch.manual_seed(3)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(6, 8, [2, 5])
    fm = fw.nn.AdaptiveLogSoftmaxWithLoss(6, 8, [2, 5])
    _copy_params(fm, tm)
    x = np.random.default_rng(4).standard_normal(6).astype(np.float32)
    t = tm(torch.tensor(x), torch.tensor(6))
    f = fm(fw.tensor(x), fw.tensor(6))
    assert tuple(f.output.shape) == tuple(t.output.shape) == ()
    np.testing.assert_allclose(f.output.item(), t.output.item(), rtol=1e-6)
    with torch.no_grad():  # head biased towards the clusters: predict's other branches
        for bias in ([0, 0, 9, 9], [0, 9, 0, 9], [9, 9, 0, 0]):
            th = torch.nn.AdaptiveLogSoftmaxWithLoss(6, 8, [2, 5], head_bias=True)
            fh = fw.nn.AdaptiveLogSoftmaxWithLoss(6, 8, [2, 5], head_bias=True)
            th.head.bias.copy_(torch.tensor(bias, dtype=torch.float32))
            _copy_params(fh, th)
            xs = np.random.default_rng(5).standard_normal((7, 6)).astype(np.float32)
            np.testing.assert_array_equal(
                fh.predict(fw.tensor(xs)).numpy(), th.predict(torch.tensor(xs)).numpy()
            )


@pytest.mark.parametrize(
    "cutoffs",
    [[], [5, 3], [0, 3], [3, 20], [3, 3]],
    ids=["empty", "unsorted", "zero", "big", "dup"],
)
def test_adaptive_log_softmax_cutoff_errors(cutoffs):
    with pytest.raises(ValueError) as te:
        torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)
    with pytest.raises(ValueError) as fe:
        fw.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)
    assert str(fe.value) == str(te.value)


def test_adaptive_log_softmax_input_errors():
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
    fm = fw.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
    cases = [
        ((3, 4), [0, 1]),
        ((3, 4, 1), [0, 1, 2]),
        ((3, 4), [0, 1, 7]),
        ((3, 4), [[0], [1], [2]]),
    ]
    for shape, y in cases:
        with pytest.raises(RuntimeError) as te:
            tm(torch.zeros(shape), torch.tensor(y))
        with pytest.raises(RuntimeError) as fe:
            fm(fw.zeros(shape), fw.tensor(y))
        assert str(fe.value) == str(te.value)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 6])
@pytest.mark.parametrize("channels", [1, 4, 7])
def test_cross_map_lrn2d(size, channels):
    x = np.random.default_rng(size * 10 + channels).standard_normal((2, channels, 3, 4))
    x = x.astype(np.float32)
    tm, fm = torch.nn.CrossMapLRN2d(size, 1e-2, 0.6, 1.5), fw.nn.CrossMapLRN2d(size, 1e-2, 0.6, 1.5)
    assert repr(fm) == repr(tm)
    tx, fx = torch.tensor(x, requires_grad=True), fw.tensor(x, requires_grad=True)
    t, f = tm(tx), fm(fx)
    # torch's float32 pow rounds by position in its vector loop; values within an ulp
    np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert type(f.grad_fn).__name__ == type(t.grad_fn).__name__ == "CrossMapLRN2dBackward"
    g = np.random.default_rng(1).standard_normal(x.shape).astype(np.float32)
    if size == 1:  # torch's backward narrows past its padded buffer: the same error
        with pytest.raises(RuntimeError) as te:
            t.backward(torch.tensor(g))
        with pytest.raises(RuntimeError) as fe:
            f.backward(fw.tensor(g))
        assert str(fe.value) == str(te.value)
        return
    t.backward(torch.tensor(g))
    f.backward(fw.tensor(g))
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("size", [2, 3, 5])
def test_cross_map_lrn2d_float64_backward_is_torchs(size):
    """torch's legacy backward is not the derivative of its forward (the window bounds of
    the two differ): its gradcheck fails, so ours is checked equal to torch's in float64 and
    failing gradcheck the same way."""
    x = np.random.default_rng(size).standard_normal((2, 5, 2, 3))
    g = np.random.default_rng(size + 1).standard_normal((2, 5, 2, 3))
    tx, fx = torch.tensor(x, requires_grad=True), fw.tensor(x, requires_grad=True)
    torch.nn.CrossMapLRN2d(size, 0.5, 0.75, 1.0)(tx).backward(torch.tensor(g))
    fw.nn.CrossMapLRN2d(size, 0.5, 0.75, 1.0)(fx).backward(fw.tensor(g))
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)
    fn = lambda x: fw.nn.CrossMapLRN2d(size, 0.5, 0.75, 1.0)(x)
    assert not gradcheck(fn, (fx.detach().requires_grad_(),), raise_exception=False)


def test_cross_map_lrn2d_error():
    with pytest.raises(ValueError) as te:
        torch.nn.CrossMapLRN2d(3)(torch.zeros(2, 3, 4))
    with pytest.raises(ValueError) as fe:
        fw.nn.CrossMapLRN2d(3)(fw.zeros(2, 3, 4))
    assert str(fe.value) == str(te.value)


def test_uninitialized_buffer():
    tb, fb = torch.nn.UninitializedBuffer(), fw.nn.UninitializedBuffer()
    assert repr(fb) == repr(tb)
    assert isinstance(fb, fw.Tensor)
    with pytest.raises(RuntimeError) as te:
        tb.shape
    with pytest.raises(RuntimeError) as fe:
        fb.shape
    assert str(fe.value) == str(te.value)
    tb.materialize((2, 3))
    fb.materialize((2, 3))
    assert type(fb) is fw.Tensor and type(tb) is torch.Tensor
    assert tuple(fb.shape) == tuple(tb.shape) and fb.requires_grad == tb.requires_grad
    assert repr(fb.dtype) == repr(tb.dtype)
    fd = fw.nn.UninitializedBuffer(dtype=fw.float64, persistent=False)
    assert fd.persistent is False
    fd.materialize((4,))
    assert fd.dtype is fw.float64
    m = fw.nn.Module()
    m.register_buffer("x", fw.nn.UninitializedBuffer())
    m.x.materialize((3,))
    assert list(m.state_dict()) == ["x"] and tuple(m.state_dict()["x"].shape) == (3,)


def test_torch_module_paths():
    from framework.nn.modules.adaptive import AdaptiveLogSoftmaxWithLoss
    from framework.nn.modules.normalization import CrossMapLRN2d

    assert AdaptiveLogSoftmaxWithLoss is fw.nn.AdaptiveLogSoftmaxWithLoss
    assert CrossMapLRN2d is fw.nn.CrossMapLRN2d
    assert fw.nn.modules.AdaptiveLogSoftmaxWithLoss is fw.nn.AdaptiveLogSoftmaxWithLoss
    assert "AdaptiveLogSoftmaxWithLoss" in torch.nn.modules.__all__
