"""Nested structures (lists, tuples, dicts of leaves), as Paddle's
``paddle.utils.flatten`` / ``pack_sequence_as`` / ``map_structure`` see them:
dicts are walked in sorted-key order, everything that is not a list, tuple or
dict is a leaf."""
from ..static.control_flow import flatten as _flatten_tree, unflatten as _unflatten


def is_sequence(seq):
    return isinstance(seq, (list, tuple, dict))


def to_sequence(nest):
    return nest if is_sequence(nest) else [nest]


def flatten(nest):
    """The leaves of ``nest`` in order."""
    return _flatten_tree(nest)[0]


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence`` put back into the shape of ``structure``."""
    leaves, tree = _flatten_tree(structure)
    flat_sequence = list(flat_sequence)
    if len(flat_sequence) != len(leaves):
        raise ValueError("pack_sequence_as: the structure has %d leaves but flat_sequence has "
                         "%d items" % (len(leaves), len(flat_sequence)))
    return _unflatten(tree, flat_sequence)


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
