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


def test_attached_docstring_examples_run():
    """The examples in framework/_docs.py (attached to ops and Tensor methods) run."""
    from framework import _docs
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    n = 0
    for name, doc in list(_docs.FUNCTIONS.items()) + list(_docs.OTHER.items()):
        t = parser.get_doctest(doc, {"framework": framework}, f"framework.{name}", None, 0)
        n += len(t.examples)
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert n > 80 and result.failed == 0, f"{result.failed} of {n} examples failed"
    assert framework.add.__doc__ == _docs.FUNCTIONS["add"]
    assert "framework.add" in framework.Tensor.add.__doc__
