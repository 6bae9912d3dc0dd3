"""Wave-2 nn.functional (activations, normalisations, distances, pads) and their modules
against torch: values, node names, gradients, gradcheck/gradgradcheck, reprs, errors."""

import numpy as np
import pytest
import torch

import framework
from helpers import randn
from parity import check, gradchecks, graph_names, same_error

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4)) * 3
Y = RNG.standard_normal((3, 4))
Z = RNG.standard_normal((2, 3, 4))
V = RNG.standard_normal((1, 2, 3, 4, 3))

ACTIVATIONS = [
    "softplus",
    "elu",
    "selu",
    "celu",
    "silu",
    "mish",
    "hardswish",
    "hardsigmoid",
    "hardtanh",
    "relu6",
    "logsigmoid",
    "softsign",
    "tanhshrink",
    "softshrink",
    "hardshrink",
]
CASES = {n: (lambda m, F, a, n=n: getattr(F, n)(a), [X]) for n in ACTIVATIONS}
CASES.update(
    {
        "softplus_beta": (lambda m, F, a: F.softplus(a, 2, 3), [X]),
        "elu_alpha": (lambda m, F, a: F.elu(a, 0.5), [X]),
        "celu_alpha": (lambda m, F, a: F.celu(a, 0.7), [X]),
        "hardtanh_range": (lambda m, F, a: F.hardtanh(a, -0.5, 2.0), [X]),
        "threshold": (lambda m, F, a: F.threshold(a, 0.1, 2.0), [X]),
        "glu": (lambda m, F, a: F.glu(a, 1), [X]),
        "glu_dim0": (lambda m, F, a: F.glu(a, 0), [Z[:, :2]]),
        "prelu": (lambda m, F, a, w: F.prelu(a, w), [Z, np.array([0.1, -0.2, 0.3])]),
        "prelu_single": (lambda m, F, a, w: F.prelu(a, w), [Z, np.array([0.1])]),
        "rrelu_eval": (lambda m, F, a: F.rrelu(a), [X]),
        "softmin": (lambda m, F, a: F.softmin(a, 1), [X]),
        "gelu_tanh": (lambda m, F, a: F.gelu(a, approximate="tanh"), [X]),
        "normalize": (lambda m, F, a: F.normalize(a), [X]),
        "normalize_p1": (lambda m, F, a: F.normalize(a, 1, 0), [X]),
        "cosine_similarity": (lambda m, F, a, b: F.cosine_similarity(a, b), [X, Y]),
        "cosine_similarity_bcast": (lambda m, F, a, b: F.cosine_similarity(a, b, -1), [Z, Y]),
        "pairwise_distance": (lambda m, F, a, b: F.pairwise_distance(a, b), [X, Y]),
        "pairwise_distance_p1": (
            lambda m, F, a, b: F.pairwise_distance(a, b, 1, keepdim=True),
            [X, Y],
        ),
        "group_norm": (
            lambda m, F, a, w, b: F.group_norm(a, 2, w, b),
            [RNG.standard_normal((2, 4, 5)), RNG.standard_normal(4), RNG.standard_normal(4)],
        ),
        "group_norm_plain": (
            lambda m, F, a: F.group_norm(a, 1),
            [RNG.standard_normal((2, 4, 3, 2))],
        ),
        "instance_norm": (lambda m, F, a: F.instance_norm(a), [Z]),
        "instance_norm_affine": (
            lambda m, F, a, w, b: F.instance_norm(a, weight=w, bias=b),
            [Z, RNG.standard_normal(3), RNG.standard_normal(3)],
        ),
        "local_response_norm": (lambda m, F, a: F.local_response_norm(a, 2), [Z]),
        "local_response_norm_4d": (
            lambda m, F, a: F.local_response_norm(a, 3, 1e-2, 0.5, 2.0),
            [RNG.standard_normal((2, 5, 3, 2))],
        ),
        "rms_norm": (lambda m, F, a: F.rms_norm(a, (4,)), [Z]),
        "rms_norm_weight": (
            lambda m, F, a, w: F.rms_norm(a, (3, 4), w, 1e-5),
            [Z, RNG.standard_normal((3, 4))],
        ),
        "layer_norm_no_affine": (lambda m, F, a: F.layer_norm(a, (4,)), [Z]),
        "one_hot": (lambda m, F, a: F.one_hot(a, 5), [np.array([[0, 3], [4, 1]])]),
    }
)
for _mode in ("reflect", "replicate"):
    CASES[f"pad1_{_mode}"] = (lambda m, F, a, md=_mode: F.pad(a, (2, 1), mode=md), [Z])
    CASES[f"pad2_{_mode}"] = (lambda m, F, a, md=_mode: F.pad(a, (2, 1, 1, 2), mode=md), [Z])
    CASES[f"pad3_{_mode}"] = (lambda m, F, a, md=_mode: F.pad(a, (1, 1, 1, 2, 0, 1), mode=md), [V])
CASES["pad_constant"] = (lambda m, F, a: F.pad(a, (1, 2, 0, 1), value=3.0), [Z])


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device)


@pytest.mark.parametrize(
    "name",
    [
        "softplus",
        "silu",
        "mish",
        "gelu_tanh",
        "group_norm",
        "normalize",
        "cosine_similarity",
        "rms_norm",
        "elu",
        "logsigmoid",
        "pad2_reflect",
        "local_response_norm",
    ],
)
def test_float32(name, device):
    fn, arrays = CASES[name]
    check(fn, arrays, device, dtype=np.float32)


CIRCULAR = [
    ((2, 1), (1, 2, 5)),
    ((1, 3), (2, 5)),
    ((2, 1, 1, 2), (2, 3, 4, 5)),
    ((1, 2, 3, 0), (1, 2, 4, 5)),
    ((-1, 2, 1, -2), (2, 3, 4, 5)),
    ((1, 1, 1, 2, 0, 1), (1, 2, 3, 4, 5)),
    ((-2, -3), (1, 2, 5)),
    ((0, 0, 1, 1), (3, 3, 3)),
    ((1, 1), (0, 2, 5)),
]


@pytest.mark.parametrize("pad,shape", CIRCULAR)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_circular_pad(pad, shape, dtype, device):
    """Values, gradients and node names as torch, whose circular padding copies the input into
    a new tensor and then each padded end from the other end (a chain of CopySlices); the whole
    graph has torch's nodes in torch's order."""
    arr = RNG.standard_normal(shape)
    fw, th = check(lambda m, F, a: F.pad(a, pad, mode="circular"), [arr], device, dtype=dtype)
    assert graph_names(fw.grad_fn) == graph_names(th.grad_fn)


@pytest.mark.parametrize(
    "pad,shape,match",
    [
        ((4, 0), (1, 2, 3), "Padding value causes wrapping around more than once."),
        ((-3, -3), (2, 5), "Negative padding value is resulting in an empty dimension"),
    ],
)
def test_circular_pad_errors(pad, shape, match):
    same_error(lambda m, F, a: F.pad(a, pad, mode="circular"), [np.zeros(shape)], match)


def test_circular_pad_gradchecks():
    gradchecks(lambda m, F, a: F.pad(a, (2, 1, 1, 2), mode="circular"), [Z])


GRADCHECK = {
    n: (lambda m, F, a, n=n: getattr(F, n)(a), [randn(5) * 2])
    for n in (
        "softplus",
        "elu",
        "selu",
        "celu",
        "silu",
        "mish",
        "logsigmoid",
        "softshrink",
        "hardshrink",
        "hardtanh",
        "hardswish",
        "hardsigmoid",
    )
}
GRADCHECK.update(
    {
        "softplus_beta": (lambda m, F, a: F.softplus(a, 0.5, 1.0), [randn(5) * 2]),
        "threshold": (lambda m, F, a: F.threshold(a, 0.1, 2.0), [randn(5)]),
        "glu": (lambda m, F, a: F.glu(a, 0), [randn(4, 2)]),
        "prelu": (lambda m, F, a, w: F.prelu(a, w), [randn(2, 3, 2), randn(3)]),
        "rrelu": (lambda m, F, a: F.rrelu(a), [randn(5)]),
        "group_norm": (
            lambda m, F, a, w, b: F.group_norm(a, 2, w, b),
            [randn(2, 4, 3), randn(4), randn(4)],
        ),
        "group_norm_plain": (lambda m, F, a: F.group_norm(a, 1), [randn(2, 2, 3)]),
        "pad_reflect": (lambda m, F, a: F.pad(a, (2, 1), mode="reflect"), [randn(1, 2, 4)]),
        "pad_replicate": (
            lambda m, F, a: F.pad(a, (1, 2, 2, 0), mode="replicate"),
            [randn(1, 1, 3, 3)],
        ),
        "cosine_similarity": (
            lambda m, F, a, b: F.cosine_similarity(a, b),
            [randn(2, 3), randn(2, 3)],
        ),
        "pairwise_distance": (
            lambda m, F, a, b: F.pairwise_distance(a, b, 3),
            [randn(2, 3), randn(2, 3)],
        ),
    }
)


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    fn, arrays = GRADCHECK[name]
    if name == "hardsigmoid":  # gradcheck passes; torch's hardsigmoid_backward has no
        match = "derivative for aten::hardsigmoid_backward is not implemented"  # derivative
        with pytest.raises(RuntimeError, match=match):
            gradchecks(fn, arrays)
        return
    gradchecks(fn, arrays)


def test_rrelu_training_uses_random_slopes_and_their_gradient():
    x = framework.tensor([-1.0, -2.0, 3.0], requires_grad=True)
    y = framework.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).detach().numpy()
    assert np.all((slopes[:2] >= 0.1) & (slopes[:2] <= 0.3)) and slopes[2] == 1.0
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes)


ERRORS = [
    (lambda m, F, a: F.glu(a), [np.ones(3)], "Halving dimension must be even"),
    (lambda m, F, a: F.group_norm(a, 3), [np.ones((2, 4))], "divisible by num_groups"),
    (
        lambda m, F, a: F.pad(a, (3, 0), mode="reflect"),
        [np.ones((1, 3))],
        "Padding size should be less than the corresponding input dimension",
    ),
    (lambda m, F, a: F.pad(a, (1,)), [np.ones((1, 3))], "Padding length must be divisible by 2"),
    (
        lambda m, F, a: F.prelu(a, m.ones(2, dtype=m.float64)),
        [np.ones((1, 3))],
        "Mismatch of parameter numbers",
    ),
    (lambda m, F, a: F.rms_norm(a, (3,)), [np.ones((2, 4))], "Given normalized_shape=[3]"),
    (lambda m, F, a: F.local_response_norm(a, 2), [np.ones((2, 4))], "Expected 3D or higher"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    fn, arrays, match = ERRORS[case]
    same_error(fn, arrays, match)


MODULES = [
    ("Softplus", (), {}),
    ("Softplus", (), {"beta": 2.0, "threshold": 5.0}),
    ("ELU", (), {}),
    ("ELU", (0.5,), {"inplace": False}),
    ("SELU", (), {}),
    ("CELU", (0.7,), {}),
    ("SiLU", (), {}),
    ("Mish", (), {}),
    ("Hardswish", (), {}),
    ("Hardsigmoid", (), {}),
    ("Hardtanh", (-2.0, 2.0), {}),
    ("ReLU6", (), {}),
    ("PReLU", (), {}),
    ("PReLU", (3,), {}),
    ("GLU", (-1,), {}),
    ("LogSigmoid", (), {}),
    ("Softsign", (), {}),
    ("Tanhshrink", (), {}),
    ("Softshrink", (), {}),
    ("Hardshrink", (0.3,), {}),
    ("Threshold", (0.1, 20.0), {}),
    ("Softmin", (1,), {}),
    ("GroupNorm", (3, 3), {}),
    ("GroupNorm", (1, 3), {"affine": False}),
    ("InstanceNorm1d", (3,), {}),
    ("InstanceNorm1d", (3,), {"affine": True}),
    ("LocalResponseNorm", (2,), {}),
    ("RMSNorm", (4,), {}),
    ("RMSNorm", ([3, 4],), {"eps": 1e-3}),
    ("LayerNorm", (4,), {"bias": False}),
    ("LayerNorm", (4,), {"elementwise_affine": False}),
    ("CosineSimilarity", (), {}),
    ("PairwiseDistance", (), {}),
    ("ReflectionPad1d", (2,), {}),
    ("ReplicationPad1d", ((1, 2),), {}),
    ("ConstantPad1d", (2, 3.5), {}),
    ("ZeroPad1d", (1,), {}),
    ("CircularPad1d", (1,), {}),
]


@pytest.mark.parametrize("case", range(len(MODULES)))
def test_modules(case):
    name, args, kw = MODULES[case]
    th = getattr(torch.nn, name)(*args, **kw).double()
    fw = getattr(framework.nn, name)(*args, **kw).double()
    assert repr(fw) == repr(th)
    assert list(fw.state_dict()) == list(th.state_dict())
    fw.load_state_dict(
        {
            k: framework.tensor(
                v.numpy() + RNG.standard_normal(v.shape) * 0.1
                if v.dtype.is_floating_point
                else v.numpy()
            )
            for k, v in th.state_dict().items()
        }
    )
    th.load_state_dict({k: torch.tensor(v.numpy()) for k, v in fw.state_dict().items()})
    two = name in ("CosineSimilarity", "PairwiseDistance")
    arrays = [Z, Z * 0.5 + 1] if two else [Z]
    check(
        lambda m, F, *t: (fw if m is framework else th)(*t),
        arrays,
        check_grad_fn=not name.startswith("Circular"),
    )
    th_params = dict(th.named_parameters())
    for k, p in fw.named_parameters():
        assert p.grad is not None and th_params[k].grad is not None
        np.testing.assert_allclose(
            p.grad.numpy(), th_params[k].grad.numpy(), rtol=1e-10, atol=1e-12
        )


def test_padding_layers_2d_3d():
    x4, x5 = RNG.standard_normal((1, 2, 3, 4)), V
    for name, arg, arr in (
        ("ReflectionPad2d", (1, 2, 0, 1), x4),
        ("ReplicationPad2d", 2, x4),
        ("ZeroPad2d", (1, 0, 2, 1), x4),
        ("ReflectionPad3d", 1, x5),
        ("ReplicationPad3d", (1, 0, 1, 2, 0, 1), x5),
        ("ConstantPad3d", 1, x5),
        ("CircularPad2d", 1, x4),
    ):
        extra = (2.0,) if name.startswith("Constant") else ()
        th, fw = getattr(torch.nn, name)(arg, *extra), getattr(framework.nn, name)(arg, *extra)
        assert repr(fw) == repr(th)
        check(
            lambda m, F, t: (fw if m is framework else th)(t),
            [arr],
            check_grad_fn=not name.startswith("Circular"),
        )


def test_instance_norm_running_stats_and_batchnorm3d():
    for mod, arr in (
        (("InstanceNorm2d", 2), RNG.standard_normal((3, 2, 4, 5))),
        (("BatchNorm3d", 2), RNG.standard_normal((3, 2, 2, 3, 2))),
    ):
        kw = {"track_running_stats": True, "affine": True} if mod[0] != "BatchNorm3d" else {}
        th = getattr(torch.nn, mod[0])(mod[1], **kw).double()
        fw = getattr(framework.nn, mod[0])(mod[1], **kw).double()
        for _ in range(2):
            check(lambda m, F, t: (fw if m is framework else th)(t), [arr])
        np.testing.assert_allclose(fw.running_mean.numpy(), th.running_mean.numpy(), rtol=1e-10)
        np.testing.assert_allclose(fw.running_var.numpy(), th.running_var.numpy(), rtol=1e-10)
        fw.eval(), th.eval()
        check(lambda m, F, t: (fw if m is framework else th)(t), [arr])


def test_unbatched_instance_norm():
    th, fw = torch.nn.InstanceNorm1d(3), framework.nn.InstanceNorm1d(3)
    check(lambda m, F, t: (fw if m is framework else th)(t), [Z[0]])
