"""The order of tied elements in sort/argsort/topk/kthvalue/median/nanmedian/quantile against
torch's CPU kernels (std::sort, partial_sort, nth_element, TH's quick select), bit for bit:
indices, values (zero signs included) and gradients through the picked indices, over random
tie-heavy inputs (small integers, NaN, zeros of both signs), sizes around the algorithms'
thresholds (16 and 17 elements, k * 64 against n), every dim, both directions; with the
compiled replay and with the Python one (``_fused.disabled()``)."""

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused

RNG = np.random.default_rng(20261124)
FLOATS = ("float32", "float64", "float16", "bfloat16")
INTS = ("int64", "int32", "int16", "uint8")
SIZES = (2, 3, 4, 16, 17, 18, 33, 64, 65, 100, 129, 300)


def _tdt(name):
    return getattr(torch, name)


def _data(shape, dtype, flavour):
    """Tie-heavy values of `shape`: small integers; flavour 'nan' turns some into NaN, 'zeros'
    makes zeros of both signs, 'few' draws from two values only."""
    hi = 2 if flavour == "few" else 4
    a = RNG.integers(0, hi, shape).astype(np.float64)
    if dtype in FLOATS:
        if flavour == "nan":
            a[a == 3] = np.nan
        elif flavour == "zeros":
            a[a == 2] = -0.0
            a[a == 1] = 0.0
    if dtype == "bool":
        a = a > 1
    return a


def _pair(a, dtype):
    """(torch tensor, framework tensor) of a in dtype."""
    t = torch.tensor(a).to(_tdt(dtype))
    f = framework.tensor(a).to(getattr(framework, dtype))
    return t, f


def _same(f, t):
    """f (framework) equals t (torch) bit for bit: shape, dtype, values, NaN, zero signs."""
    assert tuple(f.shape) == tuple(t.shape)
    assert str(f.dtype) == str(t.dtype)
    fa = np.asarray(f.detach().float().numpy() if f.dtype.is_floating_point else f.numpy())
    ta = t.detach().float().numpy() if t.dtype.is_floating_point else t.numpy()
    np.testing.assert_array_equal(fa, ta)
    if fa.dtype.kind == "f":  # zero signs (a NaN's sign is no order's doing)
        np.testing.assert_array_equal(np.signbit(fa) & (fa == fa), np.signbit(ta) & (ta == ta))


def _cases(dtypes, flavours=("ints", "nan", "zeros", "few")):
    out = []
    for dtype in dtypes:
        for flavour in flavours:
            if flavour in ("nan", "zeros") and dtype not in FLOATS:
                continue
            out.append((dtype, flavour))
    return out


@pytest.mark.parametrize("dtype,flavour", _cases(FLOATS + INTS + ("bool",)))
def test_sort_and_argsort(dtype, flavour):
    for n in SIZES:
        for shape in ((n,), (3, n), (n, 2)):
            t, f = _pair(_data(shape, dtype, flavour), dtype)
            for dim in range(len(shape)):
                for desc in (False, True):
                    for stable in (None, False, True):
                        kw = {} if stable is None else {"stable": stable}
                        tr = torch.sort(t, dim=dim, descending=desc, **kw)
                        fr = framework.sort(f, dim=dim, descending=desc, **kw)
                        _same(fr.indices, tr.indices)
                        _same(fr.values, tr.values)
                    ta = torch.argsort(t, dim=dim, descending=desc)
                    _same(framework.argsort(f, dim=dim, descending=desc), ta)


def test_torch_examples():
    """The cases of issue 9: topk and sort of tie-heavy vectors."""
    t = [1.0, 2.0, 2.0, 3.0, 2.0, 1.0, 3.0, 3.0, 0.0]
    assert framework.tensor(t).topk(4).indices.tolist() == [6, 3, 7, 1]
    assert framework.ones(1, 38).topk(5).indices.tolist() == [[27, 25, 26, 24, 28]]
    s = [2.0, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2]
    expect = [1, 19, 18, 17, 16, 15, 14, 13, 12, 11, 9, 8, 7, 10, 5, 3]
    expect += [26, 25, 24, 23, 22, 21, 20, 0, 2, 4, 6]
    assert framework.tensor(s).sort().indices.tolist() == expect
    assert torch.tensor(s).sort().indices.tolist() == expect


def test_sort_special_paths():
    """torch skips the sort of a stride-0 dim; fbgemm's radix sort of 1-D integers from
    32,768 elements (ascending) is stable; 2-D or descending ones take std::sort."""
    t, f = torch.ones(1).expand(40), framework.ones(1).expand(40)
    _same(f.sort().indices, t.sort().indices)
    for n in (32767, 32768, 40000):
        a = RNG.integers(0, 3, n)
        t, f = _pair(a, "int64")
        _same(f.sort().indices, t.sort().indices)
        _same(f.sort(descending=True).indices, t.sort(descending=True).indices)
        _same(f[None].sort().indices, t[None].sort().indices)


def _topk_sizes():
    """(n, k) around partial_sort's k * 64 <= n and the partition's k < n / 2."""
    out = set()
    for n in (1, 2, 3, 4, 5, 17, 63, 64, 65, 127, 128, 129, 200, 300):
        for k in (1, 2, 3, n // 64, n // 64 + 1, n // 2, n // 2 + 1, n - 1, n):
            if 1 <= k <= n:
                out.add((n, k))
    return sorted(out)


@pytest.mark.parametrize("dtype,flavour", _cases(FLOATS + INTS))
def test_topk(dtype, flavour):
    for n, k in _topk_sizes():
        for shape in ((n,), (2, n), (n, 2)):
            t, f = _pair(_data(shape, dtype, flavour), dtype)
            for dim in range(len(shape)):
                if shape[dim] != n:
                    continue
                for largest in (True, False):
                    for srt in (True, False):
                        tr = torch.topk(t, k, dim, largest, srt)
                        fr = framework.topk(f, k, dim, largest, srt)
                        _same(fr.indices, tr.indices)
                        _same(fr.values, tr.values)


def test_topk_zero_k():
    t, f = _pair(_data((3, 20), "float32", "ints"), "float32")
    _same(framework.topk(f, 0).indices, torch.topk(t, 0).indices)


@pytest.mark.parametrize("dtype,flavour", _cases(("float32", "float64") + INTS))
def test_kthvalue(dtype, flavour):
    for n in (1, 2, 3, 4, 5, 17, 33, 100):
        for shape in ((n,), (3, n), (n, 3)):
            t, f = _pair(_data(shape, dtype, flavour), dtype)
            for dim in range(len(shape)):
                size = shape[dim]
                for k in sorted(k for k in {1, 2, (size + 1) // 2, size - 1, size} if k >= 1):
                    if k > size:
                        continue
                    for keepdim in (False, True):
                        tr = torch.kthvalue(t, k, dim, keepdim)
                        fr = framework.kthvalue(f, k, dim, keepdim)
                        _same(fr.indices, tr.indices)
                        _same(fr.values, tr.values)


@pytest.mark.parametrize("dtype,flavour", _cases(("float32", "float64") + INTS))
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_dim(name, dtype, flavour):
    for n in (1, 2, 3, 4, 5, 17, 33, 100):
        for shape in ((n,), (4, n), (n, 4)):
            a = _data(shape, dtype, flavour)
            if flavour == "nan":  # all-NaN slices too
                a[..., 0] = np.nan
                a[0] = np.nan
            t, f = _pair(a, dtype)
            for dim in range(len(shape)):
                tr = getattr(torch, name)(t, dim)
                fr = getattr(framework, name)(f, dim)
                _same(fr.indices, tr.indices)
                _same(fr.values, tr.values)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_all_zero_sign(name):
    """Which zero nth_element leaves at the median's place where zeros of both signs tie."""
    for n in (1, 2, 3, 4, 5, 17, 33, 100):
        for trial in range(10):
            pool = [-0.0, 0.0, 1.0, -1.0] + ([np.nan] if trial % 2 else [])
            a = RNG.choice(pool, n)
            shapes = [(n,)] + ([(2, n // 2)] if n % 2 == 0 else [])
            for shape in shapes:
                t, f = torch.tensor(a).reshape(shape), framework.tensor(a).reshape(shape)
                _same(getattr(framework, name)(f), getattr(torch, name)(t))
                _same(getattr(framework, name)(f.t()), getattr(torch, name)(t.t()))


def _grad_pair(fn_t, fn_f, a):
    """Gradients of fn through a random upstream gradient, torch's and ours."""
    t = torch.tensor(a, requires_grad=True)
    f = framework.tensor(a, requires_grad=True)
    yt, yf = fn_t(t), fn_f(f)
    g = RNG.standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(g))
    yf.backward(framework.tensor(g))
    return f.grad, t.grad


GRAD_CASES = [
    ("sort", lambda m, x: m.sort(x, dim=-1).values),
    ("sort_desc", lambda m, x: m.sort(x, dim=0, descending=True).values),
    ("topk", lambda m, x: m.topk(x, 3, dim=-1).values),
    ("topk_unsorted", lambda m, x: m.topk(x, 7, dim=-1, sorted=False).values),
    ("kthvalue", lambda m, x: m.kthvalue(x, 5, dim=-1).values),
    ("kthvalue0", lambda m, x: m.kthvalue(x, 2, dim=0).values),
    ("median", lambda m, x: m.median(x, dim=-1).values),
    ("nanmedian", lambda m, x: m.nanmedian(x, dim=0).values),
    ("quantile", lambda m, x: m.quantile(x, 0.3, dim=-1)),
    ("quantile_all", lambda m, x: m.quantile(x, m.tensor([0.1, 0.5, 0.8], dtype=x.dtype))),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.7, dim=0)),
]


@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
@pytest.mark.parametrize("flavour", ["ints", "nan", "few"])
def test_gradients_follow_the_picked_ties(name, fn, flavour):
    if flavour == "nan" and name in ("median", "kthvalue", "kthvalue0", "quantile_all"):
        flavour = "zeros"  # NaN's gradient there is one NaN element's: covered by indices
    for shape in ((5, 40), (24, 8), (3, 100)):
        a = _data(shape, "float64", flavour)
        fg, tg = _grad_pair(lambda x: fn(torch, x), lambda x: fn(framework, x), a)
        np.testing.assert_array_equal(fg.numpy(), tg.numpy())


def test_python_replay_matches_compiled():
    """Without numba (FRAMEWORK_NUMBA=0 or _fused.disabled()) the Python steps give the same
    orders (torch's)."""
    with _fused.disabled():
        for n in (17, 65, 130):
            t, f = _pair(_data((3, n), "float32", "nan"), "float32")
            _same(f.sort().indices, t.sort().indices)
            _same(f.sort(descending=True).indices, t.sort(descending=True).indices)
            for k in (1, 2, n // 2, n):
                _same(f.topk(k).indices, t.topk(k).indices)
                _same(f.topk(k, sorted=False).indices, t.topk(k, sorted=False).indices)
                _same(f.kthvalue(k).indices, t.kthvalue(k).indices)
            a = _data((3, n), "float32", "zeros")
            a[0] = np.nan
            t, f = _pair(a, "float32")
            _same(f.nanmedian(-1).indices, t.nanmedian(-1).indices)
            _same(f.sort().indices, t.sort().indices)


def test_mode_and_unique_dim_unchanged():
    """mode() and unique(dim=...) share the replay: still torch's."""
    for n in (5, 17, 40):
        a = _data((3, n), "float32", "nan")
        t, f = _pair(a, "float32")
        _same(f.mode(-1).indices, t.mode(-1).indices)
        _same(f.mode(-1).values, t.mode(-1).values)
        rows = _data((n, 2), "float32", "nan")
        t, f = _pair(rows, "float32")
        _same(framework.unique(f, dim=0), torch.unique(t, dim=0))


def _steps(less=None):
    """_stdsort's Python steps as a namespace, with `less` (a comparator on element ids) in
    place of the key comparison where given, and a count of the depth-limit fallbacks."""
    from types import FunctionType, SimpleNamespace

    from framework.ops import _stdsort

    g = dict(vars(_stdsort))
    for name in _stdsort._NAMES:
        g[name] = g["_" + name] = FunctionType(getattr(_stdsort, name).__code__, g, name)
    calls = {"heap": 0}
    partial_sort, heap_select = g["_partial_sort"], g["_heap_select"]

    def counted_partial(*a):
        calls["heap"] += 1
        return partial_sort(*a)

    def counted_select(*a):
        calls["heap"] += 1
        return heap_select(*a)

    g["_partial_sort"], g["_heap_select"] = counted_partial, counted_select
    if less is not None:
        g["_less"] = less
    return SimpleNamespace(calls=calls, stack=np.empty(_stdsort.STACK, np.int64), **g)


def _killer(n, run):
    """McIlroy's adversary ("A killer adversary for quicksort", 1999): values fixed lazily as
    the algorithm compares them, so that median-of-three quicksort degrades and introsort's
    depth limit hands over to its heap fallback. `run(steps, v)` runs the algorithm."""
    gas, val, state = n, [n] * n, {"solid": 0, "candidate": 0}

    def less(keys, m, x, y, mode):
        if val[x] == gas and val[y] == gas:
            val[x if x == state["candidate"] else y] = state["solid"]
            state["solid"] += 1
        if val[x] == gas:
            state["candidate"] = x
        elif val[y] == gas:
            state["candidate"] = y
        return val[x] < val[y]

    run(_steps(less), list(range(n)))
    return np.array(val, dtype=np.float64)


def test_depth_limit_fallbacks():
    """Inputs that drive std::sort and std::nth_element to their heap fallbacks (checked by
    counting them in the replay), with ties (values halved): torch's orders still."""
    sort = lambda s, v: s.std_sort(v, 0, len(v), None, 1, 3, s.stack)
    nth = lambda s, v: s.nth_element(v, 0, len(v) // 2, len(v), None, 1, 3)
    for n in (200, 1000):
        for run, check in ((sort, "sort"), (nth, "topk")):
            a = _killer(n, run) // 2
            steps, keys = _steps(), a.tolist()  # ascending (mode ASC) on the tied input
            if check == "sort":
                steps.std_sort(list(range(n)), 0, n, keys, 1, 1, steps.stack)
            else:
                steps.nth_element(list(range(n)), 0, n // 2, n, keys, 1, 1)
            assert steps.calls["heap"] >= 1  # the fallback ran
            t, f = (
                torch.tensor(a, dtype=torch.float32),
                framework.tensor(a, dtype=framework.float32),
            )
            if check == "sort":
                _same(f.sort().indices, t.sort().indices)
            else:
                k = n // 2 + 1  # nth_element at k - 1 = n // 2, ascending
                for srt in (True, False):
                    _same(
                        f.topk(k, largest=False, sorted=srt).indices,
                        t.topk(k, largest=False, sorted=srt).indices,
                    )


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_unique_numbers_nans_and_signs_zero_as_its_sort(dtype):
    """unique() keeps every NaN (numbered in std::sort's order of them) and one zero (the
    first in that order): torch's, beyond insertion sort's 16 elements too."""
    for n in (3, 16, 17, 30, 100, 1000):
        a = _data((2, n), dtype, "ints")
        a[a == 3], a[a == 2] = np.nan, -0.0
        t, f = _pair(a, dtype)
        for fr, tr in zip(
            framework.unique(f, return_inverse=True, return_counts=True),
            torch.unique(t, return_inverse=True, return_counts=True),
        ):
            _same(fr, tr)
