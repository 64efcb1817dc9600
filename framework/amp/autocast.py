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
from . import amp_lists

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
        """WHITE / BLACK / GRAY / SKIP for this call of ``op``."""
        names = _dynamic_names(op, args)
        if names is None:
            hit = self._kinds.get(op.name)
            if hit is None:
                hit = self._kinds[op.name] = self._classify(
                    (op.name,) + amp_lists.PADDLE_NAMES.get(op.name, ()))
            return hit
        return self._classify(names)

    def _classify(self, names):
        if names[0] in amp_lists.NEVER_CAST:
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
        considered = (0,) if op.name in amp_lists.X_ONLY else range(len(ins))
        dtypes = [d for i in considered for d in _float_dtypes(ins[i], op.variadic[i],
                                                               self._castable)]
        if not dtypes:
            return run_uncast(op, args)
        dst = self.dest_dtype(kind, dtypes)
        if kind == WHITE and op.name == 'conv' and len(ins) > 2 and ins[2] is not None:
            return self._conv_then_bias(op, ins, args[n:], dst)
        new = list(ins)
        changed = False
        for i in considered:
            cast = _cast_input(ins[i], op.variadic[i], dst, self._castable)
            if cast is not ins[i]:
                new[i] = cast
                changed = True
        return run_uncast(op, (tuple(new) + tuple(args[n:])) if changed else args)

    def _conv_then_bias(self, op, ins, attrs, dst):
        """Paddle's conv2d has no bias: F.conv2d adds it with a separate ``add``,
        a gray op, which computes in float32 for a float32 bias. Same here."""
        from ..ops.math import add
        from ..ops.manipulation import reshape
        x, w, b = ins
        attrs = tuple(attrs) + op.attr_defaults[len(attrs):]
        out = run_uncast(op, (_cast_input(x, False, dst, self._castable),
                              _cast_input(w, False, dst, self._castable), None) + attrs)
        data_format = attrs[op.attr_names.index('data_format')]
        shape = [1] * len(x.shape)
        shape[1 if data_format[1] == 'C' else -1] = -1
        return add(out, reshape(b, shape))


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


def _dynamic_names(op, args):
    """Paddle's op name when it depends on the call: a conv is conv2d (1-D and
    2-D: Paddle runs conv1d as conv2d), depthwise_conv2d (groups equal to the
    input channels, more than one, dividing the output channels) or conv3d."""
    name = op.name
    if name != 'conv' and name != 'conv_transpose':
        return None
    x, w = args[0], args[1]
    suffix = '_transpose' if name == 'conv_transpose' else ''
    if len(x.shape) == 5:
        return ('conv3d' + suffix,)
    if name == 'conv':
        i = op.n_in + op.attr_names.index('groups')
        groups = args[i] if len(args) > i else op.attr_defaults[i - op.n_in]
        if groups != 1 and w.shape[1] == 1 and w.shape[0] % groups == 0:
            return ('depthwise_conv2d',)
    return ('conv2d' + suffix,)


def run_uncast(op, args):
    """Call ``op`` with auto_cast suspended (its own casts are not cast again)."""
    with registry.autocast_suspended():
        return op(*args)
