"""Pin NumPy's and torch's CPU kernels to their AVX2 versions on an AVX-512 CPU; imported
before either library by tests/conftest.py and the fuzzer's command lines.

The parity tests' bit-for-bit claims were measured with the AVX2 kernels; on AVX-512 each
library rounds some functions otherwise (NumPy's SVML log10/log1p/cos/sin, torch's
half-precision loop widths, oneDNN's float32 gelu; see README "CPUs with AVX-512"). A
variable the caller already set is left as it is; worker processes and commands the tests
start inherit the pin.
"""

import os

PIN = {
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",  # NumPy's dispatch targets
    "ATEN_CPU_CAPABILITY": "avx2",  # torch's ATen kernels
    "ONEDNN_MAX_CPU_ISA": "AVX2",  # torch's float32 gelu (and oneDNN's other kernels)
}


def cpu_has_avx512():
    """Whether /proc/cpuinfo lists avx512f (False where it cannot be read)."""
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


if cpu_has_avx512():
    for _name, _value in PIN.items():
        os.environ.setdefault(_name, _value)

# MKL's BLAS on one thread in both libraries (each MKL reads MKL_DOMAIN_NUM_THREADS at load;
# the framework's products run on MKL's own thread count, as torch's, so the pair stays equal).
# With two pytest-xdist workers on two cores, a small product of a two-thread MKL waited
# ~1 ms for its OpenMP team: conv3d's gradgradcheck took 85 s, 13 s on one thread (AMD EPYC).
# Only the BLAS domain: MKL_NUM_THREADS would also set torch's
# intra-op thread count (it starts OpenMP at mkl_get_max_threads()), whose parallel kernels
# the replays follow (351 tests failed with it).
os.environ.setdefault("MKL_DOMAIN_NUM_THREADS", "MKL_BLAS=1")


def without_aten_pin(env):
    """`env` without this module's ATEN_CPU_CAPABILITY: torch.compile's generated CPU kernels
    give NaN under ATEN_CPU_CAPABILITY=avx2 on an AVX-512 CPU (torch 2.13, measured on the
    GPT trainer's reference run), so the PyTorch programs run with it, which the tests compare
    with a tolerance, not bit for bit, run with torch's own kernel choice."""
    env = dict(env)
    if cpu_has_avx512() and env.get("ATEN_CPU_CAPABILITY") == PIN["ATEN_CPU_CAPABILITY"]:
        del env["ATEN_CPU_CAPABILITY"]
    return env
