"""Fused ops emitted by the static executor's fusion passes.

They are inference-time fusions: registered like any op (kernel, infer_meta,
test cases) but not differentiable, because the passes run on the executor's
copy of a program after backward ops were already built.

* ``fused_elementwise(xs, expr)``  a chain/tree of elementwise ops as one op.
  ``expr`` is a JSON-able list of instructions ``[op_type, refs, attrs]``:
  ``refs`` are ints, ``k >= 0`` the k-th input and ``-(j + 1)`` the result of
  instruction ``j``; ``attrs`` the op's attributes in kernel order. The result
  is the last instruction's. The kernel calls the registered kernels, so
  results are bit-identical to the unfused ops, but it writes into its own
  temporaries where it can (the ops' ``kernel_into``) instead of allocating.
* ``fused_matmul_bias_act(x, y, bias, transpose_x, transpose_y, act, act_attrs)``
  ``act(matmul(x, y) + bias)``, the bias added into the product's buffer.

Which ops may be fused, and how each computes into an existing buffer, the
ops declare themselves (``ops/properties.py``: ``fusable``, ``kernel_into``).
"""
import numpy as np

from . import meta
from .math import lean_is_product, lean_product, matmul_op
from .lowp import float32_compute
from .properties import fusable, unary_fusable, value
from .registry import OpError, add_test_case, all_ops, def_op, lookup, op_count

# the plain matmul kernel: the fused op's own float32_compute already saw its
# inputs, so the inner call skips the half-precision wrapper
_matmul_kernel = getattr(matmul_op.kernel, '__wrapped__', matmul_op.kernel)


_fusable = [-1, frozenset()]     # (op count it was made at, fusable op types)


def elementwise_ops():
    """The registered op types ``fused_elementwise`` may run."""
    if _fusable[0] != op_count():
        _fusable[:] = [op_count(), frozenset(n for n, op in all_ops().items() if fusable(op))]
    return _fusable[1]


def check_act(act, inputs=None):
    """The attribute type of ``act``: '' or a fusable one-input op."""
    if act == '':
        return
    if not isinstance(act, str) or not is_activation(act):
        raise ValueError("act must be '' or a one-input elementwise op (relu, tanh, "
                         "sigmoid, gelu, ...), got %r" % (act,))


def is_activation(name):
    """Whether op ``name`` is a one-input elementwise activation a fused op may apply."""
    try:
        return unary_fusable(lookup(name))
    except OpError:
        return False


def _act_op(act, api):
    """The OpDef of activation ``act`` (``check_act``); an OpError naming ``api`` else."""
    try:
        check_act(act)
    except ValueError as e:
        raise OpError("%s: %s" % (api, e)) from None
    return lookup(act)


def _inplace_lines(j, op, args, pos, glb, all_float):
    """Source of instruction ``j`` computing into its dying temporary
    ``args[pos]`` with the op's ``kernel_into``, which refuses (writing
    nothing) whenever the result would not have exactly that array's dtype
    and shape; the kernel then runs as usual. Where the call is a ufunc's
    (``properties.inline_form``) and exact for the temporaries (always, or on
    the float arrays ``all_float`` promises), the line calls the ufunc itself
    with ``casting='no'``: no Python-level checks, which on small arrays
    would cost more than the allocation they save."""
    inline = getattr(op.kernel_into, 'inline', None)
    if inline is not None and (op.ufunc_on == 'any' or all_float):
        ufunc, trailing = inline
        glb['U%d' % j] = ufunc
        call = 'U%d(%s, out=%s, casting="no")' % (
            j, ', '.join(list(args) + [repr(a) for a in trailing]), args[pos])
    else:
        glb['I%d' % j] = op.kernel_into
        call = 'I%d(%s, %s)' % (j, ', '.join(args), args[pos])
    return ['try:',
            '    t%d = %s' % (j, call),
            'except (ValueError, TypeError):',
            '    t%d = K%d(%s)' % (j, j, ', '.join(args))]


# ---- fused_elementwise --------------------------------------------------------

# far above what the fusion pass builds (passes/fuse.py MAX_GROUP); bounds the
# size of the function a file's instructions can make us compile
MAX_INSTRUCTIONS = 1024


def _normalize(expr, n_inputs):
    """Validated instructions as tuples: ((type, refs, attrs), ...). Input
    references must be below ``n_inputs``, the number of tensors the op gets,
    so nothing is built from references a file made up."""
    if not isinstance(expr, (list, tuple)) or not expr:
        raise OpError("expr must be a non-empty list of [op_type, refs, attrs], got %r"
                      % (expr,))
    if len(expr) > MAX_INSTRUCTIONS:
        raise OpError("expr has %d instructions; at most %d are allowed"
                      % (len(expr), MAX_INSTRUCTIONS))
    allowed = elementwise_ops()
    out = []
    for j, ins in enumerate(expr):
        if not (isinstance(ins, (list, tuple)) and len(ins) == 3):
            raise OpError("expr[%d] must be [op_type, refs, attrs], got %r" % (j, ins))
        t, refs, attrs = ins
        if not isinstance(t, str) or t not in allowed:
            raise OpError("expr[%d]: %r is not a fusable elementwise op (a registered op "
                          "declared elementwise or broadcast, pure, with one output)" % (j, t))
        opdef = lookup(t)
        if not isinstance(refs, (list, tuple)) or len(refs) != opdef.n_in or not all(
                isinstance(r, int) and not isinstance(r, bool) and -j <= r < n_inputs
                for r in refs):
            raise OpError("expr[%d] (%s): refs %r must be %d ints, inputs 0 <= k < %d or "
                          "earlier results -(i+1) with i < %d"
                          % (j, t, refs, opdef.n_in, n_inputs, j))
        if not isinstance(attrs, (list, tuple)) or len(attrs) != opdef.n_attrs:
            raise OpError("expr[%d] (%s): expected %d attributes %s, got %r"
                          % (j, t, opdef.n_attrs, list(opdef.attr_names), attrs))
        for name, a in zip(opdef.attr_names, attrs):
            try:
                opdef.check_attr(name, a, {n: 1 for n in opdef.input_names})
            except ValueError as e:
                raise OpError("expr[%d] (%s): attribute %s: %s" % (j, t, name, e)) from None
        out.append((t, tuple(refs), tuple(_tuples(a) for a in attrs)))
    return tuple(out)


def check_expr(expr, inputs):
    """The attribute type of ``expr`` (see ``attr_types``): valid instructions
    reading at most the op's ``xs``."""
    _normalize(expr, inputs.get('xs', 0))


def _tuples(v):
    if isinstance(v, (list, tuple)):
        return tuple(_tuples(x) for x in v)
    return v


def _kernel(op_type, all_float):
    """The function instruction ``op_type`` calls: the ufunc where the kernel
    is exactly that (for any inputs, or on float ones when ``all_float``),
    on float inputs the kernel's float form (no int-to-float conversion, no
    half-precision wrapper), else the registered kernel."""
    op = lookup(op_type)
    u = value(op.ufunc)
    if u is not None and (op.ufunc_on == 'any' or all_float):
        return u
    if all_float:
        k = getattr(op.kernel, 'float_kernel', op.kernel)
        return getattr(k, 'full_precision_kernel', k)
    return op.kernel


def _compile(instrs, n_in, all_float=False):
    """A Python function evaluating the instructions with the registered
    kernels; temporaries that die at an in-place-capable instruction are
    overwritten instead of allocating a new array, the others deleted after
    their last use. The generated source holds only identifiers made here
    (the op types were checked against the registry, the references against
    ``n_in``, the number of inputs). ``all_float``: the caller knows every
    input is a float array of one (not half) dtype, so every temporary is
    too and unary kernels can be what they are on floats (``_kernel``)."""
    last_use = {}
    for j, (_, refs, _) in enumerate(instrs):
        for r in refs:
            if r < 0:
                last_use[-r - 1] = j
    glb = {}
    lines = ['def fused(%s):' % ', '.join('x%d' % k for k in range(n_in))]
    for j, (t, refs, attrs) in enumerate(instrs):
        glb['K%d' % j] = _kernel(t, all_float)
        args = ['x%d' % r if r >= 0 else 't%d' % (-r - 1) for r in refs]
        dying = [p for p, r in enumerate(refs) if r < 0 and last_use[-r - 1] == j]
        op = lookup(t)
        if dying and not attrs and op.kernel_into is not None:
            lines.extend('    ' + line
                         for line in _inplace_lines(j, op, args, dying[0], glb, all_float))
        else:
            for i, a in enumerate(attrs):
                glb['A%d_%d' % (j, i)] = a
                args.append('A%d_%d' % (j, i))
            lines.append('    t%d = K%d(%s)' % (j, j, ', '.join(args)))
        # drop dead temporaries at once: numpy reuses their memory while hot
        dead = sorted({args[p] for p in dying})
        if dead:
            lines.append('    del %s' % ', '.join(dead))
    lines.append('    return t%d' % (len(instrs) - 1))
    exec(compile('\n'.join(lines) + '\n', '<fused_elementwise>', 'exec'), glb)
    return glb['fused']


_BY_ID = {}       # (id(expr), n_in) -> (expr, fn): the executor passes the same object each run
_BY_VALUE = {}    # (normalized instructions, n_in, all_float) -> fn


def compiled_expr(expr, n_in, all_float=False):
    """The function evaluating ``expr`` on ``n_in`` inputs (see ``_compile``
    for ``all_float``)."""
    if not all_float:
        hit = _BY_ID.get((id(expr), n_in))
        if hit is not None and hit[0] is expr:
            return hit[1]
    instrs = _normalize(expr, n_in)
    fn = _BY_VALUE.get((instrs, n_in, all_float))
    if fn is None:
        if len(_BY_VALUE) > 4096:
            _BY_VALUE.clear()
        fn = _BY_VALUE[instrs, n_in, all_float] = _compile(instrs, n_in, all_float)
    if not all_float:
        if len(_BY_ID) > 4096:
            _BY_ID.clear()
        _BY_ID[id(expr), n_in] = (expr, fn)
    return fn


def _fused_elementwise_meta(xs, expr=()):
    instrs = _normalize(expr, len(xs))
    vals = list(xs)
    temps = []
    for j, (t, refs, attrs) in enumerate(instrs):
        args = [vals[r] if r >= 0 else temps[-r - 1] for r in refs]
        try:
            m = lookup(t).infer_meta(*args, *attrs)
        except OpError as e:
            raise OpError("expr[%d] (%s): %s" % (j, t, e)) from None
        temps.append(m)
    return temps[-1]


@def_op('fused_elementwise', _fused_elementwise_meta, inputs=('xs*',),
        attrs={'expr': ()}, differentiable=False, attr_types={'expr': check_expr},
        pattern='opaque', fresh=True)
def fused_elementwise_op(xs, expr=()):
    """Evaluate a chain of elementwise ops in one call (see the module doc)."""
    hit = _BY_ID.get((id(expr), len(xs)))      # the hot path: the executor's constant expr
    fn = hit[1] if hit is not None and hit[0] is expr else compiled_expr(expr, len(xs))
    return fn(*xs)


# ---- fused_matmul_bias_act ------------------------------------------------------

def act_meta(m, act, act_attrs, api='fused_matmul_bias_act'):
    """The meta of activation ``act`` with ``act_attrs`` applied to ``m`` (a
    fused op's last step), checking the attributes; OpErrors name ``api``."""
    if not act:
        return m
    opdef = _act_op(act, api)
    if len(act_attrs) != opdef.n_attrs:
        raise OpError("act '%s' takes %d attributes %s, got %r"
                      % (act, opdef.n_attrs, list(opdef.attr_names), act_attrs))
    for name, a in zip(opdef.attr_names, act_attrs):
        try:
            opdef.check_attr(name, a, {'x': 1})
        except ValueError as e:
            raise OpError("act '%s' attribute %s: %s" % (act, name, e)) from None
    return opdef.infer_meta(m, *act_attrs)


def _fused_matmul_meta(x, y, bias=None, transpose_x=False, transpose_y=False, act='',
                       act_attrs=()):
    m = lookup('matmul').infer_meta(x, y, transpose_x, transpose_y)
    if bias is not None:
        m = meta.broadcast(m, bias)
    return act_meta(m, act, tuple(act_attrs))


def apply_act(r, opdef, act_attrs):
    if opdef.kernel_into is not None and not act_attrs:
        try:          # into the product's buffer when the dtype stays (see _inplace_lines)
            return opdef.kernel_into(r, r)
        except (ValueError, TypeError):
            pass
    return opdef.kernel(r, *act_attrs)


@def_op('fused_matmul_bias_act', _fused_matmul_meta, inputs=('x', 'y', 'bias?'),
        attrs={'transpose_x': False, 'transpose_y': False, 'act': '', 'act_attrs': ()},
        differentiable=False, attr_types={'act': check_act, 'act_attrs': 'value'},
        pattern='opaque', fresh=True)
@float32_compute
def fused_matmul_bias_act_op(x, y, bias=None, transpose_x=False, transpose_y=False, act='',
                             act_attrs=()):
    """``act(matmul(x, y) + bias)`` with the registered kernels; the bias is
    added into the product's own buffer when the sum keeps its shape and dtype
    (np.add is commutative bit for bit, so ``bias + x @ y`` fuses too)."""
    r = _matmul_kernel(x, y, transpose_x, transpose_y)
    if bias is not None:
        try:
            r = np.add(r, bias, out=r, casting='no')
        except (ValueError, TypeError):
            r = np.add(r, bias)
    if act:
        r = apply_act(r, _act_op(act, 'fused_matmul_bias_act'), tuple(act_attrs))
    return r


# ---- the code generator's calls (graph/lean.py) ---------------------------------------

@fused_elementwise_op.def_lean
def _fused_elementwise_lean(call):
    """The instructions' compiled function, called with the inputs themselves
    (the kernel looks it up and unpacks the list on every call)."""
    xs = call.ins[0]
    fn = compiled_expr(call.attrs['expr'], len(xs), all_float=call.all_float_same(call.vars[0]))
    return call.Lean('%s(%s)' % (call.kernel(fn), ', '.join(xs)))


def _adds_into(shape, bias):
    """Whether ``product + bias`` provably has the product's ``shape``: every
    dim of the bias is 1 or the product's known size."""
    bs = bias._shape
    if len(bs) > len(shape):
        return False
    return all(b == 1 or (b == r and r >= 0) for b, r in zip(bs[::-1], shape[::-1]))


@fused_matmul_bias_act_op.def_lean
def _fused_matmul_lean(call):
    """The product, the bias added into its buffer, the activation into it too
    where the activation computes into a buffer (``kernel_into``), else by its
    kernel."""
    a = call.attrs
    tx, ty = a.get('transpose_x', False), a.get('transpose_y', False)
    out, vx, vy, bv = call.out_vars[0], call.vars[0], call.vars[1], call.vars[2]
    if not lean_is_product(call) or out is None or out.dtype != vx.dtype:
        return None
    bias = call.ins[2]
    shape = (vx._shape[1] if tx else vx._shape[0], vy._shape[0] if ty else vy._shape[1])
    if bias is not None and (bv is None or bv.dtype != out.dtype or not _adds_into(shape, bv)):
        return None
    after = []
    if bias is not None:
        after.append('%s({out}, %s, out={out})' % (call.kernel(np.add, '_add'), bias))
    act, act_attrs = a.get('act', ''), tuple(a.get('act_attrs', ()))
    if act:
        opdef = lookup(act)
        inline = getattr(opdef.kernel_into, 'inline', None)
        if inline is not None and not act_attrs:    # a float product: the ufunc in place
            ufunc, trailing = inline
            args = ''.join(', %r' % a for a in trailing)
            after.append('%s({out}%s, out={out})' % (call.kernel(ufunc, '_' + act), args))
        elif opdef.kernel_into is not None and not act_attrs:
            after.append('%s({out}, {out})' % call.kernel(opdef.kernel_into, '_' + act))
        else:
            kernel = opdef.kernel
            kernel = getattr(kernel, 'float_kernel', kernel) if not act_attrs else kernel
            args = ''.join(', ' + call.literal(v, 'act_attr') for v in act_attrs)
            after.append('{out} = %s({out}%s)' % (call.kernel(kernel, '_' + act), args))
    return call.Lean(lean_product(call), after=tuple(after))


__all__ = []
TENSOR_METHODS = {}


# ---- test cases (independent numpy references) ----------------------------------

def _sig(v):
    return 1.0 / (1.0 + np.exp(-v))


_rng = np.random.default_rng(21)
_a = _rng.standard_normal((3, 4))
_b = _rng.standard_normal((3, 4))
_w = _rng.standard_normal((4,))
_c = _rng.standard_normal((1, 4))

# tanh(x * w + b): broadcasting weight, temporaries overwritten in place
add_test_case(fused_elementwise_op, [_a, _w, _b],
              (('multiply', (0, 1), ()), ('add', (-1, 2), ()), ('tanh', (-2,), ())),
              ref=lambda xs, e: np.tanh(xs[0] * xs[1] + xs[2]))
# sigmoid(a) * tanh(b) (an LSTM gate product)
add_test_case(fused_elementwise_op, [_a, _b],
              (('sigmoid', (0,), ()), ('tanh', (1,), ()), ('multiply', (-1, -2), ())),
              ref=lambda xs, e: _sig(xs[0]) * np.tanh(xs[1]))
# a dying temporary on the right of a subtraction, a broadcast that grows the
# temporary (no in-place write possible there) and an op with attributes
add_test_case(fused_elementwise_op, [_c, _a],
              (('exp', (0,), ()), ('subtract', (1, -1), ()), ('scale', (-2,), (2.0, 0.5, True)),
               ('relu', (-3,), ())),
              ref=lambda xs, e: np.maximum((xs[1] - np.exp(xs[0])) * 2.0 + 0.5, 0))
# float32 with a 0-d constant and division
add_test_case(fused_elementwise_op, [_a.astype(np.float32), np.asarray(3.0, np.float32)],
              (('square', (0,), ()), ('divide', (-1, 1), ()), ('neg', (-2,), ())),
              ref=lambda xs, e: -(xs[0].astype(np.float64) ** 2 / 3.0), rtol=1e-6)

_x = _rng.standard_normal((3, 5))
_y = _rng.standard_normal((5, 4))
_bias = _rng.standard_normal((4,))
add_test_case(fused_matmul_bias_act_op, _x, _y, _bias, False, False, 'relu', (),
              ref=lambda x, y, b, *a: np.maximum(np.einsum('ik,kj->ij', x, y) + b, 0))
add_test_case(fused_matmul_bias_act_op, _x, _y.T.copy(), _bias, False, True, 'tanh', (),
              ref=lambda x, y, b, *a: np.tanh(np.einsum('ik,jk->ij', x, y) + b))
add_test_case(fused_matmul_bias_act_op, _x.T.copy(), _y, None, True, False, 'sigmoid', (),
              ref=lambda x, y, b, *a: _sig(np.einsum('ki,kj->ij', x, y)))
add_test_case(fused_matmul_bias_act_op, _x, _y, _rng.standard_normal((3, 4)), False, False,
              'gelu', (True,),
              ref=lambda x, y, b, *a: _gelu_tanh_ref(np.einsum('ik,kj->ij', x, y) + b))
add_test_case(fused_matmul_bias_act_op, _x, _y, _bias, False, False, '', (),
              ref=lambda x, y, b, *a: np.einsum('ik,kj->ij', x, y) + b)


def _gelu_tanh_ref(v):
    return 0.5 * v * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (v + 0.044715 * v ** 3)))
