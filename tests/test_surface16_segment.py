"""torch.segment_reduce against torch: values (float32/float64, every reduction, with and
without initial, ties, NaN, empty segments, lengths or offsets, 2-D lengths along axis 1),
node SegmentReduceBackward0, gradients with a random upstream gradient, gradcheck, the
not-implemented double backward and forward AD, and the errors."""

import numpy as np
import pytest
import torch

import framework as fw
from framework.autograd import gradcheck

REDUCES = ["sum", "mean", "max", "min", "prod", "amax", "amin"]


def _run(reduce, data, initial=None, axis=0, dtype=np.float32, seed=0, **seg):
    td = torch.tensor(data.astype(dtype), requires_grad=True)
    fd = fw.tensor(data.astype(dtype), requires_grad=True)
    tk = {k: torch.tensor(v) for k, v in seg.items()}
    fk = {k: fw.tensor(v) for k, v in seg.items()}
    t = torch.segment_reduce(td, reduce, axis=axis, initial=initial, **tk)
    f = fw.segment_reduce(fd, reduce, axis=axis, initial=initial, **fk)
    assert repr(f.dtype) == repr(t.dtype) and tuple(f.shape) == tuple(t.shape)
    np.testing.assert_array_equal(f.detach().numpy(), t.detach().numpy())
    assert type(f.grad_fn).__name__ == type(t.grad_fn).__name__ == "SegmentReduceBackward0"
    g = np.random.default_rng(seed).standard_normal(tuple(t.shape)).astype(dtype)
    t.backward(torch.tensor(g))
    f.backward(fw.tensor(g))
    np.testing.assert_allclose(fd.grad.numpy(), td.grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("initial", [None, 2.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_segment_reduce_1d(reduce, initial, dtype):
    data = np.array([1.0, 3.0, 3.0, 2.0, 5.0, 0.0, 4.0, 3.0, 3.0, -1.5])
    _run(reduce, data, initial, dtype=dtype, lengths=np.array([2, 0, 3, 2, 3]))
    _run(reduce, data, initial, dtype=dtype, offsets=np.array([0, 2, 2, 5, 7, 10]))
    rnd = np.random.default_rng(1).standard_normal(12)
    _run(reduce, rnd, initial, dtype=dtype, seed=2, lengths=np.array([5, 1, 0, 6]))


@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_reduce_axis1_2d_lengths(reduce):
    data = np.random.default_rng(3).standard_normal((3, 6, 2))
    lengths = np.array([[2, 4], [6, 0], [1, 5]])
    _run(reduce, data, axis=1, dtype=np.float64, lengths=lengths)
    _run(reduce, data[0], axis=0, dtype=np.float64, lengths=np.array([1, 5]))


def test_segment_reduce_nan():
    data = np.array([1.0, np.nan, 2.0, 4.0])
    for reduce in ["max", "min", "sum"]:
        td = torch.segment_reduce(torch.tensor(data), reduce, lengths=torch.tensor([2, 2]))
        fd = fw.segment_reduce(fw.tensor(data), reduce, lengths=fw.tensor([2, 2]))
        np.testing.assert_array_equal(fd.numpy(), td.numpy())


def test_segment_reduce_gradcheck_and_higher_order():
    x = fw.randn(7, 2, dtype=fw.float64, requires_grad=True)
    for reduce in ["sum", "mean", "max", "prod"]:
        fn = lambda x: fw.segment_reduce(x, reduce, lengths=fw.tensor([3, 1, 3]))
        assert gradcheck(fn, (x,))  # (an empty segment's -inf or NaN has no finite difference)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    t = torch.segment_reduce(tx, "sum", lengths=torch.tensor([3, 0, 4]))
    f = fw.segment_reduce(x, "sum", lengths=fw.tensor([3, 0, 4]))
    (tg,) = torch.autograd.grad(t.sum(), tx, create_graph=True)
    (fg,) = fw.autograd.grad(f.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError) as te:
        tg.sum().backward()
    with pytest.raises(RuntimeError) as fe:
        fg.sum().backward()
    assert str(fe.value) == str(te.value)
    with pytest.raises(NotImplementedError) as te:
        torch.func.jvp(lambda d: torch.segment_reduce(d, "sum", lengths=torch.tensor([3, 0, 4])), (tx.detach(),), (torch.ones(7, 2, dtype=torch.float64),))  # fmt: skip
    fwd = fw.autograd.forward_ad
    with pytest.raises(NotImplementedError) as fe:
        with fwd.dual_level():
            d = fwd.make_dual(x.detach(), fw.ones(7, 2, dtype=fw.float64))
            fw.segment_reduce(d, "sum", lengths=fw.tensor([3, 0, 4]))
    assert str(fe.value) == str(te.value)


@pytest.mark.parametrize(
    "kwargs",
    [dict(reduce="foo", lengths=[1, 3]), dict(reduce="sum"), dict(reduce="sum", lengths=[1, 2])],
    ids=["reduce", "none", "cover"],
)
def test_segment_reduce_errors(kwargs):
    kw = dict(kwargs)
    reduce = kw.pop("reduce")
    tk = {k: torch.tensor(v) for k, v in kw.items()}
    fk = {k: fw.tensor(v) for k, v in kw.items()}
    with pytest.raises(RuntimeError) as te:
        torch.segment_reduce(torch.zeros(4, 5), reduce, **tk)
    with pytest.raises(RuntimeError) as fe:
        fw.segment_reduce(fw.zeros(4, 5), reduce, **fk)
    assert str(fe.value) == str(te.value)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("reduce", ["max", "min"])
def test_segment_reduce_ties_share_as_torch(sign, reduce):
    data = np.array([3.0, 3.0, 1.0, 2.0, 2.0, 2.0]) * (1 if reduce == "max" else -1)
    for g in ([sign, 2 * sign], [sign, -2 * sign]):
        td, fd = torch.tensor(data, requires_grad=True), fw.tensor(data, requires_grad=True)
        torch.segment_reduce(td, reduce, lengths=torch.tensor([3, 3])).backward(torch.tensor(g))
        fw.segment_reduce(fd, reduce, lengths=fw.tensor([3, 3])).backward(fw.tensor(g))
        np.testing.assert_array_equal(fd.grad.numpy(), td.grad.numpy())
