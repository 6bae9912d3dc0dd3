"""torch.histogram and torch.histogramdd: counts (or summed weights) of values in bins.

Bin edges are torch's: linspace(min, max, bins + 1) in the input's dtype (an empty range
widened by 0.5 each side, an empty input read as [0, 1]); a value belongs to the bin whose
edges enclose it (the last bin also takes the right edge), found by binary search on those
edges as torch's kernel ends up doing. No gradient (torch defines none).
"""

from .._errors import not_implemented, refuse
from ..dtypes import cpp_type_name
from ..autograd.op import per_sample_under_vmap
from ..tensor import Tensor
from .extrema import _return_type

__all__ = ["histogram", "histogramdd"]

_Hist = _return_type("histogram", ("hist", "bin_edges"))
_HistDD = _return_type("histogramdd", ("hist", "bin_edges"))


def _outer_edges(data, n, rng, half=None):
    """torch's select_outer_bin_edges: per dimension (leftmost, rightmost)."""
    if rng is not None:
        rng = [float(v) for v in rng]
        if len(rng) != 2 * n:
            raise RuntimeError(
                f"torch.histogramdd: for a {n}-dimensional histogram range should have "
                f"{2 * n} elements, but got {len(rng)}"
            )
        pairs = [(rng[2 * d], rng[2 * d + 1]) for d in range(n)]
    elif data.shape[0]:
        if half:  # torch's min/max of the data has no half kernel
            refuse(half, half.kind, "histogramdd")
        pairs = [(float(data[:, d].min()), float(data[:, d].max())) for d in range(n)]
    else:
        pairs = [(0.0, 1.0)] * n
    out = []
    for d, (lo, hi) in enumerate(pairs):
        if lo != lo or hi != hi or abs(lo) == float("inf") or abs(hi) == float("inf"):
            raise RuntimeError(
                f"torch.histogramdd: dimension {d}'s range [{lo:g}, {hi:g}] is not finite"
            )
        if lo > hi:
            raise RuntimeError(
                "torch.histogramdd: min should not exceed max, but got min "
                f"{lo:g} max {hi:g} for dimension {d}"
            )
        out.append((lo - 0.5, hi + 0.5) if lo == hi else (lo, hi))
    return out


def _collapsed_bin():
    """Where torch's linear kernel (int bins, edges from linspace) puts a value when all the
    edges rounded to that one value (|x| so large that x -+ 0.5 == x, or a range narrower
    than an ulp): HistogramKernel.cpp's pos = (x - left) * bins / (right - left) is 0 / 0 =
    NaN, cast to int64 as x86 does (INT64_MIN); its local search then binary-searches edges
    [max(0, pos - 1), min(pos + 2, n)), whose wrapped pointers are edges - 1 and edges + 2: the
    search reads edges[0] and edges[1], both equal to x, and ends at edges + 2: bin 1 (bin 0
    with a single bin, whose right edge rule takes it back). Bin edges given as a tensor go
    through its plain binary search: the last bin."""
    return 1


def _check_kernel_dtype(input, bins, data_range):
    """torch's refusals in its order: a bins tensor of another dtype than the input; for an
    integer/bool input, the data's range ("histogramdd"), the edges' linspace (bool), then
    the counting kernel ("histogram_cpu")."""
    dt = input._data.dtype
    for d, b in enumerate(bins):
        if isinstance(b, Tensor) and b._data.dtype != dt:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {cpp_type_name(dt)} and bins for dimension {d} "
                f"with dtype {cpp_type_name(b._data.dtype)}"
            )
    if dt.kind not in "biu":
        return
    if not all(isinstance(b, Tensor) for b in bins):
        if data_range:
            raise not_implemented("histogramdd", dt)
        refuse(dt, "b", "linspace_cpu")
    raise not_implemented("histogram_cpu", dt)


def _bin(fname, input, bins, rng, weight, density):
    from ..creation import linspace

    xp = input.xp
    n = input.shape[-1] if input.dim() else 1
    out_dt = input._data.dtype
    data = input._data.reshape(-1, n)
    if isinstance(bins, int):
        bins = [bins] * n
    _check_kernel_dtype(input, bins, rng is None and data.shape[0])
    if data.dtype.itemsize < 4:  # compared and summed exactly in float32
        data = data.astype(xp.float32)
    edges = []
    outer = None
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(b)
            continue
        if b <= 0:
            raise RuntimeError(f"{fname}(): bins must be > 0, but got {b} for dimension {d}")
        if outer is None:
            half = out_dt if out_dt.itemsize < 4 else None
            outer = _outer_edges(data, n, rng, half)
        lo, hi = outer[d]
        edges.append(linspace(lo, hi, b + 1, dtype=input.dtype, device=input.device))
    shape = tuple(e.shape[0] - 1 for e in edges)
    w = None if weight is None else weight._data.reshape(-1)
    keep = xp.ones(data.shape[0], dtype=bool)
    flat = xp.zeros(data.shape[0], dtype="int64")
    for d, e in enumerate(edges):
        ed, v = e._data.astype(data.dtype), data[:, d]
        keep &= (v >= ed[0]) & (v <= ed[-1])
        pos = xp.searchsorted(ed, v, side="right") - 1
        pos = xp.clip(xp.where(v == ed[-1], len(ed) - 2, pos), 0, max(len(ed) - 2, 0))
        if not isinstance(bins[d], Tensor) and len(ed) > 2 and ed[0] == ed[-1]:
            pos = xp.full_like(pos, _collapsed_bin())  # all edges one value (see there)
        flat = flat * shape[d] + pos
    hist = xp.zeros(int(xp.prod(xp.asarray(shape))) if shape else 1, dtype=data.dtype)
    vals = xp.ones(int(keep.sum()), dtype=data.dtype) if w is None else w[keep].astype(data.dtype)
    xp.add.at(hist, flat[keep], vals)
    hist = hist.reshape(shape)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            view = [1] * len(shape)
            view[d] = shape[d]
            hist = hist / xp.diff(e._data).reshape(view)
    return Tensor._make(hist.astype(out_dt), input.device), edges


@per_sample_under_vmap
def _histogram_pair(input, bins, range, weight, density):
    hist, edges = _bin("torch.histogram", input.reshape(-1, 1), [bins], range, weight, density)
    return hist, edges[0]


@per_sample_under_vmap
def _histogramdd_pair(input, bins, range, weight, density):
    hist, edges = _bin("torch.histogramdd", input, bins, range, weight, density)
    return (hist, *edges)


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """Histogram of input's values: `bins` equal bins over range (default: min to max), or
    the given 1-D tensor of bin edges.

    Args:
        input: a floating tensor (flattened).
        bins: the number of bins, or a 1-D tensor of increasing edges.
        range: (min, max) of the bins (default: input's).
        weight: a tensor of input's shape: sum these instead of counting.
        density: normalise to a probability density.

    Returns:
        (hist, bin_edges).

    Example:
        >>> framework.histogram(framework.tensor([1.0, 2.0, 1.0, 4.0]), bins=3).hist
        tensor([2., 1., 1.])
    """
    return _Hist(*_histogram_pair(input, bins, range, weight, density))


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """Multi-dimensional histogram of the points in input's rows (last dim: coordinates).

    Args:
        input: (..., D) floating tensor of points.
        bins: an int for every dimension, a sequence of D ints, or of D edge tensors.
        range: (min0, max0, min1, max1, ...) (default: the data's).
        weight: per-point weights (input.shape[:-1]).
        density: normalise to a probability density.

    Returns:
        (hist, bin_edges): hist of shape bins, a tuple of D edge tensors.

    Example:
        >>> framework.histogramdd(framework.tensor([[0.0, 1.0], [1.0, 0.0]]), bins=2).hist
        tensor([[0., 1.],
                [1., 0.]])
    """
    if not isinstance(bins, int):
        bins = list(bins)
    hist, *edges = _histogramdd_pair(input, bins, range, weight, density)
    return _HistDD(hist, tuple(edges))
