"""embedding: a lookup table whose backward scatter-adds rows (EmbeddingBackward0)."""

from .._errors import check_index_range
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op, vmap_hook
from ..backend import scatter_add
from ..dtypes import type_string
from ..tensor import Tensor
from . import _fused
from .reduction import _prod


class EmbeddingLookup(Op):
    """weight[indices]; indices arrive as a raw integer array parameter."""

    node_name = "EmbeddingBackward0"
    saves = ("indices",)
    saved_fields = {
        "indices": "indices",
        "padding_idx": lambda fn: fn.padding_idx % 2**64,
        "scale_grad_by_freq": "scale",
        "sparse": "=False",
        "weight_sym_argsize_0": "num_weights",
    }

    def forward(self, weight, indices, padding_idx=-1, scale_grad_by_freq=False):
        self.indices, self.padding_idx, self.scale = indices, padding_idx, scale_grad_by_freq
        self.num_weights = weight.shape[0]
        check_index_range(self.xp, indices, weight.shape[0], weight.size == 0)
        return weight[indices]

    def backward(self, grad):
        return EmbeddingDenseBackward.apply(
            grad,
            indices=self.indices,
            num_weights=self.num_weights,
            padding_idx=self.padding_idx,
            scale=self.scale,
        )

    jvp = Op.jvp_linear


class EmbeddingDenseBackward(Op):
    """Sum each output row's gradient into its weight row (rows repeat, so scatter-add)."""

    saves = ("indices", "row_scale")

    def forward(self, grad, indices, num_weights, padding_idx, scale):
        xp = self.xp
        self.indices, self.padding_idx = indices, padding_idx
        self.num_weights, self.scale = num_weights, scale
        flat = indices.reshape(-1)
        rows = grad.reshape(flat.size, -1 if flat.size else _prod(grad.shape[indices.ndim :]))
        self.row_scale = None
        if scale:  # divide by how often each index occurs in this batch
            counts = xp.bincount(flat, minlength=num_weights)
            self.row_scale = (1.0 / counts[flat]).astype(grad.dtype)[:, None]
            rows = rows * self.row_scale
        out = xp.zeros((num_weights,) + grad.shape[indices.ndim :], dtype=grad.dtype)
        if not _fused_rows_add(out.reshape(num_weights, -1), flat, rows):
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

    jvp = Op.jvp_linear


def _fused_rows_add(target, indices, rows):
    """scatter_add of whole rows by _fused's compiled loop (add.at's sums in its order, a
    third of its time on a GPT's token gradients); False where it does not run."""
    k = _fused.kernels() if rows.size >= _fused.MIN_SIZE else None
    if k is None or type(rows) is not k.ndarray or type(target) is not k.ndarray:
        return False
    if rows.dtype != target.dtype or rows.dtype.char not in "fd" or indices.dtype.kind not in "iu":
        return False
    if not (rows.flags.c_contiguous and target.flags.c_contiguous and rows.ndim == 2):
        return False
    return k.rows_add(target, indices, rows)


def _renorm_(weight, indices, max_norm, norm_type):
    """Rows looked up with a norm above max_norm are rescaled in place (embedding_renorm_)."""
    _renorm_rows(weight.xp, weight._data, indices, max_norm, norm_type)
    weight._vc[0] += 1


def _renorm_rows(xp, data, indices, max_norm, norm_type):
    """The rows of array `data` that `indices` names, rescaled in place to norm max_norm where
    their norm exceeds it."""
    rows = xp.unique(indices.reshape(-1))
    w = data[rows]
    norms = (xp.abs(w) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    # torch: the norm read as a double, max_norm / (norm + 1e-7) in double, then the multiply
    norms = norms.astype("float64")
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(w.dtype)
    data[rows] = w * scale[:, None]


class EmbeddingRenorm(Op):
    """``embedding_renorm_`` with autograd: the renormalized weight, torch's node
    EmbeddingRenormBackward0 whose backward raises (torch has no derivative)."""

    no_edge = (1,)  # indices

    def forward(self, weight, indices, max_norm, norm_type):
        out = weight.copy()
        _renorm_rows(self.xp, out, indices, max_norm, norm_type)
        return out

    def backward(self, grad):
        raise NotImplementedError("the derivative for 'embedding_renorm' is not implemented.")


def embedding_renorm_(input, indices, max_norm, norm_type):
    """embedding_renorm_(input, indices, max_norm, norm_type) -> Tensor

    Rescales in place the rows of ``input`` that ``indices`` names and whose ``norm_type``-norm
    exceeds ``max_norm`` to that norm (what :func:`~framework.nn.functional.embedding` does
    with ``max_norm``), and returns ``input``.

    Args:
        input (Tensor): the embedding matrix ``(V, D)``, written in place.
        indices (LongTensor): the rows to consider (int64 or int32).
        max_norm (float): the largest norm a row keeps.
        norm_type (float): the p of the p-norm.

    Example:
        >>> w = framework.tensor([[3.0, 4.0], [1.0, 0.0]])
        >>> framework.embedding_renorm_(w, framework.tensor([0]), 2.0, 2.0)
        tensor([[1.2000, 1.6000],
                [1.0000, 0.0000]])
    """
    kind = indices._data.dtype.name
    if kind not in ("int64", "int32"):
        raise RuntimeError(
            "Expected tensor for argument #2 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {type_string(kind)} instead (while checking arguments "
            "for embedding_renorm_)"
        )
    return input._inplace(
        EmbeddingRenorm.apply,
        Tensor._make(indices._data, indices.device),
        max_norm=max_norm,
        norm_type=norm_type,
    )


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """Looks up the rows of an embedding matrix: ``weight[input]``.

    See :class:`~framework.nn.Embedding` for the module form.

    Args:
        input (Tensor): indices into ``weight``, of any shape.
        weight (Tensor): the embedding matrix, :math:`(V, D)`: one row per index.
        padding_idx (int, optional): the entries at this index get no gradient (default: None).
        max_norm (float, optional): rows looked up whose norm is larger are renormalized to this
            norm, modifying ``weight`` in place (default: None).
        norm_type (float, optional): the p of the p-norm for ``max_norm`` (default: 2.0).
        scale_grad_by_freq (bool, optional): scale the gradients by the inverse frequency of the
            indices in the mini-batch (default: False).
        sparse (bool, optional): accepted for compatibility; the gradient is dense here (default:
            False).

    Returns:
        Tensor: ``input.shape + (D,)``.

    Example:
        >>> w = framework.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
        >>> F.embedding(framework.tensor([[2, 0], [1, 1]]), w)
        tensor([[[4., 5.],
                 [0., 1.]],
        <BLANKLINE>
                [[2., 3.],
                 [2., 3.]]])
    """
    kind = input._data.dtype.name
    if kind not in ("int64", "int32"):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the "
            "following scalar types: Long, Int; but got "
            f"{type_string(kind)} instead (while checking "
            "arguments for embedding)"
        )
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
    if vmap_hook[0] and (type(input) is not Tensor or type(weight) is not Tensor):
        from ..func._rules_nn import embedding as batched  # under vmap: indices per sample

        return batched(weight, input, padding_idx, scale_grad_by_freq)
    return EmbeddingLookup.apply(
        weight, indices=input._data, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq
    )
