"""torch's float32/float64 exp, log, log10, log2, sqrt, sin, cos, tan, asin, acos, atan, tanh,
erf, erfc and erfinv are MKL VML's (High Accuracy mode); framework/ops/_vml.py calls the same
functions of the test extra's MKL, so values, gradients (random upstream gradients) and second
derivatives are torch's bits, for any data and layout (fuzzer seed 460038925: 1 / x, then
float32 tanh, gradient 1.4e-5 apart through a 1-ulp tanh difference).

Every test draws its data from its own seeded generator (parametrized seeds), so the inputs
do not depend on which tests ran before (pytest-xdist orders them differently)."""

import platform
import sys

import numpy as np
import pytest
import torch

import framework
from framework.ops import _vml

MKL_PLATFORM = sys.platform == "linux" and platform.machine() == "x86_64"
needs_mkl = pytest.mark.skipif(not MKL_PLATFORM, reason="no mkl wheel for this platform")

OPS = list(_vml.TABLE)  # MKL's VML
SLEEF = list(_vml.SLEEF)  # vml.h's default: Sleef's, replayed (no MKL needed)
ALL = OPS + SLEEF
DTYPES = ["float32", "float64"]
SEEDS = range(4)


def draw(rng, dt, n):
    """n values of dtype dt: uniform in (-1, 1) (inverse trig, erfinv), normal, log-uniform
    magnitudes from the smallest denormal to the largest finite value (both signs), and the
    special values inf, -inf, NaN, +-0, +-1, denormals and the largest finite, shuffled."""
    fi = np.finfo(dt)
    lo, hi = np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max))
    parts = [
        rng.uniform(-1, 1, n),
        rng.standard_normal(n) * 4,
        np.exp2(rng.uniform(lo, hi, n)) * rng.choice([-1.0, 1.0], n),
        np.exp2(rng.uniform(-30, 12, n)) * rng.choice([-1.0, 1.0], n),
    ]
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, float(fi.max), -float(fi.max)]
    special += [float(fi.smallest_subnormal), -float(fi.smallest_subnormal), float(fi.tiny)]
    pool = np.concatenate(parts + [np.array(special)])
    return rng.permutation(pool)[:n].astype(dt) if n else np.zeros(0, dt)


def bits(a):
    """The array's bit patterns (NaNs compared by payload and sign too)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def values_equal(ours, theirs):
    """Equal values with equal signs of zero; NaN where the other has NaN (gradient formulas
    multiply NaNs whose signs NumPy and ATen propagate differently)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    nan = np.isnan(ours)
    assert np.array_equal(nan, np.isnan(theirs))
    assert np.array_equal(bits(np.where(nan, 0, ours)), bits(np.where(nan, 0, theirs)))


def views(t):
    """Views of the 2-D tensor t: itself, transposed, every other column, one column, a
    strided block, a transposed block."""
    return [t, t.t(), t[:, ::2], t[:, 1], t[::3, 1::2], t[1:, 1:].t()]


def layouts(L, base):
    """`views` of a tensor of library L holding a copy of the 2-D array `base`."""
    return views(L.from_numpy(base.copy()))


@needs_mkl
def test_vml_loads_and_is_used_where_the_test_extra_installs_it(monkeypatch):
    """x86-64 Linux: the test extra's MKL loads, and each op's forward calls VML (counting
    wrappers around the callers see one call per op and dtype)."""
    assert _vml.available()
    calls = []
    real = _vml._state[0]

    def counting(name):
        return lambda x: calls.append((name, x.dtype.name)) or real[name](x)

    monkeypatch.setattr(_vml, "_state", [{name: counting(name) for name in real}])
    for name in OPS:
        for dt in DTYPES:
            getattr(framework, name)(framework.tensor([0.5, 0.25], dtype=getattr(framework, dt)))
    assert sorted(calls) == sorted((name, dt) for name in OPS for dt in DTYPES)


@needs_mkl
def test_vml_ops_are_numpy_ufuncs_with_numba():
    """With numba each VML op is a NumPy ufunc (one compiled inner loop for all), so a small
    array costs what NumPy's own ufunc costs; without numba the ctypes callers."""
    pytest.importorskip("numba")
    assert _vml.available()
    assert all(isinstance(_vml._state[0][name], np.ufunc) for name in OPS)


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
def test_vml_inner_loop_paths_give_the_same_bits(dt):
    """The compiled inner loop's three paths (a contiguous run in one call; positive strides
    by VML's strided variant; negative strides one element a call) and a run longer than
    the loop sees at once: the bits of one contiguous call, for every op, with no NumPy
    floating-point warning (VML leaves the status flags clear)."""
    import warnings

    assert _vml.available()
    rng = np.random.default_rng([15, DTYPES.index(dt)])
    x = draw(rng, dt, 3000)
    for name in OPS:
        ref = _vml.unary(name, x, None)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            wide = np.repeat(x, 3)
            for got, want in [
                (_vml.unary(name, wide[::3], None), ref),  # strided
                (_vml.unary(name, x[::-1], None), ref[::-1]),  # negative step
                (_vml.unary(name, x.reshape(50, 60).T, None), ref.reshape(50, 60).T),
                (_vml.unary(name, x.reshape(50, 60)[:, ::7], None), ref.reshape(50, 60)[:, ::7]),
            ]:
                assert np.array_equal(bits(got), bits(want)), name
        zero_dim = _vml.unary(name, x[5:6].reshape(()), None)
        assert type(zero_dim) is np.ndarray and zero_dim.shape == ()
        assert np.array_equal(bits(zero_dim.reshape(1)), bits(ref[5:6]))


def skip_without_mkl(name):
    """Skip a VML op's bit test off the platform the mkl wheel exists for."""
    if name in _vml.TABLE and not MKL_PLATFORM:
        pytest.skip("no mkl wheel for this platform")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ALL)
def test_forward_is_torchs_bits_in_every_layout_and_size(name, dt, seed):
    """Sizes 0-9, around 2048 (torch's grain and VML's blocks) and views of every layout,
    values across the whole range with the special values: bitwise torch's."""
    skip_without_mkl(name)
    rng = np.random.default_rng([seed, ALL.index(name), DTYPES.index(dt)])
    for n in [*range(10), 2047, 2048, 2049, 4099]:
        x = draw(rng, dt, n)
        ours = getattr(framework, name)(framework.from_numpy(x.copy())).numpy()
        theirs = getattr(torch, name)(torch.from_numpy(x.copy())).numpy()
        assert np.array_equal(bits(ours), bits(theirs)), (name, dt, n)
    x = draw(rng, dt, 1)[0]
    zero_dim = [getattr(L, name)(L.tensor(x)).numpy() for L in (framework, torch)]
    assert zero_dim[0].shape == () and np.array_equal(bits(zero_dim[0]), bits(zero_dim[1]))
    base = draw(rng, dt, 13 * 11).reshape(13, 11)
    for ours, theirs in zip(layouts(framework, base), layouts(torch, base)):
        y, z = getattr(framework, name)(ours), getattr(torch, name)(theirs)
        assert y.stride() == z.stride()
        assert np.array_equal(bits(y.numpy()), bits(z.numpy()))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ALL)
def test_inplace_variants_are_torchs_bits(name, dt):
    """x.exp_() (and the others) on a contiguous tensor and on strided views of one."""
    skip_without_mkl(name)
    rng = np.random.default_rng([7, ALL.index(name), DTYPES.index(dt)])
    base = draw(rng, dt, 9 * 10).reshape(9, 10)
    for k in range(6):
        results = []
        for L in (framework, torch):
            whole = L.from_numpy(base.copy())
            getattr(views(whole)[k], name + "_")()
            results.append(whole.numpy())
        assert np.array_equal(bits(results[0]), bits(results[1])), (name, k)


@needs_mkl
@pytest.mark.parametrize("name", ["exp", "tanh", "sqrt", "erfinv"])
def test_integer_and_bool_inputs_are_computed_in_the_default_dtype(name):
    """torch promotes integers to the default float dtype and computes there (VML too)."""
    for dt in (torch.float32, torch.float64):
        torch.set_default_dtype(dt)
        framework.set_default_dtype(getattr(framework, str(dt).split(".")[1]))
        try:
            for x in (np.arange(-3, 4), np.array([True, False])):
                ours = getattr(framework, name)(framework.from_numpy(x)).numpy()
                theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
                assert np.array_equal(bits(ours), bits(theirs))
        finally:
            torch.set_default_dtype(torch.float32)


def _grads(L, name, x, g, v):
    """y = op(x); x's gradient under g; and the gradient of that gradient under v."""
    xt = L.from_numpy(x.copy()).requires_grad_()
    y = getattr(L, name)(xt)
    (gx,) = L.autograd.grad(y, xt, L.from_numpy(g.copy()), create_graph=True)
    (ggx,) = L.autograd.grad(gx, xt, L.from_numpy(v.copy()))
    return y.detach().numpy(), gx.detach().numpy(), ggx.numpy()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ALL)
def test_gradients_and_second_derivatives_are_torchs(name, dt, seed):
    """Random upstream gradients; the backward formulas call the same VML kernels where
    torch's derivatives.yaml does (sin's cos, erf's exp, ...) and round in torch's order."""
    skip_without_mkl(name)
    rng = np.random.default_rng([seed, ALL.index(name), DTYPES.index(dt), 1])
    for n in (1, 7, 300):
        x = draw(rng, dt, n)
        g, v = (rng.standard_normal(n).astype(dt) for _ in range(2))
        ours, theirs = _grads(framework, name, x, g, v), _grads(torch, name, x, g, v)
        for a, b in zip(ours, theirs):
            values_equal(a, b)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_without_mkl_the_numpy_paths_run(monkeypatch, name, dt):
    """Where MKL is absent every op keeps its NumPy path (close to torch's values)."""
    rng = np.random.default_rng([3, OPS.index(name)])
    x = rng.uniform(-0.9, 0.9, 50).astype(dt)
    monkeypatch.setattr(_vml, "_state", [False])
    ours = getattr(framework, name)(framework.from_numpy(x)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=4 * np.finfo(dt).eps, atol=0)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", SLEEF)
def test_sleef_replay_without_numba_gives_the_same_bits(monkeypatch, name, dt):
    """expm1 and log1p without numba: the NumPy replay of Sleef's functions, torch's bits."""
    from framework.ops import _sleef_act

    rng = np.random.default_rng([11, SLEEF.index(name), DTYPES.index(dt)])
    x = draw(rng, dt, 203)
    monkeypatch.setattr(_sleef_act, "_JIT", [False])
    ours = getattr(framework, name)(framework.from_numpy(x)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert np.array_equal(bits(ours), bits(theirs))


@needs_mkl
@pytest.mark.parametrize("dt", DTYPES)
def test_vml_by_ctypes_without_numba_gives_the_same_bits(monkeypatch, dt):
    """The ctypes caller (no numba) computes the same elements, in every layout."""
    rng = np.random.default_rng([12, DTYPES.index(dt)])
    monkeypatch.setattr(_vml, "_compiled", lambda lib: None)
    monkeypatch.setattr(_vml, "_state", [_vml._load()])
    base = draw(rng, dt, 13 * 11).reshape(13, 11)
    for name in OPS:
        for ours, theirs in zip(layouts(framework, base), layouts(torch, base)):
            y, z = getattr(framework, name)(ours), getattr(torch, name)(theirs)
            assert np.array_equal(bits(y.numpy()), bits(z.numpy())), name


def test_tanh_gradient_without_numba_is_torchs(monkeypatch):
    """tanh_backward's fused 1 - y * y by the exact FMA emulation where numba is absent."""
    from framework.ops import _fused

    rng = np.random.default_rng(13)
    for dt in DTYPES:
        x, g = (rng.standard_normal(500).astype(dt) for _ in range(2))
        with _fused.disabled():
            ours = _grads(framework, "tanh", x, g, g)
        theirs = _grads(torch, "tanh", x, g, g)
        for a, b in zip(ours[1:], theirs[1:]):
            values_equal(a, b)


def test_vml_declines_arrays_it_cannot_take():
    """Other dtypes, byte orders and array types go to the caller's path."""
    for x in (np.ones(3, np.float16), np.ones(3, ">f4"), np.ones(3, np.complex64), [1.0]):
        assert _vml.unary("exp", x, lambda a: "numpy") == "numpy"


@needs_mkl
def test_fuzzer_seed_460038925_reciprocal_then_tanh():
    """1 / x, then float32 tanh with a random upstream gradient: torch's gradient bits (the
    fuzzer's program; 1.4e-5 apart when our tanh was NumPy's)."""
    rng = np.random.default_rng(460038925)
    x = rng.standard_normal((4, 5, 5, 3)).astype("float32")
    g = rng.standard_normal(x.shape).astype("float32")
    out = []
    for L in (framework, torch):
        xt = L.from_numpy(x.copy()).requires_grad_()
        y = L.tanh(1 / xt)
        y.backward(L.from_numpy(g.copy()))
        out.append((y.detach().numpy(), xt.grad.numpy()))
    for a, b in zip(*out):
        assert np.array_equal(bits(a), bits(b))


@needs_mkl
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dt", DTYPES)
def test_rnn_cell_tanh_is_torchs(seed, dt):
    """RNNCell's tanh (torch's cell calls the tanh op: MKL's VML) on pre-activations that sum
    exactly (multiples of 1/8), so that only the nonlinearity and its gradient can differ:
    the output and the input gradient are torch's bits."""
    rng = np.random.default_rng([seed, DTYPES.index(dt), 14])
    x = (rng.integers(-8, 9, (3, 5)) / 8).astype(dt)
    params = [(rng.integers(-8, 9, s) / 8).astype(dt) for s in ((7, 5), (7, 7), (7,), (7,))]
    g = rng.standard_normal((3, 7)).astype(dt)
    out = []
    for L in (framework, torch):
        cell = L.nn.RNNCell(5, 7).to(getattr(L, dt))
        with L.no_grad():
            for p, v in zip(cell.parameters(), params):
                p.copy_(L.from_numpy(v.copy()))
        xt = L.from_numpy(x.copy()).requires_grad_()
        y = cell(xt)
        y.backward(L.from_numpy(g.copy()))
        out.append((y.detach().numpy(), xt.grad.numpy()))
    for a, b in zip(*out):
        assert np.array_equal(bits(a), bits(b))


def F(L):
    """The functional namespace of library L."""
    return L.nn.functional


COMPOSITES = {
    "logsumexp": lambda L, a, b: L.logsumexp(a, 1),
    "soft_margin_loss": lambda L, a, b: F(L).soft_margin_loss(a, b.sign(), reduction="none"),
    "bce_with_logits": lambda L, a, b: F(L).binary_cross_entropy_with_logits(
        a, b.abs().clamp(0, 1), reduction="none"
    ),
    "bce_with_logits_pos_weight": lambda L, a, b: F(L).binary_cross_entropy_with_logits(
        a, b.abs().clamp(0, 1), pos_weight=b[0].abs(), reduction="none"
    ),
    "poisson_nll_loss": lambda L, a, b: F(L).poisson_nll_loss(a, b.abs(), reduction="none"),
    "kl_div_log_target": lambda L, a, b: F(L).kl_div(a, b, reduction="none", log_target=True),
    "gaussian_nll_loss": lambda L, a, b: F(L).gaussian_nll_loss(
        a, b, (a * b).abs() + 0.1, reduction="none"
    ),
    "pow_one_half": lambda L, a, b: a.abs().pow(0.5),  # torch's sqrt kernel
    "logit": lambda L, a, b: L.logit(a.abs() / (a.abs() + 1)),  # its dense log: vsLn/vdLn
    "logit_eps": lambda L, a, b: L.logit(a.abs() / (a.abs() + 1), 1e-3),
}


@needs_mkl
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(COMPOSITES))
def test_composites_of_the_vml_ops_are_torchs(name, dt, seed):
    """Losses and reductions torch composes from exp/log/log1p tensor ops (and log_sigmoid):
    values and input gradients (random upstream gradient) are torch's bits."""
    rng = np.random.default_rng([seed, DTYPES.index(dt), list(COMPOSITES).index(name), 15])
    a, b = ((rng.standard_normal((16, 24)) * 2).astype(dt) for _ in range(2))
    g = None
    out = []
    for L in (framework, torch):
        at = L.from_numpy(a.copy()).requires_grad_()
        y = COMPOSITES[name](L, at, L.from_numpy(b.copy()))
        if g is None:
            g = rng.standard_normal(tuple(y.shape)).astype(dt)
        y.backward(L.from_numpy(g.copy()))
        out.append((y.detach().numpy(), at.grad.numpy()))
    for u, v in zip(*out):
        values_equal(u, v)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(_vml.SLEEF_VEC))
def test_sinh_cosh_are_torchs_in_every_layout_and_size(name, dt, seed):
    """sinh and cosh: Sleef's u10 function in torch's vector body, the C library's in its
    scalar tails (n % 16 float / n % 8 double of a contiguous run, all of a strided one):
    values (NaN payloads aside) and gradients with second derivatives are torch's."""
    rng = np.random.default_rng([seed, DTYPES.index(dt), list(_vml.SLEEF_VEC).index(name), 16])
    for n in [*range(1, 20), 31, 33, 100, 2049]:
        x = draw(rng, dt, n)
        ours = getattr(framework, name)(framework.from_numpy(x.copy())).numpy()
        values_equal(ours, getattr(torch, name)(torch.from_numpy(x.copy())).numpy())
        g = rng.standard_normal(n).astype(dt)
        for a, b in zip(_grads(framework, name, x, g, g), _grads(torch, name, x, g, g)):
            values_equal(a, b)
    base = draw(rng, dt, 13 * 11).reshape(13, 11)
    for ours, theirs in zip(layouts(framework, base), layouts(torch, base)):
        values_equal(getattr(framework, name)(ours).numpy(), getattr(torch, name)(theirs).numpy())
