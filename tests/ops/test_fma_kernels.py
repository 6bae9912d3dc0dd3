"""Bit-for-bit parity with torch's fused multiply-add kernels on float32/float64 CPU tensors.

torch's ``add``/``sub`` with ``alpha`` (``vec::fmadd(other, alpha, self)``), ``lerp``
(``lerp_vec``: one fmadd on either side of 0.5) and ``addcmul`` (``value * t1`` rounded, then
fused with ``t2`` and ``self``) round once per element where a plain NumPy formula rounds two
or three times (1 ulp off in ~10-40 % of the elements). The optimizers are compositions of
these (``param.add_(grad, alpha=-lr)``, ``exp_avg.lerp_(grad, 1 - beta1)``,
``exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)``), so a step now gives torch's
bits. Found by a user-style program: LBFGS ended at 0.99999988 where torch reached 1.0.
framework._fma.fused is a numba-compiled FMA where numba is installed, else an exact
emulation: both are tested (FRAMEWORK_NUMBA=0 through the ``emulated`` fixture).
"""

import numpy as np
import pytest
import torch

import framework
from framework import _fma
from framework.ops import _fused

DTYPES = [np.float32, np.float64]
SIZES = [1, 3, 5, 8, 17, 40, 1000]


# the compiled loops where numba is installed (the test extra has it), the emulation always
PATHS = ["emulated"] + (["compiled"] if _fused.kernels() is not None else [])


@pytest.fixture(params=PATHS)
def fma_path(request, monkeypatch):
    if request.param == "emulated":
        monkeypatch.setattr(_fma, "_LOOPS", [False])
    return request.param


def _pair(shape_a, shape_b, dt, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape_a).astype(dt), rng.standard_normal(shape_b).astype(dt)


def _both(fn, *arrays):
    t = fn(torch, *(torch.tensor(a) for a in arrays))
    f = fn(framework, *(framework.tensor(a) for a in arrays))
    return t.numpy(), f.numpy()


BINARY = {
    "add": lambda L, a, b: a.add(b, alpha=0.3),
    "add_neg": lambda L, a, b: L.add(a, b, alpha=-1.7),
    "add_int_alpha": lambda L, a, b: a.add(b, alpha=3),
    "sub": lambda L, a, b: a.sub(b, alpha=0.7),
    "rsub": lambda L, a, b: L.rsub(a, b, alpha=0.45),
    "add_": lambda L, a, b: a.clone().add_(b, alpha=-0.01),
    "sub_": lambda L, a, b: a.clone().sub_(b, alpha=2.5),
    "lerp_lo": lambda L, a, b: a.lerp(b, 0.1),
    "lerp_hi": lambda L, a, b: a.lerp(b, 0.9),
    "lerp_far": lambda L, a, b: a.lerp(b, 2.5),
    "lerp_": lambda L, a, b: a.clone().lerp_(b, 0.3),
    "lerp_tensor": lambda L, a, b: L.lerp(a, b, (b * 0.7).abs()),
    "addcmul": lambda L, a, b: a.addcmul(b, a, value=0.3),
    "addcmul_1": lambda L, a, b: L.addcmul(a, b, b),
    "addcmul_": lambda L, a, b: a.clone().addcmul_(b, b, value=-0.01),
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", BINARY)
def test_fused_kernels_bitwise(op, dt, n, fma_path):
    a, b = _pair((n,), (n,), dt, n)
    t, f = _both(BINARY[op], a, b)
    assert f.dtype == t.dtype
    np.testing.assert_array_equal(f, t)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shapes", [((3, 40), (40,)), ((40,), (3, 40)), ((2, 3, 37), (3, 37))])
@pytest.mark.parametrize("op", ["add", "sub", "rsub", "lerp_lo", "addcmul"])
def test_fused_kernels_broadcast_bitwise(op, shapes, dt, fma_path):
    a, b = _pair(*shapes, dt, 5)
    t, f = _both(BINARY[op], a, b)
    np.testing.assert_array_equal(f, t)


def test_alpha_as_tensor():
    """torch reads a 0-dim tensor alpha as a Scalar."""
    a, b = _pair((5,), (5,), np.float32, 0)
    t, f = _both(lambda L, x, y: x.add(y, alpha=L.tensor(0.37)), a, b)
    np.testing.assert_array_equal(f, t)


OPTIMIZERS = {  # name: (factory, takes a square root)
    "sgd": (lambda L, p: L.optim.SGD([p], lr=0.1), False),
    "sgd_nesterov_wd": (
        lambda L, p: L.optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4),
        False,
    ),
    "sgd_dampening": (
        lambda L, p: L.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.3, weight_decay=1e-2),
        False,
    ),
    "rprop": (lambda L, p: L.optim.Rprop([p]), False),
    "adam": (lambda L, p: L.optim.Adam([p], lr=1e-3), True),
    "adam_amsgrad_wd": (
        lambda L, p: L.optim.Adam([p], lr=1e-3, weight_decay=0.1, amsgrad=True),
        True,
    ),
    "adamw": (lambda L, p: L.optim.AdamW([p], lr=1e-3), True),
    "rmsprop": (lambda L, p: L.optim.RMSprop([p], lr=1e-2), True),
    "rmsprop_centered": (
        lambda L, p: L.optim.RMSprop([p], lr=1e-2, centered=True, momentum=0.9, weight_decay=0.1),
        True,
    ),
    "adagrad": (lambda L, p: L.optim.Adagrad([p], lr=1e-2, weight_decay=0.1), True),
    "adadelta": (lambda L, p: L.optim.Adadelta([p], weight_decay=0.1), True),
    "adamax": (lambda L, p: L.optim.Adamax([p], weight_decay=0.1), False),
    "nadam": (lambda L, p: L.optim.NAdam([p], weight_decay=0.1), True),
    "radam": (lambda L, p: L.optim.RAdam([p], weight_decay=0.1), True),
    "asgd": (lambda L, p: L.optim.ASGD([p], weight_decay=0.1), False),
}


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_steps_bitwise(name, dt):
    """Six steps of torch's single-tensor optimizers (a gradient that depends on the
    parameter, so every step's rounding feeds the next): bit for bit, except where a step
    takes a square root: torch's is MKL's, 1 ulp off the correctly rounded value for ~0.7 %
    of the inputs (README: Known differences), so a few elements may differ there by a few
    ulp (tens where the root is of a cancelling difference). Before the fused kernels: SGD 303 of 1,000 elements (up to 1,210 ulp with
    dampening in float64), RMSprop 102, Adam 8."""
    factory, takes_sqrt = OPTIMIZERS[name]
    w, g = _pair((1000,), (1000,), dt, 11)
    out = []
    for L in (torch, framework):
        p = L.tensor(w).requires_grad_(True)
        opt = factory(L, p)
        for i in range(6):
            p.grad = L.tensor(g) * (i + 1) - p.detach() * 0.5
            opt.step()
        out.append(p.detach().numpy())
    if not takes_sqrt:
        np.testing.assert_array_equal(out[1], out[0])
        return
    bits = np.int32 if dt == np.float32 else np.int64
    ulps = np.abs(out[1].view(bits).astype(np.int64) - out[0].view(bits).astype(np.int64))
    # RMSprop(centered) takes the root of a cancelling difference: its ulps grow there
    assert (ulps != 0).sum() <= 10 and ulps.max() <= 128, ((ulps != 0).sum(), ulps.max())


def test_lbfgs_reaches_torchs_point():
    """The program that found it: LBFGS on a quadratic (its steps are add_(alpha=) updates)."""
    res = []
    for L in (torch, framework):
        w = L.zeros(3, requires_grad=True)
        opt = L.optim.LBFGS([w])

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = ((w - 1) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        res.append((w.detach().numpy(), opt.state[w]["n_iter"], opt.state[w]["func_evals"]))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    assert res[1][1:] == res[0][1:]


def test_fma64_emulation_with_infinities():
    """The exact float64 emulation passes inf/NaN through as IEEE arithmetic does (it rescaled
    an infinite operand forever: a recursion error, found by the sleef branch)."""
    from framework._fma import fma64

    a = np.array([np.inf, 2.0, np.nan, 3.0, -np.inf, 1e300])
    b = np.array([2.0, 3.0, 1.0, 2.0, 0.0, 1e10])
    c = np.array([1.0, np.inf, 0.0, -np.inf, 1.0, 1.0])
    with np.errstate(all="ignore"):
        expected = a * b + c
    np.testing.assert_array_equal(fma64(a, b, c), expected)
