"""sinc's float32 gradient where torch's denominator x * x * pi overflows (thirteenth pass).

Ours takes sinc_backward's quotient in float64 (exact where torch's float32 one cancels, for
small x; tests/ops/test_fidelity_silent8.py). For |x| > 1.04e19 torch's float32 x * x * pi is
inf and its gradient a signed 0 (NaN where pi x overflows too, |x| > 1.08e38, or the
numerator is not finite); the float64 quotient gave 1 / x of a phase that x's rounding has
already lost (~1e-31 at 1e30). A huge input times it moved a gradient: fuzzer seed 440018526,
conv_transpose3d of an input holding 1e30, then sinc, the weight's gradient 1.07 off torch's
with the convolution's outputs bit-equal. Bit tests over several data sets: the values, the
signs of the zeros and the NaNs are torch's for any data in that range.
"""

import numpy as np
import pytest
import torch

import framework

from ops.test_fidelity import same, t

EDGES = [1.05e19, 1.1e19, 1e30, 1.08e38, 1.09e38, 3.4e38]


def _huge(seed):
    """Float32 inputs with x * x * pi past float32's range, and upstream gradients."""
    r = np.random.default_rng(seed)
    mags = np.concatenate([10.0 ** r.uniform(19.02, 38.5, 3000), EDGES])
    x = (mags * r.choice([-1.0, 1.0], mags.size)).astype(np.float32)
    g = (r.standard_normal(x.size) * 10.0 ** r.uniform(-3, 3, x.size)).astype(np.float32)
    return x, g


def _bits(a):
    """Each entry's bit pattern, every NaN alike."""
    a = np.asarray(a, np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), a).view(np.int32)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_sinc_float32_gradient_where_torchs_denominator_overflows(seed, create_graph):
    x, g = _huge(seed)
    grads = []
    for L in (framework, torch):
        v = L.tensor(x, requires_grad=True)
        (d,) = L.autograd.grad(L.sinc(v), v, L.tensor(g), create_graph=create_graph)
        grads.append(d.detach().numpy())
    assert np.isnan(grads[1]).any() and (grads[1] == 0).any()  # both kinds of value met
    np.testing.assert_array_equal(_bits(grads[0]), _bits(grads[1]))


@pytest.mark.parametrize("seed", range(3))
def test_sinc_float32_second_order_where_torchs_denominator_overflows(seed):
    """The create_graph gradient's own gradients (by x and by the upstream gradient): the
    quotient is swapped before the product with the upstream gradient, so that the zeros'
    signs are torch's there too."""
    x, g = _huge(seed)
    u = np.random.default_rng(seed + 100).standard_normal(x.size).astype(np.float32)
    grads = []
    for L in (framework, torch):
        v, w = L.tensor(x, requires_grad=True), L.tensor(g, requires_grad=True)
        (d,) = L.autograd.grad(L.sinc(v), v, w, create_graph=True)
        grads.append([a.numpy() for a in L.autograd.grad(d, (v, w), L.tensor(u))])
    for ours, theirs in zip(*grads):
        np.testing.assert_array_equal(_bits(ours), _bits(theirs))


def test_conv_transpose3d_of_1e30_then_sinc():
    """Fuzzer seed 440018526: the weight's gradient is torch's (1.07 apart before)."""
    x = [-0.4949, -0.1771, 1.8693, 1.1372, -1.0, -1e-30, -0.2282, 0.2820, 0.5386, 1.1062]
    x = np.array([*x, 1e30, 2.1889]).reshape(1, 1, 2, 3, 2)
    w = np.random.default_rng(440018526).standard_normal((1, 2, 2, 2, 2))
    same(
        lambda L, a, b, c: L.nn.functional.conv_transpose3d(a, b, c, stride=2).sinc(),
        t(x, "float32"),
        t(w, "float32"),
        t([8.9559, 2.9247], "float32"),
    )
