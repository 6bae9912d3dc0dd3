"""EmbeddingBag: sums, means or maxima of bags of embeddings without building the rows."""
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op
from ..backend import scatter_add
from ..creation import empty, zeros
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter
from .sparse import EmbeddingDenseBackward, _renorm_, _wrap_padding_idx

_MODES = {"sum": 0, "mean": 1, "max": 2}


class EmbeddingBagOp(Op):
    """Bags of rows of weight reduced by sum / mean / max; indices, bag ids and the kept-row
    mask arrive as raw arrays. Inputs: weight and (optionally) per_sample_weights."""
    node_name = "EmbeddingBagBackward0"
    saves_inputs = True
    saves = ("idx", "bag", "keep", "arg", "coef")

    def forward(self, weight, psw, idx=None, bag=None, keep=None, bags=0, mode=1,
                padding_idx=-1, scale=False):
        xp = self.xp
        self.idx, self.bag, self.keep, self.mode = idx, bag, keep, mode
        self.scale, self.padding_idx, self.arg = scale, padding_idx, None
        rows = weight[idx]
        out = xp.zeros((bags, weight.shape[1]), dtype=weight.dtype)
        if mode == 2:
            self.arg = xp.full(out.shape, -1, dtype=xp.int64)
            for b in range(bags):
                members = xp.nonzero((bag == b) & keep)[0]
                if members.size:
                    best = rows[members].argmax(axis=0)
                    self.arg[b] = members[best]
                    out[b] = rows[members[best], xp.arange(weight.shape[1])]
            return out
        coef = keep.astype(weight.dtype)
        if psw is not None:
            coef = coef * psw
        if mode == 1:
            counts = xp.bincount(bag[keep], minlength=bags).astype(weight.dtype)
            coef = coef / xp.maximum(counts, 1)[bag]
        self.coef = coef
        scatter_add(xp, out, bag, rows * coef[:, None])
        return out

    def backward(self, grad):
        weight, psw = self.inputs
        xp, dev, num = grad.xp, grad.device, weight.shape[0]
        if self.mode == 2:
            valid = self.arg >= 0
            rows = xp.where(valid, self.idx[xp.maximum(self.arg, 0)], 0)
            flat = rows * weight.shape[1] + xp.arange(weight.shape[1])
            g = grad * Tensor._make(valid.astype(grad._data.dtype), dev)
            grad_w = zeros(num * weight.shape[1], dtype=grad.dtype, device=dev).scatter_add(
                0, Tensor._make(flat.reshape(-1), dev), g.reshape(-1))
            return grad_w.reshape(weight.shape), None
        g_rows = grad[Tensor._make(self.bag, dev)]
        grad_w = grad_psw = None
        if self.needs_input_grad[0]:
            coef = Tensor._make(self.coef, dev) if psw is None else self._coef_tensor(psw, dev)
            grad_w = EmbeddingDenseBackward.apply(g_rows * coef.unsqueeze(1), indices=self.idx,
                                                  num_weights=num, padding_idx=-1,
                                                  scale=self.scale)
        if psw is not None and self.needs_input_grad[1]:
            keep = Tensor._make(self.keep.astype(grad._data.dtype), dev)
            grad_psw = (g_rows * weight[Tensor._make(self.idx, dev)]).sum(1) * keep
        return grad_w, grad_psw

    def _coef_tensor(self, psw, dev):
        """coef as a function of per_sample_weights (so double backward reaches them)."""
        return psw * Tensor._make(self.keep.astype(psw._data.dtype), dev)


def _bags(input, offsets, per_sample_weights, include_last_offset):
    """Flatten 2-D input into fixed-size bags; return (idx, offsets, psw, last_offset)."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        xp = input.xp
        offs = xp.arange(0, input.numel(), input.shape[1], dtype=xp.int64)
        psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input._data.reshape(-1), offs, psw, False
    if input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        return input._data, offsets._data, per_sample_weights, include_last_offset
    raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                     f"{input.dim()}")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Reduce bags of embedding rows without materialising them (torch.nn.functional).

    Args:
        input: 2-D (B, N) fixed-size bags, or 1-D indices with `offsets` (start of each bag).
        weight: (num_embeddings, D).
        mode: 'sum', 'mean' (default) or 'max'.
        per_sample_weights: weights of each index ('sum' only).
        include_last_offset: offsets has B + 1 entries, the last one the end.
        padding_idx: this index is left out of every bag (and of the mean's count).

    Returns:
        (B, D); an empty bag gives zeros. grad_fn EmbeddingBagBackward0.

    Example:
        >>> w = framework.arange(6.).reshape(3, 2)
        >>> F.embedding_bag(framework.tensor([0, 2, 1]), w, framework.tensor([0, 2]))
        tensor([[2., 3.],
                [2., 3.]])
    """
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    idx, offs, psw, last = _bags(input, offsets, per_sample_weights, include_last_offset)
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with no_grad():
            _renorm_(weight, idx, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='{'sum'}' (got mode='{mode}'). Please open a feature request "
            "on GitHub.")
    xp = weight.xp
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    bags = offs.shape[0] - 1 if last else offs.shape[0]
    bag = xp.searchsorted(offs[:bags], xp.arange(idx.shape[0]), side="right") - 1
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    keep = (idx != padding_idx) if padding_idx is not None else xp.ones(idx.shape, bool)
    if last:
        keep = keep & (xp.arange(idx.shape[0]) < offs[-1])
    return EmbeddingBagOp.apply(weight, psw, idx=idx, bag=bag, keep=keep, bags=bags,
                              mode=_MODES[mode], padding_idx=-1 if padding_idx is None
                              else padding_idx, scale=scale_grad_by_freq)


class EmbeddingBag(Module):
    """Sums, means or maxima over bags of embeddings (nn.EmbeddingBag).

    Args:
        num_embeddings, embedding_dim: size of the table (weight initialised N(0, 1)).
        max_norm, norm_type, scale_grad_by_freq, sparse: as nn.Embedding.
        mode: 'sum', 'mean' (default) or 'max'.
        include_last_offset: offsets carry the end of the last bag too.
        padding_idx: an index that contributes nothing (its row starts at zero).

    Shape:
        input (B, N) or 1-D with offsets (B,); per_sample_weights like input; output (B, D).

    Example:
        >>> bag = nn.EmbeddingBag(10, 3, mode="sum")
        >>> bag(framework.tensor([[1, 2], [4, 5]])).shape
        framework.Size([2, 3])
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _wrap_padding_idx(padding_idx, num_embeddings, "padding_idx")
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype))
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                             self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An EmbeddingBag whose table is `embeddings` (frozen unless freeze=False)."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
