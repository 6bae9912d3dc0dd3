"""Named regression tests for the classes of mismatch the differential fuzzer found once the op
table covered the wave-2 ops (continues tests/ops/test_fidelity.py, same helpers)."""
import numpy as np
import pytest

from fuzz.runner import KNOWN, compare_call
from ops import optable
from ops.opgen import T
from ops.optable import OPS
from ops.test_fidelity import rand, same, t

VALUES = {"bool": np.array([True, False, True]), "int64": np.array([3, -2, 0]),
          "float32": np.array([0.5, -1.5, 0.0], "float32"), "float64": np.array([2.5, -0.5, 0.0])}
SCALARS = (True, 2, 0, 1.5)


def _arg(dtype, flip=False):
    a = VALUES[dtype][::-1] if flip else VALUES[dtype]
    return T(a.copy(), dtype.startswith("float"))


def _dtype_cases(op):
    if op.sample is optable.unary:
        return [[_arg(d)] for d in VALUES]
    if op.sample is optable.rbinary:
        return [[s, _arg(d)] for d in VALUES for s in SCALARS]
    return ([[_arg(a), _arg(b, True)] for a in VALUES for b in VALUES]
            + [[_arg(a), s] for a in VALUES for s in SCALARS])


def agree(fn, *args):
    """As `same`, but a documented known difference (README) does not count."""
    found = [m for m in compare_call(fn, args) if m.kind != KNOWN]
    assert not found, "\n".join(map(repr, found))


ELEMENTWISE = [op for op in OPS if op.sample in (optable.unary, optable.binary, optable.rbinary)]


@pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda op: op.name)
def test_elementwise_ops_on_every_dtype_pair(op):
    """Every unary/binary record of the op table, on bool/int64/float32/float64 tensors and
    Python bool/int/float operands (an integer zero divisor included), in place too: torch's
    result dtype, its refusals ("hypot_cpu" not implemented for 'Long', integer fmod by zero,
    shifts of float results), and the errors its backward formulas raise for bool inputs
    (atan2 negates a bool `self`, logaddexp subtracts)."""
    for args in _dtype_cases(op):
        agree(op.fn, *args)
        if op.inplace is not None:
            agree(lambda L, x, *rest: op.inplace(L, x.clone(), *rest), *args)


def test_scalar_operand_node_names_and_promotion():
    """xlogy with a number is XlogyBackward2 (number `other`) / XlogyBackward1 (number
    `self`); fmod(int tensor, 1.5) promotes to float; isclose/allclose take only tensors."""
    import framework
    same(lambda L, x: L.xlogy(x, 2.5), t(rand(3)))
    same(lambda L, x: L.xlogy(2.5, x), t(abs(rand(3))))
    same(lambda L, x: L.fmod(x, 1.5), t([3, -2, 7], "int64"))
    same(lambda L, x: L.fmod(x, 2), t([True, False], "bool"))
    same(lambda L, x: L.isclose(x, 1.0), t(rand(3)))
    same(lambda L, a, b: L.isclose(a, b), t(rand(2, 3)), t(rand(4, 3)))
    assert framework.allclose(framework.ones(2), framework.ones(2))
