"""Creation functions: tensor, zeros, ones, full, arange, linspace, eye, rand*, *_like."""
import numpy as np

from . import backend, dtypes
from .backend import as_device, move
from .tensor import Size, Tensor


def _np_dtype(dtype):
    return None if dtype is None else dtypes.to_numpy_dtype(dtype)


def _infer(data):
    """torch.tensor's dtype inference: floats -> default dtype, ints -> int64, bools -> bool."""
    arr = np.array(data)
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if arr.dtype.kind == "f" and not isinstance(data, np.ndarray) and not isinstance(data, np.floating):
        return arr.astype(dtypes.get_default_dtype().np)
    if arr.dtype.kind in "iu" and not isinstance(data, (np.ndarray, np.generic)):
        return arr.astype(np.int64)
    if arr.dtype.kind in "U S".split():
        raise TypeError(f"new(): invalid data type '{arr.dtype.name}'")
    return arr


def _unwrap(data):
    """Nested lists of tensors become nested lists of numbers."""
    if isinstance(data, Tensor):
        return backend.to_numpy(data._data)
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _finish(arr, device, requires_grad):
    dev = as_device(device)
    dtypes.from_numpy_dtype(arr.dtype)  # rejects unsupported dtypes with torch's message
    t = Tensor._make(move(arr, dev), dev)
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Copy data into a new leaf tensor."""
    if isinstance(data, Tensor):
        arr = backend.to_numpy(data._data).copy()
        if device is None:
            device = data.device
    else:
        arr = _infer(_unwrap(data))
        if isinstance(data, np.ndarray):
            arr = arr.copy()
    if dtype is not None:
        arr = arr.astype(_np_dtype(dtype))
    return _finish(arr if arr.flags.c_contiguous else arr.copy(order="C"), device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Share memory when data already is a tensor or array of the right dtype and device."""
    if isinstance(data, Tensor):
        out = data if dtype is None else data.to(dtype)
        return out if device is None else out.to(device)
    if isinstance(data, np.ndarray) and (dtype is None or _np_dtype(dtype) == data.dtype) \
            and as_device(device).type == "cpu":
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(array):
    """A tensor sharing memory with a NumPy array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)
    return Tensor._make(array, backend.CPU)


def _size(size):
    if len(size) == 1 and not isinstance(size[0], int):
        return tuple(int(s) for s in size[0])
    return tuple(int(s) for s in size)


def _filled(fill, size, dtype, device, requires_grad):
    dt = _np_dtype(dtype) or dtypes.get_default_dtype().np
    dev = as_device(device)
    xp = backend.xp_for(dev)
    with _on(dev):
        arr = xp.full(_size(size), fill, dtype=dt)
    t = Tensor._make(arr, dev)
    if requires_grad:
        t.requires_grad = True
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


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _filled(0, size, dtype, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _filled(1, size, dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    return _filled(0, size, dtype, device, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        kind = dtypes.scalar_kind(fill_value)
        dtype = (dtypes.bool_, dtypes.int64, dtypes.get_default_dtype())[kind]
    return _filled(fill_value, (size,), dtype, device, requires_grad)


def _like(fn, x, dtype, device, requires_grad, *extra):
    return fn(*extra, x.shape, dtype=dtype or x.dtype, device=device or x.device,
              requires_grad=requires_grad) if extra else \
        fn(x.shape, dtype=dtype or x.dtype, device=device or x.device, requires_grad=requires_grad)


def zeros_like(x, dtype=None, device=None, requires_grad=False):
    return zeros(x.shape, dtype=dtype or x.dtype, device=device or x.device,
                 requires_grad=requires_grad)


def ones_like(x, dtype=None, device=None, requires_grad=False):
    return ones(x.shape, dtype=dtype or x.dtype, device=device or x.device,
                requires_grad=requires_grad)


def empty_like(x, dtype=None, device=None, requires_grad=False):
    return zeros_like(x, dtype, device, requires_grad)


def full_like(x, fill_value, dtype=None, device=None, requires_grad=False):
    return full(x.shape, fill_value, dtype=dtype or x.dtype, device=device or x.device,
                requires_grad=requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = dtypes.get_default_dtype() if is_float else dtypes.int64
    if step == 0:
        raise RuntimeError("step must be nonzero")
    arr = np.arange(start, end, step, dtype=np.float64).astype(_np_dtype(dtype))
    return _finish(arr, device, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    dt = _np_dtype(dtype) or dtypes.get_default_dtype().np
    return _finish(np.linspace(start, end, steps).astype(dt), device, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    dt = _np_dtype(dtype) or dtypes.get_default_dtype().np
    return _finish(np.eye(n, m, dtype=dt), device, requires_grad)


def _random(draw, size, dtype, device, requires_grad, generator=None):
    """Draw on the CPU from the seeded stream, then move: same numbers on every device."""
    dt = _np_dtype(dtype) or dtypes.get_default_dtype().np
    rng = generator.rng if generator is not None else backend.rng()
    arr = np.asarray(draw(rng, _size(size))).astype(dt)
    return _finish(arr, device, requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None):
    return _random(lambda r, s: r.random(s), size, dtype, device, requires_grad, generator)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None):
    return _random(lambda r, s: r.standard_normal(s), size, dtype, device, requires_grad,
                   generator)


def randint(low, high=None, size=None, dtype=None, device=None, requires_grad=False,
            generator=None):
    if high is None:
        low, high = 0, low
    return _random(lambda r, s: r.integers(low, high, s), (size,), dtype or dtypes.int64,
                   device, requires_grad, generator)


def randperm(n, dtype=None, device=None, generator=None):
    return _random(lambda r, s: r.permutation(n), (n,), dtype or dtypes.int64, device, False,
                   generator)


def rand_like(x, dtype=None, device=None):
    return rand(x.shape, dtype=dtype or x.dtype, device=device or x.device)


def randn_like(x, dtype=None, device=None):
    return randn(x.shape, dtype=dtype or x.dtype, device=device or x.device)


class Generator:
    """torch.Generator: an independent seeded stream (used by DataLoader and random_split)."""

    def __init__(self, device="cpu"):
        self.rng = np.random.Generator(np.random.PCG64(0))
        self._seed = 0

    def manual_seed(self, seed):
        self._seed = int(seed)
        self.rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return self.rng.bit_generator.state

    def set_state(self, state):
        self.rng.bit_generator.state = state


def manual_seed(seed):
    backend.manual_seed(seed)
    return Generator().manual_seed(seed)
