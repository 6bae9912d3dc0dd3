"""Shared fixtures: the `device` fixture runs a test on cpu, and on cuda when present.

Before NumPy and torch are imported, an AVX-512 CPU's kernels are pinned to AVX2 ones for
the whole run (worker processes and commands the tests start inherit it): the parity tests'
bit-for-bit claims were measured with both libraries' AVX2 kernels, and on AVX-512 each
library rounds some functions otherwise (NumPy's SVML log10/log1p/cos/sin, torch's
half-precision loop widths and oneDNN's float32 gelu; see README "CPUs with AVX-512").
"""

import os


def _pin_avx2_kernels():
    """NumPy's dispatch without its AVX-512 targets and torch's ATen kernels at AVX2, where
    the CPU has AVX-512 and the caller has not chosen otherwise."""
    try:
        with open("/proc/cpuinfo") as f:
            avx512 = " avx512f" in f.read()
    except OSError:
        return
    if avx512:
        os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", "X86_V4 AVX512_ICL AVX512_SPR")
        os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
        os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")  # torch's float32 gelu is oneDNN's


_pin_avx2_kernels()

import numpy as np  # noqa: E402  (after the pin: NumPy reads it at import)
import pytest  # noqa: E402

import framework  # noqa: E402
from framework import backend  # noqa: E402

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
