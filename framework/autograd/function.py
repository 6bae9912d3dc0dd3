"""torch.autograd.Function: user-defined forward/backward on Tensors, recorded as one node.

Each Function subclass gets a node class `<Name>Backward` (as torch's metaclass does); the
node doubles as `ctx`. The engine drives it like any Op: it reads `_next`, calls
`backward(*grads)` under the engine's grad mode (so create_graph records the user's
backward) and calls `release()` to drop the saved tensors.
"""

import functools
import inspect

from ..tensor import Tensor
from . import op as _op
from .node import Node
from .grad_mode import fw_in_use, hooks_in_use, state


class FunctionCtx:
    """What forward/setup_context may call on `ctx`; any other attribute can be set freely."""

    def save_for_backward(self, *tensors):
        """Saves given tensors for a future call to :meth:`~Function.backward`; read them back
        there as ``ctx.saved_tensors``. Call it at most once, in ``forward`` (or ``setup_context``),
        with inputs, outputs or None; saving through it (rather than as ``ctx`` attributes) lets
        autograd detect in-place modifications and free the memory after backward.

        Args:
            *tensors (Tensor): the tensors to save (or None).

        Example:
            >>> class Exp(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         y = x.exp()
            ...         ctx.save_for_backward(y)
            ...         return y
            ...
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         (y,) = ctx.saved_tensors
            ...         return grad * y
            >>> x = framework.tensor([0.0, 1.0], requires_grad=True)
            >>> Exp.apply(x).sum().backward(); x.grad
            tensor([1.0000, 2.7183])
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{i} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Saves given tensors for a future call to :meth:`~Function.jvp` (forward-mode AD); read
        them back there as ``ctx.saved_tensors``.

        Args:
            *tensors (Tensor): the tensors to save (or None).

        Example:
            >>> import framework.autograd.forward_ad as fwAD
            >>> class Square(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_forward(x)
            ...         return x * x
            ...
            ...     @staticmethod
            ...     def jvp(ctx, t):
            ...         (x,) = ctx.saved_tensors
            ...         return 2 * x * t
            >>> with fwAD.dual_level():
            ...     y = Square.apply(fwAD.make_dual(framework.tensor(3.0), framework.tensor(1.0)))
            ...     fwAD.unpack_dual(y).tangent
            tensor(6.)
        """
        self._saved_for_forward = tensors

    def mark_non_differentiable(self, *tensors):
        """Marks outputs as non-differentiable (e.g. indices): they get ``requires_grad=False``,
        and backward still receives a gradient for them (zeros), which it should ignore. Call it at
        most once, in ``forward``, with outputs only.

        Args:
            *tensors (Tensor): the outputs that are not differentiable.

        Example:
            >>> class Sort(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         values, idx = x.sort()
            ...         ctx.mark_non_differentiable(idx)
            ...         ctx.save_for_backward(idx)
            ...         return values, idx
            ...
            ...     @staticmethod
            ...     def backward(ctx, grad, _):
            ...         (idx,) = ctx.saved_tensors
            ...         return framework.zeros_like(grad).scatter(0, idx, grad)
            >>> values, idx = Sort.apply(framework.tensor([3.0, 1.0], requires_grad=True))
            >>> values.requires_grad, idx.requires_grad
            (True, False)
        """
        self._non_diff = {id(t) for t in tensors}

    def mark_dirty(self, *tensors):
        """Marks given tensors as modified in an in-place operation by ``forward``: every tensor
        modified in place must be given here, and returned as an output. Call it at most once, in
        ``forward``.

        Args:
            *tensors (Tensor): the inputs modified in place.

        Example:
            >>> class AddOne_(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         x.add_(1)
            ...         ctx.mark_dirty(x)
            ...         return x
            ...
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         return grad
            >>> a = framework.tensor([1.0], requires_grad=True).clone()
            >>> b = AddOne_.apply(a)
            >>> b, b is a
            (tensor([2.], grad_fn=<AddOne_Backward>), True)
        """
        self._dirty = {id(t) for t in tensors}

    def set_materialize_grads(self, value):
        """Sets whether to materialize the output gradients: by default (True) a gradient that is
        undefined (the output was not used) reaches backward as a tensor of zeros; with False it
        arrives as None, and backward must handle it.

        Args:
            value (bool): whether to materialize the output gradients.

        Example:
            >>> class Pair(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.set_materialize_grads(False)
            ...         return x.clone(), x.clone()
            ...
            ...     @staticmethod
            ...     def backward(ctx, g1, g2):
            ...         print(g2 is None)
            ...         return g1
            >>> a, b = Pair.apply(framework.ones(2, requires_grad=True))
            >>> a.sum().backward()
            True
        """
        self._materialize = bool(value)

    _to_save = ()
    _non_diff = frozenset()
    _dirty = frozenset()
    _materialize = True


class BackwardCFunction(FunctionCtx, Node):
    """The graph node of one Function.apply call (torch's BackwardCFunction)."""

    _forward_cls = None
    _saved = ()
    _fw_saved = None  # forward AD: what save_for_forward saved, while jvp runs
    _freed_attrs = ("_saved",)

    def __repr__(self):
        # torch prints the node's full class path
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    @property
    def saved_tensors(self):
        """The tensors given to save_for_backward; outputs come back with this node as grad_fn."""
        if self._fw_saved is not None:
            return tuple(self._fw_saved)
        if self._released:
            raise RuntimeError(_op.FREED)
        out = []
        for kind, ref, version in self._saved:
            if kind == "packed":
                out.append(version(ref))  # version holds the unpack hook here
            elif kind == "output":
                i, array, vc, dev = ref
                if vc[0] != version:
                    raise _op._modified_error(array, vc[0], version, self, i)
                t = Tensor._make(array, dev, True, self, i)
                t._vc = vc
                out.append(t)
            else:
                if ref is not None and ref._vc[0] != version:
                    raise _op._modified_error(
                        ref._data, ref._vc[0], version, ref.grad_fn, ref._output_nr
                    )
                out.append(ref)
        return tuple(out)

    saved_variables = saved_tensors

    def check_saved(self):
        """Saved tensors are checked when backward unpacks them, as in torch."""

    def backward(self, *grads):
        """Called by the engine: materialise missing gradients, run the user's backward and
        map its per-argument results onto this node's tensor inputs."""
        if self._materialize:
            grads = tuple(
                _zeros(m) if g is None and m is not None else g
                for g, m in zip(grads, self._out_meta)
            )
        result = self._forward_cls.backward(self, *grads)
        if type(result) is not tuple:
            result = (result,)
        n_args = len(self._arg_is_tensor)
        if len(result) != n_args:
            if len(result) > n_args and all(r is None for r in result[n_args:]):
                result = result[:n_args]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of "
                    f"gradients (expected {n_args}, got {len(result)})"
                )
        out = []
        for pos, (g, is_tensor) in enumerate(zip(result, self._arg_is_tensor)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {pos + 1}, but the corresponding forward input was not a "
                        "Variable"
                    )
                continue
            k = len(out)
            if g is not None and self._next[k] is not None:
                _check_grad_shape(self, k, g)
            out.append(g if self._next[k] is not None else None)
        return tuple(out)

    apply = backward


def _zeros(meta):
    shape, dtype, dev = meta
    from ..backend import xp_for

    return Tensor._make(xp_for(dev).zeros(shape, dtype=dtype), dev)


def _check_grad_shape(node, k, g):
    shape = node._in_meta[k][0]
    gshape = tuple(g.shape)
    if gshape == shape:
        return
    # a gradient in a broadcast shape is fine (the engine sums it down), anything else is not
    ok = len(gshape) >= len(shape) and all(
        s == gs or s == 1 for s, gs in zip(shape[::-1], gshape[::-1])
    )
    if not ok:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {k} - got "
            f"[{', '.join(map(str, gshape))}] but expected shape compatible with "
            f"[{', '.join(map(str, shape))}]"
        )


class Function(FunctionCtx):
    r"""Base class to create custom autograd operations.

    Subclass it and define the static methods :meth:`forward` and :meth:`backward` (and
    optionally ``setup_context``), then call the operation through :meth:`apply`, never by
    calling ``forward`` directly. ``forward`` runs with autograd off and returns the output;
    the result gets a node (named ``<YourClass>Backward``) whose ``backward`` receives one
    gradient per output and returns one gradient per input (``None`` for inputs that need
    none).

    Inside ``forward``, ``ctx`` offers ``ctx.save_for_backward(*tensors)`` (read back as
    ``ctx.saved_tensors``), ``ctx.mark_dirty``, ``ctx.mark_non_differentiable``,
    ``ctx.set_materialize_grads`` and ``ctx.needs_input_grad``; any other attribute may be
    set on ``ctx`` to pass non-tensor values. ``backward`` written with tensor operations is
    itself differentiable (double backward works under ``create_graph=True``).

    Example:
        >>> import framework
        >>> class Exp(framework.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, i):
        ...         result = i.exp()
        ...         ctx.save_for_backward(result)
        ...         return result
        ...
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         result, = ctx.saved_tensors
        ...         return grad_output * result
        >>> x = framework.tensor([0.0, 1.0], requires_grad=True)
        >>> y = Exp.apply(x)
        >>> y.grad_fn.name()
        'ExpBackward'
        >>> y.sum().backward()
        >>> x.grad
        tensor([1.0000, 2.7183])
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(
            cls.__name__ + "Backward",
            (BackwardCFunction,),
            {"_forward_cls": cls, "__module__": __name__},
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args, **kwargs):
        """Defines the forward of the custom autograd Function; override it in every subclass (as a
        staticmethod). It runs with autograd off, on the arguments given to :meth:`apply`.

        Two styles: ``forward(ctx, *args, **kwargs)``, saving what backward needs on ``ctx``; or
        ``forward(*args, **kwargs)`` together with :meth:`setup_context`, which does the saving
        (needed for ``framework.func`` transforms in torch).

        Args:
            *args (Any): the arguments of :meth:`apply` (after ``ctx`` in the combined style).
            **kwargs (Any): the keyword arguments of :meth:`apply`.

        Returns:
            Tensor or tuple: the output(s).

        Example:
            >>> class Exp(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         y = x.exp()
            ...         ctx.save_for_backward(y)
            ...         return y
            >>> Exp.apply(framework.tensor([0.0]))
            tensor([1.])
        """
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Defines how ``ctx`` is set up when :meth:`forward` does not take it: called after
        ``forward`` with the inputs and the output. Override it (as a staticmethod) together with a
        ``forward`` without ``ctx``.

        Args:
            ctx (FunctionCtx): the context to save on.
            inputs (tuple): the positional inputs of :meth:`apply` (defaults filled in, as torch
                does).
            output (Any): what ``forward`` returned.

        Example:
            >>> class Mul(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(x, y):
            ...         return x * y
            ...
            ...     @staticmethod
            ...     def setup_context(ctx, inputs, output):
            ...         ctx.save_for_backward(*inputs)
            ...
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         x, y = ctx.saved_tensors
            ...         return grad * y, grad * x
            >>> x = framework.tensor(2.0, requires_grad=True)
            >>> Mul.apply(x, framework.tensor(5.0)).backward(); x.grad
            tensor(5.)
        """
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Defines the formula for differentiating the operation with backward mode automatic
        differentiation (``vjp`` is an alias); override it in every subclass (as a staticmethod).

        It receives as many gradients as ``forward`` returned outputs (the gradient w.r.t. each
        output) and returns as many values as ``forward`` took inputs: the gradient w.r.t. each
        input, or None for inputs that are not tensors or need no gradient (``ctx.needs_input_grad``
        tells which do). Written with tensor operations, it is itself differentiable (double
        backward with ``create_graph=True``).

        Args:
            ctx (FunctionCtx): the context saved by ``forward``/``setup_context``.
            *grad_outputs (Tensor): the gradient w.r.t. each output.

        Returns:
            Tensor or tuple: one gradient (or None) per input of ``forward``.

        Example:
            >>> class Exp(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         y = x.exp()
            ...         ctx.save_for_backward(y)
            ...         return y
            ...
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         (y,) = ctx.saved_tensors
            ...         return grad * y
            >>> x = framework.tensor(1.0, requires_grad=True)
            >>> (g,) = framework.autograd.grad(Exp.apply(x), x, create_graph=True)
            >>> g, framework.autograd.grad(g, x)[0]  # double backward
            (tensor(2.7183, grad_fn=<MulBackward0>), tensor(2.7183))
        """
        raise NotImplementedError(
            "You must implement either the backward or vjp method for "
            "your custom autograd.Function to use it with backward mode "
            "AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Defines the formula for differentiating the operation with forward mode automatic
        differentiation; override it (as a staticmethod) to use the Function under
        :mod:`~framework.autograd.forward_ad`.

        It receives one tangent per input of ``forward`` and returns one tangent per output.

        Args:
            ctx (FunctionCtx): the context saved by ``forward`` (see
                :meth:`FunctionCtx.save_for_forward`).
            *grad_inputs (Tensor): the tangent of each input.

        Returns:
            Tensor or tuple: the tangent of each output.

        Example:
            >>> import framework.autograd.forward_ad as fwAD
            >>> class Cube(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_forward(x)
            ...         return x ** 3
            ...
            ...     @staticmethod
            ...     def jvp(ctx, t):
            ...         (x,) = ctx.saved_tensors
            ...         return 3 * x ** 2 * t
            >>> with fwAD.dual_level():
            ...     y = Cube.apply(fwAD.make_dual(framework.tensor(2.0), framework.tensor(1.0)))
            ...     fwAD.unpack_dual(y).tangent
            tensor(12.)
        """
        raise NotImplementedError(
            "You must implement the jvp function for custom "
            "autograd.Function to use it with forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs the custom Function on the given arguments and records it in the graph: calls
        ``forward`` with autograd off (then ``setup_context`` if defined) and gives the outputs a
        ``grad_fn`` node named ``<ClassName>Backward``. Always call the Function this way, never
        ``forward`` directly.

        Args:
            *args (Any): the arguments of ``forward``.
            **kwargs (Any): its keyword arguments.

        Returns:
            Tensor or tuple: the outputs of ``forward``.

        Example:
            >>> class Exp(framework.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         y = x.exp()
            ...         ctx.save_for_backward(y)
            ...         return y
            ...
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         (y,) = ctx.saved_tensors
            ...         return grad * y
            >>> y = Exp.apply(framework.tensor([0.0, 1.0], requires_grad=True))
            >>> y.grad_fn.name()
            'ExpBackward'
        """
        separate = cls.setup_context is not Function.setup_context
        if kwargs or separate:
            # torch binds keywords and, for setup_context, defaults to positional inputs
            sig = inspect.signature(cls.forward)
            bound = sig.bind(*args, **kwargs) if separate else sig.bind(None, *args, **kwargs)
            bound.apply_defaults()
            args = bound.args if separate else bound.args[1:]
        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg for a in args)
        record = state.enabled and any(ctx.needs_input_grad)
        prev = state.enabled
        levels = state.fw_levels if fw_in_use[0] else ()
        state.enabled = False  # forward records nothing
        state.fw_levels = ()  # and sees no tangents
        try:
            if separate:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        finally:
            state.enabled = prev
            state.fw_levels = levels
        out = _wrap_outputs(ctx, args, output, record)
        if levels:
            from . import forward_ad

            forward_ad.function_jvp(cls, ctx, args, out)
        return out


def _wrap_outputs(ctx, args, output, record):
    """Give each tensor output this node as grad_fn and turn saved tensors into references."""
    is_tuple = type(output) is tuple
    outs = output if is_tuple else (output,)
    if record:  # edges first: a dirty input is about to be rebased onto this node
        tensors = [a for a in args if isinstance(a, Tensor)]
        ctx._edges = tuple(a._edge() if a._rg else None for a in tensors)
        ctx._in_meta = tuple((a._data.shape, a._data.dtype) if a._rg else None for a in tensors)
    input_ids = {id(a) for a in args if isinstance(a, Tensor)}
    new_outs, meta, out_index = [], [], {}
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            new_outs.append(o)
            meta.append(None)
            continue
        meta.append((o._data.shape, o._data.dtype, o._device))
        differentiable = record and id(o) not in ctx._non_diff
        if differentiable and id(o) in ctx._dirty and id(o) in input_ids:
            if o.grad_fn is None and o._rg:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation."
                )
            t = o  # modified in place: its history is rebased onto this node
            t._vc[0] += 1  # torch counts mark_dirty as a write
        elif id(o) in input_ids or (differentiable and (o.grad_fn is not None or o._rg)):
            t = Tensor._make(o._data, o._device)  # an input returned as is: a view of it
            t._vc = o._vc
        else:
            t = o
        if differentiable:
            t._rg, t.grad_fn, t._output_nr = True, ctx, i
            out_index[id(o)] = i
        new_outs.append(t)
    if record:
        ctx._out_meta = tuple(meta)
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._seq = next(_op._seq)
        ctx._trace = _op._anomaly_trace() if state.anomaly else None
        ctx._n_out = len(outs)
    ctx._saved = tuple(_saved_entry(ctx, t, out_index, new_outs, record) for t in ctx._to_save)
    # saved_tensors_hooks: keep only what pack returns
    if record and hooks_in_use[0] and state.saved_hooks:
        pack, unpack = state.saved_hooks[-1]
        ctx._saved = tuple(
            e
            if t is None
            else ("packed", pack(new_outs[e[1][0]] if e[0] == "output" else t), unpack)
            for e, t in zip(ctx._saved, ctx._to_save)
        )
    ctx._to_save = ()
    return tuple(new_outs) if is_tuple else new_outs[0]


def _saved_entry(ctx, t, out_index, new_outs, record):
    if t is None:
        return ("tensor", None, 0)
    i = out_index.get(id(t))
    if record and i is not None:
        # keep the array, not the output Tensor: no output -> node -> output cycle
        o = new_outs[i]
        return ("output", (i, o._data, o._vc, o._device), o._vc[0])
    return ("tensor", t, t._vc[0])


class _DelayedError(_op.Op):
    """Identity whose backward raises (torch's DelayedError, an Error node): marks grads
    computed by a once_differentiable backward, or a backward formula torch refuses to
    differentiate (`msg`)."""

    node_name = "torch::autograd::Error"
    msg = "trying to differentiate twice a function that was marked with @once_differentiable"

    def forward(self, x, *anchors, msg=None):
        if msg is not None:
            self.msg = msg
        return x.copy()

    def backward(self, grad):
        raise RuntimeError(self.msg)


def once_differentiable(fn):
    """Run a Function's backward without recording; differentiating it again raises.

    Args:
        fn (Callable): the ``backward`` staticmethod of a custom Function.

    Example:
        >>> from framework.autograd import Function, once_differentiable
        >>> class Cube(Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x**3
        ...
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return grad * 3 * x**2
        >>> x = framework.tensor([2.0], requires_grad=True)
        >>> (g,) = framework.autograd.grad(Cube.apply(x), x, create_graph=True)
        >>> g
        tensor([12.])
        >>> g.requires_grad  # backward ran without recording: no second derivative
        False
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = state.enabled
        state.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            state.enabled = prev
        if not state.enabled:
            return outputs
        anchors = [a for a in args if isinstance(a, Tensor) and a.requires_grad]
        if not anchors:
            return outputs
        wrap = lambda o: _DelayedError.apply(o, *anchors) if isinstance(o, Tensor) else o
        return tuple(map(wrap, outputs)) if type(outputs) is tuple else wrap(outputs)

    return wrapper


class InplaceFunction(Function):
    """Legacy base with an `inplace` flag, kept for old code."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Legacy base; only the name is provided for imports."""
