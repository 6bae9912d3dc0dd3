"""python -m framework.compat: unmodified PyTorch programs and tools, compared with torch."""

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import framework
from framework import compat
from cpu_pin import without_aten_pin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAMS = os.path.join(HERE, "compat_programs")


def _run(args, under_framework, cwd):
    cmd = [sys.executable] + (["-m", "framework.compat"] if under_framework else []) + args
    env = without_aten_pin(dict(os.environ, PYTHONPATH=ROOT, PYTHONWARNINGS="ignore"))
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _numbers(text, pattern):
    return [float(m) for m in re.findall(pattern, text)]


def test_gpt_trainer_runs_unmodified_and_matches_torch(tmp_path):
    prog = os.path.join(PROGRAMS, "gpt_trainer.py")
    ref = _run([prog, "--save-init", "init.pt", "--compile"], False, tmp_path)
    out = _run([prog, "--init", "init.pt", "--compile"], True, tmp_path)
    want, got = _numbers(ref, r"loss ([-\d.]+)"), _numbers(out, r"loss ([-\d.]+)")
    assert len(want) == len(got) == 8
    np.testing.assert_allclose(got, want, rtol=2e-4)


def test_mnist_example_runs_unmodified_and_matches_torch(tmp_path):
    prog = os.path.join(PROGRAMS, "mnist_style.py")
    ref = _run(
        [prog, "--save-model", "init.pt", "--train-size", "0", "--epochs", "0"], False, tmp_path
    )
    assert ref == ""
    args = [prog, "--init", "init.pt", "--no-dropout", "--epochs", "2"]
    want = _numbers(_run(args, False, tmp_path), r"loss:? ([-\d.]+)")
    got = _numbers(_run(args, True, tmp_path), r"loss:? ([-\d.]+)")
    assert len(want) == len(got) == 8
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-6)


def test_runner_usage_and_missing_script(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run(
        [sys.executable, "-m", "framework.compat"], env=env, capture_output=True, text=True
    )
    assert p.returncode == 2 and "usage" in p.stdout
    p = subprocess.run(
        [sys.executable, "-m", "framework.compat", "nope.py"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert p.returncode == 2 and "can't open file" in p.stderr


def test_missing_api_errors_name_it(tmp_path):
    prog = tmp_path / "p.py"
    prog.write_text(
        "import sys, torch, torch.nn as nn\n"
        "assert torch.is_tensor(torch.ones(1)) and sys.argv[1:] == ['a', '--b']\n"
        "assert not hasattr(torch, 'no_such_api')\n"
        "try:\n    torch.nn.no_such_layer\nexcept AttributeError as e:\n    print(e)\n"
        "try:\n    import torch.no_such_module\nexcept ModuleNotFoundError as e:\n    print(e)\n"
    )
    out = _run([str(prog), "a", "--b"], True, tmp_path)
    assert "framework does not mirror torch.nn.no_such_layer" in out
    assert "No module named 'torch.no_such_module': framework does not mirror" in out


def test_install_and_uninstall_in_process():
    if "torch" in sys.modules and sys.modules["torch"] is not framework:
        saved = sys.modules.pop("torch")
        saved_sub = {k: sys.modules.pop(k) for k in list(sys.modules) if k.startswith("torch.")}
    try:
        compat.install()
        import torch as t
        import torch.nn.functional as F

        assert t is framework and F is framework.nn.functional and compat.installed()
        assert framework.nn.__spec__.name == "framework.nn"
    finally:
        compat.uninstall()
        sys.modules.update({"torch": saved, **saved_sub})
    assert not compat.installed()
    assert not getattr(framework.__dict__.get("__getattr__"), "__compat__", False)
    assert framework.bfloat16.itemsize == 2  # framework's own lazy attribute still works


def test_legacy_tensor_types():
    x = framework.ones(2, 3)
    assert isinstance(x, framework.FloatTensor) and not isinstance(x, framework.LongTensor)
    assert not isinstance(x, framework.cuda.FloatTensor)
    assert framework.FloatTensor(2, 3).shape == (2, 3)
    assert framework.LongTensor([1, 2]).dtype == framework.int64
    assert x.type() == torch.ones(2, 3).type() == "torch.FloatTensor"
    assert x.type(framework.LongTensor).dtype == framework.int64
    assert x.type("torch.DoubleTensor").dtype == framework.float64
    assert repr(framework.FloatTensor) == repr(torch.FloatTensor)
    with pytest.raises(ValueError, match="invalid type: 'torch.Nope'"):
        x.type("torch.Nope")


def test_variable_is_a_class_every_tensor_is_an_instance_of():
    from framework.autograd import Variable

    v = Variable(framework.ones(2), requires_grad=True)
    assert isinstance(v, framework.Tensor) and v.requires_grad
    assert isinstance(framework.zeros(1), Variable) and isinstance(Variable, type)
    assert isinstance(torch.zeros(1), torch.autograd.Variable)


def test_namespace_tools_touch():
    assert (
        framework.numel(framework.ones(2, 3)) == 6
        and framework.is_floating_point(framework.ones(1))
        and not framework.is_floating_point(framework.ones(1).long())
    )
    f = framework.compile(lambda x: x + 1)
    g = framework.compile(mode="max-autotune")(len)
    assert f(1) == 2 and g([1]) == 1 and g.__wrapped__ is len  # a wrapper, as torch's
    assert not framework.jit.is_scripting() and not isinstance(
        framework.nn.Linear(1, 1), framework.jit.ScriptModule
    )
    framework.jit._warned.discard("script")  # (once per process: a doctest may have warned)
    with pytest.warns(UserWarning, match="no TorchScript"):
        m = framework.jit.script(framework.nn.Linear(1, 1))
    assert isinstance(m, framework.nn.Linear)
    framework.backends.cuda.matmul.allow_tf32 = True
    framework.backends.cudnn.benchmark = True
    assert not framework.backends.mps.is_available()
    assert framework.accelerator.is_available() is False
    assert framework.accelerator.current_accelerator() is None
    framework.set_float32_matmul_precision("high")
    assert framework.get_float32_matmul_precision() == "high"
    framework.set_float32_matmul_precision("highest")
    assert framework.__version__.startswith(torch.__version__.split("+")[0])
    assert framework.version.cuda is None
    from framework.utils.hooks import RemovableHandle

    h = framework.ones(1, requires_grad=True).register_hook(lambda g: g)
    assert isinstance(h, RemovableHandle)


def test_grad_scaler_matches_torch():
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    xs = [rng.standard_normal((5, 4)).astype(np.float32) for _ in range(6)]
    runs = []
    for T in (torch, framework):
        lin = T.nn.Linear(4, 3)
        with T.no_grad():
            lin.weight.copy_(T.tensor(w0))
            lin.bias.zero_()
        opt = T.optim.SGD(lin.parameters(), lr=0.1)
        scaler = T.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
        trace = []
        for i, x in enumerate(xs):
            opt.zero_grad()
            loss = lin(T.tensor(x)).pow(2).mean() * (float("inf") if i == 2 else 1.0)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            scaler.step(opt)
            scaler.update()
            trace.append((scaler.get_scale(), lin.weight.detach().numpy().copy()))
        runs.append((trace, scaler.state_dict()))
    (tt, tsd), (ft, fsd) = runs
    assert [s for s, _ in ft] == [s for s, _ in tt]
    for (_, a), (_, b) in zip(ft, tt):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert fsd == tsd


def test_grad_scaler_errors_as_torch():
    lin = framework.nn.Linear(2, 1)
    opt = framework.optim.SGD(lin.parameters(), lr=0.1)
    s = framework.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="_scale is None"):
        s.step(opt)
    s.scale(lin(framework.ones(1, 2)).sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        s.step(opt, closure=lambda: 0)
    with pytest.warns(UserWarning, match="CUDA is not available"):
        assert not framework.amp.GradScaler("cuda").is_enabled()


def test_torchsummary_prints_what_it_prints_for_torch(tmp_path):
    prog = tmp_path / "s.py"
    prog.write_text(
        "import torch, torch.nn as nn\nfrom torchsummary import summary\n"
        "net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),\n"
        "                    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(36, 10))\n"
        "summary(net, (1, 8, 8), device='cpu')\n"
        "summary(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)), (8,), "
        "device='cpu')\n"
    )
    want = _run([str(prog)], False, tmp_path)
    assert "Total params" in want
    assert _run([str(prog)], True, tmp_path) == want


def test_numpy_and_dlpack_interop_as_torch():
    x = framework.ones(3)
    a = np.asarray(x)
    a[0] = 5
    assert x.tolist() == [5.0, 1.0, 1.0]
    b = np.array(x)
    b[1] = 7
    assert x.tolist() == [5.0, 1.0, 1.0]
    n = np.from_dlpack(x)
    n[2] = 9
    assert x.tolist() == [5.0, 1.0, 9.0]
    y = framework.from_dlpack(np.arange(3.0))
    assert y.dtype == framework.float64 and y.tolist() == [0.0, 1.0, 2.0]
    src = np.zeros(2, dtype=np.float32)
    framework.from_dlpack(src)[0] = 4
    assert src[0] == 4
    t = framework.from_dlpack(torch.arange(4.0))  # another library's tensor, zero-copy
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert tuple(int(v) for v in x.__dlpack_device__()) == tuple(
        int(v) for v in torch.ones(1).__dlpack_device__()
    )
    g = framework.ones(3, requires_grad=True)
    tg = torch.ones(3, requires_grad=True)
    for mk, T in ((g, framework), (tg, torch)):
        with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires"):
            np.asarray(mk)
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            mk.__dlpack__()
    assert g.numpy(force=True).tolist() == [1.0, 1.0, 1.0]


def test_torchinfo_prints_what_it_prints_for_torch(tmp_path):
    prog = tmp_path / "ti.py"
    prog.write_text(
        "import torch, torch.nn as nn\nfrom torchinfo import summary\n"
        "mlp = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))\n"
        "cnn = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), "
        "nn.MaxPool2d(2), nn.Flatten(), nn.Linear(36, 10))\n"
        "enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, "
        "batch_first=True), 2)\n"
        "for m, shape in ((mlp, (2, 8)), (cnn, (2, 1, 8, 8)), (enc, (2, 5, 16))):\n"
        "    print(summary(m, input_size=shape, verbose=0, col_names=('input_size', "
        "'output_size', 'num_params', 'trainable')))\n"
    )
    want = _run([str(prog)], False, tmp_path)
    assert "TransformerEncoderLayer" in want and "Total params" in want
    assert _run([str(prog)], True, tmp_path) == want


def test_storage_views_as_torch():
    tx = torch.arange(6.0).view(2, 3)[:, 1]
    fx = framework.arange(6.0).view(2, 3)[:, 1]
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        ts = tx.storage()
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        fs = fx.storage()
    assert (fs.size(), fs.nbytes(), fs.element_size(), len(fs)) == (
        ts.size(),
        ts.nbytes(),
        ts.element_size(),
        len(ts),
    )
    assert fs.data_ptr() == fx.untyped_storage().data_ptr()
    assert fx.untyped_storage().size() == tx.untyped_storage().size()
    assert fx._is_view() and tx._is_view()


def _namespace_probe(T):
    """What programs and tools touch in the namespace, as values to compare across libraries."""
    warnings.simplefilter("ignore")
    out = {}
    x = T.ones(2, 3)
    out["is_tensor"] = (T.is_tensor(x), T.is_tensor([1]))
    out["is_floating_point"] = (T.is_floating_point(x), T.is_floating_point(x.long()))
    out["numel"] = T.numel(x)
    for n in ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"):
        cls = getattr(T, n)
        out[n] = (isinstance(x, cls), str(cls([1, 0]).dtype), tuple(cls(2, 3).shape), repr(cls))
    out["type"] = (x.type(), x.type("torch.DoubleTensor").type(), x.type(T.IntTensor).type())
    out["Variable"] = (isinstance(x, T.autograd.Variable), isinstance(T.autograd.Variable, type))
    v = x[0]
    out["_is_view"] = (x._is_view(), v._is_view())
    out["untyped_storage"] = (
        x.untyped_storage().size(),
        x.untyped_storage().nbytes(),
        v.untyped_storage().nbytes(),
        x.untyped_storage().data_ptr() == v.untyped_storage().data_ptr(),
    )
    out["storage"] = (x.storage().size(),)
    lin = T.nn.Linear(2, 2)
    out["jit"] = (T.jit.is_scripting(), isinstance(lin, T.jit.ScriptModule))
    out["nn.modules"] = (
        T.nn.modules.linear.Linear is T.nn.Linear,
        T.nn.modules.conv.Conv2d is T.nn.Conv2d,
        T.nn.modules.activation.MultiheadAttention is T.nn.MultiheadAttention,
        T.nn.modules.module.Module is T.nn.Module,
    )
    out["hooks"] = type(T.ones(1, requires_grad=True).register_hook(lambda g: g)).__name__
    T.backends.cuda.matmul.allow_tf32 = True
    T.backends.cudnn.allow_tf32 = False
    T.backends.cudnn.benchmark = True
    out["backends"] = (
        T.backends.cuda.matmul.allow_tf32,
        T.backends.cudnn.allow_tf32,
        T.backends.cudnn.benchmark,
        T.backends.mps.is_available(),
    )
    T.backends.cuda.matmul.allow_tf32 = False
    T.backends.cudnn.allow_tf32 = True
    T.backends.cudnn.benchmark = False
    out["accelerator"] = (T.accelerator.is_available(), T.accelerator.current_accelerator())
    f = T.compile(lin)
    out["compile"] = bool((f(x[:, :2]) == lin(x[:, :2])).all())
    for name, ctx in (
        ("amp.autocast", lambda: T.amp.autocast("cpu", dtype=T.bfloat16)),
        ("autocast", lambda: T.autocast("cpu", dtype=T.bfloat16)),
        ("cpu.amp.autocast", lambda: T.cpu.amp.autocast(dtype=T.bfloat16)),
    ):
        with ctx():
            out[name] = (str(lin(x[:, :2]).dtype), T.is_autocast_enabled("cpu"))
    with T.cuda.amp.autocast(enabled=False):
        out["cuda.amp.autocast"] = str(lin(x[:, :2]).dtype)
    out["GradScaler"] = (
        T.amp.GradScaler("cpu").get_scale(),
        T.cuda.amp.GradScaler(enabled=False).is_enabled(),
    )
    T.set_float32_matmul_precision("high")
    out["matmul_precision"] = T.get_float32_matmul_precision()
    T.set_float32_matmul_precision("highest")
    with T.inference_mode():
        y = lin(x[:, :2])
    out["inference_mode"] = (y.requires_grad, T.is_inference_mode_enabled())
    out["bfloat16"] = (
        str(T.bfloat16),
        T.finfo(T.bfloat16).eps,
        T.finfo(T.float16).max,
        T.iinfo(T.int8).min,
    )
    out["version"] = T.__version__.split("+")[0]
    return out


def test_namespace_matches_torch_side_by_side():
    """Every name of the issue's namespace list, run the same way under torch and framework."""
    with warnings.catch_warnings():
        want, got = _namespace_probe(torch), _namespace_probe(framework)
    assert got == want


def test_missing_tensor_method_names_it_under_the_alias(tmp_path):
    prog = tmp_path / "t.py"
    prog.write_text(
        "import torch\nx = torch.ones(2)\nassert not hasattr(x, 'no_such_method')\n"
        "try:\n    x.no_such_method()\nexcept AttributeError as e:\n    print(e)\n"
    )
    out = _run([str(prog)], True, tmp_path)
    assert out.startswith("'Tensor' object has no attribute 'no_such_method'")  # torch's words
    assert "framework does not mirror torch.Tensor.no_such_method" in out
    assert "__getattr__" not in framework.Tensor.__dict__  # this process never installed it


def test_runner_runs_a_module_with_dash_m(tmp_path):
    (tmp_path / "mymod.py").write_text(
        "import sys, torch, torch.nn\nprint(torch.__name__, __name__, sys.argv[1:])\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path)]))
    p = subprocess.run(
        [sys.executable, "-m", "framework.compat", "-m", "mymod", "a", "--b"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == "framework __main__ ['a', '--b']\n"


def test_cuda_autocast_without_cuda_warns_and_disables_as_torch():
    def probe(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with T.cuda.amp.autocast():
                y = T.nn.Linear(2, 2)(T.ones(1, 2))
            with T.autocast("cuda", dtype=T.float16):
                z = T.ones(2, 2) @ T.ones(2, 2)
                on = T.is_autocast_enabled("cuda")
        return str(y.dtype), str(z.dtype), on, [str(w.message) for w in caught]

    assert probe(framework) == probe(torch)
