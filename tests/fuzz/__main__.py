"""Run the differential fuzzer long and print a classified mismatch summary.

python -m tests.fuzz --programs 100000 --seed 0
python -m tests.fuzz --seed 1234 --programs 1 --show     # replay one program
"""

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzz.runner import EXCEPTION, KNOWN, NODE, SILENT, WORDING, Program, fuzz
from fuzz.second_order import CLASSES as SECOND_ORDER


def summary(found, programs, seconds, top=40):
    """The counts per class, then the most common (class, op, what) groups with one seed."""
    lines = [f"{programs} programs in {seconds:.0f} s; programs with a mismatch, by class:"]
    by_kind = collections.defaultdict(set)
    for m in found:
        by_kind[m.kind].add(m.seed)
    for kind in (SILENT, EXCEPTION, WORDING, NODE, KNOWN):
        lines.append(f"  {kind:10s} {len(by_kind[kind])}")
    lines.append("second-order stage (tests/fuzz/second_order.py), programs by class:")
    for kind in SECOND_ORDER:
        lines.append(f"  {kind:12s} {len(by_kind[kind])}")
    groups = collections.Counter((m.kind, m.op, m.what) for m in found)
    example = {}
    for m in found:
        example.setdefault((m.kind, m.op, m.what), m)
    lines.append("most common groups (count, class, op, what, example detail, seed):")
    order = {k: i for i, k in enumerate((SILENT, EXCEPTION, WORDING, NODE, KNOWN) + SECOND_ORDER)}
    for key, n in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], -kv[1]))[:top]:
        m = example[key]
        lines.append(
            f"  {n:6d} {m.kind:12s} {m.op:28s} {m.what:28s} {m.detail[:110]} seed={m.seed}"
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=int(os.environ.get("FUZZ_PROGRAMS", "10000")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "0")))
    ap.add_argument("--show", action="store_true", help="print each program and mismatch")
    ap.add_argument("--top", type=int, default=60)
    ap.add_argument(
        "--node-tree",
        action="store_true",
        help="also compare the create_graph gradients' whole node trees (CHECK_GRAD_NODE_TREE)",
    )
    args = ap.parse_args(argv)
    if args.node_tree:
        from fuzz import runner

        runner.CHECK_GRAD_NODE_TREE = True
    start = time.time()
    if args.show:
        for s in range(args.seed, args.seed + args.programs):
            print(Program(s))
    found = fuzz(args.programs, args.seed, on_mismatch=print if args.show else None)
    print(summary(found, args.programs, time.time() - start, args.top), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
