"""vmap over the whole op table (wave-1 and wave-2 records): `vmap(op)` equals the per-sample
loop for every op, with random choices of which arguments are batched (in_dims 0, -1 or
None), in float64 and float32.

Each op's inputs come from the op table's sampler; a batched argument stacks B samples of the
same shape (integer tensors such as indices keep valid values). The loop is framework's own
op per sample, so this checks the batching rules (and the per-sample fallback) alone; the ops
themselves are compared with torch elsewhere. Ops whose rule is the fallback are listed by
`test_fallback_ops_are_few`.
"""

import warnings

import numpy as np
import pytest

import framework
from framework.func import _batched, vmap
from ops.opgen import FLOAT, Gen, T
from ops.optable import OPS as _ALL_OPS

OPS = _ALL_OPS

B = 3
SEEDS = range(6)


def _draw(op, seed, dtype):
    r = np.random.default_rng(seed)
    g = Gen(r, tuple(d for d in op.dtypes if d in FLOAT) or op.dtypes, bad=0.0)
    args, kwargs = op.sample(g)
    return args, kwargs


def _tensors(a, out):
    if isinstance(a, T):
        out.append(a)
    elif isinstance(a, (list, tuple)):
        for x in a:
            _tensors(x, out)
    elif isinstance(a, dict):
        for x in a.values():
            _tensors(x, out)


def _batch(arr, rng, dtype, dim):
    """B samples of arr's shape stacked at `dim`: floats perturbed, others repeated."""
    if arr.dtype.kind == "f":
        arr = np.where(np.isfinite(arr), arr, 0.5).astype(dtype)
        arr = np.clip(arr, -1e3, 1e3)
        samples = [
            arr * (1 + 0.25 * k) + 0.1 * k * rng.standard_normal(arr.shape).astype(dtype)
            if arr.size
            else arr
            for k in range(B)
        ]
        samples = [s.astype(dtype) for s in samples]
    else:
        samples = [arr.copy() for _ in range(B)]
    return np.stack(samples, axis=dim)


def _build(a, subst):
    if isinstance(a, T):
        return subst[id(a)]
    if isinstance(a, (list, tuple)):
        return type(a)(_build(x, subst) for x in a)
    if isinstance(a, dict):
        return {k: _build(v, subst) for k, v in a.items()}
    return a


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _case(op, seed, dtype):
    """Run one sample batched and per sample; None when the op refuses the inputs."""
    args, kwargs = _draw(op, seed, dtype)
    ts = []
    _tensors((args, kwargs), ts)
    if not ts:
        return None
    rng = np.random.default_rng(seed + 7)
    dims = []
    for t in ts:
        choice = rng.integers(0, 3)
        dims.append(None if choice == 2 else (0 if choice == 0 else -1))
    if all(d is None for d in dims):
        dims[0] = 0
    clean = [
        np.clip(np.where(np.isfinite(t.a), t.a, 0.5), -1e3, 1e3).astype(dtype)
        if t.a.dtype.kind == "f"
        else t.a
        for t in ts
    ]
    batched = [
        framework.tensor(_batch(c, rng, dtype, 0 if d is None else d))
        if d is not None
        else framework.tensor(c.copy())
        for c, d in zip(clean, dims)
    ]

    def per_sample(i):
        subst = {
            id(t): (x.select(d, i) if d is not None else x) for t, x, d in zip(ts, batched, dims)
        }
        return op.fn(framework, *_build(args, subst), **_build(kwargs, subst))

    try:
        want = [per_sample(i) for i in range(B)]
    except Exception:
        return None
    flat_want = [_flat(w) for w in want]
    if not all(isinstance(o, framework.Tensor) for o in flat_want[0]):
        return None  # non-tensor results (sizes, Python numbers) are not vmappable

    def f(*xs):
        subst = {id(t): x for t, x in zip(ts, xs)}
        return op.fn(framework, *_build(args, subst), **_build(kwargs, subst))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = _flat(vmap(f, in_dims=tuple(dims))(*batched))
        except RuntimeError as e:  # torch refuses in-place into an unbatched tensor too
            if any(m in str(e) for m in REFUSED):
                return None  # torch's vmap refuses these programs too (dynamic shapes, ...)
            if (
                "vmap: inplace arithmetic" in str(e) or "match the broadcast shape" in str(e)
            ) and dims[0] is None:
                return False
            raise
    for k, g in enumerate(got):
        w = framework.stack([fw[k] for fw in flat_want])
        assert tuple(g.shape) == tuple(w.shape), (op.name, k, g.shape, w.shape, dims)
        assert g.dtype == w.dtype, (op.name, k, g.dtype, w.dtype)
        tol = 1e-9 if dtype == "float64" else 1e-4
        np.testing.assert_allclose(
            g.detach().numpy(),
            w.detach().numpy(),
            rtol=tol,
            atol=tol,
            equal_nan=True,
            err_msg=f"{op.name} output {k} seed {seed} in_dims {dims}",
        )
    return True


REFUSED = (
    "vmap: We do not support batching operators that can output dynamic shape",
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent",
    "vmap: Attempted to vmap over `mask` in torch.masked_select",
)


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_vmap_equals_loop(op):
    ran = []
    for seed in SEEDS:
        for dtype in ("float64", "float32"):
            r = _case(op, seed, dtype)
            if r is not None:
                ran.append(r)
    if not ran:
        pytest.xfail(f"{op.name}: no sample ran per sample (non-tensor result or refused input)")


def test_fallback_ops_are_few():
    """Most ops have a real batching rule: over the whole table, the op classes that ran
    the per-sample fallback for some choice of batched arguments (warned once each) stay
    few: none when last counted; 8 before the rules of func/_rules_extras.py (dist,
    index_reduce, renorm, embedding_bag, multi_margin_loss, multilabel_margin_loss, rrelu,
    ctc_loss: torch's vmap loops over most of them, refuses rrelu), 10 before block_diag and
    diag_embed got rules."""
    seen = set(_batched._warned)
    _batched._warned.clear()  # (other tests' warnings, batched backward nodes, ... aside)
    try:
        for op in OPS:
            for seed in SEEDS:
                for dtype in ("float64", "float32"):
                    _case(op, seed, dtype)
        found = set(_batched._warned)
    finally:
        _batched._warned.update(seen)
    slow = sorted(  # (the framework's ops: other tests warn for ops they define)
        c.__name__ for c in found if c.__module__.startswith("framework.")
    )
    assert not slow, slow
