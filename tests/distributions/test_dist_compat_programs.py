"""Unmodified RL and VAE programs that use torch.distributions, run by plain python (torch)
and by `python -m framework.compat`: the same printed numbers (sampled actions exactly; losses
to float32 rounding, as tests/test_compat_programs.py compares its programs)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from cpu_pin import without_aten_pin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = os.path.join(os.path.dirname(HERE), "compat_programs")


def _run(script, under_framework):
    cmd = [sys.executable] + (["-m", "framework.compat"] if under_framework else []) + [script]
    env = without_aten_pin(dict(os.environ, PYTHONPATH=ROOT, PYTHONWARNINGS="ignore"))
    env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.run(cmd, cwd=PROGRAMS, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _split(text):
    """The bracketed lists (sampled actions: exact) and the other numbers (float32 values)."""
    lists = re.findall(r"\[[^\]]*\]", text)
    rest = re.sub(r"\[[^\]]*\]", "", text)
    return lists, [float(x) for x in re.findall(r"-?\d+\.\d+", rest)]


@pytest.mark.parametrize("program, lines", [("reinforce.py", 8), ("vae.py", 11)])
def test_program_prints_torchs_numbers(program, lines):
    script = os.path.join(PROGRAMS, program)
    want, got = _run(script, False), _run(script, True)
    assert len(want.splitlines()) == len(got.splitlines()) == lines
    (want_lists, want_nums), (got_lists, got_nums) = _split(want), _split(got)
    if program == "vae.py":  # the MultivariateNormal sample goes through matmul: a few ULP
        np.testing.assert_allclose(
            eval(got_lists.pop()), eval(want_lists.pop()), rtol=1e-6, atol=1e-7
        )
    assert got_lists == want_lists
    np.testing.assert_allclose(got_nums, want_nums, rtol=2e-5, atol=2e-6)
