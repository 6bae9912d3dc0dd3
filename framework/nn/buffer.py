"""nn.Buffer: marks a tensor so that assigning it to a Module attribute registers a buffer."""

from ..creation import empty
from ..tensor import Tensor


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` holds for any tensor that Buffer() marked (torch's check)."""

    def __instancecheck__(cls, instance):
        """isinstance(t, nn.Buffer) holds for a Buffer-marked tensor, as torch's metaclass."""
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    r"""A tensor that, assigned to a :class:`Module` attribute, is registered as a buffer.

    ``Buffer(data)`` returns ``data.detach()`` (same storage, same ``requires_grad``) marked
    with ``persistent``; ``m.x = Buffer(t)`` is ``m.register_buffer('x', t, persistent)``.

    Args:
        data (Tensor, optional): the buffer's tensor (default: ``empty(0)``).
        persistent (bool, optional): whether it is part of the module's ``state_dict``
            (keyword only; default: True).

    Example:
        >>> m = framework.nn.Module()
        >>> m.steps = framework.nn.Buffer(framework.zeros(2), persistent=False)
        >>> list(dict(m.named_buffers())), list(m.state_dict())
        (['steps'], [])
    """

    def __new__(cls, data=None, *, persistent=True):
        """A tensor marked to register as a buffer when assigned to a Module attribute."""
        if data is None:
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
