"""Nested structures (Paddle's ``paddle.utils.layers_utils``): lists, tuples and
dicts of leaves, dicts walked in sorted-key order. The helpers live in the core
module ``framework._nest`` so that layers below ``utils`` (``nn.decode``) use
them too."""
from .._nest import flatten, is_sequence, map_structure, pack_sequence_as, to_sequence  # noqa: F401
