"""Indexing (framework/ops/indexing.py, gather.py) against torch: values, node chains, grads."""

import numpy as np
import pytest
import torch

import framework
from framework.autograd import gradcheck, gradgradcheck
from helpers import compare_with_torch, randn, to_fw


def _chain(t):
    out, fn = [], t.grad_fn
    while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
        out.append(fn.name())
        fn = fn.next_functions[0][0]
    return out


def _idx(m, spec):
    """Build the same index for torch (m=torch) and framework (m=framework)."""
    if isinstance(spec, tuple):
        return tuple(_idx(m, s) for s in spec)
    if isinstance(spec, np.ndarray):
        return m.tensor(spec)
    return spec


I = np.array([0, 2, 2, -1])
MASK_ROWS = np.array([True, False, True, True])
BASIC = [
    0,
    -1,
    (0, 1),
    (0, 1, 2),
    slice(1, 3),
    slice(None, None, 2),
    (0, slice(1, 3)),
    (slice(1, 3), 0),
    slice(None),
    Ellipsis,
    None,
    (None, 0),
    (Ellipsis, 0),
    (slice(None), None),
    (slice(1, 3), None),
    (0, None),
    (slice(None), slice(None), 1),
    (slice(None), slice(1, None)),
    slice(-3, -1),
    slice(1, 100),
    slice(3, 1),
    (slice(None), slice(None)),
    (),
    (Ellipsis, slice(None)),
    (slice(0, 4), slice(None)),
    True,
    False,
]
ADVANCED = [
    I,
    [0, 2],
    (I, I),
    (slice(None), I),
    (0, I),
    (I, slice(None), I),
    MASK_ROWS,
    (slice(1, 3), I[:2]),
    (None, I),
    np.array([[0, 1], [2, 3]]),
    (I, None),
    (Ellipsis, np.array([1, 0])),
    (0, slice(None), np.array([1, 1, 5])),
    np.array([1, 0], dtype=np.int32),
    [[0, 1], [1, 2]],
    [True, False, True, False],
]


@pytest.mark.parametrize(
    "spec", BASIC + ADVANCED, ids=[str(i) for i in range(len(BASIC + ADVANCED))]
)
def test_getitem(spec, device):
    fw, th = compare_with_torch(
        lambda x: x[_idx(framework, spec)],
        lambda x: x[_idx(torch, spec)],
        [randn(4, 5, 6)],
        device=device,
    )
    assert _chain(fw) == _chain(th)


def test_getitem_bool_masks(device):
    x = randn(4, 5, 6)
    for mask in (x > 0, (x > 0)[:, :, 0], np.array(True)):
        compare_with_torch(
            lambda t: t[_idx(framework, mask)], lambda t: t[_idx(torch, mask)], [x], device=device
        )


def test_getitem_scalar_tensor_index(device):
    compare_with_torch(
        lambda x: x[framework.tensor(1)], lambda x: x[torch.tensor(1)], [randn(4, 5)], device=device
    )
    compare_with_torch(
        lambda x: x[np.int64(2)], lambda x: x[np.int64(2)], [randn(4, 5)], device=device
    )


def test_duplicate_indices_accumulate(device):
    idx = np.array([1, 1, 1, 0])
    fw, _ = compare_with_torch(
        lambda x: x[_idx(framework, idx)],
        lambda x: x[_idx(torch, idx)],
        [randn(3, 2)],
        device=device,
    )
    x = framework.ones(3, 2, requires_grad=True)
    x[_idx(framework, idx)].sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [3.0, 3.0], [0.0, 0.0]]


@pytest.mark.parametrize("lead", [0, 1, 2])
@pytest.mark.parametrize("ishape", [(4,), (2, 3)])
def test_index_tensor_gather_layout(lead, ishape):
    """x[idx], x[:, idx], x[:, :, idx] (a take along one axis): torch's values, contiguous
    strides and gradient, with or without grad mode, negative and repeated indices."""
    rng = np.random.default_rng(lead * 10 + len(ishape))
    x = rng.standard_normal((3, 4, 5))
    idx = rng.integers(-x.shape[lead], x.shape[lead], ishape)
    key = (slice(None),) * lead
    g = rng.standard_normal(x.shape[:lead] + ishape + x.shape[lead + 1 :])
    a = framework.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    ya, yb = a[key + (framework.tensor(idx),)], b[key + (torch.tensor(idx),)]
    assert np.array_equal(ya.detach().numpy(), yb.detach().numpy())
    assert ya.stride() == yb.stride() and ya.is_contiguous()
    assert ya.grad_fn.name() == yb.grad_fn.name() == "IndexBackward0"
    ya.backward(framework.tensor(g))
    yb.backward(torch.tensor(g))
    assert np.array_equal(a.grad.numpy(), b.grad.numpy())
    with framework.no_grad():
        za = a[key + (framework.tensor(idx),)]
    assert np.array_equal(za.numpy(), yb.detach().numpy()) and za.stride() == yb.stride()


def test_no_grad_getitem_is_a_view():
    x = framework.zeros(3, 4)
    v = x[1]
    assert np.shares_memory(v._data, x._data)
    assert x[0, 0].shape == () and x[0, 0].dim() == 0


SETITEM = [
    (0, (5, 6)),
    (0, ()),
    (0, (6,)),
    (I[:3], (5, 6)),
    (I[:3], ()),
    ((0, I[:3]), (6,)),
    (slice(1, 3), (2, 5, 6)),
    (Ellipsis, ()),
    (slice(None), ()),
    (Ellipsis, (5, 6)),
    (MASK_ROWS, ()),
    ((slice(None), 1, slice(2, 4)), (4, 2)),
    ((None, 0), (5, 6)),
]


@pytest.mark.parametrize("spec,vshape", SETITEM, ids=[str(i) for i in range(len(SETITEM))])
def test_setitem(spec, vshape, device):
    tensor_value = vshape != ()

    def run(m, x, v=None):
        y = x * 1
        y[_idx(m, spec)] = v if tensor_value else 2.5
        return y

    inputs = [randn(4, 5, 6)] + ([randn(*vshape)] if tensor_value else [])
    fw, th = compare_with_torch(
        lambda x, *v: run(framework, x, *v), lambda x, *v: run(torch, x, *v), inputs, device=device
    )


def test_setitem_names_with_grad_value(device):
    for spec in (0, np.array([0, 2]), MASK_ROWS):

        def run(m, x, v):
            y = x * 1
            y[_idx(m, spec)] = v.sum() * 0 + v[0]
            return y

        compare_with_torch(
            lambda x, v: run(framework, x, v),
            lambda x, v: run(torch, x, v),
            [randn(4, 3), randn(3)],
            device=device,
        )


def test_setitem_value_requires_grad_only(device):
    def run(m, v):
        y = m.zeros(3, 4, dtype=m.float64)
        y[1:3] = v
        return y

    compare_with_torch(
        lambda v: run(framework, v), lambda v: run(torch, v), [randn(2, 4)], device=device
    )


def test_setitem_no_grad_writes_in_place_and_bumps_version():
    x = framework.zeros(3, 4)
    data = x._data
    x[1, 2:] = 7.0
    x[[0, 2], 0] = framework.tensor([1.0, 2.0])
    x[x > 6] = -1.0
    assert x._data is data and x._version == 3
    t = torch.zeros(3, 4)
    t[1, 2:] = 7.0
    t[[0, 2], 0] = torch.tensor([1.0, 2.0])
    t[t > 6] = -1.0
    assert x.tolist() == t.tolist()


def test_setitem_leaf_errors():
    for spec, m in ((0, "a view of a leaf"), ([0, 1], "a leaf Variable")):
        for lib in (torch, framework):
            x = lib.zeros(3, requires_grad=True)
            with pytest.raises(RuntimeError, match=m):
                x[spec] = 1.0
    x = framework.zeros(3, requires_grad=True)
    with framework.no_grad():
        x[0] = 1.0
    assert x.tolist() == [1.0, 0.0, 0.0] and x.grad_fn is None


def test_setitem_saved_tensor_version_error():
    for lib in (torch, framework):
        a = lib.ones(3, requires_grad=True)
        b = a * 1
        c = b.exp()  # saves its output
        c[0] = 0.0
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            c.sum().backward()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_scatter(dim, device):
    idx = np.random.default_rng(0).integers(0, 3, size=(3, 2))
    compare_with_torch(
        lambda x, i: x.gather(dim, i),
        lambda x, i: x.gather(dim, i),
        [randn(3, 4), idx],
        device=device,
    )
    compare_with_torch(
        lambda x, i: framework.gather(x, dim, i),
        lambda x, i: torch.gather(x, dim, i),
        [randn(3, 3), idx],
        device=device,
    )
    compare_with_torch(
        lambda x, i, s: x.scatter_add(dim, i, s),
        lambda x, i, s: x.scatter_add(dim, i, s),
        [randn(3, 4), idx, randn(3, 2)],
        device=device,
    )
    uniq = np.argsort(np.random.default_rng(1).random((3, 3)), axis=dim)[:2, :2]
    compare_with_torch(
        lambda x, i, s: x.scatter(dim, i, s),
        lambda x, i, s: x.scatter(dim, i, s),
        [randn(3, 3), uniq, randn(2, 2)],
        device=device,
    )
    compare_with_torch(
        lambda x, i: x.scatter(dim, i, 1.5),
        lambda x, i: x.scatter(dim, i, 1.5),
        [randn(3, 3), uniq],
        device=device,
    )


def test_inplace_scatter(device):
    idx = np.array([[0, 1], [2, 0]])

    def run(x, i, s):
        y = x * 1
        y.scatter_(1, i, s)
        z = x * 1
        z.scatter_add_(0, i, s)
        return y, z

    compare_with_torch(run, run, [randn(3, 3), idx, randn(2, 2)], device=device)


def test_index_select(device):
    for idx in (np.array([0, 2, 2]), np.array(1), np.array([1, 0], dtype=np.int32)):
        compare_with_torch(
            lambda x, i: x.index_select(1, i),
            lambda x, i: x.index_select(1, i),
            [randn(3, 4), idx],
            device=device,
        )
        compare_with_torch(
            lambda x, i: framework.index_select(x, 0, i),
            lambda x, i: torch.index_select(x, 0, i),
            [randn(3, 4), idx],
            device=device,
        )


def test_masked_fill(device):
    x = randn(3, 4)
    mask = x > 0
    compare_with_torch(
        lambda t, m: t.masked_fill(m, 0.5),
        lambda t, m: t.masked_fill(m, 0.5),
        [x, mask],
        device=device,
    )
    compare_with_torch(
        lambda t, m, v: t.masked_fill(m, v),
        lambda t, m, v: t.masked_fill(m, v),
        [x, mask, np.array(2.0)],
        device=device,
    )
    compare_with_torch(
        lambda t, m: t.masked_fill(m, 3),
        lambda t, m: t.masked_fill(m, 3),
        [x, mask[0]],
        device=device,
    )


def test_nonzero(device):
    x = randn(3, 4) > 0
    compare_with_torch(
        lambda t: framework.nonzero(t), lambda t: torch.nonzero(t), [x], device=device
    )
    compare_with_torch(
        lambda t: t.nonzero(as_tuple=True), lambda t: t.nonzero(as_tuple=True), [x], device=device
    )


GRADCHECK = [
    lambda x: x[1],
    lambda x: x[0, 1:3],
    lambda x: x[::2, None],
    lambda x: x[[0, 2, 2]],
    lambda x: x[x.detach() > 0],
    lambda x: x[..., framework.tensor([1, 1, 0])],
    lambda x: x.gather(1, framework.tensor([[0, 0], [2, 1], [1, 1]])),
    lambda x: x.index_select(0, framework.tensor([2, 0, 2])),
    lambda x: framework.zeros(3, 3, dtype=framework.float64).scatter_add(
        0, framework.tensor([[0, 1, 2], [0, 0, 0]]), x[:2]
    ),
    lambda x: x.scatter(1, framework.tensor([[0], [2], [1]]), x[:, :1] * 2),
    # src larger than index: torch itself fails here ("invalid gradient"), we pad with zeros
    lambda x: framework.zeros(2, 3, dtype=framework.float64).scatter_add(
        0, framework.tensor([[1, 0]]), x
    ),
    lambda x: _set(x, (0, slice(1, 3)), x[1, :2] * 3),
    lambda x: _set(x, [0, 2], x[1] * 3),
]


def _set(x, idx, v):
    y = x * 1
    y[idx] = v
    return y


@pytest.mark.parametrize("k", range(len(GRADCHECK)))
def test_gradcheck(k):
    x = framework.randn(3, 3, dtype=framework.float64, requires_grad=True)
    assert gradcheck(GRADCHECK[k], (x,))
    assert gradgradcheck(GRADCHECK[k], (x,))


ERRORS = [
    (lambda m, x: x[5], IndexError),
    (lambda m, x: x[0, 7], IndexError),
    (lambda m, x: x[-5], IndexError),
    (lambda m, x: x[:, :, 6], IndexError),
    (lambda m, x: x[m.tensor([4])], IndexError),
    (lambda m, x: x[[0, 9]], IndexError),
    (lambda m, x: x[:, [1, 7]], IndexError),
    (lambda m, x: x[:, :, [7]], IndexError),
    (lambda m, x: x[0, 0, 0, 0], IndexError),
    (lambda m, x: x[m.ones(2, 5, 6).bool()], IndexError),
    (lambda m, x: x[1.5], IndexError),
    (lambda m, x: x[m.tensor([1.0])], IndexError),
    (lambda m, x: x[::-1], ValueError),
    (lambda m, x: x[::0], ValueError),
    (lambda m, x: x.__setitem__(0, m.zeros(4, 6)), RuntimeError),
    (lambda m, x: x.__setitem__([0, 1], m.zeros(3, 6)), RuntimeError),
    (lambda m, x: x.gather(1, m.tensor([[[9]]])), RuntimeError),
    (lambda m, x: x.gather(1, m.tensor([1])), RuntimeError),
    (lambda m, x: x.gather(1, m.zeros(1, 1, 1)), RuntimeError),
    (lambda m, x: x.gather(1, m.zeros(5, 1, 1, dtype=m.int64)), RuntimeError),
    (lambda m, x: x.scatter(1, m.tensor([[[7]]]), x), RuntimeError),
    (lambda m, x: x.scatter_add(1, m.zeros(1, 1, 1, dtype=m.int64), x.double()), RuntimeError),
    (lambda m, x: x.index_select(1, m.tensor([[0]])), IndexError),
    (lambda m, x: x.index_select(0, m.tensor([4])), IndexError),
    (lambda m, x: x.index_select(0, m.tensor([0.0])), RuntimeError),
    (lambda m, x: x.masked_fill(m.ones(4, 5, 6), 1.0), RuntimeError),
    (lambda m, x: x.masked_fill(x > 0, m.tensor([1.0])), RuntimeError),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    fn, kind = ERRORS[k]
    with pytest.raises(kind) as want:
        fn(torch, torch.zeros(4, 5, 6))
    with pytest.raises(kind) as got:
        fn(framework, framework.zeros(4, 5, 6))
    assert str(got.value) == str(want.value)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce_forward(reduce, device):
    idx = np.array([[0, 1], [0, 0]])
    for value in (np.full((2, 2), 2.0), 3.0):
        fw = to_fw(np.ones((3, 3)), device).scatter(
            0,
            framework.tensor(idx, device=device),
            to_fw(value, device) if np.ndim(value) else value,
            reduce=reduce,
        )
        th = torch.ones(3, 3, dtype=torch.float64).scatter(
            0, torch.tensor(idx), torch.tensor(value) if np.ndim(value) else value, reduce=reduce
        )
        assert fw.tolist() == th.tolist()


def _scatter_reduce_prod_second(L, zeros, rg, include_self):
    """scatter_reduce prod's create_graph gradients (requires_grad, node type, name, edges)
    and their gradients or torch's error."""
    r = np.random.default_rng(0)
    xs, sv = r.standard_normal((2, 3)), r.standard_normal((3, 3))
    for z in zeros:
        sv[z] = 0
    x, s = L.tensor(xs, requires_grad=rg[0]), L.tensor(sv, requires_grad=rg[1])
    index = L.tensor(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]]))
    y = x.scatter_reduce(0, index, s, "prod", include_self=include_self)
    leaves = [t for t in (x, s) if t.requires_grad]
    gs = L.autograd.grad(y, leaves, L.ones(tuple(y.shape)), create_graph=True)
    got = [
        (
            g.requires_grad,
            type(g.grad_fn).__name__,
            g.grad_fn.name(),
            [(f.name() if f else None, i) for f, i in g.grad_fn.next_functions],
        )
        for g in gs
    ]
    try:
        second = L.autograd.grad(list(gs), leaves, [L.ones(tuple(g.shape)) for g in gs])
        got.append([np.round(g.numpy(), 9).tolist() for g in second])
    except RuntimeError as e:
        got.append(str(e))
    return got


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("zeros", [[(0, 0), (1, 0)], [(0, 0), (2, 1)], [(0, 0)]])
@pytest.mark.parametrize("rg", [(True, True), (False, True)])
def test_scatter_reduce_prod_several_zeros_is_torchs_error_node(zeros, rg, include_self):
    """As index_reduce's (fuzz seed 60072074): the prod gradient of a src with more than one
    zero scattered into one slot is torch's DelayedError node (Error, one edge to the
    where), whose backward raises "scatter_reduce(): Double backward is unsupported for src
    when >1 zeros ..."; zeros in different slots keep the WhereBackward0 gradient."""
    got = [_scatter_reduce_prod_second(L, zeros, rg, include_self) for L in (framework, torch)]
    assert got[0] == got[1]
