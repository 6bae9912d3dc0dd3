"""Optimizer base: param groups, validation, the parameter loop, state_dict, step hooks.

A subclass lists its hyperparameter checks and writes only its update rule:
`_init_state(p, state, group)` fills a fresh parameter's state and `_update(p, g, state, h)`
changes `p._data` in place, where `g` is the gradient array with `maximize` and L2 weight decay
already applied (decoupled weight decay is applied to the parameter before the call) and `h`
holds the group's hyperparameters as plain numbers. Updates run on raw arrays, so a step
records no autograd history and every parameter keeps its identity (and its array).
"""

import functools
import warnings
from collections import defaultdict
from itertools import chain

import numpy as np  # the host-side 'step' counters

from ..autograd.grad_mode import enable_grad, state as _grad_state
from ..autograd.op import RemovableHandle
from ..autograd.zero_grad import check_mutable
from ..backend import CPU
from ..tensor import Tensor
from . import _flat, _half, _kernels
from ._util import (  # noqa: F401
    _bump,
    _added,
    _cast,
    _deepcopy,
    _split_names,
    _step_tensor,
    _to_scalar,
    _typename,
    _zeros_like,
    _lerp_,
)


class _RequiredParameter:
    """Singleton marking a default that every param group must supply."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# torch's hyperparameter checks: name -> (valid(defaults), message.format(**defaults))
_CHECKS = {
    "lr": (lambda d: 0.0 <= d["lr"], "Invalid learning rate: {lr}"),
    "lr_pos": (lambda d: 0.0 < d["lr"], "Invalid learning rate: {lr}"),
    "eps": (lambda d: 0.0 <= d["eps"], "Invalid epsilon value: {eps}"),
    "eps_pos": (lambda d: 0.0 < d["eps"], "Invalid epsilon value: {eps}"),
    "momentum": (lambda d: 0.0 <= d["momentum"], "Invalid momentum value: {momentum}"),
    "weight_decay": (
        lambda d: 0.0 <= d["weight_decay"],
        "Invalid weight_decay value: {weight_decay}",
    ),
    "alpha": (lambda d: 0.0 <= d["alpha"], "Invalid alpha value: {alpha}"),
    "rho": (lambda d: 0.0 <= d["rho"] <= 1.0, "Invalid rho value: {rho}"),
    "lr_decay": (lambda d: 0.0 <= d["lr_decay"], "Invalid lr_decay value: {lr_decay}"),
    "initial_accumulator_value": (
        lambda d: 0.0 <= d["initial_accumulator_value"],
        "Invalid initial_accumulator_value value: {initial_accumulator_value}",
    ),
    "momentum_decay": (
        lambda d: 0.0 <= d["momentum_decay"],
        "Invalid momentum_decay value: {momentum_decay}",
    ),
    "betas": (
        lambda d: 0.0 <= d["betas"][0] < 1.0,
        "Invalid beta parameter at index 0: {betas[0]}",
    ),
    "betas1": (
        lambda d: 0.0 <= d["betas"][1] < 1.0,
        "Invalid beta parameter at index 1: {betas[1]}",
    ),
    "etas": (
        lambda d: 0.0 < d["etas"][0] < 1.0 < d["etas"][1],
        "Invalid eta values: {etas[0]}, {etas[1]}",
    ),
}
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone"]  # + "xla" for most
_PLAIN = frozenset((float, int, bool, str, type(None)))  # hyperparameters _to_scalar keeps
_GROUP_MAX = 16  # parameters in one compiled group call (numba compiles it once per count:
#                 a larger group is updated in calls of this many)


def _hooked_step(step):
    """Wrap a subclass's step: grad mode as torch's, step pre/post hooks, scheduler tracking."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        pre = self._optimizer_step_pre_hooks
        for hook in list(pre.values()) if pre else ():
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{step} must return None or a tuple of "
                        f"(new_args, new_kwargs), but got {result}."
                    )
        self._opt_called = True  # read by LRScheduler's order warning
        prev = _grad_state.enabled
        try:  # (set_grad_enabled's effect, without making its object twice a step)
            _grad_state.enabled = bool(self.defaults.get("differentiable", False))
            out = step(self, *args, **kwargs)
        finally:
            _grad_state.enabled = prev
        post = self._optimizer_step_post_hooks
        for hook in list(post.values()) if post else ():
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class of all optimizers (torch.optim.Optimizer).

    Args:
        params: an iterable of Tensors, of (name, Tensor) pairs, or of dicts defining
            parameter groups (each with a "params" entry and optional hyperparameters).
        defaults: the hyperparameters a group gets when it does not name them.

    A built-in optimizer declares `_checks` (torch's hyperparameter checks, in torch's order),
    `_setstate_defaults` (group keys an old checkpoint may lack) and writes `_init_state` and
    `_update`; the base runs the loop in `step`. A user subclass may instead write its own
    `step`, as with torch.

    Example:
        >>> p = framework.ones(2, requires_grad=True)
        >>> opt = framework.optim.SGD([p], lr=0.5)
        >>> (p * p).sum().backward()
        >>> opt.step()
        >>> p
        tensor([0., 0.], requires_grad=True)
    """

    _checks = ()
    _setstate_defaults = {}
    _capturable_message = ("params and state_steps", True)  # torch's words, xla listed
    _elementwise = True  # the rule may run on a whole group flattened (foreach=True)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_update" in cls.__dict__ and "_compiled_update" not in cls.__dict__:
            cls._compiled = False  # a subclass with its own rule: not the inherited loop
        if "step" in cls.__dict__ and not getattr(cls.__dict__["step"], "hooked", False):
            cls.step = _hooked_step(cls.__dict__["step"])

    def __init__(self, params, defaults):
        self._check(defaults)
        if defaults.get("differentiable"):
            raise NotImplementedError(
                "differentiable=True is not supported: framework's "
                "optimizers update raw arrays and record no graph"
            )
        self.defaults = defaults
        self._optimizer_step_pre_hooks = {}
        self._optimizer_step_post_hooks = {}
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of "
                "Tensors or dicts, but got " + _typename(params)
            )
        self.state = defaultdict(dict)  # keyed by the parameter Tensor itself (identity hash)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        if defaults.get("fused"):
            if defaults.get("differentiable"):
                raise RuntimeError("`fused` does not support `differentiable`")
            if defaults.get("foreach"):
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _check(self, defaults):
        """torch's hyperparameter checks, in torch's order (ValueError)."""
        lr = defaults.get("lr")
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for name in self._checks:
            valid, message = _CHECKS[name]
            if not valid(defaults):
                raise ValueError(message.format(**defaults))

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        """Restore; fill group keys an older checkpoint lacks and make 'step' a tensor."""
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", {})
        self.__dict__.setdefault("_optimizer_step_post_hooks", {})
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._setstate_defaults.items():
                group.setdefault(key, value)
            for p in group["params"]:
                p_state = self.state.get(p, {})
                if "step" in p_state and not isinstance(p_state["step"], Tensor):
                    self._restore_step(p, p_state, group)

    def _restore_step(self, p, p_state, group):
        """An old checkpoint's number-valued 'step' becomes torch's 0-dim tensor."""
        p_state["step"] = self._new_step(p, group, float(p_state["step"]))

    @staticmethod
    def _new_step(p, group, value=0.0):
        """The 'step' state tensor: on the CPU, or on p's device when capturable; float32
        with fused=True whatever the default dtype (torch's _get_scalar_dtype(is_fused))."""
        if group.get("fused"):
            return Tensor._make(np.array(value, dtype=np.float32), CPU).to(p.device)
        return _step_tensor(value, p.device if group.get("capturable") else None)

    @staticmethod
    def _count(state):
        """Advance state['step'] by one and return the new count as a number."""
        count = state["step"]._data
        count[()] = count.item() + 1.0  # (the sum rounds as in the counter's dtype: one
        return count.item()  #             rounding of an exact double; 9x a 0-dim `+= 1`)

    @_hooked_step
    def step(self, closure=None):
        """Performs a single optimization step: updates every parameter that has a gradient.

        Args:
            closure (Callable, optional): a closure that re-evaluates the model and returns the
                loss; it runs with gradients enabled before the update. Optional for most
                optimizers, required by :class:`LBFGS`.

        Returns:
            The closure's loss, or None without a closure.

        Example:
            >>> p = framework.tensor([1.0, 2.0], requires_grad=True)
            >>> opt = framework.optim.SGD([p], lr=0.5)
            >>> def closure():
            ...     opt.zero_grad()
            ...     loss = (p ** 2).sum()
            ...     loss.backward()
            ...     return loss
            >>> opt.step(closure)
            tensor(5., grad_fn=<SumBackward0>)
            >>> p
            tensor([0., 0.], requires_grad=True)
        """
        if type(self)._update is Optimizer._update:
            raise NotImplementedError
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if params:
                self._step_group(group, params)
        return loss

    def _step_group(self, group, params):
        """The one parameter loop: maximize and weight decay here, the rule in `_update`."""
        h = {  # (numbers, flags and names as they are: no call for each)
            k: v if type(v) in _PLAIN else _to_scalar(v) for k, v in group.items() if k != "params"
        }
        if h.get("capturable"):
            for p in params:
                if p.device.type not in _CAPTURABLE_DEVICES:
                    what, xla = self._capturable_message
                    devices = _CAPTURABLE_DEVICES + ["xla"] * xla
                    raise AssertionError(
                        f"If capturable=True, {what} must be on supported devices: {devices}."
                    )
        fresh = None
        k = _kernels.get() if self._compiled else None  # one compiled loop per parameter
        if k is not None and len(params) > 1 < _GROUP_MAX and self._compiled_group(k, params, h):
            return  # (all of them in one compiled call)
        # (fused=True: torch's fused kernels round each tensor's last elements apart)
        flat = h.get("foreach") is not False and not h.get("fused")
        least = _flat.MIN_FLAT if k is None else _flat.MIN_FLAT_COMPILED  # for a bucket
        if flat and self._elementwise and len(params) >= least:
            fresh = [p for p in params if p not in self.state]
            params = _flat.step_buckets(self, group, params, h, self._prepare, least)
        for p in params:
            state = self.state.get(p)
            if state is None:
                state = {}
                self._init_state(p, state, group)
            if k is None or not self._compiled_update(k, p, p.grad._data, state, h):
                self._update(p, self._prepare(p, p.grad._data, h), state, h)
            if state:
                self.state[p] = state
            _bump(p)
        for p in fresh or ():  # new state entries in parameter order, as torch inserts them
            if p in self.state:
                self.state[p] = self.state.pop(p)

    @staticmethod
    def _prepare(p, g, h):
        """maximize negates g; L2 weight decay adds wd * p, decoupled decay scales p."""
        if h.get("maximize", False):
            g = -g
        wd = h.get("weight_decay", 0)
        if wd != 0:
            half = _half.is_half(p._data)  # torch's half ops: param.mul_, grad.add(alpha=)
            if h.get("decoupled_weight_decay", False):
                if half:
                    p._data[...] = _half.mul(p._data, 1 - h["lr"] * wd)
                else:
                    p._data *= 1 - h["lr"] * wd
            else:  # a new array: p.grad itself is left untouched
                g = _half.add(g, p._data, wd) if half else _added(g, p._data, wd)
        return g

    _compiled = False  # the subclass has a `_compiled_update` (framework.optim._kernels)

    def _compiled_update(self, k, p, g, state, h, prepared=False):
        """The whole step of p as one compiled loop from the raw gradient g (maximize and
        weight decay included; `prepared`: g already has them): True when done, False where
        the loops do not apply (the caller then runs `_prepare` and `_update`)."""
        return False

    def _compiled_group(self, k, params, h):
        """The step of every parameter in `params` as one compiled call, bit for bit the
        loop of `_compiled_update`: True when done, False where it does not apply (no call
        of its own, a parameter without state yet, an array the loop cannot take); nothing
        is changed before it returns False."""
        return False

    def _init_state(self, p, state, group):
        """Fill a parameter's state before its first update (nothing by default)."""

    def _update(self, p, g, state, h):
        """Change p._data in place from gradient array g; h: the group's numbers."""
        raise NotImplementedError

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def register_step_pre_hook(self, hook):
        """Registers a hook called before each :meth:`step`.

        The hook is called as ``hook(optimizer, args, kwargs)``; it may return None or a pair
        ``(new_args, new_kwargs)`` that replaces the arguments of ``step``.

        Args:
            hook (Callable): the hook to register.

        Returns:
            :class:`~framework.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters it.

        Example:
            >>> p = framework.tensor([1.0], requires_grad=True)
            >>> opt = framework.optim.SGD([p], lr=0.1)
            >>> handle = opt.register_step_pre_hook(lambda o, args, kwargs: print("before step"))
            >>> opt.step()
            before step
            >>> handle.remove()
            >>> opt.step()
        """
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """Registers a hook called after each :meth:`step`, as ``hook(optimizer, args, kwargs)``.

        Args:
            hook (Callable): the hook to register; its return value is ignored.

        Returns:
            :class:`~framework.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters it.

        Example:
            >>> p = framework.tensor([1.0], requires_grad=True)
            >>> opt = framework.optim.SGD([p], lr=0.1)
            >>> p.grad = framework.tensor([1.0])
            >>> handle = opt.register_step_post_hook(lambda o, args, kwargs: print(p.item()))
            >>> opt.step()
            0.8999999761581421
        """
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _closure_loss(self, closure):
        """Re-evaluate the model under enable_grad (step itself runs without grad)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def zero_grad(self, set_to_none=True):
        """Resets the gradients of all optimized parameters.

        Args:
            set_to_none (bool, optional): set each ``.grad`` to None instead of filling it with
                zeros (default: True). None saves memory, and :meth:`step` skips parameters whose
                gradient is None; with False the gradient is zeroed in place and detached from any
                graph.

        Example:
            >>> p = framework.tensor([1.0], requires_grad=True)
            >>> opt = framework.optim.SGD([p], lr=0.1)
            >>> (2 * p).sum().backward()
            >>> opt.zero_grad(set_to_none=False)
            >>> p.grad
            tensor([0.])
            >>> opt.zero_grad()
            >>> p.grad is None
            True
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    check_mutable(g)  # torch's zero_ on a ZeroTensor `.grad` refuses
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g._rg = False
                    g._data[...] = 0
                    _bump(g)

    def add_param_group(self, param_group):
        """Adds a parameter group to the optimizer's ``param_groups``.

        Useful for fine-tuning: layers unfrozen later are added with their own hyperparameters;
        the ones a group does not give are filled from the optimizer's defaults.

        Args:
            param_group (dict): the parameters (``"params"``) and the group's options.

        Example:
            >>> a = framework.zeros(1, requires_grad=True)
            >>> b = framework.zeros(1, requires_grad=True)
            >>> opt = framework.optim.SGD([a], lr=0.1, momentum=0.9)
            >>> opt.add_param_group({"params": [b], "lr": 0.01})
            >>> [(g["lr"], g["momentum"]) for g in opt.param_groups]
            [(0.1, 0.9), (0.01, 0.9)]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, "
                "but the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        _split_names(param_group)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(p)
                )
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required "
                    f"optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; see "
                "github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {txt} to the optimizer"
                )
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
        packed_state = {
            (index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        return {"state": packed_state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads the optimizer state saved by :meth:`state_dict`.

        The saved state tensors are moved to the device (and floating-point dtype) of the
        parameter they belong to, as torch does.

        Args:
            state_dict (dict): optimizer state; should be an object returned by a call to
                :meth:`state_dict` of an optimizer over the same parameter groups.

        Example:
            >>> p = framework.tensor([1.0], requires_grad=True)
            >>> opt = framework.optim.Adam([p], lr=0.1)
            >>> p.grad = framework.tensor([1.0])
            >>> opt.step()
            >>> opt2 = framework.optim.Adam([p], lr=0.5)
            >>> opt2.load_state_dict(opt.state_dict())
            >>> opt2.param_groups[0]["lr"], opt2.state[p]["step"]
            (0.1, tensor(1.))
        """
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = _deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match "
                "the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
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
