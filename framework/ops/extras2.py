"""Common top-level helpers torch has: tile, diag/diag_embed, logit, sinc, dist, splits, ...

Most are torch's CompositeImplicitAutograd decompositions, written the same way; the ones
torch gives a node of their own (DiagEmbed, Logit, BlockDiag, Deg2Rad, Sinc, Logcumsumexp)
are Ops here.
"""

import math

import numpy as np

from .. import dtypes
from . import _vml
from ..autograd.engine import is_zero_tensor
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op, per_sample_under_vmap
from ..tensor import Tensor
from . import _vec_binary
from .elementwise import MulScalar
from .norms import LinalgVectorNorm
from .unary import _float, _zeros
from .views import Diagonal

__all__ = [
    "argwhere",
    "block_diag",
    "broadcast_tensors",
    "cumulative_trapezoid",
    "deg2rad",
    "diag",
    "diag_embed",
    "diagflat",
    "dist",
    "dsplit",
    "hsplit",
    "inner",
    "is_nonzero",
    "is_same_size",
    "isin",
    "logcumsumexp",
    "logit",
    "positive",
    "rad2deg",
    "ravel",
    "signbit",
    "sinc",
    "tile",
    "trapezoid",
    "tril_indices",
    "triu_indices",
    "vsplit",
]


def _wrap(x, ref):
    """A result array as a tensor on ref's device (a 0-dim ufunc result is a NumPy scalar)."""
    return Tensor._make(ref.xp.asarray(x), ref.device)


def tile(input, dims):
    """Repeats input's elements; dims shorter than input.dim() are padded with leading 1s.

    Args:
        input: the tensor to tile.
        dims: repetitions per dimension.

    Example:
        >>> framework.tile(framework.tensor([1, 2]), (2,))
        tensor([1, 2, 1, 2])
    """
    if not isinstance(dims, (tuple, list)):
        raise TypeError(
            f"tile(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}"
        )
    dims = (1,) * (input.dim() - len(dims)) + tuple(dims)
    return input.repeat(*dims)


class DiagEmbed(Op):
    """A tensor whose ``(dim1, dim2)`` diagonals at ``offset`` hold the input's last dimension
    (torch's diag_embed)."""

    saved_fields = {"offset": "offset", "dim1": "dim1", "dim2": "dim2"}

    def forward(self, x, offset=0, dim1=-2, dim2=-1):
        """Zeros with ``x``'s last dimension written on the chosen diagonal of each new matrix."""
        xp = self.xp
        nd = x.ndim + 1
        d1, d2 = dim1 % nd, dim2 % nd
        self.offset, self.dim1, self.dim2 = offset, d1, d2
        n = x.shape[-1] + abs(offset)
        rest = list(x.shape[:-1])
        shape = []
        for i in range(nd):
            shape.append(n if i in (d1, d2) else rest.pop(0))
        out = xp.zeros(shape, dtype=x.dtype)
        view = xp.moveaxis(out, (d1, d2), (-2, -1))
        k = xp.arange(x.shape[-1])
        rows, cols = (k, k + offset) if offset >= 0 else (k - offset, k)
        view[..., rows, cols] = x
        return out

    def backward(self, grad):
        """The same diagonal of ``grad``."""
        return grad.diagonal(self.offset, self.dim1, self.dim2)

    jvp = Op.jvp_linear


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensor whose (dim1, dim2) diagonals (at `offset`) are input's last dimension.

    Args:
        input: the values, at least 1-D.
        offset: which diagonal (0 main, >0 above, <0 below).
        dim1: first dim of the new matrices.
        dim2: second dim of the new matrices.

    Example:
        >>> framework.diag_embed(framework.tensor([1., 2.]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    nd = input.dim() + 1
    for d in (dim1, dim2):
        if not -nd <= d < nd:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                f"but got {d})"
            )
    if dim1 % nd == dim2 % nd:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, offset=offset, dim1=dim1, dim2=dim2)


class DiagonalCopy(Diagonal):
    """torch.diag of a matrix: diagonal_copy (a copy, not a view), node DiagonalBackward0_copy."""

    node_name = "DiagonalBackward0_copy"
    views = False

    def forward(self, x, offset, dim1, dim2):
        """A copy of the diagonal of ``x`` (not a view)."""
        return super().forward(x, offset, dim1, dim2).copy()


def diag(input, diagonal=0):
    """1-D input: a square matrix with it on a diagonal; 2-D input: that diagonal.

    Args:
        input: a 1-D or 2-D tensor.
        diagonal: which diagonal (0 main, >0 above, <0 below).

    Example:
        >>> framework.diag(framework.tensor([[1, 2], [3, 4]]))
        tensor([1, 4])
    """
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return DiagonalCopy.apply(input, offset=int(diagonal), dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def diagflat(input, offset=0):
    """A 2-D tensor with the flattened input on a diagonal.

    Args:
        input: any tensor (flattened first).
        offset: which diagonal (0 main, >0 above, <0 below).

    Example:
        >>> framework.diagflat(framework.tensor([[1, 2]]))
        tensor([[1, 0],
                [0, 2]])
    """
    return diag_embed(input.contiguous().reshape(-1), offset)


def broadcast_tensors(*tensors):
    """Expands every tensor to their common broadcast shape (views, no copies).

    Args:
        *tensors: tensors of broadcastable shapes.

    Example:
        >>> a, b = framework.broadcast_tensors(framework.ones(2, 1), framework.zeros(3))
        >>> a.shape, b.shape
        (torch.Size([2, 3]), torch.Size([2, 3]))
    """
    from .._errors import broadcast_shapes

    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors)


@per_sample_under_vmap
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Boolean tensor: whether each of `elements` is in `test_elements`.

    Args:
        elements: tensor (or scalar) to test.
        test_elements: values to test against (tensor or scalar).
        assume_unique: both inputs have unique elements (a speed hint).
        invert: give "not in" instead.

    Example:
        >>> framework.isin(framework.tensor([1, 2, 3]), framework.tensor([2, 5]))
        tensor([False,  True, False])
    """
    ref = elements if isinstance(elements, Tensor) else test_elements
    for v in (elements, test_elements):
        if (v.dtype == dtypes.bool_) if isinstance(v, Tensor) else isinstance(v, bool):
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    xp = ref.xp
    a = elements._data if isinstance(elements, Tensor) else xp.asarray(elements)
    b = test_elements._data if isinstance(test_elements, Tensor) else xp.asarray(test_elements)
    a, b = (v.astype(xp.float32) if v.dtype.name == "bfloat16" else v for v in (a, b))
    return _wrap(xp.isin(a, b, invert=invert), ref)


class Logit(Op):
    """log(x / (1 - x)), with ``x`` first clamped to [eps, 1 - eps] when ``eps`` is given."""

    saves_inputs = True

    def forward(self, x, eps=None):
        """The logit of ``x`` (integers computed as floats)."""
        xp = self.xp
        self.eps = eps
        x = _float(x)
        dense = xp.__name__ != "numpy" or _dense(x)  # (before the clamp copies it)
        if eps is not None:  # torch: x < lo ? lo : x > hi ? hi : x (NaN stays), hi = 1 - lo
            lo = x.dtype.type(eps)  # in the input's dtype, as torch's scalar_t
            x = xp.where(x < lo, lo, xp.where(x > 1 - lo, 1 - lo, x))
        with _quiet(xp):
            q = x / (1 - x)
            if xp.__name__ == "numpy" and q.dtype in (xp.float32, xp.float64):
                return _logit_log(q, dense)
            return xp.log(q)

    def backward(self, grad):
        """``grad / (x (1 - x))``; zero where eps clamped ``x``, NaN outside [0, 1] without eps (as
        torch)."""
        (x,) = self.inputs
        if is_grad_enabled():  # create_graph: torch's infinitely_differentiable_logit_backward
            lo, hi = (0.0, 1.0) if self.eps is None else (self.eps, 1.0 - self.eps)
            fill = _zeros(x) + (math.nan if self.eps is None else 0.0)
            return (grad / (x * (1.0 - x))).where((x >= lo) & (x <= hi), fill)
        # torch's kernel: grad * inf at x == 0 or 1 (so -0 gives +inf for a positive grad)
        edge = (x == 0) | (x == 1)
        # inf only at the edges, 0 elsewhere: grad * inf off the edges would put 0 * inf = NaN
        # into the double backward through the unused branch
        at_edge = _zeros(x).where(~edge, _zeros(x) + math.inf)
        vec = _vector_lanes(x, grad)  # torch's vectorized elements: a division at -0.0
        if vec is not None:
            vec = Tensor._make(vec & (x._data == 0) & xp_signbit(x._data), x.device)
            at_edge = at_edge.where(~vec, -at_edge)
        if self.eps is None:  # torch: NaN outside [0, 1]
            g = (grad / (x * (1 - x))).where(~edge, grad * at_edge)
            return g.where((x >= 0) & (x <= 1), _zeros(g) + math.nan)
        outside = (x < self.eps) | (x > 1 - self.eps)  # (a NaN x gives a NaN gradient...
        if vec is not None:  # ...but 0 in torch's vectorized elements: its blend mask)
            outside = outside | (Tensor._make(_vector_lanes(x, grad), x.device) & x.isnan())
        safe = x.where(~outside & ~edge, _zeros(x) + 0.5)  # no inf in the unused branches
        g = (grad / (safe * (1 - safe))).where(~edge, grad * at_edge)
        return g.where(~outside, _zeros(grad))

    jvp = Op.jvp_elementwise


def xp_signbit(a):
    """The sign bits of a NumPy array."""
    import numpy as np

    return np.signbit(a)


def _vector_lanes(x, grad):
    """For C-contiguous NumPy float32/float64 x and grad of one shape: which elements torch's
    cpu_kernel_vec runs in its vector loop (whole blocks of two 256-bit vectors: 16 floats,
    8 doubles; the rest is its scalar loop), else None."""
    import numpy as np

    a, g = x._data, grad._data
    if type(a) is not np.ndarray or a.dtype not in (np.float32, np.float64):
        return None
    if g.shape != a.shape or not (a.flags.c_contiguous and g.flags.c_contiguous):
        return None
    block = 64 // a.itemsize
    n = a.size
    return (np.arange(n) < n - n % block).reshape(a.shape)


def _logit_log(q, dense):
    """torch's log in its CPU logit kernel: MKL's vsLn/vdLn for a dense input (`_vml`; without
    MKL `_log_without_mkl`), the C library's log/logf for a strided one (its scalar loop)."""
    from ._gamma_exact import libm_log

    if not dense:
        return libm_log(q)
    return _vml.unary("log", q, _log_without_mkl)


def _log_without_mkl(q):
    """The dense log without MKL: float64's log rounded for float32, NumPy's for float64."""
    import numpy as np

    return np.log(q.astype(np.float64)).astype(np.float32) if q.dtype == np.float32 else np.log(q)


def _dense(a):
    """Whether the array's elements fill its memory in some dim order (torch's contiguous
    TensorIterator after it reorders the dims; a NumPy flip's negative stride counts, as
    torch's flip copies)."""
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return True
    expected = a.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(a.strides, a.shape) if n > 1):
        if stride != expected:
            return False
        expected *= n
    return True


def _quiet(xp):
    from .loss import _quiet as q

    return q(xp)


def logit(input, eps=None):
    """log(p / (1 - p)), with input first clamped to [eps, 1 - eps] when eps is given.

    Args:
        input: probabilities.
        eps: clamp bound (None: no clamping).

    Example:
        >>> framework.logit(framework.tensor([0.5]))
        tensor([0.])
    """
    return Logit.apply(input, eps=eps)


def _tri_indices(tril, row, col, offset, dtype, device):
    import numpy as np

    from ..creation import tensor

    r, c = (np.tril_indices if tril else np.triu_indices)(row, offset, col)
    dtype = dtype or dtypes.int64
    return tensor(np.stack([r, c]).reshape(2, -1), dtype=dtype, device=device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    """The 2 x N (row, column) indices of the lower triangle of a row x col matrix.

    Args:
        row: number of rows.
        col: number of columns.
        offset: diagonal bounding the triangle (0 main, >0 above, <0 below).
        dtype: index dtype (default int64).
        device: where to put the result.

    Example:
        >>> framework.tril_indices(2, 2)
        tensor([[0, 1, 1],
                [0, 0, 1]])
    """
    return _tri_indices(True, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    """The 2 x N (row, column) indices of the upper triangle of a row x col matrix.

    Args:
        row: number of rows.
        col: number of columns.
        offset: diagonal bounding the triangle (0 main, >0 above, <0 below).
        dtype: index dtype (default int64).
        device: where to put the result.

    Example:
        >>> framework.triu_indices(2, 2)
        tensor([[0, 0, 1],
                [0, 1, 1]])
    """
    return _tri_indices(False, row, col, offset, dtype, device)


class BlockDiag(Op):
    """A block-diagonal matrix from tensors of at most 2 dimensions (0-D is 1x1, 1-D one row)."""

    promote = True

    def forward(self, *xs):
        """Zeros with each input written as one block along the diagonal."""
        xp = self.xp
        mats = [
            x.reshape(1, -1) if x.ndim == 1 else x.reshape(1, 1) if x.ndim == 0 else x for x in xs
        ]
        self.shapes = [x.shape for x in xs]
        self.spans = [m.shape for m in mats]
        rows, cols = sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)
        out = xp.zeros((rows, cols), dtype=mats[0].dtype if mats else xp.float32)
        r = c = 0
        for m in mats:
            out[r : r + m.shape[0], c : c + m.shape[1]] = m
            r, c = r + m.shape[0], c + m.shape[1]
        return out

    def backward(self, grad):
        """Each input's block of ``grad``, reshaped to that input's shape."""
        parts, r, c = [], 0, 0
        for shape, (h, w) in zip(self.shapes, self.spans):
            if shape == (0,):  # torch's block_diag_backward: no row for an empty 1-D input
                parts.append(grad.new_zeros((0,)))  # (whose forward did give it one)
                continue
            parts.append(grad[r : r + h, c : c + w].reshape(shape))
            r, c = r + h, c + w
        return tuple(parts)

    jvp = Op.jvp_linear


def block_diag(*tensors):
    """A block-diagonal matrix from the given tensors (0-D is 1x1, 1-D is one row).

    Args:
        *tensors: tensors with at most 2 dimensions.

    Example:
        >>> framework.block_diag(framework.tensor([[1, 2]]), framework.tensor(3))
        tensor([[1, 2, 0],
                [0, 0, 3]])
    """
    if not tensors:
        from ..creation import zeros

        return zeros(1, 0)
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                f"Input {i} has {t.dim()} dimensions"
            )
    return BlockDiag.apply(*tensors)


@per_sample_under_vmap
def signbit(input):
    """True where input's sign bit is set (negative numbers and -0.0).

    Args:
        input: a real tensor.

    Example:
        >>> framework.signbit(framework.tensor([-1., 0., -0.]))
        tensor([ True, False,  True])
    """
    return _wrap(input.xp.signbit(input._data), input)


class Deg2Rad(Op):
    """Degrees to radians: ``x * pi / 180`` (a subclass changes ``factor``)."""

    factor = math.pi / 180

    def forward(self, x):
        """``x * factor`` (integers computed as floats)."""
        x = _float(x)
        return x * x.dtype.type(self.factor)

    def backward(self, grad):
        """``grad * factor``."""
        return grad * self.factor

    jvp = Op.jvp_elementwise


class Rad2Deg(Deg2Rad):
    """Radians to degrees: ``x * 180 / pi``."""

    factor = 180 / math.pi


def deg2rad(input):
    """Angles in degrees converted to radians.

    Args:
        input: angles in degrees.

    Example:
        >>> framework.deg2rad(framework.tensor([180.]))
        tensor([3.1416])
    """
    return Deg2Rad.apply(input)


def rad2deg(input):
    """Angles in radians converted to degrees.

    Args:
        input: angles in radians.

    Example:
        >>> framework.rad2deg(framework.tensor([3.141592653589793]))
        tensor([180.])
    """
    return Rad2Deg.apply(input)


class Sinc(Op):
    """The normalized sinc, sin(pi x) / (pi x), 1 at 0."""

    saves_inputs = True

    def forward(self, x):
        """sin(pi x) / (pi x), and 1 where x is 0."""
        xp = self.xp
        x = _float(x)
        px = x * x.dtype.type(math.pi)
        with _quiet(xp):
            if xp is np and px.dtype == np.float32:  # torch's scalar kernel: sinf
                return np.where(x == 0, x.dtype.type(1), _vec_binary.libm("sin", px) / px)
            return xp.where(x == 0, x.dtype.type(1), xp.sin(px) / px)

    def backward(self, grad):
        """torch's sinc_backward: ``grad * (pi x cos(pi x) - sin(pi x)) / (x x pi)``, zero
        where that denominator is 0 (x = 0, or x^2 underflowing: |x| < 1e-23 in float32)."""
        (x,) = self.inputs
        if is_zero_tensor(grad):  # torch's product keeps the ZeroTensor, its where zeros it
            return _zeros(grad)
        # torch's expression op by op in x's dtype: its cos and sin are MKL's VML functions,
        # as ours (`_vml`), so float32 gradients are torch's bits (before the fourteenth pass
        # ours took the quotient in float64: more exact where it cancels, 73 % of float32
        # gradients off torch's; seed 490015137, polygamma then sinc). With create_graph its
        # graph too: pi x once (read three times), then x x pi, then sin(pi x) before cos(pi
        # x) (GCC evaluates the subtraction's right operand first), so that the gradients
        # meeting at pi x and x add up in torch's order: the second derivative's bits (100 of
        # 100 random float32/float64 rows; seeds 548045355, 548122180: float32 at x ~ 2e-4,
        # 1.7 apart before)
        px = x * math.pi
        sq = x * x * math.pi
        sin = px.sin()
        factor = (px * px.cos() - sin) / sq
        out = grad * factor
        return out.where(sq != 0, _zeros(out))

    jvp = Op.jvp_elementwise


def sinc(input):
    """The normalized sinc: sin(pi x) / (pi x), and 1 at x = 0.

    Args:
        input: the tensor.

    Example:
        >>> framework.sinc(framework.tensor([0., 0.5]))
        tensor([1.0000, 0.6366])
    """
    return Sinc.apply(input)


def positive(input):
    """Returns input itself (the unary plus); refused for bool tensors.

    Args:
        input: a non-bool tensor.

    Example:
        >>> framework.positive(framework.tensor([-1, 2]))
        tensor([-1,  2])
    """
    if input.dtype == dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def ravel(input):
    """A flattened 1-D view of input (a copy when it is not contiguous).

    Args:
        input: the tensor.

    Example:
        >>> framework.ravel(framework.tensor([[1, 2], [3, 4]]))
        tensor([1, 2, 3, 4])
    """
    return input.contiguous().reshape(-1)


def inner(input, other):
    """Dot product over the last dimension of each (a product when either is 0-D).

    Args:
        input: first tensor.
        other: second tensor (same last-dimension size).

    Example:
        >>> framework.inner(framework.tensor([1., 2.]), framework.tensor([3., 4.]))
        tensor(11.)
    """
    from .products import tensordot

    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))


def _split(name, input, sections, dim, min_dim):
    if input.dim() < min_dim:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dim} dimension, "
            f"but got a tensor with {input.dim()} dimensions!"
        )
    if isinstance(sections, int):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of "
                f"the dimension {size} is not divisible by the split_size {sections}!"
            )
    return input.tensor_split(sections if isinstance(sections, int) else list(sections), dim)


def hsplit(input, indices_or_sections):
    """Splits input into pieces column-wise (dim 1, or dim 0 for 1-D input).

    Args:
        input: tensor with at least 1 dimension.
        indices_or_sections: number of equal pieces, or the split indices.

    Example:
        >>> [t.tolist() for t in framework.hsplit(framework.arange(4), 2)]
        [[0, 1], [2, 3]]
    """
    dim = 1 if input.dim() > 1 else 0
    return _split("hsplit", input, indices_or_sections, dim, 1)


def vsplit(input, indices_or_sections):
    """Splits input into pieces row-wise (dim 0).

    Args:
        input: tensor with at least 2 dimensions.
        indices_or_sections: number of equal pieces, or the split indices.

    Example:
        >>> [t.shape for t in framework.vsplit(framework.zeros(4, 2), [1])]
        [torch.Size([1, 2]), torch.Size([3, 2])]
    """
    return _split("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """Splits input into pieces depth-wise (dim 2).

    Args:
        input: tensor with at least 3 dimensions.
        indices_or_sections: number of equal pieces, or the split indices.

    Example:
        >>> [t.shape for t in framework.dsplit(framework.zeros(1, 1, 4), 2)]
        [torch.Size([1, 1, 2]), torch.Size([1, 1, 2])]
    """
    return _split("dsplit", input, indices_or_sections, 2, 3)


def argwhere(input):
    """Indices of the non-zero elements, one row per element (nonzero(input)).

    Args:
        input: the tensor.

    Example:
        >>> framework.argwhere(framework.tensor([0, 3, 0, 5]))
        tensor([[1],
                [3]])
    """
    return input.nonzero()


def is_same_size(input, other):
    """Whether the two tensors have the same shape.

    Args:
        input: first tensor.
        other: second tensor.

    Example:
        >>> framework.is_same_size(framework.zeros(2), framework.ones(2))
        True
    """
    return tuple(input.shape) == tuple(other.shape)


def is_nonzero(input):
    """Whether a one-element tensor is non-zero (errors for any other size).

    Args:
        input: a tensor with exactly one element.

    Example:
        >>> framework.is_nonzero(framework.tensor([1.5]))
        True
    """
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0] != 0)


class Dist(LinalgVectorNorm):
    """torch.dist's own node: the p-norm of input - other (broadcast), two inputs."""

    node_name = "DistBackward0"
    broadcasts = True
    promote = True  # input - other in torch's common dtype (NumPy's float32 - int64 is float64)

    def forward(self, a, b, ord=2, dim=None):
        """The ord-norm of a - b over `dim` (all dims; vmap's rule names the logical ones),
        the difference in torch's promoted dtype (NumPy's float32 - int64 is float64)."""
        dt = dtypes.result_type([a, b], [a.ndim, b.ndim], [])
        with _quiet(self.xp):
            d = a.astype(dt, copy=False) - b.astype(dt, copy=False)
            return super().forward(d, ord=ord, dim=dim)

    def backward(self, grad):
        a, b = self.inputs
        g = self._norm_backward(a - b, grad)
        if g is None:  # torch's p = 0: an undefined gradient, which `other`'s formula negates
            if self.needs_input_grad[1]:
                raise RuntimeError(
                    "Expected a proper Tensor but got None (or an undefined Tensor in C++) "
                    "for argument #0 'self'"
                )
            return None, None
        return g, -g

    def jvp(self, ta, tb):
        """torch's norm_jvp of the difference (0 for the count ord=0)."""
        if self.ord == 0:  # a constant zero (no graph back through this node)
            return _zeros(self.result)
        return self.jvp_reduction(ta, tb)


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast), as a 0-D tensor.

    Args:
        input: first tensor.
        other: second tensor.
        p: the norm order.

    Example:
        >>> framework.dist(framework.tensor([0., 0.]), framework.tensor([3., 4.]))
        tensor(5.)
    """
    if not isinstance(other, Tensor):
        raise TypeError(
            f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    from .._errors import broadcast_shapes

    if dtypes.bool_ in (input.dtype, other.dtype):
        input - other  # torch's refusal of bool subtraction (before broadcasting, the norm)
    shape = broadcast_shapes(input.shape, other.shape)
    kind = dtypes.result_type([input._data, other._data], [input.dim(), other.dim()], [])
    if dtypes._kind(kind) != 2:
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. "
            f"Got {dtypes.scalar_type_name(kind)} instead."
        )
    if abs(p) == math.inf and 0 in tuple(shape):
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {p} norm on an empty tensor because the "
            "operation does not have an identity"
        )
    return Dist.apply(input, other, ord=float(p))


_CUM_ACC = {"float32": "float64"}


class LogcumsumexpOp(Op):
    """log(cumsum(exp(x), dim)) computed stably (node LogcumsumexpBackward0)."""

    node_name = "LogcumsumexpBackward0"

    saves_inputs = True
    saves_output = True

    def forward(self, x, dim):
        """The running log-sum-exp of ``x`` along ``dim``."""
        xp = self.xp
        self.dim = dim
        if x.ndim == 0:
            return x.copy()
        if hasattr(xp.logaddexp, "accumulate"):  # + 0: torch's first step adds log1p(0)
            # torch accumulates in acc_type: double for float, float for the half types
            # (which arrive here in float32), rounding each output once
            acc = None if self.half is not None else _CUM_ACC.get(x.dtype.name)
            if acc is None:
                out = xp.logaddexp.accumulate(x, axis=dim)  # to it, so a -0 comes out as +0
            else:
                out = xp.logaddexp.accumulate(x.astype(acc), axis=dim).astype(x.dtype)
            out += out.dtype.type(0)
            return out
        m = xp.max(x, axis=dim, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0)
        return xp.log(xp.cumsum(xp.exp(x - m), axis=dim)) + m

    def backward(self, grad):
        """torch's formula: the reversed log-cumsum-exp of the positive and of the negative parts of
        ``grad``, each taken in log space."""
        (x,) = self.inputs
        y, dim = self.output, self.dim
        if x.dim() == 0 or x.numel() == 0:  # (torch: the gradient itself)
            return grad
        from .._finfo import finfo

        low = Tensor._make(grad.xp.asarray(finfo(grad.dtype).min, grad._data.dtype), grad.device)
        log_abs = grad.abs().log()

        def rev(t):
            return logcumsumexp(t.flip(dim), dim).flip(dim)

        pos = (rev(log_abs.where(grad > 0, low) - y) + x).exp()
        neg = (rev(log_abs.where(grad < 0, low) - y) + x).exp()
        return pos - neg

    def jvp(self, t):
        """torch's logcumsumexp_jvp: cumsum(e * t) / cumsum(e), e = exp(x - max), 0 where the
        running sum is below 1e-13 (a finite tangent there, as torch's)."""
        x = self._fw_args[0]
        if x.dim() == 0:
            return t
        e = (x - x.amax(self.dim, keepdim=True)).exp() if x.numel() else x.exp()
        total = e.cumsum(self.dim)
        run = (e * t).cumsum(self.dim)
        kept = total >= 1e-13  # 0 where the running sum is below eps (not 0 / 0)
        return (run / total.where(kept, _zeros(total) + 1)).where(kept, _zeros(run))


def logcumsumexp(input, dim):
    """log(cumsum(exp(input), dim)), computed stably.

    Args:
        input: floating tensor.
        dim: the dimension to accumulate over.

    Example:
        >>> framework.logcumsumexp(framework.tensor([0., 0.]), 0)
        tensor([0.0000, 0.6931])
    """
    from .._errors import refuse
    from .shape import _dim

    d = _dim(dim, input.dim())  # the dim's IndexError first (fuzz seed 17062389)
    refuse(input._data, "biu", "logcumsumexp_out_cpu")
    return LogcumsumexpOp.apply(input, dim=d)


class DivScalar(Op):
    """tensor / number through torch's div.Scalar overload (DivBackward1)."""

    node_name = "DivBackward1"

    def forward(self, a, other):
        """``a / other`` in ``a``'s dtype."""
        self.other = other
        return (a / other).astype(a.dtype, copy=False)

    def backward(self, grad):
        """``grad / other`` through div.Scalar again (DivBackward1 under create_graph)."""
        return DivScalar.apply(grad, other=self.other)

    jvp = Op.jvp_linear


def _scaled(t, s, cls):
    """t (*, /) the Python number s through torch's .Scalar overload (an integral t with a
    float s promotes to the default float dtype, as the kernel does)."""
    if isinstance(s, float) and not t.dtype.is_floating_point and t.dtype != dtypes.bool_:
        t = t.to(dtypes.get_default_dtype())
    return cls.apply(t, other=s)


def _check_trapezoid(name, y, x, dx):
    if x is None:
        if y.dtype == dtypes.bool_:
            raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
        if isinstance(dx, (bool, complex)) or (isinstance(dx, Tensor) and dx.dtype == dtypes.bool_):
            raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
        return
    if dx is not None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, Tensor, dx="
            f"{type(dx).__name__}), but expected one of:"
        )
    if dtypes.bool_ in (y.dtype, x.dtype):
        raise RuntimeError(
            f"{name}: received a bool input for `x` or `y`, but bool is not supported"
        )


def _dx_of(name, y, x, dim):
    """torch's spacing for a tensor x: its differences along dim (1-D x viewed along dim,
    lower-dimensional x padded with leading 1s), broadcast against y's later."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0]
        x = x.view(shape)
    elif x.dim() < y.dim():
        x = x.view((1,) * (y.dim() - x.dim()) + tuple(x.shape))
    n = x.shape[dim]
    return x.narrow(dim, min(n, 1), max(n - 1, 0)) - x.narrow(dim, 0, max(n - 1, 0))


def _pairs(y, dim):
    n = y.shape[dim]
    return y.narrow(dim, min(n, 1), max(n - 1, 0)) + y.narrow(dim, 0, max(n - 1, 0))


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integral of y along dim by the trapezoid rule (spacing from x, or the constant dx).

    Args:
        y: values of the function.
        x: sample points (optional).
        dx: constant spacing when x is not given (default 1).
        dim: the dimension to integrate over.

    Example:
        >>> framework.trapezoid(framework.tensor([1., 2., 3.]))
        tensor(4.)
    """
    from .shape import _dim

    dim = _dim(dim, y.dim())
    if y.shape[dim] == 0:  # torch: zeros without the dim (no graph)
        return _wrap(y.xp.zeros(y.shape[:dim] + y.shape[dim + 1 :], y._data.dtype), y)
    _check_trapezoid("trapezoid", y, x, dx)
    if x is not None:
        dx = _dx_of("trapezoid", y, x, dim)
        prod = (_pairs(y, dim) * dx).sum(dim)  # torch's ((right + left) * dx).sum
        return _scaled(prod, 2.0, DivScalar)
    ends = _scaled(y.select(dim, 0) + y.select(dim, -1), 0.5, MulScalar)
    return _scaled(y.sum(dim) - ends, float(1 if dx is None else dx), MulScalar)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running integral of y along dim by the trapezoid rule (one fewer element along dim).

    Args:
        y: values of the function.
        x: sample points (optional).
        dx: constant spacing when x is not given (default 1).
        dim: the dimension to integrate over.

    Example:
        >>> framework.cumulative_trapezoid(framework.tensor([1., 2., 3.]))
        tensor([1.5000, 4.0000])
    """
    from .shape import _dim

    if x is None:  # torch refuses a bool y (and dx) before wrapping dim; with x, after
        _check_trapezoid("cumulative_trapezoid", y, x, dx)
    dim = _dim(dim, y.dim())
    _check_trapezoid("cumulative_trapezoid", y, x, dx)
    if x is not None:
        dx = _dx_of("cumulative_trapezoid", y, x, dim)
        prod = (_pairs(y, dim) * dx).cumsum(dim)  # torch's ((left + right) * dx).cumsum
        return _scaled(prod, 2.0, DivScalar)
    return _scaled(_pairs(y, dim), float(1 if dx is None else dx) / 2.0, MulScalar).cumsum(dim)
