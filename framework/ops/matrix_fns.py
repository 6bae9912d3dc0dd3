"""matrix_exp (torch.linalg.matrix_exp) and renorm: primitives with torch's backward formulas.

matrix_exp is torch's algorithm (optimized Taylor polynomials, scaling and squaring; see
_expm.py) in float32/float64, and scaling and squaring of the [13/13] Pade approximant
(Higham 2005) in float64 for the half types; its gradient is torch's
linalg_matrix_exp_differential: the upper-right block of the exponential of
[[A^T, G], [0, A^T]] (itself differentiable, so double backward works).
"""

import math

from .. import dtypes
from ..autograd.engine import is_zero_tensor
from ..autograd.op import Op
from ._expm import expm as _torch_expm
from ._fastgrad import plain
from .elementwise import MulScalar

__all__ = ["matrix_exp", "renorm"]

_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


def _expm(xp, a):
    """exp of a batch (..., n, n) of matrices, in float64."""
    a = a.astype(xp.float64)
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    norm = xp.abs(a).sum(-2).max(-1)  # the 1-norm of each matrix
    with _quiet(xp):
        s = xp.maximum(0, xp.ceil(xp.log2(xp.maximum(norm, 1e-300) / _THETA13))).astype(int)
    s = xp.where(xp.isfinite(norm), s, 0)
    a = a / (2.0**s)[..., None, None]
    eye = xp.broadcast_to(xp.eye(n), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    b = _PADE13
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2)
    u = u + a @ (b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2
    v = v + b[0] * eye
    with _quiet(xp):
        r = xp.linalg.solve(v - u, v + u)
    for k in range(int(s.max()) if s.size else 0):
        sq = r @ r
        r = xp.where((s > k)[..., None, None], sq, r)
    return r


def _quiet(xp):
    from .loss import _quiet as q

    return q(xp)


class LinalgMatrixExp(Op):
    """linalg.matrix_exp(A): exp(A) by scaling and squaring of a Pade approximant."""

    saves_inputs = True

    def forward(self, a):
        """exp(A) of each matrix in the batch."""
        if a.dtype.kind == "f" and a.dtype.itemsize in (4, 8) and a.shape[-1] > 1:
            return _torch_expm(self.xp, a)  # torch's algorithm in a's precision
        if a.shape[-1] == 1:
            with _quiet(self.xp):
                return self.xp.exp(a)
        return _expm(self.xp, a).astype(a.dtype, copy=False)

    def backward(self, grad):
        """torch's block formula: the Frechet derivative at A^H applied to grad."""
        return _differential(self.inputs[0].mT, grad)

    def jvp(self, t):
        """The Frechet derivative of exp at A in the tangent direction."""
        return _differential(self._fw_args[0], t)


def _differential(a, g):
    """The upper-right block of exp([[a, g], [0, a]]), built as torch's
    differential_analytic_matrix_function builds it: zeros, then a, a and g copied into
    narrows of it (CopySlices), the block narrowed out of the exponential."""
    from .._errors import broadcast_shapes
    from .join import cat

    n = a.shape[-1]
    if hasattr(a, "_levels") or hasattr(g, "_levels"):  # vmap's batched tensors: torch's
        # path for tensor subclasses, one cat of the blocks
        a = a.expand_as(g) if a.shape != g.shape else a
        block = cat([cat([a, g], -1), cat([g * 0, a], -1)], -2)
        return matrix_exp(block)[..., :n, n:]
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(g.shape[:-2]))
    meta = g.detach().new_zeros(tuple(batch) + (2 * n, 2 * n))
    meta.narrow(-2, 0, n).narrow(-1, 0, n).copy_(a)
    meta.narrow(-2, n, n).narrow(-1, n, n).copy_(a)
    meta.narrow(-2, 0, n).narrow(-1, n, n).copy_(g)
    return matrix_exp(meta).narrow(-2, 0, n).narrow(-1, n, n)


def matrix_exp(A):
    """The matrix exponential sum_k A^k / k! of square matrices (batched).

    Args:
        A: (..., n, n) floating tensor.

    Example:
        >>> framework.matrix_exp(framework.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_exp: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if not A.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
            f"{dtypes.scalar_type_name(A._data.dtype)}"
        )
    return LinalgMatrixExp.apply(A)


class Renorm(Op):
    """Sub-tensors along `dim` whose p-norm exceeds maxnorm, scaled down to it."""

    saves_inputs = True

    def forward(self, x, p, dim, maxnorm):
        """x with each slice along dim scaled to p-norm at most maxnorm."""
        xp = self.xp
        self.p, self.dim, self.maxnorm = p, dim, maxnorm
        self.axes = tuple(i for i in range(x.ndim) if i != dim)
        norm = _pnorm(xp, x.astype(xp.float64) if x.dtype.itemsize < 4 else x, p, self.axes)
        with _quiet(xp):
            factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
        return (x * factor).astype(x.dtype, copy=False)

    def backward(self, grad):
        """torch's renorm_backward: factor * grad - factor / (norm + 1e-7) * norm_backward
        of sum(x * grad) where the norm exceeds maxnorm, grad elsewhere."""
        from ..linalg import vector_norm

        x = self.inputs[0]
        p, axes, maxnorm = self.p, self.axes, self.maxnorm
        # torch's CPU accumulate type: float32 inputs get a float64 norm and sum here (the
        # forward's norm stays float32), so an overflowing slice keeps finite factors
        acc = dtypes.float64 if x.dtype in (dtypes.float32, dtypes.float64) else dtypes.float32
        norm = vector_norm(x, p, axes, keepdim=True, dtype=acc)
        zero = is_zero_tensor(grad)  # torch's ZeroTensor: products with it stay zero, the
        # sum materializes it (real zeros into norm_backward: 0 * inf = NaN there)
        if zero:
            s = norm.new_zeros(tuple(norm.shape))
        else:
            s = (x * grad).sum(axes, keepdim=True, dtype=acc)
        invnorm = (norm + 1e-7).reciprocal()
        nb = _norm_backward(s, x, p, norm, axes)
        if not plain(grad):  # create_graph: torch's graph, where(norm > maxnorm,
            # (maxnorm * invnorm * (grad - invnorm * nb)).to(dtype), grad): WhereBackward0
            g = MulScalar.apply(invnorm, other=maxnorm) * (grad - invnorm * nb)
            return (g if g.dtype == x.dtype else g.to(x.dtype)).where(norm > maxnorm, grad)
        factor = invnorm * maxnorm
        scaled = factor * invnorm * nb
        out = ((grad if zero else factor * grad) - scaled).where(norm > maxnorm, grad)
        return out.to(x.dtype)

    jvp = Op.jvp_transpose


def _pnorm(xp, x, p, axes):
    a = xp.abs(x)
    if p != 0 and a.size and math.prod(a.shape[i] for i in axes) == 1:
        return a  # one element per norm: torch's norm kernel returns |x| (no square to overflow)
    if p == math.inf:
        return (
            a.max(axis=axes, keepdims=True) if a.size else xp.zeros_like(a.sum(axes, keepdims=True))
        )
    if p == 0:
        return (a != 0).sum(axis=axes, keepdims=True).astype(x.dtype)
    if p == 1:
        return a.sum(axis=axes, keepdims=True)
    if p == 2:
        return xp.sqrt((a * a).sum(axis=axes, keepdims=True))
    with _quiet(xp):
        return (a**p).sum(axis=axes, keepdims=True) ** (1.0 / p)


def _norm_backward(g, x, p, norm, axes):
    """torch's norm_backward of the p-norm (norm kept over `axes`), in Tensor ops."""
    zero = x * 0
    if p == 0:
        return zero
    if p == 1:
        return x.sgn() * g
    if p == 2:
        return x * (g / norm).where(norm != 0, zero)
    if p == math.inf:
        mask = (x.abs() == norm) | x.isnan()
        return x.sgn() * (g / mask.sum(axes, keepdim=True)) * mask
    if p < 1:
        return (x.sgn() * x.abs() ** (p - 1)).where(x != 0, zero) * g * norm ** (1 - p)
    scaled = x.sgn() * x.abs() ** (p - 1) if p < 2 else x * x.abs() ** (p - 2)
    return scaled * (g / norm ** (p - 1)).where(norm != 0, zero)


def renorm(input, p, dim, maxnorm):
    """Each sub-tensor along `dim` (input.select(dim, i)) whose p-norm exceeds maxnorm is
    scaled to norm maxnorm (by maxnorm / (norm + 1e-7)).

    Args:
        input: a floating tensor.
        p: the norm's order (> 0).
        dim: the dimension whose slices are renormalised.
        maxnorm: the largest norm kept.

    Example:
        >>> framework.renorm(framework.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    from .shape import _dim

    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.dim() <= 1:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions"
        )
    d = _dim(dim, input.dim())  # torch wraps dim before the norm's dtype check
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{dtypes.scalar_type_name(input._data.dtype)}"
        )
    empty = [i for i in range(input.dim()) if i != d and input.shape[i] == 0]
    if p == math.inf and empty:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the inf norm on the dimension {empty[0]}"
            "because this dimension is empty and the operation does not have an identity"
        )
    return Renorm.apply(input, p=float(p), dim=_dim(dim, input.dim()), maxnorm=float(maxnorm))
