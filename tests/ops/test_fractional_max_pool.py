"""F.fractional_max_pool2d/3d against torch: values, indices, dtypes, the input gradient for a
random upstream (FractionalMaxPool2DBackward0), its create_graph node
(FractionalMaxPool2DBackwardBackward0, requiring grad with zeros for the second derivative),
torch's window starts (its random samples drawn as torch draws them), errors, gradcheck and
gradgradcheck, forward AD."""

import numpy as np
import pytest
import torch

import framework


def _F(L):
    return L.nn.functional


def _case(seed):
    """A random problem: (nd, input, kernel, output size, samples)."""
    r = np.random.default_rng(seed)
    nd = 2 + seed % 2
    batched = r.random() < 0.7
    n, c = int(r.integers(0, 3)), int(r.integers(1, 4))
    sp = tuple(int(r.integers(2, 9)) for _ in range(nd))
    k = tuple(int(r.integers(1, 4)) for _ in range(nd))
    strict = 1 if nd == 3 else 0  # torch's 3-D windows end strictly inside the input
    out = tuple(int(r.integers(0, max(1, s - kk + 1 - strict) + 1)) for s, kk in zip(sp, k))
    dt = ("float32", "float64")[seed % 3 == 0]
    x = r.standard_normal(((n,) if batched else ()) + (c,) + sp).astype(dt)
    if seed % 4 == 1:
        x = np.round(x)  # ties: torch keeps the first maximum
    if seed % 7 == 3 and x.size:
        x.flat[int(r.integers(0, x.size))] = np.nan  # a NaN wins its windows
    u = r.random(((n if batched else 1) + int(r.integers(0, 2)), c, nd)).astype(dt)
    return nd, x, k, out, u


def _run(L, nd, x, k, out, u):
    xt = L.tensor(x, requires_grad=True)
    fn = getattr(_F(L), f"fractional_max_pool{nd}d")
    y, idx = fn(xt, k, output_size=out, return_indices=True, _random_samples=L.tensor(u))
    up = L.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(x.dtype))
    (g,) = L.autograd.grad(y, xt, up, create_graph=True)
    v = L.tensor(np.random.default_rng(2).standard_normal(tuple(g.shape)).astype(x.dtype))
    (h,) = L.autograd.grad(g, xt, v, allow_unused=True)
    return (
        y.detach().numpy(),
        idx.numpy(),
        g.detach().numpy(),
        (type(y.grad_fn).__name__, g.requires_grad, g.grad_fn.name()),
        None if h is None else h.numpy(),
    )


@pytest.mark.parametrize("seed", range(80))
def test_matches_torch(seed):
    nd, x, k, out, u = _case(seed)
    try:
        want = _run(torch, nd, x, k, out, u)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            _run(framework, nd, x, k, out, u)
        assert str(got.value) == str(e)
        return
    got = _run(framework, nd, x, k, out, u)
    for a, b in zip(got, want):
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b


def test_samples_drawn_as_torch():
    """Without _random_samples both draw (N, C, nd) uniforms from the seeded generator."""
    r = np.random.default_rng(0)
    x2, x3 = r.standard_normal((2, 3, 9, 8)), r.standard_normal((3, 7, 6, 8)).astype("float32")
    res = []
    for L in (framework, torch):
        L.manual_seed(5)
        a = _F(L).fractional_max_pool2d(L.tensor(x2), 2, output_size=(4, 3), return_indices=True)
        b = _F(L).fractional_max_pool3d(L.tensor(x3), (2, 1, 3), output_ratio=(0.5, 0.6, 0.5))
        c = _F(L).fractional_max_pool2d(L.tensor(x3), 3, output_ratio=[0.5, 0.6])
        res.append([t.numpy() for t in (*a, b, c)])
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


ERRORS = [
    (2, (2, 3, 7, 7), dict(kernel_size=(2,), output_size=3)),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_size=(3,))),
    (2, (2, 3, 7, 7), dict(kernel_size=2)),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_ratio=0.5)),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_ratio=(0.5,))),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_ratio=(0.5, 0.5, 0.5))),
    (2, (2, 3, 7, 7), dict(kernel_size=3, output_size=6)),
    (2, (3, 7), dict(kernel_size=2, output_size=3)),
    (2, (2, 0, 7, 7), dict(kernel_size=2, output_size=3)),
    (2, (7, 7, 7, 7, 7), dict(kernel_size=2, output_size=3)),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_size=3, samples=(1, 3, 2))),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_size=3, samples=(2, 2, 2))),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_size=3, samples=(2, 3, 3))),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_size=3, samples=(6, 2))),
    (2, (2, 3, 7, 7), dict(kernel_size=2, output_size=3, samples=(2, 3, 2), f64=True)),
    (3, (2, 3, 7, 7, 7), dict(kernel_size=2, output_size=6)),
    (3, (1, 1, 8, 4, 8), dict(kernel_size=2, output_size=(3, 4, 8))),
    (3, (2, 3, 7, 7, 7), dict(kernel_size=(2, 2), output_size=3)),
    (3, (2, 3, 7, 7, 7), dict(kernel_size=2, output_size=(3, 3))),
    (3, (2, 3, 7, 7, 7), dict(kernel_size=2, output_ratio=(0.5, 0.5))),
    (3, (3, 7, 7), dict(kernel_size=2, output_size=3)),
    (3, (2, 3, 7, 7, 7), dict(kernel_size=2, output_size=3, samples=(2, 3, 2))),
]


@pytest.mark.parametrize("nd,shape,kw", ERRORS)
def test_errors_match_torch(nd, shape, kw):
    kw = dict(kw)
    samples, f64 = kw.pop("samples", None), kw.pop("f64", False)
    errs = []
    for L in (framework, torch):
        x = L.ones(*shape)
        if samples is not None:
            kw["_random_samples"] = L.rand(*samples, dtype=L.float64 if f64 else L.float32)
        with pytest.raises(Exception) as e:
            getattr(_F(L), f"fractional_max_pool{nd}d")(x, **kw)
        errs.append((type(e.value).__name__, str(e.value)))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_integer_inputs_refused_as_torch(dtype):
    errs = []
    for L in (framework, torch):
        x = L.ones(2, 3, 7, 7, dtype=getattr(L, dtype))
        for kw in ({}, {"_random_samples": L.rand(2, 3, 2).to(getattr(L, dtype))}):
            with pytest.raises(Exception) as e:
                _F(L).fractional_max_pool2d(x, 2, output_size=3, **kw)
            errs.append((type(e.value).__name__, str(e.value)))
    assert errs[:2] == errs[2:]


@pytest.mark.parametrize("nd", [2, 3])
def test_gradcheck_and_gradgradcheck(nd):
    r = np.random.default_rng(nd)
    shape = (2, 2, 6, 5) if nd == 2 else (1, 2, 5, 6, 5)
    x = framework.tensor(r.standard_normal(shape), requires_grad=True)
    u = framework.tensor(r.random((shape[0], 2, nd)))
    fn = getattr(_F(framework), f"fractional_max_pool{nd}d")
    f = lambda t: fn(t, 2, output_size=3, _random_samples=u)
    assert framework.autograd.gradcheck(f, (x,))
    assert framework.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("nd", [2, 3])
def test_forward_ad_matches_torch(nd):
    """The tangent is the input's tangent read at the maxima (torch's gather rule), and the
    tangent of the create_graph gradient agrees too."""
    r = np.random.default_rng(nd)
    shape = (2, 2, 6, 5) if nd == 2 else (1, 2, 5, 6, 5)
    x, t, u = r.standard_normal(shape), r.standard_normal(shape), r.random((shape[0], 2, nd))
    res = []
    for L in (framework, torch):
        fw = L.autograd.forward_ad
        fn = getattr(_F(L), f"fractional_max_pool{nd}d")
        with fw.dual_level():
            xd = fw.make_dual(L.tensor(x, requires_grad=True), L.tensor(t))
            y = fn(xd, 2, output_size=3, _random_samples=L.tensor(u))
            up = L.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
            (g,) = L.autograd.grad(y, xd, up, create_graph=True)
            tan = fw.unpack_dual(g).tangent
            res.append((fw.unpack_dual(y).tangent.numpy(), None if tan is None else tan.numpy()))
    (a, b), (c, d) = res
    np.testing.assert_array_equal(a, c)
    assert (b is None) == (d is None)
    if d is not None:
        np.testing.assert_array_equal(b, d)


MODULES = [
    ((3,), dict(output_ratio=(0.5, 0.5))),
    ((3,), dict(output_size=4)),
    ((2,), {}),
    ((2,), dict(output_size=3, output_ratio=0.5)),
    ((2,), dict(output_ratio=1.5)),
    ((2,), dict(output_ratio=0.5)),
    ((2,), dict(output_ratio=(0.5, 0.6, 0.7))),
    ((0,), dict(output_size=2)),
    (((2, 1, 2),), dict(output_size=(3, 2, 2), return_indices=True)),
]


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("args,kw", MODULES)
def test_modules_match_torch(nd, args, kw):
    """nn.FractionalMaxPool2d/3d: torch's argument checks, repr, buffers and (seeded) output."""
    shape = (1, 2, 10, 8) if nd == 2 else (1, 2, 6, 8, 10)
    x = np.random.default_rng(0).standard_normal(shape)
    res = []
    for L in (framework, torch):
        try:
            m = getattr(L.nn, f"FractionalMaxPool{nd}d")(*args, **kw)
            L.manual_seed(0)
            y = m(L.tensor(x))
            ys = [t.numpy() for t in y] if isinstance(y, tuple) else [y.numpy()]
            res.append((repr(m), sorted(n for n, _ in m.named_buffers()), ys))
        except Exception as e:
            res.append((type(e).__name__, str(e)))
    got, want = res
    assert len(got) == len(want) and got[:2] == want[:2]
    if len(want) == 3:
        for a, b in zip(got[2], want[2]):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_dtypes_round_the_window_starts_as_torch(dtype):
    """torch's bfloat16/float16 kernel computes the window starts in that dtype (each step
    rounded): the same windows, values, indices and gradient."""
    r = np.random.default_rng(0)
    for _ in range(20):
        x, u = r.standard_normal((2, 3, 9, 9)), r.random((2, 3, 2))
        o = int(r.integers(1, 9))
        k = int(r.integers(1, 10 - o + 1))
        res = []
        for L in (framework, torch):
            dt = getattr(L, dtype)
            xt = L.tensor(x).to(dt).requires_grad_()
            y, i = _F(L).fractional_max_pool2d(
                xt, k, output_size=o, return_indices=True, _random_samples=L.tensor(u).to(dt)
            )
            (g,) = L.autograd.grad(y.float().sum(), xt)
            res.append((y.detach().float().numpy(), i.numpy(), g.float().numpy(), str(y.dtype)))
        for a, b in zip(*res):
            assert a == b if isinstance(b, str) else np.array_equal(a, b)
