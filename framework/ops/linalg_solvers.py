"""Triangular, Cholesky and LU solvers: linalg.solve_triangular, triangular_solve,
cholesky_solve, cholesky_inverse, linalg.lu_solve / lu_solve and lu_unpack, with torch's nodes
(LinalgSolveTriangularBackward0, TriangularSolveBackward0, CholeskySolveBackward0,
CholeskyInverseBackward0, LinalgLuSolveBackward0, LuUnpackBackward0) and its backward formulas
(FunctionsManual.cpp), written with Tensor ops so second derivatives work."""

import warnings

import numpy as np

from .. import dtypes
from .._errors import refuse
from ..autograd.op import Op
from . import linalg_lapack as _lapack
from .extrema import _return_type, return_types
from .linalg_ext import _check_square, _mT, lapack_layout

return_types.triangular_solve = _return_type("triangular_solve", ("solution", "cloned_coefficient"))
return_types.lu_unpack = _return_type("lu_unpack", ("P", "L", "U"))


def _triangle(xp, A, upper, unit=False):
    """The triangle of A that a triangular solver reads (unit diagonal when `unit`)."""
    T = xp.triu(A) if upper else xp.tril(A)
    if unit:
        n = A.shape[-1]
        T = T * (1 - xp.eye(n, dtype=A.dtype)) + xp.eye(n, dtype=A.dtype)
    return T


def _substitute(xp, T, B, upper):
    """T X = B by substitution (BLAS trsm's order): a zero diagonal gives inf/NaN, as in torch."""
    n = T.shape[-1]
    shape = xp.broadcast_shapes(T.shape[:-2], B.shape[:-2]) + B.shape[-2:]
    X = xp.array(xp.broadcast_to(B, shape), dtype=T.dtype)
    rows = range(n - 1, -1, -1) if upper else range(n)
    with xp.errstate(all="ignore"):
        for i in rows:
            X[..., i, :] /= T[..., i, i, None]
            rest = slice(0, i) if upper else slice(i + 1, n)
            X[..., rest, :] -= T[..., rest, i, None] * X[..., i, None, :]
    return X


def tri_solve(xp, A, B, upper, left=True, unit=False):
    """X with T X = B (left) or X T = B, T the (unit) triangle of A; batches broadcast, by
    BLAS trsm's substitution (inf/NaN land where torch's; each component only from the
    entries it depends on)."""
    T = _triangle(xp, A, upper, unit)
    if not left:
        T, B, upper = xp.swapaxes(T, -1, -2), xp.swapaxes(B, -1, -2), not upper
    # always substitution: an LU solve (row pivoting) mixes rows, so a huge entry of B spread
    # its rounding (1e30 * eps: 1e14) into components that do not depend on it (fuzzer seed
    # 20011400); measured faster than NumPy's solve too (n = 256: 47 ms vs 213 ms)
    X = _substitute(xp, T, B, upper)
    return xp.swapaxes(X, -1, -2) if not left else X


def _name(t):
    return dtypes.scalar_type_name(t._data.dtype)


def _check_tri(A, B, left=True):
    """torch's checks of linalg.solve_triangular's (A, B)."""
    fn = "linalg.solve_triangular"
    for name, t in (("A", A), ("B", B)):
        if t.dim() < 2:
            raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    refuse(A._data, "biu", "triangular_solve_cpu")
    _check_square(A, "solve_triangular")
    k = B.shape[-2] if left else B.shape[-1]
    if A.shape[-1] != k:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fn}: Incompatible shapes of A and B for the equation {eq} "
            f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})"
        )


def _check_legacy(fn, b, A, bname="b", aname="A", kernel=""):
    """The checks torch.triangular_solve / cholesky_solve make (their own wording)."""
    for name, t in ((bname, b), (aname, A)):
        if t.dim() < 2:
            raise RuntimeError(fn(name, t.dim()))
    if b.dtype != A.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_name(b)} and A of "
            f"type {_name(A)} instead."
        )
    refuse(A._data, "biu", kernel)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    if A.shape[-1] != b.shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {kernel.rsplit('_', 1)[0]}: each A matrix is "
            f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}"
        )


class LinalgSolveTriangular(Op):
    """linalg.solve_triangular(A, B, upper, left, unitriangular): X with AX = B (or XA = B)."""

    no_bfloat16 = "triangular_solve_cpu"
    saves_inputs = True
    saves_output = True

    def forward(self, A, B, upper=False, left=True, unitriangular=False):
        """X by a triangular solve of each matrix in the batch."""
        self.upper, self.left, self.unit = upper, left, unitriangular
        if self.xp is np and A.size and B.size:  # torch's trsm (MKL's bits)
            X = _lapack.solve_triangular(A, B, upper, left, unitriangular)
            if X is not None:
                return X
        return lapack_layout(self.xp, tri_solve(self.xp, A, B, upper, left, unitriangular))

    def backward(self, grad):
        """torch's linalg_solve_triangular_backward: gradients for A (its triangle) and B."""
        A, _ = self.inputs
        X = self.output
        need_a, need_b = self.needs_input_grad
        gB = solve_triangular(
            _mT(A), grad, upper=not self.upper, left=self.left, unitriangular=self.unit
        )
        gA = None
        if need_a:
            gA = -(gB @ _mT(X)) if self.left else -(_mT(X) @ gB)
            gA = gA.triu(int(self.unit)) if self.upper else gA.tril(-int(self.unit))
        return gA, gB if need_b else None

    jvp = Op.jvp_transpose


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (or X A = B) for a triangular A; only its triangle is read.

    Args:
        A (Tensor): triangular matrices ``(*, n, n)``.
        B (Tensor): right-hand sides ``(*, n, k)`` (``(*, k, n)`` when ``left=False``); batch
            dimensions broadcast.
        upper (bool): A is upper (True) or lower (False) triangular.
        left (bool, optional): solve ``A X = B`` (True) or ``X A = B``. Default: ``True``.
        unitriangular (bool, optional): take A's diagonal to be ones. Default: ``False``.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> A = framework.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> framework.linalg.solve_triangular(A, framework.tensor([[3.0], [4.0]]), upper=True)
        tensor([[1.],
                [1.]])
    """
    _check_tri(A, B, left)
    if B.dtype != A.dtype:  # torch computes in A's dtype
        B = B.to(A.dtype)
    return LinalgSolveTriangular.apply(A, B, upper=upper, left=left, unitriangular=unitriangular)


class TriangularSolve(Op):
    """torch.triangular_solve(b, A, upper, transpose, unitriangular): (X, a copy of A)."""

    no_bfloat16 = "triangular_solve_cpu"
    saves_inputs = True
    saves = ("X",)

    def forward(self, b, A, upper=True, transpose=False, unitriangular=False):
        """(X, A) with op(A) X = b for the triangular A."""
        xp = self.xp
        self.upper, self.transpose, self.unit = upper, transpose, unitriangular
        X = (
            _lapack.triangular_solve(b, A, upper, transpose, unitriangular)
            if (xp is np and A.size and b.size)
            else None
        )
        if X is None:
            T = xp.swapaxes(A, -1, -2) if transpose else A
            X = lapack_layout(xp, tri_solve(xp, T, b, upper != transpose, True, unitriangular))
        self.X = X
        shape = xp.broadcast_shapes(A.shape[:-2], b.shape[:-2]) + A.shape[-2:]
        clone = xp.swapaxes(xp.swapaxes(xp.broadcast_to(A, shape), -1, -2).copy(), -1, -2)
        return self.X, clone  # (a copy in LAPACK's layout, as torch's)

    def backward(self, g_x, g_m):
        """torch's triangular_solve_backward: gradients for b and A's triangle."""
        b, A = self.inputs
        need_b, need_a = self.needs_input_grad
        gb = gA = None
        if g_x is not None:
            X = self.output_at(self.X, 0)
            gb = triangular_solve(g_x, A, self.upper, not self.transpose, self.unit)[0]
            if need_a:
                gA = -(X @ _mT(gb)) if self.transpose else -(gb @ _mT(X))
                gA = gA.triu(int(self.unit)) if self.upper else gA.tril(-int(self.unit))
        if g_m is not None and need_a:
            gA = g_m if gA is None else gA + g_m
        return gb if need_b else None, gA

    def jvp(self, tb, tA):
        """torch's triangular_solve_jvp: solve(A, db - dA X) with dA as given (neither
        projected on the triangle nor transposed); the copy's tangent is dA."""
        _, A = self.primals
        X = self._fw_outs[0]
        rhs = tb if tb is not None else X * 0
        if tA is not None:
            rhs = rhs - tA @ X
        dX = triangular_solve(rhs, A, self.upper, self.transpose, self.unit)[0]
        return dX, (tA if tA is not None else None)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve (deprecated in torch for linalg.solve_triangular): X with
    A X = b (or A^T X = b when ``transpose``), and a copy of A.

    Args:
        b (Tensor): right-hand sides ``(*, m, k)``.
        A (Tensor): triangular matrices ``(*, m, m)``; batch dimensions broadcast.
        upper (bool, optional): A is upper triangular. Default: ``True``.
        transpose (bool, optional): solve with A^T. Default: ``False``.
        unitriangular (bool, optional): take A's diagonal to be ones. Default: ``False``.
        out (tuple, optional): ignored (no out= support).

    Returns:
        (solution, cloned_coefficient), torch.return_types.triangular_solve.

    Example:
        >>> A = framework.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> framework.triangular_solve(framework.tensor([[3.0], [4.0]]), A).solution
        tensor([[1.],
                [1.]])
    """
    _deprecated(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
        "and will be removed in a future PyTorch release.\n"
        "torch.linalg.solve_triangular has its arguments reversed and does not return a "
        "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\n"
        "should be replaced with\nX = torch.linalg.solve_triangular(A, B)."
    )
    _check_legacy(
        lambda n, d: (
            f"torch.triangular_solve: Expected {n} to have at least 2 dimensions, but "
            f"it has {d} dimensions instead"
        ),
        b,
        A,
        kernel="triangular_solve_cpu",
    )
    x, m = TriangularSolve.apply(
        b, A, upper=upper, transpose=transpose, unitriangular=unitriangular
    )
    return return_types.triangular_solve(x, m)


_warned = set()


def _deprecated(msg):
    """torch's TORCH_WARN_ONCE deprecation notice: a UserWarning, once per process."""
    if msg not in _warned:
        _warned.add(msg)
        warnings.warn(msg, UserWarning, stacklevel=3)


def _cho_solve(xp, L, B, upper):
    """(L L^T)^-1 B, or (U^T U)^-1 B when `upper`."""
    Lt = xp.swapaxes(L, -1, -2)
    if upper:
        return tri_solve(xp, L, tri_solve(xp, Lt, B, False), True)
    return tri_solve(xp, Lt, tri_solve(xp, L, B, False), True)


class CholeskySolve(Op):
    """cholesky_solve(B, L, upper): X with (L L^H) X = B from the Cholesky factor L."""

    no_bfloat16 = "cholesky_solve_cpu"
    saves_inputs = True
    saves_output = True

    def forward(self, B, L, upper=False):
        """X by two triangular solves with the factor."""
        self.upper = upper
        if self.xp is np and B.size and L.size:  # torch's potrs (MKL's bits)
            X = _lapack.cholesky_solve(B, L, upper)
            if X is not None:
                return X
        return lapack_layout(self.xp, _cho_solve(self.xp, _triangle(self.xp, L, upper), B, upper))

    def backward(self, grad):
        """torch's cholesky_solve_backward: gradients for B and the factor."""
        _, L = self.inputs
        X = self.output
        need_b, need_l = self.needs_input_grad
        gB = cholesky_solve(grad, L, self.upper)
        gL = None
        if need_l:
            common = gB @ _mT(X)
            common = common + _mT(common)
            gL = -(L @ common) if self.upper else -(common @ L)
        return gB if need_b else None, gL

    jvp = Op.jvp_transpose


def cholesky_solve(B, L, upper=False, *, out=None):
    """X with A X = B, given the Cholesky factor of A (A = L L^T, or U^T U when ``upper``).

    Args:
        B (Tensor): right-hand sides ``(*, n, k)``.
        L (Tensor): the factor ``(*, n, n)`` (only its triangle is read); batches broadcast.
        upper (bool, optional): L is upper triangular (A = U^T U). Default: ``False``.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> L = framework.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> framework.cholesky_solve(framework.tensor([[4.0], [2.0]]), L)
        tensor([[1.],
                [0.]])
    """
    _check_legacy(
        lambda n, d: f"{n} should have at least 2 dimensions, but has {d} dimensions instead",
        B,
        L,
        aname="u",
        kernel="cholesky_solve_cpu",
    )
    return CholeskySolve.apply(B, L, upper=upper)


class CholeskyInverse(Op):
    """cholesky_inverse(L, upper): the inverse of L L^H from its Cholesky factor."""

    no_bfloat16 = "cholesky_inverse_cpu"
    saves_inputs = True
    saves_output = True

    def forward(self, L, upper=False):
        """(L L^H)^-1 of each factor in the batch."""
        xp = self.xp
        self.upper = upper
        if xp is np and L.size:  # torch's potri, its triangle mirrored (MKL's bits)
            X = _lapack.cholesky_inverse(L, upper)
            if X is not None:
                return X
        n = L.shape[-1]
        eye = xp.broadcast_to(xp.eye(n, dtype=L.dtype), L.shape)
        return lapack_layout(xp, _cho_solve(xp, _triangle(xp, L, upper), eye, upper))

    def backward(self, grad):
        """torch's cholesky_inverse_backward: the factor's gradient."""
        (L,) = self.inputs
        inverse = self.output
        common = inverse @ ((grad + _mT(grad)) @ inverse)
        return -(L @ common) if self.upper else -(common @ L)

    def jvp(self, tL):
        """torch's cholesky_inverse_jvp: P = -X dC X C with (C, dC) = (L^T, dL) for a lower
        factor and (U, dU^T) for an upper one; dX = P + P^T (factors used as given)."""
        (L,) = self.primals
        X = self.result
        C, dC = (L, _mT(tL)) if self.upper else (_mT(L), tL)
        part = -(X @ dC @ X @ C)
        return part + _mT(part)


def cholesky_inverse(L, upper=False, *, out=None):
    """Inverse of A = L L^T (or U^T U when ``upper``) from its Cholesky factor.

    Args:
        L (Tensor): the factor ``(*, n, n)``; only its triangle is read.
        upper (bool, optional): L is upper triangular. Default: ``False``.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> framework.cholesky_inverse(framework.tensor([[2.0, 0.0], [0.0, 1.0]]))
        tensor([[0.2500, 0.0000],
                [0.0000, 1.0000]])
    """
    if L.dim() < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    refuse(L._data, "biu", "cholesky_inverse_out_cpu")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(
            f"cholesky_inverse: A must be batches of square matrices, but they are "
            f"{L.shape[-2]} by {L.shape[-1]} matrices"
        )
    return CholeskyInverse.apply(L, upper=upper)


__all__ = ["triangular_solve", "cholesky_solve", "cholesky_inverse"]
