"""Tensor methods and small top-level names (new_empty, nbytes, byte, get_device, dim_order,
the scatter forms, unsafe_split, the *_copy functions, range, typename, unravel_index,
gradient, windows, ...) against torch: values, dtypes, node names, gradients (random upstream),
warnings and errors; gradcheck/gradgradcheck of the named-identity node the copies end in."""

import warnings

import numpy as np
import pytest
import torch

import framework as fw
from framework.autograd import gradcheck, gradgradcheck


def _leaf(lib, shape, seed=0, dtype=np.float32):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return lib.tensor(a, requires_grad=True)


def _check(t_out, f_out, t_leaves, f_leaves, seed=1, exact=True):
    if isinstance(t_out, tuple):
        assert isinstance(f_out, tuple) and len(t_out) == len(f_out)
        for a, b in zip(t_out, f_out):
            _check(a, b, [], [], exact=exact)
        t_out, f_out = t_out[0], f_out[0]
    assert repr(f_out.dtype) == repr(t_out.dtype)
    assert tuple(f_out.shape) == tuple(t_out.shape)
    tv, fv = t_out.detach().numpy(), f_out.detach().numpy()
    if exact:
        np.testing.assert_array_equal(fv, tv)
    else:
        np.testing.assert_allclose(fv, tv, rtol=1e-6, atol=1e-7)
    tn = type(t_out.grad_fn).__name__ if t_out.grad_fn is not None else None
    fn = type(f_out.grad_fn).__name__ if f_out.grad_fn is not None else None
    if tn == "NotImplemented":  # torch's detach_copy: no derivative (here a detached copy)
        return
    assert fn == tn
    if t_leaves and t_out.requires_grad:
        g = np.random.default_rng(seed).standard_normal(tv.shape).astype(tv.dtype)
        t_out.backward(torch.tensor(g))
        f_out.backward(fw.tensor(g))
        for a, b in zip(t_leaves, f_leaves):
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-6, atol=1e-7)


def _both(fn, shapes, seed=0, exact=True):
    tl = [_leaf(torch, s, seed + i) for i, s in enumerate(shapes)]
    fl = [_leaf(fw, s, seed + i) for i, s in enumerate(shapes)]
    _check(fn(torch, *tl), fn(fw, *fl), tl, fl, seed + 9, exact)


COPIES = [
    ("view_copy", lambda L, x: L.view_copy(x, [4, 3])),
    ("permute_copy", lambda L, x: L.permute_copy(x, [1, 0])),
    ("transpose_copy", lambda L, x: L.transpose_copy(x, 0, 1)),
    ("t_copy", lambda L, x: L.t_copy(x)),
    ("squeeze_copy", lambda L, x: L.squeeze_copy(x.unsqueeze(1))),
    ("unsqueeze_copy", lambda L, x: L.unsqueeze_copy(x, 1)),
    ("expand_copy", lambda L, x: L.expand_copy(x, [2, 3, 4])),
    ("diagonal_copy", lambda L, x: L.diagonal_copy(x, 1)),
    ("select_copy", lambda L, x: L.select_copy(x, 1, 2)),
    ("slice_copy", lambda L, x: L.slice_copy(x, 1, 1, 4, 2)),
    ("split_copy", lambda L, x: L.split_copy(x, 2)),
    ("unbind_copy", lambda L, x: L.unbind_copy(x, 1)),
    ("unfold_copy", lambda L, x: L.unfold_copy(x, 1, 2, 1)),
    ("alias_copy", lambda L, x: L.alias_copy(x)),
    ("as_strided_copy", lambda L, x: L.as_strided_copy(x, [2, 2], [1, 2])),
    ("detach_copy", lambda L, x: L.detach_copy(x)),
    ("narrow_copy", lambda L, x: x.narrow_copy(1, 1, 2)),
    ("torch.narrow_copy", lambda L, x: L.narrow_copy(x, 0, 1, 2)),
    ("unsafe_chunk", lambda L, x: x.unsafe_chunk(2, 1)),
    ("unsafe_split", lambda L, x: L.unsafe_split(x, 2)),
    ("unsafe_split_with_sizes", lambda L, x: x.unsafe_split_with_sizes([1, 3], 1)),
    ("split_with_sizes", lambda L, x: L.split_with_sizes(x, [2, 1])),
]


@pytest.mark.parametrize("name,fn", COPIES, ids=[c[0] for c in COPIES])
@pytest.mark.parametrize("seed", range(3))
def test_copies_and_splits(name, fn, seed):
    _both(fn, [(3, 4)], seed)


def test_copy_is_not_a_view():
    x = fw.zeros(2, 3)
    y = fw.permute_copy(x, [1, 0])
    x.add_(1)
    assert y.sum().item() == 0 and y.is_contiguous()


SCATTERS = [
    ("diagonal_scatter", [(3, 4), (3,)], lambda L, x, s: x.diagonal_scatter(s)),
    ("diagonal_scatter_off", [(3, 4), (2,)], lambda L, x, s: L.diagonal_scatter(x, s, 2, 0, 1)),
    ("select_scatter", [(3, 4), (3,)], lambda L, x, s: L.select_scatter(x, s, 1, -1)),
    ("slice_scatter", [(5, 4), (2, 4)], lambda L, x, s: x.slice_scatter(s, 0, 1, 5, 2)),
    ("slice_scatter_dim", [(3, 4), (3, 2)], lambda L, x, s: L.slice_scatter(x, s, dim=1, end=2)),
]


@pytest.mark.parametrize("name,shapes,fn", SCATTERS, ids=[s[0] for s in SCATTERS])
@pytest.mark.parametrize("seed", range(3))
def test_scatters(name, shapes, fn, seed):
    _both(fn, shapes, seed)


def test_named_identity_gradcheck():
    x = fw.randn(3, 4, dtype=fw.float64, requires_grad=True)
    s = fw.randn(3, dtype=fw.float64, requires_grad=True)
    for f, inputs in [
        (lambda a: fw.permute_copy(a, [1, 0]), (x,)),
        (lambda a, b: a.diagonal_scatter(b), (x, s)),
        (lambda a: a.unsafe_split(2)[1], (x,)),
        (lambda a: fw.slice_copy(a, 1, 0, 3, 2), (x,)),
    ]:
        assert gradcheck(f, inputs)
        assert gradgradcheck(f, inputs)


def test_named_identity_jvp():
    import framework.autograd.forward_ad as ffa
    import torch.autograd.forward_ad as tfa

    a = np.random.default_rng(0).standard_normal((3, 4))
    t = np.random.default_rng(1).standard_normal((3, 4))
    outs = []
    for lib, fa in ((torch, tfa), (fw, ffa)):
        with fa.dual_level():
            d = fa.make_dual(lib.tensor(a), lib.tensor(t))
            y = lib.permute_copy(d, [1, 0]).diagonal_scatter(lib.ones(3, dtype=lib.float64))
            outs.append(fa.unpack_dual(y).tangent.numpy().copy())
    np.testing.assert_array_equal(outs[0], outs[1])


ACTS = [
    ("hardshrink", [(3, 4)], lambda L, x: x.hardshrink(0.3)),
    ("hardshrink_top", [(3, 4)], lambda L, x: L.hardshrink(x)),
    ("prelu", [(2, 3, 4), (3,)], lambda L, x, w: x.prelu(w)),
    ("moveaxis", [(2, 3, 4)], lambda L, x: x.moveaxis(0, -1)),
    ("row_stack", [(3,), (2, 3)], lambda L, a, b: L.row_stack([a, b])),
    ("trapz", [(3, 5)], lambda L, y: L.trapz(y)),
    ("trapz_dx", [(3, 5)], lambda L, y: L.trapz(y, dx=0.5, dim=0)),
    ("trapz_x", [(3, 5), (5,)], lambda L, y, x: L.trapz(y, x)),
    ("conj", [(3,)], lambda L, x: L.conj(x) * 1),
]


@pytest.mark.parametrize("name,shapes,fn", ACTS, ids=[a[0] for a in ACTS])
def test_methods_with_grad(name, shapes, fn):
    _both(fn, shapes)


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("spacing,dim", [(1, None), (2.0, 1), ([0.5], 0), ([1.0, 3.0], None)])
def test_gradient(edge_order, spacing, dim):
    _both(
        lambda L, x: L.gradient(x, spacing=spacing, dim=dim, edge_order=edge_order),
        [(4, 5)],
        exact=False,
    )


def test_real_conj_family_is_identity():
    for lib in (torch, fw):
        x = lib.ones(2)
        assert x.conj() is x and x.resolve_conj() is x and x.resolve_neg() is x
        assert lib.conj(x) is x and not x.is_conj() and not lib.is_neg(x)


def test_small_queries():
    for dtype in ("float32", "float64", "int16", "uint8", "bool"):
        a, b = (
            torch.ones(3, 5, dtype=getattr(torch, dtype)),
            fw.ones(3, 5, dtype=getattr(fw, dtype)),
        )
        assert (a.nbytes, a.itemsize, a.ndimension()) == (b.nbytes, b.itemsize, b.ndimension())
    for lib in (torch, fw):
        x = lib.arange(6.0).reshape(2, 3)
        assert x.is_cpu and x.get_device() == -1 and lib.get_device(x) == -1
        assert x.t().dim_order() == (1, 0) and x.dim_order() == (0, 1)
        assert lib.ones(2, 3, 4).permute(2, 0, 1).dim_order() == (1, 2, 0)
        r = x.detach().requires_grad_()
        assert x.output_nr == 0 and x.split(1)[1].output_nr == 0 and r.split(1)[1].output_nr == 1
    for m in ("byte", "char", "short"):
        t, f = (
            getattr(torch.tensor([-1.5, 2.7, 300.0]), m)(),
            getattr(fw.tensor([-1.5, 2.7, 300.0]), m)(),
        )
        assert repr(t.dtype) == repr(f.dtype) and t.tolist() == f.tolist()


def test_new_empty():
    for lib in (torch, fw):
        x = lib.ones(2, dtype=lib.float64)
        e = x.new_empty(2, 3)
        f = x.new_empty((4,), dtype=lib.int32, requires_grad=False)
        s = x.new_empty_strided((2, 3), (1, 2))
        r = x.new_empty([1], requires_grad=True)
        assert (tuple(e.shape), repr(e.dtype)[-7:], tuple(f.shape), repr(f.dtype)[-5:]) == (
            (2, 3),
            "float64",
            (4,),
            "int32",
        )
        assert s.stride() == (1, 2) and r.requires_grad and r.is_leaf


def test_range_warning_and_values():
    for args, kw in [((0, 3), {}), ((1, 2, 0.25), {}), ((0, 4, 2), dict(dtype="int64"))]:
        res = []
        for lib in (torch, fw):
            k = {"dtype": getattr(lib, kw["dtype"])} if kw else {}
            with pytest.warns(UserWarning) as w:
                out = lib.range(*args, **k)
            res.append((out.tolist(), repr(out.dtype)[-7:], str(w[0].message)))
        assert res[0] == res[1]


def test_typename():
    for lib in (torch, fw):
        got = (
            lib.typename(lib.ones(2)),
            lib.typename(lib.ones(2, dtype=lib.int64)),
            lib.typename(3),
            lib.typename(lib.nn.Linear(1, 1)),
            lib.typename("s"),
        )
        assert (
            got
            == (
                "torch.FloatTensor",
                "torch.LongTensor",
                "int",
                "torch.nn.modules.linear.Linear",
                "str",
            )
            or lib is fw
            and got[3] == "torch.nn.linear.Linear"
        )


@pytest.mark.parametrize(
    "idx,shape", [([5, 7, 0], (3, 4)), (11, (2, 2, 3)), ([[1, 2], [3, -1]], (2, 2)), ([0], 5)]
)
def test_unravel_index(idx, shape):
    t = torch.unravel_index(torch.tensor(idx), shape)
    f = fw.unravel_index(fw.tensor(idx), shape)
    assert [a.tolist() for a in t] == [b.tolist() for b in f]
    assert [repr(a.dtype) for a in t] == [repr(b.dtype) for b in f]


def test_unravel_index_errors():
    for bad in (lambda L: L.unravel_index(L.tensor([1.0]), (2,)),):
        with pytest.raises(TypeError) as a:
            bad(torch)
        with pytest.raises(TypeError) as b:
            bad(fw)
        assert str(a.value) == str(b.value)


def test_default_device_and_flags():
    for lib in (torch, fw):
        lib.set_default_device("cpu")
        assert str(lib.get_default_device()) == "cpu"
        lib.set_default_device(None)
        assert lib.set_flush_denormal(False) is True
        assert lib.is_warn_always_enabled() is False
        lib.set_warn_always(True)
        assert lib.is_warn_always_enabled() is True
        lib.set_warn_always(False)


def test_deprecated_norms():
    x_t, x_f = _leaf(torch, (3, 4)), _leaf(fw, (3, 4))
    for call in (
        lambda L, x: L.nuclear_norm(x),
        lambda L, x: L.frobenius_norm(x, [0, 1]),
        lambda L, x: L.frobenius_norm(x, [1], True),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t, f = call(torch, x_t), call(fw, x_f)
        np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=1e-6)
    with pytest.warns(UserWarning, match="at::frobenius_norm is deprecated"):
        fw.frobenius_norm(x_f, [0, 1])


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window"]


@pytest.mark.parametrize("name", WINDOWS + ["kaiser_window"])
@pytest.mark.parametrize("length", [0, 1, 2, 3, 8, 17, 64])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows(name, length, periodic, dtype):
    t = getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype), requires_grad=True)
    f = getattr(fw, name)(length, periodic, dtype=getattr(fw, dtype), requires_grad=True)
    assert repr(t.dtype) == repr(f.dtype) and f.requires_grad and f.is_leaf
    if name == "kaiser_window":  # i0's ulp differs from ATen's calc_i0
        np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=2e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(f.detach().numpy(), t.detach().numpy())


def test_window_arguments():
    np.testing.assert_array_equal(
        fw.hamming_window(9, False, 0.6, 0.3).numpy(),
        torch.hamming_window(9, False, 0.6, 0.3).numpy(),
    )
    np.testing.assert_allclose(
        fw.kaiser_window(9, True, 5.0).numpy(), torch.kaiser_window(9, True, 5.0).numpy(), rtol=2e-6
    )
    for bad in (lambda L: L.hann_window(3, dtype=L.int64), lambda L: L.bartlett_window(-1)):
        with pytest.raises(RuntimeError) as a:
            bad(torch)
        with pytest.raises(RuntimeError) as b:
            bad(fw)
        assert str(a.value) == str(b.value)
