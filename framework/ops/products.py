"""Products and structured combinations: einsum (einsum.py), tensordot, kron, cross, trace,
cdist, and the shape helpers diff, meshgrid, cartesian_prod, tensor_split, repeat_interleave."""

import math

from .._errors import broadcast_shapes, refuse
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op, vmap_hook
from ..backend import device_of
from ..backend import np as _np
from .._fma import fused
from ._norm_kernel import down
from ._replay_jit import loops
from ..dtypes import scalar_type_name
from ..tensor import Tensor
from .einsum import einsum
from .shape import _dim, _unsafe_view
from ._fastgrad import plain, wrap
from ._regrad import regrad


# ----- products ------------------------------------------------------------------------------
def tensordot(a, b, dims=2, out=None):
    """Sum products over the last `dims` dims of a and the first of b (or explicit lists).

    Args:
        a (Tensor): the left tensor.
        b (Tensor): the right tensor.
        dims (int or pair of lists, optional): the number of trailing dimensions of ``a`` and
            leading dimensions of ``b`` to contract, or the two lists of dimensions. Default: ``2``.
        out (Tensor, optional): the output tensor.

    Example:
        >>> framework.tensordot(framework.ones(2, 3), framework.ones(3, 4), 1).shape
        torch.Size([2, 4])
    """
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    da = [_dim(d, a.dim()) for d in da]
    db = [_dim(d, b.dim()) for d in db]
    for i, j in zip(da, db):  # torch sums a contracted dim right away where the other side's
        if b.shape[j] == 1:  # is 1 (a broadcast; SumBackward1, whose gradient is an expand)
            a = a.sum(i, keepdim=True, dtype=a.dtype)
        elif a.shape[i] == 1:
            b = b.sum(j, keepdim=True, dtype=b.dtype)
        elif a.shape[i] != b.shape[j]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size "
                f"{a.shape[i]} in dim {i} and second has size {b.shape[j]} in "
                f"dim {j}"
            )
    fa = [i for i in range(a.dim()) if i not in da]
    fb = [i for i in range(b.dim()) if i not in db]
    k = math.prod(a.shape[i] for i in da)
    m, n = math.prod(a.shape[i] for i in fa), math.prod(b.shape[i] for i in fb)
    shape = [a.shape[i] for i in fa] + [b.shape[i] for i in fb]
    if m == 1 and n == 1:  # one element on each free side: torch's dot (DotBackward0)
        # (an operand already 1-D is not reshaped: no ViewBackward0 under the dot)
        at, bt = a.permute(*(fa + da)), b.permute(*(db + fb))
        at = at if at.dim() == 1 else at.reshape(k)
        bt = bt if bt.dim() == 1 else bt.reshape(k)
        return at.dot(bt).reshape(shape)
    am = a.permute(*(fa + da)).reshape(m, k)
    bm = b.permute(*(db + fb)).reshape(k, n)
    return am.mm(bm).reshape(*shape)


def kron(input, other):
    """Kronecker product: blocks input[i, j] * other.

    Args:
        input (Tensor): the input tensor.
        other (Tensor): the second tensor.

    Example:
        >>> framework.kron(framework.eye(2), framework.ones(1, 2))
        tensor([[1., 1., 0., 0.],
                [0., 0., 1., 1.]])
    """
    nd = max(input.dim(), other.dim())
    a = [1] * (nd - input.dim()) + list(input.shape)
    b = [1] * (nd - other.dim()) + list(other.shape)
    a_shape, b_shape = [], []
    for i in range(nd):
        a_shape += [a[i], 1]
        b_shape += [1, b[i]]
    # torch's KronImpl: each operand _unsafe_view'ed (only 1s inserted: always a view)
    prod = _unsafe_view(input, a_shape) * _unsafe_view(other, b_shape)
    return _unsafe_view(prod, tuple(a[i] * b[i] for i in range(nd)))


_BILINEAR = ((1, 3), (0,), (1, 2), (2, 3))  # _trilinear's dims as torch's bilinear calls it


def _trilinear_unrolled(xp, ins, subs, sumdim, out_sub, unroll_dim=1):
    """torch's _trilinear loop (unroll_dim, 1 by default): for each index k of that dim, i1
    times i2 summed over the sum dims i3 lacks, then times i3 summed over the others; the
    slices summed into the output in k order (a summed dim) or placed at k."""
    u = chr(97 + unroll_dim)  # the unrolled dim's label
    size = max(a.shape[s.index(u)] if u in s else 1 for a, s in zip(ins, subs))
    first = {chr(97 + d) for d in sumdim if chr(97 + d) not in subs[2] and d != unroll_dim}
    s12 = "".join(c for c in sorted(set(subs[0]) | set(subs[1])) if c not in first)
    keep = "".join(c for c in sorted(set(s12) | set(subs[2])) if c in out_sub or c == u)
    out = None
    for k in range(size):
        sl = [
            a if u not in s else xp.take(a, [min(k, a.shape[s.index(u)] - 1)], axis=s.index(u))
            for a, s in zip(ins, subs)
        ]
        buf = xp.einsum(f"{subs[0]},{subs[1]}->{s12}", sl[0], sl[1])
        buf = xp.einsum(f"{s12},{subs[2]}->{keep}", buf, sl[2])
        if u not in out_sub:  # dim 1 summed: accumulate the slices in order
            buf = buf.sum(keep.index(u))
            out = buf if out is None else out + buf
        else:
            out = [buf] if out is None else out + [buf]
    if u in out_sub:
        out = xp.concatenate(out, axis=keep.index(u))
    return xp.einsum(f"{''.join(c for c in keep if c in out_sub)}->{out_sub}", out)


class Trilinear(Op):
    """torch's _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim): each input unsqueezed
    at its expand dims, the three multiplied (broadcast) and summed over sumdim; bilinear's
    primitive (TrilinearBackward0), whose gradients are three more _trilinear products (so a
    second derivative goes through TrilinearBackward0 nodes too, as torch's)."""

    saves_inputs = True

    def forward(self, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
        """The product on arrays: bilinear's as two matrix products (x1 W, then with x2, the
        order of torch's sumproduct_pair), any other layout by einsum."""
        xp = self.xp
        self.dims, self.unroll = (expand1, expand2, expand3, sumdim), unroll_dim
        if (expand1, expand2, expand3, sumdim) == _BILINEAR:
            (n, k1), (o, _, k2) = i1.shape, i2.shape
            t = i1.dot(i2.transpose(1, 0, 2).reshape(k1, o * k2)).reshape(n, o, k2)
            return xp.matmul(t, i3.reshape(n, k2, 1)).reshape(n, o)
        nd = i1.ndim + len(expand1)
        sub = lambda skip: "".join(chr(97 + d) for d in range(nd) if d not in skip)
        subs = (sub(expand1), sub(expand2), sub(expand3))
        if any(not a.size for a in (i1, i2, i3)) or all(
            bool(xp.isfinite(a).all()) for a in (i1, i2, i3)
        ):
            out = xp.einsum(
                f"{subs[0]},{subs[1]},{subs[2]}->{sub(sumdim)}", i1, i2, i3, optimize=True
            )
        else:  # where an inf meets a sum (NaN) depends on the order: torch's, unrolled
            out = _trilinear_unrolled(xp, (i1, i2, i3), subs, sumdim, sub(sumdim), unroll_dim)
        return xp.ascontiguousarray(out.astype(i1.dtype, copy=False))  # (torch's: fresh)

    def backward(self, grad):
        """torch's _trilinear_backward: each input's gradient the _trilinear of the upstream
        gradient (in that input's place, with sumdim as its expand dims) with the other two,
        summed over the input's expand dims."""
        i1, i2, i3 = self.inputs
        e1, e2, e3, s = self.dims
        u = self.unroll
        need = self.needs_input_grad
        return (
            Trilinear.apply(
                grad, i2, i3, expand1=s, expand2=e2, expand3=e3, sumdim=e1, unroll_dim=u
            )
            if need[0]
            else None,
            Trilinear.apply(
                i1, grad, i3, expand1=e1, expand2=s, expand3=e3, sumdim=e2, unroll_dim=u
            )
            if need[1]
            else None,
            Trilinear.apply(
                i1, i2, grad, expand1=e1, expand2=e2, expand3=s, sumdim=e3, unroll_dim=u
            )
            if need[2]
            else None,
        )

    jvp = Op.jvp_multilinear


class LinalgCross(Op):
    saves_inputs = True
    promote = True

    def forward(self, a, b, dim=-1):
        self.dim = dim
        return self.xp.cross(a, b, axis=dim)

    def backward(self, grad):
        a, b = self.inputs
        return (LinalgCross.apply(b, grad, dim=self.dim), LinalgCross.apply(grad, a, dim=self.dim))

    jvp = Op.jvp_multilinear


def cross(input, other, dim=None):
    """Cross product of 3-vectors along `dim` (torch.cross: the first dim of size 3 when
    dim is None).

    Args:
        input (Tensor): the input tensor.
        other (Tensor): the second tensor, broadcastable with ``input``.
        dim (int, optional): the dimension of size 3 to take the cross product along; the first such
            dimension when ``None``. Default: ``None``.

    Example:
        >>> framework.cross(framework.tensor([1., 0., 0.]), framework.tensor([0., 1., 0.]))
        tensor([0., 0., 1.])
    """
    if dim is None:
        dims = [i for i in range(input.dim()) if input.shape[i] == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    return linalg_cross(input, other, dim=dim)


def linalg_cross(input, other, *, dim=-1):
    """linalg.cross: cross product along `dim` (default last), inputs broadcast.

    Args:
        input (Tensor): the first tensor, of size 3 along ``dim``.
        other (Tensor): the second tensor, broadcast against ``input``.
        dim (int, optional): the dimension to take the cross product along. Default: ``-1``.

    Example:
        >>> x, y = framework.tensor([1.0, 0.0, 0.0]), framework.tensor([0.0, 1.0, 0.0])
        >>> framework.linalg.cross(x, y)
        tensor([0., 0., 1.])
    """
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{input.shape[d]} and {other.shape[d]}"
        )
    broadcast_shapes(input._data.shape, other._data.shape)  # torch's meta: before the dtypes
    refuse(input._data, "b", "cross")
    if input.dtype != other.dtype:  # torch does not promote here
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(input._data.dtype)} but found "
            f"{scalar_type_name(other._data.dtype)}"
        )
    return LinalgCross.apply(input, other, dim=d)


class Trace(Op):
    def forward(self, x):
        self.shape = x.shape
        return self.xp.trace(x)

    def backward(self, grad):
        n, m = self.shape
        eye = Tensor._make(grad.xp.eye(n, m, dtype=bool), grad.device)
        # torch copies grad onto the diagonal of zeros: a NaN gradient stays off the rest
        return grad.expand(n, m).masked_fill(~eye, 0.0)

    jvp = Op.jvp_linear


def trace(input):
    """Sum of the main diagonal of a 2-D tensor.

    Args:
        input (Tensor): a 2-D tensor.

    Example:
        >>> framework.trace(framework.eye(3))
        tensor(3.)
    """
    refuse(input._data, "b", "trace")  # torch dispatches on dtype first
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return Trace.apply(input)


class Cdist(Op):
    """Pairwise p-norm distances between the rows of x1 (.., P, M) and x2 (.., R, M)."""

    no_bfloat16 = "cdist"
    saves_inputs = True
    saves_output = True

    def forward(self, x1, x2, p=2.0, mm=False):
        xp = self.xp
        self.p, self.mm = p, mm
        if xp is _np and p in (1, 2) and x1.dtype.char in "fd" and x1.dtype == x2.dtype:
            out = None if mm else _cdist_compiled(x1, x2, p)
            if out is not None:
                return out
        diff = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
        if p == 0:  # torch counts min(ceil(|d|), 1): NaN stays NaN
            return xp.minimum(xp.ceil(diff), 1).sum(-1).astype(x1.dtype)
        if p == float("inf"):  # torch's std::max(agg, d) from 0: a NaN difference is skipped
            return xp.where(xp.isnan(diff), 0, diff).max(-1, initial=0).astype(x1.dtype)
        if xp is _np and diff.dtype.char in "fd" and not mm:
            return _cdist_sequential(diff, p)
        if p == 1:
            return diff.sum(-1)
        if p == 2:
            return xp.sqrt((diff * diff).sum(-1))
        return (diff**p).sum(-1) ** (1.0 / p)

    def backward(self, grad):
        x1, x2 = self.inputs
        need1, need2 = self.needs_input_grad
        if plain(grad) and not self.mm:  # torch's kernel on the arrays, where replayed
            g, d = grad._data, self.output._data
            a, b = x1._data, x2._data
            g1 = _cdist_backward_replay(g, a, b, d, self.p) if need1 else None
            g2 = None
            if need2:
                gt, dt = _np.swapaxes(g, -1, -2), _np.swapaxes(d, -1, -2)
                g2 = _cdist_backward_replay(gt, b, a, dt, self.p)
            if (g1 is not None or not need1) and (g2 is not None or not need2):
                return (wrap(g1, grad) if need1 else None), (wrap(g2, grad) if need2 else None)
        if plain(grad) or vmap_hook[0]:  # no graph to record (or batched): the formula
            return _cdist_grads(grad, x1, x2, self.output, self.p, (need1, need2))
        d, p = self.output, self.p  # torch: one _cdist_backward node per input
        mm = self.mm
        g1 = CdistBackward.apply(grad, x1, x2, d, p=p, second=False, mm=mm) if need1 else None
        g2 = CdistBackward.apply(grad, x2, x1, d, p=p, second=True, mm=mm) if need2 else None
        return g1, g2

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative yet
    jvp_name = "_cdist_forward"


def _cdist_compiled(x1, x2, p):
    """``_cdist_sequential`` for p = 1 or 2 by the compiled loop (``_replay_jit``: the same
    operations per pair, without the (.., P, R, M) differences); None without numba."""
    k = loops()
    if k is None or type(x1) is not _np.ndarray or type(x2) is not _np.ndarray:
        return None
    if not x1.size or not x2.size:
        return None  # (the NumPy path's empty results)
    (np1, m), nr = x1.shape[-2:], x2.shape[-2]
    batch = x1.shape[:-2]
    if batch == x2.shape[:-2]:  # (any strides: the loop reads them)
        a, b = x1.reshape(-1, np1, m), x2.reshape(-1, nr, m)
    else:
        batch = _np.broadcast_shapes(batch, x2.shape[:-2])
        a = _np.ascontiguousarray(_np.broadcast_to(x1, batch + (np1, m))).reshape(-1, np1, m)
        b = _np.ascontiguousarray(_np.broadcast_to(x2, batch + (nr, m))).reshape(-1, nr, m)
    out = _np.empty(batch + (np1, nr), x1.dtype)
    body = m - m % (16 // x1.itemsize)
    k.cdist_pairs(a, b, p == 2, body, out.reshape(-1, np1, nr))
    return out


def _cdist_sequential(diff, p):
    """torch's run_parallel_cdist (DistanceOpsKernel.cpp) on |x1 - x2| (.., P, R, M): one
    accumulator per pair from 0, added in column order (``agg + |d|``, ``agg + d * d`` with two
    roundings, ``agg + pow(|d|, p)`` with p in the dtype), then ``sqrt(agg)`` or
    ``pow(agg, 1.0 / p)`` in double (std::pow of a float and a double), rounded to the dtype;
    measured bit-equal to torch 2.13 for p = 1, 2, 2.5, 3, 0.7 and 0 to 103 columns."""
    dt = diff.dtype.type
    m = diff.shape[-1]
    if m == 0 or diff.size == 0:
        return _np.zeros(diff.shape[:-1], diff.dtype)
    cols = _np.ascontiguousarray(_np.moveaxis(diff, -1, 0)).reshape(m, -1)  # (M, pairs)
    if p == 1:
        return down(cols).reshape(diff.shape[:-1])
    if p == 2:  # (the compiler's in-order vector loop: squares of 4 float32 / 2 float64
        # rounded, then added; the last m % 4 (m % 2) fused-multiply-added one by one)
        body = m - m % (16 // diff.itemsize)
        acc = down(cols[:body] ** 2) if body else _np.zeros(cols.shape[1], diff.dtype)
        for k in range(body, m):
            acc = fused(cols[k], cols[k], acc)
        return _np.sqrt(acc).reshape(diff.shape[:-1])
    with _np.errstate(all="ignore"):
        agg = down(_np.power(cols, dt(p)))
        out = _np.power(agg.astype(_np.float64), 1.0 / float(dt(p))).astype(diff.dtype)
        return out.reshape(diff.shape[:-1])


def _cdist_backward_replay(g, x, other, d, p):
    """torch's _cdist_backward(g, x, other, p, d) for p = 1 or 2 on NumPy float32/float64
    arrays of one batch shape (run_backward_parallel_cdist: each row's gradient from 0, the
    rows of ``other`` added in order, ``g * sign(x - other_j)`` or ``(g * (x - other_j)) / d``,
    0 where d is 0); x2's gradient is the call with x1 and x2 swapped and g, d transposed.
    None elsewhere (the formula: other p, broadcast batches, the matrix-product path)."""
    if p not in (1, 2) or any(type(a) is not _np.ndarray for a in (g, x, other, d)):
        return None
    if x.dtype.char not in "fd" or not all(a.dtype == x.dtype for a in (g, other, d)):
        return None
    (n, m), r, batch = x.shape[-2:], other.shape[-2], x.shape[:-2]
    if other.shape[:-2] != batch or g.shape != batch + (n, r) or not x.size or not other.size:
        return None  # (no rows in `other`: the formula's zeros; fuzz seed 380024835)
    a, b = x.reshape(-1, n, m), other.reshape(-1, r, m)
    g3, d3 = g.reshape(-1, n, r), d.reshape(-1, n, r)
    out = _np.empty(x.shape, x.dtype)
    k = loops()
    if k is not None:
        consts = _np.array([0, 1, -1], x.dtype)
        k.cdist_backward(a, b, g3, d3, p == 2, consts, out.reshape(-1, n, m))
        return out
    acc = _np.zeros(a.shape, x.dtype)
    with _np.errstate(all="ignore"):
        for j in range(r):
            diff = a - b[:, j : j + 1]
            gj, dj = g3[:, :, j : j + 1], d3[:, :, j : j + 1]
            if p == 2:
                t = _np.where(dj == 0, x.dtype.type(0), gj * diff / dj)
            else:
                t = gj * _np.sign(diff)
            acc = acc + t
    out[...] = acc.reshape(x.shape)
    return out


def _cdist_grads(grad, x1, x2, out, p, need=(True, True)):
    """cdist's gradients (x1, x2) for `grad`, in Tensor ops, from its output `out`."""
    d = out.unsqueeze(-1)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    g = grad.unsqueeze(-1)
    zero = Tensor._make(grad.xp.zeros(tuple(diff.shape), diff._data.dtype), grad.device)
    if p == 0:
        t = zero
    elif p == 1:  # torch's vectorised sign keeps NaN (sgn gives 0)
        t = diff.sgn().where(~diff.isnan(), diff) * g
    elif p == 2:
        t = (diff * (g / d)).where(d != 0, zero)
    elif p == float("inf"):
        # torch's vectorised formula: g sign(diff) (1 - min(1, ceil(| |diff| - d |)));
        # its sign and min keep NaN (an inf difference at an inf distance too)
        sign = diff.sgn().where(~diff.isnan(), diff)
        t = g * sign * (1 - (diff.abs() - d).abs().ceil().clamp(max=1))
    else:
        t = (diff * diff.abs() ** (p - 2) * (g / d ** (p - 1))).where(d != 0, zero)
    return t.sum(-2) if need[0] else None, -t.sum(-3) if need[1] else None


class CdistBackward(Op):
    """One input's gradient of cdist, torch's _cdist_backward(grad, x1, x2, p, cdist) (for
    x2: its call with x1 and x2 swapped): one node whose output requires grad whenever an
    input does. Torch refuses its derivative (not implemented); where torch takes its
    matrix-product path (`mm`: p = 2 and compute_mode asks for it), whose graph of primitives
    it differentiates, ours differentiates the formula (recorded again)."""

    saves_inputs = True

    def forward(self, g, x, other, d, p=2.0, second=False, mm=False):
        self.p, self.second, self.mm = p, second, mm
        if not mm:  # torch's kernel, where replayed (for x2: x1 and x2 swapped, g and d
            # transposed, as torch calls it)
            gt, dt = (_np.swapaxes(a, -1, -2) if second else a for a in (g, d))
            out = _cdist_backward_replay(gt, x, other, dt, p)
            if out is not None:
                return out
        dev = device_of(x)
        t = [Tensor._make(a, dev) for a in (g, x, other, d)]
        with no_grad():
            return self._formula(*t)._data

    def _formula(self, g, x, other, d):
        if self.second:  # x2's gradient from the x1-x2 differences, as cdist's backward
            return _cdist_grads(g, other, x, d, self.p, (False, True))[1]
        return _cdist_grads(g, x, other, d, self.p, (True, False))[0]

    def backward(self, gg):
        if not self.mm:  # torch's not_implemented("_cdist_backward")
            raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")
        return regrad(lambda *t: (self._formula(*t),), self.inputs, self.needs_input_grad, (gg,))

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative
    jvp_name = "_cdist_backward"


class EuclideanDist(Op):
    """torch's _euclidean_dist(x1, x2), cdist's matrix-product path for p = 2: the distances
    as sqrt(clamp_min([-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T, 0)), rounding like one product
    (a self-distance is rounding noise, not 0, as torch's). Its backward is torch's
    _euclidean_dist_backward in Tensor ops (so it has a second derivative)."""

    saves_inputs = True
    saves_output = True

    def forward(self, x1, x2):
        """The distances between the rows of x1 (.., P, M) and x2 (.., R, M): (.., P, R)."""
        xp = self.xp
        with no_grad():  # (torch's ops: the squares summed in its order)
            n1, n2 = (Tensor._make(a, device_of(a)).pow(2).sum(-1, True)._data for a in (x1, x2))
        a = xp.concatenate([x1 * x1.dtype.type(-2), n1, xp.ones_like(n1)], -1)
        b = xp.concatenate([x2, xp.ones_like(n2), n2], -1)
        out = xp.matmul(a, xp.swapaxes(b, -1, -2))
        xp.maximum(out, 0, out=out, where=~xp.isnan(out))  # clamp_min_ (NaN stays)
        return xp.sqrt(out, out=out)

    def backward(self, grad):
        """torch's _euclidean_dist_backward (a 0 subgradient at distance 0)."""
        x1, x2 = self.inputs
        res = self.output
        ratio = (grad / res).masked_fill(res == 0, 0)  # a subgradient of 0 at distance 0
        g1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)
        g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1)
        return g1, g2

    jvp = Op.jvp_not_implemented  # as torch 2.13: no forward derivative
    jvp_name = "_euclidean_dist"


def _euclidean_cdist(x1, x2):
    """cdist_impl's matrix-product path: _euclidean_dist of the inputs (of their batches
    expanded and flattened where the batch has more than one element), viewed as the output
    shape (ViewBackward0 over EuclideanDistBackward0, as torch's)."""
    from .shape import reshape

    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    batch = broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    shape = batch + (r1, r2)
    if c == 0:  # torch: at::zeros, no graph
        return Tensor._make(x1.xp.zeros(shape, x1._data.dtype), x1.device)
    n = math.prod(batch)
    if n == 1:
        return EuclideanDist.apply(x1, x2).view(shape)
    a = reshape(x1.expand(batch + (r1, c)), (n, r1, c))
    b = reshape(x2.expand(batch + (r2, c)), (n, r2, c))
    return EuclideanDist.apply(a, b).view(shape)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Distances between each row of x1 and each row of x2 (batched), p-norm.

    Args:
        x1 (Tensor): the first set of row vectors, ``(B, P, M)`` or ``(P, M)``.
        x2 (Tensor): the second set of row vectors, ``(B, R, M)`` or ``(R, M)``.
        p (float, optional): the p of the p-norm distance, in ``[0, inf]``. Default: ``2.0``.
        compute_mode (str, optional): torch's choice of matrix-product path for ``p = 2``
            (``'use_mm_for_euclid_dist'``, or ``'use_mm_for_euclid_dist_if_necessary'`` with more
            than 25 rows in x1 or x2): the values are the same; only that path has a second
            derivative, as torch's. Default: ``'use_mm_for_euclid_dist_if_necessary'``.

    Example:
        >>> framework.cdist(framework.tensor([[0., 0.]]), framework.tensor([[3., 4.]]))
        tensor([[5.]])
    """
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.is_floating_point():
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: "
                f"{scalar_type_name(x._data.dtype)}"
            )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    rows = max(x1.shape[-2], x2.shape[-2])
    mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (compute_mode == "use_mm_for_euclid_dist_if_necessary" and rows > 25)
    )
    if mm and x1.numel() and x2.numel():  # (empty inputs: torch's _cdist_forward node)
        return _euclidean_cdist(x1, x2)
    return Cdist.apply(x1, x2, p=float(p), mm=mm)


# ----- shape helpers -------------------------------------------------------------------------
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along `dim` (after concatenating prepend/append).

    Args:
        input (Tensor): the input tensor.
        n (int, optional): how many times to difference recursively. Default: ``1``.
        dim (int, optional): the dimension to difference along. Default: ``-1``.
        prepend (Tensor, optional): values to put before ``input`` along ``dim``. Default: ``None``.
        append (Tensor, optional): values to put after ``input`` along ``dim``. Default: ``None``.

    Example:
        >>> framework.tensor([1, 4, 9]).diff()
        tensor([3, 5])
    """
    from .join import cat

    if input.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for other in (prepend, append):
        if other is not None:
            _diff_check_shape(input, other, dim)
    d = _dim(dim, input.dim())
    if n == 0:  # torch: a copy into zeros_like (CopyBackwards), prepend/append unused
        out = input.new_zeros(tuple(input.shape))
        return out.copy_(input)
    x = input
    if prepend is not None or append is not None:
        x = cat([t for t in (prepend, input, append) if t is not None], d)
    out_len = x.shape[d] - 1
    for _ in range(min(n, x.shape[d])):  # torch's diff_helper: n at most the size
        hi, lo = x.narrow(d, 1, out_len), x.narrow(d, 0, out_len)
        x = (hi != lo) if x.dtype.name == "bool" else hi - lo
        out_len -= 1
    return x


def _diff_check_shape(input, other, dim):
    """torch's diff_check_compatible_shape of a prepend/append tensor."""
    d = _dim(dim, input.dim())
    if other.dim() != input.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(other.dim()):
        if i != d and other.shape[i] != input.shape[i]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({i}) = {input.shape[i]}, "
                f"but got tensor.size({i}) = {other.shape[i]}"
            )


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors; indexing 'ij' (default) or 'xy'.

    Args:
        *tensors (Tensors): 1-D tensors (or one list of them), one per output dimension.
        indexing (str, optional): ``'ij'`` (matrix indexing, the default) or ``'xy'`` (the first two
            dimensions swapped). Default: ``None`` (``'ij'``).

    Example:
        >>> gx, gy = framework.meshgrid(framework.tensor([1, 2]), framework.tensor([3, 4, 5]),
        ...                             indexing="ij")
        >>> gx.shape
        torch.Size([2, 3])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = indexing or "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}"
        )
    n = len(tensors)
    swap = indexing == "xy" and n >= 2
    ts = list(tensors)
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    out = []
    for i, t in enumerate(ts):
        view = [1] * n
        view[i] = -1
        out.append(t.reshape(*view).expand(*shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def cartesian_prod(*tensors):
    """All combinations of elements of 1-D tensors, one per row."""
    from .join import stack

    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def tensor_split(input, indices_or_sections, dim=0):
    """Split into n nearly equal parts (the first size % n parts one longer), or at indices.

    Args:
        input (Tensor): the input tensor.
        indices_or_sections (int, list or Tensor): the number of parts, or the indices where to
            split.
        dim (int, optional): the dimension to split along. Default: ``0``.

    Example:
        >>> [t.tolist() for t in framework.arange(5).tensor_split(2)]
        [[0, 1, 2], [3, 4]]
    """
    d = _dim(dim, input.dim())
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            stop = start + q + (1 if i < r else 0)
            bounds.append((start, stop))
            start = stop
    else:
        idx = [0] + [int(i) for i in indices_or_sections] + [size]
        # Python slice bounds: a negative index counts from the end
        bounds = [slice(a, b).indices(size)[:2] for a, b in zip(idx, idx[1:])]
    out = []
    for a, b in bounds:  # narrow: torch's slice op (SliceBackward0 even for the whole dim)
        out.append(input.narrow(d, a, max(b - a, 0)))
    return tuple(out)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element `repeats` times (a number or one count per element) along dim
    (over the flattened input when dim is None).

    Args:
        input (Tensor): the input tensor.
        repeats (int or Tensor): the number of repetitions of each element (one count, or one per
            element along ``dim``).
        dim (int, optional): the dimension to repeat along; the flattened input when ``None``.
            Default: ``None``.
        output_size (int, optional): the total size of the output along ``dim``, if known. Default:
            ``None``.

    Example:
        >>> framework.tensor([1, 2]).repeat_interleave(2)
        tensor([1, 1, 2, 2])
    """
    if repeats is None:  # repeat_interleave(counts): indices repeated by their counts
        counts = input
        xp = counts.xp
        return Tensor._make(xp.repeat(xp.arange(counts.numel()), counts._data), counts.device)
    if dim is not None and input.dim() == 0:  # torch's errors for a 0-dim input
        if isinstance(repeats, Tensor) and repeats.dim():
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        _dim(dim, 0)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    # torch: input.flatten(), which returns a 1-D input itself (no ViewBackward0)
    x = input if dim is not None or input.dim() == 1 else input.reshape(-1)
    d = 0 if dim is None else _dim(dim, x.dim())
    if isinstance(repeats, Tensor) and repeats.numel() == 1 and repeats.dim() <= 1:
        repeats = int(repeats.item()) if repeats.dim() == 0 else repeats
    if isinstance(repeats, int):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        shape = list(x.shape)
        exp = shape[: d + 1] + [repeats] + shape[d + 1 :]
        shape[d] *= repeats  # torch's nodes: Unsqueeze, Expand, Clone, View
        return x.unsqueeze(d + 1).expand(*exp).clone(memory_format="contiguous").view(*shape)
    if repeats.dim() != 1 or repeats.numel() != x.shape[d]:
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got "
            f"repeats.size(0) = {repeats.numel()} and input.size({d}) = "
            f"{x.shape[d]}"
        )
    xp = x.xp
    idx = Tensor._make(xp.repeat(xp.arange(x.shape[d]), repeats._data), x.device)
    return x.index_select(d, idx)


__all__ = [
    "einsum",
    "tensordot",
    "kron",
    "cross",
    "trace",
    "cdist",
    "diff",
    "meshgrid",
    "cartesian_prod",
    "tensor_split",
    "repeat_interleave",
]
