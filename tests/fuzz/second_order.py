"""Survey of second-order graphs (not yet part of the fuzzer's classes): for each program of
the op table without a chained op or in-place variant, take the leaves' gradients with
create_graph=True in both libraries and compare each gradient's requires_grad and its
grad_fn's name. Torch records a named node for a native backward kernel
(GeluBackwardBackward0, NativeLayerNormBackwardBackward0, ...) whose output requires grad even
where the gradient does not depend on the input (a piecewise-linear op: the second
derivative is zeros); ours composes the backward from primitives, so the names differ and
such a gradient does not require grad (a second autograd.grad raises where torch gives
zeros).

    python -m tests.fuzz.second_order [START [COUNT]]     # default 13,000,000 and 1,400
"""

import collections
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import framework
from fuzz import runner as R


def _node(g):
    return g.requires_grad, None if g.grad_fn is None else g.grad_fn.name()


def survey(start, count):
    """Counter of (kind, op) -> programs, and one example (seed, torch's, ours) per key."""
    found, example = collections.Counter(), {}
    for s in range(start, start + count):
        p = R.Program(s)
        if p.then is not None or p.inplace or not p.op.gradgrad:
            continue
        seen = []
        for L in (torch, framework):
            try:
                out, leaves = p.run(L)
                outs = [
                    o
                    for o in R._outputs(out)
                    if isinstance(o, L.Tensor) and o.requires_grad and o.dtype.is_floating_point
                ]
                if not outs or not leaves:
                    break
                ups = [L.ones_like(o) for o in outs]
                grads = L.autograd.grad(outs, leaves, ups, create_graph=True, allow_unused=True)
            except Exception:
                break
            seen.append([None if g is None else _node(g) for g in grads])
        if len(seen) < 2:
            continue
        for theirs, ours in zip(*seen):
            if theirs is None or ours is None or theirs == ours:
                continue
            key = ("requires_grad" if theirs[0] != ours[0] else "name", p.op.name)
            found[key] += 1
            example.setdefault(key, (s, theirs, ours))
    return found, example


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    args = [int(a) for a in sys.argv[1:3]] + [13_000_000, 1_400][len(sys.argv[1:3]) :]
    found, example = survey(*args)
    for key, n in sorted(found.items()):
        print(n, *key, example[key])
    kinds = collections.Counter()
    for (kind, _), n in found.items():
        kinds[kind] += n
    print(dict(kinds), "programs;", len(found), "(kind, op) pairs")
