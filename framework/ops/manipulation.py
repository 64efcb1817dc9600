"""Shape and layout ops: reshape, transpose, concat, indexing, gather, ..."""
import numpy as np

from .. import dtype as _dt
from . import meta
from .registry import Meta, OpError, add_test_case, def_op


def _cast_meta(x, dtype):
    return Meta(meta.shape_of(x), dtype)


@def_op('cast', _cast_meta, save_inputs=False)
def cast_op(x, dtype='float32'):
    return x.astype(dtype, copy=False) if isinstance(x, np.ndarray) else np.asarray(x, dtype)


@cast_op.def_grad
def _cast_grad(g, x, out, dtype):
    if np.dtype(x.dtype).kind not in 'fc':
        return None
    return cast_op(g, str(np.dtype(x.dtype)))


@cast_op.def_fast_grad
def _cast_fast(g, x, out, dtype):
    return g.astype(x.dtype, copy=False) if x.dtype.kind in 'fc' else None


def cast(x, dtype):
    """``x`` converted to ``dtype`` (differentiable between float dtypes)."""
    return cast_op(x, str(_dt.convert_dtype(dtype)))


__all__ = ['cast']

TENSOR_METHODS = {
    'cast': cast,
    'astype': cast,
}

add_test_case(cast_op, np.arange(6.0).reshape(2, 3), 'float64', ref=lambda x, d: x.astype(d))
add_test_case(cast_op, np.arange(6.0).reshape(2, 3), 'float32', ref=lambda x, d: x.astype(d),
              grad=False)
add_test_case(cast_op, np.arange(6.0).reshape(2, 3), 'int32', ref=lambda x, d: x.astype(d))
