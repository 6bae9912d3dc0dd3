"""The generated in-place methods (framework/_inplace_methods.py) against torch: values,
dtypes, version counters, node names, gradients for a random upstream gradient (through a
non-leaf and through a view of one), the leaf error and torch's can't-be-cast errors."""

import numpy as np
import pytest
import torch

import framework
from framework import _inplace_methods as IM

LIBS = (framework, torch)
RNG = np.random.default_rng(7)


def _arr(shape, low=0.1, high=0.9):
    return RNG.uniform(low, high, shape)


def _t(lib, a, dtype="float64", rg=False):
    t = lib.tensor(np.asarray(a), dtype=getattr(lib, dtype))
    return t.requires_grad_() if rg else t


# name -> (self shape, domain, args(lib, dtype, rg) -> (args, kwargs), kinds)
# kinds: f = float32 values, i = int64 values or torch's error, g = autograd through a
# non-leaf and through a view of one (float64, tensor arguments requiring grad too)
O3 = _arr(3, 0.2, 0.8)
I3 = np.array([4, -6, 9])
MAT = _arr((3, 4))


def _other(lib, dtype, rg):
    return ((_t(lib, O3, dtype, rg),), {})


def _iother(lib, dtype, rg):
    return ((_t(lib, I3, "int64"),), {})


def _none(lib, dtype, rg):
    return ((), {})


def _scalar(v):
    return lambda lib, dtype, rg: ((v,), {})


CASES = {}
for _n in (
    "abs acos asin asinh atan atanh arccos arcsin arcsinh arctan arctanh ceil cos cosh "
    "deg2rad digamma erf erfc erfinv exp2 expm1 floor frac i0 lgamma log log10 log1p log2 "
    "logit rad2deg reciprocal round rsqrt sgn sign sin sinc sinh square tan trunc "
    "absolute negative fix"
).split():
    CASES[_n + "_"] = (
        (3,),
        (-0.9, 0.9) if _n in ("abs", "sign", "sgn", "negative") else None,
        _none,
        "fig",
    )
for _n in ("acosh", "arccosh"):
    CASES[_n + "_"] = ((3,), (1.5, 3.0), _none, "fig")
for _n in (
    "atan2 arctan2 copysign fmod remainder hypot nextafter xlogy heaviside "
    "floor_divide multiply subtract divide true_divide"
).split():
    CASES[_n + "_"] = ((3,), None, _other, "fig" if _n not in ("heaviside",) else "fi")
for _n in (
    "bitwise_and bitwise_or bitwise_xor gcd lcm bitwise_left_shift bitwise_right_shift"
).split():
    CASES[_n + "_"] = ((3,), None, lambda lib, d, rg: ((_t(lib, [1, 2, 3], "int64"),), {}), "i")
CASES["bitwise_not_"] = ((3,), None, _none, "i")
CASES["__ilshift__"] = CASES["bitwise_left_shift_"]
CASES["__irshift__"] = CASES["bitwise_right_shift_"]
CASES["__iand__"] = CASES["bitwise_and_"]
CASES["__ior__"] = CASES["bitwise_or_"]
CASES["__ixor__"] = CASES["bitwise_xor_"]
CASES["__ipow__"] = ((3,), None, _scalar(2), "fig")
CASES["__ipow__:tensor"] = ((3,), None, _other, "fig")
CASES["__ifloordiv__"] = ((3,), None, _scalar(0.3), "fig")
CASES["__imod__"] = ((3,), None, _other, "fig")
CASES["xlogy_:scalar"] = ((3,), None, _scalar(2.0), "fig")
CASES["copysign_:scalar"] = ((3,), None, _scalar(-1.0), "fig")
CASES["fmod_:scalar"] = ((3,), None, _scalar(0.3), "fig")
CASES["remainder_:scalar"] = ((3,), None, _scalar(0.3), "fig")
CASES["clamp_max_"] = ((3,), None, _scalar(0.5), "fig")
CASES["clamp_min_"] = ((3,), None, _other, "fig")
CASES["float_power_"] = ((3,), None, _scalar(2.5), "fig")
CASES["float_power_:tensor"] = ((3,), None, _other, "fig")
CASES["cumprod_"] = ((3, 4), None, _scalar(1), "fig")
CASES["renorm_"] = ((3, 4), None, lambda lib, d, rg: ((2, 0, 0.5), {}), "fg")
CASES["polygamma_"] = ((3,), None, _scalar(1), "fg")
CASES["mvlgamma_"] = ((3,), (1.5, 3.0), _scalar(2), "fg")
CASES["logit_:eps"] = ((3,), None, _scalar(0.3), "fg")
CASES["round_:decimals"] = ((3,), None, lambda lib, d, rg: ((), {"decimals": 1}), "fg")
CASES["addmm_"] = (
    (3, 4),
    None,
    lambda lib, d, rg: (
        (_t(lib, MAT[:, :2], d, rg), _t(lib, MAT[:2, :], d, rg)),
        {"beta": 0.5, "alpha": 2},
    ),
    "fig",
)
CASES["addmv_"] = (
    (3,),
    None,
    lambda lib, d, rg: ((_t(lib, MAT, d, rg), _t(lib, MAT[0], d, rg)), {}),
    "fg",
)
CASES["addr_"] = (
    (3, 4),
    None,
    lambda lib, d, rg: ((_t(lib, MAT[:, 0], d, rg), _t(lib, MAT[0], d, rg)), {}),
    "fg",
)
CASES["addbmm_"] = (
    (3, 4),
    None,
    lambda lib, d, rg: (
        (_t(lib, np.stack([MAT[:, :2]] * 2), d, rg), _t(lib, np.stack([MAT[:2]] * 2), d, rg)),
        {},
    ),
    "fg",
)
CASES["baddbmm_"] = (
    (2, 3, 4),
    None,
    lambda lib, d, rg: (
        (_t(lib, np.stack([MAT[:, :2]] * 2), d, rg), _t(lib, np.stack([MAT[:2]] * 2), d, rg)),
        {},
    ),
    "fg",
)
for _n in ("eq ne lt le gt ge greater greater_equal less less_equal not_equal").split():
    CASES[_n + "_"] = ((3,), None, _other, "fig")
    CASES[_n + "_:scalar"] = ((3,), None, _scalar(0.5), "fig")
for _n in ("logical_and logical_or logical_xor").split():
    CASES[_n + "_"] = ((3,), (-1, 1), _other, "fig")
CASES["logical_not_"] = ((3,), (-1, 1), _none, "fig")


def _method(case):
    return case.split(":")[0]


def _self(lib, case, dtype, rg=False):
    shape, domain, _, _ = CASES[case]
    if dtype == "int64":
        a = np.resize(I3, shape)
    else:
        lo, hi = domain or (0.1, 0.9)
        a = np.random.default_rng(len(case)).uniform(lo, hi, shape)
    return _t(lib, a, dtype, rg)


def _run(lib, fn):
    try:
        return "ok", fn(lib)
    except Exception as e:
        return type(e).__name__, str(e)


def _values(t):
    if getattr(t, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(t.shape))
    return np.asarray(t.detach().tolist())  # (torch's zero gradients refuse .numpy())


def _same(a, b):
    (ka, va), (kb, vb) = a, b
    assert ka == kb, (va, vb)
    if ka != "ok":
        assert va == vb
        return
    assert len(va) == len(vb)
    for x, y in zip(va, vb):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7, equal_nan=True)
        else:
            assert x == y


def _cases(kind):
    return [c for c, spec in CASES.items() if kind in spec[3]]


@pytest.mark.parametrize(
    "case,dtype",
    [(c, d) for c in CASES for d in ("float32", "int64") if d[0] in CASES[c][3]],
)
def test_values_dtype_version(case, dtype):
    """No autograd: the values written into self, its dtype, version, and that self returns;
    for integers, the value or torch's error (can't be cast, not implemented). (Only the
    dtypes torch's kernel takes are listed.)"""

    def fn(lib):
        x = _self(lib, case, dtype)
        args, kwargs = CASES[case][2](lib, dtype, False)
        out = getattr(x, _method(case))(*args, **kwargs)
        return out is x, _values(x), str(x.dtype).split(".")[-1], x._version

    _same(_run(framework, fn), _run(torch, fn))


def _grad_program(case, view):
    def fn(lib):
        leaf = _self(lib, case, "float64", rg=True)
        args, kwargs = CASES[case][2](lib, "float64", True)
        base = leaf * 1.5
        x = base[1:] if view else base
        getattr(x, _method(case))(*args, **kwargs)
        upstream = _t(lib, np.random.default_rng(3).standard_normal(tuple(base.shape)))
        inputs = [leaf] + [a for a in args if isinstance(a, lib.Tensor) and a.requires_grad]
        grads = lib.autograd.grad(base, inputs, upstream, allow_unused=True)
        return (
            type(x.grad_fn).__name__,
            type(base.grad_fn).__name__,
            x._version,
            str(x.dtype),
            *(_values(x) for x in [base] + [g if g is not None else leaf * 0 for g in grads]),
        )

    return fn


@pytest.mark.parametrize(
    "case,view",
    [(c, v) for c in _cases("g") for v in (False, True) if not v or CASES[c][0] == (3,)],
    ids=lambda p: {False: "nonleaf", True: "view"}.get(p, p) if isinstance(p, bool) else p,
)
def test_autograd(case, view):
    """Through a non-leaf and a view of one: node names (CopySlices on the base), the version,
    and the gradients of the leaf and of tensor arguments for a random upstream gradient.
    (A row view only where the arguments' shapes allow it.)"""
    fn = _grad_program(case, view)
    _same(_run(framework, fn), _run(torch, fn))


@pytest.mark.parametrize("case", _cases("g"))
def test_leaf_error(case):
    def fn(lib):
        leaf = _self(lib, case, "float64", rg=True)
        args, kwargs = CASES[case][2](lib, "float64", False)
        getattr(leaf, _method(case))(*args, **kwargs)
        return (type(leaf.grad_fn).__name__,)

    _same(_run(framework, fn), _run(torch, fn))


def test_saved_original_is_a_copy():
    """sin_ saves self before the write (a clone, as torch): the gradient is cos(x), and an
    op that saved the overwritten tensor refuses backward with torch's version error."""
    for lib in LIBS:
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        y = x * 1
        y.sin_()
        y.sum().backward()
        assert np.allclose(x.grad.numpy(), np.cos([0.5, 1.0]))
    res = []
    for lib in LIBS:
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x * 1
        z = y.sin()  # saves y
        y.cos_()
        res.append(_run(lib, lambda lib: z.sum().backward()))
    assert res[0][0] == res[1][0] == "RuntimeError"
    assert res[0][1].split("; ")[0] == res[1][1].split("; ")[0]


VIEW_CASES = {
    "t_": ((3, 4), ()),
    "t_:1d": ((4,), ()),
    "transpose_": ((2, 3, 4), (0, 2)),
    "swapaxes_": ((2, 3, 4), (-1, 1)),
    "swapdims_": ((2, 3, 4), (0, 1)),
    "squeeze_": ((2, 1, 3, 1), ()),
    "squeeze_:dim": ((2, 1, 3, 1), (1,)),
    "squeeze_:dims": ((2, 1, 3, 1), ((1, 3),)),
    "unsqueeze_": ((2, 3), (-1,)),
    "as_strided_": ((3, 4), ((2, 2), (1, 2), 1)),
}


def _view_name(case):
    return case.split(":")[0]


@pytest.mark.parametrize("on", ["nonleaf", "view", "plain", "leaf"])
@pytest.mark.parametrize("case", list(VIEW_CASES))
def test_view_changing(case, on):
    """t_, transpose_, squeeze_, unsqueeze_, as_strided_ restride self: sizes, strides,
    version, node (TBackward1, SqueezeBackward3/4/5, ...), gradients; then an in-place write
    through the restrided tensor (regenerated view node, CopySlices)."""
    shape, args = VIEW_CASES[case]
    name = _view_name(case)

    def fn(lib):
        data = np.random.default_rng(5).standard_normal(shape)
        leaf = _t(lib, data, rg=on != "plain")
        x = leaf if on in ("leaf", "plain") else leaf * 2
        if on == "view":
            x = x[:]
        out = getattr(x, name)(*args)
        res = [out is x, tuple(x.shape), x.stride(), x.storage_offset(), x._version, _values(x)]
        if on == "plain":
            return res
        res.append(type(x.grad_fn).__name__)
        x.mul_(3)
        res.append(type(x.grad_fn).__name__)
        up = _t(lib, np.random.default_rng(6).standard_normal(tuple(x.shape)))
        (g,) = lib.autograd.grad(x, leaf, up)
        return res + [_values(g)]

    _same(_run(framework, fn), _run(torch, fn))


@pytest.mark.parametrize("name", IM.FUNCTIONS)
def test_functions(name):
    """framework.<op>_(input, ...) exists where torch's does, and its docstring's example
    (input.<op>_(...) returns input) runs."""
    import doctest

    assert hasattr(torch, name)
    doc = getattr(framework, name).__doc__
    test = doctest.DocTestParser().get_doctest(doc, {"framework": framework}, name, None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert runner.summarize(verbose=False).attempted == 2


def test_docstrings():
    for case in list(CASES) + list(VIEW_CASES):
        name = _view_name(case) if case in VIEW_CASES else _method(case)
        assert getattr(framework.Tensor, name).__doc__, name


BINARY = (
    "atan2_ copysign_ fmod_ remainder_ hypot_ xlogy_ lt_ eq_ logical_and_ float_power_ "
    "clamp_min_ heaviside_ nextafter_ multiply_ true_divide_ __ipow__ __imod__ __ifloordiv__ "
    "gcd_ bitwise_and_ bitwise_left_shift_ __ior__"
).split()
X23 = RNG.uniform(0.1, 0.9, (2, 3))


@pytest.mark.parametrize(
    "setup",
    [
        "mixed_dtypes",
        "wrong_shape",
        "wrong_shape_grad",
        "int_scalar",
        "int_float_tensor",
        "int_self_grad_other",
        "bool",
    ],
)
@pytest.mark.parametrize("name", BINARY)
def test_binary_promotion_and_errors(name, setup):
    """float32 self with a float64 other (both requiring grad: node, dtypes of the
    gradients), a broadcast that would grow self, a float scalar into an integer tensor,
    bool tensors, and Python scalars where torch wants a tensor."""

    def fn(lib):
        method = lambda x, o: getattr(x, name)(o)
        if setup == "mixed_dtypes":
            x = lib.tensor(X23, dtype=lib.float32, requires_grad=True)
            o = lib.tensor(O3, dtype=lib.float64, requires_grad=True)
            y = x * 1
            method(y, o)
            grads = lib.autograd.grad(y, [x, o], lib.ones(2, 3), allow_unused=True)
            res = [type(y.grad_fn).__name__, str(y.dtype)]
            for g in grads:
                res += [None, None] if g is None else [str(g.dtype), _values(g)]
            return res
        if setup.startswith("wrong_shape"):
            x = lib.tensor(O3, requires_grad=setup.endswith("grad")) * 1
            method(x, lib.tensor(X23))
            return (_values(x),)
        if setup == "int_scalar":
            x = lib.tensor([1, 2, 3])
            method(x, 2.5)
            return (_values(x),)
        if setup == "int_self_grad_other":  # torch records the comparison's node on it
            x = lib.tensor([1, 2, 3])
            method(x, lib.tensor(O3, requires_grad=True))
            return _values(x), str(x.dtype), type(x.grad_fn).__name__, x.requires_grad
        if setup == "int_float_tensor":
            x = lib.tensor([1, 2, 3])
            method(x, lib.tensor(O3))
            return (_values(x),)
        x = lib.tensor([True, False, True])
        method(x, lib.tensor([True, True, False]))
        return _values(x), str(x.dtype)

    _same(_run(framework, fn), _run(torch, fn))


ACTIVATIONS = {
    "elu_": lambda L, x: L.nn.functional.elu_(x, 0.7),
    "celu_": lambda L, x: L.nn.functional.celu_(x, 0.7),
    "selu_": lambda L, x: L.nn.functional.selu_(x),
    "leaky_relu_": lambda L, x: L.nn.functional.leaky_relu_(x, 0.2),
    "hardtanh_": lambda L, x: L.nn.functional.hardtanh_(x, -0.3, 0.4),
    "relu_": lambda L, x: L.nn.functional.relu_(x),
    "threshold_": lambda L, x: L.nn.functional.threshold_(x, 0.1, 2.0),
    "rrelu_": lambda L, x: L.nn.functional.rrelu_(x),
    "rrelu_training": lambda L, x: L.nn.functional.rrelu_(x, training=True),
    "torch.celu_": lambda L, x: L.celu_(x),
    "torch.selu_": lambda L, x: L.selu_(x),
    "torch.rrelu_": lambda L, x: L.rrelu_(x),
    "torch.threshold_": lambda L, x: L.threshold_(x, 0.1, 2.0),
    "torch.dropout_": lambda L, x: L.dropout_(x, 0.4, True),
    "torch.alpha_dropout_": lambda L, x: L.alpha_dropout_(x, 0.4, True),
    "torch.feature_alpha_dropout_": lambda L, x: L.feature_alpha_dropout_(x, 0.4, True),
    "inplace_kwarg_elu": lambda L, x: L.nn.functional.elu(x, inplace=True),
    "inplace_kwarg_leaky": lambda L, x: L.nn.functional.leaky_relu(x, inplace=True),
}


@pytest.mark.parametrize("on", ["nonleaf", "view"])
@pytest.mark.parametrize("case", list(ACTIVATIONS))
def test_inplace_activations(case, on):
    """F.elu_ ... and torch.celu_ ...: self returned, values (random ones from the same seed),
    torch's in-place nodes (EluBackward1, LeakyReluBackward1, ThresholdBackward1, ...), the
    base's CopySlices through a view, gradients for a random upstream gradient."""

    def fn(lib):
        lib.manual_seed(3)
        leaf = _t(lib, np.random.default_rng(9).uniform(-1, 1, (3, 4)), rg=True)
        base = leaf * 1.5
        x = base[1:] if on == "view" else base
        out = ACTIVATIONS[case](lib, x)
        up = _t(lib, np.random.default_rng(10).standard_normal((3, 4)))
        (g,) = lib.autograd.grad(base, leaf, up)
        return [
            out is x,
            _values(base),
            type(x.grad_fn).__name__,
            type(base.grad_fn).__name__,
            _values(g),
        ]

    _same(_run(framework, fn), _run(torch, fn))


def test_idiv():
    for lib in LIBS:
        x = lib.tensor([2.0, 4.0])
        assert x.__idiv__(2) is x and x.tolist() == [1.0, 2.0]


VMAPPED = {
    "sin_": lambda L, t: t.clone().sin_(),
    "atan2_": lambda L, t: t.clone().atan2_(L.tensor([1.0, 2.0, 3.0])),
    "lt_": lambda L, t: t.clone().lt_(0.25),
    "clamp_min_": lambda L, t: t.clone().clamp_min_(0.3),
    "unsqueeze_": lambda L, t: t.clone().unsqueeze_(0),
    "unsqueeze_last": lambda L, t: t.clone().unsqueeze_(-1),
    "t_": lambda L, t: t.clone().unsqueeze_(0).t_(),
    "squeeze_": lambda L, t: (t * 1).unsqueeze_(1).squeeze_(),
    "transpose_": lambda L, t: t.clone().unsqueeze_(0).transpose_(0, 1),
}


@pytest.mark.parametrize("case", list(VMAPPED))
def test_under_vmap_and_grad(case):
    """vmap over a batch of rows (values and shape), and func.grad through the method."""

    def fn(lib):
        x = _t(lib, np.arange(6.0).reshape(2, 3) / 10)
        out = lib.func.vmap(lambda t: VMAPPED[case](lib, t))(x)
        g = lib.func.grad(lambda t: VMAPPED[case](lib, t).sin().sum())(x[0])
        return [tuple(out.shape), _values(out), _values(g)]

    _same(_run(framework, fn), _run(torch, fn))


@pytest.mark.parametrize("name", ["floor_divide_", "atan2_", "bitwise_and_", "remainder_"])
def test_leaf_refused_before_shape_and_dtype(name):
    """A leaf requiring grad is refused before the output-shape and cast checks (fuzz seed
    64009631: floor_divide_ of a leaf with a larger other)."""

    def fn(lib):
        x = lib.ones(1, 2, requires_grad=True)
        getattr(x, name)(lib.ones(3, 2, dtype=lib.float64))
        return [_values(x)]

    _same(_run(framework, fn), _run(torch, fn))


FORWARD_AD = {
    "sin_": lambda L: (),
    "atan2_": lambda L: (L.tensor([[1.0, 2.0, 3.0]], dtype=L.float64),),
    "lt_": lambda L: (0.4,),
    "lt_:tensor": lambda L: (L.tensor([[0.3, 0.3, 0.3]], dtype=L.float64),),
    "logical_not_": lambda L: (),
    "clamp_min_": lambda L: (0.4,),
    "polygamma_": lambda L: (1,),
    "asinh_": lambda L: (),
    "acosh_": lambda L: (),
    "conj_physical_": lambda L: (),
    "put_": lambda L: (L.tensor([0]), L.tensor([5.0], dtype=L.float64)),
    "unsqueeze_": lambda L: (0,),
    "t_": lambda L: (),
    "squeeze_": lambda L: (),
    "transpose_": lambda L: (0, 1),
    "as_strided_": lambda L: ((2,), (1,)),
}


@pytest.mark.parametrize("rg", [False, True], ids=["dual", "dual_requires_grad"])
@pytest.mark.parametrize("case", list(FORWARD_AD))
def test_forward_ad(case, rg):
    """Forward mode through the in-place method: the tangent's values, shape and strides (the
    view-changing ones restride it), a zero tangent after a comparison, torch's refusal for
    asinh_/acosh_, and a later op's tangent."""

    def fn(lib):
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            primal = lib.tensor([[0.2, 0.5, 0.9]], dtype=lib.float64, requires_grad=rg)
            x = fwad.make_dual(primal, lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64))
            y = x * 1
            getattr(y, _method(case))(*FORWARD_AD[case](lib))
            t = fwad.unpack_dual(y).tangent
            after = fwad.unpack_dual((y * 2).sum()).tangent
            return [_values(t), t.stride(), _values(after)]

    _same(_run(framework, fn), _run(torch, fn))
