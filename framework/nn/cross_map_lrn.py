"""CrossMapLRN2d (legacy Lua-torch cross-channel local response normalization, torch's
``nn.CrossMapLRN2d``) and UninitializedBuffer (a buffer whose shape a lazy module fills in)."""

from ..autograd.function import Function
from ..creation import empty
from ..tensor import Tensor
from .module import Module


def _function():
    """torch's legacy Function, named as torch's (its node: CrossMapLRN2dBackward)."""

    class CrossMapLRN2d(Function):
        """torch.nn._functions.CrossMapLRN2d: the running channel-window sum of squares, then
        ``input * (k + alpha / size * sum) ** -beta``; its backward is torch's loop."""

        @staticmethod
        def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
            if input.dim() != 4:
                raise ValueError(
                    f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead."
                )
            ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
            x = input._data
            xp = input.xp
            channels = x.shape[1]
            square = x * x
            scale = xp.empty_like(x)
            pre_pad = int((size - 1) / 2 + 1)
            first = xp.zeros_like(x[:, 0])
            for c in range(min(pre_pad, channels)):
                first += square[:, c]
            scale[:, 0] = first
            # the window slides one channel at a time: add the square entering it, subtract the
            # one leaving (torch's bounds, kept as they are)
            for c in range(1, channels):
                cur = scale[:, c - 1].copy()
                if c < channels - pre_pad + 1:
                    cur += square[:, c + pre_pad - 1]
                if c > pre_pad:
                    cur -= square[:, c - pre_pad]
                scale[:, c] = cur
            scale *= x.dtype.type(alpha / size)
            scale += x.dtype.type(k)
            ctx.scale = Tensor._make(scale, input._device)
            output = ctx.scale.pow(-beta) * input
            ctx.save_for_backward(input, output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, output = ctx.saved_tensors
            xp = input.xp
            x, y, g, scale = input._data, output._data, grad_output._data, ctx.scale._data
            n_batch, channels, height, width = x.shape
            size = ctx.size
            padded = xp.zeros((channels + size - 1, height, width), dtype=x.dtype)
            inverse_pre_pad = int(size - (size - 1) / 2)
            if inverse_pre_pad + channels > channels + size - 1:  # torch's narrow (size 1)
                raise RuntimeError(
                    f"start ({inverse_pre_pad}) + length ({channels}) exceeds dimension size "
                    f"({channels + size - 1})."
                )
            cache_ratio = x.dtype.type(2 * ctx.alpha * ctx.beta / size)
            grad_input = (ctx.scale.pow(-ctx.beta) * grad_output)._data.copy()
            for n in range(n_batch):
                padded[inverse_pre_pad : inverse_pre_pad + channels] = g[n] * y[n] / scale[n]
                accum = padded[: size - 1].sum(0)
                for c in range(channels):
                    accum += padded[c + size - 1]
                    grad_input[n, c] += -cache_ratio * x[n, c] * accum
                    accum -= padded[c]
            return Tensor._make(grad_input, input._device), None, None, None, None

    return CrossMapLRN2d


_CrossMapLRN2d = _function()


class CrossMapLRN2d(Module):
    r"""Cross-channel local response normalization of 4-D input (the legacy Lua-torch
    layer): each element is divided by a power of the sum of squares over ``size``
    neighbouring channels.

    .. math::
        b_c = a_c \left(k + \frac{\alpha}{n} \sum_{c'} a_{c'}^2\right)^{-\beta}

    Args:
        size (int): the number of neighbouring channels summed over.
        alpha (float, optional): the multiplicative factor. Default: 0.0001.
        beta (float, optional): the exponent. Default: 0.75.
        k (float, optional): the additive factor. Default: 1.

    Shape:
        - Input: :math:`(N, C, H, W)`.
        - Output: the same shape.

    Example:
        >>> lrn = nn.CrossMapLRN2d(3)
        >>> lrn(framework.ones(1, 4, 2, 2)).shape
        torch.Size([1, 4, 2, 2])
        >>> lrn
        CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        """Normalizes ``input`` (see the class).

        Args:
            input (Tensor): :math:`(N, C, H, W)`.

        Example:
            >>> nn.CrossMapLRN2d(2)(framework.zeros(1, 2, 1, 1)).flatten()
            tensor([0., 0.])
        """
        return _CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        """``size, alpha=..., beta=..., k=...`` as torch prints it."""
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


_UNINITIALIZED = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes."
)


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (lazy modules): it holds no data until
    :meth:`materialize` turns it into a regular tensor in place.

    Args:
        requires_grad (bool, optional): whether the materialized buffer requires grad.
            Default: ``False``.
        device (framework.device, optional): where to materialize it.
        dtype (framework.dtype, optional): its dtype when materialized.
        persistent (bool, optional): whether it belongs to the module's ``state_dict``.
            Default: ``True``.

    Example:
        >>> b = nn.UninitializedBuffer()
        >>> b
        <UninitializedBuffer>
        >>> b.materialize((2, 3))
        >>> type(b).__name__, tuple(b.shape)
        ('Tensor', (2, 3))
    """

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = empty(0, device=device, dtype=dtype)
        t = object.__new__(cls)
        t._data, t._device, t._rg, t.grad, t.grad_fn = data._data, data._device, False, None, None
        t._output_nr, t._vc = 0, [0]
        if requires_grad:
            t.requires_grad_(True)
        t._factory = {"device": device, "dtype": dtype}
        t.persistent = persistent
        t._is_buffer = True
        return t

    @property
    def shape(self):
        """Refused until materialized (torch's RuntimeError)."""
        raise RuntimeError(_UNINITIALIZED)

    def size(self, dim=None):
        """Refused until materialized (torch's RuntimeError).

        Args:
            dim (int, optional): the dimension.

        Example:
            >>> nn.UninitializedBuffer().size()
            Traceback (most recent call last):
            ...
            RuntimeError: Can't access the shape of an uninitialized parameter or buffer...
        """
        raise RuntimeError(_UNINITIALIZED)

    def materialize(self, shape, device=None, dtype=None):
        """Allocates (uninitialized) data of ``shape`` and becomes a plain Tensor, in place.

        Args:
            shape (tuple of int): the buffer's shape.
            device (framework.device, optional): where; default the one given at construction.
            dtype (framework.dtype, optional): its dtype; default the one given at construction.

        Example:
            >>> b = nn.UninitializedBuffer(dtype=framework.float64)
            >>> b.materialize((3,))
            >>> b.dtype
            torch.float64
        """
        kw = dict(self._factory)
        kw.update({k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None})
        data = empty(tuple(shape), **kw)
        self._data, self._device = data._data, data._device
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedBuffer>"
