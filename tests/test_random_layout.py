"""Random draws and ``*_like`` tensors of non-contiguous inputs as torch: torch's ``*_like``
keep a transposed/permuted input's layout (preserve_format), and its in-place fills draw in
memory order, so ``rand_like(x.t())``, ``dropout(x.t())`` and ``multinomial(p.t(), k)`` give
other numbers than for a contiguous copy. Found by a user-style program: a pre-norm
``TransformerEncoderLayer`` in training drew another dropout mask on the attention output
(``MultiheadAttention(batch_first=True)`` returns a transposed tensor)."""

import numpy as np
import pytest
import torch

import framework

LAYOUTS = {
    "t": lambda lib: (lib.arange(40.0).reshape(5, 8) / 40).t(),
    "slice": lambda lib: (lib.arange(40.0).reshape(5, 8) / 40)[:, ::2],
    "permute": lambda lib: (lib.arange(60.0).reshape(3, 4, 5) / 60).permute(2, 0, 1),
    "permute_slice": lambda lib: (lib.arange(60.0).reshape(3, 4, 5) / 60).permute(2, 0, 1)[::2],
    "size1": lambda lib: (lib.arange(40.0).reshape(1, 5, 8) / 40).permute(2, 0, 1),
    "channels_last": lambda lib: (lib.arange(48.0).reshape(2, 3, 2, 4) / 48).contiguous(
        memory_format=lib.channels_last
    ),
}

DRAWS = {
    "rand_like": lambda lib, x: lib.rand_like(x),
    "randn_like": lambda lib, x: lib.randn_like(x),
    "randn_like_f64": lambda lib, x: lib.randn_like(x, dtype=lib.float64),
    "randint_like": lambda lib, x: lib.randint_like(x, 10),
    "randint_like_int": lambda lib, x: lib.randint_like((x * 10).long(), 3, 9),
    "dropout": lambda lib, x: lib.nn.functional.dropout(x, 0.5),
    "dropout_inplace": lambda lib, x: lib.nn.functional.dropout(x.clone(), 0.3, inplace=True),
    "alpha_dropout": lambda lib, x: lib.nn.functional.alpha_dropout(x, 0.5, training=True),
    "bernoulli_p_tensor": lambda lib, x: lib.bernoulli(x),
    "bernoulli_float": lambda lib, x: lib.bernoulli(x, 0.3),
    "multinomial": lambda lib, x: lib.multinomial(x.reshape(x.shape[0], -1) + 0.1, 3),
    "multinomial_t": lambda lib, x: lib.multinomial((x.reshape(x.shape[0], -1) + 0.1).t(), 2),
}


def _strides(r):
    """Strides of the dimensions longer than 1: an elementwise op's output (dropout's
    ``input * noise``) gets NumPy's strides on size-1 dimensions, torch the input's (only
    ``stride()`` sees them; the layout and the values are the same)."""
    return tuple(s for s, n in zip(r.stride(), r.shape) if n != 1)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("draw", DRAWS)
def test_draws_follow_memory_order(draw, layout):
    out = []
    for lib in (torch, framework):
        lib.manual_seed(7)
        r = DRAWS[draw](lib, LAYOUTS[layout](lib))
        out.append((r.numpy().copy(), _strides(r), str(r.dtype)))
        out[-1] += (float(lib.rand(()).item()),)  # the stream consumed the same draws
    (t, ts, td, tn), (f, fs, fd, fn) = out
    np.testing.assert_array_equal(f, t)
    assert (fs, fd, fn) == (ts, td, tn)


LIKES = {
    "empty_like": lambda lib, x, **k: lib.empty_like(x, **k),
    "zeros_like": lambda lib, x, **k: lib.zeros_like(x, **k),
    "ones_like": lambda lib, x, **k: lib.ones_like(x, **k),
    "full_like": lambda lib, x, **k: lib.full_like(x, 2.5, **k),
    "clone": lambda lib, x, **k: x.clone(**k),
}
FORMATS = {
    "default": lambda lib: {},
    "preserve": lambda lib: {"memory_format": lib.preserve_format},
    "contiguous": lambda lib: {"memory_format": lib.contiguous_format},
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("like", LIKES)
def test_like_strides(like, layout, fmt):
    res = []
    for lib in (torch, framework):
        x = LAYOUTS[layout](lib)
        y = LIKES[like](lib, x, **FORMATS[fmt](lib))
        res.append((tuple(y.shape), y.stride(), y.is_contiguous(), str(y.dtype)))
        if like != "empty_like":
            res[-1] += (y.numpy().tolist(),)
    assert res[1] == res[0]


@pytest.mark.parametrize("like", ["empty_like", "zeros_like", "rand_like"])
def test_like_channels_last_and_dtype(like):
    res = []
    for lib in (torch, framework):
        x = LAYOUTS["permute"](lib).unsqueeze(0)
        lib.manual_seed(1)
        y = getattr(lib, like)(x, dtype=lib.float64, memory_format=lib.channels_last)
        res.append((y.stride(), str(y.dtype), y.requires_grad))
        z = getattr(lib, like)(LAYOUTS["t"](lib), requires_grad=True)
        res.append((z.stride(), z.requires_grad, z.grad_fn))
    assert res[2:] == res[:2]


def test_rank_error_channels_last():
    for lib in (torch, framework):
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
            lib.empty_like(LAYOUTS["t"](lib), memory_format=lib.channels_last)


def test_pre_norm_encoder_layer_dropout_matches_torch():
    """The program that found it: the attention output of a batch_first MHA is transposed."""
    res = []
    for lib in (torch, framework):
        lib.manual_seed(0)
        x = lib.randn(2, 5, 32)
        layer = lib.nn.TransformerEncoderLayer(32, 4, 64, 0.1, batch_first=True, norm_first=True)
        pad = lib.tensor([[False] * 4 + [True], [False] * 5])
        y = layer(x, src_key_padding_mask=pad)
        y.sum().backward()
        res.append((y.detach().numpy(), layer.linear1.weight.grad.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-4, atol=1e-6)
