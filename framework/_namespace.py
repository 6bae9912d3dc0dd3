"""Top-level helpers programs and tools call: is_tensor, numel, compile, matmul precision."""

from .tensor import Tensor

_matmul_precision = "highest"


def is_tensor(obj):
    """True if `obj` is a framework Tensor (torch.is_tensor).

    Args:
        obj (object): the object to test.

    Example:
        >>> framework.is_tensor(framework.tensor([1.0]))
        True
        >>> framework.is_tensor([1.0])
        False
    """
    return isinstance(obj, Tensor)


def is_storage(obj):
    """False: framework has no separate storage objects to pass around.

    Args:
        obj (object): the object to test.

    Example:
        >>> framework.is_storage(framework.tensor([1.0]))
        False
    """
    return False


def is_floating_point(input):
    """True if the tensor's dtype is a floating-point type.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.is_floating_point(framework.tensor([1.0]))
        True
        >>> framework.is_floating_point(framework.tensor([1]))
        False
    """
    return input.is_floating_point()


def is_complex(input):
    """True if the tensor's dtype is a complex type (never here: complex dtypes are not
    supported).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.is_complex(framework.tensor([1.0]))
        False
    """
    return input.is_complex()


def is_signed(input):
    """True if the tensor's dtype is signed (floating point or a signed integer; not bool or
    uint8).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.is_signed(framework.tensor([1, 2], dtype=framework.uint8))
        False
    """
    return input.is_signed()


def is_inference(input):
    """True if the tensor is an inference tensor: never here (:class:`inference_mode` makes
    ordinary tensors without history).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.is_inference(framework.ones(2))
        False
    """
    return input.is_inference()


def numel(input):
    """Number of elements of the tensor.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> framework.numel(framework.zeros(2, 3))
        6
    """
    return input.numel()


_COMPILE_MODES = (
    "default",
    "lite",
    "reduce-overhead",
    "max-autotune-no-cudagraphs",
    "max-autotune",
)


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    name=None,
    disable=False,
    recompile_limit=None,
    isolate_recompiles=False,
    shapes_spec=None,
):
    """torch.compile. framework runs eagerly, so the result computes exactly what ``model``
    computes; what is mirrored is what programs see: a module comes back wrapped in
    ``OptimizedModule`` (its state_dict keys carry torch's ``_orig_mod.`` prefix), a function
    comes back as a wrapper (``__wrapped__`` is the function), and ``compile(mode=...)`` without
    a model is a decorator.

    Args:
        model (Callable, optional): the module or function to "compile"; with ``None``, returns a
            decorator. Default: ``None``.
        fullgraph (bool, optional): accepted for torch compatibility. Default: ``False``.
        dynamic (bool, optional): accepted for torch compatibility. Default: ``None``.
        backend (str, optional): accepted for torch compatibility. Default: ``'inductor'``.
        mode (str, optional): one of torch's modes, checked as torch checks it. Default: ``None``.
        options (dict, optional): accepted for torch compatibility (not with ``mode``).
            Default: ``None``.
        name (str, optional): accepted for torch compatibility. Default: ``None``.
        disable (bool, optional): return ``model`` itself. Default: ``False``.
        recompile_limit (int, optional): accepted for torch compatibility. Default: ``None``.
        isolate_recompiles (bool, optional): accepted for torch compatibility. Default: ``False``.
        shapes_spec (optional): accepted for torch compatibility. Default: ``None``.

    Example:
        >>> net = framework.compile(nn.Linear(2, 2))
        >>> type(net).__name__, list(net.state_dict())
        ('OptimizedModule', ['_orig_mod.weight', '_orig_mod.bias'])
    """
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _COMPILE_MODES:
        raise RuntimeError(
            f"Unrecognized mode={mode}, should be one of: " + ", ".join(_COMPILE_MODES)
        )
    if model is None:
        return lambda m: compile(m, backend=backend, mode=mode, options=options, disable=disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    from .nn.module import Module

    if isinstance(model, Module):
        from ._dynamo.eval_frame import OptimizedModule

        return OptimizedModule(model)
    import functools

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)

    return compiled


def set_float32_matmul_precision(precision):
    """Accepts 'highest', 'high' or 'medium' (NumPy matmuls are always full float32).

    Args:
        precision (str): ``'highest'``, ``'high'`` or ``'medium'``.

    Example:
        >>> framework.set_float32_matmul_precision('highest')
    """
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid float32 matmul precision: {precision}")
    _matmul_precision = precision


def get_float32_matmul_precision():
    """The value last given to set_float32_matmul_precision ('highest' by default)."""
    return _matmul_precision


def from_dlpack(ext_tensor):
    """A tensor sharing memory with any DLPack producer (a NumPy or CuPy array, a tensor of
    another library); CUDA producers give a CUDA tensor.

    Args:
        ext_tensor (object): an object with ``__dlpack__`` (a NumPy array, a CuPy array, a torch
            tensor).

    Example:
        >>> import numpy as np
        >>> framework.from_dlpack(np.arange(3.0))
        tensor([0., 1., 2.], dtype=torch.float64)
    """
    from . import backend
    from .tensor import Tensor

    dev_type, index = ext_tensor.__dlpack_device__()
    if int(dev_type) == 1:
        import numpy as np

        arr = np.from_dlpack(ext_tensor)
        return Tensor._make(arr, backend.CPU)
    if int(dev_type) == 2:
        import cupy

        arr = cupy.from_dlpack(ext_tensor)
        return Tensor._make(arr, backend.as_device(backend.device(f"cuda:{index}")))
    raise RuntimeError(f"from_dlpack: unsupported device type {dev_type}")


_threads = {"n": None}
_deterministic = {"mode": False, "warn_only": False}


def get_num_threads():
    """The number of threads used for intra-op parallelism: the BLAS pool's size (what
    set_num_threads last set; else what threadpoolctl reports, or the CPU count).

    Example:
        >>> framework.get_num_threads() >= 1
        True
    """
    if _threads["n"] is not None:
        return _threads["n"]
    try:
        from threadpoolctl import threadpool_info

        counts = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    except ImportError:
        counts = []
    import os

    return max(counts) if counts else os.cpu_count() or 1


def set_num_threads(n):
    """Sets the number of threads of the BLAS pool (through threadpoolctl when installed; the
    rest of framework is single-threaded NumPy).

    Args:
        n (int): a positive number of threads.

    Example:
        >>> n = framework.get_num_threads()
        >>> framework.set_num_threads(1); framework.get_num_threads()
        1
        >>> framework.set_num_threads(n)
    """
    if not isinstance(n, int) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(n, user_api="blas")
    except ImportError:
        pass
    _threads["n"] = n


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records the flag (framework's kernels are deterministic: NumPy/CuPy run every op the
    same way on the same input).

    Args:
        mode (bool): whether to demand deterministic algorithms.
        warn_only (bool, optional): accepted as torch (default: False).

    Example:
        >>> framework.use_deterministic_algorithms(True)
        >>> framework.are_deterministic_algorithms_enabled()
        True
        >>> framework.use_deterministic_algorithms(False)
    """
    _deterministic.update(mode=bool(mode), warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled():
    """The mode last given to use_deterministic_algorithms (False by default)."""
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    """The warn_only last given to use_deterministic_algorithms (False by default)."""
    return _deterministic["warn_only"]


def equal(input, other):
    """True if the two tensors have the same size and elements (torch.equal).

    Args:
        input (Tensor): the input tensor.
        other (Tensor): the tensor to compare with.

    Example:
        >>> framework.equal(framework.ones(2), framework.ones(2))
        True
    """
    return input.equal(other)
