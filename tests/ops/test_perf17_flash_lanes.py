"""The seventeenth pass's vector loops (LLVM vectors in numba intrinsics) against the plain
loops they replace, at every lane width the replays use (torch's AVX2 and AVX-512 kernels):
the flash replay's row dots and exp sums (ops/_flash_jit) and the torch-order sums' block
additions (ops/_sum_kernel). The flash kernels themselves are compared with torch in
test_fidelity_pass16_mha."""

import numpy as np
import pytest

from framework.ops import _fused

pytestmark = pytest.mark.skipif(_fused.kernels() is None, reason="needs numba")


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}")


def _row_dots_numpy(x, y, lanes):
    """The NumPy row dots the compiled loop replaced (torch's map2_reduce_all order)."""
    p = x * y
    n = p.shape[-1]
    if n < lanes:
        r = p[..., 0].copy()
        for c in range(1, n):
            r += p[..., c]
        return r
    acc = p[..., :lanes].copy()
    full = n - n % lanes
    for c in range(lanes, full, lanes):
        acc += p[..., c : c + lanes]
    if n > full:
        acc[..., : n - full] += p[..., full:]
    if lanes == 8 and acc.itemsize == 4:
        a = acc
    elif lanes == 16:
        a = acc[..., :8] + acc[..., 8:]
    else:
        r = acc[..., 0].copy()
        for c in range(1, lanes):
            r += acc[..., c]
        return r
    return ((a[..., 0] + a[..., 4]) + (a[..., 2] + a[..., 6])) + (
        (a[..., 1] + a[..., 5]) + (a[..., 3] + a[..., 7])
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lanes", [2, 4, 8, 16])
def test_row_dots_are_the_numpy_lane_order(dtype, lanes):
    from framework.ops import _flash_jit as j

    rng = np.random.default_rng(17_000 + lanes)
    for ne in (1, 3, 4, 8, 9, 16, 17, 31, 32, 40):
        for layout in ("rows", "fortran", "broadcast"):
            x = (rng.standard_normal((2, 3, 5, ne)) * 3).astype(dtype)
            y = np.ascontiguousarray(rng.standard_normal((2, 5, 3, ne)).astype(dtype))
            y = y.transpose(0, 2, 1, 3)
            x[0, 0, 1] = -0.0
            x[0, 0, 2] = -0.0
            y[0, 0, 2] = 0.0
            y[0, 0, 0, 0] = np.nan
            x[1, 1, 1, -1] = np.inf
            if layout == "fortran":
                x = np.asfortranarray(x)
            elif layout == "broadcast":
                x = np.broadcast_to(x[:, :1], x.shape)
            got, want = j.row_dots(x, y, lanes), _row_dots_numpy(x, y, lanes)
            assert np.array_equal(_bits(got), _bits(want)), (ne, layout)


def _exp_sum_loop(row, top, lanes, kept, j):
    """The forward's exps and their sum as the kernel wrote them before: the masked
    elements -inf, exp_u20 on the vectors, an accumulator array, the C exp on the rest."""
    row = row.copy()
    row[kept:] = -np.inf
    full = len(row) - len(row) % lanes
    j._exp_row(row[:full], top)
    acc = np.zeros(lanes, row.dtype)
    for c0 in range(0, full, lanes):
        for c in range(lanes):
            acc[c] = acc[c] + row[c0 + c]
    s = j._lanes_sum(acc, lanes)
    for c in range(full, len(row)):
        e = row.dtype.type(np.exp(np.float64(row[c] - top)))
        if row.dtype == np.float64:
            e = np.exp(row[c] - top)
        s = s + e
        row[c] = e
    return row, s


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_exp_sums_are_the_lane_order(dtype, lanes):
    from framework.ops import _flash_jit as j

    rng = np.random.default_rng(17_100 + lanes)
    zero = dtype(0)
    for n in (1, 7, 16, 33, 64, 100):
        for kept in sorted({0, 1, n // 2, n - 1, n}):
            row = (rng.standard_normal(n) * 4).astype(dtype)
            top = dtype(row[:kept].max() if kept else 0)
            got = row.copy()
            s = j._exp_sum(got, top, lanes, zero, kept)
            want, t = _exp_sum_loop(row, top, lanes, kept, j)
            assert np.array_equal(_bits(got), _bits(want)), (n, kept)
            assert _bits(dtype(s)) == _bits(dtype(t)), (n, kept)  # numba returns Python floats


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scale_max_keeps_the_first_largest(dtype):
    from framework.ops import _flash_jit as j

    rng = np.random.default_rng(17_200)
    none = np.empty(0, dtype)
    for n in (0, 1, 7, 8, 9, 64, 77):
        row = rng.standard_normal(n).astype(dtype)
        if n > 3:
            row[1] = np.nan
            row[3] = -np.inf
        want = dtype(-np.inf)
        for x in row * dtype(0.5):
            want = x if x > want else want
        got = j._scale_max(row.copy(), dtype(0.5), none, dtype(-np.inf), 0)
        assert _bits(dtype(got)) == _bits(want)  # numba returns a Python float
        # a NaN among the elements torch's vector loop reads (vec::maximum keeps it): NaN
        got = j._scale_max(row.copy(), dtype(0.5), none, dtype(-np.inf), n - n % 8)
        assert np.isnan(got) if n >= 8 else _bits(dtype(got)) == _bits(want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lanes", [1, 4, 8])
def test_block_add_is_the_loop(dtype, lanes):
    from framework.ops import _sum_kernel as sk

    rng = np.random.default_rng(17_300 + lanes)
    x = (rng.standard_normal(4096) * 100).astype(dtype)
    x[5] = -0.0
    for stride, count in ((lanes, 16), (3 * lanes + 1, 7), (64, 32), (lanes, 0)):
        acc = rng.standard_normal((4, 4, lanes)).astype(dtype)
        want = acc.copy()
        sk._block_add(acc, 2, x, 11, stride, count, lanes)
        sk.block_add(want, 2, x, 11, stride, count, lanes)
        assert np.array_equal(_bits(acc), _bits(want)), (stride, count)
