"""Data-parallel throughput with 1 and 2 ranks, and MPI all-reduce bandwidth on this machine.

    python benchmarks/bench_ddp.py            # prints a table, writes benchmarks/results_ddp.json

Each rank runs one BLAS thread. Throughput: the digits CNN (examples/train_ddp.py's model),
per-rank batch 32, median step time over 30 steps after 5 warm-up steps; 1- and 2-rank runs
alternate, five of each, and the median run is reported. Bandwidth: median
time of an in-place all_reduce of float32 buffers from 4 KiB to 16 MiB on 2 ranks, and the bus
bandwidth a ring all-reduce implies, 2 (n - 1) / n * bytes / time.
"""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REPEATS = 5

STEP = r'''
import os, sys, time, statistics, json
sys.path.insert(0, os.path.join({root!r}, "examples"))
import framework, framework.distributed as dist
from framework.nn.parallel import DistributedDataParallel as DDP
from train_cnn import make_cnn
dist.init_process_group("mpi")
framework.manual_seed(0)
model = DDP(make_cnn((1, 8, 8)))
opt = framework.optim.Adam(model.parameters(), lr=1e-3)
x, y = framework.randn(32, 1, 8, 8), framework.randint(0, 10, (32,))
loss_fn = framework.nn.CrossEntropyLoss()
times = []
for i in range(35):
    t0 = time.perf_counter()
    opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
    times.append(time.perf_counter() - t0)
med = statistics.median(times[5:])
if dist.get_rank() == 0:
    print(json.dumps({{"step_s": med, "samples_per_s": 32 * dist.get_world_size() / med}}))
'''

BANDWIDTH = r'''
import time, statistics, json, numpy as np
import framework, framework.distributed as dist
dist.init_process_group("mpi")
out = {}
for nbytes in (4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20):
    t = framework.zeros(nbytes // 4)
    times = []
    for i in range(25):
        dist.barrier()
        t0 = time.perf_counter(); dist.all_reduce(t); times.append(time.perf_counter() - t0)
    out[nbytes] = statistics.median(times[5:])
if dist.get_rank() == 0:
    print(json.dumps(out))
'''


def launch(n, code):
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONWARNINGS="ignore")
    path = os.path.join(HERE, f".bench_ddp_{n}.py")
    with open(path, "w") as f:
        f.write(code)
    try:
        p = subprocess.run([sys.executable, "-m", "framework.distributed.run",
                            "--nproc-per-node", str(n), path], env=env, capture_output=True,
                           text=True, timeout=600)
    finally:
        os.unlink(path)
    if p.returncode:
        raise SystemExit(p.stdout + p.stderr)
    return json.loads([l for l in p.stdout.splitlines() if l.startswith("{")][-1])


def main():
    res = {"machine": f"{os.cpu_count()} cores", "when": time.strftime("%Y-%m-%d %H:%M")}
    runs = {1: [], 2: []}
    for _ in range(REPEATS):  # alternate, so a burst of other load hits both alike
        for n in (1, 2):
            runs[n].append(launch(n, STEP.format(root=ROOT))["samples_per_s"])
    for n in (1, 2):
        res[f"ranks_{n}"] = {"samples_per_s": statistics.median(runs[n]), "runs": runs[n]}
    res["allreduce_2_ranks_s"] = launch(2, BANDWIDTH)
    one, two = res["ranks_1"]["samples_per_s"], res["ranks_2"]["samples_per_s"]
    print(f"digits CNN, batch 32 per rank (median of {REPEATS} runs): 1 rank {one:.0f} "
          f"samples/s, 2 ranks {two:.0f} samples/s (scaling {two / one:.2f}x)")
    print("all_reduce on 2 ranks:  bytes     time       bus bandwidth")
    for nbytes, s in res["allreduce_2_ranks_s"].items():
        bw = 2 * (2 - 1) / 2 * int(nbytes) / s
        print(f"                   {int(nbytes):>9}  {s * 1e6:8.1f} us  {bw / 1e9:6.2f} GB/s")
    with open(os.path.join(HERE, "results_ddp.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
