"""The optimizers' square roots are torch's (fifteenth pass).

torch's Adam, AdamW, RMSprop, Adagrad, Adadelta, NAdam, RAdam and SparseAdam take the root of
their second moments with ``Tensor.sqrt`` (single-tensor code) or ``_foreach_sqrt`` (multi-tensor
code, per tensor on CPU): MKL VML's vsSqrt/vdSqrt in High Accuracy mode, which is not
correctly rounded (about 0.7 % of random float32/float64 values are 1 ulp below NumPy's
``np.sqrt``). A 1-ulp denominator moves a parameter by an ulp, and the runs drift apart. The
compiled loops take the root from VML too (a split loop: state, VML, update); the fused
kernels (``fused=True``) keep the correctly rounded root, as torch's vectorized ``sqrt``.

Several hundred steps on random gradients: the parameters are torch's bits throughout. Each
test draws its data from its own seeded generator."""

import platform
import sys

import numpy as np
import pytest
import torch

import framework
from framework.ops import _fused

needs_mkl = pytest.mark.skipif(
    not (sys.platform == "linux" and platform.machine() == "x86_64"),
    reason="no mkl wheel for this platform",
)

CASES = [
    ("Adam", {}),
    ("Adam", {"amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"maximize": True, "weight_decay": 0.05}),
    ("Adam", {"fused": True}),
    ("AdamW", {"weight_decay": 0.1}),
    ("AdamW", {"amsgrad": True, "maximize": True}),
    ("RMSprop", {}),
    ("RMSprop", {"centered": True, "momentum": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"maximize": True, "momentum": 0.5}),
    ("Adagrad", {}),
    ("Adagrad", {"weight_decay": 0.1, "maximize": True, "lr_decay": 0.01}),
    ("Adagrad", {"fused": True}),
    ("Adadelta", {}),
    ("Adadelta", {"weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"maximize": True, "weight_decay": 0.05}),
    ("RAdam", {}),
    ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("Adamax", {"weight_decay": 0.1}),
]


def _run(L, name, kwargs, foreach, shapes, grads):
    params = [L.nn.Parameter(L.tensor(a.copy())) for a in shapes]
    kw = dict(kwargs)
    if not kw.get("fused"):
        kw["foreach"] = foreach
    opt = getattr(L.optim, name)(params, lr=0.01, **kw)
    for step in grads:
        for p, g in zip(params, step):
            p.grad = L.tensor(g)
        opt.step()
    return [p.detach().numpy() for p in params]


def _data(seed, dt, steps):
    rng = np.random.default_rng(seed)
    shapes = [rng.standard_normal(s).astype(dt) for s in [(37, 29), (53,), (3, 4, 5)]]
    grads = [
        [(rng.standard_normal(a.shape) * 0.1).astype(dt) for a in shapes] for _ in range(steps)
    ]
    return shapes, grads


@needs_mkl
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize(
    "case, foreach",
    [
        (c, f)
        for c in range(len(CASES))
        for f in (False, True)
        if not (CASES[c][1].get("fused") and f)
    ],
)  # (fused has no foreach variant)
def test_long_runs_are_torchs_bits(case, foreach, dt):
    name, kwargs = CASES[case]
    shapes, grads = _data(1000 + case, dt, 300)
    theirs = _run(torch, name, kwargs, foreach, shapes, grads)
    ours = _run(framework, name, kwargs, foreach, shapes, grads)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b), f"{(a != b).sum()} of {a.size} apart"


@needs_mkl
@pytest.mark.parametrize("case", [0, 6, 9, 12, 14, 17])
def test_numpy_paths_are_torchs_bits(case):
    """Without the compiled loops (numba off): the NumPy paths take VML's root too."""
    name, kwargs = CASES[case]
    shapes, grads = _data(2000 + case, "float32", 100)
    theirs = _run(torch, name, kwargs, False, shapes, grads)
    with _fused.disabled():
        ours = _run(framework, name, kwargs, False, shapes, grads)
    for a, b in zip(ours, theirs):
        assert np.array_equal(a, b), f"{(a != b).sum()} of {a.size} apart"
