"""linalg.householder_product (torch.orgqr): the first n columns of H_1 ... H_k, with
H_i = I - tau_i v_i v_i^T and v_i the i-th column of A below the diagonal (1 on it). One op
with torch's node (LinalgHouseholderProductBackward0); its backward runs through the product
factor by factor in Tensor ops (so second derivatives work)."""

import ctypes

import numpy as np

from . import _mkl
from . import linalg_lapack as _lapack
from .._errors import refuse
from ..autograd.op import Op, vmap_hook
from ..tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from .linalg_ext import _mT, lapack_layout
from .unary import _zeros


_ORGQR = {}  # dtype char -> MKL's LAPACK ?orgqr_ (ctypes), False where MKL is unavailable


def _mkl_orgqr(A, tau):
    """Q by MKL's LAPACK ``?orgqr`` (torch's CPU forward calls it: its bits, where ours by
    reflectors differ in about 45 % of small random cases) on float32/float64 NumPy arrays,
    called as torch's apply_orgqr calls it: the Fortran routine (no NaN check: NaN and inf
    spread as LAPACK spreads them), one matrix at a time with the workspace size queried
    once; None without MKL or for another dtype."""
    dt = A.dtype
    if type(A) is not np.ndarray or dt.char not in "fd" or not A.size or dt != tau.dtype:
        return None
    fn = _ORGQR.get(dt.char)
    if fn is None:
        lib = _mkl.library()
        fn = getattr(lib, "%sorgqr_" % "sd"["fd".index(dt.char)], False) if lib else False
        if fn:
            fn.argtypes, fn.restype = [ctypes.c_void_p] * 9, None
        _ORGQR[dt.char] = fn
    if not fn or not dt.isnative:
        return None
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    Q = np.array(np.swapaxes(A, -1, -2), order="C").reshape(-1, n, m)  # a copy, column-major
    taus = np.ascontiguousarray(tau).reshape(Q.shape[0], k)
    r = _lapack._Ints(m, n, k, m, -1, 0)  # m n k lda lwork info
    pq, sq = Q.ctypes.data, Q.strides[0]
    pt, st = taus.ctypes.data, taus.strides[0]

    def query():
        size = np.zeros(1, dt)
        fn(r.base, r(1), r(2), pq, r(3), pt, size.ctypes.data, r(4), r(5))
        return max(1, int(size[0]))

    r[4] = _lapack._workspace(("orgqr", dt.char, m, n, k), query)
    work = np.empty(r[4], dt)
    pw = work.ctypes.data
    for b in range(Q.shape[0]):
        fn(r.base, r(1), r(2), pq + b * sq, r(3), pt + b * st, pw, r(4), r(5))
        if r[5]:
            return None
    return np.swapaxes(Q.reshape(A.shape[:-2] + (n, m)), -1, -2)


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
    saves_output = True

    def forward(self, A, tau):
        """Q = H_1 ... H_k from the reflectors stored below the diagonal of A."""
        xp = self.xp
        m, n = A.shape[-2:]
        k = tau.shape[-1]
        self.jvp_reads_primal = k > 0  # (torch's tangent reads A and tau, empty ones too)
        Q = _mkl_orgqr(A, tau)
        if Q is not None:
            return Q
        V = xp.tril(A[..., :, :k], -1) + xp.eye(m, k, dtype=A.dtype)
        Q = xp.array(xp.broadcast_to(xp.eye(m, n, dtype=A.dtype), A.shape))
        for i in range(k - 1, -1, -1):  # Q = H_i (H_i+1 ... E)
            v = V[..., :, i : i + 1]
            Q = Q - tau[..., i, None, None] * (v @ (xp.swapaxes(v, -1, -2) @ Q))
        return lapack_layout(xp, Q)

    def backward(self, grad):
        """torch's householder_product_backward: K = Q grad^T, brought from factor to factor
        as K <- H_i+1^-1 K H_i (H(tau)^-1 = H(sigma), sigma = tau / (tau |v|^2 - 1)), with
        d v_i = -tau_i (v_i^T K + K v_i) and d tau_i = -v_i^T K v_i over rows i.. . Without
        create_graph torch updates K in place on rows (columns) i.. only; with it, whole
        matrices (an inf/NaN gradient then spreads differently, as in torch)."""
        A, tau = self.inputs
        m, n = A.shape[-2:]
        k = tau.shape[-1]
        if not k or not A.numel():  # torch leaves both gradients undefined then
            return None, None
        from .join import cat, stack

        partial = not is_grad_enabled()
        V = _reflectors(A, n)
        Vk = V[..., :, :k]
        sigma = tau / (tau * (Vk * Vk).sum(-2) - 1.0)
        K = self.output @ _mT(grad)

        def reflect(i, j, t, K, left):
            """(I - t v v^T) K (left) or K (I - t v v^T), v = V[:, j]; rows (columns) from i."""
            v = V[..., :, j : j + 1]
            t = t[..., j : j + 1].unsqueeze(-1)
            if not partial:
                return K - (t * v) * (_mT(v) @ K) if left else K - (K @ (t * v)) * _mT(v)
            v = v[..., i:, :]
            if left:
                part = K[..., i:, :]
                return cat([K[..., :i, :], part - (t * v) * (_mT(v) @ part)], -2)
            part = K[..., :, i:]
            return cat([K[..., :, :i], part - (part @ (t * v)) * _mT(v)], -1)

        K = reflect(0, 0, sigma, K, True)
        g_v, g_tau = [], []
        for i in range(k):
            v = V[..., i:, i : i + 1]
            t = tau[..., i : i + 1].unsqueeze(-1)
            vHK = _mT(v) @ K[..., i:, :]
            Kv = K[..., :, i:] @ v
            g_v.append((-t * vHK).squeeze(-2) - (t * Kv).squeeze(-1))
            g_tau.append(-(vHK[..., :, i:] @ v)[..., 0, 0])
            if i != k - 1:
                K = reflect(i + 1, i + 1, sigma, K, True)
                K = reflect(i, i, tau, K, False)
        g_a = stack(g_v + [_zeros(g_v[0])] * (n - k), -1).tril(-1)
        if partial or vmap_hook[0]:  # (under vmap the entries are batched: stacked)
            return g_a, stack(g_tau, -1)
        g_t = g_tau[0].new_zeros(tuple(tau.shape))  # torch copies each entry into zeros
        for i, g in enumerate(g_tau):  # (tau_grad's CopySlices nodes, with create_graph)
            g_t[..., i] = g
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
