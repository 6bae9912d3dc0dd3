"""Embedding (lookup table with a scatter-add backward) and one_hot."""
from .._errors import check_index_range
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op
from ..backend import scatter_add
from ..creation import empty
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter

_INDEX_TYPES = {"float32": "Float", "float64": "Double", "float16": "Half", "bool": "Bool",
                "uint8": "Byte", "int8": "Char", "int16": "Short"}


class EmbeddingLookup(Op):
    """weight[indices]; indices arrive as a raw integer array parameter."""
    node_name = "EmbeddingBackward0"

    def forward(self, weight, indices, padding_idx=-1, scale_grad_by_freq=False):
        self.indices, self.padding_idx, self.scale = indices, padding_idx, scale_grad_by_freq
        self.num_weights = weight.shape[0]
        check_index_range(self.xp, indices, weight.shape[0], weight.size == 0)
        return weight[indices]

    def backward(self, grad):
        return EmbeddingDenseBackward.apply(grad, indices=self.indices,
                                            num_weights=self.num_weights,
                                            padding_idx=self.padding_idx, scale=self.scale)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class EmbeddingDenseBackward(Op):
    """Sum each output row's gradient into its weight row (rows repeat, so scatter-add)."""

    def forward(self, grad, indices, num_weights, padding_idx, scale):
        xp = self.xp
        self.indices, self.padding_idx = indices, padding_idx
        self.num_weights, self.scale = num_weights, scale
        flat = indices.reshape(-1)
        rows = grad.reshape(flat.size, -1 if flat.size else _prod(grad.shape[indices.ndim:]))
        self.row_scale = None
        if scale:  # divide by how often each index occurs in this batch
            counts = xp.bincount(flat, minlength=num_weights)
            self.row_scale = (1.0 / counts[flat]).astype(grad.dtype)[:, None]
            rows = rows * self.row_scale
        out = xp.zeros((num_weights,) + grad.shape[indices.ndim:], dtype=grad.dtype)
        scatter_add(xp, out.reshape(num_weights, -1), flat, rows)
        if padding_idx >= 0:
            out[padding_idx] = 0
        return out

    def backward(self, grad):
        xp, idx = grad.xp, self.indices
        g = grad[Tensor._make(idx, grad.device)]
        keep = xp.ones(idx.shape, dtype=grad._data.dtype)
        if self.padding_idx >= 0:
            keep = keep * (idx != self.padding_idx)
        if self.row_scale is not None:
            keep = keep * self.row_scale.reshape(idx.shape)
        shape = idx.shape + (1,) * (g.dim() - idx.ndim)
        return g * Tensor._make(keep.reshape(shape), grad.device)


def _renorm_(weight, indices, max_norm, norm_type):
    """Rows looked up whose norm exceeds max_norm are rescaled in place (torch.embedding_renorm_)."""
    xp = weight.xp
    rows = xp.unique(indices.reshape(-1))
    w = weight._data[rows]
    norms = (xp.abs(w) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(w.dtype)
    weight._data[rows] = w * scale[:, None]
    weight._vc[0] += 1


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    kind = input._data.dtype.name
    if kind not in ("int64", "int32"):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got torch."
                           f"{_INDEX_TYPES.get(kind, kind)}Tensor instead (while checking "
                           "arguments for embedding)")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        with no_grad():
            _renorm_(weight, input._data, max_norm, norm_type)
    return EmbeddingLookup.apply(weight, indices=input._data, padding_idx=padding_idx,
                           scale_grad_by_freq=scale_grad_by_freq)


def one_hot(tensor, num_classes=-1):
    if tensor._data.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp, a = tensor.xp, tensor._data
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not a.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    elif a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (a[..., None] == xp.arange(num_classes)).astype(xp.int64)
    return Tensor._make(out, tensor.device)


def _wrap_padding_idx(padding_idx, num_embeddings, word):
    """Check padding_idx against the table size and make it non-negative (None stays None)."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < num_embeddings, f"{word} must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -num_embeddings, f"{word} must be within num_embeddings"
            padding_idx = num_embeddings + padding_idx
    return padding_idx


class Embedding(Module):
    """A lookup table of num_embeddings vectors, initialised N(0, 1), padding row zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        padding_idx = _wrap_padding_idx(padding_idx, num_embeddings, "Padding_idx")
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)
