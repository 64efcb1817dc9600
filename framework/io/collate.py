"""Turning a list of samples into a batch.

``default_collate_fn`` follows Paddle: numpy arrays and numbers are stacked into
numpy arrays, Tensors into a Tensor, strings stay a list, and dicts / tuples /
lists are collated field by field (sequences become lists). The DataLoader then
turns every numeric numpy array in the result into a framework Tensor
(``to_tensors``).
"""
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..dygraph import Tensor
from ..dygraph.tensor import wrap_array

__all__ = ['default_collate_fn', 'default_convert_fn']


def _stack(arrays, what):
    try:
        return np.stack(arrays, axis=0)
    except ValueError:
        shapes = sorted({tuple(a.shape) for a in arrays})
        raise ValueError("default_collate_fn: cannot stack the %s of a batch: they have "
                         "different shapes %s; pad them to one shape or pass a collate_fn"
                         % (what, [list(s) for s in shapes])) from None


def _collate(batch, fresh):
    """Collate ``batch``; Tensors become fresh stacked numpy arrays when ``fresh``."""
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return _stack(batch, 'numpy arrays')
    if isinstance(sample, Tensor):
        stacked = _stack([t.data for t in batch], 'tensors')
        return stacked if fresh else Tensor(stacked)
    if isinstance(sample, numbers.Number):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, Mapping):
        return {key: _collate([d[key] for d in batch], fresh) for key in sample}
    if isinstance(sample, Sequence):
        n = len(sample)
        if any(len(s) != n for s in batch):
            raise RuntimeError("default_collate_fn: the samples of a batch have different "
                               "numbers of fields: %s" % sorted({len(s) for s in batch}))
        return [_collate(list(fields), fresh) for fields in zip(*batch)]
    raise TypeError("default_collate_fn: a batch may contain numpy arrays, Tensors, numbers, "
                    "strings, dicts, lists and tuples, but found %s" % type(sample).__name__)


def default_collate_fn(batch):
    """Stack a list of samples into one batch (numpy arrays; Tensors stay Tensors)."""
    return _collate(batch, fresh=False)


def default_convert_fn(batch):
    """Used when automatic batching is off (``batch_size=None``): keep the sample's
    structure, only turning tuples into lists."""
    if isinstance(batch, (Tensor, np.ndarray, str, bytes)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(v) for key, v in batch.items()}
    if isinstance(batch, Sequence):
        return [default_convert_fn(v) for v in batch]
    return batch


def _is_numeric(arr):
    return arr.dtype.kind in 'biufc'


def to_tensors(data, copy):
    """Replace every numeric numpy array (and numpy scalar) in ``data`` by a Tensor.

    ``copy=False`` is for arrays the collate step has just made, which nobody else
    holds; arrays that may be shared with the user's dataset are copied, as
    ``framework.to_tensor`` does.
    """
    if isinstance(data, np.ndarray):
        if not _is_numeric(data):
            return data
        return wrap_array(data) if not copy else Tensor(data)
    if isinstance(data, np.generic) and _is_numeric(np.asarray(data)):
        return wrap_array(np.asarray(data))
    if isinstance(data, Tensor) or isinstance(data, (str, bytes)):
        return data
    if isinstance(data, Mapping):
        return {k: to_tensors(v, copy) for k, v in data.items()}
    if isinstance(data, list):
        return [to_tensors(v, copy) for v in data]
    if isinstance(data, tuple):
        return tuple(to_tensors(v, copy) for v in data)
    return data


def collate_to_tensors(batch):
    """The DataLoader's default: ``default_collate_fn`` with Tensors built in place."""
    return to_tensors(_collate(batch, fresh=True), copy=False)
