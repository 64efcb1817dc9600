"""``DataLoader.from_generator``: batches from a Python generator (Paddle 1.x's
loader, still in ``paddle.io``). A sample generator yields one sample (a tuple
of fields) at a time, a sample-list generator a list of samples, a batch
generator whole batches; every batch comes out as one tensor per field."""
import numpy as np

from .. import dtype as _dt


def _field_array(values):
    arr = np.asarray(values.numpy() if hasattr(values, 'numpy') else values)
    if arr.dtype == np.float64 and not isinstance(values, np.ndarray):
        arr = arr.astype(_dt.default_float())
    elif arr.dtype.kind in 'iu' and arr.dtype != np.int64 and not isinstance(values, np.ndarray):
        arr = arr.astype(np.int64)
    if arr.dtype == object:
        raise TypeError("DataLoader.from_generator: a field of the batch has samples of "
                        "different shapes (%s); pad them to one shape" % type(values).__name__)
    return arr


class GeneratorLoader:
    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=True, drop_last=True):
        self._feed_names = [getattr(v, 'name', v) for v in (feed_list or [])]
        self._return_list = return_list
        self._batches = None

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        """``reader()`` yields samples; they are grouped into ``batch_size``."""
        def batches():
            batch = []
            for sample in reader():
                batch.append(sample)
                if len(batch) == batch_size:
                    yield batch
                    batch = []
            if batch and not drop_last:
                yield batch
        return self.set_sample_list_generator(batches, places)

    def set_sample_list_generator(self, reader, places=None):
        """``reader()`` yields lists of samples (one list per batch)."""
        def batches():
            for samples in reader():
                samples = [s if isinstance(s, (list, tuple)) else (s,) for s in samples]
                yield [_field_array([s[k] for s in samples]) for k in range(len(samples[0]))]
        self._batches = batches
        return self

    def set_batch_generator(self, reader, places=None):
        """``reader()`` yields whole batches (one array per field)."""
        def batches():
            for batch in reader():
                batch = batch if isinstance(batch, (list, tuple)) else [batch]
                yield [_field_array(f) for f in batch]
        self._batches = batches
        return self

    def __iter__(self):
        if self._batches is None:
            raise RuntimeError("DataLoader.from_generator: set a generator first "
                               "(set_sample_generator / set_sample_list_generator / "
                               "set_batch_generator)")
        from ..dygraph import Tensor
        for fields in self._batches():
            if self._return_list or not self._feed_names:
                yield [Tensor(f) for f in fields]
            else:
                if len(fields) != len(self._feed_names):
                    raise ValueError("DataLoader.from_generator: %d fields per batch but "
                                     "feed_list has %d variables" % (len(fields),
                                                                     len(self._feed_names)))
                yield dict(zip(self._feed_names, fields))

    def __call__(self):
        return iter(self)
