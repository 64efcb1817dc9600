"""``DenseTensor`` (also ``LoDTensor``): Paddle's handle on the values behind
a tensor or a scope variable, as ``Tensor.get_tensor()`` and
``scope.find_var(name).get_tensor()`` return it.

The handle reads and writes its owner's values through two functions, so
``t.get_tensor().set(array, place)`` changes ``t`` itself (as in Paddle). Made
on its own (``core.DenseTensor()``), it holds its values itself.
"""
import numpy as np

from .place import cpu_place


class VarKind(str):
    """What ``x.type`` is (Paddle's ``core.VarDesc.VarType.DENSE_TENSOR``):
    equal to its name, printed as Paddle prints the enum."""
    __slots__ = ()

    def __repr__(self):
        return 'VarType.' + str.__str__(self)

    __str__ = __repr__


DENSE_TENSOR_KIND = VarKind('DENSE_TENSOR')
LOD_TENSOR_KIND = VarKind('LOD_TENSOR')


class DenseTensor:
    """A handle on an array: ``set``, ``shape()``, ``np.array(handle)``."""

    def __init__(self, read=None, write=None):
        if (read is None) != (write is None):
            raise ValueError("DenseTensor: give both read and write, or neither")
        if read is None:
            held = [None]
            read, write = (lambda: held[0]), (lambda a: held.__setitem__(0, a))
        self._read = read
        self._write = write

    def set(self, array, place=None):
        """Replace the values (shape and dtype follow ``array``)."""
        self._write(np.array(array, copy=True))

    def _values(self):
        a = self._read()
        if a is None:
            raise RuntimeError("DenseTensor: the tensor holds no values yet; call set() first")
        return a

    def __array__(self, dtype=None, copy=None):
        a = self._values()
        return a if dtype is None else a.astype(dtype)

    def shape(self):
        return list(np.shape(self._values()))

    def _dtype(self):
        return self._values().dtype

    def _numel(self):
        return int(np.size(self._values()))

    def _is_initialized(self):
        return self._read() is not None

    def _place(self):
        return cpu_place()

    def lod(self):
        """Level-of-detail offsets: none (this framework has no LoD tensors)."""
        return []

    def __repr__(self):
        if not self._is_initialized():
            return 'DenseTensor(uninitialized)'
        a = self._values()
        return 'DenseTensor(shape=%s, dtype=%s)\n%s' % (list(a.shape), a.dtype, a)

    def __str__(self):
        """Paddle's print of a DenseTensor: shape, layout, place, dtype and the
        values flattened as C++ streams them (6 significant digits, bools 1/0)."""
        if not self._is_initialized():
            return 'DenseTensor(uninitialized)'
        a = self._values()
        flat = a.reshape(-1)
        if a.dtype.kind == 'f':
            values = ['%g' % v for v in flat]
        else:
            values = [str(int(v)) if a.dtype.kind == 'b' else str(v) for v in flat]
        return ('  - shape: %s\n  - layout: NCHW\n  - place: Place(cpu)\n  - dtype: %s\n'
                '  - data: [%s]' % (list(a.shape), _dtype_name(a.dtype), ' '.join(values)))


def _dtype_name(dtype):
    return 'bfloat16' if dtype.name == 'bfloat16' else np.dtype(dtype).name


LoDTensor = DenseTensor
