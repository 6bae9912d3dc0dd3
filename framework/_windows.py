"""Window functions (torch.hann_window, hamming_window, blackman_window, bartlett_window,
kaiser_window): ATen's formulas in ATen's order of operations, in the requested dtype."""

import math

from . import dtypes as _dtypes
from .creation import arange, ones, empty

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


def _check(name, window_length, dtype):
    """torch's argument checks of a window function; returns the dtype."""
    dt = dtype or _dtypes.get_default_dtype()
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    if not dt.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_dtypes.cpp_type_name(dt.np)}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"
        )
    return dt


def _trivial(window_length, dt, device):
    """Length 0 and 1: ATen's early returns (empty, ones)."""
    if window_length == 0:
        return empty(0, dtype=dt, device=device)
    return ones(1, dtype=dt, device=device)


def _done(w, requires_grad):
    """w with requires_grad set as asked."""
    return w.requires_grad_(True) if requires_grad else w


def hamming_window(
    window_length,
    periodic=True,
    alpha=0.54,
    beta=0.46,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    r"""The Hamming window :math:`w[n] = \alpha - \beta \cos(2\pi n / (N - 1))`, of length
    ``window_length`` (``N = window_length + 1`` and the last value dropped when `periodic`).

    Args:
        window_length (int): the window's length.
        periodic (bool, optional): the periodic form (for spectral analysis). Default: True.
        alpha (float, optional): the constant term. Default: 0.54.
        beta (float, optional): the cosine coefficient. Default: 0.46.
        dtype (framework.dtype, optional): the result's dtype. Default: the default dtype.
        layout (optional): accepted for torch's signature (strided only).
        device (framework.device, optional): the result's device.
        pin_memory (bool, optional): accepted for torch's signature.
        requires_grad (bool, optional): whether autograd records on the result. Default: False.

    Example:
        >>> framework.hamming_window(4)
        tensor([0.0800, 0.5400, 1.0000, 0.5400])
    """
    dt = _check("hamming_window", window_length, dtype)
    if window_length <= 1:
        return _done(_trivial(window_length, dt, device), requires_grad)
    n = window_length + 1 if periodic else window_length
    w = arange(n, dtype=dt, device=device)
    w.mul_(math.pi * 2.0 / (n - 1)).cos_().mul_(-beta).add_(alpha)
    return _done(w.narrow(0, 0, window_length).clone() if periodic else w, requires_grad)


def hann_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False
):
    r"""The Hann window :math:`w[n] = 0.5 - 0.5 \cos(2\pi n / (N - 1))` (a Hamming window
    with :math:`\alpha = \beta = 0.5`).

    Args:
        window_length (int): the window's length.
        periodic (bool, optional): the periodic form (for spectral analysis). Default: True.
        dtype (framework.dtype, optional): the result's dtype. Default: the default dtype.
        layout (optional): accepted for torch's signature (strided only).
        device (framework.device, optional): the result's device.
        requires_grad (bool, optional): whether autograd records on the result. Default: False.

    Example:
        >>> framework.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    _check("hann_window", window_length, dtype)
    return hamming_window(
        window_length,
        periodic,
        0.5,
        0.5,
        dtype=dtype,
        device=device,
        requires_grad=requires_grad,
    )


def blackman_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False
):
    r"""The Blackman window :math:`0.42 - 0.5 \cos(2\pi n/(N-1)) + 0.08 \cos(4\pi n/(N-1))`.

    Args:
        window_length (int): the window's length.
        periodic (bool, optional): the periodic form (for spectral analysis). Default: True.
        dtype (framework.dtype, optional): the result's dtype. Default: the default dtype.
        layout (optional): accepted for torch's signature (strided only).
        device (framework.device, optional): the result's device.
        requires_grad (bool, optional): whether autograd records on the result. Default: False.

    Example:
        >>> framework.blackman_window(3, periodic=False)
        tensor([-2.9802e-08,  1.0000e+00, -2.9802e-08])
    """
    dt = _check("blackman_window", window_length, dtype)
    if window_length <= 1:
        return _done(_trivial(window_length, dt, device), requires_grad)
    n = window_length + 1 if periodic else window_length
    w = arange(n, dtype=dt, device=device).mul_(math.pi / (n - 1))
    w = w.mul(4).cos_().mul_(0.08) - w.mul(2).cos_().mul_(0.5) + 0.42
    return _done(w.narrow(0, 0, window_length).clone() if periodic else w, requires_grad)


def bartlett_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False
):
    r"""The Bartlett (triangular) window: :math:`2n/(N-1)` rising, then falling to 0.

    Args:
        window_length (int): the window's length.
        periodic (bool, optional): the periodic form (for spectral analysis). Default: True.
        dtype (framework.dtype, optional): the result's dtype. Default: the default dtype.
        layout (optional): accepted for torch's signature (strided only).
        device (framework.device, optional): the result's device.
        requires_grad (bool, optional): whether autograd records on the result. Default: False.

    Example:
        >>> framework.bartlett_window(5, periodic=False)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    dt = _check("bartlett_window", window_length, dtype)
    if window_length <= 1:
        return _done(_trivial(window_length, dt, device), requires_grad)
    n = window_length + 1 if periodic else window_length
    w = arange(n, dtype=dt, device=device).mul_(2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w.narrow(0, half, n - half).mul_(-1).add_(2)
    return _done(w.narrow(0, 0, window_length).clone() if periodic else w, requires_grad)


def kaiser_window(
    window_length,
    periodic=True,
    beta=12.0,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    r"""The Kaiser window :math:`I_0(\beta \sqrt{1 - ((n - N/2) / (N/2))^2}) / I_0(\beta)`.

    Args:
        window_length (int): the window's length.
        periodic (bool, optional): the periodic form (for spectral analysis). Default: True.
        beta (float, optional): the Kaiser shape parameter. Default: 12.0.
        dtype (framework.dtype, optional): the result's dtype. Default: the default dtype.
        layout (optional): accepted for torch's signature (strided only).
        device (framework.device, optional): the result's device.
        requires_grad (bool, optional): whether autograd records on the result. Default: False.

    Example:
        >>> framework.kaiser_window(3, periodic=False, beta=0.0)
        tensor([1., 1., 1.])
    """
    dt = _check("kaiser_window", window_length, dtype)
    if window_length <= 1:
        return _done(_trivial(window_length, dt, device), requires_grad)
    n = window_length + 1 if periodic else window_length
    a = (n - 1) / 2.0
    x = arange(n, dtype=dt, device=device)
    r = ((x - a) / a).pow(2)
    w = (beta * (1 - r).sqrt()).i0() / _i0_scalar(beta, dt, device)
    return _done(w.narrow(0, 0, window_length).clone() if periodic else w, requires_grad)


def _i0_scalar(beta, dt, device):
    """The modified Bessel function I0 of a Python float (kaiser_window's normaliser)."""
    from .creation import tensor

    return tensor(beta, dtype=dt, device=device).i0()
