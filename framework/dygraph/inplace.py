"""In-place Tensor methods (``x.add_(y)``, ``x += y``).

Each computes the out-of-place op and makes the tensor take over the result:
the data array is replaced (arrays saved for backward are never mutated), the
version counter is bumped, and the tensor moves to the new grad node. While a
program is built (an eager parameter or buffer updated inside ``@to_static``)
the result is a Variable, and the update is written into the tensor's
variable instead (the program updates the tensor when it runs).
"""
from ..ops import tensor_methods
from .tensor import Tensor


def _make(name, base):
    def method(self, *args, **kwargs):
        result = getattr(type(self), base)(self, *args, **kwargs)
        if not isinstance(result, Tensor):
            result._write_captured(self)
            return self
        self._check_inplace(name)
        if name in tensor_methods.SHAPE_CHANGING:
            return self._become_any(result)
        return self._become(result)
    method.__name__ = name
    method.__doc__ = "In-place version of ``%s`` (bumps the version counter)." % base
    return method


def install(cls):
    tensor_methods.install_inplace(cls, _make)
