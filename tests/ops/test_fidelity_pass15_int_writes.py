"""Fifteenth pass, after the merges: writes of a tensor that requires grad into an int or bool
tensor, and narrow_copy's dim check (fuzzer seeds 520064993, 520011301).

torch's basic-index write is fill_ for a 0-dim value, recorded whatever the destination's
dtype (the int tensor then requires grad: FillBackward3, or CopySlices on the base of the
view written), and copy_ otherwise, recorded only into a dtype autograd differentiates;
index_put records always. Tensor.copy_ into an int tensor records nothing."""

import pytest
import torch

import framework


def _value(L, shape):
    return L.full(shape, 0.5, requires_grad=True) if shape else L.tensor(0.5, requires_grad=True)


def _write(L, dtype, how, shape):
    x = L.zeros(3, 3, dtype=getattr(L, dtype))
    v = _value(L, shape)
    if how == "ellipsis_select":
        x[..., 0] = v
    elif how == "slice":
        x[0:1] = v
    elif how == "int":
        x[1] = v
    elif how == "mask":
        x[x == 0] = v if shape != (3,) else v[0]
    elif how == "all":
        x[...] = v
    else:
        x.copy_(v)
    return x


@pytest.mark.parametrize("shape", [(), (1,), (3,)])
@pytest.mark.parametrize("how", ["ellipsis_select", "slice", "int", "mask", "all", "copy_"])
@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
def test_write_records_as_torch(dtype, how, shape):
    theirs, ours = _write(torch, dtype, how, shape), _write(framework, dtype, how, shape)
    name = lambda t: type(t.grad_fn).__name__ if t.grad_fn is not None else None
    assert ours.requires_grad == theirs.requires_grad
    assert name(ours) == name(theirs)
    assert ours.dtype.__str__() == theirs.dtype.__str__()
    assert (ours.detach().numpy() == theirs.detach().numpy()).all()


def test_float_gradient_through_a_zero_dim_fill():
    for L in (torch, framework):
        x = L.zeros(2, 3)
        v = L.tensor(2.0, requires_grad=True)
        y = x.clone()
        y[...] = v
        (y * L.arange(6.0).reshape(2, 3)).sum().backward()
        assert float(v.grad) == 15.0
        assert type(y.grad_fn).__name__ == "FillBackward3"


@pytest.mark.parametrize("dim", [2, 4, -3])
def test_narrow_copy_dim_check(dim):
    got = []
    for L in (torch, framework):
        with pytest.raises((RuntimeError, IndexError)) as e:
            L.narrow_copy(L.zeros(2, 3), dim, 0, 1)
        got.append((e.type, str(e.value)))
    assert got[0] == got[1]


OPS_ON_INT = {
    "float": lambda L, x, f: x.float(),
    "add_float": lambda L, x, f: x + 1.5,
    "add_int": lambda L, x, f: x + 1,
    "clone": lambda L, x, f: x.clone(),
    "view": lambda L, x, f: x.view(3),
    "select": lambda L, x, f: x[0],
    "mul_float_tensor": lambda L, x, f: x * f,
    "sqrt": lambda L, x, f: x.sqrt(),
    "eq": lambda L, x, f: x == 1,
    "float_to_long": lambda L, x, f: f.long(),
    "sum_int_dtype": lambda L, x, f: f.sum(dtype=L.int64),
    "cat": lambda L, x, f: L.cat([x, x]),
    "where": lambda L, x, f: L.where(x > 0, x, x),
    "square": lambda L, x, f: x.square(),
    "max_dim": lambda L, x, f: x.max(0),
    "index_put_": lambda L, x, f: x.clone().detach().index_put_((L.tensor([0]),), f[0]),
}


@pytest.mark.parametrize("name", sorted(OPS_ON_INT))
def test_a_node_with_an_int_output_is_refused_as_torch(name):
    """An int tensor that requires grad (a 0-dim fill of one that does), then ops: those that
    record a node with an int or bool output raise torch's "Autograd not support dtype",
    in-place writes and ops with float or non-differentiable outputs do not (seed 520064993:
    setitem then square)."""
    got = []
    for L in (torch, framework):
        x = L.zeros(3, dtype=L.int64)
        x[...] = L.tensor(1.0, requires_grad=True)
        f = L.ones(3, requires_grad=True)
        try:
            r = OPS_ON_INT[name](L, x, f)
            r = r if isinstance(r, tuple) else (r,)
            got.append([(str(t.dtype), t.requires_grad) for t in r])
        except RuntimeError as e:
            got.append(str(e))
    assert got[0] == got[1]
