"""Shape ops: views, permutations, squeeze/unsqueeze, broadcasting and repeat.

Joining and splitting (cat, stack, split, chunk, unbind) live in join.py.
"""

from .. import backend as _backend
from ..autograd.op import Op
from .. import dtypes
from ._fastgrad import plain, wrap


__all__ = [
    "flatten",
    "moveaxis",
    "movedim",
    "permute",
    "reshape",
    "squeeze",
    "swapaxes",
    "swapdims",
    "t",
    "transpose",
    "unflatten",
    "unsqueeze",
]


def _shape_arg(shape):
    """Accept both f(2, 3) and f((2, 3)) / f([2, 3]) / f(torch.Size)."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(int(s) for s in shape[0])
    return tuple(int(s) for s in shape)


def _fmt(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _infer(shape, numel):
    """Resolve a single -1 in a requested shape (torch's errors otherwise)."""
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous"
                )
            raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
        if numel % known:
            raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _dim(d, ndim):
    """Wrap a possibly negative dim; 0-dim tensors accept -1 and 0, as in torch."""
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
        )
    return d % n


def _real_dim(d, ndim):
    """A dim of an op that needs a real one (index_add, unique(dim), ...): torch's IndexError
    for a 0-dim tensor, else as _dim."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return _dim(d, ndim)


class View(Op):
    """view / viewable reshape: the same storage with torch's computed strides."""

    views = True
    saved_fields = {"self_sym_sizes": "in_shape"}

    def forward(self, x, shape, strides):
        self.in_shape = x.shape
        out = x.reshape(shape)
        if not x.flags.c_contiguous and (out.base is None or _v.strides(out) != strides):
            out = _backend.as_strided(_backend.storage_of(x), shape, strides, _v.storage_offset(x))
        return out

    def backward(self, grad):
        if plain(grad):  # no graph to record: the array reshaped (a view, or a copy as
            return wrap(grad._data.reshape(self.in_shape), grad)  # Tensor.reshape makes)
        return grad.reshape(self.in_shape)

    def jvp(self, t):
        """The tangent reshaped (its own layout may differ from the primal's strides)."""
        return t.reshape(self.result.shape)


class ReshapeAlias(View):
    """torch's _reshape_alias: reshape of a non-contiguous tensor whose strides allow a view."""

    node_name = "ReshapeAliasBackward0"


VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one "
    "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
)


def _view_strides(old_shape, old_strides, shape):
    """torch's computeStride: the strides that show old_shape's elements as `shape`, or None
    when some new dimension would span two non-contiguous chunks."""
    if not old_shape:
        return (1,) * len(shape)
    numel = 1
    for n in old_shape:
        numel *= n
    if numel == 0:
        if tuple(old_shape) == tuple(shape):
            return tuple(old_strides)
        out, acc = [0] * len(shape), 1
        for d in range(len(shape) - 1, -1, -1):
            out[d] = acc
            acc *= max(shape[d], 1)
        return tuple(out)
    out = [0] * len(shape)
    view_d = len(shape) - 1
    chunk = old_strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * chunk):
            while view_d >= 0 and (view_numel < tensor_numel or shape[view_d] == 1):
                out[view_d] = view_numel * chunk
                view_numel *= shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk = old_strides[d - 1]
                tensor_numel = view_numel = 1
    return tuple(out) if view_d == -1 else None


def reshape(x, *shape):
    """The same elements in a new shape: a view when the strides allow it (ViewBackward0 of a
    contiguous tensor, else ReshapeAliasBackward0), else a contiguous copy
    (UnsafeViewBackward0 over CloneBackward0), as torch.

    Args:
        x (Tensor): the input tensor.
        *shape (int...): the new shape (ints or one tuple; one ``-1`` is inferred).

    Example:
        >>> framework.arange(6).reshape(2, 3)
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    shape = _infer(_shape_arg(shape), x._data.size)
    arr = x._data
    if arr.flags.c_contiguous:
        return _v.view_op(View, x, shape=shape, strides=None)
    st = _view_strides(arr.shape, _v.strides(arr), shape)
    if st is None:
        return _unsafe_view(x.clone(memory_format="contiguous"), shape)
    return _v.view_op(ReshapeAlias, x, shape=shape, strides=st)


def view(x, *shape):
    """A view with another shape; raises when the strides cannot express it.

    Example:
        >>> framework.arange(6).view(3, 2).shape
        torch.Size([3, 2])
    """
    shape = _infer(_shape_arg(shape), x._data.size)
    arr = x._data
    if arr.flags.c_contiguous:
        return _v.view_op(View, x, shape=shape, strides=None)
    st = _view_strides(arr.shape, _v.strides(arr), shape)
    if st is None:
        raise RuntimeError(VIEW_ERROR)
    return _v.view_op(View, x, shape=shape, strides=st)


class UnsafeView(Op):
    """torch's _unsafe_view: a reshape whose result is not a view (after a copy)."""

    saved_fields = {"self_sym_sizes": "in_shape"}

    def forward(self, x, shape):
        self.in_shape = x.shape
        return x.reshape(shape)

    def backward(self, grad):
        return grad.reshape(self.in_shape)

    jvp = Op.jvp_linear

    node_name = "UnsafeViewBackward0"


def _unsafe_view(x, shape):
    return UnsafeView.apply(x, shape=tuple(shape))


class Alias(Op):
    """x[...] / x[:, :]: a new node over the same data."""

    views = True

    def forward(self, x):
        return x

    def backward(self, grad):
        return grad

    jvp = Op.jvp_linear


def alias(x):
    """Returns a view of ``x`` with the same shape (what torch's ``alias`` op does).

    Args:
        x (Tensor): the tensor to view.

    Returns:
        Tensor: a view sharing ``x``'s data (node AliasBackward0).

    Example:
        >>> x = framework.tensor([1.0, 2.0])
        >>> alias(x)
        tensor([1., 2.])
    """
    return _v.view_op(Alias, x)


def _expand_strides(x, shape):
    """torch's inferExpandGeometry strides of x expanded to `shape`: an expanded dim's 0, a
    kept dim's own, a new dim's size * stride of the next (then 0 where it is expanded)."""
    st_in, n, lead = _v.strides(x), len(shape), len(shape) - x.ndim
    st = [0] * n
    for i in range(n - 1, -1, -1):
        d = i - lead
        size = x.shape[d] if d >= 0 else 1
        stride = st_in[d] if d >= 0 else (shape[i + 1] * st[i + 1] if i + 1 < n else 1)
        st[i] = stride if size == shape[i] else 0
    return st


class Expand(Op):
    views = True
    saved_fields = {"self_sym_sizes": "in_shape"}

    def forward(self, x, shape):
        self.in_shape = x.shape
        if not x.size:  # torch's inferExpandGeometry (NumPy gives an empty array's size-1
            return _backend.as_strided(x, shape, _expand_strides(x, shape))  # dims stride 0)
        out = self.xp.broadcast_to(x, shape)
        lead = len(shape) - x.ndim
        if lead and 1 in shape[:lead]:  # torch gives a new leading dim of size 1 a real stride
            x = self.xp.asarray(x)  # (a NumPy scalar, as some reductions' gradients are)
            st = list(_v.strides(out))
            for d in range(lead - 1, -1, -1):
                if shape[d] == 1:
                    st[d] = shape[d + 1] * st[d + 1] if d + 1 < len(shape) else 1
            out = _backend.as_strided(_backend.storage_of(x), shape, st, _v.storage_offset(x))
        return out

    def backward(self, grad):
        return grad.sum_to_size(self.in_shape)

    jvp = Op.jvp_linear


def _expanded_shape(x, shape):
    """torch's checks and -1 handling for expand."""
    xs = x._data.shape
    lead = len(shape) - len(xs)
    if lead < 0:
        raise RuntimeError(
            f"expand({dtypes.type_string(x._data.dtype)}{{{_fmt(xs)}}}, "
            f"size={_fmt(shape)}): the number of sizes provided ({len(shape)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({len(xs)})"
        )
    out = []
    for i in range(len(shape) - 1, -1, -1):  # torch checks from the last dim
        s = shape[i]
        if i < lead:
            if s < 0 and xs:  # a 0-dim tensor skips this check (numel's below)
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a "
                    f"leading, non-existing dimension {i}"
                )
            out.append(s)
            continue
        have = xs[i - lead]
        if s == -1:
            s = have
        elif have != 1 and s != have:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({have}) "
                f"at non-singleton dimension {i}.  Target sizes: {_fmt(shape)}.  "
                f"Tensor sizes: {_fmt(xs)}"
            )
        out.append(s)
    if any(s < 0 for s in out):  # a size of 1 (or a 0-dim tensor) expanded to -2, ...
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(out[::-1])


def expand(x, *shape):
    """Returns a view of ``x`` with singleton dimensions expanded to a larger size (no copy); -1
    keeps a size. The implementation of :meth:`Tensor.expand`.

    Args:
        x (Tensor): the tensor to expand.
        *shape (int or tuple of ints): the new size, as separate ints or one sequence.

    Returns:
        Tensor: a view of ``x`` of the new size.

    Example:
        >>> expand(framework.tensor([[1.0], [2.0]]), -1, 3)
        tensor([[1., 1., 1.],
                [2., 2., 2.]])
    """
    return _v.view_op(Expand, x, shape=_expanded_shape(x, _shape_arg(shape)))


def expand_as(x, other):
    """Expands ``x`` to the size of ``other`` (see :func:`expand`).

    Args:
        x (Tensor): the tensor to expand.
        other (Tensor): the tensor whose size to take.

    Returns:
        Tensor: a view of ``x`` of ``other``'s size.

    Example:
        >>> expand_as(framework.tensor([[1.0], [2.0]]), framework.zeros(2, 2))
        tensor([[1., 1.],
                [2., 2.]])
    """
    return expand(x, other.shape)


class Repeat(Op):
    saved_fields = {"repeats": "repeats", "self_sym_sizes": "in_shape"}

    def forward(self, x, repeats):
        self.in_shape = x.shape
        lead = len(repeats) - x.ndim
        self.padded = (1,) * lead + x.shape
        self.repeats = repeats
        return self.xp.tile(x.reshape(self.padded), repeats)

    def backward(self, grad):
        # torch's repeat_backward: the new leading dims summed one by one, then one view as
        # (repeat, size) pairs where repeat != 1 and one sum over the repeat axes (zeros,
        # a constant, for a zero repeat)
        if 0 in self.repeats:
            return wrap(grad.xp.zeros(self.in_shape, grad._data.dtype), grad)
        lead = len(self.repeats) - len(self.in_shape)
        for _ in range(lead):
            grad = grad.sum(0)
        size, dims = [], []
        for r, s in zip(self.repeats[lead:], self.in_shape):
            if r != 1:
                dims.append(len(size))
                size.append(r)
            size.append(s)
        return grad.reshape(size).sum(dim=tuple(dims)) if dims else grad

    jvp = Op.jvp_linear


def repeat(x, *repeats):
    """Repeats ``x`` along each dimension the given number of times (copies the data); the
    implementation of :meth:`Tensor.repeat`.

    Args:
        x (Tensor): the tensor to repeat.
        *repeats (int or tuple of ints): the number of repeats per dimension, at least ``x.dim()``
            of them (extra ones add leading dimensions).

    Returns:
        Tensor: the repeated tensor.

    Example:
        >>> repeat(framework.tensor([1, 2]), 2, 2)
        tensor([[1, 2, 1, 2],
                [1, 2, 1, 2]])
    """
    repeats = _shape_arg(repeats)
    if len(repeats) < x.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number "
            "of dimensions of tensor"
        )
    return Repeat.apply(x, repeats=repeats)


class Permute(Op):
    views = True
    saved_fields = {"dims": "dims"}

    def forward(self, x, dims):
        self.dims = dims
        return x.transpose(dims)

    def backward(self, grad):
        inverse = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inverse[d] = i
        return grad.permute(*inverse)

    jvp = Op.jvp_linear


def permute(x, *dims):
    """permute(x, *dims) -> Tensor

    Returns a view with the dimensions reordered as ``dims``.

    Args:
        x (Tensor): the input tensor.
        *dims (int...): the new order of the dimensions (ints or one tuple).

    Example:
        >>> framework.permute(framework.zeros(2, 3, 4), (2, 0, 1)).shape
        torch.Size([4, 2, 3])
    """
    dims = tuple(_dim(d, x.ndim) for d in _shape_arg(dims))
    if len(dims) != x.ndim:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does "
            f"not match the length of the desired ordering of dimensions i.e. "
            f"input.dim() = {x.ndim} is not equal to len(dims) = {len(dims)}"
        )
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _v.view_op(Permute, x, dims=dims)


def movedim(x, source, destination):
    """Move dims to new positions (a permute, as in torch).

    Args:
        x (Tensor): the input tensor.
        source (int or tuple of ints): the original positions of the dimensions to move.
        destination (int or tuple of ints): their new positions.

    Example:
        >>> framework.moveaxis(framework.zeros(2, 3, 4), 0, -1).shape
        torch.Size([3, 4, 2])
    """
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    src = [_dim(d, x.ndim) for d in src]
    dst = [_dim(d, x.ndim) for d in dst]
    if x.ndim == 0:
        return alias(x)  # torch: AliasBackward0
    order = [None] * x.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(x.ndim) if d not in src)
    return permute(x, [o if o is not None else next(rest) for o in order])


moveaxis = movedim


class Transpose(Op):
    views = True
    saved_fields = {"dim0": "dim0", "dim1": "dim1"}

    def forward(self, x, dim0, dim1):
        self.dim0, self.dim1 = dim0, dim1
        return x.swapaxes(dim0, dim1) if x.ndim else x.view()

    def backward(self, grad):
        return grad.transpose(self.dim0, self.dim1)

    jvp = Op.jvp_linear


def transpose(x, dim0, dim1):
    """transpose(x, dim0, dim1) -> Tensor

    Returns a view with dimensions ``dim0`` and ``dim1`` swapped.

    Args:
        x (Tensor): the input tensor.
        dim0 (int): the first dimension to swap.
        dim1 (int): the second dimension to swap.

    Example:
        >>> framework.transpose(framework.zeros(2, 3), 0, 1).shape
        torch.Size([3, 2])
    """
    return _v.view_op(Transpose, x, dim0=_dim(dim0, x.ndim), dim1=_dim(dim1, x.ndim))


class TransposeInplace(Transpose):
    """What torch's C++ `out.transpose_(d0, d1)` leaves on a fresh result (the batch_first
    output of its RNN/GRU kernels): the same memory with swapped strides, not a view of
    anything, node TransposeBackward1."""

    node_name = "TransposeBackward1"
    views = False


swapaxes = transpose
swapdims = transpose


class T(Op):
    views = True

    def forward(self, x):
        return x.T

    def backward(self, grad):
        if plain(grad):  # no graph: the transposed array, no view bookkeeping (which would
            return wrap(grad._data.T, grad)  # keep the incoming gradient alive: .grad copies)
        return grad.t()

    jvp = Op.jvp_linear


def t(x):
    """t(x) -> Tensor

    Transposes a tensor of at most 2 dimensions (a view).

    Args:
        x (Tensor): the input tensor.

    Example:
        >>> framework.t(framework.tensor([[1, 2, 3]]))
        tensor([[1],
                [2],
                [3]])
    """
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return _v.view_op(T, x)


class Unsqueeze(Op):
    views = True
    saved_fields = {"dim": "dim"}

    def forward(self, x, dim):
        self.dim = dim
        out = self.xp.expand_dims(x, dim)
        if not x.size:  # torch's stride for the new dim: size * stride of the one it precedes
            st = list(_v.strides(x))  # (1 at the end); NumPy's reshape of an empty array
            st.insert(dim, x.shape[dim] * st[dim] if dim < x.ndim else 1)  # gives others
            out = _backend.as_strided(x, out.shape, st)
        return out

    def backward(self, grad):
        return grad.squeeze(self.dim)

    jvp = Op.jvp_linear


def unsqueeze(x, dim):
    """unsqueeze(x, dim) -> Tensor

    Returns a view with a dimension of size 1 inserted at ``dim``.

    Args:
        x (Tensor): the input tensor.
        dim (int): the index at which to insert the dimension of size 1.

    Example:
        >>> framework.unsqueeze(framework.zeros(2, 3), 0).shape
        torch.Size([1, 2, 3])
    """
    n = x.ndim + 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return _v.view_op(Unsqueeze, x, dim=dim % n)


class Squeeze(Op):
    """squeeze(); torch numbers the node by overload: no dim 0, int dim 1, tuple of dims 2."""

    views = True

    def forward(self, x, dims, overload):
        self.in_shape, self.overload, self.dims = x.shape, overload, dims
        keep = [i for i, s in enumerate(x.shape) if not (s == 1 and (dims is None or i in dims))]
        if not x.size:  # the kept dims' strides, as torch's (NumPy's reshape: others)
            st = _v.strides(x)
            return _backend.as_strided(x, [x.shape[i] for i in keep], [st[i] for i in keep])
        return x.reshape(tuple(x.shape[i] for i in keep))

    def backward(self, grad):
        if plain(grad):
            return grad.reshape(self.in_shape)
        for d, s in enumerate(self.in_shape):  # torch's unsqueeze_to: UnsqueezeBackward0 nodes
            if s == 1 and (self.dims is None or d in self.dims):
                grad = grad.unsqueeze(d)
        return grad

    jvp = Op.jvp_linear

    def node_variant(self):
        return f"SqueezeBackward{self.overload}"


def squeeze(x, dim=None):
    """squeeze(x, dim=None) -> Tensor

    Returns a view with dimensions of size 1 removed (only ``dim`` if given).

    Args:
        x (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension(s) to remove (when of size 1); all of
            size 1 when ``None``. Default: ``None``.

    Example:
        >>> framework.squeeze(framework.zeros(2, 1, 3)).shape
        torch.Size([2, 3])
    """
    if dim is None:
        return _v.view_op(Squeeze, x, dims=None, overload=0)
    if isinstance(dim, int):
        return _v.view_op(Squeeze, x, dims=(_dim(dim, x.ndim),), overload=1)
    dims = tuple(_dim(d, x.ndim) for d in dim)
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return _v.view_op(Squeeze, x, dims=dims, overload=2)


def _squeeze_inplace_dim(x, dim):
    """What torch's C++ `out.squeeze_(dim)` leaves on a fresh result (matmul, quantile): node
    SqueezeBackward4, not a view of anything."""
    return Squeeze.apply(x, dims=(_dim(dim, x.ndim),), overload=4)


class UnsqueezeInplace(Unsqueeze):
    """What torch's C++ `out.unsqueeze_(dim)` leaves on a fresh result (quantile): node
    UnsqueezeBackward1, not a view of anything."""

    node_name = "UnsqueezeBackward1"


def flatten(x, start_dim=0, end_dim=-1):
    """flatten(x, start_dim=0, end_dim=-1) -> Tensor

    Flattens the dimensions ``start_dim`` through ``end_dim`` into one (a view when possible).

    Args:
        x (Tensor): the input tensor.
        start_dim (int, optional): the first dimension to flatten. Default: ``0``.
        end_dim (int, optional): the last dimension to flatten. Default: ``-1``.

    Example:
        >>> framework.flatten(framework.zeros(2, 3, 4), start_dim=1).shape
        torch.Size([2, 12])
    """
    s, e = _dim(start_dim, x.ndim), _dim(end_dim, x.ndim)
    if x.ndim == 0:
        return x.reshape(1)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return x
    shape = x.shape
    n = 1
    for d in shape[s : e + 1]:
        n *= d
    return reshape(x, tuple(shape[:s]) + (n,) + tuple(shape[e + 1 :]))


def unflatten(x, dim, sizes):
    """unflatten(x, dim, sizes) -> Tensor

    Expands dimension ``dim`` into the shape ``sizes``.

    Args:
        x (Tensor): the input tensor.
        dim (int): the dimension to expand.
        sizes (tuple of ints): the new shape of that dimension (one ``-1`` is inferred).

    Example:
        >>> framework.unflatten(framework.zeros(2, 6), 1, (2, 3)).shape
        torch.Size([2, 2, 3])
    """
    d = _dim(dim, x.ndim)
    shape = tuple(x.shape)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes and known == 0 and shape[d] == 0:
        raise RuntimeError(
            "unflatten got an unexpected error:\ncannot reshape tensor of 0 elements into shape "
            f"{_fmt(sizes)} because the unspecified dimension size -1 can be any value and is "
            "ambiguous"
        )
    if (-1 not in sizes and known != shape[d]) or (
        -1 in sizes and (known == 0 or shape[d] % known)
    ):
        raise RuntimeError(
            f"unflatten: Provided sizes {_fmt(sizes)} don't multiply up to the "
            f"size of dim {d} ({shape[d]}) in the input tensor"
        )
    sizes = tuple(shape[d] // known if s == -1 else s for s in sizes)  # -1 is unambiguous here
    return reshape(x, shape[:d] + sizes + shape[d + 1 :])


from . import views as _v  # noqa: E402  (views.py imports this module's helpers)
