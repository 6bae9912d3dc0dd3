"""Named regression tests for the exception-type and node-name mismatches the differential
fuzzer found in its third pass (continues tests/ops/test_fidelity2.py, same helpers): each
runs the case in framework and torch and compares the exception type and message (or the
result: values, dtype, node names, gradients)."""

import numpy as np
import pytest

from ops.test_fidelity import rand, same, t


def F(L):
    return L.nn.functional


INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("ord", [2, -2, INF, -INF, 1, -1, "nuc", "fro"])
@pytest.mark.parametrize("shape", [(3, 0, 3), (3, 3, 0), (0, 3), (0, 2, 2)])
def test_matrix_norm_of_an_empty_matrix(ord, shape):
    """A max over an empty dim is a zero that does not require grad (torch's max_min); the
    min raises amin's IndexError."""
    same(lambda L, x: L.linalg.matrix_norm(x, ord=ord), t(np.zeros(shape)))
    same(lambda L, x: L.linalg.matrix_norm(x, ord=ord, keepdim=True), t(np.zeros(shape)))


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_adaptive_avg_pool3d_to_one_is_a_mean(dtype):
    """An output size of 1 is torch's mean: its dtype error, not the pool kernel's."""
    same(lambda L, x: F(L).adaptive_avg_pool3d(x, 1), t(np.ones((1, 1, 4, 4, 3)), dtype))
    same(lambda L, x: F(L).adaptive_avg_pool3d(x, 2), t(np.ones((1, 1, 4, 4, 3)), dtype))


@pytest.mark.parametrize(
    "s1,s2,sw,sb",
    [
        ((5,), (5,), (0, 5, 5), None),  # no output features
        ((0, 2), (0, 3), (4, 2, 3), (4,)),  # empty batch
        ((0, 2), (0, 3), (0, 2, 3), None),
        ((3, 0), (3, 3), (4, 0, 3), None),  # torch's reshape(-1, 0) error
        ((3, 2), (3, 0), (4, 2, 0), (4,)),
        ((3, 2), (2, 3), (4, 2, 3), None),  # batch mismatch
        ((2,), (1, 3), (4, 2, 3), None),  # dims mismatch
        ((3, 2), (3, 3), (4, 3, 3), None),  # input1 vs weight
        ((3, 2), (3, 4), (4, 2, 3), None),  # input2 vs weight
        ((3, 2), (3, 3), (4, 2, 3), (5,)),  # bias vs weight
    ],
)
def test_bilinear_checks_and_zero_sizes(s1, s2, sw, sb):
    args = [t(rand(*s1)), t(rand(*s2)), t(rand(*sw))] + ([t(rand(*sb))] if sb else [])
    same(lambda L, *a: F(L).bilinear(*a), *args)


def test_bilinear_dtype_check_names_cpp_types():
    same(
        lambda L, a, b, w, c: F(L).bilinear(a, b, w, c),
        t(rand(3, 2), "float32"),
        t(rand(3, 3), "float32"),
        t(rand(4, 2, 3), "float32"),
        t(rand(4)),
    )


@pytest.mark.parametrize("alpha", [1, 2, True, 1.0])
@pytest.mark.parametrize(
    "xs,dim,ss",
    [((2, 1), 1, (2, 3)), ((2, 1, 1), 1, (2, 3, 1)), ((3,), 0, (3,)), ((3, 2), 0, (3, 2))],
)
def test_index_add_out_of_range_error_follows_torchs_kernel(xs, dim, ss, alpha):
    """torch's CPU index_add is a scatter_add (RuntimeError naming the index) only for alpha
    exactly 1 on the first or last dim of a tensor of 2+ dims; else IndexError."""
    same(
        lambda L, x, i, s: L.index_add(x, dim, i, s, alpha=alpha),
        t(rand(*xs)),
        t([-1, -1, -1][: ss[dim]], "int64"),
        t(rand(*ss)),
    )


SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize(
    "a",
    [
        SINGULAR,
        np.stack([np.eye(2), SINGULAR]),  # "(Batch element 1): "
        np.stack([np.eye(2), SINGULAR]).reshape(1, 2, 2, 2),
        np.array([[1.0, INF], [NAN, 2.0]]),  # NaN/inf: solved (to NaN), not refused
        np.array([[1.0, 1.0], [1.0, 1.0 + 1e-9]]),  # ill-conditioned, not singular
        np.stack([np.array([[1.0, INF], [NAN, 2.0]]), SINGULAR]),
    ],
    ids=["singular", "batch", "batch4d", "nonfinite", "illconditioned", "mixed"],
)
def test_inv_and_solve_refuse_exactly_singular_matrices(a):
    """torch raises when LU meets an exactly zero pivot (LAPACK's info), naming the batch
    element; matrices with NaN/inf or merely ill-conditioned ones are solved."""
    x = t(a, rg=False)
    same(lambda L, A: L.linalg.inv(A), x)
    same(lambda L, A: L.inverse(A), x)
    same(lambda L, A: L.linalg.solve(A, L.ones(A.shape[:-1], dtype=A.dtype)), x)


@pytest.mark.parametrize(
    "shape,dim",
    [((3,), 0), ((4, 3), 1), ((4, 1, 2, 5), -3), ((4, 1, 2, 5), -1), ((0,), 0), ((2, 0, 3), 1)],
)
@pytest.mark.parametrize("idx", [[-1], [5], [0, 0], []])
def test_index_select_bound_checks_follow_torchs_kernels(shape, dim, idx):
    """dim 1 of a tensor of 2+ dims and an empty self check with check_indexarray_range
    (RuntimeError "INDICES element is out of DATA bounds"), the rest IndexError; an empty
    indexed dim is "self indexing axis dim should be positive"."""
    same(lambda L, x, i: L.index_select(x, dim, i), t(rand(*shape)), t(idx, "int64"))


@pytest.mark.parametrize("idx", [[0, 0], [], [1], [0]])
def test_index_select_of_a_0dim_tensor(idx):
    same(lambda L, x, i: L.index_select(x, 0, i), t(1.5), t(idx, "int64"))


@pytest.mark.parametrize(
    "idx,offsets,dtype,mode,extra",
    [
        ([[1, 4], [0, 4]], None, "float32", "sum", {}),  # FBGEMM: position in the bag
        ([[1, -1], [0, 3]], None, "float64", "sum", {}),  # the generic kernel's words
        ([[4, 1]], None, "float32", "max", {}),
        ([1, 0, 5], [0, 1], "float32", "sum", {}),  # position 1 of bag 1
        ([1, 0, 5], [0, 1], "float32", "sum", {"include_last_offset": True}),  # unused: fine
        ([[1, 0], [0, 4]], None, "float32", "mean", {"padding_idx": 0}),
    ],
)
def test_embedding_bag_out_of_range_index_is_a_runtime_error(idx, offsets, dtype, mode, extra):
    args = [t(idx, "int64"), t(rand(4, 2), dtype, rg=False)] + (
        [t(offsets, "int64")] if offsets else []
    )
    # (no grad: torch's backward crashes on the unused out-of-range index; torch's FBGEMM path
    # words the error two ways from run to run, so there only the type is compared)
    fbgemm = dtype == "float32" and mode != "max" and "padding_idx" not in extra
    same(lambda L, *a: F(L).embedding_bag(*a, mode=mode, **extra), *args, wording=not fbgemm)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float64"])
@pytest.mark.parametrize("shape", [(0,), (4, 0)])
def test_median_of_an_empty_tensor_is_nan_cast(dtype, shape):
    """torch fills NaN cast to the dtype (int64: its minimum, bool: True); bool is refused
    only for a non-empty input."""
    same(lambda L, x: L.median(x), t(np.zeros(shape), dtype))
    same(lambda L, x: L.nanmedian(x), t(np.zeros(shape), dtype))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.median(x, 0),
        lambda L, x: L.nanmedian(x, 0),
        lambda L, x: L.nanmedian(x, 1),
        lambda L, x: L.kthvalue(x, 1, 0),
        lambda L, x: L.kthvalue(x, 1, 1),
        lambda L, x: L.mode(x, 0),
        lambda L, x: L.mode(x, 1),
    ],
)
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (0, 0, 1)])
@pytest.mark.parametrize("dtype", ["float64", "bool"])
def test_selections_over_an_empty_dim_raise_index_error(fn, shape, dtype):
    """zero_numel_check_dims: an empty reduced dim is an IndexError whatever the other dims
    (before median's bool refusal)."""
    same(fn, t(np.zeros(shape), dtype))


@pytest.mark.parametrize(
    "xs,dim,idx,ss",
    [
        ((0, 0), 1, [0, 0, 0], None),  # an empty view: no error, no range check
        ((0, 0, 5), 1, [0], None),
        ((0, 4, 4), -1, [-1], (0, 4, 1)),
        ((0, 3), 1, [5], (0, 1)),
        ((2, 0), 1, [0, 0, 0, 0], (2, 4)),  # torch's setStorage error
        ((0, 1), 0, [0, 0], (2, 1)),
    ],
)
def test_index_fill_and_copy_into_an_empty_self(xs, dim, idx, ss):
    """(torch's setStorage message quotes the strides of the empty self, which depend on how
    it was made: torch.zeros vs torch.tensor(ndarray); so only the type is compared)"""
    x, i = t(np.zeros(xs)), t(idx, "int64")
    same(lambda L, x, i: L.index_fill(x, dim, i, -1.5), x, i, wording=False)
    if ss is not None:
        same(lambda L, x, i, s: L.index_copy(x, dim, i, s), x, i, t(rand(*ss)), wording=False)


@pytest.mark.parametrize(
    "xs,dim,idx,idt,ss,sdt",
    [
        ((), 0, [0, 0, 0, 0], "int64", (), "float32"),  # scalar source before dtypes
        ((3,), 0, [5, 6], "int64", (1,), "int64"),  # dtypes before the index count
        ((2, 3, 4), 0, [1], "int64", (1, 4, 5), "float64"),  # slice shapes
        ((2, 3, 4), 1, [1], "int64", (1, 4, 5), "float64"),
        ((2, 3), 0, [0], "int64", (), "float64"),
        ((), 0, [0], "int64", (1, 1), "float64"),
        ((2,), 0, [1], "int32", (1,), "float64"),  # Long only
        ((2,), 0, [[1]], "int64", (1,), "float64"),
        ((3,), 0, [5], "int64", (1,), "float64"),
    ],
)
def test_index_copy_checks_in_torchs_order(xs, dim, idx, idt, ss, sdt):
    same(
        lambda L, x, i, s: L.index_copy(x, dim, i, s),
        t(rand(*xs) if xs else 1.5),
        t(idx, idt),
        t(rand(*ss) if ss else 0.5, sdt),
    )


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("idx", [[[3, 4, -7]], [[-1, 0, 1]], [[100, 0, 1]], [[6]]])
def test_take_along_dim_wraps_indices_modulo_the_size(dim, idx):
    """With a dim torch takes the indices modulo its size (no range error; an empty dim is
    its integer ZeroDivisionError); without one, gather's bound check."""
    same(lambda L, x, i: L.take_along_dim(x, i, dim=dim), t(rand(2, 3)), t(idx, "int64"))


def test_take_along_dim_of_an_empty_dim_divides_by_zero():
    same(lambda L, x, i: L.take_along_dim(x, i, dim=0), t(np.zeros((0, 3))), t([[1]], "int64"))


@pytest.mark.parametrize(
    "seq,vals",
    [
        (([False], "bool"), (np.zeros((1, 0, 0)), "bool")),  # no values: no dtype dispatch
        (([False], "bool"), ([True, False], "bool")),
        ((np.zeros((2, 3)), "float64"), (np.zeros((3, 3)), "float64")),  # shapes quoted
        ((np.zeros((2, 3)), "bool"), (np.zeros((3, 3)), "bool")),  # shapes before dtype
        ((np.zeros((2, 3)), "float64"), (1.0, "float64")),  # a scalar needs a 1-D sequence
        ((np.zeros(3), "float64"), (1.0, "float64")),  # a 0-dim result
    ],
)
def test_searchsorted_checks(seq, vals):
    same(lambda L, s, v: L.searchsorted(s, v), t(*seq, rg=False), t(*vals, rg=False))


def test_searchsorted_with_a_python_number_is_a_0dim_tensor():
    same(lambda L, s: L.searchsorted(s, 1.0), t([0.0, 1.0, 2.0], rg=False))
    same(lambda L, s: L.bucketize(1.0, s), t([0.0, 1.0, 2.0], rg=False))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.roll(x, 1, 5),  # empty: a clone, whatever the dim
        lambda L, x: L.roll(x, -4),
        lambda L, x: L.cummax(x, 5)[0],
        lambda L, x: L.cummin(x, -7)[0],
    ],
)
def test_empty_roll_and_cummax_ignore_the_dim(fn):
    same(fn, t(np.zeros((0, 3, 2))))


@pytest.mark.parametrize(
    "values,lo,hi",
    [
        ([1.0, -INF], 0, 0),  # the data's range
        ([1.95148123, NAN], 0, 0),  # "-nan"
        ([1.0, 2.0], -INF, 0),
        ([1.0, 2.0], NAN, 3),
        ([1.0, 2.0], 2, 2),
    ],
)
def test_histc_refuses_a_non_finite_range(values, lo, hi):
    same(lambda L, x: L.histc(x, bins=2, min=lo, max=hi), t(values, rg=False))


@pytest.mark.parametrize("reduce", ["amax", "amin", "prod", "sum", "mean"])
@pytest.mark.parametrize("n", [0, 1])
def test_scatter_reduce_on_bool(reduce, n):
    """include_self=False starts amax/amin of bool from False/True; mean is refused (its
    kernel, or the count division when nothing is scattered)."""
    for include_self in (True, False):
        same(
            lambda L, x, i, s: L.scatter_reduce(x, 0, i, s, reduce, include_self=include_self),
            t([[True, False, True], [False, True, False]], "bool"),
            t(np.zeros((n, 3)), "int64"),
            t(np.ones((n, 3)), "bool"),
        )


@pytest.mark.parametrize(
    "da,db", [("bool", "bool"), ("bool", "float32"), ("float32", "bool"), ("float32", "float64")]
)
def test_cross_refuses_bool_and_mixed_dtypes(da, db):
    """torch's cross kernel takes no bool and does not promote ("expected scalar type Float
    but found Double")."""
    same(lambda L, a, b: L.linalg.cross(a, b), t(np.ones((2, 3)), da), t(np.ones((2, 3)), db))
    same(
        lambda L, a, b: L.linalg.cross(a, b),
        t(np.ones((1, 0, 3)), da),
        t(np.ones((1, 0, 3)), db),
    )


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.norm(x, p="fro", dim=(3, 0, 2, 1)),  # "dim must be a 2-tuple"
        lambda L, x: L.norm(x, p="nuc", dim=(0,)),
        lambda L, x: L.linalg.matrix_norm(x, dim=(1, -3)),  # "dims must be different"
        lambda L, x: L.linalg.norm(x, dim=(1, -3)),  # ord None: a vector norm's check
        lambda L, x: L.linalg.norm(x, dim=(1, 0)),  # LinalgVectorNormBackward0
    ],
)
def test_matrix_norm_dim_checks(fn):
    same(fn, t(rand(2, 3, 2, 3)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "fn,xs,ws",
    [
        (lambda L, x, w: F(L).conv_transpose2d(x, w, padding=1), (2, 2, 2, 5), (2, 2, 1, 3)),
        (lambda L, x, w: F(L).conv_transpose1d(x, w, padding=1), (2, 2, 2), (2, 2, 1)),
        (lambda L, x, w: F(L).conv_transpose1d(x, w, padding=1), (2, 2, 1), (2, 2, 1)),
    ],
)
def test_conv_transpose_to_an_empty_output(fn, xs, ws, dtype):
    """torch's float32 (oneDNN) kernels return a zero-size output; float64 ones raise "Output
    size is too small" (a 1-d one in its 2-d words); a negative size is refused by both
    (torch's oneDNN wording differs: only the type is compared there)."""
    neg = xs[-1] == 1
    same(fn, t(rand(*xs), dtype), t(rand(*ws), dtype), wording=not neg)


@pytest.mark.parametrize(
    "q,k,mask",
    [
        ((0, 5, 4, 1), (0, 5, 1, 1), None),  # nothing to attend: integer zeros
        ((0, 5, 4, 1), (0, 5, 1, 1), "bool"),
        ((2, 3, 1), (2, 0, 1), None),
        ((1, 5, 4, 1), (1, 5, 1, 1), "bool"),  # -inf into int64: overflow
        ((1, 5, 4, 1), (1, 5, 1, 1), None),  # the float scores meet the int64 value
    ],
)
def test_sdpa_on_integer_inputs(q, k, mask):
    args = [t(np.zeros(q), "int64"), t(np.zeros(k), "int64"), t(np.zeros(k), "int64")]
    if mask:
        args.append(t(np.ones((q[-2], k[-2])), "bool"))
    same(
        lambda L, *a: F(L).scaled_dot_product_attention(*a[:3], attn_mask=a[3] if mask else None),
        *args,
    )


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.clamp(x, min=True),  # "clamp_min_scalar_cpu"
        lambda L, x: L.clamp(x, max=True),
        lambda L, x: L.clamp(x, min=False, max=True),  # "clamp_scalar_cpu"
        lambda L, x: L.clamp(x, min=0),  # promoted to int64: fine
        lambda L, x: L.clamp(x, min=x),  # one tensor bound: maximum (bool works)
        lambda L, x: L.clamp(x, min=x, max=x),  # "clamp_cpu"
        lambda L, x: L.clamp_min(x, True),
    ],
)
def test_clamp_of_bool(fn):
    same(fn, t([[True, False]], "bool"))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x, lo: x.clamp(min=lo, max=1.5),
        lambda L, x, lo: x.clamp_(min=lo, max=1.5),  # before the in-place leaf check
        lambda L, x, lo: L.clamp(x, min=lo, max=1.5),
    ],
)
def test_clamp_mixing_a_tensor_and_a_number_bound_is_a_type_error(fn):
    same(fn, t(rand(3)), t(rand(3)), wording=False)  # (torch's overload list follows)
    found = []
    for L in (__import__("torch"), __import__("framework")):
        try:
            fn(L, L.zeros(3, requires_grad=True), L.zeros(3))
        except TypeError as e:
            found.append(str(e).split("\n")[0])
    assert len(found) == 2 and found[0] == found[1], found


@pytest.mark.parametrize("dims", [(0, -1, 1, 0), (2, 2)])
def test_amin_checks_empty_dims_before_repeated_ones(dims):
    same(lambda L, x: L.amin(x, dim=dims), t(np.zeros((0, 1, 0)), "bool"))
    same(lambda L, x: L.amax(x, dim=dims), t(np.zeros((2, 1, 2))))


@pytest.mark.parametrize(
    "xs,index,value",
    [
        ((0, 0, 4), lambda L: L.tensor([0, 0]), lambda L: L.tensor(False)),  # leaf before range
        ((3,), lambda L: L.tensor([5]), lambda L: L.tensor(1.0)),
        ((3,), lambda L: L.tensor([0]), lambda L: L.tensor(True)),  # leaf before dtypes
        ((3,), lambda L: slice(0, 2), lambda L: L.tensor(1.0)),  # a slice: "a view of a leaf"
        ((3,), lambda L: 0, lambda L: 1.0),
        ((3,), lambda L: Ellipsis, lambda L: 1.0),
        ((2, 3), lambda L: (0, L.tensor([0])), lambda L: 1.0),
    ],
)
def test_setitem_on_a_leaf_that_requires_grad(xs, index, value):
    """torch refuses writing into a leaf (or by index_put_ into a view of one) before it
    checks the index or the value's dtype."""
    import torch

    import framework

    def run(L, through_view):
        x = L.zeros(xs, requires_grad=True)
        target = x.view(-1) if through_view and x.numel() else x
        try:
            target[index(L)] = value(L)
        except Exception as e:
            return type(e).__name__, str(e).split("\n")[0]
        return None

    for through_view in (False, True):
        if through_view and xs == (2, 3):
            continue  # (2-d index into the flattened view: not this case)
        assert run(framework, through_view) == run(torch, through_view)


@pytest.mark.parametrize(
    "fn,x",
    [
        (lambda L, x: F(L).log_softmax(x, -2), t(False, "bool")),  # the dim before the dtype
        (lambda L, x: F(L).log_softmax(x, 0), t(False, "bool")),  # 0-dim: the lastdim kernel
        (lambda L, x: F(L).softmax(x, 5), t(np.zeros((0, 3)), "int64")),
        (lambda L, x: F(L).interpolate(x, mode="area", scale_factor=0.5), t(rand(1, 2, 1, 2))),
        (lambda L, x: F(L).group_norm(x, 2), t(rand(1, 3))),  # batch size before groups
    ],
    ids=["log_softmax_dim", "log_softmax_0dim", "softmax_empty_dim", "area_empty", "group_norm"],
)
def test_softmax_area_and_group_norm_check_order(fn, x):
    same(fn, x)


# ----- wording ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn,x",
    [
        (lambda L, x: L.rot90(x, 1, (-2, 0)), t(rand(2, 3))),  # the dims as given
        (lambda L, x: L.rot90(x, 1, (1, -1)), t(rand(2, 3))),
        (lambda L, x: F(L).max_pool1d(x, 1, padding=1), t(rand(1, 2, 1))),  # with grad too
        (lambda L, x: F(L).max_pool1d(x, 3, padding=1, dilation=2), t(rand(1, 2, 1))),
    ],
)
def test_rot90_and_max_pool1d_messages(fn, x):
    same(fn, x)


def test_backward_through_an_empty_sum_then_a_unary_op():
    """The gradient of a sum over no elements reached expand as a NumPy scalar (no memory
    of its own to restride: an AttributeError in backward)."""
    same(
        lambda L, x, y: F(L).tanhshrink(F(L).soft_margin_loss(x, y, reduction="sum")),
        t(np.zeros((1, 1, 5, 0))),
        t(np.zeros((1, 1, 5, 0)), rg=False),
    )


def test_addmv_size_mismatch_with_a_0dim_input():
    """torch builds its size-mismatch message with input.size(0): an IndexError for 0-dim."""
    same(lambda L, i, m, v: L.addmv(i, m, v), t(0.5), t(np.zeros((4, 0))), t([0.5]))


def test_stack_checks_the_dim_before_the_sizes():
    same(lambda L, a, b: L.stack([a, b], -4), t(rand(3, 5)), t(rand(3, 1, 0)))
    same(lambda L, a, b: L.stack([a, b], 1), t(rand(3, 5)), t(rand(3, 1, 0)))


# ----- fourth pass (seeds 11,000,000-12,019,999) -----------------------------------------------
def _z(shape, dtype="int64"):
    return t(np.zeros(shape), dtype)


@pytest.mark.parametrize("beta", [0.5, 1, 2, 0, 0.0, 1.0, True])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize(
    "op,shapes",
    [
        ("baddbmm", [(1, 3, 1), (1, 3, 0), (1, 0, 1)]),  # empty contraction
        ("baddbmm", [(1, 1), (2, 3, 0), (2, 0, 1)]),  # ... broadcast input
        ("baddbmm", [(1, 0, 1), (1, 0, 0), (1, 0, 1)]),  # empty result: nothing scaled
        ("addmm", [(3, 1), (3, 0), (0, 1)]),
        ("addmm", [(1,), (3, 0), (0, 2)]),
        ("addmm", [(3, 0), (3, 0), (0, 0)]),
        ("addbmm", [(3, 1), (0, 3, 2), (0, 2, 1)]),  # no batches
        ("addbmm", [(3, 1), (1, 3, 0), (1, 0, 1)]),
        ("addbmm", [(0, 1), (2, 0, 2), (2, 2, 1)]),
        ("addmv", [(3,), (3, 0), (0,)]),  # torch converts beta first: no error
    ],
)
def test_an_empty_product_scales_the_input_in_place(op, shapes, dtype, beta):
    """torch's result.mul_(beta) when a product sums over nothing: an integer result refuses
    a float beta, a bool result any number (torch's cast error)."""
    same(lambda L, *a: getattr(L, op)(*a, beta=beta), *[_z(s, dtype) for s in shapes])


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (), (0,), (1, 0, 2), (0, 1, 2), (3,)])
def test_multilabel_margin_loss_shape_check_before_its_kernel(shape, dtype):
    """torch checks for a non-empty vector or matrix first and returns an empty batch before
    its kernel refuses integer inputs."""
    same(
        lambda L, x, y: F(L).multilabel_margin_loss(x, y, reduction="none"),
        _z(shape, dtype),
        _z(shape),
    )


def test_multilabel_margin_loss_target_checks():
    same(lambda L, x, y: F(L).multilabel_margin_loss(x, y), t(rand(3, 0)), _z((2,)))
    same(lambda L, x, y: F(L).multilabel_margin_loss(x, y), t(rand(2, 3)), t(rand(2, 3)))
    # the target's range is checked (values truncated to int64) before its dtype
    for target in ([[-1.5, 2.9, 0.0]], [[-2.0, 0.0, 0.0]], [[3.0, 0.0, 0.0]], [[0, 3, -2]]):
        dtype = "int64" if isinstance(target[0][0], int) else "float64"
        same(lambda L, x, y: F(L).multilabel_margin_loss(x, y), t(rand(1, 3)), t(target, dtype))


def _setitem(index):
    def fn(L, x, v):
        x = x if x.requires_grad else x.clone()
        x[index(L)] = v
        return x

    return fn


@pytest.mark.parametrize(
    "index,xs",
    [
        (lambda L: 0, (0, 3)),  # torch makes the view (select) first: its IndexError
        (lambda L: 5, (2, 3)),
        (lambda L: (0, 5), (2, 3)),
        (lambda L: (slice(None), 5), (2, 3)),
        (lambda L: L.tensor([0]), (0, 3)),  # index_put_ refuses the leaf first
        (lambda L: L.tensor([5]), (2, 3)),
    ],
)
def test_setitem_on_a_leaf_index_errors_first_for_a_view(index, xs):
    same(_setitem(index), t(np.zeros(xs)), t(1.0, rg=False))


@pytest.mark.parametrize(
    "xs,xd,vs,vd,idx",
    [
        ((0, 3), "int64", (2, 3), "float64", [0]),  # empty dim: checked at set-up
        ((2, 3), "int64", (2, 3), "float64", [0]),  # value shape before dtype
        ((2, 3), "bool", (2, 3), "int64", [5]),  # ... and before the bounds
        ((2, 3), "bool", (1, 3), "int64", [5]),  # dtype before the bounds
        ((2, 3), "int64", (1, 3), "int64", [1, -5, 7]),  # the first bad index
        ((4, 4), "bool", (2, 4), "int64", []),
    ],
)
def test_index_put_check_order(xs, xd, vs, vd, idx):
    """torch's index_put_: an empty indexed dim, the value's shape, its dtype, then (in the
    kernel) each index in order."""
    x, v, i = _z(xs, xd), _z(vs, vd), t(idx, "int64")
    same(lambda L, x, i, v: L.index_put(x, (i,), v), x, i, v)

    def setitem(L, x, i, v):
        x = x.clone()
        x[i] = v
        return x

    same(setitem, x, i, v)


@pytest.mark.parametrize(
    "index,xs",
    [
        (lambda L: L.tensor([-5, 7]), (3, 4)),
        (lambda L: L.tensor([7, -5]), (3, 4)),
        (lambda L: (slice(None), L.tensor([1, -5, 7])), (3, 4)),
        (lambda L: (L.tensor([0, 5, 1]), L.tensor([1, -5, 7])), (3, 4)),
        (lambda L: L.tensor([0]), (0, 3)),
        (lambda L: L.tensor([-1]), (0, 3)),
        (lambda L: (L.tensor([0]), L.tensor([0])), (0, 3)),
    ],
)
def test_getitem_index_errors(index, xs):
    """The first bad element in order; an empty indexed dim has its own message."""
    same(lambda L, x: x[index(L)], t(np.zeros(xs)))


@pytest.mark.parametrize(
    "a,b",
    [((2, 2, 4), (3, 0, 4)), ((2, 3, 4), (3, 2, 5)), ((2, 3), (4, 2, 4)), ((2, 2, 1), (0, 0, 1))],
)
def test_broadcast_error_names_the_last_bad_dim(a, b):
    """torch's infer_size walks the dims from the last one."""
    same(lambda L, x, y: x * y, t(np.zeros(a)), t(np.zeros(b)))
    same(lambda L, x, y: L.xlogy(x, y), t(np.zeros(a)), t(np.zeros(b)))
    same(lambda L, x, y: L.matmul(x, y), t(np.zeros(a + (2,))), t(np.zeros(b + (2, 2))))


@pytest.mark.parametrize("size", [(-1,), (2, -1), (-1, 2), (-2,), (-1, -1), (3, -2), (3, 4)])
@pytest.mark.parametrize("xs", [(), (1,), (2, 2)])
def test_expand_checks_from_the_last_dim(xs, size):
    """Right to left as torch's inferExpandGeometry; a 0-dim tensor (or a 1 expanded to a
    negative size) fails in numel."""
    same(lambda L, x: x.expand(*size), t(np.zeros(xs)))
    same(lambda L, x: L.broadcast_to(x, size), t(np.zeros(xs)))


@pytest.mark.parametrize(
    "si,sm,sv",
    [
        ((3, 2, 1), (1, 1), (1,)),
        ((2, 1), (1, 2), (2,)),
        ((2,), (2, 2, 3), (2,)),
        ((2,), (2, 2), (2, 3)),
        ((2, 2), (2, 3), (3,)),
        ((2,), (1, 2), (2,)),
        ((3,), (2, 2), (2,)),
    ],
)
def test_addmv_dims_before_sizes(si, sm, sv):
    same(lambda L, i, m, v: L.addmv(i, m, v), t(rand(*si)), t(rand(*sm)), t(rand(*sv)))


def test_addmm_and_baddbmm_expand_errors_name_the_last_bad_dim():
    same(lambda L, i, a, b: L.addmm(i, a, b), t(rand(2, 2)), t(rand(4, 3)), t(rand(3, 0)))
    same(lambda L, i, a, b: L.addmm(i, a, b), t(rand(2, 2)), t(rand(3, 3)), t(rand(3, 3)))
    same(lambda L, i, a, b: L.baddbmm(i, a, b), t(rand(2, 2)), t(rand(1, 1, 3)), t(rand(1, 3, 1)))
    same(lambda L, i, a, b: L.addbmm(i, a, b), t(rand(2, 2)), t(rand(1, 5, 3)), t(rand(1, 3, 3)))


# ----- wording (same type, torch's message) ------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.sort(x, dim=0, keepdim=True),  # torch lists the keywords last to first
        lambda L, x: L.sort(x, keepdim=True, dim=0),
        lambda L, x: L.argsort(x, keepdim=True, dim=0),
        lambda L, x: L.sort(x, 0, keepdim=True),
    ],
)
def test_sort_unknown_keyword_is_an_invalid_combination(fn):
    same(fn, t(rand(3)))


@pytest.mark.parametrize(
    "fn,x",
    [
        (lambda L, x: L.take(x, L.tensor([0, 1])), t(np.zeros(0))),
        (lambda L, x: L.take(x, L.tensor([1, -5, 7])), t(rand(3))),
        (lambda L, x: L.take(x, L.tensor([1, 7, -5])), t(rand(3))),
        (lambda L, x: L.masked_scatter(x, L.tensor([1.0, 0, 1]), x), t(rand(3))),
        (lambda L, x: x.clone().masked_scatter_(L.tensor([1, 0, 1]), x), t(rand(3))),
        (lambda L, x: L.masked_scatter(x, L.tensor([True, True, True]), x[:2]), t(rand(3))),
        (lambda L, x: L.where(x, x, x), t(rand(3))),
        (lambda L, x: L.where(x.long(), x, x), t(rand(3))),
        (lambda L, x: F(L).instance_norm(x), t(rand(1, 1, 1))),
        (lambda L, x: F(L).instance_norm(x), t(rand(2, 2, 1))),
        (lambda L, x: L.addcdiv(x, x, x), _z((3,))),
        (lambda L, x: L.cummin(x, 1), t(1.0)),
        (lambda L, x: L.cummax(x, -2), t(1.0)),
        (lambda L, x: L.repeat_interleave(x, 2, -1), t(1.0)),
        (lambda L, x: L.repeat_interleave(x, 2, 1), t(1.0)),
        (lambda L, x: L.repeat_interleave(x, L.tensor([2]), 0), t(1.0)),
        (lambda L, x: L.std_mean(x), _z((3,))),
        (lambda L, x: L.var_mean(x), _z((3,))),
        (lambda L, x: x.clone().clamp_(0.5), _z((3,))),
        (lambda L, x: x.clone().clamp_(1), _z((3,), "bool")),
        (lambda L, x: x.clone().clamp_(max=0.5), _z((3,), "bool")),
        (lambda L, x: x.unflatten(-1, (2,)), t(rand(3))),
        (lambda L, x: x.unflatten(1, (0, -1)), t(np.zeros((2, 0)))),
        (lambda L, x: F(L).max_unpool1d(x, L.tensor([[[0, 9]]]), 2), t(rand(1, 1, 2))),
        (lambda L, x: F(L).max_unpool3d(x, L.tensor([[[[[0, 99]]]]]), 2), t(rand(1, 1, 1, 1, 2))),
    ],
)
def test_messages_as_torch_words_them(fn, x):
    same(fn, x)


@pytest.mark.parametrize(
    "shapes,training",
    [
        ([(2, 3), (0,), (0,)], True),
        ([(2, 3), (3,), (0,)], True),
        ([(2, 3), (0,), (3,)], False),
        ([(2, 3), (3,), (3,), (0,)], False),
        ([(2, 3), (3,), (3,), (3,), (2,)], False),
        ([(0, 3), (3,), (3,), (0,)], True),  # empty batch: torch's weight[0]
        ([(0, 3), (3,), (3,), (3,), (0,)], True),
    ],
)
def test_batch_norm_statistic_sizes(shapes, training):
    same(
        lambda L, x, *s: F(L).batch_norm(x, *s, training=training),
        *[t(rand(*s), rg=False) for s in shapes],
    )


@pytest.mark.parametrize(
    "shape,pad",
    [((0, 2), (0, -1)), ((2, 0), (0, -1)), ((2, 1), (-1, -1)), ((2, 3), (-4, 2)), ((3,), (-2, -2))],
)
def test_constant_pad_crops_with_narrow_first(shape, pad):
    same(lambda L, x: F(L).pad(x, pad), t(np.zeros(shape)))


@pytest.mark.parametrize(
    "fn,dtypes",
    [
        (lambda L, a, b: F(L).nll_loss(a, b), ("int64", (2, 3), (2,))),
        (lambda L, a, b: F(L).nll_loss(a, b), ("int64", (2, 3, 4), (2, 4))),
        (lambda L, a, b: F(L).cross_entropy(a, b), ("int64", (2, 3), (2,))),
        (lambda L, a, b: F(L).cross_entropy(a, b), ("int64", (2, 3, 4), (2, 4))),
        (lambda L, a, b: F(L).cross_entropy(a, b), ("int64", (3,), ())),
    ],
)
def test_loss_kernel_names_for_integer_input(fn, dtypes):
    dtype, xs, ts = dtypes
    same(fn, _z(xs, dtype), _z(ts))


@pytest.mark.parametrize(
    "d1,d2,dt",
    [("bool", "bool", "bool"), ("bool", "float64", "float64"), ("float64", "bool", "float64")],
)
def test_margin_ranking_loss_subtracts_first(d1, d2, dt):
    same(lambda L, a, b, y: F(L).margin_ranking_loss(a, b, y), _z(3, d1), _z(3, d2), _z(3, dt))


@pytest.mark.parametrize("dx,dy", [("bool", "bool"), ("float64", "bool"), ("int64", "int64")])
def test_bce_with_logits_bool_target(dx, dy):
    same(lambda L, x, y: F(L).binary_cross_entropy_with_logits(x, y), _z(3, dx), _z(3, dy))


@pytest.mark.parametrize("shape", [(1, 2, 3), (1, 2, 3, 3), (1, 2, 3, 3, 3)])
def test_local_response_norm_bool_kernel_names(shape):
    same(lambda L, x: F(L).local_response_norm(x, 2), _z(shape, "bool"))


def test_bilinear_bool_is_refused_by_bmm():
    same(
        lambda L, *a: F(L).bilinear(*a),
        _z((3, 2), "bool"),
        _z((3, 3), "bool"),
        _z((4, 2, 3), "bool"),
    )


@pytest.mark.parametrize(
    "fn,xs,idx",
    [
        (lambda L, x, i: L.scatter_add(x, 0, i, x), (4, 5), [[-4, -2, 0, 1, 2]] * 4),
        (lambda L, x, i: L.scatter(x, 1, i, 2.0), (2, 3), [[0, -3, 5], [1, 1, 1]]),
        (lambda L, x, i: L.gather(x, 1, i), (2, 3), [[0, 7, -5], [1, 1, -1]]),
        (lambda L, x, i: L.take_along_dim(x, i), (3, 5), [4, -3, -1, 99]),
    ],
)
def test_scatter_gather_name_the_first_bad_index(fn, xs, idx):
    """torch's kernel walks along dim innermost and reports the first bad index."""
    same(fn, t(rand(*xs), rg=False), t(idx, "int64"))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: x.pow_(L.zeros(1, 3)),  # the leaf refusal before the output shape
        lambda L, x: x.pow_(L.zeros(2, 3)),
        lambda L, x: x.clone().pow_(L.zeros(1, 3)),
    ],
)
def test_inplace_on_a_leaf_refused_before_shape_checks(fn):
    same(fn, t(rand(1, 1)))


def test_masked_scatter_on_a_leaf_refused_before_the_mask_expands():
    same(
        lambda L, x, s: x.masked_scatter_(L.zeros(1, 1, 0, dtype=L.bool), s),
        t(np.zeros((4, 0))),
        t(rand(1)),
    )


def test_soft_margin_loss_target_requires_grad_checked_first():
    same(lambda L, x, y: F(L).soft_margin_loss(x, y), t(rand(2, 3)), t(rand(2, 2, 3)))
    same(lambda L, x, y: F(L).soft_margin_loss(x, y), t(rand(2, 3)), t(rand(4, 3)))


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize("shape", [(0, 1, 3), (2, 0, 3), (2, 3, 0), (0, 3, 3), (3, 3)])
def test_lu_of_an_empty_integer_matrix(shape, dtype):
    """torch factors an empty (batch of) matrix of any dtype; a non-empty one is refused."""
    same(lambda L, a: L.linalg.lu(a), _z(shape, dtype))
    same(lambda L, a: L.linalg.lu_factor_ex(a), _z(shape, dtype))


def test_scatter_reduce_mean_of_bool_checks_the_dim_first():
    same(
        lambda L, x, i, s: L.scatter_reduce(x, 4, i, s, "mean"),
        _z((1, 1, 5, 5), "bool"),
        _z((1, 1, 0, 0)),
        _z((1, 1, 0, 0), "bool"),
    )


def test_index_put_accumulate_value_shape_message():
    same(
        lambda L, x, i, v: L.index_put(x, (i,), v, accumulate=True),
        _z((5, 3), "bool"),
        _z((4,)),
        _z((4, 4), "bool"),
    )


def test_masked_fill_checks_the_mask_dtype_before_the_value():
    same(lambda L, x, m: x.clone().masked_fill_(m, float("nan")), _z(()), _z((2,)))


@pytest.mark.parametrize(
    "shape,pad",
    [
        ((1, 2, 1, 4), (1, 2, 1, 1)),
        ((1, 2, 4, 4), (5, 1, 1, 1)),
        ((1, 1, 2, 4, 4), (1, 1, 1, 1, 3, 1)),
    ],
)
def test_reflect_pad_names_the_argument_of_the_bad_dim(shape, pad):
    same(lambda L, x: F(L).pad(x, pad, mode="reflect"), t(rand(*shape)))


def test_reflect_pad_of_bool_checks_the_padding_first():
    same(lambda L, x: F(L).pad(x, (0, 1), mode="reflect"), _z((3, 1), "bool"))
    same(lambda L, x: F(L).pad(x, (0, 1), mode="replicate"), _z((3, 1), "bool"))


@pytest.mark.parametrize(
    "m",
    [
        [[1.0, INF], [0, 1]],  # an infinity: NaN singular values
        [[INF, INF], [INF, INF]],
        [[0.56, -0.46, 0.86, 0.85], [0.31, 0.29, 1.41, -INF]],
        [[NAN, 1.0], [1.0, 1.0]],  # a NaN: LAPACK fails, torch's error
        [[[1.0, INF], [0, 1]], [[1.0, 2], [3, 4]]],
        [[[1.0, INF], [0, 1]], [[1.0, NAN], [3, 4]]],
    ],
)
def test_singular_values_of_non_finite_matrices(m):
    same(lambda L, a: L.linalg.svdvals(a), t(m, rg=False))
    same(lambda L, a: L.linalg.matrix_norm(a, "nuc"), t(m, rg=False))
    same(lambda L, a: L.linalg.matrix_norm(a, 2), t(m, rg=False))


def test_select_error_names_the_wrapped_dim():
    same(lambda L, x: L.select(x, -2, 0), t(np.zeros((0, 2))))


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize(
    "xs,ts",
    [
        ((0, 2), (0,)),
        ((0, 3, 4), (0, 4)),
        ((2, 0), (2,)),
        ((0, 2), (0, 2)),
        ((2, 3), (2,)),
        ((0, 2), (1,)),
    ],
)
def test_cross_entropy_of_an_empty_integer_batch(xs, ts, smoothing, dtype):
    """log_softmax runs no kernel on an empty input: the target checks, then nll_loss's
    kernel refuse it."""
    same(lambda L, x, y: F(L).cross_entropy(x, y, label_smoothing=smoothing), _z(xs, dtype), _z(ts))
    same(lambda L, x, y: F(L).nll_loss(x, y), _z(xs, dtype), _z(ts))


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize(
    "xs,ts", [((0, 3), (0,)), ((0,), ()), ((3,), ()), ((2, 3), (2,)), ((3, 0), (3,))]
)
def test_multi_margin_loss_of_an_empty_integer_batch(xs, ts, dtype):
    """As multilabel_margin_loss: the shape check, then an empty batch returns before the
    kernel refuses integers."""
    same(lambda L, x, y: F(L).multi_margin_loss(x, y, reduction="none"), _z(xs, dtype), _z(ts))
