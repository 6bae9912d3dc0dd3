"""torch.broadcast_shapes (torch._refs._broadcast_shapes's rules and messages)."""

from functools import reduce

from .tensor import Size


def broadcast_shapes(*shapes):
    r"""broadcast_shapes(*shapes) -> Size

    The shape a set of tensors of these shapes broadcasts to: equivalent to
    ``framework.broadcast_tensors(*map(framework.empty, shapes))[0].shape`` without the tensors.

    Args:
        \*shapes (framework.Size, tuple, list or int): shapes of tensors (``None`` ignored).

    Returns:
        Size: a shape compatible with all input shapes.

    Raises:
        RuntimeError: if the shapes are incompatible (torch's message).

    Example:
        >>> framework.broadcast_shapes((2,), (3, 1), (1, 1, 1))
        torch.Size([1, 3, 2])
    """
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                f"got {shape}"
            )
    common = [1] * reduce(max, (len(s) for s in shapes))
    for arg, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i]:
                continue
            if common[i] == 1:
                if shape[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = shape[i]
            if shape[i] == 1:
                continue
            if common[i] != shape[i]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! "
                    f"Mismatching argument at index {arg} had {shape}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    return Size(common)
