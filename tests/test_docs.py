"""The documentation site builds with warnings as errors, and its tutorials' code runs.

Build by hand: ``python -m sphinx -W -b html docs docs/_build/html`` (README.md's command).
"""

import doctest
import glob
import os

import pytest
from docs_site import docs_command

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TUTORIALS = sorted(glob.glob(os.path.join(ROOT, "docs", "tutorials", "*.rst")))


def test_sphinx_builds_without_warnings(docs_build):
    """README.md's own docs command, run as written (``-W``: warnings are errors), builds the
    whole site. This is the suite's one run of that README line (tests/test_readme.py runs the
    others)."""
    assert docs_build.line == docs_command()
    assert "-W" in docs_build.line.split()
    assert docs_build.returncode == 0, docs_build.stderr[-3000:]
    html = docs_build.html
    assert os.path.isfile(os.path.join(html, "index.html"))
    assert os.path.exists(os.path.join(html, "api", "framework.nn.html"))
    for page in TUTORIALS:
        name = os.path.splitext(os.path.basename(page))[0]
        assert os.path.exists(os.path.join(html, "tutorials", f"{name}.html"))


@pytest.mark.parametrize("path", TUTORIALS, ids=[os.path.basename(p) for p in TUTORIALS])
def test_tutorial_code_runs(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = doctest.testfile(
        path,
        module_relative=False,
        verbose=False,
        report=True,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
    )
    assert result.attempted > 3, "a tutorial without executed code"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
