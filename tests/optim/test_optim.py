"""Optimizers against torch.optim: k identical steps, state_dict layout and round trips."""

import itertools

import numpy as np
import pytest
import torch

import framework
from framework import optim

RNG = np.random.default_rng(7)
SHAPES = [(3, 4), (5,)]
STEPS = 20
TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-11, atol=1e-13)}


def _problem(dtype):
    """Initial params, loss weights and per-step noise, shared by both libraries."""
    rng = np.random.default_rng(11)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    weights = [np.abs(rng.standard_normal(s)).astype(dtype) + 0.1 for s in SHAPES]
    noise = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(2 * STEPS)]
    return init, weights, noise


def _loss(lib, params, weights, noise):
    """sum(w * p^2 + noise * p + sin(p)): gradients depend on the params, change every step,
    and the loss is bounded below so no optimizer diverges."""
    total = 0
    for p, w, n in zip(params, weights, noise):
        total = total + (lib.tensor(w) * p * p + lib.tensor(n) * p + p.sin()).sum()
    return total


def _fw_params(init, device="cpu"):
    return [framework.tensor(x, device=device, requires_grad=True) for x in init]


def _th_params(init):
    return [torch.tensor(x, requires_grad=True) for x in init]


def _step(lib, opt, params, weights, noise):
    opt.zero_grad()
    _loss(lib, params, weights, noise).backward()
    opt.step()


def _assert_params(fw, th, dtype, tol=None):
    for f, t in zip(fw, th):
        assert f._data.dtype == dtype
        np.testing.assert_allclose(
            np.asarray(f.detach().cpu()), t.detach().numpy(), **(tol or TOL[dtype])
        )


def _assert_state(fw_opt, th_opt, fw_p, th_p, dtype, tol=None):
    """Per-parameter state: same keys in the same order, same dtypes and values."""
    assert len(fw_opt.state) == len(th_opt.state)
    for f, t in zip(fw_p, th_p):
        fs, ts = fw_opt.state[f], th_opt.state[t]
        assert list(fs) == list(ts)
        for key in ts:
            if not isinstance(ts[key], torch.Tensor):
                assert fs[key] == ts[key], key
                continue
            assert fs[key]._data.dtype == ts[key].numpy().dtype, key
            assert str(fs[key].device) == str(ts[key].device), key
            np.testing.assert_allclose(
                np.asarray(fs[key].cpu()), ts[key].numpy(), **(tol or TOL[dtype])
            )


def _run_both(name, kwargs, dtype, device="cpu", fw_kwargs=None, tol=None):
    init, weights, noise = _problem(dtype)
    fw_p, th_p = _fw_params(init, device), _th_params(init)
    fw_opt = getattr(optim, name)(fw_p, **{**kwargs, **(fw_kwargs or {})})
    th_opt = getattr(torch.optim, name)(th_p, **kwargs)
    for k in range(STEPS):
        _step(framework, fw_opt, fw_p, weights, noise[k])
        _step(torch, th_opt, th_p, weights, noise[k])
        _assert_params(fw_p, th_p, dtype, tol)
        if device == "cpu":
            _assert_state(fw_opt, th_opt, fw_p, th_p, dtype, tol)
    return fw_opt, th_opt, fw_p, th_p


def _combos(**options):
    keys = list(options)
    return [dict(zip(keys, vals)) for vals in itertools.product(*options.values())]


SGD_CASES = [
    c
    for c in _combos(
        lr=[0.05],
        momentum=[0, 0.9],
        dampening=[0, 0.3],
        weight_decay=[0, 0.1],
        nesterov=[False, True],
        maximize=[False, True],
    )
    if not (c["nesterov"] and (c["momentum"] == 0 or c["dampening"] != 0))
    and not (c["momentum"] == 0 and c["dampening"] != 0)
]
ADAM_CASES = _combos(
    lr=[0.05],
    betas=[(0.9, 0.999), (0.5, 0.6)],
    weight_decay=[0, 0.1],
    amsgrad=[False, True],
    maximize=[False, True],
)
RMSPROP_CASES = _combos(
    lr=[0.01],
    alpha=[0.99, 0.4],
    weight_decay=[0, 0.1],
    momentum=[0, 0.9],
    centered=[False, True],
    maximize=[False, True],
)
ADAGRAD_CASES = _combos(
    lr=[0.1],
    lr_decay=[0, 0.1],
    weight_decay=[0, 0.1],
    initial_accumulator_value=[0, 0.5],
    maximize=[False, True],
)
ADADELTA_CASES = _combos(
    lr=[1.0, 0.5], rho=[0.9, 0.5], eps=[1e-6, 1e-3], weight_decay=[0, 0.1], maximize=[False, True]
)
ADAMAX_CASES = _combos(
    lr=[0.05],
    betas=[(0.9, 0.999), (0.5, 0.6)],
    eps=[1e-8, 0.1],
    weight_decay=[0, 0.1],
    maximize=[False, True],
)
NADAM_CASES = _combos(
    lr=[0.05],
    betas=[(0.9, 0.999), (0.5, 0.6)],
    weight_decay=[0, 0.1],
    momentum_decay=[4e-3, 0.1],
    decoupled_weight_decay=[False, True],
    maximize=[False, True],
)
RADAM_CASES = _combos(
    lr=[0.05],
    betas=[(0.9, 0.999), (0.5, 0.6), (0.8, 0.9)],
    weight_decay=[0, 0.1],
    decoupled_weight_decay=[False, True],
    maximize=[False, True],
)
ASGD_CASES = _combos(
    lr=[0.05],
    lambd=[1e-4, 0.1],
    alpha=[0.75, 0.5],
    t0=[1e6, 5.0],
    weight_decay=[0, 0.1],
    maximize=[False, True],
)
RPROP_CASES = _combos(
    lr=[0.05],
    etas=[(0.5, 1.2), (0.3, 1.5)],
    step_sizes=[(1e-6, 50), (1e-3, 0.1)],
    maximize=[False, True],
)
ALL_CASES = (
    [("SGD", c) for c in SGD_CASES]
    + [("Adam", c) for c in ADAM_CASES]
    + [("AdamW", c) for c in ADAM_CASES]
    + [("RMSprop", c) for c in RMSPROP_CASES]
    + [("Adagrad", c) for c in ADAGRAD_CASES]
    + [("Adadelta", c) for c in ADADELTA_CASES]
    + [("Adamax", c) for c in ADAMAX_CASES]
    + [("NAdam", c) for c in NADAM_CASES]
    + [("RAdam", c) for c in RADAM_CASES]
    + [("ASGD", c) for c in ASGD_CASES]
    + [("Rprop", c) for c in RPROP_CASES]
)
DEFAULT_CASES = [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", {}),
    ("AdamW", dict(amsgrad=True)),
    ("RMSprop", dict(momentum=0.5, centered=True)),
    ("Adagrad", dict(lr_decay=0.01)),
    ("Adadelta", dict(weight_decay=0.1)),
    ("Adamax", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, decoupled_weight_decay=True, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=5.0)),
    ("Rprop", dict(lr=0.05)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name,kwargs",
    ALL_CASES,
    ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in c.items())}" for n, c in ALL_CASES],
)
def test_steps_match_torch(name, kwargs, dtype):
    if name == "RMSprop" and kwargs["centered"] and kwargs["alpha"] == 0.4 and dtype == np.float32:
        # the centered variance square_avg - grad_avg**2 cancels, and torch's FMA kernels
        # round differently from NumPy's separate multiply and add in its other updates
        return _run_both(name, kwargs, dtype, tol=dict(rtol=2e-4, atol=2e-6))
    _run_both(name, kwargs, dtype)  # parameters and state compared after every step


@pytest.mark.parametrize("flag", ["foreach", "fused"])
@pytest.mark.parametrize("name,kwargs", DEFAULT_CASES)
def test_foreach_and_fused_flags(name, kwargs, flag):
    """foreach=True runs torch's multi-tensor code, fused=True its fused kernels; ours follow
    them (their bits: tests/optim/test_optim_kernels.py)."""
    import inspect

    if flag not in inspect.signature(getattr(torch.optim, name)).parameters:
        with pytest.raises(TypeError):
            getattr(optim, name)([framework.zeros(1, requires_grad=True)], **{flag: True})
        return
    if flag == "fused" and name not in ("SGD", "Adam", "AdamW", "Adagrad"):
        return
    fw_opt, th_opt, _, _ = _run_both(name, {**kwargs, flag: True}, np.float32)
    assert fw_opt.param_groups[0][flag] is True


@pytest.mark.parametrize("name,kwargs", DEFAULT_CASES)
def test_capturable_on_cpu_raises_like_torch(name, kwargs):
    import inspect

    if "capturable" not in inspect.signature(getattr(torch.optim, name)).parameters:
        return
    errors = []
    for lib, o in ((torch, torch.optim), (framework, optim)):
        p = lib.zeros(2, requires_grad=True)
        p.grad = lib.ones(2)
        opt = getattr(o, name)([p], capturable=True, **kwargs)
        with pytest.raises(AssertionError) as err:
            opt.step()
        errors.append(str(err.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("name,kwargs", DEFAULT_CASES)
def test_tensor_lr_every_optimizer(name, kwargs):
    lr = kwargs.get("lr", 0.01)
    init, weights, noise = _problem(np.float32)
    fw_p, th_p = _fw_params(init), _th_params(init)
    fw_opt = getattr(optim, name)(fw_p, **{**kwargs, "lr": framework.tensor(lr)})
    th_opt = getattr(torch.optim, name)(th_p, **{**kwargs, "lr": torch.tensor(lr)})
    for k in range(5):
        _step(framework, fw_opt, fw_p, weights, noise[k])
        _step(torch, th_opt, th_p, weights, noise[k])
        _assert_params(fw_p, th_p, np.float32)
    assert isinstance(fw_opt.param_groups[0]["lr"], framework.Tensor)


@pytest.mark.parametrize("name,kwargs", DEFAULT_CASES)
def test_steps_on_device(name, kwargs, device):
    _run_both(name, kwargs, np.float32, device)


def _sd_layout(sd):
    """state_dict with tensors replaced by (type, dtype, shape)."""

    def desc(v):
        if isinstance(v, (torch.Tensor, framework.Tensor)):
            return ("tensor", str(v.dtype).replace("torch.", ""), tuple(v.shape))
        return v

    state = {k: {kk: desc(vv) for kk, vv in v.items()} for k, v in sd["state"].items()}
    return state, sd["param_groups"]


@pytest.mark.parametrize(
    "name,kwargs", DEFAULT_CASES + [("SGD", {}), ("Adam", dict(amsgrad=True, weight_decay=0.1))]
)
def test_state_dict_layout_matches_torch(name, kwargs):
    fw_opt, th_opt, _, _ = _run_both(name, kwargs, np.float32)
    fw_sd, th_sd = fw_opt.state_dict(), th_opt.state_dict()
    assert _sd_layout(fw_sd) == _sd_layout(th_sd)
    assert list(fw_sd["param_groups"][0]) == list(th_sd["param_groups"][0])
    assert [list(v) for v in fw_sd["state"].values()] == [list(v) for v in th_sd["state"].values()]
    assert repr(fw_opt) == repr(th_opt)


def test_adam_step_is_float64_under_float64_default():
    framework.set_default_dtype(framework.float64)
    p = framework.zeros(2, requires_grad=True)
    opt = optim.Adam([p])
    p.grad = framework.ones(2)
    opt.step()
    assert opt.state[p]["step"].dtype == framework.float64
    assert opt.state[p]["step"].item() == 1.0


def _clone_sd(sd):
    """What saving and loading a checkpoint does: fresh copies of every state tensor."""
    state = {
        k: {
            kk: (framework.tensor(vv.numpy().copy()) if isinstance(vv, framework.Tensor) else vv)
            for kk, vv in v.items()
        }
        for k, v in sd["state"].items()
    }
    return {"state": state, "param_groups": [dict(g) for g in sd["param_groups"]]}


@pytest.mark.parametrize(
    "name,kwargs",
    DEFAULT_CASES + [("SGD", dict(momentum=0.9)), ("Adam", dict(amsgrad=True, maximize=True))],
)
def test_state_dict_round_trip(name, kwargs):
    init, weights, noise = _problem(np.float32)
    params = _fw_params(init)
    opt = getattr(optim, name)(params, **kwargs)
    for k in range(STEPS):
        _step(framework, opt, params, weights, noise[k])
    saved = _clone_sd(opt.state_dict())
    resumed = [framework.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    opt2 = getattr(optim, name)(resumed, **{**kwargs, "lr": 123.0})  # lr comes from the dict
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    assert opt2.param_groups[0]["params"][0] is resumed[0]
    for k in range(STEPS, 2 * STEPS):
        _step(framework, opt, params, weights, noise[k])
        _step(framework, opt2, resumed, weights, noise[k])
        for a, b in zip(params, resumed):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_load_state_dict_casts_to_param_dtype_keeps_step():
    p32 = framework.zeros(3, requires_grad=True)
    opt = optim.Adam([p32])
    p32.grad = framework.ones(3)
    opt.step()
    p64 = framework.zeros(3, dtype=framework.float64, requires_grad=True)
    opt64 = optim.Adam([p64])
    opt64.load_state_dict(opt.state_dict())
    assert opt64.state[p64]["exp_avg"].dtype == framework.float64
    assert opt64.state[p64]["step"].dtype == framework.float32


def test_load_state_dict_errors_match_torch():
    def errors(lib, opt_cls):
        a, b, c = (lib.zeros(2, requires_grad=True) for _ in range(3))
        src = opt_cls([{"params": [a, b]}, {"params": [c]}], lr=0.1)
        msgs = []
        for groups in ([{"params": [a, b, c]}], [{"params": [a]}, {"params": [b, c]}]):
            try:
                opt_cls(groups, lr=0.1).load_state_dict(src.state_dict())
            except ValueError as e:
                msgs.append(str(e))
        return msgs

    fw_msgs = errors(framework, optim.SGD)
    assert fw_msgs == errors(torch, torch.optim.SGD)
    assert len(fw_msgs) == 2


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, o: o.SGD([lib.zeros(1, requires_grad=True)], lr=-1),
        lambda lib, o: o.SGD([lib.zeros(1, requires_grad=True)], lr=0.1, nesterov=True),
        lambda lib, o: o.SGD(
            [lib.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True
        ),
        lambda lib, o: o.SGD([lib.zeros(1, requires_grad=True)], momentum=-0.5),
        lambda lib, o: o.Adam([lib.zeros(1, requires_grad=True)], betas=(1.0, 0.9)),
        lambda lib, o: o.Adam([lib.zeros(1, requires_grad=True)], betas=(0.9, -0.1)),
        lambda lib, o: o.Adam([lib.zeros(1, requires_grad=True)], eps=-1.0),
        lambda lib, o: o.Adam([lib.zeros(1, requires_grad=True)], betas=(0.9, 1)),
        lambda lib, o: o.RMSprop([lib.zeros(1, requires_grad=True)], alpha=-1),
        lambda lib, o: o.Adagrad([lib.zeros(1, requires_grad=True)], lr_decay=-1),
        lambda lib, o: o.Adagrad([lib.zeros(1, requires_grad=True)], initial_accumulator_value=-1),
        lambda lib, o: o.SGD([], lr=0.1),
        lambda lib, o: o.SGD(lib.zeros(2, requires_grad=True), lr=0.1),
        lambda lib, o: o.SGD([{"params": {lib.zeros(2, requires_grad=True)}}], lr=0.1),
        lambda lib, o: o.SGD([lib.zeros(2, requires_grad=True) * 2], lr=0.1),
        lambda lib, o: o.SGD([1.0], lr=0.1),
    ],
)
def test_constructor_errors_match_torch(make):
    with pytest.raises(Exception) as th_err:
        make(torch, torch.optim)
    with pytest.raises(Exception) as fw_err:
        make(framework, optim)
    assert type(fw_err.value) is type(th_err.value)
    assert str(fw_err.value).replace("framework", "torch") == str(th_err.value)


def test_add_param_group():
    a, b = framework.zeros(2, requires_grad=True), framework.zeros(3, requires_grad=True)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.5})
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["momentum"] == 0.9
    assert opt.param_groups[1]["params"] == [b]
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([a])


def test_param_groups_use_their_own_lr():
    a, b = framework.ones(2, requires_grad=True), framework.ones(2, requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    (a.sum() + b.sum()).backward()
    opt.step()
    assert a.tolist() == pytest.approx([0.9, 0.9]) and b.tolist() == [0.0, 0.0]


def test_named_parameters_groups():
    a = framework.zeros(2, requires_grad=True)
    opt = optim.SGD([("w", a)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["w"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w"]


def test_zero_grad():
    p = framework.ones(3, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    grad = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is grad and p.grad.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_step_updates_in_place_without_graph():
    p = framework.ones(3, requires_grad=True)
    array = p._data
    opt = optim.Adam([p], lr=0.1)
    with framework.enable_grad():
        (p * p).sum().backward()
        opt.step()
    assert p._data is array and p.is_leaf and p.grad_fn is None and p.requires_grad
    assert opt.state[p]["exp_avg"].grad_fn is None
    assert not opt.state[p]["exp_avg"].requires_grad


def test_step_bumps_version_like_torch():
    p = framework.ones(3, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    y = p * p  # saves p for backward
    p.grad = framework.ones(3)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_closure_runs_with_grad_and_returns_loss():
    p = framework.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    seen = []

    def closure():
        opt.zero_grad()
        seen.append(framework.is_grad_enabled())
        loss = (p * p).sum()
        loss.backward()
        return loss

    with framework.no_grad():
        loss = opt.step(closure)
    assert seen == [True] and loss.item() == 5.0
    assert p.tolist() == pytest.approx([0.8, -1.6])


def test_params_without_grad_are_skipped():
    a, b = framework.ones(2, requires_grad=True), framework.ones(2, requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    a.sum().backward()
    opt.step()
    assert b.tolist() == [1.0, 1.0] and b not in opt.state and a in opt.state
    assert list(opt.state_dict()["state"]) == [0]


def test_adagrad_state_is_eager_like_torch():
    p = framework.zeros(2, requires_grad=True)
    opt = optim.Adagrad([p], initial_accumulator_value=0.3)
    tp = torch.zeros(2, requires_grad=True)
    topt = torch.optim.Adagrad([tp], initial_accumulator_value=0.3)
    assert _sd_layout(opt.state_dict()) == _sd_layout(topt.state_dict())
    assert opt.state[p]["sum"].tolist() == pytest.approx([0.3, 0.3])


def test_step_hooks():
    p = framework.ones(1, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.step()
    h1.remove()
    opt.step()
    assert calls == ["pre", "post", "post"]


def test_lr_as_tensor_matches_torch():
    init, weights, noise = _problem(np.float32)
    fw_p, th_p = _fw_params(init), _th_params(init)
    fw_opt = optim.SGD(fw_p, lr=framework.tensor(0.05), momentum=0.9)
    th_opt = torch.optim.SGD(th_p, lr=torch.tensor(0.05), momentum=0.9)
    for k in range(3):
        _step(framework, fw_opt, fw_p, weights, noise[k])
        _step(torch, th_opt, th_p, weights, noise[k])
    _assert_params(fw_p, th_p, np.float32)


def test_tensor_lr_survives_load_state_dict():
    p = framework.zeros(2, requires_grad=True)
    opt = optim.SGD([p], lr=framework.tensor(0.1))
    opt2 = optim.SGD([framework.zeros(2, requires_grad=True)], lr=framework.tensor(0.2))
    opt2.load_state_dict(opt.state_dict())
    lr = opt2.param_groups[0]["lr"]
    assert isinstance(lr, framework.Tensor) and lr.item() == pytest.approx(0.1)
    assert lr is not opt.param_groups[0]["lr"]  # param_groups are deep-copied, as torch's


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sgd_large_param_blocked_update_matches_torch(dtype):
    """SGD updates a parameter larger than one block (optim/_util._BLOCK) block by block, to
    keep a step's peak memory at torch's: the same values as the whole-array update."""
    rng = np.random.default_rng(3)
    init = rng.standard_normal((171, 100)).astype(dtype)  # 17,100 elements: a partial block
    fw_p, th_p = framework.tensor(init, requires_grad=True), torch.tensor(init, requires_grad=True)
    fw_opt = optim.SGD([fw_p], lr=0.1, momentum=0.9)
    th_opt = torch.optim.SGD([th_p], lr=0.1, momentum=0.9)
    for k in range(3):
        g = rng.standard_normal(init.shape).astype(dtype)
        fw_p.grad, th_p.grad = framework.tensor(g), torch.tensor(g)
        fw_opt.step()
        th_opt.step()
    _assert_params([fw_p], [th_p], dtype)
