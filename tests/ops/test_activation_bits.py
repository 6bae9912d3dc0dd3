"""torch's CPU elu/selu/celu, softplus, mish, logsigmoid, gelu(approximate='tanh') and float64
gelu (issue 9) bit for bit: Sleef's expm1/log1p/tanh/erf (framework/ops/_sleef_math.py) and
torch's AVX2 loops (_sleef_act) replayed, float32 and float64, forward and first gradient
(random upstream gradients), sizes around the vector loop's 16/8-element step (its scalar
tail), values over wide ranges with the functions' cut-offs and specials, strided views;
the numba kernels and the NumPy replay give the same bits; float32 gelu is oneDNN's AVX2
gelu_erf on contiguous tensors, ATen's kernel (its own vector erf) on strided views. torch
runs on one thread here (a multi-threaded split moves the scalar tails, see _sleef_act).
Not here: torch.tanh (MKL's vector tanh, not replayed; README "Known differences")."""

import importlib.util
import math
import os

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfwd
import torch.nn.functional as TF

import framework
from bits import one_torch_thread, replay_path, same_bits  # noqa: F401 (fixture)
import framework.autograd.forward_ad as ffwd
import framework.nn.functional as FF
from framework.ops import _sleef_act, _sleef_math

DTYPES = ["float32", "float64"]
SIZES = [1, 7, 8, 15, 16, 17, 31, 33, 1000, 4099]
# the Sleef functions' and the ops' cut-offs, around them, and specials
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, -1e-38, 88.7, 88.8]
SPECIAL += [-88.7, -104.0, -105.0, 20.0, 20.000002, 19.99, 709.78, 710.0, -745.0, -16.6]
SPECIAL += [-16.7, -36.7, -36.8, 8.66, 8.67, 18.7, 18.8, 3e38, -3e38, 1e23, 1e-7, -1e-7]

# name -> fn(L, x)
OPS = {
    "elu": lambda L, x: F(L).elu(x),
    "elu_alpha": lambda L, x: F(L).elu(x, 0.3),
    "selu": lambda L, x: F(L).selu(x),
    "celu": lambda L, x: F(L).celu(x, 0.7),
    "softplus": lambda L, x: F(L).softplus(x),
    "softplus_beta": lambda L, x: F(L).softplus(x, 2.0, 5.0),
    "mish": lambda L, x: F(L).mish(x),
    "logsigmoid": lambda L, x: F(L).logsigmoid(x),
    "gelu_tanh": lambda L, x: F(L).gelu(x, approximate="tanh"),
    "gelu": lambda L, x: F(L).gelu(x),  # float32: oneDNN's kernel, ATen's on strided views
}
EXACT = [(n, d) for n in sorted(OPS) for d in DTYPES]


def F(L):
    return FF if L is framework else TF


def _replay(numba):
    """Run the block on the numba kernels or the NumPy replay."""
    return replay_path(_sleef_act._JIT, numba)


_same = same_bits


def _wide(n, dtype, seed):
    """Values over wide ranges: normal, scaled by 30, log-uniform magnitudes, specials."""
    r = np.random.default_rng(seed)
    pick = r.integers(0, 3, n)
    mag = np.exp(r.uniform(-20, 6, n)) * r.choice([-1, 1], n)
    x = np.where(
        pick == 0, r.standard_normal(n) * 3, np.where(pick == 1, r.standard_normal(n) * 30, mag)
    )
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
        k = min(n, len(SPECIAL))
        x[r.permutation(n)[:k]] = np.array(SPECIAL[:k], dtype)
    return x


def _both(L, name, x, g, view=None):
    """(output, input gradient) of op `name` on x (through `view` of the leaf) for the
    upstream gradient g."""
    xt = L.tensor(x, requires_grad=True)
    y = OPS[name](L, xt if view is None else view(xt))
    y.backward(L.tensor(g))
    return y.detach().numpy(), xt.grad.numpy()


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("name,dtype", EXACT)
def test_forward_and_gradient_bits(name, dtype, numba):
    with _replay(numba):
        for n in SIZES:
            x = _wide(n, dtype, n)
            g = np.random.default_rng(n + 1).standard_normal(n).astype(dtype)
            (fy, fg), (ty, tg) = _both(framework, name, x, g), _both(torch, name, x, g)
            _same(fy, ty)
            _same(fg, tg)


VIEWS = {
    "transposed": (lambda t: t.t(), (16, 10)),
    "gapped": (lambda t: t[:, ::2], (16, 20)),
    "column": (lambda t: t[:, 3], (40, 5)),
}


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("name,dtype", EXACT)
def test_strided_views_bits(name, dtype, view, numba):
    """A transposed view walks memory in order (its vector body), a gapped inner dim runs
    the scalar code; their backward's upstream gradient has another layout (scalar code)."""
    fn, shape = VIEWS[view]
    x = _wide(int(np.prod(shape)), dtype, 3).reshape(shape)
    out_shape = tuple(fn(torch.from_numpy(x)).shape)
    g = np.random.default_rng(4).standard_normal(out_shape).astype(dtype)
    with _replay(numba):
        (fy, fg), (ty, tg) = _both(framework, name, x, g, fn), _both(torch, name, x, g, fn)
    _same(fy, ty)
    _same(fg, tg)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sleef_math_matches_torch_expm1_and_log1p(dtype):
    """torch.expm1 and torch.log1p run Sleef's expm1/log1p in their vector loops: the NumPy
    replay gives their bits on every element of a 16/8-multiple (no scalar tail)."""
    x = _wide(4096, dtype, 5)
    fs = _sleef_math.numpy_funcs(dtype)
    _same(fs["expm1"](x), torch.expm1(torch.from_numpy(x)).numpy())
    y = (np.abs(x) - 0.9).astype(dtype)
    _same(fs["log1p"](y), torch.log1p(torch.from_numpy(y)).numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_sleef_math_numba_and_numpy_agree(dtype):
    """The compiled expm1/log1p/tanh and the NumPy replay give the same bits over the whole
    range (specials, subnormals, the cut-offs)."""
    j = _sleef_act._jit()
    fs = _sleef_math.numpy_funcs(dtype)
    if j is None:  # numba off or absent: the replay alone, on values it must give exactly
        assert os.environ.get("FRAMEWORK_NUMBA") == "0" or importlib.util.find_spec("numba") is None
        x = np.array([0.0, -0.0, -np.inf, np.inf, np.nan], dtype)
        _same(fs["expm1"](x), np.array([0.0, -0.0, -1.0, np.inf, np.nan], dtype))
        _same(fs["tanh"](x), np.array([0.0, -0.0, -1.0, 1.0, np.nan], dtype))
        _same(fs["log1p"](x), np.array([0.0, -0.0, np.nan, np.inf, np.nan], dtype))
        return
    x = _wide(20000, dtype, 6)
    k = j.kernels(dtype)
    for which, name in enumerate(("expm1", "log1p", "tanh")):
        arg = (np.abs(x) - 0.99).astype(dtype) if name == "log1p" else x
        out = np.empty_like(arg)
        k["map_array"](arg, out, which)
        _same(out, fs[name](arg))


@pytest.mark.parametrize(
    "name,dtype",
    [(n, "float32") for n in ("elu", "softplus_beta", "logsigmoid", "gelu_tanh", "celu")]
    + [("gelu", "float64"), ("gelu", "float32")],
)
def test_first_gradient_bits_unchanged_by_create_graph(name, dtype):
    """The backward op's forward is the kernel the first gradient runs."""
    x = _wide(1000, dtype, 7).reshape(40, 25)
    c = np.random.default_rng(8).standard_normal((40, 25)).astype(dtype)
    out = []
    for create in (False, True):
        xt = framework.tensor(x, requires_grad=True)
        (g,) = framework.autograd.grad(
            OPS[name](framework, xt), xt, framework.tensor(c), create_graph=create
        )
        out.append(g.detach().numpy())
    _same(out[0], out[1])
    xt = torch.tensor(x, requires_grad=True)
    (tg,) = torch.autograd.grad(OPS[name](torch, xt), xt, torch.tensor(c), create_graph=True)
    _same(out[1], tg.detach().numpy())


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradcheck_and_gradgradcheck(name):
    """float64, off the kinks: the changed first-gradient kernels against finite
    differences, and their backward ops' derivatives."""
    r = np.random.default_rng(9)
    x = framework.tensor(r.standard_normal((3, 7)) * 2 + 0.05, requires_grad=True)
    assert framework.autograd.gradcheck(lambda a: OPS[name](framework, a), (x,))
    assert framework.autograd.gradgradcheck(lambda a: OPS[name](framework, a), (x,))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_forward_ad_as_torch(name, dtype):
    """jvp (forward AD) tangents against torch's."""
    r = np.random.default_rng(10)
    x, t = (r.standard_normal((5, 9)) * 3).astype(dtype), r.standard_normal((5, 9)).astype(dtype)
    got = []
    for L, fwd in ((torch, tfwd), (framework, ffwd)):
        with fwd.dual_level():
            y = OPS[name](L, fwd.make_dual(L.tensor(x), L.tensor(t)))
            got.append(fwd.unpack_dual(y).tangent.numpy())
    tol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(got[1], got[0], rtol=tol, atol=tol)


def test_half_inputs_keep_their_float32_math():
    """float16/bfloat16 ops compute in float32 on their own loops (not the replay's)."""
    x = (np.random.default_rng(11).standard_normal(64) * 3).astype("float32")
    for dt in (torch.float16, torch.bfloat16):
        for name in ("elu", "softplus", "mish", "gelu_tanh"):
            tx = torch.tensor(x).to(dt)
            fx = framework.tensor(x).to(getattr(framework, str(dt).split(".")[1]))
            ty, fy = OPS[name](torch, tx).float().numpy(), OPS[name](framework, fx).float().numpy()
            np.testing.assert_allclose(fy, ty, rtol=2e-2, atol=1e-2)
    assert math.isclose(_sleef_act._BETA, math.sqrt(2 / math.pi))
