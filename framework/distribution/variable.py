"""Random variables' domains for transforms: discreteness, event rank and a
constraint."""
from ..ops.manipulation import reshape, stack, unstack
from ..ops import reduce as _r
from . import constraint


class Variable:
    """A random variable's domain."""

    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        return self._is_discrete

    @property
    def event_rank(self):
        return self._event_rank

    def constraint(self, value):
        if self._constraint is None:
            raise ValueError("%s has no constraint to check" % type(self).__name__)
        return self._constraint.check(value)


class Real(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.real)


class Positive(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.positive)


class Independent(Variable):
    """``base`` with its rightmost ``reinterpreted_batch_rank`` batch dims made
    event dims."""

    def __init__(self, base, reinterpreted_batch_rank):
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        ret = self._base.constraint(value)
        n = self._reinterpreted_batch_rank
        if len(ret.shape) < n:
            raise ValueError("Input dimensions must be equal or grater than %d" % n)
        return _r.all(reshape(ret, list(ret.shape[:len(ret.shape) - n]) + [-1]), axis=-1)


class Stack(Variable):
    """Variables stacked along ``axis``."""

    def __init__(self, vars, axis=0):  # noqa: A002  (Paddle's argument name)
        self._vars = vars
        self._axis = axis
        super().__init__()

    @property
    def is_discrete(self):
        return any(v.is_discrete for v in self._vars)

    @property
    def event_rank(self):
        rank = max(v.event_rank for v in self._vars)
        if self._axis + rank < 0:
            rank += 1
        return rank

    def constraint(self, value):
        nd = len(value.shape)
        if not -nd <= self._axis < nd:
            raise ValueError("Input dimensions %d should be grater than stack constraint axis "
                             "%d." % (nd, self._axis))
        return stack([var.constraint(v) for var, v in zip(self._vars, unstack(value, self._axis))],
                     self._axis)


real = Real()
positive = Positive()
