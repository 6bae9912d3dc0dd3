"""The second-order survey on addmv with an empty matrix (fourteenth pass).

torch's addmv with an empty matrix returns beta * input in input's own shape (a documented
first-order difference: ours is shaped (n,) as for any other matrix). The second-order
survey differentiates every program, and draws the upstream gradient in torch's output
shape: ours refuses it ("Mismatch in shape"), torch's backward fails on its own shapes
("size mismatch"). Seed 480009961 (input (1,), matrix (2, 0)) is classified gg-known; the
same program with matching shapes still compares.
"""

import warnings

import numpy as np
import pytest
import torch

import framework
from fuzz import runner as R
from fuzz import second_order as S


def test_seed_480009961_is_known_at_second_order():
    p = R.Program(480009961)
    assert p.op.name == "addmv" and p.args[1].a.shape == (2, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = S.compare_second_order(p)
    assert found and all(m.kind == S.GG_KNOWN for m in found), found


def test_both_libraries_refuse_the_upstream_gradient():
    # the difference the rule covers: each library raises in backward (torch on its own shapes)
    errors = []
    for L in (framework, torch):
        m, v = L.zeros(2, 0, requires_grad=True), L.zeros(0, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = L.addmv(L.zeros(1), m, v, beta=0.5)
        with pytest.raises(RuntimeError) as e:
            L.autograd.grad(out, [m, v], L.ones(1), create_graph=True)
        errors.append(str(e.value))
    assert errors[0].startswith("Mismatch in shape: grad_output[0]")
    assert errors[1].startswith("size mismatch")


def test_matching_shapes_still_compare():
    # input of shape (n,) already: the outputs agree, nothing to classify
    args = [
        R.T(np.ones(2, np.float32)),
        R.T(np.zeros((2, 0), np.float32), True),
        R.T(np.zeros(0, np.float32), True),
    ]
    fn = lambda L, *a: L.addmv(*a, beta=0.5)
    assert R.compare_call(fn, args) == []
    assert S.second_order_call(fn, args) == []
