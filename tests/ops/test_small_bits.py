"""Small ops at torch's CPU bits (issue 9): digamma, trigamma and polygamma(n) (torch's
scalar calc_digamma / trigamma replayed by framework/ops/_gamma_exact.py, the polygamma
factor from the C library's lgamma), float32 and float64, forward and gradients with a random
upstream gradient; the numba loops and the NumPy replay give the same bits."""

import numpy as np
import pytest
import torch

import framework
from bits import replay_path, same_bits
from framework.ops import _gamma_exact, _sleef

DTYPES = ["float32", "float64"]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -3.0, -2.5, 10.0, 1e17, 1e30, 1e-30, -1e-30]


def _replay(numba):
    """Run the block on the numba kernels or the NumPy replay."""
    return replay_path(_sleef._JIT, numba)


_same = same_bits


def _gamma_data(n, dtype, seed):
    """Values around the poles, the recurrence range, the asymptotic range and specials."""
    rng = np.random.default_rng(seed)
    parts = [
        rng.uniform(-50, 50, n),
        rng.uniform(0, 3, n),
        rng.uniform(10, 1e6, n),
        rng.standard_normal(n) * 0.05,
        SPECIAL,
    ]
    return np.concatenate(parts).astype(dtype)


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_digamma_polygamma_bits(dtype, numba):
    x = _gamma_data(3000 if numba else 400, dtype, 1)
    with _replay(numba):
        _same(framework.digamma(framework.tensor(x)).numpy(), torch.digamma(torch.tensor(x)))
        for n in range(5):
            ours = framework.polygamma(n, framework.tensor(x)).numpy()
            _same(ours, torch.polygamma(n, torch.tensor(x)).numpy())


def test_digamma_numba_and_numpy_agree():
    """The numba loops and the NumPy replay give the same bits (where numba is off both runs
    are the NumPy replay and must equal torch's, which the test above checks)."""
    for dtype in DTYPES:
        x = _gamma_data(500, dtype, 2)
        with _replay(True):
            a, b = _gamma_exact.digamma(x), _gamma_exact.trigamma(x)
        with _replay(False):
            _same(a, _gamma_exact.digamma(x))
            _same(b, _gamma_exact.trigamma(x))


def test_digamma_float16_through_float():
    x = _gamma_data(500, "float16", 3)
    _same(framework.digamma(framework.tensor(x)).numpy(), torch.digamma(torch.tensor(x)))


def test_digamma_fuzz_find():
    """Seed 350060880's input: torch's float calc_digamma gives -42.564743 (ours was the
    float64 value rounded, -42.56475)."""
    x = np.array([0.0238], np.float32)
    _same(framework.digamma(framework.tensor(x)).numpy(), torch.digamma(torch.tensor(x)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["digamma", "polygamma1", "polygamma2"])
def test_gamma_gradients_bits(op, dtype):
    x = _gamma_data(200, dtype, 4)
    x = x[np.isfinite(x)]
    g = np.random.default_rng(5).standard_normal(x.shape).astype(dtype)
    grads = []
    for lib, arr in ((framework, framework.tensor), (torch, torch.tensor)):
        t = arr(x, requires_grad=True)
        if op.startswith("polygamma"):
            y = lib.polygamma(int(op[-1]), t)
        else:
            y = getattr(lib, op)(t)
        y.backward(arr(g))
        grads.append((y.detach().numpy(), t.grad.numpy()))
    _same(grads[0][0], grads[1][0])
    _same(grads[0][1], grads[1][1])


def test_special_zeta_float32_bits():
    rng = np.random.default_rng(6)
    x = rng.uniform(1, 12, 3000).astype(np.float32)
    x[:1000] = np.round(x[:1000])
    q = rng.uniform(-30, 30, 3000).astype(np.float32)
    q[:3] = [-np.inf, np.inf, np.nan]
    ours = framework.special.zeta(framework.tensor(x), framework.tensor(q)).numpy()
    _same(ours, torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy())


# cross_entropy with label smoothing or class probabilities: torch composes log_softmax,
# nll_loss and the smoothing sums (cross_entropy_loss_label_smoothing / _prob_target); the
# fused node's value and gradients come from that composition op by op (torch's bits)
def _ce_case(seed, dtype, probs, weighted, extra):
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 40)), int(rng.integers(2, 30))
    x = (rng.standard_normal([n, c] + extra) * 3).astype(dtype)
    if probs:
        t = rng.random([n, c] + extra).astype(dtype)
        t /= t.sum(1, keepdims=True)
    else:
        t = rng.integers(0, c, [n] + extra)
        t[rng.random(t.shape) < 0.2] = -100
    w = rng.uniform(0.1, 2, c).astype(dtype) if weighted else None
    return x, t, w, float(rng.choice([0.05, 0.1, 0.25, 0.7]))


def _ce_run(lib, x, t, w, ls, reduction, probs, g_seed):
    xt = lib.tensor(x, requires_grad=True)
    tt = lib.tensor(t, requires_grad=probs)
    wt = None if w is None else lib.tensor(w, requires_grad=probs)
    out = lib.nn.functional.cross_entropy(xt, tt, wt, reduction=reduction, label_smoothing=ls)
    g = np.random.default_rng(g_seed).standard_normal(tuple(out.shape)).astype(x.dtype)
    out.backward(lib.tensor(g))
    grads = [xt.grad] + ([tt.grad] + ([] if w is None else [wt.grad]) if probs else [])
    return [type(out.grad_fn).__name__, out.detach().numpy()] + [a.numpy() for a in grads]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("probs", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy_smoothing_bits(dtype, weighted, probs, reduction):
    for seed in range(4):
        extra = [] if seed % 2 else [3]
        x, t, w, ls = _ce_case(seed, dtype, probs, weighted, extra)
        if probs and seed == 3:
            ls = 0.0  # probabilities without smoothing: the same composition
        ours = _ce_run(framework, x, t, w, ls, reduction, probs, seed + 100)
        want = _ce_run(torch, x, t, w, ls, reduction, probs, seed + 100)
        assert ours[0] == want[0]
        for a, b in zip(ours[1:], want[1:]):
            _same(a, b)


def test_cross_entropy_smoothing_unbatched_and_all_ignored():
    x = np.random.default_rng(7).standard_normal(6).astype(np.float32)
    for t, red in ((np.array(2), "mean"), (np.array(-100), "mean"), (np.array(-100), "sum")):
        ours = _ce_run(framework, x, t, None, 0.2, red, False, 8)
        want = _ce_run(torch, x, t, None, 0.2, red, False, 8)
        for a, b in zip(ours[1:], want[1:]):
            _same(a, b)


@pytest.mark.parametrize("probs", [False, True])
def test_cross_entropy_smoothing_gradcheck(probs):
    x, t, w, _ = _ce_case(11, "float64", probs, True, [2])
    x, t = x[:4], t[:4]
    xt = framework.tensor(x, requires_grad=True)
    tt = framework.tensor(t, requires_grad=probs)
    wt = framework.tensor(w, requires_grad=probs)
    inputs = (xt, tt, wt) if probs else (xt,)

    def f(*a):
        target, weight = (a[1], a[2]) if probs else (tt, wt)
        return framework.nn.functional.cross_entropy(a[0], target, weight, label_smoothing=0.3)

    assert framework.autograd.gradcheck(f, inputs)
    assert framework.autograd.gradgradcheck(f, inputs)


@pytest.mark.parametrize("probs", [False, True])
def test_cross_entropy_smoothing_jvp(probs):
    import torch.autograd.forward_ad as tfw

    import framework.autograd.forward_ad as ffw

    x, t, w, _ = _ce_case(12, "float64", probs, True, [])
    tangent = np.random.default_rng(13).standard_normal(x.shape)
    res = []
    for lib, fw in ((framework, ffw), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(lib.tensor(x), lib.tensor(tangent))
            out = lib.nn.functional.cross_entropy(
                d, lib.tensor(t), lib.tensor(w), label_smoothing=0.3
            )
            res.append(fw.unpack_dual(out).tangent.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-10, atol=1e-12)


# logit: torch's CPU kernel takes MKL's vsLn/vdLn for a dense input (its last-ulp choices
# are not replayed: float32 uses float64's log rounded, ~3e-4 of values an ulp apart) and
# the C library's log/logf per element for a strided one (replayed exactly)
def _logit_input(dtype):
    x = np.random.default_rng(20).uniform(-0.1, 1.1, (60, 50)).astype(dtype)
    x[0, :5] = [0.0, 1.0, np.nan, 0.5, -0.0]
    return x


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("eps", [None, 1e-3, 0.3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_logit_strided_bits(dtype, eps, numba):
    x = _logit_input(dtype)
    with _replay(numba):
        ours = framework.logit(framework.tensor(x)[:, ::2], eps).numpy()
    _same(ours, torch.logit(torch.tensor(x)[:, ::2], eps).numpy())


@pytest.mark.parametrize("eps", [None, 1e-3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_logit_dense_close_and_gradient_bits(dtype, eps):
    # (-0.0 and NaN: torch's vectorized backward divides, grad / (-0.0 * 1), and blends a
    # NaN x to 0 under eps; its scalar tail multiplies, grad * inf, and gives NaN)
    x = _logit_input(dtype)
    x[-1, -3:] = [-0.0, np.nan, 0.5]
    g = np.random.default_rng(21).standard_normal(x.shape).astype(dtype)
    out = []
    for lib in (framework, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.logit(t, eps)
        y.backward(lib.tensor(g))
        out.append((y.detach().numpy(), t.grad.numpy()))
    a, b = out[0][0], out[1][0]
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    ints = np.int32 if dtype == "float32" else np.int64
    assert (np.abs(a[ok].view(ints) - b[ok].view(ints)) <= 1).all()  # (same signs here)
    _same(out[0][1], out[1][1])


@pytest.mark.parametrize("eps", [None, 0.1])
def test_logit_gradcheck(eps):
    x = framework.tensor(np.random.default_rng(22).uniform(0.05, 0.95, (3, 4)), requires_grad=True)
    assert framework.autograd.gradcheck(lambda t: framework.logit(t, eps), (x,))
    assert framework.autograd.gradgradcheck(lambda t: framework.logit(t, eps), (x,))
