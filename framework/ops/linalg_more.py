"""torch.linalg.vecdot and torch.linalg.matrix_rank, composed as torch composes them."""

from .. import dtypes
from ..amp.autocast_mode import entry as _amp_entry
from ..tensor import Tensor
from ..autograd.op import Op
from .extrema import _return_type, return_types
from .elementwise import MulScalar
from .linalg import Dot, _check_dot
from .linalg_ext import LinalgSvd, _mT, _out, eigvalsh, lapack_layout, pinv, pinv_backward

return_types.linalg_lstsq = _return_type(
    "linalg_lstsq", ("solution", "residuals", "rank", "singular_values")
)


class Vdot(Dot):
    """conj(a) . b (for real tensors the dot product), torch's VdotBackward0."""

    saved_fields = {"other": "input1 if needs 0", "self": "input0 if needs 1"}


def vdot(input, other, *, out=None):
    """Dot product of two 1-D tensors, the first conjugated (real tensors: ``dot``).

    Args:
        input (Tensor): the input tensor.
        other (Tensor): the second 1-D tensor, same length.
        out (Tensor, optional): the output tensor.

    Example::

        >>> framework.vdot(framework.tensor([1.0, 2.0]), framework.tensor([3.0, 4.0]))
        tensor(11.)
    """
    _check_dot(input, other)
    return Vdot.apply(input, other)


@_amp_entry("linalg_vecdot")
def vecdot(x, y, *, dim=-1, out=None):
    """Dot product of vectors along `dim` (broadcast): ``(x.conj() * y).sum(dim)``.

    Args:
        x, y (Tensor): floating tensors of the same dtype, broadcastable.
        dim (int): the dimension holding the vectors. Default -1.
        out (Tensor, optional): the output tensor.

    Example::

        >>> framework.linalg.vecdot(framework.tensor([[1.0, 2.0]]), framework.tensor([3.0, 4.0]))
        tensor([11.])
    """
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{dtypes.scalar_type_name(x._data.dtype)} and y of type "
            f"{dtypes.scalar_type_name(y._data.dtype)} instead"
        )
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
            f"{dtypes.scalar_type_name(x._data.dtype)}"
        )
    if x.dim() == y.dim() == 1:  # torch's vdot path (no broadcasting)
        return vdot(x, y)
    return (x * y).sum(dim)


@_amp_entry("linalg_matrix_rank")
def linalg_matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Numerical rank: the number of singular values (|eigenvalues| when `hermitian`) above
    ``max(atol, rtol * largest)``, with pinv's defaults (atol 0, rtol eps * max(m, n), or 0
    when atol > 0). ``tol`` is the legacy absolute tolerance (rtol 0).

    Args:
        A (Tensor): (..., m, n) floating matrix or batch.
        tol (float or Tensor, optional): legacy absolute tolerance.
        hermitian (bool): A is symmetric (its lower triangle is read).
        atol, rtol (float or Tensor, optional): tolerances (tensors broadcast over the batch).
        out (Tensor, optional): the output tensor.

    Returns:
        int64 tensor of shape (...).

    Example::

        >>> framework.linalg.matrix_rank(framework.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    if A.dim() < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if not A.dtype.is_floating_point or A.dtype.name == "bfloat16":
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    with _no_grad():
        s = eigvalsh(A).abs() if hermitian else LinalgSvd.apply(A, full_matrices=False)[1]
        eps = float(A.xp.finfo(s._data.dtype).eps) * max(A.shape[-1], A.shape[-2])
        atol = _as_tensor(0.0 if atol is None else atol, A)
        rtol = (atol <= 0).double() * eps if rtol is None else _as_tensor(rtol, A)
        big = s.amax(-1, keepdim=True) if s.shape[-1] else s.new_zeros(s.shape[:-1] + (1,))
        tol = (rtol.unsqueeze(-1) * big).maximum(atol.unsqueeze(-1))
        return (s > tol).sum(-1)


def _as_tensor(v, like):
    if isinstance(v, Tensor):
        return v.double()
    return Tensor._make(like.xp.asarray(v, dtype="float64"), like.device)


class LinalgLstsq(Op):
    """Least-squares solutions of A X = B (minimum norm where A is rank deficient) via the SVD,
    with the extras each LAPACK driver reports; torch's gradient: X = pinv(A) B, and the
    residuals' gradient by the normal equations."""

    saves_inputs = True
    saves = ("sol",)
    non_differentiable = (2, 3)
    saved_fields = {"b": "input1", "self": "input0", "solution": "sol"}

    def forward(self, A, B, rcond=None, driver="gelsy", vector=False):
        """The least-squares solution, residuals, rank and singular values, as the chosen LAPACK
        driver reports them."""
        xp, self.vector = self.xp, vector
        if vector:  # one right-hand side per matrix (B one dimension short)
            B = B[..., None]
        m, n = A.shape[-2:]
        U, S, Vh = xp.linalg.svd(A, full_matrices=False)
        if rcond is None or rcond < 0:
            rcond = float(xp.finfo(A.dtype).eps) * max(m, n)
        big = S.max(-1, keepdims=True) if S.shape[-1] else xp.zeros(S.shape[:-1] + (1,))
        keep = S > rcond * big
        inv = xp.where(keep, 1 / xp.where(keep, S, 1), 0).astype(A.dtype)
        sol = xp.swapaxes(Vh, -1, -2) @ (inv[..., :, None] * (xp.swapaxes(U, -1, -2) @ B))
        self.sol = lapack_layout(xp, sol.astype(A.dtype, copy=False))
        rank = keep.sum(-1).astype("int64")
        empty = xp.zeros((0,), A.dtype)
        full = m > n and bool((rank == n).all())
        if driver != "gelsy" and full:
            r = A @ self.sol - B
            residuals = (r * r).sum(-2)
        else:
            residuals = empty
        rank = xp.zeros((0,), "int64") if driver == "gels" else xp.asarray(rank)
        sv = S.astype(A.dtype) if driver in ("gelsd", "gelss") else empty
        if vector:
            self.sol = self.sol[..., 0]
        return self.sol, residuals, rank, sv

    def backward(self, g_sol, g_res, _rank=None, _sv=None):
        """The gradients of ``A`` and ``B``: through pinv(A) for the solution, the normal equations
        for the residuals."""
        A, B = self.inputs
        X = _out(self, self.sol, 0)
        if self.vector:
            B, X = B.unsqueeze(-1), X.unsqueeze(-1)
            g_sol = g_sol.unsqueeze(-1) if g_sol is not None else None
        need_a, need_b = self.needs_input_grad
        grad_a = grad_b = None
        if g_sol is not None:
            P = pinv(A)
            if need_a:
                grad_a = pinv_backward(g_sol @ _mT(B), P, A)  # g_sol B^T: pinv(A)'s gradient
            if need_b:
                grad_b = _mT(P) @ g_sol
                grad_b = grad_b.squeeze(-1) if self.vector else grad_b
        if g_res is not None and g_res.numel():  # torch's terms: 2 ((r gL) X^H), r (-2 gL)
            r, gL = A @ X - B, g_res.unsqueeze(-2)
            if need_a:
                ra = MulScalar.apply((r * gL) @ _mT(X), other=2.0)
                grad_a = ra if grad_a is None else grad_a + ra
            if need_b:  # (each term squeezed to a vector B's shape, as torch's)
                rb = r * (-2.0 * gL)
                rb = rb.squeeze(-1) if self.vector else rb
                grad_b = rb if grad_b is None else grad_b + rb
        return grad_a, grad_b

    def jvp(self, *tangents):
        """The transpose of backward (Tensor ops: exact); empty residuals (gelsy, or not
        full rank) get an empty tangent, as torch's."""
        got = list(Op.jvp_transpose(self, *tangents))
        if got[1] is None:
            res = self._fw_outs[1]
            got[1] = Tensor._make(res.xp.zeros_like(res._data), res.device)
        return tuple(got)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@_amp_entry("linalg_lstsq")
def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` (the minimum-norm one when A is rank deficient).

    Args:
        A (Tensor): (..., m, n) floating matrices.
        B (Tensor): (..., m, k) right-hand sides, or (..., m) for one vector.
        rcond (float, optional): singular values below rcond * largest count as zero
            (default: eps * max(m, n)).
        driver (str, optional): 'gelsy' (default), 'gels', 'gelsd' or 'gelss': which extras
            are reported, as torch's CPU drivers: residuals (not for gelsy; only when m > n
            and every A has full rank), rank (not for gels), singular values (gelsd, gelss).

    Returns:
        (solution, residuals, rank, singular_values), torch.return_types.linalg_lstsq.

    Example::

        >>> A = framework.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> framework.linalg.lstsq(A, framework.tensor([1.0, 1.0, 3.0])).solution
        tensor([1.3333, 1.3333])
    """
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {dtypes.scalar_type_name(A._data.dtype)} and other's dtype "
            f"{dtypes.scalar_type_name(B._data.dtype)}"
        )
    if not A.dtype.is_floating_point or A.dtype.name == "bfloat16":
        raise RuntimeError("This function doesn't handle types other than float and double")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    if A.shape[-2] != B.shape[-1 if vector else -2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    out = LinalgLstsq.apply(A, B, rcond=rcond, driver=driver, vector=vector)
    return return_types.linalg_lstsq(*out)


def lstsq(*args, **kwargs):
    """torch.lstsq was removed in favour of torch.linalg.lstsq: torch's error."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is "
        "deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
        "arguments and does not return the QR decomposition in the returned tuple (although "
        "it returns other information about the problem).\n\nTo get the QR decomposition "
        "consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored "
        "the residuals of the solution in the last m - n columns of the returned value "
        "whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of "
        "the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
        "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = "
        "torch.linalg.lstsq(A, B).solution"
    )


def matrix_rank(*args, **kwargs):
    """torch.matrix_rank was removed in favour of torch.linalg.matrix_rank: torch's error."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed "
        "in `torch.linalg.matrix_rank()` to 'hermitian'."
    )


def _no_grad():
    from ..autograd.grad_mode import no_grad

    return no_grad()


__all__ = ["vdot", "matrix_rank", "lstsq"]
