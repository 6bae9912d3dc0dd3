"""New public names against torch: logaddexp2, special.xlog1py, frexp (values, dtypes, node
names, gradients for a random upstream gradient with mixed dtypes, gradcheck/gradgradcheck in
float64, forward-mode tangents), is_complex / is_signed / is_inference."""

import numpy as np
import pytest
import torch

import framework
from helpers import outcome as _run, same_outcome

LIBS = (framework, torch)
NAN, INF = float("nan"), float("inf")


def _same(fn, rtol=2e-7):
    same_outcome(fn, rtol=rtol, atol=1e-30)


def _v(t):
    if getattr(t, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(t.shape))
    return np.asarray(t.detach().tolist(), dtype=float)


X = [0.0, 0.0, 0.0, 2.0, -1.0, 0.0, 1.0, 3.0, -0.0, INF, -INF, NAN]
Y = [-1.0, NAN, 2.0, -1.0, -2.0, -1.5, INF, 0.5, 1.0, INF, -INF, 1.0]


def _call(lib, name, a, b):
    if name == "logaddexp2":
        return lib.logaddexp2(a, b)
    if name == "logaddexp2_method":
        return a.logaddexp2(b)
    return lib.special.xlog1py(a, b)


@pytest.mark.parametrize(
    "dtypes",
    [
        ("float64", "float64"),
        ("float32", "float64"),
        ("float32", "float32"),
        ("float64", "float32"),
    ],
)
@pytest.mark.parametrize("name", ["logaddexp2", "logaddexp2_method", "xlog1py"])
def test_binary_values_nodes_and_gradients(name, dtypes):
    """Special values (0 with -1 and NaN, infinities), mixed dtypes with both inputs
    requiring grad: values, result dtype, node, and both gradients for a random upstream."""

    def fn(L):
        a = L.tensor(X, dtype=getattr(L, dtypes[0]), requires_grad=True)
        b = L.tensor(Y, dtype=getattr(L, dtypes[1]), requires_grad=True)
        out = _call(L, name, a, b)
        up = L.tensor(np.random.default_rng(0).standard_normal(len(X)), dtype=out.dtype)
        ga, gb = L.autograd.grad(out, [a, b], up)
        return [
            _v(out),
            str(out.dtype),
            type(out.grad_fn).__name__,
            _v(ga),
            str(ga.dtype),
            _v(gb),
            str(gb.dtype),
        ]

    _same(fn, rtol=2e-7 if dtypes == ("float64", "float64") else 1e-6)


@pytest.mark.parametrize("scalar", ["self", "other"])
def test_xlog1py_scalar_overloads(scalar):
    """SpecialXlog1PyBackward1 (a Python self) and 2 (a Python other): the tensor's gradient
    (masked where self is 0 and other <= -1), next_functions without the scalar."""

    def fn(L):
        res = []
        for s in (0.0, 2.0, -1.0):
            t = L.tensor(X if scalar == "other" else Y, dtype=L.float64, requires_grad=True)
            out = L.special.xlog1py(s, t) if scalar == "self" else L.special.xlog1py(t, s)
            up = L.tensor(np.random.default_rng(1).standard_normal(len(X)))
            (g,) = L.autograd.grad(out, t, up)
            res += [_v(out), type(out.grad_fn).__name__, len(out.grad_fn.next_functions), _v(g)]
        return res

    _same(fn)


ERRORS = {
    "logaddexp2_int": lambda L: L.logaddexp2(L.tensor([1, 2]), L.tensor([1, 2])),
    "logaddexp2_scalar": lambda L: L.logaddexp2(L.ones(2), 2.0),
    "logaddexp2_shapes": lambda L: L.logaddexp2(L.ones(2), L.ones(3)),
    "xlog1py_int": lambda L: L.special.xlog1py(L.tensor([1, 2]), L.tensor([1, 2])),
    "xlog1py_bool_float": lambda L: L.special.xlog1py(L.tensor([True]), L.tensor([1.0])),
    "xlog1py_int_scalar": lambda L: L.special.xlog1py(L.tensor([1, 2]), 1),
    "frexp_int": lambda L: L.frexp(L.tensor([1, 2])),
    "frexp_bool": lambda L: L.frexp(L.tensor([True])),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_dtypes_and_errors(case):
    def fn(L):
        out = ERRORS[case](L)
        return [_v(out), str(out.dtype)]

    _same(fn, rtol=1e-6)


def _gradchecks(f, *arrays):
    inputs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
    assert framework.autograd.gradcheck(f, inputs)
    assert framework.autograd.gradgradcheck(f, inputs)


def test_gradcheck_and_gradgradcheck():
    r = np.random.default_rng(2)
    a, b = r.standard_normal((3, 4)), r.uniform(-0.5, 2.0, (3, 4))
    _gradchecks(framework.logaddexp2, a, b)
    _gradchecks(framework.special.xlog1py, a, b)
    _gradchecks(lambda t: framework.special.xlog1py(t, 0.7), a)
    _gradchecks(lambda t: framework.special.xlog1py(1.5, t), b)
    _gradchecks(lambda t: framework.frexp(t).mantissa, a * 5)


@pytest.mark.parametrize("name", ["logaddexp2", "xlog1py", "xlog1py_scalar", "frexp"])
def test_forward_ad_matches_torch(name):
    """jvp (forward mode), the create_graph gradient and a Hessian-vector product, vs torch."""
    r = np.random.default_rng(3)
    a, b = r.standard_normal(5), r.uniform(-0.5, 2.0, 5)
    ta, tb, up = r.standard_normal(5), r.standard_normal(5), r.standard_normal(5)

    def fn(L):
        fwad = L.autograd.forward_ad

        def f(x, y):
            if name == "logaddexp2":
                return L.logaddexp2(x, y)
            if name == "xlog1py":
                return L.special.xlog1py(x, y)
            if name == "xlog1py_scalar":
                return L.special.xlog1py(x, 0.3) * y
            return L.frexp(x * 8).mantissa * y

        with fwad.dual_level():
            x = fwad.make_dual(L.tensor(a), L.tensor(ta))
            y = fwad.make_dual(L.tensor(b), L.tensor(tb))
            tangent = fwad.unpack_dual(f(x, y)).tangent
        x = L.tensor(a, requires_grad=True)
        y = L.tensor(b, requires_grad=True)
        gx, gy = L.autograd.grad(f(x, y), [x, y], L.tensor(up), create_graph=True)
        (hx,) = L.autograd.grad((gx * L.tensor(ta)).sum() + (gy * L.tensor(tb)).sum(), [x])
        return [_v(tangent), _v(gx), _v(gy), _v(hx)]

    _same(fn, rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_frexp(dtype):
    """Mantissa, int32 exponent, the return type's fields, FrexpBackward0 and its gradient
    (the exponent's exp2 in float32: a subnormal input overflows it to inf, as torch)."""
    values = [0.0, -0.0, 1.0, -3.5, 1e-40, INF, -INF, NAN, 1e30, 0.1]
    if dtype == "float16":
        values = [0.0, -0.0, 1.0, -3.5, 1e-6, INF, -INF, NAN, 6e4, 0.1]

    def fn(L):
        x = L.tensor(values, dtype=getattr(L, dtype), requires_grad=dtype != "float16")
        res = L.frexp(x)
        m, e = res
        out = [
            _v(res.mantissa),
            _v(res.exponent),
            str(m.dtype),
            str(e.dtype),
            e.requires_grad,
            type(res).__name__,
            _v(x.frexp()[0]),
        ]
        if dtype != "float16":
            up = L.tensor(np.random.default_rng(4).standard_normal(len(values)), dtype=m.dtype)
            out += [type(m.grad_fn).__name__, _v(L.autograd.grad(m, x, up)[0])]
        return out

    _same(fn)


@pytest.mark.parametrize(
    "dtype",
    ["float32", "float64", "int64", "int32", "uint8", "bool", "bfloat16", "float16", "int8"],
)
def test_dtype_queries(dtype):
    def fn(L):
        x = L.ones(2, dtype=getattr(L, dtype))
        with L.inference_mode():
            y = L.ones(1)
        return [
            x.is_complex(),
            L.is_complex(x),
            x.is_signed(),
            L.is_signed(x),
            x.is_inference(),
            L.is_inference(x),
            L.ones(1).is_inference(),
        ] + ([] if L is torch else [y.is_inference()])

    (ka, va), (kb, vb) = _run(framework, fn), _run(torch, fn)
    assert ka == kb == "ok" and va[:7] == vb[:7]
    assert va[7] is False  # documented: inference_mode makes ordinary tensors here


def test_conj_physical():
    """Real tensors: conj_physical returns the input itself; conj_physical_ bumps the version
    and records ConjPhysicalBackward1 (the gradient passes through)."""

    def fn(L):
        x = L.tensor([1.0, -2.0], requires_grad=True)
        z = x * 1
        assert L.conj_physical_(z) is z and z.conj_physical_() is z
        i = L.tensor([1, 2])
        i.conj_physical_()
        (g,) = L.autograd.grad(z, x, L.tensor([1.0, 3.0]))
        return [
            L.conj_physical(x) is x,
            x.conj_physical() is x,
            z.grad_fn.name(),
            z._version,
            i._version,
            _v(g),
        ]

    _same(fn)
    _same(lambda L: [_v(L.ones(2, requires_grad=True).conj_physical_())])  # the leaf error


RENORM = {
    "rows": lambda L: L.embedding_renorm_(
        L.tensor([[3.0, 4.0], [1.0, 0.0], [0.0, 6.0]]), L.tensor([0, 2, 0]), 2.0, 2.0
    ),
    "int32_p1": lambda L: L.embedding_renorm_(
        L.tensor([[3.0, 4.0], [1.0, 0.0]]), L.tensor([0, 1], dtype=L.int32), 1.0, 1.0
    ),
    "p3": lambda L: L.embedding_renorm_(
        L.tensor(np.random.default_rng(0).standard_normal((6, 5)), dtype=L.float32),
        L.tensor([0, 1, 3, 5]),
        1.3,
        3.0,
    ),
    "leaf": lambda L: L.embedding_renorm_(
        L.ones(2, 2, requires_grad=True), L.tensor([0]), 1.0, 2.0
    ),
    "float_indices": lambda L: L.embedding_renorm_(L.ones(2, 2), L.tensor([0.0]), 1.0, 2.0),
}


@pytest.mark.parametrize("case", list(RENORM))
def test_embedding_renorm_(case):
    def fn(L):
        w = RENORM[case](L)
        return [_v(w), w._version]

    _same(fn, rtol=1e-6)


def test_embedding_renorm_records_a_node_without_derivative():
    def fn(L):
        v = L.tensor([[3.0, 4.0], [1.0, 0.0]], requires_grad=True) * 1
        assert L.embedding_renorm_(v, L.tensor([0]), 2.0, 2.0) is v
        res = [v.grad_fn.name(), len(v.grad_fn.next_functions), v._version]
        try:
            v.sum().backward()
        except NotImplementedError as e:
            res.append(str(e))
        return res

    _same(fn)
