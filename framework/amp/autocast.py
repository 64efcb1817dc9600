"""Automatic mixed precision: the per-op casting ``auto_cast`` installs.

While an ``auto_cast`` region is active every registered op call (eager, static
and inside ``@to_static``) passes through ``AutocastState.__call__`` first, which
decides the dtype the op computes in and casts its float inputs to it with the
registered ``cast`` op, so gradients flow back through the casts in each input's
own dtype. The decision is Paddle's:

* white-list ops (matmul, linear, conv2d) compute in the low-precision dtype;
* black-list ops (exp, log, softmax, losses, norms, reductions) in float32;
* other ops in float32 when any float input is float32, else in low precision
  (``use_promote``; O2 with ``use_promote=False`` casts them all to low precision);
* at OD only the white list is low precision.

Only float32/float16/bfloat16 inputs are cast (float64, integers and bools are
left alone), and only x for batch/layer norm, whose statistics and affine
parameters stay float32. The op itself runs with auto_cast suspended, so the
casts it makes are not cast again; backward always runs suspended (grad ops
compute in the dtypes of the forward values).
"""
import numpy as np

from .. import dtype as _dt
from ..ops import registry

WHITE, BLACK, GRAY, SKIP = 'white', 'black', 'gray', 'skip'
LEVELS = ('O0', 'OD', 'O1', 'O2')


class AutocastState:
    """One ``auto_cast`` region: level, low-precision dtype, op lists."""

    def __init__(self, level, dtype, white, black, use_promote):
        self.level = level
        self.dtype = _dt.convert_dtype(dtype)
        self.white = frozenset(white)
        self.black = frozenset(black)
        self.use_promote = use_promote or level != 'O2'
        self._float32 = _dt.float32
        self._castable = (_dt.float32, _dt.float16) + (
            (self.dtype,) if _dt.is_bfloat16(self.dtype) else ())
        self._kinds = {}
        # what a traced program depends on (StaticFunction's cache key)
        self.key = (level, str(self.dtype), self.white, self.black, self.use_promote)

    # ---- the decision ----------------------------------------------------
    def kind(self, op, args):
        """WHITE / BLACK / GRAY / SKIP for this call of ``op``: by the op's
        names in this region's lists (``OpDef.amp_names`` when they depend
        on the call, as a conv's do)."""
        if op.amp_names is not None:
            return self._classify(op, op.amp_names(*args))
        hit = self._kinds.get(op.name)
        if hit is None:
            hit = self._kinds[op.name] = self._classify(op, (op.name,) + op.paddle_names)
        return hit

    def _classify(self, op, names):
        if op.amp == 'never':
            return SKIP
        if any(n in self.white for n in names):
            return WHITE
        if any(n in self.black for n in names):
            return BLACK
        return GRAY

    def dest_dtype(self, kind, dtypes):
        """The dtype the op computes in, given its inputs' float dtypes."""
        if kind == WHITE:
            return self.dtype
        if kind == BLACK or self.level == 'OD':
            return self._float32
        if not self.use_promote:
            return self.dtype
        return self._float32 if any(d == self._float32 for d in dtypes) else self.dtype

    # ---- the hook ----------------------------------------------------------
    def __call__(self, op, args):
        n = op.n_in
        ins = args[:n]
        kind = self.kind(op, args)
        if kind is SKIP:
            return run_uncast(op, args)
        considered = op.amp_inputs if op.amp_inputs is not None else range(len(ins))
        dtypes = [d for i in considered for d in _float_dtypes(ins[i], op.variadic[i],
                                                               self._castable)]
        if not dtypes:
            return run_uncast(op, args)
        dst = self.dest_dtype(kind, dtypes)
        if kind == WHITE and op.amp_rule is not None:
            out = op.amp_rule(self, ins, op.split_args(args)[1], dst)
            if out is not None:
                return out
        new = list(ins)
        changed = False
        for i in considered:
            cast = _cast_input(ins[i], op.variadic[i], dst, self._castable)
            if cast is not ins[i]:
                new[i] = cast
                changed = True
        return run_uncast(op, (tuple(new) + tuple(args[n:])) if changed else args)

    # ---- what an op's own rule (``OpDef.amp_rule``) calls ------------------------
    def cast(self, v, dtype):
        """``v`` in ``dtype`` (float32/float16/bfloat16 tensors only)."""
        return _cast_input(v, False, dtype, self._castable)

    @staticmethod
    def run(op, args):
        """Run ``op`` with auto_cast suspended."""
        return run_uncast(op, args)


def _float_dtypes(v, variadic, castable):
    items = v if variadic else (v,)
    out = []
    for t in items:
        d = getattr(t, 'dtype', None)
        if d is not None and hasattr(t, 'shape') and not isinstance(t, np.ndarray) \
                and d in castable:
            out.append(d)
    return out


def _cast_input(v, variadic, dst, castable):
    if variadic:
        items = [_cast_input(t, False, dst, castable) for t in v]
        return v if all(a is b for a, b in zip(items, v)) else type(v)(items)
    d = getattr(v, 'dtype', None)
    if d is None or d == dst or d not in castable or isinstance(v, np.ndarray) \
            or not hasattr(v, 'shape'):
        return v
    from ..ops.manipulation import cast_op
    return run_uncast(cast_op, (v, str(dst)))


def run_uncast(op, args):
    """Call ``op`` with auto_cast suspended (its own casts are not cast again)."""
    with registry.autocast_suspended():
        return op(*args)
