"""SparseAdam (torch.optim.SparseAdam): Adam that touches only the rows a gradient has."""

import math

from .optimizer import Optimizer, _zeros_like
from ._util import _sqrt


class SparseAdam(Optimizer):
    r"""Masked Adam for gradients that cover a few rows (embedding tables).

    For the rows :math:`r` present in the gradient only:

    .. math::
        m_r \leftarrow m_r + (1 - \beta_1)(g_r - m_r), \quad
        v_r \leftarrow v_r + (1 - \beta_2)(g_r^2 - v_r), \quad
        \theta_r \leftarrow \theta_r - \gamma \frac{\sqrt{1 - \beta_2^t}}{1 - \beta_1^t}
        \frac{m_r}{\sqrt{v_r} + \epsilon}

    Differs from torch: framework has no sparse tensors, so the gradient is dense and a row
    (index along dim 0) counts as present when any of its values is non-zero; torch takes the
    rows of a sparse gradient (``nn.Embedding(sparse=True)``) and refuses dense ones. For an
    embedding's gradient the two agree.

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or of dicts
            defining parameter groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float], optional): coefficients :math:`(\beta_1, \beta_2)` of the
            running averages of the gradient and its square (default: (0.9, 0.999)).
        eps (float, optional): :math:`\epsilon`, added to the denominator for numerical stability
            (default: 1e-8).
        maximize (bool, optional): maximize the objective instead of minimizing (default: False).

    State: ``step`` (an int, as torch's), ``exp_avg``, ``exp_avg_sq``.

    Example:
        >>> w = framework.zeros(4, 2, requires_grad=True)
        >>> opt = framework.optim.SparseAdam([w], lr=0.1)
        >>> w[1].sum().backward()
        >>> opt.step()
        >>> w[:, 0]
        tensor([ 0.0000, -0.1000,  0.0000,  0.0000], grad_fn=<SelectBackward0>)
    """

    _checks = ("lr_pos", "eps_pos", "betas", "betas1")
    _elementwise = False  # rows are selected per parameter

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def _restore_step(self, p, p_state, group):
        """torch's SparseAdam keeps 'step' as a Python int."""

    def _init_state(self, p, state, group):
        state["step"] = 0
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    def _update(self, p, g, state, h):
        (beta1, beta2), xp = h["betas"], p.xp
        state["step"] += 1
        step = state["step"]
        rows = (
            xp.flatnonzero((g.reshape(g.shape[0], -1) != 0).any(axis=1))
            if g.ndim
            else (xp.arange(1) if g != 0 else xp.arange(0))
        )
        if rows.size == 0:
            return
        m, v, x = state["exp_avg"]._data, state["exp_avg_sq"]._data, p._data
        if g.ndim == 0:  # a 0-dim parameter: view everything as one row
            m, v, x, g = m.reshape(1), v.reshape(1), x.reshape(1), g.reshape(1)
        g_r, old_m, old_v = g[rows], m[rows], v[rows]
        upd_m = (g_r - old_m) * (1 - beta1)
        m[rows] += upd_m
        upd_v = (g_r * g_r - old_v) * (1 - beta2)
        v[rows] += upd_v
        numer = upd_m + old_m
        denom = _sqrt(xp, upd_v + old_v)
        denom += h["eps"]
        step_size = h["lr"] * math.sqrt(1 - beta2**step) / (1 - beta1**step)
        x[rows] += -step_size * (numer / denom)
