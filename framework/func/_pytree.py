"""Minimal pytrees for the function transforms: tuples, lists, dicts and namedtuples."""


def flatten(tree):
    """(leaves, spec): the leaves in order and what `unflatten` needs to rebuild the tree."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return (type(tree), [_flatten(t, leaves) for t in tree])
    if isinstance(tree, dict):
        return (dict, [(k, _flatten(v, leaves)) for k, v in tree.items()])
    leaves.append(tree)
    return None


def unflatten(leaves, spec):
    """Rebuilds the tree described by ``spec`` from its ``leaves`` (the inverse of
    :func:`flatten`)."""
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec is None:
        return next(it)
    kind, kids = spec
    if kind is dict:
        return {k: _build(s, it) for k, s in kids}
    items = [_build(s, it) for s in kids]
    if kind in (tuple, list):
        return kind(items)
    if hasattr(kind, "_fields"):  # namedtuple
        return kind(*items)
    return kind(items)


def broadcast_prefix(prefix, tree, what):
    """Expand `prefix` (an int/None or a tree matching the top of `tree`) to one value per
    leaf of `tree`; raises ValueError naming `what` when the structures disagree."""
    out = []
    _broadcast(prefix, tree, out, what)
    return out


def _broadcast(prefix, tree, out, what):
    if prefix is None or isinstance(prefix, int):
        n = len(flatten(tree)[0])
        out.extend([prefix] * n)
        return
    if (
        isinstance(prefix, (tuple, list))
        and isinstance(tree, (tuple, list))
        and len(prefix) == len(tree)
    ):
        for p, t in zip(prefix, tree):
            _broadcast(p, t, out, what)
        return
    if isinstance(prefix, dict) and isinstance(tree, dict) and set(prefix) == set(tree):
        for k in tree:
            _broadcast(prefix[k], tree[k], out, what)
        return
    raise ValueError(what)


def tree_map(fn, tree):
    """The tree with ``fn`` applied to each leaf, same structure."""
    leaves, spec = flatten(tree)
    return unflatten([fn(x) for x in leaves], spec)
