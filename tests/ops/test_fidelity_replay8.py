"""Named regression tests for the fuzzer finds the eighth pass fixed (norm accumulation paths,
the older open items, seeds 26,000,000+): each compares the case across framework and torch
as the fuzzer does (same helpers as tests/ops/test_fidelity.py)."""

import math

import numpy as np
import pytest
import torch

import framework
from framework._fma import fma32

from fuzz.runner import KNOWN, Program, compare_call, compare_program
from ops.optable import OPS
from ops.opgen import T
from ops.test_fidelity import same, t

ORDS = [0, 1, 2, 3, math.inf, -math.inf, 0.5, -1]


@pytest.mark.parametrize("ord", ORDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vector_norm_with_empty_dim_tuple_is_the_all_reduce(ord, dtype):
    """dim=() is torch's all-reduce: over one element (a 0-dim tensor, shape (1, 1)) it returns
    |x| (no |x|^p to under/overflow) and its gradient is norm_backward at that |x| (NaN for
    p = 3 at -1e-30 in float32: x |x| / norm^2 is 0 / 0). Ours took dim=() of a 0-dim tensor
    as dim=-1, which torch reduces (seed 24050897: norm(p=3, dim=()) of -1e-30 gave 0)."""
    for v in (-1e-30, 1e-40, 1e30, -2.0, 0.0):
        for shape in ((), (1, 1)):
            x = t(np.full(shape, v), dtype)
            same(lambda L, a: L.linalg.vector_norm(a, ord=ord, dim=()), x)
            same(lambda L, a: L.norm(a, p=ord, dim=()), x)
            same(lambda L, a: L.linalg.vector_norm(a, ord=ord, dim=(), keepdim=True), x)


@pytest.mark.parametrize("ord", ORDS + [2.5, -2])
def test_vector_norm_accumulates_in_the_input_dtype_as_torch(ord):
    """torch's CPU norm kernels (NormOps, NormTwoOps, AbsMax/AbsMinOps, the p = 2 last-dim
    vector path) accumulate float32 in float32 (opmath_type<float> is float): |x|^p of tiny
    or huge values under/overflows as ours, for every dim form and scale."""
    r = np.random.default_rng(7)
    for scale in (1e-30, 1e-20, 1e-13, 1.0, 1e13, 1e19, 1e30):
        for dtype in ("float32", "float64"):
            a = (r.standard_normal((3, 5)) * scale).astype(dtype)
            a[0, 0] = 0.0
            for kw in ({}, {"dim": ()}, {"dim": -1}, {"dim": 0}, {"dim": (0, 1)}):
                same(lambda L, x: L.linalg.vector_norm(x, ord=ord, **kw), t(a, dtype))


def _histc_same(dtype, x, bins, **kw):
    def run(L):
        try:
            return L.histc(L.tensor(x, dtype=getattr(L, dtype)), bins, **kw).float().numpy()
        except RuntimeError as e:
            return str(e)

    ours, theirs = run(framework), run(torch)
    assert type(ours) is type(theirs), (dtype, x, bins, ours, theirs)
    np.testing.assert_array_equal(ours, theirs, err_msg=str((dtype, x, bins)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("bins", [1, 2, 3, 4, 7, 8, 15, 16, 33, 100, 1 << 16])
def test_histc_of_a_constant_widens_its_range_as_torch(dtype, bins):
    """A constant input's range [x - 1, x + 1]: torch computes each edge in the input's
    arithmetic type (float for float16/bfloat16) and, where it rounds back onto x, takes the
    next value past x: at powers of two, where the spacing below x is half the spacing above,
    2^24 in float32 falls in bin bins // 3 (ours rounded 2^24 + 1 back to 2^24: the last bin;
    2^25 and 2^53 rounded both edges onto x), 1e30 in the middle bin; a float16 4096 - 1
    rounds back to 4096 (0 / 0: bin 0), a bfloat16 1e30 is refused; float16 over 65504 bins
    makes an inf position (bin 0)."""
    vals = [2.0**24, -(2.0**24), 2.0**25, 2.0**53, -(2.0**53), 2.0**60, 1e30, 3e7 + 1, 1.0]
    for v in vals + [0.0, 2048.0, 4096.0, -8192.0, 257.0, -0.78235704, 1e20]:
        for x in ([v], [v, v, v]):
            _histc_same(dtype, x, bins)


@pytest.mark.parametrize("v", [1e30, 3e7 + 1, 2.0**24 + 2])
def test_histc_with_min_and_max_that_round_together_counts_in_bin_0(v):
    """Given min < max that round to one float32 value, torch's (x - lo) * bins / 0 is NaN,
    cast to INT64_MIN, whose byte offset wraps to 0: the value counts in bin 0 (ours divided
    0 by 0 into NumPy's ValueError, then took the middle bin)."""
    lo = float(np.float32(v))
    for bins in (1, 3, 4, 8):
        ours = framework.histc(framework.tensor([v]), bins, min=lo, max=lo * (1 + 1e-12))
        theirs = torch.histc(torch.tensor([v]), bins, min=lo, max=lo * (1 + 1e-12))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def _ldexp_case(L, xdt, edt, inplace, X, E, U):
    x = L.tensor(X, dtype=getattr(L, xdt), requires_grad=True)
    e = L.tensor(E, dtype=getattr(L, edt), requires_grad=True)
    y = x.clone()
    y = y.ldexp_(e) if inplace else L.ldexp(y, e)
    y.backward(L.tensor(U, dtype=y.dtype))
    return [v.detach().double().numpy() for v in (y, x.grad, e.grad)], str(e.grad.dtype)


@pytest.mark.parametrize("xdt", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("edt", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("inplace", [True, False])
def test_ldexp_half_with_a_broadcast_exponent_as_torch(xdt, edt, inplace):
    """torch's exponent gradient is grad * result * ln 2 in the result's dtype (float16 for a
    float16 ldexp_ whatever the exponent's), summed over the broadcast rows in float and
    rounded once (ours multiplied by self and 2 ** other in float32, and NumPy summed float16
    row by row in float16: 1440.14 / 1441 where torch has 1440); a half ldexp rounds
    pow(2, other) to the half dtype before the product (bfloat16 1.3 * 2^0.3: 1.6015625)."""
    r = np.random.default_rng(5)
    for n in (1, 7, 64):
        X, U = r.standard_normal((n, 3)), r.standard_normal((n, 3)) * 10
        E = np.round(r.standard_normal(3) * 3) + r.random(3) * 0.5
        (ours, odt), (theirs, tdt) = (
            _ldexp_case(L, xdt, edt, inplace, X, E, U) for L in (framework, torch)
        )
        assert odt == tdt
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-6 if "float" in xdt else 0)


def test_svd_error_of_a_batch_with_inf_and_nan_names_torchs_element_or_is_known():
    """A batch whose NaN matrix comes first: torch's and our SVD errors name that element.
    With an inf matrix before it and singular vectors needed (the input requires grad), MKL's
    gesdd may fail to converge on the inf matrix first (by its values, not predictable), so
    torch names that earlier element: the fuzzer classifies that wording as known."""
    r = np.random.default_rng(0)
    a = r.standard_normal((5, 4, 3))
    a[1, 0, 0] = np.nan
    for ordv in ("nuc", 2, -2):
        fn = lambda L, x: L.linalg.matrix_norm(x, ord=ordv)
        assert not compare_call(fn, [T(a, True)]) and not compare_call(fn, [T(a, False)])
    a[0, 0, 1] = np.inf
    found = compare_call(lambda L, x: L.linalg.matrix_norm(x, ord="nuc"), [T(a, True)])
    assert all(m.kind == KNOWN for m in found), found


def _program(name, args, kwargs, up_seed=0):
    """A fuzzer Program of op-table record `name` on given inputs (no chained op)."""
    p = Program.__new__(Program)
    p.seed, p.args, p.kwargs, p.up_seed = None, list(args), dict(kwargs), up_seed
    p.op, p.inplace, p.then = next(o for o in OPS if o.name == name), False, None
    return p


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batch_norm_of_a_constant_huge_channel_is_exact_in_ours_and_known(dtype):
    """A channel of twenty 1e30: the exact output is the bias and the exact input gradient
    invstd * w * (dy - mean dy) (x_hat is 0). Since torch's batch_norm kernels are replayed
    (test_moments_bits.py) ours is torch's, output and gradients (the fuzzer's rule for such a
    channel went in the sixteenth pass): the float32 gradient the exact one, the float64 one
    torch's (its sequential double mean of 1e30 + an ulp)."""
    x = np.random.default_rng(0).standard_normal((4, 3, 5)).astype(dtype)
    x[:, 1, :] = 1e30
    w, b = np.array([1.5, 0.7, 2.0], dtype), np.array([0.1, 0.2, 0.3], dtype)
    stats = [T(np.zeros(3, dtype)), T(np.ones(3, dtype))]
    p = _program("batch_norm", [T(x, True)] + stats + [T(w, True), T(b, True)], {"training": True})
    assert not compare_program(p)
    xt = framework.tensor(x, requires_grad=True)
    y = framework.nn.functional.batch_norm(
        xt, None, None, framework.tensor(w), framework.tensor(b), training=True
    )
    dy = np.random.default_rng(1).standard_normal(y.shape).astype(dtype)
    y.backward(framework.tensor(dy))
    exact = w[1] / np.sqrt(np.float64(1e-5)) * (dy[:, 1] - dy[:, 1].mean())
    xg = torch.tensor(x, requires_grad=True)
    theirs = torch.nn.functional.batch_norm(
        xg, None, None, torch.tensor(w), torch.tensor(b), training=True
    )
    theirs.backward(torch.tensor(dy))
    theirs = theirs.detach()
    if dtype == "float64":  # torch's sequential mean, replayed since (test_moments_bits.py)
        exact = xg.grad.numpy()[:, 1]
    np.testing.assert_allclose(xt.grad.numpy()[:, 1], exact, rtol=1e-5)
    keep = [0, 2]
    np.testing.assert_allclose(y.detach().numpy()[:, keep], theirs.numpy()[:, keep], rtol=1e-5)


def _bits(value):
    return np.array([value], np.uint32).view(np.float32)[0]


def _torch_exp_u20(v):
    """torch's Vectorized<float>::exp_u20 (AVX2): 2^n times a degree-5 polynomial, FMAs."""
    f32 = np.float32
    lo, hi = _bits(0xC2AEAC50), _bits(0x42B17218)  # ln(FLT_MIN), ln(FLT_MAX)
    s = np.maximum(np.minimum(v, hi), lo)
    fx = np.floor(fma32(s, _bits(0x3FB8AA3B), f32(0.5)))  # log2(e)
    p = fma32(-fx, _bits(0x3F317218), s)  # ln(2)
    r = fma32(p, f32(0.00828929059), f32(0.0418978221))
    for c in (0.166676521, 0.499991506, 0.999999701, 1.0):
        r = fma32(p, r, f32(c))
    two_n = (((fx - f32(1)).astype(np.int32) + 127) << 23).view(f32)
    return r * np.where(v < lo, f32(0), two_n) * f32(2)


def _torch_gelu_float32(x):
    """torch's vectorised float32 gelu (AVX2 build) replayed in NumPy: fma(x/2, erf(x/sqrt2),
    x/2), erf by Abramowitz-Stegun 7.1.26 (t = 1 / fma(p, |z|, 1), FMA Horner) times
    exp_u20(-z^2)."""
    f32 = np.float32
    z = x * f32(np.sqrt(0.5))
    t = f32(1) / fma32(f32(0.3275911), np.abs(z), f32(1))
    r = fma32(f32(1.061405429), t, f32(-1.453152027))
    for c in (1.421413741, -0.284496736, 0.254829592):
        r = fma32(r, t, f32(c))
    erf = fma32(-_torch_exp_u20(-(z * z)) * t, r, f32(1))
    erf = np.where(np.signbit(z), -erf, erf)
    half = x * f32(0.5)
    return fma32(half, erf, half)


def test_torch_float32_gelu_formula_is_replayed_and_ours_is_its_bits():
    """torch's float32 gelu over a contiguous tensor is bit for bit _torch_gelu_float32 above
    (1e6 random inputs: 100%; with Sleef's expf instead of exp_u20 86.8%, without the final
    FMA 91%), oneDNN's AVX2 kernel (the suite pins oneDNN to AVX2: its AVX-512 gelu differs);
    ours runs that kernel (framework/ops/_sleef_math.py's gelu_dnnlf, issue 9): its bits."""
    r = np.random.default_rng(0)
    x = np.concatenate([r.standard_normal(100_000) * 3, r.uniform(-10, 10, 100_000)])
    x = x.astype(np.float32)
    theirs = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(_torch_gelu_float32(x), theirs)
    ours = framework.nn.functional.gelu(framework.tensor(x)).numpy()
    np.testing.assert_array_equal(ours, theirs)  # (issue 9: _sleef_math.gelu_dnnlf)


def _first_bad_read_order(L, op, xs, d, ish, srcsh):
    """The order in which L's gather/scatter kernel reads the index, recovered one position at
    a time from the out-of-bounds error naming the first bad index it meets."""
    n, size = int(np.prod(ish)), xs[d]
    bad, order = np.ones(n, bool), []
    while bad.any():
        idx = L.tensor(np.where(bad, size + np.arange(n), 0).reshape(ish))
        x = L.zeros(xs)
        with pytest.raises(RuntimeError) as e:
            if op == "gather":
                L.gather(x, d, idx)
            else:
                getattr(L, op)(x, d, idx, L.ones(srcsh))
        order.append(int(str(e.value).split()[1]) - size)
        bad[order[-1]] = False
    return order


def test_scatter_gather_bounds_error_names_the_index_torchs_kernel_reads_first():
    """torch's scatter/gather kernel reads the index over its TensorIterator (dim squashed,
    inner dims coalesced where self, src and index all step through them as one) and, unless
    dim is the last, one position of dim at a time over each inner run: the error names the
    first bad index in that order (seed 26198060: scatter_add along dim 2 of (3, 3, 3, 2) with
    a (3, 3, 3, 1) index named -1 in torch, -2 in ours, which read C order)."""
    r = np.random.default_rng(3)
    for it in range(60):
        nd = int(r.integers(2, 5))
        xs = [int(r.integers(1, 5)) for _ in range(nd)]
        d = int(r.integers(nd))
        ish = [
            int(r.integers(1, s + 1)) if k != d else int(r.integers(1, 4)) for k, s in enumerate(xs)
        ]
        srcsh = [s + int(r.integers(0, 2)) for s in ish]
        op = ("gather", "scatter", "scatter_add")[it % 3]
        ours, theirs = (_first_bad_read_order(L, op, xs, d, ish, srcsh) for L in (framework, torch))
        assert ours == theirs, (op, xs, d, ish, srcsh)


@pytest.mark.parametrize("dtypes", [("bool", "bool"), ("float32", "float64"), ("int64", "int64")])
def test_cross_checks_broadcast_before_dtypes_as_torch(dtypes):
    """torch's linalg_cross meta checks the ranks, the size-3 dim and then the broadcast of
    the batch dims, before its kernel refuses bool or mixed dtypes: a (2, 0, 3) bool against
    (2, 2, 3) is the broadcast RuntimeError (ours refused bool first: NotImplementedError,
    seed 26203864, through torch.cross(dim=-1))."""
    for sa, sb in (((2, 0, 3), (2, 2, 3)), ((4, 3), (2, 3)), ((2, 1, 3), (2, 2, 3))):
        a, b = (t(np.zeros(s), dt, rg=False) for s, dt in zip((sa, sb), dtypes))
        same(lambda L, x, y: L.cross(x, y, dim=-1), a, b)
        same(lambda L, x, y: L.linalg.cross(x, y), a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_histc_non_finite_range_message_as_torch(dtype):
    """torch's 'range of [lo, hi] is not finite' prints a NaN with its sign bit: a given
    min/max as passed, one data element as stored, a min/max reduction over more elements
    x86's default -nan; a constant +-inf input is first widened (to [-inf, -FLT_MAX])."""
    nan, inf = float("nan"), float("inf")
    cases = [([nan], {}), ([-nan], {}), ([nan, 1.0], {}), ([1.0] * 20 + [nan], {})]
    cases += [([1.0, 2.0], {"min": nan, "max": 1}), ([1.0, 2.0], {"min": -nan, "max": 1})]
    cases += [([1.0, 2.0], {"min": 0, "max": -nan}), ([-inf], {}), ([inf, inf], {})]
    cases += [([1.0, inf], {}), ([1.0, 2.0], {"min": inf, "max": inf})]
    for x, kw in cases:
        _histc_same(dtype, x, 5, **kw)
