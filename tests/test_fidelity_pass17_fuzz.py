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
    15050878: "float32 linalg_cond gradient at cond 3662: MKL's sgesdd",
    580017517: "linalg_cond gradient (float32, cond above 30)",
    15073951: "sdpa with 1e30 keys: the products are MKL's gemm",
    580002091: "sdpa gradient (the f32 attention rules' predicates hold)",
    17047982: "multi_head_attention with a 1e30 in_proj_weight entry",
    17081477: "multi_head_attention with a 1e30 in_proj_bias",
    20073336: "multi_head_attention with a 1e30 in-projection weight, then relu6",
    20174924: "float32 multi_head_attention gradients",
    22053648: "float32 multi_head_attention gradients",
    440005864: "float32 multi_head_attention query gradient (was torch's fused kernel's)",
    450079644: "float32 multi_head_attention with key_padding_mask",
    580001156: "multi_head_attention gradient",
    17039240: "float32 eigvalsh gradient at an eigengap of 1e-3: MKL's ssyevd",
    580002518: "eigvalsh gradient (float32, close eigenvalues)",
    580008604: "eigh gradient (float32, close eigenvalues)",
    22031830: "float32 linalg.cond(p=-1) at cond 345 then cos: MKL's inverse",
    580188806: "linalg_cond_norms then a chained op (float32, cond above 30)",
    26029051: "float32 cholesky gradient at cond 25,480: MKL's spotrf",
    580000643: "cholesky gradient (float32, cond above 30)",
    580006263: "svd gradient (float32, cond above 30)",
    580017039: "inv_ex gradient (float32, cond above 30)",
    580010468: "inverse gradient",
    580010937: "slogdet gradient",
    580002982: "solve gradient",
    580015597: "norm of a matrix with inf: MKL's gesdd (its convergence as torch's)",
    580009191: "special_ndtr then a chained op at |x| > 3.5: MKL's erf",
    17063610: "float32 legacy qr gradient at cond 1603: MKL's geqrf",
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
