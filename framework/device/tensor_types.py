"""Typed tensor constructors (``paddle.device.FloatTensor([1, 2])``, PyTorch's
spelling): a list gives a tensor of that data, integers a shape (uninitialised
values, as ``paddle.empty``), nothing an empty 1-D tensor."""
from ..dygraph import Tensor
from ..ops.creation import empty, to_tensor


def _factory(name, dtype):
    def __new__(cls, *args, **kwargs):
        if not args:
            return empty([0], dtype=dtype)
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            return to_tensor(list(args[0]), dtype=dtype)
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return empty(list(args), dtype=dtype)
        kwargs.setdefault('dtype', dtype)
        return Tensor(*args, **kwargs)
    return type(name, (), {'__new__': __new__, '__doc__':
                           "Make a %s tensor from a list, a shape or nothing." % dtype})


FloatTensor = _factory('FloatTensor', 'float32')
DoubleTensor = _factory('DoubleTensor', 'float64')
HalfTensor = _factory('HalfTensor', 'float16')
BFloat16Tensor = _factory('BFloat16Tensor', 'bfloat16')
ByteTensor = _factory('ByteTensor', 'uint8')
CharTensor = _factory('CharTensor', 'int8')
ShortTensor = _factory('ShortTensor', 'int16')
IntTensor = _factory('IntTensor', 'int32')
LongTensor = _factory('LongTensor', 'int64')
BoolTensor = _factory('BoolTensor', 'bool')
