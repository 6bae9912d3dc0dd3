"""Printing tensors as torch does (a port of torch/_tensor_str.py onto NumPy arrays).

tensor(5.), tensor([10., 15., 25.], grad_fn=<MulBackward0>), summaries with '...' beyond
`threshold` elements, scientific notation when magnitudes differ by more than 1000x.
"""

import contextlib
import dataclasses
import math

import numpy as np

from . import dtypes
from .backend import to_numpy


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """torch.set_printoptions; as in torch, sci_mode is reset to None unless given.

    Args:
        precision (int, optional): digits after the decimal point. Default: ``None`` (4).
        threshold (int, optional): the number of elements above which the print is summarized.
            Default: ``None`` (1000).
        edgeitems (int, optional): items shown at each end of a summarized dimension. Default:
            ``None`` (3).
        linewidth (int, optional): characters per line. Default: ``None`` (80).
        profile (str, optional): ``'default'``, ``'short'`` or ``'full'``. Default: ``None``.
        sci_mode (bool, optional): force (True) or forbid (False) scientific notation; ``None``
            decides per tensor. Default: ``None``.

    Example:
        >>> framework.set_printoptions(precision=2)
        >>> framework.tensor([1.23456])
        tensor([1.23])
        >>> framework.set_printoptions(profile='default')
    """
    if profile is not None:
        preset = {
            "default": (4, 1000, 3, 80),
            "short": (2, 1000, 2, 80),
            "full": (4, math.inf, 3, 80),
        }[profile]
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth) = (
            preset
        )
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """get_printoptions() -> dict

    Returns the current print options (precision, threshold, edgeitems, linewidth, sci_mode) as
    a dict.
    """
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """printoptions(**kwargs)

    Context manager that sets print options (as :func:`set_printoptions`) for its block.
    """
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Chooses int mode / sci mode and the common width from the values that will be shown."""

    def __init__(self, arr):
        self.floating_dtype = arr.dtype.kind == "f" or arr.dtype.name == "bfloat16"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = arr.reshape(-1)
        if not self.floating_dtype:
            # bools print as True/False, ints as digits: Python's str of each value
            if flat.size:
                self.max_width = max(len(str(v)) for v in flat.tolist())
            return
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return
        absv = np.abs(vals).astype(np.float64)  # float16 would overflow at 1e8
        vmin, vmax = absv.min(), absv.max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        p = PRINT_OPTS.precision
        values = vals.tolist()
        if self.sci_mode:
            self.max_width = max(self.max_width, *(len(f"{v:.{p}e}") for v in values))
        elif self.int_mode:
            # one extra character for the '.' that marks a float
            self.max_width = max(self.max_width, *(len(f"{v:.0f}") + 1 for v in values))
        else:
            self.max_width = max(self.max_width, *(len(f"{v:.{p}f}") for v in values))

    def width(self):
        return self.max_width

    def format(self, value):
        p = PRINT_OPTS.precision
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _vector_str(arr, indent, summarize, fmt):
    element_length = fmt.width() + 2  # with ", "
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * edge:
        data = (
            [fmt.format(v) for v in arr[:edge].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in arr[-edge:].tolist()]
        )
    else:
        data = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(arr, indent, summarize, fmt):
    dim = arr.ndim
    if dim == 0:
        return fmt.format(arr.item())
    if dim == 1:
        return _vector_str(arr, indent, summarize, fmt)
    edge = PRINT_OPTS.edgeitems
    if summarize and arr.shape[0] > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(len(arr) - edge, len(arr)))
    else:
        rows = range(arr.shape[0])
    slices = [
        "..." if i is None else _tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt)
        for i in rows
    ]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(arr):
    """Only the edge items that will be shown, so the formatter sees what is printed."""
    edge = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        if arr.shape[0] > 2 * edge:
            return np.concatenate((arr[:edge], arr[-edge:]))  # edge 0: arr[-0:] is all, as torch
        return arr
    if not edge:
        return np.empty((0,) * arr.ndim, dtype=arr.dtype)
    if arr.shape[0] > 2 * edge:
        rows = list(range(edge)) + list(range(len(arr) - edge, len(arr)))
    else:
        rows = range(arr.shape[0])
    return np.stack([_summarized_data(arr[i]) for i in rows])


def _tensor_str(arr, indent):
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    fmt = _Formatter(_summarized_data(arr) if summarize else arr)
    return _tensor_str_with_formatter(arr, indent, summarize, fmt)


def _add_suffixes(tensor_str, suffixes, indent):
    """Append ', suffix' items, moving one to a new line when it would pass linewidth."""
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t):
    """``repr(t)`` as torch prints it: the values (torch's print options), then device, dtype,
    size and grad_fn suffixes.
    """
    arr = to_numpy(t._data)
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t._device.type != "cpu":
        suffixes.append(f"device='{t._device}'")
    dt = dtypes.from_numpy_dtype(arr.dtype)
    default = dtypes.get_default_dtype()
    if arr.size == 0:
        if arr.ndim != 1:
            suffixes.append("size=" + str(tuple(arr.shape)))
        if dt is not default:  # nothing to infer the dtype from, so even int64 is shown
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(arr.shape)))
        if dt not in (default, dtypes.int64, dtypes.bool_):
            suffixes.append(f"dtype={dt!r}")
        body = _tensor_str(arr, indent)
    if t.grad_fn is not None:
        # torch shows the class name: CopySlices, not torch::autograd::CopySlices
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
