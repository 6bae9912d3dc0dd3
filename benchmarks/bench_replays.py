"""Per-call cost of the ops whose CPU results replay torch's loops bit for bit (issue 9's
exact bits, issue 17's cost): framework beside torch, median microseconds per call.

    python benchmarks/bench_replays.py [--repeat 200] [--only NAME ...] [--clock cpu]

Run it pinned to torch's AVX2 kernels and one thread, as the bit tests measure them:

    NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" ATEN_CPU_CAPABILITY=avx2 \\
    ONEDNN_MAX_CPU_ISA=AVX2 OMP_NUM_THREADS=1 python benchmarks/bench_replays.py

Forward cases run without a graph (``no_grad``); ``.bwd`` cases time forward and backward.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _cases():
    """name -> (build(lib, rng) -> a callable running the op once, reps weight)."""
    f32 = np.float32

    def t(lib, a, grad=False):
        return lib.tensor(a, requires_grad=grad)

    def fwd(make):
        def build(lib, rng):
            fn, args = make(lib, rng, False)
            return lambda: fn(*args)

        return build

    def bwd(make):
        def build(lib, rng):
            fn, args = make(lib, rng, True)
            g = None

            def run():
                nonlocal g
                out = fn(*args)
                if g is None:
                    g = lib.tensor(rng.standard_normal(tuple(out.shape)).astype(out.dtype_np))
                out.backward(g)

            return run

        return build

    def aap(shape, size):
        def make(lib, rng, grad):
            x = t(lib, rng.standard_normal(shape).astype(f32), grad)
            return lib.nn.functional.adaptive_avg_pool2d, (x, size)

        return make

    def interp(shape, mode, scale=2, align=False):
        def make(lib, rng, grad):
            x = t(lib, rng.standard_normal(shape).astype(f32), grad)
            F = lib.nn.functional
            return (
                lambda a: F.interpolate(a, scale_factor=scale, mode=mode, align_corners=align)
            ), (x,)

        return make

    def norm(shape, p, dim, dtype=f32):
        def make(lib, rng, grad):
            x = t(lib, rng.standard_normal(shape).astype(dtype), grad)
            return (lambda a: lib.linalg.vector_norm(a, p, dim)), (x,)

        return make

    def loss(name, shape):
        def make(lib, rng, grad):
            x = t(lib, rng.standard_normal(shape).astype(f32), grad)
            y = t(lib, rng.standard_normal(shape).astype(f32))
            return getattr(lib.nn.functional, name), (x, y)

        return make

    def prod(shape, dim):
        def make(lib, rng, grad):
            x = t(lib, (1 + 0.01 * rng.standard_normal(shape)).astype(f32), grad)
            return (lambda a: a.prod(dim)), (x,)

        return make

    def cdist(s1, s2, p=2.0):
        def make(lib, rng, grad):
            a = t(lib, rng.standard_normal(s1).astype(f32), grad)
            b = t(lib, rng.standard_normal(s2).astype(f32), grad)
            return (lambda u, v: lib.cdist(u, v, p)), (a, b)

        return make

    def bmm(s1, s2):
        def make(lib, rng, grad):
            a = t(lib, rng.standard_normal(s1).astype(f32), grad)
            b = t(lib, rng.standard_normal(s2).astype(f32), grad)
            return lib.bmm, (a, b)

        return make

    def einsum(eq, *shapes):
        def make(lib, rng, grad):
            ts = [t(lib, rng.standard_normal(s).astype(f32), grad) for s in shapes]
            return (lambda *a: lib.einsum(eq, *a)), ts

        return make

    def sort(shape, k=10):
        def make(lib, rng, grad):
            x = t(lib, rng.integers(0, k, shape).astype(f32))
            return (lambda a: a.sort(-1)), (x,)

        return make

    specs = {
        "aap (1,4,16,100)->(5,7)": aap((1, 4, 16, 100), (5, 7)),
        "aap (8,16,32,32)->(7,7)": aap((8, 16, 32, 32), (7, 7)),
        "aap (32,64,14,14)->(5,5)": aap((32, 64, 14, 14), (5, 5)),
        "aap (8,16,32,32)->(4,4) equal": aap((8, 16, 32, 32), (4, 4)),
        "linear (8,16,100) x2": interp((8, 16, 100), "linear"),
        "bilinear (8,16,32,32) x2": interp((8, 16, 32, 32), "bilinear"),
        "bilinear (8,3,32,32) x2 ac": interp((8, 3, 32, 32), "bilinear", 2, True),
        "bicubic (8,16,32,32) x2": interp((8, 16, 32, 32), "bicubic"),
        "trilinear (2,4,8,16,16) x2": interp((2, 4, 8, 16, 16), "trilinear"),
        "norm2 (64,100) dim1": norm((64, 100), 2, 1),
        "norm2 (64,100) dim0": norm((64, 100), 2, 0),
        "norm1 (64,100) dim1": norm((64, 100), 1, 1),
        "norm3 (64,100) dim1": norm((64, 100), 3, 1),
        "norm2 (1000,1000) dim1": norm((1000, 1000), 2, 1),
        "norm2 (1000,1000) dim0": norm((1000, 1000), 2, 0),
        "norm2 (1000,1000) all": norm((1000, 1000), 2, None),
        "norm2 (64,100) dim1 f64": norm((64, 100), 2, 1, np.float64),
        "mse_loss (64,100)": loss("mse_loss", (64, 100)),
        "smooth_l1 (64,100)": loss("smooth_l1_loss", (64, 100)),
        "prod (64,100) dim1": prod((64, 100), 1),
        "prod (64,100) dim0": prod((64, 100), 0),
        "prod (256,1000) dim1": prod((256, 1000), 1),
        "cdist (8,100)x(8,100)": cdist((8, 100), (8, 100)),
        "cdist (128,64)x(128,64)": cdist((128, 64), (128, 64)),
        "cdist (128,64)x(128,64) p1": cdist((128, 64), (128, 64), 1.0),
        "bmm (32,4,4)x(32,4,4)": bmm((32, 4, 4), (32, 4, 4)),
        "bmm (64,6,8)x(64,8,6)": bmm((64, 6, 8), (64, 8, 6)),
        "einsum ij,ij->i (64,100)": einsum("ij,ij->i", (64, 100), (64, 100)),
        "sort ties (64,100)": sort((64, 100)),
        "sort ties (1000,)": sort((1000,)),
    }
    out = {}
    for name, make in specs.items():
        out[name] = fwd(make)
        if not name.startswith(("sort", "norm2 (1000")):
            out[name + " .bwd"] = bwd(make)
    return out


def _time(fn, repeat, clock=time.perf_counter):
    fn()
    fn()
    times = []
    budget = time.perf_counter() + 2.0
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
        if time.perf_counter() > budget and len(times) >= 5:
            break
    return statistics.median(times) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall time, or the process's CPU time (a loaded machine: waits not counted)",
    )
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    import framework
    import torch

    torch.set_num_threads(1)
    libs = [("ours", framework)] + ([] if args.no_torch else [("torch", torch)])
    for lib in (framework, torch):  # the numpy dtype of an output, for the upstream gradient
        lib.Tensor.dtype_np = property(lambda s: str(s.dtype).replace("torch.", ""))
    print(f"{'case':40s} {'ours us':>10s} {'torch us':>10s} {'ratio':>7s}")
    for name, build in _cases().items():
        if args.only and not any(o in name for o in args.only):
            continue
        res = {}
        for label, lib in libs:
            rng = np.random.default_rng(0)
            fn = build(lib, rng)
            ctx = lib.no_grad() if not name.endswith(".bwd") else _null()
            with ctx:
                res[label] = _time(fn, args.repeat, clock)
        ours, theirs = res["ours"], res.get("torch", float("nan"))
        print(f"{name:40s} {ours:10.1f} {theirs:10.1f} {ours / theirs:7.2f}", flush=True)


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


if __name__ == "__main__":
    main()
