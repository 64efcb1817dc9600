"""InputSpec: the shape/dtype/name of a program input (``None`` dims = any size)."""
import numpy as np

from .. import dtype as _dt


class InputSpec:
    def __init__(self, shape, dtype='float32', name=None, stop_gradient=False):
        if shape is None:
            raise ValueError("InputSpec needs a shape (use None for unknown dims)")
        if isinstance(shape, int):
            shape = [shape]
        self.shape = tuple(-1 if s is None else int(s) for s in shape)
        self.dtype = _dt.convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, 'name', None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(ndarray.shape, ndarray.dtype, name)

    # batch/unbatch change the spec itself and return it, as Paddle's
    def batch(self, batch_size):
        """Prepend a batch dim of ``batch_size`` (None or -1: unknown)."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError("InputSpec.batch: batch_size must be an int or a list of one "
                                 "int, got %r" % (batch_size,))
            batch_size = batch_size[0]
        if batch_size is not None and not isinstance(batch_size, int):
            raise TypeError("InputSpec.batch: batch_size must be an int, got %s"
                            % type(batch_size).__name__)
        self.shape = (-1 if batch_size is None else batch_size,) + tuple(self.shape)
        return self

    def unbatch(self):
        """Drop the leading (batch) dim."""
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the spec is 0-D, it has no batch dim")
        self.shape = tuple(self.shape[1:])
        return self

    def _key(self):
        return (self.shape, str(self.dtype))

    def __eq__(self, other):
        return (isinstance(other, InputSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, str(self.dtype), self.name))

    def __repr__(self):
        # Paddle's text: unknown dims as -1, the dtype as paddle.<name>
        return 'InputSpec(shape=%s, dtype=paddle.%s, name=%s, stop_gradient=%s)' % (
            tuple(-1 if s is None else s for s in self.shape), np.dtype(self.dtype),
            self.name, self.stop_gradient)
