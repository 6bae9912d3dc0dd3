"""Shared fixtures: the `device` fixture runs a test on cpu, and on cuda when present.

`cpu_pin` is imported first: on an AVX-512 CPU it pins NumPy's and torch's kernels to their
AVX2 versions before either is imported (see its docstring).
"""

import cpu_pin  # noqa: F401  (first: NumPy and torch read the pin at import)
import numpy as np
import pytest

import framework
from framework import backend

DEVICES = ["cpu"] + (["cuda"] if backend.cuda_available() else [])


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        params = [
            "cpu",
            pytest.param(
                "cuda",
                marks=pytest.mark.skipif(
                    not backend.cuda_available(), reason="CUDA is not available"
                ),
            ),
        ]
        metafunc.parametrize("device", params)


@pytest.fixture(autouse=True)
def _seed_and_restore():
    """Each test starts from the same seed and leaves global modes as it found them."""
    framework.manual_seed(0)
    np.random.seed(0)
    default = framework.get_default_dtype()
    grad = framework.is_grad_enabled()
    yield
    framework.set_default_dtype(default)
    framework.set_grad_enabled(grad)


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory):
    """README.md's docs command, run once per session (tests/docs_site.py); test_docs.py and
    test_readme.py both check this one build instead of building the site twice."""
    from docs_site import build_docs

    return build_docs(str(tmp_path_factory.mktemp("docs_build")))
