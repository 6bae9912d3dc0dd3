"""ctc_loss: the CTC forward-backward recursions in log space (one loop over time, vectorised
over the batch and the extended label positions), torch's gradient formula."""

from .._errors import refuse
from ..autograd.grad_mode import state
from ..autograd.op import Op, vmap_hook
from ._double_backward import not_implemented
from .loss import _quiet
from ..tensor import Tensor


def _lse(xp, *arrays):
    """logsumexp of same-shaped arrays, -inf safe."""
    m = arrays[0]
    for a in arrays[1:]:
        m = xp.maximum(m, a)
    safe = xp.where(xp.isfinite(m), m, 0)
    total = sum(xp.exp(a - safe) for a in arrays)
    with _quiet(xp):
        return xp.log(total) + safe


def _shift(xp, a, k):
    """a moved k places along axis 1 (right for k > 0, left for k < 0), -inf filled."""
    out = xp.full(a.shape, -xp.inf, a.dtype)
    if abs(k) < a.shape[1]:
        if k > 0:
            out[:, k:] = a[:, :-k]
        else:
            out[:, :k] = a[:, -k:]
    return out


class CtcLoss(Op):
    """Per-sample negative log-likelihoods; backward is torch's exp(lp) - occupation form."""

    no_bfloat16 = "ctc_loss_cpu"
    saves_inputs = True  # (torch keeps log_probs and the result for its backward kernel)
    saves_output = True
    saves = ("grad_lp", "live")

    def forward(self, lp, targets=None, in_len=None, tgt_len=None, blank=0, zero_infinity=False):
        """Per-sample CTC negative log-likelihoods (forward-backward over the extended label
        sequence); keeps the gradient of ``lp``."""
        xp = self.xp
        t_max, n, _ = lp.shape
        labels = _labels(xp, targets, tgt_len, n)  # (after the dtype checks, as torch)
        s_max = labels.shape[1]
        ext = xp.full((n, 2 * s_max + 1), blank, dtype="int64")
        ext[:, 1::2] = labels
        L = 2 * tgt_len + 1
        pos = xp.arange(2 * s_max + 1)
        # skip transitions s-2 -> s: non-blank and different from the label two back
        skip = xp.zeros(ext.shape, dtype=bool)
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
        ninf = -xp.inf
        emit = xp.take_along_axis(lp.transpose(1, 0, 2), ext[:, None, :].repeat(t_max, 1), 2)
        alpha = xp.full((t_max, n, ext.shape[1]), ninf, dtype=lp.dtype)
        alpha[0, :, 0] = emit[:, 0, 0]
        if s_max:  # (every target may be empty)
            alpha[0, :, 1] = xp.where(L > 1, emit[:, 0, 1], ninf)
        valid = pos[None, :] < L[:, None]
        for t in range(1, t_max):
            prev = alpha[t - 1]
            a1, a2 = _shift(xp, prev, 1), xp.where(skip, _shift(xp, prev, 2), ninf)
            alpha[t] = xp.where(valid, _lse(xp, prev, a1, a2) + emit[:, t], ninf)
        last = in_len - 1
        a_last = alpha[last, xp.arange(n)]
        end1 = xp.take_along_axis(a_last, (L - 1)[:, None], 1)[:, 0]
        end2 = xp.where(
            L > 1, xp.take_along_axis(a_last, xp.maximum(L - 2, 0)[:, None], 1)[:, 0], ninf
        )
        nll = -_lse(xp, end1, end2)
        # beta, from each sample's own last frame
        beta = xp.full(alpha.shape, ninf, dtype=lp.dtype)
        rows = xp.arange(n)
        beta[last, rows, L - 1] = emit[rows, last, L - 1]
        beta[last, rows, xp.maximum(L - 2, 0)] = xp.where(
            L > 1, emit[rows, last, xp.maximum(L - 2, 0)], beta[last, rows, xp.maximum(L - 2, 0)]
        )
        skip_next = xp.zeros(ext.shape, dtype=bool)
        skip_next[:, :-2] = skip[:, 2:]
        for t in range(t_max - 2, -1, -1):
            nxt = beta[t + 1]
            b1, b2 = _shift(xp, nxt, -1), xp.where(skip_next, _shift(xp, nxt, -2), ninf)
            new = xp.where(valid, _lse(xp, nxt, b1, b2) + emit[:, t], ninf)
            beta[t] = xp.where((t < last)[:, None], new, beta[t])
        # occupation log-probabilities summed per class, then torch's gradient
        ab = alpha + beta
        lcab = xp.full(lp.shape, ninf, dtype=lp.dtype)
        for s in range(ext.shape[1]):
            cls = ext[:, s]
            cur = lcab[:, rows, cls]
            lcab[:, rows, cls] = _lse(xp, cur, ab[:, :, s])
        with _quiet(xp):
            grad = xp.exp(lp) - xp.exp(lcab + nll[None, :, None] - lp)
        live = (xp.arange(t_max)[:, None] < in_len[None, :])[:, :, None]
        if zero_infinity:
            live = live & xp.isfinite(nll)[None, :, None]
        grad = xp.where(live, grad, 0)
        self.grad_lp, self.live = grad.astype(lp.dtype), live
        return nll.astype(lp.dtype)

    def backward(self, grad):
        if not state.enabled:
            return _CtcGrad.apply(grad, g=self.grad_lp, live=self.live)
        return not_implemented(  # torch's edges: the upstream gradient, log_probs, the loss
            "_ctc_loss_backward",
            (grad, self.inputs[0], self.output),
            lambda: _CtcGrad.apply(grad, g=self.grad_lp, live=self.live),
        )

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative yet
    jvp_name = "_ctc_loss"


class _CtcGrad(Op):
    """The input gradient: fixed per-frame gradients scaled by each sample's upstream grad
    (run without a graph: under create_graph ctc's backward records torch's NotImplemented)."""

    def forward(self, grad, g=None, live=None):
        # torch zeroes the frames past each input length (and a zero_infinity sample) rather
        # than scaling them by the upstream gradient (a NaN one stays off them)
        return self.xp.where(live, g * grad[None, :, None], 0).astype(g.dtype, copy=False)


def _labels(xp, tg, tgt_len, n):
    """(N, S) int64 labels from padded or concatenated (1-D, unbatched too) targets."""
    if tg.ndim != 1:
        return tg.astype("int64")
    if tg.shape[0] != int(tgt_len.sum()):
        raise RuntimeError(
            f"Expected tensor to have size {int(tgt_len.sum())} at dimension 0, but got "
            f"size {tg.shape[0]} for argument #2 'targets' (while checking arguments for "
            f"ctc_loss_cpu)"
        )
    labels = xp.zeros((n, int(tgt_len.max()) if len(tgt_len) else 0), dtype="int64")
    start = 0
    for i, k in enumerate(tgt_len.tolist()):
        labels[i, :k] = tg[start : start + k]
        start += k
    return labels


def _lengths(v, xp):
    if isinstance(v, Tensor):
        return xp.asarray(v._data, dtype="int64").reshape(-1)
    return xp.asarray(list(v), dtype="int64")


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank=0,
    reduction="mean",
    zero_infinity=False,
):
    """Connectionist temporal classification loss.

    Args:
        log_probs (Tensor): :math:`(T, N, C)` or :math:`(T, C)` log-probabilities (e.g.
            :func:`log_softmax` outputs).
        targets (Tensor): :math:`(N, S)` padded labels, or the 1-D concatenation of every target;
            they cannot be blank.
        input_lengths (Tensor or tuple): the length of each input, :math:`(N)` (at most :math:`T`).
        target_lengths (Tensor or tuple): the length of each target, :math:`(N)`.
        blank (int, optional): the blank label (default: 0).
        reduction (str, optional): ``'none'``, ``'mean'`` (each loss divided by its target length,
            then the batch mean) or ``'sum'`` (default: ``'mean'``).
        zero_infinity (bool, optional): replace infinite losses (inputs too short for their targets)
            and their gradients by zero (default: False).

    Example:
        >>> lp = framework.full((1, 1, 2), 0.5).log()
        >>> F.ctc_loss(lp, framework.tensor([[1]]), [1], [1], reduction="sum")
        tensor(0.6931)
    """
    xp = log_probs.xp
    refuse(log_probs._data, "biu", "ctc_loss_cpu")
    if vmap_hook[0]:  # batched arguments: every sample's sequences in one call
        from ..func._rules_extras import ctc_batched

        args = (log_probs, targets, input_lengths, target_lengths)
        out = ctc_batched(ctc_loss, args, blank, reduction, zero_infinity)
        if out is not NotImplemented:
            return out
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    in_len, tgt_len = _lengths(input_lengths, xp), _lengths(target_lengths, xp)
    if int(in_len.max()) > lp.shape[0]:
        raise RuntimeError(
            f"Expected input_lengths to have value at most {lp.shape[0]}, but got "
            f"value {int(in_len.max())} (while checking arguments for ctc_loss_cpu)"
        )
    loss = CtcLoss.apply(
        lp,
        targets=targets._data,
        in_len=in_len,
        tgt_len=tgt_len,
        blank=blank,
        zero_infinity=zero_infinity,
    )
    if zero_infinity:  # torch replaces infinite losses after the kernel (WhereBackward0)
        loss = loss.new_zeros(()).where(loss.isinf(), loss)  # torch: where(inf, 0, loss)
    if reduction == "mean":  # torch reduces the (1,) loss of an unbatched input as is
        div = Tensor._make(xp.maximum(tgt_len, 1).astype(lp._data.dtype), lp.device)
        return (loss / div.reshape(loss.shape)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss


__all__ = []
