"""Op-table records for the gamma-family / Bessel / torch.special functions and the other
common top-level functions of framework/ops/gamma.py, extras4.py, histogram.py,
matrix_fns.py, index_reduce.py (appended to `OPS` by tests/ops/optable.py)."""

import numpy as np

from ops.opgen import ALL, FLOAT, INT, T
from ops.optable import OpInfo, binary, unary


def _op(name, fn, sample, dtypes=ALL, **kw):
    return OpInfo(name, fn, sample, dtypes, **kw)


def _special(name, dtypes=ALL, sample=unary, **kw):
    return OpInfo(
        "special_" + name,
        lambda L, *a, **k: getattr(L.special, name)(*a, **k),
        sample,
        dtypes,
        **kw,
    )


def _top(name, dtypes=ALL, sample=unary, **kw):
    return OpInfo(name, lambda L, *a, **k: getattr(L, name)(*a, **k), sample, dtypes, **kw)


# ----- samplers ------------------------------------------------------------------------------
def polygamma_sample(g):
    return [int(g.pick((0, 1, 2, 3))), g.t()], {}


def mvlgamma_sample(g):
    x, p = g.t(), int(g.pick((1, 2, 3)))
    if x.a.dtype.kind == "f":
        x.a = (abs(x.a) + (p - 1) / 2 + 0.1).astype(x.a.dtype)
    return [x, p], {}


def prob_sample(g):
    x = g.t(special=0.1)
    if x.a.dtype.kind == "f" and g.chance(0.85):
        x.a = (1 / (1 + np.exp(-x.a.astype(np.float64) * 3))).astype(x.a.dtype)
    return [x], {}


def zeta_sample(g):
    x = g.t(rg=False)
    q = g.t(g.bshape(x.a.shape), dtype=x.a.dtype.name if g.chance(0.9) else None)
    if x.a.dtype.kind == "f":
        x.a = (abs(x.a) + g.pick((1.0, 1.5))).astype(x.a.dtype)
    if q.a.dtype.kind == "f" and g.chance(0.8):
        q.a = (abs(q.a) + 0.2).astype(q.a.dtype)
    return [x, q], {}


def ldexp_sample(g):
    x = g.t()
    e = g.t(g.bshape(x.a.shape), dtype="int64" if g.chance(0.7) else None)
    return [x, e], {}


def fill_diagonal_sample(g):
    """A matrix (square, tall for wrap, wide), a cube of equal sides, sometimes unequal or
    1-D (torch's errors); a float, int, bool or NaN value."""
    n = int(g.pick((0, 1, 2, 3)))
    shape = g.pick(
        ((n, n), (n + 3, n), (n, n + 2), (n, n, n), (2, 2, 3), (n + 2, 1), g.shape(max_ndim=1))
    )
    value = g.pick((1.5, -2, True, float("nan"), 0))
    return [g.t(tuple(shape)), value], ({"wrap": g.chance(0.5)} if g.chance(0.6) else {})


def square_sample(g, lo=0.0, scale=1.0):
    n = g.pick((1, 2, 3))
    batch = g.shape(max_ndim=1)
    x = g.t(batch + (n, n), dtype=g.dtype(FLOAT), special=0)
    if x.a.dtype.kind == "f":
        x.a = (x.a * scale + lo * np.eye(n)).astype(x.a.dtype)
    return [x], {}


def renorm_sample(g):
    x = g.t(g.shape(min_ndim=2, max_ndim=3))
    return [x, g.pick((1, 2, 3, 0.5, float("inf"))), g.dim(x.a.ndim), g.pick((0.5, 1.0, 5.0))], {}


def vander_sample(g):
    x = g.t((g.size(),) if g.chance(0.95) else g.shape(ndim=2))
    kw = {}
    if g.chance(0.6):
        kw["N"] = int(g.pick((0, 1, 2, 4)))
    if g.chance(0.5):
        kw["increasing"] = g.chance(0.5)
    return [x], kw


def combinations_sample(g):
    x = g.t((int(g.pick((0, 1, 2, 3, 4))),))
    return [x], {"r": int(g.pick((0, 1, 2, 3))), "with_replacement": g.chance(0.4)}


def histogram_sample(g):
    x = g.t(g.shape(max_ndim=2), special=0.05, rg=False)
    kw = {}
    if g.chance(0.3):
        kw["range"] = g.pick(((-1.0, 1.0), (0.0, 3.0)))
    if g.chance(0.3) and x.a.dtype.kind == "f":
        kw["weight"] = T(abs(g.array(x.a.shape, x.a.dtype.name, special=0)))
    if g.chance(0.3):
        kw["density"] = True
    return [x], dict(kw, bins=int(g.pick((1, 2, 5))))


def histogramdd_sample(g):
    d = g.pick((1, 2))
    x = g.t((g.size(), d), dtype=g.dtype(FLOAT), special=0, rg=False)
    bins = int(g.pick((1, 2, 3))) if g.chance(0.5) else [int(g.pick((1, 2))) for _ in range(d)]
    return [x], {"bins": bins, "density": g.chance(0.3)}


def histogramdd(L, x, **kw):
    hist, edges = L.histogramdd(x, **kw)
    return (hist, *edges)


def index_reduce_sample(g):
    x = g.t(g.shape(min_ndim=1, max_ndim=3), special=0.05)
    d = g.dim(x.a.ndim)
    size = x.a.shape[d] if -x.a.ndim <= d < x.a.ndim else 1
    n = g.size()
    idx = g.index((n,), max(size, 1), neg=False)
    shape = list(x.a.shape)
    if -len(shape) <= d < len(shape):
        shape[d] = n
    src = g.t(tuple(shape), dtype=x.a.dtype.name if g.chance(0.95) else None)
    if x.a.dtype.kind == "f" and g.chance(0.5):  # ties for amax/amin, zeros for prod
        x.a, src.a = x.a.round(), src.a.round()
    reduce = g.pick(("prod", "mean", "amax", "amin"))
    return [x, d, idx, src, reduce], {"include_self": g.chance(0.6)}


def scalar_tensor_sample(g):
    kw = {"dtype": g.pick(("float64", "int64", "bool"))} if g.chance(0.4) else {}
    return [g.scalar(g.pick(("float64", "int64", "bool")))], kw


def scalar_tensor(L, s, dtype=None):
    return L.scalar_tensor(s, dtype=None if dtype is None else getattr(L, dtype))


def frombuffer_sample(g):
    raw = g.r.integers(0, 256, size=int(g.pick((0, 4, 8, 16)))).astype(np.uint8).tobytes()
    dt = g.pick(("int32", "float32", "int16", "uint8"))
    return [raw, dt], ({"count": 1} if g.chance(0.3) else {}) | (
        {"offset": 4} if g.chance(0.3) else {}
    )


def frombuffer(L, raw, dt, **kw):
    return L.frombuffer(bytearray(raw), dtype=getattr(L, dt), **kw)


def empty_strided_sample(g):
    size = g.shape(max_ndim=3)
    stride = tuple(int(g.pick((1, 2, 5))) for _ in size)
    return [size, stride if g.chance(0.95) else stride + (1,)], {}


def empty_strided(L, size, stride):
    t = L.empty_strided(size, stride)
    return tuple(t.shape), t.stride(), str(t.dtype)


SPECIAL_OPS = [
    _top("lgamma", chain=True),
    _top("digamma"),
    _op("polygamma", lambda L, n, x: L.polygamma(n, x), polygamma_sample),
    _top("mvlgamma", sample=mvlgamma_sample),
    _top("i0"),
    _special("i0e"),
    _special("i1"),
    _special("i1e"),
    _special("ndtr"),
    _special("log_ndtr"),
    _special("ndtri", sample=prob_sample),
    _special("entr"),
    _special("zeta", sample=zeta_sample),
    _special("multigammaln", sample=mvlgamma_sample),
    _special("expit"),
    _special("xlogy", sample=binary),
    _top("gcd", INT, binary, grad=False),
    _top("lcm", INT, binary, grad=False),
    _top("ldexp", sample=ldexp_sample, inplace=lambda L, x, e: x.ldexp_(e)),
    _top("nextafter", FLOAT, binary),
    _top("logdet", FLOAT, lambda g: square_sample(g, 2.0)),
    _top("matrix_exp", FLOAT, lambda g: square_sample(g, 0.0, 0.5)),
    _top("renorm", FLOAT, renorm_sample),
    _top("vander", sample=vander_sample),
    _top("combinations", sample=combinations_sample),
    _top("histogram", FLOAT, histogram_sample, grad=False),
    _op("histogramdd", histogramdd, histogramdd_sample, FLOAT, grad=False),
    _top("index_reduce", sample=index_reduce_sample),
    _op("scalar_tensor", scalar_tensor, scalar_tensor_sample, grad=False),
    _top("detach", grad=False),
    _op("frombuffer", frombuffer, frombuffer_sample, grad=False),
    _op("empty_strided", empty_strided, empty_strided_sample, grad=False),
    _op(  # in place only: the record's function fills a copy
        "fill_diagonal_",
        lambda L, x, v, **kw: x.clone().fill_diagonal_(v, **kw),
        fill_diagonal_sample,
        inplace=lambda L, x, v, **kw: x.fill_diagonal_(v, **kw),
    ),
]
