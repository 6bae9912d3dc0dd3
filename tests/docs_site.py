"""README.md's commands, and its docs command run once per test session.

``readme_commands()`` lists the commands in README.md's ```bash blocks (tests/test_readme.py runs
them). ``build_docs(scratch)`` runs the README's Sphinx line exactly as written (``-W``: a
warning fails it) in ``scratch``, which holds a fresh copy of ``docs/`` (so no earlier
``docs/_build`` makes the build incremental and hides a warning) and links to ``framework/``
and ``tools/``. The ``docs_build`` fixture in tests/conftest.py calls it once per session; its one user,
tests/test_docs.py, checks the README line and the site from that build.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme_commands():
    """The command lines of README.md's ```bash blocks, without comments."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def docs_command():
    """README.md's Sphinx command line (``.venv/bin/python -m sphinx ...``)."""
    lines = [c for c in readme_commands() if shlex.split(c)[1:3] == ["-m", "sphinx"]]
    assert len(lines) == 1, f"README.md should have one sphinx command, has {lines}"
    return lines[0]


@dataclass
class DocsBuild:
    """One run of the README's docs command: its line, result and output directory."""

    line: str
    returncode: int
    stderr: str
    html: str


def build_docs(scratch):
    """Run README.md's docs command as written in ``scratch``; return a :class:`DocsBuild`."""
    shutil.copytree(
        os.path.join(ROOT, "docs"),
        os.path.join(scratch, "docs"),
        ignore=shutil.ignore_patterns("_build", "api", "__pycache__"),
    )
    for name in ("framework", "tools"):
        os.symlink(os.path.join(ROOT, name), os.path.join(scratch, name))
    line = docs_command()
    words = shlex.split(line)
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = subprocess.run(
        [sys.executable] + words[1:],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    html = os.path.join(scratch, words[-1])
    return DocsBuild(line, run.returncode, run.stderr, html)
