"""einsum, computed as torch computes it (aten's einsum): every operand is aligned to the
layout `output labels + contracted labels` (diagonals taken, missing labels unsqueezed), then
the operands are contracted pairwise: left to right, or for three or more operands along the
path einsum_path.py chooses (torch's `path` argument, as torch.backends.opt_einsum gives it).
A pair is one batched matmul when some label summed at that step is larger than 1 in both
operands; otherwise it is a broadcast multiply. Following torch step by step gives its node
names, its broadcasting of size-1 dims and its dtypes under autocast (bmm is on autocast's
lower-precision list, mul is not, so "i,j->ij" stays float32 while "ij,jk->ik" comes out
bfloat16)."""

import math

from ..tensor import Tensor
from . import einsum_path

_ELL = "..."
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # torch's label order


def _parse_terms(lhs, num_ops):
    """Labels of each operand (a list of letters and _ELL), with torch's parse errors."""
    terms, cur, seen_ell, i = [[]], 0, False, 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if seen_ell:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {cur} for which an ellipsis was already found"
                )
            if lhs[i : i + 3] != _ELL or i + 2 >= len(lhs):
                raise RuntimeError(
                    f"einsum(): found '.' for operand {cur} that is not part of any ellipsis"
                )
            terms[cur].append(_ELL)
            seen_ell, i = True, i + 2
        elif c == ",":
            cur += 1
            if cur >= num_ops:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            terms.append([])
            seen_ell = False
        elif c != " ":
            if c not in _LETTERS:
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {i} in the equation string, "
                    "subscripts must be in [a-zA-Z]"
                )
            terms[cur].append(c)
        i += 1
    if cur != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return terms


def _parse_output(rhs, offset, count, ell_num_dim):
    """Positions of the output labels; returns (index, ell_index, n_out, ell_in_output)."""
    index, n, ell_index, ell_in_out, i = {}, 0, 0, False, 0
    while i < len(rhs):
        c = rhs[i]
        if c == ".":
            if ell_in_out:
                raise RuntimeError(
                    "einsum(): found '.' for output but an ellipsis (...) was already found"
                )
            if rhs[i : i + 3] != _ELL or i + 2 >= len(rhs):
                raise RuntimeError(
                    "einsum(): found '.' for output that is not part of any ellipsis (...)"
                )
            ell_index, n, ell_in_out, i = n, n + ell_num_dim, True, i + 2
        elif c != " ":
            if c not in _LETTERS:
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {offset + i} in the equation "
                    "string, subscripts must be in [a-zA-Z]"
                )
            if not count.get(c) or c in index:
                raise RuntimeError(
                    f"einsum(): output subscript {c}"
                    + (
                        " appears more than once in the output"
                        if c in index
                        else " does not appear in the equation for any input operand"
                    )
                )
            index[c], n = n, n + 1
        i += 1
    return index, ell_index, n, ell_in_out


def _align(op, k, labels, index, ell_index, ell_num_dim, size, ell_sizes, dim_counts):
    """Operand `k` as a tensor over every label position (torch's permuted layout)."""
    perm = [-1] * len(dim_counts)
    d = 0
    for s in labels:
        if s == _ELL:
            nd = op.dim() - (len(labels) - 1)
            for j in range(ell_num_dim - nd, ell_num_dim):
                if op.shape[d] != 1:
                    if ell_sizes[j] not in (1, op.shape[d]):
                        raise RuntimeError(
                            f"einsum(): dimension {d} covered by ellipsis in operand {k}has size "
                            f"{op.shape[d]} which does not broadcast with previously seen "
                            f"ellipsis with size {ell_sizes[j]} for the respective dimension"
                        )
                    ell_sizes[j] = op.shape[d]
                    dim_counts[ell_index + j] += 1
                perm[ell_index + j] = d
                d += 1
        elif perm[index[s]] == -1:
            if op.shape[d] != 1:
                if size.get(s, 1) not in (1, op.shape[d]):
                    raise RuntimeError(
                        f"einsum(): subscript {s} has size {op.shape[d]} for operand {k} which "
                        f"does not broadcast with previously seen size {size[s]}"
                    )
                size[s] = op.shape[d]
                dim_counts[index[s]] += 1
            perm[index[s]] = d
            d += 1
        else:  # a repeated label: its diagonal
            prev = perm[index[s]]
            if op.shape[d] != op.shape[prev]:
                raise RuntimeError(
                    f"einsum(): subscript {s} is repeated for operand {k} but the sizes don't "
                    f"match, {op.shape[d]} != {op.shape[prev]}"
                )
            op = op.diagonal(0, prev, d).movedim(-1, prev)
    for i, v in enumerate(perm):
        if v == -1:
            op = op.unsqueeze(d)
            perm[i] = d
            d += 1
    return op.permute(*perm)


def _sumproduct_pair(left, right, sum_dims):
    """(left * right).sum(sum_dims, keepdim=True) for aligned operands, as one bmm."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            lro.append(i)
        elif sl:
            lo.append(i)
        else:
            ro.append(i)
    lro_size = math.prod(left.shape[i] for i in lro)
    lo_size = math.prod(left.shape[i] for i in lo)
    ro_size = math.prod(right.shape[i] for i in ro)
    out_size = (
        [left.shape[i] for i in lro]
        + [left.shape[i] for i in lo]
        + [1] * len(sum_dims)
        + [right.shape[i] for i in ro]
    )
    order = lro + lo + sum_dims + ro
    operm = [0] * len(order)
    for pos, i in enumerate(order):
        operm[i] = pos
    left = left.permute(*order).reshape(lro_size, lo_size, sum_size)
    right = right.permute(*(lro + sum_dims + ro + lo)).reshape(lro_size, sum_size, ro_size)
    return left.bmm(right).view(*out_size).permute(*operm)


def _plan(ops, out_n, perm_n):
    """The contraction path for three or more operands when framework.backends.opt_einsum is
    enabled (torch's path argument: pairs of positions, the product appended at the end), or
    None for torch's left-to-right order."""
    if len(ops) <= 2 or not einsum_path.settings["enabled"]:
        return None
    sets = [frozenset(d for d in range(perm_n) if op.shape[d] != 1) for op in ops]
    sizes = {d: max(op.shape[d] for op in ops) for d in range(perm_n)}
    strategy = einsum_path.settings["strategy"]
    return einsum_path.contraction_path(sets, frozenset(range(out_n)), sizes, strategy)


def _from_sublists(args):
    """einsum(op1, sublist1, op2, sublist2, ..., [out]) -> (equation, operands)."""

    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append(_ELL)
            elif isinstance(s, int) and 0 <= s < 52:
                out.append(_LETTERS[s])
            else:
                raise ValueError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)"
                )
        return "".join(out)

    n = len(args) // 2
    ops, subs = list(args[0 : 2 * n : 2]), [letters(s) for s in args[1 : 2 * n : 2]]
    eq = ",".join(subs)
    if len(args) % 2:
        eq += "->" + letters(args[-1])
    return eq, ops


def einsum(*args):
    """Einstein summation over the operands, e.g. 'bij,bjk->bik'.

    Implicit output (labels seen once, alphabetically, after the ellipsis dims), '...',
    repeated labels (diagonals), broadcasting of size-1 dims and torch's sublist form
    `einsum(a, [0, 1], b, [1, 2], [0, 2])` are supported. Operands are contracted left to
    right when there are two, and for three or more in the order framework.backends.opt_einsum
    picks (as torch does with opt_einsum installed; left to right when it is disabled), each
    step one batched matmul or, when nothing of size > 1 is summed, one multiply.

    Args:
        equation: the subscripts, e.g. "ij,jk->ik".
        *operands: tensors (or one list of tensors).

    Returns:
        Tensor: the contraction.

    Example:
        >>> a = framework.ones(2, 3)
        >>> framework.einsum("ij,kj->ik", a, a)
        tensor([[3., 3.],
                [3., 3.]])
    """
    if args and isinstance(args[0], Tensor):
        equation, operands = _from_sublists(args)
    else:
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    lhs, arrow, rhs = equation.partition("->")
    terms = _parse_terms(lhs, len(operands))
    count, ell_num_dim = {}, 0
    for k, (op, t) in enumerate(zip(operands, terms)):
        n = sum(1 for s in t if s != _ELL)
        for s in t:
            if s != _ELL:
                count[s] = count.get(s, 0) + 1
        has_ell = _ELL in t
        if has_ell:
            ell_num_dim = max(ell_num_dim, op.dim() - n)
        if (n > op.dim()) if has_ell else (n != op.dim()):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({n}) "
                + (
                    "is more than the number of dimensions ("
                    if has_ell
                    else "does not match the number of dimensions ("
                )
                + f"{op.dim()}) for operand {k}"
                + ("" if has_ell else " and no ellipsis was given")
            )
    if arrow:
        index, ell_index, out_n, ell_in_out = _parse_output(rhs, len(lhs) + 2, count, ell_num_dim)
    else:  # implicit output: the ellipsis dims, then the labels seen once
        index, ell_index, out_n, ell_in_out = {}, 0, ell_num_dim, True
        for c in _LETTERS:
            if count.get(c) == 1:
                index[c], out_n = out_n, out_n + 1
    perm_n = out_n
    if not ell_in_out:
        ell_index, perm_n = perm_n, perm_n + ell_num_dim
    for c in _LETTERS:
        if c in count and c not in index:
            index[c], perm_n = perm_n, perm_n + 1
    size, ell_sizes, dim_counts = {}, [1] * ell_num_dim, [0] * perm_n
    ops = [
        _align(op, k, t, index, ell_index, ell_num_dim, size, ell_sizes, dim_counts)
        for k, (op, t) in enumerate(zip(operands, terms))
    ]
    path = _plan(ops, out_n, perm_n)
    steps = iter(path or ())
    while len(ops) > 1:
        i, j = next(steps, (0, 1))
        b, a = ops.pop(j), ops.pop(i)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_n, perm_n):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(tuple(a_sum), True)
        if b_sum:
            b = b.sum(tuple(b_sum), True)
        ops.insert(len(ops) if path else 0, _sumproduct_pair(a, b, sum_dims))
    result = ops[0]
    if perm_n > out_n:  # contracted dims: size 1 by now when there were pairs
        if len(operands) > 1:
            return result.view(*result.shape[:out_n])
        return result.sum(tuple(range(out_n, perm_n)))
    return result


__all__ = ["einsum"]
