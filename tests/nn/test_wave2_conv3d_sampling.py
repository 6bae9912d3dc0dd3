"""conv3d / conv_transpose3d, embedding_bag, grid_sample / affine_grid and ctc_loss against
torch: values, node names, gradients, gradcheck/gradgradcheck, modules, errors."""

import numpy as np
import pytest
import torch

import framework
from helpers import randn
from parity import check, gradchecks, same_error

RNG = np.random.default_rng(21)
X3 = RNG.standard_normal((2, 4, 4, 5, 6))
W_EMB = RNG.standard_normal((10, 3))
IMG = RNG.standard_normal((2, 3, 4, 5))
GRID = RNG.uniform(-1.3, 1.3, (2, 3, 6, 2))
VOL = RNG.standard_normal((2, 2, 3, 4, 5))
GRID3 = RNG.uniform(-1.3, 1.3, (2, 2, 3, 4, 3))
LP = torch.randn(7, 3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
LP = LP.log_softmax(2).numpy()
TG, IL, TL = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0]]), [7, 6, 5], [3, 2, 1]

CASES = {
    "conv3d_groups_bias": (
        lambda m, F, a, w, b: F.conv3d(a, w, b, groups=2),
        [X3, RNG.standard_normal((6, 2, 2, 3, 2)), RNG.standard_normal(6)],
    ),
    "conv3d_stride_pad_dilation": (
        lambda m, F, a, w: F.conv3d(a, w, None, stride=(2, 1, 2), padding=1, dilation=(1, 2, 1)),
        [X3, RNG.standard_normal((3, 4, 2, 2, 2))],
    ),
    "conv3d_same": (
        lambda m, F, a, w: F.conv3d(a, w, padding="same"),
        [X3, RNG.standard_normal((3, 4, 3, 3, 1))],
    ),
    "conv3d_unbatched": (
        lambda m, F, a, w: F.conv3d(a, w),
        [X3[0], RNG.standard_normal((3, 4, 2, 2, 2))],
    ),
    "conv_transpose3d": (
        lambda m, F, a, w, b: F.conv_transpose3d(a, w, b, stride=2, padding=1, output_padding=1),
        [X3, RNG.standard_normal((4, 3, 3, 3, 3)), RNG.standard_normal(3)],
    ),
    "conv_transpose3d_groups": (
        lambda m, F, a, w: F.conv_transpose3d(a, w, groups=2, dilation=2),
        [X3, RNG.standard_normal((4, 2, 2, 2, 2))],
    ),
    "embedding_bag_psw": (
        lambda m, F, w, p: F.embedding_bag(
            m.tensor([1, 2, 4, 5, 4, 3, 2, 9]),
            w,
            m.tensor([0, 4, 6]),
            mode="sum",
            per_sample_weights=p,
        ),
        [W_EMB, RNG.standard_normal(8)],
    ),
    "embedding_bag_psw_2d": (
        lambda m, F, w, p: F.embedding_bag(
            m.tensor([[1, 2, 4], [5, 4, 3]]), w, mode="sum", per_sample_weights=p
        ),
        [W_EMB, RNG.standard_normal((2, 3))],
    ),
    "affine_grid": (
        lambda m, F, t: F.affine_grid(t, (2, 3, 4, 5), align_corners=False),
        [RNG.standard_normal((2, 2, 3))],
    ),
    "affine_grid_align": (
        lambda m, F, t: F.affine_grid(t, (2, 3, 4, 5), align_corners=True),
        [RNG.standard_normal((2, 2, 3))],
    ),
    "affine_grid_3d": (
        lambda m, F, t: F.affine_grid(t, (2, 3, 2, 4, 5), align_corners=False),
        [RNG.standard_normal((2, 3, 4))],
    ),
    "spatial_transformer": (
        lambda m, F, a, t: F.grid_sample(
            a, F.affine_grid(t, (2, 3, 3, 3), align_corners=False), align_corners=False
        ),
        [IMG, RNG.standard_normal((2, 2, 3)) * 0.5],
    ),
    "ctc_unbatched": (lambda m, F, a: F.ctc_loss(a, m.tensor([1, 2]), [6], [2]), [LP[:6, 0]]),
    "ctc_zero_infinity": (
        lambda m, F, a: F.ctc_loss(
            a[:3, :2, :4].log_softmax(-1),
            m.tensor([[1, 1, 1, 1], [2, 3, 0, 0]]),
            [3, 3],
            [4, 2],
            reduction="none",
            zero_infinity=True,
        ),
        [LP],
    ),
    "ctc_after_log_softmax": (
        lambda m, F, a: F.ctc_loss(a.log_softmax(2), m.tensor(TG), IL, TL),
        [RNG.standard_normal((7, 3, 5))],
    ),
}
for _mode in ("sum", "mean", "max"):
    CASES[f"embedding_bag_{_mode}"] = (
        lambda m, F, w, md=_mode: F.embedding_bag(
            m.tensor([1, 2, 4, 5, 4, 3, 2, 9]), w, m.tensor([0, 4, 4, 6]), mode=md
        ),
        [W_EMB],
    )
    CASES[f"embedding_bag_2d_{_mode}"] = (
        lambda m, F, w, md=_mode: F.embedding_bag(m.tensor([[1, 2, 4], [5, 4, 3]]), w, mode=md),
        [W_EMB],
    )
    CASES[f"embedding_bag_padding_{_mode}"] = (
        lambda m, F, w, md=_mode: F.embedding_bag(
            m.tensor([1, 2, 4, 5, 4, 3, 2, 9]), w, m.tensor([0, 4, 6]), mode=md, padding_idx=4
        ),
        [W_EMB],
    )
    CASES[f"embedding_bag_last_offset_{_mode}"] = (
        lambda m, F, w, md=_mode: F.embedding_bag(
            m.tensor([1, 2, 4, 5, 4, 3, 2, 9]),
            w,
            m.tensor([0, 4, 6, 8]),
            mode=md,
            include_last_offset=True,
        ),
        [W_EMB],
    )
for _mode in ("bilinear", "nearest"):
    for _pad in ("zeros", "border", "reflection"):
        for _ac in (False, True):
            CASES[f"grid_sample_{_mode}_{_pad}_{_ac}"] = (
                lambda m, F, a, g, md=_mode, pd=_pad, ac=_ac: F.grid_sample(
                    a, g, mode=md, padding_mode=pd, align_corners=ac
                ),
                [IMG, GRID],
            )
for _pad in ("zeros", "border", "reflection"):
    for _ac in (False, True):
        CASES[f"grid_sample_bicubic_{_pad}_{_ac}"] = (
            lambda m, F, a, g, pd=_pad, ac=_ac: F.grid_sample(
                a, g, mode="bicubic", padding_mode=pd, align_corners=ac
            ),
            [IMG, GRID],
        )
        for _mode in ("bilinear", "nearest"):
            CASES[f"grid_sample_3d_{_mode}_{_pad}_{_ac}"] = (
                lambda m, F, a, g, md=_mode, pd=_pad, ac=_ac: F.grid_sample(
                    a, g, mode=md, padding_mode=pd, align_corners=ac
                ),
                [VOL, GRID3],
            )
CASES["spatial_transformer_3d"] = (
    lambda m, F, a, t: F.grid_sample(
        a, F.affine_grid(t, (2, 2, 2, 3, 3), align_corners=False), align_corners=False
    ),
    [VOL, RNG.standard_normal((2, 3, 4)) * 0.5],
)
for _r in ("none", "sum", "mean"):
    CASES[f"ctc_{_r}"] = (
        lambda m, F, a, r=_r: F.ctc_loss(a, m.tensor(TG), m.tensor(IL), m.tensor(TL), reduction=r),
        [LP],
    )
    CASES[f"ctc_concatenated_{_r}"] = (
        lambda m, F, a, r=_r: F.ctc_loss(a, m.tensor([1, 2, 2, 3, 1, 4]), IL, TL, reduction=r),
        [LP],
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device)


@pytest.mark.parametrize(
    "name",
    [
        "conv3d_groups_bias",
        "conv_transpose3d",
        "embedding_bag_mean",
        "grid_sample_bilinear_zeros_False",
        "ctc_mean",
        "grid_sample_bicubic_reflection_False",
        "grid_sample_3d_bilinear_border_True",
    ],
)
def test_float32(name, device):
    """float32 tolerance; sums of many terms of size ~10 (3-D convolutions, grid_sample's
    taps and its grid gradient's sums over channels) get an absolute one of 1e-5, since
    torch's vectorised kernels order the sum differently on other CPUs (CI saw 4e-6 on a
    bicubic output of 0.13; a Xeon 3.8e-6 on a bilinear gradient, with the random upstream
    gradient the test order gives)."""
    fn, arrays = CASES[name]
    check(
        fn,
        arrays,
        device,
        dtype=np.float32,
        tol=dict(rtol=2e-5, atol=1e-5) if "conv" in name or "grid_sample" in name else None,
    )


def test_ctc_infinite_loss_and_gradient_match():
    """An impossible alignment: inf loss and NaN gradients, as torch."""
    lp = torch.tensor(LP[:3, :2, :4]).log_softmax(-1).numpy()
    fw_x = framework.tensor(lp, requires_grad=True)
    th_x = torch.tensor(lp, requires_grad=True)
    args = ([[1, 1, 1, 1], [2, 3, 0, 0]], [3, 3], [4, 2])
    fw = framework.nn.functional.ctc_loss(
        fw_x, framework.tensor(args[0]), *args[1:], reduction="none"
    )
    th = torch.nn.functional.ctc_loss(th_x, torch.tensor(args[0]), *args[1:], reduction="none")
    np.testing.assert_allclose(fw.detach().numpy(), th.detach().numpy(), rtol=1e-10)
    up = np.array([0.3, -1.2])
    fw.backward(framework.tensor(up))
    th.backward(torch.tensor(up))
    np.testing.assert_allclose(
        fw_x.grad.numpy(), th_x.grad.numpy(), rtol=1e-10, atol=1e-12, equal_nan=True
    )


GRADCHECK = {
    "conv3d": (
        lambda m, F, a, w, b: F.conv3d(a, w, b, stride=2, padding=1),
        [randn(1, 2, 3, 3, 3), randn(2, 2, 2, 2, 2), randn(2)],
    ),
    "conv3d_groups": (
        lambda m, F, a, w: F.conv3d(a, w, groups=2, dilation=(1, 2, 1)),
        [randn(1, 2, 2, 3, 3), randn(2, 1, 1, 2, 2)],
    ),
    "conv_transpose3d": (
        lambda m, F, a, w, b: F.conv_transpose3d(a, w, b, stride=2),
        [randn(1, 2, 2, 2, 2), randn(2, 2, 2, 2, 2), randn(2)],
    ),
    "embedding_bag_sum": (
        lambda m, F, w, p: F.embedding_bag(
            m.tensor([0, 2, 2, 4]), w, m.tensor([0, 1]), mode="sum", per_sample_weights=p
        ),
        [randn(5, 2), randn(4)],
    ),
    "embedding_bag_mean": (
        lambda m, F, w: F.embedding_bag(m.tensor([0, 2, 2, 4]), w, m.tensor([0, 1])),
        [randn(5, 2)],
    ),
    "embedding_bag_max": (
        lambda m, F, w: F.embedding_bag(m.tensor([0, 2, 3, 4]), w, m.tensor([0, 1]), mode="max"),
        [randn(5, 2)],
    ),
    "affine_grid": (lambda m, F, t: F.affine_grid(t, (1, 1, 2, 3)), [randn(1, 2, 3)]),
}
for _pad in ("zeros", "border", "reflection"):
    GRADCHECK[f"grid_sample_{_pad}"] = (
        lambda m, F, a, g, pd=_pad: F.grid_sample(a, g, padding_mode=pd, align_corners=False),
        [randn(1, 2, 3, 3), RNG.uniform(-1.2, 1.2, (1, 2, 3, 2))],
    )
    GRADCHECK[f"grid_sample_bicubic_{_pad}"] = (
        lambda m, F, a, g, pd=_pad: F.grid_sample(
            a, g, mode="bicubic", padding_mode=pd, align_corners=True
        ),
        [randn(1, 2, 3, 3), RNG.uniform(-1.2, 1.2, (1, 2, 3, 2))],
    )
    GRADCHECK[f"grid_sample_3d_{_pad}"] = (
        lambda m, F, a, g, pd=_pad: F.grid_sample(a, g, padding_mode=pd, align_corners=False),
        [randn(1, 2, 2, 3, 2), RNG.uniform(-1.2, 1.2, (1, 2, 1, 2, 3))],
    )


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    fn, arrays = GRADCHECK[name]
    gradchecks(fn, arrays)


def test_ctc_gradcheck_first_order():
    """torch's CTC gradient assumes normalised log-probabilities; check it through
    log_softmax (its double backward is not implemented, as in torch)."""
    x = framework.tensor(randn(4, 2, 3), requires_grad=True)
    f = lambda a: framework.nn.functional.ctc_loss(
        a.log_softmax(2), framework.tensor([[1, 2], [2, 0]]), [4, 3], [2, 1]
    )
    assert framework.autograd.gradcheck(f, (x,))


@pytest.mark.parametrize("name", ["Conv3d", "ConvTranspose3d"])
def test_conv3d_modules(name):
    kw = dict(stride=2, padding=1, groups=2, bias=True)
    th = getattr(torch.nn, name)(4, 6, 3, **kw).double()
    fw = getattr(framework.nn, name)(4, 6, 3, **kw).double()
    assert repr(fw) == repr(th)
    assert {k: tuple(v.shape) for k, v in fw.state_dict().items()} == {
        k: tuple(v.shape) for k, v in th.state_dict().items()
    }
    fw.load_state_dict({k: framework.tensor(v.numpy()) for k, v in th.state_dict().items()})
    check(lambda m, F, a: (fw if m is framework else th)(a), [X3])
    for (k, p), q in zip(fw.named_parameters(), th.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12)


ERRORS = [
    (lambda m, F, a: F.conv3d(a, m.ones(2, 3, 1, 1, 1, dtype=m.float64)), [X3], "channels"),
    (
        lambda m, F, w: F.embedding_bag(m.tensor([[1, 2]]), w, m.tensor([0])),
        [W_EMB],
        "offsets has to be None",
    ),
    (
        lambda m, F, w: F.embedding_bag(
            m.tensor([1, 2]),
            w,
            m.tensor([0]),
            mode="mean",
            per_sample_weights=m.ones(2, dtype=m.float64),
        ),
        [W_EMB],
        "per_sample_weights is only supported for mode='sum'",
    ),
    (
        lambda m, F, t: F.affine_grid(t, (1, 1, 2, 3)),
        [np.ones((1, 3, 3))],
        "Expected a batch of 2D affine matrices",
    ),
    (lambda m, F, a: F.grid_sample(a, a, padding_mode="wrap"), [IMG], "padding_mode"),
    (
        lambda m, F, a, g: F.grid_sample(a, g, mode="bicubic", align_corners=False),
        [VOL, GRID3],
        "bicubic interpolation only supports 4D input",
    ),
    (
        lambda m, F, a, g: F.grid_sample(a, g, align_corners=False),
        [VOL, GRID],
        "expected grid to have size 3 in last dimension",
    ),
    (
        lambda m, F, a, g: F.grid_sample(a, g[..., :2], align_corners=False),
        [IMG, GRID3],
        "expected 4D input and grid with same number of dimensions",
    ),
    (
        lambda m, F, a, g: F.grid_sample(a[:1], g, align_corners=False),
        [IMG, GRID],
        "same batch size",
    ),
    (
        lambda m, F, a, g: F.grid_sample(a[:, :, :0], g, align_corners=False),
        [IMG, GRID],
        "non-empty spatial dimensions",
    ),
    (
        lambda m, F, a, g: F.grid_sample(a, g.float(), align_corners=False),
        [IMG, GRID],
        "expected scalar type Double but found Float",
    ),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    fn, arrays, match = ERRORS[case]
    same_error(fn, arrays, match)


def test_grid_sample_warns_without_align_corners():
    """align_corners=None warns as torch does (the old default changed in 1.3.0)."""
    msgs = []
    for m in (torch, framework):
        with pytest.warns(UserWarning) as rec:
            m.nn.functional.grid_sample(m.tensor(IMG), m.tensor(GRID))
        msgs.append(str(rec[0].message))
    assert msgs[0] == msgs[1]
