"""optim.Adafactor against torch over many steps: parameters bit for bit (matrices, vectors,
3-d, weight decay, maximize, a given eps1, float64), state and errors."""

import numpy as np
import pytest
import torch

import framework as fw


def _run(lib, shapes, kwargs, steps, seed, dtype):
    rng = np.random.default_rng(seed)
    ps = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in shapes]
    opt = lib.optim.Adafactor(ps, **kwargs)
    grads = np.random.default_rng(seed + 100)
    for _ in range(steps):
        for p in ps:
            p.grad = lib.tensor(grads.standard_normal(tuple(p.shape)).astype(dtype))
        opt.step()
    return [p.detach().numpy().copy() for p in ps], opt


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        dict(lr=0.1, weight_decay=0.01),
        dict(maximize=True, beta2_decay=-0.5),
        dict(eps=(1e-30, 1e-3), d=2.0),
        dict(lr=1e-3),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(3))
def test_adafactor_bits(kwargs, dtype, seed):
    shapes = [(5, 7), (7,), (3, 4, 6)]
    t, topt = _run(torch, shapes, kwargs, 30, seed, dtype)
    f, fopt = _run(fw, shapes, kwargs, 30, seed, dtype)
    for a, b in zip(t, f):
        np.testing.assert_array_equal(b, a)
    tp, fp = topt.param_groups[0]["params"], fopt.param_groups[0]["params"]
    assert sorted(topt.state[tp[0]]) == sorted(fopt.state[fp[0]])
    assert fopt.state[fp[2]]["col_var"].shape == tuple(topt.state[tp[2]]["col_var"].shape)
    assert fopt.state[fp[0]]["step"].item() == topt.state[tp[0]]["step"].item()


def test_adafactor_errors():
    for kw in (
        dict(lr=-1.0),
        dict(beta2_decay=0.5),
        dict(eps=(-1.0, 1e-3)),
        dict(d=0.5),
        dict(weight_decay=-1.0),
        dict(eps=(None, -1.0)),
    ):
        msgs = []
        for lib in (torch, fw):
            with pytest.raises(ValueError) as e:
                lib.optim.Adafactor([lib.ones(1, requires_grad=True)], **kw)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]
