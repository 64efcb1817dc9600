"""In-place Tensor methods (``x.add_(y)``, ``x += y``).

Each computes the out-of-place op and makes the tensor take over the result:
the data array is replaced (arrays saved for backward are never mutated), the
version counter is bumped, and the tensor moves to the new grad node.
"""
from ..ops import tensor_methods

# method name -> name of the out-of-place method it updates from
INPLACE = {
    'add_': 'add', 'subtract_': 'subtract', 'multiply_': 'multiply',
    'divide_': 'divide', 'scale_': 'scale', 'clip_': 'clip', 'exp_': 'exp',
    'sqrt_': 'sqrt', 'rsqrt_': 'rsqrt', 'tanh_': 'tanh', 'reciprocal_': 'reciprocal',
    'floor_': 'floor', 'ceil_': 'ceil', 'round_': 'round', 'abs_': 'abs',
    'neg_': 'neg', 'pow_': 'pow', 'remainder_': 'remainder', 'square_': 'square',
    'sigmoid_': 'sigmoid', 'relu_': 'relu', 'log_': 'log',
    'squeeze_': 'squeeze', 'unsqueeze_': 'unsqueeze', 'flatten_': 'flatten',
    'reshape_': 'reshape', 'masked_fill_': 'masked_fill', 'cast_': 'cast',
    'uniform_': 'uniform_like', 'normal_': 'normal_like',
    '__iadd__': '__add__', '__isub__': '__sub__', '__imul__': '__mul__',
    '__itruediv__': '__truediv__', '__ipow__': '__pow__', '__imod__': '__mod__',
    '__ifloordiv__': '__floordiv__',
}

_SHAPE_CHANGING = {'squeeze_', 'unsqueeze_', 'flatten_', 'reshape_', 'cast_'}


def _make(name, base):
    def method(self, *args, **kwargs):
        self._check_inplace(name)
        fn = getattr(type(self), base)
        result = fn(self, *args, **kwargs)
        if name in _SHAPE_CHANGING:
            return self._become_any(result)
        return self._become(result)
    method.__name__ = name
    method.__doc__ = "In-place version of ``%s`` (bumps the version counter)." % base
    return method


def install(cls):
    available = set(tensor_methods.methods()) | set(tensor_methods.operators())
    for name, base in INPLACE.items():
        if base in available:
            setattr(cls, name, _make(name, base))
