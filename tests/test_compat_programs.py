"""More unmodified programs under `python -m framework.compat`, compared with torch: a
nanoGPT-style train.py/sample.py pair (with resume across libraries) and a ResNet CIFAR-style
trainer; and the namespace those programs touch (compile, memory formats, attention kernels)."""

import os
import re
import shutil
import subprocess
import sys
import warnings

import numpy as np
import torch

import framework
from cpu_pin import without_aten_pin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAMS = os.path.join(HERE, "compat_programs")
NANOGPT = os.path.join(PROGRAMS, "nanogpt")


def _run(args, under_framework, cwd):
    cmd = [sys.executable] + (["-m", "framework.compat"] if under_framework else []) + args
    env = without_aten_pin(dict(os.environ, PYTHONPATH=ROOT, PYTHONWARNINGS="ignore"))
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _numbers(text, pattern):
    return [float(m) for m in re.findall(pattern, text)]


def _losses(text):
    return _numbers(text, r"loss ([-\d.]+)")


def test_nanogpt_train_resume_and_sample_across_libraries(tmp_path):
    train, sample = os.path.join(NANOGPT, "train.py"), os.path.join(NANOGPT, "sample.py")
    _run([os.path.join(NANOGPT, "prepare.py"), str(tmp_path)], False, tmp_path)
    # torch without torch.compile (inductor takes a minute); framework with it (the default)
    ref = _run([train, "--compile=False", "--out_dir='t'"], False, tmp_path)
    got = _run([train, "--out_dir='f'"], True, tmp_path)
    assert "compiling the model" in got and "using fused AdamW: False" in got
    want = _losses(ref)
    assert len(want) == len(_losses(got)) == 15  # 3 evaluations x 2 splits + 9 iterations
    np.testing.assert_allclose(_losses(got), want, rtol=2e-5)
    # framework's checkpoint (compiled: '_orig_mod.' keys, as torch's) in torch, and back
    ck = torch.load(tmp_path / "f" / "ckpt.pt", weights_only=True)
    assert next(iter(ck["model"])).startswith("_orig_mod.")
    assert ck["iter_num"] == 8 and isinstance(ck["best_val_loss"], torch.Tensor)
    shutil.copytree(tmp_path / "f", tmp_path / "f2")
    more = ["--init_from='resume'", "--max_iters=12", "--compile=False"]
    on_torch = _run([train, "--out_dir='f'"] + more, False, tmp_path)
    on_framework = _run([train, "--out_dir='f2'"] + more, True, tmp_path)
    resumed = _losses(on_torch)
    assert len(resumed) == len(_losses(on_framework)) == 9  # 2 evaluations, iters 8-12
    np.testing.assert_allclose(_losses(on_framework), resumed, rtol=2e-5)
    texts = [_run([sample, "--out_dir='f2'"], T, tmp_path) for T in (False, True)]
    assert "checkpoint from iter 12" in texts[0] and texts[0] == texts[1]


def _resnet(args, tmp_path, tag):
    prog = os.path.join(PROGRAMS, "resnet_cifar.py")
    out = [_run([prog, f"--checkpoint-dir={tag}{T}"] + args, T, tmp_path) for T in (0, 1)]
    return [_numbers(o, r"Loss: ([-\d.]+)") for o in out], out


def test_resnet_cifar_runs_unmodified_and_matches_torch(tmp_path):
    (want, got), (ref, out) = _resnet([], tmp_path, "a")
    assert len(want) == len(got) == 2 * 8  # 6 steps and 2 evaluations per epoch
    np.testing.assert_allclose(got, want, rtol=2e-5)
    assert _numbers(out, r"Acc: ([\d.]+)%") == _numbers(ref, r"Acc: ([\d.]+)%")
    (want, got), _ = _resnet(["--resume", "--epochs", "1"], tmp_path, "a")  # own checkpoints
    assert len(want) == len(got) == 8
    np.testing.assert_allclose(got, want, rtol=2e-5)


def test_resnet_cifar_with_loader_workers_and_module_compile(tmp_path):
    (want, got), _ = _resnet(["--workers", "2", "--compile", "--epochs", "1"], tmp_path, "w")
    assert len(want) == len(got) == 8
    np.testing.assert_allclose(got, want, rtol=2e-5)


def test_resnet_cifar_bfloat16_autocast_matches_torch(tmp_path):
    (want, got), _ = _resnet(["--amp", "--epochs", "1"], tmp_path, "b")
    assert len(want) == len(got) == 8
    np.testing.assert_allclose(got, want, rtol=2e-4)  # bfloat16 rounding, 6 SGD steps


def test_batch_norm_on_bfloat16_input_with_float32_parameters_as_torch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 8, 12, 12)).astype(np.float32) * 3 + 1
    outs = []
    for T in (torch, framework):
        bn = T.nn.BatchNorm2d(8)
        xi = T.tensor(x).bfloat16().requires_grad_()
        y = bn(xi)
        y.float().pow(2).sum().backward()
        outs.append(
            (y.float().detach().numpy(), bn.running_var.numpy(), xi.grad.float().numpy(), y.dtype)
        )
    (ty, tv, tg, tdt), (fy, fv, fg, fdt) = outs
    assert str(fdt) == str(tdt) == "torch.bfloat16"
    np.testing.assert_allclose(fy, ty, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(fv, tv, rtol=1e-5)
    np.testing.assert_allclose(fg, tg, rtol=2e-2, atol=2e-2)


def _compile_probe(T):
    out = {}
    m = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Dropout(0.0))
    c = T.compile(m, backend="eager")  # torch: dynamo without inductor's minute of compiling
    out["type"] = (type(c).__name__, isinstance(c, T.nn.Module), c._orig_mod is m, len(c))
    out["keys"] = (list(c.state_dict()), [n for n, _ in c.named_parameters()])
    c.eval()
    out["eval"] = (c.training, m.training, m[0].training)
    c.train()
    c.foo = 3
    out["setattr"] = (c.training, m.foo)
    del c.foo
    out["repr"] = repr(c)
    x = T.ones(1, 2)
    out["call"] = T.equal(c(x), m(x))
    m2 = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Dropout(0.0))
    T.compile(m2, backend="eager").load_state_dict(c.state_dict())
    out["load"] = T.equal(m2[0].weight, m[0].weight)
    f = T.compile(lambda v: v + 1, backend="eager")
    out["function"] = (f(1), f.__wrapped__(2), T.compile(backend="eager")(len)([1]))
    out["disable"] = T.compile(m, disable=True) is m
    for kw in (dict(mode="bogus"), dict(mode="default", options={}), dict(model=3)):
        try:
            T.compile(**{"model": m, **kw})
        except (RuntimeError, AssertionError) as e:
            out[str(kw)] = (type(e).__name__, str(e))
    out["in_place"] = (m.compile(), list(m.state_dict()))
    out["compiler"] = (T.compiler.is_compiling(), T._dynamo.is_compiling())
    out["config"] = T._dynamo.config.cache_size_limit
    try:
        T._dynamo.config.nope = 1
    except AttributeError as e:
        out["config_error"] = str(e)
    out["disable_fn"] = T.compiler.disable(len)([1, 2])
    return out


def test_compile_returns_what_torch_compile_returns():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _compile_probe(framework) == _compile_probe(torch)


def _layout_probe(T):
    out = {}
    x = T.arange(120.0).view(2, 3, 4, 5).requires_grad_()
    cl = T.channels_last
    y = x.to(memory_format=cl)
    out["to"] = (y.stride(), type(y.grad_fn).__name__, y.is_contiguous(), repr(cl))
    out["flags"] = (y.is_contiguous(memory_format=cl), x.is_contiguous(memory_format=cl))
    out["same"] = (y.to(memory_format=cl) is y, y.contiguous(memory_format=cl) is y)
    z = x.contiguous(memory_format=cl)
    out["contiguous"] = (z.stride(), type(z.grad_fn).__name__, z.contiguous().stride())
    out["clone"] = x.clone(memory_format=cl).stride()
    out["cast"] = x.to(T.float64, memory_format=cl).stride()
    out["values"] = T.equal(y, x) and T.equal(y + 1, x + 1)
    (y * T.arange(3.0).view(1, 3, 1, 1)).sum().backward()
    out["grad"] = x.grad.sum().item()
    conv = T.nn.Conv2d(3, 4, 3).to(memory_format=cl)
    out["module"] = (conv.weight.stride(), conv.bias.stride())
    for fmt, t in ((cl, T.ones(2, 3)), (T.channels_last_3d, x)):
        try:
            t.to(memory_format=fmt)
        except RuntimeError as e:
            out[repr(fmt)] = str(e)
    return out


def test_memory_formats_as_torch():
    assert _layout_probe(framework) == _layout_probe(torch)


def _sdpa_probe(T):
    from importlib import import_module

    att = import_module(T.__name__ + ".nn.attention")
    out = {}
    T.manual_seed(0)
    q = T.randn(1, 2, 3, 4, requires_grad=True)
    F = T.nn.functional
    ref = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    out["default"] = type(ref.grad_fn).__name__
    with att.sdpa_kernel(att.SDPBackend.MATH):
        o = F.scaled_dot_product_attention(q, q, q, is_causal=True)
        out["math"] = (type(o.grad_fn).__name__, T.backends.cuda.flash_sdp_enabled())
        out["close"] = bool((o - ref).abs().max() < 1e-6)
    with att.sdpa_kernel([att.SDPBackend.EFFICIENT_ATTENTION]):
        try:
            F.scaled_dot_product_attention(q, q, q)
        except RuntimeError as e:
            out["none"] = str(e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with T.backends.cuda.sdp_kernel(enable_flash=False):
            out["sdp_kernel"] = type(F.scaled_dot_product_attention(q, q, q).grad_fn).__name__
    try:
        with att.sdpa_kernel(3):
            pass
    except AssertionError as e:
        out["bad"] = str(e)
    out["after"] = (T.backends.cuda.flash_sdp_enabled(), repr(att.SDPBackend.MATH))
    return out


def test_sdpa_kernel_switches_as_torch():
    assert _sdpa_probe(framework) == _sdpa_probe(torch)


def test_backends_submodules_import_as_torchs(tmp_path):
    prog = tmp_path / "b.py"
    prog.write_text(
        "import torch\nimport torch.backends.cudnn as cudnn\nimport torch.backends.cuda\n"
        "from torch.nn.attention import SDPBackend, sdpa_kernel\n"
        "cudnn.benchmark = True\nprint(torch.backends.cudnn.benchmark, cudnn.is_available())\n"
        "torch.use_deterministic_algorithms(True)\n"
        "print(torch.are_deterministic_algorithms_enabled(), torch.cuda.is_bf16_supported())\n"
        "torch.set_num_threads(1); print(torch.get_num_threads())\n"
        "print(torch.equal(torch.ones(2), torch.ones(2)), torch.compiler.is_compiling())\n"
    )
    assert _run([str(prog)], True, tmp_path) == _run([str(prog)], False, tmp_path)
