"""torch's CPU special.ndtri, i0, special.i0e, special.i1 and special.i1e bit for bit, for
float32/float64 NumPy arrays, where numba is installed (special.log_ndtr: ``_special_more``).

torch 2.13 computes each element of these with ATen's scalar ``calc_ndtri``,
``calc_i0`` ... (Math.h; ``cpu_kernel``, or vml.h's default ``map`` of the
same scalar function for i0 and ``cpu_kernel_vec`` with it for i0e, so every element takes the
same path): float arithmetic for float, double for double, the Horner and Clenshaw steps fused
into multiply-adds by its AVX2 build, glibc's ``exp``/``log``; the float
ndtri's tail takes C's double ``::log``/``::sqrt``. ``_special_jit`` replays that (0 of 100,000
elements apart from torch's, where NumPy's float64 arithmetic and SIMD exp differed in
25-67 %). Each function returns None where it does not apply (no numba, not a float32/float64
NumPy array) and the caller keeps its NumPy path.

Example:
    >>> import numpy as np
    >>> from framework.ops._special_exact import bessel
    >>> out = bessel(1, np.zeros(1, np.float32))  # i0e(0): torch's float32 series gives
    >>> bool(out is None or out[0] == np.float32(0.99999994))  # 1 - 2**-24, not 1
    True
"""

import numpy as np

from . import _fused
from . import _gamma_math as K

_JIT = [None]  # the numba module, False without numba (FRAMEWORK_NUMBA=0)
_F32, _F64 = np.dtype("float32"), np.dtype("float64")
_TABLES = {}

# Cephes' ndtri rational fits (torch's calc_ndtri's P0/Q0 for |y - 1/2| <= 3/8, P1/Q1 for
# sqrt(-2 log y) in [2, 8), P2/Q2 above)
_NDTRI = (
    (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
     1.39312609387279679503e1, -1.23916583867381258016e0),
    (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
     -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
     1.59056225126211695515e1, -1.18331621121330003142e0),
    (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
     4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
     -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4),
    (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
     1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
     -3.80806407691578277194e-2, -9.33259480895457427372e-4),
    (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
     1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
     3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9),
    (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
     2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
     2.89247864745380683936e-6, 6.79019408009981274425e-9),
)  # fmt: skip

_BESSEL = {  # kind: (A, B) as torch's chebyshev_coefficients_*<double>, <float> tables
    0: (K._I0E_A, K._I0E_B),
    1: (K._I0E_A, K._I0E_B),
    2: (K._I1E_A, K._I1E_B),
    3: (K._I1E_A, K._I1E_B),
}


def _jit():
    """``_special_jit`` where numba is usable (and FRAMEWORK_NUMBA is not 0), else None."""
    return _fused.jit_module("_special_jit", _JIT)


def _tables(key, dt):
    """The constant arrays of `key` in dtype dt (float32: each rounded to float, as torch's
    float literals and static tables), built once."""
    got = _TABLES.get((key, dt))
    if got is None:
        if key == "ndtri":
            c = (0, 1, 0.5, 0.13533528323661269189, 2.50662827463100050242, 8)
            got = (np.array(c, dt),) + tuple(np.array(t, dt) for t in _NDTRI)
        else:
            a, b = _BESSEL[key]
            if dt == _F32 and key >= 2:  # (torch's float i1e tables: the last 17 and 7)
                a, b = a[-17:], b[-7:]
            got = (np.array(a, dt), np.array(b, dt))
        _TABLES[(key, dt)] = got
    return got


def _run(name, key, x, *extra):
    """The jit loop `name` (constants `key` of `_tables`) over the float32/float64 NumPy array
    x (any layout), or None where it does not apply."""
    if type(x) is not np.ndarray or x.dtype not in (_F32, _F64):
        return None
    j = _jit()
    if j is None:
        return None
    out = np.empty(x.shape, x.dtype)
    if x.size:
        args = _tables(key, x.dtype) + extra
        with np.errstate(all="ignore"):
            getattr(j, name)(np.ascontiguousarray(x).reshape(-1), out.reshape(-1), *args)
    return out


def ndtri(x):
    """torch's special.ndtri of x, or None (see the module)."""
    return _run("ndtri_array", "ndtri", x)


def bessel(kind, x):
    """torch's i0 (kind 0), special.i0e (1), special.i1 (2), special.i1e (3) of x, or None."""
    return _run("bessel_array", kind, x, kind)
