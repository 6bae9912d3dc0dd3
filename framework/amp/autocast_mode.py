"""Automatic mixed precision: inside `autocast`, ops on torch's lower-precision list run in
float16/bfloat16 and ops on its float32 list run in float32.

The cast happens where every cross-cutting rule lives, in `Op.apply`: an op class declares
`autocast = "lower"` (matmul, mm, bmm, addmm, linear, convolutions, ...) or `"fp32"` (softmax,
log_softmax, losses, norms, exp/log family, ...), and its floating inputs are cast (recorded as
ToCopyBackward0 nodes, as torch records them) before forward. The state is per thread, as
torch's is. CPU autocast defaults to bfloat16 (through the ml_dtypes package), CUDA to float16.
"""

import functools
import threading

from .. import dtypes

_DEFAULT_DTYPE = {"cpu": "bfloat16", "cuda": "float16"}


class _State(threading.local):
    def __init__(self):
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = {}
        self.active = False  # any device enabled: the one check Op.apply makes


state = _State()
in_use = [0]  # autocast contexts open in any thread: Op.apply's cheap pre-check (a list read
#                costs a tenth of a thread-local attribute read)


def _dtype_named(name):
    d = getattr(dtypes, name, None)
    if d is None:
        raise RuntimeError(
            f"autocast with {name} needs framework.{name} (install ml_dtypes: "
            "pip install 'framework[io]')"
        )
    return d


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for `device_type` (default 'cuda', as torch).

    Args:
        device_type (str, optional): ``'cpu'`` or ``'cuda'``. Default: ``None`` (``'cuda'``, as
            torch).

    Example:
        >>> framework.is_autocast_enabled('cpu')
        False
    """
    return state.enabled.get(device_type or "cuda", False)


def get_autocast_dtype(device_type):
    """The lower-precision dtype autocast uses on `device_type`.

    Args:
        device_type (str): ``'cpu'`` or ``'cuda'``.

    Example:
        >>> framework.get_autocast_dtype('cpu')
        torch.bfloat16
    """
    return state.dtype.get(device_type) or _dtype_named(_DEFAULT_DTYPE[device_type])


def get_autocast_gpu_dtype():
    """torch.get_autocast_gpu_dtype: autocast's dtype on CUDA."""
    return get_autocast_dtype("cuda")


def get_autocast_cpu_dtype():
    """torch.get_autocast_cpu_dtype: autocast's dtype on the CPU."""
    return get_autocast_dtype("cpu")


class autocast:
    """Context manager (and decorator) that runs eligible ops in lower precision.

    Args:
        device_type: 'cpu' or 'cuda'.
        dtype: float16 or bfloat16 (default: bfloat16 on cpu, float16 on cuda).
        enabled: False makes it a no-op (or disables autocast inside an enabled region).
        cache_enabled: accepted; casts are not cached here.

    Example:
        >>> lin = framework.nn.Linear(4, 2)
        >>> with framework.autocast("cpu", dtype=framework.float16):
        ...     y = lin(framework.ones(3, 4))
        >>> y.dtype
        torch.float16
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _DEFAULT_DTYPE:
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'"
            )
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else None
        self._enabled = bool(enabled)
        if device_type == "cuda" and self._enabled:
            from .. import backend

            if not backend.cuda_available():
                import warnings

                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
                self._enabled = False
        if self.fast_dtype is not None and self.fast_dtype.name not in ("float16", "bfloat16"):
            import warnings

            warnings.warn(
                f"In {device_type} autocast, but the target dtype is not supported. "
                "Disabling autocast."
            )
            self._enabled = False

    def __enter__(self):
        self._prev = (state.enabled[self.device], state.dtype.get(self.device))
        state.enabled[self.device] = self._enabled
        if self._enabled:
            state.dtype[self.device] = self.fast_dtype or _dtype_named(_DEFAULT_DTYPE[self.device])
        state.active = any(state.enabled.values())
        in_use[0] += 1
        return self

    def __exit__(self, *exc):
        state.enabled[self.device], state.dtype[self.device] = self._prev
        state.active = any(state.enabled.values())
        in_use[0] -= 1
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.device, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)

        return wrapper


def cast_args(policy, args, device_type):
    """Inputs of an op under autocast: floating tensors cast as the op's policy says."""
    if not state.enabled.get(device_type, False):
        return args
    from ..tensor import Tensor

    if policy == "lower":
        target = state.dtype[device_type].np
    else:
        target = dtypes.float32.np
    # torch's is_eligible: floating and not float64 (a double input is never cast)
    return [
        a._cast(target)
        if isinstance(a, Tensor)
        and a._data.dtype != target
        and a._data.dtype.kind in "fV"
        and a._data.dtype.itemsize < 8
        and (policy == "lower" or a._data.dtype.itemsize < 4)
        else a
        for a in args
    ]


# ----- torch's op lists (aten/src/ATen/autocast_mode.cpp), by our Op class or function name --
# "lower": floating inputs are cast to autocast's dtype; "fp32": to float32. Primitives are cast
# in Op.apply; composites on torch's lists (linear, matmul, the composed losses, attention) call
# `cast` at their entry, as torch casts at the aten op that is their entry.
_LOWER_BOTH = {
    "Mm",
    "Bmm",
    "Addmm",
    "Convolution",
    "ConvTranspose",
    "PreluKernel",
    "linear",
    "matmul",
    "baddbmm",
    "addbmm",
    "scaled_dot_product_attention",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "prelu",
    "multi_head_attention_forward",
    "Conv3d",
    "ConvTranspose3d",
    "AffineGridGenerator",
    "Baddbmm",
    "Addbmm",
}
_FP32_BOTH = {
    "MseLoss",
    "NllLoss",
    "CrossEntropy",
    "BinaryCrossEntropy",
    "BinaryCrossEntropyWithLogits",
    "SoftMarginLoss",
    "MultiMarginLoss",
    "MultilabelMarginLoss",
    "CtcLoss",
    "Cdist",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "kl_div",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "margin_ranking_loss",
    "triplet_margin_loss",
    "poisson_nll_loss",
    "binary_cross_entropy",
    "cross_entropy",
    "nll_loss",
    "mse_loss",
    "binary_cross_entropy_with_logits",
}
POLICY = {
    "cpu": dict(
        {n: "lower" for n in _LOWER_BOTH | {"LinalgPinv", "linalg_vecdot"}},  # pinv: matmuls
        **{
            n: "fp32"
            for n in _FP32_BOTH
            | {
                "Trace",
                "LinalgInvEx",
                "LinalgCholeskyEx",
                "LinalgSolveEx",
                "LinalgSvd",
                "LinalgEigh",
                "LinalgQr",
                "pinverse",
                "Prod",
                "quantile",
                "nanquantile",
                "AvgPool3D",
                "MaxPool3DWithIndices",
                "adaptive_avg_pool3d",
                "MaxUnpool2D",
                "MaxUnpool3D",
                "AdaptiveMaxPool3D",
                "linalg_matrix_rank",
                "linalg_lstsq",
                "GridSampler2D",
                "GridSampler3D",
                "reflection_pad1d",
                "reflection_pad2d",
                "replication_pad1d",
                "replication_pad2d",
                "replication_pad3d",
                "MultiMarginLoss",
                "MultilabelMarginLoss",
                # the legacy/_ex linear-algebra forms (framework/ops/linalg_legacy.py, ...)
                "Cholesky",
                "CholeskyEx",
                "InvEx",
                "TriangularSolve",
                "CholeskySolve",
                "CholeskyInverse",
                "lu",
                "LinalgHouseholderProduct",
            }
        },
    ),
    "cuda": dict(
        {n: "lower" for n in _LOWER_BOTH | {"Mv", "einsum", "Addmv", "Addr"}},
        **{
            n: "fp32"
            for n in _FP32_BOTH
            | {
                "Exp",
                "Log",
                "Rsqrt",
                "Reciprocal",
                "Erfinv",
                "Pow",
                "PowTensor",
                "Softplus",
                "NativeLayerNorm",
                "NativeGroupNorm",
                "Softmax",
                "LogSoftmax",
                "Cumsum",
                "Cumprod",
                "LinalgVectorNorm",
                "logsumexp",
                "cosine_similarity",
            }
        },
    ),
}


def policy(name, device_type):
    """'lower', 'fp32' or None: what autocast does to op `name` on `device_type` now."""
    if not state.enabled.get(device_type, False):
        return None
    return POLICY[device_type].get(name)


def cast(name, device_type, *args):
    """The arguments of op `name`, cast as autocast requires (unchanged when it is off)."""
    p = policy(name, device_type)
    return args if p is None else tuple(cast_args(p, args, device_type))


def entry(name):
    """Decorator for a composite on torch's lists: under autocast its tensor arguments are cast
    at entry (as torch casts at the aten op), then it runs as written."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if in_use[0] and state.active:  # (the thread-local read only under autocast)
                from ..tensor import Tensor

                dev = next(
                    (
                        a.device.type
                        for a in list(args) + list(kwargs.values())
                        if isinstance(a, Tensor)
                    ),
                    None,
                )
                if dev is not None and policy(name, dev) is not None:
                    args = cast(name, dev, *args)
                    keys = [k for k, v in kwargs.items() if isinstance(v, Tensor)]
                    for k, v in zip(keys, cast(name, dev, *[kwargs[k] for k in keys])):
                        kwargs[k] = v
                    with autocast(dev, enabled=False):  # torch runs the op with autocast
                        return fn(*args, **kwargs)  # excluded: no casts inside
            return fn(*args, **kwargs)

        return wrapper

    return decorate
