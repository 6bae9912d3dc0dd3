"""SyncBatchNorm (single process: BatchNorm's numbers, buffers and node), its
convert_sync_batchnorm, and the deprecated NLLLoss2d, against torch."""

import numpy as np
import pytest
import torch

import framework as fw


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 3, 2)])
@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("seed", range(3))
def test_sync_batchnorm_is_batchnorm(shape, momentum, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    g = np.random.default_rng(seed + 1).standard_normal(shape).astype(np.float32)
    res = []
    for lib in (torch, fw):
        lib.manual_seed(seed)
        m = lib.nn.SyncBatchNorm(3, momentum=momentum)
        x = lib.tensor(a, requires_grad=True)
        y = m(x)
        y.backward(lib.tensor(g))
        m.eval()
        z = m(lib.tensor(a))
        res.append(
            (
                y.detach().numpy(),
                z.detach().numpy(),
                x.grad.numpy(),
                m.weight.grad.numpy(),
                m.running_mean.numpy(),
                m.running_var.numpy(),
                int(m.num_batches_tracked),
                type(y.grad_fn).__name__,
                repr(m),
            )
        )
    for a_, b_ in zip(res[0][:7], res[1][:7]):
        np.testing.assert_allclose(b_, a_, rtol=1e-5, atol=1e-6)
    assert res[0][7:] == res[1][7:]


def test_sync_batchnorm_signature_and_errors():
    for lib in (torch, fw):
        m = lib.nn.SyncBatchNorm(2, 1e-3, 0.2, False, False, None, bias=False)
        assert (m.weight, m.running_mean, m.process_group) == (None, None, None)
        with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
            m(lib.ones(3))
        with pytest.raises(ValueError, match="number of input channels should be non-zero"):
            lib.nn.SyncBatchNorm(0)(lib.ones(2, 0))


def test_convert_sync_batchnorm():
    out = []
    for lib in (torch, fw):
        net = lib.nn.Sequential(
            lib.nn.Conv2d(2, 3, 1),
            lib.nn.BatchNorm2d(3),
            lib.nn.Sequential(lib.nn.BatchNorm1d(4, affine=False)),
        )
        net[1].running_mean.fill_(0.5)
        net.eval()
        conv = lib.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        assert conv[1].weight is net[1].weight and conv[1].running_mean is net[1].running_mean
        out.append(
            (
                [type(m).__name__ for m in conv.modules()],
                conv[1].training,
                conv[2][0].affine,
                conv[2][0].weight,
                list(conv.state_dict()),
            )
        )
    assert out[0] == out[1]


def test_nll_loss2d_deprecated():
    lp = np.log(np.random.default_rng(0).dirichlet(np.ones(3), size=(2, 4, 4))).astype(np.float32)
    lp = np.ascontiguousarray(lp.transpose(0, 3, 1, 2))
    tgt = np.random.default_rng(1).integers(0, 3, (2, 4, 4))
    res = []
    for lib in (torch, fw):
        with pytest.warns(FutureWarning) as w:
            loss = lib.nn.NLLLoss2d(ignore_index=1, reduction="sum")
        v = loss(lib.tensor(lp), lib.tensor(tgt))
        res.append((str(w[0].message), v.item(), isinstance(loss, lib.nn.NLLLoss)))
    assert res[0] == res[1]


LAZY_CONVS = [
    ("LazyConv1d", (2, 4, 9), dict(stride=2, padding=1)),
    ("LazyConv1d", (4, 9), dict(groups=2, bias=False)),
    ("LazyConv2d", (2, 4, 6, 5), dict(dilation=2, padding_mode="reflect", padding=1)),
    ("LazyConv3d", (1, 2, 4, 4, 4), {}),
    ("LazyConvTranspose1d", (2, 4, 5), dict(stride=2, output_padding=1)),
    ("LazyConvTranspose2d", (2, 4, 5, 5), dict(groups=2)),
    ("LazyConvTranspose3d", (1, 2, 3, 3, 3), dict(bias=False)),
]


@pytest.mark.parametrize("name,shape,kwargs", LAZY_CONVS)
@pytest.mark.parametrize("seed", range(3))
def test_lazy_conv_same_draws(name, shape, kwargs, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    res = []
    for lib in (torch, fw):
        lib.manual_seed(seed)
        m = getattr(lib.nn, name)(4, 3, **kwargs)
        assert m.has_uninitialized_params()
        y = m(lib.tensor(x))
        after = lib.rand(2).tolist()  # the same number of draws
        res.append(
            (
                y.detach().numpy(),
                m.weight.detach().numpy(),
                None if m.bias is None else m.bias.detach().numpy(),
                type(m).__name__,
                type(m.weight).__name__,
                repr(m),
                after,
                m.in_channels,
            )
        )
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(res[1][1], res[0][1])
    if res[0][2] is not None:
        np.testing.assert_array_equal(res[1][2], res[0][2])
    assert res[0][3:] == res[1][3:]


def test_lazy_conv_errors():
    for lib in (torch, fw):
        with pytest.raises(
            RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input"
        ):
            lib.nn.LazyConv1d(4, 3)(lib.ones(1, 2, 3, 4))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.nn.LazyConv1d(4, 3, groups=2)(lib.ones(1, 3, 5))


LAZY_NORMS = [
    ("LazyBatchNorm1d", (4, 3), {}),
    ("LazyBatchNorm1d", (4, 3, 5), dict(affine=False)),
    ("LazyBatchNorm2d", (2, 3, 4, 4), dict(momentum=None)),
    ("LazyBatchNorm3d", (2, 3, 2, 2, 2), dict(track_running_stats=False)),
    ("LazyInstanceNorm1d", (2, 3, 5), {}),
    ("LazyInstanceNorm2d", (2, 3, 4, 4), dict(affine=False, track_running_stats=False)),
    ("LazyInstanceNorm3d", (2, 3, 2, 2, 2), dict(bias=False)),
]


@pytest.mark.parametrize("name,shape,kwargs", LAZY_NORMS)
def test_lazy_norms(name, shape, kwargs):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    g = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    res = []
    for lib in (torch, fw):
        m = getattr(lib.nn, name)(**kwargs)
        before = sorted(n for n, _ in m.named_parameters())
        xt = lib.tensor(x, requires_grad=True)
        y = m(xt)
        y.backward(lib.tensor(g))
        res.append(
            (
                y.detach().numpy(),
                xt.grad.numpy(),
                type(m).__name__,
                repr(m),
                before,
                list(m.state_dict()),
                m.num_features,
                None if m.running_mean is None else m.running_mean.tolist(),
                type(y.grad_fn).__name__,
            )
        )
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-5, atol=1e-6)
    assert res[0][2:7] == res[1][2:7] and res[0][8] == res[1][8]
    if res[0][7] is not None:
        np.testing.assert_allclose(res[1][7], res[0][7], rtol=1e-6)
