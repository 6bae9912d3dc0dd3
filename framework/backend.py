"""Devices and array modules: the only place that imports CuPy.

Every NumPy/CuPy difference gets one shim here; ops call `xp` functions only.
"""

import numpy as np

# torch is silent on x/0, log(0), overflow and invalid values; NumPy would warn from every op
np.seterr(all="ignore")

try:  # CuPy is optional: present only on machines with CUDA
    import cupy as _cupy
    import cupyx as _cupyx
except Exception:  # pragma: no cover - depends on the machine
    _cupy = None
    _cupyx = None


class device:
    """torch.device: a type ('cpu' or 'cuda') and an optional index.

    Args:
        type (str): ``'cpu'`` or ``'cuda'``, optionally with the index (``'cuda:1'``).
        index (int, optional): the device index. Default: ``None``.

    Example:
        >>> framework.device('cuda', 1)
        device(type='cuda', index=1)
        >>> framework.device('cpu').type
        'cpu'
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, str) and ":" in type:
            type, idx = type.split(":", 1)
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type "
                f"at start of device string: {type}"
            )
        if type == "cpu":
            index = None
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __setattr__(self, name, value):
        raise AttributeError("device objects are immutable")

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self):
        return hash((self.type, self.index or 0))


CPU = device("cpu")


def cuda_available():
    """True if CuPy is installed and sees at least one GPU."""
    if _cupy is None:
        return False
    try:
        return _cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def cuda_device_count():
    """The number of GPUs CuPy sees (0 without CuPy)."""
    return _cupy.cuda.runtime.getDeviceCount() if cuda_available() else 0


def as_device(spec):
    """Normalise a device spec (None, str, int, device) to a device; CUDA must exist."""
    if spec is None:
        return CPU
    if isinstance(spec, device):
        dev = spec
    elif isinstance(spec, int):
        dev = device("cuda", spec)
    else:
        dev = device(spec)
    if dev.type == "cuda":
        if not cuda_available():
            raise AssertionError("Torch not compiled with CUDA enabled")
        if dev.index is None:
            dev = device("cuda", 0)
    return dev


def xp_for(dev):
    """The array module (numpy or cupy) of a device."""
    return np if dev.type == "cpu" else _cupy


def device_of(array):
    """The device an array lives on."""
    if isinstance(array, np.ndarray) or np.isscalar(array) or _cupy is None:
        return CPU
    if isinstance(array, _cupy.ndarray):
        return device("cuda", array.device.id)
    return CPU


def move(array, dev):
    """Copy an array to a device (no copy when it is already there)."""
    if dev.type == "cpu":
        if isinstance(array, np.ndarray):
            return array
        return _cupy.asnumpy(array)
    with _cupy.cuda.Device(dev.index or 0):
        return _cupy.asarray(array)


def to_numpy(array):
    """``array`` as a NumPy array (a copy to the host for a CuPy array)."""
    return array if isinstance(array, np.ndarray) else _cupy.asnumpy(array)


def scatter_add(xp, target, indices, values):
    """target[indices] += values with repeated indices summed (np.add.at / cupyx.scatter_add)."""
    if xp is np:
        if not _rows_add_at(target, indices, values):
            np.add.at(target, indices, values)
    else:
        _cupyx.scatter_add(target, indices, values)
    return target


def _rows_add_at(target, indices, values):
    """np.add.at of whole rows (target[i] += values[k] for i = indices[k]) as one 1-D add.at on
    flat element indices: NumPy's 1-D add.at is about 5x faster than its row-wise loop, and
    adds the same numbers in the same order. False (nothing done) where it does not apply."""
    if (
        type(target) is not np.ndarray
        or target.ndim < 2
        or not target.flags.c_contiguous
        or type(indices) is not np.ndarray
        or indices.ndim != 1
        or indices.dtype.kind not in "iu"
        or not indices.size
        or type(values) is not np.ndarray
        or values.shape != indices.shape + target.shape[1:]
        or values.dtype != target.dtype
    ):
        return False
    n = target.shape[0]
    if int(indices.min()) < 0 or int(indices.max()) >= n:  # wrapped or out of range: the
        return False  # row-wise add.at handles (and words the error)
    inner = target.size // n
    flat = (indices.astype(np.intp)[:, None] * inner + np.arange(inner)).reshape(-1)
    np.add.at(target.reshape(-1), flat, values.reshape(-1))
    return True


def synchronize():
    """Waits for all GPU work to finish (nothing without a GPU)."""
    if cuda_available():
        _cupy.cuda.runtime.deviceSynchronize()


def data_ptr(array):
    """Address of an array's first element (NumPy or CuPy)."""
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr


def storage_of(array):
    """An array spanning the memory that `array` lives in (what its views share, torch's
    untyped_storage): for NumPy the end of its chain of `.base` arrays of the same dtype,
    for CuPy the whole memory block."""
    if isinstance(array, np.ndarray):
        while True:
            base = array.base
            if base is not None and not isinstance(base, np.ndarray):
                base = getattr(base, "base", None)  # as_strided's DummyArray wrapper
            if not isinstance(base, np.ndarray) or base.dtype != array.dtype:
                return array
            array = base
    mem = array.data.mem
    return _cupy.ndarray(
        (mem.size // array.itemsize,), array.dtype, _cupy.cuda.MemoryPointer(mem, 0)
    )


def as_strided(array, shape, strides, offset=0):
    """A writable view of `array`'s memory with `shape`, `strides` (in elements) and an
    element offset from `array`'s first element (stride_tricks for NumPy and CuPy)."""
    item = array.itemsize
    if isinstance(array, np.ndarray):
        flat = np.lib.stride_tricks.as_strided(
            array, (offset + 1,), (item,), writeable=array.flags.writeable
        )
        return np.lib.stride_tricks.as_strided(
            flat[offset:],
            tuple(shape),
            tuple(s * item for s in strides),
            writeable=array.flags.writeable,
        )
    flat = _cupy.lib.stride_tricks.as_strided(array, (offset + 1,), (item,))
    return _cupy.lib.stride_tricks.as_strided(
        flat[offset:], tuple(shape), tuple(s * item for s in strides)
    )
