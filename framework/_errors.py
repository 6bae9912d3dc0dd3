"""torch's error messages that several ops share, built in one place."""

import math

from . import dtypes


def broadcast_shapes(*shapes):
    """torch's infer_size folded left to right: the broadcast shape, or torch's RuntimeError."""
    out = ()
    for shape in shapes:
        n = max(len(out), len(shape))
        a, b = (1,) * (n - len(out)) + tuple(out), (1,) * (n - len(shape)) + tuple(shape)
        for i in range(n - 1, -1, -1):  # torch's infer_size reports the last bad dim
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise broadcast_error(a[i], b[i], i)
        out = tuple(y if x == 1 else x for x, y in zip(a, b))
    return out


def broadcast_error(size_a, size_b, dim):
    """torch's RuntimeError for sizes that do not broadcast at dimension ``dim``."""
    return RuntimeError(
        f"The size of tensor a ({size_a}) must match the size of tensor b "
        f"({size_b}) at non-singleton dimension {dim}"
    )


def not_implemented(kernel, np_dtype):
    """torch's refusal of a dtype its kernel does not handle."""
    return NotImplementedError(
        f'"{kernel}" not implemented for \'{dtypes.scalar_type_name(np_dtype)}\''
    )


def refuse(x, kinds, kernel):
    """Raise torch's NotImplementedError when the dtype of x (an array or a NumPy dtype) has a
    kind in `kinds` ('b' bool, 'iu' integers)."""
    dt = getattr(x, "dtype", x)
    if dt.kind in kinds:
        raise not_implemented(kernel, dt)


def float_input(fname, x):
    """torch's RuntimeError for a non-floating input of a linalg/statistics function."""
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"{fname}: Expected a floating point or complex tensor as input. "
            f"Got {dtypes.scalar_type_name(x._data.dtype)}"
        )


def must_be_tensor(fname, arg, pos, value):
    """torch's TypeError for a Python number where the signature takes only a Tensor."""
    return TypeError(
        f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(value).__name__}"
    )


def bool_negation():
    """torch's refusal of `-x` for a bool tensor."""
    return RuntimeError(
        "Negation, the `-` operator, on a bool tensor is not supported. If you "
        "are trying to invert a mask, use the `~` or `logical_not()` operator "
        "instead."
    )


def bool_subtraction(both):
    """torch's refusal of `a - b` when one (both=False) or both operands are bool."""
    if both:
        return RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not "
            "supported. Use the `^` or `logical_xor()` operator instead."
        )
    return RuntimeError(
        "Subtraction, the `-` operator, with a bool tensor is not supported. "
        "If you are trying to invert a mask, use the `~` or `logical_not()` "
        "operator instead."
    )


def zero_division():
    """Integer division or remainder by zero (torch raises a RuntimeError with this text)."""
    return RuntimeError("ZeroDivisionError")


def inplace_shape_error(shape, broadcast):
    """torch's RuntimeError when an in-place result's broadcast shape differs from the output's."""
    return RuntimeError(
        f"output with shape {list(shape)} doesn't match the broadcast shape {list(broadcast)}"
    )


def cast_error(result_name, np_dtype):
    """torch's refusal to write a result of type `result_name` ('Float', 'Long') into a
    tensor of `np_dtype`."""
    return RuntimeError(
        f"result type {result_name} can't be cast to the desired output type "
        f"{dtypes.scalar_type_name(np_dtype)}"
    )


def check_empty_sum_scale(np_dtype, beta):
    """torch's `result.mul_(beta)` when a matrix product sums over nothing (addmm, baddbmm,
    addbmm with an empty contraction): an integer or bool result refuses a float beta, a bool
    one an integer beta (beta == 0 zero-fills instead)."""
    if np_dtype.kind not in "biu" or beta == 0 or isinstance(beta, bool):
        return
    if isinstance(beta, float):
        raise cast_error("Float", np_dtype)
    if np_dtype.kind == "b":
        raise cast_error("Long", np_dtype)


def index_out_of_range(fname="self"):
    """torch's IndexError for an index past the end (``fname``: the indexed argument)."""
    return IndexError(f"index out of range in {fname}")


class _NotGiven:
    """Default of an argument whose absence matters (torch's overloads tell `dim=None` from no
    dim at all); prints as None in signatures."""

    def __repr__(self):
        return "None"


NOT_GIVEN = _NotGiven()


def invalid_args(fname, got):
    """torch's TypeError when no overload of `fname` takes the arguments described by `got`."""
    return TypeError(
        f"{fname}() received an invalid combination of arguments - got {got}, but expected one of:"
    )


def describe_args(args, kwargs):
    """torch's description of a call's arguments in its invalid-combination error:
    '(Tensor, int, keepdim=bool)' (torch lists the keywords last to first)."""

    def name(v):
        return "Tensor" if hasattr(v, "_data") else type(v).__name__

    parts = [name(a) for a in args] + [f"{k}={name(v)}" for k, v in reversed(kwargs.items())]
    return f"({', '.join(parts)})"


def check_keywords(fname, names, args, kwargs):
    """torch's TypeError for a keyword no overload of `fname` takes (`names`: those it takes)."""
    if not kwargs.keys() <= names:
        raise invalid_args(fname, describe_args(args, kwargs))


def check_index_range(xp, idx, size, other_kernel):
    """torch's bound check of a lookup (index_select, embedding): IndexError, or, where torch
    runs another kernel (`other_kernel`: an empty source, or dim 1 of a matrix), its
    RuntimeError."""
    if not idx.size:
        return
    bad = (idx < 0) | (idx >= size)
    if bool(bad.any()):
        if other_kernel:
            first = int(idx.reshape(-1)[xp.argmax(bad.reshape(-1))])
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={first} axis_dim={size}")
        raise index_out_of_range()


_FLOAT_MAX = {
    "float32": 3.4028234663852886e38,
    "float16": 65504.0,
    "bfloat16": 3.3895313892515355e38,
}


def scalar_overflows(value, np_dtype, reduced_float=True):
    """Whether c10's checked_convert refuses the Python number `value` for a tensor of
    `np_dtype`: a non-finite or out-of-range float into an integer type, an integer past the
    type's range (uint8 lets a negative one wrap while |value| <= 255), a finite float past
    float32's range; float16/bfloat16 only where `reduced_float` (torch's one-element fill
    skips that check). A bool tensor, float64 and inf/NaN into a float type never overflow."""
    kind = np_dtype.kind
    if kind == "b" or isinstance(value, (bool, complex)):
        return False
    if kind in "iu":
        bits = 8 * np_dtype.itemsize
        lo, hi = (0, 2**bits - 1) if kind == "u" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if isinstance(value, float) and not math.isfinite(value):
            return True
        if kind == "u" and not isinstance(value, float) and value < 0:
            return -value > hi
        return value < lo or value > hi
    if isinstance(value, float) and not math.isfinite(value):
        return False
    limit = _FLOAT_MAX.get(np_dtype.name)
    if limit is None or (not reduced_float and np_dtype.name != "float32"):
        return False
    return abs(value) > limit


def check_scalar_fits(value, np_dtype, reduced_float=True):
    """torch's error for a Python number its checked conversion refuses for a tensor of
    `np_dtype` (see scalar_overflows); else the number to store (a negative int into uint8
    wraps, two's complement, as torch's cast)."""
    if scalar_overflows(value, np_dtype, reduced_float):
        raise overflow_error(np_dtype)
    if np_dtype.kind == "u" and isinstance(value, int) and value < 0:
        return value % 2 ** (8 * np_dtype.itemsize)
    return value


def overflow_error(np_dtype):
    """torch's refusal to convert a Python number to a tensor's dtype (c10::Scalar's
    checked_convert)."""
    return RuntimeError(
        f"value cannot be converted to type {dtypes.scalar_accessor_name(np_dtype)} "
        "without overflow"
    )
