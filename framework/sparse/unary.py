"""Sparse ops that map each stored value on its own (zero stays zero, so the
pattern is kept): the dense op applied to ``values``."""
from ..ops import elementwise, math, nn
from .tensor import SparseTensor


def _check(x, api):
    if not isinstance(x, SparseTensor):
        raise TypeError("paddle.sparse.%s: x must be a sparse (COO or CSR) tensor, got %s"
                        % (api, type(x).__name__))


def _value_op(api, dense_op):
    def op(x, name=None):
        _check(x, api)
        return x._with_values(dense_op(x.values()))
    op.__name__ = api
    op.__doc__ = "``%s`` of each stored value (the pattern is kept)." % api
    return op


_DENSE = {name: getattr(math, name) for name in (
    'sin', 'tan', 'asin', 'atan', 'sinh', 'tanh', 'sqrt', 'square', 'log1p', 'abs', 'neg',
    'isnan')}
_DENSE.update({name: getattr(elementwise, name) for name in (
    'asinh', 'atanh', 'expm1', 'rad2deg', 'deg2rad')})
globals().update({api: _value_op(api, fn) for api, fn in _DENSE.items()})


def pow(x, factor, name=None):  # noqa: A001  (Paddle's name)
    """``x ** factor`` for each stored value."""
    _check(x, 'pow')
    return x._with_values(math.pow(x.values(), factor))


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """The tensor with its indices in ``index_dtype`` and values in ``value_dtype``
    (None keeps each)."""
    _check(x, 'cast')
    out = x._with_values(x.values() if value_dtype is None else x.values().astype(value_dtype))
    if index_dtype is not None:
        from .. import dtype as _dt
        d = _dt.convert_dtype(index_dtype)
        if d.kind not in 'iu':
            raise TypeError("paddle.sparse.cast: index_dtype must be an integer dtype, got %s"
                            % d)
        if x.format == 'coo':
            out._indices = out._indices.astype(d)
        else:
            out._crows, out._cols = out._crows.astype(d), out._cols.astype(d)
    return out


def relu(x, name=None):
    _check(x, 'relu')
    return x._with_values(nn.relu(x.values()))


def relu6(x, name=None):
    _check(x, 'relu6')
    return x._with_values(nn.relu6(x.values()))


def leaky_relu(x, negative_slope=0.01, name=None):
    _check(x, 'leaky_relu')
    return x._with_values(nn.leaky_relu(x.values(), negative_slope))


__all__ = sorted(_DENSE) + ['pow', 'cast']
