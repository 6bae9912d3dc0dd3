"""The backward engine: one iterative walk over grad_fn nodes, by dependency count.

Ready nodes run latest-created first (as torch's engine does); in-flight gradients live in a
local dict keyed by node and popped when the node runs.
"""

import heapq
import sys
import threading
import warnings

import numpy as _np

from .._gc_freeze import freeze_after_numba as _freeze_after_numba, numba_pending as _numba_pending
from ..tensor import Tensor
from . import forward_ad as _fw
from . import zero_grad as _zero
from .grad_mode import _State, fw_in_use, state, local_set as _local_set
from .node import node_hooks
from .op import AccumulateGrad
from .saved import drop_unpacked
from .zero_grad import ZERO_IMMUTABLE, is_zero_tensor, zero_tensor  # noqa: F401 (re-exported)

# Writes to `.grad` are serialised: threads running backward through shared leaves must not
# lose each other's contributions (torch locks each AccumulateGrad node the same way).
_grad_lock = threading.Lock()
_ndarray = _np.ndarray

# References to a buffered gradient that only the engine holds, seen from `_sum`: the buffer's
# list and the local name (plus getrefcount's own argument); its array: the tensor's attribute.
_REFS_TENSOR, _REFS_ARRAY = 3, 3

# loss.backward()'s implicit gradient: never handed out, only copied (by _root_grads)
_ONES = {}

NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"
UNUSED = (
    "The differentiated Tensor at index {} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)


class _Task:
    """One backward call (torch's GraphTask): which nodes it will run."""

    __slots__ = ("deps", "needed", "roots", "zero_in", "__weakref__")

    def __init__(self, deps, needed, roots):
        self.deps, self.needed, self.roots = deps, needed, {fn for fn, _ in roots}
        self.zero_in = None  # node: the ZeroTensors sent to it (send_zero_grad)

    def will_execute(self, fn):
        """True when this backward runs `fn` (torch._C._will_engine_execute_node)."""
        return (fn in self.deps or fn in self.roots) and (self.needed is None or fn in self.needed)


def current_task():
    """The backward call running in this thread; raises outside backward."""
    if state.graph_task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return state.graph_task


def _root_grads(tensors, grads, create_graph=False):
    """Check the roots and build their starting gradients (implicit ones only for scalars);
    a given gradient of another dtype is cast to its output's, as torch's validate_outputs
    (recorded as ToCopyBackward0 only under create_graph)."""
    if grads is None and len(tensors) == 1:  # loss.backward(): one float scalar that requires
        t = tensors[0]  # grad (any other case gets the checks below)
        d = t._data
        if t._rg and d.size == 1 and d.dtype.kind == "f" and type(d) is _ndarray:
            one = _ONES.get((d.shape, d.dtype))
            if one is None:  # a copy of one cached 1 per shape and dtype: 0.25 us, where
                one = _ONES[(d.shape, d.dtype)] = _np.ones_like(d)  # ones_like is ~2 us
            return [Tensor._make(one.copy(), t._device)]
    if grads is None:
        grads = [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(
            "grad can be implicitly created only for scalar outputs"
            if not grads
            else f"Mismatch in number of grad tensors: got {len(grads)}, expected {len(tensors)}"
        )
    out = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if not t.requires_grad:
            raise RuntimeError(NO_GRAD_FN.format(i))
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not t.dtype.is_floating_point:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {t.dtype}"
                )
            g = Tensor._make(t.xp.ones_like(t._data), t._device)
        elif not isinstance(g, Tensor):
            g = Tensor._make(t.xp.asarray(g, dtype=t._data.dtype), t._device)
        elif g.shape != t.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of "
                f"{tuple(g.shape)} and output[{i}] has a shape of {tuple(t.shape)}."
            )
        if g._data.dtype != t._data.dtype:
            prev, state.enabled = state.enabled, create_graph
            try:
                g = g.to(t.dtype)
            finally:
                state.enabled = prev
        out.append(g)
    return out


def _collect(roots, targets):
    """Dependency counts of the nodes that lead to a target (all nodes when targets is None)."""
    deps, order, seen = {}, [], set()
    stack = [fn for fn, _ in roots]
    seen.update(stack)
    if targets is None and len(seen) == len(stack):  # every node: count while discovering
        get = deps.get
        while stack:
            for nxt in stack.pop()._next:
                if nxt is not None:
                    c = get(nxt)
                    if c is None:  # first seen: walk it (a root is walked already)
                        deps[nxt] = 1
                        if nxt not in seen:
                            stack.append(nxt)
                    else:
                        deps[nxt] = c + 1
        return deps, None
    stack = list(dict.fromkeys(stack))  # a node that is two roots' (outputs 1 and 2) once
    while stack:
        fn = stack.pop()
        order.append(fn)
        for nxt in fn._next:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    needed = None
    if targets is not None:
        # A node is needed when a target is reachable from it: settle children before parents.
        needed = set()
        for fn in _topological(order)[::-1]:
            if fn in targets or any(n is not None and n in needed for n in fn._next):
                needed.add(fn)
        order = [fn for fn in order if fn in needed]
    get = deps.get
    for fn in order:
        for nxt in fn._next:
            if nxt is not None and (needed is None or nxt in needed):
                deps[nxt] = get(nxt, 0) + 1
    return deps, needed


def _topological(order):
    """Kahn's order of the discovered nodes (parents before children)."""
    indeg = {fn: 0 for fn in order}
    for fn in order:
        for nxt in fn._next:
            if nxt is not None:
                indeg[nxt] += 1
    ready = [fn for fn in order if indeg[fn] == 0]
    out = []
    while ready:
        fn = ready.pop()
        out.append(fn)
        for nxt in fn._next:
            if nxt is not None:
                indeg[nxt] -= 1
                if indeg[nxt] == 0:
                    ready.append(nxt)
    return out


def run(
    tensors,
    grad_tensors=None,
    retain_graph=None,
    create_graph=False,
    inputs=None,
    capture=False,
    allow_unused=False,
):
    """Backpropagate from `tensors`. With capture=True return the gradients of `inputs`
    instead of accumulating them (autograd.grad); otherwise accumulate into `.grad`."""
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(tensors, grad_tensors, create_graph)
    roots = [t._edge() for t in tensors]
    targets = None
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            if not t.requires_grad:
                raise RuntimeError(
                    "One of the differentiated Tensors does not require grad"
                    if capture
                    # torch's backward(inputs=) wording
                    else "can't retain_grad on Tensor that has requires_grad=False"
                )
            if not capture and t.grad_fn is not None:
                t.retain_grad()  # torch's backward(inputs=[non-leaf]): .grad kept from now on
            targets.setdefault(t._edge()[0], []).append((t._edge()[1], i, t))
    deps, needed = _collect(roots, targets)
    task = _Task(deps, needed, roots)
    buffers = {}
    for (fn, nr), g in zip(roots, grads):
        _add_to(buffers, fn, nr, g)
    # The caller's gradients stay visible to the caller: `.grad` must copy, never take, them
    # (the list keeps them alive, so their ids are not reused during the walk).
    shared = {id(g) for g in grads} if grad_tensors is not None else set()
    captured = [None] * len(inputs) if capture else None
    if len(roots) == 1:  # (loss.backward(): one root, a one-entry heap)
        fn = roots[0][0]
        heap = [(-fn._seq, id(fn), fn)] if fn not in deps else []
    else:
        heap = [  # (each node once: two outputs of one node are two roots, one node)
            (-fn._seq, id(fn), fn)
            for fn in dict.fromkeys(fn for fn, _ in roots)
            if not deps.get(fn)
        ]
        heapq.heapify(heap)
    prev_mode, prev_task = state.enabled, state.graph_task
    state.enabled = create_graph
    _local_set(state, "graph_task", task)  # (not `enabled`: no grad_off count to keep)
    # nodes without hooks run straight through _backward unless a target or anomaly mode
    # (process-wide, on the class) needs _run_node: decided once per walk, not per node
    direct = targets is None and not _State.anomaly
    try:
        pop, push = heapq.heappop, heapq.heappush
        # the one node made ready while the heap was empty (a chain's next node) and its
        # gradients, taken out of `buffers` (no heap or dict round trip)
        ready = ready_grads = None
        while heap or ready is not None:
            if ready is not None:  # the only candidate
                fn, grads_out, ready = ready, ready_grads, None
            else:
                fn = pop(heap)[2]
                grads_out = buffers.pop(fn, None)
            if grads_out is None:  # nothing, or only torch's efficient ZeroTensors
                grads_in = ()
                if task.zero_in is not None and fn in task.zero_in:
                    grads_in = _zero.zero_grads_in(task, fn, targets, captured)
            elif (  # a node with no hooks, no target, no anomaly check: just its backward
                direct
                and type(fn) is not AccumulateGrad
                and (
                    not node_hooks[0]  # no node hook ever registered: none to look for
                    or (
                        fn._tensor_hooks is None
                        and fn._retain is None
                        and fn._prehooks is None
                        and fn._hooks is None
                    )
                )
            ):  # _backward without hooks, inlined (one call less per node)
                if grads_out[0] is None if fn._n_out == 1 else all(g is None for g in grads_out):
                    grads_in = ()
                else:
                    if task.zero_in is not None and fn in task.zero_in:  # sgn's ZeroTensor too
                        grads_out = _zero.mixed_grads(task, fn, grads_out)
                    freed = fn._freed_attrs
                    plain = fn._plain_saved  # Op's check_saved and release (inlined below)
                    if freed or not plain:  # (with nothing saved Op.check_saved has nothing
                        fn.check_saved()  # to check)
                    grads_in = fn.backward(*grads_out)
                    if type(grads_in) is not tuple:
                        grads_in = (grads_in,)
                    if fw_in_use[0] and getattr(fn, "fw_zero_grads", False):  # as _backward
                        _fw.zero_tangents(fn, grads_in)
                    if retain_graph:
                        if fn._packed is not None:
                            drop_unpacked(fn)
                    elif plain:  # Node.release, inlined
                        fn._released = True
                        for attr in freed:
                            setattr(fn, attr, None)
                        if fn._packed is not None:
                            fn._packed = None
                    else:
                        fn.release()
            elif type(fn) is AccumulateGrad and direct and fn._hooks is fn._prehooks is None:
                g = grads_out[0]  # a leaf's node without node hooks (_run_node, inlined):
                if g is not None:  # .grad set or summed
                    leaf = fn.variable
                    if leaf._hooks or leaf._post_hooks:
                        _accumulate(leaf, g, create_graph, shared)
                    else:
                        with _grad_lock:
                            _store_grad(leaf, g, create_graph, shared)
                continue  # (no edges; after the branch above, which other nodes take)
            else:
                grads_in = _run_node(
                    fn, grads_out, targets, captured, create_graph, retain_graph, shared
                )
            n_in = len(grads_in)
            if n_in == 2:  # _mark_repeats for two gradients, inlined
                if grads_in[0] is grads_in[1] and grads_in[0] is not None:
                    grads_in[0]._shared = True
            elif n_in == 3:  # and for three (addmm, a loss's input, target, weight); no
                # local names for them: `.grad` takes a gradient only nobody else holds
                if (
                    grads_in[0] is not None
                    and (grads_in[0] is grads_in[1] or grads_in[0] is grads_in[2])
                ) or (grads_in[1] is grads_in[2] and grads_in[1] is not None):
                    _mark_repeats(grads_in)
            elif n_in > 3:
                _mark_repeats(grads_in)
            nexts = fn._next
            if n_in < len(nexts):  # no gradient for the last inputs (or any): None for them
                grads_in = grads_in + (None,) * (len(nexts) - n_in)
            k = -1
            for nxt in nexts:
                k += 1
                if nxt is None:
                    continue
                if needed is not None and nxt not in needed:
                    continue
                left = deps[nxt] - 1
                deps[nxt] = left
                g = grads_in[k]
                if g is not None:
                    shape, dtype = fn._in_meta[k]
                    # (no local name for g._data: _sum and _owned count its references)
                    if g._data.shape != shape or (
                        g._data.dtype is not dtype and g._data.dtype != dtype
                    ):
                        g = _fit(g, shape, dtype)
                    if left:
                        nr = fn._nrs[k]
                        slot = buffers.get(nxt)
                        if slot is None:
                            slot = buffers[nxt] = [None] * nxt._n_out
                        slot[nr] = g if slot[nr] is None else _sum(slot, nr, g, create_graph)
                        continue
                    # its last gradient: the node is ready (nothing buffered in a chain)
                    slot = buffers.pop(nxt, None) if buffers else None
                    if slot is None:
                        if nxt._n_out == 1:
                            slot = [g]
                        else:
                            slot = [None] * nxt._n_out
                            slot[fn._nrs[k]] = g
                    else:
                        nr = fn._nrs[k]
                        slot[nr] = g if slot[nr] is None else _sum(slot, nr, g, create_graph)
                elif left:
                    continue
                else:
                    slot = buffers.pop(nxt, None)
                if ready is None and not heap:
                    ready, ready_grads = nxt, slot
                else:
                    if ready is not None:  # two ready nodes: both go through the heap
                        if ready_grads is not None:
                            buffers[ready] = ready_grads
                        push(heap, (-ready._seq, id(ready), ready))
                        ready = None
                    if slot is not None:
                        buffers[nxt] = slot
                    push(heap, (-nxt._seq, id(nxt), nxt))
    finally:
        state.enabled = prev_mode
        _local_set(state, "graph_task", prev_task)
    if _numba_pending[0] and "numba" in sys.modules:  # numba's objects out of the full
        # collections' way, once loaded
        _freeze_after_numba()
    if capture:
        for i, g in enumerate(captured):
            if g is None and not allow_unused:
                raise RuntimeError(UNUSED.format(i))
        return tuple(captured)
    return None


def send_zero_grad(fn, grad):
    """Called by a backward that gives torch's efficient ZeroTensor for its input (real sgn):
    returns None for that input, and the walk carries the zero on node by node as torch does
    (see autograd.zero_grad). Outside backward (no task): False, the caller returns real
    zeros."""
    task = state.graph_task
    if task is None:
        return False
    if task.zero_in is None:
        task.zero_in = {}
    _zero.send(task, fn, grad)
    return True


def _run_node(fn, grads_out, targets, captured, create_graph, retain_graph, shared):
    """Run hooks and one node's backward; returns its gradients per input edge. The order is
    torch's evaluate_function: autograd.grad's captures, the tensor hooks (a leaf's own hooks
    for its AccumulateGrad node) and retain_grad, the node's pre-hooks, the node, its
    post-hooks. A captured node torch runs only for the capture (no target below it) gives
    its gradient after the tensor hooks and runs nothing else; one it runs on gives the
    gradient before them."""
    leaf = fn.variable if type(fn) is AccumulateGrad else None
    if targets is not None and fn in targets:
        if captured is not None:
            if not any(n is not None and n in state.graph_task.needed for n in fn._next):
                grads_out = _tensor_hooks(fn, list(grads_out), leaf, create_graph)
                _capture(grads_out, targets[fn], captured, create_graph)
                return ()
            _capture(grads_out, targets[fn], captured, create_graph)
    # (backward(inputs=[non-leaf]) made it retain its gradient: stored among the tensor hooks)
    if leaf is not None and leaf._hooks:
        shared = None  # a hook may keep the gradient it sees, or return one it keeps
    grads_out = _tensor_hooks(fn, grads_out, leaf, create_graph)
    if fn._prehooks:
        for hook in list(fn._prehooks.values()):
            r = hook(tuple(grads_out))
            if r is not None:
                grads_out = list(r)
    if type(fn) is AccumulateGrad:
        leaf = fn.variable
        if grads_out[0] is not None:
            with _grad_lock:
                _store_grad(leaf, grads_out[0], create_graph, shared)
            if leaf._post_hooks:
                for hook in list(leaf._post_hooks.values()):
                    hook(leaf)
        if fn._hooks:
            for hook in list(fn._hooks.values()):
                hook((), tuple(grads_out))
        return ()
    if not (fn._hooks or state.anomaly):
        return _backward(fn, grads_out, retain_graph)
    try:
        return _backward(fn, grads_out, retain_graph, hooked=True)
    except Exception:
        if state.anomaly and fn._trace:  # torch's anomaly mode: show where forward ran
            warnings.warn(
                f"Error detected in {fn.name()}. Traceback of forward call that caused "
                f"the error:\n{fn._trace}",
                stacklevel=2,
            )
        raise


def _tensor_hooks(fn, grads_out, leaf, create_graph):
    """torch's call_tensor_pre_hooks: the hooks of the tensors whose gradients reach `fn`
    (a leaf's for its AccumulateGrad node), then retain_grad's stores."""
    if leaf is not None:
        if leaf._hooks and grads_out[0] is not None:
            g = grads_out[0]
            for hook in list(leaf._hooks.values()):
                r = hook(g)
                if r is not None:
                    g = r
            grads_out = [g]
        return grads_out
    if fn._tensor_hooks:
        for nr, hooks in fn._tensor_hooks.items():
            if grads_out[nr] is not None:
                grads_out[nr]._shared = True  # a hook may keep it
                for hook in list(hooks.values()):
                    r = hook(grads_out[nr])
                    if r is not None:
                        grads_out[nr] = r
    if fn._retain:
        for nr, ref in fn._retain.items():
            t = ref()
            if t is not None and grads_out[nr] is not None:
                _store_grad(t, grads_out[nr], create_graph)
    return grads_out


def _capture(grads_out, captures, captured, create_graph):
    """autograd.grad's results taken at a node."""
    for nr, i, _ in captures:
        g = grads_out[nr]
        captured[i] = g if g is None or create_graph else g.detach()


def _backward(fn, grads_out, retain_graph, hooked=False):
    """One node's backward: its gradients per input edge (after its post-hooks and anomaly
    mode's nan check when `hooked`), then its saved data freed unless the graph is retained."""
    if grads_out[0] is None if fn._n_out == 1 else all(g is None for g in grads_out):
        return ()
    task = state.graph_task
    if task is not None and task.zero_in is not None and fn in task.zero_in:
        grads_out = _zero.mixed_grads(task, fn, grads_out)  # sgn's ZeroTensor beside them
    fn.check_saved()
    result = fn.backward(*grads_out)
    if type(result) is not tuple:
        result = (result,)
    if fw_in_use[0] and getattr(fn, "fw_zero_grads", False):
        _fw.zero_tangents(fn, result)
    if hooked:
        if fn._hooks:
            needed = state.graph_task.needed
            if needed is not None:  # torch computes no gradient for an edge it won't follow
                result = (
                    tuple(
                        r if n is not None and n in needed else None
                        for r, n in zip(result, fn._next)
                    )
                    + result[len(fn._next) :]
                )
            skip = fn.no_edge  # a hook sees (and returns) one gradient per torch edge
            for hook in list(fn._hooks.values()):
                r = hook(fn._edge_grads(result) if skip else result, tuple(grads_out))
                if r is not None:
                    result = fn._input_grads(tuple(r)) if skip else tuple(r)
        if state.anomaly and state.check_nan:
            _check_nan(fn, result)
    if not retain_graph:
        fn.release()
    elif fn._packed is not None:
        drop_unpacked(fn)  # the next backward unpacks again, as torch's does
    return result


def _add_to(buffers, fn, nr, g):
    slot = buffers.get(fn)
    if slot is None:
        slot = buffers[fn] = [None] * fn._n_out
    slot[nr] = g if slot[nr] is None else slot[nr] + g


def _sum(slot, nr, g, create_graph):
    """slot[nr] + g, the two gradients of one input. With create_graph a recorded add; else a
    sum of the arrays, made in place when the buffer alone holds the summand (torch's
    InputBuffer accumulates in place the same way): nothing else refers to its tensor or array
    and the array is no view. Both have the input's shape and dtype already (`_fit`)."""
    old = slot[nr]
    a, b = old._data, g._data
    dt = a.dtype
    if (
        create_graph
        or (b.dtype is not dt and b.dtype != dt)
        or dt.kind not in "fc"
        or a.shape != b.shape
    ):
        return old + g
    if (
        not old._shared
        and a.base is None
        and sys.getrefcount(old) <= _REFS_TENSOR
        and sys.getrefcount(a) <= _REFS_ARRAY
        and a.flags.writeable
    ):
        a += b  # (the same add, in place: no namespace lookup; `a` is rebound to itself)
        return old
    return Tensor._make(old.xp.asarray(a + b), old._device)  # 0-dim: an array, no scalar


def _load_torch_sum(a, axes):
    """First call: bind ops._sum_kernel.torch_sum (ops import the engine, so not at import)."""
    from ..ops._sum_kernel import torch_sum

    _torch_sum[0] = torch_sum
    return torch_sum(a, axes)


_torch_sum = [_load_torch_sum]


def _fit(g, shape, dtype):
    """Reduce a broadcast gradient to its input's shape and cast it to the input's dtype.
    Without create_graph a float gradient is summed as an array (the same NumPy reduction
    that Sum's forward runs, without a node per reduction)."""
    if g._data.shape != shape:
        a = g._data
        if not state.enabled and a.dtype.kind == "f":
            lead = a.ndim - len(shape)
            axes = tuple(range(lead)) + tuple(
                i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1
            )
            if a.dtype.itemsize == 2:  # float16/bfloat16: torch sums in float, rounds once
                s = a.sum(axis=axes, keepdims=True, dtype="float32").astype(a.dtype)
            else:  # torch's sum_to_size: one sum over those dims, in its order where
                s = _torch_sum[0](a, axes)  # reproduced (ops/_sum_kernel.py)
                if s is None:
                    s = a.sum(axis=axes, keepdims=True)
            g = Tensor._make(g.xp.asarray(s.reshape(shape)), g._device)
        else:
            g = g.sum_to_size(shape)
    if g._data.dtype != dtype:
        g = g._cast(dtype)
    return g


def _mark_repeats(grads):
    """One tensor sent along two edges (x + x, Add's backward) must not become two `.grad`s."""
    seen = set()
    for g in grads:
        if g is not None:
            if id(g) in seen:
                g._shared = True
            seen.add(id(g))


def _owned(array, tensor, shared):
    """True when nobody else can see `array`, so `.grad` may take it without a copy (torch's
    AccumulateGrad steals a gradient the same way): the tensor was routed to one place only and
    no other object holds the array or the arrays it views."""
    if shared is None or tensor._shared or id(tensor) in shared or sys.getrefcount(array) > 4:
        return False
    base = array.base
    while base is not None:
        if sys.getrefcount(base) > 3:
            return False
        base = base.base
    return True


def _accumulate(leaf, g, create_graph, shared=None):
    """AccumulateGrad: leaf hooks, then `.grad` set or summed, then post-accumulate hooks."""
    if leaf._hooks:
        shared = None  # a hook may keep the gradient it sees, or return one it keeps
        for hook in list(leaf._hooks.values()):
            r = hook(g)
            if r is not None:
                g = r
    with _grad_lock:
        _store_grad(leaf, g, create_graph, shared)
    if leaf._post_hooks:
        for hook in list(leaf._post_hooks.values()):
            hook(leaf)


def _store_grad(t, g, create_graph, shared=None):
    if t.grad is None:
        if create_graph:  # torch copies into a fresh tensor: the grad_fn is CopyBackwards
            from ..ops import copy_into

            t.grad = copy_into(Tensor._make(t.xp.zeros_like(t._data), t._device), g)
        else:
            arr = g._data
            take = arr.flags.c_contiguous and _owned(arr, g, shared)
            t.grad = Tensor._make(arr if take else arr.copy(), g._device)
    elif create_graph:
        t.grad = t.grad + g
    else:
        old = t.grad
        if old.__dict__.get("_zero_tensor", False):  # torch's in-place += on a ZeroTensor
            raise RuntimeError(ZERO_IMMUTABLE)  # .grad (left by sgn's gradient) refuses
        if old._data.flags.writeable and old._data.shape == g._data.shape:
            old.xp.add(old._data, g._data, out=old._data)
            old._vc[0] += 1
        else:
            t.grad = Tensor._make(old.xp.asarray(old._data + g._data), old._device)


def _check_nan(fn, result):
    for i, g in enumerate(result):
        if g is not None and g.dtype.is_floating_point and bool(g.xp.isnan(g._data).any()):
            raise RuntimeError(f"Function '{fn.name()}' returned nan values in its {i}th output.")
