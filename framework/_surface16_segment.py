"""torch.segment_reduce: sum, mean, max, min or prod over consecutive segments of one axis
(given by their lengths or offsets), with ATen's CPU kernel's order (each segment
accumulated element by element from ``initial``) and its backward formulas."""

import math

import numpy as np

from .autograd.op import Op

_REDUCTIONS = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max", "min": "min",
               "amin": "min", "prod": "prod"}  # fmt: skip


def _lengths_2d(lengths, outer, segments):
    return lengths.reshape(outer, segments).astype(np.int64)


class SegmentReduce(Op):
    """The reduction (forward on arrays); the gradient is torch's _segment_reduce_backward,
    itself not differentiable (as torch)."""

    saves_inputs = True
    saves_output = True

    def forward(self, data, lengths=None, reduce="sum", axis=0, initial=None):
        """torch.segment_reduce: each segment (by lengths or offsets) reduced along axis from its
        initial value, element by element as ATen."""
        self.reduce, self.axis, self.initial, self.lengths = reduce, axis, initial, lengths
        if self.xp is not np:  # (the loops run on the host)
            return self.xp.asarray(self._reduce(self.xp.asnumpy(data)))
        return self._reduce(data)

    def _reduce(self, data):
        """The reduction on a NumPy array."""
        reduce, axis, initial, lengths = self.reduce, self.axis, self.initial, self.lengths
        shape = data.shape
        outer = math.prod(shape[:axis])
        inner = math.prod(shape[axis + 1 :])
        segments = lengths.shape[-1]
        lens = _lengths_2d(lengths, outer, segments)
        x = np.ascontiguousarray(data).reshape(outer, shape[axis], inner)
        dt = x.dtype.type
        default = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[reduce]
        start_value = dt(default if initial is None else initial)
        out = np.empty((outer, segments, inner), x.dtype)
        for o in range(outer):
            start = 0
            for s in range(segments):
                n = int(lens[o, s])
                acc = np.full(inner, start_value, x.dtype)
                for j in range(start, start + n):
                    v = x[o, j]
                    if reduce in ("sum", "mean"):
                        acc = acc + v
                    elif reduce == "prod":
                        acc = acc * v
                    elif reduce == "max":
                        acc = np.where(np.isnan(v), v, np.maximum(acc, v))
                    else:
                        acc = np.where(np.isnan(v), v, np.minimum(acc, v))
                if reduce == "mean":
                    if n > 0:
                        acc = acc / dt(n)
                    elif initial is None:
                        acc = np.full(inner, np.nan, x.dtype)
                out[o, s] = acc
                start += n
        return out.reshape(shape[:axis] + (segments,) + shape[axis + 1 :])

    def backward(self, grad):
        """The gradient of data as torch's _segment_reduce_backward (ties of max/min share it where
        positive)."""
        from .ops.elementwise import NotImplementedBackward

        (x,) = self.inputs[:1]
        out = self._out

        def fn(xp, g, data):
            host = (lambda a: a) if xp is np else xp.asnumpy
            gx = _segment_backward(
                host(g), host(out), host(data), self.lengths, self.reduce, self.axis, self.initial
            )
            return xp.asarray(gx)

        return NotImplementedBackward.apply(grad, x, fn=fn, aten="_segment_reduce_backward")

    jvp = Op.jvp_not_implemented
    jvp_name = "segment_reduce"


def _segment_backward(grad, output, data, lengths, reduce, axis, initial):
    """torch's _segment_reduce_backward (CPU kernel), on arrays."""
    shape = data.shape
    outer = math.prod(shape[:axis])
    inner = math.prod(shape[axis + 1 :])
    segments = lengths.shape[-1]
    lens = _lengths_2d(lengths, outer, segments)
    x = np.ascontiguousarray(data).reshape(outer, shape[axis], inner)
    g = np.ascontiguousarray(grad).reshape(outer, segments, inner)
    y = np.ascontiguousarray(output).reshape(outer, segments, inner)
    dt = x.dtype.type
    gx = np.zeros_like(x)
    for o in range(outer):
        start = 0
        for s in range(segments):
            n = int(lens[o, s])
            seg = slice(start, start + n)
            if n == 0:
                continue
            if reduce == "sum":
                gx[o, seg] = g[o, s]
            elif reduce == "mean":
                gx[o, seg] = g[o, s] / dt(n)
            elif reduce in ("max", "min"):
                vals = x[o, seg]
                hit = (vals == y[o, s]) | (np.isnan(vals) & np.isnan(y[o, s]))
                count = hit.sum(0)
                picked = np.where(hit, g[o, s], x.dtype.type(0))
                # torch's kernel shares a tie's gradient only where it is positive (it tests
                # grad_input > 0 before dividing by the count): kept as torch computes it
                share = (count > 1) & (picked > 0)
                gx[o, seg] = np.where(share, picked / np.maximum(count, 1).astype(x.dtype), picked)
            else:
                vals = x[o, seg]
                for j in range(n):
                    v = vals[j]
                    normal = np.isnan(v) | (v != 0)
                    excl = np.full(inner, dt(1.0 if initial is None else initial), x.dtype)
                    for k in range(n):
                        if k != j:
                            excl = excl * vals[k]
                    with np.errstate(all="ignore"):
                        gx[o, start + j] = np.where(normal, g[o, s] * y[o, s] / v, g[o, s] * excl)
            start += n
    return gx.reshape(shape)


def segment_reduce(
    data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None
):
    """Reduces consecutive segments of ``data`` along ``axis``: segment i holds the next
    ``lengths[i]`` entries (or those from ``offsets[i]`` to ``offsets[i + 1]``); an empty
    segment gives ``initial`` (else 0, 1, -inf, +inf or NaN for sum, prod, max, min, mean).

    Args:
        data (Tensor): the values.
        reduce (str): ``'sum'``, ``'mean'``, ``'max'``/``'amax'``, ``'min'``/``'amin'`` or
            ``'prod'``.
        lengths (Tensor, optional): the segment lengths, ``data.shape[:axis] + (S,)``.
        indices (Tensor, optional): unsupported, as in torch.
        offsets (Tensor, optional): the segment bounds, ``data.shape[:axis] + (S + 1,)``.
        axis (int, optional): the reduced axis. Default: 0.
        unsafe (bool, optional): skip the check that the lengths cover the axis.
        initial (float, optional): the starting value of every segment.

    Example:
        >>> framework.segment_reduce(framework.tensor([1.0, 2.0, 3.0]), "sum",
        ...                          lengths=framework.tensor([2, 1]))
        tensor([3., 3.])
    """
    name = _REDUCTIONS.get(reduce)
    if name is None:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    axis = axis + data.dim() if axis < 0 else axis
    to_np = (lambda a: a) if data.xp is np else data.xp.asnumpy
    if lengths is not None:
        lens = np.asarray(to_np(lengths._data)).astype(np.int64)
    else:
        off = np.asarray(to_np(offsets._data)).astype(np.int64)
        lens = np.diff(off, axis=-1)
    if not unsafe:
        if (lens < 0).any():
            raise RuntimeError("lengths contains negative value!")
        if not (lens.sum(-1) == data.shape[axis]).all():
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to "
                "data.size(lengths.dim()-1) when !unsafe."
            )
    return SegmentReduce.apply(data, lengths=lens, reduce=name, axis=axis, initial=initial)


__all__ = ["segment_reduce"]
