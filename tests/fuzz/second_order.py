"""The fuzzer's second-order stage: gradients taken with create_graph=True, differentiated again.

For a program whose op has a double backward (the op table's `gradgrad`), without a chained op
(each chained op is a unary record of the table, fuzzed alone) and whose first-order comparison
found nothing, both libraries run the program again and:

1. take the leaves' gradients for the first-order stage's random upstream gradient with
   `create_graph=True`, and compare each one's presence, dtype, shape, values, requires_grad
   and grad_fn name (`name()`, then the node class's `__name__`);
2. where every gradient's requires_grad agrees, differentiate the gradients that require grad
   with a second random upstream gradient and compare the second-order gradients (presence,
   dtype, shape, values) and any exception, as the first-order stage does.

Each difference gets the first-order stage's class, reported under the stage's own names:
gg-silent (a wrong value, dtype, shape, presence or requires_grad, a result where torch raises,
a NumPy warning), gg-exception, gg-wording, gg-node, gg-known (a documented difference: a
first-order "grad" rule for step 1's values, for step 2's a "gg" rule of
runner.KNOWN_DIFFERENCES or f32_second_order_rounding, measured on the program).

    python -m tests.fuzz.second_order [START [COUNT]]     # default 13,000,000 and 1,400

prints the stage's findings on those seeds, by (class, op, what), with one example each.
"""

import collections
import os
import sys
import warnings

import numpy as np
import torch

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import framework
from fuzz import runner as R

GG_SILENT, GG_EXCEPTION, GG_WORDING, GG_NODE, GG_KNOWN = (
    "gg-silent",
    "gg-exception",
    "gg-wording",
    "gg-node",
    "gg-known",
)
STAGE_CLASS = {
    R.SILENT: GG_SILENT,
    R.EXCEPTION: GG_EXCEPTION,
    R.WORDING: GG_WORDING,
    R.NODE: GG_NODE,
    R.KNOWN: GG_KNOWN,
}
CLASSES = (GG_SILENT, GG_EXCEPTION, GG_WORDING, GG_NODE, GG_KNOWN)


def _classify(p, kind, what, detail):
    """The stage's class of one difference (see the module docstring)."""
    if what.startswith("create_graph forward"):  # torch raised in its forward: the first-order
        # stage's difference, classified by its rules (seed 480022814: embedding_bag's FBGEMM
        # report, where ours, given no upstream gradient, had refused an implicit one)
        return STAGE_CLASS[R._known(p, kind, what.replace("create_graph ", "", 1), detail)]
    if "INTERNAL ASSERT FAILED" in detail:
        kind = R.KNOWN
    elif kind == R.WORDING and detail.count("Found an invalid max index") == 2:
        kind = R.KNOWN  # torch's max_unpool threads race to name a bad index (first order's)
    elif kind == R.WORDING and _upstream_in_torchs_known_shape(p, what, detail):
        kind = R.KNOWN
    elif kind in (R.SILENT, R.EXCEPTION) and not what.endswith("requires_grad"):
        # step 1's gradient values are the first-order ones (its "grad" rules), its errors
        # the first-order backward's ("back"); step 2's have "gg" rules of their own
        key = "gg" if what.startswith(("gg", "gradgrad")) else what[:4]  # grad / crea
        key = {"crea": "back"}.get(key, key)
        rule = R.KNOWN_DIFFERENCES.get((p.op.name, key))
        if rule is not None and rule(p):
            kind = R.KNOWN
        elif key == "gg" and what.endswith("value") and f32_second_order_rounding(p):
            kind = R.KNOWN
    return STAGE_CLASS[kind]


def _upstream_in_torchs_known_shape(p, what, detail):
    """Ours refuses the upstream gradient, drawn in the shape of torch's output, because our
    output's shape differs from torch's by a documented first-order difference (an "out0"
    rule: torch's addmv with an empty matrix, seed 480009961, where torch's backward then
    fails on its own shapes). The first-order stage stops at the shapes; this one, run on
    every program in a survey, differentiates."""
    if not what.startswith("create_graph") or not detail.startswith(
        "'Mismatch in shape: grad_output["
    ):
        return False
    rule = R.KNOWN_DIFFERENCES.get((p.op.name, "out0"))
    return rule is not None and rule(p)


def _uprandom(seed, tensors):
    r = np.random.default_rng(seed)
    return [r.standard_normal(tuple(t.shape)).astype(R._numpy(t).dtype) for t in tensors]


def _node_names(f, t, where):
    """grad_fn names where one side has none (compare_tensor compares two nodes)."""
    if (f.grad_fn is None) == (t.grad_fn is None):
        return []
    name = lambda g: None if g.grad_fn is None else g.grad_fn.name()
    return [(R.NODE, f"{where} grad_fn", f"{name(f)} vs {name(t)}")]


def _grads(p, L, create_graph_ups):
    """Run the program in library L and take its leaves' gradients with create_graph=True.
    `create_graph_ups(outs)` gives the upstream gradients (arrays) for the outputs that
    require grad. Returns (grads, leaves, number of outputs differentiated)."""
    out, leaves = p.run(L)
    outs = [o for o in R._outputs(out) if isinstance(o, L.Tensor) and o.requires_grad]
    if not outs or not leaves:
        return None, leaves, 0
    ups = [L.tensor(u) for u in create_graph_ups(outs)]
    grads = L.autograd.grad(outs, leaves, ups, create_graph=True, allow_unused=True)
    return list(grads), leaves, len(outs)


def _second(gs, leaves, ups, L):
    return list(L.autograd.grad(gs, leaves, [L.tensor(u) for u in ups], allow_unused=True))


def second_order(p):
    """The stage's raw differences of Program p: a list of (kind, what, detail), kinds as the
    first-order stage's."""
    ups = []  # torch's upstream arrays, reused for ours (the same outputs, compared already)

    def torch_ups(outs):
        ups[:] = _uprandom(p.up_seed, outs)
        return ups

    def our_ups(outs):  # torch's; where torch drew none (it raised in its forward), ours
        return ups or _uprandom(p.up_seed, outs)  # as the first-order stage draws them

    (t_res, te, _), (f_res, fe, fw_w) = (
        R._call(lambda: _grads(p, torch, torch_ups), False),
        R._call(lambda: _grads(p, framework, our_ups), True),
    )
    stage = "create_graph forward" if te is not None and not ups else "create_graph"
    found = R._warned(fw_w, "create_graph") + R._compare_exc(fe, te, stage)
    if fe is not None or te is not None:
        return found
    (f_grads, f_leaves, f_n), (t_grads, t_leaves, t_n) = f_res, t_res
    if t_grads is None or f_grads is None:
        if (t_grads is None) != (f_grads is None) or f_n != t_n:
            found.append((R.SILENT, "create_graph outputs", f"{f_n} vs {t_n} require grad"))
        return found
    pairs = []
    for i, (f, t) in enumerate(zip(f_grads, t_grads)):
        if (f is None) != (t is None):
            found.append((R.SILENT, f"grad{i} presence", f"{f is None} vs {t is None}"))
        elif t is not None:
            found += R.compare_tensor(f, t, f"grad{i}") + _node_names(f, t, f"grad{i}")
            if t.requires_grad and f.requires_grad:
                pairs.append((f, t))
    if found or not pairs:
        return found
    ups2 = _uprandom(p.up_seed + 1, [t for _, t in pairs])
    (t2, te, _), (f2, fe, fw_w) = (
        R._call(lambda: _second([t for _, t in pairs], t_leaves, ups2, torch), False),
        R._call(lambda: _second([f for f, _ in pairs], f_leaves, ups2, framework), True),
    )
    found += R._warned(fw_w, "gradgrad") + R._compare_exc(fe, te, "gradgrad")
    if fe is None and te is None:
        for i, (f, t) in enumerate(zip(f2, t2)):
            if (f is None) != (t is None):
                found.append((R.SILENT, f"gg{i} presence", f"{f is None} vs {t is None}"))
            elif t is not None:
                found += R.compare_tensor(f, t, f"gg{i}")
    return found


def _second_order_arrays(p, L):
    """Program p's second-order gradients in library L as float64 arrays (None where a leaf
    gets none), with the stage's two upstream gradients drawn in p's dtypes; None if it
    raises or a gradient does not require grad."""
    ups = []

    def first_ups(outs):
        ups[:] = [u.astype(R._numpy(o).dtype) for u, o in zip(_uprandom(p.up_seed, outs), outs)]
        return ups

    try:
        grads, leaves, _ = _grads(p, L, first_ups)
        gs = [g for g in grads or () if g is not None and g.requires_grad]
        if not gs:
            return None
        ups2 = _uprandom(p.up_seed + 1, gs)
        return [
            None if g is None else R._numpy(g).astype(np.float64)
            for g in _second(gs, leaves, ups2, L)
        ]
    except Exception:
        return None


def f32_second_order_rounding(p):
    """Measured: in float64 ours agrees with torch (the same formula), and in float32 ours is
    as accurate as torch's: each leaf's error against torch's float64 second-order gradient
    is at most 4 times torch's own float32 error, or within float32's tolerance (1e-5 of the
    float64 gradient's scale). A second derivative that is mathematically (near) zero or
    cancels is each library's float32 rounding noise (seed 34002653: cosine_similarity over a
    size-1 dim, the float64 gradient 2.6e-13, ours and torch's both 6.1e-4 off it; seed 793:
    cosine_embedding_loss of 1-element vectors, exact 4.7e-8, ours 9.2e-5 off, torch's
    7.6e-5; seed 34002216: normalize with p = 1 over a size-1 dim, x / |x|)."""
    if not any(isinstance(a, R.T) and a.a.dtype == np.float32 for a in p.args):
        return False
    wide = R.copy.deepcopy(p)
    for a in wide.args:
        if isinstance(a, R.T) and a.a.dtype == np.float32:
            a.a = a.a.astype(np.float64)
    ours, theirs, exact, ours64 = (
        _second_order_arrays(p, framework),
        _second_order_arrays(p, torch),
        _second_order_arrays(wide, torch),
        _second_order_arrays(wide, framework),
    )
    if ours is None or theirs is None or exact is None or ours64 is None:
        return False
    for f, t, e, f64 in zip(ours, theirs, exact, ours64):
        if (f is None) != (e is None) or (f64 is None) != (e is None):
            return False
        if e is None or t is None:
            continue
        if R.compare_arrays(f64, e) is not None:
            return False
        fin = np.isfinite(e)  # NaN and inf exactly where the float64 gradient has them
        if any(R.compare_arrays(np.where(fin, 0, a), np.where(fin, 0, e)) for a in (f, t)):
            return False  # (sinc at 0: NaN in all three)
        f, t, e = f[fin], t[fin], e[fin]
        err, terr = np.abs(f - e), np.abs(t - e)
        tol = 1e-5 * max(1.0, np.abs(e).max(initial=0))
        if err.max(initial=0) > max(4 * terr.max(initial=0), tol):
            return False
    return True


def second_order_call(fn, args, kwargs=None, up_seed=0):
    """The stage's raw differences for fn(L, *args, **kwargs) (args as the op table's: `T` for
    tensors), as runner.compare_call builds its program."""
    p = R.Program.__new__(R.Program)
    p.seed, p.args, p.kwargs, p.up_seed = None, list(args), dict(kwargs or {}), up_seed
    p.op, p.inplace, p.then = R.OpInfo("call", fn, None), False, None
    return second_order(p)


def compare_second_order(p):
    """The stage's list of Mismatch for Program p (classes GG_*)."""
    return [R.Mismatch(_classify(p, k, w, d), p.name, w, d, p.seed) for k, w, d in second_order(p)]


def survey(start, count):
    """Counter of (class, op, what) -> programs over the stage, and one Mismatch per key."""
    found, example = collections.Counter(), {}
    for s in range(start, start + count):
        p = R.Program(s)
        if p.then is not None or not p.op.gradgrad:
            continue
        seen = set()
        for m in compare_second_order(p):
            key = (m.kind, m.op, m.what.split(" ", 1)[-1])
            if key not in seen:
                seen.add(key)
                found[key] += 1
                example.setdefault(key, m)
    return found, example


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    args = [int(a) for a in sys.argv[1:3]] + [13_000_000, 1_400][len(sys.argv[1:3]) :]
    found, example = survey(*args)
    for key, n in sorted(found.items(), key=lambda kv: (CLASSES.index(kv[0][0]), kv[0][1:])):
        m = example[key]
        print(f"{n:5d} {m.kind:12s} {m.op:28s} {m.what:24s} {m.detail[:90]} seed={m.seed}")
    kinds = collections.Counter()
    for (kind, *_), n in found.items():
        kinds[kind] += n
    print({k: kinds[k] for k in CLASSES}, "(class, op, what) findings;", len(found), "groups")
