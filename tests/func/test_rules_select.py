"""The batching rules of framework/func/_rules_select.py (masked_select/masked_scatter, take,
copy_, embedding, index_put, the as_strided gathers/scatters, max_unpool, affine_grid,
pdist's backward) and this pass's jacfwd/jacrev fixes, against torch.func: the same values,
and no per-sample fallback on our side (torch itself loops for masked_scatter, take,
affine_grid's backward and _pdist_backward)."""

import warnings

import numpy as np
import pytest
import torch

import framework
from framework.func import _batched

R = np.random.RandomState(0)
A = R.randn(3, 4, 5)
W = R.randn(6, 3)
M = R.rand(4, 5) > 0.5
MB = R.rand(3, 4, 5) > 0.5
IDX = np.array([[0, 7], [19, 3]])
B4 = R.randn(2, 3, 4, 5)


def _t(L, a, **kw):
    return L.tensor(np.array(a), **kw)


def _F(L):
    return L.nn.functional


CASES = {
    "masked_select": lambda L: L.func.vmap(lambda x: L.masked_select(x, _t(L, M)))(_t(L, A)),
    "masked_select_bcast": lambda L: L.func.vmap(lambda x: x.masked_select(_t(L, M[0])))(_t(L, A)),
    "masked_scatter_mask": lambda L: L.func.vmap(
        lambda x, s: x.masked_scatter(_t(L, M), s), in_dims=(None, 0)
    )(_t(L, A[0]), _t(L, A)),
    "masked_scatter_batched_mask": lambda L: L.func.vmap(lambda x, m, s: x.masked_scatter(m, s))(
        _t(L, A), _t(L, MB), _t(L, A[:, ::-1].copy())
    ),
    "masked_scatter_jacrev": lambda L: L.func.jacrev(
        lambda s: _t(L, A[0]).masked_scatter(_t(L, M), s)
    )(_t(L, A[1].reshape(-1))),
    "take": lambda L: L.func.vmap(lambda x: x.take(_t(L, IDX)))(_t(L, A)),
    "take_batched_index": lambda L: L.func.vmap(lambda x, i: x.take(i))(
        _t(L, A), _t(L, np.array([[1, 2], [0, 19], [5, 5]]))
    ),
    "take_jacfwd": lambda L: L.func.jacfwd(lambda x: x.take(_t(L, IDX)))(_t(L, A[0])),
    "copy_": lambda L: L.func.vmap(lambda d, s: d.clone().copy_(s))(_t(L, A), _t(L, A[:, 0])),
    "copy_jacfwd": lambda L: L.func.jacfwd(lambda s: L.zeros(4, 5, dtype=L.float64).copy_(s))(
        _t(L, A[0, 0])
    ),
    "embedding": lambda L: L.func.vmap(lambda w: _F(L).embedding(_t(L, IDX % 6), w))(
        _t(L, np.stack([W, 2 * W, -W]))
    ),
    "embedding_grad_padding": lambda L: L.func.vmap(
        L.func.grad(
            lambda w: (
                _F(L).embedding(_t(L, IDX % 6), w, padding_idx=1, scale_grad_by_freq=True) ** 2
            ).sum()
        )
    )(_t(L, np.stack([W, 2 * W]))),
    "embedding_jacfwd": lambda L: L.func.jacfwd(
        lambda w: _F(L).embedding(_t(L, np.array([0, 2, 2])), w, padding_idx=0)
    )(_t(L, W[:4, :2])),
    "index_put": lambda L: L.func.vmap(lambda x, v: x.index_put((_t(L, np.array([0, 2])),), v))(
        _t(L, A), _t(L, A[:, :2])
    ),
    "index_put_accumulate": lambda L: L.func.vmap(
        lambda x, v: x.index_put((_t(L, np.array([1, 1])),), v, accumulate=True)
    )(_t(L, A), _t(L, A[:, 0])),
    "setitem_split": lambda L: L.func.vmap(_setitem_split(L))(_t(L, B4), _t(L, B4[:, 0, 0, :2])),
    "setitem_jacrev": lambda L: L.func.jacrev(_setitem_split(L), argnums=(0, 1))(
        _t(L, B4[0]), _t(L, B4[1, 0, 0, :2])
    ),
    "diagonal_jacrev": lambda L: L.func.jacrev(lambda x: x.diagonal(1))(_t(L, A[0])),
    "as_strided_jacrev": lambda L: L.func.jacrev(lambda x: x.as_strided((2, 3), (1, 2), 1))(
        _t(L, A[0])
    ),
    "max_unpool2d_jacfwd": lambda L: L.func.jacfwd(
        lambda x: _F(L).max_unpool2d(x, _t(L, np.array([[[[0, 3], [9, 14]]]])), 2)
    )(_t(L, A[0, :2, :2].reshape(1, 1, 2, 2))),
    "affine_grid": lambda L: L.func.jacrev(
        lambda th: _F(L).affine_grid(th, (1, 1, 2, 3), align_corners=False)
    )(_t(L, A[0, :2, :3].reshape(1, 2, 3))),
    "affine_grid_jacfwd": lambda L: L.func.jacfwd(
        lambda th: _F(L).affine_grid(th, (1, 1, 2, 3), align_corners=True)
    )(_t(L, A[0, :2, :3].reshape(1, 2, 3))),
    "pdist_jacrev": lambda L: L.func.jacrev(lambda x: _F(L).pdist(x, p=1.5))(_t(L, A[0])),
    "vdot_jacfwd": lambda L: L.func.jacfwd(
        lambda x, y: L.linalg.vecdot(x, y, dim=0), argnums=(0, 1)
    )(_t(L, [0.5]), _t(L, [2.0])),
}


def _setitem_split(L):
    def f(x, v):
        x = x.clone()
        x[_t(L, np.array([0, 2])), :, _t(L, np.array([1, 3]))] = v[:, None]
        return x

    return f


def _flat(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_matches_torch_func_without_a_loop(name):
    seen = set(_batched._warned)
    _batched._warned.clear()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = CASES[name](torch)
        got = CASES[name](framework)
        slow = {c.__name__ for c in _batched._warned if c.__module__.startswith("framework.")}
    finally:
        _batched._warned.clear()
        _batched._warned.update(seen)
    assert not slow, slow
    for g, w in zip(_flat(got), _flat(want), strict=True):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.detach().numpy(), w.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("in_dims", [(0, 0), (None, 0)])
def test_masked_select_batched_mask_is_torchs_error(in_dims):
    """torch's vmap refuses a batched mask (each sample would have its own size)."""
    errs = []
    for L in (torch, framework):
        x = _t(L, A if in_dims[0] == 0 else A[0])
        with pytest.raises(RuntimeError) as e:
            L.func.vmap(L.masked_select, in_dims=in_dims)(x, _t(L, MB))
        errs.append(str(e.value))
    assert errs[0] == errs[1]


@pytest.mark.parametrize(
    "shape,dim,index",
    [
        ((3, 1, 0, 1), 2, [-1]),  # an empty result: no check, as torch's batched kernel
        ((0, 1, 0, 1), 2, [-1]),
        ((0, 0, 1, 1), 0, [0, 1]),
        ((2, 0, 2), 1, [5]),
        ((2, 3), 0, [-1, 0]),  # a result with elements: torch's gather-style errors
        ((2, 0), 0, [5]),
        ((3, 2, 4), 0, [5]),
    ],
)
def test_index_select_under_vmap_checks_as_torch(shape, dim, index):
    res = []
    for L in (torch, framework):
        x = L.zeros(shape, dtype=L.float64)
        try:
            out = L.func.vmap(lambda g: g.index_select(dim, L.tensor(index)))(x)
            res.append(tuple(out.shape))
        except RuntimeError as e:
            res.append(str(e))
    assert res[0] == res[1]


def _imul(x, y):
    x = x.clone()
    x *= y
    return x


@pytest.mark.parametrize("how", ["jacfwd", "jacrev"])
def test_inplace_and_no_grad_ops_under_jacfwd(how):
    """An in-place op's tangent under vmap (the jvp ran on sample 0 through the no-graph
    backward fast path) and ops under no_grad inside jacfwd."""

    def nograd(L):
        def f(a, b):
            with L.no_grad():
                return a * b + a.sin()

        return f

    for make in (lambda L: _imul, nograd):
        outs = []
        for L in (torch, framework):
            a, b = _t(L, A[0, :3, :2]), _t(L, A[1, :1, :2])
            jac = getattr(L.func, how)
            try:
                outs.append([j.numpy() for j in jac(make(L), argnums=(0, 1))(a, b)])
            except RuntimeError as e:
                outs.append(str(e))
        if isinstance(outs[0], str):
            assert outs[0] == outs[1]
            continue
        for g, w in zip(outs[1], outs[0], strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_loss_tangent_with_every_target_ignored(fn, reduction):
    """torch's tangent of a 'mean' nll_loss/cross_entropy with every target ignored is
    0/0 = nan, as the loss (a linear map of the tangent)."""
    res = []
    for L in (torch, framework):
        x, t = _t(L, A[0, :3]), _t(L, np.array([1, 1, 1]))

        def f(x):
            return getattr(_F(L), fn)(x, t, ignore_index=1, reduction=reduction)

        prim, tan = L.func.jvp(f, (x,), (L.ones_like(x),))
        res.append([prim.numpy(), tan.numpy(), L.func.jacfwd(f)(x).numpy()])
    for g, w in zip(res[1], res[0]):
        np.testing.assert_array_equal(g, w)


def test_nll_loss_jvp_matches_finite_differences():
    x = framework.tensor(A[0, :3], requires_grad=True)
    t = framework.tensor([1, 0, 3])
    w = framework.tensor(R.rand(5))
    for red in ("mean", "sum", "none"):

        def f(x):
            return framework.nn.functional.nll_loss(x, t, w, reduction=red, ignore_index=0)

        assert framework.autograd.gradcheck(f, (x,), check_forward_ad=True, check_backward_ad=False)


def test_cdist_inf_jacrev_where_torch_func_is_wrong():
    """torch.func.jacrev of cdist(p=inf) puts every row's gradient on row 0 (its batched
    _cdist_backward); ours equals torch's per-row Jacobian and finite differences."""
    x1, x2 = A[0, :, :2], A[1, :1, :2]
    f_t = lambda a, b: torch.cdist(a, b, p=float("inf"))
    f_o = lambda a, b: framework.cdist(a, b, p=float("inf"))
    loop = torch.autograd.functional.jacobian(f_t, (torch.tensor(x1), torch.tensor(x2)))
    wrong = torch.func.jacrev(f_t, argnums=(0, 1))(torch.tensor(x1), torch.tensor(x2))
    ours = framework.func.jacrev(f_o, argnums=(0, 1))(framework.tensor(x1), framework.tensor(x2))
    assert not np.allclose(wrong[0].numpy(), loop[0].numpy())
    for g, w in zip(ours, loop):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)
    ins = (framework.tensor(x1, requires_grad=True), framework.tensor(x2, requires_grad=True))
    assert framework.autograd.gradcheck(f_o, ins)


X4 = R.randn(1, 2, 4, 4)
W4 = R.randn(4, 4)
FOR_ZERO = {  # forward-over-reverse: the tangent of the gradient is torch's zero tensor
    "max_pool2d": lambda L, x: _F(L).max_pool2d(x, 2),
    "max_pool1d": lambda L, x: _F(L).max_pool1d(x[0], 2),
    "max_pool3d": lambda L, x: _F(L).max_pool3d(x, 2),
    "adaptive_max_pool2d": lambda L, x: _F(L).adaptive_max_pool2d(x, 3),
    "adaptive_max_pool3d": lambda L, x: _F(L).adaptive_max_pool3d(x, 2),
}
REV_ZERO = {  # reverse-over-forward: the gradient of the tangent is torch's zero tensor
    "leaky_relu": lambda L, x: _F(L).leaky_relu(x, 0.1),
    "hardtanh": lambda L, x: _F(L).hardtanh(x),
    "relu6": lambda L, x: _F(L).relu6(x * 4),
    "hardshrink": lambda L, x: _F(L).hardshrink(x),
    "softshrink": lambda L, x: _F(L).softshrink(x),
    "rrelu_eval": lambda L, x: _F(L).rrelu(x),
}


def _second_order(L, f, mode):
    fa = L.autograd.forward_ad
    x = L.tensor(X4, requires_grad=True)
    t = L.tensor(np.ones_like(X4))
    with fa.dual_level():
        d = fa.make_dual(x, t)
        y = f(L, d)
        if mode == "fwd":  # the tangent of d(sum y)/dx
            (g,) = L.autograd.grad(y.sum(), d, create_graph=True)
            out = fa.unpack_dual(g).tangent
        else:  # the gradient of <J t, 1>
            out = fa.unpack_dual(y).tangent
    if mode == "rev":
        (out,) = L.autograd.grad(out.sum(), x)
    return out


@pytest.mark.parametrize(
    "mode,name", [("fwd", n) for n in sorted(FOR_ZERO)] + [("rev", n) for n in sorted(REV_ZERO)]
)
def test_second_order_zero_is_a_tensor_as_torchs(mode, name):
    f = (FOR_ZERO if mode == "fwd" else REV_ZERO)[name]
    want = _second_order(torch, f, mode)
    got = _second_order(framework, f, mode)
    assert want is not None and got is not None
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())


def test_hessian_of_max_pool_net_matches_torch():
    """jacfwd(jacrev(f)) and torch.func.hessian through max_pool (zero second derivative)."""
    outs = []
    for L in (torch, framework):
        w = L.tensor(W4)

        def f(x):
            return (_F(L).max_pool2d((x @ w).reshape(1, 1, 4, 4), 2) ** 2).sum()

        x = L.tensor(X4[0, 0])
        outs.append([L.func.hessian(f)(x).numpy(), L.func.jacrev(L.func.jacfwd(f))(x).numpy()])
    for g, w in zip(outs[1], outs[0]):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def _strict_second_order(L, f, shape, mode, seed=0):
    """`_second_order` on any input shape, the result or None (as numpy)."""
    r = np.random.RandomState(seed)
    fa = L.autograd.forward_ad
    x = L.tensor(r.randn(*shape) + 2.0, requires_grad=True)
    with fa.dual_level():
        d = fa.make_dual(x, L.tensor(r.randn(*shape)))
        y = f(L, d)
        if mode == "fwd":
            (g,) = L.autograd.grad(y.sum(), d, create_graph=True)
            out = fa.unpack_dual(g).tangent
        else:
            out = fa.unpack_dual(y).tangent
            if not out.requires_grad:
                return "no graph"
    if mode == "rev":
        (out,) = L.autograd.grad(out.sum(), x, allow_unused=True)
    return None if out is None else out.detach().numpy(force=True)


STRICT = {  # (mode, function, input shape): torch's tensor, none or zeros, exactly
    "mul_nan": ("rev", lambda L, x: x * float("nan"), (3, 4)),
    "mul_zero": ("rev", lambda L, x: x * 0.0, (3, 4)),
    "rmul": ("rev", lambda L, x: 0.5 * x, (3, 4)),
    "div_nan": ("rev", lambda L, x: x / float("nan"), (3, 4)),
    "div_zero": ("rev", lambda L, x: x / 0.0, (3, 4)),
    "imul_nan": ("rev", lambda L, x: x.clone().mul_(float("nan")), (3, 4)),
    "mul_plain_tensor": ("rev", lambda L, x: x * L.tensor(3.0, dtype=L.float64), (3,)),
    "cumprod_empty": ("rev", lambda L, x: x.cumprod(1), (1, 0, 2)),
    "nanmean": ("rev", lambda L, x: L.nanmean(x), (3, 4)),
    "nanmean_empty": ("rev", lambda L, x: L.nanmean(x, 1), (4, 0, 4)),
    "quantile_midpoint": (
        "rev",
        lambda L, x: L.quantile(x, 0.5, 1, interpolation="midpoint"),
        (3, 4),
    ),
    "lerp_scalar": ("rev", lambda L, x: x.lerp(x.detach() * 2, 0.3), (3,)),
    "lerp_tensor": ("rev", lambda L, x: x.lerp(x.detach() * 2, L.tensor(0.3).double()), (3,)),
    "cummax_empty": ("fwd", lambda L, x: x.cummax(0)[0], (0, 2)),
    "cummin_empty": ("fwd", lambda L, x: x.cummin(1)[0], (4, 0, 4)),
    "cummin": ("fwd", lambda L, x: x.cummin(0)[0], (3, 2)),
    "scatter_reduce_prod_empty": (
        "fwd",
        lambda L, x: x.scatter_reduce(
            0, L.zeros(1, 0, 1, 2, dtype=L.int64), x, "prod", include_self=False
        ),
        (1, 0, 1, 2),
    ),
    "sdpa_empty": ("fwd", lambda L, x: _F(L).scaled_dot_product_attention(x, x, x), (0, 1, 4, 1)),
    "sdpa_empty_rev": ("rev", lambda L, x: _F(L).scaled_dot_product_attention(x, x, x), (0, 4, 2)),
    "det_1x1": ("fwd", lambda L, x: L.linalg.det(x), (4, 1, 1)),
    "det_empty": ("fwd", lambda L, x: L.linalg.det(x), (0, 2, 2)),
    "det_0x0": ("fwd", lambda L, x: L.linalg.det(x), (3, 0, 0)),
    "det_2x2": ("fwd", lambda L, x: L.linalg.det(x), (3, 2, 2)),
    # one factor with a zero: torch's prod backward returns the gradient itself
    "prod_size1_zero": ("fwd", lambda L, x: (x - x.detach()[0, 0]).prod(0, keepdim=True), (1, 5)),
    "prod_all_one_zero": ("fwd", lambda L, x: (x - x.detach()).prod(), (1, 1)),
    "prod_size1_zero_rev": ("rev", lambda L, x: (x - x.detach()[0, 0]).prod(0), (1, 5)),
    "prod_zeros": ("fwd", lambda L, x: (x - x.detach()[0, 0]).prod(0), (3, 5)),
    # empty inputs: torch's tangents without history, gradients without tangent
    "var_empty": ("rev", lambda L, x: x.var(), (1, 0, 1, 2)),
    "var_dim_empty": ("rev", lambda L, x: x.var(1), (1, 0, 2)),
    "amax_empty": ("rev", lambda L, x: x.amax(-3), (4, 0, 4)),
    "amin_empty": ("rev", lambda L, x: x.amin(0), (3, 0)),
    "slogdet_empty": ("rev", lambda L, x: L.linalg.slogdet(x)[1], (0, 2, 2)),
    "slogdet_0x0": ("rev", lambda L, x: L.linalg.slogdet(x)[1], (3, 0, 0)),
    "logdet_empty": ("rev", lambda L, x: L.logdet(x), (0, 3, 3)),
    "layer_norm_empty": ("fwd", lambda L, x: _F(L).layer_norm(x, (4,)), (4, 0, 4)),
    "layer_norm_empty_rows": ("fwd", lambda L, x: _F(L).layer_norm(x, (1,)), (0, 1, 1, 1)),
    "logcumsumexp_empty": ("fwd", lambda L, x: L.logcumsumexp(x, 0), (1, 0, 1, 2)),
    "householder_empty": (
        "rev",
        lambda L, x: L.linalg.householder_product(x, x[:, 0, :1]),
        (0, 5, 3),
    ),
    "householder_no_tau": (
        "rev",
        lambda L, x: L.linalg.householder_product(x, x[:, 0, :0]),
        (5, 4, 3),
    ),
    # a constant tangent (norm of order 0): no history; ldexp's reads the primal
    "vector_norm_ord0": ("rev", lambda L, x: L.linalg.vector_norm(x, 0), (3, 3)),
    "norm_p0_dim": ("rev", lambda L, x: L.norm(x, 0, dim=(0,)), (1,)),
    "ldexp": ("rev", lambda L, x: L.ldexp(x, L.tensor([1, 2, 3, 0])), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(STRICT))
def test_second_order_none_or_tensor_as_torchs(name):
    """The gradient of a tangent (rev) or the tangent of a gradient (fwd) is a tensor exactly
    where torch's is, with its values (mul/div by a scalar, nanmean and cumprod link their
    tangent to the primal as torch's formulas do; det of 1x1 / empty matrices has a gradient
    that does not read the matrix; cummax/cummin of empty inputs return the input as torch)."""
    mode, f, shape = STRICT[name]
    want = _strict_second_order(torch, f, shape, mode)
    got = _strict_second_order(framework, f, shape, mode)
    if want is None or isinstance(want, str):
        assert got is None or isinstance(got, str), (name, got)
        assert type(got) is type(want)
        return
    assert got is not None and not isinstance(got, str), name
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, equal_nan=True)


def test_det_gradient_of_1x1_zero_matrix_as_torchs():
    """det of a 1x1 matrix: the gradient is the upstream gradient (torch does not invert A,
    so a zero 1x1 matrix has gradient 1, not an error)."""
    outs = []
    for L in (torch, framework):
        x = L.tensor([[[0.0]], [[2.0]]], dtype=L.float64, requires_grad=True)
        (g,) = L.autograd.grad(L.linalg.det(x).sum(), x, create_graph=True)
        outs.append((g.detach().numpy(), g.requires_grad))
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    assert outs[1][1] == outs[0][1]


@pytest.mark.parametrize(
    "shapes",
    [
        ((0, 1, 4, 1), (0, 1, 5, 1), (0, 1, 5, 3)),
        ((1, 1, 0, 2), (1, 1, 5, 2), (1, 1, 5, 3)),
        ((1, 1, 4, 2), (1, 1, 0, 2), (1, 1, 0, 3)),
        ((2, 4, 2), (2, 5, 2), (2, 5, 0)),
    ],
)
def test_sdpa_of_empty_inputs_as_torchs(shapes):
    """scaled_dot_product_attention with an empty query, key or value: torch returns zeros
    tied to the inputs by 0 * (sum q + sum k + sum v), so the result is zeros (also with no
    keys), the node is AddBackward0 and the gradients are constants (no second order)."""
    res = []
    for L in (torch, framework):
        r = np.random.RandomState(1)
        q, k, v = [L.tensor(r.randn(*s), requires_grad=True) for s in shapes]
        y = _F(L).scaled_dot_product_attention(q, k, v)
        c = L.tensor(r.randn(*y.shape))
        gs = L.autograd.grad(y, (q, k, v), c, create_graph=True)
        res.append((y.detach().numpy(), type(y.grad_fn).__name__, [g.requires_grad for g in gs]))
        res[-1][2].extend(g.detach().numpy().tolist() for g in gs)
    assert res[1][1] == res[0][1]
    np.testing.assert_array_equal(res[1][0], res[0][0])
    assert res[1][2] == res[0][2]
