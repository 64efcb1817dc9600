"""Kernel backends: bindings of native libraries the ops' second kernels run on.

Each backend is one package that knows its library and nothing of the ops:
``onednn/`` (Intel's oneDNN, the ``[onednn]`` extra). The ops declare their
kernels for a backend beside their numpy kernels
(``OpDef.def_kernel('onednn')``) and call the package's primitives;
``ops/backends.py`` chooses the backend that runs.
"""
import math


class Opaque:
    """A tensor value held in a backend's own memory layout (oneDNN's blocked
    ones), which only that backend's layout kernels read. A static plan
    passes such values between consecutive backend ops
    (``graph/passes/layout.py``); anything else gets ``plain()`` first.
    ``shape`` and ``dtype`` are the logical tensor's."""
    __slots__ = ()
    shape = dtype = None

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    def plain(self):
        """The value as a C-contiguous numpy array (a copy)."""
        raise NotImplementedError


def plain(value):
    """``value`` with every ``Opaque`` in it (a list's items too) made a numpy array."""
    if isinstance(value, Opaque):
        return value.plain()
    if isinstance(value, list) and any(isinstance(v, Opaque) for v in value):
        return [plain(v) for v in value]
    return value
