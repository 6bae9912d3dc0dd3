"""The ATen kernels torch.distributions calls that framework does not reproduce yet.

Each raises NotImplementedError naming the kernel instead of computing something else.
"""


def _unsupported(kernel, why, used_by):
    raise NotImplementedError(
        f"framework.distributions: {used_by} needs torch.{kernel}, which framework does not "
        f"reproduce ({why}); log_prob, entropy, mean and variance work"
    )


def gammainc(a, x):
    """torch.special.gammainc (not implemented in framework.special)."""
    _unsupported("special.gammainc", "framework.special has no gammainc", "Gamma/Chi2.cdf")
