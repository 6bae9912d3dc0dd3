"""The compiled optimizer steps (framework/optim/_kernels.py): one numba loop per parameter.

Checked bit for bit against the NumPy composition they replace (``_fused.disabled()``: the
path without numba or with FRAMEWORK_NUMBA=0) and against torch: the single-tensor and
foreach code (``foreach=False``/``True``), where torch's square root (MKL's, 1 ulp off the
correctly rounded one for ~0.7 % of the inputs, README: Known differences) is the one
difference, so each step is compared from the same state and the parameter elements whose
torch root differs from the correctly rounded one are left out; and the fused kernels
(``fused=True``), whose roots are correctly rounded: every bit, step after step.
Sizes 0, 1, 7, 15, 31, 1000, 70000 cover the vector bodies and scalar tails of both.
"""

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused
from framework.optim import _kernels

from cpu_pin import cpu_has_avx512

COMPILED = _kernels.get() is not None
needs_numba = pytest.mark.skipif(not COMPILED, reason="numba not installed")
DTYPES = [np.float32, np.float64]
SIZES = (0, 1, 7, 15, 31, 1000, 70000)

ADAM = [
    dict(amsgrad=a, maximize=m, weight_decay=wd, decoupled_weight_decay=d, betas=b)
    for a, m, wd, d, b in itertools.product(
        (False, True), (False, True), (0.0, 0.1), (False, True), ((0.9, 0.999), (0.3, 0.99))
    )
    if wd or not d
]
SGD = [
    dict(momentum=mo, dampening=da, nesterov=ne, weight_decay=wd, maximize=mx)
    for mo, da, ne, wd, mx in itertools.product(
        (0.0, 0.9), (0.0, 0.3), (False, True), (0.0, 0.01), (False, True)
    )
    if not ne or (mo and not da)
]
ADAGRAD = [
    dict(lr_decay=ld, weight_decay=wd, maximize=mx, initial_accumulator_value=a)
    for ld, wd, mx, a in itertools.product((0.0, 0.01), (0.0, 0.1), (False, True), (0.0, 0.1))
]
RMSPROP = [
    dict(centered=c, momentum=mo, weight_decay=wd, maximize=mx, alpha=a)
    for c, mo, wd, mx, a in itertools.product(
        (False, True), (0.0, 0.9), (0.0, 0.1), (False, True), (0.99, 0.3)
    )
]
ADAMAX = [
    dict(weight_decay=wd, maximize=mx, betas=b)
    for wd, mx, b in itertools.product((0.0, 0.1), (False, True), ((0.9, 0.999), (0.3, 0.99)))
]
FUSED_CASES = (
    [("Adam", kw) for kw in ADAM]
    + [("SGD", kw) for kw in SGD]
    + [("Adagrad", kw) for kw in ADAGRAD]
)
NADAM = [
    dict(weight_decay=wd, decoupled_weight_decay=d, maximize=mx, momentum_decay=md, betas=b)
    for wd, d, mx, md, b in itertools.product(
        (0.0, 0.1), (False, True), (False, True), (4e-3, 0.1), ((0.9, 0.999), (0.3, 0.99))
    )
    if wd or not d
]
RADAM = [  # beta2 = 0.8: the rectified update from step 8 on
    dict(weight_decay=wd, decoupled_weight_decay=d, maximize=mx, betas=b)
    for wd, d, mx, b in itertools.product(
        (0.0, 0.1), (False, True), (False, True), ((0.9, 0.999), (0.3, 0.8))
    )
    if wd or not d
]
ADADELTA = [
    dict(weight_decay=wd, maximize=mx, rho=r)
    for wd, mx, r in itertools.product((0.0, 0.1), (False, True), (0.9, 0.3))
]
ASGD = [  # (no compiled loop: the NumPy path against torch; t0=1: mu < 1 from step 3)
    dict(weight_decay=wd, maximize=mx, t0=t0, lambd=la)
    for wd, mx, t0, la in itertools.product((0.0, 0.1), (False, True), (1.0, 1e6), (1e-4, 0.1))
]
CASES = (
    FUSED_CASES
    + [("RMSprop", kw) for kw in RMSPROP]
    + [("Adamax", kw) for kw in ADAMAX]
    + [("NAdam", kw) for kw in NADAM]
    + [("RAdam", kw) for kw in RADAM]
    + [("Adadelta", kw) for kw in ADADELTA]
    + [("ASGD", kw) for kw in ASGD]
)
STEPS = {"RAdam": 10}  # (4 otherwise)


def _ids(cases):
    return [f"{name}-" + "-".join(f"{k}={v}" for k, v in kw.items()) for name, kw in cases]


def _make(L, name, kw, params, **extra):
    lr = 0.05 if name in ("SGD", "Adamax", "ASGD") else 1e-2
    if name == "Adam" and kw.get("decoupled_weight_decay"):  # as AdamW
        kw = {k: v for k, v in kw.items() if k != "decoupled_weight_decay"}
        return L.optim.AdamW(params, lr=lr, **kw, **extra)
    return getattr(L.optim, name)(params, lr=lr, **kw, **extra)


def _start(dt, sizes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n).astype(dt) for n in sizes], [
        rng.standard_normal(n).astype(dt) for n in sizes
    ]


def _grad(L, base, p, i):
    """A gradient that depends on the parameter: each step's rounding feeds the next."""
    return L.tensor(base) * (i + 1) - p.detach() * 0.5


def _run_framework(name, kw, dt, sizes, **extra):
    w, g = _start(dt, sizes)
    ps = [framework.tensor(x).requires_grad_(True) for x in w]
    opt = _make(framework, name, kw, ps, **extra)
    for i in range(STEPS.get(name, 4)):
        for p, b in zip(ps, g):
            p.grad = _grad(framework, b, p, i)
        if i == 1:  # a parameter without a gradient: its step count falls behind
            ps[3].grad = None
        opt.step()
    return [p.detach().numpy() for p in ps], opt


def _states(opt, ps):
    return [{k: v.numpy() for k, v in opt.state[p].items()} for p in ps]


@needs_numba
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name,kw", CASES, ids=_ids(CASES))
def test_compiled_equals_numpy_path(name, kw, dt):
    """Every parameter and state entry, bit for bit, with the loops and without them (where
    the small parameters also take the flat-bucket path)."""
    sizes = SIZES + (3, 5, 2, 4)
    out, opt = _run_framework(name, kw, dt, sizes)
    with _fused.disabled():
        ref, ref_opt = _run_framework(name, kw, dt, sizes)
    for a, b in zip(out, ref):
        np.testing.assert_array_equal(a, b)
    ps, ref_ps = opt.param_groups[0]["params"], ref_opt.param_groups[0]["params"]
    for s, r in zip(_states(opt, ps), _states(ref_opt, ref_ps)):
        assert s.keys() == r.keys()
        for k in s:
            np.testing.assert_array_equal(s[k], r[k], err_msg=k)


def _sqrt_differs(t_opt, tp, name, kw, pre=None):
    """Elements where torch's root of the step's second moment is not the correctly
    rounded one (its MKL sqrt): the parameter may differ there (`pre`: torch's state before
    the step)."""
    if name in ("SGD", "Adamax", "ASGD"):
        return np.zeros(tp.shape, bool)
    st = t_opt.state[tp]
    if name == "Adadelta":  # the roots of square_avg + eps and of the previous acc_delta + eps
        out = np.zeros(tp.shape, bool)
        before = pre.get("acc_delta", torch.zeros_like(st["acc_delta"]))  # (first step: none)
        for v in (st["square_avg"] + kw.get("eps", 1e-6), before + kw.get("eps", 1e-6)):
            out |= torch.sqrt(v).numpy() != np.sqrt(v.numpy())
        return out
    if name == "Adagrad":
        v = st["sum"]
    elif name == "RMSprop":
        v = st["square_avg"]
        if kw["centered"]:
            v = torch.addcmul(v, st["grad_avg"], st["grad_avg"], value=-1)
    elif name == "NAdam":  # the root of exp_avg_sq / bias_correction2 (foreach: of exp_avg_sq)
        v = st["exp_avg_sq"]
        q = v / (1 - kw["betas"][1] ** st["step"].item())
        return (torch.sqrt(v).numpy() != np.sqrt(v.numpy())) | (
            torch.sqrt(q).numpy() != np.sqrt(q.numpy())
        )
    elif name == "RAdam":
        v = st["exp_avg_sq"]
    else:
        v = st["max_exp_avg_sq" if kw["amsgrad"] else "exp_avg_sq"]
    return torch.sqrt(v).numpy() != np.sqrt(v.numpy())


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name,kw", CASES, ids=_ids(CASES))
def test_steps_match_torch(name, kw, dt, foreach):
    """torch's single-tensor and foreach steps from the same state, bit for bit (but for the
    parameter elements where torch's root is MKL's, see the module docstring); each step
    then restarts both from torch's parameters."""
    w, g = _start(dt, SIZES)
    tps = [torch.tensor(x, requires_grad=True) for x in w]
    fps = [framework.tensor(x).requires_grad_(True) for x in w]
    t_opt = _make(torch, name, kw, tps, foreach=foreach)
    f_opt = _make(framework, name, kw, fps, foreach=foreach)
    for i in range(STEPS.get(name, 4)):
        for tp, fp, b in zip(tps, fps, g):
            tp.grad = _grad(torch, b, tp, i)
            fp.grad = framework.tensor(tp.grad.numpy())
        pre = {tp: {k: v.clone() for k, v in t_opt.state[tp].items()} for tp in tps}
        t_opt.step()
        f_opt.step()
        for tp, fp in zip(tps, fps):
            keep = ~_sqrt_differs(t_opt, tp, name, kw, pre.get(tp))
            for k, tv in t_opt.state[tp].items():
                fv = f_opt.state[fp][k].numpy()
                if (name, k) in (("RMSprop", "momentum_buffer"), ("Adadelta", "acc_delta")):
                    # (these divide by a root: compared after it, as the parameter)
                    np.testing.assert_array_equal(fv[keep], tv.numpy()[keep], err_msg=k)
                    fv[...] = tv.numpy()
                else:
                    np.testing.assert_array_equal(fv, tv.numpy(), err_msg=k)
            np.testing.assert_array_equal(fp.detach().numpy()[keep], tp.detach().numpy()[keep])
            fp.detach().numpy()[...] = tp.detach().numpy()


@needs_numba
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name,kw", FUSED_CASES, ids=_ids(FUSED_CASES))
def test_fused_matches_torch(name, kw, dt):
    """fused=True: torch's fused CPU kernels (vectorized body, the compiler's vectorized and
    scalar tail), every bit after several steps, each tensor with its own tail."""
    sizes = SIZES + (24, 23, 40, 3)
    w, g = _start(dt, sizes)
    out = []
    for L in (torch, framework):
        ps = [L.tensor(x).requires_grad_(True) for x in w]
        opt = _make(L, name, kw, ps, fused=True)
        for i in range(5):
            for p, b in zip(ps, g):
                p.grad = _grad(L, b, p, i)
            opt.step()
        out.append((ps, opt))
    (tps, t_opt), (fps, f_opt) = out
    for tp, fp in zip(tps, fps):
        np.testing.assert_array_equal(fp.detach().numpy(), tp.detach().numpy())
        for k, tv in t_opt.state[tp].items():
            fv = f_opt.state[fp][k]
            assert fv.dtype == getattr(framework, str(tv.dtype).split(".")[1]), k
            np.testing.assert_array_equal(fv.numpy(), tv.numpy(), err_msg=k)


@needs_numba
@pytest.mark.parametrize(
    "name,kw",
    [
        ("Adam", dict(amsgrad=True)),
        ("AdamW", {}),
        ("SGD", dict(momentum=0.9)),
        ("Adagrad", dict(lr_decay=0.01)),
    ],
)
def test_fused_round_trip_matches_torch(name, kw):
    """fused=True through a step where one parameter has no gradient and a state_dict round
    trip into a fresh optimizer: torch's fused bits, its float32 'step' under a float64
    default dtype."""
    sizes = (31, 3, 70, 1000)
    w, g = _start(np.float64, sizes, seed=5)
    runs = []
    for L in (torch, framework):
        L.set_default_dtype(L.float64)
        try:
            ps = [L.tensor(x).requires_grad_(True) for x in w]
            opt = getattr(L.optim, name)(ps, lr=1e-2, fused=True, **kw)
            for i in range(6):
                for p, b in zip(ps, g):
                    p.grad = _grad(L, b, p, i)
                if i == 2:
                    ps[1].grad = None
                opt.step()
                if i == 3:
                    sd = opt.state_dict()
                    opt = getattr(L.optim, name)(ps, lr=1e-2, fused=True, **kw)
                    opt.load_state_dict(sd)
            runs.append((ps, opt.state_dict()["state"]))
        finally:
            L.set_default_dtype(L.float32)
    (tps, ts), (fps, fs) = runs
    for tp, fp in zip(tps, fps):
        np.testing.assert_array_equal(fp.detach().numpy(), tp.detach().numpy())
    assert list(ts) == list(fs)
    for i in ts:
        assert list(ts[i]) == list(fs[i])
        for k, tv in ts[i].items():
            assert str(fs[i][k].dtype) == str(tv.dtype), k
            np.testing.assert_array_equal(fs[i][k].numpy(), tv.numpy(), err_msg=k)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "SGD", "Adagrad"])
def test_non_contiguous_parameters(name):
    """Transposed parameters and gradients (Fortran order: the loop runs in memory order) and
    strided ones (the NumPy path): torch's single-tensor bits (modulo its root)."""
    kw = {"SGD": dict(momentum=0.9, nesterov=True), "Adagrad": {}}.get(name, dict(amsgrad=True))
    rng = np.random.default_rng(3)
    w = rng.standard_normal((30, 41)).astype(np.float32)
    libs = []
    for L in (torch, framework):
        ps = [
            L.tensor(w).t().detach().requires_grad_(True),
            L.tensor(w)[:, ::2].detach().requires_grad_(True),
        ]
        libs.append((ps, getattr(L.optim, name)(ps, lr=1e-2, foreach=False, **kw)))
    (tps, t_opt), (fps, f_opt) = libs
    for i in range(3):
        for tp, fp in zip(tps, fps):
            g = rng.standard_normal(tp.shape[::-1]).astype(np.float32)
            tp.grad = torch.tensor(g).t() if i % 2 else torch.tensor(g.T.copy())
            fp.grad = framework.tensor(g).t() if i % 2 else framework.tensor(g.T.copy())
        t_opt.step()
        f_opt.step()
        for tp, fp in zip(tps, fps):
            keep = ~_sqrt_differs(t_opt, tp, "Adam" if name == "AdamW" else name, kw)
            np.testing.assert_array_equal(fp.detach().numpy()[keep], tp.detach().numpy()[keep])
            fp.detach().numpy()[...] = tp.detach().numpy()


def test_subclass_with_its_own_rule_is_not_compiled():
    """A subclass that overrides `_update` keeps its rule (the inherited loop is off)."""

    class Halving(framework.optim.SGD):
        def _update(self, p, g, state, h):
            p._data *= 0.5

    p = framework.ones(3, requires_grad=True)
    p.grad = framework.ones(3)
    Halving([p], lr=0.1).step()
    np.testing.assert_array_equal(p.detach().numpy(), [0.5, 0.5, 0.5])
    assert framework.optim.AdamW._compiled  # (AdamW inherits Adam's rule and loop)


def test_usable_takes_only_what_the_loops_index_safely():
    """Flat views only for one dtype, shape and memory order, writeable but for the
    gradient (the loops index without bounds checks)."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    ro = a.copy()
    ro.setflags(write=False)
    assert [x.shape for x in _kernels.usable(a, ro, a.copy())] == [(12,)] * 3
    flat = _kernels.usable(a.T, np.asfortranarray(a.T))  # memory order, views
    assert flat is not None and np.shares_memory(flat[0], a)
    for bad in (
        (ro, a.copy()),  # a read-only parameter
        (a, a.copy(), ro),  # a read-only state
        (a, a.T.copy().T),  # another memory order
        (a, a.astype(np.float64)),
        (a, a[:, :3].copy()),
        (a[:, ::2], a[:, ::2].copy()),  # not contiguous
        (a.astype(np.float16), a.astype(np.float16)),
        (a.astype(">f4"), a.astype(">f4")),
    ):
        assert _kernels.usable(*bad) is None


@needs_numba
def test_fused_split():
    """The fused kernels' vector body and vectorized tail ends, from torch's vector width."""
    nb, nv = _kernels.fused_split(1000, 4)
    assert nb in (992, 1000) and nb <= nv <= 1000
    assert _kernels.fused_split(0, 8) == (0, 0)


_AVX512_SCRIPT = """
import numpy as np, torch, framework
assert torch.backends.cpu.get_cpu_capability() == "AVX512"
rng = np.random.default_rng(0)
for name, kw in [
    ("Adam", dict(amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(maximize=True)),
    ("SGD", dict(momentum=0.9, weight_decay=0.1)),
    ("Adagrad", dict(weight_decay=0.1, lr_decay=0.01)),
]:
    for dt in (np.float32, np.float64):
        w = [rng.standard_normal(n).astype(dt) for n in (7, 15, 23, 24, 31, 1003, 70001)]
        out = []
        for L in (torch, framework):
            ps = [L.tensor(x).requires_grad_(True) for x in w]
            opt = getattr(L.optim, name)(ps, lr=0.01, fused=True, **kw)
            for i in range(4):
                for p in ps:
                    p.grad = p.detach() * 0.5 + (i + 1)
                opt.step()
            out.append([p.detach().numpy() for p in ps])
        for a, b in zip(*out):
            assert (a == b).all(), (name, dt, a.size, (a != b).sum())
print("ok")
"""


@needs_numba
@pytest.mark.skipif(not cpu_has_avx512(), reason="torch runs its AVX-512 kernels only there")
def test_fused_matches_torch_avx512():
    """torch's own choice on an AVX-512 CPU (the tests pin AVX2, tests/cpu_pin.py): 64-byte
    vector bodies, then GCC's 32-byte vectorized part of the scalar loop, then its scalar
    rest; fused_split follows (a fresh process: both read the setting at import)."""
    env = dict(os.environ)
    env.pop("ATEN_CPU_CAPABILITY", None)
    res = subprocess.run(
        [sys.executable, "-c", _AVX512_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    )
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr[-2000:]


@needs_numba
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_group_call_equals_per_parameter_loop(monkeypatch, amsgrad):
    """Adam's whole-group compiled calls (`_kernels.adam_group`, here two parameters a call)
    against one compiled loop per parameter: every bit of parameters and state, through a parameter whose step count falls
    behind, a non-contiguous gradient (the group call declines) and a state_dict reload (the
    cached views are rebuilt)."""
    from framework.optim import adam as adam_mod, optimizer as opt_mod

    calls = []
    real = adam_mod.Adam._compiled_group

    def counted(self, k, params, h):
        done = real(self, k, params, h)
        calls.append(done)
        return done

    def run(group_max):
        monkeypatch.setattr(opt_mod, "_GROUP_MAX", group_max)
        w, g = _start(np.float32, (6, 40, 1, 300, 12))
        ps = [framework.tensor(x).requires_grad_(True) for x in w]
        opt = framework.optim.Adam(ps, lr=1e-2, amsgrad=amsgrad, weight_decay=0.1)
        for i in range(6):
            for p, b in zip(ps, g):
                p.grad = _grad(framework, b, p, i)
            if i == 1:
                ps[2].grad = None
            if i == 2:
                ps[3].grad = framework.tensor(np.repeat(g[3], 2))[::2]  # strided
            if i == 4:
                opt.load_state_dict(opt.state_dict())
            opt.step()
        return ps, opt

    monkeypatch.setattr(adam_mod.Adam, "_compiled_group", counted)
    ps, opt = run(2)  # (five parameters: calls of 2, 2 and 1)
    assert calls.count(True) >= 3 and False in calls
    ref_ps, ref_opt = run(1)
    for p, r in zip(ps, ref_ps):
        np.testing.assert_array_equal(p.detach().numpy(), r.detach().numpy())
    for s, r in zip(_states(opt, ps), _states(ref_opt, ref_ps)):
        assert s.keys() == r.keys()
        for k in s:
            np.testing.assert_array_equal(s[k], r[k], err_msg=k)


@needs_numba
@pytest.mark.parametrize(
    "kw",
    [
        dict(momentum=0.9),
        dict(momentum=0.9, nesterov=True, weight_decay=0.01, maximize=True),
        dict(momentum=0.0),
        dict(momentum=0.5, dampening=0.3),
    ],
)
def test_sgd_group_call_equals_per_parameter_loop(monkeypatch, kw):
    """SGD's whole-group compiled calls (`_kernels.sgd_group`, two parameters a call) against
    one compiled loop per parameter: every bit of parameters and momentum buffers, through a
    parameter without a gradient for a step and a strided gradient (the group call declines)."""
    from framework.optim import optimizer as opt_mod, sgd as sgd_mod

    calls = []
    real = sgd_mod.SGD._compiled_group

    def counted(self, k, params, h):
        done = real(self, k, params, h)
        calls.append(done)
        return done

    def run(group_max):
        monkeypatch.setattr(opt_mod, "_GROUP_MAX", group_max)
        w, g = _start(np.float32, (6, 40, 1, 300, 12))
        ps = [framework.tensor(x).requires_grad_(True) for x in w]
        opt = framework.optim.SGD(ps, lr=0.05, **kw)
        for i in range(5):
            for p, b in zip(ps, g):
                p.grad = _grad(framework, b, p, i)
            if i == 1:
                ps[2].grad = None
            if i == 2:
                ps[3].grad = framework.tensor(np.repeat(g[3], 2))[::2]  # strided
            opt.step()
        return ps, opt

    monkeypatch.setattr(sgd_mod.SGD, "_compiled_group", counted)
    ps, opt = run(2)
    assert calls.count(True) >= 2 and False in calls
    ref_ps, ref_opt = run(1)
    for p, r in zip(ps, ref_ps):
        np.testing.assert_array_equal(p.detach().numpy(), r.detach().numpy())
    for s, r in zip(_states(opt, ps), _states(ref_opt, ref_ps)):
        assert s.keys() == r.keys()
        for k in s:
            np.testing.assert_array_equal(s[k], r[k], err_msg=k)
