"""conv1d/conv2d/conv_transpose1d/2d against torch: values, grad_fn, gradients, errors."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import framework
from framework.autograd import gradcheck, gradgradcheck
from helpers import compare_with_torch, randn, to_fw

CONV2D = [  # (x shape, w shape, bias, kwargs)
    ((2, 4, 9, 8), (6, 4, 3, 3), True, {}),
    ((2, 4, 9, 8), (6, 4, 3, 3), True, dict(stride=2)),
    ((2, 4, 9, 8), (6, 4, 3, 3), False, dict(padding=1)),
    ((2, 4, 9, 8), (6, 4, 3, 3), True, dict(dilation=2)),
    ((2, 4, 9, 8), (6, 2, 3, 3), True, dict(groups=2)),
    ((2, 4, 9, 8), (4, 1, 3, 3), True, dict(groups=4, padding=1)),  # depthwise
    ((2, 4, 9, 8), (8, 1, 3, 3), False, dict(groups=4, stride=2)),  # depthwise multiplier 2
    ((2, 4, 9, 8), (5, 4, 1, 1), True, {}),  # 1x1
    ((2, 4, 9, 8), (5, 4, 2, 4), True, dict(stride=(2, 1), padding=(1, 2))),  # rectangular
    ((2, 4, 9, 8), (5, 4, 3, 3), True, dict(padding="same")),
    ((2, 4, 9, 8), (5, 4, 4, 2), True, dict(padding="same", dilation=(1, 2))),  # asymmetric
    ((2, 4, 9, 8), (5, 4, 3, 3), True, dict(padding="valid")),
    ((2, 6, 10, 11), (6, 3, 3, 2), True, dict(stride=3, padding=2, dilation=(2, 3), groups=2)),
    ((4, 9, 8), (6, 4, 3, 3), True, dict(padding=1)),  # unbatched
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("xs,ws,bias,kw", CONV2D)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_conv2d(xs, ws, bias, kw, dtype, device):
    inputs = [randn(*xs, dtype=dtype), randn(*ws, dtype=dtype)]
    if bias:
        inputs.append(randn(ws[0], dtype=dtype))
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else {}
    compare_with_torch(
        lambda *a: framework.conv2d(*a, **kw),
        lambda *a: F.conv2d(*a, **kw),
        inputs,
        device=device,
        **tol,
    )


@pytest.mark.parametrize(
    "kw", [{}, dict(stride=2, padding=1), dict(dilation=3, groups=2), dict(padding="same")]
)
def test_conv1d(kw, device):
    w = randn(6, 2 if kw.get("groups") else 4, 3)
    compare_with_torch(
        lambda *a: framework.conv1d(*a, **kw),
        lambda *a: F.conv1d(*a, **kw),
        [randn(2, 4, 17), w, randn(6)],
        device=device,
    )


CONV_T = [  # (x shape, w shape, kwargs)
    ((2, 4, 5, 6), (4, 3, 3, 3), {}),
    ((2, 4, 5, 6), (4, 3, 3, 3), dict(stride=2)),
    ((2, 4, 5, 6), (4, 3, 3, 2), dict(stride=2, padding=1, output_padding=1)),
    ((2, 4, 5, 6), (4, 3, 3, 3), dict(stride=(2, 3), output_padding=(1, 2), groups=2)),
    ((2, 4, 5, 6), (4, 3, 3, 3), dict(dilation=2, padding=2)),
    ((2, 4, 5, 6), (4, 2, 1, 1), dict(stride=2)),
    ((4, 5, 6), (4, 3, 3, 3), dict(stride=2)),  # unbatched
]


@pytest.mark.parametrize("xs,ws,kw", CONV_T)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_conv_transpose2d(xs, ws, kw, dtype, device):
    out_c = ws[1] * kw.get("groups", 1)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else {}
    compare_with_torch(
        lambda *a: framework.conv_transpose2d(*a, **kw),
        lambda *a: F.conv_transpose2d(*a, **kw),
        [randn(*xs, dtype=dtype), randn(*ws, dtype=dtype), randn(out_c, dtype=dtype)],
        device=device,
        **tol,
    )


def test_conv_transpose1d(device):
    kw = dict(stride=2, padding=1, output_padding=1, dilation=2)
    compare_with_torch(
        lambda *a: framework.conv_transpose1d(*a, **kw),
        lambda *a: F.conv_transpose1d(*a, **kw),
        [randn(2, 4, 7), randn(4, 3, 3), randn(3)],
        device=device,
    )


def test_float32_stays_float32():
    x = framework.randn(2, 3, 8, 8, requires_grad=True)
    w = framework.randn(4, 3, 3, 3, requires_grad=True)
    y = framework.conv2d(x, w, padding=1)
    y.sum().backward()
    assert y.dtype == x.grad.dtype == w.grad.dtype == framework.float32


GRADCHECK = [
    lambda x, w, b: framework.conv2d(x, w, b, stride=2, padding=1, groups=2),
    lambda x, w, b: framework.conv2d(x, w, b, dilation=2, padding=(2, 1)),
    lambda x, w, b: framework.conv2d(x, w, b, padding="same"),
]


@pytest.mark.parametrize("fn", GRADCHECK)
def test_conv2d_gradcheck(fn):
    x = to_fw(randn(2, 4, 6, 5), requires_grad=True)
    w = to_fw(randn(6, 4 // 2 if fn is GRADCHECK[0] else 4, 3, 2), requires_grad=True)
    b = to_fw(randn(6), requires_grad=True)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_conv_transpose2d_gradcheck():
    x = to_fw(randn(2, 4, 3, 4), requires_grad=True)
    w = to_fw(randn(4, 3, 3, 2), requires_grad=True)
    b = to_fw(randn(6), requires_grad=True)

    def fn(x, w, b):
        return framework.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)

    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_conv1d_gradcheck():
    x = to_fw(randn(2, 3, 7), requires_grad=True)
    w = to_fw(randn(2, 3, 3), requires_grad=True)
    fn = lambda x, w: framework.conv1d(x, w, stride=2, padding=1)
    assert gradcheck(fn, (x, w))
    assert gradgradcheck(fn, (x, w))


def test_double_backward_matches_torch():
    """Gradient of a gradient norm (a WGAN-GP style penalty) against torch."""
    xs, ws = randn(2, 3, 6, 6), randn(4, 3, 3, 3)
    out = []
    for lib, conv, make in (
        (framework, framework.conv2d, framework.tensor),
        (torch, F.conv2d, torch.tensor),
    ):
        x, w = make(xs, requires_grad=True), make(ws, requires_grad=True)
        y = conv(x, w, stride=2, padding=1)
        (gx,) = lib.autograd.grad((y**2).sum(), x, create_graph=True)
        assert gx.grad_fn.name() == "ConvolutionBackwardBackward0"
        (gx**2).sum().backward()
        out.append((gx.detach().numpy(), w.grad.numpy(), x.grad.numpy()))
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


ERRORS = [
    (lambda x: ((x, randn(8, 3, 3, 3)), {})),
    (lambda x: ((x[0, 0], randn(6, 4, 3, 3)), {})),
    (lambda x: ((x, randn(6, 4, 3, 3)), dict(groups=3))),
    (lambda x: ((x, randn(6, 2, 3, 3)), dict(groups=3))),
    (lambda x: ((x, randn(6, 4, 3, 3), randn(5)), {})),
    (lambda x: ((x, randn(6, 4, 3, 3)), dict(stride=2, padding="same"))),
    (lambda x: ((x, randn(6, 4, 3, 3)), dict(padding="foo"))),
    (lambda x: ((x[:, :, :2, :2], randn(6, 4, 3, 3)), {})),
    (lambda x: ((x, randn(6, 4, 3, 3)), dict(stride=0))),
    (lambda x: ((x, randn(6, 4, 3, 3)), dict(padding=-1))),
    (lambda x: ((x, randn(6, 4, 3, 3)), dict(dilation=0))),
    (lambda x: ((x, randn(6, 4, 3, 3)), dict(groups=0))),
    (lambda x: ((x, randn(6, 4, 3, 3)), dict(stride=(1, 1, 1)))),
    (lambda x: ((x, randn(6, 4, 3, 3, dtype=np.float32)), {})),
    (lambda x: ((x, randn(6, 4, 3, 3), randn(6, dtype=np.float32)), {})),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("make", ERRORS)
def test_conv2d_errors(make):
    args, kw = make(randn(2, 4, 8, 8))
    with pytest.raises(RuntimeError) as theirs:
        F.conv2d(*(torch.tensor(a) for a in args), **kw)
    with pytest.raises(RuntimeError) as ours:
        framework.conv2d(*(framework.tensor(a) for a in args), **kw)
    assert str(ours.value) == str(theirs.value)


def test_float_input_double_weight_error():
    x, w = randn(2, 4, 8, 8, dtype=np.float32), randn(6, 4, 3, 3)
    with pytest.raises(RuntimeError) as theirs:
        F.conv2d(torch.tensor(x), torch.tensor(w))
    with pytest.raises(RuntimeError) as ours:
        framework.conv2d(framework.tensor(x), framework.tensor(w))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "args,kw",
    [
        (((2, 4, 8, 8), (4, 6, 3, 3)), dict(stride=2, output_padding=2)),
        (((2, 4, 8, 8), (4, 6, 3, 3)), dict(output_padding=1)),
        (((2, 4, 8, 8), (4, 6, 3, 3)), dict(padding=9)),
        (((2, 4, 8, 8), (3, 4, 3, 3)), {}),
    ],
)
def test_conv_transpose2d_errors(args, kw):
    x, w = randn(*args[0]), randn(*args[1])
    with pytest.raises(RuntimeError) as theirs:
        F.conv_transpose2d(torch.tensor(x), torch.tensor(w), **kw)
    with pytest.raises(RuntimeError) as ours:
        framework.conv_transpose2d(framework.tensor(x), framework.tensor(w), **kw)
    assert str(ours.value) == str(theirs.value)


def test_conv1d_input_dims_error():
    x, w = randn(2, 4, 8, 8), randn(6, 4, 3)
    with pytest.raises(RuntimeError) as theirs:
        F.conv1d(torch.tensor(x), torch.tensor(w))
    with pytest.raises(RuntimeError) as ours:
        framework.conv1d(framework.tensor(x), framework.tensor(w))
    assert str(ours.value) == str(theirs.value)


EMPTY_SPATIAL = [  # (function, input shape, weight shape, keywords); batch and channels > 0
    ("conv1d", (2, 2, 0), (3, 2, 1), dict(padding=1)),
    ("conv2d", (2, 2, 0, 3), (3, 2, 1, 1), dict(padding=1)),
    ("conv3d", (2, 2, 0, 1, 1), (3, 2, 1, 1, 1), dict(padding=1)),
    ("conv_transpose1d", (2, 2, 0), (2, 3, 1), {}),
    ("conv_transpose1d", (2, 0), (2, 3, 1), {}),  # unbatched: torch's batch of 1
    ("conv_transpose2d", (2, 2, 0, 3), (2, 3, 1, 1), dict(padding=4)),
    ("conv_transpose3d", (2, 2, 0, 3, 1), (2, 3, 1, 1, 1), {}),
    ("conv_transpose1d", (0, 2, 2), (2, 3, 1), dict(padding=1)),  # empty batch, output 0
    ("conv_transpose1d", (0, 2, 2), (2, 3, 1), dict(padding=4)),  # empty batch, output -6
    ("conv_transpose3d", (0, 2, 2, 2, 2), (2, 3, 1, 1, 1), dict(padding=(0, 4, 0))),
    ("conv_transpose2d", (0, 2, 0, 3), (2, 3, 1, 1), {}),  # empty batch
]


@pytest.mark.parametrize("name,xs,ws,kw", EMPTY_SPATIAL)
def test_empty_spatial_input_as_torch(name, xs, ws, kw):
    """Fuzz seed 60009005's first-order sibling: an input with an empty spatial size (batch and
    channels not empty) is refused before any output-size check ("Only zero batch or zero
    channel inputs are supported", the shape as torch's kernels see it: a 1-D one as 2-D);
    an empty batch or channels gives the empty output."""
    res = []
    for L in (framework, torch):
        try:
            y = getattr(L.nn.functional, name)(L.zeros(xs), L.zeros(ws), **kw)
            res.append((tuple(y.shape), str(y.dtype)))
        except RuntimeError as e:
            res.append(str(e))
    assert res[0] == res[1]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "batch,kernel,stride,groups,dtype",
    [
        (1, 1, 1, 1, "float32"),
        (1, 1, 2, 1, "float32"),
        (1, 2, 1, 1, "float32"),
        (2, 1, 1, 1, "float32"),
        (1, 1, 1, 2, "float32"),
        (2, 2, 1, 1, "float64"),
    ],
)
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_transposed_output_of_size_zero_as_torch(nd, batch, kernel, stride, groups, dtype, threads):
    """A transposed convolution to a spatial size 0 returns the empty output where torch runs
    its oneDNN kernel (float32, and its use_mkldnn heuristic: batch, kernel, stride, groups,
    thread count) and raises "Output size is too small" where it runs its own."""
    kw = dict(stride=stride, padding=(stride + kernel) // 2, groups=groups)
    res = []
    before = torch.get_num_threads(), framework.get_num_threads()
    try:
        for L in (framework, torch):
            L.set_num_threads(threads)
            x = L.zeros((batch, 2) + (2,) * nd, dtype=getattr(L, dtype))
            w = L.zeros((2, 3) + (kernel,) * nd, dtype=getattr(L, dtype))
            try:
                res.append(
                    tuple(getattr(L.nn.functional, f"conv_transpose{nd}d")(x, w, **kw).shape)
                )
            except RuntimeError as e:
                res.append(str(e))
    finally:
        torch.set_num_threads(before[0])
        framework.set_num_threads(before[1])
    assert res[0] == res[1]


BOOL_KERNELS = [  # torch names the kernel that dispatches on the dtype first
    ("conv3d", (1, 1, 2, 2, 2), (1, 1, 1, 1, 1), {}),
    ("conv3d", (1, 1, 2, 2, 2), (1, 1, 2, 1, 1), {}),
    ("conv3d", (1, 1, 2, 2, 2), (1, 1, 1, 1, 1), dict(stride=2)),
    ("conv3d", (1, 1, 2, 2, 2), (1, 1, 1, 1, 1), dict(padding=1)),
    ("conv3d", (1, 1, 2, 2, 2), (1, 1, 1, 1, 1), dict(dilation=2)),
    ("conv3d", (1, 2, 2, 2, 2), (2, 1, 1, 1, 1), dict(groups=2)),
    ("conv3d", (0, 1, 2, 2, 2), (1, 1, 1, 1, 1), {}),
    ("conv2d", (1, 1, 2, 2), (1, 1, 1, 1), dict(dilation=2)),
    ("conv2d", (1, 2, 2, 2), (2, 1, 1, 1), dict(groups=2)),
    ("conv1d", (1, 1, 2), (1, 1, 1), dict(dilation=2)),
    ("conv2d", (0, 1, 2, 2), (1, 1, 1, 1), {}),
    ("conv_transpose2d", (1, 1, 2, 2), (1, 1, 1, 1), dict(dilation=2)),
    ("conv_transpose3d", (0, 1, 2, 2, 2), (1, 1, 1, 1, 1), {}),
]


@pytest.mark.parametrize("name,xs,ws,kw", BOOL_KERNELS)
def test_bool_convolution_names_torchs_kernel(name, xs, ws, kw):
    """Fuzz seed 50016961: conv3d of bool with a 1x1x1 kernel names slow_conv3d_cpu (torch
    builds no columns), other geometries compute_columns3d, a dilated one
    slow_conv_dilated<>; an empty batch runs no kernel and gives an empty bool output."""
    res = []
    for L in (framework, torch):
        try:
            y = getattr(L.nn.functional, name)(
                L.zeros(xs, dtype=L.bool), L.zeros(ws, dtype=L.bool), **kw
            )
            res.append((tuple(y.shape), str(y.dtype)))
        except NotImplementedError as e:
            res.append(str(e))
    assert res[0] == res[1]


GROUP_ERRORS = [
    ("conv2d", (2, 4, 5, 5), (3, 2, 3, 3), 2),  # not divisible: torch prints [[3, 2, 3, 3]]
    ("conv1d", (2, 4, 5), (3, 2, 3), 2),
    ("conv3d", (2, 4, 5, 5, 5), (3, 2, 3, 3, 3), 2),
    ("conv_transpose1d", (2, 3, 5), (3, 2, 3), 2),
    ("conv2d", (2, 4, 5, 5), (1, 2, 3, 3), 2),  # fewer filters than groups
    ("conv2d", (2, 2, 2, 2), (0, 2, 1, 1), 1),
    ("conv3d", (2, 2, 2, 2, 2), (0, 2, 1, 1, 1), 1),
    ("conv_transpose2d", (2, 0, 2, 2), (0, 3, 1, 1), 1),
]


@pytest.mark.parametrize("name,xs,ws,groups", GROUP_ERRORS)
def test_weight_groups_errors_as_torch(name, xs, ws, groups):
    """torch's check_shape_forward of the weight's first dimension: at least `groups` filters
    (no NumPy reshape error for an empty weight), divisible by groups, in every family."""
    res = []
    for L in (framework, torch):
        with pytest.raises(RuntimeError) as e:
            getattr(L.nn.functional, name)(L.ones(xs), L.ones(ws), groups=groups)
        res.append(str(e.value))
    assert res[0] == res[1]
