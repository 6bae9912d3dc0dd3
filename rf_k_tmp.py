import numpy as np
import numba
import time
from framework._numba_fma import fma
from framework.ops import _replay_jit as R

k = R.loops()


def make(W, FOUR):
    L = range(W)
    src = [
        "def norm2(rows, out):",
        " count, n = rows.shape",
        " nvec = n // W",
        " for o in range(count):",
        "  out[o] = 0",
        "  total = out[o]",
        "  r = rows[o]",
        "  if nvec:",
    ]
    src += [f"   v = r[{l}]; a{l} = v * v" for l in L]
    src += ["   for j in range(1, nvec):", "    b = j * W"]
    src += [f"    v = r[b + {l}]; a{l} = a{l} + v * v" for l in L]
    src += ["   total = a0"] + [f"   total = total + a{l}" for l in L if l]
    src += [
        "  d = nvec * W",
        "  if FOUR and n - d >= 4:",
        "   for kk in range(d, d + 4):",
        "    v = r[kk]; total = total + v * v",
        "   d += 4",
        "  for kk in range(d, n):",
        "   v = r[kk]; total = fma(v, v, total)",
        "  out[o] = np.sqrt(total)",
    ]
    ns = {"np": np, "fma": fma, "W": W, "FOUR": FOUR}
    exec("\n".join(src), ns)
    return numba.njit(nogil=True, error_model="numpy")(ns["norm2"])


n8 = make(8, True)
for shape in [(1000, 1000), (1, 1000000), (64, 100), (64, 7)]:
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    o1 = np.empty(shape[0], np.float32)
    o2 = o1.copy()
    k.lastdim_norm2(x, 8, True, o1)
    n8(x, o2)
    assert o1.tobytes() == o2.tobytes()
    for f in (lambda: k.lastdim_norm2(x, 8, True, o1), lambda: n8(x, o2)):
        ts = []
        for _ in range(20):
            t = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t)
        print(shape, np.median(ts) * 1e6)
