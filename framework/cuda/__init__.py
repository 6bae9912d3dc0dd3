"""torch.cuda: availability, device count, synchronisation, seeding (CuPy underneath)."""
from .. import backend


def is_available():
    return backend.cuda_available()


def device_count():
    return backend.cuda_device_count()


def current_device():
    _require()
    import cupy
    return cupy.cuda.runtime.getDevice()


def synchronize(device=None):
    if is_available():
        backend.synchronize()


def manual_seed(seed):
    """Seed the one stream that every device draws from (numbers are drawn on the CPU)."""
    backend.manual_seed(seed)


manual_seed_all = manual_seed


def _require():
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")


def _legacy_types():
    from ..tensor_types import CUDA_TYPES
    globals().update(CUDA_TYPES)


_legacy_types()

from . import amp  # noqa: E402,F401
