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

    def batch(self, batch_size):
        return InputSpec((batch_size,) + self.shape, self.dtype, self.name)

    def unbatch(self):
        if not self.shape:
            raise ValueError("unbatch() of a 0-D InputSpec")
        return InputSpec(self.shape[1:], self.dtype, self.name)

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
