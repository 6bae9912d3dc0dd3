"""framework: a deep-learning framework on NumPy/CuPy that behaves like PyTorch."""
from .tensor import Size, Tensor  # noqa: F401
from .dtypes import (bool_ as bool, dtype, float16, float32, float64, get_default_dtype,  # noqa: F401
                     int8, int16, int32, int64, set_default_dtype, uint8)
from .dtypes import float16 as half, float32 as float, float64 as double  # noqa: F401
from .dtypes import int64 as long, int32 as int  # noqa: F401
from .backend import device  # noqa: F401
from .creation import (Generator, arange, as_tensor, asarray, empty, empty_like, eye,  # noqa: F401
                       from_numpy, full, full_like, linspace, manual_seed, ones, ones_like, rand,
                       rand_like, randint, randn, randn_like, randperm, tensor, zeros,
                       zeros_like)
from ._tensor_str import get_printoptions, printoptions, set_printoptions  # noqa: F401
from .ops import *  # noqa: F403
from . import autograd  # noqa: F401
from .linalg import vector_norm as _vector_norm  # noqa: F401  (binds framework.linalg)
from .linalg import det, slogdet, svdvals as _svdvals  # noqa: F401
from .linalg import inv as inverse, matrix_power  # noqa: F401
from . import cuda  # noqa: F401
from . import viz  # noqa: F401
from . import nn  # noqa: F401
from . import optim  # noqa: F401
from . import utils  # noqa: F401
from . import testing  # noqa: F401
from . import distributed  # noqa: F401
from .serialization import load, save  # noqa: F401
from . import random  # noqa: F401
from .random import (default_generator, get_rng_state, initial_seed, seed,  # noqa: F401
                     set_rng_state)
from ._sampling import bernoulli, multinomial, normal, randint_like  # noqa: F401
from .autograd import (enable_grad, inference_mode, is_grad_enabled, no_grad,  # noqa: F401
                       set_grad_enabled)
from .autograd import (is_anomaly_check_nan_enabled, is_anomaly_enabled,  # noqa: F401
                       is_inference_mode_enabled)

from ._namespace import (compile, from_dlpack, get_float32_matmul_precision, is_floating_point,  # noqa: F401
                         is_storage, is_tensor, numel, set_float32_matmul_precision)
from .tensor_types import (BoolTensor, ByteTensor, CharTensor, DoubleTensor,  # noqa: F401
                           FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor)
from . import accelerator, amp, backends, cpu, jit, version  # noqa: F401
from .amp import (autocast, get_autocast_cpu_dtype, get_autocast_dtype,  # noqa: F401
                  get_autocast_gpu_dtype, is_autocast_enabled)
from .version import __version__  # noqa: F401

from .dtypes import bfloat16  # noqa: F401  (its NumPy dtype loads ml_dtypes on first use)
from . import _docs  # noqa: F401  (attaches the docstrings of terse ops and Tensor methods)
from ._errors import broadcast_shapes  # noqa: F401
from ._finfo import finfo, iinfo  # noqa: F401
from .ops.linalg_ext import pinverse  # noqa: F401
