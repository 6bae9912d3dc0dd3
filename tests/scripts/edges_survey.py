"""Survey: where does `grad_fn.next_functions` differ from torch's? The fuzzer compares only
the output's node name; torchviz and `torch.autograd.graph` walk `next_functions`, so this
runs the fuzzer's programs (tests/fuzz/runner.py's Program, in-place programs skipped) in
both libraries and compares, per output, the type names of the nodes its grad_fn's
`next_functions` lead to (None where an edge carries no gradient).

    python tests/scripts/edges_survey.py [START [COUNT]]   (default 13,000,000 and 3,000)

Prints the counts of programs per op (`X(then)` for a chained op), most first, with one
example: (seed, torch's edge node names, ours).
"""

import os
import sys
import warnings
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import framework
import torch
from fuzz.runner import Program, _outputs


def edges(o):
    """The type names of the nodes `o.grad_fn.next_functions` leads to, or None."""
    f = o.grad_fn
    if f is None:
        return None
    return tuple(None if n is None else type(n).__name__ for n, _ in f.next_functions)


def survey(seed):
    """(key, torch's edges, ours) per differing output of one program."""
    p = Program(seed)
    if p.inplace:
        return []
    seen = []
    for L in (torch, framework):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out, _ = p.run(L)
        except Exception:
            return []
        seen.append([edges(o) for o in _outputs(out) if isinstance(o, L.Tensor)])
    key = p.op.name if p.then is None else p.then.name + "(then)"
    return [(key, a, b) for a, b in zip(*seen) if a != b]


def main(start=13_000_000, count=3_000):
    found, ex = Counter(), {}
    for s in range(start, start + count):
        for key, a, b in survey(s):
            found[key] += 1
            ex.setdefault(key, (s, a, b))
    for k, n in found.most_common():
        print(n, k, ex[k])
    print(f"{sum(found.values())} outputs / {len(found)} ops differ")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
