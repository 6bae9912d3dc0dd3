"""The flat views a whole-group compiled optimizer call takes (`Optimizer._compiled_group`):
each parameter's array and state arrays as 1-D views, cached on the optimizer while the same
parameters and state arrays are there, and each step's gradients checked and flattened."""

import numpy as np

from . import _kernels


def views(opt, params, keys, required=None):
    """(shapes, states, flat parameters, then a tuple of flat views per state key in `keys`)
    for a group whose parameters all have state with `keys` (and `required`; no state at
    all is fine without them), are
    C-contiguous float32/float64 arrays of one dtype and whose state arrays are alike
    (`_kernels.usable`); None where they do not qualify."""
    cache = opt.__dict__.setdefault("_group_cache", {})
    key = (id(params[0]), len(params), keys)  # (one entry per group; checked below)
    entry = cache.get(key)
    state = opt.state
    width = len(keys) + 1
    if entry is not None:
        arrays, states = entry[0], entry[1][1]
        i = 0
        for j, p in enumerate(params):
            s = state.get(p)
            if s is not states[j] or p._data is not arrays[i]:
                entry = None
                break
            for n, k in enumerate(keys, 1):
                if s[k]._data is not arrays[i + n]:
                    entry = None
                    break
            if entry is None:
                break
            i += width
        if entry is not None:
            return entry[1]
    arrays, states, shapes = [], [], []
    flats = tuple([] for _ in range(width))
    dt = params[0]._data.dtype
    for p in params:
        s = state.get(p)
        if s is None and (keys or required):
            return None
        if (required is not None and required not in s) or any(k not in s for k in keys):
            return None
        a = p._data
        if type(a) is not np.ndarray or a.dtype != dt or not a.flags.c_contiguous:
            return None
        held = [s[k]._data for k in keys]
        flat = _kernels.usable(a, a, *held)  # (the gradient is checked each step)
        if flat is None:
            return None
        arrays += [a, *held]
        states.append(s)
        shapes.append(a.shape)
        for lst, f in zip(flats, flat[:1] + flat[2:]):
            lst.append(f)
    out = (tuple(shapes), states) + tuple(tuple(f) for f in flats)
    if len(cache) > 8:
        cache.clear()
    cache[key] = (arrays, out)
    return out


def flat_grads(params, shapes):
    """Each parameter's gradient as a flat view when it is a C-contiguous array of the
    parameter's shape and dtype (what `_kernels.usable` asks of it), else None."""
    out = []
    for p, shape in zip(params, shapes):
        a = p._data
        g = p.grad._data
        if (
            type(g) is not np.ndarray
            or g.shape != shape
            or (g.dtype is not a.dtype and g.dtype != a.dtype)
            or not g.flags.c_contiguous
        ):
            return None
        out.append(g.reshape(-1))
    return out
