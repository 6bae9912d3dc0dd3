"""More torch top-level helpers: float_power, copysign, chain_matmul, cov/corrcoef, logspace,
and the dtype queries result_type, promote_types, can_cast."""

import warnings

import numpy as np

from .. import dtypes
from ..autograd.op import Op
from ..tensor import Tensor
from .unary import _float, _zeros

__all__ = [
    "can_cast",
    "chain_matmul",
    "copysign",
    "corrcoef",
    "cov",
    "float_power",
    "heaviside",
    "logspace",
    "promote_types",
    "result_type",
]


def float_power(input, exponent):
    """input ** exponent computed in float64 (both are cast to double first).

    Args:
        input: base (tensor or number).
        exponent: exponent (tensor or number).

    Example:
        >>> framework.float_power(framework.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=torch.float64)
    """
    from .elementwise import pow as _pow

    f64 = dtypes.float64
    if isinstance(input, Tensor):
        base = input.to(f64)
        return _pow(base, exponent.to(f64) if isinstance(exponent, Tensor) else float(exponent))
    return _pow(float(input), exponent.to(f64))


class Copysign(Op):
    """The magnitudes of ``a`` with the signs of ``b`` (integers give floats)."""

    promote = True
    saves_inputs = True
    saves_output = True

    def forward(self, a, b):
        """``copysign(a, b)`` in floating point."""
        return self.xp.copysign(_float(a), _float(b))

    def backward(self, grad):
        """``grad * copysign(a, b) / a`` for ``a`` (0 where a is 0) and zeros for ``b``."""
        a, b = self.inputs
        ratio = (self.output / a).where(a != 0, _zeros(a))
        return grad * ratio, (_zeros(b) if self.needs_input_grad[1] else None)

    jvp = Op.jvp_elementwise


class CopysignScalar(Copysign):
    """copysign with a number as ``other`` (node CopysignBackward1)."""

    no_edge = (1,)  # the Python scalar
    node_name = "CopysignBackward1"

    def backward(self, grad):
        """``grad * copysign(a, b) / a`` (0 where a is 0); the number gets none."""
        a, _ = self.inputs
        return grad * (self.output / a).where(a != 0, _zeros(a)), None


def copysign(input, other):
    """input's magnitudes with other's signs (elementwise; integers give floats).

    Args:
        input: magnitudes.
        other: signs (tensor or number).

    Example:
        >>> framework.copysign(framework.tensor([1., -2.]), -1.)
        tensor([-1., -2.])
    """
    if isinstance(other, Tensor):
        return Copysign.apply(input, other)
    return CopysignScalar.apply(input, other)


def chain_matmul(*matrices, out=None):
    """Product of 2-D matrices in the cheapest order (deprecated in torch: linalg.multi_dot).

    Args:
        *matrices: two-dimensional tensors with chained shapes.
        out: not supported (must be None).

    Example:
        >>> framework.chain_matmul(framework.eye(2), framework.ones(2, 3)).shape
        torch.Size([2, 3])
    """
    from ..linalg import multi_dot

    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
        "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
        "rather than multiple parameters.",
        UserWarning,
        stacklevel=2,
    )
    for m in matrices:  # torch's checkAllSameDim comes first
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(list(matrices))  # torch's ends in a view (ViewBackward0)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in input's rows (observations in columns).

    Args:
        input: a 1-D (one variable) or 2-D (variables x observations) tensor.
        correction: subtracted from the (weighted) observation count (1: Bessel's).
        fweights: integer frequency weights per observation (optional).
        aweights: observation weights (optional).

    Example:
        >>> framework.cov(framework.tensor([[0., 1., 2.], [2., 1., 0.]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    if input.dim() > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.dim()} dimensions"
        )
    if input.dtype == dtypes.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    _check_weights(fweights, "fweights", n, lambda d: not d.is_floating_point and d != dtypes.bool_)
    _check_weights(aweights, "aweights", n, lambda d: d.is_floating_point)
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = n
        avg = x.sum(1) / w_sum
        norm = w_sum - correction
    else:
        w_sum = w.sum()
        if not bool(w_sum.ne(0)):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
        if correction != 0 and aweights is not None:
            if fweights is None and n == 1 and correction == 1:
                norm = 0  # torch's exact 0 for this corner (no rounding of w * w / w)
            else:
                norm = w_sum - correction * (w * aweights).sum() / w_sum
        else:
            norm = w_sum - correction
    if bool(norm <= 0):
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm = norm * 0 + 0  # zero_(): +0, never -0
    if n == 1 and (fweights is None) != (aweights is None):
        x.zero_()  # torch 2.13 zeroes one observation with one weight in place (input too)
        if not x.dtype.is_floating_point:
            x = x.to(dtypes.float32)  # and makes an integer one float32 (not w's dtype)
    else:
        x = x - avg.unsqueeze(1)
    if w is not None and (x * w).dtype != x.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{dtypes.cpp_type_name(x._data.dtype)} != {dtypes.cpp_type_name((x * w)._data.dtype)}"
        )
    other = (x if w is None else x * w).t()
    d = x._data
    from ._mkl_linear import _amp, _amp_in_use, _MmMKL

    if (
        type(d) is np.ndarray
        and d.dtype.char in "fd"
        and other._data.dtype == d.dtype
        and not (_amp_in_use[0] and _amp.active)  # (autocast: mm's lower-precision list)
    ):  # torch's mm is MKL's at any size: NaN and inf where the norm is 0 follow its rounding
        c = _MmMKL.apply(x, other)  # (fuzz seed 550010846)
    else:
        c = x.mm(other)
    return (c / norm).squeeze()


def _check_weights(w, name, n, kind_ok):
    """torch's checks of cov's fweights / aweights (dims, dtype, count, sign)."""
    if w is None:
        return
    if w.dim() > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w.dim()} dimensions"
        )
    if not kind_ok(w.dtype):
        what = "integral" if name == "fweights" else "floating point"
        raise RuntimeError(
            f"cov(): expected {name} to have {what} dtype but got {name} with "
            f"{dtypes.scalar_type_name(w._data.dtype)} dtype"
        )
    if w.numel() != n:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {n}"
        )
    if n and not bool(w.min() >= 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def corrcoef(input):
    """Pearson correlation coefficients of the variables in input's rows, clipped to [-1, 1].

    Args:
        input: a 1-D or 2-D (variables x observations) tensor.

    Example:
        >>> framework.corrcoef(framework.tensor([[0., 1., 2.], [2., 1., 0.]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    if input.dim() > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input.dim()} dimensions"
        )
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.reshape(-1, 1)
    c = c / std.reshape(1, -1)
    return c.clip(-1, 1)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """`steps` values base ** e for exponents e evenly spaced from start to end.

    Args:
        start: the first exponent.
        end: the last exponent.
        steps: the number of values.
        base: the base (default 10).
        dtype: the result dtype (default: the default float dtype).
        device: where to put the result.
        requires_grad: record operations on the result.

    Example:
        >>> framework.logspace(0, 2, 3)
        tensor([  1.,  10., 100.])
    """
    from .. import backend
    from .._errors import check_scalar_fits, refuse
    from ..creation import _number, full, tensor

    start, end = _number(start), _number(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = dtypes.to_numpy_dtype(dtype or dtypes.get_default_dtype())
    xp = backend.xp_for(backend.as_device(device))
    f64 = xp.float64
    if steps <= 1:  # torch fills pow(base, start) (a checked conversion)
        with xp.errstate(all="ignore"):
            value = float(xp.power(f64(base), f64(start)))
        check_scalar_fits(value, dt, reduced_float=False)
        return full((steps,), value, dtype=dtype, device=device, requires_grad=requires_grad)
    refuse(dt, "b", "logspace_cpu")
    # torch's kernel: start and end converted to the dtype (an integer one truncates), the
    # step in double from their difference in the dtype, exponents stepping up from start in
    # the first half and down from end in the second, pow in double, then a C cast
    s, e = check_scalar_fits(start, dt), check_scalar_fits(end, dt)
    if dt.kind in "iu":
        s, e = int(s), int(e)
        step = float(e - s) / (steps - 1)
    else:
        s, e = xp.asarray(s, dtype=dt), xp.asarray(e, dtype=dt)
        step = float(e - s) / (steps - 1)
        s, e = float(s), float(e)
    i = xp.arange(steps, dtype=f64)
    exps = xp.where(i < steps // 2, s + step * i, e - step * (steps - 1 - i))
    with xp.errstate(all="ignore"):
        vals = xp.power(f64(base), exps)
        if dt.kind in "iu":  # double to int as x86's cvttsd2si (narrow types via int32)
            vals = vals.astype(xp.int64 if dt.itemsize == 8 else xp.int32).astype(dt)
    out = tensor(vals, dtype=dtype or dtypes.get_default_dtype(), device=device)
    return out.requires_grad_() if requires_grad else out


def _np(d):
    return dtypes.to_numpy_dtype(d)


def result_type(tensor1, tensor2):
    """The dtype torch's arithmetic would give for these two operands (tensors or numbers).

    Args:
        tensor1: a tensor or a number.
        tensor2: a tensor or a number.

    Example:
        >>> framework.result_type(framework.tensor([1, 2]), 1.0)
        torch.float32
    """
    arrays, ndims, scalars = [], [], []
    for t in (tensor1, tensor2):
        if isinstance(t, Tensor):
            arrays.append(t._data)
            ndims.append(t.dim())
        else:
            scalars.append(t)
    return dtypes.from_numpy_dtype(dtypes.result_type(arrays, ndims, scalars))


def promote_types(type1, type2):
    """The smallest dtype both type1 and type2 convert to without losing their category.

    Args:
        type1: a dtype.
        type2: a dtype.

    Example:
        >>> framework.promote_types(framework.int32, framework.float32)
        torch.float32
    """
    return dtypes.from_numpy_dtype(dtypes._combine(_np(type1), _np(type2)))


def can_cast(from_, to):
    """Whether torch's type promotion allows casting ``from_`` to ``to`` (no float to int,
    nothing to bool but bool).

    Args:
        from_: the source dtype.
        to: the target dtype.

    Example:
        >>> framework.can_cast(framework.float64, framework.int32)
        False
    """
    return dtypes._kind(_np(from_)) <= dtypes._kind(_np(to))


def _heaviside(xp, x, v):
    return xp.where(x == 0, v, (x > 0).astype(x.dtype)).astype(x.dtype, copy=False)


def heaviside(input, values):
    """The Heaviside step: 0 where input < 0, 1 where input > 0, `values` where input == 0.

    Args:
        input: the tensor.
        values: the value at zero (a tensor of input's dtype, broadcast).

    Example:
        >>> framework.heaviside(framework.tensor([-1, 0, 3]), framework.tensor(7))
        tensor([0, 7, 1])
    """
    from .elementwise import NotImplementedBackward

    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return NotImplementedBackward.apply(input, values, fn=_heaviside, aten="heaviside")
