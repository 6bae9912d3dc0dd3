"""Printing tensors as torch does: tensor(5.), tensor([10., 15., 25.], grad_fn=<MulBackward0>)."""
import numpy as np

from . import dtypes
from .backend import to_numpy


def tensor_repr(t):
    arr = to_numpy(t._data)
    body = _format(arr)
    suffix = []
    if t._device.type != "cpu":
        suffix.append(f"device='{t._device}'")
    default = dtypes.get_default_dtype().np
    if arr.dtype not in (default, np.dtype(np.int64), np.dtype(np.bool_)) or arr.size == 0 and arr.dtype != default:
        suffix.append(f"dtype={dtypes.from_numpy_dtype(arr.dtype)!r}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"


def _format(arr):
    if arr.size == 0:
        return "[]" if arr.ndim <= 1 else "[]"
    if arr.dtype.kind == "b":
        fmt = lambda v: "True" if v else "False"
    elif arr.dtype.kind in "iu":
        fmt = str
    else:
        fmt = _float_formatter(arr)
    if arr.ndim == 0:
        return fmt(arr.item())
    strs = np.vectorize(fmt, otypes=[object])(arr)
    width = max(len(s) for s in strs.flat)
    return _nest(strs, width, 1)


def _float_formatter(arr):
    finite = arr[np.isfinite(arr)].astype(np.float64)
    if finite.size == 0:
        return lambda v: _special(v) or str(v)
    absmax, absmin = np.abs(finite).max(), np.abs(finite).min()
    if np.all(finite == np.round(finite)):
        if absmax >= 1e8:
            return lambda v: _special(v) or f"{v:.4e}"
        return lambda v: _special(v) or f"{v:.0f}."
    if absmax / max(absmin, 1e-300) > 1000 or absmax > 1e8 or absmin < 1e-4:
        return lambda v: _special(v) or f"{v:.4e}"
    return lambda v: _special(v) or f"{v:.4f}"


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _nest(strs, width, indent):
    if strs.ndim == 0:
        return strs.item()
    if strs.ndim == 1:
        return "[" + ", ".join(s.rjust(width) for s in strs) + "]"
    sep = "," + "\n" * (strs.ndim - 1) + " " * (indent + 7)
    return "[" + sep.join(_nest(s, width, indent + 1) for s in strs) + "]"
