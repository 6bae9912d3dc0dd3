"""framework: a deep-learning framework on NumPy/CuPy that behaves like PyTorch."""

from .tensor import Size, Tensor
from .dtypes import (
    bool_ as bool,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from .dtypes import float16 as half, float32 as float, float64 as double
from .dtypes import int64 as long, int32 as int
from .backend import device
from .creation import (
    Generator,
    arange,
    as_tensor,
    asarray,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from ._tensor_str import get_printoptions, printoptions, set_printoptions
from .ops import *  # noqa: F403
from . import autograd
from .linalg import vector_norm as _vector_norm
from .linalg import det, slogdet, svdvals as _svdvals
from .linalg import inv as inverse, matrix_power
from . import cuda
from . import viz
from . import nn
from . import optim
from . import utils
from . import testing
from . import distributed
from .serialization import load, save
from . import random
from .random import (
    default_generator,
    get_rng_state,
    initial_seed,
    seed,
    set_rng_state,
)
from ._sampling import bernoulli, multinomial, normal, randint_like
from .autograd import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .autograd import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_inference_mode_enabled,
)

from ._namespace import (
    compile,
    from_dlpack,
    get_float32_matmul_precision,
    is_complex,
    is_floating_point,
    is_inference,
    is_signed,
    is_storage,
    is_tensor,
    numel,
    set_float32_matmul_precision,
)
from .tensor_types import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from . import accelerator, amp, backends, cpu, jit, version
from .amp import (
    autocast,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_enabled,
)
from .version import __version__

from .dtypes import bfloat16
from . import _inplace_methods
from . import _more_methods
from ._nn_toplevel import *  # noqa: F403  (torch.dropout, torch.layer_norm, ...)
from ._surface_small import *  # noqa: F403  (the *_copy functions, range, typename, ...)
from ._windows import *  # noqa: F403  (hann_window, ...)
from ._surface16 import *  # noqa: F403  (adjoint, empty_permuted, nonzero_static, has_lapack, ...)
from ._surface16_aten import *  # noqa: F403  (lstm_cell, grid_sampler, native_layer_norm, ...)
from ._surface16_linalg import *  # noqa: F403  (geqrf, ormqr)
from ._surface16_lowrank import *  # noqa: F403  (svd_lowrank, pca_lowrank)
from ._surface16_binomial import binomial
from ._surface16_segment import segment_reduce
from ._lobpcg import lobpcg
from ._surface16_control import cond, while_loop
from ._surface16_removed import *  # noqa: F403  (pi, e, inf, nan, newaxis, solve, eig, ...)
from .dtypes import int16 as short
from .amp import GradScaler
from ._memory_format import contiguous_format as legacy_contiguous_format
from . import _docs
from ._foreach import functions as _foreach_functions
from ._broadcast_shapes import broadcast_shapes
from ._finfo import finfo, iinfo
from .ops.linalg_ext import pinverse
from . import special  # (before func: its ops get batching rules)
from .func import vmap
from . import _dynamo, compiler
from ._memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from ._namespace import (
    are_deterministic_algorithms_enabled,
    equal,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    set_num_threads,
    use_deterministic_algorithms,
)
from . import _gc_freeze, _malloc

_malloc.tune()
globals().update(_foreach_functions())  # torch._foreach_add, _foreach_mul_, ...
_gc_freeze.freeze_import_objects()  # last: what the import made, out of the cyclic GC's full passes


def __getattr__(name):
    """framework.distributions loads on first use (torch imports it eagerly; here its ~4,500
    objects would lengthen every full garbage-collection pass of a training loop)."""
    if name == "distributions":
        import importlib

        return importlib.import_module(".distributions", __name__)
    raise AttributeError(f"module 'framework' has no attribute '{name}'")
