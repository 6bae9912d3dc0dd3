"""Second-order graphs of the products, linalg, scans and reductions against torch: the
gradients taken with create_graph=True have torch's requires_grad, node names (`name()` and
the class's `__name__`) and values, and a second backward with a random upstream gradient gives
torch's second-order gradients (the fuzzer's second-order stage, tests/fuzz/second_order.py,
on chosen inputs); the changed backward formulas pass gradcheck and gradgradcheck in float64."""

import numpy as np
import pytest
import torch

import framework
from framework.autograd import gradcheck, gradgradcheck
from fuzz.second_order import second_order_call
from ops.opgen import T

R = np.random.default_rng(7)


def t(*shape, dtype="float64", rg=True, scale=1.0):
    return T((R.standard_normal(shape) * scale).astype(dtype), rg)


def well(n, batch=(), dtype="float64"):
    """A well-conditioned (n, n) matrix (diagonally dominant)."""
    a = R.standard_normal(batch + (n, n)) + 3 * n * np.eye(n)
    return T(a.astype(dtype), True)


CASES = {
    # maybe_multiply: a Scalar alpha/beta scales by mul.Scalar (MulBackward1)
    "addmm": (
        lambda L, a, b, c: L.addmm(a, b, c, beta=0.5, alpha=2.0),
        [t(2, 3), t(2, 4), t(4, 3)],
    ),
    "addmv": (lambda L, a, b, c: L.addmv(a, b, c, beta=0.5, alpha=2.0), [t(2), t(2, 3), t(3)]),
    "addr": (lambda L, a, b, c: L.addr(a, b, c, beta=2.0, alpha=0.5), [t(2, 3), t(2), t(3)]),
    "baddbmm": (
        lambda L, a, b, c: L.baddbmm(a, b, c, beta=0.5, alpha=2.0),
        [t(2, 2, 3), t(2, 2, 4), t(2, 4, 3)],
    ),
    "addbmm": (
        lambda L, a, b, c: L.addbmm(a, b, c, beta=0.5, alpha=2.0),
        [t(2, 3), t(2, 2, 4), t(2, 4, 3)],
    ),
    # mm's gradient of a column-major (or 1 x 1) matrix is transposed (TBackward0)
    "chain_matmul": (
        lambda L, a, b, c: L.chain_matmul(a, b, c),
        [t(3, 1, dtype="float32"), t(1, 1, dtype="float32"), t(1, 4, dtype="float32")],
    ),
    "mm_transposed": (lambda L, a, b: L.mm(a.t(), b.t()), [t(3, 2), t(4, 3)]),
    # matmul folds a batch of one: squeeze's gradient is unsqueezed (UnsqueezeBackward0)
    "matmul_fold": (lambda L, a, b: L.matmul(a, b), [t(2, 2, 2), t(1, 2, 2)]),
    "squeeze_dims": (lambda L, a: (a * a).squeeze((0, 2)), [t(1, 3, 1)]),
    # a 0-dim input's broadcast gradient is sum() (SumBackward0)
    "hypot_0dim": (lambda L, a, b: L.hypot(a, b), [t(), t(2, 3)]),
    "lerp_0dim": (lambda L, a, b, w: L.lerp(a, b, w), [t(), t(3), t()]),
    # -(A^-T (grad A^-T)) (NegBackward0); solve by a matrix solve, det by solve(A^T, ...)
    "inverse": (lambda L, a: L.inverse(a), [well(3)]),
    "linalg_inv_ex": (lambda L, a: L.linalg.inv_ex(a).inverse, [well(3, (2,))]),
    "solve_matrix": (lambda L, a, b: L.linalg.solve(a, b), [well(3), t(3, 2)]),
    "solve_vector": (lambda L, a, b: L.linalg.solve(a, b), [well(3), t(3)]),
    "det": (lambda L, a: L.det(a), [well(3, (2,))]),
    "slogdet": (lambda L, a: L.linalg.slogdet(a).logabsdet, [well(3)]),
    "slogdet_empty": (lambda L, a: L.linalg.slogdet(a).logabsdet, [t(2, 0, 0)]),
    "logdet": (lambda L, a: L.logdet(a), [well(3)]),
    "matrix_power_neg": (lambda L, a: L.linalg.matrix_power(a, -2), [well(3)]),
    # renorm: where(norm > maxnorm, (maxnorm invnorm (grad - invnorm nb)).to(dtype), grad)
    "renorm_f64": (lambda L, a: L.renorm(a, 2, 1, 1.0), [t(4, 3, 2)]),
    "renorm_f32": (lambda L, a: L.renorm(a, 2, 0, 1.0), [t(4, 3, 2, dtype="float32")]),
    "renorm_p1": (lambda L, a: L.renorm(a, 1, 1, 0.5), [t(3, 4)]),
    # prod: grad * (result / input) (MulBackward0)
    "prod_dim": (lambda L, a: L.prod(a, 0), [t(5, 3)]),
    "prod_all": (lambda L, a: L.prod(a), [t(2, 3)]),
    # lstsq: torch's pinv_backward, both shapes
    "lstsq_tall": (lambda L, a, b: L.linalg.lstsq(a, b).solution, [t(4, 2), t(4, 2)]),
    "lstsq_wide": (lambda L, a, b: L.linalg.lstsq(a, b).solution, [t(2, 4), t(2, 3)]),
    # qr: torch's linalg_qr_backward (a triangular solve; the wide case's cat)
    "qr_tall": (lambda L, a: tuple(L.linalg.qr(a)), [t(4, 3)]),
    "qr_square_batch": (lambda L, a: tuple(L.linalg.qr(a)), [t(2, 3, 3)]),
    "qr_wide": (lambda L, a: tuple(L.linalg.qr(a)), [t(2, 4)]),
    "qr_complete_wide": (lambda L, a: tuple(L.linalg.qr(a, mode="complete")), [t(2, 3)]),
    "qr_r_only": (lambda L, a: L.linalg.qr(a).R, [t(4, 2)]),
    "qr_legacy": (lambda L, a: L.qr(a).Q, [t(3, 3, dtype="float32")]),
    # bilinear: torch's _trilinear node, its gradients _trilinear products (TrilinearBackward0)
    "bilinear_bias": (
        lambda L, a, b, w, c: L.nn.functional.bilinear(a, b, w, c),
        [t(2, 3), t(2, 4), t(5, 3, 4), t(5)],
    ),
    "bilinear_batch_f32": (
        lambda L, a, b, w: L.nn.functional.bilinear(a, b, w),
        [t(2, 2, 3, dtype="float32"), t(2, 2, 4, dtype="float32"), t(5, 3, 4, dtype="float32")],
    ),
    # householder_product: tau's gradient copied entry by entry into zeros (CopySlices)
    "householder_product": (
        lambda L, a, tau: L.linalg.householder_product(a, tau),
        [t(4, 3, scale=0.5), t(2, scale=0.5)],
    ),
    "lstsq_residuals": (
        lambda L, a, b: tuple(L.linalg.lstsq(a, b, driver="gelsd")[:2]),
        [t(4, 2), t(4, 2)],
    ),
    "lstsq_residuals_vector": (
        lambda L, a, b: tuple(L.linalg.lstsq(a, b, driver="gelsd")[:2]),
        [t(4, 2, rg=False), t(4)],
    ),
    # reflect/replicate pad: torch's pad backward kernel as a node (requires grad with x)
    "pad_replicate_2d": (
        lambda L, a: L.nn.functional.pad(a, (1, 0, 1, 1), mode="replicate"),
        [t(1, 2, 3, 3)],
    ),
    "pad_reflect_1d": (lambda L, a: L.nn.functional.pad(a, (2, 1), mode="reflect"), [t(2, 4)]),
    "pad_reflect_3d": (
        lambda L, a: L.nn.functional.pad(a, (1, 1, 1, 0, 0, 1), mode="reflect"),
        [t(1, 2, 3, 3)],
    ),
    "pad_replicate_then_square": (
        lambda L, a: L.nn.functional.pad(a, (1, 2), mode="replicate") ** 2,
        [t(2, 3)],
    ),
    # tensordot/inner sum a contracted dim of size 1 on the other side first (ExpandBackward0)
    "tensordot_size1": (lambda L, a, b: L.tensordot(a, b, 2), [t(3, 1, 3), t(1, 3, 4)]),
    "tensordot_broadcast": (lambda L, a, b: L.tensordot(a, b, 2), [t(3, 2, 3), t(1, 3, 4)]),
    "inner_size1": (lambda L, a, b: L.inner(a, b), [t(3, 4, 1), t(1, 3, 1)]),
    # scatter_reduce prod without self: torch's grad_self.scatter(dim, index, 0)
    "scatter_reduce_prod": (
        lambda L, a, b: a.scatter_reduce(0, L.tensor([0, 0, 2]), b, "prod", include_self=False),
        [t(5), t(3)],
    ),
    # cummax/cummin of an empty input: the gradient is the input itself
    "cummax_empty": (lambda L, a: L.cummax(a, 0).values, [t(0, 2)]),
    "cummin_empty": (lambda L, a: L.cummin(a, 1).values, [t(3, 0)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_graph_as_torch(name):
    """create_graph gradients (requires_grad, node names, values) and second-order gradients
    (random upstream) agree with torch's; the case differentiates twice in torch."""
    fn, args = CASES[name]
    assert second_order_call(fn, args, up_seed=11) == []
    xs = [torch.tensor(a.a, requires_grad=a.rg) for a in args]
    outs = fn(torch, *xs)
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    ups = [torch.randn_like(o) for o in outs]
    grads = torch.autograd.grad(outs, [x for x in xs if x.requires_grad], ups, create_graph=True)
    assert any(g.requires_grad for g in grads)  # the second backward ran


def _f64(*arrays):
    return [framework.tensor(a, requires_grad=True) for a in arrays]


GRADGRAD = {
    "inverse": (lambda a: framework.inverse(a), lambda: [well(3).a]),
    "solve": (lambda a, b: framework.linalg.solve(a, b), lambda: [well(3).a, t(3).a]),
    "det": (lambda a: framework.det(a), lambda: [well(3).a]),
    "slogdet": (lambda a: framework.linalg.slogdet(a).logabsdet, lambda: [well(3, (2,)).a]),
    "renorm": (lambda a: framework.renorm(a, 2, 1, 1.0), lambda: [t(3, 4).a]),
    "prod": (lambda a: framework.prod(a, 1), lambda: [t(3, 4).a]),
    "lstsq_tall": (
        lambda a, b: framework.linalg.lstsq(a, b).solution,
        lambda: [t(4, 2).a, t(4, 2).a],
    ),
    "lstsq_wide": (
        lambda a, b: framework.linalg.lstsq(a, b).solution,
        lambda: [t(2, 4).a, t(2, 1).a],
    ),
    "squeeze": (lambda a: (a * a).squeeze(0), lambda: [t(1, 3).a]),
    "pad_replicate": (
        lambda a: framework.nn.functional.pad(a, (1, 2), mode="replicate") ** 2,
        lambda: [t(2, 3).a],
    ),
    "pad_reflect": (
        lambda a: framework.nn.functional.pad(a, (1, 1, 2, 0), mode="reflect") ** 2,
        lambda: [t(1, 3, 3).a],
    ),
    "tensordot_broadcast": (
        lambda a, b: framework.tensordot(a, b, 2),
        lambda: [t(3, 2, 3).a, t(1, 3, 4).a],
    ),
    "lstsq_residuals": (
        lambda a, b: tuple(framework.linalg.lstsq(a, b, driver="gelsd")[:2]),
        lambda: [t(4, 2).a, t(4, 2).a],
    ),
    "householder_product": (
        lambda a, tau: framework.linalg.householder_product(a, tau),
        lambda: [t(3, 2, scale=0.5).a, t(2, scale=0.5).a],
    ),
    "bilinear": (
        lambda a, b, w: framework.nn.functional.bilinear(a, b, w),
        lambda: [t(2, 3).a, t(2, 2).a, t(2, 3, 2).a],
    ),
    "qr_tall": (lambda a: tuple(o.sum() for o in framework.linalg.qr(a)), lambda: [t(4, 3).a]),
    "qr_wide": (
        lambda a: framework.linalg.qr(a).Q.sum() + framework.linalg.qr(a).R.sum(),
        lambda: [t(2, 4).a],
    ),
    "addmm": (
        lambda a, b, c: framework.addmm(a, b, c, beta=0.5, alpha=2.0),
        lambda: [t(2, 3).a, t(2, 4).a, t(4, 3).a],
    ),
}


@pytest.mark.parametrize("name", sorted(GRADGRAD))
def test_gradcheck_gradgradcheck(name):
    """The backward formulas written as torch's (create_graph paths) in float64."""
    fn, make = GRADGRAD[name]
    xs = _f64(*make())
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)


def test_bilinear_inf_gradient_as_torch_order():
    """bilinear's input gradient with an inf in input2: torch's _trilinear sums over the
    weight's rows last (unrolled over dim 1), so inf - inf gives NaN where torch's does (the
    fuzz program of seed 1235)."""
    from fuzz.runner import SILENT, compare_call

    x2 = np.array([[np.inf, -2.55]], dtype="float32")
    w = R.standard_normal((3, 2, 2)).astype("float32")
    args = [t(1, 2, dtype="float32"), T(x2, True), T(w, True), t(3, dtype="float32")]
    found = compare_call(lambda L, a, b, c, d: L.nn.functional.bilinear(a, b, c, d), args)
    assert not [m for m in found if m.kind == SILENT]
