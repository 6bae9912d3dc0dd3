"""torch's CPU atanh (Sleef's u10 in the vector body, glibc's in the tails: `_sleef_atanh`),
special.ndtri, i0, special.i0e, special.i1, special.i1e and special.log_ndtr (from
-1 up) are ATen's scalar Math.h functions with GCC's fused multiply-adds and glibc's exp/log;
framework/ops/_special_exact.py replays them with numba loops (`_special_jit`), so values and
gradients (random upstream gradients) are torch's bits for any data and layout. Where numba
is off, the NumPy paths stay close to torch's values.

Every test draws its data from its own seeded generator (parametrized seeds), so the inputs
do not depend on which tests ran before (pytest-xdist orders them differently)."""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _special_exact

pytest.importorskip("numba")

OPS = {  # name: (torch function, framework function, domain)
    "ndtri": (torch.special.ndtri, framework.special.ndtri, "unit"),
    "i0": (torch.i0, framework.i0, "real"),
    "i0e": (torch.special.i0e, framework.special.i0e, "real"),
    "i1": (torch.special.i1, framework.special.i1, "real"),
    "i1e": (torch.special.i1e, framework.special.i1e, "real"),
    "log_ndtr": (torch.special.log_ndtr, framework.special.log_ndtr, "above -1"),
    "atanh": (torch.atanh, framework.atanh, "open"),
}
DTYPES = ["float32", "float64"]
SEEDS = range(3)


def draw(rng, dt, n, domain):
    """n values of dtype dt for `domain`: "unit" (ndtri: uniform, near 0 and 1 on a log scale,
    the central/tail boundary exp(-2), and the values outside [0, 1]), "real" (normal, wide
    log-uniform magnitudes, around the series switch at 8 and exp's overflow), "above -1"
    (log_ndtr's replayed branch), plus inf, NaN, +-0, denormals, the largest finite."""
    fi = np.finfo(dt)
    lo, hi = np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max))
    wide = np.exp2(rng.uniform(lo, hi, n)) * rng.choice([-1.0, 1.0], n)
    if domain == "open":  # atanh: (-1, 1), its edges, and outside
        near = np.exp2(rng.uniform(lo, -1, n))
        parts = [rng.uniform(-1, 1, n), 1 - near, near - 1, near, wide]
    elif domain == "unit":
        tiny = np.exp2(rng.uniform(lo, -1, n))
        parts = [rng.random(n), tiny, 1 - tiny, 0.1353352832 + rng.normal(0, 1e-3, n), wide]
    else:
        parts = [
            rng.standard_normal(n) * 4,
            wide,
            rng.uniform(-90, 90, n),
            8 + rng.normal(0, 1e-3, n),
        ]
        parts += [rng.uniform(700, 720, n) * rng.choice([-1.0, 1.0], n)]
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, 0.5, 8.0, -8.0, float(fi.max)]
    special += [float(fi.smallest_subnormal), -float(fi.smallest_subnormal), float(fi.tiny)]
    pool = np.concatenate(parts + [np.array(special)])
    if domain == "above -1":
        pool = pool[~(pool < -1)]
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
@pytest.mark.parametrize("name", list(OPS))
def test_values_are_torch_bits(name, dt, seed):
    """20,000 drawn values per case: 0 elements apart from torch (was up to 67 %)."""
    tf, ff, domain = OPS[name]
    x = draw(np.random.default_rng([15, seed]), dt, 20000, domain)
    bits_equal(ff(framework.tensor(x)).numpy(), tf(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(OPS))
def test_strided_views_are_torch_bits(name, dt):
    """Transposed, stepped and sliced views give the same bits as torch on the same views."""
    tf, ff, domain = OPS[name]
    base = draw(np.random.default_rng([15, 7]), dt, 60 * 37, domain).reshape(60, 37)
    ours, theirs = framework.from_numpy(base.copy()), torch.from_numpy(base.copy())
    for view in (lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[::3, 1::2].t()):
        bits_equal(ff(view(ours)).numpy(), tf(view(theirs)).numpy())


@pytest.mark.parametrize("dt", DTYPES)
def test_atanh_vector_body_and_scalar_tail(dt):
    """atanh is cpu_kernel_vec: Sleef's in the vector body, glibc's in the last n % 16 (float)
    or n % 8 (double) elements; every length from 0 to 40 gives torch's bits."""
    rng = np.random.default_rng([15, 11])
    for n in range(41):
        x = draw(rng, dt, n, "open") if n else np.zeros(0, dt)
        bits_equal(
            framework.atanh(framework.tensor(x)).numpy(), torch.atanh(torch.from_numpy(x)).numpy()
        )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(OPS))
def test_gradients_are_torch_bits(name, dt, seed):
    """The input gradient for a random upstream gradient is torch's, bit for bit."""
    tf, ff, domain = OPS[name]
    rng = np.random.default_rng([15, 100 + seed])
    x = draw(rng, dt, 5000, domain)
    x = x[np.isfinite(x) & (np.abs(x) < 700) & ((np.abs(x) < 1) | (domain != "open"))]
    g = rng.standard_normal(x.size).astype(dt)
    tx = torch.tensor(x, requires_grad=True)
    tf(tx).backward(torch.from_numpy(g))
    fx = framework.tensor(x, requires_grad=True)
    ff(fx).backward(framework.tensor(g))
    bits_equal(fx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("name", list(OPS))
def test_gradcheck_gradgradcheck_and_forward_ad(name):
    """Float64 gradcheck, gradgradcheck and the forward-mode Jacobian of each op."""
    _, ff, domain = OPS[name]
    rng = np.random.default_rng(15)
    v = rng.uniform(0.05, 0.95, 6) if domain in ("unit", "open") else rng.uniform(-0.9, 3, 6)
    x = framework.tensor(v, dtype=framework.float64, requires_grad=True)
    assert framework.autograd.gradcheck(ff, (x,))
    assert framework.autograd.gradgradcheck(ff, (x,))
    assert framework.autograd.gradcheck(ff, (x,), check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(OPS))
def test_numpy_paths_without_numba_stay_close(name, dt, monkeypatch):
    """With the compiled loops off (FRAMEWORK_NUMBA=0's state) the NumPy code answers, within
    a few ulps of torch's values."""
    tf, ff, domain = OPS[name]
    x = draw(np.random.default_rng([15, 9]), dt, 3000, domain)
    x = x[np.abs(x) < 80]
    monkeypatch.setattr(_special_exact, "_JIT", [False])
    assert _special_exact.bessel(0, x) is None
    ours, theirs = ff(framework.tensor(x)).numpy(), tf(torch.from_numpy(x)).numpy()
    tol = 2e-5 if dt == "float32" else 1e-12
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


HYPOT_SHAPES = [
    ((5003,), (5003,)),
    ((61, 37), (37,)),
    ((37, 1), (1, 41)),
    ((), (7,)),
    ((40, 30), (40, 30)),
]


def hypot_draw(rng, shape):
    """float64 values of `shape`: normal, wide log-uniform magnitudes of both signs (no
    subnormals: see test_hypot_subnormal_pairs_close), inf, NaN, +-0."""
    n = int(np.prod(shape))
    pool = np.concatenate(
        [
            rng.standard_normal(n) * 3,
            np.exp2(rng.uniform(-1000, 1000, n)) * rng.choice([-1.0, 1.0], n),
            [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0],
        ]
    )
    return rng.permutation(pool)[:n].reshape(shape)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shapes", HYPOT_SHAPES)
def test_hypot_float64_is_torch_bits(shapes, seed):
    """float64 hypot: Sleef's u05 in the vector body, glibc's in the tails, by TensorIterator's
    walk of the broadcast operands (contiguous and transposed first operand); gradients for a
    random upstream gradient."""
    rng = np.random.default_rng([15, 200 + seed])
    a, b = hypot_draw(rng, shapes[0]), hypot_draw(rng, shapes[1])
    for first in (a, np.ascontiguousarray(a.T).T):
        ours = framework.hypot(framework.from_numpy(first), framework.tensor(b)).numpy()
        bits_equal(ours, torch.hypot(torch.from_numpy(first), torch.from_numpy(b)).numpy())
    a, b = np.where(np.isfinite(a), a, 1.0) % 50, np.where(np.isfinite(b), b, 2.0) % 50 + 1
    g = rng.standard_normal(np.broadcast_shapes(a.shape, b.shape))
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    torch.hypot(ta, tb).backward(torch.from_numpy(g))
    fa, fb = framework.tensor(a, requires_grad=True), framework.tensor(b, requires_grad=True)
    framework.hypot(fa, fb).backward(framework.tensor(g))
    bits_equal(fa.grad.numpy(), ta.grad.numpy())
    bits_equal(fb.grad.numpy(), tb.grad.numpy())


def test_hypot_subnormal_pairs_close():
    """Both operands below 2^-1022: the replay's emulated FMA rounds a subnormal product term
    differently from the hardware's in a few pairs; values stay within one subnormal step."""
    rng = np.random.default_rng(15)
    a, b = np.exp2(rng.uniform(-1074, -1022, (2, 4000)))
    ours = framework.hypot(framework.tensor(a), framework.tensor(b)).numpy()
    theirs = torch.hypot(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=2 * 5e-324)


@pytest.mark.parametrize("dt", DTYPES)
def test_atanh_hypot_compiled_and_numpy_replays_agree(dt, monkeypatch):
    """The compiled loops (arrays of JIT_MIN elements or more) and the NumPy replay (smaller
    arrays, or no numba) give the same bits, both torch's."""
    from framework.ops import _sleef_atanh

    rng = np.random.default_rng([15, 12])
    x = draw(rng, dt, 3001, "open")
    a, b = hypot_draw(rng, (3001,)), hypot_draw(rng, (3001,))
    compiled = framework.atanh(framework.tensor(x)).numpy()
    h_compiled = framework.hypot(framework.tensor(a), framework.tensor(b)).numpy()
    monkeypatch.setattr(_sleef_atanh, "JIT_MIN", 1 << 40)
    bits_equal(framework.atanh(framework.tensor(x)).numpy(), compiled)
    bits_equal(compiled, torch.atanh(torch.from_numpy(x)).numpy())
    if dt == "float64":
        bits_equal(framework.hypot(framework.tensor(a), framework.tensor(b)).numpy(), h_compiled)
