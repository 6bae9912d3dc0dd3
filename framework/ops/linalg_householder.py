"""linalg.householder_product (torch.orgqr): the first n columns of H_1 ... H_k, with
H_i = I - tau_i v_i v_i^T and v_i the i-th column of A below the diagonal (1 on it). One op
with torch's node (LinalgHouseholderProductBackward0); its backward runs through the product
factor by factor in Tensor ops (so second derivatives work)."""

from .._errors import refuse
from ..autograd.op import Op
from ..tensor import Tensor
from .linalg_ext import _mT


def _reflectors(A, k):
    """v_1 .. v_k (as columns, (*, m, k)) from A: zero above the diagonal, one on it."""
    m = A.shape[-2]
    V = A[..., :, :k].tril(-1)
    eye = Tensor._make(A.xp.eye(m, k, dtype=A._data.dtype), A.device)
    return V + eye


class LinalgHouseholderProduct(Op):
    """linalg.householder_product(A, tau): the product of Householder reflectors."""

    no_bfloat16 = "orgqr_cpu"
    saves_inputs = True

    def forward(self, A, tau):
        """Q = H_1 ... H_k from the reflectors stored below the diagonal of A."""
        xp = self.xp
        m, n = A.shape[-2:]
        k = tau.shape[-1]
        self.jvp_reads_primal = k > 0  # (torch's tangent reads A and tau, empty ones too)
        V = xp.tril(A[..., :, :k], -1) + xp.eye(m, k, dtype=A.dtype)
        Q = xp.array(xp.broadcast_to(xp.eye(m, n, dtype=A.dtype), A.shape))
        for i in range(k - 1, -1, -1):  # Q = H_i (H_i+1 ... E)
            v = V[..., :, i : i + 1]
            Q = Q - tau[..., i, None, None] * (v @ (xp.swapaxes(v, -1, -2) @ Q))
        return Q

    def backward(self, grad):
        """With Q = P_i H_i S_i (P_i the factors before H_i, S_i those after times the first n
        columns of I): G_i = P_i^T grad S_i^T, d tau_i = -v_i^T G_i v_i and
        dv_i = -tau_i (G_i + G_i^T) v_i, whose entries below the diagonal are A's."""
        A, tau = self.inputs
        need_a, need_tau = self.needs_input_grad
        m, n = A.shape[-2:]
        k = tau.shape[-1]
        if not k or not A.numel():  # torch leaves both gradients undefined then
            return None, None
        V = _reflectors(A, k)
        xp, dt = A.xp, A._data.dtype
        eye_m = Tensor._make(xp.eye(m, dtype=dt), A.device)
        H = [eye_m - tau[..., i, None, None] * (V[..., :, i : i + 1] @ _mT(V[..., :, i : i + 1]))
             for i in range(k)]  # fmt: skip
        suffix = [None] * k  # S_i
        S = Tensor._make(xp.broadcast_to(xp.eye(m, n, dtype=dt), A.shape), A.device)
        for i in range(k - 1, -1, -1):
            suffix[i] = S
            S = H[i] @ S
        g_tau, g_v = [], []
        PtG = grad  # P_i^T grad, P_1 = I
        for i in range(k):
            v = V[..., :, i : i + 1]
            G = PtG @ _mT(suffix[i])
            g_tau.append(-(_mT(v) @ G @ v)[..., 0, 0])
            g_v.append(-tau[..., i, None, None] * ((G + _mT(G)) @ v))
            PtG = _mT(H[i]) @ PtG
        g_a = g_t = None
        if need_a:
            from .join import cat

            gV = cat(g_v, -1).tril(-1)
            g_a = cat([gV, A[..., :, k:] * 0], -1) if n > k else gV
        if need_tau:
            from .join import stack

            g_t = stack(g_tau, -1)
        return g_a, g_t

    jvp = Op.jvp_transpose


def householder_product(A, tau, *, out=None):
    """The first n columns of the product of k Householder reflectors
    H_i = I - tau_i v_i v_i^T, with v_i the i-th column of A below the diagonal and 1 on it
    (the Q of a QR factorization that LAPACK's geqrf packs as (A, tau)).

    Args:
        A (Tensor): the reflectors, ``(*, m, n)`` with m >= n.
        tau (Tensor): their scales, ``(*, k)`` with k <= n.
        out (Tensor, optional): ignored (no out= support).

    Example:
        >>> A = framework.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> framework.linalg.householder_product(A, framework.tensor([1.0, 0.0]))
        tensor([[ 0., -1.],
                [-1.,  0.]])
    """
    fn = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(
            f"{fn}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.dim() - tau.dim() != 1:
        raise RuntimeError(
            f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.dim()} and input.ndim is equal to {A.dim()}"
        )
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            f"{fn}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(tau.shape[:-1])}"
        )
    refuse(A._data, "biu", "orgqr_cpu")
    return LinalgHouseholderProduct.apply(A, tau)


def orgqr(input, tau):
    """torch.orgqr: an alias of :func:`framework.linalg.householder_product`.

    Args:
        input (Tensor): the reflectors, ``(*, m, n)``.
        tau (Tensor): their scales, ``(*, k)``.

    Example:
        >>> A = framework.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> framework.orgqr(A, framework.tensor([1.0, 0.0]))
        tensor([[ 0., -1.],
                [-1.,  0.]])
    """
    return householder_product(input, tau)


__all__ = ["orgqr"]
