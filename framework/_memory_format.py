"""torch.memory_format: contiguous_format, channels_last, channels_last_3d, preserve_format.

A channels-last tensor has torch's NHWC (NDHWC) strides over the same NCHW shape: values,
shapes and results are unchanged, only `stride()` and `is_contiguous(memory_format=...)` see
the layout. `contiguous`, `clone` and `to` (for tensors and modules) take `memory_format`.
"""

import numpy as np

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d"]


class memory_format:
    """A memory layout; the four instances are framework.contiguous_format, channels_last,
    channels_last_3d and preserve_format.

    Args:
        name (str): the name it prints as (``'channels_last'``).
        rank (int, optional): the number of dimensions the layout applies to (4 for channels_last, 5
            for channels_last_3d). Default: ``None`` (any).

    Example:
        >>> x = framework.ones(2, 3, 4, 5).contiguous(memory_format=framework.channels_last)
        >>> x.stride(), x.is_contiguous(memory_format=framework.channels_last)
        ((60, 1, 15, 3), True)
    """

    def __init__(self, name, rank=None):
        self.name, self.rank = name, rank

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last", 4)
channels_last_3d = memory_format("channels_last_3d", 5)
preserve_format = memory_format("preserve_format")


def check_rank(fmt, ndim):
    """torch's error for a channels-last format on a tensor of the wrong rank."""
    if fmt is not None and fmt.rank is not None and ndim != fmt.rank:
        raise RuntimeError(f"required rank {fmt.rank} tensor to use {fmt.name} format")


def _order(ndim):
    return (0,) + tuple(range(2, ndim)) + (1,)


def is_channels_last(arr):
    """True when `arr` has channels-last strides (size-1 dimensions are ignored, as torch)."""
    expected = arr.itemsize
    for d in reversed(_order(arr.ndim)):
        if arr.shape[d] != 1 and arr.strides[d] != expected:
            return False
        expected *= arr.shape[d]
    return True


def channels_last_copy(xp, arr):
    """A copy of `arr` (NCHW or NCDHW shape) laid out channels-last."""
    order = _order(arr.ndim)
    back = tuple(sorted(range(arr.ndim), key=order.__getitem__))
    return xp.ascontiguousarray(arr.transpose(order)).transpose(back)


def preserved_empty(xp, arr, dtype):
    """An uninitialised array of ``arr``'s shape in torch's preserve_format layout: a
    non-overlapping dense ``arr``'s own strides (in elements), otherwise the order of its
    strides made dense (torch's infer_dense_strides, NumPy's order 'K')."""
    item = np.dtype(dtype).itemsize
    if not arr.size:  # torch: an empty tensor is non-overlapping and dense, its strides kept
        from .ops.views import strides

        steps = [s * item for s in strides(arr)]
        return xp.lib.stride_tricks.as_strided(xp.empty(0, dtype=dtype), arr.shape, steps)
    if _dense(arr) and all(s >= 0 for s in arr.strides):
        steps = [s // arr.itemsize * item for s in arr.strides]
        flat = xp.empty(arr.size, dtype=dtype)
        return xp.lib.stride_tricks.as_strided(flat, arr.shape, steps)
    return xp.empty_like(arr, dtype=dtype, order="K")


def _dense(arr):
    """Non-overlapping and dense: some order of the dimensions is contiguous."""
    if arr.flags.f_contiguous:
        return True
    expected = arr.itemsize
    for s, n in sorted((s, n) for n, s in zip(arr.shape, arr.strides) if n != 1):
        if s != expected:
            return False
        expected *= n
    return True


def in_memory_order(arr):
    """A view of ``arr`` whose C order is ``arr``'s memory order (dimensions by decreasing
    stride): writing a flat sequence into it fills ``arr`` as torch's serial kernels do."""
    order = sorted(range(arr.ndim), key=lambda d: -arr.strides[d])
    return arr.transpose(order)
