"""bfloat16 (ml_dtypes on the CPU) against torch: every op of the op table in bfloat16 (values
to bfloat16 tolerance, dtypes, node names, gradients with a random upstream gradient),
promotion, views and in-place writes, torch's refusals, finfo, modules, and autocast's CPU op
lists (the output dtype of every table op, and of the ops on torch's lists, under
autocast(dtype=bfloat16) with float32, bfloat16 and float64 inputs)."""

import warnings

import numpy as np
import pytest
import torch

import framework
from ops.opgen import Gen, T
from ops.optable import OPS  # wave-1 and wave-2 records alike
from parity import same_error

pytest.importorskip("ml_dtypes")  # the io extra; bfloat16 needs it (installed in the test env)
SEEDS = range(5)
FLOAT_OPS = [op for op in OPS if "float32" in op.dtypes]


# ----- running one op-table program in either library, floats as `dtype` ---------------------
def _inputs(L, args, kwargs, dtype, leaves):
    def conv(a):
        if isinstance(a, T):
            t = L.tensor(a.a.copy())
            if a.a.dtype.kind == "f":
                t = t.to(getattr(L, dtype))
            if a.rg:
                t.requires_grad_(True)
                leaves.append(t)
            return t
        if isinstance(a, (list, tuple)):
            return type(a)(conv(x) for x in a)
        if isinstance(a, dict):
            return {k: conv(v) for k, v in a.items()}
        return a

    return [conv(a) for a in args], conv(kwargs)


def _run(op, args, kwargs, L, dtype, seed):
    """(outputs, gradients) or the exception raised."""
    leaves = []
    try:
        a, k = _inputs(L, args, kwargs, dtype, leaves)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = op.fn(L, *a, **k)
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            diff = [o for o in outs if isinstance(o, L.Tensor) and o.requires_grad]
            grads = None
            if diff and leaves:
                r = np.random.default_rng(seed)
                ups = [L.tensor(r.standard_normal(tuple(o.shape))).to(o.dtype) for o in diff]
                grads = L.autograd.grad(diff, leaves, ups, allow_unused=True)
    except Exception as e:
        return e
    return outs, grads


def _as64(t):
    return t.detach().float().numpy().astype(np.float64)


def _close(f, t, rtol, atol):
    if f.shape != t.shape:
        return "shape"
    if not np.array_equal(np.isnan(f), np.isnan(t)):
        return "NaN positions"
    fin = np.isfinite(t) & np.isfinite(f)
    if not np.array_equal(np.isfinite(t), np.isfinite(f)) or not np.array_equal(
        f[~fin], t[~fin], equal_nan=True
    ):
        return "inf positions"
    scale = max(1.0, float(np.abs(t[fin]).max())) if fin.any() else 1.0
    if np.allclose(f[fin], t[fin], rtol=rtol, atol=atol * scale):
        return None
    return f"values (max err {np.abs(f[fin] - t[fin]).max():.3g})"


def _differences(op, seed, dtype):
    """The ways framework differs from torch on program `seed` of `op` in `dtype`."""
    g = Gen(np.random.default_rng(seed), ("float32",), bad=0.0)
    args, kwargs = op.sample(g)
    got, want = (_run(op, args, kwargs, L, dtype, seed) for L in (framework, torch))
    if isinstance(want, Exception) or isinstance(got, Exception):
        if type(got) is not type(want):
            return {f"exception {type(got).__name__} vs {type(want).__name__}"}
        return set()
    tol = (3e-2, 2e-2) if dtype == "bfloat16" else (1e-4, 1e-5)
    found = set()
    (f_outs, f_grads), (t_outs, t_grads) = got, want
    for i, (f, t) in enumerate(zip(f_outs, t_outs)):
        if not isinstance(t, torch.Tensor):
            continue
        if str(f.dtype) != str(t.dtype):
            found.add(f"out{i} dtype")
            continue
        if t.grad_fn is not None and (f.grad_fn is None or f.grad_fn.name() != t.grad_fn.name()):
            found.add(f"out{i} node")
        if t.dtype.is_floating_point:
            d = _close(_as64(f), _as64(t), *tol)
        else:
            d = None if np.array_equal(f.numpy(), t.numpy()) else "values"
        if d:
            found.add(f"out{i} {d.split(' (')[0]}")
    for i, (f, t) in enumerate(zip(f_grads or (), t_grads or ())):
        if (f is None) != (t is None):
            found.add(f"grad{i} None")
        elif t is not None:
            if str(f.dtype) != str(t.dtype):
                found.add(f"grad{i} dtype")
            elif _close(_as64(f), _as64(t), *tol):
                found.add(f"grad{i} {_close(_as64(f), _as64(t), *tol).split(' (')[0]}")
    return found


# Value differences beyond bfloat16 tolerance that are torch's arithmetic, not ours: its CPU
# kernels for these run in bfloat16 (grid_sample's bicubic coefficients, instance_norm's saved
# mean on nearly constant input, cosine_similarity of one-element vectors), where we compute
# in float32 and round once. Dtypes, node names and errors are still compared.
BF16_ARITHMETIC = {
    "grid_sample": {"out0 values", "grad0 values", "grad1 values"},
    "instance_norm": {"grad0 values"},
    "cosine_similarity": {"grad0 values", "grad1 values"},
    # the gradient through corrcoef's two broadcast divisions sums terms of size ~5 to ~0.1:
    # bfloat16 rounding of the intermediate products decides the last bits (torch rounds them
    # in its own order); forward values agree
    "corrcoef": {"grad0 values"},
    # torch's CPU matrix_exp runs its Taylor/Pade products in bfloat16 (ours in float64,
    # rounded once): its values are the ones off, and overflow to NaN in the gradient first
    "matrix_exp": {
        "out0 values",
        "out0 inf positions",
        "out0 NaN positions",
        "grad0 NaN positions",
        "grad0 values",
    },
}


@pytest.mark.parametrize("op", FLOAT_OPS, ids=lambda op: op.name)
def test_op_table_in_bfloat16(op):
    """Each op in bfloat16 agrees with torch to bfloat16 tolerance, and adds no difference to
    those the same program shows in float32 (those are the fidelity issue's, not bfloat16's)."""
    compared = 0
    for seed in SEEDS:
        new = _differences(op, seed, "bfloat16") - BF16_ARITHMETIC.get(op.name, set())
        if new:
            new -= _differences(op, seed, "float32")
        assert not new, f"{op.name} seed={seed}: {sorted(new)}"
        compared += 1
    assert compared == len(SEEDS)


# ----- promotion, views, in place -----------------------------------------------------------
@pytest.mark.parametrize(
    "other",
    ["float32", "float16", "float64", "int64", "bool", "py_float", "py_int", "zero_dim_f32"],
)
def test_promotion_with_bfloat16(other):
    dts = []
    for L in (framework, torch):
        a = L.tensor([1.5, -2.25, 3.0]).to(L.bfloat16)
        b = {"py_float": 2.5, "py_int": 3, "zero_dim_f32": L.tensor(2.0)}.get(other)
        if b is None:
            b = L.tensor([2, 1, 0]).to(getattr(L, other))
        dts.append([str((a + b).dtype), str((b * a).dtype), str(L.where(a > 0, a, b).dtype)])
    assert dts[0] == dts[1]


def test_views_share_memory_and_write_through():
    """View ops run on the bfloat16 array itself (no float32 copy): writes reach the base."""
    outs = []
    for L in (framework, torch):
        b = L.zeros(3, 4, dtype=L.bfloat16)
        b.view(12)[1] = 3
        b.t()[0, 2] = 5
        b[1].add_(1.5)
        b.unsqueeze(0)[0, 2, 3] = -2
        x = L.zeros(2, 3, dtype=L.bfloat16)
        v = L.tensor([1.5, 2.5], dtype=L.bfloat16, requires_grad=True)
        x[..., 0] = v
        (x * 2).sum().backward()
        outs.append(
            (
                b.float().numpy(),
                x.detach().float().numpy(),
                v.grad.float().numpy(),
                x.grad_fn.name(),
            )
        )
    for f, t in zip(*outs):
        np.testing.assert_array_equal(f, t)


def test_leaf_tensor_surface():
    for L in (framework, torch):
        x = L.randn(3).bfloat16().requires_grad_()
        assert x.dtype == L.bfloat16 and x.is_floating_point() and x.requires_grad
        assert x.double().dtype == L.float64 and x.to(L.float32).requires_grad
        y = x.exp().sum()
        y.backward()
        assert x.grad.dtype == L.bfloat16


def test_result_rounding_matches_torch():
    """Results are computed in float32 and rounded once, as torch's kernels: arithmetic is
    bit-exact; transcendental functions are within one bfloat16 ulp (torch's vectorised
    float32 exp/sin/... differ from NumPy's in the last float32 bits)."""
    a = np.random.default_rng(3).standard_normal(1000) * 3
    exact = (
        lambda x: x * 1.1 + 0.3,
        lambda x: x / 3,
        lambda x: x.sqrt(),
        lambda x: x.sum(0),
        lambda x: x.mean(),
        lambda x: x.reciprocal(),
    )
    close = (
        lambda x: x.exp(),
        lambda x: x.sin(),
        lambda x: x.sigmoid(),
        lambda x: x.tanh(),
        lambda x: x.log1p().nan_to_num(),
        lambda x: x.softmax(0),
        lambda x: x.abs().rsqrt(),
    )
    res = []
    for L in (framework, torch):
        x = L.tensor(a).to(L.bfloat16)
        res.append(([f(x).float().numpy() for f in exact], [f(x).float().numpy() for f in close]))
    (fe, fc), (te, tc) = res
    for f, t in zip(fe, te):
        np.testing.assert_array_equal(f, t)
    for f, t in zip(fc, tc):
        np.testing.assert_allclose(f, t, rtol=2**-7, atol=0)


# ----- refusals, as torch's CPU kernels --------------------------------------------------------
M = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
REFUSED = [
    lambda m, F, a: m.linalg.inv(a),
    lambda m, F, a: m.linalg.det(a),
    lambda m, F, a: m.linalg.slogdet(a),
    lambda m, F, a: m.linalg.solve(a, a),
    lambda m, F, a: m.linalg.cholesky(a),
    lambda m, F, a: m.linalg.qr(a),
    lambda m, F, a: m.linalg.eigh(a),
    lambda m, F, a: m.linalg.svd(a),
    lambda m, F, a: m.linalg.svdvals(a),
    lambda m, F, a: m.linalg.pinv(a),
    lambda m, F, a: m.linalg.matrix_norm(a, 2),
    lambda m, F, a: m.linalg.matrix_norm(a, "nuc"),
    lambda m, F, a: m.quantile(a, 0.3),
    lambda m, F, a: m.nanquantile(a, 0.3),
    lambda m, F, a: m.cdist(a, a),
    lambda m, F, a: F.multi_margin_loss(a, m.tensor([0, 1, 2])),
    lambda m, F, a: F.multilabel_margin_loss(a, m.zeros(3, 3, dtype=m.long)),
    lambda m, F, a: F.avg_pool3d(a.reshape(1, 1, 1, 3, 3), 1),
    lambda m, F, a: F.local_response_norm(a.reshape(1, 3, 3, 1), 2),
    lambda m, F, a: F.ctc_loss(a.log_softmax(1)[:, None], m.tensor([[1]]), [3], [1]),
    lambda m, F, a: F.prelu(a, m.tensor([0.25])),
    lambda m, F, a: m.linalg.lu(a),
    lambda m, F, a: m.linalg.lu_factor(a),
    lambda m, F, a: m.linalg.lu(a[:0, :2].expand(0, 2, 2).requires_grad_())[1].sum().backward(),
    lambda m, F, a: m.linalg.lu_factor_ex(a[None, :0, :0].requires_grad_())[0].sum().backward(),
]


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_refusals(case):
    same_error(lambda m, F, a: REFUSED[case](m, F, a.to(m.bfloat16)), [M])


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_refusals_in_float16(case):
    """The same refusals in float16 where torch's CPU kernel lacks Half too (same message)."""
    fw, th = same_error(lambda m, F, a: REFUSED[case](m, F, a.to(m.float16)), [M])
    assert str(fw) == str(th)


def test_finfo_and_iinfo():
    for name in ("bfloat16", "float16", "float32", "float64"):
        f, t = framework.finfo(getattr(framework, name)), torch.finfo(getattr(torch, name))
        assert repr(f) == repr(t)
        for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
            assert getattr(f, attr) == getattr(t, attr), (name, attr)
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        f, t = framework.iinfo(getattr(framework, name)), torch.iinfo(getattr(torch, name))
        assert (repr(f), f.bits, f.min, f.max, f.dtype) == (repr(t), t.bits, t.min, t.max, t.dtype)
    assert repr(framework.finfo()) == repr(torch.finfo())
    for lib in (framework, torch):
        with pytest.raises(TypeError, match="requires a floating point input type"):
            lib.finfo(lib.int32)
        with pytest.raises(TypeError, match="requires an integer input type"):
            lib.iinfo(lib.float32)


def test_nan_to_num_uses_bfloat16_extremes():
    res = [
        L.nan_to_num(L.tensor([np.inf, np.nan, -np.inf]).to(L.bfloat16)).float().numpy()
        for L in (framework, torch)
    ]
    np.testing.assert_array_equal(*res)


# ----- modules in bfloat16 ------------------------------------------------------------------
def _modules(L):
    nn = L.nn
    return {
        "linear": (nn.Linear(6, 4), (5, 6)),
        "conv2d": (nn.Conv2d(2, 3, 3, padding=1), (2, 2, 5, 5)),
        "layer_norm": (nn.LayerNorm(6), (4, 6)),
        "mlp": (
            nn.Sequential(nn.Linear(6, 8), nn.GELU(), nn.Linear(8, 3), nn.LogSoftmax(-1)),
            (5, 6),
        ),
        "encoder_layer": (
            nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
            (2, 3, 8),
        ),
        "lstm": (nn.LSTM(4, 5, batch_first=True), (2, 3, 4)),
    }


@pytest.mark.parametrize("name", ["linear", "conv2d", "layer_norm", "mlp", "encoder_layer", "lstm"])
def test_modules_in_bfloat16(name):
    torch.manual_seed(0)
    th, shape = _modules(torch)[name]
    fw, _ = _modules(framework)[name]
    fw.load_state_dict({k: framework.tensor(v.numpy()) for k, v in th.state_dict().items()})
    th, fw = th.bfloat16(), fw.bfloat16()
    x = np.random.default_rng(0).standard_normal(shape)
    outs = []
    for L, mod in ((torch, th), (framework, fw)):
        xin = L.tensor(x).to(L.bfloat16).requires_grad_()
        y = mod(xin)
        y = y[0] if isinstance(y, tuple) else y
        up = L.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape))).to(L.bfloat16)
        y.backward(up)
        outs.append(
            [str(y.dtype), _as64(y), _as64(xin.grad)] + [_as64(p.grad) for p in mod.parameters()]
        )
    t, f = outs
    assert f[0] == t[0]
    for a, b in zip(f[1:], t[1:]):
        assert _close(a, b, 5e-2, 3e-2) is None


# ----- autocast: torch's CPU op lists ---------------------------------------------------------
def _autocast_dtypes(op, args, kwargs, L, dtype, enabled=True):
    a, k = _inputs(L, args, kwargs, dtype, [])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with L.autocast("cpu", dtype=L.bfloat16, enabled=enabled):
                out = op.fn(L, *a, **k)
    except Exception as e:
        return type(e).__name__
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [str(o.dtype) for o in outs if isinstance(o, L.Tensor)]


@pytest.mark.parametrize("op", FLOAT_OPS, ids=lambda op: op.name)
def test_autocast_output_dtypes_follow_torchs_cpu_lists(op):
    """Output dtypes under autocast equal torch's; an exception mismatch that the program shows
    without autocast too is the fidelity issue's, not autocast's."""
    for seed in range(3):
        g = Gen(np.random.default_rng(seed), ("float32",), bad=0.0)
        args, kwargs = op.sample(g)
        for dtype in ("float32", "bfloat16", "float64"):
            got, want = (_autocast_dtypes(op, args, kwargs, L, dtype) for L in (framework, torch))
            if got != want and (isinstance(got, str) or isinstance(want, str)):
                plain = [
                    _autocast_dtypes(op, args, kwargs, L, dtype, enabled=False)
                    for L in (framework, torch)
                ]
                if plain == [got, want]:
                    continue
            assert got == want, (seed, dtype)


def _m(L):
    return L.tensor(M, dtype=L.float32)


AUTOCAST_CASES = {  # ops on torch's CPU lists (and neighbours that are not) beyond the table
    "avg_pool3d": lambda L, F, d: F.avg_pool3d(L.ones(1, 2, 4, 4, 4, dtype=d), 2),
    "max_pool3d": lambda L, F, d: F.max_pool3d(L.ones(1, 2, 4, 4, 4, dtype=d), 2),
    "adaptive_avg_pool3d": lambda L, F, d: F.adaptive_avg_pool3d(L.ones(1, 2, 4, 4, 4, dtype=d), 3),
    "grid_sample": lambda L, F, d: F.grid_sample(
        L.ones(1, 2, 3, 3, dtype=d), L.zeros(1, 2, 2, 2, dtype=d), align_corners=False
    ),
    "grid_sample_3d": lambda L, F, d: F.grid_sample(
        L.ones(1, 2, 3, 3, 3, dtype=d), L.zeros(1, 2, 2, 2, 3, dtype=d), align_corners=False
    ),
    "affine_grid": lambda L, F, d: F.affine_grid(
        L.ones(1, 2, 3, dtype=d), (1, 1, 2, 2), align_corners=False
    ),
    "prod": lambda L, F, d: L.prod(L.ones(3, dtype=d)),
    "quantile": lambda L, F, d: L.quantile(L.ones(3, dtype=d), 0.3),
    "reflect_pad": lambda L, F, d: F.pad(L.ones(1, 2, 3, dtype=d), (1, 1), mode="reflect"),
    "replicate_pad": lambda L, F, d: F.pad(L.ones(1, 2, 3, 3, dtype=d), (1,) * 4, mode="replicate"),
    "circular_pad": lambda L, F, d: F.pad(L.ones(1, 2, 3, dtype=d), (1, 1), mode="circular"),
    "constant_pad": lambda L, F, d: F.pad(L.ones(1, 2, 3, dtype=d), (1, 1)),
    "linalg_inv": lambda L, F, d: L.linalg.inv(_m(L).to(d)),
    "linalg_solve": lambda L, F, d: L.linalg.solve(_m(L).to(d), _m(L).to(d)),
    "linalg_svd": lambda L, F, d: L.linalg.svd(_m(L).to(d))[1],
    "linalg_eigh": lambda L, F, d: L.linalg.eigh(_m(L).to(d))[0],
    "linalg_qr": lambda L, F, d: L.linalg.qr(_m(L).to(d))[0],
    "linalg_cholesky": lambda L, F, d: L.linalg.cholesky(_m(L).to(d)),
    "pinv": lambda L, F, d: L.linalg.pinv(_m(L).to(d)),
    "pinverse": lambda L, F, d: L.pinverse(_m(L).to(d)),
    "det": lambda L, F, d: L.linalg.det(_m(L).to(d)),
    "cdist": lambda L, F, d: L.cdist(_m(L).to(d), _m(L).to(d)),
    "trace": lambda L, F, d: L.trace(_m(L).to(d)),
    "conv3d": lambda L, F, d: F.conv3d(
        L.ones(1, 2, 3, 3, 3, dtype=d), L.ones(2, 2, 2, 2, 2, dtype=d)
    ),
    "conv_transpose3d": lambda L, F, d: F.conv_transpose3d(
        L.ones(1, 2, 2, 2, 2, dtype=d), L.ones(2, 2, 2, 2, 2, dtype=d)
    ),
    "prelu": lambda L, F, d: F.prelu(L.ones(2, 3, dtype=d), L.tensor([0.25])),
    "local_response_norm_4d": lambda L, F, d: F.local_response_norm(L.ones(1, 3, 2, 2, dtype=d), 2),
    "multi_margin": lambda L, F, d: F.multi_margin_loss(_m(L).to(d), L.tensor([0, 1, 2])),
    "softmax": lambda L, F, d: L.softmax(L.ones(3, dtype=d), 0),
    "layer_norm": lambda L, F, d: F.layer_norm(L.ones(2, 3, dtype=d), (3,)),
    "sdpa": lambda L, F, d: F.scaled_dot_product_attention(*[L.ones(1, 2, 3, 4, dtype=d)] * 3),
    "gaussian_nll": lambda L, F, d: F.gaussian_nll_loss(*[L.ones(2, 3, dtype=d)] * 3),
}


@pytest.mark.parametrize("name", sorted(AUTOCAST_CASES))
def test_autocast_named_ops(name):
    res = []
    for L in (framework, torch):
        row = []
        for d in (L.float32, L.bfloat16, L.float64):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with L.autocast("cpu", dtype=L.bfloat16):
                        row.append(str(AUTOCAST_CASES[name](L, L.nn.functional, d).dtype))
            except Exception as e:
                row.append(type(e).__name__)
        res.append(row)
    assert res[0] == res[1]


def test_sum_with_bfloat16_dtype_records_a_node():
    """sum(dtype=bfloat16) of a tensor that requires grad records SumBackward1 as torch's (the
    integer-output refusal read ml_dtypes' kind "V" as not floating)."""
    names = []
    for L in (framework, torch):
        x = L.ones(3, dtype=L.bfloat16, requires_grad=True)
        y = x.sum(0, dtype=L.bfloat16)
        y.backward()
        names.append((y.grad_fn.name(), str(y.dtype), x.grad.tolist()))
    assert names[0] == names[1]
