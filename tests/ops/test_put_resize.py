"""put / Tensor.put_ and Tensor.resize_ / resize_as_ against torch: values, node names,
gradients for a random upstream gradient, forward-mode tangents, gradcheck/gradgradcheck, and
torch's errors in its order."""

import numpy as np
import pytest
import torch

import framework

LIBS = (framework, torch)


def _run(lib, fn):
    try:
        return "ok", fn(lib)
    except Exception as e:
        return type(e).__name__, str(e)


def _same(fn):
    (ka, va), (kb, vb) = _run(framework, fn), _run(torch, fn)
    assert ka == kb, (va, vb)
    if ka != "ok":
        assert va == vb
        return
    for x, y in zip(va, vb):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-9)
        else:
            assert x == y


def _v(t):
    return np.asarray(t.detach().tolist())


def _case(seed):
    r = np.random.default_rng(seed)
    shape = tuple(int(n) for n in r.integers(1, 4, size=int(r.integers(0, 3))))
    numel = int(np.prod(shape))
    k = int(r.integers(0, 5))
    index = r.integers(-numel, numel, size=(k,))
    return r.standard_normal(shape), index, r.standard_normal(k), bool(r.random() < 0.5)


@pytest.mark.parametrize("how", ["function", "method", "inplace", "inplace_view"])
@pytest.mark.parametrize("seed", range(12))
def test_put(seed, how):
    """Values, node, next_functions, version and gradients of input and source (random
    upstream; duplicate indices kept out where torch's write order is unspecified)."""
    x, index, src, acc = _case(seed)
    if not acc:
        index = np.unique(index % max(x.size, 1))[: len(index)]
        src = src[: len(index)]

    def fn(lib):
        leaf = lib.tensor(x, requires_grad=True)
        s = lib.tensor(src, requires_grad=True)
        i = lib.tensor(index, dtype=lib.int64)
        if how == "function":
            y = lib.put(leaf, i, s, accumulate=acc)
        elif how == "method":
            y = leaf.put(i, s, accumulate=acc)
        else:
            base = leaf * 2
            y = base[...] if how == "inplace_view" else base
            assert y.put_(i, s, accumulate=acc) is y
            y = base
        up = lib.tensor(np.random.default_rng(seed + 100).standard_normal(x.shape))
        grads = lib.autograd.grad(y, [leaf, s], up)
        names = [type(y.grad_fn).__name__] + [
            type(f).__name__ if f is not None else None for f, _ in y.grad_fn.next_functions
        ]
        return [_v(y), *names, *(_v(g) for g in grads)]

    _same(fn)


ERRORS = {
    "out_of_range": lambda L: L.zeros(2, 3).put_(L.tensor([0, 10]), L.tensor([9.0, 8.0])),
    "negative_out_of_range": lambda L: L.zeros(2, 3).put_(L.tensor([-7]), L.tensor([9.0])),
    "float_index": lambda L: L.zeros(2, 3).put_(L.tensor([0.0, 1]), L.tensor([9.0, 8.0])),
    "numel": lambda L: L.zeros(2, 3).put_(L.tensor([0, 1, 2]), L.tensor([9.0, 8.0])),
    "dtype": lambda L: L.zeros(2, 3).put_(L.tensor([0, 1]), L.tensor([9.0, 8.0], dtype=L.float64)),
    "list_index": lambda L: L.zeros(2, 3).put_([0, 1], L.tensor([9.0, 8.0])),
    "list_index_function": lambda L: L.put(L.zeros(2, 3), [0, 1], L.tensor([9.0, 8.0])),
    "leaf": lambda L: L.zeros(2, requires_grad=True).put_(L.tensor([0]), L.tensor([1.0])),
    "empty": lambda L: L.zeros(0).put_(L.tensor([], dtype=L.int64), L.tensor([])),
    "int": lambda L: L.zeros(3, dtype=L.int64).put_(
        L.tensor([2, 2]), L.tensor([4, 5]), accumulate=True
    ),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_put_errors_and_edges(case):
    _same(lambda L: [_v(ERRORS[case](L))])


def test_put_gradcheck_and_forward_ad():
    """float64 gradcheck and gradgradcheck of put (both value inputs), and forward-mode
    tangents against torch's."""
    x = np.random.default_rng(0).standard_normal((2, 3))
    src = np.random.default_rng(1).standard_normal(3)
    index = [5, 0, -2]
    for acc in (False, True):
        xt = framework.tensor(x, requires_grad=True)
        st = framework.tensor(src, requires_grad=True)
        i = framework.tensor(index)

        def f(a, b):
            return framework.put(a, i, b, accumulate=acc)

        assert framework.autograd.gradcheck(f, (xt, st))
        assert framework.autograd.gradgradcheck(f, (xt, st))
        tangents = []
        for lib in LIBS:
            fwad = lib.autograd.forward_ad
            tx = lib.tensor(np.arange(6.0).reshape(2, 3))
            ts = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
            with fwad.dual_level():
                a = fwad.make_dual(lib.tensor(x), tx)
                b = fwad.make_dual(lib.tensor(src), ts)
                out = lib.put(a, lib.tensor(index), b, accumulate=acc)
                tangents.append(_v(fwad.unpack_dual(out).tangent))
        np.testing.assert_allclose(*tangents)


RESIZES = {
    "shrink": lambda L: L.arange(6.0).resize_(2, 2),
    "tuple": lambda L: L.arange(6.0).resize_((3,)),
    "same_numel": lambda L: L.arange(6.0).resize_(3, 2),
    "transposed": lambda L: L.arange(6.0).reshape(2, 3).t().resize_(2, 2),
    "view_offset": lambda L: L.arange(6.0)[2:].resize_(2, 2),
    "empty": lambda L: L.arange(6.0).resize_(0),
    "as": lambda L: L.arange(6.0).resize_as_(L.zeros(2, 2)),
    "negative": lambda L: L.arange(6.0).resize_(-1, 2),
    "requires_grad": lambda L: L.zeros(2, requires_grad=True).resize_(2),
    "nonleaf_requires_grad": lambda L: (L.zeros(2, requires_grad=True) * 1).resize_(1),
}


@pytest.mark.parametrize("case", list(RESIZES))
def test_resize(case):
    """Sizes, contiguous strides over the storage from its offset, values, version."""

    def fn(L):
        x = RESIZES[case](L)
        return [tuple(x.shape), x.stride(), x.storage_offset(), x._version, _v(x)]

    _same(fn)


def test_resize_grows_the_storage():
    """Growing keeps the old values in front (the new elements are torch's uninitialized
    memory: not compared)."""
    for lib in LIBS:
        x = lib.arange(6.0)
        x.resize_(3, 3)
        assert tuple(x.shape) == (3, 3) and x.stride() == (3, 1) and x._version == 1
        assert x.reshape(-1)[:6].tolist() == list(np.arange(6.0))
