"""``infer_meta`` on symbolic dims (``ops/meta.py``: ``Sym``), checked against
every op's kernel on its test cases.

The passes learn which values have equal run-time shapes by running the ops'
own ``infer_meta`` on named unknown dims (``ShapeClasses``). That is sound
only if an ``infer_meta`` that returns an input's dim for an output dim
really means "the same size": here every input dim of a case is made a named
unknown, and each named output dim must have, in the kernel's real output,
the size the named input dim has.
"""
import numpy as np
import pytest

import framework  # noqa: F401  (registers every op)
from framework.ops import registry
from framework.ops.meta import Sym, broadcast_shapes, same_dim

KERNEL_OPS = {n: op for n, op in registry.all_ops().items() if not op.sub_blocks}
CASES = [(name, k) for name, op in sorted(KERNEL_OPS.items()) for k in range(len(op.test_cases))]


def _symbolic(op, args):
    """Metas with every dim a named unknown, and each name's real size."""
    sizes = {}

    def meta(a, where):
        dims = []
        for d, n in enumerate(np.shape(a)):
            name = where + (d,)
            sizes[name] = n
            dims.append(Sym(name))
        return registry.Meta(dims, np.asarray(a).dtype)
    metas = []
    for i in range(op.n_in):
        a = args[i]
        if op.variadic[i]:
            metas.append([meta(v, (i, j)) for j, v in enumerate(a)])
        elif isinstance(a, np.ndarray):
            metas.append(meta(a, (i,)))
        else:
            metas.append(a)
    return metas, sizes


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


@pytest.mark.parametrize('name,k', CASES)
def test_named_output_dims_have_the_named_input_sizes(name, k):
    op = registry.lookup(name)
    args, _ = op.test_cases[k]
    metas, sizes = _symbolic(op, args)
    try:
        inferred = _outputs(op.infer_meta(*metas, *args[op.n_in:]))
    except Exception:      # noqa: BLE001 - an op may need known dims to say anything
        pytest.skip('infer_meta needs known dims')
    framework.seed(1)
    real = _outputs(op.kernel(*[([np.array(v) for v in a] if i < op.n_in and op.variadic[i]
                                 else np.array(a) if isinstance(a, np.ndarray) else a)
                                for i, a in enumerate(args)]))
    for m, out in zip(inferred, real):
        if isinstance(out, (list, tuple)) or len(m.shape) != np.ndim(out):
            # (squeeze of an axis of unknown size guesses the rank, as Paddle's
            # build-time rule does: the program's declared shapes say so too)
            continue
        for d, (dim, size) in enumerate(zip(m.shape, np.shape(out))):
            if isinstance(dim, Sym):
                assert dim.name in sizes, "op %s: output dim %d names no input dim" % (name, d)
                assert sizes[dim.name] == size, (
                    "op %s: infer_meta says output dim %d is input dim %s (size %d), the "
                    "kernel makes it %d: return -1 for a dim of another size"
                    % (name, d, dim.name, sizes[dim.name], size))


def test_symbols_compare_as_unknown_dims():
    a, b = Sym('a'), Sym('b')
    assert a == -1 and a < 0 and not a >= 0 and a + 1 == 0
    assert same_dim(a, Sym('a')) and not same_dim(a, b) and not same_dim(a, -1)
    assert same_dim(3, 3) and not same_dim(-1, -1)


def test_broadcasting_keeps_a_name_only_where_it_is_provably_the_result():
    a, b = Sym('a'), Sym('b')
    out = broadcast_shapes((a, 1, a, a, 4), (a, b, b, -1, a))
    assert [type(d) for d in out[:2]] == [Sym, Sym] and out[0].name == 'a' and out[1].name == 'b'
    assert not isinstance(out[2], Sym) and out[2] == -1     # a vs b: either may be 1
    assert not isinstance(out[3], Sym) and out[3] == -1     # a vs an anonymous unknown
    assert out[4] == 4                                       # a must be 1 or 4


def test_reshape_infers_the_unknown_dim_it_keeps():
    from framework.ops.manipulation import _reshape_shape
    s = Sym('batch')
    out = _reshape_shape((s, 3, 4), (-1, 12))
    assert isinstance(out[0], Sym) and out[0].name == 'batch'
    out = _reshape_shape((s, 3, 4), (-1, 6))
    assert not isinstance(out[0], Sym)                       # 2 * batch: another size
    out = _reshape_shape((s, 3, 4), (0, -1))
    assert isinstance(out[0], Sym) and out[1] == 12
