"""One helper compares a framework function with torch: values, dtype, grad_fn, gradients."""

import numpy as np
import torch

import framework

RNG = np.random.default_rng(1234)


def randn(*shape, positive=False, dtype=np.float64):
    x = RNG.standard_normal(shape)
    if positive:
        x = np.abs(x) + 0.5
    return x.astype(dtype)


def to_torch(x, requires_grad=False):
    t = torch.tensor(np.asarray(x))
    return t.requires_grad_(requires_grad) if requires_grad else t


def to_fw(x, device="cpu", requires_grad=False):
    t = framework.tensor(np.asarray(x), device=device)
    return t.requires_grad_(requires_grad) if requires_grad else t


def as_numpy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().cpu().numpy()
    return t.detach().cpu().numpy()


def assert_close(fw, th, rtol=1e-6, atol=1e-8, check_dtype=True):
    """Compare a framework tensor with a torch tensor: shape, dtype and values."""
    assert tuple(fw.shape) == tuple(th.shape), f"shape {tuple(fw.shape)} != {tuple(th.shape)}"
    if check_dtype:
        assert str(fw.dtype) == str(th.dtype), f"dtype {fw.dtype} != {th.dtype}"
    np.testing.assert_allclose(
        as_numpy(fw).astype(np.float64) if fw.dtype.is_floating_point else as_numpy(fw),
        as_numpy(th),
        rtol=rtol,
        atol=atol,
    )


def compare_with_torch(
    fw_fn,
    torch_fn,
    inputs,
    device="cpu",
    grad=True,
    rtol=1e-6,
    atol=1e-8,
    check_grad_fn=True,
    requires_grad=None,
):
    """Run fw_fn and torch_fn on the same inputs (arrays), then compare outputs, dtype, grad_fn
    name and, with a random upstream gradient, every input's gradient.

    `inputs` is a list of numpy arrays; floating ones require grad unless `requires_grad`
    (a list of bools) says otherwise. Returns (fw_out, torch_out)."""
    if requires_grad is None:
        requires_grad = [grad and np.asarray(x).dtype.kind == "f" for x in inputs]
    fw_in = [to_fw(x, device, rg) for x, rg in zip(inputs, requires_grad)]
    th_in = [to_torch(x, rg) for x, rg in zip(inputs, requires_grad)]
    fw_out, th_out = fw_fn(*fw_in), torch_fn(*th_in)
    fw_outs = fw_out if isinstance(fw_out, (tuple, list)) else (fw_out,)
    th_outs = th_out if isinstance(th_out, (tuple, list)) else (th_out,)
    assert len(fw_outs) == len(th_outs)
    for f, t in zip(fw_outs, th_outs):
        assert_close(f, t, rtol, atol)
        if check_grad_fn:
            assert (f.grad_fn is None) == (t.grad_fn is None), (f.grad_fn, t.grad_fn)
            if t.grad_fn is not None:
                assert f.grad_fn.name() == t.grad_fn.name(), (f.grad_fn.name(), t.grad_fn.name())
                assert type(f.grad_fn).__name__ == type(t.grad_fn).__name__
    if any(requires_grad):
        diff = [(f, t) for f, t in zip(fw_outs, th_outs) if t.requires_grad]
        ups = [randn(*t.shape, dtype=as_numpy(t).dtype) for _, t in diff]
        framework.autograd.backward([f for f, _ in diff], [to_fw(u, device) for u in ups])
        torch.autograd.backward([t for _, t in diff], [to_torch(u) for u in ups])
        for f, t in zip(fw_in, th_in):
            if t.requires_grad:
                assert (f.grad is None) == (t.grad is None)
                if t.grad is not None:
                    assert_close(f.grad, t.grad, rtol, atol)
    return fw_out, th_out


def outcome(lib, fn):
    """("ok", fn(lib)), or (exception type name, message) where fn raises."""
    try:
        return "ok", fn(lib)
    except Exception as e:
        return type(e).__name__, str(e)


def same_outcome(fn, rtol=1e-6, atol=1e-12):
    """fn(framework) and fn(torch) raise alike (type and message) or return sequences that
    agree item by item: arrays to rtol/atol (NaN where NaN), other items exactly."""
    (ka, va), (kb, vb) = outcome(framework, fn), outcome(torch, fn)
    assert ka == kb, (va, vb)
    if ka != "ok":
        assert va == vb
        return
    assert len(va) == len(vb)
    for x, y in zip(va, vb):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        else:
            assert x == y, (x, y)
