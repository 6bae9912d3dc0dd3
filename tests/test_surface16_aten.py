"""torch's ATen functional forms (framework/_surface16_aten.py) against torch: the recurrent
cells and stacks, grid_sampler, native_layer_norm / native_group_norm / native_batch_norm
with their statistics, native_dropout with its mask (same draws from the same seed) and
conv_tbc: values, dtypes, node names, gradients with a random upstream gradient, errors;
gradcheck/gradgradcheck and forward AD of the new backwards (NativeDropout, ConvTbc)."""

import numpy as np
import pytest
import torch

import framework as fw
from framework.autograd import gradcheck, gradgradcheck


def _arr(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _pair(shape, seed, dtype=np.float32, rg=True):
    a = _arr(shape, seed, dtype)
    return torch.tensor(a, requires_grad=rg), fw.tensor(a, requires_grad=rg)


def _node(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


def _close(f, t, rtol=1e-5, atol=1e-6):
    assert repr(f.dtype) == repr(t.dtype) and tuple(f.shape) == tuple(t.shape)
    np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def _backward_same(touts, fouts, tleaves, fleaves, seed=99, rtol=1e-5, atol=1e-6):
    tl = sum((t * torch.tensor(_arr(tuple(t.shape), seed + i))).sum() for i, t in enumerate(touts))
    fl = sum((f * fw.tensor(_arr(tuple(f.shape), seed + i))).sum() for i, f in enumerate(fouts))
    tl.backward()
    fl.backward()
    for a, b in zip(tleaves, fleaves):
        if a.grad is None:
            assert b.grad is None
            continue
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=rtol, atol=atol)


CELLS = [("rnn_tanh_cell", 1), ("rnn_relu_cell", 1), ("gru_cell", 3), ("lstm_cell", 4)]


@pytest.mark.parametrize("name,gates", CELLS)
@pytest.mark.parametrize("bias", [True, False])
def test_cells(name, gates, bias):
    n, f, h = 3, 4, 5
    tx, fx = _pair((n, f), 1)
    th, fh = _pair((n, h), 2)
    tc, fc = _pair((n, h), 3)
    tw1, fw1 = _pair((gates * h, f), 4)
    tw2, fw2 = _pair((gates * h, h), 5)
    tb1, fb1 = _pair((gates * h,), 6)
    tb2, fb2 = _pair((gates * h,), 7)
    targs = [tx, (th, tc) if name == "lstm_cell" else th, tw1, tw2]
    fargs = [fx, (fh, fc) if name == "lstm_cell" else fh, fw1, fw2]
    if bias:
        targs += [tb1, tb2]
        fargs += [fb1, fb2]
    t = getattr(torch, name)(*targs)
    f = getattr(fw, name)(*fargs)
    touts, fouts = (list(t), list(f)) if name == "lstm_cell" else ([t], [f])
    for a, b in zip(touts, fouts):
        _close(b, a)
        assert _node(b) == _node(a)
    _backward_same(touts, fouts, [tx, th, tc, tw1, tw2, tb1, tb2], [fx, fh, fc, fw1, fw2, fb1, fb2])


STACKS = [("lstm", 4), ("gru", 3), ("rnn_tanh", 1), ("rnn_relu", 1)]


def _module(lib, name, **kw):
    nn = lib.nn
    if name == "lstm":
        return nn.LSTM(4, 5, **kw)
    if name == "gru":
        return nn.GRU(4, 5, **kw)
    return nn.RNN(4, 5, nonlinearity=name[4:], **kw)


@pytest.mark.parametrize("name,gates", STACKS)
@pytest.mark.parametrize("layers,bidir,batch_first,bias", [
    (1, False, False, True), (2, True, False, True), (2, False, True, False),
])  # fmt: skip
def test_stacks(name, gates, layers, bidir, batch_first, bias):
    tm = _module(torch, name, num_layers=layers, bidirectional=bidir, bias=bias)
    fm = _module(fw, name, num_layers=layers, bidirectional=bidir, bias=bias)
    fm.load_state_dict({k: fw.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    dirs = 2 if bidir else 1
    shape = (2, 6, 4) if batch_first else (6, 2, 4)
    tx, fx = _pair(shape, 1)
    th, fh = _pair((layers * dirs, 2, 5), 2)
    tc, fc = _pair((layers * dirs, 2, 5), 3)
    thx = (th, tc) if name == "lstm" else th
    fhx = (fh, fc) if name == "lstm" else fh
    t = getattr(torch, name)(tx, thx, tm._flat_weights, bias, layers, 0.0, True, bidir, batch_first)
    f = getattr(fw, name)(fx, fhx, fm._flat_weights, bias, layers, 0.0, True, bidir, batch_first)
    assert len(f) == len(t)
    for a, b in zip(t, f):
        _close(b, a)
        assert _node(b) == _node(a)
    _backward_same(list(t), list(f), [tx, th, tc], [fx, fh, fc])


@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_stacks_packed(name):
    tm, fm = _module(torch, name), _module(fw, name)
    fm.load_state_dict({k: fw.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tx, fx = _pair((6, 4), 1)
    sizes = [3, 2, 1]
    th, fh = _pair((1, 3, 5), 2)
    tc, fc = _pair((1, 3, 5), 3)
    thx = (th, tc) if name == "lstm" else th
    fhx = (fh, fc) if name == "lstm" else fh
    t = getattr(torch, name)(
        tx, torch.tensor(sizes), thx, tm._flat_weights, True, 1, 0.0, False, False
    )
    f = getattr(fw, name)(fx, fw.tensor(sizes), fhx, fm._flat_weights, True, 1, 0.0, False, False)
    for a, b in zip(t, f):
        _close(b, a)
        assert _node(b) == _node(a)


def test_stack_parameter_count_error():
    tx, fx = _pair((3, 1, 4), 1)
    th, fh = _pair((1, 1, 5), 2)
    with pytest.raises(RuntimeError):
        torch.gru(tx, th, [torch.zeros(15, 4)], True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="incorrect number of RNN parameters"):
        fw.gru(fx, fh, [fw.zeros(15, 4)], True, 1, 0.0, False, False, False)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sampler_2d(mode, padding, align):
    tx, fx = _pair((2, 3, 5, 4), 1)
    a = _arr((2, 3, 2, 2), 2) * 1.2
    tg, fg = torch.tensor(a, requires_grad=True), fw.tensor(a, requires_grad=True)
    for name in ("grid_sampler", "grid_sampler_2d"):
        t = getattr(torch, name)(tx, tg, mode, padding, align)
        f = getattr(fw, name)(fx, fg, mode, padding, align)
        _close(f, t, rtol=1e-5, atol=1e-5)
        assert _node(f) == _node(t)
    _backward_same([t], [f], [tx, tg], [fx, fg], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", [0, 1])
def test_grid_sampler_3d(mode):
    tx, fx = _pair((1, 2, 3, 4, 3), 1)
    tg, fg = _pair((1, 2, 2, 2, 3), 2)
    t = torch.grid_sampler_3d(tx, tg, mode, 0, False)
    f = fw.grid_sampler_3d(fx, fg, mode, 0, False)
    _close(f, t)
    assert _node(f) == _node(t)
    with pytest.raises(RuntimeError, match="expected 5D input"):
        fw.grid_sampler_3d(fx[0], fg, mode, 0, False)


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_native_layer_norm(affine, dtype):
    tx, fx = _pair((2, 3, 4), 1, dtype)
    tw, fwt = _pair((3, 4), 2, dtype)
    tb, fb = _pair((3, 4), 3, dtype)
    args_t = (tw, tb) if affine else (None, None)
    args_f = (fwt, fb) if affine else (None, None)
    t = torch.native_layer_norm(tx, [3, 4], *args_t, 1e-5)
    f = fw.native_layer_norm(fx, [3, 4], *args_f, 1e-5)
    for a, b in zip(t, f):
        _close(b, a)
        assert _node(b) == _node(a)
    _backward_same([t[0]], [f[0]], [tx, tw, tb], [fx, fwt, fb])


def test_native_group_norm():
    tx, fx = _pair((2, 6, 5), 1)
    tw, fwt = _pair((6,), 2)
    tb, fb = _pair((6,), 3)
    t = torch.native_group_norm(tx, tw, tb, 2, 6, 5, 3, 1e-5)
    f = fw.native_group_norm(fx, fwt, fb, 2, 6, 5, 3, 1e-5)
    for a, b in zip(t, f):
        _close(b, a)
    # torch attaches its node to the statistics too (with no derivative for them); here they
    # are plain tensors (README: known differences)
    assert _node(f[0]) == _node(t[0]) and f[1].grad_fn is None
    _backward_same([t[0]], [f[0]], [tx, tw, tb], [fx, fwt, fb])


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("running", [True, False])
def test_native_batch_norm(training, running):
    if not training and not running:
        # torch 2.13's kernel crashes the process here (a null running_mean read); F.batch_norm
        # refuses it with this message, as native_batch_norm does here
        with pytest.raises(RuntimeError, match="running_mean and running_var must be defined"):
            fw.native_batch_norm(fw.ones(4, 3), None, None, None, None, False, 0.1, 1e-5)
        return
    tx, fx = _pair((4, 3, 2), 1)
    tw, fwt = _pair((3,), 2)
    tb, fb = _pair((3,), 3)
    rm, rv = _arr((3,), 4), np.abs(_arr((3,), 5)) + 0.5
    trm, trv = (torch.tensor(rm), torch.tensor(rv)) if running else (None, None)
    frm, frv = (fw.tensor(rm), fw.tensor(rv)) if running else (None, None)
    t = torch.native_batch_norm(tx, tw, tb, trm, trv, training, 0.1, 1e-5)
    f = fw.native_batch_norm(fx, fwt, fb, frm, frv, training, 0.1, 1e-5)
    for a, b in zip(t, f):
        _close(b, a)
        assert _node(b) == _node(a)
    if running:
        _close(frm, trm)
        _close(frv, trv)
    _backward_same([t[0]], [f[0]], [tx, tw, tb], [fx, fwt, fb])


@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize("shape", [(7,), (4, 5), (3, 17)])
def test_native_dropout_draws_torchs_mask(p, shape):
    tx, fx = _pair(shape, 1)
    torch.manual_seed(123)
    fw.manual_seed(123)
    t = torch.native_dropout(tx, p, True)
    f = fw.native_dropout(fx, p, True)
    for a, b in zip(t, f):
        assert repr(b.dtype) == repr(a.dtype)
        np.testing.assert_array_equal(b.detach().numpy(), a.detach().numpy())
    assert _node(f[0]) == _node(t[0]) == "NativeDropoutBackward0"
    np.testing.assert_array_equal(torch.rand(3).numpy(), fw.rand(3).numpy())  # same stream after
    _backward_same([t[0]], [f[0]], [tx], [fx])


@pytest.mark.parametrize("train", [False, None])
def test_native_dropout_eval_and_none(train):
    tx, fx = _pair((3, 4), 1)
    torch.manual_seed(5)
    fw.manual_seed(5)
    t = torch.native_dropout(tx, 0.4, train)
    f = fw.native_dropout(fx, 0.4, train)
    for a, b in zip(t, f):
        assert repr(b.dtype) == repr(a.dtype)
        np.testing.assert_array_equal(b.detach().numpy(), a.detach().numpy())
    assert _node(f[0]) == _node(t[0])


def test_native_dropout_gradcheck_and_jvp():
    x = fw.randn(3, 4, dtype=fw.float64, requires_grad=True)
    fw.manual_seed(0)
    mask = fw.native_dropout(x, 0.4, True)[1]
    fn = lambda x: x * 0 + fw._surface16_aten.NativeDropout.apply(x, mask, scale=1 / 0.6)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    fwd = fw.autograd.forward_ad
    tan = fw.randn(3, 4, dtype=fw.float64)
    with fwd.dual_level():
        out = fwd.unpack_dual(fn(fwd.make_dual(x.detach(), tan))).tangent
    np.testing.assert_allclose(out.numpy(), (tan * mask / 0.6).numpy())


@pytest.mark.parametrize("pad", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [1, 3])
def test_conv_tbc(pad, k):
    tx, fx = _pair((5, 2, 3), 1)
    tw, fwt = _pair((k, 3, 4), 2)
    tb, fb = _pair((4,), 3)
    t = torch.conv_tbc(tx, tw, tb, pad)
    f = fw.conv_tbc(fx, fwt, fb, pad)
    _close(f, t)
    assert _node(f) == _node(t) == "ConvTbcBackward0"
    _close(
        fw.nn.functional.conv_tbc(fx, fwt, fb, pad), torch.nn.functional.conv_tbc(tx, tw, tb, pad)
    )
    _backward_same([t], [f], [tx, tw, tb], [fx, fwt, fb])


def test_conv_tbc_errors():
    for f_args, t_args in [
        ((fw.ones(5, 3), fw.ones(1, 3, 4), fw.ones(4)), (torch.ones(5, 3), torch.ones(1, 3, 4), torch.ones(4))),
        ((fw.ones(5, 2, 2), fw.ones(1, 3, 4), fw.ones(4)), (torch.ones(5, 2, 2), torch.ones(1, 3, 4), torch.ones(4))),
        ((fw.ones(5, 2, 3), fw.ones(1, 3, 4), fw.ones(3)), (torch.ones(5, 2, 3), torch.ones(1, 3, 4), torch.ones(3))),
    ]:  # fmt: skip
        with pytest.raises(RuntimeError) as te:
            torch.conv_tbc(*t_args)
        with pytest.raises(RuntimeError) as fe:
            fw.conv_tbc(*f_args)
        assert str(fe.value) == str(te.value)


@pytest.mark.parametrize("pad", [0, 1])
def test_conv_tbc_gradcheck_and_jvp(pad):
    x = fw.randn(4, 2, 3, dtype=fw.float64, requires_grad=True)
    w = fw.randn(2, 3, 2, dtype=fw.float64, requires_grad=True)
    b = fw.randn(2, dtype=fw.float64, requires_grad=True)
    fn = lambda x, w, b: fw.conv_tbc(x, w, b, pad)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    # torch 2.13 has no forward derivative for conv_tbc: the same error
    tans = [fw.ones(a.shape, dtype=fw.float64) for a in (x, w, b)]
    with pytest.raises(NotImplementedError) as te:
        torch.func.jvp(
            lambda x, w, b: torch.conv_tbc(x, w, b, pad),
            tuple(torch.tensor(a.detach().numpy()) for a in (x, w, b)),
            tuple(torch.ones(a.shape, dtype=torch.float64) for a in (x, w, b)),
        )
    fwd = fw.autograd.forward_ad
    with pytest.raises(NotImplementedError) as fe:
        with fwd.dual_level():
            fn(*[fwd.make_dual(a.detach(), t) for a, t in zip((x, w, b), tans)])
    assert str(fe.value) == str(te.value)


@pytest.mark.parametrize("shape", [(4, 3, 5), (6, 2), (3, 4, 2, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("running", [True, False])
def test_batch_norm_update_stats(shape, dtype, running):
    for seed in range(3):
        x = _arr(shape, seed, dtype) * 3 + 1
        c = shape[1]
        rm, rv = _arr((c,), 10 + seed, dtype), np.abs(_arr((c,), 20 + seed, dtype)) + 0.5
        trm, trv = (torch.tensor(rm), torch.tensor(rv)) if running else (None, None)
        frm, frv = (fw.tensor(rm), fw.tensor(rv)) if running else (None, None)
        t = torch.batch_norm_update_stats(torch.tensor(x), trm, trv, 0.3)
        f = fw.batch_norm_update_stats(fw.tensor(x), frm, frv, 0.3)
        for a, b in zip(t, f):
            assert repr(b.dtype) == repr(a.dtype)
            np.testing.assert_array_equal(b.numpy(), a.numpy())
        if running:
            np.testing.assert_array_equal(frm.numpy(), trm.numpy())
            np.testing.assert_array_equal(frv.numpy(), trv.numpy())
    tx, fx = _pair((4, 3), 1)
    t, f = (
        torch.batch_norm_update_stats(tx, None, None, 0.1),
        fw.batch_norm_update_stats(fx, None, None, 0.1),
    )
    assert _node(f[0]) == _node(t[0]) == "NotImplemented"
    with pytest.raises(IndexError) as te:
        torch.batch_norm_update_stats(torch.ones(4), None, None, 0.1)
    with pytest.raises(IndexError) as fe:
        fw.batch_norm_update_stats(fw.ones(4), None, None, 0.1)
    assert str(fe.value) == str(te.value)


CUDA_ONLY = [
    ("batch_norm_stats", lambda L: (L.ones(4, 3), 1e-5)),
    ("batch_norm_elemt", lambda L: (L.ones(4, 3), None, None, L.zeros(3), L.ones(3), 1e-5)),
    ("batch_norm_gather_stats", lambda L: (L.ones(4, 3), L.zeros(2, 3), L.ones(2, 3), None, None, 0.1, 1e-5, 4)),
    ("batch_norm_gather_stats_with_counts", lambda L: (L.ones(4, 3), L.zeros(2, 3), L.ones(2, 3), None, None, 0.1, 1e-5, L.ones(2))),
    ("batch_norm_backward_reduce", lambda L: (L.ones(4, 3), L.ones(4, 3), L.zeros(3), L.ones(3), None, True, True, True)),
    ("batch_norm_backward_elemt", lambda L: (L.ones(4, 3), L.ones(4, 3), L.zeros(3), L.ones(3), None, L.zeros(3), L.zeros(3), L.ones(1, dtype=L.int32))),
]  # fmt: skip


@pytest.mark.parametrize("name,args", CUDA_ONLY, ids=[n for n, _ in CUDA_ONLY])
def test_sync_batchnorm_kernels_are_cuda_only(name, args):
    with pytest.raises(NotImplementedError) as te:
        getattr(torch, name)(*args(torch))
    with pytest.raises(NotImplementedError) as fe:
        getattr(fw, name)(*args(fw))
    assert str(te.value).startswith(str(fe.value))


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("pad", [None, 4, -1])
@pytest.mark.parametrize("last", [False, True])
def test_embedding_bag_aten_form(mode, pad, last):
    w = _arr((10, 3), 0)
    idx = [1, 2, 4, 5, 4, 9, 4]
    off = [0, 2, 2, 5] + ([7] if last else [])
    tw, fwt = torch.tensor(w, requires_grad=True), fw.tensor(w, requires_grad=True)
    t = torch.embedding_bag(
        tw, torch.tensor(idx), torch.tensor(off), False, mode, False, None, last, pad
    )
    f = fw.embedding_bag(fwt, fw.tensor(idx), fw.tensor(off), False, mode, False, None, last, pad)
    _close(f[0], t[0])
    assert _node(f[0]) == _node(t[0])
    for a, b in zip(t[1:], f[1:]):
        assert repr(b.dtype) == repr(a.dtype)
        np.testing.assert_array_equal(b.numpy(), a.numpy())
    _backward_same([t[0]], [f[0]], [tw], [fwt])


def test_embedding_bag_aten_defaults_and_weights():
    w = _arr((6, 2), 1)
    idx, off = [0, 3, 5, 1], [0, 1]
    t = torch.embedding_bag(torch.tensor(w), torch.tensor(idx), torch.tensor(off))
    f = fw.embedding_bag(fw.tensor(w), fw.tensor(idx), fw.tensor(off))
    for a, b in zip(t, f):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)
    psw = _arr((4,), 2)
    t = torch.embedding_bag(
        torch.tensor(w), torch.tensor(idx), torch.tensor(off), False, 0, False, torch.tensor(psw)
    )
    f = fw.embedding_bag(
        fw.tensor(w), fw.tensor(idx), fw.tensor(off), False, 0, False, fw.tensor(psw)
    )
    for a, b in zip(t, f):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)
