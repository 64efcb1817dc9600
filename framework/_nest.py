"""Nested structures (lists, tuples, dicts of leaves), as Paddle's
``paddle.utils.flatten`` / ``pack_sequence_as`` / ``map_structure`` see them:
dicts are walked in sorted-key order, everything that is not a list, tuple or
dict is a leaf.

A core helper (it imports nothing of the framework), so that ``nn`` and every
layer above it can use it; ``framework.utils.layers_utils`` is its public face.
``flatten_tree`` / ``unflatten_tree`` are the (leaves, treedef) pair the others
build on; the static core's control flow and ``@to_static`` use it too.
"""


def flatten_tree(struct):
    """(leaves, treedef) of nested lists/tuples/dicts."""
    leaves = []

    def walk(s):
        if isinstance(s, (list, tuple)):
            return (type(s).__name__, [walk(x) for x in s])
        if isinstance(s, dict):
            return ('dict', [(k, walk(s[k])) for k in sorted(s)])
        leaves.append(s)
        return ('leaf', None)
    return leaves, walk(struct)


def unflatten_tree(tree, leaves):
    """The structure ``tree`` (from ``flatten_tree``) with ``leaves`` put back in."""
    it = iter(leaves)

    def build(t):
        kind, body = t
        if kind == 'leaf':
            return next(it)
        if kind == 'dict':
            return {k: build(v) for k, v in body}
        items = [build(x) for x in body]
        return tuple(items) if kind == 'tuple' else items
    return build(tree)


def is_sequence(seq):
    return isinstance(seq, (list, tuple, dict))


def to_sequence(nest):
    return nest if is_sequence(nest) else [nest]


def flatten(nest):
    """The leaves of ``nest`` in order."""
    return flatten_tree(nest)[0]


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence`` put back into the shape of ``structure``."""
    leaves, tree = flatten_tree(structure)
    flat_sequence = list(flat_sequence)
    if len(flat_sequence) != len(leaves):
        raise ValueError("pack_sequence_as: the structure has %d leaves but flat_sequence has "
                         "%d items" % (len(leaves), len(flat_sequence)))
    return unflatten_tree(tree, flat_sequence)


def map_structure(func, *structure):
    """``func`` applied leaf-wise to structures of the same shape."""
    if not structure:
        raise TypeError("map_structure needs at least one structure")
    flats = [flatten(s) for s in structure]
    for i, f in enumerate(flats[1:], 1):
        if len(f) != len(flats[0]):
            raise ValueError("map_structure: structure %d has %d leaves, structure 0 has %d"
                             % (i, len(f), len(flats[0])))
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])
