"""atan2, logaddexp, logaddexp2, xlogy and pow bit for bit against torch's CPU kernels
(fourteenth pass, issue 9).

torch's ``cpu_kernel_vec`` runs the rows TensorIterator makes of its operands through Sleef
(atan2, exp, exp2, log1p, pow) two AVX2 vectors at a time and the leftover elements, the
strided rows and (xlogy) every element through the C library: ``framework.ops._vec_binary``
replays both and TensorIterator's walk. The data are drawn per test from its own seeds
(sizes 1..40, 2047-2049, 33k+, broadcasts, transposes, strided views, inf/NaN/-0), so the
claims hold whatever order the suite runs in.
"""

import numpy as np
import pytest
import torch

import framework

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 1.0, -1.0, 100.0, -100.0, 2.0, 0.5]
OPS = ["atan2", "logaddexp", "logaddexp2", "xlogy", "pow"]
DTYPES = ["float32", "float64"]


@pytest.fixture(autouse=True)
def _one_thread():
    """torch single-threaded: 32,768 elements or more split across threads move the scalar
    tails to the split points, which the replay does not follow (README "Known
    differences")."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def _draw(rng, shape, dt, positive=False):
    """N(0, 3) values with a few special numbers sprinkled in."""
    x = np.asarray(rng.standard_normal(shape) * 3)
    if x.size > 4:
        flat = x.reshape(-1)
        k = rng.integers(0, flat.size, max(1, flat.size // 10))
        flat[k] = rng.choice(SPECIAL, k.size)
    x = np.abs(x) if positive else x
    return x.astype(dt)


def _layouts(rng, dt, positive):
    """(name, x, y) operand pairs: contiguous sizes, broadcasts and strided views."""
    for n in list(range(1, 41)) + [2047, 2048, 2049, 33001]:
        yield f"n{n}", _draw(rng, n, dt, positive), _draw(rng, n, dt)
    x = _draw(rng, (7, 37), dt, positive)
    yield "transposed", x.T, _draw(rng, (37, 7), dt)
    yield "both_transposed", x.T, _draw(rng, (7, 37), dt).T
    yield "other_transposed", x, _draw(rng, (37, 7), dt).T
    yield "other_strided", x, _draw(rng, (7, 74), dt)[:, ::2]
    yield "row", x, _draw(rng, 37, dt)
    yield "column", x, _draw(rng, (7, 1), dt)
    yield "scalar_other", x, _draw(rng, (), dt)
    yield "scalar_self", _draw(rng, (), dt, positive), _draw(rng, (5, 19), dt)
    yield "outer", _draw(rng, (19, 1), dt, positive), _draw(rng, (1, 23), dt)
    yield "strided", x[:, ::2], _draw(rng, (7, 19), dt)
    z = _draw(rng, (3, 4, 20), dt, positive)
    yield "permuted", z.transpose(2, 0, 1), _draw(rng, (20, 3, 4), dt)
    yield "permuted_row", z.transpose(1, 0, 2), _draw(rng, 20, dt)


def _torch(x):
    """x as a torch tensor of its layout (a 0-dim one from a NumPy scalar)."""
    return torch.from_numpy(np.asarray(x))


def _fw(x):
    """x as a framework tensor of its layout (strides kept)."""
    return framework.from_numpy(np.asarray(x))


def _same_bits(t, f):
    """Equal values (NaN where torch has NaN), the same dtype and the same signs of zero."""
    t, f = t.detach().numpy(), np.asarray(f.detach().numpy())
    assert t.dtype == f.dtype
    nan = np.isnan(t)
    np.testing.assert_array_equal(np.isnan(f), nan)
    np.testing.assert_array_equal(f[~nan], t[~nan])
    np.testing.assert_array_equal(np.signbit(f[~nan]), np.signbit(t[~nan]))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_forward_bits(op, dt, seed):
    rng = np.random.default_rng([14, OPS.index(op), DTYPES.index(dt), seed])
    positive = op in ("xlogy", "pow") and seed % 2 == 0
    for name, x, y in _layouts(rng, dt, positive):
        if op == "pow" and seed % 2:
            y = np.round(y)  # negative bases to integer powers
        t = getattr(torch, op)(_torch(x), _torch(y))
        f = getattr(framework, op)(_fw(x), _fw(y))
        _same_bits(t, f)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_every_special_pair(op, dt):
    sp = np.array(SPECIAL + [3.0, -2.5, 1e38, -1e38], dt)
    x, y = (v.ravel() for v in np.meshgrid(sp, sp))
    x, y = np.concatenate([x, x[:7]]), np.concatenate([y, y[:7]])  # a scalar tail too
    t = getattr(torch, op)(torch.from_numpy(x), torch.from_numpy(y))
    _same_bits(t, getattr(framework, op)(framework.tensor(x), framework.tensor(y)))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("exponent", [2.5, 1 / 3, -1.7, 4.0, 7, -3, 0.25])
def test_pow_scalar_exponent_bits(dt, exponent):
    rng = np.random.default_rng([14, 99, DTYPES.index(dt), int(abs(exponent) * 100)])
    for n in (1, 15, 16, 17, 100, 2049):
        x = _draw(rng, n, dt, positive=True)
        t = torch.pow(torch.from_numpy(x), exponent)
        _same_bits(t, framework.pow(framework.tensor(x), exponent))
    x = _draw(rng, (9, 21), dt, positive=True).T
    _same_bits(torch.pow(_torch(x), exponent), framework.pow(_fw(x), exponent))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("base", [2, 2.5, 0.3, -2])
def test_pow_scalar_base_bits(dt, base):
    rng = np.random.default_rng([14, 98, DTYPES.index(dt), int(abs(base) * 10)])
    for n in (1, 15, 16, 17, 100, 2049):
        x = _draw(rng, n, dt)
        _same_bits(torch.pow(base, torch.from_numpy(x)), framework.pow(base, framework.tensor(x)))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", ["atan2", "xlogy", "logaddexp2", "pow"])
def test_gradients_bits(op, dt, seed):
    """Gradients with a random upstream gradient (logaddexp2's through pow(2, .), pow's
    through pow; logaddexp's and xlogy's other gradient run unary kernels outside this
    file's share and are compared closely in test_gradients_close)."""
    rng = np.random.default_rng([14, 7, OPS.index(op), DTYPES.index(dt), seed])
    for n in (5, 16, 37, 1000):
        x = _draw(rng, n, dt, positive=op in ("xlogy", "pow"))
        x[np.isnan(x) | np.isinf(x)] = 1.5
        y = (rng.standard_normal(n) * 2).astype(dt)
        g = rng.standard_normal(n).astype(dt)
        tx, ty = (torch.tensor(v, requires_grad=True) for v in (x, y))
        getattr(torch, op)(tx, ty).backward(torch.tensor(g))
        fx, fy = (framework.tensor(v, requires_grad=True) for v in (x, y))
        getattr(framework, op)(fx, fy).backward(framework.tensor(g))
        if op != "xlogy":
            _same_bits(tx.grad, fx.grad)
        if op not in ("pow",):
            _same_bits(ty.grad, fy.grad)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_gradients_close(op, dt):
    rng = np.random.default_rng([14, 8, OPS.index(op), DTYPES.index(dt)])
    x = (np.abs(rng.standard_normal(50)) + 0.1).astype(dt)
    y = (rng.standard_normal(50) * 2).astype(dt)
    if op == "xlogy":
        y = np.abs(y) + 0.1
    g = rng.standard_normal(50).astype(dt)
    tx, ty = (torch.tensor(v, requires_grad=True) for v in (x, y))
    getattr(torch, op)(tx, ty).backward(torch.tensor(g))
    fx, fy = (framework.tensor(v, requires_grad=True) for v in (x, y))
    getattr(framework, op)(fx, fy).backward(framework.tensor(g))
    tol = 1e-5 if dt == "float32" else 1e-12
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(fy.grad.numpy(), ty.grad.numpy(), rtol=tol, atol=tol)


def test_numpy_replay_matches_compiled(monkeypatch):
    """The NumPy replay (no numba) gives the compiled loops' bits."""
    from framework.ops import _vec_binary as V

    rng = np.random.default_rng(1414)
    for dt in DTYPES:
        x, y = _draw(rng, 45, dt, positive=True), _draw(rng, 45, dt)
        for which in range(5):
            monkeypatch.setattr(V, "_JIT", [None])
            a = V.run(which, x, y)
            monkeypatch.setattr(V, "_JIT", [False])
            b = V.run(which, x, y)
            np.testing.assert_array_equal(a, b)
        monkeypatch.setattr(V, "_JIT", [None])
        a = V.pow_scalar(x, 2.7)
        monkeypatch.setattr(V, "_JIT", [False])
        np.testing.assert_array_equal(a, V.pow_scalar(x, 2.7))


@pytest.mark.parametrize("op", OPS)
def test_gradcheck_and_gradgradcheck(op):
    """float64 gradcheck/gradgradcheck of each op's backward (logaddexp2's through pow(2, .))."""
    rng = np.random.default_rng([14, 9, OPS.index(op)])
    x = framework.tensor(np.abs(rng.standard_normal(6)) + 0.5, requires_grad=True)
    y = framework.tensor(rng.standard_normal(6) + 0.25, requires_grad=True)
    if op == "xlogy":
        y = framework.tensor(np.abs(rng.standard_normal(6)) + 0.5, requires_grad=True)
    fn = getattr(framework, op)
    assert framework.autograd.gradcheck(fn, (x, y))
    assert framework.autograd.gradgradcheck(fn, (x, y))


@pytest.mark.parametrize("op", ["atan2", "logaddexp", "logaddexp2", "xlogy", "pow"])
def test_forward_ad(op):
    """The jvp of each op against torch's forward-mode AD (dual numbers)."""
    import torch.autograd.forward_ad as tfwd

    rng = np.random.default_rng([14, 10, OPS.index(op)])
    x = np.abs(rng.standard_normal(20)) + 0.5
    y = rng.standard_normal(20) + 0.25
    if op == "xlogy":
        y = np.abs(y) + 0.5
    tx, ty = rng.standard_normal(20), rng.standard_normal(20)
    with tfwd.dual_level():
        out = getattr(torch, op)(
            tfwd.make_dual(torch.tensor(x), torch.tensor(tx)),
            tfwd.make_dual(torch.tensor(y), torch.tensor(ty)),
        )
        want = tfwd.unpack_dual(out).tangent.numpy()
    _, got = framework.func.jvp(
        getattr(framework, op),
        (framework.tensor(x), framework.tensor(y)),
        (framework.tensor(tx), framework.tensor(ty)),
    )
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", ["sinc", "entr"])
def test_sinc_entr_bits(op, dt, seed):
    """torch's scalar sinc / entr kernels: sinf(pi x) / (pi x) and -x logf(x) in float32 (the
    C library's functions; NumPy's SIMD sin/log rounded 13 % of them otherwise)."""
    rng = np.random.default_rng([14, 11, DTYPES.index(dt), seed])
    for n in (1, 7, 17, 100, 2049):
        x = _draw(rng, n, dt, positive=op == "entr" and seed == 0)
        t = getattr(torch.special, op)(_torch(x))
        _same_bits(t, getattr(framework.special, op)(_fw(x)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_dim_keeps_its_shape(dtype):
    """A 0-dim input stays 0-dim through the C-library and Sleef paths (sinc's float32 glibc
    map returned shape (1,): ascontiguousarray makes 0-dim arrays 1-D; fuzz seed 389)."""
    x = np.array(0.7, dtype=dtype)
    y = np.array(1.3, dtype=dtype)
    for name in ("sinc", "xlogy", "atan2", "logaddexp", "logaddexp2", "pow"):
        tf, ff = getattr(torch, name), getattr(framework, name)
        two = name != "sinc"
        t = tf(torch.tensor(x), torch.tensor(y)) if two else tf(torch.tensor(x))
        f = ff(framework.tensor(x), framework.tensor(y)) if two else ff(framework.tensor(x))
        assert tuple(f.shape) == tuple(t.shape) == ()
        assert f.item() == t.item()
    e = framework.special.entr(framework.tensor(x))
    assert tuple(e.shape) == () and e.item() == torch.special.entr(torch.tensor(x)).item()
