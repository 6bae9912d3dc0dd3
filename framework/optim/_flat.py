"""Small tensors of a group updated together (foreach=None or True; False turns it off).

The rules are elementwise, so an optimizer's `_update` runs unchanged on several parameters,
gradients and states concatenated into flat arrays. Consecutive small parameters are packed
into buckets of at most BUCKET values: NumPy's per-call overhead then counts once per bucket
instead of once per tensor, while each bucket still fits in the CPU cache (measured: one flat
array over a whole MLP is several times slower than a loop over its tensors, which keeps each
tensor in cache through all the rule's operations; see README). Larger parameters keep the
per-parameter loop. The per-parameter state tensors (torch's state_dict layout) are views into
one flat buffer per bucket and state entry, kept between steps; 0-dim entries ('step',
NAdam's 'mu_product', ASGD's 'eta'/'mu') are shared values copied back to every parameter.
A bucket that cannot be flattened (mixed dtypes or devices, 0-dim parameters, unequal step
counts, float16/bfloat16 parameters) runs the per-parameter loop; the numbers are the same
either way, bit for bit."""

from ..tensor import Tensor
from ._util import _bump


class _FlatParam:
    """Stands in for a parameter in `_update`: the group's values as one flat array."""

    def __init__(self, data, like):
        self._data, self._device, self.xp, self.device = data, like._device, like.xp, like.device


BUCKET = 32768  # values per bucket: a few flat float32 arrays of this size stay in L2 cache
MIN_FLAT = 5  # fewer parameters in a bucket: the loop is faster (flattening and copying back
#               costs ~50 us a step; Adam on 3 x 500 values: 64 us flat, 50 us loop; 4: 67
#               vs 63; 6: 78 vs 109; the digits MLP's 3 small parameters: 101 vs 78 a step)


MIN_FLAT_COMPILED = 8  # the same where a compiled loop updates each parameter (_kernels):
#                       measured on 32x32 and 32 tensors, Adam 6 tensors 39 us loop vs 42 flat,
#                       8: 50 vs 47, 12: 73 vs 57; SGD (momentum) 8: 28 vs 35, 16: 52 vs 52


def step_buckets(opt, group, params, h, prepare, least=MIN_FLAT):
    """Update the buckets of small parameters flat (at least `least` parameters in a bucket);
    return the parameters left to the loop."""
    rest, bucket, size = [], [], 0
    buckets = []
    for p in params:
        n = p._data.size
        if n > BUCKET // 8:  # larger tensors: the per-tensor loop is as fast, no copies
            rest.append(p)
            continue
        if size + n > BUCKET and bucket:
            buckets.append(bucket)
            bucket, size = [], 0
        bucket.append(p)
        size += n
    if bucket:
        buckets.append(bucket)
    for i, bucket in enumerate(buckets):
        if len(bucket) < least or not step_group(opt, group, bucket, h, prepare, i):
            rest.extend(bucket)
    if len(rest) > 1 and len(rest) != len(params):
        order = {id(p): k for k, p in enumerate(params)}  # keep torch's state order
        rest.sort(key=lambda p: order[id(p)])
    return rest


def step_group(opt, group, params, h, prepare, index=0):
    """Run opt._update once over the flattened params; False if they can't be flat."""
    first = params[0]
    dtype, dev = first._data.dtype, first._device
    if dtype.itemsize == 2 and dtype.kind in "fV":  # half: torch's CPU loops round the last
        return False  # elements of each tensor apart (see _half.add), so keep tensors apart
    for p in params:
        if (
            p._data.ndim == 0
            or p._data.dtype != dtype
            or p._device != dev
            or p.grad._data.dtype != dtype
        ):
            return False
    states = []
    for p in params:
        s = opt.state.get(p)
        if s is None:
            s = {}
            opt._init_state(p, s, group)
        states.append(s)
    keys = list(states[0])
    if any(list(s) != keys for s in states):
        return False
    scalar_keys = [
        k for k in keys if isinstance(states[0][k], Tensor) and states[0][k]._data.ndim == 0
    ]
    array_keys = [k for k in keys if k not in scalar_keys]
    if any(not isinstance(states[0][k], Tensor) for k in array_keys):
        return False
    for k in scalar_keys:
        value = float(states[0][k]._data)
        if any(float(s[k]._data) != value for s in states[1:]):
            return False
    bufs = _flat_buffers(opt, (id(group), index), params, states, array_keys)
    xp = first.xp
    x = xp.concatenate([p._data.reshape(-1) for p in params])
    g = xp.concatenate([p.grad._data.reshape(-1) for p in params])
    proxy = _FlatParam(x, first)
    g = prepare(proxy, g, h)
    flat_state = {k: Tensor._make(bufs[k], dev) for k in array_keys}
    for k in scalar_keys:
        flat_state[k] = Tensor._make(states[0][k]._data.copy(), states[0][k]._device)
    opt._update(proxy, g, flat_state, h)
    new_keys = [k for k in flat_state if k not in keys]  # e.g. SGD's first momentum buffer
    for k in new_keys:
        bufs[k] = flat_state[k]._data
    offset = 0
    for p, s in zip(params, states):
        n = p._data.size
        p._data[...] = x[offset : offset + n].reshape(p._data.shape)
        for k in new_keys:
            s[k] = Tensor._make(bufs[k][offset : offset + n].reshape(p._data.shape), dev)
        for k in scalar_keys:
            s[k]._data[...] = flat_state[k]._data
        offset += n
        if s:
            opt.state[p] = s
        _bump(p)
    return True


def _flat_buffers(opt, key, params, states, keys):
    """The group's flat state buffers, rebuilt when the layout changed (new parameters, a
    loaded state_dict): the per-parameter state tensors become views into them."""
    cache = opt.__dict__.setdefault("_flat_cache", {})
    entry = cache.get(key)
    if (
        entry is not None
        and entry[0] == [id(p) for p in params]
        and all(s[k]._data.base is entry[1].get(k) for s in states for k in keys)
    ):
        return entry[1]
    bufs = {}
    for k in keys:
        bufs[k] = params[0].xp.concatenate([s[k]._data.reshape(-1) for s in states])
        offset = 0
        for p, s in zip(params, states):
            n = p._data.size
            s[k] = Tensor._make(bufs[k][offset : offset + n].reshape(p._data.shape), p._device)
            offset += n
    cache[key] = ([id(p) for p in params], bufs)
    return bufs
