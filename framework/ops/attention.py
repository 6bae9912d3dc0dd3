"""The fused attention primitive behind F.scaled_dot_product_attention on torch's CPU flash path."""

import contextlib
import math
import os

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op, vmap_hook
from ..tensor import Tensor
import numpy as np

from . import _fused, _mkl, _sleef
from ._rowwise import row_dot, row_sum
from ._double_backward import not_implemented
from .activation import softmax
from .linalg import matmul


def _probs_(xp, scores, scale, mask):
    """Row softmax of scores * scale + mask in place, where rows that are all -inf give zeros
    (torch's _safe_softmax); also the rows' logsumexp (-inf for those rows)."""
    fused = _fused_probs_(xp, scores, scale, mask)
    if fused is not None:
        return fused
    scores *= scale
    if mask is not None:
        scores += mask.astype(scores.dtype, copy=False)
    m = scores.max(axis=-1, keepdims=True)
    m[~xp.isfinite(m)] = 0
    scores -= m
    xp.exp(scores, out=scores)
    s = row_sum(xp, scores, scores.ndim - 1)
    dead = s == 0
    s[dead] = 1
    lse = xp.where(dead, -xp.inf, xp.log(s) + m)[..., 0]
    scores *= 1 / s  # one reciprocal per row, then a product per element
    return scores, lse


def _fused_probs_(xp, scores, scale, mask):
    """_probs_ with _fused's compiled loops around NumPy's exp (the scale, mask and max
    applied and the row scaling done in them; row sums accumulated in float64), or None
    where they do not run. A mask other than one (L, S) array of the scores' dtype (the
    causal mask) is added by NumPy first."""
    k = _fused.kernels() if scores.size >= _fused.MIN_SIZE else None
    if k is None or _fused.flat(scores) is None or not scores.shape[-1]:
        return None
    if mask is not None and not _loop_mask(mask, scores):
        scores *= scale
        scores += mask.astype(scores.dtype, copy=False)
        scale, mask = None, None
    rows = scores.reshape(-1, scores.shape[-1])
    m = xp.empty(rows.shape[0], scores.dtype)
    sc = xp.empty(0, scores.dtype) if scale is None else scale.reshape(1)
    add = xp.empty((0, rows.shape[1]), scores.dtype) if mask is None else mask
    j = _sleef._jit()
    if j is not None:  # the same values in three passes, the maxima on lane vectors
        j.attention_shift(rows, m, sc, add, _sleef._CONSTS[rows.dtype])
    else:
        k.softmax_shift(rows, m, sc, add)
    xp.exp(scores, out=scores)
    s = xp.empty_like(m)
    k.softmax_scale(rows, xp.ones(1, scores.dtype), s)
    dead = s == 0
    s[dead] = 1
    lse = xp.where(dead, -xp.inf, xp.log(s) + m)
    return scores, lse.reshape(scores.shape[:-1])


def _softmax_grad_(xp, grad_s, row, p, scale):
    """grad_s = (grad_s - row) * p * scale in place (row: grad_s's row dots with p, keepdims):
    _fused's one pass where it runs (the same roundings), else NumPy's three."""
    k = _fused.kernels()
    flat = _fused.flat(grad_s, p) if k is not None and grad_s.shape[-1] else None
    if flat is not None and row.dtype == grad_s.dtype and row.size * grad_s.shape[-1] == p.size:
        n = grad_s.shape[-1]
        k.softmax_grad(grad_s.reshape(-1, n), row.reshape(-1), p.reshape(-1, n), scale.reshape(1))
        return
    grad_s -= row
    grad_s *= p
    grad_s *= scale


def _loop_mask(mask, scores):
    """Whether _fused.softmax_shift_loop takes the mask: one C-contiguous (L, S) NumPy array
    of the scores' dtype (as the causal mask is)."""
    return (
        type(mask) is type(scores)
        and mask.dtype == scores.dtype
        and mask.shape == scores.shape[-2:]
        and mask.flags.c_contiguous
    )


class ScaledDotProductFlashAttentionForCpu(Op):
    """softmax(q @ k^T * scale + mask) @ v for 4-D q, k, v; the node torch's CPU kernel makes.

    The mask (additive, already combined with the causal mask) is a parameter, not an input.
    Backward reuses the saved probabilities; under create_graph its gradients come from torch's
    NotImplemented node (torch's kernel has no derivative: a second backward raises).
    """

    saves_inputs = True
    saves_output = True  # torch keeps the output (`_saved_output`)
    saves = ("probs", "mask", "lse", "attn_mask")
    saved_fields = {
        "attn_mask": "attn_mask",
        "dropout_p": "=0.0",
        "is_causal": "is_causal",
        "key": "input1",
        "logsumexp": "lse",
        "output": "result",
        "query": "input0",
        "scale": "scale_arg",
        "value": "input2",
    }

    def forward(
        self, q, k, v, mask=None, scale=1.0, attn_mask=None, is_causal=False, scale_arg=None
    ):
        """The attention output ``softmax(q @ k^T * scale + mask) @ v`` and its log-sum-exp per
        row."""
        xp = self.xp
        self.scale, self.mask = scale, mask
        self.attn_mask, self.is_causal, self.scale_arg = attn_mask, is_causal, scale_arg
        self.replay = _replay(xp, q, k, v)
        if self.replay is not None:
            return self._replayed(q, k, v)
        scores = q @ xp.swapaxes(k, -1, -2)  # a fresh array: the rest works in place
        sc = xp.asarray(scale, dtype=q.dtype)
        self.probs, self.lse = _probs_(xp, scores, sc, mask)
        # torch's kernel writes the output in the query's layout: heads inside sequence (q a
        # transposed view of (B, L, H, E)) stays so, and out.transpose(1, 2) is then
        # contiguous (no CloneBackward0 in .contiguous())
        out = _product_like(xp, self.probs, v, q)
        if _heads_inside(q) and not _heads_inside(out):  # (a broadcast batch)
            out = xp.ascontiguousarray(out.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3)
        return out

    def _replayed(self, q, k, v):
        """The forward by `_flash_jit` (torch's bits); the probabilities are not kept."""
        j, gemm = self.replay
        out = np.empty_like(q)  # torch: empty_like(query), its layout kept
        self.lse = np.empty(q.shape[:3], q.dtype)
        qs = _q_split(q.shape[2])
        sc = q.dtype.type(self.scale)
        mask = _full_mask(self.attn_mask, q, k)
        blocks = q.shape[0] * q.shape[1] * -(-q.shape[2] // qs)
        with _mkl_serial(blocks):
            j.flash_forward(q, k, v, mask, self.is_causal, out, self.lse, sc, qs, 512,
                            _vector_bytes() // q.itemsize, _threads(), gemm)  # fmt: skip
        self.probs = None
        return out

    def _replayed_grads(self, grad, q, k, v):
        """(grad_q, grad_k, grad_v) by `_flash_jit` (torch's bits), laid out as torch's."""
        j, gemm = self.replay
        dt = self.lse.dtype  # the forward's (float32 for half inputs computed in float32)
        qd, kd, vd, od, gd = (a._data.astype(dt, copy=False) for a in (q, k, v, self.output, grad))
        g = np.ascontiguousarray(gd.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3)
        gq, gk, gv = (_like_query(a, a.shape, True) for a in (qd, kd, vd))
        mask = _full_mask(self.attn_mask, qd, kd)
        sc = qd.dtype.type(self.scale)
        with _mkl_serial(qd.shape[0] * qd.shape[1]):
            lanes = _vector_bytes() // qd.itemsize
            dots = j.row_dots(gd, od, lanes)  # each row's g . out, torch's lane order
            j.flash_backward(g, qd, kd, vd, dots, self.lse, mask, self.is_causal,
                             gq, gk, gv, sc, _q_split(qd.shape[2]), 512, lanes, _threads(),
                             gemm)  # fmt: skip
        half = q._data.dtype
        return tuple(Tensor._make(a.astype(half, copy=False), grad.device) for a in (gq, gk, gv))

    def backward(self, grad):
        q, k, v = self.inputs
        if self.replay is not None and not is_grad_enabled():
            return self._replayed_grads(grad, q, k, v)
        if is_grad_enabled() and vmap_hook[0]:  # batched (jacrev): the formula in Tensor ops
            return self._composed_grads(grad, q, k, v)
        if is_grad_enabled():  # create_graph: torch's kernel has no derivative (NotImplemented)
            return not_implemented(
                "_scaled_dot_product_flash_attention_for_cpu_backward",
                (grad, q, k, v, self.output),
                lambda: self._grads(grad, q, k, v),
            )
        return self._grads(grad, q, k, v)

    def _composed_grads(self, grad, q, k, v):
        """(grad_q, grad_k, grad_v) in Tensor ops, the probabilities rebuilt from q and k."""
        p = _composed_probs(q, k, self.mask, self.scale)
        grad_v = matmul(p.transpose(-2, -1), grad)
        grad_p = matmul(grad, v.transpose(-2, -1))
        grad_s = p * (grad_p - (grad_p * p).sum(-1, keepdim=True)) * self.scale
        return matmul(grad_s, k), matmul(grad_s.transpose(-2, -1), q), grad_v

    def _grads(self, grad, q, k, v):
        """(grad_q, grad_k, grad_v) from the saved probabilities, on arrays."""
        if self.replay is not None:
            return self._replayed_grads(grad, q, k, v)
        xp, p, g = self.xp, self.probs, grad._data
        grad_v = _product_like(xp, xp.swapaxes(p, -1, -2), g, v._data)
        grad_s = g @ xp.swapaxes(v._data, -1, -2)  # d softmax: p * (g_p - sum(g_p * p))
        # the row term sum_j p_ij g_p_ij over the keys, as torch's math backward (flash's
        # g_i . out_i over the head width is the same in exact arithmetic but cancels
        # differently: fuzz seed 14000372 gave gradients 1e15 off torch's at large inputs)
        row = row_dot(xp, grad_s, p, grad_s.ndim - 1)
        _softmax_grad_(xp, grad_s, row, p, xp.asarray(self.scale, dtype=g.dtype))
        grad_q = _product_like(xp, grad_s, k._data, q._data)
        grad_k = _product_like(xp, xp.swapaxes(grad_s, -1, -2), q._data, k._data)
        return tuple(Tensor._make(a, grad.device) for a in (grad_q, grad_k, grad_v))

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative yet
    jvp_name = "_scaled_dot_product_flash_attention_for_cpu"


def _heads_inside(a):
    """Whether a 4-D (B, H, L, E) array is laid out heads inside sequence (a transposed view
    of (B, L, H, E), as the split of a fused qkv projection is)."""
    return a.ndim == 4 and a.strides[1] < a.strides[2]


def _product_like(xp, a, b, like):
    """a @ b of 4-D arrays, laid out heads inside sequence where like's are (torch's flash
    kernels make their output and gradients so: empty_like of the query or input; the view
    of it copies nothing then), written by matmul's out (no copy); else the plain product."""
    if not (_heads_inside(like) and a.ndim == b.ndim == 4 and a.dtype == b.dtype == like.dtype):
        return a @ b
    if a.shape[:2] != b.shape[:2]:  # a broadcast batch: the plain product
        return a @ b
    n, h, m, e = a.shape[:3] + b.shape[3:]
    return xp.matmul(a, b, out=xp.empty((n, m, h, e), a.dtype).transpose(0, 2, 1, 3))


def _composed_probs(q, k, mask, scale):
    s = matmul(q, k.transpose(-2, -1)) * scale
    if mask is not None:
        s = s + Tensor._make(mask, q.device)
    p = softmax(s, -1)
    if mask is not None:  # rows with every key masked are zero, not NaN
        dead = (mask == -math.inf).all(axis=-1, keepdims=True)
        if dead.any():
            p = p.masked_fill(Tensor._make(dead, q.device), 0.0)
    return p


_JIT = [None]  # the numba module `_flash_jit`, False without numba
_VECTOR = []  # torch's vector bytes, once read: 64 (AVX-512), 32 (AVX2) or None


def _vector_bytes():
    """The width of torch's Vectorized in its attention kernel: 64 bytes where it picks its
    AVX-512 kernels (an AVX-512 CPU unless ATEN_CPU_CAPABILITY says otherwise), 32 for
    AVX2; None for its default (unvectorised) kernels, whose exps are not replayed here."""
    if not _VECTOR:
        cap = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
        width = {"avx2": 32, "default": None}.get(cap, 0)
        if width == 0:
            width = 32
            try:
                with open("/proc/cpuinfo") as f:
                    for line in f:
                        if line.startswith("flags"):
                            flags = set(line.split(":", 1)[1].split())
                            if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
                                width = 64
                            break
            except OSError:
                pass
        _VECTOR.append(width)
    return _VECTOR[0]


def _replay(xp, q, k, v):
    """(`_flash_jit`, the address of MKL's cblas_?gemm) where torch's kernel can be replayed:
    NumPy float32/float64 inputs of one dtype, with MKL (torch's BLAS) and numba; else None."""
    dt = q.dtype
    if xp is not np or dt.char not in "fd" or not (dt == k.dtype == v.dtype):
        return None
    if _vector_bytes() is None:
        return None
    if not all(a.strides[3] == a.itemsize or a.shape[3] == 1 for a in (q, k, v)):
        return None
    if not _mkl.available():
        return None
    j = _fused.jit_module("_flash_jit", _JIT)
    if j is None:
        return None
    import ctypes

    fn = _mkl._state[0][0 if dt.char == "f" else 1]
    return j, ctypes.cast(fn, ctypes.c_void_p).value


def _threads():
    """torch's intra-op thread count (its kernels pick a per-thread buffer by it): what
    set_num_threads set, else the default read once (threadpoolctl's query costs ~2 ms)."""
    from .. import _namespace

    n = _namespace._threads["n"]
    if n is None:
        if not _DEFAULT_THREADS:
            _DEFAULT_THREADS.append(_namespace.get_num_threads())
        n = _DEFAULT_THREADS[0]
    return n


_INTEL = []  # whether the CPU is Intel's, once read


def _intel():
    """Whether /proc/cpuinfo names an Intel CPU (MKL's threads inside an OpenMP parallel
    region follow set_num_threads there, not on AMD's: `_mkl_serial`); True where it cannot
    be read."""
    if not _INTEL:
        try:
            with open("/proc/cpuinfo") as f:
                vendor = next((ln for ln in f if ln.startswith("vendor_id")), "GenuineIntel")
        except OSError:
            vendor = "GenuineIntel"
        _INTEL.append("GenuineIntel" in vendor)
    return _INTEL[0]


_DEFAULT_THREADS = []


@contextlib.contextmanager
def _mkl_serial(blocks):
    """MKL on one thread (this thread's setting) while the kernel runs where torch runs its
    blocks in an OpenMP parallel region (more than one block and one thread): MKL is then
    sequential inside it, and a threaded product splits its sums otherwise. On an Intel CPU
    not after set_num_threads: torch's set_num_threads also sets MKL's count, and its
    products inside the region then run on that many threads there (measured on a Xeon:
    a key gradient 13,482 elements apart until the replay followed). On an AMD EPYC they
    stay sequential after it (measured: 31 of 40 random SDPA programs apart with the
    threaded replay, 0 of those with the sequential one)."""
    from .. import _namespace

    if blocks < 2 or _threads() < 2 or (_namespace._threads["n"] is not None and _intel()):
        yield
        return
    lib = _mkl.library()
    before = lib.MKL_Set_Num_Threads_Local(1)
    try:
        yield
    finally:
        lib.MKL_Set_Num_Threads_Local(before)


def _q_split(length):
    """torch's query block: 256 rows from 768 queries, 64 from 192, else 32."""
    return 256 if length >= 768 else 64 if length >= 192 else 32


def _like_query(a, shape, zeros):
    """An (B, H, L, E) array of a's dtype laid out (B, L, H, E) (torch's kernels allocate
    their output and gradients so and transpose them), zeros or empty."""
    b, h, n, e = shape
    make = np.zeros if zeros else np.empty
    return make((b, n, h, e), a.dtype).transpose(0, 2, 1, 3)


def _full_mask(mask, q, k):
    """The additive mask broadcast to (B, H, L, S) in q's dtype, or an empty 4-D array."""
    if mask is None:
        return np.empty((0, 0, 0, 0), q.dtype)
    shape = q.shape[:3] + (k.shape[2],)
    return np.broadcast_to(mask.astype(q.dtype, copy=False), shape)
