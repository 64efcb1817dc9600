"""Lean kernel calls: the generated code calls numpy itself where the
Program's shapes and dtypes prove what the kernel's own checks would find.

An op's general call in a plan is ``k_<op>(inputs..., attrs...)``: the
registered kernel, with its wrappers (half-precision upcast, integer inputs
computed as floats, section sizes worked out per call ...). On the small
arrays of an unrolled RNN cell those wrappers cost as much as the numpy call
they lead to. ``specialize`` returns, for an op whose input Variables settle
those questions at build time, the code of the numpy call the kernel would
end up making: ``np.matmul(x, w)`` for a 2-D float product,
``x[:, 0:32], x[:, 32:64]`` for a split of a known axis, ``np.tanh(x)`` for
a float tanh. Functions are globals named after the op as kernels are
(``k_matmul`` is then ``np.matmul`` itself). The results are the kernel's bit for bit (the same numpy calls
on the same arrays); only the Python layers around them go.

It relies on what the executor guarantees: feeds are cast to their declared
dtype, and every op's output has the dtype and rank its ``infer_meta`` gave
(the registry's tests check kernels against ``infer_meta``). Plans compiled
without a build strategy (``FLAGS_check_nan_inf``) and with
``BuildStrategy.specialize_kernels = False`` call the kernels as they are.

A specializer is ``fn(call) -> Lean or None`` (None: the general call);
``SPECIALIZERS`` maps op types to them, and every op without one whose kernel
is wrapped by ``float32_compute`` calls the plain kernel when no input can be
half precision.
"""
from typing import NamedTuple

import numpy as np

from .. import dtype as _dt
from ..ops import fused, registry
from ..ops.registry import OpError


class Lean(NamedTuple):
    """The code replacing an op's kernel call: ``expr`` the value of its
    (single) output, or ``exprs`` one per output (variadic outputs); ``after``
    statements run once the output local ``{out}`` holds ``expr``."""
    expr: str = None
    exprs: tuple = None
    after: tuple = ()


class Call:
    """What a specializer sees of one op: ``ins`` the input locals per slot
    (a list for variadic slots, None for a missing optional one), ``vars``
    the Variables of those inputs (same layout), ``out_vars`` the output
    Variables, ``attrs`` the attribute values by name (the kernel's view),
    ``parts`` the general call's argument texts, ``inplace`` the slot whose
    buffer the result may overwrite (the inplace pass proved it dead, of the
    result's shape and dtype) or None; ``const(value, base)`` binds a global
    and returns its name, ``kernel(fn, suffix)`` one for a function."""

    def __init__(self, op, opdef, ins, in_vars, out_vars, attrs, parts, const, kernel,
                 inplace):
        self.op, self.opdef, self.parts = op, opdef, parts
        self.ins, self.vars, self.out_vars = ins, in_vars, out_vars
        self.attrs, self.const, self.inplace = attrs, const, inplace
        self._kernel = kernel

    def kernel(self, fn, suffix=''):
        """The global holding function ``fn`` (``k_<op type><suffix>``, one per function)."""
        return self._kernel(self.op.type, fn, suffix)


SPECIALIZERS = {}


def specializer(*op_types):
    def register(fn):
        for t in op_types:
            SPECIALIZERS[t] = fn
        return fn
    return register


def specialize(call):
    """The Lean code of ``call``, or None for the general kernel call."""
    fn = SPECIALIZERS.get(call.op.type)
    if fn is not None:
        return fn(call)
    return _full_precision(call)


# ---- what the Variables prove --------------------------------------------------------

def _dtype(v):
    return getattr(v, 'dtype', None) if v is not None else None


def _is_float(v):
    """A float (or complex) array that is not half precision (bfloat16 and
    float16 kernels upcast)."""
    d = _dtype(v)
    return d is not None and d.kind in 'fc' and not _dt.is_half(d)


def _all_float_same(vs):
    d = _dtype(vs[0]) if vs else None
    return d is not None and all(_is_float(v) and v.dtype == d for v in vs)


def _no_half(v):
    if isinstance(v, list):
        return all(_no_half(x) for x in v)
    d = _dtype(v)
    return v is None or (d is not None and not _dt.is_half(d) and not _dt.is_bfloat16(d))


def _literal(call, value, base):
    if value is None or isinstance(value, (bool, int, str)) or (
            isinstance(value, tuple) and all(isinstance(x, (bool, int, str)) for x in value)):
        return repr(value)
    return call.const(value, '%s_%s' % (call.op.type, base))


def _full_precision(call):
    """A ``float32_compute`` kernel called without its wrapper when no input
    is half precision (the wrapper would pass the arguments through)."""
    plain = getattr(call.opdef.kernel, 'full_precision_kernel', None)
    if plain is None or call.inplace is not None:
        return None
    for loc, v in zip(call.ins, call.vars):
        if loc is not None and (v is None or not _no_half(v) or (
                isinstance(v, list) and any(x is None for x in v))):
            return None
    name = call.kernel(plain, '_plain')
    return Lean('%s(%s)' % (name, ', '.join(call.parts)))


# ---- elementwise ---------------------------------------------------------------------

@specializer(*fused.UNARY_UFUNCS)
def _unary_ufunc(call):
    """Kernels that are exactly a ufunc on a float array."""
    (x,), (v,) = call.ins, call.vars
    if not _is_float(v):
        return None
    u = call.kernel(fused.UNARY_UFUNCS[call.op.type])
    if call.inplace is not None:
        return Lean('%s(%s, out=%s)' % (u, x, x))
    return Lean('%s(%s)' % (u, x))


@specializer('sigmoid', 'rsqrt', 'erf', 'log2', 'log10', 'tan', 'atan', 'sinh', 'cosh',
             'asin', 'acos', 'floor', 'ceil', 'trunc')
def _float_kernel(call):
    """Unary kernels that convert integer inputs to float first: on a float
    input, the function they wrap."""
    fn = getattr(call.opdef.kernel, 'float_kernel', None)
    if fn is None or call.inplace is not None or not _is_float(call.vars[0]):
        return None
    if getattr(fn, 'full_precision_kernel', None) is not None:
        fn = fn.full_precision_kernel          # float32_compute inside: no half input here
    return Lean('%s(%s)' % (call.kernel(fn, '_float'), call.ins[0]))


@specializer(*fused.BINARY_UFUNCS)
def _binary_ufunc(call):
    """``add`` & co. are exactly ``ufunc(x, y)`` (the Program cast the inputs)."""
    x, y = call.ins
    u = call.kernel(fused.BINARY_UFUNCS[call.op.type])
    if call.inplace is not None:
        return Lean('%s(%s, %s, out=%s)' % (u, x, y, call.ins[call.inplace]))
    return Lean('%s(%s, %s)' % (u, x, y))


@specializer(*fused.FLOAT_BINARY_UFUNCS)
def _float_binary_ufunc(call):
    if not _all_float_same(call.vars):
        return None
    x, y = call.ins
    u = call.kernel(fused.FLOAT_BINARY_UFUNCS[call.op.type])
    if call.inplace is not None:
        return Lean('%s(%s, %s, out=%s)' % (u, x, y, call.ins[call.inplace]))
    return Lean('%s(%s, %s)' % (u, x, y))


@specializer('fused_elementwise')
def _fused_elementwise(call):
    """The instructions' compiled function, called with the inputs themselves
    (the kernel looks it up and unpacks the list on every call)."""
    xs = call.ins[0]
    fn = fused.compiled_expr(call.attrs['expr'], len(xs),
                             all_float=_all_float_same(call.vars[0]))
    return Lean('%s(%s)' % (call.kernel(fn), ', '.join(xs)))


# ---- matrix products -----------------------------------------------------------------

def _is_product(call):
    """Two matrices of one non-half float dtype: the kernel is ``np.matmul``."""
    vx, vy = call.vars[0], call.vars[1]
    return _all_float_same([vx, vy]) and vx.ndim == 2 and vy.ndim == 2


def _product(call, tx, ty):
    x, y = call.ins[0], call.ins[1]
    return '%s(%s%s, %s%s)' % (call.kernel(np.matmul), x, '.T' if tx else '', y,
                               '.T' if ty else '')


@specializer('matmul')
def _matmul(call):
    if not _is_product(call):
        return None
    return Lean(_product(call, call.attrs.get('transpose_x', False),
                         call.attrs.get('transpose_y', False)))


def _product_shape(vx, vy, tx, ty):
    """The shape of the 2-D product (-1: known at run time only)."""
    return (vx._shape[1] if tx else vx._shape[0], vy._shape[0] if ty else vy._shape[1])


def _adds_into(shape, bias):
    """Whether ``product + bias`` provably has the product's ``shape``: every
    dim of the bias is 1 or the product's known size."""
    bs = bias._shape
    if len(bs) > len(shape):
        return False
    return all(b == 1 or (b == r and r >= 0) for b, r in zip(bs[::-1], shape[::-1]))


@specializer('fused_matmul_bias_act')
def _fused_matmul(call):
    """The product, the bias added into its buffer, the activation in place
    (tanh, relu) or by its kernel."""
    bias = call.ins[2]
    a = call.attrs
    tx, ty = a.get('transpose_x', False), a.get('transpose_y', False)
    out = call.out_vars[0]
    if not _is_product(call) or out is None or out.dtype != call.vars[0].dtype:
        return None
    bv = call.vars[2]
    if bias is not None and (bv is None or bv.dtype != out.dtype or not _adds_into(
            _product_shape(call.vars[0], call.vars[1], tx, ty), bv)):
        return None
    after = []
    if bias is not None:
        after.append('%s({out}, %s, out={out})' % (call.kernel(np.add, '_add'), bias))
    act, act_attrs = a.get('act', ''), tuple(a.get('act_attrs', ()))
    if act == 'tanh':
        after.append('%s({out}, out={out})' % call.kernel(np.tanh, '_tanh'))
    elif act == 'relu':
        after.append('%s({out}, 0, out={out})' % call.kernel(np.maximum, '_relu'))
    elif act:
        kernel = registry.lookup(act).kernel
        kernel = getattr(kernel, 'float_kernel', kernel) if not act_attrs else kernel
        args = ''.join(', ' + _literal(call, v, 'act_attr') for v in act_attrs)
        after.append('{out} = %s({out}%s)' % (call.kernel(kernel, '_' + act), args))
    return Lean(_product(call, tx, ty), after=tuple(after))


# ---- shape ops -----------------------------------------------------------------------

@specializer('split')
def _split(call):
    """Views of a known-size axis: the kernel's slices, worked out once."""
    from ..ops.manipulation import _split_sizes
    (x,), (v,) = call.ins, call.vars
    if v is None or not v._shape:
        return None
    ax = call.attrs.get('axis', 0) % v.ndim
    n = v._shape[ax]
    if n < 0:
        return None
    try:
        sizes = _split_sizes(n, call.attrs.get('num', 0), call.attrs.get('sections', ()), ax)
    except OpError:
        return None           # the kernel raises its own error when the op runs
    lead = ':, ' * ax
    exprs, start = [], 0
    for s in sizes:
        exprs.append('%s[%s%d:%d]' % (x, lead, start, start + s))
        start += s
    return Lean(exprs=tuple(exprs))


@specializer('concat')
def _concat(call):
    xs = call.ins[0]
    return Lean('%s([%s], %r)' % (call.kernel(np.concatenate), ', '.join(xs),
                                  call.attrs.get('axis', 0)))


@specializer('getitem')
def _getitem(call):
    """An index of constants only (ints, constant slices, None, ...): built once."""
    from ..ops.subscript import _np_index
    x, indices = call.ins
    items = call.attrs.get('items', ())
    if indices or any(it[0] == 'tensor' or (it[0] == 'slice' and not all(
            b is None or type(b) is int for b in it[1:])) for it in items):
        return None
    index = _np_index(items, [])
    return Lean('%s[%s]' % (x, call.const(index, 'index')))


_SUM = np.add.reduce     # one object: each attribute access makes a new bound method


@specializer('reduce_as')
def _reduce_as(call):
    """A sum over leading axes to a known target shape (a bias gradient)."""
    x, _ = call.ins
    vx, vt = call.vars
    if vx is None or vt is None:
        return None
    xs, ts = vx._shape, vt._shape
    lead = len(xs) - len(ts)
    if lead <= 0 or any(t < 0 or t == 1 for t in ts) or \
            any(d != t and d >= 0 for d, t in zip(xs[lead:], ts)):
        return None
    # unbroadcast: the leading axes summed away (x.sum is np.add.reduce); the
    # rest equal the target's
    return Lean('%s(%s, %r)' % (call.kernel(_SUM), x, tuple(range(lead))))
