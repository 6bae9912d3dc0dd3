"""torch._dynamo.eval_frame.OptimizedModule: what `torch.compile(module)` returns.

framework runs eagerly, so the wrapper calls the original module; what it mirrors is the
structure programs and checkpoints see: the module lives under `_orig_mod` (state_dict keys
get torch's `_orig_mod.` prefix), other attribute reads and writes go to the original module,
and `training` is the original module's.
"""

from ..nn.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """Wraps a module as `torch.compile(module)` does; calling it calls the module.

    Args:
        mod (Module): the module to wrap.
        dynamo_ctx (optional): accepted for torch's signature; unused.

    Example:
        >>> net = nn.Linear(2, 2)
        >>> opt = framework.compile(net)
        >>> type(opt).__name__, opt._orig_mod is net, opt.weight is net.weight
        ('OptimizedModule', True, True)
        >>> list(opt.state_dict())
        ['_orig_mod.weight', '_orig_mod.bias']
    """

    _opt_mod_attributes = {
        "_orig_mod",
        "dynamo_ctx",
        "_torchdynamo_orig_callable",
        "get_compiler_config",
        "forward",
        "_forward",
        "__dict__",
        "named_children_walk",
        "_super_module_initialized",
    }

    def __init__(self, mod, dynamo_ctx=None):
        object.__setattr__(self, "_orig_mod", mod)  # attribute access goes through it
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod  # registers the submodule
        self.dynamo_ctx = dynamo_ctx
        self._initialize()

    def _initialize(self):
        self.forward = self._orig_mod.__call__

    @property
    def training(self):
        """Whether the wrapped module is in training mode (setting it sets the wrapped module's)."""
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        if self._super_module_initialized:
            self._orig_mod.training = value

    def __len__(self):
        from collections.abc import Sized

        if isinstance(self._orig_mod, Sized):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    def __reduce__(self):
        return (self.__class__, (self._orig_mod, self.dynamo_ctx))

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("forward", None)
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self._initialize()

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self.__dict__["_modules"]["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __dir__(self):
        orig = self._orig_mod.__dir__()
        return orig + [a for a in super().__dir__() if a not in orig]
