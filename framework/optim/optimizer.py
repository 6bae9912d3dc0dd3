"""Optimizer base: param groups, per-parameter state, zero_grad, state_dict, step hooks.

Subclasses update parameters in place on their raw arrays (`p._data`), so a step never
records autograd history and every parameter keeps its identity (and its array).
"""
import functools
import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np  # host-side step counters only; parameter math uses each array's xp

from .. import dtypes
from ..autograd.grad_mode import enable_grad, set_grad_enabled, state as _grad_state
from ..autograd.op import RemovableHandle
from ..backend import CPU
from ..tensor import Tensor


class _RequiredParameter:
    """Singleton marking a default that every param group must supply."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _scalar_dtype():
    """dtype of the 'step' counters: float64 under a float64 default dtype, else float32."""
    return dtypes.float64.np if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32.np


def _step_tensor(value=0.0):
    """A 0-dim CPU tensor counting steps, as torch's non-capturable optimizers keep it."""
    return Tensor._make(np.array(value, dtype=_scalar_dtype()), CPU)


def _zeros_like(p, fill=0):
    """A state buffer on p's device and dtype."""
    data = p.xp.full_like(p._data, fill)
    return Tensor._make(data, p._device)


def _to_scalar(x):
    """Hyperparameters may be 1-element tensors; the array math wants Python numbers."""
    return x.item() if isinstance(x, Tensor) else x


def _bump(p):
    """Mark an in-place update of p (torch's param.add_ bumps the version counter too)."""
    p._vc[0] += 1


def _hooked_step(step):
    """Wrap a subclass's step: grad mode as torch's, step pre/post hooks, scheduler tracking."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
        self._opt_called = True  # read by LRScheduler's order warning
        prev = _grad_state.enabled
        try:
            set_grad_enabled(self.defaults.get("differentiable", False))
            out = step(self, *args, **kwargs)
        finally:
            set_grad_enabled(prev)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out
    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class of all optimizers (torch.optim.Optimizer)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__ and not getattr(cls.__dict__["step"], "hooked", False):
            cls.step = _hooked_step(cls.__dict__["step"])

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = {}
        self._optimizer_step_post_hooks = {}
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)  # keyed by the parameter Tensor itself (identity hash)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", {})
        self.__dict__.setdefault("_optimizer_step_post_hooks", {})
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before step."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) after step."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def step(self, closure=None):
        raise NotImplementedError

    def _closure_loss(self, closure):
        """Re-evaluate the model under enable_grad (step itself runs without grad)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def zero_grad(self, set_to_none=True):
        """Drop every .grad (default), or zero it in place and cut its history."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g._rg = False
                    g._data[...] = 0
                    _bump(g)

    def add_param_group(self, param_group):
        """Append a group; missing hyperparameters are filled from the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        _split_names(param_group)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf
                                                                     or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}.

        As torch's, the state tensors are the live ones (not copies)."""
        index = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)  # id only while packing: every p is alive here
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        packed_state = {(index[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load state saved by state_dict(); tensors move to each parameter's device/dtype."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = _deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        new_state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                new_state[id_map[k]] = _cast(id_map[k], v)
            else:
                new_state[k] = v
        param_groups = []
        for g, ng in zip(groups, saved_groups):
            ng["params"] = g["params"]
            if "param_names" in g and "param_names" not in ng:
                ng["param_names"] = g["param_names"]
            param_groups.append(ng)
        self.__setstate__({"state": new_state, "param_groups": param_groups})


def _cast(param, value, key=None):
    """Copy a state value onto param's device (and dtype, except the 'step' counter)."""
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value


def _deepcopy(value):
    """copy.deepcopy, with tensors (a Tensor lr, Tensor betas) copied as fresh leaves."""
    tensors = []
    _collect_tensors(value, tensors)
    memo = {id(t): Tensor._make(t._data.copy(), t._device) for t in tensors}
    return deepcopy(value, memo)


def _collect_tensors(value, out):
    if isinstance(value, Tensor):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _collect_tensors(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _collect_tensors(v, out)


def _split_names(group):
    """Groups built from named_parameters() hold (name, tensor) pairs."""
    tensors, names = [], []
    for p in group["params"]:
        if isinstance(p, tuple):
            names.append(p[0])
            tensors.append(p[1])
        else:
            tensors.append(p)
    group["params"] = tensors
    if names:
        if len(names) != len(tensors):
            raise ValueError("all optimizer params should be with/without names. "
                             "Some param names are missing")
        group["param_names"] = names


def _typename(obj):
    if isinstance(obj, Tensor):
        return "torch." + obj.type().split(".")[-1]
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", "__builtin__") else f"{module}.{name}"
