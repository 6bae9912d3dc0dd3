"""More torch top-level functions: gcd/lcm, ldexp, nextafter, logdet, vander, combinations,
scalar_tensor, detach, frombuffer, empty_strided.

Composites are written as torch's ATen decompositions (same nodes); gcd/lcm and nextafter are
kernels of their own.
"""

import math

from .. import dtypes
from .._errors import broadcast_shapes, check_scalar_fits, refuse
from ..autograd.op import Op, per_sample_under_vmap, round_half, vmap_hook
from ..tensor import Tensor

__all__ = [
    "combinations",
    "detach",
    "empty_strided",
    "frombuffer",
    "gcd",
    "lcm",
    "ldexp",
    "logdet",
    "nextafter",
    "scalar_tensor",
    "vander",
]


def _wrap(array, ref):
    return Tensor._make(array, ref.device)


def _need_tensor(fname, name, pos, v):
    if not isinstance(v, Tensor):
        raise TypeError(
            f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}"
        )


class _IntBinary(Op):
    """gcd / lcm: integer kernels without a derivative."""

    promote = True
    differentiable = False

    def forward(self, a, b, fname, fn):
        """The integer function of a and b (refuses floating and bool inputs as torch)."""
        refuse(a, "bfV", f"{fname}_cpu")
        return fn(self.xp, a, b)


def _int_binary(fname, kernel, input, other):
    _need_tensor(fname, "other", 2, other)
    return _IntBinary.apply(input, other, fname=fname, fn=kernel)


def gcd(input, other):
    """Greatest common divisor of integer tensors, elementwise (non-negative; gcd(0, 0) = 0).

    Args:
        input: an integer tensor.
        other: an integer tensor (broadcast).

    Example:
        >>> framework.gcd(framework.tensor([12, -18]), framework.tensor([8, 12]))
        tensor([4, 6])
    """
    return _int_binary("gcd", lambda xp, a, b: xp.gcd(a, b), input, other)


def lcm(input, other):
    """Least common multiple of integer tensors, elementwise (non-negative; 0 if either is 0).

    Args:
        input: an integer tensor.
        other: an integer tensor (broadcast).

    Example:
        >>> framework.lcm(framework.tensor([12, -18]), framework.tensor([8, 12]))
        tensor([24, 36])
    """
    return _int_binary("lcm", lambda xp, a, b: xp.lcm(a, b), input, other)


class Ldexp(Op):
    """input * 2 ** other, one node over both inputs (torch's ldexp.Tensor)."""

    saves_inputs = True
    saves_output = True
    broadcasts = True

    def forward(self, a, b):
        """a * 2 ** b as torch computes it: a float a with integer exponents goes to its
        std::ldexp kernel (a's dtype, exponents as C int; bool exponents refused); anything
        else is a * pow(2, b), 2 a Python float for integer/bool/float32 a and a 0-dim
        tensor of a's dtype otherwise (torch's _pow2), with the usual promotions."""
        xp = self.xp
        if a.dtype.kind == "f" and b.dtype.kind in "biu":
            refuse(b, "b", "ldexp_cpu_exp")
            wide = xp.ldexp(a.astype("float64"), b.astype("int32"))  # (int64 wraps as C's)
            return wide.astype(a.dtype, copy=False)
        if a.dtype.kind in "biu" or a.dtype == xp.float32:
            e_dt = dtypes.result_type([b], [b.ndim], [2.0])
        else:
            e_dt = dtypes.result_type([xp.empty((), a.dtype), b], [0, b.ndim], [])
        e = xp.power(e_dt.type(2.0), b.astype(e_dt, copy=False))
        if self.half is not None:  # a half ldexp computes in float32: torch's pow(2, other)
            e = round_half(e, self.half)  # is a half tensor before the product
        return (a * e).astype(dtypes.result_type([a, e], [a.ndim, b.ndim], []), copy=False)

    def backward(self, grad):
        """torch's: grad * 2 ** b for a, grad * result * log 2 for b, in the result's dtype
        (float16 for a float16 ldexp_ whatever b's: its broadcast sum is in float16 too)."""
        a, b = self.inputs
        e = 2**b  # (torch's formula: an integer power for integer exponents, 0 below 0)
        ga = grad * e if self.needs_input_grad[0] else None
        if not self.needs_input_grad[1]:
            return ga, None
        out = self.output  # (in place: self's dtype, which the gradient has)
        from .elementwise import MulScalar

        # torch's grad * result * log(2): a Scalar product last (MulBackward1)
        return ga, MulScalar.apply(grad * out.to(grad.dtype), other=math.log(2.0))

    jvp = Op.jvp_elementwise
    jvp_reads_primal = True  # torch's tangent reads the primal: its gradient is zeros


def ldexp(input, other):
    """input * 2 ** other (LdexpBackward0).

    Args:
        input: the mantissas.
        other: the exponents (a tensor).

    Example:
        >>> framework.ldexp(framework.tensor([1.0]), framework.tensor([3]))
        tensor([8.])
    """
    _need_tensor("ldexp", "other", 2, other)
    return Ldexp.apply(input, other)


class Nextafter(Op):
    """The next float after input towards other; torch passes the gradient (and tangent) of
    input through where input != other (0 where they are equal) and gives other a zero
    gradient (and no tangent)."""

    promote = True
    saves_inputs = True

    def forward(self, a, b):
        """The next float after a towards b."""
        return self.xp.nextafter(a, b)

    def backward(self, grad):
        """input's gradient passed through where a != b (0 where equal); other's is zero."""
        from .unary import _zeros

        a, b = self.inputs
        return grad.where(a != b, _zeros(grad)), _zeros(grad)

    def jvp(self, ta, tb):
        """input's tangent passed through where a != b (0 where equal); none from other."""
        from .unary import _zeros

        a, b = self._fw_args
        return None if ta is None else ta.where(a != b, _zeros(ta))


def nextafter(input, other):
    """The next representable floating value after input in the direction of other.

    Args:
        input: a floating tensor.
        other: the direction (broadcast).

    Example:
        >>> framework.nextafter(framework.tensor([1.0]), framework.tensor([2.0])) > 1
        tensor([True])
    """
    _need_tensor("nextafter", "other", 2, other)
    kind = dtypes.result_type([input._data, other._data], [input.dim(), other.dim()], [])
    broadcast_shapes(input.shape, other.shape)  # torch's TensorIterator: shapes before dtypes
    refuse(kind, "biu", "nextafter_cpu")
    return Nextafter.apply(input, other)


def logdet(input):
    """log det(A) of square matrices (NaN for a negative determinant), via slogdet as torch.

    Args:
        input: (..., n, n) floating tensor.

    Example:
        >>> framework.logdet(framework.eye(2) * 2)
        tensor(1.3863)
    """
    from ..linalg import slogdet
    from .elementwise import where

    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        a, b = (input.shape[-2], input.shape[-1]) if input.dim() >= 2 else (0, 0)
        raise RuntimeError(
            f"logdet: A must be batches of square matrices, but they are {a} by {b} matrices"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "logdet: Expected a floating point or complex tensor as input. Got "
            f"{dtypes.scalar_type_name(input._data.dtype)}"
        )
    sign, logabsdet = slogdet(input)
    return where(sign == -1.0, math.nan, logabsdet)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D tensor: columns x ** (N-1), ..., x, 1 (or increasing).

    Args:
        x: a 1-D tensor.
        N: the number of columns (default len(x)).
        increasing: powers from 0 upwards.

    Example:
        >>> framework.vander(framework.tensor([1, 2, 3]), N=3)
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if vmap_hook[0]:  # under vmap: the same composite on the physical tensor, once
        from ..func._paths import on_physical

        out = on_physical(lambda v: _vander(v, n, increasing), x)
        if out is not NotImplemented:
            return out
    return _vander(x, n, increasing)


def _vander(x, n, increasing):
    """torch's composite (the graph its vander records) along x's last dim: powers 1, x, x*x,
    ... by cumprod of x copied into a fresh result (leading dims a batch)."""
    from ..creation import empty
    from .cumulative import cumprod

    np_dt = dtypes.result_type([x._data, x.xp.zeros(1, dtype="int64")], [1, 1], [])
    out = empty(tuple(x.shape) + (n,), dtype=dtypes.from_numpy_dtype(np_dt), device=x.device)
    if n > 0:
        out.select(-1, 0).fill_(1)
        if n > 1:
            out[..., 1:].copy_(x.unsqueeze(-1))
            out[..., 1:].copy_(cumprod(out[..., 1:], -1))
    return out if increasing else out.flip(-1)


def combinations(input, r=2, with_replacement=False):
    """All length-r combinations of a 1-D tensor's elements (itertools.combinations order).

    Args:
        input: a 1-D tensor.
        r: the combination length.
        with_replacement: allow repeated elements.

    Example:
        >>> framework.combinations(framework.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    from ..creation import empty
    from .products import meshgrid
    from .selection import masked_select
    from .join import stack

    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=input.dtype, device=input.device)
    xp, n = input.xp, input.shape[0]
    grids = meshgrid(*([input] * r), indexing="ij")
    idx = xp.indices((n,) * r) if n else xp.zeros((r,) + (0,) * r, dtype="int64")
    mask = xp.ones((n,) * r, dtype=bool)
    for a, b in zip(idx[:-1], idx[1:]):  # torch's _triu_mask: i1 < i2 < ... (or <=)
        mask &= (a <= b) if with_replacement else (a < b)
    m = _wrap(mask, input)
    return stack([masked_select(g, m) for g in grids], 1)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-dim tensor holding the number s (default float dtype).

    Args:
        s: the value.
        dtype: the dtype (default: the default float dtype).
        device: where to put it.
        requires_grad: record operations on it.

    Example:
        >>> framework.scalar_tensor(3)
        tensor(3.)
    """
    from ..creation import tensor

    dtype = dtype or dtypes.get_default_dtype()
    if not isinstance(s, Tensor):  # torch fills one element: no float16/bfloat16 range check
        s = check_scalar_fits(s, dtypes.to_numpy_dtype(dtype), reduced_float=False)
    return tensor(s, dtype=dtype, device=device, requires_grad=requires_grad)


@per_sample_under_vmap
def detach(input):
    """A tensor sharing input's data, cut from the graph (the function form of .detach()).

    Args:
        input: the tensor.

    Example:
        >>> framework.detach(framework.ones(2, requires_grad=True)).requires_grad
        False
    """
    return input.detach()


def _check_buffer(size, item, count, offset):
    """torch's tensor_frombuffer checks of the buffer's byte length, count and byte offset."""
    if size <= 0 or count == 0:
        raise ValueError(f"both buffer length ({size}) and count ({count}) must not be 0")
    if not 0 <= offset < size:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({size} bytes) minus 1"
        )
    if count <= 0 and (size - offset) % item:
        raise ValueError(
            f"buffer length ({size - offset} bytes) after offset ({offset} bytes) must be a "
            f"multiple of element size ({item})"
        )
    n = (size - offset) // item if count < 0 else count
    if offset + n * item > size:
        raise ValueError(
            f"requested buffer length ({n} * {item} bytes) after offset ({offset} bytes) must "
            f"not be greater than actual buffer length ({size} bytes)"
        )


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor viewing the memory of a Python buffer (bytes, bytearray, array, ...).

    Args:
        buffer: an object exposing the buffer protocol.
        dtype: the element dtype.
        count: how many elements to read (-1: all after offset).
        offset: bytes to skip first.
        requires_grad: record operations on it.

    Example:
        >>> framework.frombuffer(bytearray(8), dtype=framework.int32)
        tensor([0, 0], dtype=torch.int32)
    """
    import warnings

    import numpy as np

    np_dt = dtypes.to_numpy_dtype(dtype)
    size = memoryview(buffer).nbytes
    if memoryview(buffer).readonly:
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor. You may want to copy the buffer to protect its data or "
            "make it writable before converting it to a tensor. This type of warning will be "
            "suppressed for the rest of this program.",
            UserWarning,
            stacklevel=2,
        )
    _check_buffer(size, np_dt.itemsize, count, offset)
    from ..creation import _finish

    arr = np.frombuffer(buffer, dtype=np_dt, count=count if count > 0 else -1, offset=offset)
    return _finish(arr, None, requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of the given size and strides (in elements).

    Args:
        size: the shape.
        stride: the stride of each dimension.
        dtype: the dtype (default: the default float dtype).
        device: where to put it.
        requires_grad: record operations on it.

    Example:
        >>> framework.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    from ..backend import as_device, xp_for
    from ..creation import _factory_requires_grad

    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(stride)})"
        )
    if all(size) and any(st < 0 for st in stride):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    dev = as_device(device)
    xp = xp_for(dev)
    np_dt = dtypes.to_numpy_dtype(dtype or dtypes.get_default_dtype())
    n = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = xp.zeros(max(n, 0), dtype=np_dt)
    item = base.itemsize
    arr = xp.lib.stride_tricks.as_strided(base, size, tuple(st * item for st in stride))
    out = Tensor._make(arr, dev)
    if requires_grad:
        _factory_requires_grad(out)
    return out
