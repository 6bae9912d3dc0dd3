"""torch.special's Math.h functions (erfcx, log_ndtr, the Bessel/Airy family, the orthogonal
polynomials, gammainc/gammaincc = igamma/igammac) against torch: values bit for bit
(`_special_more` replays the scalar kernels with torch's fused multiply-adds where numba is),
dtypes, errors, graphs (none for the Bessel functions and polynomials, as torch), gradients
(erfcx; igamma/igammac in their second argument).

Every test draws its data from its own seeded generator (parametrized seeds)."""

import math

import numpy as np
import pytest
import torch

import framework
from framework.ops import _special_more

DTYPES = ["float32", "float64"]
SEEDS = range(2)
UNARY = {  # name: torch's argument name
    "erfcx": "input",
    "log_ndtr": "input",
    "airy_ai": "x",
    "bessel_j0": "input",
    "bessel_j1": "input",
    "bessel_y0": "input",
    "bessel_y1": "input",
    "modified_bessel_i0": "input",
    "modified_bessel_i1": "input",
    "modified_bessel_k0": "input",
    "modified_bessel_k1": "input",
    "scaled_modified_bessel_k0": "x",
    "scaled_modified_bessel_k1": "x",
    "spherical_bessel_j0": "x",
}
POLYNOMIALS = list(_special_more.K.POLYNOMIALS)
SPECIAL = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 5.0, 8.0, -2.09, 2.09]


def draw(rng, dt, n):
    """n values of dtype dt: N(0, 3), uniform on [-12, 12] and [-2.5, 2.5] (the series
    branches), wide log-uniform magnitudes of both signs, [-200, 200], the branch points and
    inf, NaN, +-0, denormals, the largest."""
    fi = np.finfo(dt)
    parts = [
        rng.standard_normal(n) * 3,
        rng.uniform(-12, 12, n),
        rng.uniform(-2.5, 2.5, n),
        np.exp2(rng.uniform(-40, 40, n)) * rng.choice([-1.0, 1.0], n),
        rng.uniform(-200, 200, n),
    ]
    special = SPECIAL + [float(fi.max), float(fi.tiny), float(fi.smallest_subnormal)]
    pool = np.concatenate(parts + [np.array(special)])
    return rng.permutation(pool)[:n].astype(dt)


def bits_equal(ours, theirs):
    """Equal bit patterns, NaN where the other has NaN."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    nan = np.isnan(ours)
    assert np.array_equal(nan, np.isnan(theirs))
    u = np.uint32 if ours.dtype == np.float32 else np.uint64
    a = np.ascontiguousarray(np.where(nan, 0, ours)).view(u)
    b = np.ascontiguousarray(np.where(nan, 0, theirs)).view(u)
    bad = np.flatnonzero(a != b)
    assert bad.size == 0, (bad.size, ours.ravel()[bad[:3]], theirs.ravel()[bad[:3]])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_values_are_torch_bits(name, dt, seed):
    """6,000 drawn values: 0 apart."""
    x = draw(np.random.default_rng([16, 1, seed]), dt, 6000)
    ours = getattr(framework.special, name)(framework.tensor(x)).numpy()
    theirs = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
    bits_equal(ours, theirs)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_strided_views_and_integers(name, dt):
    """Transposed, stepped and sliced views; integer and bool inputs give float32."""
    rng = np.random.default_rng([16, 2])
    base = draw(rng, dt, 40 * 23).reshape(40, 23)
    ours, theirs = framework.from_numpy(base.copy()), torch.from_numpy(base.copy())
    ff, tf = getattr(framework.special, name), getattr(torch.special, name)
    for view in (lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[::3, 1::2].t()):
        bits_equal(ff(view(ours)).numpy(), tf(view(theirs)).numpy())
    for ints in ([0, 1, 2, -3, 7], [True, False]):
        a, b = ff(framework.tensor(ints)), tf(torch.tensor(ints))
        assert str(a.dtype) == str(b.dtype) == "torch.float32"
        bits_equal(a.numpy(), b.numpy())


def _degrees(rng, n, dt):
    """Polynomial degrees: small and large integers, negative ones, non-integers, NaN, inf."""
    k = rng.integers(-3, 80, n).astype(np.float64)
    k[rng.random(n) < 0.1] += rng.uniform(0, 1, (rng.random(n) < 0.1).sum())[:1].sum()
    odd = np.array([np.nan, np.inf, -np.inf, 2.5, 1e20, 600.0, 129.0, 513.0, 7.9])
    k[: odd.size] = odd
    return rng.permutation(k).astype(dt)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values_are_torch_bits(name, dt, seed):
    """(x, n) pairs: x in [-1, 1] (the trigonometric branch for large n), beyond, at the
    endpoints; n per element (any float, cast to int64 as C++), a Python int, a broadcast
    row; 0 apart."""
    rng = np.random.default_rng([16, 3, seed])
    n = 3000
    x = np.concatenate(
        [
            rng.uniform(-1, 1, n // 2),
            rng.uniform(-3, 3, n // 4),
            rng.choice([-1.0, 1.0, 0.0, 0.5, np.nan, np.inf, 2.0], n - n // 2 - n // 4),
        ]
    )
    x = rng.permutation(x).astype(dt)
    k = _degrees(rng, x.size, dt)
    ff, tf = getattr(framework.special, name), getattr(torch.special, name)
    bits_equal(
        ff(framework.tensor(x), framework.tensor(k)).numpy(),
        tf(torch.from_numpy(x), torch.from_numpy(k)).numpy(),
    )
    for deg in (0, 1, 5, 9, 40):
        bits_equal(ff(framework.tensor(x), deg).numpy(), tf(torch.from_numpy(x), deg).numpy())
    col, row = x[:30].reshape(30, 1), np.arange(8, dtype=dt)
    bits_equal(
        ff(framework.tensor(col), framework.tensor(row)).numpy(),
        tf(torch.from_numpy(col), torch.from_numpy(row)).numpy(),
    )
    bits_equal(ff(0.25, framework.tensor(row)).numpy(), tf(0.25, torch.from_numpy(row)).numpy())


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_dtypes_and_errors(name):
    """Promotion as torch's (int/int and int/float-number: float32; float32 with float64:
    float64; a 0-dim float64 degree keeps float32), no graph, and torch's errors for two
    numbers and for float16."""
    ff, tf = getattr(framework.special, name), getattr(torch.special, name)
    x, xi = [0.25, -0.5, 0.75], [1, 2, 3]
    cases = [
        (lambda L: L.tensor(xi), lambda L: L.tensor(xi)),
        (lambda L: L.tensor(xi), lambda L: 2.5),
        (lambda L: L.tensor(x), lambda L: L.tensor([1.0, 2.0, 3.0], dtype=L.float64)),
        (lambda L: L.tensor(x), lambda L: L.tensor(3.0, dtype=L.float64)),
        (lambda L: L.tensor([True, False, True]), lambda L: 3),
    ]
    for mx, mn in cases:
        a, b = ff(mx(framework), mn(framework)), tf(mx(torch), mn(torch))
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        bits_equal(a.numpy(), b.numpy())
    a = ff(framework.tensor(x, requires_grad=True), 3)
    assert not a.requires_grad and a.grad_fn is None
    with pytest.raises(TypeError) as ours:
        ff(3, 4)
    with pytest.raises(TypeError) as theirs:
        tf(3, 4)
    assert str(ours.value).split(" - ")[0] == str(theirs.value).split(" - ")[0]
    with pytest.raises(NotImplementedError, match=f'"{name}_cpu" not implemented for \'Half\''):
        ff(framework.tensor(x).half(), 3)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_graphs_and_errors(name):
    """No graph for the Bessel/Airy functions (torch's outputs never require grad), nodes for
    erfcx / log_ndtr; torch's TypeError for a number and NotImplementedError for float16 and
    bfloat16 (empty inputs too)."""
    ff, tf = getattr(framework.special, name), getattr(torch.special, name)
    a = ff(framework.tensor([0.5, 1.5], requires_grad=True))
    b = tf(torch.tensor([0.5, 1.5], requires_grad=True))
    assert a.requires_grad == b.requires_grad
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    if name != "log_ndtr":
        with pytest.raises(TypeError) as ours:
            ff(1.0)
        with pytest.raises(TypeError) as theirs:
            tf(1.0)
        assert str(ours.value) == str(theirs.value)
    for half, tname in ((framework.float16, "Half"), (framework.bfloat16, "BFloat16")):
        for data in ([1.0], []):
            with pytest.raises(NotImplementedError, match=f"not implemented for '{tname}'"):
                ff(framework.tensor(data, dtype=half))


def _gamma_pairs(rng, n, dt):
    """(a, x) pairs over the incomplete gamma's regimes: small, moderate, a ~ x (the
    asymptotic series), large, wide log-uniform, and the boundary values."""
    a = np.concatenate(
        [
            rng.uniform(0, 3, n),
            rng.uniform(0, 30, n),
            rng.uniform(15, 400, n),
            rng.uniform(0, 1e4, n),
            np.exp2(rng.uniform(-20, 20, n)),
        ]
    )
    x = np.concatenate(
        [
            rng.uniform(0, 3, n),
            rng.uniform(0, 30, n),
            a[2 * n : 3 * n] * rng.uniform(0.8, 1.2, n),
            rng.uniform(0, 1e4, n),
            np.exp2(rng.uniform(-20, 20, n)),
        ]
    )
    ea = np.array([0, 1, -1, np.inf, np.nan, 0.5, 2, 200, 1e-3, 0, np.inf])
    ex = np.array([0, 0.5, 1, 2, np.inf, -1, np.nan, 1.1, 0.4, 3, np.inf])
    return np.concatenate([a, ea]).astype(dt), np.concatenate([x, ex]).astype(dt)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_values_are_torch_bits(name, dt, seed):
    """special.gammainc/gammaincc, torch.igamma/igammac and the Tensor methods (in place
    too): 0 apart."""
    a, x = _gamma_pairs(np.random.default_rng([16, 4, seed]), 1200, dt)
    theirs = getattr(torch.special, name)(torch.from_numpy(a), torch.from_numpy(x)).numpy()
    fa, fx = framework.tensor(a), framework.tensor(x)
    bits_equal(getattr(framework.special, name)(fa, fx).numpy(), theirs)
    top = "igamma" if name == "gammainc" else "igammac"
    bits_equal(getattr(framework, top)(fa, fx).numpy(), theirs)
    bits_equal(getattr(fa, top)(fx).numpy(), theirs)
    bits_equal(getattr(fa.clone(), top + "_")(fx).numpy(), theirs)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_half_dtypes_and_errors(name):
    """float16/bfloat16 compute in float and round (torch's bits); integers are refused,
    bool with float promotes; numbers raise torch's TypeErrors; in place on an integer
    tensor raises torch's cast error."""
    rng = np.random.default_rng([16, 5])
    a, x = (rng.uniform(0, 6, 200), rng.uniform(0, 6, 200))
    for half in ("float16", "bfloat16"):
        ours = getattr(framework, name)(
            framework.tensor(a).to(getattr(framework, half)),
            framework.tensor(x).to(getattr(framework, half)),
        )
        theirs = getattr(torch, name)(
            torch.tensor(a).to(getattr(torch, half)), torch.tensor(x).to(getattr(torch, half))
        )
        assert str(ours.dtype).split(".")[-1] == half
        bits_equal(ours.float().numpy(), theirs.float().numpy())
    with pytest.raises(NotImplementedError, match=f'"{name}_cpu" not implemented for \'Long\''):
        getattr(framework, name)(framework.tensor([1, 2]), framework.tensor([1, 2]))
    m = getattr(framework, name)(framework.tensor([True, False]), framework.tensor([1.0, 2.0]))
    t = getattr(torch, name)(torch.tensor([True, False]), torch.tensor([1.0, 2.0]))
    bits_equal(m.numpy(), t.numpy())
    for args, where in (((1.0, "T"), "igamma"), (("T", 2), "igamma"), (("T", 2), "special")):
        fl = [framework.tensor([1.0]) if v == "T" else v for v in args]
        tl = [torch.tensor([1.0]) if v == "T" else v for v in args]
        fn = name if where == "igamma" else ("gammainc" if name == "igamma" else "gammaincc")
        mod_f, mod_t = (
            (framework, torch) if where == "igamma" else (framework.special, torch.special)
        )
        with pytest.raises(TypeError) as ours:
            getattr(mod_f, fn)(*fl)
        with pytest.raises(TypeError) as theirs:
            getattr(mod_t, fn)(*tl)
        assert str(ours.value) == str(theirs.value)
    for lib in (framework, torch):
        with pytest.raises(TypeError) as e:
            getattr(lib.tensor([1.0]), name + "_")(2)
        assert str(e.value) == f"{name}_(): argument 'other' (position 1) must be Tensor, not int"
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        getattr(framework.tensor([1, 2]), name + "_")(framework.tensor([1.0, 3.0]))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_gradients(name, dt, seed):
    """IgammaBackward0 / IgammacBackward0: x's gradient (random upstream gradient, broadcast
    a) is torch's bits; a's raises torch's NotImplementedError; forward AD is torch's
    refusal."""
    rng = np.random.default_rng([16, 6, seed])
    a = rng.uniform(0.2, 8, (5, 1)).astype(dt)
    x = rng.uniform(0.1, 9, (5, 7)).astype(dt)
    g = rng.standard_normal((5, 7)).astype(dt)
    tx = torch.tensor(x, requires_grad=True)
    out_t = getattr(torch, name)(torch.from_numpy(a), tx)
    out_t.backward(torch.from_numpy(g))
    fx = framework.tensor(x, requires_grad=True)
    out_f = getattr(framework, name)(framework.tensor(a), fx)
    assert type(out_f.grad_fn).__name__ == type(out_t.grad_fn).__name__
    out_f.backward(framework.tensor(g))
    bits_equal(fx.grad.numpy(), tx.grad.numpy())
    fa = framework.tensor(a, requires_grad=True)
    with pytest.raises(NotImplementedError, match=f"the derivative for '{name}: input' is not"):
        getattr(framework, name)(fa, framework.tensor(x)).sum().backward()
    import framework.autograd.forward_ad as fw

    with fw.dual_level():
        d = fw.make_dual(framework.tensor(x), framework.tensor(g))
        with pytest.raises(NotImplementedError, match=f"forward AD with {name} that does not"):
            getattr(framework, name)(framework.tensor(a), d)


def test_incomplete_gamma_gradcheck_and_gradgradcheck():
    """Float64 gradcheck and gradgradcheck of igamma/igammac in x."""
    a = framework.tensor([0.7, 2.5, 4.0], dtype=framework.float64)
    x = framework.tensor([0.4, 1.9, 6.0], dtype=framework.float64, requires_grad=True)
    for fn in (framework.igamma, framework.igammac):
        assert framework.autograd.gradcheck(lambda v, fn=fn: fn(a, v), (x,))
        assert framework.autograd.gradgradcheck(lambda v, fn=fn: fn(a, v), (x,))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
def test_erfcx_gradient_is_torch_bits(dt, seed):
    """SpecialErfcxBackward0: (2 x erfcx(x) - 2/sqrt(pi)) grad, torch's bits."""
    rng = np.random.default_rng([16, 7, seed])
    x = (rng.standard_normal(3000) * 4).astype(dt)
    g = rng.standard_normal(3000).astype(dt)
    tx = torch.tensor(x, requires_grad=True)
    torch.special.erfcx(tx).backward(torch.from_numpy(g))
    fx = framework.tensor(x, requires_grad=True)
    framework.special.erfcx(fx).backward(framework.tensor(g))
    bits_equal(fx.grad.numpy(), tx.grad.numpy())


def test_erfcx_gradcheck_gradgradcheck_and_forward_ad():
    """Float64 gradcheck, gradgradcheck and the forward-mode Jacobian of erfcx."""
    x = framework.tensor([-1.3, 0.2, 2.5, 7.0], dtype=framework.float64, requires_grad=True)
    f = framework.special.erfcx
    assert framework.autograd.gradcheck(f, (x,))
    assert framework.autograd.gradgradcheck(f, (x,))
    assert framework.autograd.gradcheck(f, (x,), check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize("dt", DTYPES)
def test_python_templates_without_numba_stay_close(dt, monkeypatch):
    """With numba off the same templates run in Python (plain multiply-adds, Python's math):
    within a few ulps of torch's values (log_ndtr keeps its NumPy code there)."""
    monkeypatch.setattr(_special_more, "_JIT", [False])
    rng = np.random.default_rng([16, 8])
    x = rng.uniform(0.05, 9, 200).astype(dt)
    tol = 2e-5 if dt == "float32" else 1e-12
    for name in ("erfcx", "bessel_j0", "modified_bessel_k1", "airy_ai", "log_ndtr"):
        ours = getattr(framework.special, name)(framework.tensor(x)).numpy()
        theirs = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    k = rng.integers(0, 12, 200).astype(dt)
    y = (x / 9).astype(dt)
    for name in ("chebyshev_polynomial_t", "legendre_polynomial_p"):
        ours = getattr(framework.special, name)(framework.tensor(y), framework.tensor(k))
        theirs = getattr(torch.special, name)(torch.from_numpy(y), torch.from_numpy(k))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol * 10, atol=tol)
    ours = framework.special.gammainc(framework.tensor(x), framework.tensor(x[::-1].copy()))
    theirs = torch.special.gammainc(torch.from_numpy(x), torch.from_numpy(x[::-1].copy()))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol * 10, atol=tol)


def test_log_ndtr_lower_tail_is_torch_bits():
    """special.log_ndtr below -1 (log(erfcx(-x / sqrt 2) / 2) - x^2 / 2) down to -1e6, and its
    gradient (SpecialLogNdtrBackward0), float32 and float64."""
    rng = np.random.default_rng([16, 9])
    x = -np.exp(rng.uniform(0, math.log(1e6), 5000))
    for dt in DTYPES:
        v = x.astype(dt)
        bits_equal(
            framework.special.log_ndtr(framework.tensor(v)).numpy(),
            torch.special.log_ndtr(torch.from_numpy(v)).numpy(),
        )
        v = v[v > -30]
        g = rng.standard_normal(v.size).astype(dt)
        tx = torch.tensor(v, requires_grad=True)
        torch.special.log_ndtr(tx).backward(torch.from_numpy(g))
        fx = framework.tensor(v, requires_grad=True)
        framework.special.log_ndtr(fx).backward(framework.tensor(g))
        bits_equal(fx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_bool_first_argument_backward(name):
    """A bool `a` with x requiring grad: torch's formula subtracts 1 from the bool a, so its
    backward raises torch's bool-subtraction error (fuzz seeds 540005075, 540013497)."""
    errors = []
    for lib in (framework, torch):
        x = lib.tensor([[0.5, 2.0]], dtype=lib.float64, requires_grad=True)
        out = getattr(lib, name)(lib.tensor([True, False]), x)
        with pytest.raises(RuntimeError) as e:
            out.sum().backward()
        errors.append(str(e.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("dt", DTYPES)
def test_erfcx_continued_fraction_and_far_tail(dt):
    """erfcx above 50 (calc_erfcx's fraction: float32 rounds x*x+5 to float and fuses no
    product there, float64 fuses both), above 5e7 (ispi / x), and log_ndtr far below -70
    through it: 0 apart."""
    rng = np.random.default_rng([16, 10])
    x = np.exp(rng.uniform(math.log(50), math.log(1e38), 20000))
    x = np.concatenate([x, rng.uniform(50, 60, 5000), [50.0, 5e7, 5.0000004e7]]).astype(dt)
    bits_equal(
        framework.special.erfcx(framework.tensor(x)).numpy(),
        torch.special.erfcx(torch.from_numpy(x)).numpy(),
    )
    v = (-x * 1.5).astype(dt)
    bits_equal(
        framework.special.log_ndtr(framework.tensor(v)).numpy(),
        torch.special.log_ndtr(torch.from_numpy(v)).numpy(),
    )
