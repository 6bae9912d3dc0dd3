"""Op-table records for the common top-level helpers (framework/ops/extras2.py, extras3.py and
special functions): appended to `OPS` by tests/ops/optable.py. Same record format and samplers'
conventions as optable.py; ops that return no tensor (is_nonzero, result_type, ...) return a
comparable Python value (dtypes as their names)."""

from ops.opgen import ALL, FLOAT, INT, NUM, T
from ops.optable import OpInfo, binary, cum_sample, unary


def _op(name, fn, sample, dtypes=ALL, **kw):
    return OpInfo(name, fn, sample, dtypes, **kw)


def _top(name, dtypes=ALL, sample=unary, **kw):
    """A top-level function called with the sampled arguments as they are."""
    return OpInfo(name, lambda L, *a, **k: getattr(L, name)(*a, **k), sample, dtypes, **kw)


def _name(d):
    return str(d).replace("torch.", "")


# ----- samplers ------------------------------------------------------------------------------
def diag_sample(g):
    x = g.t(g.shape(min_ndim=1, max_ndim=2) if g.chance(0.95) else g.shape(ndim=3))
    return [x], {"diagonal": int(g.pick((0, 1, -1, 2)))}


def diag_embed_sample(g):
    x = g.t(g.shape(min_ndim=1, max_ndim=3))
    n = x.a.ndim + 1
    d1, d2 = g.dim(n), g.dim(n)
    return [x], {"offset": int(g.pick((0, 1, -2))), "dim1": d1, "dim2": d2}


def diagflat_sample(g):
    return [g.t(g.shape(max_ndim=3))], {"offset": int(g.pick((0, 1, -1)))}


def tile_sample(g):
    x = g.t(g.shape(max_ndim=3))
    k = int(g.r.integers(0, 4))
    return [x, tuple(int(g.pick((1, 2, 0, 3))) for _ in range(k))], {}


def blocks_sample(g):
    dt = g.dtype()
    parts = [
        g.t(g.shape(max_ndim=2 if g.chance(0.95) else 3), dtype=dt if g.chance(0.8) else None)
        for _ in range(int(g.r.integers(0 if g.chance(0.1) else 1, 4)))
    ]
    return parts, {}


def broadcast_sample(g):
    a, b = g.pair(scalar=0)
    return [a, b] + ([g.t(g.bshape(a.a.shape))] if g.chance(0.3) else []), {}


def split3_sample(min_ndim):
    def sample(g):
        x = g.t(g.shape(min_ndim=min_ndim if g.chance(0.95) else 0, max_ndim=3))
        d = 1 if min_ndim == 2 and x.a.ndim >= 2 else 2 if min_ndim == 3 else 0
        if min_ndim == 1 and x.a.ndim >= 2:  # hsplit: dim 1 of >= 2-D input
            d = 1
        n = x.a.shape[d] if x.a.ndim > d else 1
        if g.chance(0.5):
            arg = int(g.pick((1, 2, n or 1)))
        else:
            arg = [int(i) for i in sorted(g.r.integers(0, n + 2, size=int(g.r.integers(0, 3))))]
        return [x, arg], {}

    return sample


def one_element_sample(g):
    shape = g.pick(((), (1,), (1, 1), (2,), (0,)))
    return [g.t(shape, rg=False)], {}


def two_tensors(g):
    return [g.t(), g.t(g.shape() if g.chance(0.5) else None)], {}


def isin_sample(g):
    x = g.t(special=0.2)
    if x.a.dtype.kind == "f":
        x.a = x.a.round()
    y = g.t(dtype=x.a.dtype.name if g.chance(0.8) else None) if g.chance(0.8) else g.scalar()
    if isinstance(y, T) and y.a.dtype.kind == "f":
        y.a = y.a.round()
    return [x, y], {"invert": g.chance(0.3)}


def logit_sample(g):
    x = g.t(special=0.1)
    if x.a.dtype.kind == "f" and g.chance(0.8):
        x.a = (1 / (1 + abs(x.a) * 2)).astype(x.a.dtype)
    return [x], ({"eps": g.pick((1e-6, 0.1, 0.6))} if g.chance(0.4) else {})


def inner_sample(g):
    dt = g.dtype()
    k = g.size()
    a = g.t(g.shape(max_ndim=2) + (k,) if g.chance(0.85) else (), dtype=dt)
    b = g.t(g.shape(max_ndim=2) + (k if g.chance(0.95) else k + 1,), dtype=dt)
    return [a, b], {}


def dist_sample(g):
    (a, b), _ = binary(g)
    if not isinstance(b, T):
        b = g.t(dtype=a.a.dtype.name)
    return [a, b], {"p": g.pick((2, 1, 0, 3.5, float("inf"), -float("inf")))}


def _spacing(g, y, dim):
    """x sample points for trapezoid: same shape as y, or 1-D along dim; or dx; or nothing."""
    u = g.r.random()
    n = y.a.shape[dim] if y.a.ndim else 1
    if u < 0.3:
        return [], {"dx": g.pick((0.5, 2, -1.0))}
    if u < 0.5:
        return [g.t(y.a.shape, dtype=y.a.dtype.name)], {}
    if u < 0.7:
        return [g.t((n,), dtype=y.a.dtype.name)], {}
    return [], {}


def trapezoid_sample(g):
    y = g.t(g.shape(min_ndim=1))
    d = g.dim(y.a.ndim)
    xs, kw = _spacing(g, y, d if -y.a.ndim <= d < y.a.ndim else 0)
    return [y] + xs, dict(kw, dim=d)


def tri_indices_sample(g):
    args = [int(g.pick((0, 1, 3, 4))), int(g.pick((0, 2, 3, 5))), int(g.pick((0, 1, -1, -3, 4)))]
    return args, ({"dtype": g.pick((None, "int32", "int64"))} if g.chance(0.3) else {})


def tri_indices(name):
    def fn(L, r, c, o, dtype=None):
        return getattr(L, name)(r, c, o, dtype=None if dtype is None else getattr(L, dtype))

    return fn


def dtype_pair_sample(g):
    names = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16")
    names += ("float32", "float64")
    return [g.pick(names), g.pick(names)], {}


def result_type_sample(g):
    a = g.t(g.shape(max_ndim=2)) if g.chance(0.7) else g.scalar()
    b = g.t(g.shape(max_ndim=2)) if g.chance(0.7) else g.scalar()
    return [a, b], {}


def chain_matmul_sample(g):
    dt = g.dtype(FLOAT)
    sizes = [g.size() for _ in range(int(g.r.integers(2, 6)))]
    shapes = [(sizes[i], sizes[i + 1]) for i in range(len(sizes) - 1)]
    if g.chance(0.05):
        shapes[0] = shapes[0] + (1,)
    return [g.t(s, dtype=dt) for s in shapes], {}


def cov_sample(g):
    x = g.t(g.shape(max_ndim=2 if g.chance(0.95) else 3))
    kw = {}
    n = x.a.shape[-1] if x.a.ndim else 1
    if g.chance(0.5):
        kw["correction"] = int(g.pick((0, 1, 2)))
    if g.chance(0.3):
        kw["fweights"] = T(g.r.integers(0, 4, size=(n,)).astype("int64"))
    if g.chance(0.3):
        kw["aweights"] = T(abs(g.array((n,), g.dtype(FLOAT), special=0)))
    return [x], kw


def corrcoef_sample(g):
    return [g.t(g.shape(max_ndim=2 if g.chance(0.95) else 3))], {}


def logspace_sample(g):
    start, end = g.pick((0.0, -1.0, 2)), g.pick((1.0, 3, -2.5))
    steps = int(g.pick((0, 1, 2, 5)))
    kw = {"base": g.pick((10.0, 2, 0.5))} if g.chance(0.5) else {}
    if g.chance(0.4):
        kw["dtype"] = g.pick(("float32", "float64", "int64"))
    return [start, end, steps], kw


def logspace(L, start, end, steps, dtype=None, **kw):
    return L.logspace(start, end, steps, dtype=None if dtype is None else getattr(L, dtype), **kw)


def heaviside_sample(g):
    a = g.t()
    b = g.t(g.bshape(a.a.shape), dtype=a.a.dtype.name if g.chance(0.8) else None)
    return [a, b], {}


EXTRAS_OPS = [
    _top("argwhere", grad=False),
    _op("block_diag", lambda L, *ts: L.block_diag(*ts), blocks_sample),
    _op("broadcast_tensors", lambda L, *ts: L.broadcast_tensors(*ts), broadcast_sample),
    _top("trapezoid", NUM, trapezoid_sample),
    _top("cumulative_trapezoid", NUM, trapezoid_sample),
    _top("deg2rad", chain=True),
    _top("rad2deg"),
    _top("diag", sample=diag_sample),
    _top("diag_embed", sample=diag_embed_sample),
    _top("diagflat", sample=diagflat_sample),
    _top("dist", FLOAT, dist_sample),
    _top("dsplit", sample=split3_sample(3)),
    _top("hsplit", sample=split3_sample(1)),
    _top("vsplit", sample=split3_sample(2)),
    _top("inner", sample=inner_sample),
    _top("is_nonzero", sample=one_element_sample, grad=False),
    _top("is_same_size", sample=two_tensors, grad=False),
    _top("isin", sample=isin_sample, grad=False),
    _top("logcumsumexp", FLOAT, cum_sample),
    _top("logit", FLOAT, logit_sample, chain=True),
    _top("positive", NUM),
    _top("ravel"),
    _top("signbit", NUM, grad=False),
    _top("sinc", FLOAT, chain=True),
    _top("tile", sample=tile_sample),
    _op("tril_indices", tri_indices("tril_indices"), tri_indices_sample, INT, grad=False),
    _op("triu_indices", tri_indices("triu_indices"), tri_indices_sample, INT, grad=False),
    _op(
        "can_cast",
        lambda L, a, b: L.can_cast(getattr(L, a), getattr(L, b)),
        dtype_pair_sample,
        grad=False,
    ),
    _op(
        "promote_types",
        lambda L, a, b: _name(L.promote_types(getattr(L, a), getattr(L, b))),
        dtype_pair_sample,
        grad=False,
    ),
    _op(
        "result_type",
        lambda L, a, b: _name(L.result_type(a, b)),
        result_type_sample,
        grad=False,
    ),
    _op("chain_matmul", lambda L, *ms: L.chain_matmul(*ms), chain_matmul_sample, FLOAT),
    _top("copysign", sample=binary),
    _top("cov", NUM, cov_sample),
    _top("corrcoef", NUM, corrcoef_sample),
    _top("float_power", sample=binary),
    _top("heaviside", NUM, heaviside_sample, grad=False),
    _op("logspace", logspace, logspace_sample, FLOAT, grad=False),
]
