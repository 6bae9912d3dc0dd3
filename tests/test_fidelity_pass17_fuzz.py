"""Seventeenth pass, fuzz17: the finds of a fresh fuzz run at 575,000,000 and the fuzzer's known
rules measured off (tests/fuzz/runner.py's last section)."""

import itertools

import numpy as np
import pytest
import torch

import framework
from framework.ops import _mkl
from fuzz import runner as R
from fuzz.second_order import GG_KNOWN, compare_second_order

needs_mkl = pytest.mark.skipif(
    _mkl.library() is None,
    reason="MKL's runtime (the mkl wheel, or FRAMEWORK_MKL) is not loadable: ours takes "
    "NumPy's routes and the rules apply (runner.without_mkl)",
)

_DTYPES = ["bool", "int64", "float32", "float64"]
_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 3), (4,)), ((2, 1), (1, 3))]


def _inplace_outcome(L, name, a, b, sa, sb):
    x = L.tensor(np.ones(sa).astype(a))
    y = L.tensor(np.full(sb, 2.0).astype(b))
    try:
        getattr(x, name)(y)
    except Exception as e:
        return type(e).__name__, str(e).split("\n")[0]
    return str(x.dtype), tuple(x.shape), x.numpy().tolist()


@pytest.mark.parametrize("name", ["igamma_", "igammac_"])
def test_inplace_incomplete_gamma_checks_shapes_before_the_cast(name):
    """igamma_/igammac_ as torch's TensorIterator: the broadcast error and the in-place output
    shape error come before the cast check (int64 self of shape [2, 1, 4] with a float32
    other of [3, 2, 1, 1, 4]: torch names the shapes, ours named the cast; seed 575019899),
    then the cast check, then the kernel's dtype refusal; values and dtypes where it runs."""
    for (a, b), (sa, sb) in itertools.product(itertools.product(_DTYPES, _DTYPES), _SHAPES):
        ours = _inplace_outcome(framework, name, a, b, sa, sb)
        theirs = _inplace_outcome(torch, name, a, b, sa, sb)
        assert ours == theirs, (a, b, sa, sb)


# Seeds each of whose programs one of the rules made off with MKL took (a documented seed of
# the rule, the same program since; or a fresh one, 580,000,000 up, where the rule's predicate
# holds): with every rule of the op removed they agree with torch, first and second order
RULES_OFF_WITH_MKL = {
    15020949: "corrcoef then acosh: the diagonal's sqrt is MKL's (torch's) VML",
    15099684: "corrcoef of two observations: clip's boundary, the same sqrt",
    340008459: "float32 corrcoef of one variable, second order: the same sqrt",
    580000755: "corrcoef (the rule's grad and gg predicates hold)",
    22031830: "float32 linalg.cond(p=-1) at cond 345 then cos: MKL's inverse",
    580188806: "linalg_cond_norms then a chained op (float32, cond above 30)",
    580009191: "special_ndtr then a chained op at |x| > 3.5: MKL's erf",
    26101991: "float32 zeta then tan: ours replays torch's float series (rule deleted)",
    580001239: "special_zeta (the deleted rule's predicate holds)",
}


@needs_mkl
@pytest.mark.parametrize("seed", sorted(RULES_OFF_WITH_MKL))
def test_rules_off_with_mkl_find_nothing(seed, monkeypatch):
    """The known rules the seventeenth pass measured off with MKL (runner.without_mkl) or
    deleted: each seed finds nothing with every rule of its op removed (a second-order
    difference only where the stage's own float32 measurement classifies it known)."""
    assert not R.NUMPY_LAPACK
    p = R.Program(seed)
    for key in [k for k in R.KNOWN_DIFFERENCES if k[0] == p.op.name]:
        monkeypatch.delitem(R.KNOWN_DIFFERENCES, key)
    assert R.compare_program(p) == [], RULES_OFF_WITH_MKL[seed]
    if p.op.gradgrad and p.then is None:
        found = [m for m in compare_second_order(p) if m.kind != GG_KNOWN]
        assert found == [], RULES_OFF_WITH_MKL[seed]


def _empty_geometries(L):
    x = L.zeros(2, 3)
    e = L.empty_strided((1, 3, 0), (1, 1, 2))
    return [
        e,
        L.empty_strided((0, 4), (5, 2)),
        L.empty_strided((2, 0, 3), (1, 7, 2)),
        e.transpose(0, 2),
        e.contiguous(),
        e[:, 1:],
        x[:, 0:0],
        x[0:0],
        x[:, 0:0].t(),
        x.t()[:, 0:0],
        x.as_strided((2, 0), (1, 2)),
        x[:, 0:0] + 1,
        L.empty(3, 0),
    ]


def test_empty_tensors_keep_the_strides_they_were_given():
    """An empty tensor with strides set (empty_strided, as_strided, a slice of a tensor, and
    views of those) reports them, as torch's; one an op allocates has torch's contiguous
    strides (empty_strided((1, 3, 0), (1, 1, 2)).stride() was (3, 1, 1); the fuzzer's rule
    for it removed: seeds 580003130, 575005826, 575001146). (Not yet: a view of an empty
    tensor an op allocated, zeros(0, 3).t(): NumPy's zero strides, ours (1, 1), torch's
    (1, 3).)"""
    for f, t in zip(_empty_geometries(framework), _empty_geometries(torch)):
        assert (tuple(f.shape), f.stride(), f.is_contiguous()) == (
            tuple(t.shape),
            t.stride(),
            t.is_contiguous(),
        )


def _flips(L):
    x = L.tensor(np.arange(48.0, dtype=np.float32).reshape(4, 3, 1, 4))
    x[0, 2, 0, 2] = float("nan")
    x.requires_grad_(True)
    t = L.tensor(np.arange(12.0).reshape(3, 4)).t()
    outs = [L.fliplr(x), L.flipud(x), L.flip(x, [1, 3]), L.flip(t, [0]), L.flip(x, [])]
    y = L.nn.functional.celu(outs[0])
    y.backward(L.ones_like(y))
    geometry = [(tuple(o.shape), o.stride(), o.is_contiguous()) for o in outs]
    return geometry, [o.detach().numpy() for o in outs], x.grad.numpy()


def test_flip_returns_a_new_tensor_in_the_input_layout():
    """flip/fliplr/flipud give a new tensor laid out as the input (torch's empty_like with
    the preserved format), not NumPy's negative-stride view: its strides are torch's, and an
    elementwise backward after it reads it as torch's contiguous tensor (fliplr then celu:
    the gradient at a NaN is NaN, torch's vector body; seed 575160543)."""
    (fg, fv, fgrad), (tg, tv, tgrad) = _flips(framework), _flips(torch)
    assert fg == tg
    for f, t in zip(fv, tv):
        np.testing.assert_array_equal(f, t)
    np.testing.assert_array_equal(fgrad, tgrad)
