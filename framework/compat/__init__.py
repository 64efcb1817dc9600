"""``paddle.compat``: PyTorch's spellings and semantics of some functions
(Paddle 3.3.1's compat set), and ``enable_compat`` / ``disable_compat``, which
make ``import torch`` give this framework.

>>> import framework as paddle
>>> x = paddle.to_tensor([[3., 1., 2.], [0., 5., 4.]])
>>> paddle.compat.max(x, dim=1).indices.numpy().tolist()
[0, 1]
>>> [t.shape[0] for t in paddle.compat.split(paddle.arange(5), 2)]
[2, 2, 1]
"""
import collections
import random as _random

from ..ops import compare as _compare, linalg_api as _linalg, manipulation as _manip
from ..ops import math as _math, reduce as _reduce, sets as _sets, stat as _stat
from ..random import seed as _set_seed
from . import nn  # noqa: F401
from .proxy import (disable_torch_proxy, enable_torch_proxy,  # noqa: F401
                    extend_torch_proxy_blocked_modules, use_torch_proxy_guard)

SortRetType = collections.namedtuple('SortRetType', ['values', 'indices'])
MinMaxRetType = collections.namedtuple('MinMaxRetType', ['values', 'indices'])
MedianRetType = collections.namedtuple('MedianRetType', ['values', 'indices'])
SlogdetResult = collections.namedtuple('SlogdetResult', ['sign', 'logabsdet'])


def sort(input, dim=-1, descending=False, stable=False, out=None):  # noqa: A002
    """(values, indices) of ``input`` sorted along ``dim``."""
    values, indices = _manip.sort(input, dim, descending, stable), \
        _manip.argsort(input, dim, descending, stable)
    return SortRetType(values, indices)


def _min_max(name, reduce_fn, arg_fn, binary_fn):
    def fn(input, *args, out=None, **kwargs):  # noqa: A002
        dim = kwargs.pop('dim', args[0] if args else None)
        keepdim = kwargs.pop('keepdim', args[1] if len(args) > 1 else False)
        if kwargs:
            raise TypeError("compat.%s: unexpected arguments %s" % (name, sorted(kwargs)))
        if dim is None:
            return reduce_fn(input)
        if not isinstance(dim, int):          # max(a, b): elementwise
            return binary_fn(input, dim)
        return MinMaxRetType(reduce_fn(input, dim, keepdim), arg_fn(input, dim, keepdim))
    fn.__name__ = name
    fn.__doc__ = ("PyTorch's %s: of everything (a 0-d tensor), along ``dim`` ((values, "
                  "indices)), or of two tensors elementwise." % name)
    return fn


max = _min_max('max', _reduce.max, _reduce.argmax, _math.maximum)  # noqa: A001
min = _min_max('min', _reduce.min, _reduce.argmin, _math.minimum)  # noqa: A001


def median(input, dim=None, keepdim=False, *, out=None):  # noqa: A002
    """PyTorch's median: the lower of the two middle values; along ``dim``
    (values, indices)."""
    if dim is None:
        return _stat.median(input, mode='min')
    return MedianRetType(*_stat.median(input, dim, keepdim, mode='min'))


def nanmedian(input, dim=None, keepdim=False, *, out=None):  # noqa: A002
    """``median`` ignoring NaNs."""
    if dim is None:
        return _stat.nanmedian(input, mode='min')
    return MedianRetType(*_stat.nanmedian(input, dim, keepdim, mode='min'))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """PyTorch's unique (the extra results only when asked for)."""
    return _sets.unique(input, return_inverse=return_inverse, return_counts=return_counts,
                         axis=dim, sorted=sorted)


def split(tensor, split_size_or_sections, dim=0):
    """PyTorch's split: an int is the size of each piece (the last may be
    smaller), a list the sizes of the pieces."""
    if isinstance(split_size_or_sections, int):
        n = tensor.shape[dim]
        size = split_size_or_sections
        if size <= 0:
            raise ValueError("compat.split: split_size must be positive, got %d" % size)
        sections = [size] * (n // size) + ([n % size] if n % size else [])
    else:
        sections = list(split_size_or_sections)
    return tuple(_manip.split(tensor, sections, dim))


def slogdet(A):
    """(sign, log|det|) as a named tuple."""
    both = _linalg.slogdet(A)
    return SlogdetResult(both[0], both[1])


def equal(input, other):  # noqa: A002
    """True when both tensors have one shape and equal values."""
    return list(input.shape) == list(other.shape) and bool(_compare.equal_all(input, other))


def seed():
    """Seed the generator with a fresh random seed and return it (torch.seed)."""
    s = _random.SystemRandom().randrange(2 ** 63)
    _set_seed(s)
    return s


__all__ = ['sort', 'max', 'min', 'median', 'nanmedian', 'unique', 'split', 'slogdet', 'equal',
           'seed', 'nn', 'enable_torch_proxy', 'disable_torch_proxy', 'use_torch_proxy_guard',
           'extend_torch_proxy_blocked_modules']
