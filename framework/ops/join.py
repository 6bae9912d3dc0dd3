"""Joining and splitting: cat, stack, split, chunk, unbind."""

from ..autograd.op import Op
from ..tensor import Tensor
from .shape import _dim, _fmt
from .views import strided_empty, view_outputs


__all__ = ["cat", "chunk", "concat", "concatenate", "split", "stack", "unbind"]


def _fill_unused(op, grads):
    """The output gradients of a multi-output backward, zeros for the outputs nobody used."""
    like = next(g for g in grads if g is not None)
    return [
        g if g is not None else Tensor._make(op.xp.zeros(shape, like._data.dtype), like._device)
        for g, shape in zip(grads, op.out_shapes)
    ]


class Cat(Op):
    promote = True  # torch.cat promotes float32 + float64 to float64
    saved_fields = {"dim": "dim"}

    def forward(self, *xs, dim, skip=None):
        self.dim, self.skip = dim, skip
        if skip:  # legacy empty (0,) tensors: in the dtype and the graph, not in the result
            xs = [x for x, s in zip(xs, skip) if not s]
        self.sizes = [x.shape[dim] for x in xs]
        return self.xp.concatenate(xs, axis=dim)

    def backward(self, grad):
        parts = grad.split(self.sizes, self.dim)
        if not self.skip:
            return parts
        parts = iter(parts)
        empty = Tensor._make(grad.xp.zeros((0,), grad._data.dtype), grad.device)
        return tuple(empty if s else next(parts) for s in self.skip)

    jvp = Op.jvp_linear


def cat(tensors, dim=0, *, out=None):
    """cat(tensors, dim=0, *, out=None) -> Tensor

    Concatenates a sequence of tensors along the existing dimension ``dim``; all other
    dimensions must match.

    Args:
        tensors (sequence of Tensors): the tensors to concatenate; every dimension but ``dim`` must
            match (1-D empty tensors are skipped).
        dim (int, optional): the dimension to concatenate along. Default: ``0``.
        out (Tensor, optional): the output tensor.

    Example:
        >>> framework.cat([framework.tensor([[1, 2]]), framework.tensor([[3, 4]])], dim=0)
        tensor([[1, 2],
                [3, 4]])
    """
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # legacy torch behaviour: 1-D empty tensors are skipped whatever the other shapes are
    skip = [t.ndim == 1 and t.shape[0] == 0 for t in tensors]
    if all(skip):  # torch then never wraps dim: any int is accepted
        skip[0], dim = False, 0
    kept = [t for t, s in zip(tensors, skip) if not s]
    ref = kept[0]
    d = _dim(dim, ref.ndim)
    for i, t in enumerate(kept):
        if t.ndim != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}"
            )
        for k in range(ref.ndim):
            if k != d and t.shape[k] != ref.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.shape[k]} but got size {t.shape[k]} for tensor number {i} in the "
                    "list."
                )
    if any(skip):
        return Cat.apply(*tensors, dim=d, skip=tuple(skip))
    return Cat.apply(*tensors, dim=d)


concat = cat
concatenate = cat


class Stack(Op):
    promote = True
    saved_fields = {"dim": "dim"}

    def forward(self, *xs, dim):
        self.dim = dim
        return self.xp.stack(xs, axis=dim)

    def backward(self, grad):
        return grad.unbind(self.dim)

    jvp = Op.jvp_linear


def stack(tensors, dim=0, *, out=None):
    """stack(tensors, dim=0, *, out=None) -> Tensor

    Stacks tensors of equal shape along a new dimension ``dim``.

    Args:
        tensors (sequence of Tensors): the tensors to stack, all of the same shape.
        dim (int, optional): the position of the new dimension. Default: ``0``.
        out (Tensor, optional): the output tensor.

    Example:
        >>> framework.stack([framework.tensor([1, 2]), framework.tensor([3, 4])], dim=1)
        tensor([[1, 3],
                [2, 4]])
    """
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]
    d = _dim(dim, ref.ndim + 1)  # torch wraps the dim (against the first tensor) first
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != ref.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"{_fmt(ref.shape)} at entry 0 and {_fmt(t.shape)} at entry {i}"
            )
    return Stack.apply(*tensors, dim=d)


class Split(Op):
    """Several outputs (views); unused outputs get zero gradients in backward."""

    views = True
    saved_fields = {"dim": "dim", "self_sym_sizes": "sizes0"}
    variant_saved_fields = {
        "SplitBackward0": {"split_size": "split_size"},
        "SplitWithSizesBackward0": {"split_sizes": lambda fn: tuple(fn.sizes)},
    }

    def forward(self, x, sizes, dim, with_sizes, split_size=None):
        self.dim, self.with_sizes, self.sizes = dim, with_sizes, sizes
        self.split_size = sizes[0] if split_size is None else split_size
        bounds, acc = [], 0
        for s in sizes[:-1]:
            acc += s
            bounds.append(acc)
        outs = tuple(self.xp.split(x, bounds, axis=dim))
        self.out_shapes = [o.shape for o in outs]
        return outs

    def backward(self, *grads):
        return cat(_fill_unused(self, grads), self.dim)

    jvp = Op.jvp_linear

    def node_variant(self):
        return "SplitWithSizesBackward0" if self.with_sizes else "SplitBackward0"


def _check_1d(x, name):
    if x.ndim == 0:
        raise RuntimeError(f"{name} expects at least a 1-dimensional tensor")


def split(x, split_size_or_sections, dim=0):
    """split(x, split_size_or_sections, dim=0) -> tuple of Tensors

    Splits the tensor into views of ``split_size_or_sections`` along ``dim``.

    Args:
        x (Tensor): the input tensor.
        split_size_or_sections (int or list of ints): the size of each chunk, or a list of the chunk
            sizes.
        dim (int, optional): the dimension to split along. Default: ``0``.

    Example:
        >>> framework.split(framework.arange(5), 2)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    _check_1d(x, "split")
    if not x._data.size:  # (its views' strides from torch's strides of x)
        strided_empty(x)
    d = _dim(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size < 0:
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={size}"
            )
        if size == 0 and n != 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
            )
        count = max((n + size - 1) // size, 1) if size else 1
        sizes = [size] * (count - 1) + [n - size * (count - 1)]
        out = Split.apply(x, sizes=sizes, dim=d, with_sizes=False, split_size=size)
        return view_outputs(out, x)
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
            f"tensor's size at dimension {dim}), but got split_sizes={_fmt(sizes)}"
        )
    return view_outputs(Split.apply(x, sizes=sizes, dim=d, with_sizes=True), x)


def chunk(x, chunks, dim=0):
    """chunk(x, chunks, dim=0) -> tuple of Tensors

    Splits a tensor into ``chunks`` views along ``dim`` (the last may be smaller).

    Args:
        x (Tensor): the input tensor.
        chunks (int): the number of chunks to return.
        dim (int, optional): the dimension to split along. Default: ``0``.

    Example:
        >>> framework.chunk(framework.arange(5), 2)
        (tensor([0, 1, 2]), tensor([3, 4]))
    """
    _check_1d(x, "chunk")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = x.shape[_dim(dim, x.ndim)]
    if n == 0:  # torch: `chunks` empty pieces
        return split(x, [0] * chunks, dim)
    return split(x, (n + chunks - 1) // chunks, dim)


class Unbind(Op):
    views = True

    def forward(self, x, dim):
        self.dim = dim
        outs = tuple(self.xp.moveaxis(x, dim, 0))
        self.out_shapes = [o.shape for o in outs]
        return outs

    def backward(self, *grads):
        return stack(_fill_unused(self, grads), self.dim)

    jvp = Op.jvp_linear


def unbind(x, dim=0):
    """unbind(x, dim=0) -> tuple of Tensors

    Removes dimension ``dim`` and returns a tuple of the slices along it.

    Args:
        x (Tensor): the input tensor.
        dim (int, optional): the dimension to remove. Default: ``0``.

    Example:
        >>> framework.unbind(framework.tensor([[1, 2], [3, 4]]))
        (tensor([1, 2]), tensor([3, 4]))
    """
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {_dim(dim, 0)} but tensor has no dimensions")
    if not x._data.size:  # (its views' strides from torch's strides of x)
        strided_empty(x)
    return view_outputs(Unbind.apply(x, dim=_dim(dim, x.ndim)), x)
