"""Node: the one protocol every graph node follows (torch.autograd.graph.Node).

Op nodes, AccumulateGrad and custom-Function nodes all derive from `Node`; the engine only
uses what is defined here: `_next` and `_nrs` (per input the node that receives its gradient,
or None, and which of that node's outputs it is; `_edges` pairs them), `_n_out`,
`_in_meta` (shape and dtype per input), `_seq` (creation order), the hook dicts,
`check_saved()`, `backward(*grads)` and `release()`.
"""

import itertools
import weakref

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


# Set once any hook is registered on a node or a non-leaf tensor (or retain_grad is called):
# until then the engine need not look for hooks on each node it runs.
node_hooks = [0]


class Node:
    """Base class of every autograd graph node (what `tensor.grad_fn` is).

    A node receives the gradients of its outputs and returns those of its inputs;
    `next_functions` leads to the nodes of those inputs.

    Example:
        >>> x = framework.ones(2, requires_grad=True)
        >>> y = (x * 3).sum()
        >>> isinstance(y.grad_fn, framework.autograd.graph.Node), y.grad_fn.name()
        (True, 'SumBackward0')
    """

    __slots__ = ()
    node_name = None  # torch's name(), e.g. 'MulBackward0' or 'torch::autograd::CopySlices'
    _freed_attrs = ()  # attributes holding saved data, dropped by release()
    # Edges, flat: no (node, output_nr) tuple per edge, so a recorded node keeps one tuple the
    # cyclic GC tracks (its `_next`) instead of one per input plus theirs; `_nrs` holds ints
    # only (shared constants in the common cases, never tracked).
    _next = ()  # per input: the node that receives its gradient, or None
    _nrs = ()  # per input: which output of that node the input is
    _n_out = 1
    _in_meta = ()
    no_edge = ()  # input positions torch's node has no edge for (indices, masks, targets, a
    #               Python scalar the op wrapped): next_functions skips them, `_next` keeps them
    _seq = 0
    _released = False
    _packed = None  # (((slot, packed value), ...), unpack) under saved_tensors_hooks
    _unpacked = False
    _hooks = _prehooks = _tensor_hooks = _retain = _trace = None
    _plain_saved = False  # Op subclasses: check_saved and release are Op's and Node's

    def name(self):
        """torch's name of this node, e.g. 'MulBackward0'."""
        return self.node_name or type(self).__name__

    @property
    def _edges(self):
        """One `(node, output_nr)` per input, or None where no gradient flows."""
        return tuple(None if n is None else (n, r) for n, r in zip(self._next, self._nrs))

    @_edges.setter
    def _edges(self, edges):
        self._next = tuple(None if e is None else e[0] for e in edges)
        self._nrs = tuple(0 if e is None else e[1] for e in edges)

    @property
    def next_functions(self):
        """((node, output_nr), ...) for each differentiable input, as torch lists them; (None, 0)
        where no gradient flows. Inputs torch's node has no edge for (`no_edge`) are left out."""
        skip = self.no_edge
        if not skip:
            return tuple(zip(self._next, self._nrs))
        return tuple(e for k, e in enumerate(zip(self._next, self._nrs)) if k not in skip)

    def _edge_grads(self, grads):
        """Per-input gradients -> those of next_functions' edges (`no_edge` inputs left out)."""
        return tuple(g for k, g in enumerate(grads) if k not in self.no_edge)

    def _input_grads(self, grads):
        """Gradients per next_functions edge -> per input (None for the `no_edge` inputs)."""
        it = iter(grads)
        n = len(grads) + len(self.no_edge)
        return tuple(None if k in self.no_edge else next(it, None) for k in range(n))

    @property
    def metadata(self):
        """A dict for the user's own annotations (kept with the node)."""
        m = getattr(self, "_metadata", None)
        if m is None:
            m = {}
            self._metadata = m
        return m

    @property
    def requires_grad(self):
        """Always True: a node exists only for outputs that require grad."""
        return True

    def _sequence_nr(self):
        return self._seq

    def _set_sequence_nr(self, n):
        self._seq = n

    def register_hook(self, hook):
        """hook(grad_inputs, grad_outputs) runs after this node; may return new grad_inputs.

        Args:
            hook (Callable): ``hook(grad_inputs, grad_outputs) -> tuple of Tensor or None``.

        Example:
            >>> x = framework.tensor([1.0, 2.0], requires_grad=True)
            >>> y = x.neg()
            >>> h = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10,))
            >>> y.sum().backward()
            >>> x.grad
            tensor([-10., -10.])
        """
        if self._hooks is None:
            self._hooks = new_hook_dict()
        return _add_hook(self._hooks, hook)

    def register_prehook(self, hook):
        """hook(grad_outputs) runs before this node; may return new grad_outputs.

        Args:
            hook (Callable): ``hook(grad_outputs) -> tuple of Tensor or None``.

        Example:
            >>> x = framework.tensor([1.0, 2.0], requires_grad=True)
            >>> y = x * 2
            >>> h = y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
            >>> y.sum().backward()
            >>> x.grad
            tensor([4., 4.])
        """
        if self._prehooks is None:
            self._prehooks = new_hook_dict()
        return _add_hook(self._prehooks, hook)

    def check_saved(self):
        """Raise torch's error when saved data was freed (or modified in place)."""
        if self._released and self._freed_attrs:
            raise RuntimeError(FREED)

    def release(self):
        """Free saved data; edges and metadata stay so next_functions remains readable."""
        self._released = True
        for attr in self._freed_attrs:
            setattr(self, attr, None)
        if self._packed is not None:
            self._packed = None

    def backward(self, *grads):
        """Gradients of the inputs from those of the outputs."""
        raise NotImplementedError

    def __call__(self, *grads):
        return self.backward(*grads)

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


def node_class(base, name, **attrs):
    """A subclass of `base` named as torch names the node (the part after the last '::')."""
    ns = {
        "__slots__": (),
        "node_name": name,
        "__module__": base.__module__,
        "__qualname__": name.rsplit("::", 1)[-1],
        **attrs,
    }
    return type(name.rsplit("::", 1)[-1], (base,), ns)


class RemovableHandle:
    """Returned by every register_*hook; `.remove()` unregisters.

    Args:
        hooks_dict (dict): the dictionary of hooks this handle's hook is registered in.

    Example:
        >>> m = nn.Linear(2, 2)
        >>> h = m.register_forward_hook(lambda mod, inp, out: print('called'))
        >>> type(h).__name__
        'RemovableHandle'
        >>> _ = m(framework.zeros(1, 2))
        called
        >>> h.remove()
        >>> _ = m(framework.zeros(1, 2))  # the hook is gone: nothing printed
    """

    __slots__ = ("_dict", "id")
    _ids = itertools.count()

    def __init__(self, hooks_dict):
        self._dict = (
            weakref.ref(hooks_dict) if isinstance(hooks_dict, _HookDict) else (lambda: hooks_dict)
        )
        self.id = next(RemovableHandle._ids)

    def remove(self):
        """Removes the hook this handle was returned for (safe to call twice)."""
        d = self._dict()
        if d is not None:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookDict(dict):
    """A dict that can be weakly referenced by its handles."""

    __slots__ = ("__weakref__",)


def _add_hook(hooks, hook):
    node_hooks[0] = 1  # (any hook: conservative, the engine then checks each node)
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def new_hook_dict():
    """An empty hook dictionary that the hooks' removable handles can weakly reference."""
    return _HookDict()
