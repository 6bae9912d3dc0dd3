"""Argument parsing and torch's error messages for convolutions and pooling.

Everything is normalised to the 2-D form the kernels use: 1-D convolutions get a unit height
(stride 1, no padding, dilation 1 along it).
"""

import math

from .._errors import refuse
from ..dtypes import scalar_type_name

_LOWER = {
    "float32": "float",
    "float64": "double",
    "float16": "half",
    "int64": "long",
    "int32": "int",
}


def _sizes(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def expand(value, n, name):
    """torch's expand_param_if_needed: an int or a 1-element list becomes n values."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    return value * n if len(value) == 1 else value


def _check_len(values, n, name):
    if len(values) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} "
            f"values to match the convolution dimensions, but got "
            f"{name}={list(values)}"
        )


def _to2d(values, fill):
    return values if len(values) == 2 else (fill,) + values


def conv_out_size(size, pad, k, stride, dilation):
    """The output length of a convolution or pooling along one dimension (torch's formula)."""
    return (size + pad[0] + pad[1] - dilation * (k - 1) - 1) // stride + 1


def check_conv(
    x, w, b, nd, name, groups, transposed=False, batched=False, pads=None, dilation=None
):
    """torch's checks; the first call (batched=False) returns whether x is unbatched."""
    if not batched:
        if x.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(
                f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                f"{name}, but got input of size: {_sizes(x.shape)}"
            )
        if groups <= 0:
            raise RuntimeError("non-positive groups is not supported")
        _check_dtypes(x, w, b)
        return x.ndim == nd + 1
    if w.ndim != x.ndim:
        raise RuntimeError(
            "weight should have at least three dimensions"
            if w.ndim < 3
            else f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional "
            f"weight {_sizes(w.shape)}, but got {x.ndim}-dimensional input of "
            f"size {_sizes(x.shape)} instead"
        )
    check_groups(w, groups)
    if transposed:
        if x.shape[1] != w.shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {_sizes(w.shape)}, expected "
                f"input{_sizes(x.shape)} to have {w.shape[0]} channels, but got "
                f"{x.shape[1]} channels instead"
            )
        out_channels = w.shape[1] * groups
    else:
        if x.shape[1] != w.shape[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {_sizes(w.shape)}, "
                f"expected input{_sizes(x.shape)} to have {w.shape[1] * groups} "
                f"channels, but got {x.shape[1]} channels instead"
            )
        out_channels = w.shape[0]
    if b is not None and (b.ndim != 1 or b.shape[0] != out_channels):
        raise RuntimeError(
            f"Given weight of size {_sizes(w.shape)}, expected bias to be "
            f"1-dimensional with {out_channels} elements, but got bias of size "
            f"{_sizes(b.shape)} instead"
        )
    if pads is not None:
        spatial = x.shape[2:]
        pads = pads[-len(spatial) :]
        dil = dilation[-len(spatial) :]
        padded = [s + p[0] + p[1] for s, p in zip(spatial, pads)]
        kernel = [d * (k - 1) + 1 for d, k in zip(dil, w.shape[2:])]
        if any(p < k for p, k in zip(padded, kernel)):
            raise RuntimeError(
                f"Calculated padded input size per channel: "
                f"({' x '.join(map(str, padded))}). Kernel size: "
                f"({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                f"than actual input size"
            )
    return False


def check_groups(w, groups):
    """torch's check_shape_forward of the weight's first dimension against groups."""
    if w.shape[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {_sizes(w.shape)} instead"
        )
    if w.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} "
            f"at dimension 0, but got weight of size [{_sizes(w.shape)}] instead"
        )  # (torch's message prints the sizes as a list of one list)


def check_nonempty(shape, nd):
    """torch's _select_conv_backend: an input with no elements runs no kernel (its output is
    empty or the bias) only where its batch or channels are empty; an empty spatial size
    raises, naming the shape torch's kernels see (a 1-D one as 2-D of height 1)."""
    shape = tuple(shape)
    if 0 in shape and shape[0] and shape[1]:
        shown = shape[:2] + (1,) + shape[2:] if nd == 1 else shape
        raise RuntimeError(
            "Only zero batch or zero channel inputs are supported, but got input shape: "
            + _sizes(shown)
        )


def refuse_bool(x, kernel):
    """torch's refusal of a bool convolution, named after the kernel it dispatches `kernel`;
    an input with an empty batch or channels reaches no kernel and is accepted."""
    if x.shape[0] and x.shape[1]:
        refuse(x, "b", kernel)


def _check_dtypes(x, w, b):
    if x.dtype != w.dtype:
        xd, wd = str(x.dtype).split(".")[-1], str(w.dtype).split(".")[-1]
        if xd == "float32":
            raise RuntimeError(
                f"Input type (torch.{scalar_type_name(xd)}Tensor) and weight type "
                f"(torch.{scalar_type_name(wd)}Tensor) should be the same or input "
                f"should be a MKLDNN tensor and weight is a dense tensor"
            )
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(xd)} but found {scalar_type_name(wd)}"
        )
    if b is not None and b.dtype != x.dtype:
        xd, bd = str(x.dtype).split(".")[-1], str(b.dtype).split(".")[-1]
        raise RuntimeError(
            f"Input type ({_LOWER.get(xd, xd)}) and bias type "
            f"({_LOWER.get(bd, bd)}) should be the same"
        )


def _check_common(w, stride, dilation, nd):
    n = w.ndim - 2
    _check_len(stride, n, "stride")
    _check_len(dilation, n, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")


def conv_params(w, stride, padding, dilation, nd):
    """(stride, pads, dilation) in 2-D form; pads are ((top, bottom), (left, right))."""
    stride, dilation = expand(stride, nd, "stride"), expand(dilation, nd, "dilation")
    _check_common(w, stride, dilation, nd)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        padding = 0
    padding = expand(padding, nd, "padding")
    _check_len(padding, w.ndim - 2, "padding")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    return _to2d(stride, 1), _to2d(tuple((p, p) for p in padding), (0, 0)), _to2d(dilation, 1)


def same_padding(w, dilation, nd):
    """torch's 'same': total d*(k-1), the odd extra row/column goes to the bottom/right."""
    pads = []
    for d, k in zip(dilation[-nd:], w.shape[2:]):
        total = d * (k - 1)
        pads.append((total // 2, total - total // 2))
    return _to2d(tuple(pads), (0, 0))


def transposed_params(x, w, stride, padding, output_padding, dilation, nd):
    """(stride, pads, dilation, output spatial size) of a transposed convolution; the size is
    checked by check_transposed_size."""
    stride, dilation = expand(stride, nd, "stride"), expand(dilation, nd, "dilation")
    _check_common(w, stride, dilation, nd)
    padding = expand(padding, nd, "padding")
    output_padding = expand(output_padding, nd, "output_padding")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        names = ("height", "width")[-nd:] if nd <= 2 else [str(i) for i in range(nd)]
        parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)]
        parts += [f"stride_{n}: {v}" for n, v in zip(names, stride)]
        parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation)]
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but "
            "got " + " ".join(parts)
        )
    spatial = x.shape[-nd:]
    out = tuple(
        (h - 1) * s - 2 * p + d * (k - 1) + op + 1
        for h, s, p, d, k, op in zip(
            spatial, stride, padding, dilation, w.shape[2:], output_padding
        )
    )
    return (
        _to2d(stride, 1),
        _to2d(tuple((p, p) for p in padding), (0, 0)),
        _to2d(dilation, 1),
        out,
    )


def _mkldnn(x, w, stride, dilation, output_padding, groups):
    """torch's ConvParams::use_mkldnn for a transposed convolution of x (batched) on the CPU,
    with the kernels' 4-D view of a 1-D one (a unit height)."""
    big = any(o >= s for o, s in zip(output_padding, stride[-len(output_padding) :]))
    if x._data.dtype.name != "float32" or big:
        return False
    from .._namespace import get_num_threads

    shape = tuple(x.shape)
    if len(shape) == 3:
        shape = shape[:2] + (1,) + shape[2:]
    kh, kw = (1,) + tuple(w.shape[2:]) if w.ndim == 3 else tuple(w.shape[-2:])
    n = shape[0]
    return (
        any(s != 1 for s in stride)
        or any(d != 1 for d in dilation)
        or n >= 16
        or kw != 1
        or kh != 1
        or get_num_threads() > 1
    ) and (groups > 1 or (kw > 3 and kh > 3) or n > 1 or math.prod(shape[:4]) > 20480)


def check_transposed_size(x, w, out, stride, dilation, output_padding, groups):
    """torch's shape check of a transposed convolution of x (batched): its output has no
    negative size, and none of size 0 except where torch runs its oneDNN kernel (float32,
    see _mkldnn), which returns an empty output, or none (an empty batch or channels)."""
    nd = len(out)
    if not (x.shape[0] and x.shape[1]):  # no kernel runs: torch allocates the output
        shape = (x.shape[0], w.shape[1] * groups) + (() if nd > 1 else (1,)) + tuple(out)
        for i, s in enumerate(shape):
            if s < 0:
                raise RuntimeError(
                    f"invalid shape dimension {s} at index {i} of shape {_sizes(shape)}"
                )
        return
    if any(o < 0 for o in out) or (
        0 in out and not _mkldnn(x, w, stride, dilation, output_padding, groups)
    ):
        one = (1,) if nd == 1 else ()  # torch runs a 1-d one as 2-d
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, one + tuple(x.shape[2:])))})."
            f" Calculated output size per channel: "
            f"({' x '.join(map(str, one + tuple(out)))}). Output size is too small"
        )
