"""Vector and matrix norms: linalg.vector_norm (one primitive), norm, matrix_norm, linalg.norm."""

import math


from .. import dtypes
from .._errors import float_input
from ..autograd.op import Op
from ._norm_kernel import torch_norm
from .loss import _quiet
from .reduction import _axis
from .shape import _dim


def _kept(t, axes, keepdim):
    """Reinsert reduced dims (size 1) so t broadcasts against the input."""
    if keepdim or axes is None:
        return t
    for a in sorted(axes):
        t = t.unsqueeze(a)
    return t


def _numpy_p_norm(xp, a, ord, axes):
    """The p-norm of |x| = `a` over `axes` (kept) in NumPy's summation order."""
    if ord == 1:
        return a.sum(axis=axes, keepdims=True)
    if ord == 2:
        return xp.sqrt((a * a).sum(axis=axes, keepdims=True))
    with _quiet(xp):
        return (a**ord).sum(axis=axes, keepdims=True) ** (1.0 / ord)


def _numpy_norm(xp, x, ord, axes, single):
    """The `ord`-norm of x over `axes` (kept) where torch's order is not replayed; `single`:
    one element per norm, where torch returns |x| (no square to overflow)."""
    a = xp.abs(x)
    if single:
        return a
    if ord == math.inf:
        if not a.size:
            return xp.zeros([1 if i in axes else n for i, n in enumerate(a.shape)], dtype=a.dtype)
        return a.max(axis=axes, keepdims=True)
    if ord == -math.inf:
        return a.min(axis=axes, keepdims=True)
    if ord == 0:
        return (a != 0).sum(axis=axes, keepdims=True).astype(x.dtype)
    return _numpy_p_norm(xp, a, ord, axes)


class LinalgVectorNorm(Op):
    saves_inputs = True
    saves_output = True
    dims_listed = False  # (torch.norm's node gets its dims listed)

    def forward(self, x, ord=2, dim=None, keepdim=False, reduce_scalar=False):
        """The `ord`-norm of x over `dim` (all dims when None); `reduce_scalar`: dim=() of a
        0-dim tensor, which torch takes as an all-reduce (|x|, not a reduction over dim -1)."""
        xp = self.xp
        axes = tuple(range(x.ndim)) if dim is None else dim
        self.ord, self.axes, self.keepdim = ord, axes, keepdim
        # torch's norm_backward unsqueezes the reduced dims back only when they are listed
        # (linalg.vector_norm's dim=None or (): its 0-dim norm broadcasts as it is)
        self.listed = dim is not None or self.dims_listed
        one = ord != 0 and x.size and math.prod(x.shape[i] for i in axes) == 1
        p_norm = not (one and not reduce_scalar) and ord not in (0, math.inf, -math.inf)
        out = torch_norm(x, ord, axes) if p_norm and self.half is None else None
        if out is None:  # |x| itself, its max, min or count, or NumPy's p-norm
            out = _numpy_norm(xp, x, ord, axes, one and not reduce_scalar)
        return (
            out if keepdim else out.reshape([n for i, n in enumerate(out.shape) if i not in axes])
        )

    def backward(self, grad):
        (x,) = self.inputs
        return self._norm_backward(x, grad)

    @property
    def fills_grad_in_place(self):
        """torch's norm_backward runs `scale_v.masked_fill_` on grad / norm^(p-1) for
        1 < p < 2 and 2 < p < inf (so a ZeroTensor gradient raises, see autograd.engine)."""
        return 1 < self.ord < math.inf and self.ord != 2

    def _norm_backward(self, x, grad):
        """torch's norm_backward: the gradient of the ord-norm of x (None for ord 0)."""
        p = self.ord
        norm, g = self.output, grad
        if self.listed:
            norm, g = _kept(norm, self.axes, self.keepdim), _kept(g, self.axes, self.keepdim)
        if p == 0:
            return None  # torch leaves the gradient undefined
        if p == 1:
            return x.sgn() * g
        # torch's masked_fill_ (MaskedFillBackward0), not a where: a where's second operand
        # adds nodes, which reorders the sums of a second backward (float32 bits)
        if p == 2:  # torch: grad * (self / norm).masked_fill_(norm == 0, 0)
            return g * (x / norm).masked_fill(norm == 0, 0)
        if abs(p) == math.inf:  # torch's mask also takes NaNs (sgn(NaN) is 0)
            a = x.abs()
            mask = (a == norm) | a.isnan()
            count = mask.sum(dim=self.axes, keepdim=True)
            return x.sgn() * ((g / count) * mask)
        if p < 1:
            scaled = x.sgn() * (x.abs() ** (p - 1)).masked_fill(x == 0, 0)
            return scaled * g * norm ** (1 - p)
        # torch's two forms: sgn(x) |x|^(p-1) below 2 (0, not 0 * inf, at x = 0)
        scaled = x.sgn() * x.abs() ** (p - 1) if p < 2 else x * x.abs() ** (p - 2)
        return scaled * (g / norm ** (p - 1)).masked_fill(norm == 0, 0)

    def jvp(self, t):
        """The slope times the tangent, summed (torch's norm_jvp); 0 for the count ord=0."""
        if self.ord == 0:  # (a constant: torch's zeros have no history)
            return self.result.detach() * 0
        return self.jvp_reduction(t)


class Norm(LinalgVectorNorm):
    """torch.norm's own node (NormBackward1), used by pairwise_distance."""

    node_name = "NormBackward1"
    dims_listed = True


def _empty_dims(dim):
    return isinstance(dim, (tuple, list)) and not dim


def _norm_dims(dim, ndim):
    if dim is None:
        return None
    return _axis(dim, max(ndim, 1)) if not _empty_dims(dim) else tuple(range(ndim))


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, _op=LinalgVectorNorm):
    """The `ord`-norm of x over `dim` (all elements by default), treating it as a vector.

    Args:
        x: floating tensor.
        ord: 2 (default), 1, inf, -inf, 0 (count of non-zeros) or any real p.
        dim: dims to reduce (None: all).
        keepdim: keep reduced dims with size 1.
        dtype: cast x to this dtype first.

    Example:
        >>> framework.linalg.vector_norm(framework.tensor([3., 4.]))
        tensor(5.)
    """
    if dtype is None:
        float_input("linalg.vector_norm", x)
    else:
        x = x.to(dtype)
    # a max/min has no identity on an empty reduction (checked before repeated dims, as torch)
    if ord < 0 or ord == math.inf:
        if dim is None or x.dim() == 0 or (isinstance(dim, (tuple, list)) and not dim):
            if x.numel() == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {ord:g} norm on an "
                    "empty tensor because the operation does not have an "
                    "identity"
                )
        else:
            for d in (dim,) if isinstance(dim, int) else dim:
                if x.shape[_dim(d, x.dim())] == 0:
                    raise RuntimeError(
                        f"linalg.vector_norm cannot compute the {ord:g} norm on "
                        f"the dimension {d}because this dimension is empty and "
                        "the operation does not have an identity"
                    )
    axes = None if _empty_dims(dim) else _norm_dims(dim, x.dim())  # (() is all, as None)
    if x.dim() == 0:  # dim 0 / -1 of a 0-dim tensor: its one element, which torch then
        axes = None  # reduces as any (|x|^p summed, ^(1/p): 1e30 overflows for p > 1);
        # dim=() is torch's all-reduce: its one element is |x| (seed 24050897)
        if dim is not None and _op is LinalgVectorNorm and not _empty_dims(dim):
            return _op.apply(x, ord=float(ord), dim=axes, keepdim=keepdim, reduce_scalar=True)
    return _op.apply(x, ord=float(ord), dim=axes, keepdim=keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Matrix norm over the two dims `dim`: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2.

    Args:
        A (Tensor): a matrix ``(m, n)`` or a batch of them ``(*, m, n)``.
        ord (int, inf, -inf, 'fro' or 'nuc', optional): the order of the norm. Default: ``'fro'``.
        dim (tuple of ints, optional): the two dimensions holding the matrices. Default: ``(-2,
            -1)``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.linalg.matrix_norm(framework.eye(2))
        tensor(1.4142)
    """
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if dtype is None:
        float_input("linalg.matrix_norm", A)
    else:
        A = A.to(dtype)
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
        )
    d0, d1 = (_axis(d, A.dim())[0] for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        if A.dtype.itemsize == 2:
            raise RuntimeError(
                "linalg.matrix_norm: Low precision dtypes not supported. Got "
                + dtypes.scalar_type_name(A._data.dtype)
            )
        from .linalg_ext import svdvals

        s = svdvals(A.movedim((d0, d1), (-2, -1)))
        out = s.sum(-1, keepdim=keepdim) if ord == "nuc" else _max_min(s, ord, -1, keepdim)
        if keepdim:  # torch: the reduction keeps its dim, one unsqueeze, then the permutation
            perm = [i for i in range(A.dim()) if i not in (d0, d1)] + [d0, d1]
            out = out.unsqueeze(-1).permute([perm.index(i) for i in range(len(perm))])
        return out
    if ord in (1, -1, math.inf, -math.inf):
        sum_dim, red_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
        if not keepdim and red_dim > sum_dim:
            red_dim -= 1
        s = vector_norm(A, 1, (sum_dim,), keepdim)  # torch's: a 1-norm over one dim
        return _max_min(s, ord, red_dim, keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def _max_min(s, ord, dim, keepdim):
    """amax (ord > 0) or amin of the non-negative s over dim; as torch, the max over an empty
    dim is a zero that does not require grad (the min raises amin's error)."""
    if ord < 0:
        return s.amin(dim, keepdim=keepdim)
    if s.shape[dim] == 0:
        from ..creation import zeros

        shape = list(s.shape)
        shape[dim] = 1
        if not keepdim:
            del shape[dim]
        return zeros(shape, dtype=s.dtype, device=s.device)
    return s.amax(dim, keepdim=keepdim)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """linalg.norm: a vector norm for 1 dim (or ord None with dim None), else a matrix norm.

    Args:
        A (Tensor): the input tensor.
        ord (int, float, inf, -inf, 'fro' or 'nuc', optional): the order of the norm. Default:
            ``None`` (2-norm of the flattened input, or Frobenius for a matrix dim).
        dim (int or tuple of ints, optional): one dimension (vector norm) or two (matrix norm).
            Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.linalg.norm(framework.tensor([3.0, 4.0]))
        tensor(5.)
        >>> framework.linalg.norm(framework.tensor([[1.0, 2.0], [3.0, 4.0]]), ord='fro')
        tensor(5.4772)
    """
    if dim is not None:
        dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if ord is None:  # torch: always the vector 2-norm (the Frobenius norm over two dims)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if (
        isinstance(ord, str)
        or (dim is not None and len(dim) == 2)
        or (dim is None and A.dim() == 2)
    ):
        return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    if dim is None and A.dim() != 1:
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be "
            f"1D or 2D. Got {A.dim()}D."
        )
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm (deprecated in torch for linalg.norm): 'fro' or a number p, over dim.

    Args:
        input (Tensor): the input tensor.
        p (int, float, inf, -inf, 'fro' or 'nuc', optional): the order of the norm. Default:
            ``'fro'``.
        dim (int, tuple of ints or list, optional): the dimension(s) to reduce; all when ``None``.
            Default: ``None``.
        keepdim (bool): whether the output keeps the reduced dimension(s) with size 1. Default:
            ``False``.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.tensor([3., 4.]).norm()
        tensor(5.)
    """
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, dim, keepdim, dtype=dtype)
        return matrix_norm(input, p, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


__all__ = ["norm"]
