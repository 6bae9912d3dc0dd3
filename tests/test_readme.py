"""Every command in README.md's ```bash blocks runs as written and makes what it says.

The commands run in a scratch directory that holds the repository's ``examples/``,
``framework/``, ``docs/`` and ``tools/`` (links) and a copy of ``benchmarks/``, with ``.venv/bin/python`` standing for
this interpreter and ``~`` for a scratch home. Each command gets a fixed small budget appended
(argparse keeps the last value: ``--epochs 1``, ``--steps 5``, ...), so the whole README runs
in a few minutes. What is not run: the two setup lines at the top (``python3 -m venv`` and
``pip install`` need the network; this test runs inside the environment they make) and
``pip install`` lines; every other command must have an entry in BUDGET, so a new README
command without one fails here. The docs command (Sphinx, about 35 s) is run as written by
tests/test_docs.py (through the ``docs_build`` fixture, tests/docs_site.py), so the suite builds
the site once. The commands quoted inline in the prose
(`python ...` spans) are checked too (INLINE below): run with a budget, or, for the few that
take minutes or hold placeholders, their flags checked against the script's --help.
"""

import os
import re
import shlex
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest
from docs_site import readme_commands

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# script (or -m module) -> arguments appended to keep the run short
BUDGET = {
    "examples/train_mlp.py": ["--epochs", "1", "--no-progress"],
    "examples/train_cnn.py": ["--epochs", "1", "--no-progress"],
    "examples/compare_with_torch.py": ["--steps", "5"],
    "examples/custom_function.py": [],
    "examples/graph_picture.py": ["--quiet"],
    "examples/train_gpt.py": [
        "--steps",
        "4",
        "--eval-every",
        "2",
        "--sample-tokens",
        "5",
        "--n-embd",
        "16",
        "--n-layer",
        "1",
        "--batch-size",
        "4",
        "--block-size",
        "16",
        "--no-progress",
    ],
    "examples/train_lstm.py": [
        "--steps",
        "4",
        "--eval-every",
        "2",
        "--sample-tokens",
        "5",
        "--hidden",
        "16",
        "--layers",
        "1",
        "--batch-size",
        "4",
        "--block-size",
        "16",
        "--no-progress",
    ],
    "benchmarks/run.py": ["--only", "op_add_tensor", "--repeat", "0.05", "--rounds", "1"],
    "benchmarks/bench_conv.py": [],  # about 20 s as it is
    "benchmarks/bench_replays.py": ["--repeat", "2", "--only", "prod"],
    "benchmarks/bench_dataloader.py": ["--batches", "4", "--workers", "0", "1"],
    "framework.compat": ["--epochs", "1"],
    "framework.distributed.run": ["--epochs", "1"],
    "sphinx": [],
}
SETUP = re.compile(r"^(python3 -m venv \.venv && \.venv/bin/pip install|\.venv/bin/pip install)")

# a PyTorch program for "python -m framework.compat train.py --epochs 3"
TRAIN_PY = '''import argparse
import torch
import torch.nn as nn
ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=3)
args = ap.parse_args()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randn(32, 1)
for epoch in range(1, args.epochs + 1):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
'''


COMMANDS = readme_commands()


def _write_idx(path, array):
    codes = {np.uint8: 0x08}
    with open(path, "wb") as f:
        f.write(bytes([0, 0, codes[array.dtype.type], array.ndim]))
        f.write(struct.pack(f">{array.ndim}I", *array.shape))
        f.write(array.tobytes())


def _fake_mnist(directory):
    os.makedirs(directory)
    rng = np.random.default_rng(0)
    for split, n in (("train", 96), ("t10k", 32)):
        _write_idx(
            os.path.join(directory, f"{split}-images-idx3-ubyte"),
            rng.integers(0, 256, (n, 28, 28), dtype=np.uint8),
        )
        _write_idx(
            os.path.join(directory, f"{split}-labels-idx1-ubyte"),
            rng.integers(0, 10, n, dtype=np.uint8),
        )


@pytest.fixture
def scratch(tmp_path):
    for name in ("examples", "framework", "docs", "tools"):
        os.symlink(os.path.join(ROOT, name), tmp_path / name)
    shutil.copytree(
        os.path.join(ROOT, "benchmarks"),
        tmp_path / "benchmarks",
        ignore=shutil.ignore_patterns("results*.json", "__pycache__"),
    )
    (tmp_path / "home").mkdir()
    _fake_mnist(str(tmp_path / "home" / "mnist"))
    (tmp_path / "train.py").write_text(TRAIN_PY)
    return tmp_path


def _run(argv, cwd, home, timeout=600):
    env = dict(os.environ, HOME=str(home), PYTHONPATH=ROOT, MPLBACKEND="Agg")
    res = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{argv}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    return res.stdout


def _key(words):
    if words[0] == "-m":
        return words[1]
    return words[0]


def test_every_command_is_known():
    for line in COMMANDS:
        if SETUP.match(line):
            continue
        words = shlex.split(line)
        assert words[0] == ".venv/bin/python", f"README command not run with the venv: {line}"
        assert _key(words[1:]) in BUDGET, f"README command without a test budget: {line}"


def _runs_here(line):
    """Every README command but the Sphinx line, which tests/test_docs.py runs as written (one
    build per session through the ``docs_build`` fixture; a second test using the fixture
    would build the site again in another pytest-xdist worker)."""
    return not SETUP.match(line) and _key(shlex.split(line)[1:]) != "sphinx"


@pytest.mark.parametrize("line", [c for c in COMMANDS if _runs_here(c)])
def test_readme_command(line, request):
    words = shlex.split(line)
    scratch = request.getfixturevalue("scratch")
    home = scratch / "home"
    words = [str(home) + w[1:] if w.startswith("~") else w for w in words]
    argv = [sys.executable] + words[1:] + BUDGET[_key(words[1:])]
    out = _run(argv, scratch, home)
    for flag in ("--plot", "--checkpoint"):
        if flag in words:
            made = scratch / words[words.index(flag) + 1]
            assert made.is_file() and made.stat().st_size > 0, f"{line}: no {made.name}"
    script = _key(words[1:])
    if script in ("examples/train_mlp.py", "examples/train_cnn.py"):
        assert "test accuracy" in out
    if "--checkpoint" in words:  # the comment's follow-up: --resume ck.pt --epochs 20
        ck = words[words.index("--checkpoint") + 1]
        out = _run(
            [sys.executable, words[1], "--resume", ck, "--epochs", "2", "--no-progress"],
            scratch,
            home,
        )
        assert f"resumed from {ck} at epoch 1" in out
    if script == "examples/graph_picture.py":
        assert "LogBackward0" in (scratch / "graph.dot").read_text()
    if script == "examples/custom_function.py":
        assert "gradgradcheck: True" in out
    if script == "benchmarks/run.py":
        assert (scratch / "benchmarks" / "results.json").is_file()
    if script == "framework.compat":
        assert "epoch 1 loss" in out
    if script == "framework.distributed.run":
        assert "test accuracy" in out or "acc" in out


# Commands quoted inline in the README's prose (`python ...`): each one is run with a budget
# appended ("run"), or, where a run takes minutes or the command holds a placeholder, its
# script's --help must list every flag the README gives it ("flags"); "not run" names why.
INLINE = {
    "python -m framework.compat prog.py": ("flags", "framework.compat", []),
    "python tools/doc_coverage.py": ("run", []),
    "python tools/doc_coverage.py --quality [PREFIX ...]": ("run", ["--quality", "framework.nn"]),
    "python -m pytest -q": ("not run", "the suite itself"),
    "python benchmarks/run.py --readme": ("flags", "benchmarks/run.py", ["--readme"]),
    "python benchmarks/run.py --threads 1 --rounds 3 --clock cpu --readme": (
        "flags",
        "benchmarks/run.py",
        ["--threads", "--rounds", "--clock", "--readme"],
    ),
    "python -m framework.compare [--float64] [--plot cmp.png] train.py args...": (
        "flags",
        "framework.compare",
        ["--float64", "--plot"],
    ),
    "python benchmarks/bench_optim.py --only SGD Adam AdamW RMSprop Adagrad": (
        "run",
        ["--reps", "1"],
    ),
    "python benchmarks/bench_ddp.py": ("not run", "minutes of 1- and 2-rank MPI runs"),
    "python benchmarks/checkpoint_memory.py": (
        "run",
        ["--layers", "2", "--width", "16", "--batch", "2"],
    ),
    "python benchmarks/checkpoint_memory.py --gpt": (
        "flags",
        "benchmarks/checkpoint_memory.py",
        ["--gpt"],
    ),
    "FRAMEWORK_SOAK_STEPS=100000 python -m pytest tests/test_soak.py": (
        "glob",
        ["tests/test_soak.py"],
    ),
    "python benchmarks/bench_random.py": ("run", ["--reps", "1", "--n", "1000"]),
    "python -m pytest tests/ops/test_wave2_*.py tests/nn/test_wave2_*.py": (
        "glob",
        ["tests/ops/test_wave2_*.py", "tests/nn/test_wave2_*.py"],
    ),
    "python tools/api_audit.py": ("run", []),
    "python tools/backward_audit.py": (
        "flags",
        "tools/backward_audit.py",
        [],
    ),  # minutes: runs tests/ops, tests/nn
    "python benchmarks/bench_func.py": ("run", ["--repeat", "1", "--batch", "4"]),
    "python examples/per_sample_grads.py": ("run", ["--epochs", "1"]),
    "python -m tests.fuzz --programs 5000 --seed S": ("run", ["--programs", "5", "--seed", "1"]),
    "python -m tests.fuzz --programs 20000 --seed S": ("run", ["--programs", "5", "--seed", "1"]),
    "python -m tests.fuzz": ("run", ["--programs", "5", "--seed", "1"]),
    "python -m pytest tests/fuzz": ("glob", ["tests/fuzz/test_fuzz.py"]),
    "python -m tests.fuzz.second_order": ("run", ["13000000", "20"]),
    "python benchmarks/bench_func.py --repeat 9": ("run", ["--repeat", "1", "--batch", "4"]),
    "python benchmarks/bench_einsum.py": ("run", ["--n", "40", "--repeat", "1"]),
}


def _inline_commands():
    text = open(os.path.join(ROOT, "README.md")).read()
    return sorted(set(re.findall(r"`((?:[A-Z_]+=\S+ )?python (?:-m )?[\w./]+[^`]*)`", text)))


def test_every_inline_command_is_known():
    found = _inline_commands()
    assert len(found) >= 15
    unknown = [c for c in found if c not in INLINE]
    assert unknown == [], f"README commands without an entry in INLINE: {unknown}"


@pytest.mark.parametrize("line", sorted(INLINE))
def test_readme_inline_command(line, scratch):
    how = INLINE[line]
    # "[--flag ...]" and "--seed S" are placeholders: the budget gives the values
    words = shlex.split(line.split(" [", 1)[0].replace(" --seed S", ""))
    words = words[1:] if "=" in words[0] else words  # an environment variable in front
    if how[0] == "not run":
        return
    if how[0] == "glob":  # the test files the command names exist (the suite runs them)
        import glob

        for pattern in how[1]:
            assert glob.glob(os.path.join(ROOT, pattern)), pattern
        return
    home = scratch / "home"
    if how[0] == "flags":
        target = how[1]
        argv = [sys.executable] + (["-m", target] if not target.endswith(".py") else [target])
        out = _run(argv + ["--help"], scratch, home)
        for flag in how[2]:
            assert flag in out, f"{line}: {flag} not in {target} --help"
        assert "usage" in out
        return
    argv = [sys.executable] + words[1:]
    if line.startswith("python tools/api_audit.py"):
        env = dict(os.environ, HOME=str(home), PYTHONPATH=ROOT)
        res = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True)
        gaps = [ln for ln in res.stdout.splitlines() if "missing" in ln or "no parity" in ln]
        # the README: "the only gaps are linalg.eig/eigvals" (exit status 1 flags gaps)
        assert "names checked" in res.stdout, res.stderr[-3000:]
        assert all("linalg.eig" in g for g in gaps), gaps
        return
    out = _run(argv + how[1], scratch, home)
    assert out.strip(), f"{line}: no output"
