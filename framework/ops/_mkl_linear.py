"""F.linear with every product by MKL (torch's BLAS) whatever its size: torch's bits where the
library would keep NumPy's product (below `_mkl.MIN_MACS`, faster, other bits). Used where a
replay downstream needs its inputs to be torch's bits: attention's projections, the recurrent
layers' and cells' gate products, cov. With numba every product is MKL's at any size already
(`_mkl_gemm`): these are then the general path; they differ only where MKL is called by
ctypes alone."""

import contextlib
import math

import numpy as np

from ..amp.autocast_mode import in_use as _amp_in_use, state as _amp
from . import _mkl
from .linalg import Addmm, Mm, linear, matmul
from .shape import _unsafe_view, reshape


@contextlib.contextmanager
def mkl_any_size(macs):
    """Every float product to MKL (torch's BLAS) while the block runs (see the module): a
    no-op where numba compiles `_mkl_gemm`'s call (every product is MKL's already); with
    ctypes alone the products below `_mkl.MIN_MACS` too. On MKL's own thread count, as
    torch's: a small product's bits can depend on it (a 5 x 17 by 17 x 33 float32 product:
    9 % of its elements apart between 1 and 2 threads). `macs`: the product's size (kept for
    the callers; unused)."""
    if not _mkl.available() or _mkl.MIN_MACS == 0:
        yield
        return
    before = _mkl.MIN_MACS
    _mkl.MIN_MACS = 0
    try:
        yield
    finally:
        _mkl.MIN_MACS = before


def _macs(a, b):
    """The multiply-adds of the product of 2-D arrays a and b."""
    return a.shape[0] * a.shape[1] * b.shape[-1]


class _AddmmMKL(Addmm):
    """torch's addmm (its node AddmmBackward0) with MKL's products at any size, backward too."""

    node_name = "AddmmBackward0"

    def forward(self, bias, m1, m2, **kwargs):
        """Addmm's forward under `mkl_any_size`."""
        self.macs = _macs(m1, m2)
        with mkl_any_size(self.macs):
            return Addmm.forward(self, bias, m1, m2, **kwargs)

    def backward(self, grad):
        """Addmm's backward under `mkl_any_size` (its products have the forward's size)."""
        with mkl_any_size(self.macs):
            return Addmm.backward(self, grad)


class _MmMKL(Mm):
    """torch's mm (its node MmBackward0) with MKL's products at any size, backward too."""

    node_name = "MmBackward0"

    def forward(self, a, b):
        """Mm's forward under `mkl_any_size`."""
        self.macs = _macs(a, b)
        with mkl_any_size(self.macs):
            return Mm.forward(self, a, b)

    def backward(self, grad):
        """Mm's backward under `mkl_any_size`."""
        with mkl_any_size(self.macs):
            return Mm.backward(self, grad)


def linear_mkl(x, w, b=None):
    """F.linear with the nodes torch records (addmm, or mm of the folded input without a
    bias), every product MKL's: torch's bits at the small sizes attention projects. Other
    inputs (not float32/float64 NumPy, autocast) take `linear`."""
    d = x._data
    if not (
        type(d) is np.ndarray
        and d.dtype.char in "fd"
        and d.dtype == w._data.dtype
        and x.ndim in (2, 3)
        and w.ndim == 2
        and (b is None or (b.ndim == 1 and b._data.dtype == d.dtype))
        and x.shape[-1] == w.shape[1]
        and not (_amp_in_use[0] and _amp.active)
    ):
        return linear(x, w, b)
    lead = tuple(x.shape[:-1])
    x2 = x if x.ndim == 2 else reshape(x, math.prod(lead), x.shape[-1])
    if b is not None and x.ndim == 3 and not d.flags.c_contiguous:
        # torch's linear adds the bias into addmm for a contiguous input only; otherwise it
        # is matmul's product (folded: an mm of the copied rows, as the weight requires
        # grad; else a bmm), then the bias added (AddBackward0): other float64 bits
        if not w.requires_grad:
            return matmul(x, w.t()) + b
        return _unsafe_view(_MmMKL.apply(x2, w.t()), lead + (w.shape[0],)) + b
    if b is None:
        out = _MmMKL.apply(x2, w.t())
        return out if x.ndim == 2 else _unsafe_view(out, lead + (w.shape[0],))
    out = _AddmmMKL.apply(b, x2, w.t())
    return out if x.ndim == 2 else reshape(out, lead + (w.shape[0],))
