"""The second-order survey where torch raises in its forward (fourteenth pass).

The stage draws the upstream gradients in torch's output shapes and gives ours the same; where
torch raised in its forward it drew none, and ours, given none, refused to create one
implicitly ("grad can be implicitly created only for scalar outputs"): a wording difference
of the harness's making, unclassified (seed 480022814: embedding_bag with a zero-width float32
weight, whose FBGEMM report the first-order stage classifies known). Ours now draws its own,
as the first-order stage does, and the difference is the first-order forward's, classified by
the first-order rules.
"""

import warnings

import numpy as np

from fuzz import runner as R
from fuzz import second_order as S


def test_seed_480022814_is_known_at_second_order():
    p = R.Program(480022814)
    assert p.op.name == "embedding_bag" and p.args[1].a.shape[1] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = S.compare_second_order(p)
    assert found and all(m.kind == S.GG_KNOWN for m in found), found
    assert all(m.what.startswith("create_graph forward") for m in found), found


def _torch_raises_in_forward(L, x):
    if L.__name__ == "torch":
        raise RuntimeError("torch's forward refuses")
    return x * 2


def test_an_unclassified_forward_difference_stays_silent():
    args = [R.T(np.ones((2, 3), np.float32), True)]
    found = S.second_order_call(_torch_raises_in_forward, args)
    assert [(k, w) for k, w, _ in found] == [(R.SILENT, "create_graph forward: no error")]
    p = R.Program.__new__(R.Program)
    p.seed, p.args, p.kwargs, p.up_seed = None, args, {}, 0
    p.op, p.inplace, p.then = R.OpInfo("call", _torch_raises_in_forward, None), False, None
    assert S._classify(p, *found[0]) == S.GG_SILENT
