"""put: write values at positions of the flattened input (torch's put / Tensor.put_)."""

from .._errors import must_be_tensor
from ..autograd.op import Op
from ..dtypes import scalar_type_name
from ..tensor import Tensor

__all__ = ["put"]


class Put(Op):
    """input with source written (or, with accumulate, added) at index of its flattened
    form; PutBackward0 as torch: self's gradient is zero where a value was written (kept
    with accumulate), source's the gradient taken at index."""

    no_edge = (1,)  # index
    saves_inputs = True
    saved_for = ((), (0, 2), ())  # backward reads index only

    def forward(self, x, index, source, accumulate):
        self.accumulate, self.source_shape = accumulate, source.shape
        out = x.copy().reshape(-1)
        idx, vals = index.reshape(-1), source.reshape(-1)
        if accumulate:
            self.xp.add.at(out, idx, vals)
        else:
            out[idx] = vals
        return out.reshape(x.shape)

    def backward(self, grad):
        index, source_shape = self.inputs[1], self.source_shape
        gx = None
        if self.needs_input_grad[0]:
            gx = grad if self.accumulate else put(grad, index, grad.new_zeros(source_shape))
        gs = grad.take(index).reshape(source_shape) if self.needs_input_grad[2] else None
        return gx, None, gs

    jvp = Op.jvp_linear


def put(input, index, source, accumulate=False):
    """put(input, index, source, accumulate=False) -> Tensor

    Returns a copy of ``input`` with ``source``'s values written at ``index`` of its flattened
    form (as if it were 1-D; negative indices count from the end), or added there when
    ``accumulate``.

    Args:
        input (Tensor): the input tensor.
        index (LongTensor): positions in the flattened ``input``.
        source (Tensor): the values, as many as ``index`` has, of ``input``'s dtype.
        accumulate (bool, optional): add the values instead of writing them. Default:
            ``False``.

    Example:
        >>> x = framework.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> framework.put(x, framework.tensor([0, 3]), framework.tensor([9.0, 8.0]))
        tensor([[9., 2.],
                [3., 8.]])
    """
    return Put.apply(input, *_checked(input, index, source, "put"), accumulate=bool(accumulate))


def _checked(input, index, source, name):
    """torch's checks (in its order) and the index made non-negative."""
    for arg, pos, value in (("index", 1, index), ("source", 2, source)):
        if not isinstance(value, Tensor):
            raise must_be_tensor(name, arg, pos + (name == "put"), value)
    if index.dtype.name != "int64":
        got = scalar_type_name(index._data.dtype)
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {got}")
    if source.dtype != input.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_type_name(input._data.dtype)} and source.dtype = "
            f"{scalar_type_name(source._data.dtype)}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    idx = index._data
    bad = (idx >= n) | (idx < -n)
    if idx.size and bad.any():
        first = int(idx.reshape(-1)[bad.reshape(-1).argmax()])
        raise IndexError(
            f"out of range: tried to access index {first} on a tensor of {n} elements."
        )
    return Tensor._make(idx % max(n, 1), index.device), source
