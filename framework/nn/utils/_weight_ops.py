"""Compositions behind weight_norm and spectral_norm: normalize, norm_except_dim,
_weight_norm (gradients flow through the existing ops)."""


def _normalize(x, dim=0, eps=1e-12):
    """x / max(||x||_2 over dim, eps), as F.normalize."""
    return x / (x * x).sum(dim=dim, keepdim=True).sqrt().clamp_min(eps)


def norm_except_dim(v, pow=2, dim=0):
    """The 2-norm of v over every dimension but `dim`, kept with size 1 (dim=-1: all)."""
    if pow != 2:
        raise NotImplementedError("norm_except_dim: only pow=2 is supported")
    if dim == -1:
        return (v * v).sum().sqrt()
    dims = tuple(d for d in range(v.dim()) if d != dim)
    return (v * v).sum(dim=dims, keepdim=True).sqrt() if dims else (v * v).sqrt()


def _weight_norm(v, g, dim=0):
    """v * (g / ||v||) with the norm over every dimension but `dim` (torch._weight_norm)."""
    return v * (g / norm_except_dim(v, 2, dim))
