"""embedding_bag: sums, means or maxima of bags of embedding rows without materialising the
per-index rows' graph (one primitive, torch's EmbeddingBagBackward0)."""

from ..dtypes import type_string
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op, vmap_hook
from ..backend import scatter_add
from ..tensor import Tensor


class EmbeddingBag(Op):
    """out[b] = reduce over the rows weight[idx[k]] (times psw[k]) whose bag is b."""

    saves_inputs = True
    saves = ("argmax", "freq")

    def forward(self, w, psw, idx=None, bag=None, n_bags=0, mode="mean", freq=None):
        xp = self.xp
        self.idx, self.bag, self.n_bags, self.mode, self.freq = idx, bag, n_bags, mode, freq
        rows = w[idx]
        d = w.shape[1]
        counts = xp.bincount(bag, minlength=n_bags)[:n_bags]
        self.counts = counts
        if mode == "max":  # one bag at a time, as torch's loop: the bag's first row, then
            # each later row where it is strictly greater (a NaN stays only if it came first)
            out = xp.zeros((n_bags, d), dtype=w.dtype)
            self.argmax = xp.full((n_bags, d), -1, dtype="int64")
            for b in range(n_bags):
                members = xp.nonzero(bag == b)[0]
                if len(members):
                    cur, arg = rows[members[0]].copy(), xp.full(d, idx[members[0]])
                    for k in members[1:]:
                        up = rows[k] > cur
                        cur, arg = xp.where(up, rows[k], cur), xp.where(up, idx[k], arg)
                    out[b], self.argmax[b] = cur, arg
            return out
        if psw is not None:
            rows = rows * psw[:, None]
        out = xp.zeros((n_bags, d), dtype=w.dtype)
        scatter_add(xp, out, bag, rows)
        if mode == "mean":
            out /= xp.maximum(counts, 1)[:, None].astype(w.dtype)
        return out

    def backward(self, grad):
        w, psw = self.inputs
        need_w, need_psw = self.needs_input_grad
        from ..creation import zeros

        dev = grad.device
        gw = gpsw = None
        if self.mode == "max":
            if need_w:
                am = self.argmax
                valid = am >= 0
                safe = Tensor._make(grad.xp.where(valid, am, 0), dev)
                g = grad * Tensor._make(valid, dev)
                gw = zeros(tuple(w.shape), dtype=grad.dtype, device=dev).scatter_add(0, safe, g)
            return gw, None
        idx, bag = Tensor._make(self.idx, dev), Tensor._make(self.bag, dev)
        g_rows = grad.index_select(0, bag)  # each index's bag gradient
        if self.mode == "mean":
            scale = (1.0 / grad.xp.maximum(self.counts, 1)).astype(grad._data.dtype)
            g_rows = g_rows * Tensor._make(scale[self.bag][:, None], dev)
        if need_w:
            contrib = g_rows * psw.unsqueeze(1) if psw is not None else g_rows
            if isinstance(self.freq, str):
                raise RuntimeError(
                    "embedding_backward: scale_grad_by_freq not supported with sparse gradients"
                )
            if self.freq is not None:  # scale_grad_by_freq: 1 / frequency, per index
                contrib = contrib * Tensor._make(self.freq[:, None].astype(grad._data.dtype), dev)
            gw = zeros(tuple(w.shape), dtype=grad.dtype, device=dev).index_add(0, idx, contrib)
        if need_psw:
            gpsw = (g_rows * w.index_select(0, idx)).sum(1)
        return gw, gpsw

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative yet

    @staticmethod
    def jvp_name(args):
        """torch runs _embedding_bag_forward_only when the weight neither requires grad nor
        has a tangent (a tangent on per_sample_weights alone names that op)."""
        w = args[0]
        plain = not w.requires_grad and not any(t is not None for t in (w._fw or {}).values())
        return "_embedding_bag_forward_only" if plain else "_embedding_bag"


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Computes sums, means or maxes of "bags" of embeddings, without instantiating the
    intermediate embeddings.

    A 2-D ``input`` holds one bag per row; a 1-D ``input`` is split into bags at ``offsets``.
    See :class:`~framework.nn.EmbeddingBag` for the module form.

    Args:
        input (Tensor): the indices: :math:`(B, N)` (B bags of N), or 1-D with ``offsets``.
        weight (Tensor): the embedding matrix, :math:`(V, D)`.
        offsets (Tensor, optional): for 1-D ``input``, the start of each bag (default: None).
        max_norm (float, optional): rows whose norm is larger are renormalized to this norm, in
            place (default: None).
        norm_type (float, optional): the p of the p-norm for ``max_norm`` (default: 2).
        scale_grad_by_freq (bool, optional): scale the weight's gradient by the inverse frequency
            of the indices in the whole input (not with ``'max'``); on the CPU with a dense
            gradient, with torch's CPU kernel's counts (see the README) (default: False).
        mode (str, optional): ``'sum'``, ``'mean'`` or ``'max'`` (default: ``'mean'``).
        sparse (bool, optional): accepted for compatibility; the gradient is dense here (default:
            False).
        per_sample_weights (Tensor, optional): a weight per index, of the shape of ``input``;
            ``'sum'`` mode only (default: None).
        include_last_offset (bool, optional): ``offsets`` has one more element, the end of the last
            bag (default: False).
        padding_idx (int, optional): indices equal to this are left out of their bag (default:
            None).

    Returns:
        Tensor: :math:`(B, D)`, one row per bag (zeros for an empty bag).

    Example:
        >>> w = framework.arange(6.0).reshape(3, 2)
        >>> F.embedding_bag(framework.tensor([0, 2, 1]), w, framework.tensor([0, 2]))
        tensor([[2., 3.],
                [2., 3.]])
        >>> F.embedding_bag(framework.tensor([[0, 2], [1, 1]]), w, mode="sum")
        tensor([[4., 6.],
                [4., 6.]])
    """
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if not weight.is_floating_point():
        got = type_string(weight._data.dtype)
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the "
            "following scalar types: Half, BFloat16, Float, Double; but got "
            f"{got} instead (while checking arguments for embedding_bag)"
        )
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"embedding_bag: per_sample_weights was not None. "
            f"per_sample_weights is only supported for mode='sum' (got "
            f"mode='{mode}'). Please open a feature request on GitHub."
        )
    plan = (input, weight, offsets, per_sample_weights, mode, include_last_offset, padding_idx)
    plan += (max_norm, norm_type, scale_grad_by_freq, sparse)
    if vmap_hook[0]:  # batched arguments: one call for the whole batch
        from ..func._rules_extras import embedding_bag_batched

        out = embedding_bag_batched(_plan, plan)
        if out is not NotImplemented:
            return out
    psw, idx, bag, n_bags, freq = _plan(*plan)
    return EmbeddingBag.apply(weight, psw, idx=idx, bag=bag, n_bags=n_bags, mode=mode, freq=freq)


def _plan(
    input,
    weight,
    offsets,
    per_sample_weights,
    mode,
    include_last_offset,
    padding_idx,
    max_norm,
    norm_type,
    scale_grad_by_freq,
    sparse,
):
    """The bags of (plain) indices: (per_sample_weights kept, idx, bag of each, n_bags,
    freq), the index checks made and max_norm's renorm of weight done."""
    xp = input.xp
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated "
                "is a mini-batch of fixed length sequences. However, found offsets "
                f"of type {type(offsets)}"
            )
        b, n = input.shape
        idx = input._data.reshape(-1)
        bag = xp.repeat(xp.arange(b), n)
        n_bags = b
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        off = offsets._data.astype("int64")
        idx = input._data
        n_bags = len(off) - 1 if include_last_offset else len(off)
        if len(off) and off[0] != 0:
            name = "IntTensor" if offsets._data.dtype.itemsize == 4 else "LongTensor"
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                f"start from position 0. However, got {int(off[0])}\n[ torch.{name}{{}} ]"
            )
        if len(off) and off[-1] > len(idx):
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {len(idx)} but got "
                f"offsets[-1] of {int(off[-1])}"
            )
        # torch's CPU kernels: the last bag runs to the end of input, include_last_offset's
        # too, except in FBGEMM's (float32 sum/mean without padding_idx), which ends it there
        fbgemm = weight._data.dtype.name == "float32" and mode != "max" and padding_idx is None
        if include_last_offset and fbgemm:
            ends = off[1 : n_bags + 1]
        else:
            ends = xp.append(off[1:n_bags], len(idx))
        bag = xp.repeat(xp.arange(n_bags), xp.maximum(ends[:n_bags] - off[:n_bags], 0))
        idx = idx[: len(bag)] if n_bags else idx[:0]
        psw = per_sample_weights
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    idx = idx.astype("int64")
    _check_range(idx, bag, weight, mode != "max" and padding_idx is None)
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        keep = idx != padding_idx
        idx, bag = idx[keep], bag[keep]
        if psw is not None:
            psw = psw[Tensor._make(keep, input.device)]
    if max_norm is not None:
        from .embedding import _renorm_

        with no_grad():
            _renorm_(weight, idx, max_norm, norm_type)
    freq = None
    if scale_grad_by_freq and mode != "max":
        freq = "sparse"  # torch refuses it in backward
        if not sparse:
            cpu = input.device.type == "cpu"
            freq = _inverse_freq(xp, input._data.reshape(-1), idx, weight.shape[0], cpu)
    return psw, idx, bag, n_bags, freq


def _inverse_freq(xp, every, idx, n, cpu=False):
    """1 / (how often each of `idx` occurs in the whole input `every`), the scale of
    scale_grad_by_freq. torch's dense CPU kernel divides the i-th distinct index's rows by the
    count of the i-th entry of the sorted input instead (it indexes the sorted indices with the
    group number): cpu=True reproduces that; CUDA's kernel uses the true frequency."""
    every = every.astype("int64")
    counts = xp.bincount(every, minlength=n)
    if not cpu:
        return 1.0 / counts[idx]
    rank = xp.searchsorted(xp.unique(every), idx)  # the group number of each index
    return 1.0 / counts[xp.sort(every)[rank]]


def _check_range(idx, bag, weight, fbgemm):
    """torch's bound check of the indices in bags, worded by the kernel that runs: FBGEMM's
    for float32 sum/mean without padding_idx (naming the position in the bag), the generic
    one's otherwise."""
    n = weight.shape[0]
    bad = (idx < 0) | (idx >= n)
    if not idx.size or not bool(bad.any()):
        return
    pos = int(weight.xp.argmax(bad))
    v = int(idx[pos])
    if fbgemm and weight._data.dtype.name == "float32":
        within = pos - int(weight.xp.argmax(bag == bag[pos]))
        raise RuntimeError(
            f"Index {within} of input takes value {v} which is not in the valid range [0, {n})"
        )
    raise RuntimeError(
        f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {v}"
    )


__all__ = []
