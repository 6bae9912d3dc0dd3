"""Named regression tests for the exception-type, wording and node-name mismatches the
differential fuzzer found in its fifth pass (continues tests/ops/test_fidelity_errors.py, same
helpers): each runs the case in framework and torch and compares the exception type and
message (or the result: values, dtype, node names, gradients)."""

import numpy as np
import pytest

from fuzz.runner import KNOWN, compare_call
from ops.test_fidelity import rand, same, t


def F(L):
    return L.nn.functional


INF = float("inf")


@pytest.mark.parametrize("dim", [0, 1, 5, -1, -7])
@pytest.mark.parametrize("n", [1, 2])
def test_cat_of_only_legacy_empty_tensors_takes_any_dim(dim, n):
    """With every tensor a 1-D empty one (all skipped), torch never wraps dim."""
    same(lambda L, *ts: L.cat(ts, dim), *[t(np.zeros(0), "bool")] * n)
    same(lambda L, *ts: L.cat(ts, dim), t(np.zeros(0)), t(np.zeros(0), "float32"))


def test_cat_with_one_real_tensor_still_wraps_dim():
    same(lambda L, a, b: L.cat([a, b], 5), t(np.zeros(0)), t(rand(2, 3)))


@pytest.mark.parametrize("dtype", ["int64", "bool", "float64"])
@pytest.mark.parametrize(
    "s,e,w",
    [
        ((3, 1), (3, 5), -1.0),  # in place: the output shape, before the kernel's dtype
        ((), (), (2,)),
        ((), (1, 1), (2, 2)),
        ((3, 2), (3, 5), 0.5),  # out of place: the broadcast error first
        ((3, 5), (3, 5), 0.5),
    ],
)
def test_lerp_checks_shapes_before_the_kernel_dtype(s, e, w, dtype):
    weight = w if isinstance(w, float) else t(np.zeros(w), dtype, rg=False)
    args = [t(np.zeros(s), dtype, rg=False), t(np.zeros(e), dtype, rg=False)]
    same(lambda L, a, b: a.clone().lerp_(b, weight if isinstance(w, float) else b), *args)
    same(lambda L, a, b, c: L.lerp(a, b, c), *args, weight)
    same(lambda L, a, b, c: a.clone().lerp_(b, c), *args, weight)


def test_lerp_dtype_check_comes_first():
    same(lambda L, a, b: a.clone().lerp_(b, 1.0), t(np.zeros((3, 1))), t(np.zeros((3, 5)), "int64"))


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_multi_margin_loss_kernel_dtype_before_target_range(dtype, reduction):
    """torch's kernel dispatches on the dtype before it reads a target."""
    x, y = t(np.zeros((3, 1)), dtype), t([0, 4, -1], "int64")
    same(lambda L, a, b: F(L).multi_margin_loss(a, b, reduction=reduction), x, y)
    w = t(np.ones(1), dtype)
    same(lambda L, a, b, c: F(L).multi_margin_loss(a, b, weight=c), x, y, w)


@pytest.mark.parametrize("tdtype", ["int64", "bool"])
def test_multi_margin_loss_of_an_empty_bool_batch(tdtype):
    """An empty batch returns before the kernel: a bool input (or target) is not refused (a
    reduced value is torch's uninitialised memory: its dtype and shape only)."""
    import torch

    import framework

    x, y = t(np.zeros((0, 3)), "bool"), t(np.zeros(0), tdtype)
    same(lambda L, a, b: F(L).multi_margin_loss(a, b, reduction="none"), x, y)
    w = t(np.ones(3), "bool")
    same(lambda L, a, b, c: F(L).multi_margin_loss(a, b, weight=c, reduction="none"), x, y, w)
    for reduction in ("sum", "mean"):
        f, r = (
            F(L).multi_margin_loss(
                L.zeros(0, 3, dtype=L.bool), L.zeros(0, dtype=L.int64), reduction=reduction
            )
            for L in (framework, torch)
        )
        assert (str(f.dtype), f.shape) == (str(r.dtype), r.shape)


@pytest.mark.parametrize("value", [INF, -INF, float("nan")])
@pytest.mark.parametrize("shape,index", [((0, 1, 1, 3), [0]), ((2, 3), [5]), ((2, 3), [1])])
def test_setitem_converts_the_value_before_reading_the_index(shape, index, value):
    """torch's valueToTensor refuses a non-finite number for an integer tensor first."""

    def fn(L, x, i):
        x = x.clone()
        x[i] = value
        return x

    same(fn, t(np.zeros(shape), "int64"), t(index, "int64"))


@pytest.mark.parametrize(
    "shape,index,vshape",
    [
        ((1, 5, 0, 3), ([0, 1, 2, 3, 4],), (5, 5, 0, 3)),  # empty result: no bound read
        ((1, 0), ([3],), (1, 0)),
        ((1, 0), ([3, -7],), (2, 0)),
        ((2, 0), ([3], [5]), (1,)),  # an empty dim: checked when indexing is set up
        ((1, 5, 2, 3), ([0, 1, 2, 3, 4],), (5, 5, 2, 3)),
        ((0, 3), (slice(None), [3]), (0, 1)),
    ],
)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_bounds_are_read_only_for_a_non_empty_result(shape, index, vshape, accumulate):
    """torch's index kernels check each index as they read it: an empty result reads none."""
    x, v = t(np.zeros(shape)), t(np.ones(vshape))
    idx = tuple(i if isinstance(i, slice) else t(i, "int64") for i in index)
    if all(not isinstance(i, slice) for i in idx):
        same(lambda L, a, b, *i: L.index_put(a, i, b, accumulate), x, v, *idx)
    same(lambda L, a, *i: a[i], x, *idx)

    def put(L, a, b, *i):
        a = a.clone()
        a[i] = b
        return a

    same(put, x, t(np.ones(vshape), rg=False), *idx)


@pytest.mark.parametrize("size", [(0, -1), (0, -1, 3), (-2, 0)])
def test_expand_of_0_dim_to_a_negative_size_is_a_known_torch_bug(size):
    """torch returns a tensor with a negative size (numel 0); ours refuses it with the error
    torch gives for the same sizes without a 0. The fuzzer files it as known."""
    found = compare_call(lambda L, x: x.expand(*size), [t(1.0)])
    assert [m.kind for m in found] == [KNOWN], found
    same(lambda L, x: x.expand(2, -1), t(1.0))


def _chain(y):
    """The node names from y.grad_fn down its first non-leaf inputs."""
    names, fn = [], y.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = next((f for f, _ in fn.next_functions if f is not None and f.next_functions), None)
    return names


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q", [0.3, [0.2, 0.7], []])
@pytest.mark.parametrize(
    "shape,dim,keepdim",
    [((2, 3), None, False), ((2, 3), None, True), ((2, 3), 0, False), ((2, 1, 3), 1, True)]
    + [((3,), -1, False), ((), 0, False), ((), None, True), ((5, 1), 0, True)],
)
def test_quantile_nodes_are_torchs_quantile_compute(name, interpolation, q, shape, dim, keepdim):
    """torch sorts the flattened input (or dim moved last by unsqueeze/transpose), views it,
    gathers, lerps, and squeeze_s the last dim in place (SqueezeBackward4; a tensor q goes
    first by unsqueeze_/transpose_): the result is no view."""
    import torch

    import framework

    def fn(L, x):
        qq = q if isinstance(q, float) else L.tensor(q, dtype=L.float64)
        return getattr(L, name)(x, qq, dim=dim, keepdim=keepdim, interpolation=interpolation)

    same(fn, t(rand(*shape)))
    f, r = (
        fn(L, L.tensor(np.arange(6.0)[: int(np.prod(shape))].reshape(shape), requires_grad=True))
        for L in (framework, torch)
    )
    assert _chain(f) == _chain(r)
    assert f._is_view() is r._is_view() is False


def test_matmul_vector_matrix_is_no_view():
    """torch's matmul squeeze_s mm's fresh result in place: SqueezeBackward4, no view."""
    import torch

    import framework

    for L in (framework, torch):
        y = L.ones(3, requires_grad=True) @ L.ones(3, 4)
        assert (type(y.grad_fn).__name__, y._is_view()) == ("SqueezeBackward4", False)


def _sdpa(L, q, k, v, **kw):
    return F(L).scaled_dot_product_attention(q, k, v, **kw)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize(
    "shapes",
    [
        ((0, 5, 1, 4), (0, 5, 3, 4), (0, 5, 3, 1)),  # empty batch
        ((2, 1, 2, 2), (1, 3, 0, 2), (1, 3, 0, 3)),  # no keys: zeros shaped by query
        ((1, 1, 0, 2), (1, 1, 4, 2), (1, 1, 4, 3)),
        ((2, 2), (3, 2), (3, 0)),
        ((2, 2), (0, 2), (0, 3)),
    ],
)
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"dropout_p": 0.3}])
def test_sdpa_of_an_empty_output_or_no_keys(shapes, dtype, kw):
    """torch returns zeros + (q.sum() + k.sum() + v.sum()) * 0 before any backend (or its
    integer refusal): AddBackward0, every input in the graph."""
    rg = dtype.startswith("float")
    same(lambda L, *a: _sdpa(L, *a, **kw), *[t(rand(*s), dtype, rg=rg) for s in shapes])


def test_sdpa_of_an_empty_output_with_an_inf_is_nan():
    q = np.array([[INF, 1.0]])
    same(lambda L, *a: _sdpa(L, *a), t(q), t(np.zeros((0, 2))), t(np.zeros((0, 3))))


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "bool"])
@pytest.mark.parametrize("mask", [None, "bool"])
@pytest.mark.parametrize(
    "shapes",
    [((2, 0), (3, 0), (3, 3)), ((2, 2), (3, 2), (3, 3)), ((1, 2, 2), (1, 3, 2), (1, 3, 3))]
    + [((2, 1, 2, 0), (1, 3, 3, 0), (1, 3, 3, 3))],
)
def test_sdpa_zero_head_dim_and_integer_inputs(shapes, mask, dtype):
    """E = 0 scales by inf (torch: 1 / sqrt(0)); integers fail in the last matmul (its
    dtype error), after a bool mask's -inf that an integer dtype cannot hold."""

    def fn(L, q, k, v):
        m = None if mask is None else L.ones(q.shape[-2], k.shape[-2], dtype=L.bool)
        return _sdpa(L, q, k, v, attn_mask=m)

    same(fn, *[t(np.ones(s), dtype, rg=False) for s in shapes])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_scalar_overflow_names_torchs_cpp_type(dtype):
    """c10::Scalar's accessor names the type: int64_t, int, int16_t, int8_t, uint8_t."""

    def fn(L, x):
        x = x.clone()
        x[0] = INF
        return x

    same(fn, t(np.zeros(3), dtype))
    same(lambda L, x: x.masked_fill(x == 0, INF), t(np.zeros(3), dtype))


@pytest.mark.parametrize("dtype", ["int64", "int16", "bool", "float64", "float16"])
def test_mm_dtype_mismatch_names_cpp_types(dtype):
    """'long int', 'short int' (one table of torch's dtype names)."""
    a, b = t(np.ones((2, 2)), "float32", rg=False), t(np.ones((2, 2)), dtype, rg=False)
    same(lambda L, x, y: L.mm(x, y), a, b)
    same(lambda L, x, y: L.mm(y, x), a, b)
    same(lambda L, x, y: L.addmm(x, x, y), a, b)


@pytest.mark.parametrize("bdtype", ["bool", "int64", "float64"])
@pytest.mark.parametrize("xdtype", ["bool", "int64", "float64"])
@pytest.mark.parametrize("bshape", [(0,), (3,)])
def test_bucketize_dispatches_on_the_common_dtype(bshape, xdtype, bdtype):
    """Bool boundaries with int or float values are searched (torch's common dtype); only
    both bool are refused."""
    b, x = t(np.zeros(bshape), bdtype, rg=False), t(np.zeros((4, 3)), xdtype, rg=False)
    same(lambda L, v, s: L.bucketize(v, s), x, b)
    same(lambda L, v, s: L.searchsorted(s, v), x, b)


@pytest.mark.parametrize("rg", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize(
    "sa,sb",
    [((1, 3), (3, 3, 3)), ((1, 1), (2, 1, 2)), ((2, 3), (4, 3, 1)), ((3,), (4, 3, 2))]
    + [((4, 2, 3), (1, 3, 2)), ((1, 2, 3), (4, 3, 2)), ((4, 2, 3), (3,)), ((0, 2, 3), (3, 2))],
)
@pytest.mark.parametrize("strided", [False, True])
def test_matmul_folds_as_torchs_should_fold(sa, sb, rg, strided):
    """torch folds a >=3-D operand into one mm/mv when the small one requires grad, never
    for a 2-D first operand otherwise, else when it folds without a copy; a lone batch of
    one is dropped only when it requires grad; the node chain and values agree."""
    import torch

    import framework

    def fn(L, a, b):
        if strided:  # >=3-D operands as non-contiguous views
            a, b = (x.mT.contiguous().mT if x.dim() >= 3 else x for x in (a, b))
        return a @ b

    args = [t(rand(*sa), rg=rg[0]), t(rand(*sb), rg=rg[1])]
    same(fn, *args)
    f, r = (fn(L, *(L.tensor(a.a, requires_grad=a.rg) for a in args)) for L in (framework, torch))
    assert _chain(f) == _chain(r)


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_split_with_sizes_names_the_dim_as_given(dim):
    same(lambda L, x: L.split(x, [1, 1], dim), t(rand(4, 3)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_multi_head_attention_bool_mask_into_an_integer_dtype(dtype):
    """torch's _canonical_mask fills -inf into the query's dtype: an integer one overflows."""
    q = t(np.ones((2, 1, 2)), dtype, rg=False)
    w, b = t(np.ones((6, 2)), dtype, rg=False), t(np.ones(6), dtype, rg=False)
    ow, ob = t(np.ones((2, 2)), dtype, rg=False), t(np.ones(2), dtype, rg=False)
    mask = t(np.zeros((2, 2)), "bool", rg=False)

    def fn(L, q, w, b, ow, ob, m):
        return F(L).multi_head_attention_forward(
            q, q, q, 2, 1, w, b, None, None, False, 0.0, ow, ob, training=False, attn_mask=m
        )

    same(fn, q, w, b, ow, ob, mask)


@pytest.mark.parametrize("kind", ["leaf", "nonleaf", "none"])
@pytest.mark.parametrize("vdtype", ["int64", "float32", "bool"])
@pytest.mark.parametrize("index", [0, (slice(None), 0), (None, 1), slice(1, None)])
@pytest.mark.parametrize("vshape", [(2, 2, 1, 1), (1, 1, 5), (3,), (1, 7)])
def test_setitem_expands_the_value_first(kind, vdtype, index, vshape):
    """A basic index is a view the value is copied into: torch's copy_to drops the value's
    leading 1s and expands it (its error names the value's own dtype) before the leaf check
    and any cast."""

    def fn(L, x, v):
        if kind == "nonleaf":
            x = x * 1
        elif kind == "none":
            x = x.detach().clone()
        x[index] = v
        return x

    same(fn, t(np.ones((4, 5, 3))), t(np.ones(vshape), vdtype, rg=False))


@pytest.mark.parametrize(
    "si,s1,s2",
    [
        ((5, 5, 5, 5), (2, 3), (2, 3, 4)),
        ((5, 5, 5, 5), (2, 3, 4), (3, 4)),
        ((2, 3, 4), (2, 3), (2, 3, 4)),
    ]
    + [((2, 3, 5), (2, 3, 3), (2, 4, 5)), ((1, 1, 0, 1, 4), (0, 3, 2), (0, 3, 4))]
    + [((3, 5), (2, 3, 4), (2, 4, 5)), ((2, 3, 5), (2, 3, 4), (2, 4, 5))],
)
@pytest.mark.parametrize(
    "dtypes", [("float32",) * 3, ("int64", "float32", "float32"), ("float32", "float32", "int64")]
)
def test_baddbmm_checks_in_torchs_order(si, s1, s2, dtypes):
    """Expand input to (b1.size(0), b1.size(1), b2.size(2)), input vs batch1 dtype, the
    batch shapes, then batch2's dtype in the kernel."""
    args = [t(np.ones(s), d, rg=False) for s, d in zip((si, s1, s2), dtypes)]
    same(lambda L, i, a, b: L.baddbmm(i, a, b), *args)


@pytest.mark.parametrize("shape", [(1, 0, 0), (0, 0, 2), (0, 2), (2, 0), (3, 1)])
@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
def test_unique_dim_checks_the_selected_empty_dim_first(shape, fn):
    for d in range(-len(shape), len(shape)):
        same(lambda L, x: getattr(L, fn)(x, dim=d, return_counts=True)[0], t(np.zeros(shape)))


@pytest.mark.parametrize(
    "shape,ishape,dim",
    [((3, 5), (3, 5), 0), ((3, 3, 5), (3, 3, 5), 1), ((4, 4), (4, 3), 0), ((3, 5), (3, 5), 1)]
    + [((2, 4, 3), (2, 3, 3), 1), ((4, 2), (4, 2), 0)],
)
@pytest.mark.parametrize("fn", ["scatter_value", "scatter", "gather", "scatter_add"])
def test_scatter_gather_report_the_kernels_first_bad_index(shape, ishape, dim, fn):
    """torch's kernel reads the index in C order (only the last dim inside the loop along dim
    when the dims after it do not coalesce): the first bad one is in its error."""
    idx = np.random.default_rng(sum(shape) + dim).integers(-3, shape[dim] + 2, ishape)

    def f(L, x, i):
        if fn == "scatter_value":
            return x.scatter(dim, i, 1.0)
        if fn == "gather":
            return x.gather(dim, i)
        src = L.ones(*ishape)
        return x.scatter(dim, i, src) if fn == "scatter" else x.scatter_add(dim, i, src)

    same(f, t(np.zeros(shape), rg=False), t(idx, "int64"))


@pytest.mark.parametrize("tshape", [(1, 1, 4, 1), (3, 4, 1), (5,)])
def test_soft_margin_loss_refuses_a_bool_input_first(tshape):
    same(
        lambda L, x, y: F(L).soft_margin_loss(x, y),
        t(np.ones((3, 4, 1)), "bool"),
        t(np.ones(tshape), "bool"),
    )


@pytest.mark.parametrize("order", ["fff", "ffi", "fif", "iff", "fii", "iif", "ifi"])
@pytest.mark.parametrize("m1", [(2, 2), (2, 3)])
def test_addmm_and_linear_dtype_checks(order, m1):
    """torch's addmm meta: self vs mat2, then mat1 vs mat2 dtypes, before the shapes (the
    fast path too: a mismatched bias is refused)."""
    d = {"f": "float32", "i": "int64"}
    args = [t(np.ones(s), d[c], rg=False) for s, c in zip(((2, 2), m1, (2, 2)), order)]
    same(lambda L, a, b, c: L.addmm(a, b, c), *args)
    x, w, b = (t(np.ones(s), d[c], rg=False) for s, c in zip(((2, 3), (4, 3), (4,)), order))
    same(lambda L, x, w, b: F(L).linear(x, w, b), x, w, b)


@pytest.mark.parametrize(
    "xs,mask,vs",
    [((3,), [0, 0, 0], (2, 0)), ((3,), [0, 0, 0], (0,)), ((3, 2), [0, 0, 0], (0, 3))]
    + [((3, 2), [0, 0, 0], (2, 0, 2)), ((3,), [1, 0, 0], (0,))],
)
def test_setitem_of_an_empty_value_checks_its_shape(xs, mask, vs):
    """NumPy writes an empty value into any empty selection; torch checks the broadcast."""

    def fn(L, x, m, v):
        x = x.clone()
        x[m] = v
        return x

    x, v = t(np.zeros(xs), "int64"), t(np.zeros(vs), "int64")
    same(fn, x, t(mask, "bool"), v)
    same(fn, x, t(np.nonzero(mask)[0], "int64"), v)
