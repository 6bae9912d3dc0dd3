"""The order in which einsum contracts three or more operands (torch.backends.opt_einsum).

torch asks the opt_einsum package for a contraction path when it is installed and contracts
left to right otherwise. The search is built in here, so it is always available: 'optimal'
tries every order (branch and bound on the operation count), 'greedy' repeatedly contracts the
pair that shrinks memory most, and 'auto' (the default) is 'optimal' for up to six operands and
'greedy' beyond. A path is a list of pairs `(i, j)` of positions in the current operand list;
the two are removed and their product is appended at the end (opt_einsum's and torch's
convention). Costs follow opt_einsum's count: the product of the sizes of every label of the
pair, doubled when a label is summed.
"""

import math

# settings behind framework.backends.opt_einsum (read by einsum at each call)
settings = {"enabled": True, "strategy": "auto"}
STRATEGIES = ("auto", "greedy", "optimal")
_AUTO_OPTIMAL_MAX = 6  # operands up to which 'auto' searches every order


def _size(labels, sizes):
    return math.prod(sizes[c] for c in labels)


def _step(sets, i, j, keep, sizes):
    """(result labels, operation count) of contracting operands i and j of `sets`, where
    `keep` holds the output labels."""
    others = set().union(*(s for k, s in enumerate(sets) if k not in (i, j)))
    both = sets[i] | sets[j]
    result = frozenset(c for c in both if c in keep or c in others)
    return result, _size(both, sizes) * (2 if len(result) < len(both) else 1)


def _rest(sets, i, j, result):
    return [s for k, s in enumerate(sets) if k not in (i, j)] + [result]


def greedy(sets, keep, sizes):
    """Contract, at each step, the pair whose product removes the most memory (result size
    minus the sizes of the pair), preferring pairs that share a label, then the fewest
    operations, then the leftmost pair."""
    sets, path = list(sets), []
    while len(sets) > 1:
        best = None
        for i in range(len(sets)):
            for j in range(i + 1, len(sets)):
                result, cost = _step(sets, i, j, keep, sizes)
                gain = _size(result, sizes) - _size(sets[i], sizes) - _size(sets[j], sizes)
                key = (not (sets[i] & sets[j]), gain, cost, i, j)
                if best is None or key < best[0]:
                    best = (key, result)
        (_, _, _, i, j), result = best
        path.append((i, j))
        sets = _rest(sets, i, j, result)
    return path


def optimal(sets, keep, sizes):
    """The path with the fewest operations over every order of pairs (exponential in the
    number of operands; branch and bound prunes orders already costlier than the best)."""
    best = [math.inf, None]
    seen = {}

    def search(sets, cost, path):
        """Depth-first over pair contractions, pruning paths costlier than the best."""
        if len(sets) == 1:
            if cost < best[0]:
                best[:] = [cost, list(path)]
            return
        state = tuple(sorted(tuple(sorted(s)) for s in sets))
        if seen.get(state, math.inf) <= cost:
            return
        seen[state] = cost
        for i in range(len(sets)):
            for j in range(i + 1, len(sets)):
                result, step = _step(sets, i, j, keep, sizes)
                if cost + step < best[0]:
                    path.append((i, j))
                    search(_rest(sets, i, j, result), cost + step, path)
                    path.pop()

    search(list(sets), 0, [])
    return best[1]


def contraction_path(sets, keep, sizes, strategy="auto"):
    """The pairs to contract, in order, for operands whose labels are `sets` (each a
    frozenset), output labels `keep` and label sizes `sizes`."""
    if strategy == "optimal" or (strategy == "auto" and len(sets) <= _AUTO_OPTIMAL_MAX):
        return optimal(sets, keep, sizes)
    return greedy(sets, keep, sizes)


def path_cost(sets, keep, sizes, path):
    """The operation count of contracting along `path` (opt_einsum's count)."""
    sets, total = list(sets), 0
    for i, j in path:
        result, cost = _step(sets, i, j, keep, sizes)
        total += cost
        sets = _rest(sets, i, j, result)
    return total


__all__ = []
