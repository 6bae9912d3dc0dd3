"""float()/complex() of a tensor that requires grad, with grad mode on, warns as torch 2.13
does (a UserWarning, once per process; not under no_grad, not for int() or .item())."""

import subprocess
import sys

import pytest

SCRIPT = """
import warnings, {lib} as T
x = T.randn((), requires_grad=True)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with T.no_grad():
        float(x)
    int(x); x.item(); float(x.detach())
    n0 = len(w)
    {first}
    n1 = len(w)
    float(x); complex(x); float(x * 2)
print(n0, n1, len(w), repr(str(w[0].message)) if w else None, w[0].category.__name__ if w else None)
"""


@pytest.mark.parametrize("first", ["float(x)", "complex(x)", "float(x * 2)"])
def test_scalar_conversion_warning_as_torch(first):
    out = []
    for lib in ("torch", "framework"):
        code = SCRIPT.format(lib=lib, first=first)
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        out.append(res.stdout)
    assert out[1] == out[0]
    assert out[0].startswith("0 1 1 'Converting a tensor with requires_grad=True")
