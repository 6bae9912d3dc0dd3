"""The compiled replays (framework/ops/_replay_jit.py) and the NumPy replays beside them give
the same bits: vector norms, prod, adaptive_avg_pool2d (forward and backward), cdist (forward
and backward), small bmm and the generic interpolation kernel, float32/float64, on contiguous
and strided inputs and on inputs with infinities, NaN, signed zeros, subnormals and huge
values. Each result is compared with the other path's (NaN positions alike, every other value
by its bits) and, on finite inputs, with torch's bytes. Without numba (or with
FRAMEWORK_NUMBA=0) the NumPy path is checked against torch alone."""

import importlib.util
import os

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import framework
import framework.nn.functional as FF
from framework._fma import fused
from framework.ops import _fused
from framework.ops._replay_jit import loops

DTYPES = ["float32", "float64"]
SPECIALS = [np.inf, -np.inf, np.nan, -0.0, 0.0, 1e-40, -1e-310, 1e30, -3e38]


def _compiled_available():
    """True where the compiled loops run; where they do not, the reason is asserted."""
    if loops() is not None:
        return True
    off = os.environ.get("FRAMEWORK_NUMBA") == "0" or importlib.util.find_spec("numba") is None
    assert off, "numba is importable and enabled, yet the compiled loops were not built"
    return False


def _same_bits(a, b):
    """NaN where the other has NaN; every other value with the same bits."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    assert (nan_a == nan_b).all()
    assert a[~nan_a].tobytes() == b[~nan_b].tobytes(), f"{np.mean(a != b):.3f} differ"


def _check(fn, torch_fn=None):
    """fn() (NumPy arrays) on the compiled path and the NumPy path: equal bits; with torch's
    bytes too where ``torch_fn`` is given. framework._fma's compiled FMA is loaded first, as
    in any process that has run a fused op (it stays on inside ``_fused.disabled()``; its
    exact emulation differs in the last bit of some subnormal results)."""
    fused(np.zeros(1), np.float64(0), np.zeros(1))
    with _fused.disabled():
        numpy_out = fn()
    if _compiled_available():
        compiled = fn()
        for c, n in zip(compiled, numpy_out):
            _same_bits(c, n)
    if torch_fn is not None:
        for t, n in zip(torch_fn(), numpy_out):
            assert np.asarray(t).tobytes() == np.asarray(n).tobytes()


def _data(shape, dtype, seed, specials=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if specials and x.size:
        picks = rng.integers(0, x.size, max(1, x.size // 10))
        x.flat[picks] = rng.choice(SPECIALS, picks.size)
    return x.astype(dtype)


VIEWS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: np.swapaxes(x, -1, -2),
    "sliced": lambda x: x[..., ::2, 1:],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 2.5])
@pytest.mark.parametrize("specials", [False, True])
def test_vector_norm_paths(dtype, view, p, specials):
    """vector_norm over each dim and over all, every layout (torch's bytes: not on the 3-D
    transposed view, where neither path follows torch's order: README, Known differences)."""
    x = VIEWS[view](_data((2, 37, 41), dtype, 1, specials))
    for dim in (0, 1, 2, (1, 2), None):

        def ours(dim=dim):
            with np.errstate(all="ignore"):
                return [framework.linalg.vector_norm(framework.tensor(x), p, dim).numpy()]

        def theirs(dim=dim):
            return [torch.linalg.vector_norm(torch.tensor(x), p, dim).numpy()]

        _check(ours, None if specials or view == "transposed" else theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("n", [5, 40, 77])
@pytest.mark.parametrize("specials", [False, True])
def test_prod_paths(dtype, view, n, specials):
    """prod over each dim (rows of whole four-vector blocks and without), every layout
    (torch's bytes: as for the norms, not on the 3-D transposed view)."""
    x = VIEWS[view](1 + 0.05 * _data((3, n, n + 3), dtype, 2, specials))
    for dim in (0, 1, 2):

        def ours(dim=dim):
            with np.errstate(all="ignore"):
                return [framework.tensor(x).prod(dim).numpy()]

        def theirs(dim=dim):
            return [torch.tensor(x).prod(dim).numpy()]

        _check(ours, None if specials or view == "transposed" else theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hw,out", [((16, 100), (5, 7)), ((14, 14), (5, 5)), ((8, 12), (4, 6))])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("specials", [False, True])
def test_adaptive_avg_pool2d_paths(dtype, hw, out, layout, specials):
    """adaptive_avg_pool2d's forward and its backward (random upstream gradient)."""
    x = _data((2, 3) + hw, dtype, 3, specials)
    g = _data((2, 3) + out, dtype, 4, specials)
    if layout == "channels_last":
        x = x.transpose(0, 2, 3, 1).copy().transpose(0, 3, 1, 2)

    def ours():
        ox = framework.tensor(x, requires_grad=True)
        with np.errstate(all="ignore"):
            y = FF.adaptive_avg_pool2d(ox, out)
            y.backward(framework.tensor(g))
        return [y.detach().numpy(), ox.grad.numpy()]

    def theirs():
        tx = torch.tensor(x, requires_grad=True)
        y = TF.adaptive_avg_pool2d(tx, out)
        y.backward(torch.tensor(g))
        return [y.detach().numpy(), tx.grad.numpy()]

    _check(ours, None if specials else theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [1.0, 2.0])
@pytest.mark.parametrize("m", [1, 3, 4, 9, 64])
@pytest.mark.parametrize("specials", [False, True])
def test_cdist_paths(dtype, p, m, specials):
    """cdist without the matrix-product path, batch dimensions broadcast."""
    a, b = _data((2, 1, 5, m), dtype, 5, specials), _data((3, 6, m), dtype, 6, specials)

    def ours():
        with np.errstate(all="ignore"):
            return [framework.cdist(framework.tensor(a), framework.tensor(b), p).numpy()]

    def theirs():
        return [torch.cdist(torch.tensor(a), torch.tensor(b), p).numpy()]

    _check(ours, None if specials else theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nkp", [(1, 1, 1), (4, 4, 4), (6, 8, 6), (1, 399, 1), (3, 7, 5)])
@pytest.mark.parametrize("specials", [False, True])
def test_small_bmm_paths(dtype, nkp, specials):
    """bmm below 400 multiply-adds per matrix, a transposed left operand too."""
    n, k, p = nkp
    a, b = _data((5, n, k), dtype, 7, specials), _data((5, k, p), dtype, 8, specials)
    at = a.transpose(0, 2, 1).copy().transpose(0, 2, 1)
    for left in (a, at):

        def ours(left=left):
            with np.errstate(all="ignore"):
                return [framework.bmm(framework.tensor(left), framework.tensor(b)).numpy()]

        def theirs(left=left):
            return [torch.bmm(torch.tensor(left), torch.tensor(b)).numpy()]

        _check(ours, None if specials else theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "mode,shape",
    [
        ("linear", (2, 3, 7)),
        ("bilinear", (2, 4, 9, 130)),
        ("trilinear", (1, 2, 3, 5, 7)),
        ("bicubic", (2, 3, 5, 7)),
    ],
)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("specials", [False, True])
def test_interpolate_paths(dtype, mode, shape, align_corners, specials):
    """The generic interpolation kernel, upsampling and downsampling (torch's bytes: not for
    bilinear downsampling to 128 or fewer rows + columns, torch's other kernel)."""
    x = _data(shape, dtype, 9, specials)
    for sf in (2.0, 0.6):
        kw = dict(scale_factor=sf, mode=mode, align_corners=align_corners)

        def ours(kw=kw):
            with np.errstate(all="ignore"):
                return [FF.interpolate(framework.tensor(x), **kw).numpy()]

        def theirs(kw=kw):
            return [TF.interpolate(torch.tensor(x), **kw).numpy()]

        other_kernel = mode == "bilinear" and sf < 1
        _check(ours, None if specials or other_kernel else theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [1.0, 2.0])
@pytest.mark.parametrize(
    "s1,s2", [((2, 5, 9), (2, 6, 9)), ((5, 3), (7, 3)), ((1, 4, 17), (1, 8, 17)), ((4, 3), None)]
)
@pytest.mark.parametrize("create_graph", [False, True])
def test_cdist_backward_paths(dtype, p, s1, s2, create_graph):
    """cdist's input gradients as torch's _cdist_backward kernel (each row's sum over the
    other input's rows in order; x2's by the swapped call), on arrays and through the
    recorded CdistBackward nodes; equal rows (distance 0) too (s2 None: x2 = x1)."""
    rng = np.random.default_rng(10)
    a = rng.standard_normal(s1).astype(dtype)
    b = a.copy() if s2 is None else rng.standard_normal(s2).astype(dtype)
    g = rng.standard_normal(a.shape[:-1] + (b.shape[-2],)).astype(dtype)

    def ours():
        oa = framework.tensor(a, requires_grad=True)
        ob = framework.tensor(b, requires_grad=True)
        out = framework.cdist(oa, ob, p)
        grads = framework.autograd.grad(
            out, (oa, ob), framework.tensor(g), create_graph=create_graph
        )
        return [t.detach().numpy() for t in grads]

    def theirs():
        ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        torch.cdist(ta, tb, p).backward(torch.tensor(g))
        return [ta.grad.numpy(), tb.grad.numpy()]

    _check(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [1.0, 2.0])
def test_cdist_backward_specials(dtype, p):
    """The backward replay with inf/NaN/signed zeros/subnormals in the inputs and gradient:
    compiled and NumPy replays alike."""
    a, b = _data((2, 5, 7), dtype, 11, True), _data((2, 6, 7), dtype, 12, True)
    g = _data((2, 5, 6), dtype, 13, True)

    def ours():
        oa = framework.tensor(a, requires_grad=True)
        ob = framework.tensor(b, requires_grad=True)
        with np.errstate(all="ignore"):
            framework.cdist(oa, ob, p).backward(framework.tensor(g))
        return [oa.grad.numpy(), ob.grad.numpy()]

    _check(ours)
