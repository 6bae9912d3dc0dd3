"""Issue 9 (fidelity): the backward of layer_norm, group_norm, batch_norm (training and
evaluation) and instance_norm gives torch 2.13's float32/float64 gradient bits (input, weight
and bias), framework/ops/_norm_grad.py replaying its CPU kernels (LayerNormBackwardKernelImpl,
GroupNormBackwardKernelImpl, batch_norm_cpu_backward's contiguous and channels-last kernels).
Every case runs with the compiled loops (numba) and with the NumPy replays (the ``loops``
fixture). Thread counts: layer_norm's dgamma/dbeta and the 2-D batch_norm's sums depend on
how torch splits the rows over its threads; the tests run with both libraries' defaults (the
replay follows framework.set_num_threads, else OMP_NUM_THREADS, else the CPU count, as torch),
and ``test_thread_counts`` sets 1 to 3 threads in both."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
from bits import tensor_bits
import framework.nn.functional as F
from framework.ops import _norm_grad

RNG = np.random.default_rng(919)
DTYPES = ["float32", "float64"]
WIDTHS = [1, 3, 7, 8, 9, 17, 100, 1000]


@pytest.fixture(params=["compiled", "numpy"])
def loops(request, monkeypatch):
    """The compiled loops (where numba is installed), then the NumPy replays."""
    if request.param == "numpy":
        monkeypatch.setattr(_norm_grad, "loops", lambda: None)
    return request.param


def _data(shape, dtype, scale=3.0, shift=1.0):
    return (RNG.standard_normal(shape) * scale + shift).astype(dtype)


_bits = tensor_bits


def _grads(fn_ours, fn_theirs, arrays, wanted):
    """Both libraries' gradients of fn for one random upstream gradient: inputs `arrays`,
    `wanted` saying which require grad; a list of (ours, torch's) per wanted input."""
    ours = [framework.tensor(a, requires_grad=w) for a, w in zip(arrays, wanted)]
    theirs = [torch.tensor(a, requires_grad=w) for a, w in zip(arrays, wanted)]
    out = fn_theirs(*theirs)
    g = _data(tuple(out.shape), arrays[0].dtype, 1.0, 0.0)
    fn_ours(*ours).backward(framework.tensor(g))
    out.backward(torch.tensor(g))
    return [(o.grad, t.grad) for o, t, w in zip(ours, theirs, wanted) if w]


def _affine(n, dtype, affine):
    w = _data(n, dtype, 1.0) if affine in ("weight", "both") else None
    b = _data(n, dtype, 1.0) if affine in ("bias", "both") else None
    return w, b


def _check(fn_ours, fn_theirs, x, w, b, wanted=None):
    """Both libraries' gradients of fn(x, w, b) (w, b: arrays or None) have the same bits."""
    arrays = [x] + [a for a in (w, b) if a is not None]
    wanted = wanted or [True] * len(arrays)
    for ours, theirs in _grads(_splat(fn_ours, w, b), _splat(fn_theirs, w, b), arrays, wanted):
        _bits(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("rows", [(1,), (6,), (3, 7)])
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_layer_norm(loops, dtype, n, rows, affine):
    if n == 1 and rows == (1,):
        rows = (2,)
    x = _data(rows + (n,), dtype)
    w, b = _affine(n, dtype, affine)
    _check(
        lambda x, w, b: F.layer_norm(x, (n,), w, b),
        lambda x, w, b: TF.layer_norm(x, (n,), w, b),
        x,
        w,
        b,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_shapes_and_masks(loops, dtype):
    """Two normalised dims, a transposed input, and each subset of inputs requiring grad."""
    x, w, b = _data((4, 5, 3, 9), dtype), _data((3, 9), dtype), _data((3, 9), dtype)
    for wanted in ([True, True, True], [True, False, True], [False, True, False]):
        _check(
            lambda x, w, b: F.layer_norm(x, (3, 9), w, b),
            lambda x, w, b: TF.layer_norm(x, (3, 9), w, b),
            x,
            w,
            b,
            wanted,
        )
    _check(
        lambda x, w, b: F.layer_norm(x.transpose(0, 1), (5,), w, b),
        lambda x, w, b: TF.layer_norm(x.transpose(0, 1), (5,), w, b),
        _data((6, 7, 5), dtype),
        _data(5, dtype),
        None,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 6, 1), (3, 6, 7), (2, 16, 9), (2, 24, 17), (4, 12, 100)])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_group_norm(loops, dtype, shape, affine):
    x = _data(shape, dtype)
    w, b = _affine(shape[1], dtype, affine)
    for groups in sorted({g for g in (1, 2, 3, 4, 6, shape[1]) if shape[1] % g == 0}):
        if shape[2] == 1 and groups == shape[1]:
            continue  # one value per group: refused by both
        _check(
            lambda x, w, b: F.group_norm(x, groups, w, b),
            lambda x, w, b: TF.group_norm(x, groups, w, b),
            x,
            w,
            b,
        )


@pytest.mark.parametrize("dtype", DTYPES)
def test_group_norm_image(loops, dtype):
    x, w, b = _data((2, 9, 4, 5), dtype), _data(9, dtype), _data(9, dtype)
    _check(
        lambda x, w, b: F.group_norm(x, 3, w, b), lambda x, w, b: TF.group_norm(x, 3, w, b), x, w, b
    )


BN_SHAPES = [(2, 3), (3, 5), (7, 13), (64, 10), (33, 17), (4, 3, 8), (9, 2, 17), (3, 4, 7, 5)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", ["none", "both"])
def test_batch_norm_eval(loops, dtype, shape, affine):
    c = shape[1]
    rm, rv = _data(c, dtype), np.abs(_data(c, dtype)) + 0.5
    w, b = _affine(c, dtype, affine)
    _check(
        lambda x, w, b: F.batch_norm(x, framework.tensor(rm), framework.tensor(rv), w, b),
        lambda x, w, b: TF.batch_norm(x, torch.tensor(rm), torch.tensor(rv), w, b),
        _data(shape, dtype),
        w,
        b,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", ["none", "both"])
def test_batch_norm_train(loops, dtype, shape, affine):
    """Training: torch's bits, float64 images included (the forward's saved invstd replays
    torch's paired, odd-last-fused var_sum)."""
    c = shape[1]
    x = _data(shape, dtype)
    w, b = _affine(c, dtype, affine)
    fns = (
        lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
        lambda x, w, b: TF.batch_norm(x, None, None, w, b, True),
    )
    _check(*fns, x, w, b)


def _splat(fn, w, b):
    """fn(x, w, b) called with the given ones of w and b as trailing arguments."""

    def call(x, *rest):
        rest = list(rest)
        return fn(x, rest.pop(0) if w is not None else None, rest.pop(0) if b is not None else None)

    return call


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 4, 9), (2, 3, 5, 7), (4, 2, 100)])
def test_instance_norm(loops, dtype, shape):
    c = shape[1]
    _check(
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        lambda x, w, b: TF.instance_norm(x, weight=w, bias=b),
        _data(shape, dtype),
        _data(c, dtype),
        _data(c, dtype),
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_kernels_on_torch_statistics(loops, dtype):
    """The replayed kernels against torch's backward ops, both given torch's saved mean and
    rstd (the kernels alone, whatever the forward saved): float64 images included."""
    for shape in [(5, 7), (4, 33), (2, 3, 8), (3, 6, 17)]:
        x, dy = _data(shape, dtype), _data(shape, dtype, 1.0, 0.0)
        c = shape[1]
        w = _data(c, dtype)
        tx, tdy, tw = torch.tensor(x), torch.tensor(dy), torch.tensor(w)
        _, mean, invstd = torch.native_batch_norm(tx, tw, tw, None, None, True, 0.1, 1e-5)
        want = torch.ops.aten.native_batch_norm_backward(
            tdy, tx, tw, None, None, mean, invstd, True, 1e-5, [True, True, True]
        )
        got = _norm_grad.batch_norm_backward(
            dy, x, w, mean.numpy(), invstd.numpy(), True, (True, True, True)
        )
        for g, t in zip(got, want):
            _bits(g, t)
        rows = x.reshape(shape[0], -1)
        n = rows.shape[1]
        _, mean, rstd = torch.native_layer_norm(torch.tensor(rows), [n], None, None, 1e-5)
        want = torch.ops.aten.native_layer_norm_backward(
            torch.tensor(dy.reshape(rows.shape)),
            torch.tensor(rows),
            [n],
            mean,
            rstd,
            None,
            None,
            [True, False, False],
        )
        got = _norm_grad.layer_norm_backward(
            dy.reshape(rows.shape), rows, mean.numpy(), rstd.numpy(), None, (True, False, False)
        )
        _bits(got[0], want[0])


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_thread_counts(threads):
    """layer_norm's dgamma/dbeta and the 2-D batch_norm's sums: torch splits the rows over its
    threads (at::parallel_for), the replay as it with the same count."""
    saved_t, saved_f = torch.get_num_threads(), framework.get_num_threads()
    torch.set_num_threads(threads)
    framework.set_num_threads(threads)
    try:
        for dtype in DTYPES:
            x, w, b = _data((7, 40), dtype), _data(40, dtype), _data(40, dtype)
            _check(
                lambda x, w, b: F.layer_norm(x, (40,), w, b),
                lambda x, w, b: TF.layer_norm(x, (40,), w, b),
                x,
                w,
                b,
            )
            _check(
                lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
                lambda x, w, b: TF.batch_norm(x, None, None, w, b, True),
                _data((11, 9), dtype),
                _data(9, dtype),
                _data(9, dtype),
            )
    finally:
        torch.set_num_threads(saved_t)
        framework.set_num_threads(saved_f)


GRADGRAD = {
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (9,), w, b), [(4, 9), (9,), (9,)]),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), [(3, 4, 5), (4,), (4,)]),
    "batch_norm_image": (
        lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
        [(3, 2, 5), (2,), (2,)],
    ),
    "batch_norm_rows": (
        lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
        [(6, 3), (3,), (3,)],
    ),
}


@pytest.mark.parametrize("name", sorted(GRADGRAD))
def test_gradcheck_and_gradgradcheck(name):
    """float64 gradcheck (the replayed kernels) and gradgradcheck (the double backward, still
    composite, over the replayed first gradients)."""
    fn, shapes = GRADGRAD[name]
    xs = [framework.tensor(RNG.standard_normal(s), requires_grad=True) for s in shapes]
    assert framework.autograd.gradcheck(fn, xs)
    assert framework.autograd.gradgradcheck(fn, xs)
