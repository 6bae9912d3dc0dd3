"""Constants and aliases torch exposes at top level (``pi``, ``e``, ``inf``, ``nan``,
``newaxis``, ``short``, ``GradScaler``, ``legacy_contiguous_format``), ``set_anomaly_enabled``,
``init_num_threads``, and the functions torch removed in 1.9 (``eig``, ``solve``, ``symeig``,
also as Tensor methods ``eig``, ``solve``, ``symeig``, ``lstsq``) raising torch's messages."""

import math

from .tensor import Tensor

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns anomaly detection on or off (as ``autograd.set_detect_anomaly``).

    Args:
        enabled (bool): whether to detect anomalies.
        check_nan (bool, optional): also check backward outputs for NaN. Default: True.

    Example:
        >>> framework.set_anomaly_enabled(False)
        >>> framework.is_anomaly_enabled()
        False
    """
    from .autograd import set_detect_anomaly

    set_detect_anomaly(enabled, check_nan)


def init_num_threads():
    """Initializes the intra-op thread pool's settings for this thread (nothing to do here;
    NumPy's BLAS pool is process-wide).

    Example:
        >>> framework.init_num_threads()
    """
    return None


def solve(input, A, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError (use :func:`linalg.solve`).

    Args:
        input (Tensor): B.
        A (Tensor): A.
        out (Tensor, optional): unused.

    Example:
        >>> framework.solve(framework.eye(2), framework.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed...
    """
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\n"
        "To get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
        "`torch.lu_unpack`.\n"
        "X = torch.solve(B, A).solution "
        "should be replaced with:\n"
        "X = torch.linalg.solve(A, B)"
    )


def _lstsq(input, A, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError (use :func:`linalg.lstsq`)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the "
        "last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, "
        "the residuals are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\n"
        "X, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\n"
        "X = torch.linalg.lstsq(A, B).solution"
    )


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError (use :func:`linalg.eigh`).

    Args:
        input (Tensor): the matrix.
        eigenvectors (bool, optional): unused.
        upper (bool, optional): unused.
        out (tuple, optional): unused.

    Example:
        >>> framework.symeig(framework.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed...
    """
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "The default behavior has changed from using the upper triangular portion of the "
        "matrix by default to using the lower triangular portion.\n\n"
        "L, _ = torch.symeig(A, upper=upper) "
        "should be replaced with:\n"
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\n"
        "and\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) "
        "should be replaced with:\n"
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed in torch 1.9: raises torch's RuntimeError (use :func:`linalg.eig`).

    Args:
        self (Tensor): the matrix.
        eigenvectors (bool, optional): unused.
        e (Tensor, optional): unused.
        v (Tensor, optional): unused.

    Example:
        >>> framework.eig(framework.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed...
    """
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather "
        "than real tensors mimicking complex tensors.\n\n"
        "L, _ = torch.eig(A) "
        "should be replaced with:\n"
        "L_complex = torch.linalg.eigvals(A)\n\n"
        "and\n\n"
        "L, V = torch.eig(A, eigenvectors=True) "
        "should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)"
    )


def _eig_method(self, eigenvectors=False):
    """Removed in torch 1.9: raises torch's RuntimeError (see :func:`framework.eig`).

    Args:
        eigenvectors (bool, optional): unused.

    Example:
        >>> framework.eye(2).eig()
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed...
    """
    return eig(self, eigenvectors)


def _solve_method(self, A):
    """Removed in torch 1.9: raises torch's RuntimeError (see :func:`framework.solve`).

    Args:
        A (Tensor): unused.

    Example:
        >>> framework.eye(2).solve(framework.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed...
    """
    return solve(self, A)


def _symeig_method(self, eigenvectors=False, upper=True):
    """Removed in torch 1.9: raises torch's RuntimeError (see :func:`framework.symeig`).

    Args:
        eigenvectors (bool, optional): unused.
        upper (bool, optional): unused.

    Example:
        >>> framework.eye(2).symeig()
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed...
    """
    return symeig(self, eigenvectors, upper)


def _lstsq_method(self, A):
    """Removed in torch 1.9: raises torch's RuntimeError (use ``linalg.lstsq``).

    Args:
        A (Tensor): unused.

    Example:
        >>> framework.eye(2).lstsq(framework.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed...
    """
    return _lstsq(self, A)


for _name, _fn in (
    ("eig", _eig_method),
    ("solve", _solve_method),
    ("symeig", _symeig_method),
    ("lstsq", _lstsq_method),
):
    _fn.__name__, _fn.__qualname__ = _name, f"Tensor.{_name}"
    setattr(Tensor, _name, _fn)


def _resize_function():
    """torch.autograd._functions.Resize (its node: ResizeBackward)."""
    from .autograd.function import Function

    class Resize(Function):
        @staticmethod
        def forward(ctx, tensor, sizes):
            ctx.sizes = sizes
            ctx.numel = math.prod(sizes)
            if tensor.numel() != ctx.numel:
                raise RuntimeError(
                    "requested resize to {} ({} elements in total), but the given tensor has "
                    "a size of {} ({} elements). autograd's resize can only change the shape "
                    "of a given tensor, while preserving the number of elements. ".format(
                        "x".join(map(str, sizes)),
                        ctx.numel,
                        "x".join(map(str, tensor.size())),
                        tensor.numel(),
                    )
                )
            ctx.input_sizes = tensor.size()
            return tensor.contiguous().view(*sizes)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.contiguous().view(ctx.input_sizes), None

    return Resize


_RESIZE = []


def _resize(self, *sizes):
    """resize(*sizes) -> Tensor

    The deprecated non-in-place resize (torch's warning): the elements in a new shape of the
    same number of elements (node ResizeBackward).

    Args:
        sizes (int... or torch.Size): the new shape.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     framework.arange(4.0).resize(2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    import warnings

    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if not _RESIZE:
        _RESIZE.append(_resize_function())
    return _RESIZE[0].apply(self, tuple(sizes))


def _resize_as(self, tensor):
    """resize_as(tensor) -> Tensor

    The deprecated non-in-place resize to ``tensor``'s shape (torch's warning).

    Args:
        tensor (Tensor): the tensor whose shape is taken.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     framework.arange(4.0).resize_as(framework.zeros(2, 2)).shape
        torch.Size([2, 2])
    """
    import warnings

    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    if not _RESIZE:
        _RESIZE.append(_resize_function())
    return _RESIZE[0].apply(self, tuple(tensor.size()))


for _name, _fn in (("resize", _resize), ("resize_as", _resize_as)):
    _fn.__name__, _fn.__qualname__ = _name, f"Tensor.{_name}"
    setattr(Tensor, _name, _fn)


__all__ = [
    "pi",
    "e",
    "inf",
    "nan",
    "newaxis",
    "set_anomaly_enabled",
    "init_num_threads",
    "solve",
    "symeig",
    "eig",
]
