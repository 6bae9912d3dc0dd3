"""nn.utils additions against torch: get_total_norm, clip_grads_with_norm_, clip_grad_norm's
FutureWarning, the conv/linear BatchNorm fusions (values, dtypes, requires_grad), skip_init
(no random draws consumed), convert_conv2d_weight_memory_format and stateless.functional_call."""

import numpy as np
import pytest
import torch

import framework as fw


def _arrays(seed, shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, float("inf")])
@pytest.mark.parametrize("seed", range(3))
def test_total_norm_and_clip(norm_type, seed):
    arrs = _arrays(seed, [(3, 4), (5,), (2, 2, 2)])
    out = []
    for lib in (torch, fw):
        ps = [lib.zeros(a.shape, requires_grad=True) for a in arrs]
        for p, a in zip(ps, arrs):
            p.grad = lib.tensor(a)
        total = lib.nn.utils.get_total_norm([p.grad for p in ps], norm_type)
        lib.nn.utils.clip_grads_with_norm_(ps, 0.5, total)
        out.append((total.numpy(), [p.grad.numpy() for p in ps]))
    np.testing.assert_array_equal(out[0][0], out[1][0]) if norm_type in (1.0, float("inf")) else (
        np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6)
    )
    for a, b in zip(out[0][1], out[1][1]):
        np.testing.assert_allclose(b, a, rtol=1e-6)


def test_total_norm_edge_cases():
    for lib in (torch, fw):
        assert lib.nn.utils.get_total_norm([]).item() == 0.0
        with pytest.raises(RuntimeError, match="non-finite"):
            lib.nn.utils.get_total_norm([lib.tensor([float("inf")])], error_if_nonfinite=True)
        assert (
            lib.nn.utils.clip_grads_with_norm_(
                [lib.zeros(1, requires_grad=True)], 1.0, lib.tensor(1.0)
            )
            is None
        )


def test_clip_grad_norm_deprecated():
    msgs = []
    for lib in (torch, fw):
        p = lib.zeros(2, requires_grad=True)
        p.grad = lib.tensor([3.0, 4.0])
        with pytest.warns(FutureWarning) as w:
            total = lib.nn.utils.clip_grad_norm([p], 1.0)
        msgs.append((str(w[0].message), total.item(), p.grad.tolist()))
    assert msgs[0] == msgs[1]


def _copy_bn(t_bn, f_bn, seed):
    rm, rv, w, b = _arrays(seed, [(3,), (3,), (3,), (3,)])
    rv = np.abs(rv) + 0.5
    for bn, lib in ((t_bn, torch), (f_bn, fw)):
        bn.running_mean.copy_(lib.tensor(rm))
        bn.running_var.copy_(lib.tensor(rv))
        with lib.no_grad():
            bn.weight.copy_(lib.tensor(w))
            bn.bias.copy_(lib.tensor(b))
        bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_fuse_conv_bn(transpose, bias):
    ws = (2, 3, 2, 2) if transpose else (3, 2, 2, 2)
    cw, cb, x = _arrays(0, [ws, (3,), (1, 2, 5, 5)])
    mods = []
    for lib in (torch, fw):
        cls = lib.nn.ConvTranspose2d if transpose else lib.nn.Conv2d
        conv = cls(2, 3, 2, bias=bias).eval()
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(cw))
            if bias:
                conv.bias.copy_(lib.tensor(cb))
        mods.append((conv, lib.nn.BatchNorm2d(3)))
    _copy_bn(mods[0][1], mods[1][1], 1)
    t = torch.nn.utils.fuse_conv_bn_eval(*mods[0], transpose=transpose)
    f = fw.nn.utils.fuse_conv_bn_eval(*mods[1], transpose=transpose)
    np.testing.assert_array_equal(f.weight.detach().numpy(), t.weight.detach().numpy())
    np.testing.assert_array_equal(f.bias.detach().numpy(), t.bias.detach().numpy())
    assert (type(f.weight).__name__, f.weight.requires_grad, f.bias.requires_grad) == (
        type(t.weight).__name__,
        t.weight.requires_grad,
        t.bias.requires_grad,
    )
    assert f is not mods[1][0]
    np.testing.assert_allclose(
        f(fw.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6
    )


def test_fuse_linear_bn_and_errors():
    lw, lb = _arrays(2, [(3, 4), (3,)])
    mods = []
    for lib in (torch, fw):
        lin = lib.nn.Linear(4, 3).eval()
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(lw))
            lin.bias.copy_(lib.tensor(lb))
        mods.append((lin, lib.nn.BatchNorm1d(3)))
    _copy_bn(mods[0][1], mods[1][1], 3)
    t = torch.nn.utils.fuse_linear_bn_eval(*mods[0])
    f = fw.nn.utils.fuse_linear_bn_eval(*mods[1])
    np.testing.assert_array_equal(f.weight.detach().numpy(), t.weight.detach().numpy())
    np.testing.assert_array_equal(f.bias.detach().numpy(), t.bias.detach().numpy())
    for lib in (torch, fw):
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        with pytest.raises(AssertionError, match="linear.out_features=3 and bn.num_features=2"):
            lib.nn.utils.fuse_linear_bn_eval(
                lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval()
            )


def test_fuse_weights_dtype_and_defaults():
    for lib in (torch, fw):
        w, b = lib.nn.utils.fuse_conv_bn_weights(
            lib.ones(2, 1, 1, dtype=lib.float64), None, lib.zeros(2), lib.ones(2), 1e-5, None, None
        )
        assert repr(w.dtype).endswith("float64") and repr(b.dtype).endswith("float64")


def test_skip_init_draws_nothing():
    for lib in (torch, fw):
        lib.manual_seed(0)
        m = lib.nn.utils.skip_init(lib.nn.Linear, 3, 2)
        after = lib.rand(3).tolist()
        lib.manual_seed(0)
        assert lib.rand(3).tolist() == after
        assert tuple(m.weight.shape) == (2, 3) and isinstance(m, lib.nn.Linear)
        with pytest.raises(RuntimeError, match="Expected a Module"):
            lib.nn.utils.skip_init(int)


def test_convert_conv2d_memory_format():
    for lib in (torch, fw):
        m = lib.nn.Sequential(
            lib.nn.Conv2d(2, 3, 2), lib.nn.Sequential(lib.nn.ConvTranspose2d(3, 2, 3))
        )
        out = lib.nn.utils.convert_conv2d_weight_memory_format(m, lib.channels_last)
        assert out is m
        assert m[0].weight.stride() == (8, 1, 4, 2) and m[1][0].weight.stride() == (18, 1, 6, 2)
        assert isinstance(m[0].weight, lib.nn.Parameter)


def test_stateless_functional_call():
    outs = []
    for lib in (torch, fw):
        lin = lib.nn.Linear(2, 1)
        p = {"weight": lib.tensor([[1.0, 2.0]]), "bias": lib.tensor([0.5])}
        with pytest.warns(FutureWarning) as w:
            y = lib.nn.utils.stateless.functional_call(lin, p, (lib.tensor([[1.0, 1.0]]),))
        outs.append((y.tolist(), str(w[0].message)))
    assert outs[0] == outs[1]
