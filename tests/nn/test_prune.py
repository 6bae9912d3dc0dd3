"""nn.utils.prune against torch: masks, the weight/weight_orig/weight_mask names and values,
named_parameters/named_buffers, forward outputs, gradients reaching weight_orig, pruning twice
(PruningContainer), remove(), global_unstructured, random pruning from a seed, and errors."""

import numpy as np
import pytest
import torch
import torch.nn.utils.prune as tprune

import framework
import framework.nn.utils.prune as fprune

TOL = dict(rtol=1e-6, atol=1e-7)


def _np(t):
    return t.detach().numpy()


def _pair(kind="linear", seed=0):
    """The same module in both libraries (torch's init values copied across)."""
    torch.manual_seed(seed)
    if kind == "linear":
        th, fw = torch.nn.Linear(5, 4), framework.nn.Linear(5, 4)
    else:
        th, fw = torch.nn.Conv2d(3, 4, 3), framework.nn.Conv2d(3, 4, 3)
    fw.load_state_dict({k: framework.tensor(_np(v).copy()) for k, v in th.state_dict().items()})
    return fw, th


def _x(kind, seed=1):
    shape = (2, 5) if kind == "linear" else (2, 3, 6, 6)
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _same_state(fw, th):
    fp, tp = dict(fw.named_parameters()), dict(th.named_parameters())
    fb, tb = dict(fw.named_buffers()), dict(th.named_buffers())
    assert list(fp) == list(tp)
    assert list(fb) == list(tb)
    for k in tp:
        np.testing.assert_allclose(_np(fp[k]), _np(tp[k]), **TOL)
    for k in tb:
        np.testing.assert_array_equal(_np(fb[k]), _np(tb[k]))
        assert str(fb[k].dtype) == str(tb[k].dtype)
    assert list(fw.state_dict()) == list(th.state_dict())
    assert fprune.is_pruned(fw) == tprune.is_pruned(th)


def _same_forward_backward(fw, th, kind):
    x = _x(kind)
    fy, ty = fw(framework.tensor(x)), th(torch.tensor(x))
    np.testing.assert_allclose(_np(fy), _np(ty), rtol=1e-5, atol=1e-6)
    up = np.random.default_rng(2).standard_normal(ty.shape).astype(np.float32)
    (fy * framework.tensor(up)).sum().backward()
    (ty * torch.tensor(up)).sum().backward()
    fp, tp = dict(fw.named_parameters()), dict(th.named_parameters())
    for k in tp:
        np.testing.assert_allclose(_np(fp[k].grad), _np(tp[k].grad), rtol=1e-5, atol=1e-5)


CASES = [
    ("identity", (), {}),
    ("random_unstructured", (), {"amount": 0.3}),
    ("random_unstructured", (), {"amount": 5}),
    ("l1_unstructured", (), {"amount": 0.4}),
    ("l1_unstructured", (), {"amount": 0}),
    ("random_structured", (), {"amount": 0.5, "dim": 0}),
    ("random_structured", (), {"amount": 1, "dim": -1}),
    ("ln_structured", (), {"amount": 0.5, "n": 2, "dim": 0}),
    ("ln_structured", (), {"amount": 2, "n": 1, "dim": 1}),
    ("ln_structured", (), {"amount": 0.25, "n": float("inf"), "dim": 0}),
]


@pytest.mark.parametrize("kind", ["linear", "conv"])
@pytest.mark.parametrize("fn,args,kwargs", CASES)
def test_prune_matches_torch(kind, fn, args, kwargs):
    fw, th = _pair(kind)
    torch.manual_seed(7)
    framework.manual_seed(7)
    ft = getattr(fprune, fn)(fw, "weight", *args, **kwargs)
    tt = getattr(tprune, fn)(th, "weight", *args, **kwargs)
    assert ft is fw and tt is th
    np.testing.assert_allclose(_np(fw.weight), _np(th.weight), **TOL)
    _same_state(fw, th)
    assert [type(h).__name__ for h in fw._forward_pre_hooks.values()] == [
        type(h).__name__ for h in th._forward_pre_hooks.values()
    ]
    _same_forward_backward(fw, th, kind)


def test_prune_twice_builds_container_and_remove():
    fw, th = _pair("conv")
    torch.manual_seed(3)
    framework.manual_seed(3)
    for lib, m in ((fprune, fw), (tprune, th)):
        lib.l1_unstructured(m, "weight", amount=0.3)
        lib.ln_structured(m, "weight", amount=1, n=2, dim=0)
        lib.random_unstructured(m, "bias", amount=0.5)
        lib.random_unstructured(m, "weight", amount=0.2)
    fh = [h for h in fw._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
    th_h = [h for h in th._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
    assert type(fh).__name__ == type(th_h).__name__ == "PruningContainer"
    assert [type(h).__name__ for h in fh] == [type(h).__name__ for h in th_h]
    assert len(fh) == len(th_h) == 3
    _same_state(fw, th)
    _same_forward_backward(fw, th, "conv")
    for lib, m in ((fprune, fw), (tprune, th)):
        lib.remove(m, "weight")
    _same_state(fw, th)
    assert len(fw._forward_pre_hooks) == len(th._forward_pre_hooks) == 1
    np.testing.assert_allclose(_np(fw.weight), _np(th.weight), **TOL)
    assert isinstance(fw.weight, framework.nn.Parameter)
    fprune.remove(fw, "bias")
    tprune.remove(th, "bias")
    assert not fprune.is_pruned(fw) and not tprune.is_pruned(th)
    _same_state(fw, th)


@pytest.mark.parametrize("method", ["L1Unstructured", "RandomUnstructured"])
def test_global_unstructured(method):
    mods = [_pair("linear", 0), _pair("conv", 1), _pair("linear", 2)]
    torch.manual_seed(11)
    framework.manual_seed(11)
    fprune.global_unstructured(
        [(f, "weight") for f, _ in mods] + [(mods[0][0], "bias")],
        pruning_method=getattr(fprune, method),
        amount=0.35,
    )
    tprune.global_unstructured(
        [(t, "weight") for _, t in mods] + [(mods[0][1], "bias")],
        pruning_method=getattr(tprune, method),
        amount=0.35,
    )
    for (fw, th), kind in zip(mods, ["linear", "conv", "linear"]):
        _same_state(fw, th)
        _same_forward_backward(fw, th, kind)


def test_global_unstructured_importance_scores():
    mods = [_pair("linear", 0), _pair("linear", 1)]
    rng = np.random.default_rng(5)
    scores = [rng.standard_normal((4, 5)).astype(np.float32) for _ in mods]
    fprune.global_unstructured(
        [(f, "weight") for f, _ in mods],
        pruning_method=fprune.L1Unstructured,
        importance_scores={(f, "weight"): framework.tensor(s) for (f, _), s in zip(mods, scores)},
        amount=7,
    )
    tprune.global_unstructured(
        [(t, "weight") for _, t in mods],
        pruning_method=tprune.L1Unstructured,
        importance_scores={(t, "weight"): torch.tensor(s) for (_, t), s in zip(mods, scores)},
        amount=7,
    )
    for fw, th in mods:
        _same_state(fw, th)


def test_custom_from_mask_and_importance_scores():
    fw, th = _pair("linear")
    mask = (np.arange(20).reshape(4, 5) % 3 != 0).astype(np.float32)
    fprune.custom_from_mask(fw, "weight", framework.tensor(mask))
    tprune.custom_from_mask(th, "weight", torch.tensor(mask))
    _same_state(fw, th)
    s = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)
    fprune.l1_unstructured(fw, "weight", 4, importance_scores=framework.tensor(s))
    tprune.l1_unstructured(th, "weight", 4, importance_scores=torch.tensor(s))
    fprune.ln_structured(fw, "weight", 1, 2, 0, importance_scores=framework.tensor(s))
    tprune.ln_structured(th, "weight", 1, 2, 0, importance_scores=torch.tensor(s))
    _same_state(fw, th)
    _same_forward_backward(fw, th, "linear")


def test_method_objects_compute_mask_and_prune():
    w = np.random.default_rng(4).standard_normal((4, 6)).astype(np.float32)
    fw_t, th_t = framework.tensor(w), torch.tensor(w)
    for fcls, tcls, args in [
        (fprune.L1Unstructured, tprune.L1Unstructured, (0.5,)),
        (fprune.LnStructured, tprune.LnStructured, (2, 1, -1)),
        (fprune.Identity, tprune.Identity, ()),
    ]:
        fm, tm = fcls(*args), tcls(*args)
        fmask = fm.compute_mask(fw_t, framework.ones_like(fw_t))
        tmask = tm.compute_mask(th_t, torch.ones_like(th_t))
        np.testing.assert_array_equal(_np(fmask), _np(tmask))
        np.testing.assert_array_equal(_np(fm.prune(fw_t)), _np(tm.prune(th_t)))
        assert fm.PRUNING_TYPE == tm.PRUNING_TYPE


def _L(lib):
    return framework if lib is fprune else torch


def lib_ones(lib, n):
    return _L(lib).ones(n)


def _err(fn_fw, fn_th):
    with pytest.raises(Exception) as te:
        fn_th()
    with pytest.raises(Exception) as fe:
        fn_fw()
    assert type(fe.value) is type(te.value)
    assert str(fe.value) == str(te.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, m: lib.l1_unstructured(m, "weight", amount=1.5),
        lambda lib, m: lib.l1_unstructured(m, "weight", amount=-1),
        lambda lib, m: lib.l1_unstructured(m, "weight", amount="a"),
        lambda lib, m: lib.l1_unstructured(m, "weight", amount=100),
        lambda lib, m: lib.random_structured(m, "weight", amount=0.5, dim=3),
        lambda lib, m: lib.ln_structured(m, "bias", amount=0.5, n=2, dim=0),
        lambda lib, m: lib.ln_structured(m, "weight", amount=1, n=2, dim=-3),
        lambda lib, m: lib.random_structured(m, "weight", amount=1, dim=-3),
        lambda lib, m: lib.random_structured(m, "weight", amount=5, dim=0),
        lambda lib, m: lib.l1_unstructured(m, "weight", 1, importance_scores=lib_ones(lib, 3)),
        lambda lib, m: lib.custom_from_mask(m, "weight", lib_ones(lib, 3)),
        lambda lib, m: lib.L1Unstructured(0.5).prune(lib_ones(lib, 3), None, lib_ones(lib, 2)),
        lambda lib, m: lib.l1_unstructured(m, "nope", amount=0.5),
        lambda lib, m: lib.l1_unstructured(_L(lib).nn.BatchNorm1d(3), "running_mean", 1),
        lambda lib, m: lib.remove(m, "weight"),
        lambda lib, m: lib.global_unstructured([(m, "weight")], lib.LnStructured, amount=0.5),
        lambda lib, m: lib.global_unstructured(5, lib.L1Unstructured, amount=0.5),
        lambda lib, m: lib.global_unstructured(
            [(m, "weight")], lib.L1Unstructured, importance_scores=3, amount=0.5
        ),
        lambda lib, m: lib.PruningContainer(5),
        lambda lib, m: lib.PruningContainer(lib.Identity()).add_pruning_method(5),
    ],
)
def test_errors_match_torch(call):
    fw, th = _pair("linear")
    _err(lambda: call(fprune, fw), lambda: call(tprune, th))


def test_importable_through_compat():
    import importlib
    import subprocess
    import sys

    assert importlib.import_module("framework.nn.utils.prune") is fprune
    code = (
        "import framework.compat as c; c.install()\n"
        "import torch.nn.utils.prune as p\n"
        "from torch.nn.utils import prune\n"
        "import framework.nn.utils.prune as q\n"
        "assert p is q and prune is q\n"
        "print('ok')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "ok", r.stderr


def test_hook_recomputes_after_orig_changes_and_double_dtype():
    fw, th = _pair("linear")
    fw, th = fw.double(), th.double()
    fprune.l1_unstructured(fw, "weight", amount=0.5)
    tprune.l1_unstructured(th, "weight", amount=0.5)
    _same_state(fw, th)
    with framework.no_grad():
        fw.weight_orig.mul_(-2.0)
    with torch.no_grad():
        th.weight_orig.mul_(-2.0)
    x = _x("linear").astype(np.float64)
    np.testing.assert_allclose(_np(fw(framework.tensor(x))), _np(th(torch.tensor(x))), **TOL)
    np.testing.assert_allclose(_np(fw.weight), _np(th.weight), **TOL)
    assert str(fw.weight_mask.dtype) == str(th.weight_mask.dtype) == "torch.float64"
    assert fw.weight.grad_fn is not None and th.weight.grad_fn is not None
    assert type(fw.weight.grad_fn).__name__ == type(th.weight.grad_fn).__name__


@pytest.mark.parametrize(
    "kind,pname,shape",
    [
        ("lstm", "weight_hh_l0", (2, 5, 4)),
        ("gru", "weight_ih_l0", (5, 2, 4)),
        ("mha", "in_proj_weight", (3, 2, 4)),
        ("convT", "weight", (1, 3, 4, 4)),
        ("emb", "weight", None),
    ],
)
def test_other_modules(kind, pname, shape):
    ctor = {
        "lstm": lambda L: L.nn.LSTM(4, 3, batch_first=True),
        "gru": lambda L: L.nn.GRU(4, 3),
        "mha": lambda L: L.nn.MultiheadAttention(4, 2),
        "convT": lambda L: L.nn.ConvTranspose2d(3, 2, 3),
        "emb": lambda L: L.nn.Embedding(10, 4),
    }[kind]
    torch.manual_seed(0)
    th, fw = ctor(torch), ctor(framework)
    fw.load_state_dict({k: framework.tensor(_np(v).copy()) for k, v in th.state_dict().items()})
    tprune.l1_unstructured(th, pname, 0.5)
    fprune.l1_unstructured(fw, pname, 0.5)
    _same_state(fw, th)
    if shape is None:
        x = np.array([[1, 2, 3]])
    else:
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    n_in = 3 if kind == "mha" else 1
    ty, fy = th(*[torch.tensor(x)] * n_in), fw(*[framework.tensor(x)] * n_in)
    ty, fy = (ty[0], fy[0]) if isinstance(ty, tuple) else (ty, fy)
    np.testing.assert_allclose(_np(fy), _np(ty), rtol=1e-5, atol=1e-6)
    ty.sum().backward()
    fy.sum().backward()
    tg, fg = th.get_parameter(pname + "_orig").grad, fw.get_parameter(pname + "_orig").grad
    np.testing.assert_allclose(_np(fg), _np(tg), rtol=1e-5, atol=1e-5)


def test_ties_follow_torch():
    """Pruning equal weights (BatchNorm's ones) zeroes the units torch's topk (nth_element's
    order among ties) picks."""
    th, fw = torch.nn.BatchNorm1d(4), framework.nn.BatchNorm1d(4)
    tprune.l1_unstructured(th, "weight", 0.5)
    fprune.l1_unstructured(fw, "weight", 0.5)
    np.testing.assert_array_equal(_np(fw.weight_mask), _np(th.weight_mask))


PROGRAM = """
import torch, torch.nn as nn
import torch.nn.utils.prune as prune
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
prune.random_structured(net[0], "weight", amount=1, dim=0)
prune.global_unstructured([(net[0], "weight"), (net[3], "weight")],
                          pruning_method=prune.L1Unstructured, amount=0.4)
prune.random_unstructured(net[3], "bias", amount=1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(8, 1, 8, 8), torch.randint(0, 3, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(net(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"loss {loss.item():.6f}")
print("pruned", prune.is_pruned(net), [n for n, _ in net.named_buffers()])
for m, n in ((net[0], "weight"), (net[3], "weight"), (net[3], "bias")):
    prune.remove(m, n)
print("zeros", int((net[0].weight == 0).sum()), int((net[3].weight == 0).sum()))
print("params", [n for n, _ in net.named_parameters()], prune.is_pruned(net))
print(f"out {net(x).sum().item():.6f}")
"""


def test_program_under_compat_matches_torch(tmp_path):
    import os
    import subprocess
    import sys

    from cpu_pin import without_aten_pin

    (tmp_path / "prog.py").write_text(PROGRAM)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = without_aten_pin(dict(os.environ, PYTHONPATH=root, PYTHONWARNINGS="ignore"))
    outs = []
    for compat in (False, True):
        cmd = [sys.executable] + (["-m", "framework.compat"] if compat else []) + ["prog.py"]
        r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]
        outs.append(r.stdout.splitlines())
    th, fw = outs
    assert len(th) == len(fw) == 7
    for a, b in zip(th, fw):
        if a.startswith(("loss", "out")):
            assert a.split()[0] == b.split()[0]
            np.testing.assert_allclose(float(b.split()[1]), float(a.split()[1]), rtol=1e-4)
        else:
            assert a == b


def _custom_method(lib):
    class FooBarPruningMethod(lib.BasePruningMethod):
        """The tutorial's custom method: prunes every other entry of the flattened tensor."""

        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    return FooBarPruningMethod


def test_custom_subclass_as_in_torch_tutorial():
    fw, th = _pair("conv")
    fprune.l1_unstructured(fw, "weight", amount=3)
    tprune.l1_unstructured(th, "weight", amount=3)
    _custom_method(fprune).apply(fw, "weight")
    _custom_method(tprune).apply(th, "weight")
    _same_state(fw, th)
    _same_forward_backward(fw, th, "conv")
    with pytest.raises(TypeError) as te:
        tprune.BasePruningMethod()
    with pytest.raises(TypeError) as fe:
        fprune.BasePruningMethod()
    assert str(fe.value) == str(te.value)
