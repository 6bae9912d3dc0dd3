"""Embedding module and one_hot (the lookup primitive lives in ops/embedding.py)."""

from ..autograd.grad_mode import no_grad
from ..creation import empty
from ..ops.embedding import (
    EmbeddingDenseBackward,  # noqa: F401
    EmbeddingLookup,  # noqa: F401
    embedding,
)
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


def one_hot(tensor, num_classes=-1):
    """Takes a LongTensor of class indices and returns a tensor with one more (last) dimension of
    size ``num_classes``, all zeros except a 1 at each index.

    Args:
        tensor (Tensor): class values of any shape.
        num_classes (int, optional): the number of classes; -1 infers it as one greater than the
            largest value (default: -1).

    Returns:
        Tensor: int64, ``tensor.shape + (num_classes,)``.

    Example:
        >>> F.one_hot(framework.tensor([0, 2, 1]))
        tensor([[1, 0, 0],
                [0, 0, 1],
                [0, 1, 0]])
        >>> F.one_hot(framework.tensor([[0], [1]]), num_classes=3).shape
        torch.Size([2, 1, 3])
    """
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
    r"""A simple lookup table that stores embeddings of a fixed dictionary and size: the input is a
    list of indices, the output the corresponding word embeddings.

    Args:
        num_embeddings (int): size of the dictionary of embeddings.
        embedding_dim (int): the size of each embedding vector.
        padding_idx (int, optional): the entries at this index do not contribute to the gradient,
            and its row is initialized to zeros (default: None).
        max_norm (float, optional): each embedding vector with a norm larger than this is
            renormalized to it when looked up, in place (default: None).
        norm_type (float, optional): the p of the p-norm for ``max_norm`` (default: 2.0).
        scale_grad_by_freq (bool, optional): scale gradients by the inverse of the words' frequency
            in the mini-batch (default: False).
        sparse (bool, optional): accepted for compatibility; the gradient is dense here (default:
            False).
        device (framework.device, optional): where to create the parameters (default: None, the
            CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters (default: None,
            the default dtype).

    Shape:
        - Input: :math:`(*)`, an IntTensor or LongTensor of indices.
        - Output: :math:`(*, H)`, :math:`H = \text{embedding\_dim}`.

    Attributes:
        weight (Parameter): :math:`(\text{num\_embeddings}, \text{embedding\_dim})`, initialised
            from :math:`\mathcal{N}(0, 1)`.

    Example:
        >>> embedding = nn.Embedding(10, 3)
        >>> embedding(framework.tensor([[1, 2, 4, 5], [4, 3, 2, 9]])).shape
        torch.Size([2, 4, 3])
        >>> embedding = nn.Embedding(10, 3, padding_idx=0)
        >>> embedding(framework.tensor([0, 2]))[0]
        tensor([0., 0., 0.], grad_fn=<SelectBackward0>)
    """

    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
        _weight=None,
        _freeze=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        padding_idx = _wrap_padding_idx(padding_idx, num_embeddings, "Padding_idx")
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(
                empty((num_embeddings, embedding_dim), device=device, dtype=dtype),
                requires_grad=not _freeze,
            )
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], (
                "Shape of weight does not match num_embeddings and embedding_dim"
            )
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        """Re-initializes the parameters as the constructor does (torch's initialization)."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

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
    def from_pretrained(
        cls,
        embeddings,
        freeze=True,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
    ):
        """Creates an Embedding instance from a given 2-dimensional FloatTensor.

        Args:
            embeddings (Tensor): FloatTensor containing the weights: the first dimension is
                ``num_embeddings``, the second ``embedding_dim``.
            freeze (bool, optional): the tensor is not updated in the learning process; equivalent
                to
                ``embedding.weight.requires_grad = False`` (default: True).
            padding_idx (int, optional): see the constructor (default: None).
            max_norm (float, optional): see the constructor (default: None).
            norm_type (float, optional): see the constructor (default: 2.0).
            scale_grad_by_freq (bool, optional): see the constructor (default: False).
            sparse (bool, optional): see the constructor (default: False).

        Returns:
            Embedding: a module whose weight is ``embeddings``.

        Example:
            >>> weight = framework.tensor([[1.0, 2.3, 3.0], [4.0, 5.1, 6.3]])
            >>> embedding = nn.Embedding.from_pretrained(weight)
            >>> embedding(framework.tensor([1]))
            tensor([[4.0000, 5.1000, 6.3000]])
        """
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(
            rows,
            cols,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight=embeddings,
            _freeze=freeze,
        )
