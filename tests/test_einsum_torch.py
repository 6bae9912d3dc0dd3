"""einsum against torch for every kind of equation: values, dtypes, node names and gradients
(random upstream), with and without CPU autocast, in float32/float64/bfloat16, including
torch's size-1 broadcasting, the sublist form and its errors. Under autocast torch's result is
bfloat16 only where its lowering reaches bmm (a summed label larger than 1 in both operands of
a pair), and float32 where it multiplies; a float32 operand after a bmm promotes back."""

import numpy as np
import pytest
import torch

import framework

EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ij->ij", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
    ("i,i->", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->i", [(3,), (3,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,ij->i", [(2, 3), (2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("ij,j->i", [(2, 3), (3,)]),
    ("ij,i->j", [(2, 3), (2,)]),
    ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("ij,k->", [(2, 3), (4,)]),
    ("ij,jk->", [(2, 3), (3, 4)]),
    ("ij,jk->ijk", [(2, 3), (3, 4)]),
    ("ba,ca->bc", [(2, 3), (4, 3)]),
    ("ijk,jkl->il", [(2, 3, 4), (3, 4, 5)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("...ij,...jk", [(2, 2, 3), (3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 4)]),
    ("i...,i...->...", [(3, 2), (3, 1)]),
    ("i,->i", [(3,), ()]),
    (",->", [(), ()]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("i,i,i->", [(3,), (3,), (3,)]),
    ("ij,jk,l->ikl", [(2, 3), (3, 4), (5,)]),
    ("l,ij,jk->ikl", [(5,), (2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 1), (1, 2)]),
    # size-1 dims broadcast, as torch's einsum allows
    ("ij,jk->ik", [(1, 3), (3, 1)]),
    ("ij,jk->ik", [(2, 1), (1, 3)]),
    ("ij,jk->ik", [(2, 3), (1, 3)]),
    ("ij,jk->ik", [(2, 1), (3, 3)]),
    ("ij,ij->i", [(2, 1), (2, 1)]),
    ("ij,ij->i", [(2, 1), (2, 3)]),
    ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),
    # empty operands
    ("ij,jk->ik", [(0, 3), (3, 4)]),
    ("ij,jk->ik", [(2, 0), (0, 4)]),
]


def _run(L, eq, arrays, dtype, autocast, path=None):
    ts = [L.tensor(a).to(getattr(L, dtype)).requires_grad_() for a in arrays]
    with L.autocast("cpu", dtype=L.bfloat16, enabled=autocast):
        # torch.einsum's own call when opt_einsum gives it a path (3+ operands)
        out = L.einsum(eq, *ts) if path is None else L._VF.einsum(eq, ts, path=path)
    up = np.random.default_rng(7).standard_normal(tuple(out.shape))
    out.backward(L.tensor(up).to(out.dtype))
    node = type(out.grad_fn).__name__
    as64 = lambda t: t.detach().to(L.float64).numpy()
    return str(out.dtype), node, tuple(out.shape), as64(out), [as64(t.grad) for t in ts]


@pytest.mark.parametrize("autocast", [False, True], ids=["plain", "autocast"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize(
    "eq,shapes,order",
    [(eq, s, "left_to_right") for eq, s in EQUATIONS]
    + [(eq, s, "planned") for eq, s in EQUATIONS if len(s) > 2],
    ids=lambda v: str(v),
)
def test_einsum_matches_torch(eq, shapes, dtype, autocast, order, monkeypatch):
    """Both contracting left to right (torch without opt_einsum); for 3+ operands also
    framework's planned order against torch given the same path (what torch.einsum runs with
    opt_einsum installed)."""
    rng = np.random.default_rng(len(eq) + sum(map(len, shapes)))
    arrays = [rng.standard_normal(s) for s in shapes]
    from framework.ops import einsum_path

    paths, plan = [], einsum_path.contraction_path
    monkeypatch.setattr(
        einsum_path, "contraction_path", lambda *a: paths.append(plan(*a)) or paths[-1]
    )
    with framework.backends.opt_einsum.flags(enabled=order == "planned"):
        got = _run(framework, eq, arrays, dtype, autocast)
    path = [i for p in paths[0] for i in p] if paths else None
    assert (path is not None) == (order == "planned")
    want = _run(torch, eq, arrays, dtype, autocast, path)
    assert got[:3] == want[:3]  # dtype, node name, shape
    low = dtype == "bfloat16" or (autocast and want[0] == "torch.bfloat16")
    rtol, atol = (2e-2, 2e-2) if low else ((1e-5, 1e-5) if dtype == "float32" else (1e-12, 1e-12))
    for g, w in zip([got[3]] + got[4], [want[3]] + want[4]):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def test_einsum_autocast_dtype_rule():
    """The rule in words, on the cases it hinges on: bmm -> bfloat16, mul -> float32."""
    x = framework.ones(2, 3)
    with framework.autocast("cpu", dtype=framework.bfloat16):
        assert framework.einsum("ij,kj->ik", x, x).dtype == framework.bfloat16  # bmm
        assert framework.einsum("ij,ij->ij", x, x).dtype == framework.float32  # mul
        assert framework.einsum("i,j->ij", x[0], x[1]).dtype == framework.float32  # outer: mul
        assert framework.einsum("ij->", x).dtype == framework.float32  # one operand: sum


def test_einsum_sublist_form_and_list_of_operands():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    for args in (
        lambda L: (L.tensor(a), [0, 1], L.tensor(b), [1, 2], [0, 2]),
        lambda L: (L.tensor(a), [0, 1], L.tensor(b), [1, 2]),
        lambda L: (L.tensor(a), [Ellipsis, 1], L.tensor(b), [1, 2]),
        lambda L: ("ij,jk->ik", [L.tensor(a), L.tensor(b)]),
    ):
        got, want = framework.einsum(*args(framework)), torch.einsum(*args(torch))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "eq,shapes",
    [
        ("ij,jk->ik", [(2, 3), (4, 5)]),  # label sizes do not broadcast
        ("ij,jk->ik", [(2, 3)]),  # fewer operands than terms
        ("ij->ik", [(2, 3)]),  # output label not in any input
        ("ij->ii", [(2, 3)]),  # output label twice
        ("ij", [(2, 3, 4)]),  # subscripts vs dims
        ("ij...", [(2,)]),  # more subscripts than dims with an ellipsis
        ("ii->i", [(2, 3)]),  # repeated label, sizes differ
        ("i1->i", [(2, 2)]),  # invalid subscript
        ("i.j->i", [(2, 2)]),  # a lone '.'
        ("...i,...i->...", [(2, 3), (4, 3)]),  # ellipsis dims do not broadcast
        ("i,i", [(2,), (2,), (2,)]),  # more operands than terms
    ],
)
def test_einsum_errors_match_torch(eq, shapes):
    msgs = []
    for L in (torch, framework):
        with pytest.raises(RuntimeError) as e:
            L.einsum(eq, *[L.ones(s) for s in shapes])
        msgs.append(str(e.value).split("\n")[0])
    assert msgs[1] == msgs[0]
