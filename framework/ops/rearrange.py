"""Rearranging ops that keep every value: tril/triu masks, flip, roll, rot90."""

from ..autograd.op import Op
from .shape import _dim


def _tri_mask(xp, shape, diagonal, lower):
    rows, cols = shape[-2], shape[-1]
    i = xp.arange(rows).reshape(-1, 1)
    j = xp.arange(cols).reshape(1, -1)
    return (j - i <= diagonal) if lower else (j - i >= diagonal)


class Tril(Op):
    """Lower triangle of the last two dims; the rest set to zero."""

    def forward(self, x, diagonal=0):
        self.diagonal = diagonal
        return self.xp.where(_tri_mask(self.xp, x.shape, diagonal, True), x, x.dtype.type(0))

    def backward(self, grad):
        return tril(grad, self.diagonal)

    jvp = Op.jvp_linear


class Triu(Op):
    """Upper triangle of the last two dims; the rest set to zero."""

    def forward(self, x, diagonal=0):
        self.diagonal = diagonal
        return self.xp.where(_tri_mask(self.xp, x.shape, diagonal, False), x, x.dtype.type(0))

    def backward(self, grad):
        return triu(grad, self.diagonal)

    jvp = Op.jvp_linear


def _check_2d(input, name):
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(input, diagonal=0):
    """Lower triangular part of a matrix (or batch): elements above `diagonal` become 0.

    Args:
        input: tensor with at least 2 dims.
        diagonal: 0 keeps the main diagonal, >0 also keeps that many superdiagonals.

    Example:
        >>> framework.tril(framework.ones(2, 2))
        tensor([[1., 0.],
                [1., 1.]])
    """
    _check_2d(input, "tril")
    return Tril.apply(input, diagonal=int(diagonal))


def triu(input, diagonal=0):
    """Upper triangular part of a matrix (or batch): elements below `diagonal` become 0.

    Args:
        input (Tensor): the input tensor.
        diagonal (int, optional): the diagonal to keep from: 0 the main one, positive above.
            Default: ``0``.

    Example:
        >>> framework.triu(framework.ones(2, 2))
        tensor([[1., 1.],
                [0., 1.]])
    """
    _check_2d(input, "triu")
    return Triu.apply(input, diagonal=int(diagonal))


def _dims(dims, ndim):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out = tuple(_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    return out


class Flip(Op):
    def forward(self, x, dims=()):
        """A new tensor in x's layout (torch's empty_like(Preserve), then the flipped copy),
        not NumPy's view with negative strides (fuzz seed 575160543: fliplr then celu, whose
        backward then read a strided input in its scalar loop: grad at a NaN, torch's NaN)."""
        self.dims = dims
        out = self.xp.empty_like(x)
        out[...] = self.xp.flip(x, axis=dims) if dims else x
        return out

    def backward(self, grad):
        return Flip.apply(grad, dims=self.dims)

    jvp = Op.jvp_linear


def flip(input, dims):
    """Reverse the order of elements along `dims` (a copy, as in torch).

    Args:
        input (Tensor): the input tensor.
        dims (int or tuple of ints): the dimensions to flip.

    Example:
        >>> framework.tensor([1, 2, 3]).flip(0)
        tensor([3, 2, 1])
    """
    dims = _dims(dims, max(input.dim(), 1))
    return Flip.apply(input, dims=dims if input.dim() else ())  # a 0-dim tensor: a copy


def fliplr(input):
    """Flip the columns (dim 1) of a tensor with at least 2 dims.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.fliplr(framework.tensor([[1, 2], [3, 4]]))
        tensor([[2, 1],
                [4, 3]])
    """
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    """Flip the rows (dim 0) of a tensor with at least 1 dim.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.flipud(framework.tensor([[1, 2], [3, 4]]))
        tensor([[3, 4],
                [1, 2]])
    """
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


class Roll(Op):
    def forward(self, x, shifts=(), dims=None):
        self.shifts, self.dims = shifts, dims
        if dims is None:
            return self.xp.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
        return self.xp.roll(x, shifts, axis=dims)

    def backward(self, grad):
        return Roll.apply(grad, shifts=tuple(-s for s in self.shifts), dims=self.dims)

    jvp = Op.jvp_linear


def roll(input, shifts, dims=None):
    """Shift elements cyclically along `dims` (over the flattened tensor when dims is None).

    Args:
        input (Tensor): the input tensor.
        shifts (int or tuple of ints): the number of places to shift (per dimension of ``dims``).
        dims (int or tuple of ints, optional): the dimensions to roll; the flattened input when
            ``None``. Default: ``None``.

    Example:
        >>> framework.tensor([1, 2, 3, 4]).roll(1)
        tensor([4, 1, 2, 3])
    """
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return Roll.apply(input, shifts=shifts, dims=None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    if input.numel() == 0:  # torch's kernel clones an empty tensor before looking at dims
        return Roll.apply(input, shifts=shifts[:1], dims=None)
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if input.numel() == 0:  # torch returns a clone before looking at the dims
        return Roll.apply(input, shifts=(0,) * len(dims), dims=(0,) * len(dims))
    return Roll.apply(input, shifts=shifts, dims=tuple(_dim(d, max(input.dim(), 1)) for d in dims))


def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees k times in the plane of `dims` (from the first toward the second).

    Args:
        input (Tensor): the input tensor.
        k (int, optional): the number of quarter turns (negative: clockwise). Default: ``1``.
        dims (list or tuple, optional): the two dimensions of the plane. Default: ``(0, 1)``.

    Example:
        >>> framework.tensor([[1, 2], [3, 4]]).rot90()
        tensor([[2, 4],
                [1, 3]])
    """
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = _dim(dims[0], input.dim()), _dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and "
            f"dim1 = {dims[1]}"  # as given
        )
    return Rot90.apply(input, k=k % 4, dims=(d0, d1))


class Rot90(Op):
    def forward(self, x, k=1, dims=(0, 1)):
        self.k, self.dims = k, dims
        return self.xp.rot90(x, k, axes=dims).copy()

    def backward(self, grad):
        return Rot90.apply(grad, k=(-self.k) % 4, dims=self.dims)

    jvp = Op.jvp_linear


__all__ = ["tril", "triu", "flip", "fliplr", "flipud", "roll", "rot90"]
