"""Linear, Identity, Flatten, Unflatten and the functional linear."""

import math

from ..creation import empty
from ..ops.linalg import linear
from . import init
from .module import Module
from .parameter import Parameter, UninitializedParameter


class Identity(Module):
    """A placeholder identity operator that is argument-insensitive: it returns its input, and
    accepts and ignores any constructor arguments.

    Args:
        args (Any): any argument (unused).
        kwargs (Any): any keyword argument (unused).

    Shape:
        - Input: :math:`(*)`, any shape.
        - Output: :math:`(*)`, the same tensor.

    Example:
        >>> m = nn.Identity(54, unused_argument1=0.1, unused_argument2=False)
        >>> x = framework.randn(128, 20)
        >>> m(x) is x
        True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    r"""Applies an affine linear transformation to the incoming data: :math:`y = xA^T + b`.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): if False, the layer does not learn an additive bias. Default True.
        device (framework.device, optional): where to create the parameters (default: the
            current default device, the CPU).
        dtype (framework.dtype, optional): the floating-point type of the parameters
            (default: ``framework.get_default_dtype()``).

    Shape:
        - Input: :math:`(*, H_{in})` where :math:`*` is any number of dimensions (including
          none) and :math:`H_{in} = \text{in\_features}`.
        - Output: :math:`(*, H_{out})`, all but the last dimension the same as the input,
          :math:`H_{out} = \text{out\_features}`.

    Attributes:
        weight (Parameter): the learnable weights of shape (out_features, in_features),
            initialised from :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`, :math:`k =
            1/\text{in\_features}` (``kaiming_uniform_`` with ``a=sqrt(5)``, as torch).
        bias (Parameter): the learnable bias of shape (out_features), initialised from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`; None when ``bias=False``.

    Example:
        >>> import framework
        >>> m = framework.nn.Linear(20, 30)
        >>> input = framework.randn(128, 20)
        >>> output = m(input)
        >>> output.size()
        torch.Size([128, 30])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as the constructor does (torch's initialization)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class LazyLinear(Linear):
    r"""A Linear whose ``in_features`` is inferred from the first input: its parameters are
    ``UninitializedParameter`` until the first call, which materialises and initialises them
    (as ``Linear.reset_parameters``, so seeded runs draw torch's numbers) and turns the module
    into a ``Linear``.

    Args:
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default True.
        device, dtype: where and in which floating-point type to create the parameters.

    Example::

        >>> m = framework.nn.LazyLinear(3)
        >>> m(framework.ones(2, 5)).shape
        torch.Size([2, 3])
        >>> m
        Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """Re-initializes the parameters as ``Linear`` does, once their shape is known (a no-op
        before the first call)."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def has_uninitialized_params(self):
        """Whether a parameter still waits for its shape."""
        return any(isinstance(p, UninitializedParameter) for p in (self.weight, self.bias))

    def initialize_parameters(self, input):
        """Infer in_features from `input`, materialise and initialise the parameters.

        Args:
            input (Tensor): a sample input; its last dimension is ``in_features``.

        Example::

            >>> m = framework.nn.LazyLinear(3)
            >>> m.initialize_parameters(framework.ones(2, 5))
            >>> tuple(m.weight.shape)
            (3, 5)
        """
        if self.has_uninitialized_params():
            from ..autograd.grad_mode import no_grad

            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()

    def __call__(self, *args, **kwargs):
        if type(self) is LazyLinear:
            self.initialize_parameters(args[0] if args else kwargs["input"])
            self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)


class Flatten(Module):
    r"""Flattens a contiguous range of dims into a tensor; by default every dimension but the first
    (the batch). For use with :class:`~framework.nn.Sequential`; see :meth:`Tensor.flatten`.

    Args:
        start_dim (int, optional): first dim to flatten (default: 1).
        end_dim (int, optional): last dim to flatten (default: -1).

    Shape:
        - Input: :math:`(*, S_{\text{start}}, ..., S_i, ..., S_{\text{end}}, *)`.
        - Output: :math:`(*, \prod_{i=\text{start}}^{\text{end}} S_i, *)`.

    Example:
        >>> x = framework.randn(32, 1, 5, 5)
        >>> nn.Flatten()(x).shape
        torch.Size([32, 25])
        >>> nn.Flatten(0, 2)(x).shape
        torch.Size([160, 5])
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    r"""Unflattens a tensor dim, expanding it to a desired shape. For use with
    :class:`~framework.nn.Sequential`.

    Args:
        dim (int): the dimension to unflatten.
        unflattened_size (tuple or torch.Size): the new shape of that dimension (one size may be
            -1).

    Shape:
        - Input: :math:`(*, S_{\text{dim}}, *)`.
        - Output: :math:`(*, U_1, ..., U_n, *)`, with :math:`\prod U_i = S_{\text{dim}}`.

    Example:
        >>> m = nn.Sequential(nn.Linear(50, 50), nn.Unflatten(1, (2, 5, 5)))
        >>> m(framework.randn(2, 50)).shape
        torch.Size([2, 2, 5, 5])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int) and not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                "unflattened_size must be tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        self.dim = dim
        self.unflattened_size = (
            tuple(unflattened_size) if isinstance(unflattened_size, list) else unflattened_size
        )

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
