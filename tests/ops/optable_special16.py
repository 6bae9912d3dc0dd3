"""Op-table records of the sixteenth pass's torch.special functions (erfcx, the Bessel/Airy
family, the orthogonal polynomials, gammainc/gammaincc and igamma/igammac), appended last
to `OPS` by tests/ops/optable.py (runner.EPOCHS keeps older seeds on the older table)."""

import numpy as np

from ops.opgen import ALL
from ops.optable import OpInfo, unary


def _special(name, sample=unary, **kw):
    return OpInfo(
        "special_" + name,
        lambda L, *a, **k: getattr(L.special, name)(*a, **k),
        sample,
        ALL,
        **kw,
    )


def polynomial_sample(g):
    """(x, n): x a tensor without NaN (torch returns a stale register for NaN x at a row's
    start), mostly in [-1.5, 1.5]; n a tensor of degrees (any float dtype: cast per element)
    or a Python int; sometimes x a Python number."""
    x = g.t()
    if x.a.dtype.kind == "f":
        a = x.a.astype(np.float64)
        a = np.where(np.isnan(a), 0.5, a)
        if g.chance(0.7):
            a = np.tanh(a) * 1.5
        x.a = a.astype(x.a.dtype)
    if g.chance(0.3):
        return [x, int(g.r.integers(-2, 30))], {}
    n = g.t(g.bshape(x.a.shape), rg=False)
    n.a = np.clip(np.nan_to_num(n.a.astype(np.float64) * 4, nan=3.0), -3, 30).astype(n.a.dtype)
    if g.chance(0.15):
        return [float(g.pick((0.5, -0.25, 2.0))), n], {}
    return [x, n], {}


def gamma_sample(g):
    """(a, x) tensors, mostly positive (the functions' domain), broadcast."""
    a = g.t(rg=False)
    x = g.t(g.bshape(a.a.shape), dtype=a.a.dtype.name if g.chance(0.8) else None)
    for t in (a, x):
        if t.a.dtype.kind == "f" and g.chance(0.85):
            t.a = (np.abs(t.a) * g.pick((1.0, 10.0, 60.0))).astype(t.a.dtype)
    return [a, x], {}


UNARY = (
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
)  # fmt: skip
POLYNOMIALS = (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p",
)  # fmt: skip

SPECIAL16_OPS = (
    [_special("erfcx")]
    + [_special(name) for name in UNARY]
    + [_special(name, polynomial_sample) for name in POLYNOMIALS]
    + [
        _special("gammainc", gamma_sample),
        _special("gammaincc", gamma_sample),
        OpInfo(
            "igamma",
            lambda L, a, x: L.igamma(a, x),
            gamma_sample,
            ALL,
            inplace=lambda L, a, x: a.igamma_(x),
        ),
        OpInfo(
            "igammac",
            lambda L, a, x: L.igammac(a, x),
            gamma_sample,
            ALL,
            inplace=lambda L, a, x: a.igammac_(x),
        ),
    ]
)
