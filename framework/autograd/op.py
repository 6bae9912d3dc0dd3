"""Op: one differentiable primitive and, once applied in grad mode, its graph node.

Cross-cutting rules live here: device checks, Python-scalar dtypes, type promotion,
recording the node, saving exactly what backward declares, version checks and freeing.
"""

import itertools
import types
import re

import numpy as _np

from .. import dtypes
from .._errors import broadcast_shapes
from ..backend import CPU as _CPU, xp_for
from ..tensor import Tensor
from ..amp.autocast_mode import cast as _amp_cast, in_use as _amp_in_use, state as _amp
from .grad_mode import _State, fw_in_use, grad_off, hooks_in_use, state
from . import forward_ad as _fw
from .saved import install as install_saved, pack_node, unpack_node
from .node import (
    FREED,
    Node,
    RemovableHandle,  # noqa: F401
    _add_hook,  # noqa: F401
    new_hook_dict,  # noqa: F401
    node_class,
)

_seq = itertools.count()
_new = object.__new__
_ndarray = _np.ndarray
_F32, _F64 = _np.dtype("float32"), _np.dtype("float64")
_ONE_TRUE = (True,)
_V0, _V00, _V000 = (
    (0,),
    (0, 0),
    (0, 0, 0),
)  # saved versions of inputs never modified: shared, not per node
#                           (and the output indices `_nrs` of edges to first outputs)

# Input metadata ((shape, dtype) per input) shared between nodes: every recorded node would
# otherwise keep 3-5 small tuples alive, which the cyclic GC counts and walks (a chain of
# 20,000 ops: ~100,000 objects). One table per dtype (of the first input), keyed by the shapes
# (and, for two inputs, the second's dtype and which need grad): a key without the dtypes
# hashes and compares in a third of the time. Bounded, as shapes vary without limit.
_metas = {}
_n_metas = [0]


# torch's set_history refuses a node whose output autograd does not differentiate (an int or
# bool tensor that requires grad, made by a fill_ or index_put_ of one that does, then any op
# with an int output); in-place writes rebase history instead and are not checked (a count:
# Tensor._inplace's recorded call)
_int_out_allowed = [0]


def _not_differentiable(dtype):
    """torch's error for a recorded node with an int or bool output."""
    from .. import dtypes

    return RuntimeError(f"Autograd not support dtype: {dtypes.scalar_type_name(dtype)}")


def _metas_of(dtype):
    table = _metas.get(dtype)
    if table is None:
        table = _metas[dtype] = {}
    return table


_META32, _META64 = _metas_of(_F32), _metas_of(_F64)  # apply's fast path: the dtypes it takes
_PAIR32, _PAIR64 = {}, {}  # its two operands of one shape and dtype: shape -> _pair_metas


def _pair_metas(shape, dt):
    """The (input metadata, needs_input_grad) of two operands of one shape and dtype, for
    both, the first and the second requiring grad: keyed by the shape alone, a lookup hashes
    one shape instead of a tuple of two shapes and two flags (~0.15 us less per node)."""
    m = (shape, dt)
    return (((m, m), (True, True)), ((m, None), (True, False)), ((None, m), (False, True)))


def _meta(table, key, value):
    if _n_metas[0] < 4096:
        _n_metas[0] += 1
        table[key] = value
    return value


def _grad_node(a):
    """The node that receives the gradient of `a` (which requires grad): its grad_fn, or as a
    leaf its AccumulateGrad node (from the weak reference when there is one)."""
    g = a.grad_fn
    if g is None:
        g = a._acc
        g = g() if g is not None else None
        if g is None:
            g = a._edge()[0]
    return g


vmap_hook = [0, None]  # [active vmap levels, framework.func's dispatcher]


def _record_variant(self, args, out, dev):
    """_record for ops whose node name depends on their arguments (no cost for the others)."""
    name = self.node_variant()
    node = self._nodes.get(name) or self._node(name)  # _as, inlined
    if node is not type(self):  # (a class assignment costs ~0.1 us)
        self.__class__ = node
    return self._op_record(args, out, dev)


_OWN_COPY = ("apply", "_unary", "_binary", "_apply", "_record", "check_saved", "inputs", "output")


def _function_of(attr):
    """The function behind a class attribute: a classmethod's, a property's getter, or itself."""
    if isinstance(attr, classmethod):
        return attr.__func__
    return attr.fget if isinstance(attr, property) else attr


def _own_copy(attr):
    """`attr` (a method, classmethod or property of Op) with a code object of its own.

    CPython specializes attribute reads and writes per code object, for the type it sees
    there: a method of Op shared by every op class sees another node class on each call in a
    graph of mixed ops and falls back to the generic lookups (a chain alternating mul and add
    recorded ~250 ns per op slower than one of either). Each op class gets its own copy of the
    hot ones, which only sees that class (a few KB of bytecode per class)."""
    fn = _function_of(attr)
    copy = types.FunctionType(
        fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    copy.__qualname__, copy.__doc__, copy.__kwdefaults__ = (
        fn.__qualname__,
        fn.__doc__,
        fn.__kwdefaults__,
    )
    copy._copy_of = fn
    if isinstance(attr, classmethod):
        return classmethod(copy)
    return (
        property(copy, attr.fset, attr.fdel, attr.__doc__) if isinstance(attr, property) else copy
    )


def _is_ops(cls, name):
    """True when `cls` keeps Op's attribute `name` (or a copy of it from _own_copy)."""
    attr = next(base.__dict__[name] for base in cls.__mro__ if name in base.__dict__)
    fn = _function_of(attr)
    return getattr(fn, "_copy_of", fn) is _function_of(Op.__dict__[name])


def per_sample_under_vmap(fn):
    """For op wrappers that read tensor values in Python (counts, bins, quantiles): under
    vmap, with a batched tensor argument, run them per sample and stack the results."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if vmap_hook[0]:
            from ..func._paths import loop_if_batched

            keys = list(kwargs)
            n = len(args)
            out = loop_if_batched(
                lambda *a: fn(*a[:n], **dict(zip(keys, a[n:]))), *args, *kwargs.values()
            )
            if out is not NotImplemented:
                return out
        return fn(*args, **kwargs)

    return wrapper


def _as_arrays(out):
    """A forward's result with NumPy's 0-dim scalars made arrays again (one or a tuple)."""
    if type(out) is tuple:
        return tuple(_np.asarray(o) if isinstance(o, _np.generic) else o for o in out)
    if isinstance(out, _np.generic):  # NumPy turns 0-dim results into scalars
        return _np.asarray(out)
    return out


def _finish(cls, fn, args, out, dev, requires):
    """apply's fast path for a result that is not one ndarray (a tuple, a NumPy scalar, a
    CuPy array): the general path's ending (no half dtype, no forward AD there)."""
    out = _as_arrays(out)
    if not (requires and state.enabled and cls.differentiable):
        if type(out) is tuple:
            return tuple(Tensor._make(o, dev) for o in out)
        return Tensor._make(out, dev)
    return fn._record(args, out, dev)


def _same_device_error(a, b):
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{a} and {b}!"
    )


class Op(Node):
    """Base class of primitives. Subclasses define forward(*arrays, **params) -> array(s)
    and backward(*grads) -> gradient Tensor(s) (one per input, or None).

    Each subclass gets a node class named as torch names its node (`node_name`, by default
    `<ClassName>Backward0`); `apply` records an instance of it. An op whose node name depends
    on its arguments switches with `self._as("SumBackward1")` in forward.
    """

    # Hot per-node state lives in slots; rarely set state (hooks, retain_grad, anomaly traces,
    # op metadata) falls back to the class defaults and lands in __dict__ when set.
    __slots__ = (
        "xp",
        "_inputs",
        "_versions",
        "_out",
        "_out_vc",
        "_out_version",
        "_next",
        "_nrs",
        "_in_meta",
        "needs_input_grad",
        "_seq",
        "_n_out",
        "_released",  # (set False at creation: release() then makes no instance dict)
        "__weakref__",
        "__dict__",
    )
    saves_inputs = False  # backward reads self.inputs
    saves_output = False  # backward reads self.output
    saves = ()  # names of other attributes holding arrays that backward reads
    saved_for = None  # per input, the inputs whose gradient reads it (None: all do);
    #                        torch only saves (and version-checks) an input that is needed
    promote = False  # inputs are promoted to torch's common dtype
    broadcasts = False  # inputs broadcast together (implied by promote)
    non_differentiable = ()  # output indices that never require grad (e.g. argmax indices)
    differentiable = True  # False: never recorded (comparisons, argmax)
    casts = False  # True: the output dtype is the one asked for (to(), type casts)
    views = False  # True: the output views the input's memory (bfloat16 runs as is)
    opmath_scalars = False  # half: a scalar second operand is not rounded (torch's mul/div)
    half = None  # while a half op computes in float32: its dtype (bfloat16 or float16)
    no_bfloat16 = None  # torch's CPU kernel lacks bfloat16 (and float16): its kernel name (->
    #                "... not implemented for 'BFloat16'") or its RuntimeError message
    no_bfloat16_empty = False  # no_bfloat16 refuses empty inputs too (a dispatch-time check)
    node_variant = None  # a method returning the node name where it depends on arguments
    _fw_out = None  # forward AD: the output Tensor while the jvp rule runs
    _out_fw = None  # forward AD: the saved output's tangents (for backward)
    _outs_fw = None  # forward AD: every output's tangents, for multi-output ops (output_at)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_op" in cls.__dict__:  # a node class made below
            return
        cls._op = cls
        cls._freed_attrs = (
            (("_inputs",) if cls.saves_inputs else ())
            + (("_out",) if cls.saves_output else ())
            + tuple(cls.saves)
        )
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward0"
        cls._nodes = {}
        cls._node_cls = cls._node(name)
        if cls.node_variant is not None and "_record" not in cls.__dict__:
            cls._record = _record_variant
        if "saved_fields" in cls.__dict__:
            install_saved(cls, cls.saved_fields)
        cls._plain_record = _is_ops(cls, "_record")  # apply may inline it (one tensor)
        # the engine may inline check_saved and release (and skip the first when nothing is
        # saved) for nodes that keep Op's and Node's
        cls._plain_saved = _is_ops(cls, "check_saved") and cls.release is Node.release
        if not _is_ops(cls, "apply"):  # an op of its own apply: the positional entries too
            cls._unary = classmethod(lambda c, a: c.apply(a))
            cls._binary = classmethod(lambda c, a, b: c.apply(a, b))
        for name in _OWN_COPY:  # Op's hot methods, one copy per op class (see _own_copy)
            if _is_ops(cls, name):
                setattr(cls, name, _own_copy(Op.__dict__[name]))
        cls._op_record = cls._record if cls._plain_record else _own_copy(Op.__dict__["_record"])

    @classmethod
    def _node(cls, name):
        node = cls._nodes.get(name)
        if node is None:
            node = cls._nodes[name] = node_class(cls._op, name, _op=cls._op)
            fields = getattr(cls._op, "variant_saved_fields", {}).get(name)
            if fields:
                install_saved(node, fields)
        return node

    def _as(self, name):
        """Become the node called `name` (ops whose torch node depends on the arguments)."""
        node = self._nodes.get(name)
        self.__class__ = node if node is not None else self._node(name)

    @classmethod
    def apply(cls, *args, **params):
        """Run the op on `args` (Tensors, Python scalars, None) and record its node when an
        input requires grad and grad mode is on; returns the output Tensor(s)."""
        # The common call: one or two tensors of one float32/float64 dtype on one device, no
        # vmap, forward AD or autocast. What the general path would decide for it is known
        # (no promotion, no scalar, no half dtype), so it goes straight to forward and _record.
        if not (vmap_hook[0] or fw_in_use[0] or _amp_in_use[0]):
            n = len(args)
            if n == 1:
                a = args[0]
                if isinstance(a, Tensor):  # (Parameters too)
                    da = a._data
                    dt = da.dtype
                    if dt is _F32 or dt is _F64:
                        dev = a._device
                        fn = _new(cls._node_cls)
                        fn._released = False
                        fn.xp = _np if dev is _CPU else xp_for(dev)
                        out = fn.forward(da, **params) if params else fn.forward(da)
                        if type(out) is _ndarray:
                            if not (
                                a._rg and (not grad_off[0] or state.enabled) and cls.differentiable
                            ):
                                return Tensor._make(out, dev)
                            if not cls._plain_record:
                                return fn._record(args, out, dev)
                            # _record's one-tensor case, inlined (one call less per node)
                            fn._seq = next(_seq)
                            if _State.anomaly:
                                fn._trace = _anomaly_trace()
                            fn.needs_input_grad = _ONE_TRUE
                            g = a.grad_fn
                            if g is not None:
                                nr = a._output_nr
                                fn._next, fn._nrs = (g,), (_V0 if not nr else (nr,))
                            else:
                                fn._next, fn._nrs = (a._edge()[0],), _V0
                            table = _META32 if dt is _F32 else _META64  # (no dtype hash)
                            shape = da.shape
                            meta = table.get(shape)
                            fn._in_meta = (
                                meta if meta is not None else _meta(table, shape, ((shape, dt),))
                            )
                            if fn.saves_inputs:
                                fn._inputs = args
                                v = a._vc[0]
                                fn._versions = _V0 if not v else (v,)
                            fn._n_out = 1
                            t = _new(Tensor)  # Tensor._make(out, dev, True, fn, 0), inlined
                            t._data, t._device, t._rg, t.grad, t.grad_fn, t._output_nr = (
                                out,
                                dev,
                                True,
                                None,
                                fn,
                                0,
                            )
                            t._vc = vc = [0]
                            if fn.saves_output:
                                fn._out, fn._out_vc, fn._out_version = out, vc, 0
                            if hooks_in_use[0] and fn._freed_attrs and state.saved_hooks:
                                fn._pack_saved()
                            return t
                        return _finish(cls, fn, args, out, dev, a._rg)
            elif n == 2:
                a, b = args
                if isinstance(a, Tensor) and isinstance(b, Tensor):
                    da, db = a._data, b._data
                    dt = da.dtype
                    dev = a._device
                    if (dt is _F32 or dt is _F64) and db.dtype is dt and b._device is dev:
                        fn = _new(cls._node_cls)
                        fn._released = False
                        fn.xp = _np if dev is _CPU else xp_for(dev)
                        try:
                            out = fn.forward(da, db, **params) if params else fn.forward(da, db)
                        except Exception:  # torch checks shapes first: a broadcast error wins
                            if cls.promote or cls.broadcasts:
                                broadcast_shapes(da.shape, db.shape)
                            raise
                        ra, rb = a._rg, b._rg
                        if type(out) is _ndarray:
                            if not (
                                (ra or rb)
                                and (not grad_off[0] or state.enabled)  # (grad_mode)
                                and cls.differentiable
                            ):
                                return Tensor._make(out, dev)
                            if not cls._plain_record:
                                return fn._record(args, out, dev)
                            # _record's two-tensor case, inlined (one call less per node)
                            fn._seq = next(_seq)
                            if _State.anomaly:
                                fn._trace = _anomaly_trace()
                            ga, gb = a.grad_fn, b.grad_fn
                            if ga is None and ra:  # a leaf: as in _record
                                ga = a._acc
                                ga = ga() if ga is not None else None
                                if ga is None:
                                    ga = a._edge()[0]
                            if gb is None and rb:
                                gb = b._acc
                                gb = gb() if gb is not None else None
                                if gb is None:
                                    gb = b._edge()[0]
                            fn._next = (ga if ra else None, gb if rb else None)
                            na, nb = a._output_nr, b._output_nr
                            fn._nrs = _V00 if not (na or nb) else (na, nb)
                            sa, sb = da.shape, db.shape
                            if sa == sb:  # operands of one shape: one hash of it (_pair_metas)
                                table = _PAIR32 if dt is _F32 else _PAIR64
                                metas = table.get(sa)
                                if metas is None:
                                    metas = _meta(table, sa, _pair_metas(sa, dt))
                                meta = metas[0 if ra and rb else 1 if ra else 2]
                            else:
                                table = _META32 if dt is _F32 else _META64  # (no dtype hash)
                                key = (sa, sb, ra, rb)  # (one dtype: _record's key)
                                meta = table.get(key)
                                if meta is None:
                                    meta = _meta(
                                        table,
                                        key,
                                        (
                                            ((sa, dt) if ra else None, (sb, dt) if rb else None),
                                            (bool(ra), bool(rb)),
                                        ),
                                    )
                            fn._in_meta, fn.needs_input_grad = meta
                            if fn.saves_inputs:
                                fn._inputs = args
                                v, w = a._vc[0], b._vc[0]
                                fn._versions = _V00 if not (v or w) else (v, w)
                            fn._n_out = 1
                            t = _new(Tensor)  # Tensor._make(out, dev, True, fn, 0), inlined
                            t._data, t._device, t._rg, t.grad, t.grad_fn, t._output_nr = (
                                out,
                                dev,
                                True,
                                None,
                                fn,
                                0,
                            )
                            t._vc = vc = [0]
                            if fn.saves_output:
                                fn._out, fn._out_vc, fn._out_version = out, vc, 0
                            if hooks_in_use[0] and fn._freed_attrs and state.saved_hooks:
                                fn._pack_saved()
                            return t
                        return _finish(cls, fn, args, out, dev, ra or rb)
            elif n == 3:  # (addmm of Linear, addcmul, where)
                a, b, c = args
                if isinstance(a, Tensor) and isinstance(b, Tensor) and isinstance(c, Tensor):
                    da, db, dc = a._data, b._data, c._data
                    dt = da.dtype
                    dev = a._device
                    if (
                        (dt is _F32 or dt is _F64)
                        and db.dtype is dt
                        and dc.dtype is dt
                        and b._device is dev
                        and c._device is dev
                    ):
                        fn = _new(cls._node_cls)
                        fn._released = False
                        fn.xp = _np if dev is _CPU else xp_for(dev)
                        try:
                            out = fn.forward(da, db, dc, **params)
                        except Exception:  # as above
                            if cls.promote or cls.broadcasts:
                                broadcast_shapes(da.shape, db.shape, dc.shape)
                            raise
                        requires = a._rg or b._rg or c._rg
                        if type(out) is _ndarray:
                            if (
                                requires
                                and (not grad_off[0] or state.enabled)
                                and cls.differentiable
                            ):
                                return fn._record(args, out, dev)
                            return Tensor._make(out, dev)
                        return _finish(cls, fn, args, out, dev, requires)
        return cls._apply(args, params)

    @classmethod
    def _unary(cls, a):
        """apply(a) with one argument and no parameters: its one-tensor fast path with the
        argument positional (no *args tuple, no **params dict: ~0.1 us less per call), for
        the hot callers (relu); anything else takes apply's general path."""
        if not (vmap_hook[0] or fw_in_use[0] or _amp_in_use[0]):
            if isinstance(a, Tensor):  # (Parameters too)
                da = a._data
                dt = da.dtype
                if dt is _F32 or dt is _F64:
                    dev = a._device
                    fn = _new(cls._node_cls)
                    fn._released = False
                    fn.xp = _np if dev is _CPU else xp_for(dev)
                    out = fn.forward(da)
                    if type(out) is _ndarray:
                        if not (
                            a._rg and (not grad_off[0] or state.enabled) and cls.differentiable
                        ):
                            return Tensor._make(out, dev)
                        if not cls._plain_record:
                            return fn._record((a,), out, dev)
                        # _record's one-tensor case, inlined (one call less per node)
                        fn._seq = next(_seq)
                        if _State.anomaly:
                            fn._trace = _anomaly_trace()
                        fn.needs_input_grad = _ONE_TRUE
                        g = a.grad_fn
                        if g is not None:
                            nr = a._output_nr
                            fn._next, fn._nrs = (g,), (_V0 if not nr else (nr,))
                        else:
                            fn._next, fn._nrs = (a._edge()[0],), _V0
                        table = _META32 if dt is _F32 else _META64  # (no dtype hash)
                        shape = da.shape
                        meta = table.get(shape)
                        fn._in_meta = (
                            meta if meta is not None else _meta(table, shape, ((shape, dt),))
                        )
                        if fn.saves_inputs:
                            fn._inputs = (a,)
                            v = a._vc[0]
                            fn._versions = _V0 if not v else (v,)
                        fn._n_out = 1
                        t = _new(Tensor)  # Tensor._make(out, dev, True, fn, 0), inlined
                        t._data, t._device, t._rg, t.grad, t.grad_fn, t._output_nr = (
                            out,
                            dev,
                            True,
                            None,
                            fn,
                            0,
                        )
                        t._vc = vc = [0]
                        if fn.saves_output:
                            fn._out, fn._out_vc, fn._out_version = out, vc, 0
                        if hooks_in_use[0] and fn._freed_attrs and state.saved_hooks:
                            fn._pack_saved()
                        return t
                    return _finish(cls, fn, (a,), out, dev, a._rg)
        return cls._apply((a,), {})

    @classmethod
    def _binary(cls, a, b):
        """apply(a, b) without parameters: its two-tensor fast path with the arguments
        positional (no *args tuple, no **params dict: ~0.1 us less per call), for the hot
        callers (Tensor's + and *, matmul); anything else takes apply's general path."""
        if not (vmap_hook[0] or fw_in_use[0] or _amp_in_use[0]):
            if isinstance(a, Tensor) and isinstance(b, Tensor):
                da, db = a._data, b._data
                dt = da.dtype
                dev = a._device
                if (dt is _F32 or dt is _F64) and db.dtype is dt and b._device is dev:
                    fn = _new(cls._node_cls)
                    fn._released = False
                    fn.xp = _np if dev is _CPU else xp_for(dev)
                    try:
                        out = fn.forward(da, db)
                    except Exception:  # torch checks shapes first: a broadcast error wins
                        if cls.promote or cls.broadcasts:
                            broadcast_shapes(da.shape, db.shape)
                        raise
                    ra, rb = a._rg, b._rg
                    if type(out) is _ndarray:
                        if not (
                            (ra or rb)
                            and (not grad_off[0] or state.enabled)  # (grad_mode)
                            and cls.differentiable
                        ):
                            return Tensor._make(out, dev)
                        if not cls._plain_record:
                            return fn._record((a, b), out, dev)
                        # _record's two-tensor case, inlined (one call less per node)
                        fn._seq = next(_seq)
                        if _State.anomaly:
                            fn._trace = _anomaly_trace()
                        ga, gb = a.grad_fn, b.grad_fn
                        if ga is None and ra:  # a leaf: as in _record
                            ga = a._acc
                            ga = ga() if ga is not None else None
                            if ga is None:
                                ga = a._edge()[0]
                        if gb is None and rb:
                            gb = b._acc
                            gb = gb() if gb is not None else None
                            if gb is None:
                                gb = b._edge()[0]
                        fn._next = (ga if ra else None, gb if rb else None)
                        na, nb = a._output_nr, b._output_nr
                        fn._nrs = _V00 if not (na or nb) else (na, nb)
                        sa, sb = da.shape, db.shape
                        if sa == sb:  # operands of one shape: one hash of it (_pair_metas)
                            table = _PAIR32 if dt is _F32 else _PAIR64
                            metas = table.get(sa)
                            if metas is None:
                                metas = _meta(table, sa, _pair_metas(sa, dt))
                            meta = metas[0 if ra and rb else 1 if ra else 2]
                        else:
                            table = _META32 if dt is _F32 else _META64  # (no dtype hash)
                            key = (sa, sb, ra, rb)  # (one dtype: _record's key)
                            meta = table.get(key)
                            if meta is None:
                                meta = _meta(
                                    table,
                                    key,
                                    (
                                        ((sa, dt) if ra else None, (sb, dt) if rb else None),
                                        (bool(ra), bool(rb)),
                                    ),
                                )
                        fn._in_meta, fn.needs_input_grad = meta
                        if fn.saves_inputs:
                            fn._inputs = (a, b)
                            v, w = a._vc[0], b._vc[0]
                            fn._versions = _V00 if not (v or w) else (v, w)
                        fn._n_out = 1
                        t = _new(Tensor)  # Tensor._make(out, dev, True, fn, 0), inlined
                        t._data, t._device, t._rg, t.grad, t.grad_fn, t._output_nr = (
                            out,
                            dev,
                            True,
                            None,
                            fn,
                            0,
                        )
                        t._vc = vc = [0]
                        if fn.saves_output:
                            fn._out, fn._out_vc, fn._out_version = out, vc, 0
                        if hooks_in_use[0] and fn._freed_attrs and state.saved_hooks:
                            fn._pack_saved()
                        return t
                    return _finish(cls, fn, (a, b), out, dev, ra or rb)
        return cls._apply((a, b), {})

    @classmethod
    def _apply(cls, args, params):
        """apply's general path: vmap, forward AD, autocast, scalars, promotion, half dtypes."""
        if vmap_hook[0]:  # under vmap: a batched argument goes to the op's batching rule
            out = vmap_hook[1](cls, args, params)
            if out is not NotImplemented:
                return out
        if fw_in_use[0] and cls.jvp is Op.jvp_not_implemented:  # torch refuses a tangent
            _fw.refuse_early(cls, args)  # before its kernel checks the inputs
        fn = _new(cls._node_cls)
        fn._released = False
        dev = dtype = None
        mixed = has_scalar = False
        n = len(args)
        a = args[0] if n else None
        if n == 1 and isinstance(a, Tensor):  # the common unary case (views, Parameters too)
            dev, dtype, requires = a._device, a._data.dtype, a._rg
        elif n == 2 and isinstance(a, Tensor) and isinstance(args[1], Tensor):  # binary
            b = args[1]
            dev, dtype = a._device, a._data.dtype
            if b._device is not dev and b._device != dev:
                raise _same_device_error(dev, b._device)
            mixed = b._data.dtype is not dtype and b._data.dtype != dtype
            requires = a._rg or b._rg
        else:
            requires = False
            for a in args:
                if isinstance(a, Tensor):
                    if dev is None:
                        dev, dtype = a._device, a._data.dtype
                    else:
                        if a._device is not dev and a._device != dev:
                            raise _same_device_error(dev, a._device)
                        if a._data.dtype != dtype:
                            mixed = True
                    if a._rg:
                        requires = True
                elif a is not None:
                    has_scalar = True
            if dev is None:
                dev = _CPU
        xp = fn.xp = _np if dev is _CPU else xp_for(dev)
        amp = _amp_in_use[0] and _amp.active
        if amp:  # autocast: torch's op lists decide this op's input dtypes
            args = _amp_cast(cls.__name__, dev.type, *args)
        given = args  # before promotion: torch's mul/div read a scalar operand unrounded
        if has_scalar or (mixed and cls.promote):
            args = _unify(cls, args, xp, dev)
        half = (
            (mixed or amp or (dtype is not None and dtype.itemsize == 2 and dtype.kind in "Vf"))
            and dtype is not None
            and not (cls.casts or cls.views)
            and _bf16_of(args)
        )
        try:
            if half:  # bfloat16/float16: computed in float32, each result rounded, as torch's
                if (
                    cls.no_bfloat16 is not None
                    and (half.kind == "V" or dev is _CPU)  # torch's CPU kernels lack both
                    and (
                        " " in cls.no_bfloat16
                        or cls.no_bfloat16_empty
                        or any(a is not None and a._data.size for a in args)
                    )
                ):  # no kernel runs on
                    raise _bf16_refusal(cls.no_bfloat16, half)  # empty inputs
                fn.half = half
                out = fn.forward(*_upcast(cls, args, half, given), **params)
            elif len(args) == 2 and args[0] is not None and args[1] is not None:  # common
                out = (  # a plain call is cheaper than one with **{}
                    fn.forward(args[0]._data, args[1]._data, **params)
                    if params
                    else fn.forward(args[0]._data, args[1]._data)
                )
            elif len(args) == 1:
                out = fn.forward(args[0]._data, **params) if params else fn.forward(args[0]._data)
            else:
                out = fn.forward(*[a._data if a is not None else None for a in args], **params)
        except Exception:  # torch checks shapes first: a broadcast error wins (free unless raised)
            if cls.promote or cls.broadcasts:
                broadcast_shapes(*[a._data.shape for a in args if isinstance(a, Tensor)])
            raise
        if type(out) is not _ndarray:
            out = _as_arrays(out)
        if half and params.get("dtype") is None:  # an op asked for a dtype returns that one
            out = _round_bf16(out, half)
        if fw_in_use[0]:  # a forward AD level is open (in some thread): tangents too
            return _fw.apply(
                fn, args, out, dev, requires and state.enabled and cls.differentiable, params
            )
        if not (requires and state.enabled and cls.differentiable):
            if type(out) is tuple:
                return tuple(Tensor._make(o, dev) for o in out)
            return Tensor._make(out, dev)
        if mixed and args is not given:  # promoted inside the op, as torch's kernels do
            return _edges_to_given(fn, fn._record(args, out, dev), given, args)
        return fn._record(args, out, dev)

    def _record(self, args, out, dev):
        """Make this op a graph node: edges, saved data and the output tensor(s).

        Tuples, not lists: a tuple of untracked items leaves the cyclic GC's lists at its first
        collection, so large graphs are cheaper to walk (see benchmarks/README notes)."""
        self._seq = next(_seq)
        if _State.anomaly:  # process-wide: set on the class, read there (no thread-local read)
            self._trace = _anomaly_trace()
        n = len(args)
        if n == 1:  # single-input fast path: the input requires grad (else no node)
            a = args[0]
            self.needs_input_grad = _ONE_TRUE
            g = a.grad_fn
            if g is not None:
                nr = a._output_nr
                self._next, self._nrs = (g,), (_V0 if not nr else (nr,))
            else:
                self._next, self._nrs = (a._edge()[0],), _V0
            d = a._data
            dt = d.dtype
            table = _metas.get(dt) or _metas_of(dt)
            meta = table.get(d.shape)
            self._in_meta = meta if meta is not None else _meta(table, d.shape, ((d.shape, dt),))
            if self.saves_inputs:
                self._inputs = args
                v = a._vc[0]
                self._versions = _V0 if not v else (v,)
        elif n == 2 and args[0] is not None and args[1] is not None:  # two tensors
            a, b = args
            ra, rb = a._rg, b._rg
            ga, gb = a.grad_fn, b.grad_fn
            if ga is None and ra:  # a leaf: its AccumulateGrad node, straight from the weak
                ga = a._acc  # reference when there is one (a weight used by many ops)
                ga = ga() if ga is not None else None
                if ga is None:
                    ga = a._edge()[0]
            if gb is None and rb:
                gb = b._acc
                gb = gb() if gb is not None else None
                if gb is None:
                    gb = b._edge()[0]
            self._next = (ga if ra else None, gb if rb else None)
            na, nb = a._output_nr, b._output_nr
            self._nrs = _V00 if not (na or nb) else (na, nb)
            da, db = a._data, b._data
            dt = da.dtype
            table = _metas.get(dt) or _metas_of(dt)
            key = (
                (da.shape, db.shape, ra, rb)
                if db.dtype is dt
                else (da.shape, db.shape, ra, rb, db.dtype)
            )
            meta = table.get(key)
            if meta is None:
                meta = _meta(
                    table,
                    key,
                    (
                        ((da.shape, dt) if ra else None, (db.shape, db.dtype) if rb else None),
                        (bool(ra), bool(rb)),
                    ),
                )
            self._in_meta, self.needs_input_grad = meta
            if self.saves_inputs:
                self._inputs = args
                v, w = a._vc[0], b._vc[0]
                self._versions = _V00 if not (v or w) else (v, w)
        elif n == 3 and args[0] is not None and args[1] is not None and args[2] is not None:
            a, b, c = args  # three tensors (addmm of Linear)
            ra, rb, rc = a._rg, b._rg, c._rg
            self._next = (
                _grad_node(a) if ra else None,
                _grad_node(b) if rb else None,
                _grad_node(c) if rc else None,
            )
            na, nb, nc = a._output_nr, b._output_nr, c._output_nr
            self._nrs = _V000 if not (na or nb or nc) else (na, nb, nc)
            da, db, dc = a._data, b._data, c._data
            dt = da.dtype
            table = _metas.get(dt) or _metas_of(dt)
            key = (da.shape, db.shape, dc.shape, ra, rb, rc)
            if db.dtype is not dt or dc.dtype is not dt:
                key += (db.dtype, dc.dtype)
            meta = table.get(key)
            if meta is None:
                meta = _meta(
                    table,
                    key,
                    (
                        (
                            (da.shape, dt) if ra else None,
                            (db.shape, db.dtype) if rb else None,
                            (dc.shape, dc.dtype) if rc else None,
                        ),
                        (bool(ra), bool(rb), bool(rc)),
                    ),
                )
            self._in_meta, self.needs_input_grad = meta
            if self.saves_inputs:
                self._inputs = args
                u, v, w = a._vc[0], b._vc[0], c._vc[0]
                self._versions = _V000 if not (u or v or w) else (u, v, w)
        else:
            self.needs_input_grad = tuple([a is not None and a._rg for a in args])
            self._edges = [a._edge() if a is not None and a._rg else None for a in args]
            self._in_meta = tuple(
                [(a._data.shape, a._data.dtype) if a is not None and a._rg else None for a in args]
            )
            if self.saves_inputs:
                self._inputs = args
                self._versions = tuple([a._vc[0] if a is not None else None for a in args])
        if type(out) is tuple:
            if not _int_out_allowed[0]:
                for i, o in enumerate(out):
                    if i not in self.non_differentiable and o.dtype.kind not in "fcV":
                        raise _not_differentiable(o.dtype)
            self._n_out = len(out)
            outs = tuple(
                Tensor._make(o, dev)
                if i in self.non_differentiable
                else Tensor._make(o, dev, True, self, i)
                for i, o in enumerate(out)
            )
            if self.saves_output:
                self._save_output(out[0], outs[0])
            if hooks_in_use[0] and self._freed_attrs and state.saved_hooks:
                self._pack_saved()
            return outs
        if out.dtype.kind not in "fcV" and not _int_out_allowed[0]:
            raise _not_differentiable(out.dtype)
        self._n_out = 1
        t = _new(Tensor)  # Tensor._make(out, dev, True, self, 0), inlined
        t._data, t._device, t._rg, t.grad, t.grad_fn, t._output_nr = out, dev, True, None, self, 0
        t._vc = vc = [0]
        if self.saves_output:
            self._out, self._out_vc, self._out_version = out, vc, 0
        if hooks_in_use[0] and self._freed_attrs and state.saved_hooks:
            self._pack_saved()
        return t

    def _pack_saved(self):
        """Under saved_tensors_hooks: replace what this node saved by what pack returns."""
        pack, unpack = state.saved_hooks[-1]
        pack_node(self, pack, unpack)

    def _save_output(self, array, tensor):
        self._out = array
        self._out_vc = tensor._vc
        self._out_version = tensor._vc[0]

    # ----- what backward reads -------------------------------------------------------------
    @property
    def inputs(self):
        if self._released:
            raise RuntimeError(FREED)
        if self._packed is not None and not self._unpacked:
            unpack_node(self)
        return self._inputs

    @property
    def output(self):
        """The forward output as a Tensor whose grad_fn is this node (for double backward)."""
        if self._released:
            raise RuntimeError(FREED)
        if self._packed is not None and not self._unpacked:
            unpack_node(self)
        if self._fw_out is not None:  # a jvp rule reading the result
            return self._fw_out
        t = Tensor._make(self._out, _device_of_node(self), True, self, 0)
        if self._out_fw is not None:  # forward AD through backward: the output's tangents
            t._fw = self._out_fw
        return t

    def output_at(self, array, i):
        """Output i of a multi-output op (its array as saved by forward) as a Tensor whose
        grad_fn is this node, for double backward; under forward AD it carries that output's
        tangents, so forward-over-reverse differentiates through it."""
        from ..backend import device_of

        t = Tensor._make(array, device_of(array), True, self, i)
        if self._outs_fw is not None and self._outs_fw[i] is not None:
            t._fw = self._outs_fw[i]
        return t

    def check_saved(self):
        """Raise torch's error if a saved tensor was freed or modified in place since forward."""
        if self._released:
            if self._freed_attrs:
                raise RuntimeError(FREED)
            return
        if self._packed is not None:  # what unpack returns is not checked (as in torch)
            if not self._unpacked:
                unpack_node(self)
            return
        if self.saves_inputs:
            vs = self._versions
            if vs is _V00:  # two inputs saved at version 0 (the common case): modified since?
                a, b = self._inputs
                if a._vc[0] or b._vc[0]:
                    self._check_inputs()
            elif vs is _V0:
                if self._inputs[0]._vc[0]:
                    self._check_inputs()
            elif vs is _V000:
                a, b, c = self._inputs
                if a._vc[0] or b._vc[0] or c._vc[0]:
                    self._check_inputs()
            else:
                self._check_inputs()
        if self.saves_output and self._out_vc[0] != self._out_version:
            raise _modified_error(self._out, self._out_vc[0], self._out_version, self, 0)

    def _check_inputs(self):
        """torch's error for a saved input modified in place that backward reads."""
        for a, v in zip(self._inputs, self._versions):
            if a is not None and a._vc[0] != v and self._reads(a):
                raise _modified_error(a._data, a._vc[0], v, a.grad_fn, a._output_nr)

    def _reads(self, a):
        """Whether backward reads saved input `a` (torch saves it only then)."""
        used = self.saved_for
        if used is None:
            return True
        i = next(k for k, b in enumerate(self._inputs) if b is a)
        return any(self.needs_input_grad[j] for j in used[i])

    def forward(self, *arrays, **params):
        """The result arrays from the input arrays (raw xp arrays, keyword params as given
        to apply); every Op subclass defines it."""
        raise NotImplementedError(f"{type(self).__name__} must define forward")

    def backward(self, *grads):
        """One gradient (Tensor or None) per input from one per output, in Tensor ops; an
        Op without a derivative keeps this refusal, in torch's words."""
        raise RuntimeError(f"derivative for {type(self).__name__} is not implemented")

    # ----- forward mode (autograd.forward_ad) ------------------------------------------------
    def jvp(self, *tangents):
        """The outputs' tangents given one tangent (or None) per input, in Tensor ops; the
        rule reads the inputs as `self.primals`, the result as `self.result`, the keyword
        parameters as `self.params`. Ops declare `jvp = Op.jvp_linear` or
        `jvp = Op.jvp_elementwise` where the rule follows from the op itself."""
        raise _fw.not_supported(self)

    @property
    def primals(self):
        return self._fw_args

    @property
    def result(self):
        return self._fw_out

    @property
    def params(self):
        return self._fw_params

    def jvp_linear(self, *tangents):
        """For ops linear in their floating inputs: the op applied to the tangents (zeros for
        an input without one; integer and bool inputs such as indices stay as they are)."""
        args = [t if t is not None else _fw_zero(a) for a, t in zip(self._fw_args, tangents)]
        return self._op.apply(*args, **self._fw_params)

    jvp_name = None  # jvp_not_implemented: torch's name of the op

    def jvp_not_implemented(self, *tangents):
        """For ops torch has no forward derivative for yet: torch's error."""
        name = self.jvp_name
        raise _fw.not_implemented(name if isinstance(name, str) else name(self._fw_args))

    # the backward reads the input only as arrays (max-pool indices, cummax's), where
    # torch's backward op takes it: under forward AD its gradients get a zero tangent
    # wherever an input had one (forward_ad.zero_tangents)
    fw_zero_grads = False
    # the jvp rule reads the primal only as arrays where torch's formula passes it to a
    # backward op: the tangent gets a zero-derivative link to it (forward_ad._link_primals)
    jvp_reads_primal = False

    additive = ()  # jvp_multilinear: inputs added to the multilinear part (a bias)

    def jvp_multilinear(self, *tangents):
        """For ops multilinear in their floating inputs plus `additive` ones (mul, matmul,
        conv with bias): the sum over inputs with a tangent of the op with that input replaced
        by its tangent (and the additive inputs by zeros, or all others when it is additive)."""
        args, add = self._fw_args, self.additive
        total = None
        for i, t in enumerate(tangents):
            if t is None:
                continue
            term = [
                t if j == i else _fw_zero(a) if (j in add or i in add) else a
                for j, a in enumerate(args)
            ]
            out = self._op.apply(*term, **self._fw_params)
            total = out if total is None else total + out
        return total

    def jvp_reduction(self, *tangents):
        """For reductions and losses whose backward is the incoming gradient (broadcast) times
        a per-element slope of each input (sum, prod, var, logsumexp, max with ties, mse,
        cross-entropy, ...): the slopes are backward of ones, and the tangent is the sum of
        slope * tangent reduced to the output (over `self.axes`, or all dims for a scalar
        output, or the class dim 1 for losses with reduction='none')."""
        out = self._fw_out
        had = getattr(self, "needs_input_grad", None)
        self.needs_input_grad = tuple(t is not None for t in tangents)
        try:
            slopes = self.backward(
                Tensor._make(out.xp.ones(out._data.shape, out._data.dtype), out._device)
            )
        finally:
            if had is not None:
                self.needs_input_grad = had
        slopes = slopes if type(slopes) is tuple else (slopes,)
        total = None
        for t, slope in zip(tangents, slopes):
            if t is not None and slope is not None:
                total = t * slope if total is None else total + t * slope
        axes = getattr(self, "axes", None)
        if total is not None and total.numel() == 0:  # nothing reduced: nan for a mean (as
            return out * 0  # torch), 0 for a sum
        if total is None or (axes is None and total.shape == out.shape):
            return total
        if axes is not None:
            return (total.sum(axes, keepdim=True) if axes else total).reshape(out.shape)
        return total.sum() if out.ndim == 0 else total.sum(1)

    def jvp_transpose(self, *tangents):
        """For any op: the tangents as the derivative of u -> <backward(u), tangents>, since
        backward applies the transposed Jacobian, linearly in u (one backward and one
        reverse pass: slower than a direct rule, exact, and composable)."""
        got = _fw_transpose(self, tangents)
        return got if len(got) > 1 else got[0]

    def jvp_elementwise(self, *tangents):
        """For elementwise ops, whose Jacobian per input is diagonal: the tangent is the sum
        of backward applied to each input's tangent (broadcast to the output's shape)."""
        shape = self._fw_out.shape
        had = getattr(self, "needs_input_grad", None)
        total = None
        n = len(tangents)
        try:
            for i, t in enumerate(tangents):
                if t is None:
                    continue
                self.needs_input_grad = tuple(j == i for j in range(n))
                g = self.backward(t.expand(shape) if t.shape != shape else t)
                g = g[i] if type(g) is tuple else g
                if g is not None:
                    total = g if total is None else total + g
        finally:
            if had is not None:
                self.needs_input_grad = had
        return total


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: the only writer of `.grad`."""

    __slots__ = ("variable", "_hooks", "_prehooks", "_metadata", "__weakref__")
    node_name = "torch::autograd::AccumulateGrad"
    _seq = float("inf")  # runs as soon as it is ready, as in torch

    def __init__(self, variable):
        self.variable = variable
        self._hooks = self._prehooks = self._metadata = None


def _fw_transpose(fn, tangents):
    """J t as the derivative of u -> <J^T u, t> (backward is linear in its gradient u)."""
    from . import grad as _grad

    outs = fn._fw_outs
    us = [
        None
        if i in fn.non_differentiable or o._data.dtype.kind not in "fcV"
        else Tensor._make(o.xp.zeros_like(o._data), o._device, True)
        for i, o in enumerate(outs)
    ]
    if vmap_hook[0]:  # tangents batched (jacfwd): one u per sample, so samples never mix
        from ..func._batched import batched_like

        us = batched_like(us, tangents)
    had = getattr(fn, "needs_input_grad", None)
    fn.needs_input_grad = tuple(t is not None for t in tangents)
    if getattr(fn, "_next", None) is None:  # not recorded: a node with no inputs, for the
        fn._edges, fn._in_meta = (None,) * len(tangents), [None] * len(tangents)  # outputs
        fn._n_out, fn._seq = len(outs), next(_seq)  # backward may wrap as its own
    prev = state.enabled
    state.enabled = True
    try:
        gs = fn.backward(*us)
        gs = gs if type(gs) is tuple else (gs,)
        dot = None
        for g, t in zip(gs, tangents):
            if g is not None and t is not None:
                term = (g * t).sum()
                dot = term if dot is None else dot + term
        live = [u for u in us if u is not None]
        if dot is None or not dot._rg:  # the Jacobian is constant zero
            return tuple(None if u is None else Tensor._make(u._data.copy(), u._device) for u in us)
        got = _grad(dot, live, create_graph=prev, allow_unused=True)
    finally:
        state.enabled = prev
        if had is not None:
            fn.needs_input_grad = had
    it = iter(got)
    return tuple(None if u is None else next(it) for u in us)


def _fw_zero(a):
    """The tangent of a floating input that has none (other inputs are passed unchanged)."""
    if a is None or a._data.dtype.kind not in "fcV":
        return a
    return Tensor._make(a.xp.zeros_like(a._data), a._device)


def _modified_error(array, now, expected, grad_fn, output_nr):
    kind = {
        "float32": "FloatTensor",
        "float64": "DoubleTensor",
        "float16": "HalfTensor",
        "int64": "LongTensor",
        "int32": "IntTensor",
        "bool": "BoolTensor",
    }.get(str(array.dtype), "Tensor")
    shape = ", ".join(str(s) for s in array.shape)
    op_name = re.sub(r"Backward\d*$", "", grad_fn.name()) if grad_fn is not None else ""
    where = f", which is output {output_nr} of {op_name}," if grad_fn is not None else ""
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.{kind} [{shape}]]{where} is at version {now}; expected version "
        f"{expected} instead. Hint: enable anomaly detection to find the operation that failed "
        "to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _bf16_of(args):
    """The half NumPy dtype (bfloat16 or float16) when the op's floating inputs all have it
    (then it computes in float32 and rounds, as torch's CPU kernels do), else None (a wider
    float input takes part: promotion or the op's dtype check decides)."""
    half = None
    for a in args:
        if isinstance(a, Tensor):
            dt = a._data.dtype
            if dt.kind == "V" or dt.char == "e":
                if half is not None and dt != half:
                    return None
                half = dt
            elif dt.kind in "fc":
                return None
    return half


def _upcast(cls, args, half, given):
    """The arrays of a half op, half ones as float32. For ops with `opmath_scalars` (torch's
    mul/div) a second operand that is a Python scalar or a 0-dim tensor of another dtype is
    read at float32 precision before promotion rounds it, as torch's kernels read it."""
    out = []
    for i, a in enumerate(args):
        if a is None or a._data.dtype != half:
            out.append(None if a is None else a._data)
        elif i == 1 and cls.opmath_scalars and a._data.ndim == 0:
            v = given[1]
            v = v._data if isinstance(v, Tensor) else v
            out.append(v.astype(_np.float32) if hasattr(v, "astype") else _np.float32(v))
        else:
            out.append(a._data.astype(_np.float32))
    return out


def _bf16_refusal(why, half):
    from .._errors import not_implemented
    from ..dtypes import scalar_type_name

    if " " in why:
        return RuntimeError(why.replace("BFloat16", scalar_type_name(half)))

    return not_implemented(why, half)


def round_half(value, half):
    """`value` (a float32 array or a Python number) rounded to the half dtype `half` and back,
    as a half kernel that rounds an intermediate (or reads a scalar as scalar_t) sees it."""
    if hasattr(value, "astype"):
        return value.astype(half).astype(value.dtype)
    return float(_np.asarray(value, dtype=half))


def _round_bf16(out, half):
    """Floating results of a bfloat16 op, rounded to bfloat16."""
    if type(out) is tuple:
        return tuple(o.astype(half) if o.dtype.kind == "f" else o for o in out)
    return out.astype(half) if out.dtype.kind == "f" else out


def _device_of_node(fn):
    from ..backend import device_of

    return device_of(fn._out)


def _anomaly_trace():
    """The user's stack at forward time (framework frames left out, as torch's are C++)."""
    import os
    import traceback

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(pkg + os.sep)]
    return "".join(traceback.format_list(frames))


_scalars = {}  # (value, type, dtype, device) -> constant Tensor: Python scalars recur


def _scalar_tensor(xp, value, dtype, dev):
    """A Python scalar as a read-only 0-dim tensor of `dtype` (cached, never mutated)."""
    key = (value, type(value), dtype, dev)
    t = _scalars.get(key)
    if t is None:
        arr = xp.asarray(value, dtype=dtype)
        if xp is _np:
            arr.flags.writeable = False
        t = Tensor._make(arr, dev)
        t._wrapped_number = True  # torch's wrapped numbers: never given to saved-tensor hooks
        if len(_scalars) < 4096:
            _scalars[key] = t
    return t


def _edges_to_given(fn, res, given, args):
    """A promoting op on mixed dtypes: its node's edges lead to the inputs as given (torch casts
    inside the op, recording no ToCopyBackward0); the engine casts each gradient back to its
    input's dtype (`_in_meta`), as ToCopy's backward did. Saved inputs stay the cast ones."""
    nxt, nrs, meta = list(fn._next), list(fn._nrs), list(fn._in_meta)
    for k, (g, a) in enumerate(zip(given, args)):
        if a is not g and isinstance(g, Tensor) and g._rg:
            nxt[k], nrs[k] = g._edge()
            meta[k] = (g._data.shape, g._data.dtype)
    fn._next, fn._nrs, fn._in_meta = tuple(nxt), tuple(nrs), tuple(meta)
    if fn.saves_inputs and fn._packed is None:  # backward reads float inputs as given, as
        fn._inputs = tuple(  # torch's formulas do (integer and bool ones stay cast)
            g if isinstance(g, Tensor) and g.dtype.is_floating_point else a
            for g, a in zip(given, args)
        )
        fn._versions = tuple(None if a is None else a._vc[0] for a in fn._inputs)
    return res


def _unify(cls, args, xp, dev):
    """Turn Python scalars into tensors and, for promoting ops, cast to torch's result dtype."""
    if len(args) == 2:  # fast path: tensor op scalar, where the tensor's dtype wins
        a, b = args
        if (
            isinstance(a, Tensor)
            and b is not None
            and not isinstance(b, Tensor)
            and (not cls.promote or dtypes.scalar_kind(b) <= dtypes._kind(a._data.dtype))
        ):
            return a, _scalar_tensor(xp, b, a._data.dtype, dev)
    tensors = [a for a in args if isinstance(a, Tensor)]
    if cls.promote:
        scalars = [a for a in args if a is not None and not isinstance(a, Tensor)]
        if len(tensors) == 1 and scalars:
            # common case: tensor op scalar; the scalar only wins with a higher category
            kind = dtypes._kind(tensors[0]._data.dtype)
            top = max(dtypes.scalar_kind(v) for v in scalars)
            target = (
                tensors[0]._data.dtype
                if top <= kind
                else dtypes.result_type([tensors[0]._data], [tensors[0]._data.ndim], scalars)
            )
        else:
            target = dtypes.result_type(
                [t._data for t in tensors], [t._data.ndim for t in tensors], scalars
            )
    else:
        target = tensors[0]._data.dtype if tensors else dtypes.get_default_dtype().np
    out = []
    for a in args:
        if a is None:
            out.append(None)
        elif isinstance(a, Tensor):
            out.append(a if a._data.dtype == target else a._cast(target))
        else:
            out.append(_scalar_tensor(xp, a, target, dev))
    return out


class ZeroLink(Op):
    """Identity on its first input whose other inputs (primals) get zero gradients: a tangent
    made to depend on the primal as torch's jvp formulas through backward ops do
    (forward_ad._link_primals)."""

    node_name = "torch::autograd::CopyBackwards"

    def forward(self, t, *primals):
        """t itself; the primals' shapes and dtypes are kept for their zero gradients."""
        self.metas = [(p.shape, p.dtype) for p in primals]
        return t

    def backward(self, grad):
        """grad to t, zeros to every primal."""
        from ..tensor import Tensor

        xp, dev = grad.xp, grad.device
        return (grad,) + tuple(Tensor._make(xp.zeros(s, d), dev) for s, d in self.metas)

    jvp = Op.jvp_linear
