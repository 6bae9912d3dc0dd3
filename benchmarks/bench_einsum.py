"""einsum contraction order: a chain where the order matters, planned and left to right.

    python benchmarks/bench_einsum.py [--n 600] [--repeat 5] [--threads 1]

Workloads (float64, forward and backward):
  * 'ij,jk,k->i' (matrix, matrix, vector): left to right is a matrix product (n^3), the planned
    order two matrix-vector products (n^2);
  * 'ab,cd,bc->ad' (three matrices): left to right is an outer product of the first two
    (n^4 elements in memory), the planned order two matrix products.
framework with framework.backends.opt_einsum enabled (its default) and disabled, beside torch
(which contracts left to right unless the opt_einsum package is installed, as here, and takes
the same path through its `path` argument). Times are medians of process time (CPU seconds).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_func import _median


def _case(L, eq, shapes, rng, plan=None):
    ts = [L.tensor(rng.standard_normal(s)).requires_grad_() for s in shapes]

    def run():
        if plan is None:
            out = L.einsum(eq, *ts)
        else:  # torch with an explicit path (what torch.einsum does with opt_einsum)
            out = L._VF.einsum(eq, ts, path=plan)
        out.sum().backward()

    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import numpy as np
    import torch

    import framework
    import framework.backends.opt_einsum as opt_einsum

    torch.set_num_threads(args.threads)
    n, m = args.n, max(args.n // 12, 2)
    cases = [
        ("ij,jk,k->i", [(n, n), (n, n), (n,)], [1, 2, 0, 1]),
        ("ab,cd,bc->ad", [(m, m), (m, m), (m, m)], [0, 2, 0, 1]),
    ]
    print(
        "| equation | sizes | framework planned | framework left to right | torch left "
        "to right | torch, same path |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for eq, shapes, path in cases:
        rng = np.random.default_rng(0)
        planned = _median(_case(framework, eq, shapes, rng), args.repeat)
        with opt_einsum.flags(enabled=False):
            ltr = _median(_case(framework, eq, shapes, rng), args.repeat)
        th = _median(_case(torch, eq, shapes, rng), args.repeat)
        th_path = _median(_case(torch, eq, shapes, rng, plan=path), args.repeat)
        sizes = " ".join("x".join(map(str, s)) for s in shapes)
        print(
            f"| {eq} | {sizes} | {planned * 1e3:.2f} ms | {ltr * 1e3:.2f} ms | "
            f"{th * 1e3:.2f} ms | {th_path * 1e3:.2f} ms |"
        )


if __name__ == "__main__":
    main()
