"""AdaptiveLogSoftmaxWithLoss: the efficient softmax approximation of Grave et al. (torch's
module, computed in the same order, so its numbers are torch's)."""

import itertools
from collections import namedtuple

from . import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    r"""Efficient softmax approximation (`Grave et al., 2016
    <https://arxiv.org/abs/1609.04309>`__): the labels, sorted by frequency, are split at
    ``cutoffs`` into a head (the frequent ones, plus one entry per tail cluster) and tail
    clusters whose projections shrink by ``div_value`` per cluster; only the clusters a
    batch's targets fall in are evaluated.

    .. math::
        \log p(y) = \log p_{head}(c(y)) + \log p_{c(y)}(y) \quad (y \text{ in a tail cluster})

    Args:
        in_features (int): the number of input features.
        n_classes (int): the number of classes.
        cutoffs (Sequence of int): increasing, unique, in ``[1, n_classes - 1]``.
        div_value (float, optional): the cluster sizes' exponent base: cluster ``i`` projects
            to ``in_features // div_value ** (i + 1)`` features. Default: 4.0.
        head_bias (bool, optional): a bias in the head. Default: ``False``.
        device (framework.device, optional): where to create the parameters.
        dtype (framework.dtype, optional): the parameters' dtype.

    Returns:
        A named tuple ``(output, loss)``: each target's log-probability ``(N)`` and the mean
        negative log-likelihood.

    Shape:
        - input: :math:`(N, \text{in\_features})` or :math:`(\text{in\_features})`.
        - target: :math:`(N)` or :math:`()`, values in ``[0, n_classes - 1]``.
        - output: :math:`(N)` or :math:`()`; loss: a scalar.

    Example:
        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[3, 6])
        >>> out = asm(framework.randn(4, 8), framework.tensor([0, 4, 7, 9]))
        >>> out.output.shape, out.loss.shape
        (torch.Size([4]), torch.Size([]))
        >>> asm.log_prob(framework.randn(2, 8)).exp().sum(1).allclose(framework.ones(2))
        True
    """

    def __init__(
        self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None,
        dtype=None,
    ):  # fmt: skip
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias, **factory_kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(self.in_features, hsz, bias=False, **factory_kwargs),
                    Linear(hsz, osz, bias=False, **factory_kwargs),
                )
            )

    def reset_parameters(self):
        """Re-initializes the head and the tail projections as ``__init__`` does.

        Example:
            >>> nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2]).reset_parameters()
        """
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        """Each target's log-probability and the mean negative log-likelihood.

        Args:
            input_ (Tensor): :math:`(N, \\text{in\\_features})` or :math:`(\\text{in\\_features})`.
            target_ (Tensor): :math:`(N)` or :math:`()` class indices.

        Example:
            >>> asm = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
            >>> asm(framework.randn(4), framework.tensor(5)).output.shape
            torch.Size([])
        """
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input_.dim() != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{input_.size()}"
                )
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{input_.size()}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)
        used_rows = 0
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low_idx, high_idx = cutoff_values[i], cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().squeeze()
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low_idx
                input_subset = input.index_select(0, row_indices)
                cluster_output = self.tail[i - 1](input_subset)
                cluster_index = self.shortlist_size + i - 1
                gather_inds.index_fill_(0, row_indices, cluster_index)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()
        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head_output = self.head(input)
        head_logprob = F.log_softmax(head_output, dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        """The log of the full distribution from the input and the head's output."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for i, (start_idx, stop_idx) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start_idx:stop_idx] = cluster_logprob + head_logprob[
                :, self.shortlist_size + i
            ].unsqueeze(1)
        return out

    def log_prob(self, input):
        """Log-probabilities of all ``n_classes`` classes.

        Args:
            input (Tensor): :math:`(N, \\text{in\\_features})`.

        Returns:
            Tensor: :math:`(N, \\text{n\\_classes})`.

        Example:
            >>> nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2]).log_prob(framework.randn(3, 4)).shape
            torch.Size([3, 6])
        """
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each example (``log_prob(input).argmax(1)``, computed
        over the tail clusters only where the head's best entry is a cluster).

        Args:
            input (Tensor): :math:`(N, \\text{in\\_features})`.

        Returns:
            Tensor: :math:`(N)` class indices.

        Example:
            >>> nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2]).predict(framework.randn(3, 4)).shape
            torch.Size([3])
        """
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return self._get_full_log_prob(input, head_output).argmax(dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
        output[not_in_shortlist] = log_prob.argmax(dim=1)
        return output
