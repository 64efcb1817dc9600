"""``python3 -m framework.onnx``: which registry ops have an ONNX lowering.

Prints the ops with a lowering and those without (an export of a Program that
uses one of those fails, naming it); control-flow ops (``cond``, ``while``)
are registry ops and are listed like the others.
"""
from ..ops import registry


def coverage():
    """(sorted op types with a lowering, sorted registry ops without one)."""
    ops = registry.all_ops()
    have = sorted(n for n, op in ops.items() if op.onnx is not None)
    missing = sorted(n for n, op in ops.items() if op.onnx is None)
    return have, missing


def main():
    have, missing = coverage()
    print('with an ONNX lowering (%d):\n  %s' % (len(have), ' '.join(have)))
    print('without one (%d):\n  %s' % (len(missing), ' '.join(missing)))


if __name__ == '__main__':
    main()
