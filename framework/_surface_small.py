"""Small torch names: Tensor methods (new_empty, nbytes, byte, get_device, dim_order, the
scatter forms, unsafe_split, ...), the ``*_copy`` functions (a copy of what the view returns,
whose node is named as torch's: ``PermuteBackward0_copy``), and top-level helpers (range,
typename, unravel_index, set_default_device, set_warn_always, ...).

A copy function or a named composite ends in :class:`_Named`: an identity on arrays (a copy)
whose node carries torch's name; its backward passes the gradient through, so every order of
derivative is the composition's."""

import builtins
import warnings

from . import creation as _creation
from . import dtypes as _dtypes
from .autograd.op import Op
from .tensor import Tensor

_NAMED = {}


class _Named(Op):
    """Identity (a fresh copy of the array) whose node is named as torch's; see module doc."""

    def forward(self, x):
        """A copy of x (the node's output owns its memory)."""
        return x.copy()

    def backward(self, grad):
        """The gradient passes through unchanged."""
        return grad

    jvp = Op.jvp_linear


def _named_cls(name):
    """The _Named subclass whose node is named `name` (made once)."""
    cls = _NAMED.get(name)
    if cls is None:
        cls = _NAMED[name] = type(f"_Named_{name}", (_Named,), {"node_name": name})
    return cls


def _named(t, name):
    """`t`'s values in a new tensor whose grad_fn is named `name` (when it has one)."""
    return _named_cls(name).apply(t)


class _ViewCopy(Op):
    """A copy of view(x) (a ``*_copy`` function): torch's one node over x's edge, its
    backward the view's (taken through a fresh graph, so every order of derivative works)."""

    def forward(self, x, view):
        """A copy of view(x)."""
        self.view, self.in_shape = view, x.shape
        return view(Tensor._make(x)).detach()._data.copy()

    def backward(self, grad):
        """The view's backward of grad."""
        from .autograd import grad as _grad
        from .autograd.grad_mode import enable_grad, is_grad_enabled

        create = is_grad_enabled()
        x = grad.new_zeros(self.in_shape).requires_grad_()
        with enable_grad():
            return _grad(self.view(x), x, grad, create_graph=create)[0]

    def jvp(self, t):
        """The view of the tangent."""
        return self.view(t)


def _view_copy(input, view, name):
    """A copy of view(input) whose grad_fn (one node, as torch's) is named `name`."""
    cls = _NAMED.get(("view", name))
    if cls is None:
        cls = _NAMED[("view", name)] = type(f"_ViewCopy_{name}", (_ViewCopy,), {"node_name": name})
    return cls.apply(input, view=view)


# ---- Tensor methods ----


def new_empty(
    self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    out = _creation.empty(*size, dtype=dtype or self.dtype, device=device or self._device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def new_empty_strided(
    self, size, stride, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    from .ops.extras4 import empty_strided

    out = empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self._device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def ndimension(self):
    return self.dim()


def byte(self, memory_format=None):
    return self.to(_dtypes.uint8)


def char(self, memory_format=None):
    return self.to(_dtypes.int8)


def short(self, memory_format=None):
    return self.to(_dtypes.int16)


def get_device(self):
    return -1 if self._device.type == "cpu" else self._device.index or 0


def narrow_copy(self, dim, start, length):
    if self.ndim and dim >= self.ndim:  # (ATen's narrow_copy checks this before wrapping dim)
        raise RuntimeError(
            "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement "
            "request to PyTorch.)"
        )
    return _view_copy(self, lambda t: t.narrow(dim, start, length), "NarrowCopyBackward0")


def split_with_sizes(self, split_sizes, dim=0):
    return self.split(list(split_sizes), dim)


def unsafe_chunk(self, chunks, dim=0):
    return tuple(_named(p, "UnsafeSplitBackward0") for p in self.chunk(chunks, dim))


def unsafe_split(self, split_size, dim=0):
    return tuple(_named(p, "UnsafeSplitBackward0") for p in self.split(split_size, dim))


def unsafe_split_with_sizes(self, split_sizes, dim=0):
    parts = self.split(list(split_sizes), dim)
    return tuple(_named(p, "UnsafeSplitWithSizesBackward0") for p in parts)


def hardshrink(self, lambd=0.5):
    from .nn import functional as F

    return F.hardshrink(self, lambd)


def prelu(self, weight):
    from .nn import functional as F

    return F.prelu(self, weight)


def _scatter(input, src, view, name):
    """A copy of input with src written into view(copy), its node named `name`."""
    out = input.clone()
    view(out).copy_(src)
    return _named(out, name)


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    return _scatter(self, src, lambda o: o.diagonal(offset, dim1, dim2), "DiagonalScatterBackward0")


def select_scatter(self, src, dim, index):
    return _scatter(self, src, lambda o: o.select(dim, index), "SelectScatterBackward0")


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):

    def view(o):
        """The slice of o that slice_scatter writes."""
        idx = [slice(None)] * o.dim()
        idx[dim] = slice(start, end, step)
        return o[tuple(idx)]

    return _scatter(self, src, view, "SliceScatterBackward0")


def conj(self):
    return self  # real tensors: torch returns the tensor itself


def resolve_conj(self):
    return self


def resolve_neg(self):
    return self


def is_conj(self):
    return False


def is_neg(self):
    return False


def dim_order(self, *, ambiguity_check=False):
    st = self.stride()
    return tuple(sorted(builtins.range(self.dim()), key=lambda d: -st[d]))


_METHODS = (
    new_empty,
    new_empty_strided,
    ndimension,
    byte,
    char,
    short,
    get_device,
    narrow_copy,
    split_with_sizes,
    unsafe_chunk,
    unsafe_split,
    unsafe_split_with_sizes,
    hardshrink,
    prelu,
    diagonal_scatter,
    select_scatter,
    slice_scatter,
    conj,
    resolve_conj,
    resolve_neg,
    is_conj,
    is_neg,
    dim_order,
)
for _fn in _METHODS:
    _fn.__qualname__ = f"Tensor.{_fn.__name__}"
    setattr(Tensor, _fn.__name__, _fn)


def moveaxis(self, source, destination):
    return self.movedim(source, destination)


def _nbytes(self):
    """The number of bytes of the elements: ``numel() * element_size()``."""
    return self.numel() * self.element_size()


def _itemsize(self):
    """The size in bytes of one element (``element_size()``)."""
    return self.element_size()


def _is_cpu(self):
    """True if this tensor is stored on the CPU."""
    return self._device.type == "cpu"


def _output_nr(self):
    """Which output of the node that made it this tensor is (0 for leaves and no-grad
    results)."""
    return self._output_nr


moveaxis.__qualname__ = "Tensor.moveaxis"
Tensor.moveaxis = moveaxis
Tensor.nbytes = property(_nbytes, doc=_nbytes.__doc__)
Tensor.itemsize = property(_itemsize, doc=_itemsize.__doc__)
Tensor.is_cpu = property(_is_cpu, doc=_is_cpu.__doc__)
Tensor.output_nr = property(_output_nr, doc=_output_nr.__doc__)


# ---- top-level names ----


def view_copy(input, *shape):
    """``torch.view_copy``: a copy (not a view) of ``input.view(*shape)``,
    its node named ``ViewBackward0_copy``.

    Args:
        input (Tensor): the input.
        *shape (int...): the new shape (ints or one sequence).

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.view_copy(x, [6]).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.view(*shape), "ViewBackward0_copy")


def permute_copy(input, dims):
    """``torch.permute_copy``: a copy (not a view) of ``input.permute(dims)``,
    its node named ``PermuteBackward0_copy``.

    Args:
        input (Tensor): the input.
        dims (list of int): the new order of the dimensions.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.permute_copy(x, [1, 0]).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.permute(dims), "PermuteBackward0_copy")


def transpose_copy(input, dim0, dim1):
    """``torch.transpose_copy``: a copy (not a view) of ``input.transpose(dim0, dim1)``,
    its node named ``TransposeBackward0_copy``.

    Args:
        input (Tensor): the input.
        dim0 (int): the first dimension.
        dim1 (int): the second dimension.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.transpose_copy(x, 0, 1).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.transpose(dim0, dim1), "TransposeBackward0_copy")


def t_copy(input):
    """``torch.t_copy``: a copy (not a view) of ``input.t()``,
    its node named ``TBackward0_copy``.

    Args:
        input (Tensor): the input.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.t_copy(x).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.t(), "TBackward0_copy")


def squeeze_copy(input, dim=None):
    """``torch.squeeze_copy``: a copy (not a view) of ``input.squeeze()``,
    its node named ``SqueezeBackward0_copy``.

    Args:
        input (Tensor): the input.
        dim (int or tuple of int, optional): the dimensions to squeeze. Default: all of size 1.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.squeeze_copy(x).is_contiguous()
        True
    """
    if dim is None:
        return _view_copy(input, lambda t: t.squeeze(), "SqueezeBackward0_copy")
    name = "SqueezeBackward1_copy" if isinstance(dim, int) else "SqueezeBackward2_copy"
    return _view_copy(input, lambda t: t.squeeze(dim), name)  # (torch's overloads: dim, dims)


def unsqueeze_copy(input, dim):
    """``torch.unsqueeze_copy``: a copy (not a view) of ``input.unsqueeze(dim)``,
    its node named ``UnsqueezeBackward0_copy``.

    Args:
        input (Tensor): the input.
        dim (int): where to insert the new dimension.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.unsqueeze_copy(x, 0).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.unsqueeze(dim), "UnsqueezeBackward0_copy")


def expand_copy(input, size, *, implicit=False):
    """``torch.expand_copy``: a copy (not a view) of ``input.expand(size)``,
    its node named ``ExpandBackward0_copy``.

    Args:
        input (Tensor): the input.
        size (list of int): the expanded size (-1 keeps a dimension).
        implicit (bool, optional): accepted for torch's signature. Default: False.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.expand_copy(x, [2, 2, 3]).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.expand(size), "ExpandBackward0_copy")


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    """``torch.diagonal_copy``: a copy (not a view) of ``input.diagonal(offset, dim1, dim2)``,
    its node named ``DiagonalBackward0_copy``.

    Args:
        input (Tensor): the input.
        offset (int, optional): which diagonal. Default: 0.
        dim1 (int, optional): the first dimension. Default: 0.
        dim2 (int, optional): the second dimension. Default: 1.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.diagonal_copy(x).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.diagonal(offset, dim1, dim2), "DiagonalBackward0_copy")


def select_copy(input, dim, index):
    """``torch.select_copy``: a copy (not a view) of ``input.select(dim, index)``,
    its node named ``SelectBackward0_copy``.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to index.
        index (int): the index.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.select_copy(x, 0, 1).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.select(dim, index), "SelectBackward0_copy")


def unfold_copy(input, dimension, size, step):
    """``torch.unfold_copy``: a copy (not a view) of ``input.unfold(dimension, size, step)``,
    its node named ``UnfoldBackward0_copy``.

    Args:
        input (Tensor): the input.
        dimension (int): the dimension to unfold.
        size (int): the size of each slice.
        step (int): the step between slices.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.unfold_copy(x, 1, 2, 1).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.unfold(dimension, size, step), "UnfoldBackward0_copy")


def alias_copy(input):
    """``torch.alias_copy``: a copy (not a view) of ``input.view_as(input)``,
    its node named ``AliasBackward0_copy``.

    Args:
        input (Tensor): the input.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.alias_copy(x).is_contiguous()
        True
    """
    return _view_copy(input, lambda t: t.view_as(input), "AliasBackward0_copy")


def as_strided_copy(input, size, stride, storage_offset=None):
    """``torch.as_strided_copy``: a copy (not a view) of
    ``input.as_strided(size, stride, storage_offset)``,
    its node named ``AsStridedBackward0_copy``.

    Args:
        input (Tensor): the input.
        size (list of int): the result's shape.
        stride (list of int): the result's strides.
        storage_offset (int, optional): the offset into the storage. Default: the input's.

    Example:
        >>> x = framework.arange(6.0).reshape(2, 3)
        >>> framework.as_strided_copy(x, [2, 2], [1, 2]).is_contiguous()
        True
    """
    return _view_copy(
        input, lambda t: t.as_strided(size, stride, storage_offset), "AsStridedBackward0_copy"
    )


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """``torch.slice_copy``: a copy of ``input`` sliced along `dim` (node ``SliceBackward0_copy``).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to slice. Default: 0.
        start (int, optional): the first index. Default: None (0).
        end (int, optional): the end index (excluded). Default: None (the size).
        step (int, optional): the step. Default: 1.

    Example:
        >>> framework.slice_copy(framework.arange(5.0), 0, 1, 4, 2)
        tensor([1., 3.])
    """
    idx = [slice(None)] * input.dim()
    idx[dim] = slice(start, end, step)
    return _view_copy(input, lambda t: t[tuple(idx)], "SliceBackward0_copy")


def split_copy(input, split_size, dim=0):
    """``torch.split_copy``: copies of ``input.split(split_size, dim)``.

    Args:
        input (Tensor): the input.
        split_size (int or list of int): the size of each chunk.
        dim (int, optional): the dimension to split. Default: 0.

    Example:
        >>> framework.split_copy(framework.arange(3.0), 2)
        (tensor([0., 1.]), tensor([2.]))
    """
    return tuple(_named(p, "SplitBackward0_copy") for p in input.split(split_size, dim))


def unbind_copy(input, dim=0):
    """``torch.unbind_copy``: copies of ``input.unbind(dim)``.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to remove. Default: 0.

    Example:
        >>> framework.unbind_copy(framework.eye(2))
        (tensor([1., 0.]), tensor([0., 1.]))
    """
    return tuple(_named(p, "UnbindBackward0_copy") for p in input.unbind(dim))


def detach_copy(input):
    """``torch.detach_copy``: a detached copy of ``input``.

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.detach_copy(framework.ones(2, requires_grad=True)).requires_grad
        False
    """
    return input.detach().clone()


def row_stack(tensors):
    """Alias of :func:`vstack`.

    Args:
        tensors (sequence of Tensor): the tensors to stack.

    Example:
        >>> framework.row_stack([framework.ones(2), framework.zeros(2)])
        tensor([[1., 1.],
                [0., 0.]])
    """
    from . import vstack

    return vstack(tensors)


def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid` (``trapz(y, x, *, dim)`` or ``trapz(y, *, dx, dim)``).

    Args:
        y (Tensor): the values.
        x (Tensor, optional): the sample points.
        dx (float, optional): the uniform spacing. Default: 1.
        dim (int, optional): the dimension to integrate along. Default: -1.

    Example:
        >>> framework.trapz(framework.tensor([1.0, 2.0, 3.0]))
        tensor(4.)
    """
    from . import trapezoid

    if x is not None:
        return trapezoid(y, x, dim=dim)
    return trapezoid(y, dx=1 if dx is None else dx, dim=dim)


def unravel_index(indices, shape):
    """Converts flat indices into a tuple of coordinate tensors for `shape` (torch's).

    Args:
        indices (Tensor): flat indices, integer dtype.
        shape (int or tuple of int): the shape indexed into.

    Example:
        >>> framework.unravel_index(framework.tensor([5, 7]), (3, 4))
        (tensor([1, 1]), tensor([1, 3]))
    """
    if not isinstance(indices, Tensor):
        from . import tensor

        indices = tensor(indices)
    if indices.is_floating_point() or indices.dtype == _dtypes.bool_:
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(indices.dtype))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    numel = 1
    for s in shape:
        numel *= s
    if ((indices < -numel) | (indices >= numel)).any():
        raise ValueError("'indices' must be in range [-{0}, {0})".format(numel))
    idx = indices.to(_dtypes.int64).remainder(numel) if numel else indices.to(_dtypes.int64)
    out = []
    for s in reversed(shape):
        out.append(idx.remainder(s) if s else idx)
        idx = idx.div(s, rounding_mode="floor") if s else idx
    return tuple(reversed(out))


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates the derivative of `input` along each of `dim` by central differences (one-sided
    of order `edge_order` at the ends); `spacing` is a scalar or one scalar per dim.

    Args:
        input (Tensor): the input.
        spacing (float or list of float, optional): the sample spacing, one per dim. Default: 1.
        dim (int or list of int, optional): the dimensions to differentiate along. Default: all.
        edge_order (int, optional): 1 or 2, the order of the one-sided ends. Default: 1.

    Example:
        >>> framework.gradient(framework.tensor([1.0, 4.0, 9.0, 16.0]))
        (tensor([3., 4., 6., 7.]),)
    """
    dims = (
        list(builtins.range(input.dim()))
        if dim is None
        else ([dim] if isinstance(dim, int) else dim)
    )
    dims = [d % input.dim() for d in dims]
    sp = spacing if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    out = []
    for d, h in zip(dims, sp):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
        a = input.narrow(d, 0, n - 2)
        b = input.narrow(d, 2, n - 2)
        mid = (b - a) / (2 * h)
        x0, x1, x2 = (input.narrow(d, i, 1) for i in builtins.range(3)) if n > 2 else (None,) * 3
        y0, y1 = input.narrow(d, n - 1, 1), input.narrow(d, n - 2, 1)
        if edge_order == 1:
            first = (input.narrow(d, 1, 1) - input.narrow(d, 0, 1)) / h
            last = (y0 - y1) / h
        else:
            y2 = input.narrow(d, n - 3, 1)
            first = (-1.5 * x0 + 2 * x1 - 0.5 * x2) / h
            last = (0.5 * y2 - 2 * y1 + 1.5 * y0) / h
        from . import cat

        out.append(cat([first, mid, last], d))
    return tuple(out)


def range(start, end, step=1, *, dtype=None, device=None, requires_grad=False):
    """Deprecated: values from `start` to `end` inclusive (warns as torch; use :func:`arange`).

    Args:
        start (Number): the first value.
        end (Number): the last value (included).
        step (Number, optional): the gap between values. Default: 1.
        dtype (framework.dtype, optional): the result's dtype. Default: the default dtype.
        device (framework.device, optional): the result's device.
        requires_grad (bool, optional): whether autograd records on the result. Default: False.

    Example:
        >>> framework.range(0, 3)  # doctest: +SKIP
        tensor([0., 1., 2., 3.])
    """
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    dt = dtype or _dtypes.get_default_dtype()
    n = int((end - start) // step) + 1
    out = _creation.arange(n, dtype=_dtypes.float64, device=device).mul(step).add(start).to(dt)
    return out.requires_grad_(requires_grad) if requires_grad else out


def typename(obj):
    """The type name torch prints: ``torch.FloatTensor`` for tensors, the qualified class name
    otherwise.

    Args:
        obj (object): any object.

    Example:
        >>> framework.typename(framework.ones(2))
        'torch.FloatTensor'
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if module in ("", "builtins") or not hasattr(obj, "__qualname__"):
        module = type(obj).__module__
        qualname = type(obj).__qualname__
        if module in ("", "builtins"):
            return qualname
    return module.replace("framework", "torch", 1) + "." + qualname


def get_device(input):
    """``torch.get_device(t)``: -1 on the CPU, else the device index.

    Args:
        input (Tensor): the tensor.

    Example:
        >>> framework.get_device(framework.ones(1))
        -1
    """
    return input.get_device()


def get_default_device():
    """The device new tensors are made on (always the CPU here).

    Example:
        >>> framework.get_default_device()
        device(type='cpu')
    """
    from .backend import device

    return device("cpu")


def set_default_device(device):
    """Sets the default device: only ``'cpu'`` (or None) here; a device that is not available
    raises torch's error.

    Args:
        device (str or framework.device or None): the default device.

    Example:
        >>> framework.set_default_device("cpu")
    """
    if device is None:
        return
    from .backend import device as _device

    d = _device(device)
    if d.type != "cpu":
        raise AssertionError("Torch not compiled with CUDA enabled")


_warn_always = [False]


def set_warn_always(b):
    """Whether warnings that torch emits once are emitted every time (recorded only).

    Args:
        b (bool): on or off.

    Example:
        >>> framework.set_warn_always(False)
    """
    _warn_always[0] = bool(b)


def is_warn_always_enabled():
    """Whether :func:`set_warn_always` is on.

    Example:
        >>> framework.is_warn_always_enabled()
        False
    """
    return _warn_always[0]


def set_flush_denormal(mode):
    """Whether to flush denormals to zero on the CPU; returns True (supported), as torch on
    x86, with no effect on NumPy's arithmetic here.

    Args:
        mode (bool): flush denormals (True) or not.

    Example:
        >>> framework.set_flush_denormal(False)
        True
    """
    return True


def nuclear_norm(input, dim=None, keepdim=False):
    """Deprecated ``torch.nuclear_norm``: ``linalg.matrix_norm(input, 'nuc', dim, keepdim)``.

    Args:
        input (Tensor): the input.
        dim (tuple of int, optional): the two matrix dimensions. Default: the last two.
        keepdim (bool, optional): keep the reduced dimensions. Default: False.

    Example:
        >>> framework.nuclear_norm(framework.eye(2))  # doctest: +SKIP
        tensor(2.)
    """
    warnings.warn(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
        "keepdim)` instead",
        stacklevel=2,
    )
    from .linalg import matrix_norm

    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def frobenius_norm(input, dim, keepdim=False):
    """Deprecated ``torch.frobenius_norm``: ``linalg.vector_norm(input, 2, dim, keepdim)``.

    Args:
        input (Tensor): the input.
        dim (list of int): the dimensions to reduce.
        keepdim (bool, optional): keep the reduced dimensions. Default: False.

    Example:
        >>> framework.frobenius_norm(framework.ones(2, 2), [0, 1])  # doctest: +SKIP
        tensor(2.)
    """
    warnings.warn(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
        "keepdim)` instead",
        stacklevel=2,
    )
    from .linalg import vector_norm

    return vector_norm(input, 2.0, dim, keepdim)


def narrow_copy(input, dim, start, length):
    """A copy (not a view) of ``input.narrow(dim, start, length)`` (node ``NarrowCopyBackward0``).

    Args:
        input (Tensor): the input.
        dim (int): the dimension to narrow.
        start (int): the first index.
        length (int): the number of elements.

    Example:
        >>> framework.narrow_copy(framework.arange(5), 0, 1, 2)
        tensor([1, 2])
    """
    return Tensor.narrow_copy(input, dim, start, length)


def split_with_sizes(input, split_sizes, dim=0):
    """Splits `input` into parts of the given sizes along `dim` (views).

    Args:
        input (Tensor): the input.
        split_sizes (list of int): the size of each part.
        dim (int, optional): the dimension to split. Default: 0.

    Example:
        >>> framework.split_with_sizes(framework.arange(3), [1, 2])
        (tensor([0]), tensor([1, 2]))
    """
    return Tensor.split_with_sizes(input, split_sizes, dim)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of `input` with its diagonal replaced by `src` (node ``DiagonalScatterBackward0``).

    Args:
        input (Tensor): the input.
        src (Tensor): the values of the diagonal.
        offset (int, optional): which diagonal. Default: 0.
        dim1 (int, optional): the first dimension. Default: 0.
        dim2 (int, optional): the second dimension. Default: 1.

    Example:
        >>> framework.diagonal_scatter(framework.zeros(2, 2), framework.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    return Tensor.diagonal_scatter(input, src, offset, dim1, dim2)


def select_scatter(input, src, dim, index):
    """A copy of `input` with ``input.select(dim, index)`` replaced by `src`.

    Args:
        input (Tensor): the input.
        src (Tensor): the values of the selected slice.
        dim (int): the dimension.
        index (int): the index.

    Example:
        >>> framework.select_scatter(framework.zeros(2, 2), framework.ones(2), 0, 1)
        tensor([[0., 0.],
                [1., 1.]])
    """
    return Tensor.select_scatter(input, src, dim, index)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of `input` with the slice ``start:end:step`` of `dim` replaced by `src`.

    Args:
        input (Tensor): the input.
        src (Tensor): the values of the slice.
        dim (int, optional): the dimension. Default: 0.
        start (int, optional): the first index. Default: None (0).
        end (int, optional): the end index (excluded). Default: None.
        step (int, optional): the step. Default: 1.

    Example:
        >>> framework.slice_scatter(framework.zeros(4), framework.ones(2), 0, 0, None, 2)
        tensor([1., 0., 1., 0.])
    """
    return Tensor.slice_scatter(input, src, dim, start, end, step)


def conj(input):
    """The conjugate: for a real tensor, the tensor itself.

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.conj(framework.ones(1))
        tensor([1.])
    """
    return Tensor.conj(input)


def resolve_conj(input):
    """Materializes a lazy conjugation: for a real tensor, the tensor itself.

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.resolve_conj(framework.ones(1))
        tensor([1.])
    """
    return Tensor.resolve_conj(input)


def resolve_neg(input):
    """Materializes a lazy negation: for a real tensor, the tensor itself.

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.resolve_neg(framework.ones(1))
        tensor([1.])
    """
    return Tensor.resolve_neg(input)


def is_conj(input):
    """Whether `input` has its conjugate bit set (never, for real tensors).

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.is_conj(framework.ones(1))
        False
    """
    return Tensor.is_conj(input)


def is_neg(input):
    """Whether `input` has its negative bit set (never, for real tensors).

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.is_neg(framework.ones(1))
        False
    """
    return Tensor.is_neg(input)


def unsafe_chunk(input, chunks, dim=0):
    """As :func:`chunk`, but the parts are not tracked as views (node ``UnsafeSplitBackward0``).

    Args:
        input (Tensor): the input.
        chunks (int): the number of chunks.
        dim (int, optional): the dimension. Default: 0.

    Example:
        >>> framework.unsafe_chunk(framework.arange(4), 2)
        (tensor([0, 1]), tensor([2, 3]))
    """
    return Tensor.unsafe_chunk(input, chunks, dim)


def unsafe_split(input, split_size, dim=0):
    """As :func:`split`, but the parts are not tracked as views (node ``UnsafeSplitBackward0``).

    Args:
        input (Tensor): the input.
        split_size (int): the size of each part.
        dim (int, optional): the dimension. Default: 0.

    Example:
        >>> framework.unsafe_split(framework.arange(3), 2)
        (tensor([0, 1]), tensor([2]))
    """
    return Tensor.unsafe_split(input, split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """As :func:`split_with_sizes`, the parts not tracked as views.

    Args:
        input (Tensor): the input.
        split_sizes (list of int): the size of each part.
        dim (int, optional): the dimension. Default: 0.

    Example:
        >>> framework.unsafe_split_with_sizes(framework.arange(3), [2, 1])
        (tensor([0, 1]), tensor([2]))
    """
    return Tensor.unsafe_split_with_sizes(input, split_sizes, dim)


__all__ = [
    "view_copy",
    "permute_copy",
    "transpose_copy",
    "t_copy",
    "squeeze_copy",
    "unsqueeze_copy",
    "expand_copy",
    "diagonal_copy",
    "select_copy",
    "unfold_copy",
    "alias_copy",
    "as_strided_copy",
    "slice_copy",
    "split_copy",
    "unbind_copy",
    "detach_copy",
    "row_stack",
    "trapz",
    "unravel_index",
    "gradient",
    "range",
    "typename",
    "get_device",
    "get_default_device",
    "set_default_device",
    "set_warn_always",
    "is_warn_always_enabled",
    "set_flush_denormal",
    "nuclear_norm",
    "frobenius_norm",
    "narrow_copy",
    "split_with_sizes",
    "diagonal_scatter",
    "select_scatter",
    "slice_scatter",
    "conj",
    "resolve_conj",
    "resolve_neg",
    "is_conj",
    "is_neg",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
]
