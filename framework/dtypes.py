"""dtype objects named as torch's, the default dtype and torch's type promotion."""

import numpy as np


class dtype:
    """torch.dtype: wraps a NumPy dtype; prints as torch.float32.

    Args:
        name (str): the dtype's name without the ``torch.`` prefix (``'float32'``).
        np_dtype (numpy.dtype): the NumPy dtype that stores the values.
        kind (str): ``'f'`` (floating), ``'i'`` (signed integer), ``'u'``, ``'b'`` (bool) or
            ``'c'``.

    Example:
        >>> framework.float32
        torch.float32
        >>> framework.float32.is_floating_point
        True
    """

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "_kind")

    def __init__(self, name, np_dtype, kind):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = kind == 2
        self.is_signed = name not in ("bool", "uint8")
        self.itemsize = self.np.itemsize
        self._kind = kind  # 0 bool, 1 integer, 2 floating: promotion category

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    @property
    def is_complex(self):
        """True for complex dtypes (none are supported here, so always False)."""
        return False


bool_ = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_FROM_NP = {d.np: d for d in ALL}
_NAMES = {d.name: d for d in ALL}
_NAMES.update(float=float32, double=float64, half=float16, long=int64, int=int32, short=int16)


def _by_name(name):
    return _NAMES[name]


def from_numpy_dtype(np_dtype):
    """The dtype object of a NumPy dtype; raises TypeError for unsupported ones."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only supported "
            "types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def to_numpy_dtype(d):
    """Accept a framework dtype, a NumPy dtype or a Python type; return the NumPy dtype."""
    if isinstance(d, dtype):
        return d.np
    if d is float:
        return _default.np
    if d is int:
        return np.dtype(np.int64)
    if d is bool:
        return np.dtype(np.bool_)
    return from_numpy_dtype(d).np


_default = float32


def get_default_dtype():
    """get_default_dtype() -> framework.dtype

    Returns the current default floating-point dtype (initially float32).

    Example:
        >>> framework.get_default_dtype()
        torch.float32
    """
    return _default


def set_default_dtype(d):
    """set_default_dtype(d) -> None

    Sets the default floating-point dtype (float32 or float64) used by factories and float
    literals.

    Args:
        d (:class:`framework.dtype`): ``framework.float32`` or ``framework.float64``.

    Example:
        >>> framework.set_default_dtype(framework.float64)
        >>> framework.tensor([1.0]).dtype
        torch.float64
        >>> framework.set_default_dtype(framework.float32)
    """
    global _default
    if not isinstance(d, dtype) or d not in (float16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


def scalar_kind(value):
    """Promotion category of a Python scalar: 0 bool, 1 int, 2 float."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return 1
    return 2


def _kind(np_dtype):
    if np_dtype == np.bool_:
        return 0
    return 2 if np_dtype.kind == "f" or np_dtype.name == "bfloat16" else 1


def _combine(a, b):
    """Promote within a category; a higher category wins outright."""
    if a is None:
        return b
    ka, kb = _kind(a), _kind(b)
    if ka == kb:
        if a != b and "V" in (a.kind, b.kind) and max(a.itemsize, b.itemsize) == 2:
            return np.dtype(np.float32)  # bfloat16 with float16: float32, as torch
        return np.promote_types(a, b)
    return a if ka > kb else b


def result_type(arrays, ndims, scalars):
    """torch.result_type over arrays (with their ndim) and Python scalars.

    Dimensioned tensors outrank zero-dim ones, which outrank Python scalars; a lower
    participant only matters when its category (bool < int < float) is higher.
    """
    dim_t = zero_t = None
    for a, nd in zip(arrays, ndims):
        if nd:
            dim_t = _combine(dim_t, a.dtype)
        else:
            zero_t = _combine(zero_t, a.dtype)
    result = dim_t
    if zero_t is not None:
        if result is None or _kind(zero_t) > _kind(result):
            result = zero_t
    if scalars:
        k = max(scalar_kind(s) for s in scalars)
        if result is None or k > _kind(result):
            result = (np.dtype(np.bool_), np.dtype(np.int64), _default.np)[k]
    return result


class _BFloat16(dtype):
    """torch.bfloat16: its NumPy dtype comes from the ml_dtypes package, imported on first use
    (ml_dtypes takes a noticeable time to import)."""

    __slots__ = ()

    def __init__(self):
        self.name, self.is_floating_point, self.is_signed = "bfloat16", True, True
        self.itemsize, self._kind = 2, 2

    @property
    def np(self):
        try:
            import ml_dtypes
        except ImportError:
            raise ImportError(
                "bfloat16 needs the ml_dtypes package: pip install ml_dtypes (or the 'io' extra)"
            ) from None
        d = np.dtype(ml_dtypes.bfloat16)
        _FROM_NP.setdefault(d, self)
        return d


bfloat16 = _BFloat16()
_NAMES["bfloat16"] = bfloat16


# torch's names for a dtype, one table: ScalarType names ("Float" in "not implemented for
# 'Float'"), C++ type names ("long int" in masked_fill's error), legacy tensor type names and
# the C++ types of c10::Scalar's accessors ("int64_t" in "value cannot be converted to type
# int64_t without overflow").
_TORCH_NAMES = {  # numpy name: (ScalarType, C++ type, legacy tensor type, Scalar accessor)
    "bool": ("Bool", "bool", "BoolTensor", "bool"),
    "uint8": ("Byte", "unsigned char", "ByteTensor", "uint8_t"),
    "int8": ("Char", "signed char", "CharTensor", "int8_t"),
    "int16": ("Short", "short int", "ShortTensor", "int16_t"),
    "int32": ("Int", "int", "IntTensor", "int"),
    "int64": ("Long", "long int", "LongTensor", "int64_t"),
    "float16": ("Half", "c10::Half", "HalfTensor", "c10::Half"),
    "float32": ("Float", "float", "FloatTensor", "float"),
    "float64": ("Double", "double", "DoubleTensor", "double"),
    "bfloat16": ("BFloat16", "c10::BFloat16", "BFloat16Tensor", "c10::BFloat16"),
}


def scalar_type_name(np_dtype):
    """torch's ScalarType name of a NumPy dtype (or dtype name): 'Float', 'Long', 'Bool', ...;
    the NumPy name for a dtype torch does not have."""
    name = np.dtype(np_dtype).name
    return _TORCH_NAMES[name][0] if name in _TORCH_NAMES else name


def cpp_type_name(np_dtype):
    """torch's C++ type name of a NumPy dtype: 'float', 'long int', ..."""
    return _TORCH_NAMES[np.dtype(np_dtype).name][1]


def scalar_accessor_name(np_dtype):
    """The C++ type torch converts a Python number to for a tensor of this dtype: 'int64_t',
    'int', 'uint8_t', ... (its overflow error names it)."""
    return _TORCH_NAMES[np.dtype(np_dtype).name][3]


def type_string(np_dtype):
    """torch's Tensor::toString() of a CPU tensor: 'torch.FloatTensor', ... ('CPUBoolType',
    'CPUBFloat16Type' for the dtypes with no legacy tensor type there)."""
    name = np.dtype(np_dtype).name
    if name in ("bool", "bfloat16"):
        return f"CPU{scalar_type_name(name)}Type"
    return f"torch.{tensor_type_name(np_dtype)}"


def tensor_type_name(np_dtype):
    """torch's legacy tensor type name of a NumPy dtype: 'FloatTensor', 'LongTensor', ..."""
    return _TORCH_NAMES.get(np.dtype(np_dtype).name, ("", "", "Tensor", ""))[2]


def cast(arr, np_dtype):
    """``arr.astype(np_dtype)`` as torch converts: a double reaches float16/bfloat16 through
    float32 (c10's Half/BFloat16 take a float), so it can round twice, as torch's does.

    Example:
        >>> cast(np.array([0.1]), np.float16).dtype
        dtype('float16')
    """
    np_dtype = np.dtype(np_dtype)
    if arr.dtype.char == "f" and np_dtype.name == "bfloat16":
        # torch's vectorised float -> bfloat16 conversion writes every NaN as 0xFFFF (sign
        # set); from double or half (and in its scalar paths) it is 0x7FC0, as NumPy's
        out = arr.astype(np_dtype)
        nan = arr != arr
        if nan.any():
            out.view(np.uint16)[nan] = 0xFFFF
        return out
    if arr.dtype.char == "d" and np_dtype.itemsize == 2 and np_dtype.kind in "fV":
        arr = arr.astype(np.float32)
    return arr.astype(np_dtype)
