"""Peak memory of a deep MLP's training step, plain vs activation checkpointing.

    python benchmarks/checkpoint_memory.py [--layers 32] [--width 256] [--batch 2048]

Peak is tracemalloc's (NumPy's allocations are traced) over forward + backward, counted from
just before forward (parameters and input excluded).
"""
import argparse
import os
import sys
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework  # noqa: E402
from framework import nn  # noqa: E402
from framework.utils.checkpoint import checkpoint_sequential  # noqa: E402


def step_peak(model, x, mode, segments):
    for p in model.parameters():
        p.grad = None
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    if mode == "plain":
        y = model(x)
    else:
        y = checkpoint_sequential(model, segments, x, use_reentrant=(mode == "reentrant"))
    y.pow(2).mean().backward()
    elapsed = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    grads = [p.grad.numpy().copy() for p in model.parameters()]
    return peak / 2 ** 20, elapsed, grads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--segments", type=int, default=4)
    a = ap.parse_args()
    framework.manual_seed(0)
    layers = []
    for _ in range(a.layers):
        layers += [nn.Linear(a.width, a.width), nn.ReLU()]
    model = nn.Sequential(*layers)
    x = framework.randn(a.batch, a.width, requires_grad=True)
    results = {m: step_peak(model, x, m, a.segments) for m in ("plain", "non-reentrant",
                                                                "reentrant")}
    print(f"deep MLP: {a.layers} x Linear({a.width}) + ReLU, batch {a.batch}, "
          f"checkpoint_sequential segments={a.segments}")
    for m, (peak, t, grads) in results.items():
        same = all((g == h).all() for g, h in zip(grads, results["plain"][2]))
        print(f"  {m:<14} peak {peak:8.1f} MiB  step {t * 1e3:7.1f} ms  grads equal: {same}")


if __name__ == "__main__":
    main()
