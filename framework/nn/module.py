"""Module: the base of every layer. Registers parameters, buffers and submodules by assignment."""

from collections import OrderedDict

from .. import dtypes
from ..autograd.grad_mode import no_grad, state
from ..autograd.op import Op, RemovableHandle, new_hook_dict
from ..backend import as_device
from ..tensor import Tensor
from ._state_dict import StateDictMixin, _IncompatibleKeys  # noqa: F401
from .parameter import Parameter


def _typename(value):
    if isinstance(value, Tensor):
        return "torch." + dtypes.tensor_type_name(value._data.dtype)
    module = type(value).__module__
    name = type(value).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _addindent(s, spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module(StateDictMixin):
    """Base class for all neural network modules.

    Your models should subclass this class. Modules can contain other modules as attributes,
    nesting them in a tree; parameters (:class:`~framework.nn.Parameter`) and submodules
    assigned as attributes are registered automatically, so :meth:`parameters`,
    :meth:`state_dict`, :meth:`to`, :meth:`train`/:meth:`eval` and ``print(model)`` see them.

    Subclasses call ``super().__init__()`` first and override :meth:`forward`; call the module
    itself (``model(x)``), not ``forward``, so registered hooks run.

    Attributes:
        training (bool): whether the module is in training mode (affects Dropout, BatchNorm).

    Example:
        >>> import framework
        >>> from framework import nn
        >>> class Model(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc1 = nn.Linear(4, 8)
        ...         self.fc2 = nn.Linear(8, 2)
        ...
        ...     def forward(self, x):
        ...         return self.fc2(self.fc1(x).relu())
        >>> model = Model()
        >>> model(framework.randn(3, 4)).shape
        torch.Size([3, 2])
        >>> [name for name, _ in model.named_parameters()]
        ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
    """

    _version = 1
    training: bool

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword "
                f"argument '{next(iter(kwargs))}'"
            )
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_pre_hooks"] = new_hook_dict()
        d["_forward_pre_hooks_with_kwargs"] = {}
        d["_forward_hooks"] = new_hook_dict()
        d["_forward_hooks_with_kwargs"] = {}
        d["_backward_hooks"] = new_hook_dict()
        d["_backward_pre_hooks"] = new_hook_dict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()

    def forward(self, *args, **kwargs):
        """Defines the computation performed at every call; every subclass overrides it.

        Call the module instance (``module(x)``) rather than this method, so that the
        registered forward and backward hooks run.
        """
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ----- registration ---------------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer to the module: state that is not a parameter, such as BatchNorm's
        ``running_mean``. Buffers move with :meth:`to`, and persistent ones are saved in
        :meth:`state_dict`.

        Args:
            name (str): name of the buffer; it becomes an attribute of this module.
            tensor (Tensor or None): the buffer; None registers a name whose state is not saved.
            persistent (bool, optional): whether the buffer is part of this module's
                :attr:`state_dict` (default: True).

        Example:
            >>> m = nn.Module()
            >>> m.register_buffer('running_mean', framework.zeros(3))
            >>> m.running_mean, list(m.state_dict())
            (tensor([0., 0., 0.]), ['running_mean'])
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(self, name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a parameter to the module (the same as assigning a :class:`~framework.nn.Parameter`
        attribute).

        Args:
            name (str): name of the parameter; it becomes an attribute of this module.
            param (Parameter or None): the parameter; None registers the name without a value.

        Example:
            >>> m = nn.Module()
            >>> m.register_parameter('scale', nn.Parameter(framework.ones(2)))
            >>> [n for n, _ in m.named_parameters()]
            ['scale']
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(self, name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name, module):
        """Adds a child module to the current module (the same as assigning it as an attribute).

        Args:
            name (str): name of the child module; it becomes an attribute of this module.
            module (Module or None): the child module to add.

        Example:
            >>> m = nn.Module()
            >>> m.add_module('fc', nn.Linear(2, 1))
            >>> m
            Module(
              (fc): Linear(in_features=2, out_features=1, bias=True)
            )
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        """Returns the submodule given by ``target`` if it exists, otherwise raises AttributeError.

        Args:
            target (str): the fully-qualified string name of the submodule, e.g. ``'net.0'``; ``''``
                is the module itself.

        Returns:
            Module: the submodule.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> net.get_submodule('1')
            BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True,
            track_running_stats=True)
        """
        mod = self
        for item in target.split(".") if target else ():
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def _get_attr(self, target):
        """(owning module, attribute name, value) of a dotted path; torch's AttributeError."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        return mod, name, getattr(mod, name)

    def get_parameter(self, target):
        """Returns the parameter given by ``target`` if it exists, otherwise raises AttributeError.

        Args:
            target (str): the fully-qualified string name of the parameter, e.g. ``'net.0.weight'``.

        Returns:
            Parameter: the parameter.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> net.get_parameter('0.bias').shape
            torch.Size([3])
        """
        mod, name, param = self._get_attr(target)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """Returns the buffer given by ``target`` if it exists, otherwise raises AttributeError.

        Args:
            target (str): the fully-qualified string name of the buffer, e.g. ``'bn.running_mean'``.

        Returns:
            Tensor: the buffer.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> net.get_buffer('1.running_var')
            tensor([1., 1., 1.])
        """
        mod, name, buffer = self._get_attr(target)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buffer

    # ----- attribute routing ----------------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(d, name, "_buffers", "_modules", "_non_persistent_buffers_set")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(d, name, "_parameters", "_buffers", "_non_persistent_buffers_set")
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            d["_modules"][name] = value
        elif getattr(value, "_is_buffer", False) and isinstance(value, Tensor):
            self.register_buffer(name, value, value.persistent)  # nn.Buffer(t, persistent)
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, ()):
                del self.__dict__[store][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = (
            list(object.__dir__(self))
            + list(self._parameters)
            + list(self._modules)
            + list(self._buffers)
        )
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # ----- traversal ------------------------------------------------------------------------
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and v in memo):
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Returns an iterator over module parameters, yielding both the name of the parameter
        (dotted by submodule) and the parameter itself.

        Args:
            prefix (str, optional): prefix to prepend to all names (default: ``''``).
            recurse (bool, optional): include the members of all submodules; otherwise only those of
                this module (default: True).
            remove_duplicate (bool, optional): yield a shared member once (default: True).

        Returns:
            Iterator of ``(str, Parameter)`` pairs.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> [(name, p.shape) for name, p in net.named_parameters()]
            [('0.weight', torch.Size([3, 2])), ('0.bias', torch.Size([3])), ('1.weight',
            torch.Size([3])), ('1.bias', torch.Size([3]))]
        """
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def parameters(self, recurse=True):
        """Returns an iterator over module parameters, each once; typically passed to an optimizer.

        Args:
            recurse (bool, optional): include the members of all submodules; otherwise only those of
                this module (default: True).

        Returns:
            Iterator of :class:`~framework.nn.Parameter`.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> [p.shape for p in net.parameters()]
            [torch.Size([3, 2]), torch.Size([3]), torch.Size([3]), torch.Size([3])]
            >>> opt = framework.optim.SGD(net.parameters(), lr=0.1)
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Returns an iterator over module buffers, yielding both the name of the buffer and the
        buffer itself.

        Args:
            prefix (str, optional): prefix to prepend to all names (default: ``''``).
            recurse (bool, optional): include the members of all submodules; otherwise only those of
                this module (default: True).
            remove_duplicate (bool, optional): yield a shared member once (default: True).

        Returns:
            Iterator of ``(str, Tensor)`` pairs.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> [name for name, _ in net.named_buffers()]
            ['1.running_mean', '1.running_var', '1.num_batches_tracked']
        """
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse=True):
        """Returns an iterator over module buffers.

        Args:
            recurse (bool, optional): include the members of all submodules; otherwise only those of
                this module (default: True).

        Returns:
            Iterator of Tensor.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> [b.shape for b in net.buffers()]
            [torch.Size([3]), torch.Size([3]), torch.Size([])]
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        """Returns an iterator over immediate children modules, yielding both the name of the
        module and the module itself.

        Returns:
            Iterator of ``(str, Module)`` pairs.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> [name for name, _ in net.named_children()]
            ['0', '1', '2']
        """
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self):
        """Returns an iterator over immediate children modules.

        Returns:
            Iterator of Module.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> [type(m).__name__ for m in net.children()]
            ['Linear', 'BatchNorm1d', 'ReLU']
        """
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Returns an iterator over all modules in the network, this one first (named ``''``),
        yielding both the name of the module and the module itself.

        Args:
            memo (set, optional): modules already seen, which are skipped (default: None).
            prefix (str, optional): prefix to prepend to all names (default: ``''``).
            remove_duplicate (bool, optional): yield a shared member once (default: True).

        Returns:
            Iterator of ``(str, Module)`` pairs.

        Example:
            >>> l = nn.Linear(2, 2)
            >>> net = nn.Sequential(l, l)
            >>> [name for name, _ in net.named_modules()]  # the shared layer once
            ['', '0']
        """
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if module in memo:
                    continue
                memo.add(module)
            yield name, module
            subs = [
                (name + ("." if name else "") + k, m)
                for k, m in module._modules.items()
                if m is not None
            ]
            stack.extend(reversed(subs))

    def modules(self):
        """Returns an iterator over all modules in the network, this one first; a shared module is
        returned once.

        Returns:
            Iterator of Module.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> [type(m).__name__ for m in net.modules()]
            ['Sequential', 'Linear', 'BatchNorm1d', 'ReLU']
        """
        for _, module in self.named_modules():
            yield module

    # ----- modes and gradients --------------------------------------------------------------
    def train(self, mode=True):
        """Sets the module in training mode (or evaluation mode with ``mode=False``), recursively.
        This affects modules such as :class:`Dropout` and :class:`BatchNorm1d`.

        Args:
            mode (bool, optional): training mode (True) or evaluation mode (False) (default: True).

        Returns:
            Module: self.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> net.train(False).training, net[1].training
            (False, False)
            >>> net.train().training
            True
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            module.__dict__["training"] = mode
        return self

    def eval(self):
        """Sets the module in evaluation mode, recursively: the same as ``self.train(False)``.
        :class:`Dropout` does nothing and :class:`BatchNorm1d` uses its running statistics. It does
        not turn off gradient recording: use :func:`framework.no_grad` for that.

        Returns:
            Module: self.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> net.eval().training
            False
        """
        return self.train(False)

    def compile(self, *args, **kwargs):
        """Compiles this module's calls in place, as ``torch.compile`` would (torch's
        in-place form: the module and its state_dict keys stay as they are). framework runs
        eagerly, so calls compute exactly what they computed before; the arguments are
        checked as :func:`framework.compile` checks them.

        Args:
            *args: the positional arguments of :func:`framework.compile`.
            **kwargs: its keyword arguments.

        Example:
            >>> net = nn.Linear(2, 2)
            >>> net.compile(mode="max-autotune")
            >>> list(net.state_dict())
            ['weight', 'bias']
        """
        from .._namespace import compile

        compile(self._call_eager, *args, **kwargs)

    def _call_eager(self, *args, **kwargs):
        return self(*args, **kwargs)

    def requires_grad_(self, requires_grad=True):
        """Changes whether autograd should record operations on the parameters of this module, in
        place; useful to freeze part of a model for fine-tuning.

        Args:
            requires_grad (bool, optional): whether autograd should record operations on the
                parameters (default: True).

        Returns:
            Module: self.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
            >>> net[0].requires_grad_(False)
            Linear(in_features=2, out_features=3, bias=True)
            >>> [p.requires_grad for p in net.parameters()]
            [False, False, True, True]
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Resets the gradients of all model parameters; see
        :meth:`framework.optim.Optimizer.zero_grad`.

        Args:
            set_to_none (bool, optional): set the gradients to None instead of zeroing them in place
                (default: True).

        Example:
            >>> m = nn.Linear(2, 1)
            >>> m(framework.ones(1, 2)).sum().backward()
            >>> m.zero_grad(set_to_none=False); m.bias.grad
            tensor([0.])
            >>> m.zero_grad(); m.bias.grad is None
            True
        """
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def apply(self, fn):
        """Applies ``fn`` recursively to every submodule (as returned by :meth:`children`) and then
        to ``self``; typical use is initializing the parameters of a model.

        Args:
            fn (Callable): a function of one :class:`Module`, applied to each submodule.

        Returns:
            Module: self.

        Example:
            >>> @framework.no_grad()
            ... def init_weights(m):
            ...     if type(m) is nn.Linear:
            ...         m.weight.fill_(1.0)
            >>> net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
            >>> net.apply(init_weights)[0].weight
            Parameter containing:
            tensor([[1., 1.],
                    [1., 1.]], requires_grad=True)
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ----- devices and dtypes: arrays are swapped inside the existing Parameters -------------
    def _apply(self, fn):
        for module in self.children():
            module._apply(fn)
        for p in self._parameters.values():
            if p is None:
                continue
            with no_grad():
                new = fn(p)
            p.data = new  # same Parameter object: optimizers built earlier keep working
            if p.grad is not None:
                with no_grad():
                    p.grad.data = fn(p.grad)
        for k, b in self._buffers.items():
            if b is not None:
                self._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Moves and/or casts the parameters and buffers, in place.

        It can be called as ``to(device=None, dtype=None, non_blocking=False)``, ``to(dtype)``,
        ``to(tensor)`` (the tensor's device and dtype) or ``to(memory_format=...)``. Only
        floating-point parameters and buffers are cast to ``dtype``; integral ones keep theirs.

        Args:
            device (framework.device, optional): the desired device of the parameters and buffers.
            dtype (framework.dtype, optional): the desired floating-point dtype.
            tensor (Tensor, optional): a tensor whose dtype and device are the desired ones.
            non_blocking (bool, optional): accepted for compatibility (default: False).

        Returns:
            Module: self.

        Example:
            >>> linear = nn.Linear(2, 2)
            >>> linear.to(framework.float64).weight.dtype
            torch.float64
            >>> linear.to("cpu", dtype=framework.float32).bias.dtype
            torch.float32
        """
        dev, dt = _parse_module_to(args, kwargs)
        if dt is not None and not dt.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got "
                f"desired dtype={dt}"
            )

        fmt = kwargs.get("memory_format")

        def convert(t):
            if fmt is not None and t.dim() in (4, 5):  # torch converts only 4-D/5-D tensors
                t = t.to(memory_format=fmt)
            if dt is not None and t.is_floating_point():
                return t.to(dev if dev is not None else t.device, dt)
            return t.to(dev) if dev is not None else t

        return self._apply(convert)

    def cpu(self):
        """Moves all model parameters and buffers to the CPU.

        Returns:
            Module: self.

        Example:
            >>> nn.Linear(2, 2).cpu().weight.device
            device(type='cpu')
        """
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        """Moves all model parameters and buffers to the GPU (needs CuPy: the ``gpu`` extra). Call
        it before constructing the optimizer if the module will live on the GPU while being
        optimized.

        Args:
            device (int or framework.device, optional): the GPU to copy to (default: None, the
                current one).

        Returns:
            Module: self.

        Example:
            >>> model = nn.Linear(2, 2)
            >>> model = model.cuda() if framework.cuda.is_available() else model
            >>> model.weight.device.type in ('cpu', 'cuda')
            True
        """
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        """Casts all parameters and buffers (integral ones too, as torch does) to ``dst_type``.

        Args:
            dst_type (framework.dtype or str): the desired type.

        Returns:
            Module: self.

        Example:
            >>> nn.Linear(2, 2).type(framework.float64).weight.dtype
            torch.float64
        """
        return self._apply(lambda t: t.type(dst_type))

    def _float_to(self, dt):
        return self._apply(lambda t: t.to(dt) if t.is_floating_point() else t)

    def float(self):
        """Cast floating-point parameters and buffers to float32."""
        return self._float_to(dtypes.float32)

    def double(self):
        """Cast floating-point parameters and buffers to float64."""
        return self._float_to(dtypes.float64)

    def half(self):
        """Cast floating-point parameters and buffers to float16."""
        return self._float_to(dtypes.float16)

    def bfloat16(self):
        """Cast floating-point parameters and buffers to bfloat16 (needs ml_dtypes).

        Example:
            >>> framework.nn.Linear(2, 1).bfloat16().weight.dtype
            torch.bfloat16
        """
        return self._float_to(dtypes.bfloat16)

    # ----- calling and hooks ----------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Registers a forward pre-hook on the module, called before :meth:`forward` as
        ``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``); it may
        return a modified input (a single value is wrapped in a tuple), or ``(args, kwargs)`` with
        ``with_kwargs``.

        Args:
            hook (Callable): the user defined hook to be registered.
            prepend (bool, optional): fire this hook before the already registered ones (default:
                False).
            with_kwargs (bool, optional): pass the keyword arguments of the call to the hook
                (default: False).

        Returns:
            :class:`~framework.utils.hooks.RemovableHandle`: ``handle.remove()`` removes the hook.

        Example:
            >>> m = nn.Linear(2, 1)
            >>> h = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
            >>> m(framework.ones(1, 2)) - m.bias
            tensor([[0.]], grad_fn=<SubBackward0>)
            >>> h.remove()
        """
        handle = _register(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Registers a forward hook on the module, called after :meth:`forward` has computed an
        output, as ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)`` with
        ``with_kwargs``); it may return a modified output.

        Args:
            hook (Callable): the user defined hook to be registered.
            prepend (bool, optional): fire this hook before the already registered ones (default:
                False).
            with_kwargs (bool, optional): pass the keyword arguments of the call to the hook
                (default: False).
            always_call (bool, optional): accepted for compatibility (default: False).

        Returns:
            :class:`~framework.utils.hooks.RemovableHandle`: ``handle.remove()`` removes the hook.

        Example:
            >>> m = nn.Linear(2, 1)
            >>> shapes = []
            >>> h = m.register_forward_hook(lambda mod, args, out: shapes.append(out.shape))
            >>> _ = m(framework.ones(3, 2)); shapes
            [torch.Size([3, 1])]
            >>> h.remove()
        """
        handle = _register(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """Registers a backward hook on the module, called every time the gradients with respect to
        the module's inputs are computed, as ``hook(module, grad_input, grad_output)``; it may
        return new gradients with respect to the input, used in place of ``grad_input``.

        Args:
            hook (Callable): the user-defined hook to be registered.
            prepend (bool, optional): fire this hook before the already registered ones (default:
                False).

        Returns:
            :class:`~framework.utils.hooks.RemovableHandle`: ``handle.remove()`` removes the hook.

        Example:
            >>> m = nn.Linear(2, 1)
            >>> seen = []
            >>> h = m.register_full_backward_hook(lambda mod, gin, gout: seen.append(gout[0].shape))
            >>> x = framework.ones(3, 2, requires_grad=True)
            >>> m(x).sum().backward(); seen
            [torch.Size([3, 1])]
        """
        return _register(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Registers a backward pre-hook on the module, called every time the gradients with
        respect to the module's outputs are computed, as ``hook(module, grad_output)``; it may
        return new gradients with respect to the output.

        Args:
            hook (Callable): the user-defined hook to be registered.
            prepend (bool, optional): fire this hook before the already registered ones (default:
                False).

        Returns:
            :class:`~framework.utils.hooks.RemovableHandle`: ``handle.remove()`` removes the hook.

        Example:
            >>> m = nn.Linear(2, 1, bias=False)
            >>> h = m.register_full_backward_pre_hook(lambda mod, gout: (gout[0] * 10,))
            >>> x = framework.ones(1, 2, requires_grad=True)
            >>> m(x).sum().backward()
            >>> framework.allclose(x.grad, 10 * m.weight.detach())
            True
        """
        return _register(self._backward_pre_hooks, hook, prepend)

    def __call__(self, *args, **kwargs):
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of "
                            f"(new_args, new_kwargs), but got {result}."
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        bw = None
        if self._backward_hooks or self._backward_pre_hooks:
            bw = _BackwardHook(self)
            args = bw.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_hooks.items()):
            if hid in self._forward_hooks_with_kwargs:
                out = hook(self, args, kwargs, result)
            else:
                out = hook(self, args, result)
            if out is not None:
                result = out
        if bw is not None:
            result = bw.setup_output_hook(result)
        return result

    # ----- printing -------------------------------------------------------------------------
    def extra_repr(self):
        """Returns the extra representation of the module, shown inside its ``repr`` (e.g.
        ``in_features=4, out_features=2``); override it in custom modules. Single-line and
        multi-line strings are both fine.

        Returns:
            str: the text (empty by default).

        Example:
            >>> nn.Linear(4, 2).extra_repr()
            'in_features=4, out_features=2, bias=True'
        """
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _check_name(module, name, kind, store):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in store:
        raise KeyError(f"attribute '{name}' already exists")


def _remove_from(d, name, *stores):
    for store in stores:
        s = d.get(store)
        if s is not None and name in s:
            if isinstance(s, set):
                s.discard(name)
            else:
                del s[name]
    d.pop(name, None)


def _register(hooks, hook, prepend):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False) if hasattr(hooks, "move_to_end") else _move_first(
            hooks, handle.id
        )
    return handle


def _move_first(hooks, key):
    items = [(key, hooks.pop(key))] + list(hooks.items())
    hooks.clear()
    hooks.update(items)


def _parse_module_to(args, kwargs):
    dev, dt = kwargs.get("device"), kwargs.get("dtype")
    for a in args:
        if isinstance(a, Tensor):
            dev, dt = a.device, a.dtype
        elif isinstance(a, dtypes.dtype):
            dt = a
        elif a is not None and not isinstance(a, bool):
            dev = a
    if dev is not None:
        dev = as_device(dev)
    if dt is not None and not isinstance(dt, dtypes.dtype):
        dt = dtypes.from_numpy_dtype(dtypes.to_numpy_dtype(dt))
    return dev, dt


class BackwardHookFunction(Op):
    """Identity over a module's input or output tensors; its node carries the module's
    full backward hooks (torch wraps tensors the same way)."""

    node_name = "BackwardHookFunctionBackward"

    def forward(self, *arrays, nondiff=()):
        self.non_differentiable = nondiff
        return arrays

    def backward(self, *grads):
        return grads

    jvp = Op.jvp_linear


def _wrap(values):
    """Apply BackwardHookFunction to the tensors among `values`; returns (new values, node)."""
    idx = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    tensors = [values[i] for i in idx]
    if not state.enabled or not any(t.requires_grad for t in tensors):
        return values, None, len(idx)
    outs = BackwardHookFunction.apply(
        *tensors, nondiff=tuple(k for k, t in enumerate(tensors) if not t.requires_grad)
    )
    node = next(o.grad_fn for o in outs if o.grad_fn is not None)
    values = list(values)
    for k, i in enumerate(idx):
        values[i] = outs[k]
    return values, node, len(idx)


class _BackwardHook:
    """Runs register_full_backward_(pre_)hook callbacks: grad_output is seen where the
    gradient enters the module's outputs, grad_input where it leaves through its inputs."""

    def __init__(self, module):
        self.module = module
        self.grad_outputs = None
        self.input_node = None
        self.n_inputs = 0

    def setup_input_hook(self, args):
        new, self.input_node, self.n_inputs = _wrap(args)
        if self.input_node is not None:
            self.input_node.register_prehook(self._input_hook)
        return tuple(new)

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        new, node, _ = _wrap(
            [result] if single else list(result) if isinstance(result, (tuple, list)) else [result]
        )
        if node is not None:
            node.register_prehook(self._output_hook)
        if single:
            return new[0]
        return type(result)(new) if isinstance(result, (tuple, list)) else new[0]

    def _run_hooks(self, grad_inputs):
        for hook in list(self.module._backward_hooks.values()):
            r = hook(self.module, grad_inputs, self.grad_outputs)
            if r is None:
                continue
            r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
            if len(r) != len(grad_inputs):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, "
                    f"got {len(r)}, but expected {len(grad_inputs)}"
                )
            grad_inputs = r
        return grad_inputs

    def _output_hook(self, grad_outputs):
        for hook in list(self.module._backward_pre_hooks.values()):
            r = hook(self.module, grad_outputs)
            if r is not None:
                grad_outputs = tuple(r) if isinstance(r, (tuple, list)) else (r,)
        self.grad_outputs = grad_outputs
        if self.input_node is None:  # no input needs a gradient: torch calls the hooks now
            r = self._run_hooks((None,) * self.n_inputs)
            if any(g is not None for g in r):
                raise RuntimeError(
                    "Backward hook for Modules where no input requires gradient "
                    "should always return None or None for all gradients."
                )
        return grad_outputs

    def _input_hook(self, grad_inputs):
        return self._run_hooks(tuple(grad_inputs))
