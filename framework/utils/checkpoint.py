"""torch.utils.checkpoint: trade compute for memory by recomputing activations in backward.

`checkpoint(fn, *args, use_reentrant=False)` runs `fn` keeping none of its intermediate
activations; backward runs `fn` again (with the random-number state of the first run, so
dropout masks repeat) to get them. Two variants, as torch:

- use_reentrant=False (recommended): the forward graph is recorded as usual, but every tensor
  it saves for backward is replaced by a small handle (a saved-tensor hook); the first unpack
  in backward recomputes `fn` and hands out the recomputed tensors in the same order.
- use_reentrant=True: `fn` runs under no_grad inside one autograd Function; its backward
  recomputes `fn` with grad enabled and calls backward on it (a reentrant backward). Like
  torch, it does not work with autograd.grad() or backward(inputs=...).
"""

import warnings

from .. import autograd
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError"]

_NO_REENTRANT = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed "
    "explicitly. Starting in PyTorch 2.9, calling checkpoint without use_reentrant "
    "will raise an exception. use_reentrant=False is recommended, but if you need "
    "to preserve the current default behavior, you can pass use_reentrant=True. "
    "Refer to docs for more details on the differences between the two variants."
)
_NO_REENTRANT_SEQ = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
    "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)


class CheckpointError(RuntimeError):
    """Recomputation did not reproduce the forward (a different number of saved tensors)."""


def _rng_state():
    import framework

    return framework.get_rng_state()


def _set_rng_state(state):
    import framework

    framework.set_rng_state(state)


def noop_context_fn():
    """The default ``context_fn`` of :func:`checkpoint`: two null contexts (forward, recompute)."""
    import contextlib

    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=noop_context_fn,
    determinism_check="default",
    debug=False,
    early_stop=True,
    **kwargs,
):
    r"""Run `function(*args)` without keeping its activations; backward recomputes them.

    Args:
        function: the part of the model to checkpoint.
        \*args: its inputs.
        use_reentrant: False (recommended) or True; see the module docstring. Not passing it
            warns, as in torch, and means True.
        preserve_rng_state: replay the random-number state in the recomputation (default
            True), so dropout inside gives the same masks.
        context_fn (Callable, optional): returns two context managers, for the forward and the
            recomputation (non-reentrant only). Default: a no-op pair.
        determinism_check (str, optional): ``'default'`` compares the recomputed tensors' shapes,
            dtypes and devices with the first run; ``'none'`` skips that. Default: ``'default'``.
        debug (bool, optional): accepted for torch compatibility. Default: ``False``.
        early_stop (bool, optional): accepted for torch compatibility (recomputation runs whole).
            Default: ``True``.

    Returns:
        ``function(*args)``.

    Example:
        >>> lin = framework.nn.Linear(4, 4)
        >>> x = framework.randn(2, 4, requires_grad=True)
        >>> y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
        >>> y.sum().backward(); x.grad.shape
        torch.Size([2, 4])
    """
    if use_reentrant is None:
        warnings.warn(_NO_REENTRANT, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequential model in `segments` chunks (the last one runs normally).

    Args:
        functions: an nn.Sequential or a list of modules/functions run in order.
        segments: how many chunks to split them into.
        input: the input tensor.
        use_reentrant, preserve_rng_state: as for checkpoint().

    Example:
        >>> model = framework.nn.Sequential(*[framework.nn.Linear(3, 3) for _ in range(4)])
        >>> x = framework.randn(2, 3, requires_grad=True)
        >>> checkpoint_sequential(model, 2, x, use_reentrant=False).shape
        torch.Size([2, 3])
    """
    if use_reentrant is None:
        warnings.warn(_NO_REENTRANT_SEQ, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # the last chunk runs without checkpointing: its output is needed anyway
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)


# ----- use_reentrant=True ---------------------------------------------------------------------


def _detach(inputs):
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad_(inp.requires_grad)
            inp = x
        out.append(inp)
    return tuple(out)


class CheckpointFunction(autograd.Function):
    """The reentrant variant: forward without a graph, backward recomputes and differentiates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not any(a.requires_grad for a in args if isinstance(a, Tensor)):
            warnings.warn(
                "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
            )
        ctx.run_function, ctx.preserve_rng_state = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_rng_state = _rng_state()
        ctx.inputs, ctx.tensor_indices, tensors = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not autograd._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        outer = _rng_state() if ctx.preserve_rng_state else None
        try:
            if ctx.preserve_rng_state:
                _set_rng_state(ctx.fwd_rng_state)
            detached = _detach(inputs)
            with enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            if outer is not None:
                _set_rng_state(outer)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(
            inp.grad if isinstance(inp, Tensor) else None for inp in detached
        )


# ----- use_reentrant=False --------------------------------------------------------------------


class _Frame:
    """One checkpointed call: how to rerun it, and the tensors the rerun saved."""

    def __init__(self, function, preserve, args, kwargs):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state = _rng_state() if preserve else None
        self.count = 0  # tensors saved by the first run
        self.recomputed = {}  # index -> tensor, filled by a rerun, emptied by unpacking

    def pack(self, tensor):
        self.count += 1
        return _Handle(self, self.count - 1)  # the tensor itself is not kept

    def unpack(self, handle):
        if handle.index not in self.recomputed:
            self.recompute()
        return self.recomputed.pop(handle.index)

    def recompute(self):
        saved = []

        def keep(t):
            saved.append(t)
            return t

        outer = _rng_state() if self.rng_state is not None else None
        try:
            if self.rng_state is not None:
                _set_rng_state(self.rng_state)
            with enable_grad(), saved_tensors_hooks(keep, lambda t: t):
                self.function(*self.args, **self.kwargs)
        finally:
            if outer is not None:
                _set_rng_state(outer)
        if len(saved) < self.count:  # more is fine: torch stops early once it has enough
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {self.count}\n"
                f"Number of tensors saved during recomputation: {len(saved)}."
            )
        self.recomputed = dict(enumerate(saved[: self.count]))


class _Handle:
    """What a checkpointed forward saves instead of a tensor."""

    __slots__ = ("frame", "index")

    def __init__(self, frame, index):
        self.frame, self.index = frame, index


def _checkpoint_without_reentrant(function, preserve, context_fn, args, kwargs):
    frame = _Frame(function, preserve, args, kwargs)
    forward_ctx, _ = context_fn()
    with forward_ctx, saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)
