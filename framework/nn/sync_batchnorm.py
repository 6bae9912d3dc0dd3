"""SyncBatchNorm (one process: BatchNorm over the local batch, as torch's when no process group
is initialized) and the deprecated NLLLoss2d."""

import warnings

from ..autograd.grad_mode import no_grad
from .loss import NLLLoss
from .normalization import _BatchNorm

__all__ = ["NLLLoss2d", "SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    r"""Batch normalization over an input of 2 or more dims whose statistics would be
    synchronized across processes; with a single process (no initialized process group) it is
    :class:`BatchNorm1d`/`2d`/`3d`'s computation, as torch's.

    Args:
        num_features (int): :math:`C`, the number of channels.
        eps (float, optional): added to the variance. Default: 1e-5.
        momentum (float or None, optional): the running statistics' factor; None for a
            cumulative average. Default: 0.1.
        affine (bool, optional): learnable weight and bias. Default: True.
        track_running_stats (bool, optional): keep running statistics. Default: True.
        process_group (optional): the group to synchronize over (unused with one process).
        device (optional): the parameters' device.
        dtype (optional): the parameters' dtype.
        bias (bool, optional): a learnable bias (keyword only). Default: True.

    Shape:
        - Input: :math:`(N, C, +)`.
        - Output: the same shape.

    Example:
        >>> m = nn.SyncBatchNorm(3)
        >>> m(framework.randn(4, 3, 2)).shape
        torch.Size([4, 3, 2])
    """

    def __init__(
        self,
        num_features,
        eps=1e-05,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        process_group=None,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        """BatchNorm's arguments plus process_group (a single process here)."""
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input):
        """torch's SyncBatchNorm check: at least 2-D input."""
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        """BatchNorm over the local batch (see the class).

        Args:
            input (Tensor): :math:`(N, C, +)`.

        Example:
            >>> nn.SyncBatchNorm(2)(framework.ones(3, 2)).shape
            torch.Size([3, 2])
        """
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replaces every BatchNorm*D layer of `module` (recursively) with a SyncBatchNorm
        sharing its parameters and buffers; returns the converted module.

        Args:
            module (nn.Module): the module (or a BatchNorm layer itself).
            process_group (optional): the process group of the new layers.

        Example:
            >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> type(nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]).__name__
            'SyncBatchNorm'
        """
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=module.bias is not None,
            )
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class NLLLoss2d(NLLLoss):
    """Deprecated: :class:`NLLLoss` (a FutureWarning when built, as torch's).

    Args:
        weight (Tensor, optional): a weight per class.
        size_average (bool, optional): deprecated (see ``reduction``).
        ignore_index (int, optional): a target value that is ignored. Default: -100.
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str, optional): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> loss = nn.NLLLoss2d()  # doctest: +SKIP
    """

    def __init__(
        self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
    ):
        """BatchNorm's arguments plus process_group (a single process here)."""
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
            "more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
