"""Survey: where do our zeros carry another sign than torch's? The fuzzer compares values
with -0 == +0; this runs its programs (tests/fuzz/runner.py's Program: the op, its
in-place variant, a chained op, backward with the program's random upstream gradient) in
both libraries and counts, per program name and output/gradient, the elements that are zero
in both with different sign bits.

    python tests/scripts/zero_sign_survey.py [START [COUNT]]   (default 36,000,000 and 2,000)

Prints the counts of programs per (name, what), most first, with one example seed each.
"""

import os
import sys
import warnings
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import framework
import torch
from fuzz.runner import Program, _numpy, _outputs


def _signs_differ(f, t):
    """Elements zero in both arrays whose sign bits differ (0 for other shapes/dtypes)."""
    f, t = np.asarray(f), np.asarray(t)
    if f.shape != t.shape or t.dtype.kind != "f" and str(t.dtype) != "bfloat16":
        return 0
    f, t = f.astype(np.float64), t.astype(np.float64)
    both = (f == 0) & (t == 0)
    return int((both & (np.signbit(f) != np.signbit(t))).sum())


def _run(p, L):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return p.run(L)
    except Exception:
        return None


def survey(seed):
    """[(what, count)] for one program: its outputs, then its leaves' gradients."""
    p = Program(seed)
    fr, tr = _run(p, framework), _run(p, torch)
    if fr is None or tr is None:
        return p, []
    (f_out, f_leaves), (t_out, t_leaves) = fr, tr
    f_outs, t_outs = _outputs(f_out), _outputs(t_out)
    if len(f_outs) != len(t_outs):
        return p, []
    found = []
    for i, (f, t) in enumerate(zip(f_outs, t_outs)):
        if isinstance(t, torch.Tensor) and isinstance(f, framework.Tensor):
            n = _signs_differ(_numpy(f), _numpy(t))
            if n:
                found.append((f"out{i}", n))
    pairs = [
        (f, t)
        for f, t in zip(f_outs, t_outs)
        if isinstance(t, torch.Tensor) and t.requires_grad and isinstance(f, framework.Tensor)
    ]
    if not pairs:
        return p, found
    r = np.random.default_rng(p.up_seed)
    ups = [r.standard_normal(tuple(t.shape)).astype(str(t.dtype)[6:]) for _, t in pairs]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            framework.autograd.backward([f for f, _ in pairs], [framework.tensor(u) for u in ups])
            torch.autograd.backward([t for _, t in pairs], [torch.tensor(u) for u in ups])
    except Exception:
        return p, found
    for i, (f, t) in enumerate(zip(f_leaves, t_leaves)):
        if f.grad is not None and t.grad is not None:
            n = _signs_differ(_numpy(f.grad), _numpy(t.grad))
            if n:
                found.append((f"grad{i}", n))
    return p, found


def main(start=36_000_000, count=2_000):
    programs, elements, example = Counter(), Counter(), {}
    total = 0
    for seed in range(start, start + count):
        p, found = survey(seed)
        if found:
            total += 1
        for what, n in found:
            key = (p.name, what)
            programs[key] += 1
            elements[key] += n
            example.setdefault(key, seed)
    print(f"{count} programs from {start}: {total} with a zero of another sign")
    for (name, what), n in programs.most_common():
        key = (name, what)
        print(f"{n:5d} {name:40s} {what:6s} elements {elements[key]:6d} seed {example[key]}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
