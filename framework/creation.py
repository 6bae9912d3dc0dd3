"""Creation functions: tensor, zeros, ones, full, arange, linspace, eye, rand*, *_like."""

import math

import numpy as np

from . import backend, dtypes
from ._errors import check_scalar_fits
from .backend import as_device, move
from .tensor import Size, Tensor

_MAX_DIMS = 64


def _np_dtype(dtype):
    return None if dtype is None else dtypes.to_numpy_dtype(dtype)


def _scalar_dtype(v):
    """torch's dtype of one leaf value: Python bool/int/float, NumPy scalar, 0-dim tensor."""
    if isinstance(v, (np.ndarray, np.generic)):  # before float: np.float64 subclasses it
        return v.dtype
    if isinstance(v, bool):
        return np.dtype(np.bool_)
    if isinstance(v, int):
        return np.dtype(np.int64)
    if isinstance(v, float):
        return dtypes.get_default_dtype().np
    if isinstance(v, Tensor):
        return v._data.dtype
    if isinstance(v, str):
        raise TypeError(f"new(): invalid data type '{type(v).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")


def _infer_dtype(data):
    """Promote the dtypes of all leaves (torch: int with float gives the float's dtype).

    Returns (dtype or None for no leaves, whether a Tensor was seen)."""
    if not isinstance(data, (list, tuple)):
        return _scalar_dtype(data), isinstance(data, Tensor)
    kinds = set(map(type, data))
    out, has_tensor = None, False
    if kinds <= {float, int, bool}:  # the common case, without a Python call per element
        for k in kinds:
            out = dtypes._combine(out, _scalar_dtype(k()))
        return out, False
    for d in data:
        dt, t = _infer_dtype(d)
        has_tensor |= t
        if dt is not None:
            out = dtypes._combine(out, dt)
    return out, has_tensor


def _is_seq(v):
    return isinstance(v, (list, tuple, str)) or (isinstance(v, (Tensor, np.ndarray)) and v.ndim > 0)


def _sizes(data):
    """The shape torch reads by following first elements (a str counts as a sequence)."""
    sizes, v = [], data
    while _is_seq(v):
        if len(sizes) >= _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(v).__name__}'")
        sizes.append(len(v))
        if len(v) == 0:
            break
        v = v[0]
    return sizes


def _check_nested(data, sizes, dim=0):
    """torch's errors for ragged nesting; called only after NumPy rejected the data."""
    if dim == len(sizes):
        if isinstance(data, Tensor) and data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if isinstance(data, (list, tuple)):
            raise TypeError(f"'{type(data).__name__}' object cannot be interpreted as an integer")
        return
    if not _is_seq(data):
        raise TypeError("not a sequence")
    if len(data) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(data)})")
    for d in data:
        _check_nested(d, sizes, dim + 1)


def _to_array(data, dtype):
    """Nested Python data -> a C-contiguous NumPy array with torch's dtype inference."""
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    sizes = _sizes(data)
    inferred, has_tensor = _infer_dtype(data)
    dt = _np_dtype(dtype) if dtype is not None else inferred
    if dt is None:  # empty sequences
        dt = dtypes.get_default_dtype().np
    if has_tensor:
        data = _unwrap(data)
    try:  # Python floats are doubles: a half dtype gets them through float32, as torch
        arr = np.array(data, dtype=np.float32 if dt.itemsize == 2 and dt.kind in "fV" else dt)
        arr = arr.astype(dt, copy=False)
    except (ValueError, TypeError):
        _check_nested(data, sizes)
        raise
    if list(arr.shape) != sizes:
        _check_nested(data, sizes)
    return arr


def _unwrap(data):
    """Tensors inside nested lists become arrays NumPy can read."""
    if isinstance(data, Tensor):
        if data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return backend.to_numpy(data._data).reshape(())
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _finish(arr, device, requires_grad):
    dev = as_device(device)
    dtypes.from_numpy_dtype(arr.dtype)  # rejects unsupported dtypes with torch's message
    t = Tensor._make(move(arr, dev), dev)
    if requires_grad:
        _factory_requires_grad(t)
    return t


def _factory_requires_grad(t):
    if t._data.dtype.kind not in "fV":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t._rg = True


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Constructs a tensor with no autograd history (a leaf) by copying ``data``.

    The result never shares memory with ``data``. Without ``dtype`` the type is inferred:
    Python floats give the default dtype (``framework.get_default_dtype()``, float32), ints
    give int64, bools give bool; a NumPy array or a tensor keeps its dtype.

    Args:
        data (array_like): initial data: a list, tuple, scalar, NumPy array or tensor.
        dtype (framework.dtype, optional): the desired data type of the result.
        device (framework.device or str, optional): ``"cpu"`` (default) or ``"cuda"``
            (needs the ``gpu`` extra, i.e. CuPy).
        requires_grad (bool): record operations on the result for autograd (default False);
            only floating-point tensors can require grad.
        pin_memory (bool): accepted for compatibility; has no effect.

    Returns:
        Tensor: a new leaf tensor holding a copy of ``data``.

    Example:
        >>> import framework
        >>> framework.tensor([[0.1, 1.2], [2.2, 3.1]])
        tensor([[0.1000, 1.2000],
                [2.2000, 3.1000]])
        >>> framework.tensor([1, 2, 3]).dtype
        torch.int64
        >>> framework.tensor([1.0, 2.0], dtype=framework.float64, requires_grad=True)
        tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    """
    if isinstance(data, Tensor):
        arr = backend.to_numpy(data._data).copy()
        if device is None:
            device = data.device
        if dtype is not None:
            arr = dtypes.cast(arr, _np_dtype(dtype))
    elif isinstance(data, np.ndarray):
        dtypes.from_numpy_dtype(data.dtype)
        if dtype is not None and data.dtype != _np_dtype(dtype):
            data = dtypes.cast(data, _np_dtype(dtype))  # double -> half through float, as torch
        arr = np.array(data, dtype=_np_dtype(dtype), order="C", copy=True)
    else:
        arr = _to_array(data, dtype)
    return _finish(arr if arr.flags.c_contiguous else arr.copy(order="C"), device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Share memory when data already is a tensor or array of the right dtype and device.

    Args:
        data (array_like): a tensor, NumPy array, list, tuple or number.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).

    Example:
        >>> framework.as_tensor([1, 2, 3], dtype=framework.float32)
        tensor([1., 2., 3.])
    """
    if isinstance(data, Tensor):
        out = data if dtype is None else data.to(dtype)
        return out if device is None else out.to(device)
    if (
        isinstance(data, np.ndarray)
        and (dtype is None or _np_dtype(dtype) == data.dtype)
        and as_device(device).type == "cpu"
    ):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(array):
    """A tensor sharing memory with a NumPy array.

    Args:
        array (numpy.ndarray): the array to share memory with.

    Example:
        >>> import numpy as np
        >>> framework.from_numpy(np.array([1, 2]))
        tensor([1, 2])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)
    return Tensor._make(array, backend.CPU)


def _size(size, fn):
    """Sizes as varargs or one sequence, with torch's type errors."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    out = []
    for i, s in enumerate(size):
        if isinstance(s, Tensor) and s.numel() == 1 and s._data.dtype.kind in "iu":
            s = int(s.item())
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(
                f"{fn}(): argument 'size' (position 1) must be tuple of ints, "
                f"not {type(s).__name__}"
            )
        out.append(int(s))
    if any(s < 0 for s in out):
        if fn == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        bad = next(s for s in out if s < 0)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {bad}: [{', '.join(map(str, out))}]"
        )
    return tuple(out)


def _filled(fill, shape, dtype, device, requires_grad):
    dt = _np_dtype(dtype) or dtypes.get_default_dtype().np
    dev = as_device(device)
    xp = backend.xp_for(dev)
    with _on(dev):
        arr = xp.full(shape, fill, dtype=dt) if fill is not None else xp.empty(shape, dtype=dt)
    t = Tensor._make(arr, dev)
    if requires_grad:
        _factory_requires_grad(t)
    return t


class _on:
    """Allocate on the right GPU when the device is CUDA."""

    def __init__(self, dev):
        self.dev = dev

    def __enter__(self):
        if self.dev.type == "cuda":
            import cupy

            self.ctx = cupy.cuda.Device(self.dev.index or 0)
            self.ctx.__enter__()

    def __exit__(self, *exc):
        if self.dev.type == "cuda":
            self.ctx.__exit__(*exc)


def _need_size(size, fn):
    if not size:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
    return _size(size, fn)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor

    Returns a tensor of the given size filled with 0.

    Args:
        *size (int...): a sequence of integers defining the shape of the output tensor.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """
    return _filled(0, _need_size(size, "zeros"), dtype, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    """ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor

    Returns a tensor of the given size filled with 1.

    Args:
        *size (int...): a sequence of integers defining the shape of the output tensor.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.ones(2, 3)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return _filled(1, _need_size(size, "ones"), dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    """Uninitialised memory, as torch.empty (values are whatever the allocator returns).

    Args:
        *size (int...): a sequence of integers defining the shape of the output tensor.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.empty(2, 3).shape
        torch.Size([2, 3])
    """
    return _filled(None, _need_size(size, "empty"), dtype, device, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """full(size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor

    Creates a tensor of ``size`` filled with ``fill_value``; the dtype is inferred from the
    value when not given.

    Args:
        size (int...): a list, tuple or :class:`framework.Size` defining the output's shape.
        fill_value (Number): the value to fill the output with.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.full((2, 2), 7.0)
        tensor([[7., 7.],
                [7., 7.]])
    """
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        kind = dtypes.scalar_kind(fill_value)
        dtype = (dtypes.bool_, dtypes.int64, dtypes.get_default_dtype())[kind]
    shape = _size((size,), "full")
    # torch's one-element fill skips the float16/bfloat16 range check
    fill_value = check_scalar_fits(
        fill_value, _np_dtype(dtype), reduced_float=math.prod(shape) != 1
    )
    return _filled(fill_value, shape, dtype, device, requires_grad)


def _like_array(x, dtype, device, memory_format):
    """An uninitialised array of ``x``'s shape laid out as torch's ``*_like`` lays it out, or
    None where that is the C-contiguous layout ``empty`` gives.

    preserve_format (the default) keeps a non-overlapping dense input's strides (a transposed
    or permuted tensor gives a transposed or permuted result, which random fills then fill in
    memory order) and otherwise the order of its strides (numpy's order 'K', torch's
    infer_dense_strides); contiguous_format is C order; channels_last(_3d) NHWC (NDHWC).
    """
    from ._memory_format import (
        channels_last_copy,
        check_rank,
        contiguous_format,
        preserved_empty,
    )

    arr = x._data
    if memory_format is contiguous_format:
        return None
    if getattr(memory_format, "rank", None) is not None:
        check_rank(memory_format, arr.ndim)
    elif not arr.size:  # (an empty array with strides: a view's, kept as torch's)
        if not any(arr.strides):
            return None
    elif arr.ndim < 2 or arr.flags.c_contiguous:
        return None
    dt = _np_dtype(dtype) or arr.dtype
    dev = as_device(device) if device is not None else x.device
    if dev.type != x.device.type:
        return None
    xp = backend.xp_for(dev)
    with _on(dev):
        if memory_format is not None and memory_format.rank is not None:
            return channels_last_copy(xp, xp.empty(arr.shape, dtype=dt))
        return preserved_empty(xp, arr, dt)


def _relaid(t, x, memory_format):
    """``t`` (a new C-contiguous result of ``x``'s shape) copied into ``x``'s layout where
    torch's ``*_like`` gives another (see _like_array)."""
    arr = _like_array(x, t.dtype, t.device, memory_format)
    if arr is None:
        return t
    arr[...] = t._data
    out = Tensor._make(arr, t.device)
    out._rg = t._rg
    return out


def zeros_like(x, dtype=None, device=None, requires_grad=False, memory_format=None):
    """zeros_like(x, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor

    Returns a tensor of the size of ``input`` filled with 0.

    Args:
        x (Tensor): the input tensor.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.
        memory_format (:class:`framework.memory_format`, optional): the desired memory format of the
            returned tensor. Default: ``framework.preserve_format``.

    Example:
        >>> framework.zeros_like(framework.ones(2))
        tensor([0., 0.])
    """
    t = zeros(
        x.shape, dtype=dtype or x.dtype, device=device or x.device, requires_grad=requires_grad
    )
    return _relaid(t, x, memory_format)


def ones_like(x, dtype=None, device=None, requires_grad=False, memory_format=None):
    """ones_like(x, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor

    Returns a tensor of the size of ``input`` filled with 1.

    Args:
        x (Tensor): the input tensor.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.
        memory_format (:class:`framework.memory_format`, optional): the desired memory format of the
            returned tensor. Default: ``framework.preserve_format``.

    Example:
        >>> framework.ones_like(framework.zeros(2))
        tensor([1., 1.])
    """
    t = ones(
        x.shape, dtype=dtype or x.dtype, device=device or x.device, requires_grad=requires_grad
    )
    return _relaid(t, x, memory_format)


def empty_like(x, dtype=None, device=None, requires_grad=False, memory_format=None):
    """empty_like(x, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor

    Returns an uninitialized tensor with the same size (and by default dtype and device) as
    ``input``.

    Args:
        x (Tensor): the input tensor.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.
        memory_format (:class:`framework.memory_format`, optional): the desired memory format of the
            returned tensor. Default: ``framework.preserve_format``.

    Example:
        >>> framework.empty_like(framework.ones(2, 3)).shape
        torch.Size([2, 3])
    """
    t = empty(
        x.shape, dtype=dtype or x.dtype, device=device or x.device, requires_grad=requires_grad
    )
    arr = _like_array(x, t.dtype, t.device, memory_format)
    if arr is None:
        return t
    out = Tensor._make(arr, t.device)
    out._rg = t._rg
    return out


def full_like(x, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    """full_like(x, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None)

    Returns a tensor of the size of ``input`` filled with ``fill_value``.

    Args:
        x (Tensor): the input tensor.
        fill_value (Number): the value to fill the output with.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.
        memory_format (:class:`framework.memory_format`, optional): the desired memory format of the
            returned tensor. Default: ``framework.preserve_format``.

    Example:
        >>> framework.full_like(framework.zeros(3), 1.5)
        tensor([1.5000, 1.5000, 1.5000])
    """
    t = full(
        x.shape,
        fill_value,
        dtype=dtype or x.dtype,
        device=device or x.device,
        requires_grad=requires_grad,
    )
    return _relaid(t, x, memory_format)


def _number(v):
    return v.item() if isinstance(v, Tensor) else v


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False) -> Tensor

    Returns a 1-D tensor of values from ``start`` to ``end`` (exclusive) in steps of ``step``.

    Args:
        start (Number): the starting value (or, alone, the end with ``start = 0``).
        end (Number, optional): the end value, exclusive. Default: ``None``.
        step (Number, optional): the gap between adjacent values. Default: ``1``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.arange(1, 4)
        tensor([1, 2, 3])
    """
    start, end, step = _number(start), _number(end), _number(step)
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_float = any(isinstance(v, (float, np.floating)) for v in (start, end, step))
        dtype = dtypes.get_default_dtype() if is_float else dtypes.int64
    dt = _np_dtype(dtype)
    if dt.kind not in "fV":  # integer ranges truncate their bounds first, as torch
        if isinstance(step, (float, np.floating)) and int(step) == 0 and step != 0:
            raise ValueError("step must be nonzero")
        start, end, step = int(start), int(end), int(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    # torch computes start + i * step in double, then casts (its vectorised chunks of
    # long ranges round their bases separately: values may differ by one ulp there)
    n = max(0, math.ceil((end - start) / step))
    arr = (start + np.arange(n, dtype=np.float64) * step).astype(dt)
    return _finish(arr, device, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    """torch's formula: the first half steps up from start, the second down from end.

    torch's compiled loop fuses multiply-add (one rounding); computing the float32 case in
    float64 (and float64 in long double) reproduces that.

    Args:
        start (Number): the first value.
        end (Number): the last value (included).
        steps (int): the number of values.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.linspace(0, 1, steps=5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    start, end = _number(start), _number(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _np_dtype(dtype) or dtypes.get_default_dtype().np
    if dt.kind in "fV" and dt.itemsize < 8:
        s, e = np.float32(start), np.float32(end)
        step = np.float32((e - s) / np.float32(max(steps - 1, 1)))
        wide = np.float64
    else:
        if dt.kind not in "fV":
            start, end = int(start), int(end)
        s, e = np.longdouble(start), np.longdouble(end)
        step = (e - s) / max(steps - 1, 1)
        if dt.kind in "fV":
            step = np.float64(step)
        wide = np.longdouble
    idx = np.arange(steps, dtype=wide)
    arr = np.where(
        idx < steps // 2, wide(s) + wide(step) * idx, wide(e) - wide(step) * (steps - 1 - idx)
    )
    if steps == 1:
        arr = np.full(1, s, dtype=wide)
    return _finish(arr.astype(dt), device, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    """eye(n, m=None, dtype=None, device=None, requires_grad=False) -> Tensor

    Returns a 2-D tensor with ones on the diagonal and zeros elsewhere.

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns; ``n`` when ``None``. Default: ``None``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).
        device (:class:`framework.device`, optional): the desired device of the returned tensor.
            Default: ``None`` (the CPU).
        requires_grad (bool, optional): whether autograd records operations on the returned tensor.
            Default: ``False``.

    Example:
        >>> framework.eye(2, 3)
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    dt = _np_dtype(dtype) or dtypes.get_default_dtype().np
    return _finish(np.eye(n, m, dtype=dt), device, requires_grad)


from ._sampling import (  # noqa: E402, F401
    bernoulli,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from .random import Generator, manual_seed, seed  # noqa: F401,E402
