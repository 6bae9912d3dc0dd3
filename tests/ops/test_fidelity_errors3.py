"""Named regression tests for the exception-type and wording mismatches the differential
fuzzer found in its sixth pass (seeds 13,000,000-13,099,999; continues
tests/ops/test_fidelity_errors2.py, same helpers): each runs the case in framework and torch
and compares the exception type and message (or the result: values, dtype, node names,
gradients)."""

import warnings

import numpy as np
import pytest
import torch

import framework

from ops.test_fidelity import F, rand, same, t

INF, NAN = float("inf"), float("nan")


def _index_reduce(L, x, dim, idx, src, reduce, include_self):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's "index_reduce() is in beta" warning
        return x.index_reduce(
            dim, L.tensor(idx, dtype=L.int64), src, reduce, include_self=include_self
        )


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
@pytest.mark.parametrize(
    "shape, dim, idx",
    [
        ((0,), 0, [0, 2, 1, 0]),  # empty 1-D self: the dtype dispatch, then the index check
        ((0, 1), 0, [0, 1, 2, 3, 4]),  # empty along dim: select(dim, 0) fails first
        ((3, 0), 1, [0, 1, 2, 3]),
        ((0, 0), 0, [0, 1, 2, 3]),
        ((5, 0), -1, [0, 1, 2, 3, 4]),  # index_fill_ restrides the fresh result first
        ((0, 3), 0, [1, 0]),
        ((4, 3), 1, [0, 3, 1]),  # out of range: index_fill_'s words, else the loop's
        ((4, 3), 0, [-1, 0]),  # negative: refused (index_fill_ alone would wrap it)
        ((3,), 0, [-1]),
        ((3,), 0, [3]),
        ((), 0, [0]),  # 0-dim self: the slice is the element
        ((), -1, [1]),
        ((2, 3), 1, []),
    ],
)
def test_index_reduce_checks_in_torchs_kernel_order(shape, dim, idx, dtype, reduce, include_self):
    """torch's index_reduce_func_impl: with include_self False the exclude-init dtype
    dispatch and index_fill_ of the contiguous result; then (2-D and up) select(dim, 0) and
    indices in [0, size), or (1-D, 0-dim) the dtype dispatch and the loop; last the floor
    division of a bool mean (ours raised other types and messages, wrapped negative indices)."""
    x = np.zeros(shape)
    src_shape = list(shape) if shape else []
    if src_shape:
        src_shape[dim] = len(idx)
    x, src = t(x, dtype), t(np.ones(src_shape), dtype)
    same(lambda L, a, b: _index_reduce(L, a, dim, idx, b, reduce, include_self), x, src)


@pytest.mark.parametrize(
    "shape, dim, idx, src_shape",
    [
        ((3, 2), 1, [0], (2,)),  # dim past the source's dims
        ((3, 2), 1, [0], ()),
        ((3, 2), 0, [0], ()),  # a 0-dim source of a 2-D self: the shape check
        ((3, 2), -1, [0, 1], (3, 3)),  # the count check names the wrapped dim
        ((3, 2), -1, [0, 1], (3, 2, 1)),
        ((), 0, [0, 0], (2,)),
        ((4,), 0, [1], (1, 1)),
        ((3,), 0, [0], ()),
    ],
)
def test_index_reduce_argument_checks_as_torchs_meta_function(shape, dim, idx, src_shape):
    x, src = t(np.zeros(shape)), t(np.ones(src_shape))
    same(lambda L, a, b: _index_reduce(L, a, dim, idx, b, "amax", True), x, src)
    same(
        lambda L, a, b: a.index_reduce(dim, L.tensor([idx]), b, "amax"),
        x,
        src,
    )


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_of_a_0_dim_self_has_torchs_gradient(reduce):
    for include_self in (True, False):
        same(lambda L, a, b: _index_reduce(L, a, 0, [0], b, reduce, include_self), t(2.0), t(3.0))


_NUMBERS = [INF, NAN, -INF, 1e30, 1e300, -1.5, 255.5, 300, -3, -256, 70000.0, 2**40, True]


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "float16"])
@pytest.mark.parametrize("dtype2", ["float32", "bool", "float64"])
@pytest.mark.parametrize("shape", [(), (1,), (2,), (0,)])
def test_python_numbers_convert_as_torchs_checked_scalar(shape, dtype, dtype2):
    """c10's checked_convert: inf/NaN or an out-of-range number into an integer tensor, a
    finite float past float32's or float16's range refuse (RuntimeError, 'value cannot be
    converted to type int64_t without overflow'); a negative int wraps into uint8; a
    one-element fill (full, fill_, scalar_tensor) skips the float16 range check (ours
    stored wrapped or saturated values, or raised OverflowError/ValueError)."""
    for dt in (dtype, dtype2):
        for v in _NUMBERS:

            def fill(L, v=v):
                return L.zeros(shape, dtype=getattr(L, dt)).fill_(v)

            def setitem(L, v=v):
                x = L.zeros(shape + (2,), dtype=getattr(L, dt))
                x[..., 0] = v
                return x

            same(lambda L: L.full(shape, v, dtype=getattr(L, dt)))
            same(lambda L: L.scalar_tensor(v, dtype=getattr(L, dt)))
            same(fill)
            same(setitem)
            same(lambda L: L.zeros(shape, dtype=getattr(L, dt)).masked_fill(L.tensor(True), v))
            same(
                lambda L: L.zeros(shape + (2,), dtype=getattr(L, dt)).index_fill(
                    -1, L.tensor([1]), v
                )
            )


@pytest.mark.parametrize("value", [INF, 2, "t1", "t2", "tinf"])
@pytest.mark.parametrize(
    "shape, mask_shape, mask_dtype",
    [
        ((0, 2, 0, 5), (1, 1, 1, 2, 0, 1), "bool"),  # the in-place shape before the value
        ((0, 2, 0, 5), (1, 1, 1, 2, 0, 1), "int64"),  # in place: the mask dtype first
        ((0, 2, 0, 5), (3, 2, 1, 5), "int64"),
        ((0, 2, 0, 5), (3, 2, 1, 5), "bool"),  # the broadcast error names self first
        ((2, 5), (2, 1, 5), "bool"),
        ((2, 5), (1, 5), "bool"),
        ((2, 5), (2, 5), "int64"),
    ],
)
def test_masked_fill_checks_in_torchs_order(shape, mask_shape, mask_dtype, value):
    """masked_fill_ checks the value's dim, the mask dtype, the broadcast (self, mask), that
    self keeps its shape, then converts the value (a 0-dim tensor's item too: tensor(inf)
    into int64 overflows); ours converted first or not at all."""
    x, m = t(np.zeros(shape), "int64"), t(np.zeros(mask_shape), mask_dtype)

    def val(L):
        return {"t1": L.tensor(1.0), "t2": L.tensor([1.0, 2.0]), "tinf": L.tensor(INF)}.get(
            value, value
        )

    same(lambda L, a, b: a.masked_fill_(b, val(L)), x, m)
    same(lambda L, a, b: a.masked_fill(b, val(L)), x, m)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float16"])
def test_histogram_refuses_in_torchs_order(dtype):
    """A bins tensor of another dtype is refused first; an integer/bool input by the kernel
    that meets it first: the data's range ("histogramdd"), the edges' linspace (bool), then
    the counting kernel ("histogram_cpu"); ours named "histogramdd" always."""
    x = t(np.ones((4, 2)), dtype, rg=False)
    for fn in (
        lambda L, a: L.histogram(a.reshape(-1), bins=3),
        lambda L, a: L.histogram(a.reshape(-1), bins=3, range=(0.0, 1.0)),
        lambda L, a: L.histogram(a.reshape(-1), bins=L.tensor([0.0, 1.0, 2.0])),
        lambda L, a: L.histogram(a.reshape(-1), bins=L.tensor([0, 1, 2]).to(a.dtype)),
        lambda L, a: L.histogramdd(a, bins=3),
        lambda L, a: L.histogramdd(a, bins=[3, 2], range=[0.0, 1.0, 0.0, 1.0]),
        lambda L, a: L.histogramdd(a, bins=[L.tensor([0.0, 1.0]), L.tensor([0.0, 1.0])]),
        lambda L, a: L.histogramdd(a[:0], bins=3),
        lambda L, a: L.histogram(a[:0].reshape(-1), bins=3),
    ):
        if dtype == "float16":  # torch's float16 linspace rounds each step (edges differ)
            fn = (lambda f: lambda L, a: f(L, a)[0])(fn)
        same(fn, x)


@pytest.mark.parametrize("buf", [b"", b"abcd", bytearray(b"abcdefg"), bytearray(8)])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "float64", "int16"])
def test_frombuffer_checks_as_torchs_tensor_frombuffer(buf, dtype):
    """torch checks the length and count (not 0), then the byte offset (in [0, len)), then that
    the rest is a multiple of the element size, then the requested length (ours had one
    message of its own for the first two)."""
    for count in (-1, 0, 1, 2, 5, -2):
        for offset in (0, 1, 4, 7, -1, 8):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the non-writable buffer warning
                same(
                    lambda L: L.frombuffer(buf, dtype=getattr(L, dtype), count=count, offset=offset)
                )


@pytest.mark.parametrize(
    "size, stride",
    [
        ((), (1,)),
        ((2,), (1, 2)),
        ((-1,), (1,)),
        ((2,), (-1,)),
        ((2, 3), (1, -1)),
        ((-2, 3), (1, -1)),
        ((2, -3), (1, 2, 3)),
        ((0, 3), (-1, 1)),
        ((2, 3), (1, 2)),
    ],
)
def test_empty_strided_checks_as_torch(size, stride):
    """A negative size first, then the two lengths ('dimensionality of sizes (0) must match
    dimensionality of strides (1)'), then a negative stride of a non-empty tensor (the
    storage size overflows)."""
    same(lambda L: L.empty_strided(size, stride).shape)


def test_chain_matmul_of_one_non_matrix_has_torchs_message():
    """'Tensor dimension is 3, expected 2 instead.' with no 'chain_matmul(): ' prefix."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecation warning
        same(lambda L, a: L.chain_matmul(a), t(rand(3, 2, 1)))
        same(lambda L, a: L.chain_matmul(a), t(rand(3)))


@pytest.mark.parametrize("p", [2, -INF, INF, 0, 1.5])
@pytest.mark.parametrize(
    "dtypes",
    [("bool", "bool"), ("bool", "float32"), ("float32", "bool"), ("int64", "bool"), ("int64",) * 2],
)
def test_dist_refuses_bool_subtraction_before_the_norms_dtype(dtypes, p):
    """torch's dist is norm(a - b): a bool operand is refused by the subtraction first."""
    for shapes in (((5,), (1,)), ((0,), (1,))):
        a, b = (t(np.zeros(s), d, rg=False) for s, d in zip(shapes, dtypes))
        same(lambda L, x, y: L.dist(x, y, p), a, b)


@pytest.mark.parametrize("dtype", ["bool", "int64", "float64"])
@pytest.mark.parametrize(
    "s1, s2, dims",
    [
        ((1, 3), (3, 1), ([1], [0])),
        ((1, 3), (3,), 1),
        ((3,), (3,), 1),
        ((2, 3), (3,), 1),
        ((1, 2, 3), (2, 3, 1), 2),
        ((1, 1), (1, 1), 0),
        ((2, 1), (1, 2), 0),
    ],
)
def test_tensordot_with_one_element_per_free_side_is_torchs_dot(s1, s2, dims, dtype):
    """torch's tensordot calls dot (DotBackward0, "dot" refusing bool) when both free parts
    hold one element, mm otherwise; inner of (1, 1) and (1,) goes the same way."""
    a, b = t(rand(*s1), dtype), t(rand(*s2), dtype)
    same(lambda L, x, y: L.tensordot(x, y, dims), a, b)
    if isinstance(dims, int) and dims == 1:
        same(lambda L, x, y: L.inner(x, y), a, b)


@pytest.mark.parametrize("ord", [-INF, INF, 2, -1, 0])
def test_vector_norm_checks_empty_dims_before_repeated_ones(ord):
    """A -inf/inf/negative norm over an empty dimension is refused before the list of dims is
    checked for repeats (ours said 'dim 0 appears multiple times')."""
    for shape in ((0, 3), (3, 0), (2, 3), (), (0,)):
        for dim in ((-2, -2), (1, 1), (0,), 5, (0, 5), None, (), -1, (-1, 0)):
            same(lambda L, x: L.linalg.vector_norm(x, ord=ord, dim=dim), t(np.zeros(shape)))


def test_setitem_reports_the_value_without_its_leading_ones():
    """x[index] = v views v without its leading 1s first (torch's slicePrefix1sSize): the
    shape mismatch names [3, 5], not [1, 1, 3, 5]; torch.index_put keeps the full shape."""

    def put(L, x, v, i):
        x = x.clone()
        x[i(L)] = v
        return x

    x = t(np.zeros((3, 4)))
    for v, i in (
        ((1, 1, 3, 5), lambda L: L.tensor([0, 1])),
        ((1, 5), lambda L: L.tensor([0, 1])),
        ((1, 1, 3, 5), lambda L: L.tensor([True, False, True])),
        ((1, 1, 3), lambda L: (L.tensor([0, 1]), L.tensor([0, 1]))),
        ((1, 1, 5), lambda L: L.tensor([0, 9])),
        ((1, 1, 4), lambda L: L.tensor([0, 2])),
    ):
        same(lambda L, a, b: put(L, a, b, i), x, t(rand(*v)))
    same(lambda L, a, b: L.index_put(a, (L.tensor([0, 1]),), b), x, t(rand(1, 5)))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"keepdim": False, "unbiased": False},
        {"unbiased": True, "keepdim": True},
        {"unbiased": True, "correction": 1},
        {"dim": 0, "unbiased": True, "correction": 1},
        {"keepdim": True, "unbiased": True, "correction": 1},
    ],
)
def test_var_std_refusals_describe_the_call_as_torch(kwargs):
    """No overload takes unbiased with correction, or unbiased and keepdim without dim:
    torch's TypeError lists the keywords last to first as given (ours: a fixed order), and
    the method form leaves self out (with a trailing ', ' when only keywords were given)."""
    x = t(rand(2, 3))
    for fn in ("var", "std", "var_mean", "std_mean"):
        same(lambda L, a: getattr(L, fn)(a, **kwargs), x)
    for fn in ("var", "std"):
        same(lambda L, a: getattr(a, fn)(**kwargs), x)
        k = {n: v for n, v in kwargs.items() if n != "dim"}
        same(lambda L, a: getattr(a, fn)(0, **k), x)


def test_index_fill_converts_a_0_dim_tensor_values_item():
    """index_fill_ with a 0-dim tensor value reads its item: inf into int64 overflows (ours
    stored INT64_MIN)."""
    x = t(np.zeros(3), "int64", rg=False)
    for v in (INF, 2.5, -3.0):
        same(lambda L, a, b: a.index_fill(0, L.tensor([0]), b), x, t(v, rg=False))
    same(lambda L, a, b: a.index_fill(0, L.tensor([0]), b), x, t([1.0, 2.0], rg=False))


@pytest.mark.parametrize("value", [INF, 300, -3, 1e5, 2.5, True])
@pytest.mark.parametrize("dtype", ["int64", "uint8", "float16", "float32", "bool"])
def test_constant_pad_converts_its_value_as_torchs_fill(value, dtype):
    """F.pad fills the new output with float(value) (a checked conversion: inf into int64,
    -3 into uint8 refused; one element skips the float16 check); a crop only narrows."""
    for shape, pad in (((2,), (1, 1)), ((0,), (1, 0)), ((3,), (-1, -1)), ((1,), (0, 0))):
        x = t(np.zeros(shape), dtype, rg=False)
        same(lambda L, a: F(L).pad(a, pad, value=value), x)


def test_dist_computes_in_torchs_common_dtype():
    """dist(float32, int64) is float32 (NumPy's float32 - int64 made it float64)."""
    same(
        lambda L, a, b: L.dist(a, b, 3.5), t(rand(1, 5, 1, 1), "float32"), t([[[[1]]] * 5], "int64")
    )
    same(lambda L, a, b: L.dist(a, b), t(rand(3), "float64"), t(rand(3), "float32"))


def test_scatter_family_shape_error_is_torchs_scatter_shape_check():
    """scatter/scatter_add/scatter_reduce say "Expected index ... to be no larger than self"
    (torch's scatter_shape_check; with src, its size too); gather keeps "Size does not match at
    dimension k"."""
    calls = [
        lambda L, x: x.scatter(0, L.tensor([[0, 0, 0]]), 1.0),
        lambda L, x: x.scatter(0, L.tensor([[0, 0, 0]]), L.ones(1, 3)),
        lambda L, x: x.scatter_add(0, L.tensor([[0, 0, 0]]), L.ones(1, 3)),
        lambda L, x: x.scatter_reduce(0, L.tensor([[0, 0]]), L.ones(1, 1), "sum"),
        lambda L, x: x.gather(0, L.tensor([[0, 0, 0]])),
    ]
    for call in calls:
        errors = []
        for L in (torch, framework):
            with pytest.raises(RuntimeError) as e:
                call(L, L.zeros(2, 2))
            errors.append(str(e.value))
        assert errors[1] == errors[0]
