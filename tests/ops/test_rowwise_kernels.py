"""The fused kernels' fast paths (issue 17, GPT step): row sums by matrix-vector product /
einsum in layer_norm, softmax, log_softmax and SDPA, the float32 gelu CDF with folded
coefficients, and scatter_add's flat row path behind embedding's backward. Each against torch
(values, node names, gradients of a random upstream gradient, float32 and float64), with
gradcheck, gradgradcheck and forward-mode checks in float64."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
import framework.nn.functional as F
from framework.autograd import gradcheck, gradgradcheck
from framework.backend import scatter_add
from framework.ops import _rowwise, normalization
from tests.helpers import compare_with_torch

RNG = np.random.default_rng(17)
TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6)}


@pytest.fixture
def rows_everywhere(monkeypatch):
    """The row kernels on every size (they start at _rowwise.SMALL elements), so the small
    inputs of the parity tests and of gradcheck take them."""
    monkeypatch.setattr(_rowwise, "SMALL", 1)
    monkeypatch.setattr(normalization, "SMALL", 1)


def _x(*shape, dtype="float64"):
    return RNG.standard_normal(shape).astype(dtype)


def _leaf(a):
    return framework.tensor(a, requires_grad=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "shape, norm, affine",
    [
        ((4, 5, 6), (6,), (True, True)),
        ((3, 4, 5), (4, 5), (True, True)),
        ((7, 6), (6,), (True, False)),
        ((2, 3, 6), (6,), (False, False)),
    ],
)
def test_layer_norm_rows_kernel(shape, norm, affine, dtype, rows_everywhere):
    rtol, atol = TOL[dtype]
    ins = [_x(*shape, dtype=dtype)]
    ins += [_x(*norm, dtype=dtype) for on in affine if on]
    fw = lambda x, *wb: F.layer_norm(x, norm, *wb)
    th = lambda x, *wb: TF.layer_norm(x, norm, *wb)
    out, _ = compare_with_torch(fw, th, ins, rtol=rtol, atol=atol)
    assert type(out.grad_fn).__name__ == "NativeLayerNormBackward0"


def test_layer_norm_rows_kernel_layouts_and_partial_grads(rows_everywhere):
    x = _x(6, 4, 5).transpose(1, 0, 2)  # a non-contiguous input
    w, b = _x(5), _x(5)
    fw = lambda x, w, b: F.layer_norm(x, (5,), w, b)
    th = lambda x, w, b: TF.layer_norm(x, (5,), w, b)
    compare_with_torch(fw, th, [x, w, b], rtol=1e-10, atol=1e-12)
    for rg in ([True, False, False], [False, True, False], [False, False, True]):
        compare_with_torch(fw, th, [x, w, b], rtol=1e-10, atol=1e-12, requires_grad=rg)


def test_layer_norm_gradchecks_and_forward_ad(rows_everywhere):
    x, w, b = _leaf(_x(3, 4, 5)), _leaf(_x(4, 5)), _leaf(_x(4, 5))
    fn = lambda x, w, b: F.layer_norm(x, (4, 5), w, b, eps=1e-3)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    assert gradcheck(fn, (x, w, b), check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((6, 11), -1), ((3, 4, 9), 2), ((5, 7), 0), ((1, 1), -1)])
def test_softmax_rows_kernel(name, shape, dim, dtype, rows_everywhere):
    rtol, atol = TOL[dtype]
    fw = lambda x: getattr(F, name)(x, dim)
    th = lambda x: getattr(TF, name)(x, dim)
    out, _ = compare_with_torch(fw, th, [_x(*shape, dtype=dtype) * 3], rtol=rtol, atol=atol)
    node = "SoftmaxBackward0" if name == "softmax" else "LogSoftmaxBackward0"
    assert type(out.grad_fn).__name__ == node


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_rows_kernel_non_contiguous_inf_and_checks(name, rows_everywhere):
    x = _x(5, 8).T  # rows of a transposed array: the last axis is strided
    fw = lambda x: getattr(F, name)(x, -1)
    th = lambda x: getattr(TF, name)(x, -1)
    compare_with_torch(fw, th, [x], rtol=1e-10, atol=1e-12)
    y = _x(3, 6)
    y[1, 2] = -np.inf  # a masked entry
    compare_with_torch(fw, th, [y], rtol=1e-10, atol=1e-12)
    a = _leaf(_x(3, 6))
    assert gradcheck(fw, (a,))
    assert gradgradcheck(fw, (a,))
    assert gradcheck(fw, (a,), check_forward_ad=True, check_backward_ad=False)


def test_cross_entropy_through_the_rows_kernels(rows_everywhere):
    logits = _x(32, 10, dtype="float32")
    target = RNG.integers(0, 10, 32)
    target[3] = -1
    fw = lambda x, t: F.cross_entropy(x, t, ignore_index=-1)
    th = lambda x, t: TF.cross_entropy(x, t, ignore_index=-1)
    out, _ = compare_with_torch(fw, th, [logits, target], rtol=1e-5, atol=1e-6)
    assert type(out.grad_fn).__name__ == "NllLossBackward0"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_rows_kernels_at_their_real_sizes(dtype):
    """Above the threshold without the fixture: layer_norm, log_softmax, softmax at GPT-like
    sizes (the fast paths), against torch."""
    rtol, atol = TOL[dtype]
    x, w, b = _x(8, 32, 64, dtype=dtype), _x(64, dtype=dtype), _x(64, dtype=dtype)
    assert x.size >= _rowwise.SMALL
    fw = lambda x, w, b: F.layer_norm(x, (64,), w, b)
    th = lambda x, w, b: TF.layer_norm(x, (64,), w, b)
    # weight and bias gradients sum 256 rows of O(1) terms in float32: torch's order and ours
    # differ by up to ~3e-5 (the engine's row sum before this path: the same, up to ~2e-5)
    compare_with_torch(fw, th, [x, w, b], rtol=rtol, atol=1e-4 if dtype == "float32" else atol)
    logits = _x(512, 96, dtype=dtype) * 4
    for name in ("softmax", "log_softmax"):
        fw = lambda a: getattr(F, name)(a, -1)
        th = lambda a: getattr(TF, name)(a, -1)
        compare_with_torch(fw, th, [logits], rtol=rtol, atol=atol)


def _gpt_heads(B, L, H, E, dtype):
    """q, k, v as GPT makes them: split from one (B, L, 3 H E) array, heads transposed."""
    qkv = _x(B, L, 3 * H * E, dtype=dtype)
    return [qkv[..., i * H * E : (i + 1) * H * E].reshape(B, L, H, E) for i in range(3)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sdpa_causal_gpt_layout(dtype, rows_everywhere):
    rtol, atol = TOL[dtype]

    def run(lib, F_):
        def fn(q, k, v):
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
            y = F_.scaled_dot_product_attention(q, k, v, is_causal=True)
            return y.transpose(1, 2).contiguous()

        return fn

    out, _ = compare_with_torch(
        run(framework, F), run(torch, TF), _gpt_heads(3, 7, 2, 4, dtype), rtol=rtol, atol=atol
    )
    assert type(out.grad_fn).__name__ == "TransposeBackward0"
    node = out.grad_fn.next_functions[0][0]
    assert type(node).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"


@pytest.mark.parametrize("L, S", [(5, 5), (3, 6), (6, 3)])
def test_sdpa_causal_finite_mask_and_gradchecks(L, S, rows_everywhere):
    q, k, v = _x(2, 2, L, 4), _x(2, 2, S, 4), _x(2, 2, S, 4)
    fw = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)
    th = lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, is_causal=True)
    compare_with_torch(fw, th, [q, k, v], rtol=1e-10, atol=1e-12)
    leaves = tuple(_leaf(a) for a in (q, k, v))
    assert gradcheck(fw, leaves)
    with pytest.raises(RuntimeError, match="derivative for aten::_scaled_dot_product_flash"):
        gradgradcheck(fw, leaves)  # torch's kernel has no derivative (NotImplemented)
    # the saved mask is the one the caller passed (none); no -inf reaches the output
    out = fw(*leaves)
    assert type(out.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert out.grad_fn._saved_attn_mask is None and bool(out.isfinite().all())


def test_gelu_float32_cdf_against_torch_and_its_zeros():
    x = np.linspace(-12, 12, 48001).astype(np.float32)  # vectorised kernel sizes
    compare_with_torch(F.gelu, TF.gelu, [x], rtol=1e-5, atol=1e-6)
    far = np.array([-5.3, -5.5, -6.0, -7.0, -30.0, -1e30] * 4, np.float32)
    out = F.gelu(framework.tensor(far)).numpy()
    want = TF.gelu(torch.tensor(far)).numpy()  # 0 from -5.5430408 down (not at -5.3, -5.5)
    assert np.array_equal(out == 0, want == 0)
    assert not np.signbit(out[out == 0]).any()  # +0, as torch's fma kernel
    big = np.array([5.3, 6.0, 100.0] * 4, np.float32)  # torch's (oneDNN's) bits
    assert np.array_equal(F.gelu(framework.tensor(big)).numpy(), TF.gelu(torch.tensor(big)).numpy())


def test_gelu_gradchecks_and_forward_ad():
    a = _leaf(_x(4, 5) * 3)
    assert gradcheck(F.gelu, (a,))
    assert gradgradcheck(F.gelu, (a,))
    assert gradcheck(F.gelu, (a,), check_forward_ad=True, check_backward_ad=False)


def test_scatter_add_row_path_matches_add_at():
    idx = RNG.integers(0, 7, 50)
    values = _x(50, 3, 4, dtype="float32")
    got = scatter_add(np, np.zeros((7, 3, 4), np.float32), idx, values)
    want = np.zeros((7, 3, 4), np.float32)
    np.add.at(want, idx, values)
    assert np.array_equal(got, want)  # the same sums in the same order
    neg = np.array([-1, 0, -1, 2])  # wrapped indices take NumPy's own path
    got = scatter_add(np, np.zeros((3, 2)), neg, np.ones((4, 2)))
    assert np.array_equal(got, [[1, 1], [0, 0], [3, 3]])
    with pytest.raises(IndexError):
        scatter_add(np, np.zeros((3, 2)), np.array([0, 3]), np.ones((2, 2)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_embedding_backward_repeated_rows(dtype):
    weight = _x(9, 5, dtype=dtype)
    idx = RNG.integers(0, 9, (6, 7))
    out, _ = compare_with_torch(
        F.embedding, TF.embedding, [idx, weight], rtol=TOL[dtype][0], atol=TOL[dtype][1]
    )
    assert type(out.grad_fn).__name__ == "EmbeddingBackward0"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gelu_tanh_exp_form_against_torch(dtype):
    rtol, atol = TOL[dtype]
    x = np.linspace(-12, 12, 4801).astype(dtype)
    fw = lambda a: F.gelu(a, approximate="tanh")
    th = lambda a: TF.gelu(a, approximate="tanh")
    # atol 1e-5 in float32: torch's vectorised tanh-gelu gradient (FMA, its own tanh) differs
    # by up to 6e-6 near |x| ~ 3 (the composed tanh formula this replaced: 44 of these 4801
    # points outside 1e-6, this one 8)
    out, _ = compare_with_torch(fw, th, [x], rtol=rtol, atol=atol * 10)
    assert type(out.grad_fn).__name__ == "GeluBackward0"
    far = np.array([-8.0, -10.0, -30.0, -1e30, -np.inf, np.inf, np.nan, 40.0] * 3, dtype)
    got = fw(framework.tensor(far)).numpy()
    want = th(torch.tensor(far)).numpy()
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))  # -0 where torch's 1 + tanh is 0


def test_gelu_tanh_gradchecks_and_forward_ad():
    a = _leaf(_x(4, 5) * 3)
    fn = lambda a: F.gelu(a, approximate="tanh")
    assert gradcheck(fn, (a,))
    assert gradgradcheck(fn, (a,))
    assert gradcheck(fn, (a,), check_forward_ad=True, check_backward_ad=False)
