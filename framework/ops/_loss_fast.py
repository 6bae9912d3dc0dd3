"""cross_entropy and nll_loss in their common case, without the general Op path.

The common case: float32/float64 (N, C) input, int64 (N,) class indices all in [0, C) (plain
tensors or views, as the GPT's ``logits.view(-1, C)``), no class weight, an ignore_index
outside [0, C) (-100, the GPT examples' -1: no target can equal it), reduction 'mean', no
label smoothing, on the CPU, with no vmap, forward AD, autocast, anomaly mode or saved-tensor
hooks about. There the argument checks have nothing to refuse and every per-row weight is 1,
so the loss is computed straight on the arrays and torch's two nodes (LogSoftmaxBackward0 ->
NllLossBackward0) are recorded as the general path records them: same classes, saved data,
values and backward (double backward included). Anything else returns None and the caller
takes its general path, which raises torch's errors.
"""

import numpy as _np

from ..amp.autocast_mode import in_use as _amp_in_use
from ..autograd.grad_mode import _State, fw_in_use, hooks_in_use, state
from ..autograd.op import Op, vmap_hook
from ..tensor import Tensor, View
from . import _sleef, activation as _act  # (activation: partly initialised here)
from ._sum_kernel import nll_sums

_new = object.__new__
_ndarray = _np.ndarray
_F32, _F64 = _np.dtype("float32"), _np.dtype("float64")
_I64, _U64 = _np.dtype("int64"), _np.dtype("uint64")
_NEEDS = (True, False, False)
_rows_ones = {}  # per (N, dtype): row indices, and the all-1 weights and all-kept flags
#                 NllLoss's node reads (never written: shared between nodes)


def _consts(n, dt):
    c = _rows_ones.get((n, dt))
    if c is None:
        c = (_np.arange(n), _np.ones(n, dt), _np.ones(n, bool))
        for a in c:
            a.flags.writeable = False
        if len(_rows_ones) < 64:
            _rows_ones[(n, dt)] = c
    return c


def common_rows(n, wt, keep):
    """The row indices 0..n-1 when `wt` and `keep` are the shared all-1 weights and all-kept
    flags of `_consts` (the common case's NllLoss node), else None."""
    c = _rows_ones.get((n, wt.dtype))
    if c is not None and wt is c[1] and keep is c[2]:
        return c[0]
    return None


def _common(input, target, ignore_index):
    """input's and target's arrays when the call is the common case (see the module), else
    None."""
    if (
        type(ignore_index) is not int
        or (type(input) is not Tensor and type(input) is not View)
        or (type(target) is not Tensor and type(target) is not View)
        or vmap_hook[0]
        or fw_in_use[0]
        or _amp_in_use[0]
        or hooks_in_use[0]
        or _State.anomaly
    ):
        return None
    x, t = input._data, target._data
    dt = x.dtype
    if (
        type(x) is not _ndarray
        or (dt is not _F32 and dt is not _F64)
        or x.ndim != 2
        or type(t) is not _ndarray
        or t.dtype is not _I64
        or t.ndim != 1
        or (target._device is not input._device and target._device != input._device)
    ):  # (an ndarray is on the CPU)
        return None
    n, c = x.shape
    if not n or not c or t.shape[0] != n or 0 <= ignore_index < c:
        return None
    # every index in [0, C): as uint64 a negative one is huge, so one max checks both ends
    if _np.maximum.reduce(t.view(_U64)) >= c:
        return None
    return x, t


def _nll(nll_op, input, logp, target, t, ignore_index):
    """NllLoss's 'mean' node (or its value without grad) over log-probabilities `logp` (the
    array of Tensor `input`) and in-range class indices `t` (target's array), none of them
    ignore_index."""
    n = logp.shape[0]
    dt = logp.dtype
    rows, ones, keep = _consts(n, dt)
    total = dt.type(n)  # the sum of the per-row weights (all 1): -sum(x[n, t[n]]) / N
    sums = nll_sums(logp[rows, t], ones, keep)  # torch's cascaded sum, else NumPy's
    out = _np.asarray(sums[0] / total if sums else _np.add.reduce(logp[rows, t]) / dt.type(-n))
    if not (input._rg and state.enabled):
        return Tensor._make(out, input._device)
    fn = _new(nll_op._node_cls)
    fn._released = False
    fn.xp = _np
    fn.x_shape, fn.reduction, fn.out_shape = logp.shape, "mean", t.shape
    fn.ignore_index = ignore_index
    fn.safe, fn.wt, fn.keep, fn.total_weight, fn.denom = t, ones, keep, _np.asarray(total), total
    loss = Op._record(
        fn, (input,), out, input._device
    )  # (not the name variant's) one edge, as torch
    fn._inputs = (input, target, None)  # what backward and the saved fields read
    fn.needs_input_grad = _NEEDS
    fn._versions = (input._vc[0], target._vc[0], None)
    return loss


def cross_entropy(input, target, nll_op, ignore_index=-100):
    """F.cross_entropy(input, target, ignore_index=ignore_index) in the common case, or None
    (see the module); `nll_op` is loss.NllLoss."""
    arrays = _common(input, target, ignore_index)
    if arrays is None:
        return None
    ls = _new(_act.LogSoftmax._node_cls)
    ls._released = False
    ls.xp = _np
    x = arrays[0]
    j = _sleef._jit()
    if j is not None and x.flags.c_contiguous:  # LogSoftmax.forward's kernel, called as it
        ls.axis = 1  # calls it for a float (N, C) array (no checks left to make)
        logp = _np.empty_like(x)
        j.softmax_lastdim(x, logp, True, _sleef._CONSTS[x.dtype])
    else:
        logp = ls.forward(x, 1)  # the kernel log_softmax runs, with its values
    if input._rg and state.enabled:
        lt = ls._record((input,), logp, input._device)
    else:
        lt = Tensor._make(logp, input._device)
    return _nll(nll_op, lt, logp, target, arrays[1], ignore_index)


def nll_loss(input, target, nll_op, ignore_index=-100):
    """F.nll_loss(input, target, ignore_index=ignore_index) in the common case, or None (see
    the module)."""
    arrays = _common(input, target, ignore_index)
    if arrays is None:
        return None
    return _nll(nll_op, input, arrays[0], target, arrays[1], ignore_index)
