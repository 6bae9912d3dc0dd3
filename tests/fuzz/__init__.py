"""The differential fuzzer (see runner.py); `python -m tests.fuzz --help` runs it long.

Importing the package first imports tests/cpu_pin.py, so its command lines (`python -m
tests.fuzz`, `python -m tests.fuzz.second_order`) run NumPy and torch with the kernels the
test suite pins on an AVX-512 CPU.
"""

import os as _os
import sys as _sys

_TESTS = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _TESTS not in _sys.path:
    _sys.path.insert(0, _TESTS)

import cpu_pin  # noqa: E402, F401
