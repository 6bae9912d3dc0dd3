"""Small torch names of the sixteenth pass: Tensor methods (isposinf, ger, new, apply_, map_,
set_, share_memory_, nonzero_static, the device and layout flags, ...) and top-level helpers
(adjoint, empty_permuted, nonzero_static, as_strided_scatter, split_with_sizes_copy,
norm_except_dim, the build flags, interop threads, deterministic debug mode, ...)."""

import os
import warnings
import weakref

import numpy as np

from . import creation as _creation
from . import dtypes as _dtypes
from .autograd.op import Op
from .tensor import Tensor


class layout:
    """A tensor's memory layout (torch.layout); every framework tensor is ``strided``.

    Args:
        name (str): the layout's name.

    Example:
        >>> framework.ones(1).layout
        torch.strided
    """

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")


# ---- Tensor methods ----


def isposinf(self):
    """See :func:`framework.isposinf`."""
    from . import ops

    return ops.isposinf(self)


def isneginf(self):
    """See :func:`framework.isneginf`."""
    from . import ops

    return ops.isneginf(self)


def isreal(self):
    """See :func:`framework.isreal`."""
    from . import ops

    return ops.isreal(self)


def ger(self, vec2):
    """See :func:`framework.ger`."""
    from . import ops

    return ops.ger(self, vec2)


_NEW_SIGNATURES = (
    " * (*, torch.device device = None)\n"
    " * (torch.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
    " * (object data, *, torch.device device = None)\n"
)


def new(self, *args, device=None, **kwargs):
    """new(*args, device=None) -> Tensor

    The legacy constructor: a tensor of this tensor's dtype (and device unless given), from
    sizes (uninitialized), from data (a list or tuple of values), or an alias of a tensor of
    the same dtype; no arguments give an empty tensor.

    Args:
        args (int..., torch.Size, sequence or Tensor): the sizes, the data or the tensor.
        device (framework.device, optional): the device. Default: this tensor's.

    Example:
        >>> framework.ones(2, dtype=framework.float64).new([1, 2])
        tensor([1., 2.], dtype=torch.float64)
        >>> framework.ones(1).new(2, 3).shape
        torch.Size([2, 3])
    """
    from .tensor import Size

    if kwargs:
        got = ", ".join(
            [type(a).__name__ for a in args]
            + [f"{k}={type(v).__module__}.{type(v).__name__}" for k, v in kwargs.items()]
        ).replace("framework.dtypes.", "torch.")
        raise TypeError(
            f"new() received an invalid combination of arguments - got ({got}), but expected "
            f"one of:\n{_NEW_SIGNATURES}"
        )
    dev = self._device if device is None else device
    if not args:
        return _creation.empty(0, dtype=self.dtype, device=dev)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            if a.dtype is not self.dtype:
                raise TypeError(f"expected {_options(self)} (got {_options(a)})")
            return Tensor._make(a._data, a._device)
        if isinstance(a, Size):
            return _creation.empty(*a, dtype=self.dtype, device=dev)
        if isinstance(a, (list, tuple)):
            if len(a) == 0:
                return _creation.empty(0, dtype=self.dtype, device=dev)
            return _creation.tensor(a, dtype=self.dtype, device=dev)
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
    return _creation.empty(*args, dtype=self.dtype, device=dev)


_CPP_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def _options(t):
    """A tensor's options as torch's error messages print them."""
    name = _CPP_NAMES.get(repr(t.dtype).split(".")[-1], repr(t.dtype))
    dev = "cpu" if t._device.type == "cpu" else f"cuda:{t._device.index or 0}"
    return (
        f"TensorOptions(dtype={name}, device={dev}, layout=Strided, requires_grad=false "
        "(default), pinned_memory=false (default), memory_format=(nullopt))"
    )


def _python_map(self, others, callable, name):
    """Writes callable(self[i], *others[i]) into self, element by element (CPU only)."""
    if self.requires_grad or any(o.requires_grad for o in others):
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use "
            f"var.detach().{name}() instead."
        )
    if self._device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    from .tensor import _write

    values = [o._data if o.shape == self.shape else o.expand(self.shape)._data for o in others]
    flat = [np.asarray(v).reshape(-1).tolist() for v in [self._data, *values]]
    out = np.asarray([callable(*vs) for vs in zip(*flat)], dtype=object)
    _write(self, out.astype(self._data.dtype).reshape(self._data.shape))
    return self


def apply_(self, callable):
    """apply_(callable) -> Tensor

    Applies the Python function ``callable`` to every element in place (CPU only; slow, for
    tests and small tensors).

    Args:
        callable (callable): called with one Python number, returns one.

    Example:
        >>> framework.arange(3.0).apply_(lambda v: v * 2)
        tensor([0., 2., 4.])
    """
    return _python_map(self, (), callable, "apply_")


def map_(self, tensor, callable):
    """map_(tensor, callable) -> Tensor

    Writes ``callable(a, b)`` for each element ``a`` of self and ``b`` of ``tensor``
    (broadcast to self's shape) in place (CPU only).

    Args:
        tensor (Tensor): the second operand.
        callable (callable): called with two Python numbers.

    Example:
        >>> framework.arange(3.0).map_(framework.ones(3), lambda a, b: a + b)
        tensor([1., 2., 3.])
    """
    return _python_map(self, (tensor,), callable, "map_")


def map2_(self, x, y, callable):
    """map2_(x, y, callable) -> Tensor

    As :meth:`map_` with two other tensors: ``callable(a, b, c)`` in place (CPU only).

    Args:
        x (Tensor): the second operand.
        y (Tensor): the third operand.
        callable (callable): called with three Python numbers.

    Example:
        >>> framework.zeros(2).map2_(framework.ones(2), framework.ones(2), lambda a, b, c: b + c)
        tensor([2., 2.])
    """
    return _python_map(self, (x, y), callable, "map2_")


_SHARED = weakref.WeakValueDictionary()  # id(storage array) -> storage array, once shared


def _storage(t):
    from .backend import storage_of

    return storage_of(t._data)


def share_memory_(self):
    """share_memory_() -> Tensor

    Marks the storage as shared between processes and returns self (NumPy memory is
    already reachable by fork's children, so nothing is moved).

    Example:
        >>> x = framework.zeros(2)
        >>> x.share_memory_().is_shared()
        True
    """
    s = _storage(self)
    if isinstance(s, np.ndarray):
        _SHARED[id(s)] = s
    return self


def is_shared(self):
    """is_shared() -> bool

    Whether the storage was marked shared by :meth:`share_memory_` (on this tensor or a
    tensor sharing its storage); CUDA tensors are always shared, as in torch.

    Example:
        >>> framework.zeros(2).is_shared()
        False
    """
    if self._device.type == "cuda":
        return True
    s = _storage(self)
    return _SHARED.get(id(s)) is s


def is_set_to(self, tensor):
    """is_set_to(tensor) -> bool

    True if self and ``tensor`` share the storage and have the same storage offset, sizes
    and strides.

    Args:
        tensor (Tensor): the other tensor.

    Example:
        >>> x = framework.zeros(2)
        >>> x.is_set_to(x[:]), x.is_set_to(x.clone())
        (True, False)
    """
    from .ops.views import geometry

    return (
        _storage(self) is _storage(tensor)
        and self._data.dtype == tensor._data.dtype
        and geometry(self._data) == geometry(tensor._data)
    )


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """set_(source=None, storage_offset=0, size=None, stride=None) -> Tensor

    Makes self a tensor over ``source``'s memory: a tensor's (same sizes, strides and
    offset), or a storage's with ``storage_offset``, ``size`` and ``stride`` (contiguous
    strides by default); no source gives an empty tensor.

    Args:
        source (Tensor or UntypedStorage, optional): the memory to use.
        storage_offset (int, optional): the first element's position. Default: 0.
        size (tuple of int, optional): the sizes. Default: the whole storage.
        stride (tuple of int, optional): the strides. Default: contiguous.

    Example:
        >>> x = framework.zeros(3)
        >>> x.set_(framework.arange(4.0))
        tensor([0., 1., 2., 3.])
    """
    from .backend import as_strided
    from .tensor import UntypedStorage

    if self.requires_grad and self.grad_fn is None:
        raise RuntimeError(
            "set_: a leaf Variable that requires grad is being used in an in-place operation."
        )
    if source is None:
        self._data = self.xp.empty(0, dtype=self._data.dtype)
    elif isinstance(source, Tensor):
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {_CPP_NAMES[repr(source.dtype)[6:]]} to a "
                f"tensor of type {_CPP_NAMES[repr(self.dtype)[6:]]}"
            )
        if size is None:
            self._data = source._data
        else:
            base = source._data
            off = storage_offset - _storage_offset(base)
            self._data = as_strided(_storage(source), size, _stride(size, stride), off)
    elif isinstance(source, UntypedStorage):
        raw = source._array.reshape(-1).view(np.uint8)
        flat = raw[: raw.size - raw.size % self._data.itemsize].view(self._data.dtype)
        if size is None:
            size = (flat.size - storage_offset,)
        self._data = as_strided(flat, size, _stride(size, stride), storage_offset)
    else:
        raise TypeError(f"set_(): argument 'source' must be Tensor, not {type(source).__name__}")
    self._vc[0] += 1
    return self


def _storage_offset(arr):
    from .ops.views import storage_offset

    return storage_offset(arr)


def _stride(size, stride):
    if stride is not None:
        return tuple(stride)
    out, step = [], 1
    for n in reversed(tuple(size)):
        out.insert(0, step)
        step *= max(n, 1)
    return tuple(out)


def const_data_ptr(self):
    """const_data_ptr() -> int

    Address of the first element (as :meth:`data_ptr`, for reading).

    Example:
        >>> x = framework.zeros(2)
        >>> x.const_data_ptr() == x.data_ptr()
        True
    """
    return self.data_ptr()


def to_dense(self, dtype=None, *, masked_grad=None):
    """to_dense(dtype=None, *, masked_grad=None) -> Tensor

    A strided copy of a sparse tensor; a strided tensor returns itself (every framework
    tensor is strided), or a conversion to ``dtype``.

    Args:
        dtype (framework.dtype, optional): the dtype wanted.
        masked_grad (bool, optional): accepted for torch's signature (sparse only).

    Example:
        >>> x = framework.ones(2)
        >>> x.to_dense() is x
        True
    """
    return self if dtype is None or dtype is self.dtype else self.to(dtype)


def is_distributed(self):
    """is_distributed() -> bool

    Whether the tensor is a distributed tensor of the legacy THD backend: always False.

    Example:
        >>> framework.zeros(1).is_distributed()
        False
    """
    return False


def as_subclass(self, cls):
    """as_subclass(cls) -> Tensor

    The same data as an instance of ``cls`` (a subclass of Tensor), without calling its
    ``__init__``; with autograd recorded as torch's alias (node AliasBackward0).

    Args:
        cls (type): a subclass of :class:`Tensor`.

    Example:
        >>> class Tagged(framework.Tensor):
        ...     pass
        >>> type(framework.ones(2).as_subclass(Tagged)).__name__
        'Tagged'
    """
    from .ops.shape import alias

    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass(): argument 'cls' must be a subclass of Tensor, not {cls}")
    src = alias(self) if self.requires_grad else self
    t = object.__new__(cls)
    t._data, t._device, t.grad = self._data, self._device, None
    t._rg = src.grad_fn is not None  # (a non-leaf: requires grad through its node)
    t.grad_fn, t._output_nr = src.grad_fn, 0
    t._vc = self._vc
    return t


def _volatile(self):
    """Removed in torch 0.4: always False (with torch's warning)."""
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, 2)
    return False


def nonzero_static_method(self, *, size, fill_value=-1):
    """Tensor.nonzero_static: see framework.nonzero_static."""
    return nonzero_static(self, size=size, fill_value=fill_value)


def slice_inverse_method(self, src, dim=0, start=None, end=None, step=1):
    """Tensor.slice_inverse: see framework.slice_inverse."""
    return slice_inverse(self, src, dim, start, end, step)


def as_strided_scatter_method(self, src, size, stride, storage_offset=None):
    """Tensor.as_strided_scatter: see framework.as_strided_scatter."""
    return as_strided_scatter(self, src, size, stride, storage_offset)


nonzero_static_method.__name__ = "nonzero_static"
slice_inverse_method.__name__ = "slice_inverse"
as_strided_scatter_method.__name__ = "as_strided_scatter"
for _fn, _name in (
    (nonzero_static_method, "nonzero_static"),
    (slice_inverse_method, "slice_inverse"),
    (as_strided_scatter_method, "as_strided_scatter"),
):
    _fn.__doc__ = f"See :func:`framework.{_name}`."


def _real(self):
    """The real part: for a real tensor, the tensor itself."""
    return self


def _imag(self):
    """The imaginary part (complex tensors only: real ones raise, as torch's)."""
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _layout(self):
    """The memory layout: ``framework.strided``."""
    return strided


def is_meta(self):
    """Whether the tensor is a meta tensor (shapes only): always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_meta
        False
    """
    return False


def is_mkldnn(self):
    """Whether the tensor is an MKL-DNN (oneDNN) tensor: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_mkldnn
        False
    """
    return False


def is_mps(self):
    """Whether the tensor is on Apple's MPS device: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_mps
        False
    """
    return False


def is_xpu(self):
    """Whether the tensor is on an Intel XPU: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_xpu
        False
    """
    return False


def is_ipu(self):
    """Whether the tensor is on a Graphcore IPU: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_ipu
        False
    """
    return False


def is_xla(self):
    """Whether the tensor is on an XLA device: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_xla
        False
    """
    return False


def is_vulkan(self):
    """Whether the tensor is on a Vulkan device: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_vulkan
        False
    """
    return False


def is_maia(self):
    """Whether the tensor is on a MAIA device: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_maia
        False
    """
    return False


def is_mtia(self):
    """Whether the tensor is on an MTIA device: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_mtia
        False
    """
    return False


def is_quantized(self):
    """Whether the tensor is quantized: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_quantized
        False
    """
    return False


def is_sparse(self):
    """Whether the tensor is a sparse COO tensor: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_sparse
        False
    """
    return False


def is_sparse_csr(self):
    """Whether the tensor is a sparse CSR tensor: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_sparse_csr
        False
    """
    return False


def is_nested(self):
    """Whether the tensor is a nested tensor: always False for framework's tensors.

    Example:
        >>> framework.ones(1).is_nested
        False
    """
    return False


_METHODS = (
    isposinf,
    isneginf,
    isreal,
    ger,
    new,
    apply_,
    map_,
    map2_,
    share_memory_,
    is_shared,
    is_set_to,
    set_,
    const_data_ptr,
    to_dense,
    is_distributed,
    nonzero_static_method,
    slice_inverse_method,
    as_strided_scatter_method,
    as_subclass,
)
for _fn in _METHODS:
    _fn.__qualname__ = f"Tensor.{_fn.__name__}"
    setattr(Tensor, _fn.__name__, _fn)
Tensor.real = property(_real)
Tensor.imag = property(_imag)
Tensor.layout = property(_layout)
Tensor.volatile = property(_volatile)
for _flag in (
    is_meta,
    is_mkldnn,
    is_mps,
    is_xpu,
    is_ipu,
    is_xla,
    is_vulkan,
    is_maia,
    is_mtia,
    is_quantized,
    is_sparse,
    is_sparse_csr,
    is_nested,
):
    _flag.__qualname__ = f"Tensor.{_flag.__name__}"
    setattr(Tensor, _flag.__name__, property(_flag))


# ---- top-level functions ----


def adjoint(input):
    """The conjugate transpose of the last two dimensions (a view; the transpose for real
    tensors).

    Args:
        input (Tensor): the input, at least 2-D.

    Example:
        >>> framework.adjoint(framework.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([[1., 3.],
                [2., 4.]])
    """
    return input.adjoint()


def real(input):
    """The real part of ``input``: a real tensor itself.

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.real(framework.tensor([1.0, -2.0]))
        tensor([ 1., -2.])
    """
    return input.real


def imag(input):
    """The imaginary part of a complex tensor (a real tensor raises RuntimeError, as torch).

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.imag(framework.ones(1))
        Traceback (most recent call last):
        ...
        RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """
    return input.imag


def is_distributed(input):
    """Whether ``input`` is a distributed tensor of the legacy THD backend: always False.

    Args:
        input (Tensor): the input.

    Example:
        >>> framework.is_distributed(framework.ones(1))
        False
    """
    return False


def _has_mkl():
    from .ops import _mkl

    return _mkl.library() is not None


has_lapack = True  # NumPy's LAPACK (MKL's where loaded)
has_spectral = True  # framework.fft's transforms
has_openmp = True  # torch's wheels have it; MKL runs on GNU OpenMP here where loaded
has_mkl = _has_mkl()

_interop = {"threads": None, "set": False}


def get_num_interop_threads():
    """The number of threads for inter-op parallelism (torch's default: the physical cores,
    here the CPUs this process may use, or what :func:`set_num_interop_threads` set).

    Example:
        >>> framework.get_num_interop_threads() >= 1
        True
    """
    if _interop["threads"] is None:
        try:
            n = len(os.sched_getaffinity(0))
        except AttributeError:
            n = os.cpu_count() or 1
        _interop["threads"] = n
    return _interop["threads"]


def set_num_interop_threads(num):
    """Sets the number of inter-op threads: once, before any parallel work (a second call
    raises RuntimeError, as torch's).

    Args:
        num (int): the number of threads, positive.

    Example:
        >>> framework.set_num_interop_threads  # doctest: +ELLIPSIS
        <function set_num_interop_threads at ...>
    """
    if int(num) <= 0:
        raise RuntimeError("Expected positive number of threads")
    if _interop["set"]:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started "
            "or set_num_interop_threads called"
        )
    _interop.update(threads=int(num), set=True)


def set_default_tensor_type(t):
    """Sets the default floating-point dtype from a legacy tensor type or its name
    (deprecated in torch 2.1, as here: use :func:`set_default_dtype`).

    Args:
        t (type or str): ``framework.DoubleTensor`` or ``'torch.FloatTensor'`` and so on.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     framework.set_default_tensor_type("torch.DoubleTensor")
        >>> framework.get_default_dtype()
        torch.float64
        >>> framework.set_default_dtype(framework.float32)
    """
    from . import tensor_types

    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str) and t.startswith("framework."):
        t = "torch." + t[len("framework.") :]
    try:
        dtype, device_type = tensor_types.parse(t)
    except ValueError:
        raise TypeError(f"invalid type: '{t}'") from None
    if device_type == "cuda":
        from . import cuda

        if not cuda.is_available():
            name = t if isinstance(t, str) else t.__qualname__
            raise TypeError(f"type {name} not available. Torch not compiled with CUDA enabled.")
    if dtype not in (_dtypes.float16, _dtypes.float32, _dtypes.float64):
        raise TypeError("only floating-point types are supported as the default type")
    _dtypes.set_default_dtype(dtype)


def get_deterministic_debug_mode():
    """The deterministic debug mode: 0 (off), 1 (warn) or 2 (error), from
    :func:`use_deterministic_algorithms`'s mode and ``warn_only``.

    Example:
        >>> framework.get_deterministic_debug_mode()
        0
    """
    from ._namespace import (
        are_deterministic_algorithms_enabled,
        is_deterministic_algorithms_warn_only_enabled,
    )

    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if is_deterministic_algorithms_warn_only_enabled() else 2


def set_deterministic_debug_mode(debug_mode):
    """Sets the deterministic debug mode: ``"default"``/0, ``"warn"``/1 or ``"error"``/2 (as
    ``use_deterministic_algorithms(False)``, ``(True, warn_only=True)``, ``(True)``).

    Args:
        debug_mode (str or int): the mode.

    Example:
        >>> framework.set_deterministic_debug_mode("warn")
        >>> framework.get_deterministic_debug_mode()
        1
        >>> framework.set_deterministic_debug_mode(0)
    """
    from ._namespace import use_deterministic_algorithms

    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    else:
        use_deterministic_algorithms(True, warn_only=debug_mode == 1)


def empty_permuted(
    size,
    physical_layout,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """An uninitialized tensor of ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first): ``empty(size permuted).permute(inverse)``, not a
    view.

    Args:
        size (tuple of int): the logical sizes.
        physical_layout (tuple of int): the dimensions from outermost to innermost in memory.
        dtype (framework.dtype, optional): the dtype. Default: the default dtype.
        layout (framework.layout, optional): accepted for torch's signature (strided).
        device (framework.device, optional): the device.
        requires_grad (bool, optional): record operations on the result. Default: ``False``.
        pin_memory (bool, optional): accepted for torch's signature.

    Example:
        >>> framework.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
        (12, 1, 3)
    """
    size, perm = tuple(int(n) for n in size), tuple(int(d) for d in physical_layout)
    if len(perm) != len(size):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the "
            "physical_layout; i.e. len(size) = "
            f"{len(size)} is not equal to len(physical_layout) = {len(perm)}"
        )
    if sorted(perm) != list(range(len(size))):
        raise RuntimeError(
            "Dimension "
            + str(next((d for d in range(len(size)) if d not in perm), len(size)))
            + " appears more than once"
        )
    phys = _creation.empty(*[size[d] for d in perm], dtype=dtype, device=device)
    arr = phys._data.transpose(np.argsort(perm))
    out = Tensor._make(arr, phys._device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def nonzero_static(input, *, size, fill_value=-1):
    """The indices of the nonzero elements as :func:`nonzero`, in a result of a fixed
    ``size`` rows: truncated, or padded with ``fill_value``.

    Args:
        input (Tensor): the input.
        size (int): the number of rows of the result.
        fill_value (int, optional): the padding. Default: -1.

    Example:
        >>> framework.nonzero_static(framework.tensor([0, 3, 0, 5]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    xp = input.xp
    idx = xp.stack(xp.nonzero(input._data), axis=1) if input.dim() else None
    if idx is None:
        idx = xp.zeros((1 if input._data.item() else 0, 0), dtype=np.int64)
    out = xp.full((size, input.dim()), fill_value, dtype=np.int64)
    n = min(size, idx.shape[0])
    out[:n] = idx[:n]
    return Tensor._make(out, input._device)


def split_with_sizes_copy(input, split_sizes, dim=0):
    """Copies of the parts :func:`split_with_sizes` returns (nodes
    ``SplitWithSizesBackward0_copy``).

    Args:
        input (Tensor): the input.
        split_sizes (list of int): the size of each part.
        dim (int, optional): the dimension. Default: 0.

    Example:
        >>> framework.split_with_sizes_copy(framework.arange(3), [2, 1])
        (tensor([0, 1]), tensor([2]))
    """
    from ._surface_small import _named

    parts = input.split_with_sizes(split_sizes, dim)
    return tuple(_named(p, "SplitWithSizesBackward0_copy") for p in parts)


def _geometry_check(input, size, stride, offset, have=None):
    """torch's setStorage bounds check of an as_strided geometry over a storage of `have`
    elements (default: input's element count)."""
    need = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    have = input.numel() if have is None else have
    if need and offset + need > have:
        item = input._data.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {(offset + need) * item} are out "
            f"of bounds for storage of size {have * item}"
        )


class AsStridedScatter(Op):
    """A contiguous copy of ``input`` whose as_strided(size, stride, offset) slice holds
    ``src``; the gradients are torch's formulas (see ``as_strided_scatter``)."""

    def forward(self, x, src, size=(), stride=(), offset=0):
        """A copy of input with src written through as_strided(size, stride, offset)."""
        from .ops.views import _positions

        self.size, self.stride, self.offset = size, stride, offset
        self.in_shape = x.shape
        out = self.xp.ascontiguousarray(x).copy()
        pos = _positions((size, stride, offset), self.xp)
        out.reshape(-1)[pos] = src
        return out

    def backward(self, grad):
        """torch's gradients: grad for input (its formula, not the true derivative) and grad read
        through the strided view for src."""
        g = grad.contiguous()
        g_slice = g.as_strided(self.size, self.stride, self.offset)
        # torch's as_strided_scatter_backward: self's gradient is the slice's, laid back
        # where the slice was (zeros elsewhere); src's is the slice
        grad_x = as_strided_scatter(
            g.new_zeros(self.in_shape), g_slice, self.size, self.stride, self.offset
        )
        return grad_x, g_slice

    jvp = Op.jvp_linear


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` (contiguous) in which the elements that
    ``as_strided(size, stride, storage_offset)`` views are replaced by ``src``.

    Args:
        input (Tensor): the input.
        src (Tensor): the values for the strided slice, of shape ``size``.
        size (tuple of int): the slice's sizes.
        stride (tuple of int): the slice's strides.
        storage_offset (int, optional): the slice's first element. Default: 0.

    Example:
        >>> framework.as_strided_scatter(framework.zeros(4), framework.ones(2), (2,), (2,))
        tensor([1., 0., 1., 0.])
    """
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    offset = 0 if storage_offset is None else int(storage_offset)
    _geometry_check(input, size, stride, offset)
    if tuple(src.shape) != size:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(size)}"
        )
    return AsStridedScatter.apply(input, src, size=size, stride=stride, offset=offset)


class SliceInverse(Op):
    """``input`` viewed with ``src``'s sizes, strides and storage offset (values as torch's
    slice_inverse; the result is a copy here, not a view)."""

    def forward(self, x, base, dim=0, start=None, end=None, step=1):
        """A tensor of base's geometry holding self where the slice of base lies (a copy here;
        torch's is a view)."""
        from .backend import as_strided, storage_of
        from .ops.views import geometry

        self.base_shape, self.slicing = base.shape, (dim, start, end, step)
        shape, st, off = geometry(base)
        return as_strided(storage_of(x), shape, st, off).copy()

    def backward(self, grad):
        """The gradient of self: grad sliced as the forward's slice."""
        dim, start, end, step = self.slicing
        sl = [slice(None)] * grad.dim()
        sl[dim] = slice(start, end, step)
        grad_x = grad[tuple(sl)]
        grad_base = grad.slice_scatter(grad_x.new_zeros(grad_x.shape), dim, start, end, step)
        return grad_x, grad_base

    jvp = Op.jvp_linear


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The inverse of slicing (a functionalization helper): ``input``'s storage viewed with
    the sizes, strides and storage offset of ``src``, the tensor ``input`` was sliced from
    (``dim``, ``start``, ``end`` and ``step`` name that slice for the gradient).

    Args:
        input (Tensor): the slice.
        src (Tensor): the tensor it was sliced from.
        dim (int, optional): the sliced dimension. Default: 0.
        start (int, optional): the slice's start. Default: None.
        end (int, optional): the slice's end. Default: None.
        step (int, optional): the slice's step. Default: 1.

    Example:
        >>> base = framework.arange(4.0)
        >>> framework.slice_inverse(base[1:], base, 0, 1)
        tensor([0., 1., 2., 3.])
    """
    _geometry_check(input, *_src_geometry(src), have=_storage(input).size)
    return SliceInverse.apply(input, src, dim=dim, start=start, end=end, step=step)


def _src_geometry(src):
    from .ops.views import geometry

    return geometry(src._data)


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (kept as size 1): what
    weight normalization divides by; ``dim=-1`` gives the norm of all elements.

    Args:
        v (Tensor): the input.
        pow (int, optional): the norm's order. Default: 2.
        dim (int, optional): the dimension kept. Default: 0.

    Example:
        >>> framework.norm_except_dim(framework.tensor([[3.0, 4.0], [6.0, 8.0]]), 2, 0)
        tensor([[ 5.],
                [10.]])
    """
    if dim == -1:
        from ._surface_small import _named

        return _named(v.norm(pow), "NormBackward0")  # ATen's v.norm(Scalar), not linalg's
    if dim == 0:
        shape = [1] * v.dim()
        shape[0] = v.shape[0]
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = [1] * v.dim()
        shape[-1] = v.shape[-1]
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """torch's sparse-only norm kernel: on strided (CPU) tensors it raises
    NotImplementedError, as torch's dispatcher does.

    Args:
        input (Tensor): the input.
        p (float, optional): the order. Default: 2.
        dim (list of int, optional): the dimensions.
        keepdim (bool, optional): keep reduced dimensions. Default: False.
        dtype (framework.dtype, optional): the result's dtype.

    Example:
        >>> framework.native_norm(framework.ones(2))
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::native_norm' with arguments from the 'CPU'...
    """
    backend = "CUDA" if input._device.type == "cuda" else "CPU"
    raise NotImplementedError(
        f"Could not run 'aten::native_norm' with arguments from the '{backend}' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during "
        "the selective/custom build process (if using custom build)."
    )


__all__ = [
    "layout",
    "strided",
    "adjoint",
    "real",
    "imag",
    "is_distributed",
    "has_lapack",
    "has_spectral",
    "has_openmp",
    "has_mkl",
    "get_num_interop_threads",
    "set_num_interop_threads",
    "set_default_tensor_type",
    "get_deterministic_debug_mode",
    "set_deterministic_debug_mode",
    "empty_permuted",
    "nonzero_static",
    "split_with_sizes_copy",
    "as_strided_scatter",
    "slice_inverse",
    "norm_except_dim",
    "native_norm",
]
