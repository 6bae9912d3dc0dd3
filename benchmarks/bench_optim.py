"""Optimizer step time: framework vs torch (CPU, one thread) on an MLP's parameters.

    python benchmarks/bench_optim.py [--only Adam SGD ...] [--foreach none|true|false]

Four parameter sets: the MLP of benchmarks/workloads.py (784-512-512-10: six tensors,
670k values), a "many small" set (64 tensors of 32x32 plus 64 biases of 32), the digits MLP
of digits_epoch (64-128-10: four tensors) and one tensor of 1M values. Gradients are
fixed random arrays; the time is the fastest of `--reps` runs of `optimizer.step()` alone
(the minimum is the least disturbed by other processes on a shared machine).
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CASES = {
    "SGD": dict(lr=0.01, momentum=0.9),
    "Adam": {},
    "AdamW": {},
    "RMSprop": {},
    "Adagrad": {},
    "Adadelta": {},
    "Adamax": {},
    "NAdam": {},
    "RAdam": {},
    "ASGD": {},
    "Rprop": {},
}
SETS = {
    "mlp": [(512, 784), (512,), (512, 512), (512,), (10, 512), (10,)],
    "many_small": [(32, 32), (32,)] * 64,
    "digits": [(128, 64), (128,), (10, 128), (10,)],  # digits_epoch's MLP: per-call overhead
    "one_1m": [(1_000_000,)],  # one large tensor: the loop's arithmetic
}


def _time_step(lib, name, kwargs, shapes, reps):
    rng = np.random.default_rng(0)
    params = []
    for s in shapes:
        p = lib.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
        p.grad = lib.tensor(rng.standard_normal(s).astype(np.float32))
        params.append(p)
    opt = getattr(lib.optim, name)(params, **kwargs)
    for _ in range(3):
        opt.step()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        opt.step()
        times.append(time.perf_counter() - t0)
    return min(times)  # the least disturbed run: the machine is shared


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument(
        "--foreach",
        choices=["none", "true", "false"],
        default="none",
        help="framework's foreach: none (default: small tensors bucketed), true, "
        "false (one tensor at a time)",
    )
    args = ap.parse_args()
    import torch
    import framework

    torch.set_num_threads(1)
    print(f"{'optimizer':10s} {'set':11s} {'framework ms':>13s} {'torch ms':>9s}")
    for name, kwargs in CASES.items():
        if args.only and name not in args.only:
            continue
        if not hasattr(framework.optim, name):
            continue
        for set_name, shapes in SETS.items():
            flag = {"none": None, "true": True, "false": False}[args.foreach]
            fw_kwargs = kwargs if flag is None else dict(kwargs, foreach=flag)
            fw = _time_step(framework, name, fw_kwargs, shapes, args.reps)
            th = _time_step(torch, name, kwargs, shapes, args.reps)
            print(f"{name:10s} {set_name:11s} {fw * 1e3:13.3f} {th * 1e3:9.3f}")


if __name__ == "__main__":
    main()
