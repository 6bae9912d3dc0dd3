"""torch.backends.opt_einsum: whether einsum plans the order of a 3+ operand contraction, and
how (torch uses the opt_einsum package; the same search is built in here, so it is always
available).

Example:
    >>> import framework.backends.opt_einsum as opt_einsum
    >>> opt_einsum.enabled, opt_einsum.strategy
    (True, 'auto')
    >>> with opt_einsum.flags(strategy="greedy"):
    ...     opt_einsum.strategy
    'greedy'
"""

import contextlib
import importlib.machinery
import types

from ..ops import einsum_path


class OptEinsumModule(types.ModuleType):
    """The module object: `enabled` and `strategy` are checked when set, as torch checks them."""

    def __init__(self, name):
        super().__init__(name, __doc__)
        self.__spec__ = importlib.machinery.ModuleSpec(name, None)

    @property
    def enabled(self):
        """Plan the contraction order of three or more operands (default: True)."""
        return einsum_path.settings["enabled"]

    @enabled.setter
    def enabled(self, value):
        """Whether einsum plans its contraction order (as with opt_einsum installed)."""
        einsum_path.settings["enabled"] = value

    @property
    def strategy(self):
        """'auto' (default), 'greedy' or 'optimal'."""
        return einsum_path.settings["strategy"]

    @strategy.setter
    def strategy(self, value):
        """The planning strategy: 'auto', 'greedy' or 'optimal'."""
        if not einsum_path.settings["enabled"]:
            raise ValueError(
                f"opt_einsum is not enabled, so setting a `strategy` to {value} will not be "
                "meaningful. torch.einsum will bypass path calculation and simply contract from "
                "left to right. Please set `enabled` to `True` as well or unset `strategy`."
            )
        if value not in einsum_path.STRATEGIES:
            raise ValueError(
                f"`strategy` must be one of the following: [auto, greedy, optimal] but is {value}"
            )
        einsum_path.settings["strategy"] = value

    @staticmethod
    def is_available():
        """True: the path search is built in (torch's needs the opt_einsum package)."""
        return True

    @staticmethod
    def get_opt_einsum():
        """None: no opt_einsum package is used (torch returns the package it imported)."""
        return None

    def set_flags(self, _enabled=None, _strategy=None):
        """Set `enabled` and/or `strategy`; returns the previous (enabled, strategy)."""
        orig = (self.enabled, self.strategy)
        if _enabled is not None:
            self.enabled = _enabled
        if _strategy is not None:
            self.strategy = _strategy
        return orig

    @contextlib.contextmanager
    def flags(self, enabled=None, strategy=None):
        """Context manager: the given settings inside the block, the previous ones after."""
        orig = self.set_flags(enabled, strategy)
        try:
            yield
        finally:
            self.set_flags(*orig)
