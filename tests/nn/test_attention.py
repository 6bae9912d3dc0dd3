"""scaled_dot_product_attention and MultiheadAttention against torch (float64 tight, float32)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
import framework.nn.functional as F
from framework.autograd import gradcheck, gradgradcheck
from tests.helpers import compare_with_torch, randn, to_fw, to_torch
from tests.nn.module_parity import compare_module

RNG = np.random.default_rng(7)
Q4, K4, V4 = (2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8)


def _mask_kw(mask, lib, device="cpu"):
    if mask is None:
        return {}
    if lib is torch:
        return {"attn_mask": torch.tensor(mask)}
    return {"attn_mask": framework.tensor(mask, device=device)}


SDPA_CASES = {
    "plain": ((Q4, K4, V4), None, {}),
    "causal": ((Q4, K4, V4), None, {"is_causal": True}),
    "scale": ((Q4, K4, V4), None, {"scale": 0.3}),
    "negative_scale": ((Q4, K4, V4), None, {"scale": -0.7}),
    "bool_mask_2d": ((Q4, K4, V4), RNG.random((4, 6)) > 0.3, {}),
    "float_mask_4d": ((Q4, K4, V4), RNG.standard_normal((1, 3, 4, 6)), {}),
    "mask_and_causal": ((Q4, K4, V4), RNG.random((4, 6)) > 0.3, {"is_causal": True}),
    "value_dim_differs": ((Q4, K4, (2, 3, 6, 5)), None, {}),
    "broadcast_batch": ((Q4, (1, 3, 6, 8), (1, 3, 6, 8)), None, {}),
    "three_d": (((3, 4, 8), (3, 6, 8), (3, 6, 5)), RNG.random((4, 6)) > 0.3, {}),
    "three_d_mask": ((Q4, K4, V4), RNG.standard_normal((3, 4, 6)), {}),
    "three_d_causal": (((3, 4, 8), (3, 6, 8), (3, 6, 5)), None, {"is_causal": True}),
    "two_d": (((4, 8), (6, 8), (6, 5)), RNG.standard_normal((4, 6)), {}),
}


@pytest.mark.parametrize("case", list(SDPA_CASES))
def test_sdpa_matches_torch_float64(case, device):
    shapes, mask, kw = SDPA_CASES[case]
    compare_with_torch(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw, **_mask_kw(mask, 0, device)),
        lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, **kw, **_mask_kw(mask, torch)),
        [randn(*s) for s in shapes],
        device=device,
        rtol=1e-10,
        atol=1e-12,
    )


@pytest.mark.parametrize("case", ["plain", "causal", "three_d", "bool_mask_2d"])
def test_sdpa_float32(case, device):
    shapes, mask, kw = SDPA_CASES[case]
    compare_with_torch(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw, **_mask_kw(mask, 0, device)),
        lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, **kw, **_mask_kw(mask, torch)),
        [randn(*s, dtype=np.float32) for s in shapes],
        device=device,
        rtol=1e-4,
        atol=1e-5,
    )


def test_sdpa_fully_masked_rows_are_zero(device):
    mask = RNG.random((4, 6)) > 0.5
    mask[1] = False  # query 1 may attend to nothing: torch returns zeros, not NaN
    for shapes in ((Q4, K4, V4), ((3, 4, 8), (3, 6, 8), (3, 6, 8))):
        out, _ = compare_with_torch(
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **_mask_kw(mask, 0, device)),
            lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, **_mask_kw(mask, torch)),
            [randn(*s) for s in shapes],
            device=device,
            rtol=1e-10,
            atol=1e-12,
        )
        assert np.all(out.detach().cpu().numpy()[..., 1, :] == 0)


def test_sdpa_dropout_statistics(device):
    q = framework.ones(1, 1, 200, 8, device=device)
    framework.manual_seed(0)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert out.grad_fn is None and out.shape == (1, 1, 200, 8)
    vals = out.cpu().numpy()  # each output is 2 * (kept keys) / 200: mean 1, spread ~0.07
    assert abs(vals.mean() - 1) < 0.05 and 0.02 < vals[0, 0, :, 0].std() < 0.2
    framework.manual_seed(0)
    p = framework.ones(1, 1, 50, 8, device=device, requires_grad=True)
    y = F.scaled_dot_product_attention(p, p, p, dropout_p=1.0)
    assert y.grad_fn.name() == "UnsafeViewBackward0"  # dropout runs torch's math path
    assert np.all(y.detach().cpu().numpy() == 0)


def test_sdpa_fused_gradcheck_and_no_double_backward(device):
    """The fused node's gradients pass gradcheck; torch's kernel has no derivative, so under
    create_graph they come from its NotImplemented node and a second backward raises."""
    q, k, v = (to_fw(randn(*s), device, True) for s in ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)))
    mask = framework.tensor(RNG.random((3, 5)) > 0.3, device=device)
    for kw in ({}, {"is_causal": True}, {"attn_mask": mask, "scale": 0.4}):
        fn = lambda a, b, c: F.scaled_dot_product_attention(a, b, c, **kw)
        assert fn(q, k, v).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
        assert gradcheck(fn, (q, k, v))
        with pytest.raises(RuntimeError, match="derivative for aten::_scaled_dot_product_flash"):
            gradgradcheck(fn, (q, k, v))


SDPA_ERRORS = [
    (
        ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)),
        ("float32", "float32", "float64"),
        {},
        "Expected query, key, and value to have the same dtype",
    ),
    (((4,), (4,), (4,)), ("float32",) * 3, {}, "at least 2 dimensional"),
    (
        ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)),
        ("float32",) * 3,
        {"attn_mask": np.ones((3, 5), np.int64)},
        "Expected attn_mask dtype to be bool or float",
    ),
    (
        ((2, 3, 4), (2, 5, 4), (2, 5, 4)),
        ("float32",) * 3,
        {"attn_mask": np.ones((3, 5), bool), "is_causal": True},
        "Explicit attn_mask should not be set when is_causal=True",
    ),
]


@pytest.mark.parametrize("shapes, dts, kw, phrase", SDPA_ERRORS)
def test_sdpa_errors_match_torch(shapes, dts, kw, phrase):
    arrays = [randn(*s).astype(d) for s, d in zip(shapes, dts)]
    errors = []
    for lib in (torch, framework):
        kwl = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        fn = TF.scaled_dot_product_attention if lib is torch else F.scaled_dot_product_attention
        with pytest.raises(RuntimeError) as e:
            fn(*[lib.tensor(a) for a in arrays], **kwl)
        errors.append(str(e.value))
    assert phrase in errors[0] and phrase in errors[1]
    assert errors[0] == errors[1]


E = 8
MHA_CASES = {
    "self_weights": ({}, "self", {}),
    "self_batch_first_no_weights": ({"batch_first": True}, "self", {"need_weights": False}),
    "kv_shared": ({"batch_first": True}, "kv", {"need_weights": False}),
    "kdim_vdim_per_head_weights": (
        {"kdim": 5, "vdim": 6},
        "cross_dims",
        {"average_attn_weights": False},
    ),
    "bias_kv_zero_attn_masks": ({"add_bias_kv": True, "add_zero_attn": True}, "cross", "masks"),
    "masks_sdpa_path": ({"bias": False}, "cross", "masks_sdpa"),
    "causal_hint": ({"num_heads": 4}, "self", "causal"),
    "unbatched_3d_mask": ({"num_heads": 4}, "unbatched", "mask3d"),
    "float_masks": ({}, "cross", "float_masks"),
}


def _mha_inputs(kind, batch_first):
    L, S, N = 5, 4, 3
    q = RNG.standard_normal((N, L, E) if batch_first else (L, N, E))
    if kind == "self":
        return [q]
    if kind == "unbatched":
        return [
            RNG.standard_normal((L, E)),
            RNG.standard_normal((S, E)),
            RNG.standard_normal((S, E)),
        ]
    if kind == "kv":
        return [q, RNG.standard_normal((N, S, E) if batch_first else (S, N, E))]
    if kind == "cross":
        return [q, RNG.standard_normal((S, N, E)), RNG.standard_normal((S, N, E))]
    return [q, RNG.standard_normal((S, N, 5)), RNG.standard_normal((S, N, 6))]


def _mha_kwargs(spec):
    if isinstance(spec, dict):
        return spec
    kpm = RNG.random((3, 4)) > 0.6
    kpm[:, 0] = False
    am = RNG.random((5, 4)) > 0.6
    am[:, 0] = False
    return {
        "masks": {"key_padding_mask": kpm, "attn_mask": am},
        "masks_sdpa": {"key_padding_mask": kpm, "attn_mask": am, "need_weights": False},
        "causal": {
            "attn_mask": np.triu(np.ones((5, 5), bool), 1),
            "is_causal": True,
            "need_weights": False,
        },
        "mask3d": {"attn_mask": RNG.standard_normal((4, 5, 4))},
        "float_masks": {
            "key_padding_mask": np.where(kpm, -np.inf, 0.0),
            "attn_mask": RNG.standard_normal((5, 4)),
        },
    }.get(spec, spec)


class _SelfAttention:
    """Calls mha(x, x, x) (or (q, kv, kv)) so that the 'is' identities hold in both libs."""

    @staticmethod
    def wrap(lib, mha, kind):
        class Wrapped(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.mha = mha

            def forward(self, *xs, **kw):
                if kind == "self":
                    return self.mha(xs[0], xs[0], xs[0], **kw)
                if kind == "kv":
                    return self.mha(xs[0], xs[1], xs[1], **kw)
                return self.mha(*xs, **kw)

        return Wrapped()


@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multihead_attention_matches_torch(case, device):
    ctor, kind, spec = MHA_CASES[case]
    ctor = {"embed_dim": E, "num_heads": 2, **ctor}
    kwargs = _mha_kwargs(spec)
    inputs = _mha_inputs(kind, ctor.get("batch_first", False))
    compare_module(
        lambda lib: _SelfAttention.wrap(lib, lib.nn.MultiheadAttention(**ctor), kind),
        inputs,
        kwargs,
        device=device,
    )


def test_multihead_attention_float32_and_init():
    fw = framework.nn.MultiheadAttention(16, 4)
    names = [n for n, _ in fw.named_parameters()]
    assert names == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert np.all(fw.in_proj_bias.detach().numpy() == 0)
    bound = np.sqrt(6 / (16 + 48))  # xavier_uniform_ on the (3E, E) packed weight
    assert np.abs(fw.in_proj_weight.detach().numpy()).max() <= bound
    assert type(fw.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    sep = framework.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    assert [n for n, _ in sep.named_parameters()] == [
        "q_proj_weight",
        "k_proj_weight",
        "v_proj_weight",
        "in_proj_bias",
        "bias_k",
        "bias_v",
        "out_proj.weight",
        "out_proj.bias",
    ]
    compare_module(
        lambda lib: lib.nn.MultiheadAttention(E, 2),
        [RNG.standard_normal((5, 3, E))] * 3,
        dtype="float32",
        rtol=1e-4,
        atol=1e-5,
    )


MHA_ERRORS = [
    ({"embed_dim": 8, "num_heads": 3}, None, AssertionError, "embed_dim must be divisible"),
    ({"embed_dim": 0, "num_heads": 2}, None, ValueError, "must be greater than 0"),
    (
        {"embed_dim": 8, "num_heads": 2},
        ((5, 3, 8), (4, 8), (4, 8)),
        AssertionError,
        "expected `key` and `value` to be 3-D",
    ),
    (
        {"embed_dim": 8, "num_heads": 2},
        ((5, 3, 8), (4, 3, 8), (3, 3, 8)),
        AssertionError,
        "does not match value shape",
    ),
    (
        {"embed_dim": 8, "num_heads": 2},
        ((5, 3, 8, 1),) * 3,
        AssertionError,
        "query should be unbatched 2D or batched 3D tensor",
    ),
]


@pytest.mark.parametrize("ctor, shapes, exc, phrase", MHA_ERRORS)
def test_multihead_attention_errors(ctor, shapes, exc, phrase):
    messages = []
    for lib in (torch, framework):
        with pytest.raises(exc) as e:
            m = lib.nn.MultiheadAttention(**ctor)
            m(*[lib.tensor(RNG.standard_normal(s).astype(np.float32)) for s in shapes])
        messages.append(str(e.value))
    assert phrase in messages[0] and messages[0] == messages[1]


def test_mha_causal_hint_needs_mask():
    x = framework.randn(5, 3, 8)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        framework.nn.MultiheadAttention(8, 2)(x, x, x, is_causal=True)


def test_functional_mha_with_static_kv():
    """multi_head_attention_forward with precomputed (static) keys and values."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 2, 8))
    sk, sv = rng.standard_normal((4, 6, 4)), rng.standard_normal((4, 6, 4))
    w, ow = rng.standard_normal((24, 8)), rng.standard_normal((8, 8))
    outs = []
    for lib, fn in (
        (torch, TF.multi_head_attention_forward),
        (framework, F.multi_head_attention_forward),
    ):
        t = [lib.tensor(a) for a in (x, w, ow, sk, sv)]
        outs.append(
            fn(
                t[0],
                t[0],
                t[0],
                8,
                2,
                t[1],
                None,
                None,
                None,
                False,
                0.0,
                t[2],
                None,
                static_k=t[3],
                static_v=t[4],
            )[0]
        )
    np.testing.assert_allclose(outs[1].numpy(), outs[0].numpy(), rtol=1e-10, atol=1e-12)


def test_sdpa_gqa():
    q, k, v = randn(1, 4, 3, 8), randn(1, 2, 5, 8), randn(1, 2, 5, 8)
    compare_with_torch(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True),
        lambda a, b, c: TF.scaled_dot_product_attention(a, b, c, enable_gqa=True),
        [q, k, v],
        rtol=1e-10,
        atol=1e-12,
        check_grad_fn=False,
    )


def test_sdpa_no_grad_has_no_node():
    q = to_fw(randn(1, 1, 3, 4))
    assert F.scaled_dot_product_attention(q, q, q).grad_fn is None
    th = to_torch(randn(1, 1, 3, 4))
    assert TF.scaled_dot_product_attention(th, th, th).grad_fn is None


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dims", [(2, 5, 3, 4, 4), (3, 7, 2, 4, 6), (2, 4, 1, 3, 3)])
def test_sdpa_split_qkv_layout_of_output_and_gradients(causal, dims):
    """q, k, v split from one fused projection and viewed heads inside sequence (nanoGPT):
    the output and the gradients reaching q, k, v have torch's strides (its flash kernels
    write them in the inputs' layout) and values, with a random upstream gradient."""
    b, n, h, e, ev = dims
    x = RNG.standard_normal((b, n, h * (2 * e + ev)))
    g = RNG.standard_normal((b, h, n, ev))
    seen = {}

    def run(lib, tensor):
        xt = tensor(x)
        xt.requires_grad_(True)
        q, k, v = xt.split([h * e, h * e, h * ev], dim=2)
        q, k, v = (t.view(b, n, h, -1).transpose(1, 2) for t in (q, k, v))
        strides = []
        for t in (q, k, v):
            t.register_hook(lambda grad: strides.append(tuple(grad.stride())))
        attn = lib.nn.functional.scaled_dot_product_attention
        y = attn(q, k, v, is_causal=causal)
        y.backward(tensor(g))
        seen[lib.__name__] = (tuple(y.stride()), sorted(strides))
        return y.detach().numpy(), xt.grad.numpy()

    ours = run(framework, lambda a: framework.tensor(a, dtype=framework.float64))
    theirs = run(torch, lambda a: torch.tensor(a, dtype=torch.float64))
    assert seen["framework"] == seen["torch"]
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a, t, rtol=1e-10, atol=1e-12)
