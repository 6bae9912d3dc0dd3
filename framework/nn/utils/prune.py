r"""torch.nn.utils.prune: pruning methods, as torch 2.13's.

Pruning parameter ``name`` of a module moves it to the parameter ``name + "_orig"``, stores the
mask in the buffer ``name + "_mask"`` and sets the plain attribute ``name = name_orig * name_mask``;
a forward pre-hook (the pruning method itself) recomputes it before each forward. Pruning the same
parameter again combines the methods in a :class:`PruningContainer`; :func:`remove` makes the
pruning permanent.
"""

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import framework

from . import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


class BasePruningMethod(ABC):
    r"""Abstract base class of pruning methods: subclasses define :meth:`compute_mask` and set
    ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` or ``"global"``).

    An instance is the forward pre-hook that recomputes the pruned tensor before each forward.
    """

    _tensor_name: str

    def __call__(self, module, inputs):
        r"""Multiplies the mask into the original tensor and stores it as ``module.<name>``."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        r"""Returns the mask for tensor ``t``: ``default_mask`` (the mask of earlier pruning
        iterations, which units still unpruned) with the units this method prunes set to 0.
        """

    def apply_mask(self, module):
        r"""Returns the pruned tensor: ``module.<name>_mask * module.<name>_orig``."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        r"""Adds the forward pre-hook that prunes tensor ``name`` of ``module`` on the fly, and
        reparametrizes it (``name_orig`` parameter, ``name_mask`` buffer).

        Args:
            module (nn.Module): module containing the tensor to prune.
            name (str): parameter name within ``module`` on which pruning will act.
            args: arguments passed on to a subclass of :class:`BasePruningMethod`.
            importance_scores (Tensor): tensor of importance scores (of the same shape as the
                parameter) used to compute the mask; the parameter itself when None.
            kwargs: keyword arguments passed on to a subclass of :class:`BasePruningMethod`.
        """
        old_method, hooks_to_remove = None, []
        for k, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old_method = hook
                hooks_to_remove.append(k)
        if len(hooks_to_remove) > 1:
            raise AssertionError(
                f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                f"{module}. Use a PruningContainer."
            )
        for k in hooks_to_remove:
            del module._forward_pre_hooks[k]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if isinstance(old_method, PruningContainer):
            old_method.add_pruning_method(method)
            method = old_method
        elif isinstance(old_method, BasePruningMethod):
            container = PruningContainer(old_method)
            container.add_pruning_method(method)
            method = container

        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}"
                )
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):  # first pruning: reparametrize
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = framework.ones_like(orig)
        else:
            default_mask = (
                getattr(module, name + "_mask")
                .detach()
                .clone(memory_format=framework.contiguous_format)
            )
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception as e:
            if not isinstance(method, PruningContainer):  # undo the reparametrization
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise e
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        r"""Returns the pruned version of tensor ``t``: ``t`` times the mask computed from
        ``importance_scores`` (``t`` when None) and ``default_mask`` (ones when None).
        """
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, got "
                    f"{importance_scores.shape} vs {t.shape}"
                )
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else framework.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        r"""Makes the pruning permanent: ``name`` becomes a parameter again holding the pruned
        values, and ``name_orig``/``name_mask`` are deleted (the hook is removed by :func:`remove`).
        """
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    r"""Sequence of pruning methods applied iteratively to the same tensor: the latest method
    acts on the units the earlier ones left unpruned.

    Args:
        *args: pruning methods (all acting on the same parameter name).
    """

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        r"""Adds a pruning method (acting on the container's parameter name) to the container."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}."
                f" Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        r"""Applies the latest method to the still-unpruned part of ``t`` (the entries, channels
        or whole tensor that ``default_mask`` leaves, depending on the method's ``PRUNING_TYPE``)
        and returns the combined mask.
        """
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            slc = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                    "`dim` defined."
                )
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
        elif method.PRUNING_TYPE == "global":
            slc = [slice(None)] * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        if isinstance(slc, list):
            slc = tuple(slc)
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    r"""Prunes nothing: adds the pruning reparametrization with a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        r"""Adds the identity pruning reparametrization to tensor ``name`` of ``module``."""
        return super().apply(module, name)


def _check_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _nparams_toprune(amount, tensor_size):
    """The number of units to prune: ``amount`` itself when an int, else a rounded fraction
    (validated against ``tensor_size`` as torch does)."""
    n = amount if isinstance(amount, numbers.Integral) else round(amount * tensor_size)
    if isinstance(n, numbers.Integral) and n > tensor_size:
        raise ValueError(
            f"amount={n} should be smaller than the number of parameters to prune={tensor_size}"
        )
    return n


def _check_structured(t, dim):
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {shape} with {len(shape)} dims"
        )
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channel_mask(t, dim, index):
    mask = framework.zeros_like(t)
    slc = [slice(None)] * len(t.shape)
    slc[dim] = index
    mask[tuple(slc)] = 1
    return mask


class RandomUnstructured(BasePruningMethod):
    r"""Prunes (currently unpruned) entries of a tensor at random (torch's draw: the
    ``amount`` largest of ``rand_like(t)``).

    Args:
        amount (int or float): the number of parameters to prune if an int, the fraction of
            parameters to prune if a float in [0, 1].
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _check_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        nparams_toprune = _nparams_toprune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=framework.contiguous_format)
        if nparams_toprune != 0:
            prob = framework.rand_like(t)
            topk = framework.topk(prob.view(-1), k=nparams_toprune)
            mask.view(-1)[topk.indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        r"""Prunes tensor ``name`` of ``module`` at random (see :class:`RandomUnstructured`)."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    r"""Prunes (currently unpruned) entries of a tensor with the lowest absolute value.

    Args:
        amount (int or float): the number of parameters to prune if an int, the fraction of
            parameters to prune if a float in [0, 1].
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _check_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        nparams_toprune = _nparams_toprune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=framework.contiguous_format)
        if nparams_toprune != 0:
            topk = framework.topk(framework.abs(t).view(-1), k=nparams_toprune, largest=False)
            mask.view(-1)[topk.indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        r"""Prunes the smallest-magnitude entries of tensor ``name`` of ``module`` (or of
        ``importance_scores``)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    r"""Prunes entire (currently unpruned) channels of a tensor along ``dim`` at random.

    Args:
        amount (int or float): the number of channels to prune if an int, the fraction of
            channels to prune if a float in [0, 1].
        dim (int, optional): index of the dim along which channels are pruned (default: -1).
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1) -> None:
        _check_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        r"""Returns ``default_mask`` with the channels along ``dim`` whose ``rand`` draw is among
        the ``amount`` smallest set to 0 (torch's draw: ``rand(nchannels)``, ``kthvalue``)."""
        _check_structured(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _nparams_toprune(self.amount, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = framework.rand(tensor_size)
        threshold = framework.kthvalue(prob, k=nparams_toprune).values
        mask = _channel_mask(t, self.dim, prob > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        r"""Prunes random channels of tensor ``name`` of ``module`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    r"""Prunes entire (currently unpruned) channels of a tensor along ``dim`` with the lowest
    L\ ``n``-norm.

    Args:
        amount (int or float): the number of channels to prune if an int, the fraction of
            channels to prune if a float in [0, 1].
        n (int, float, inf, -inf, 'fro', 'nuc'): the order of the norm (see ``framework.norm``).
        dim (int, optional): index of the dim along which channels are pruned (default: -1).
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1) -> None:
        _check_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        r"""Returns ``default_mask`` times a mask keeping the channels along ``dim`` with the
        largest L\ ``n``-norm (taken over the other dims)."""
        _check_structured(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _nparams_toprune(self.amount, tensor_size)
        dims = list(range(t.dim()))
        dims.remove(dims[self.dim])  # the norm is over every dim but ``dim``
        norm = framework.norm(t, p=self.n, dim=dims)
        topk = framework.topk(norm, k=tensor_size - nparams_toprune, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, topk.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        r"""Prunes the channels of tensor ``name`` of ``module`` with the lowest
        L\ ``n``-norm along ``dim``."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    r"""Prunes with a pre-computed mask (multiplied into the current one).

    Args:
        mask (Tensor): binary mask of the tensor's shape.
    """

    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape "
                f"{self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        r"""Prunes tensor ``name`` of ``module`` with ``mask``."""
        return super().apply(module, name, mask=mask)


def identity(module, name):
    r"""Adds the pruning reparametrization to tensor ``name`` of ``module`` without pruning any
    unit: ``name_orig`` (parameter), ``name_mask`` (ones) and the forward pre-hook.

    Returns:
        module (nn.Module): the input module, modified in place.

    Example:
        >>> from framework.nn.utils import prune
        >>> m = prune.identity(nn.Linear(2, 3), "bias")
        >>> print(m.bias_mask)
        tensor([1., 1., 1.])
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    r"""Prunes tensor ``name`` of ``module`` by removing ``amount`` (currently unpruned) units
    chosen at random (the same units as torch's from the same seed).

    Args:
        module (nn.Module): module containing the tensor to prune.
        name (str): parameter name within ``module`` on which pruning will act.
        amount (int or float): the number of parameters to prune if an int, the fraction of
            parameters to prune if a float in [0, 1].

    Returns:
        module (nn.Module): the input module, modified in place.

    Example:
        >>> from framework.nn.utils import prune
        >>> m = prune.random_unstructured(nn.Linear(2, 3), "weight", amount=1)
        >>> int(framework.sum(m.weight_mask == 0))
        1
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    r"""Prunes tensor ``name`` of ``module`` by removing ``amount`` (currently unpruned) units
    with the lowest L1-norm (of ``importance_scores`` when given).

    Args:
        module (nn.Module): module containing the tensor to prune.
        name (str): parameter name within ``module`` on which pruning will act.
        amount (int or float): the number of parameters to prune if an int, the fraction of
            parameters to prune if a float in [0, 1].
        importance_scores (Tensor, optional): scores of the parameter's shape (default: the
            parameter itself).

    Returns:
        module (nn.Module): the input module, modified in place.

    Example:
        >>> from framework.nn.utils import prune
        >>> m = prune.l1_unstructured(nn.Linear(2, 3), "weight", amount=0.2)
        >>> m.state_dict().keys()
        odict_keys(['bias', 'weight_orig', 'weight_mask'])
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    r"""Prunes tensor ``name`` of ``module`` by removing ``amount`` (currently unpruned) channels
    along ``dim`` chosen at random.

    Args:
        module (nn.Module): module containing the tensor to prune.
        name (str): parameter name within ``module`` on which pruning will act.
        amount (int or float): the number of channels to prune if an int, the fraction of
            channels to prune if a float in [0, 1].
        dim (int): index of the dim along which channels are pruned.

    Returns:
        module (nn.Module): the input module, modified in place.

    Example:
        >>> from framework.nn.utils import prune
        >>> m = prune.random_structured(nn.Linear(5, 3), "weight", amount=3, dim=1)
        >>> int(sum(m.weight_mask.sum(dim=0) == 0))
        3
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    r"""Prunes tensor ``name`` of ``module`` by removing ``amount`` (currently unpruned) channels
    along ``dim`` with the lowest L\ ``n``-norm (of ``importance_scores`` when given).

    Args:
        module (nn.Module): module containing the tensor to prune.
        name (str): parameter name within ``module`` on which pruning will act.
        amount (int or float): the number of channels to prune if an int, the fraction of
            channels to prune if a float in [0, 1].
        n (int, float, inf, -inf, 'fro', 'nuc'): the order of the norm.
        dim (int): index of the dim along which channels are pruned.
        importance_scores (Tensor, optional): scores of the parameter's shape (default: the
            parameter itself).

    Returns:
        module (nn.Module): the input module, modified in place.

    Example:
        >>> from framework.nn.utils import prune
        >>> m = prune.ln_structured(nn.Conv2d(5, 3, 2), "weight", amount=0.3, dim=1, n=2)
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    r"""Prunes the tensors of all ``parameters`` together with ``pruning_method`` (an
    ``"unstructured"`` method such as :class:`L1Unstructured`), as if they were one flattened
    vector; each tensor then gets the matching slice of the mask through :func:`custom_from_mask`.

    Args:
        parameters (Iterable of (module, name) tuples): parameters of the model to prune.
        pruning_method (type): a pruning method class of this module (or a custom one with
            ``PRUNING_TYPE = "unstructured"``).
        importance_scores (dict, optional): maps (module, name) to the scores of that parameter
            (default: the parameters themselves).
        kwargs: e.g. ``amount=``, passed on to ``pruning_method``.

    Raises:
        TypeError: if ``PRUNING_TYPE != "unstructured"``.

    Example:
        >>> from framework.nn.utils import prune
        >>> net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
        >>> params = ((net[0], "weight"), (net[1], "weight"))
        >>> prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=5)
        >>> int(sum(parameters_to_vector(net.buffers()) == 0))
        5
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [
            importance_scores.get((module, name), getattr(module, name))
            for module, name in parameters
        ]
    )
    default_mask = parameters_to_vector(
        [
            getattr(module, name + "_mask", framework.ones_like(getattr(module, name)))
            for module, name in parameters
        ]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        param_mask = final_mask[pointer : pointer + num_param].view_as(param)
        custom_from_mask(module, name, mask=param_mask)
        pointer += num_param


def custom_from_mask(module, name, mask):
    r"""Prunes tensor ``name`` of ``module`` with the pre-computed ``mask``.

    Returns:
        module (nn.Module): the input module, modified in place.

    Example:
        >>> from framework.nn.utils import prune
        >>> m = prune.custom_from_mask(nn.Linear(5, 3), "bias", mask=framework.tensor([0, 1, 0]))
        >>> print(m.bias_mask)
        tensor([0., 1., 0.])
    """
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    r"""Removes the pruning reparametrization of tensor ``name`` of ``module`` and its forward
    hook; ``name`` becomes a parameter holding the pruned values (not undoing the pruning).

    Example:
        >>> from framework.nn.utils import prune
        >>> m = prune.random_unstructured(nn.Linear(5, 7), name="weight", amount=0.2)
        >>> m = prune.remove(m, name="weight")
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module) -> bool:
    r"""Whether ``module`` or any of its submodules has a pruning pre-hook.

    Example:
        >>> from framework.nn.utils import prune
        >>> m = nn.Linear(5, 7)
        >>> prune.is_pruned(m)
        False
        >>> prune.is_pruned(prune.random_unstructured(m, name="weight", amount=0.2))
        True
    """
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False
