"""Grad mode: a per-thread flag, switched by context managers that double as decorators.

As in torch, grad mode, inference mode and saved-tensor hooks belong to the thread that sets
them (a new thread starts with grad mode on and no hooks); anomaly mode is process-wide.
"""

import functools
import threading


class _State(threading.local):
    """Autograd state. Instance attributes are per thread; the class attributes are what a
    new thread starts from, and anomaly mode is only ever set on the class (process-wide)."""

    enabled = True
    inference = False
    saved_hooks = ()  # saved_tensors_hooks stack: ((pack, unpack), ...), innermost last
    hooks_disabled = None  # disable_saved_tensors_hooks' message while it is active
    graph_task = None  # the backward call running in this thread (engine.current_task)
    anomaly = False
    check_nan = True  # with anomaly: nan gradients raise
    fw_levels = ()  # open forward AD levels (forward_ad._Level), outermost first

    def __setattr__(self, name, value):
        """Sets this thread's attribute; a change of `enabled` also moves `grad_off`."""
        if name != "enabled" or (not value) is (not self.enabled):  # (this thread's own)
            return local_set(self, name, value)
        with _off_lock:  # `grad_off` counts the threads whose grad mode is off
            local_set(self, name, value)
            grad_off[0] += -1 if value else 1


# threading.local's own setattr, bound once: attributes other than `enabled` may be set with
# it directly (the engine's graph_task: no Python-level __setattr__ call)
local_set = threading.local.__setattr__


grad_off = [0]  # threads with grad mode off now: while 0 it is on in every thread, and
#                 Op.apply skips the per-thread read (~0.1 us; a thread that ends with it off
#                 leaves the count above 0: the read then happens, as before)
_off_lock = threading.Lock()
state = _State()
hooks_in_use = [0]  # saved_tensors_hooks contexts open in any thread: a cheap global pre-check
fw_in_use = [0]  # forward AD levels open in any thread: Op.apply's one check when none is


def is_grad_enabled():
    """is_grad_enabled() -> bool

    Returns True if gradient recording is currently enabled (see :class:`no_grad`).

    Example:
        >>> framework.is_grad_enabled()
        True
    """
    return state.enabled


def is_inference_mode_enabled():
    """is_inference_mode_enabled() -> bool

    Returns True if inference mode is currently enabled.

    Example:
        >>> framework.is_inference_mode_enabled()
        False
    """
    return state.inference


class _Mode:
    """Base of the grad-mode context managers; usable as decorators too."""

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return func(*args, **kwargs)

        return wrapper

    _args = ()

    def __enter__(self):
        self._prev = state.enabled
        state.enabled = self._target()

    def __exit__(self, *exc):
        state.enabled = self._prev
        return False


class no_grad(_Mode):
    """Context-manager that disables gradient calculation.

    Disabling gradient calculation is useful for inference, when you are sure that you will not
    call :meth:`Tensor.backward`: it reduces memory consumption for computations that would
    otherwise have ``requires_grad=True``. In this mode, the result of every computation has
    ``requires_grad=False``, even when the inputs have ``requires_grad=True``. Factory functions
    and in-place updates of leaves (as optimizers do) work as usual. It is thread local, and also
    works as a decorator (``@framework.no_grad()``).

    Args:
        orig_func (Callable, optional): the function to decorate, when used as ``@no_grad`` without
            parentheses (default: None).

    Example:
        >>> x = framework.tensor([1.0], requires_grad=True)
        >>> with framework.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> @framework.no_grad()
        ... def doubler(x):
        ...     return x * 2
        >>> doubler(x).requires_grad
        False
    """

    def __init__(self, orig_func=None):
        if orig_func is not None and callable(orig_func):
            raise RuntimeError("no_grad must be instantiated: use @no_grad()")

    def _target(self):
        return False


class enable_grad(_Mode):
    """Enable gradient recording."""

    def _target(self):
        return True


class set_grad_enabled(_Mode):
    """Context-manager that sets gradient calculation on or off; it can also be used as a function
    (the setting applies at once) or as a decorator. Thread local.

    Args:
        mode (bool): whether to enable grad (True) or disable it (False).

    Example:
        >>> x = framework.tensor([1.0], requires_grad=True)
        >>> is_train = False
        >>> with framework.set_grad_enabled(is_train):
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> _ = framework.set_grad_enabled(True)
        >>> (x * 2).requires_grad
        True
    """

    def __init__(self, mode):
        self._args = (mode,)
        self._prev = state.enabled
        state.enabled = bool(mode)  # torch applies it on construction too

    def _target(self):
        return bool(self._args[0])

    def __enter__(self):
        pass  # already applied in __init__

    def __call__(self, func):
        state.enabled = self._prev  # as a decorator, construction must not change the mode
        return super().__call__(func)


class inference_mode(_Mode):
    """Context-manager that enables or disables inference mode: gradient recording is off, as with
    :class:`no_grad`, and :func:`~framework.is_inference_mode_enabled` reports it. Also a decorator.
    Differs from torch: framework has no inference tensors; the tensors created inside are ordinary
    tensors without history (torch marks them ``is_inference()`` and refuses to save them for
    backward later).

    Args:
        mode (bool, optional): enable (True) or disable (False) inference mode (default: True).

    Example:
        >>> x = framework.ones(1, 2, 3, requires_grad=True)
        >>> with framework.inference_mode():
        ...     y = x * x
        ...     framework.is_inference_mode_enabled()
        True
        >>> y.requires_grad
        False
    """

    def __init__(self, mode=True):
        self._args = (mode,)

    def _target(self):
        return not self._args[0] and state.enabled

    def __enter__(self):
        self._prev_inf = state.inference
        state.inference = bool(self._args[0])
        super().__enter__()

    def __exit__(self, *exc):
        state.inference = self._prev_inf
        return super().__exit__(*exc)
