"""Batching rules for the third-pass breadth ops: baddbmm/addbmm/addmv/addr (one broadcasting
product over the batch dims), lstsq (both operands with every level), and the ops whose
kernels already treat leading dims as a batch (lu, lu_factor_ex, pdist, adaptive_max_pool3d),
and the linalg solvers whose operands broadcast over batch dims (solve_triangular,
triangular_solve, cholesky_solve/inverse, lu_solve, lu_unpack, householder_product)."""

from ._batched import aligned, lvls_of, physical, register, rewrap, union, wrap
from ._rules import op_classes

# (rank of the bias's logical shape, rank of each factor's logical shape)
_RANKS = {"Baddbmm": (3, 3, 3), "Addbmm": (2, 3, 3), "Addmv": (1, 2, 1), "Addr": (2, 1, 1)}


def add_product(cls, args, params):
    """beta * bias + alpha * product with batched operands: the op itself broadcasts leading
    dims, so each operand gets every level and its logical rank."""
    lvls = union(args)
    ranks = _RANKS[cls.__name__]
    phys = [aligned(a, lvls, r, expand=True) for a, r in zip(args, ranks)]
    return wrap(cls.apply(*phys, **params), lvls)


def both_batched(cls, args, params):
    """lstsq(A, B): both with every level (the batch dims lead)."""
    lvls = union(args)
    phys = [aligned(a, lvls, expand=True) for a in args[:2]]
    out = cls.apply(*phys, *args[2:], **params)
    bs = tuple(phys[0].shape[: len(lvls)])
    # an extra the driver does not report is (0,) for any batch: (batch..., 0) per sample
    return tuple(
        wrap(o.reshape(bs + (0,)) if o.dim() == 1 and not o.numel() else o, lvls) for o in out
    )


def leading(cls, args, params):
    """One tensor whose kernel treats every leading dim as a batch dim."""
    x = args[0]
    return rewrap(cls.apply(x._value, *args[1:], **params), x._levels)


# the core (non-batch) rank of each tensor argument of the linalg solvers, whose operands
# broadcast over their leading batch dims
_CORE = {
    "LinalgSolveTriangular": (2, 2),
    "TriangularSolve": (2, 2),
    "CholeskySolve": (2, 2),
    "CholeskyInverse": (2,),
    "LinalgLuSolve": (2, 1, 2),
    "LuUnpack": (2, 1),
    "LinalgHouseholderProduct": (2, 1),
}


def solver(cls, args, params):
    """Every operand with every level and its batch dims left-padded to a common batch rank,
    so the op's own broadcasting lines the samples up."""
    lvls = union(args)
    core = _CORE[cls.__name__]
    ndims = [physical(a).dim() - len(lvls_of(a)) for a in args]
    batch = max(n - c for n, c in zip(ndims, core))
    phys = [aligned(a, lvls, batch + c, expand=True) for a, c in zip(args, core)]
    return rewrap(cls.apply(*phys, **params), lvls)


def _register():
    table = op_classes()
    for rule, names in (
        (add_product, list(_RANKS)),
        (both_batched, ["LinalgLstsq"]),
        (leading, ["LinalgLu", "LinalgLuFactorEx", "Pdist", "AdaptiveMaxPool3D"]),
        (solver, list(_CORE)),
    ):
        register(*[table[n] for n in names if n in table])(rule)


_register()
