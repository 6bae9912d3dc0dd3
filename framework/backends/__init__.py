"""torch.backends: the flags programs set (accepted; they change nothing on NumPy/CuPy).

Each of `cuda`, `cudnn`, `mps`, `mkldnn`, `openmp`, `cpu`, `opt_einsum` is a submodule, as in
torch, so both `torch.backends.cudnn.benchmark = True` and `import torch.backends.cudnn as
cudnn` work. `backends.cuda.matmul.allow_tf32`, `backends.cudnn.allow_tf32/benchmark/
deterministic/enabled` are plain settable attributes; `cudnn.is_available()` is False (CuPy 14
has no cuDNN) and `mps.is_available()` is False. The scaled-dot-product-attention switches
(`enable_flash_sdp`, `sdp_kernel`, ...) choose between the fused and the math kernel on the
CPU as in torch (see `framework.nn.attention.sdpa_kernel`).

Example:
    >>> import framework.backends.cudnn as cudnn
    >>> cudnn.benchmark = True
    >>> framework.backends.cudnn.benchmark
    True
    >>> cudnn.benchmark = False
"""

import contextlib
import importlib.machinery
import sys
import types


class _Flags(types.SimpleNamespace):
    """A namespace of settable flags."""


def _false():
    return False


def _module(name, doc, **attrs):
    """A submodule `framework.backends.<name>` holding `attrs` (registered so that
    `import framework.backends.<name>` finds it)."""
    full = f"{__name__}.{name}"
    mod = types.ModuleType(full, doc)
    mod.__spec__ = importlib.machinery.ModuleSpec(full, None)
    mod.__dict__.update(attrs)
    sys.modules[full] = mod
    return mod


# which attention kernels scaled_dot_product_attention may use (nn.attention.sdpa_kernel)
_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "overrideable": True}


def _enabler(key):
    def enable(enabled):
        _sdp[key] = bool(enabled)

    enable.__doc__ = f"Allow or forbid the {key} attention kernel (see nn.attention.sdpa_kernel)."
    return enable


def _getter(key):
    def enabled():
        return _sdp[key]

    enabled.__doc__ = f"The value last given to enable_{key}_sdp."
    return enabled


@contextlib.contextmanager
def _sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """torch.backends.cuda.sdp_kernel (deprecated in torch): sets the switches for the block."""
    saved = dict(_sdp)
    _sdp.update(
        flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn
    )
    try:
        yield
    finally:
        _sdp.update(saved)


cuda = _module(
    "cuda",
    "torch.backends.cuda: TF32 and attention-kernel switches (accepted, no effect).",
    matmul=_Flags(
        allow_tf32=False,
        allow_fp16_reduced_precision_reduction=True,
        allow_bf16_reduced_precision_reduction=True,
    ),
    is_built=_false,
    sdp_kernel=_sdp_kernel,
    **{f"enable_{k}_sdp": _enabler(k) for k in ("flash", "mem_efficient", "math", "cudnn")},
    **{f"{k}_sdp_enabled": _getter(k) for k in ("flash", "mem_efficient", "math", "cudnn")},
)
cudnn = _module(
    "cudnn",
    "torch.backends.cudnn: settable flags (no cuDNN under CuPy 14: is_available() is False).",
    allow_tf32=True,
    benchmark=False,
    deterministic=False,
    enabled=True,
    is_available=_false,
    version=lambda: None,
)
mps = _module("mps", "torch.backends.mps: never available.", is_available=_false, is_built=_false)
mkldnn = _module("mkldnn", "torch.backends.mkldnn: not used.", enabled=False, is_available=_false)
openmp = _module("openmp", "torch.backends.openmp.", is_available=lambda: True)
cpu = _module("cpu", "torch.backends.cpu.", get_cpu_capability=lambda: "DEFAULT")
from ._opt_einsum import OptEinsumModule as _OptEinsumModule  # noqa: E402

opt_einsum = _OptEinsumModule(f"{__name__}.opt_einsum")
sys.modules[opt_einsum.__name__] = opt_einsum
