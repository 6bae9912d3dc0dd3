"""Sixteenth-pass small names against torch: Tensor.isposinf/isneginf/isreal/ger/new/apply_/
map_/map2_/set_/is_set_to/share_memory_/is_shared/to_dense/real/imag/layout and the device
flags; top-level adjoint, empty_permuted, nonzero_static, split_with_sizes_copy,
as_strided_scatter, slice_inverse, norm_except_dim, native_norm, the build flags, interop
threads, set_default_tensor_type and the deterministic debug mode. Values, dtypes, node names,
gradients with a random upstream gradient, errors (type and message), gradcheck/gradgradcheck
of the new backwards."""

import warnings

import numpy as np
import pytest
import torch

import framework as fw
from framework.autograd import gradcheck, gradgradcheck


def _pair(shape, seed=0, dtype=np.float32, rg=True):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.tensor(a, requires_grad=rg), fw.tensor(a, requires_grad=rg)


def _same(f, t, exact=True):
    assert repr(f.dtype) == repr(t.dtype)
    assert tuple(f.shape) == tuple(t.shape)
    if exact:
        np.testing.assert_array_equal(f.detach().numpy(), t.detach().numpy())
    else:
        np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)
    tn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    fn = type(f.grad_fn).__name__ if f.grad_fn is not None else None
    assert fn == tn


def _raises_same(f_call, t_call):
    with pytest.raises(Exception) as te:
        t_call()
    with pytest.raises(type(te.value)) as fe:
        f_call()
    assert str(fe.value) == str(te.value)


@pytest.mark.parametrize("name", ["isposinf", "isneginf", "isreal"])
def test_predicate_methods(name):
    a = np.array([1.0, np.inf, -np.inf, np.nan, 0.0], np.float32)
    _same(getattr(fw.tensor(a), name)(), getattr(torch.tensor(a), name)())


def test_ger_method_values_node_and_grads():
    ta, fa = _pair((3,), 1)
    tb, fb = _pair((4,), 2)
    t, f = ta.ger(tb), fa.ger(fb)
    _same(f, t)
    g = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    t.backward(torch.tensor(g))
    f.backward(fw.tensor(g))
    np.testing.assert_allclose(fa.grad.numpy(), ta.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(fb.grad.numpy(), tb.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "args",
    [(), (2, 3), ([1, 2],), ((2, 3),), ([],), ((),)],
    ids=["empty", "sizes", "list", "tuple-data", "empty-list", "empty-tuple"],
)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_new_legacy_constructor(args, dtype):
    t = torch.zeros(2, dtype=getattr(torch, dtype)).new(*args)
    f = fw.zeros(2, dtype=getattr(fw, dtype)).new(*args)
    assert repr(f.dtype) == repr(t.dtype) and tuple(f.shape) == tuple(t.shape)
    assert f.requires_grad == t.requires_grad
    if args and isinstance(args[0], list):
        np.testing.assert_array_equal(f.numpy(), t.numpy())


def test_new_size_tensor_and_errors():
    assert tuple(fw.ones(1).new(fw.Size([2, 2])).shape) == (2, 2)
    src = fw.tensor([1.0, 2.0])
    alias = fw.ones(1).new(src)
    assert alias.data_ptr() == src.data_ptr()
    _raises_same(lambda: fw.ones(1).new(2.5), lambda: torch.ones(1).new(2.5))
    _raises_same(
        lambda: fw.ones(1).new(fw.tensor([1, 2])), lambda: torch.ones(1).new(torch.tensor([1, 2]))
    )
    with pytest.raises(TypeError, match="new\\(\\) received an invalid combination"):
        fw.ones(1).new(2, dtype=fw.float64)


def test_apply_map_map2():
    for lib in (torch, fw):
        pass
    t, f = torch.arange(6.0), fw.arange(6.0)
    assert t.apply_(lambda v: v * 2 + 1) is t and f.apply_(lambda v: v * 2 + 1) is f
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    t.map_(torch.ones(6), lambda a, b: a - b)
    f.map_(fw.ones(6), lambda a, b: a - b)
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    t.map2_(torch.ones(6), torch.full((6,), 3.0), lambda a, b, c: a * c + b)
    f.map2_(fw.ones(6), fw.full((6,), 3.0), lambda a, b, c: a * c + b)
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    tb, fb = torch.tensor([True, False]), fw.tensor([True, False])
    np.testing.assert_array_equal(
        fb.apply_(lambda v: not v).numpy(), tb.apply_(lambda v: not v).numpy()
    )
    ti, fi = torch.arange(4), fw.arange(4)
    np.testing.assert_array_equal(
        fi.map_(fw.tensor(2), lambda a, b: a * b).numpy(),
        ti.map_(torch.tensor(2), lambda a, b: a * b).numpy(),
    )
    v = fw.zeros(3)
    before = v._version
    v.apply_(lambda x: 1.0)
    assert v._version == before + 1
    ta, fa = _pair((2,))
    _raises_same(lambda: fa.apply_(lambda v: v), lambda: ta.apply_(lambda v: v))
    _raises_same(
        lambda: fa.detach().map_(fa, lambda a, b: a), lambda: ta.detach().map_(ta, lambda a, b: a)
    )


def test_share_memory_and_is_shared():
    t, f = torch.zeros(3), fw.zeros(3)
    assert f.is_shared() == t.is_shared() is False
    assert f.share_memory_() is f and t.share_memory_() is t
    assert f.is_shared() == t.is_shared() is True
    assert f[:1].is_shared() == t[:1].is_shared()
    assert fw.zeros(3).is_shared() is False


def test_set_and_is_set_to():
    for lib in (torch, fw):
        c = lib.arange(5.0)
        a = lib.zeros(3)
        assert a.set_(c) is a
        assert a.data_ptr() == c.data_ptr() and a.is_set_to(c)
        assert not a.is_set_to(c.clone())
        c[0] = 7.0
        assert a[0].item() == 7.0
        assert tuple(a.set_().shape) == (0,)
    ts, fs = torch.arange(6.0), fw.arange(6.0)
    t = torch.zeros(1).set_(ts.untyped_storage(), 1, (2, 2), (2, 1))
    f = fw.zeros(1).set_(fs.untyped_storage(), 1, (2, 2), (2, 1))
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    t = torch.zeros(1).set_(ts, 2, (2,), (3,))
    f = fw.zeros(1).set_(fs, 2, (2,), (3,))
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    _raises_same(
        lambda: fw.zeros(1).set_(fw.arange(3)), lambda: torch.zeros(1).set_(torch.arange(3))
    )
    assert fw.zeros(2).is_set_to(fw.zeros(2)) is False


def test_flags_layout_real_imag_to_dense():
    t, f = torch.ones(2, requires_grad=True), fw.ones(2, requires_grad=True)
    for name in [
        "is_meta", "is_mkldnn", "is_mps", "is_xpu", "is_ipu", "is_xla", "is_vulkan", "is_maia",
        "is_mtia", "is_quantized", "is_sparse", "is_sparse_csr", "is_nested",
    ]:  # fmt: skip
        assert getattr(f, name) == getattr(t, name) is False
    assert repr(f.layout) == repr(t.layout) == "torch.strided"
    assert f.layout is fw.strided
    assert f.real is f and t.real is t
    assert fw.real(f) is f
    _raises_same(lambda: f.imag, lambda: t.imag)
    _raises_same(lambda: fw.imag(f), lambda: torch.imag(t))
    assert f.to_dense() is f and t.to_dense() is t
    assert f.is_distributed() == t.is_distributed() is False
    assert fw.is_distributed(f) == torch.is_distributed(t)
    assert f.const_data_ptr() == f.data_ptr()


def test_adjoint_top_level():
    t, f = _pair((2, 3, 4))
    _same(fw.adjoint(f), torch.adjoint(t))
    assert fw.adjoint(f)._base is f


def test_build_flags_and_interop_threads():
    for name in ["has_lapack", "has_spectral", "has_openmp"]:
        assert getattr(fw, name) is getattr(torch, name)
    assert isinstance(fw.has_mkl, bool)
    assert fw.get_num_interop_threads() >= 1


def test_set_num_interop_threads_once(monkeypatch):
    from framework import _surface16

    monkeypatch.setitem(_surface16._interop, "set", False)
    monkeypatch.setitem(_surface16._interop, "threads", None)
    fw.set_num_interop_threads(3)
    assert fw.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="cannot set number of interop threads"):
        fw.set_num_interop_threads(2)


def test_set_default_tensor_type():
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fw.set_default_tensor_type(fw.DoubleTensor)
        assert "deprecated as of PyTorch 2.1" in str(w[0].message)
        assert fw.get_default_dtype() is fw.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fw.set_default_tensor_type("torch.FloatTensor")
            assert fw.get_default_dtype() is fw.float32
            with pytest.raises(TypeError) as te:
                torch.set_default_tensor_type(torch.LongTensor)
            with pytest.raises(TypeError) as fe:
                fw.set_default_tensor_type(fw.LongTensor)
            assert str(fe.value) == str(te.value)
            if not torch.cuda.is_available() and not fw.cuda.is_available():
                with pytest.raises(TypeError) as te:
                    torch.set_default_tensor_type("torch.cuda.FloatTensor")
                with pytest.raises(TypeError) as fe:
                    fw.set_default_tensor_type("torch.cuda.FloatTensor")
                assert str(fe.value) == str(te.value)
    finally:
        fw.set_default_dtype(fw.float32)


@pytest.mark.parametrize("mode", ["default", "warn", "error", 0, 1, 2])
def test_deterministic_debug_mode(mode):
    try:
        torch.set_deterministic_debug_mode(mode)
        fw.set_deterministic_debug_mode(mode)
        assert fw.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
        assert fw.are_deterministic_algorithms_enabled() == (
            torch.are_deterministic_algorithms_enabled()
        )
        assert fw.is_deterministic_algorithms_warn_only_enabled() == (
            torch.is_deterministic_algorithms_warn_only_enabled()
        )
    finally:
        torch.set_deterministic_debug_mode(0)
        fw.set_deterministic_debug_mode(0)


@pytest.mark.parametrize("bad", ["x", 3, 1.0])
def test_deterministic_debug_mode_errors(bad):
    _raises_same(
        lambda: fw.set_deterministic_debug_mode(bad),
        lambda: torch.set_deterministic_debug_mode(bad),
    )


@pytest.mark.parametrize("perm", [(0, 1, 2), (0, 2, 1), (2, 0, 1), (1, 2, 0)])
def test_empty_permuted_strides(perm):
    t = torch.empty_permuted((2, 3, 4), perm, dtype=torch.float64)
    f = fw.empty_permuted((2, 3, 4), perm, dtype=fw.float64)
    assert f.stride() == t.stride() and tuple(f.shape) == tuple(t.shape)
    assert repr(f.dtype) == repr(t.dtype) and f._base is None
    assert fw.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad


@pytest.mark.parametrize("size", [0, 1, 3, 6])
@pytest.mark.parametrize("fill", [-1, 5])
def test_nonzero_static(size, fill):
    a = np.array([[1, 0, 2], [0, 0, 3]], np.int64)
    for data in (a, a[0], np.array(1), np.array(0)):
        t = torch.nonzero_static(torch.tensor(data), size=size, fill_value=fill)
        f = fw.nonzero_static(fw.tensor(data), size=size, fill_value=fill)
        _same(f, t)
        _same(
            fw.tensor(data).nonzero_static(size=size), torch.tensor(data).nonzero_static(size=size)
        )


def test_nonzero_static_error():
    _raises_same(
        lambda: fw.nonzero_static(fw.ones(2), size=-1),
        lambda: torch.nonzero_static(torch.ones(2), size=-1),
    )


def test_split_with_sizes_copy():
    t, f = _pair((5, 3))
    to, fo = torch.split_with_sizes_copy(t, [2, 3]), fw.split_with_sizes_copy(f, [2, 3])
    for a, b in zip(fo, to):
        _same(b if False else a, b)
        assert a._base is None
    g = np.random.default_rng(5).standard_normal((2, 3)).astype(np.float32)
    (to[0] * torch.tensor(g)).sum().backward()
    (fo[0] * fw.tensor(g)).sum().backward()
    np.testing.assert_array_equal(f.grad.numpy(), t.grad.numpy())


CASES = [((3, 4), (2, 2), (1, 2), 1), ((3, 4), (3,), (4,), None), ((2, 3), (2, 3), (3, 1), 0)]


@pytest.mark.parametrize("shape,size,stride,offset", CASES)
def test_as_strided_scatter(shape, size, stride, offset):
    tx, fx = _pair(shape, 1)
    ts, fs = _pair(size, 2)
    t = torch.as_strided_scatter(tx, ts, size, stride, offset)
    f = fw.as_strided_scatter(fx, fs, size, stride, offset)
    _same(f, t)
    _same(
        fx.as_strided_scatter(fs, size, stride, offset),
        tx.as_strided_scatter(ts, size, stride, offset),
    )
    g = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    t.backward(torch.tensor(g))
    f.backward(fw.tensor(g))
    np.testing.assert_array_equal(fx.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(fs.grad.numpy(), ts.grad.numpy())


def test_as_strided_scatter_errors():
    tx, fx = _pair((3, 4))
    _raises_same(
        lambda: fw.as_strided_scatter(fx, fw.zeros(3, 3), (2, 2), (1, 2)),
        lambda: torch.as_strided_scatter(tx, torch.zeros(3, 3), (2, 2), (1, 2)),
    )
    _raises_same(
        lambda: fw.as_strided_scatter(fx, fw.zeros(2, 2), (2, 2), (1, 20)),
        lambda: torch.as_strided_scatter(tx, torch.zeros(2, 2), (2, 2), (1, 20)),
    )


def test_as_strided_scatter_gradcheck():
    """src's gradient checks; self's is torch's formula (the slice's gradient laid back where
    the slice was), which torch's own gradcheck refuses as well: mirrored, not checked."""
    x = fw.randn(3, 4, dtype=fw.float64)
    s = fw.randn(2, 2, dtype=fw.float64, requires_grad=True)
    fn = lambda s: fw.as_strided_scatter(x, s, (2, 2), (1, 2), 1)
    assert gradcheck(fn, (s,))
    assert gradgradcheck(fn, (s,))
    tx = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    ts = torch.randn(2, 2, dtype=torch.float64)
    assert not torch.autograd.gradcheck(
        lambda x: torch.as_strided_scatter(x, ts, (2, 2), (1, 2), 1), (tx,), raise_exception=False
    )


def test_slice_inverse():
    tb, fb = _pair((4, 3), 1)
    t = torch.slice_inverse(tb[1:3], tb, 0, 1, 3)
    f = fw.slice_inverse(fb[1:3], fb, 0, 1, 3)
    _same(f, t)
    _same(fb[:, 1:].slice_inverse(fb, 1, 1), tb[:, 1:].slice_inverse(tb, 1, 1))
    tb2, fb2 = _pair((4, 3), 2)
    tv, fv = tb2 * 2, fb2 * 2
    t = torch.slice_inverse(tv[1:3], tv, 0, 1, 3)
    f = fw.slice_inverse(fv[1:3], fv, 0, 1, 3)
    g = np.random.default_rng(6).standard_normal((4, 3)).astype(np.float32)
    t.backward(torch.tensor(g))
    f.backward(fw.tensor(g))
    np.testing.assert_array_equal(fb2.grad.numpy(), tb2.grad.numpy())


def test_slice_inverse_gradcheck():
    b = fw.randn(4, 3, dtype=fw.float64, requires_grad=True)

    def fn(b):
        v = b * 1.5
        return fw.slice_inverse(v[1:3], v, 0, 1, 3)

    assert gradcheck(fn, (b,))
    assert gradgradcheck(fn, (b,))


@pytest.mark.parametrize("dim", [-1, 0, 1, 2])
@pytest.mark.parametrize("pow", [2, 3])
def test_norm_except_dim(dim, pow):
    t, f = _pair((3, 4, 5), 7)
    to, fo = torch.norm_except_dim(t, pow, dim), fw.norm_except_dim(f, pow, dim)
    _same(fo, to, exact=False)
    g = np.random.default_rng(8).standard_normal(tuple(to.shape)).astype(np.float32)
    to.backward(torch.tensor(g))
    fo.backward(fw.tensor(g))
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_native_norm_is_sparse_only():
    with pytest.raises(NotImplementedError) as te:
        torch.native_norm(torch.ones(2))
    with pytest.raises(NotImplementedError) as fe:
        fw.native_norm(fw.ones(2))
    assert str(te.value).startswith(str(fe.value))


def _jvp(L, fn, primals, tangents):
    fwd = L.autograd.forward_ad
    with fwd.dual_level():
        duals = [fwd.make_dual(p, t) for p, t in zip(primals, tangents)]
        return fwd.unpack_dual(fn(L, *duals)).tangent


@pytest.mark.parametrize("which", ["as_strided_scatter", "slice_inverse"])
def test_forward_ad_matches_torch(which):
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal((4, 3)) for _ in range(4)]
    if which == "as_strided_scatter":
        arrays[1], arrays[3] = arrays[1][:2, :2].copy(), arrays[3][:2, :2].copy()
        fn = lambda L, x, s: L.as_strided_scatter(x, s, (2, 2), (1, 2), 1)
    else:
        fn = lambda L, x, b: L.slice_inverse(x[1:3], b, 0, 1, 3)
        arrays[1] = arrays[0]
    t = _jvp(
        torch, fn, [torch.tensor(a) for a in arrays[:2]], [torch.tensor(a) for a in arrays[2:]]
    )
    f = _jvp(fw, fn, [fw.tensor(a) for a in arrays[:2]], [fw.tensor(a) for a in arrays[2:]])
    np.testing.assert_array_equal(f.numpy(), t.numpy())


def test_as_subclass_and_volatile():
    class TS(torch.Tensor):
        pass

    class FS(fw.Tensor):
        pass

    tx, fx = _pair((3,), 2)
    t, f = tx.as_subclass(TS), fx.as_subclass(FS)
    assert type(f) is FS and f.data_ptr() == fx.data_ptr()
    assert _node_name(f) == _node_name(t) == "AliasBackward0"
    g = np.random.default_rng(1).standard_normal(3).astype(np.float32)
    (t * torch.tensor(g)).sum().backward()
    (f * fw.tensor(g)).sum().backward()
    np.testing.assert_array_equal(fx.grad.numpy(), tx.grad.numpy())
    plain = fw.ones(2).as_subclass(FS)
    assert plain.grad_fn is None and type(plain) is FS
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert fw.ones(1).volatile is False


def _node_name(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


def test_constants_and_aliases():
    for name in ["pi", "e", "inf"]:
        assert getattr(fw, name) == getattr(torch, name)
    assert np.isnan(fw.nan) and fw.newaxis is torch.newaxis is None
    assert repr(fw.short) == repr(torch.short) == "torch.int16"
    assert fw.GradScaler is fw.amp.GradScaler
    assert repr(fw.legacy_contiguous_format) == repr(torch.legacy_contiguous_format)
    assert fw.init_num_threads() is torch.init_num_threads() is None
    try:
        fw.set_anomaly_enabled(True)
        assert fw.is_anomaly_enabled()
    finally:
        fw.set_anomaly_enabled(False)
    assert not fw.is_anomaly_enabled()


@pytest.mark.parametrize("name", ["eig", "solve", "symeig", "lstsq"])
def test_removed_functions_raise_torchs_message(name):
    args = (torch.eye(2),) if name in ("eig", "symeig") else (torch.eye(2), torch.eye(2))
    fargs = (fw.eye(2),) if name in ("eig", "symeig") else (fw.eye(2), fw.eye(2))
    with pytest.raises(RuntimeError) as te:
        getattr(args[0], name)(*args[1:])
    with pytest.raises(RuntimeError) as fe:
        getattr(fargs[0], name)(*fargs[1:])
    assert str(fe.value) == str(te.value)
    if name != "lstsq":
        with pytest.raises(RuntimeError) as te:
            getattr(torch, name)(*args)
        with pytest.raises(RuntimeError) as fe:
            getattr(fw, name)(*fargs)
        assert str(fe.value) == str(te.value)


def test_non_inplace_resize():
    tx, fx = _pair((6,), 3)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        f = fx.resize(2, 3)
    with pytest.warns(UserWarning):
        t = tx.resize(2, 3)
    np.testing.assert_array_equal(f.detach().numpy(), t.detach().numpy())
    assert _node_name(f) == _node_name(t) == "ResizeBackward"
    g = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    t.backward(torch.tensor(g))
    f.backward(fw.tensor(g))
    np.testing.assert_array_equal(fx.grad.numpy(), tx.grad.numpy())
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert tuple(fw.arange(6.0).resize_as(fw.zeros(3, 2)).shape) == (3, 2)
    with pytest.warns(UserWarning):
        with pytest.raises(RuntimeError) as te:
            torch.arange(6.0).resize(4)
    with pytest.warns(UserWarning):
        with pytest.raises(RuntimeError) as fe:
            fw.arange(6.0).resize(4)
    assert str(fe.value) == str(te.value)


@pytest.mark.parametrize("positive", [True, False])
def test_cond_and_while_loop(positive):
    a = np.array([1.0, -2.0, 3.0], np.float32) * (1 if positive else -1)
    tx, fx = torch.tensor(a, requires_grad=True), fw.tensor(a, requires_grad=True)
    t = torch.cond(tx.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (tx,))
    f = fw.cond(fx.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (fx,))
    np.testing.assert_array_equal(f.detach().numpy(), t.detach().numpy())
    assert _node_name(f) == _node_name(t) == "CondAutogradOpBackward"
    g = np.random.default_rng(0).standard_normal(3).astype(np.float32)
    t.backward(torch.tensor(g))
    f.backward(fw.tensor(g))
    np.testing.assert_array_equal(fx.grad.numpy(), tx.grad.numpy())
    t = torch.cond(positive, lambda x: x + 1, lambda x: x - 1, [tx])
    f = fw.cond(positive, lambda x: x + 1, lambda x: x - 1, [fx])
    assert _node_name(f) == _node_name(t)
    with pytest.raises(RuntimeError) as te:
        torch.cond(torch.tensor([True, False]), lambda x: x, lambda x: x, (tx,))
    with pytest.raises(RuntimeError) as fe:
        fw.cond(fw.tensor([True, False]), lambda x: x, lambda x: x, (fx,))
    assert str(fe.value) == str(te.value)
    t = torch.while_loop(
        lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), (torch.tensor(0), torch.ones(2))
    )
    f = fw.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), (fw.tensor(0), fw.ones(2)))
    assert isinstance(f, tuple) and len(f) == len(t)
    for a_, b_ in zip(f, t):
        np.testing.assert_array_equal(a_.numpy(), b_.numpy())
