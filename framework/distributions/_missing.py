"""The ATen kernels torch.distributions calls that framework does not reproduce yet.

Each raises NotImplementedError naming the kernel, instead of drawing other numbers than
torch would from the same seed (or computing another function).
"""


def _unsupported(kernel, why, used_by):
    raise NotImplementedError(
        f"framework.distributions: {used_by} needs torch.{kernel}, which framework does not "
        f"reproduce ({why}); log_prob, entropy, mean and variance work"
    )


def binomial(count, prob):
    """torch.binomial: BTRS rejection sampling (not reproduced)."""
    _unsupported(
        "binomial",
        "its BTRS rejection sampler draws a data-dependent number of values",
        "sampling Binomial",
    )


def gammainc(a, x):
    """torch.special.gammainc (not implemented in framework.special)."""
    _unsupported("special.gammainc", "framework.special has no gammainc", "Gamma/Chi2.cdf")
