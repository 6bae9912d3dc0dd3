"""Op-table records for the wave-2 ops (issue 11's breadth list), appended to `OPS` by
tests/ops/optable.py: the tensor functions (scans, sorting statistics, indexing, linear algebra,
einsum, ...) and the torch.nn.functional ops (activations, norms, resampling, pooling,
convolution, attention, losses). Same record format and samplers' conventions as optable.py.
"""

import numpy as np

from ops.opgen import ALL, FLOAT, INT, NUM, T
from ops.optable import (
    F,
    expand_sample,
    OpInfo,
    binary,
    cum_sample,
    gather_sample,
    one_dim,
    pool_sample,
    reduce_dims,
    two_dims,
    unary,
)


def _op(name, fn, sample, dtypes=ALL, **kw):
    return OpInfo(name, fn, sample, dtypes, **kw)


def _fl(g):
    return g.dtype(FLOAT)


# ----- tensor functions ----------------------------------------------------------------------
def einsum_sample(g):
    dt = _fl(g)
    i, j, k, b = g.size(), g.size(), g.size(), g.size()
    eq, shapes = g.pick(
        (
            ("ij,jk->ik", ((i, j), (j, k))),
            ("ij,jk", ((i, j), (j, k))),
            ("ii->i", ((i, i),)),
            ("ii", ((i, i),)),
            ("ij->", ((i, j),)),
            ("ij->ji", ((i, j),)),
            ("...i,...i->...", ((b, i), (b, i))),
            ("bij,bjk->bik", ((b, i, j), (b, j, k))),
            ("i,j->ij", ((i,), (j,))),
            ("i,i", ((i,), (i,))),
            ("ij,ij->ij", ((i, j), (i, j))),
            ("ij,jk->ik", ((i, j), (j + 1, k))),
        )
    )
    return [eq] + [g.t(s, dtype=dt) for s in shapes], {}


def lerp_sample(g):
    a, b = g.pair(scalar=0)
    if not isinstance(b, T) or not isinstance(a, T):
        a, b = g.t(), g.t()
    w = (
        g.pick((0.5, 0.0, 1.5, -1.0))
        if g.chance(0.5)
        else g.t(g.bshape(a.a.shape), dtype=a.a.dtype.name)
    )
    return [a, b, w], {}


def addc_sample(g):
    x = g.t()
    dt = x.a.dtype.name if g.chance(0.9) else None
    t1, t2 = g.t(g.bshape(x.a.shape), dtype=dt), g.t(g.bshape(x.a.shape), dtype=dt)
    return [x, t1, t2], ({"value": g.pick((0.5, 2, -1))} if g.chance(0.5) else {})


def unique_sample(g):
    x = g.t(g.shape(max_ndim=3), special=0.3)
    if x.a.dtype.kind == "f" and g.chance(0.5):
        x.a = x.a.round()
    kw = {k: g.chance(0.5) for k in ("return_inverse", "return_counts")}
    if g.chance(0.3):
        kw["dim"] = g.dim(x.a.ndim)
    return [x], kw


def repeat_interleave_sample(g):
    x = g.t(g.shape(max_ndim=3))
    d = g.dim(x.a.ndim) if g.chance(0.7) else None
    n = x.a.size if d is None else (x.a.shape[d] if -x.a.ndim <= d < x.a.ndim else 1)
    reps = int(g.pick((0, 1, 2))) if g.chance(0.5) else g.index((n,), 3, neg=False)
    return [x, reps], {"dim": d}


def rot90_sample(g):
    x = g.t(g.shape(min_ndim=2, max_ndim=3))
    a, b = g.dim(x.a.ndim), g.dim(x.a.ndim)
    return [x, int(g.pick((1, 2, 3, -1, 0)))], {"dims": (a, b)}


def sorted_seq(g):
    x = g.t(g.shape(min_ndim=1, max_ndim=2), dtype=g.dtype(NUM), special=0)
    x.a.sort(axis=-1)
    return x


def searchsorted_sample(g):
    s = sorted_seq(g)
    v = g.t(
        s.a.shape[:-1] + (g.size(),) if g.chance(0.7) else (g.size(),),
        dtype=s.a.dtype.name if g.chance(0.9) else None,
    )
    if s.a.ndim > 1 and s.a.shape[0] and v.a.ndim == 1 and g.chance(0.8):
        s = T(s.a[0])
    return [s, v], {"right": g.chance(0.5)}


def bucketize_sample(g):
    b = sorted_seq(g)
    b = T(np.sort(b.a.reshape(-1)))
    return [g.t(dtype=b.a.dtype.name if g.chance(0.9) else None), b], {"right": g.chance(0.5)}


def scatter_reduce_sample(g):
    (x, d, idx), _ = gather_sample(g)
    red = g.pick(("sum", "prod", "mean", "amax", "amin"))
    return [x, d, idx, g.t(idx.a.shape, dtype=x.a.dtype.name), red], {"include_self": g.chance(0.6)}


def index_src_sample(g):
    """x, dim, index, source (source shaped as x with len(index) along dim)."""
    x = g.t(g.shape(max_ndim=3))
    d = g.dim(x.a.ndim)
    n = x.a.shape[d] if x.a.ndim and -x.a.ndim <= d < x.a.ndim else 1
    k = g.size()
    idx = g.index((k,), max(n, 1))
    shape = list(x.a.shape)
    if shape and -len(shape) <= d < len(shape):
        shape[d] = k
    return [x, d, idx, g.t(tuple(shape), dtype=x.a.dtype.name if g.chance(0.9) else None)], {}


def index_fill_sample(g):
    (x, d, idx, _), _ = index_src_sample(g)
    return [
        x,
        d,
        idx,
        g.scalar(x.a.dtype.name) if g.chance(0.8) else g.t((), dtype=x.a.dtype.name, rg=False),
    ], {}


def masked_scatter_sample(g):
    x = g.t()
    mask = g.t(g.bshape(x.a.shape), dtype="bool" if g.chance(0.95) else None)
    n = int(max(x.a.size, 1))
    return [
        x,
        mask,
        g.t((n + int(g.pick((0, 0, 1)) if g.chance(0.9) else -1),), dtype=x.a.dtype.name),
    ], {}


def masked_select_sample(g):
    x = g.t()
    return [x, g.t(g.bshape(x.a.shape), dtype="bool" if g.chance(0.95) else None)], {}


def take_sample(g):
    x = g.t()
    return [x, g.index(g.shape(max_ndim=2), max(x.a.size, 1))], {}


def take_along_dim_sample(g):
    (x, d, idx), _ = gather_sample(g)
    return ([x, idx], {"dim": d}) if g.chance(0.8) else ([x, T(idx.a.reshape(-1))], {})


def tensor_split_sample(g):
    x = g.t(g.shape(min_ndim=1))
    arg = (
        int(g.pick((1, 2, 3)))
        if g.chance(0.5)
        else [int(i) for i in sorted(g.r.integers(-1, 5, size=int(g.r.integers(0, 3))))]
    )
    return [x, arg], {"dim": g.dim(x.a.ndim)}


def vec_pair(g, same=True):
    dt = _fl(g)
    n = g.size()
    return [g.t((n,), dtype=dt), g.t((n if same else g.size(),), dtype=dt)]


def meshgrid_sample(g):
    return vec_pair(g, same=False), {"indexing": g.pick(("ij", "xy"))}


def cdist_sample(g):
    dt = _fl(g)
    b, m = g.shape(max_ndim=1), g.size()
    return [g.t(b + (g.size(), m), dtype=dt), g.t(b + (g.size(), m), dtype=dt)], {
        "p": g.pick((2.0, 1.0, 0.0, 3.0, float("inf")))
    }


def diff_sample(g):
    x = g.t(g.shape(min_ndim=1))
    d = g.dim(x.a.ndim)
    kw = {"n": int(g.pick((1, 1, 2))), "dim": d}
    if g.chance(0.3) and -x.a.ndim <= d < x.a.ndim:
        shape = list(x.a.shape)
        shape[d] = 1
        kw["prepend"] = g.t(tuple(shape), dtype=x.a.dtype.name)
    return [x], kw


def kron_sample(g):
    dt = g.dtype(NUM)
    return [g.t(g.shape(max_ndim=2), dtype=dt), g.t(g.shape(max_ndim=2), dtype=dt)], {}


def trace_sample(g):
    return [g.t((g.size(), g.size()))], {}


def tensordot_sample(g):
    dt = _fl(g)
    i, j, k = g.size(), g.size(), g.size()
    if g.chance(0.5):
        return [g.t((i, j, k), dtype=dt), g.t((j, k, g.size()), dtype=dt)], {"dims": 2}
    return [g.t((i, j), dtype=dt), g.t((k, j), dtype=dt)], {"dims": ([1], [1])}


def cross_sample(g):
    dt = g.dtype(NUM)
    shape = g.shape(max_ndim=2) + (3,)
    return [g.t(shape, dtype=dt), g.t(g.bshape(shape) or (3,), dtype=dt)], {"dim": -1}


def norm_sample(g):
    x = g.t(dtype=_fl(g))
    d = g.dims(x.a.ndim)
    kw = {"p": g.pick((2, 1, "fro", float("inf"), 0, 3))}
    if d is not None:
        kw["dim"] = d
        kw["keepdim"] = g.chance(0.3)
    return [x], kw


def median_sample(g):
    return one_dim(g) if g.chance(0.6) else unary(g)


def kthvalue_sample(g):
    x = g.t(g.shape(min_ndim=1))
    d = g.dim(x.a.ndim)
    n = x.a.shape[d] if -x.a.ndim <= d < x.a.ndim else 1
    k = int(g.r.integers(1, n + 1)) if n and not g.chance(0.1) else int(g.pick((0, n + 1)))
    return [x, k], {"dim": d}


def quantile_sample(g):
    x = g.t(dtype=_fl(g))
    q = g.pick((0.5, 0.0, 1.0, 0.25)) if g.chance(0.6) else T(g.r.random(g.size()))
    kw = {"dim": g.dim(x.a.ndim)} if g.chance(0.6) else {}
    kw["interpolation"] = g.pick(("linear", "lower", "higher", "midpoint", "nearest"))
    return [x, q], kw


def histc_sample(g):
    x = g.t(dtype=_fl(g), rg=False)
    return [x], {"bins": int(g.pick((1, 4, 10))), "min": g.pick((0, -1)), "max": g.pick((0, 1, 3))}


def bincount_sample(g):
    x = g.index((g.size(),), 6, neg=False)
    kw = {"minlength": int(g.pick((0, 3, 8)))}
    if g.chance(0.4):
        kw["weights"] = g.t(x.a.shape, dtype=_fl(g))
    return [x], kw


def aminmax_sample(g):
    (x,), kw = one_dim(g) if g.chance(0.6) else unary(g)
    return [x], kw


def diagonal_sample(g):
    x = g.t(g.shape(min_ndim=2))
    return [x], {
        "offset": int(g.pick((0, 1, -1, 3))),
        "dim1": g.dim(x.a.ndim),
        "dim2": g.dim(x.a.ndim),
    }


def square_sample(g, batch=True, special=0.1):
    n = g.pick((0, 1, 2, 3))
    shape = (g.shape(max_ndim=1) if batch else ()) + (n, n)
    return g.t(shape, dtype=_fl(g), special=special)


def matrix_power_sample(g):
    return [square_sample(g), int(g.pick((0, 1, 2, 3, -1)))], {}


def solve_sample(g):
    a = square_sample(g)
    n = a.a.shape[-1]
    return [
        a,
        g.t(a.a.shape[:-1] + (g.pick((1, 2)),) if g.chance(0.7) else (n,), dtype=a.a.dtype.name),
    ], {}


def spd_sample(g):
    a = square_sample(g, special=0)
    ridge = 0.5 if g.chance(0.9) else 0.0  # sometimes singular
    a.a = a.a @ a.a.swapaxes(-1, -2) + ridge * np.eye(a.a.shape[-1], dtype=a.a.dtype)
    return [a], {}


def vector_norm_sample(g):
    (x,), kw = reduce_dims(g)
    kw["ord"] = g.pick((2, 1, float("inf"), -float("inf"), 0, 3))
    return [x], kw


def matrix_norm_sample(g):
    return [g.t(g.shape(min_ndim=2, max_ndim=3), dtype=_fl(g))], {
        "ord": g.pick(("fro", "nuc", 1, -1, float("inf"), 2))
    }


def stack_sample(g, kind):
    """2-3 tensors for h/v/d/column_stack: same trailing shape, or 0-/1-D mixes."""
    x = g.t(g.shape(max_ndim=3))
    shape = x.a.shape
    parts = [x]
    for _ in range(int(g.pick((1, 2)))):
        s = list(shape)
        axis = {"hstack": 0 if len(s) == 1 else 1, "vstack": 0, "dstack": 2, "column_stack": 1}
        a = axis[kind]
        if len(s) > a and g.chance(0.7):
            s[a] = g.size()
        parts.append(g.t(tuple(s), dtype=x.a.dtype.name if g.chance(0.9) else None))
    return [parts], {}


def atleast_sample(g):
    xs = [g.t(g.shape(max_ndim=4)) for _ in range(int(g.pick((1, 1, 2))))]
    return (xs, {}) if g.chance(0.7) else ([xs], {})


def broadcast_to_sample(g):
    (x, shape), _ = expand_sample(g)
    return [x, tuple(shape)], {}


def lstsq_sample(g):
    dt = _fl(g)
    m, n = g.pick((1, 2, 3, 4)), g.pick((1, 2, 3))
    batch = g.shape(max_ndim=1)
    a = g.t(batch + (m, n), dtype=dt, special=0)
    b = g.t(batch + ((m,) if g.chance(0.3) else (m, g.pick((1, 2)))), dtype=dt, special=0)
    return [a, b], {"driver": g.pick((None, "gelsd", "gelss", "gelsy"))}


def _tsvd(usv):
    """torch.svd's (U, S, V) as linalg.svd's (U, S, Vh) (the reduced part)."""
    U, S, V = usv
    k = S.shape[-1]
    return U[..., :k], S, V[..., :k].mT


def upper_sample(g):
    (a,), _ = spd_sample(g)
    a.a = a.a + 0.5 * np.eye(a.a.shape[-1], dtype=a.a.dtype)  # well conditioned in float32
    return [a], {"upper": g.chance(0.5)}


def factor_sample(g):
    """A Cholesky factor (lower, or upper with upper=True) of an SPD matrix, its other
    triangle random (never read)."""
    (a,), _ = spd_sample(g)
    upper = g.chance(0.5)
    n = a.a.shape[-1]
    if n:
        fac = np.linalg.cholesky(a.a + 0.5 * np.eye(n, dtype=a.a.dtype))
        if g.chance(0.3):
            fac = fac + np.triu(a.a, 1)
        a.a = fac.swapaxes(-1, -2) if upper else fac
    return [a], {"upper": upper}


def cholesky_solve_sample(g):
    [a], kw = factor_sample(g)
    return [a, g.t(a.a.shape[:-1] + (g.pick((1, 2)),), dtype=a.a.dtype.name)], kw


def lu_solve_sample(g, left=None):
    a = square_sample(g, special=0)
    n = a.a.shape[-1]
    a.a = a.a + 2 * np.eye(n, dtype=a.a.dtype)
    left = g.chance(0.7) if left is None else left
    k = g.pick((1, 2))
    b = g.t(a.a.shape[:-2] + ((n, k) if left else (k, n)), dtype=a.a.dtype.name)
    kw = {} if left is True else {"left": left, "adjoint": g.chance(0.5)}
    return [a, b], kw


def rect_sample(g):
    """A (batch of) 1-3 by 1-3 matrix: square, wide or tall."""
    shape = g.shape(max_ndim=1) + (g.pick((1, 2, 3)), g.pick((1, 2, 3)))
    return [g.t(shape, dtype=_fl(g), special=0)], {}


def householder_sample(g):
    """Reflectors (*, m, n), m >= n, and k <= n scales."""
    n = g.pick((1, 2, 3))
    batch = g.shape(max_ndim=1)
    a = g.t(batch + (n + g.pick((0, 1, 2)), n), dtype=_fl(g), special=0)
    k = g.pick(tuple(range(n + 1)))
    # tau = 2 / |v|^2: true reflections, so the product is orthogonal (well conditioned in
    # float32, where torch's own result drifts for arbitrary scales)
    v2 = 1 + (np.tril(a.a, -1) ** 2).sum(-2)[..., :k]
    return [a, T((2 / v2).astype(a.a.dtype), g.chance(0.7))], {}


def _tri_sample(g):
    a = square_sample(g, special=0)
    n = a.a.shape[-1]
    a.a = a.a + 3 * np.eye(n, dtype=a.a.dtype)  # diagonal away from zero
    return a


def solve_triangular_sample(g):
    a = _tri_sample(g)
    n = a.a.shape[-1]
    left = g.chance(0.7)
    k = g.pick((1, 2))
    b = g.t(a.a.shape[:-2] + ((n, k) if left else (k, n)), dtype=a.a.dtype.name)
    kw = {"upper": g.chance(0.5), "left": left, "unitriangular": g.chance(0.3)}
    return [a, b], kw


def triangular_solve_sample(g):
    a = _tri_sample(g)
    b = g.t(a.a.shape[:-1] + (g.pick((1, 2)),), dtype=a.a.dtype.name)
    kw = {k: g.chance(0.5) for k in ("upper", "transpose", "unitriangular")}
    return [a, b], kw


def _svd_invariants(U, S, Vh):
    return S, (U * (S * S).unsqueeze(-2)) @ Vh


def _eigh_invariants(w, Q):
    return w, (Q * w.exp().unsqueeze(-2)) @ Q.mT


TENSOR_OPS = [
    *[
        _op(n, lambda L, ts, n=n: getattr(L, n)(ts), lambda g, n=n: stack_sample(g, n))
        for n in ("hstack", "vstack", "dstack", "column_stack")
    ],
    *[
        _op(n, lambda L, *ts, n=n: getattr(L, n)(*ts), atleast_sample)
        for n in ("atleast_1d", "atleast_2d", "atleast_3d")
    ],
    _op("broadcast_to", lambda L, x, s: L.broadcast_to(x, s), broadcast_to_sample),
    _op("cummax", lambda L, x, d: L.cummax(x, d), cum_sample),
    _op("cummin", lambda L, x, d: L.cummin(x, d), cum_sample),
    _op("einsum", lambda L, eq, *ts: L.einsum(eq, *ts), einsum_sample, FLOAT),
    _op(
        "lerp",
        lambda L, a, b, w: L.lerp(a, b, w),
        lerp_sample,
        FLOAT,
        inplace=lambda L, a, b, w: a.lerp_(b, w),
    ),
    _op(
        "addcmul",
        lambda L, x, a, b, **kw: L.addcmul(x, a, b, **kw),
        addc_sample,
        NUM,
        inplace=lambda L, x, a, b, **kw: x.addcmul_(a, b, **kw),
    ),
    _op("addcdiv", lambda L, x, a, b, **kw: L.addcdiv(x, a, b, **kw), addc_sample, FLOAT),
    _op("isclose", lambda L, a, b: L.isclose(a, b), binary, grad=False),
    _op("allclose", lambda L, a, b: L.allclose(a, b), binary, grad=False),
    _op("unique", lambda L, x, **kw: L.unique(x, **kw), unique_sample, grad=False),
    _op(
        "unique_consecutive",
        lambda L, x, **kw: L.unique_consecutive(x, **kw),
        unique_sample,
        grad=False,
    ),
    _op(
        "repeat_interleave",
        lambda L, x, r, **kw: L.repeat_interleave(x, r, **kw),
        repeat_interleave_sample,
    ),
    _op("fliplr", lambda L, x: L.fliplr(x), unary),
    _op("flipud", lambda L, x: L.flipud(x), unary),
    _op("rot90", lambda L, x, k, **kw: L.rot90(x, k, **kw), rot90_sample),
    _op(
        "searchsorted",
        lambda L, s, v, **kw: L.searchsorted(s, v, **kw),
        searchsorted_sample,
        NUM,
        grad=False,
    ),
    _op(
        "bucketize",
        lambda L, v, b, **kw: L.bucketize(v, b, **kw),
        bucketize_sample,
        NUM,
        grad=False,
    ),
    _op(
        "scatter_reduce",
        lambda L, x, d, i, s, r, **kw: L.scatter_reduce(x, d, i, s, r, **kw),
        scatter_reduce_sample,
        NUM,
    ),
    _op(
        "index_add",
        lambda L, x, d, i, s: L.index_add(x, d, i, s, alpha=2),
        index_src_sample,
        inplace=lambda L, x, d, i, s: x.index_add_(d, i, s, alpha=2),
    ),
    _op("index_copy", lambda L, x, d, i, s: L.index_copy(x, d, i, s), index_src_sample),
    _op(
        "index_fill",
        lambda L, x, d, i, v: L.index_fill(x, d, i, v),
        index_fill_sample,
        inplace=lambda L, x, d, i, v: x.index_fill_(d, i, v),
    ),
    _op(
        "masked_scatter",
        lambda L, x, m, s: L.masked_scatter(x, m, s),
        masked_scatter_sample,
        inplace=lambda L, x, m, s: x.masked_scatter_(m, s),
    ),
    _op("masked_select", lambda L, x, m: L.masked_select(x, m), masked_select_sample),
    _op("take", lambda L, x, i: L.take(x, i), take_sample),
    _op(
        "take_along_dim", lambda L, x, i, **kw: L.take_along_dim(x, i, **kw), take_along_dim_sample
    ),
    _op("tensor_split", lambda L, x, a, **kw: L.tensor_split(x, a, **kw), tensor_split_sample),
    _op("meshgrid", lambda L, a, b, **kw: L.meshgrid(a, b, **kw), meshgrid_sample, FLOAT),
    _op(
        "cartesian_prod",
        lambda L, a, b: L.cartesian_prod(a, b),
        lambda g: (vec_pair(g, same=False), {}),
        FLOAT,
    ),
    _op("cdist", lambda L, a, b, **kw: L.cdist(a, b, **kw), cdist_sample, FLOAT),
    _op("diff", lambda L, x, **kw: L.diff(x, **kw), diff_sample),
    _op("kron", lambda L, a, b: L.kron(a, b), kron_sample, NUM),
    _op("trace", lambda L, x: L.trace(x), trace_sample, NUM),
    _op("tensordot", lambda L, a, b, **kw: L.tensordot(a, b, **kw), tensordot_sample, FLOAT),
    _op("cross", lambda L, a, b, **kw: L.cross(a, b, **kw), cross_sample, NUM),
    _op("norm", lambda L, x, **kw: L.norm(x, **kw), norm_sample, FLOAT),
    _op("median", lambda L, x, **kw: L.median(x, **kw), median_sample, NUM),
    _op("nanmedian", lambda L, x, **kw: L.nanmedian(x, **kw), median_sample, NUM),
    _op("mode", lambda L, x, **kw: L.mode(x, **kw), one_dim, NUM),
    _op("kthvalue", lambda L, x, k, **kw: L.kthvalue(x, k, **kw), kthvalue_sample, NUM),
    _op("quantile", lambda L, x, q, **kw: L.quantile(x, q, **kw), quantile_sample, FLOAT),
    _op("nanquantile", lambda L, x, q, **kw: L.nanquantile(x, q, **kw), quantile_sample, FLOAT),
    _op("histc", lambda L, x, **kw: L.histc(x, **kw), histc_sample, FLOAT, grad=False),
    _op("bincount", lambda L, x, **kw: L.bincount(x, **kw), bincount_sample, INT, grad=False),
    _op("aminmax", lambda L, x, **kw: L.aminmax(x, **kw), aminmax_sample, NUM),
    _op("diagonal", lambda L, x, **kw: L.diagonal(x, **kw), diagonal_sample),
    _op("swapaxes", lambda L, x, a, b: L.swapaxes(x, a, b), two_dims),
    _op("moveaxis", lambda L, x, a, b: L.moveaxis(x, a, b), two_dims),
    _op("true_divide", lambda L, a, b: L.true_divide(a, b), binary),
    _op("absolute", lambda L, x: L.absolute(x), unary),
    _op("negative", lambda L, x: L.negative(x), unary),
    _op("clip", lambda L, x: L.clip(x, -0.5, 0.5), unary, NUM),
    _op("matrix_power", lambda L, x, n: L.matrix_power(x, n), matrix_power_sample, FLOAT),
    _op("det", lambda L, x: L.det(x), lambda g: ([square_sample(g)], {}), FLOAT),
    _op("inverse", lambda L, x: L.inverse(x), lambda g: ([square_sample(g)], {}), FLOAT),
    _op(
        "linalg_slogdet",
        lambda L, x: L.linalg.slogdet(x),
        lambda g: ([square_sample(g)], {}),
        FLOAT,
    ),
    _op("linalg_solve", lambda L, a, b: L.linalg.solve(a, b), solve_sample, FLOAT),
    _op("linalg_cholesky", lambda L, a: L.linalg.cholesky(a), spd_sample, FLOAT),
    _op(
        "linalg_pinv",
        lambda L, a: L.linalg.pinv(a),
        lambda g: ([square_sample(g, special=0)], {}),
        FLOAT,
    ),
    _op(
        "linalg_svdvals",
        lambda L, a: L.linalg.svdvals(a),
        lambda g: ([square_sample(g, special=0)], {}),
        FLOAT,
    ),
    _op("linalg_eigvalsh", lambda L, a: L.linalg.eigvalsh(a), spd_sample, FLOAT),
    # svd and eigh through sign-invariant functions of their factors (each vector's sign is
    # LAPACK's choice): the gradient still flows through U, V and Q
    _op(
        "linalg_svd",
        lambda L, a: _svd_invariants(*L.linalg.svd(a, full_matrices=False)),
        lambda g: ([square_sample(g, special=0)], {}),
        FLOAT,
    ),
    _op(
        "linalg_eigh",
        lambda L, a: _eigh_invariants(*L.linalg.eigh((a + a.mT) / 2)),
        spd_sample,
        FLOAT,
    ),
    _op(
        "linalg_qr",
        lambda L, a: L.linalg.qr(a),
        lambda g: ([square_sample(g, special=0)], {}),
        FLOAT,
    ),
    _op(
        "linalg_lu",
        lambda L, a: tuple(L.linalg.lu(a)),
        rect_sample,
        FLOAT,
    ),
    _op(
        "linalg_lu_factor_ex",
        lambda L, a: tuple(L.linalg.lu_factor_ex(a)),
        lambda g: ([square_sample(g, special=0)], {}),
        FLOAT,
    ),
    _op(
        "linalg_lstsq",
        lambda L, a, b, **kw: L.linalg.lstsq(a, b, **kw),
        lstsq_sample,
        FLOAT,
    ),
    _op(
        "linalg_vecdot",
        lambda L, a, b, **kw: L.linalg.vecdot(a, b, **kw),
        lambda g: pair_dim(g),
        FLOAT,
    ),
    _op(
        "linalg_matrix_rank",
        lambda L, a, **kw: L.linalg.matrix_rank(a, **kw),
        lambda g: ([square_sample(g, special=0)], {"atol": g.pick((None, 0.5))}),
        FLOAT,
        grad=False,
    ),
    # the legacy/top-level and _ex forms (framework/ops/linalg_legacy.py, linalg_solvers.py,
    # linalg_lu_solve.py)
    _op(
        "svd_legacy",
        lambda L, a, **kw: _svd_invariants(*_tsvd(L.svd(a, **kw))),
        lambda g: ([square_sample(g, special=0)], {"some": g.chance(0.5)}),
        FLOAT,
    ),
    _op(
        "qr_legacy",
        lambda L, a: tuple(L.qr(a)),
        lambda g: ([square_sample(g, special=0)], {}),
        FLOAT,
    ),
    _op("cholesky_legacy", lambda L, a, **kw: L.cholesky(a, **kw), upper_sample, FLOAT),
    _op(
        "linalg_cholesky_ex",
        lambda L, a, **kw: tuple(L.linalg.cholesky_ex(a, **kw)),
        upper_sample,
        FLOAT,
    ),
    _op(
        "linalg_inv_ex",
        lambda L, a: tuple(L.linalg.inv_ex(a)),
        # no inf/NaN entries: LAPACK's getri and NumPy's inv spread them differently (README)
        lambda g: ([square_sample(g, special=0)], {}),
        FLOAT,
    ),
    _op(
        "lu_legacy",
        lambda L, a, **kw: tuple(L.lu(a, **kw)),
        lambda g: ([square_sample(g, special=0)], {"get_infos": g.chance(0.5)}),
        FLOAT,
    ),
    _op(
        "lu_unpack",
        lambda L, a: tuple(L.lu_unpack(*L.linalg.lu_factor_ex(a)[:2])),
        rect_sample,
        FLOAT,
    ),
    _op(
        "linalg_lu_solve",
        lambda L, a, b, **kw: L.linalg.lu_solve(*L.linalg.lu_factor_ex(a)[:2], b, **kw),
        lu_solve_sample,
        FLOAT,
    ),
    _op(
        "lu_solve_legacy",
        lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor_ex(a)[:2]),
        lambda g: (lu_solve_sample(g, left=True)[0], {}),
        FLOAT,
    ),
    _op(
        "linalg_solve_triangular",
        lambda L, a, b, **kw: L.linalg.solve_triangular(a, b, **kw),
        solve_triangular_sample,
        FLOAT,
    ),
    _op(
        "triangular_solve",
        lambda L, a, b, **kw: tuple(L.triangular_solve(b, a, **kw)),
        triangular_solve_sample,
        FLOAT,
    ),
    _op(
        "cholesky_solve",
        lambda L, a, b, **kw: L.cholesky_solve(b, a, **kw),
        cholesky_solve_sample,
        FLOAT,
    ),
    _op("cholesky_inverse", lambda L, a, **kw: L.cholesky_inverse(a, **kw), factor_sample, FLOAT),
    _op(
        "linalg_householder_product",
        lambda L, a, t: L.linalg.householder_product(a, t),
        householder_sample,
        FLOAT,
    ),
    _op(
        "linalg_cond",
        lambda L, a, **kw: L.linalg.cond(a, **kw),
        lambda g: ([square_sample(g, special=0)], {"p": g.pick((None, 2, -2, "nuc"))}),
        FLOAT,
    ),
    _op(
        "linalg_cond_norms",
        lambda L, a, **kw: L.linalg.cond(a, **kw),
        lambda g: ([square_sample(g, special=0)], {"p": g.pick((1, -1, float("inf"), "fro"))}),
        FLOAT,
        grad=False,  # torch modifies a saved inverse in place: backward raises (tested apart)
    ),
    _op(
        "linalg_vector_norm",
        lambda L, x, **kw: L.linalg.vector_norm(x, **kw),
        vector_norm_sample,
        FLOAT,
    ),
    _op(
        "linalg_matrix_norm",
        lambda L, x, **kw: L.linalg.matrix_norm(x, **kw),
        matrix_norm_sample,
        FLOAT,
    ),
]


# ----- torch.nn.functional -------------------------------------------------------------------
def prelu_sample(g):
    x = g.t(g.shape(min_ndim=0, max_ndim=3), dtype=_fl(g))
    c = x.a.shape[1] if x.a.ndim > 1 else 1
    return [x, g.t((g.pick((1, c)),), dtype=x.a.dtype.name)], {}


def glu_sample(g):
    x = g.t(g.shape(min_ndim=1), dtype=_fl(g))
    return [x], {"dim": g.dim(x.a.ndim)}


def pair_dim(g):
    dt = _fl(g)
    x = g.t(g.shape(min_ndim=1), dtype=dt)
    return [x, g.t(g.bshape(x.a.shape), dtype=dt)], {"dim": g.dim(x.a.ndim)}


def pairwise_sample(g):
    dt = _fl(g)
    x = g.t(g.shape(min_ndim=1, max_ndim=2), dtype=dt)
    return [x, g.t(g.bshape(x.a.shape), dtype=dt)], {
        "p": g.pick((2.0, 1.0, 3.0)),
        "keepdim": g.chance(0.3),
    }


def normalize_sample(g):
    x = g.t(g.shape(min_ndim=1), dtype=_fl(g))
    return [x], {"p": g.pick((2.0, 1.0, float("inf"))), "dim": g.dim(x.a.ndim)}


def image(g, nd, channels=(1, 2, 3), sizes=(1, 2, 3, 4)):
    return g.t(
        (g.pick((1, 2)), g.pick(channels)) + tuple(int(g.pick(sizes)) for _ in range(nd)),
        dtype=_fl(g),
    )


def interpolate_sample(g):
    mode, nd = g.pick(
        (
            ("nearest", 1),
            ("nearest", 2),
            ("nearest-exact", 2),
            ("linear", 1),
            ("bilinear", 2),
            ("bicubic", 2),
            ("trilinear", 3),
            ("area", 2),
        )
    )
    x = image(g, nd)
    kw = {"mode": mode}
    if g.chance(0.5):
        kw["size"] = tuple(int(g.pick((1, 2, 5))) for _ in range(nd))
    else:
        kw["scale_factor"] = g.pick((2, 0.5, 1.5, 3))
    if mode in ("linear", "bilinear", "bicubic", "trilinear") and g.chance(0.5):
        kw["align_corners"] = g.chance(0.5)
    return [x], kw


def grid_sample_sample(g):
    nd = int(g.pick((2, 2, 3)))  # 4-D input (every mode) or 5-D (bilinear = trilinear, nearest)
    x = image(g, nd)
    n = x.a.shape[0]
    shape = (n,) + tuple(int(g.pick((1, 2, 3))) for _ in range(nd)) + (nd,)
    grid = g.t(shape, dtype=x.a.dtype.name, special=0)
    grid.a = (grid.a * 0.7).astype(x.a.dtype)
    modes = ("bilinear", "nearest", "bicubic") if nd == 2 else ("bilinear", "nearest")
    return [x, grid], {
        "mode": g.pick(modes),
        "padding_mode": g.pick(("zeros", "border", "reflection")),
        "align_corners": g.chance(0.5),
    }


def affine_grid_sample(g):
    n = g.pick((1, 2))
    return [g.t((n, 2, 3), dtype=_fl(g)), (n, 1, g.pick((1, 2, 3)), g.pick((1, 2, 4)))], {
        "align_corners": g.chance(0.5)
    }


def pixel_shuffle_sample(g):
    r = int(g.pick((1, 2)))
    c = int(g.pick((1, 2))) * r * r
    return [
        g.t(
            (g.pick((1, 2)), c if g.chance(0.95) else c + 1, g.pick((1, 2)), g.pick((1, 3))),
            dtype=_fl(g),
        ),
        r,
    ], {}


def pixel_unshuffle_sample(g):
    r = int(g.pick((1, 2)))
    return [g.t((1, g.pick((1, 2)), r * g.pick((1, 2)), r * g.pick((1, 2))), dtype=_fl(g)), r], {}


def unfold_sample(g):
    x = image(g, 2, sizes=(2, 3, 4))
    return [x, int(g.pick((1, 2)))], {"padding": int(g.pick((0, 1))), "stride": int(g.pick((1, 2)))}


def fold_sample(g):
    c, k, n = g.pick((1, 2)), g.pick((1, 2)), g.pick((1, 2))
    out = (g.pick((2, 3)), g.pick((2, 3)))
    blocks = (out[0] - k + 1) * (out[1] - k + 1)
    return [g.t((n, c * k * k, blocks), dtype=_fl(g)), out, k], {}


def embedding_bag_sample(g):
    w = g.t((g.size() or 1, g.size()), dtype=_fl(g))
    idx = g.index((g.pick((1, 2)), g.pick((1, 2, 3))), w.a.shape[0], neg=False)
    kw = {"mode": g.pick(("mean", "sum", "max"))}
    if kw["mode"] != "max" and g.chance(0.5):
        kw["scale_grad_by_freq"] = True
    return [idx, w], kw


def sdpa_sample(g):
    dt = _fl(g)
    b, lq, lk, e = g.shape(max_ndim=2), g.size() or 1, g.size() or 1, g.pick((1, 2, 4))
    q, k, v = (
        g.t(b + (lq, e), dtype=dt),
        g.t(b + (lk, e), dtype=dt),
        g.t(b + (lk, g.pick((1, 3))), dtype=dt),
    )
    kw = {}
    u = g.r.random()
    if u < 0.3:
        kw["is_causal"] = True
    elif u < 0.5:
        kw["attn_mask"] = g.t((lq, lk), dtype="bool", rg=False)
    elif u < 0.7:
        kw["attn_mask"] = g.t((lq, lk), dtype=dt, rg=False)
    if g.chance(0.3):
        kw["scale"] = g.pick((0.5, 1.0))
    return [q, k, v], kw


def mha_sample(g):
    dt = _fl(g)
    h = int(g.pick((1, 2)))
    e = h * int(g.pick((1, 2)))
    lq, lk, n = g.pick((1, 2, 3)), g.pick((1, 3)), g.pick((1, 2))
    args = [
        g.t((lq, n, e), dtype=dt),
        g.t((lk, n, e), dtype=dt),
        g.t((lk, n, e), dtype=dt),
        e,
        h,
        g.t((3 * e, e), dtype=dt),
        g.t((3 * e,), dtype=dt),
        None,
        None,
        False,
        0.0,
        g.t((e, e), dtype=dt),
        g.t((e,), dtype=dt),
    ]
    kw = {"training": False, "need_weights": g.chance(0.5)}
    if g.chance(0.3):
        kw["attn_mask"] = g.t((lq, lk), dtype="bool", rg=False)
    if g.chance(0.3):
        kw["key_padding_mask"] = T(np.zeros((n, lk), dtype=bool))
    if kw["need_weights"]:
        kw["average_attn_weights"] = g.chance(0.5)
    return args, kw


def group_norm_sample(g):
    gr = int(g.pick((1, 2)))
    c = gr * int(g.pick((1, 2)))
    x = g.t((g.pick((1, 2)), c if g.chance(0.95) else c + 1) + g.shape(max_ndim=2), dtype=_fl(g))
    wb = [g.t((c,), dtype=x.a.dtype.name) for _ in range(2)] if g.chance(0.6) else []
    return [x, gr] + wb, {}


def instance_norm_sample(g):
    x = image(g, int(g.pick((1, 2))), sizes=(1, 2, 3))
    c = x.a.shape[1]
    kw = {}
    if g.chance(0.5):
        kw["weight"], kw["bias"] = (g.t((c,), dtype=x.a.dtype.name) for _ in range(2))
    return [x], kw


def rms_norm_sample(g):
    x = g.t(g.shape(min_ndim=1), dtype=_fl(g))
    k = int(g.r.integers(1, x.a.ndim + 1))
    shape = x.a.shape[-k:]
    wb = [g.t(shape, dtype=x.a.dtype.name)] if g.chance(0.6) else []
    return [x, shape] + wb, {"eps": g.pick((None, 1e-5))}


def lrn_sample(g):
    return [image(g, int(g.pick((1, 2))), channels=(1, 2, 4)), int(g.pick((1, 2, 3)))], {}


def conv3d_sample(g, transposed=False):
    dt = _fl(g)
    n, cin, cout = 1, g.pick((1, 2)), g.pick((1, 2))
    k = tuple(int(g.pick((1, 2))) for _ in range(3))
    w = (cin, cout) + k if transposed else (cout, cin) + k
    args = [
        g.t((n, cin) + tuple(int(g.pick((2, 3))) for _ in range(3)), dtype=dt),
        g.t(w, dtype=dt),
    ]
    if g.chance(0.5):
        args.append(g.t((cout,), dtype=dt))
    return args, {"stride": int(g.pick((1, 2))), "padding": int(g.pick((0, 1)))}


def lp_pool_sample(g, nd):
    (x, k), kw = pool_sample(g, nd)
    return [x, g.pick((1.0, 2.0, 3.0)), k], {"stride": kw["stride"]}


def unpool_sample(g):
    (x, k), kw = pool_sample(g, 2)
    return [x, k], {"stride": kw["stride"]}


def max_unpool2d(L, x, k, **kw):
    y, i = F(L).max_pool2d(x, k, return_indices=True, **kw)
    return F(L).max_unpool2d(y, i, k, **kw)


def unpool_nd(nd):
    def sample(g):
        (x, k), kw = pool_sample(g, nd)
        return [x, k], {"stride": kw["stride"]}

    return sample


def max_unpool(nd):
    def fn(L, x, k, **kw):
        y, i = getattr(F(L), f"max_pool{nd}d")(x, k, return_indices=True, **kw)
        return getattr(F(L), f"max_unpool{nd}d")(y, i, k, **kw)

    return fn


def pdist_sample(g):
    # no (0, M) matrix: torch's backward of that crashes the process (ours returns zeros)
    x = g.t((g.size() or 1, g.size()) if g.chance(0.95) else g.shape(max_ndim=1), dtype=_fl(g))
    if x.a.ndim == 2 and x.a.shape[0] > 2 and g.chance(0.3):
        x.a[1] = x.a[0]  # equal rows: torch's zero-distance gradient conventions
    return [x], {"p": g.pick((2.0, 1.0, 0.0, 0.5, 1.5, 3.0, float("inf")))}


def loss2(g, target_fn=None, rg_target=0.3):
    dt = _fl(g)
    x = g.t(g.shape(), dtype=dt)
    y = g.t(
        x.a.shape if g.chance(0.9) else g.bshape(x.a.shape),
        dtype=dt if g.chance(0.9) else None,
        rg=g.chance(rg_target),
    )
    if target_fn is not None and y.a.dtype.kind == "f":
        y.a = target_fn(g, y.a).astype(y.a.dtype)
    return [x, y], {"reduction": g.pick(("mean", "sum", "none"))}


def _pm1(g, a):
    return g.r.choice([-1.0, 1.0], size=a.shape)


def kl_div_sample(g):
    args, kw = loss2(g)
    kw["log_target"] = g.chance(0.3)
    kw["reduction"] = g.pick(("mean", "sum", "none", "batchmean"))
    return args, kw


def multilabel_soft_sample(g):
    dt = _fl(g)
    n, c = g.size(), g.pick((1, 2, 3))
    x = g.t((n, c), dtype=dt)
    y = T((g.r.random((n, c)) < 0.5).astype(dt))
    kw = {"reduction": g.pick(("mean", "sum", "none"))}
    if g.chance(0.3):
        kw["weight"] = g.t((c,), dtype=dt, rg=False)
    return [x, y], kw


def multilabel_margin_sample(g):
    n, c = g.size(), g.pick((1, 2, 3))
    y = g.r.integers(-1, c, size=(n, c)).astype("int64")
    return [g.t((n, c), dtype=_fl(g)), T(y)], {"reduction": g.pick(("mean", "sum", "none"))}


def multi_margin_sample(g):
    dt = _fl(g)
    n, c = g.size(), g.pick((1, 2, 3))
    kw = {
        "p": g.pick((1, 2)),
        "margin": g.pick((1.0, 0.5)),
        "reduction": g.pick(("mean", "sum", "none")),
    }
    if g.chance(0.3):
        kw["weight"] = g.t((c,), dtype=dt, rg=False)
    return [g.t((n, c), dtype=dt), g.index((n,), c, neg=False)], kw


def cosine_embedding_sample(g):
    dt = _fl(g)
    n, d = g.size(), g.size()
    return [g.t((n, d), dtype=dt), g.t((n, d), dtype=dt), T(_pm1(g, np.zeros(n)).astype(dt))], {
        "margin": g.pick((0.0, 0.5)),
        "reduction": g.pick(("mean", "sum", "none")),
    }


def margin_ranking_sample(g):
    (x, y), kw = loss2(g)
    t = T(_pm1(g, x.a).astype(x.a.dtype))
    return [x, y, t], dict(kw, margin=g.pick((0.0, 0.5)))


def triplet_sample(g):
    dt = _fl(g)
    shape = (g.size(), g.size()) if g.chance(0.8) else (g.size(),)
    return [g.t(shape, dtype=dt) for _ in range(3)], {
        "margin": g.pick((1.0, 0.0)),
        "p": g.pick((2, 1)),
        "swap": g.chance(0.3),
        "reduction": g.pick(("mean", "sum", "none")),
    }


def poisson_sample(g):
    args, kw = loss2(g, lambda g, a: abs(a).round())
    kw.update(log_input=g.chance(0.6), full=g.chance(0.3))
    return args, kw


def gaussian_sample(g):
    (x, y), kw = loss2(g)
    var = g.t(
        x.a.shape if g.chance(0.8) else x.a.shape[:-1] + (1,) if x.a.ndim else (),
        dtype=x.a.dtype.name,
    )
    if var.a.dtype.kind == "f":
        var.a = abs(var.a) + g.pick((0.1, 0.0))
    return [x, y, var], dict(kw, full=g.chance(0.3))


def ctc_sample(g):
    """Padded (N, S) or concatenated 1-D targets, lengths as tensors or tuples, a blank other
    than 0, input lengths below T, unbatched (T, C) input."""
    t, n, c, s = g.pick((3, 4, 6)), g.pick((1, 2)), g.pick((2, 3, 4)), g.pick((1, 2, 3))
    unbatched = g.chance(0.15)
    n = 1 if unbatched else n
    lp = g.t((t, c) if unbatched else (t, n, c), dtype=_fl(g), special=0)
    lp.a = (lp.a - np.log(np.exp(lp.a).sum(-1, keepdims=True))).astype(lp.a.dtype)
    blank = int(g.pick((0, 0, c - 1)))
    labels = [k for k in range(c) if k != blank]
    tl = g.r.integers(0, s + 1, size=(n,)).astype("int64")
    il = np.where(g.r.random(n) < 0.3, g.r.integers(1, t + 1, size=n), t).astype("int64")
    if unbatched:  # 1-D targets are read as concatenated: exactly target_length labels
        targets = T(g.r.choice(labels, size=(int(tl[0]),)).astype("int64"))
    elif g.chance(0.3):  # concatenated targets
        targets = T(g.r.choice(labels, size=(int(tl.sum()),)).astype("int64"))
    else:
        targets = T(g.r.choice(labels, size=(n, s)).astype("int64"))
    if unbatched:
        il, tl = il[0], tl[0]
    if g.chance(0.3) and not unbatched:
        il, tl = tuple(int(v) for v in il), tuple(int(v) for v in tl)
    else:
        il, tl = T(np.asarray(il)), T(np.asarray(tl))
    return [lp, targets, il, tl], {
        "blank": blank,
        "reduction": g.pick(("mean", "sum", "none")),
        "zero_infinity": g.chance(0.3),
    }


def bilinear_sample(g):
    dt = _fl(g)
    b, i1, i2, o = g.shape(max_ndim=1), g.size(), g.size(), g.size()
    args = [g.t(b + (i1,), dtype=dt), g.t(b + (i2,), dtype=dt), g.t((o, i1, i2), dtype=dt)]
    return args + ([g.t((o,), dtype=dt)] if g.chance(0.6) else []), {}


def softmin_sample(g):
    x = g.t(dtype=_fl(g))
    return [x], {"dim": g.dim(x.a.ndim)}


def _f(name, sample, dtypes=FLOAT, **kw):
    return OpInfo(name, lambda L, *a, **k: getattr(F(L), name)(*a, **k), sample, dtypes, **kw)


FUNCTIONAL_OPS = [
    _f("prelu", prelu_sample),
    _f("glu", glu_sample),
    _op("threshold", lambda L, x: F(L).threshold(x, 0.5, -2.0), unary, NUM),
    _f("normalize", normalize_sample),
    _f("cosine_similarity", pair_dim),
    _f("pairwise_distance", pairwise_sample),
    _f("interpolate", interpolate_sample),
    _f("grid_sample", grid_sample_sample),
    _f("affine_grid", affine_grid_sample),
    _f("pixel_shuffle", pixel_shuffle_sample),
    _f("pixel_unshuffle", pixel_unshuffle_sample),
    _f("unfold", unfold_sample),
    _f("fold", fold_sample),
    _f("embedding_bag", embedding_bag_sample),
    _f("scaled_dot_product_attention", sdpa_sample),
    _f("multi_head_attention_forward", mha_sample),
    _f("group_norm", group_norm_sample),
    _f("instance_norm", instance_norm_sample),
    _f("rms_norm", rms_norm_sample),
    _f("local_response_norm", lrn_sample),
    _f("max_pool3d", lambda g: pool_sample(g, 3)),
    _f("avg_pool3d", lambda g: pool_sample(g, 3)),
    _f("adaptive_max_pool1d", lambda g: pool_sample(g, 1, True)),
    _f("adaptive_max_pool2d", lambda g: pool_sample(g, 2, True)),
    _f("adaptive_avg_pool3d", lambda g: pool_sample(g, 3, True)),
    _f("lp_pool1d", lambda g: lp_pool_sample(g, 1)),
    _f("lp_pool2d", lambda g: lp_pool_sample(g, 2)),
    _op("max_unpool2d", max_unpool2d, unpool_sample, FLOAT),
    _op("max_unpool1d", max_unpool(1), unpool_nd(1), FLOAT),
    _op("max_unpool3d", max_unpool(3), unpool_nd(3), FLOAT),
    _f("adaptive_max_pool3d", lambda g: pool_sample(g, 3, True)),
    _f("pdist", pdist_sample),
    _f("conv3d", conv3d_sample),
    _f("conv_transpose3d", lambda g: conv3d_sample(g, True)),
    _f("kl_div", kl_div_sample),
    _f("soft_margin_loss", lambda g: loss2(g, _pm1)),
    _f("multilabel_soft_margin_loss", multilabel_soft_sample),
    _f("multilabel_margin_loss", multilabel_margin_sample),
    _f("multi_margin_loss", multi_margin_sample),
    _f("hinge_embedding_loss", lambda g: loss2(g, _pm1)),
    _f("cosine_embedding_loss", cosine_embedding_sample),
    _f("margin_ranking_loss", margin_ranking_sample),
    _f("triplet_margin_loss", triplet_sample),
    _f("poisson_nll_loss", poisson_sample),
    _f("gaussian_nll_loss", gaussian_sample),
    _f("ctc_loss", ctc_sample),
    _f("bilinear", bilinear_sample),
    _f("softmin", softmin_sample),
    _op("rrelu_eval", lambda L, x: F(L).rrelu(x), unary, FLOAT, chain=True),
]

WAVE2 = TENSOR_OPS + FUNCTIONAL_OPS
