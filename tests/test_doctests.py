"""Run the docstring examples (doctests) of the modules whose docstrings teach the API.

Every module listed here has examples written to run; a failing example is a doc bug. Each
module's doctests get ``framework`` and ``nn`` in their globals (as torch's examples assume
``torch``), everything else they import themselves.
"""
import doctest
import importlib

import pytest

import framework

DOCTEST_MODULES = [
    "framework.creation",
    "framework.tensor",
    "framework.nn.module",
    "framework.nn.linear",
    "framework.nn.conv",
    "framework.ops.loss",
    "framework.autograd.function",
    "framework.optim.sgd",
    "framework.optim.adam",
    "framework.utils.data.dataloader",
]


@pytest.mark.parametrize("modname", DOCTEST_MODULES)
def test_docstring_examples_run(modname):
    mod = importlib.import_module(modname)
    framework.manual_seed(0)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    globs = {"framework": framework, "nn": framework.nn}
    tests = [t for t in finder.find(mod, modname, globs=dict(vars(mod), **globs)) if t.examples]
    assert tests, f"{modname} has no docstring examples"
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {modname}"
