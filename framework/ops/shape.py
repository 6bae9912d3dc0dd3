"""Shape ops: views, permutations, broadcasting, joining and splitting."""
from ..autograd.op import Op
from ..tensor import Tensor


def _shape_arg(shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return tuple(shape)


def _infer(shape, numel):
    """Resolve a single -1 in a requested shape (torch's errors otherwise)."""
    shape = [int(s) for s in shape]
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                               f"size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                           f"size {numel}")
    return tuple(shape)


class View(Op):
    def forward(self, x, shape):
        self.in_shape = x.shape
        return x.reshape(_infer(shape, x.size))

    def backward(self, grad):
        return grad.reshape(self.in_shape)


def reshape(x, *shape):
    return View.apply(x, shape=_shape_arg(shape))


view = reshape


class Expand(Op):
    def forward(self, x, shape):
        self.in_shape = x.shape
        lead = len(shape) - x.ndim
        if lead < 0:
            raise RuntimeError(
                f"expand(torch.FloatTensor{{[{', '.join(map(str, x.shape))}]}}, size=[{', '.join(map(str, shape))}]): "
                "the number of sizes provided "
                f"({len(shape)}) must be greater or equal to the number of dimensions in the "
                f"tensor ({x.ndim})")
        full = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
        return self.xp.broadcast_to(x, full)

    def backward(self, grad):
        return grad.sum_to_size(self.in_shape)


def expand(x, *shape):
    return Expand.apply(x, shape=_shape_arg(shape))


def _dim(d, ndim):
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d % n


class Permute(Op):
    def forward(self, x, dims):
        self.dims = dims
        return x.transpose(dims)

    def backward(self, grad):
        inverse = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inverse[d] = i
        return grad.permute(*inverse)


def permute(x, *dims):
    dims = tuple(_dim(d, x.ndim) for d in _shape_arg(dims))
    if len(dims) != x.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {x.ndim} is not equal to len(dims) = {len(dims)}")
    return Permute.apply(x, dims=dims)


class Transpose(Op):
    def forward(self, x, dim0, dim1):
        self.dim0, self.dim1 = dim0, dim1
        return x.swapaxes(dim0, dim1)

    def backward(self, grad):
        return grad.transpose(self.dim0, self.dim1)


def transpose(x, dim0, dim1):
    return Transpose.apply(x, dim0=_dim(dim0, x.ndim), dim1=_dim(dim1, x.ndim))


swapaxes = transpose


class T(Op):
    def forward(self, x):
        if x.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
        return x.T

    def backward(self, grad):
        return grad.t()


def t(x):
    return T.apply(x)


class Unsqueeze(Op):
    def forward(self, x, dim):
        self.dim = dim
        return self.xp.expand_dims(x, dim)

    def backward(self, grad):
        return grad.squeeze(self.dim)


def unsqueeze(x, dim):
    n = x.ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return Unsqueeze.apply(x, dim=dim % n)


class Squeeze(Op):
    def forward(self, x, dim=None):
        self.in_shape = x.shape
        self.has_dim = dim is not None
        if dim is None:
            return x.reshape(tuple(s for s in x.shape if s != 1))
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = {d % max(x.ndim, 1) for d in dims}
        return x.reshape(tuple(s for i, s in enumerate(x.shape) if not (i in dims and s == 1)))

    def backward(self, grad):
        return grad.reshape(self.in_shape)

    def name(self):
        return "SqueezeBackward1" if self.has_dim else "SqueezeBackward0"


def squeeze(x, dim=None):
    if dim is not None:
        for d in ((dim,) if isinstance(dim, int) else dim):
            _dim(d, x.ndim)
    return Squeeze.apply(x, dim=dim)


def flatten(x, start_dim=0, end_dim=-1):
    if x.ndim == 0:
        return x.reshape(1)
    s, e = _dim(start_dim, x.ndim), _dim(end_dim, x.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return x
    shape = x.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(x, tuple(shape[:s]) + (n,) + tuple(shape[e + 1:]))


def unflatten(x, dim, sizes):
    d = _dim(dim, x.ndim)
    shape = tuple(x.shape)
    return reshape(x, shape[:d] + tuple(sizes) + shape[d + 1:])
