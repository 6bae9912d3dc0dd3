"""Scans along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp."""

from .. import dtypes
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op
from ..tensor import Tensor
from .extrema import return_types
from .shape import _dim


def _scan_dtype(x, dtype):
    if dtype is not None:
        return dtypes.to_numpy_dtype(dtype)
    return dtypes.int64.np if x.dtype.kind in "biu" else x.dtype


def _acc(dtype):
    """The accumulation dtype of torch's CPU scans of `dtype` (its acc_type): float for
    float16 and bfloat16, double for the other floats."""
    if dtype.itemsize == 2 and dtype.kind in "fV":
        return "float32"
    return "float64" if dtype.kind == "f" else dtype


def _reverse_cumsum(t, dim):
    return t.flip(dim).cumsum(dim).flip(dim)


class Cumsum(Op):
    def forward(self, x, dim=0, dtype=None):
        self.dim, self.in_dtype = dim, (x.dtype if self.half is None else self.half)
        out = x.astype(dtype, copy=False).reshape(x.shape or (1,))
        out = self.xp.cumsum(out, axis=dim, dtype=_acc(dtype))  # torch's acc_type
        if x.ndim and out.dtype.kind == "f":
            out += 0.0  # from an accumulator of +0: a leading -0 sums to +0 (not for 0-dim)
        return out.astype(dtype, copy=False).reshape(x.shape)

    def backward(self, grad):
        if grad.dtype.np != self.in_dtype and self.in_dtype.kind == "f":
            grad = grad._cast(self.in_dtype)  # torch casts back first, then scans
        return _reverse_cumsum(grad, self.dim) if grad.dim() else grad

    jvp = Op.jvp_linear


def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along `dim`: out[i] = input[0] + ... + input[i].

    Args:
        input: the tensor.
        dim: the dim to scan.
        dtype: cast the input to this dtype first (integers default to int64).

    Example:
        >>> framework.tensor([1, 2, 3]).cumsum(0)
        tensor([1, 3, 6])
    """
    d = _dim(dim, max(input.dim(), 1))
    return Cumsum.apply(input, dim=d, dtype=_scan_dtype(input._data, dtype))


class Cumprod(Op):
    saves_inputs = True
    saves_output = True

    def forward(self, x, dim=0, dtype=None):
        self.dim = dim
        out = self.xp.cumprod(
            x.astype(dtype, copy=False).reshape(x.shape or (1,)), axis=dim, dtype=_acc(dtype)
        )
        return out.astype(dtype, copy=False).reshape(x.shape)

    def backward(self, grad):
        (x,) = self.inputs
        d = self.dim
        if x.dim() == 0 or x.numel() <= 1 or x.shape[d] == 1:
            return grad  # torch returns the gradient as it is (no 0 * inf)
        if not (x._data == 0).any():
            return _reverse_cumsum(grad * self.output, d) / x
        if is_grad_enabled():  # create_graph: the (n, n) scan, exact second derivatives
            return _cumprod_grad_with_zeros(x, grad, d)
        return _cumprod_grad_first_zero(x, grad, self.output, d)

    jvp = Op.jvp_transpose
    jvp_reads_primal = True  # (torch's cumprod_jvp reads the input)


def _cumprod_grad_first_zero(x, grad, out, d):
    """torch's O(n) cumprod backward with zeros: before the first zero z1 the division formula
    over those positions only; at z1 prod(x[:z1]) * (g[z1] + sum_{z1<k<z2} g[k] prod(x[z1+1:k+1]));
    after it 0."""
    zero = x == 0
    count = zero.long().cumsum(d)
    before, between = count == 0, (count == 1) & ~zero
    first = zero & (count == 1)
    one = x.new_ones(())
    g_before = _reverse_cumsum((out * grad).where(before, 0.0), d) / x.where(before, one)
    tail = (grad * x.where(between, one).cumprod(d)).where(between, 0.0).sum(d, keepdim=True)
    prev = x.where(before, one).prod(d, keepdim=True)
    g_first = prev * (grad + tail)
    return g_before.where(before, g_first.where(first, 0.0))


def _cumprod_grad_with_zeros(x, grad, d):
    """torch's O(n^2) cumprod backward under create_graph (its derivative is cumprod's second
    derivative): slice k of a zeros gradient is copied in place from
    sum_{j>=k} g_j prod_{i<=j, i!=k} x_i, as torch's loop (a CopySlices node per slice)."""
    from .join import cat

    n = x.shape[d]
    ones_size = list(x.shape)
    ones_size[d] = 1
    ones = grad.new_ones((1,)).expand(*ones_size)
    out = grad.new_zeros(tuple(x.shape))
    for k in range(n):
        if k == 0:
            omitted = cat([ones, x.narrow(d, 1, n - 1).cumprod(d)], d)
        elif k == n - 1:
            omitted = x.narrow(d, 0, k).prod(d, keepdim=True)
        else:
            until = x.narrow(d, 0, k).prod(d, keepdim=True)
            after = x.narrow(d, k + 1, n - k - 1).cumprod(d)
            omitted = cat([until, until.expand_as(after) * after], d)
        out.select(d, k).copy_((grad.narrow(d, k, n - k) * omitted).sum(d))
    return out


def cumprod(input, dim, *, dtype=None):
    """Cumulative product along `dim` (gradient exact where the input has zeros).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to scan along.
        dtype (:class:`framework.dtype`, optional): the desired data type of the returned tensor.
            Default: ``None`` (inferred, or the default dtype).

    Example:
        >>> framework.tensor([1, 2, 3]).cumprod(0)
        tensor([1, 2, 6])
    """
    d = _dim(dim, max(input.dim(), 1))
    return Cumprod.apply(input, dim=d, dtype=_scan_dtype(input._data, dtype))


class _CumExtreme(Op):
    non_differentiable = (1,)

    def forward(self, x, dim=0):
        xp = self.xp
        self.dim, self.in_shape = dim, x.shape
        if not x.size:  # torch's backward returns the (empty) input: its gradient has a tangent
            self.fw_zero_grads = True
        a = xp.moveaxis(x.reshape(x.shape or (1,)), dim, -1)
        n = a.shape[-1]
        pos = xp.broadcast_to(xp.arange(n), a.shape)
        better = (lambda new, old: new >= old) if self.is_max else (lambda new, old: new <= old)
        vals, idx = a.copy(), xp.zeros(a.shape, dtype=xp.int64)
        for j in range(1, n):  # torch takes the later index on ties, and NaN sticks: each
            prev_v, cur = vals[..., j - 1], a[..., j]  # later NaN takes its own index
            take = better(cur, prev_v)
            if a.dtype.kind == "f":
                take = xp.isnan(cur) | (take & ~xp.isnan(prev_v))
            vals[..., j] = xp.where(take, cur, prev_v)
            idx[..., j] = xp.where(take, pos[..., j], idx[..., j - 1])
        self.index = xp.moveaxis(idx, -1, dim).reshape(x.shape)
        return xp.moveaxis(vals, -1, dim).reshape(x.shape), self.index

    saves = ("index",)

    def backward(self, grad, _=None):
        from ..creation import zeros

        if grad.dim() == 0:
            return grad
        z = zeros(self.in_shape, dtype=grad.dtype, device=grad.device)
        return z.scatter_add(self.dim, Tensor._make(self.index, grad.device), grad)

    jvp = Op.jvp_transpose


class Cummax(_CumExtreme):
    is_max = True


class Cummin(_CumExtreme):
    is_max = False


class _OfEmpty:
    """cummax/cummin of an empty input: torch's cummaxmin_backward returns the input itself,
    so with create_graph a leaf's gradient is the leaf (it requires grad, no grad_fn), and
    differentiating it again gives the upstream gradient."""

    saves_inputs = True

    def backward(self, grad, _=None):
        """The (empty) input itself."""
        return self.inputs[0]


class CummaxOfEmpty(_OfEmpty, Cummax):
    """cummax of an empty input: its backward returns the input itself, as torch's."""

    node_name = "CummaxBackward0"


class CumminOfEmpty(_OfEmpty, Cummin):
    """cummin of an empty input: its backward returns the input itself, as torch's."""

    node_name = "CumminBackward0"


def cummax(input, dim):
    """Running maximum along `dim` and the index where it was reached: (values, indices).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to scan along.

    Example:
        >>> framework.tensor([1, 3, 2]).cummax(0).values
        tensor([1, 3, 3])
    """
    op = Cummax if input.numel() else CummaxOfEmpty
    v, i = op.apply(input, dim=_cum_dim(input, dim, "cummax"))
    return return_types.cummax(v, i)


def _cum_dim(input, dim, name):
    """cummax/cummin's dim: torch wraps (and checks) it only for a non-empty input."""
    if input.dim() == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    return _dim(dim, max(input.dim(), 1)) if input.numel() else 0


def cummin(input, dim):
    """Running minimum along `dim` and the index where it was reached: (values, indices).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to scan along.

    Example:
        >>> framework.cummin(framework.tensor([3.0, 1.0, 2.0]), dim=0)
        torch.return_types.cummin(
        values=tensor([3., 1., 1.]),
        indices=tensor([0, 1, 1]))
    """
    op = Cummin if input.numel() else CumminOfEmpty
    v, i = op.apply(input, dim=_cum_dim(input, dim, "cummin"))
    return return_types.cummin(v, i)


__all__ = ["cumsum", "cumprod", "cummax", "cummin"]
