"""``paddle.MmapStorage``: the bytes of a file mapped into memory, read out
as tensors slice by slice (only the pages a slice touches are read)."""
import os

import numpy as np

from . import dtype as _dt


class MmapStorage:
    """The first ``nbytes`` bytes of ``filename``, memory-mapped read-only."""

    def __init__(self, filename, nbytes):
        if not os.path.isfile(filename):
            raise FileNotFoundError("MmapStorage: no such file: %r" % (filename,))
        size = os.path.getsize(filename)
        if isinstance(nbytes, bool) or int(nbytes) != nbytes or not 0 < nbytes <= size:
            raise ValueError("MmapStorage: nbytes must be an integer in [1, %d] (the size of "
                             "%r), got %r" % (size, filename, nbytes))
        self.filename = filename
        self.nbytes = int(nbytes)
        self._map = np.memmap(filename, dtype=np.uint8, mode='r', shape=(self.nbytes,))

    def get_slice(self, dtype='uint8', start=0, stop=-1, step=1):
        """A 1-D tensor of the mapped bytes read as ``dtype``, elements
        ``start:stop:step`` of them (``stop=-1``: to the end). The values are
        copied out of the file."""
        from .dygraph.tensor import Tensor
        d = _dt.convert_dtype('uint8' if dtype is None else dtype)
        if self.nbytes % d.itemsize:
            raise ValueError("MmapStorage.get_slice: %d mapped bytes are not a whole number of "
                             "%s elements (%d bytes each)" % (self.nbytes, d, d.itemsize))
        if step <= 0:
            raise ValueError("MmapStorage.get_slice: step must be positive, got %r" % (step,))
        values = self._map.view(d)
        end = len(values) if stop == -1 else stop
        return Tensor(np.array(values[start:end:step]))

    def __repr__(self):
        return 'MmapStorage(filename=%r, nbytes=%d)' % (self.filename, self.nbytes)
