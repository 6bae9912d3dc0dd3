"""linalg.solve_ex / vander / diagonal / tensorinv / tensorsolve against torch (values, info,
node names, gradients for a random upstream gradient, errors), linalg.solve's dtype check,
and eig / eigvals refusing (complex results)."""

import numpy as np
import pytest

import framework
from helpers import same_outcome

R = np.random.default_rng(5)
SING = [[1.0, 2.0], [2.0, 4.0]]


def _same(fn, rtol=1e-9):
    same_outcome(fn, rtol=rtol, atol=1e-12)


def _v(t):
    return np.asarray(t.detach().tolist(), dtype=float)


def _t(L, a, rg=False):
    return L.tensor(np.asarray(a, dtype=float), dtype=L.float64, requires_grad=rg)


A2 = R.standard_normal((3, 3)) + 3 * np.eye(3)
B2 = R.standard_normal((3, 2))
T422, T236, T2332 = (R.standard_normal(s) for s in ((4, 2, 2), (2, 3, 6), (2, 3, 3, 2)))
SOLVE_EX = {
    "vector": lambda L: L.linalg.solve_ex(_t(L, A2), _t(L, [1.0, 2.0, 3.0])),
    "matrix": lambda L: L.linalg.solve_ex(_t(L, A2), _t(L, B2)),
    "right": lambda L: L.linalg.solve_ex(_t(L, A2), _t(L, np.ones((2, 3))), left=False),
    "singular": lambda L: L.linalg.solve_ex(_t(L, SING), _t(L, [[1.0], [2.0]])),
    "batch_singular": lambda L: L.linalg.solve_ex(
        _t(L, [SING, [[2.0, 0.0], [0.0, 1.0]]]), _t(L, np.ones((2, 2)))
    ),
    "check_errors": lambda L: L.linalg.solve_ex(
        _t(L, [SING, [[2.0, 0.0], [0.0, 1.0]]]), _t(L, np.ones((2, 2))), check_errors=True
    ),
    "dtypes": lambda L: L.linalg.solve_ex(_t(L, A2), L.ones(3)),
    "not_square": lambda L: L.linalg.solve_ex(L.ones(2, 3), L.ones(2)),
}


@pytest.mark.parametrize("case", list(SOLVE_EX))
def test_solve_ex(case):
    def fn(L):
        res = SOLVE_EX[case](L)
        return [type(res).__name__, _v(res.result), _v(res.info), str(res.info.dtype)]

    _same(fn)


def test_solve_ex_gradients_and_solve_dtypes():
    def fn(L):
        A = _t(L, A2, rg=True)
        B = _t(L, B2, rg=True)
        res = L.linalg.solve_ex(A, B)
        up = _t(L, np.random.default_rng(0).standard_normal((3, 2)))
        gA, gB = L.autograd.grad(res.result, [A, B], up)
        return [res.result.grad_fn.name(), res.info.requires_grad, _v(gA), _v(gB)]

    _same(fn)
    _same(lambda L: [_v(L.linalg.solve(_t(L, A2), L.ones(3)))])  # torch refuses to promote
    A = framework.tensor(A2, requires_grad=True)
    B = framework.tensor(B2, requires_grad=True)
    assert framework.autograd.gradcheck(lambda a, b: framework.linalg.solve_ex(a, b)[0], (A, B))


VANDER = {
    "int": lambda L: L.linalg.vander(L.tensor([1, 2, 3, 5])),
    "N": lambda L: L.linalg.vander(L.tensor([1, 2, 3, 5]), N=3),
    "batch": lambda L: L.linalg.vander(_t(L, [[1.0, 2.0], [3.0, 4.0]]), N=4),
    "zero_dim": lambda L: L.linalg.vander(L.tensor(2.0)),
    "N1": lambda L: L.linalg.vander(L.tensor([2.0]), N=1),
    "bool": lambda L: L.linalg.vander(L.tensor([True])),
    "half": lambda L: L.linalg.vander(L.tensor([1.0], dtype=L.float16)),
    "float32": lambda L: L.linalg.vander(L.tensor([0.5, -2.0, 3.0])),
}


@pytest.mark.parametrize("case", list(VANDER))
def test_vander(case):
    _same(lambda L: [_v(VANDER[case](L)), str(VANDER[case](L).dtype)])


def test_vander_graph_and_gradient():
    """torch's composition: CatBackward0 over (ones: no edge, CumprodBackward0)."""

    def fn(L):
        x = _t(L, [1.0, -2.0, 0.5], rg=True)
        out = L.linalg.vander(x, N=4)
        fn_ = out.grad_fn
        up = _t(L, np.random.default_rng(1).standard_normal((3, 4)))
        return [
            fn_.name(),
            fn_.next_functions[0][0] is None,
            fn_.next_functions[1][0].name(),
            _v(L.autograd.grad(out, x, up)[0]),
        ]

    _same(fn)


@pytest.mark.parametrize(
    "kw", [{}, {"offset": 1}, {"offset": -1, "dim1": -1, "dim2": -2}, {"dim1": 0, "dim2": 2}]
)
def test_diagonal(kw):
    def fn(L):
        A = _t(L, np.arange(27.0).reshape(3, 3, 3), rg=True)
        d = L.linalg.diagonal(A, **kw)
        up = _t(L, np.random.default_rng(2).standard_normal(tuple(d.shape)))
        return [_v(d), d.grad_fn.name(), d._base is not None, _v(L.autograd.grad(d, A, up)[0])]

    _same(fn)


TENSORINV = {
    "ind1": lambda L, rg: L.linalg.tensorinv(_t(L, T422, rg), ind=1),
    "ind2": lambda L, rg: L.linalg.tensorinv(_t(L, T236, rg)),
    "ind0": lambda L, rg: L.linalg.tensorinv(L.ones(4, 2, 2), ind=0),
    "shapes": lambda L, rg: L.linalg.tensorinv(L.ones(2, 3), ind=1),
    "singular": lambda L, rg: L.linalg.tensorinv(L.ones(2, 2), ind=1),
}


@pytest.mark.parametrize("case", list(TENSORINV))
def test_tensorinv(case):
    def fn(L):
        out = TENSORINV[case](L, True)
        res = [_v(out), tuple(out.shape)]
        if out.requires_grad:
            (leaf,) = [n for n in _leaves(out)]
            up = _t(L, np.random.default_rng(4).standard_normal(tuple(out.shape)))
            res += [out.grad_fn.name(), _v(L.autograd.grad(out, leaf, up)[0])]
        return res

    _same(fn, rtol=1e-8)


def _leaves(out):
    fn, seen = out.grad_fn, []
    stack = [fn]
    while stack:
        f = stack.pop()
        if f is None:
            continue
        if hasattr(f, "variable"):
            seen.append(f.variable)
        stack += [n for n, _ in f.next_functions]
    return seen


TENSORSOLVE = {
    "plain": lambda L: (_t(L, T236, True), _t(L, np.ones((2, 3))), None),
    "dims": lambda L: (_t(L, T2332, True), _t(L, np.ones((3, 2))), (0,)),
    "bad": lambda L: (L.ones(2, 3, 5), L.ones(2, 3), None),
}


@pytest.mark.parametrize("case", list(TENSORSOLVE))
def test_tensorsolve(case):
    def fn(L):
        A, B, dims = TENSORSOLVE[case](L)
        out = L.linalg.tensorsolve(A, B, dims)
        up = _t(L, np.random.default_rng(7).standard_normal(tuple(out.shape)))
        return [_v(out), out.grad_fn.name(), _v(L.autograd.grad(out, A, up)[0])]

    _same(fn, rtol=1e-8)


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_eig_refuses_complex_results(name):
    with pytest.raises(NotImplementedError, match="complex"):
        getattr(framework.linalg, name)(framework.eye(2))
    assert getattr(framework.linalg, name).__doc__
