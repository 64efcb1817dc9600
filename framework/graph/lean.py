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

What an op's call becomes follows from what the op declares
(``ops/properties.py``), in this order:

* its own specializer ``fn(call) -> Lean or None`` (``@op.def_lean``, beside
  the op: matmul, split, getitem, ...), which sees the ``Call`` below;
* its ``ufunc``: the ufunc itself, on float inputs for ``ufunc_on='float'``;
* its kernel's ``float_kernel`` (what a kernel that computes integers as
  floats is on a float array), for one-input ops without attributes;
* a kernel wrapped by ``float32_compute`` is called without the wrapper when
  no input can be half precision.

None means the general kernel call.
"""
from typing import NamedTuple

from .. import dtype as _dt
from ..ops.properties import value


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
    ``parts`` the general call's argument texts, ``shapes`` the program's
    symbolic shapes (``passes/analysis.py``: ``ShapeClasses``, the ops' own
    ``infer_meta`` on named unknown dims), ``inplace`` the slot whose
    buffer the result may overwrite (the inplace pass proved it dead, of the
    result's shape and dtype) or None; ``const(value, base)`` binds a global
    and returns its name, ``kernel(fn, suffix)`` one for a function. The
    methods below answer what specializers ask of the Variables."""

    Lean = Lean

    def __init__(self, op, opdef, ins, in_vars, out_vars, attrs, parts, shapes, const, kernel,
                 inplace):
        self.op, self.opdef, self.parts, self.shapes = op, opdef, parts, shapes
        self.ins, self.vars, self.out_vars = ins, in_vars, out_vars
        self.attrs, self.const, self.inplace = attrs, const, inplace
        self._kernel = kernel

    def kernel(self, fn, suffix=''):
        """The global holding function ``fn`` (``k_<op type><suffix>``, one per function)."""
        return self._kernel(self.op.type, fn, suffix)

    def dims(self, v):
        """The symbolic dims of Variable ``v`` (``ops/meta.py``: known sizes and
        named unknowns, equal names for equal run-time sizes)."""
        d = self.shapes.dims(v.name) if self.shapes is not None else None
        return d if d is not None else tuple(v._shape)

    @staticmethod
    def is_float(v):
        """A float (or complex) array that is not half precision (bfloat16 and
        float16 kernels upcast)."""
        d = _dtype(v)
        return d is not None and d.kind in 'fc' and not _dt.is_half(d)

    @classmethod
    def all_float_same(cls, vs):
        """Float arrays (not half precision), all of one dtype."""
        d = _dtype(vs[0]) if vs else None
        return d is not None and all(cls.is_float(v) and v.dtype == d for v in vs)

    @staticmethod
    def no_half(v):
        """No half-precision array among ``v`` (a Variable, a list, or None)."""
        if isinstance(v, list):
            return all(Call.no_half(x) for x in v)
        d = _dtype(v)
        return v is None or (d is not None and not _dt.is_half(d) and not _dt.is_bfloat16(d))

    def literal(self, value, base):
        """Source text for ``value``: inline for simple literals, else a global."""
        if value is None or isinstance(value, (bool, int, str)) or (
                isinstance(value, tuple) and all(isinstance(x, (bool, int, str)) for x in value)):
            return repr(value)
        return self.const(value, '%s_%s' % (self.op.type, base))


def _dtype(v):
    return getattr(v, 'dtype', None) if v is not None else None


def specialize(call):
    """The Lean code of ``call``, or None for the general kernel call."""
    opdef = call.opdef
    if opdef.lean is not None:
        return opdef.lean(call)
    if value(opdef.ufunc) is not None:
        return _ufunc(call)
    if opdef.n_in == 1 and not opdef.n_attrs and \
            getattr(opdef.kernel, 'float_kernel', None) is not None:
        return _float_kernel(call)
    return _full_precision(call)


def _ufunc(call):
    """Kernels that are exactly a ufunc: for any inputs (the Program cast them
    to one dtype), or on float arrays (``ufunc_on='float'``)."""
    opdef = call.opdef
    if opdef.ufunc_on == 'float' and not call.all_float_same(call.vars):
        return None
    if any(v is None for v in call.ins):
        return None
    u = call.kernel(opdef.ufunc)
    args = ', '.join(call.ins)
    if call.inplace is not None:
        return Lean('%s(%s, out=%s)' % (u, args, call.ins[call.inplace]))
    return Lean('%s(%s)' % (u, args))


def _float_kernel(call):
    """Unary kernels that convert integer inputs to float first: on a float
    input, the function they wrap."""
    fn = call.opdef.kernel.float_kernel
    if call.inplace is not None or not call.is_float(call.vars[0]):
        return None
    if getattr(fn, 'full_precision_kernel', None) is not None:
        fn = fn.full_precision_kernel          # float32_compute inside: no half input here
    return Lean('%s(%s)' % (call.kernel(fn, '_float'), call.ins[0]))


def _full_precision(call):
    """A ``float32_compute`` kernel called without its wrapper when no input
    is half precision (the wrapper would pass the arguments through)."""
    plain = getattr(call.opdef.kernel, 'full_precision_kernel', None)
    if plain is None or call.inplace is not None:
        return None
    for loc, v in zip(call.ins, call.vars):
        if loc is not None and (v is None or not call.no_half(v) or (
                isinstance(v, list) and any(x is None for x in v))):
            return None
    name = call.kernel(plain, '_plain')
    return Lean('%s(%s)' % (name, ', '.join(call.parts)))
