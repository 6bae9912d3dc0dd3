"""normalize, cosine_similarity, pairwise_distance and their modules."""

from ..amp.autocast_mode import entry as _amp_entry
from .._errors import broadcast_shapes
from .. import dtypes
from ..autograd.grad_mode import no_grad
from ..ops.norms import Norm, vector_norm
from .module import Module


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    r"""Performs :math:`L_p` normalization of the input over dimension ``dim``.

    .. math::
        v = \frac{v}{\max(\lVert v \rVert_p, \epsilon)}

    for each subtensor :math:`v` along ``dim``.

    Args:
        input (Tensor): the input, of any shape.
        p (float, optional): the exponent of the norm (default: 2.0).
        dim (int or tuple, optional): the dimension(s) to reduce (default: 1).
        eps (float, optional): a small value to avoid division by zero (default: 1e-12).
        out (Tensor, optional): the output tensor; then the operation is not differentiable
            (default: None).

    Returns:
        Tensor: the normalized input, of the shape of ``input``.

    Example:
        >>> F.normalize(framework.tensor([[3.0, 4.0], [0.0, 0.0]]))
        tensor([[0.6000, 0.8000],
                [0.0000, 0.0000]])
        >>> F.normalize(framework.tensor([[3.0, 1.0]]), p=1.0)
        tensor([[0.7500, 0.2500]])
    """
    denom = vector_norm(input, p, dim, True).clamp_min(eps).expand_as(input)
    return input / denom


@_amp_entry("cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    r"""Returns the cosine similarity between ``x1`` and ``x2`` along ``dim`` (broadcasting).

    .. math::
        \text{similarity} = \frac{x_1 \cdot x_2}{\max(\lVert x_1 \rVert_2, \epsilon) \cdot
        \max(\lVert x_2 \rVert_2, \epsilon)}

    See :class:`~framework.nn.CosineSimilarity` for the module form.

    Args:
        x1 (Tensor): the first input.
        x2 (Tensor): the second input, broadcastable with ``x1``.
        dim (int, optional): the dimension of the vectors (default: 1).
        eps (float, optional): a small value to avoid division by zero (default: 1e-8).

    Returns:
        Tensor: the broadcast shape without ``dim``.

    Example:
        >>> x1 = framework.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> F.cosine_similarity(x1, framework.tensor([[1.0, 1.0]]))
        tensor([0.7071, 1.0000])
    """
    common = dtypes.result_type([x1._data, x2._data], [x1.dim(), x2.dim()], [])
    if common.kind not in "fV":
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{dtypes.scalar_type_name(common)}"
        )
    shape = broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    common = dtypes.from_numpy_dtype(common)
    # torch casts only integral (and bool) inputs; floating ones keep their dtype, and the
    # product of the two normalised inputs promotes
    x1, x2 = (x if x.is_floating_point() else x.to(common) for x in (x1, x2))
    if x1.shape != x2.shape:  # torch's expand_outplace: both expanded, unless of one shape
        x1, x2 = x1.expand(*shape), x2.expand(*shape)
    # torch clamps copies of the norms in place without recording it: the gradient flows as if
    # unclamped (CloneBackward0), and an infinite norm stays infinite
    n1 = vector_norm(x1, 2, dim, True).clone()
    n2 = vector_norm(x2, 2, dim, True).clone()
    with no_grad():
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    r"""Computes the pairwise distance between the rows of ``x1`` and ``x2`` (broadcasting) along
    the last dimension.

    .. math::
        \text{dist}(x, y) = \lVert x - y + \epsilon e \rVert_p

    See :class:`~framework.nn.PairwiseDistance` for the module form.

    Args:
        x1 (Tensor): the first input, :math:`(N, D)` or :math:`(D)`.
        x2 (Tensor): the second input, broadcastable with ``x1``.
        p (float, optional): the norm degree; may be negative (default: 2.0).
        eps (float, optional): added to the difference to avoid division by zero (default: 1e-6).
        keepdim (bool, optional): keep the last dimension, of size 1 (default: False).

    Returns:
        Tensor: :math:`(N)` (or :math:`(N, 1)` with ``keepdim``).

    Example:
        >>> x1 = framework.tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> F.pairwise_distance(x1, framework.tensor([[3.0, 4.0]]))
        tensor([5.0000, 3.6056])
    """
    out_dim = max(x1.dim(), x2.dim())
    d = _add_scalar(x1 - x2, eps)
    return vector_norm(d, p, None if out_dim == 0 else -1, keepdim, _op=Norm)


def _add_scalar(t, number):
    """t + number through torch's add.Scalar (AddBackward1, one edge), as its C++ composites
    add a number; an integer tensor takes the operator's promotion."""
    if t.dtype.is_floating_point:
        from ..special import _AddScalar

        if t.dtype.itemsize == 2:  # torch rounds the number to bfloat16/float16 first
            number = t.new_full((), number).item()
        return _AddScalar.apply(t, other=number)
    return t + number


def _sub_scalar(t, number):
    """t - number through torch's sub.Scalar (SubBackward1), as its C++ composites subtract a
    number; an integer tensor takes the operator's promotion."""
    if t.dtype.is_floating_point and t.dtype.itemsize > 2:
        from ..special import _SubScalar

        return _SubScalar.apply(t, other=number)
    return t - number


class CosineSimilarity(Module):
    r"""Returns the cosine similarity between :math:`x_1` and :math:`x_2`, computed along ``dim``.

    .. math::
        \text{similarity} = \frac{x_1 \cdot x_2}{\max(\lVert x_1 \rVert_2, \epsilon) \cdot
        \max(\lVert x_2 \rVert_2, \epsilon)}

    Args:
        dim (int, optional): the dimension where cosine similarity is computed (default: 1).
        eps (float, optional): a small value to avoid division by zero (default: 1e-8).

    Shape:
        - Input1: :math:`(\ast_1, D, \ast_2)`, :math:`D` at position ``dim``.
        - Input2: broadcastable with Input1.
        - Output: :math:`(\ast_1, \ast_2)`.

    Example:
        >>> cos = nn.CosineSimilarity(dim=1)
        >>> cos(framework.tensor([[1.0, 0.0], [1.0, 1.0]]), framework.tensor([[1.0, 1.0]]))
        tensor([0.7071, 1.0000])
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    r"""Computes the pairwise distance between input vectors, or between columns of input matrices,
    with :math:`\epsilon` added to the difference.

    .. math::
        \mathrm{dist}(x, y) = \lVert x - y + \epsilon e \rVert_p

    Args:
        p (float, optional): the norm degree; may be negative (default: 2.0).
        eps (float, optional): a small value to avoid division by zero (default: 1e-6).
        keepdim (bool, optional): keep the vector dimension (default: False).

    Shape:
        - Input1: :math:`(N, D)` or :math:`(D)`.
        - Input2: the same shape as Input1 (or broadcastable).
        - Output: :math:`(N)` or :math:`()`; :math:`(N, 1)` with ``keepdim``.

    Example:
        >>> pdist = nn.PairwiseDistance(p=2)
        >>> pdist(framework.tensor([[0.0, 0.0], [1.0, 1.0]]), framework.tensor([[3.0, 4.0]]))
        tensor([5.0000, 3.6056])
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
