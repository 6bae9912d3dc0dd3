"""Smoke tests: the example scripts run end to end (short), checkpoint and resume."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(script, *args):
    res = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), *args],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout


@pytest.mark.parametrize("script", ["train_mlp.py", "train_cnn.py"])
def test_training_example_runs_and_resumes(script, tmp_path):
    ckpt, png = str(tmp_path / "ckpt.pt"), str(tmp_path / "curves.png")
    out = _run(script, "--epochs", "1", "--no-progress", "--checkpoint", ckpt, "--plot", png)
    assert "test accuracy" in out and os.path.getsize(png) > 0
    out = _run(script, "--epochs", "2", "--no-progress", "--resume", ckpt)
    assert "resumed from" in out
    acc = float(out.split("test accuracy")[1].split()[0])
    assert acc > 0.5  # two epochs on digits are far above chance (0.1)


def test_compare_with_torch_example(tmp_path):
    out = _run("compare_with_torch.py", "--steps", "30", "--plot", str(tmp_path / "c.png"))
    gap = float(out.split("largest per-step difference")[1].split()[0])
    assert gap < 1e-4


def test_custom_function_example():
    out = _run("custom_function.py")
    assert "gradcheck: True" in out and "gradgradcheck: True" in out
    assert "d2/dx2 = 12.0" in out
