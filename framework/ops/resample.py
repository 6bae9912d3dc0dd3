"""Resampling as separable linear maps: interpolate (nearest, nearest-exact, linear, bilinear,
bicubic, trilinear) applies one (out, in) weight matrix per spatial axis; the gradient applies
the transposes. Also pixel_shuffle/unshuffle and channel_shuffle (pure rearrangements)."""

import functools
import math

from .._errors import refuse
from ..autograd.op import Op
from .._fma import fused
from ..backend import np as _np
from ..backend import scatter_add
from ._replay_jit import loops

_A = -0.75  # torch's bicubic convolution coefficient


def _finite(xp, x):
    return x.dtype.kind != "f" or not x.size or bool(xp.isfinite(x).all())


def _apply(xp, x, mats, adjoint=False):
    """Contract axis `a` of x with matrix m (out, in) (its transpose for the adjoint), for
    each (a, m, idx, w). A non-finite x goes through torch's taps instead: each output reads
    exactly the inputs torch's kernel reads (zero weights too: inf * 0 = nan where torch's
    does, and nowhere else)."""
    if not _finite(xp, x):
        for a, m, idx, w in mats:
            x = (
                _scatter_taps(xp, x, a, idx, w, m.shape[1])
                if adjoint
                else _gather_taps(xp, x, a, idx, w)
            )
        return x
    for a, m, _, _ in mats:
        m = m.T if adjoint else m
        x = xp.moveaxis(xp.tensordot(x, m.astype(x.dtype, copy=False), axes=([a], [1])), -1, a)
    return x


def _generic_linear(x, mats):
    """torch's upsample_generic_Nd_kernel_impl (linear, bilinear, trilinear, bicubic),
    float32/float64: each output is the sum of its taps times their weights over the
    outermost axis, its t's the same over the next axis, down to the input (so the last axis
    is interpolated first), as torch's build rounds it: ``fma(t0, w0, t1 * w1)``, then each
    further tap fused in (``fma(t2, w2, acc)``, ...); weights in the input's dtype. Measured
    bit-equal to torch 2.13 (upsampling and downsampling, both align_corners). Compiled
    where numba is (``_replay_jit.axis_taps``: the same fused steps, no tap copies)."""
    jit = loops()
    for a, _, idx, w in reversed(mats):
        w = w.astype(x.dtype)
        if jit is not None and idx.shape[1] >= 2 and x.size and idx.shape[0]:
            x = _np.ascontiguousarray(x)
            outer = math.prod(x.shape[:a])
            out = _np.empty(x.shape[:a] + (idx.shape[0],) + x.shape[a + 1 :], x.dtype)
            x3 = x.reshape(outer, x.shape[a], -1)
            idx2 = _np.ascontiguousarray(idx, dtype=_np.intp)
            jit.axis_taps(x3, idx2, _np.ascontiguousarray(w), out.reshape(outer, idx.shape[0], -1))
            x = out
            continue
        taps = [_np.take(x, idx[:, k], axis=a) for k in range(idx.shape[1])]  # C order
        wshape = [1] * x.ndim
        wshape[a] = idx.shape[0]
        wts = [w[:, k].reshape(wshape) for k in range(len(taps))]  # (fused broadcasts)
        x = fused(taps[0], wts[0], taps[1] * wts[1])
        for k in range(2, len(taps)):
            x = fused(taps[k], wts[k], x)
    return _np.ascontiguousarray(x)


def _gather_taps(xp, x, a, idx, w):
    """Each output's sum of its taps times their weights (an index -1: no tap)."""
    x = xp.moveaxis(x, a, -1)
    out = xp.zeros(x.shape[:-1] + (idx.shape[0],), dtype=x.dtype)
    for k in range(idx.shape[1]):
        tap = x[..., idx[:, k]] * w[:, k].astype(x.dtype)
        out += tap if (idx[:, k] >= 0).all() else xp.where(idx[:, k] >= 0, tap, 0)
    return xp.moveaxis(out, -1, a)


def matrix_taps(xp, m):
    """(idx, w) reading only the nonzero weights of each row of m (padded with index -1):
    for maps whose kernels read just their window (adaptive average pooling)."""
    k = max(int((m != 0).sum(1).max()), 1) if m.size else 1
    idx = xp.argsort(m == 0, axis=1, kind="stable")[:, :k]
    w = xp.take_along_axis(m, idx, 1)
    return xp.where(w != 0, idx, -1), w


def _scatter_taps(xp, g, a, idx, w, n_in):
    """The adjoint of _gather_taps: each output's gradient times each tap weight, added into
    the tap's input (as torch's backward kernels do)."""
    g = xp.moveaxis(g, a, -1)
    out = xp.zeros(g.shape[:-1] + (n_in,), dtype=g.dtype)
    for k in range(idx.shape[1]):
        keep = idx[:, k] >= 0
        scatter_add(xp, out, (Ellipsis, idx[keep, k]), (g * w[:, k].astype(g.dtype))[..., keep])
    return xp.moveaxis(out, -1, a)


class _AxisMaps(Op):
    """x with a weight matrix applied along each listed axis (a linear map)."""

    adjoint = False

    def forward(self, x, mats=(), copy_back=False, generic=False):
        """x with mats[i] applied along axis i (generic: torch's generic linear kernel)."""
        self.mats, self.copy_back = mats, copy_back
        if generic and type(x) is _np.ndarray and x.dtype.char in "fd":
            return _generic_linear(x, mats)
        return _apply(self.xp, x, mats, self.adjoint)

    def backward(self, grad):
        if self.copy_back:  # torch's bicubic backward copies at the same size (an identity map)
            return grad
        back = _AxisMaps if self.adjoint else _AxisMapsT
        return back.apply(grad, mats=tuple(reversed(self.mats)))

    jvp = Op.jvp_linear


class _AxisMapsT(_AxisMaps):
    """The adjoint map (the gradient of a resampling)."""

    adjoint = True


def _node(name):
    return type(
        name,
        (_AxisMaps,),
        {
            "node_name": name + "Backward0",
            "__module__": __name__,
            "__doc__": f"{name}: resampling as axis maps.",
        },
    )


_NODES = {}
for _mode, _base in (
    ("nearest", "UpsampleNearest"),
    ("nearest-exact", "UpsampleNearestExact"),
    ("linear", "UpsampleLinear"),
    ("bilinear", "UpsampleBilinear"),
    ("bicubic", "UpsampleBicubic"),
    ("trilinear", "UpsampleTrilinear"),
):
    for _d in (1, 2, 3):
        _NODES[(_mode, _d)] = _node(f"{_base}{_d}D")


def _scale(n_in, n_out, align_corners, scale):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _matrix(xp, mode, n_in, n_out, align_corners, scale, dtype="float64"):
    """The (n_out, n_in) interpolation weights along one axis, as torch's kernels compute."""
    m = xp.zeros((n_out, n_in), dtype="float64")
    rows = xp.arange(n_out)
    idx, w = _taps(xp, mode, n_in, n_out, align_corners, scale, dtype)
    for k in range(idx.shape[1]):
        scatter_add(xp, m, (rows, idx[:, k]), w[:, k])
    return m


def _axis_map(xp, mode, n_in, n_out, align_corners, scale, dtype):
    """(matrix, taps' indices, taps' weights) of one axis (``_matrix``, ``_taps``); for NumPy
    kept per argument set (read-only arrays: a training loop resamples the same shapes)."""
    if xp is not _np:
        return _axis_map_of(xp, mode, n_in, n_out, align_corners, scale, dtype)
    return _cached_axis_map(mode, n_in, n_out, align_corners, scale, dtype)


def _axis_map_of(xp, mode, n_in, n_out, align_corners, scale, dtype):
    """``_axis_map`` computed."""
    m = _matrix(xp, mode, n_in, n_out, align_corners, scale, dtype)
    return (m, *_taps(xp, mode, n_in, n_out, align_corners, scale, dtype))


@functools.lru_cache(maxsize=256)
def _cached_axis_map(mode, n_in, n_out, align_corners, scale, dtype):
    """``_axis_map`` for NumPy, kept."""
    out = _axis_map_of(_np, mode, n_in, n_out, align_corners, scale, dtype)
    for a in out:
        a.flags.writeable = False
    return out


def _fma(xp, a, b, c):
    """a * b + c rounded once, in float64 (error-free product and sum: Dekker, Knuth)."""
    p = a * b
    split = 134217729.0 * a  # Veltkamp: a = ah + al with 26-bit halves (b likewise)
    ah = split - (split - a)
    split = 134217729.0 * b
    bh = split - (split - b)
    e = ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)
    r = p + c
    z = r - p
    t = (p - (r - z)) + (c - z)
    return r + (t + e)


def _source_index(xp, n_in, n_out, align_corners, scale, dtype):
    """Each output's source coordinate (and its floor) as torch's upsample kernels compute
    them: in the input's precision (float for float32, its opmath), with one fused
    multiply-add as its AVX2/AVX-512 builds contract `scale * (i + 0.5) - 0.5` (1/3 at output
    1: 1.5e-8 in float, -2.8e-17 in double, not 0), and the floor taken by floorf, of the
    coordinate rounded to float (0.9999999999999999 floors to 1). Linear and cubic weights at
    exactly 0 or 1 decide where an inf input makes NaN (inf * 0), so these bits matter."""
    rows = xp.arange(n_out, dtype="float64")
    if dtype == "float32":
        if align_corners:
            s = xp.float32(n_in - 1) / xp.float32(n_out - 1) if n_out > 1 else 0.0
        elif scale is not None and scale > 0:
            s = xp.float32(1.0 / scale)
        else:
            s = xp.float32(n_in) / xp.float32(n_out)
        s = float(s)  # float32 * small integer (+ 0.5) and - 0.5: exact in float64, one rounding
        src = rows * s if align_corners else rows * s + 0.5 * s - 0.5
        src = src.astype("float32").astype("float64")
    else:
        s = _scale(n_in, n_out, align_corners, scale)
        src = rows * s if align_corners else _fma(xp, rows + 0.5, xp.float64(s), -0.5)
    return src, xp.floor(src.astype("float32")).astype("int64")


def _taps(xp, mode, n_in, n_out, align_corners, scale, dtype="float64"):
    """The (n_out, k) input indices and weights torch's kernel reads per output, in its
    order (two for linear, the last index repeated at the edge, each output its own input
    when the sizes agree; four clamped for bicubic), at its precision (`dtype`'s)."""
    rows = xp.arange(n_out)
    if mode in ("nearest", "nearest-exact"):
        s = _scale(n_in, n_out, align_corners, scale)
        off = 0.5 if mode == "nearest-exact" else 0.0
        src = xp.minimum(xp.floor((rows + off) * s).astype("int64"), n_in - 1)
        return src[:, None], xp.ones((n_out, 1))
    single = str(dtype) == "float32"
    if mode != "bicubic" and n_in == n_out:  # torch copies, whatever the scale factor
        return xp.stack((rows, rows), 1), xp.stack((xp.ones(n_out), xp.zeros(n_out)), 1)
    src, i0 = _source_index(xp, n_in, n_out, align_corners, scale, str(dtype))
    if mode != "bicubic":
        src = xp.maximum(src, 0.0)
        i0 = xp.maximum(i0, 0)
    i0 = xp.minimum(i0, n_in - 1)
    lam = xp.clip(src - i0, 0.0, 1.0)
    if single:  # and the cubic coefficients in float too: 1 + 1.5e-8 is 1, its weight 0
        lam = lam.astype("float32")
    if mode == "bicubic":
        idx = xp.stack([xp.clip(i0 - 1 + k, 0, n_in - 1) for k in range(4)], 1)
        one = lam.dtype.type(1)
        cc1, cc2 = (_cc1_fused, _cc2_fused) if xp is _np else (_cc1, _cc2)
        w = xp.stack((cc2(lam + one), cc1(lam), cc1(one - lam), cc2((one - lam) + one)), 1)
        return idx, w.astype("float64")
    lam = lam.astype("float64")
    # torch's second tap is the next input, or (at the edge) itself
    idx = xp.stack((i0, i0 + (i0 < n_in - 1)), 1)
    return idx, xp.stack((1.0 - lam, lam), 1)


def _cc1(x):
    return ((_A + 2) * x - (_A + 3)) * x * x + 1


def _cc2(x):
    return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A


def _cc1_fused(x):
    """torch's cubic_convolution1 as its build rounds it (measured on one-hot inputs: 354 of
    354 weight rows): ``fma(A + 2, x, -(A + 3)) * x * x + 1``, the rest unfused."""
    dt = x.dtype.type
    r = fused(x, dt(_A + 2), _np.full_like(x, -(_A + 3)))
    return r * x * x + dt(1)


def _cc2_fused(x):
    """torch's cubic_convolution2 as its build rounds it: ``fma(fma(A, x, -5A), x, 8A) * x -
    4A`` (the last step unfused)."""
    dt = x.dtype.type
    r = fused(x, dt(_A), _np.full_like(x, -5 * _A))
    r = fused(r, x, _np.full_like(x, 8 * _A))
    return r * x - dt(4 * _A)


_MODES_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


# the CPU kernel that refuses integer and bool input, as torch names it
_KERNELS = {
    ("nearest", 2): "upsample_nearest2d_channels_last",
    ("nearest-exact", 2): "upsample_nearest2d_channels_last",
    "nearest": "compute_indices_weights_nearest",
    "nearest-exact": "compute_indices_weights_nearest",
    "linear": "compute_indices_weights_linear",
    "trilinear": "compute_indices_weights_linear",
    "bilinear": "upsample_bilinear2d_channels_last",
    "bicubic": "compute_indices_weights_cubic",
}


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    r"""Resize the spatial dims of ``(N, C, *spatial)`` input to `size` or by `scale_factor`.

    Args:
        input (Tensor): the input, :math:`(N, C, *\text{spatial})` with 1 to 3 spatial dimensions.
        size (int or tuple, optional): the output spatial size (default: None).
        scale_factor (float or tuple, optional): the multiplier for the spatial size; give ``size``
            or ``scale_factor``, not both (default: None).
        mode (str, optional): ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-D),
            ``'bilinear'``/``'bicubic'`` (4-D), ``'trilinear'`` (5-D) or ``'area'`` (adaptive
            average pooling) (default: ``'nearest'``).
        align_corners (bool, optional): for the linear and cubic modes, align the centres of the
            corner pixels of input and output (True) or their edges (False) (default: None, False).
        recompute_scale_factor (bool, optional): compute the output size from ``scale_factor`` and
            then use that size's ratios instead of ``scale_factor`` itself (default: None).
        antialias (bool, optional): apply an anti-aliasing filter when downsampling
            (``'bilinear'``/``'bicubic'``) (default: False).

    Example:
        >>> F.interpolate(framework.tensor([[[1., 2.]]]), scale_factor=2, mode="linear")
        tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    nd = input.dim() - 2
    if nd < 1 or nd > 3:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported "
            f"(got {input.dim()}D) for the modes: nearest | linear | "
            f"bilinear | bicubic | trilinear | area | nearest-exact "
            f"(got {mode})"
        )
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    if mode in _MODES_DIMS and _MODES_DIMS[mode] != nd:
        want = {1: "3D", 2: "4D", 3: "5D"}[_MODES_DIMS[mode]]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {want} input")
    if antialias:
        raise NotImplementedError("antialias=True is not supported")
    if (size is None) == (scale_factor is None):
        raise ValueError(
            "only one of size or scale_factor should be defined"
            if size
            else "either size or scale_factor should be defined"
        )
    in_sizes = tuple(input.shape[2:])
    if size is not None:
        out_sizes, scales = _tuple(size, nd), (None,) * nd
    else:
        scales = tuple(float(s) for s in _tuple(scale_factor, nd))
        out_sizes = tuple(int(math.floor(n * s)) for n, s in zip(in_sizes, scales))
        if recompute_scale_factor:
            scales = (None,) * nd
    if mode == "area":
        from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d

        if nd == 1:
            return adaptive_avg_pool1d(input, out_sizes)
        if nd == 2:
            return adaptive_avg_pool2d(input, out_sizes)
        from .pooling3d import adaptive_avg_pool3d

        return adaptive_avg_pool3d(input, out_sizes)
    if mode not in ("nearest", "nearest-exact") and mode not in _MODES_DIMS:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported "
            f"(got {input.dim()}D) for the modes: nearest | linear | "
            f"bilinear | bicubic | trilinear | area | nearest-exact "
            f"(got {mode})"
        )
    if min(in_sizes + out_sizes) <= 0:
        names = ("D", "H", "W")[3 - nd :]
        fin = ", ".join(f"{n}: {v}" for n, v in zip(names, in_sizes))
        fout = ", ".join(f"{n}: {v}" for n, v in zip(names, out_sizes))
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input "
            f"({fin}){' and' if nd == 1 else ''} output ({fout})"
        )
    refuse(input._data, "biu", _KERNELS.get((mode, nd)) or _KERNELS[mode])
    xp = input.xp
    ac = bool(align_corners)
    dt = str(input._data.dtype)
    mats = tuple(
        (2 + i, *_axis_map(xp, mode, n_in, n_out, ac, sc, dt))
        for i, (n_in, n_out, sc) in enumerate(zip(in_sizes, out_sizes, scales))
    )
    same = mode == "bicubic" and in_sizes == out_sizes
    # torch's generic kernel (replayed by _generic_linear): linear, trilinear and bicubic
    # (contiguous input), bilinear to outputs larger than 128 (height + width) of other
    # than 3 channels; bilinear's vectorized kernel (smaller outputs; 3 channels on one
    # thread) is not replayed (README, Known differences): the matrices
    generic = mode in ("linear", "trilinear", "bicubic") or (
        mode == "bilinear" and sum(out_sizes) > 128 and input.shape[1] != 3
    )
    return _NODES[(mode, nd)].apply(input, mats=mats, copy_back=same, generic=generic)


class PixelShuffle(Op):
    def forward(self, x, r=1):
        """(N, C r^2, H, W) -> (N, C, H r, W r) on arrays."""
        self.r = r
        *lead, c, h, w = x.shape
        y = x.reshape(*lead, c // (r * r), r, r, h, w)
        k = len(lead)
        y = y.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
        return y.reshape(*lead, c // (r * r), h * r, w * r)

    def backward(self, grad):
        return PixelUnshuffle.apply(grad, r=self.r)

    jvp = Op.jvp_linear


class PixelUnshuffle(Op):
    def forward(self, x, r=1):
        """(N, C, H r, W r) -> (N, C r^2, H, W) on arrays."""
        self.r = r
        *lead, c, h, w = x.shape
        k = len(lead)
        y = x.reshape(*lead, c, h // r, r, w // r, r)
        y = y.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
        return y.reshape(*lead, c * r * r, h // r, w // r)

    def backward(self, grad):
        return PixelShuffle.apply(grad, r=self.r)

    jvp = Op.jvp_linear


def pixel_shuffle(input, upscale_factor):
    """Rearranges elements of a tensor of shape :math:`(*, C r^2, H, W)` to a tensor of shape
    :math:`(*, C, H r, W r)`, where :math:`r` is the ``upscale_factor`` (sub-pixel convolution).

    See :class:`~framework.nn.PixelShuffle` for the module form.

    Args:
        input (Tensor): :math:`(*, C r^2, H, W)`.
        upscale_factor (int): the factor :math:`r` to increase the spatial resolution by.

    Returns:
        Tensor: :math:`(*, C, H r, W r)`.

    Example:
        >>> F.pixel_shuffle(framework.arange(8.0).reshape(1, 4, 1, 2), 2)
        tensor([[[[0., 2., 1., 3.],
                  [4., 6., 5., 7.]]]])
    """
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got "
            f"input with {input.dim()} dimension(s)"
        )
    if input.shape[-3] % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be "
            f"divisible by the square of upscale_factor, but input.size(-3)="
            f"{input.shape[-3]} is not divisible by {r * r}"
        )
    return PixelShuffle.apply(input, r=r)


def pixel_unshuffle(input, downscale_factor):
    """Reverses :func:`pixel_shuffle`: rearranges a tensor of shape :math:`(*, C, H r, W r)` to
    :math:`(*, C r^2, H, W)`, where :math:`r` is the ``downscale_factor``.

    See :class:`~framework.nn.PixelUnshuffle` for the module form.

    Args:
        input (Tensor): :math:`(*, C, H r, W r)`.
        downscale_factor (int): the factor :math:`r` to decrease the spatial resolution by.

    Returns:
        Tensor: :math:`(*, C r^2, H, W)`.

    Example:
        >>> F.pixel_unshuffle(framework.arange(4.0).reshape(1, 1, 2, 2), 2).flatten()
        tensor([0., 1., 2., 3.])
    """
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but "
            f"got input with {input.dim()} dimension(s)"
        )
    for d, name in ((-2, "height"), (-1, "width")):
        if input.shape[d] % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by "
                f"downscale_factor, but input.size({d})={input.shape[d]} is not "
                f"divisible by {r}"
            )
    return PixelUnshuffle.apply(input, r=r)


class ChannelShuffle(Op):
    def forward(self, x, groups=1):
        """The channels as (groups, C / groups), transposed (arrays)."""
        self.groups = groups
        n, c = x.shape[:2]
        y = x.reshape(n, groups, c // groups, *x.shape[2:]).swapaxes(1, 2)
        return y.reshape(x.shape)

    def backward(self, grad):
        return ChannelShuffle.apply(grad, groups=grad.shape[1] // self.groups)

    jvp = Op.jvp_linear


def channel_shuffle(input, groups):
    """Divides the channels of a tensor of shape :math:`(N, C, *)` into ``groups`` groups and
    interleaves them (ShuffleNet): the channels are viewed as :math:`(g, C/g)`, transposed and
    flattened back.

    See :class:`~framework.nn.ChannelShuffle` for the module form.

    Args:
        input (Tensor): :math:`(N, C, *)`.
        groups (int): the number of groups; divides :math:`C`.

    Returns:
        Tensor: the result, of the shape of ``input``.

    Example:
        >>> F.channel_shuffle(framework.arange(6.0).reshape(1, 6, 1), 2).flatten()
        tensor([0., 3., 1., 4., 2., 5.])
    """
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if input.shape[1] % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got "
            f"{input.shape[1]} channels and {groups} groups."
        )
    return ChannelShuffle.apply(input, groups=groups)


__all__ = []
