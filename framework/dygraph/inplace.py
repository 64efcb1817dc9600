"""In-place Tensor methods (``x.add_(y)``, ``x += y``).

Each computes the out-of-place op and makes the tensor take over the result:
the data array is replaced (arrays saved for backward are never mutated), the
version counter is bumped, and the tensor moves to the new grad node. The
tensor keeps its dtype unless the result is of another kind (see ``_same_kind``). While a
program is built (an eager parameter or buffer updated inside ``@to_static``)
the result is a Variable, and the update is written into the tensor's
variable instead (the program updates the tensor when it runs).
"""
from ..ops import tensor_methods
from .tensor import Tensor

_KIND_GROUP = {'b': 'b', 'i': 'i', 'u': 'i', 'f': 'f', 'c': 'c'}


def _same_kind(a, b):
    """Paddle's rule for the dtype an in-place result leaves: within a kind
    (float, integer, bool, complex) the tensor keeps its dtype (``x.add_(y)``
    on float32 stays float32); a result of another kind replaces it, as
    ``x.equal_(y)`` gives a bool tensor and ``exp_`` of an integer tensor a
    float one."""
    return a == b or _KIND_GROUP.get(a.kind) == _KIND_GROUP.get(b.kind)


def _make(name, base):
    def method(self, *args, **kwargs):
        result = tensor_methods.inplace_base(type(self), base)(self, *args, **kwargs)
        if not isinstance(result, Tensor):
            result._write_captured(self)
            return self
        self._check_inplace(name)
        if name in tensor_methods.SHAPE_CHANGING:
            return self._become_any(result)
        return self._become(result, keep_dtype=_same_kind(self.data.dtype, result.data.dtype))
    method.__name__ = name
    method.__doc__ = "In-place version of ``%s`` (bumps the version counter)." % getattr(
        base, '__name__', base)
    return method


def install(cls):
    tensor_methods.install_inplace(cls, _make)
