"""Transforms of random variables: y = f(x) with inverse and log|det J|.

A transform's ``_domain``/``_codomain`` are ``variable.Variable`` objects;
their ``event_rank`` says how many rightmost dims form one event (0 for
elementwise transforms, 1 for softmax/stick-breaking, ...).
``forward_log_det_jacobian`` then has the input's shape without those dims.
"""
import enum
import math
import typing

from ..ops import math as _m
from ..ops import reduce as _r
from ..ops.creation import ones, zeros
from ..ops.grad_utils import is_value
from ..ops.manipulation import pad, reshape, stack, unstack
from ..ops.nn import log_sigmoid, softplus
from . import _math, constraint, variable

__all__ = ['Transform', 'AbsTransform', 'AffineTransform', 'ChainTransform', 'ExpTransform',
           'IndependentTransform', 'PowerTransform', 'ReshapeTransform', 'SigmoidTransform',
           'SoftmaxTransform', 'StackTransform', 'StickBreakingTransform', 'TanhTransform']


class Type(enum.Enum):
    """Mapping type of a transform."""
    BIJECTION = 'bijection'     # one-to-one and onto
    INJECTION = 'injection'     # one-to-one
    SURJECTION = 'surjection'   # onto
    OTHER = 'other'

    @classmethod
    def is_injective(cls, _type):
        return _type in (cls.BIJECTION, cls.INJECTION)


class Transform:
    """Base of transforms. Calling it on a tensor applies ``forward``, on a
    Distribution gives a ``TransformedDistribution``, on a Transform chains
    them (``t1(t2)`` applies t2 first... as Paddle: ``ChainTransform([t1, t2])``)."""
    _type = Type.INJECTION

    def __init__(self):
        super().__init__()

    @classmethod
    def _is_injective(cls):
        return Type.is_injective(cls._type)

    def __call__(self, input):  # noqa: A002  (Paddle's argument name)
        from .distribution import Distribution
        from .transformed_distribution import TransformedDistribution
        if isinstance(input, Distribution):
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _check_tensor(self, x, name, rank):
        if not is_value(x):
            raise TypeError("%s: expected '%s' is a Tensor, but got %s."
                            % (type(self).__name__, name, type(x)))
        if len(x.shape) < rank:
            raise ValueError("%s: the dimensions of %s (%d) should be grater than or equal "
                             "to %d" % (type(self).__name__, name, len(x.shape), rank))

    def forward(self, x):
        """y = f(x)."""
        self._check_tensor(x, 'x', self._domain.event_rank)
        return self._forward(x)

    def inverse(self, y):
        """x = f^-1(y)."""
        self._check_tensor(y, 'y', self._codomain.event_rank)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """log |det J_f(x)|."""
        self._check_tensor(x, 'x', self._domain.event_rank)
        if not self._is_injective():
            raise NotImplementedError(
                "%s: forward_log_det_jacobian is not defined for a transform that is not "
                "injective." % type(self).__name__)
        return self._call_forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        """log |det J_f^-1(y)| = -forward_log_det_jacobian(f^-1(y))."""
        self._check_tensor(y, 'y', self._codomain.event_rank)
        return self._call_inverse_log_det_jacobian(y)

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        if not isinstance(shape, typing.Sequence):
            raise TypeError("Expected shape is Sequence[int] type, but got %s." % type(shape))
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        if not isinstance(shape, typing.Sequence):
            raise TypeError("Expected shape is Sequence[int] type, but got %s." % type(shape))
        return self._inverse_shape(shape)

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real

    def _forward(self, x):
        raise NotImplementedError("%s does not define _forward" % type(self).__name__)

    def _inverse(self, y):
        raise NotImplementedError("%s does not define _inverse" % type(self).__name__)

    def _call_forward_log_det_jacobian(self, x):
        if hasattr(self, '_forward_log_det_jacobian'):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, '_inverse_log_det_jacobian'):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError("%s defines neither _forward_log_det_jacobian nor "
                                  "_inverse_log_det_jacobian" % type(self).__name__)

    def _call_inverse_log_det_jacobian(self, y):
        if hasattr(self, '_inverse_log_det_jacobian'):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, '_forward_log_det_jacobian'):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError("%s defines neither _forward_log_det_jacobian nor "
                                  "_inverse_log_det_jacobian" % type(self).__name__)

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """y = |x|. Not injective: ``inverse`` gives both preimages (-y, y)."""
    _type = Type.SURJECTION

    def _forward(self, x):
        return _m.abs(x)

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = zeros([], dtype=y.dtype)
        return zero, zero

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive


class AffineTransform(Transform):
    """y = loc + scale * x."""
    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        if not is_value(loc):
            raise TypeError("Expected 'loc' is a Tensor, but got %s" % type(loc))
        if not is_value(scale):
            raise TypeError("Expected scale is a Tensor, but got %s" % type(scale))
        self._loc = loc
        self._scale = scale
        super().__init__()

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return _m.log(_m.abs(self._scale))

    def _forward_shape(self, shape):
        return _math.broadcast_shape(_math.broadcast_shape(shape, self._loc.shape),
                                     self._scale.shape)

    def _inverse_shape(self, shape):
        return self._forward_shape(shape)

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real


class ChainTransform(Transform):
    """The composition: ``transforms[0]`` first."""

    def __init__(self, transforms):
        if not isinstance(transforms, typing.Sequence):
            raise TypeError("Expected type of 'transforms' is Sequence, but got %s"
                            % type(transforms))
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All elements of transforms should be Transform type.")
        self.transforms = transforms
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        event_rank = self._domain.event_rank
        for t in self.transforms:
            value = value + _math.sum_rightmost(t.forward_log_det_jacobian(x),
                                                event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape

    def _sum_rightmost(self, value, n):
        return _math.sum_rightmost(value, n)

    @property
    def _domain(self):
        domain = self.transforms[0]._domain
        event_rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            event_rank -= t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._domain.event_rank)
        return variable.Independent(domain, event_rank - domain.event_rank)

    @property
    def _codomain(self):
        codomain = self.transforms[-1]._codomain
        event_rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            event_rank += t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._codomain.event_rank)
        return variable.Independent(codomain, event_rank - codomain.event_rank)


class ExpTransform(Transform):
    """y = exp(x)."""
    _type = Type.BIJECTION

    def __init__(self):
        super().__init__()

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return _m.exp(x)

    def _inverse(self, y):
        return _m.log(y)

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    """``base`` with its rightmost ``reinterpreted_batch_rank`` batch dims
    treated as event dims (their log-det-Jacobians are summed)."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError("Expected 'base' is Transform type, but get %s" % type(base))
        if reinterpreted_batch_rank <= 0:
            raise ValueError("Expected 'reinterpreted_batch_rank' is grater than zero, but got "
                             "%s" % reinterpreted_batch_rank)
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self._base._is_injective()

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return _math.sum_rightmost(self._base.forward_log_det_jacobian(x),
                                   self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)


class PowerTransform(Transform):
    """y = x ** power (on x > 0)."""
    _type = Type.BIJECTION

    def __init__(self, power):
        if not is_value(power):
            raise TypeError("Expected 'power' is a tensor, but got %s" % type(power))
        self._power = power
        super().__init__()

    @property
    def power(self):
        return self._power

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return _m.pow(x, self._power)

    def _inverse(self, y):
        return _m.pow(y, 1.0 / self._power)

    def _forward_log_det_jacobian(self, x):
        return _m.log(_m.abs(self._power * _m.pow(x, self._power - 1.0)))

    def _forward_shape(self, shape):
        return _math.broadcast_shape(shape, self._power.shape)

    def _inverse_shape(self, shape):
        return _math.broadcast_shape(shape, self._power.shape)


class ReshapeTransform(Transform):
    """Reshapes the event part of x from ``in_event_shape`` to ``out_event_shape``."""
    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, typing.Sequence) or not isinstance(
                out_event_shape, typing.Sequence):
            raise TypeError("Expected type of 'in_event_shape' and 'out_event_shape' is "
                            "Sequence[int], but got 'in_event_shape': %s, 'out_event_shape': %s"
                            % (in_event_shape, out_event_shape))
        n_in, n_out = math.prod(in_event_shape), math.prod(out_event_shape)
        if n_in != n_out:
            raise ValueError("The numel of 'in_event_shape' should be 'out_event_shape', but "
                             "got %d!=%d" % (n_in, n_out))
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        return self._in_event_shape

    @property
    def out_event_shape(self):
        return self._out_event_shape

    @property
    def _domain(self):
        return variable.Independent(variable.real, len(self._in_event_shape))

    @property
    def _codomain(self):
        return variable.Independent(variable.real, len(self._out_event_shape))

    def _forward(self, x):
        lead = list(x.shape[:len(x.shape) - len(self._in_event_shape)])
        return reshape(x, lead + list(self._out_event_shape))

    def _inverse(self, y):
        lead = list(y.shape[:len(y.shape) - len(self._out_event_shape)])
        return reshape(y, lead + list(self._in_event_shape))

    def _check_event(self, shape, event):
        if len(shape) < len(event):
            raise ValueError("Expected length of 'shape' is not less than %d, but got %d"
                             % (len(event), len(shape)))
        if tuple(shape[len(shape) - len(event):]) != tuple(event):
            raise ValueError("Event shape mismatch, expected: %s, but got %s"
                             % (event, tuple(shape[len(shape) - len(event):])))

    def _forward_shape(self, shape):
        self._check_event(shape, self._in_event_shape)
        return tuple(shape[:len(shape) - len(self._in_event_shape)]) + self._out_event_shape

    def _inverse_shape(self, shape):
        self._check_event(shape, self._out_event_shape)
        return tuple(shape[:len(shape) - len(self._out_event_shape)]) + self._in_event_shape

    def _forward_log_det_jacobian(self, x):
        return zeros(list(x.shape[:len(x.shape) - len(self._in_event_shape)]), dtype=x.dtype)


class SigmoidTransform(Transform):
    """y = sigmoid(x), onto (0, 1)."""

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(0.0, 1.0))

    def _forward(self, x):
        return _m.sigmoid(x)

    def _inverse(self, y):
        return _m.log(y) - _m.log1p(-y)

    def _forward_log_det_jacobian(self, x):
        return -softplus(-x) - softplus(x)


class SoftmaxTransform(Transform):
    """y = softmax(x) along the last dim (not injective: adding a constant to
    x does not change y; ``inverse`` gives log(y))."""
    _type = Type.OTHER

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)

    def _forward(self, x):
        e = _m.exp(x - _r.max(x, -1, keepdim=True))
        return e / _r.sum(e, -1, keepdim=True)

    def _inverse(self, y):
        return _m.log(y)

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Expected length of shape is grater than 1, but got %d" % len(shape))
        return shape

    def _inverse_shape(self, shape):
        return self._forward_shape(shape)


class StackTransform(Transform):
    """``transforms[i]`` applied to slice i of x along ``axis``."""

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, typing.Sequence):
            raise TypeError("Expected 'transforms' is Sequence[Transform], but got %s."
                            % type(transforms))
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("Expected all element in transforms is Transform Type.")
        if not isinstance(axis, int):
            raise TypeError("Expected 'axis' is int, but got%s." % type(axis))
        self._transforms = transforms
        self._axis = axis
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        return self._transforms

    @property
    def axis(self):
        return self._axis

    def _map(self, v, method):
        self._check_size(v)
        parts = unstack(v, self._axis)
        return stack([getattr(t, method)(p) for p, t in zip(parts, self._transforms)], self._axis)

    def _forward(self, x):
        return self._map(x, 'forward')

    def _inverse(self, y):
        return self._map(y, 'inverse')

    def _forward_log_det_jacobian(self, x):
        return self._map(x, 'forward_log_det_jacobian')

    def _check_size(self, v):
        nd = len(v.shape)
        if not -nd <= self._axis < nd:
            raise ValueError("Input dimensions %d should be grater than stack transform axis %d."
                             % (nd, self._axis))
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError("Input size along %d should be equal to the length of transforms."
                             % self._axis)

    @property
    def _domain(self):
        return variable.Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return variable.Stack([t._codomain for t in self._transforms], self._axis)


class StickBreakingTransform(Transform):
    """Unconstrained R^k to the (k+1)-simplex by stick breaking."""
    _type = Type.BIJECTION

    def _offset_log(self, k, dtype):
        # log of k, k-1, ..., 1: the number of pieces left before each break
        return _m.log(_m.cumsum(ones([k], dtype=dtype), -1) * -1.0 + (k + 1))

    def _forward(self, x):
        k = x.shape[-1]
        z = _m.sigmoid(x - self._offset_log(k, x.dtype))
        left = _math.cumprod_positive(1.0 - z, -1)
        lead = [0, 0] * (len(x.shape) - 1)
        return pad(z, lead + [0, 1], value=1.0) * pad(left, lead + [1, 0], value=1.0)

    def _inverse(self, y):
        crop = y[..., :-1]
        k = crop.shape[-1]
        rest = 1.0 - _m.cumsum(crop, -1)
        return _m.log(crop) - _m.log(rest) + self._offset_log(k, y.dtype)

    def _forward_log_det_jacobian(self, x):
        y = self.forward(x)
        x = x - self._offset_log(x.shape[-1], x.dtype)
        return _r.sum(-x + log_sigmoid(x) + _m.log(y[..., :-1]), -1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError("Expected 'shape' is not empty, but got %s" % (shape,))
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError("Expected 'shape' is not empty, but got %s" % (shape,))
        return (*shape[:-1], shape[-1] - 1)

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)


class TanhTransform(Transform):
    """y = tanh(x), onto (-1, 1)."""
    _type = Type.BIJECTION

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(-1.0, 1.0))

    def _forward(self, x):
        return _m.tanh(x)

    def _inverse(self, y):
        return _math.atanh(y)

    def _forward_log_det_jacobian(self, x):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))
