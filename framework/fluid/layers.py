"""1.8 ``fluid.layers`` functions used by the seed examples, over the 2.x ops."""
import numpy as np

from ..nn import functional as F
from ..ops import creation as _c
from ..ops import manipulation as _m
from ..ops import math as _math
from ..ops import reduce as _r
from ..dy2static import convert_ops as _convert_ops
from ..graph.control_flow import cond, while_loop  # noqa: F401


def _act(x, act):
    if act is None:
        return x
    fn = getattr(F, act, None)
    if fn is None:
        raise ValueError("unknown activation %r" % act)
    return fn(x)


def reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None):
    return _act(_m.reshape(x, shape), act)


def ones(shape, dtype='float32', force_cpu=False):
    return _c.ones(shape, dtype)


def zeros(shape, dtype='float32', force_cpu=False):
    return _c.zeros(shape, dtype)


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    return _c.full(shape, value, dtype)


def relu(x, name=None):
    return F.relu(x)


def sigmoid(x, name=None):
    return F.sigmoid(x)


def tanh(x, name=None):
    return _math.tanh(x)


def softmax(input, use_cudnn=False, name=None, axis=-1):  # noqa: A002
    return F.softmax(input, axis=axis)


def cross_entropy(input, label, soft_label=False, ignore_index=-100):  # noqa: A002
    """1.8 semantics: ``input`` holds probabilities; returns per-sample loss [N, 1]."""
    loss = F.cross_entropy(input, label, soft_label=soft_label, ignore_index=ignore_index,
                           reduction='none', use_softmax=False)
    return loss if len(loss.shape) == 2 else _m.unsqueeze(loss, -1)


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               return_softmax=False, axis=-1):
    loss = F.cross_entropy(logits, label, soft_label=soft_label, ignore_index=ignore_index,
                           reduction='none', axis=axis)
    loss = loss if len(loss.shape) == len(logits.shape) else _m.unsqueeze(loss, axis)
    if return_softmax:
        return loss, F.softmax(logits, axis=axis)
    return loss


def mean(x, name=None):
    return _r.mean(x)


def reduce_sum(input, dim=None, keep_dim=False, name=None):  # noqa: A002
    return _r.sum(input, axis=dim, keepdim=keep_dim)


def reduce_mean(input, dim=None, keep_dim=False, name=None):  # noqa: A002
    return _r.mean(input, axis=dim, keepdim=keep_dim)


def reduce_max(input, dim=None, keep_dim=False, name=None):  # noqa: A002
    return _r.max(input, axis=dim, keepdim=keep_dim)


def accuracy(input, label, k=1, correct=None, total=None):  # noqa: A002
    """Top-k accuracy of ``input`` [N, C] against int labels [N, 1]."""
    _, idx = _m.topk(input, k)
    lab = _m.reshape(label, [-1, 1])
    hit = _math.equal(idx, _m.cast(lab, idx.dtype))
    return _r.mean(_m.cast(_r.any(hit, axis=1), 'float32'))


def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    out = _math.matmul(x, y, transpose_x, transpose_y)
    return out if alpha == 1.0 else out * alpha


def elementwise_add(x, y, axis=-1, act=None, name=None):
    return _act(_math.add(x, _align(x, y, axis)), act)


def elementwise_sub(x, y, axis=-1, act=None, name=None):
    return _act(_math.subtract(x, _align(x, y, axis)), act)


def elementwise_mul(x, y, axis=-1, act=None, name=None):
    return _act(_math.multiply(x, _align(x, y, axis)), act)


def elementwise_div(x, y, axis=-1, act=None, name=None):
    return _act(_math.divide(x, _align(x, y, axis)), act)


def _align(x, y, axis):
    """1.8 broadcasting: ``y``'s dims line up with ``x``'s starting at ``axis``."""
    if axis == -1 or not hasattr(y, 'shape') or len(y.shape) == len(x.shape):
        return y
    trailing = len(x.shape) - axis - len(y.shape)
    return _m.reshape(y, list(y.shape) + [1] * trailing) if trailing > 0 else y


def concat(input, axis=0, name=None):  # noqa: A002
    return _m.concat(input, axis)


def transpose(x, perm, name=None):
    return _m.transpose(x, perm)


def cast(x, dtype):
    return _m.cast(x, dtype)


def assign(input, output=None):  # noqa: A002
    return _m.assign(input)


def argmax(x, axis=0):
    return _r.argmax(x, axis=axis)


def topk(input, k, name=None):  # noqa: A002
    return _m.topk(input, k)


def square(x, name=None):
    return _math.square(x)


def sqrt(x, name=None):
    return _math.sqrt(x)


def exp(x, name=None):
    return _math.exp(x)


def log(x, name=None):
    return _math.log(x)


def abs(x, name=None):  # noqa: A001
    return _math.abs(x)


def dropout(x, dropout_prob, is_test=False, seed=None, name=None,
            dropout_implementation='downgrade_in_infer'):
    mode = 'downscale_in_infer' if dropout_implementation == 'downgrade_in_infer' \
        else 'upscale_in_train'
    return F.dropout(x, p=dropout_prob, training=not is_test, mode=mode)


def flatten(x, axis=1, name=None):
    shape = x.shape
    lead = int(np.prod(shape[:axis])) if all(s > 0 for s in shape[:axis]) else -1
    return _m.reshape(x, [lead, -1])


def squeeze(input, axes, name=None):  # noqa: A002
    return _m.squeeze(input, axes)


def unsqueeze(input, axes, name=None):  # noqa: A002
    return _m.unsqueeze(input, axes)


def stack(x, axis=0, name=None):
    return _m.stack(x, axis)


def split(input, num_or_sections, dim=-1, name=None):  # noqa: A002
    return _m.split(input, num_or_sections, dim)


def gather(input, index, overwrite=True):  # noqa: A002
    return _m.gather(input, index)


def less_than(x, y, force_cpu=None, cond=None):
    return _math.less_than(x, y)


def greater_than(x, y, cond=None):
    return _math.greater_than(x, y)


def equal(x, y, cond=None):
    return _math.equal(x, y)


def logical_and(x, y, out=None, name=None):
    return _math.logical_and(x, y)


def logical_not(x, out=None, name=None):
    return _math.logical_not(x)


def increment(x, value=1.0, in_place=True):
    return x + value


def sums(input, out=None):  # noqa: A002
    return _math.add_n(input)


def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None,  # noqa: A002
       name=None):
    """A fully connected layer in static mode (parameters in the startup program)."""
    from ..static.nn import fc as _fc
    return _fc(input, size, num_flatten_dims, param_attr, bias_attr, act, name)


def data(name, shape, append_batch_size=True, dtype='float32', lod_level=0, **kw):
    from ..static import data as _data
    shape = list(shape)
    if append_batch_size and (not shape or shape[0] not in (-1, None)):
        shape = [-1] + shape
    return _data(name, shape, dtype)


_convert_ops.array_aware(stack, concat)     # converted code passes them tensor arrays too
