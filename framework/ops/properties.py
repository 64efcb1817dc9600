"""The vocabulary of op properties: what an op *is*, declared on its ``OpDef``
(``def_op(..., pattern=..., effects=...)``) and read by the passes, the code
generator, the verifier, auto_cast and FLOP counting. No table keyed by op
names lives outside the op: a new op that declares these is fused, computed
in place, cast and counted like the ops before it.

``pattern``: how the outputs relate to the inputs (TVM's ``TOpPattern``).
Every op declares one (``tests/test_op_properties.py`` fails otherwise):

* ``'elementwise'``  one tensor input; the output has its shape and each
  element is computed from the element at the same place.
* ``'broadcast'``    several tensor inputs broadcast against each other; each
  output element is computed from the elements at its broadcast place.
* ``'reduce'``       folds the axes named by attribute ``axis`` (None: all),
  keeping them as size 1 with ``keepdim``.
* ``'view'``         rearranges or reinterprets its input's elements without
  arithmetic (reshape, transpose, slicing); the kernel may return a view.
* ``'opaque'``       anything else.

Kernels of elementwise, broadcast and reduce ops return new arrays, never an
input or a view of one (the registry's tests check it on every test case), so
the in-place pass may later write into them; an opaque op that guarantees the
same declares ``fresh=True``.

``effects``: what running the op does besides computing its outputs:
``'random'`` (draws from the generator: never merged, hoisted or folded),
``'stateful'`` (writes an input in place: its ``inplace_map``), ``'io'``
(prints, asserts, reads files: runs even when nothing reads its outputs),
``'collective'`` (talks to the other ranks: every rank must run it), and
``'callback'`` (calls Python objects of the process that built the program: a
program read from a file may not hold it). An op without effects is pure.

Per pattern, more properties are required (declared, None where there is none):

* elementwise and broadcast ops: ``ufunc``, the numpy ufunc their kernel
  exactly is (``ufunc_on='any'``: for inputs of one dtype; ``'float'``: for
  float inputs that are not half precision), and ``flops``;
* broadcast ops: ``identity``, ``{input name: e}`` where ``op(x, e) == x``
  exactly (``add``: 0 on either side, ``subtract``: 0 on the right);
* reduce ops: ``identity``, the value of the reduction over nothing, and ``flops``;
* view ops: ``passthrough`` (below).

The others, where they apply:

* ``passthrough``: the input the op returns unchanged whenever its output has
  that input's (symbolic) shape and dtype (``reshape`` to its own shape,
  ``cast`` to its own dtype); ``(input, predicate)`` when the attributes must
  also say so (``scale`` by 1 plus 0: ``predicate(attrs) -> bool``).
* ``kernel_into``: ``fn(*inputs, out)`` computing the op into ``out`` (an
  input's buffer); derived from a ufunc, declared otherwise (``relu``).
* ``inference``: ``fn(inputs, outputs, attrs) -> (type, inputs, outputs,
  attrs)`` or None: the op's inference form (``dropout`` becomes ``scale``),
  used by ``Program.clone(for_test=True)`` and inference export.
* ``amp``: the auto_cast class (below); ``amp_inputs`` the inputs whose
  dtypes decide and are cast (default all); ``paddle_names`` the Paddle op
  names the op stands for in Paddle's AMP lists (its own name counts too);
  ``amp_names(args)`` the names for one call when they depend on it (a conv
  is conv2d, depthwise_conv2d or conv3d); ``amp_rule(ctx, ins, attrs, dst)``
  an op's own casting when Paddle splits it in two (conv's bias).
* ``flops(ins, outs, attrs)``: the FLOPs ``paddle.flops`` counts for the op
  in a static Program, as Paddle's counter does: ``ins``/``outs`` map slot
  names to shapes (None: no input there); None for ops Paddle counts as 0.
* ``lean``: the code generator's specializer (``graph/lean.py``) for an op
  whose numpy call it can write out directly.

AMP classes (Paddle's op lists): ``'white'`` computes in float16/bfloat16,
``'black'`` in float32 at O1, ``'always_black'`` in float32 at O1 and O2
(slow or inexact low-precision gradients), ``'gray'`` follows its inputs,
``'never'`` is not cast at all (casts, control flow, prints, shape queries).
"""
PATTERNS = ('elementwise', 'broadcast', 'reduce', 'view', 'opaque')
EFFECTS = ('random', 'stateful', 'io', 'collective', 'callback')
AMP_CLASSES = ('white', 'black', 'always_black', 'gray', 'never')
UFUNC_DOMAINS = ('any', 'float')
# patterns whose kernels always return new arrays (see the module doc)
FRESH_PATTERNS = ('elementwise', 'broadcast', 'reduce')
# the properties each pattern requires to be declared (None allowed)
REQUIRED = {
    'elementwise': ('ufunc', 'flops'),
    'broadcast': ('ufunc', 'identity', 'flops'),
    'reduce': ('identity', 'flops'),
    'view': ('passthrough',),
    'opaque': (),
}
# effects that make an op run even when nothing reads its outputs
KEPT_EFFECTS = frozenset(('stateful', 'io', 'collective', 'callback'))


class _Undeclared:
    """A property the op did not declare (distinct from a declared None)."""
    __slots__ = ()

    def __repr__(self):
        return 'UNDECLARED'


UNDECLARED = _Undeclared()


def check(op, pattern, effects, ufunc_on, amp, amp_inputs, identity, passthrough):
    """Raise ValueError unless the declaration is well-formed for ``op`` (its
    inputs named, vocabularies respected)."""
    if pattern is not UNDECLARED and pattern not in PATTERNS:
        raise ValueError("pattern must be one of %s, got %r" % (', '.join(PATTERNS), pattern))
    unknown = set(effects) - set(EFFECTS)
    if unknown:
        raise ValueError("unknown effects %s (known: %s)" % (sorted(unknown), ', '.join(EFFECTS)))
    if op.inplace_map and 'stateful' not in effects:
        raise ValueError("writes inputs in place (inplace_map) but does not declare effect "
                         "'stateful'")
    if ufunc_on not in UFUNC_DOMAINS:
        raise ValueError("ufunc_on must be one of %s, got %r" % (UFUNC_DOMAINS, ufunc_on))
    if amp not in AMP_CLASSES:
        raise ValueError("amp must be one of %s, got %r" % (', '.join(AMP_CLASSES), amp))
    passed = value(passthrough)
    for what, given in (('amp_inputs', amp_inputs or ()),
                        ('identity', identity if isinstance(identity, dict) else ()),
                        ('passthrough', [passed[0] if isinstance(passed, tuple) else passed]
                         if passed else ())):
        unknown = set(given) - set(op.input_names)
        if unknown:
            raise ValueError("%s names inputs it does not have: %s"
                             % (what, ', '.join(sorted(unknown))))


def missing(op):
    """The properties ``op``'s pattern requires that it does not declare."""
    return [p for p in REQUIRED.get(op.pattern, ()) if not declared(getattr(op, p))]


def declared(value):
    return value is not UNDECLARED


def value(v):
    """The property's value, None when undeclared."""
    return None if v is UNDECLARED else v


# ---- FLOP formulas (Paddle's static counter: batch dimension left out) ----------------

def numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def per_sample(shape):
    """Elements per sample: the first (batch) dimension left out, as Paddle counts."""
    return numel(shape[1:])


def flops_per_input_element(ins, outs, attrs):
    """Paddle's count for elementwise arithmetic: one per element of ``x``."""
    return per_sample(ins['x'])


def ufunc_kernel_into(ufunc, n_in, on):
    """``fn(*inputs, out)`` for an op of ``n_in`` inputs whose kernel is
    ``ufunc`` (on inputs of domain ``on``, see ``ufunc_on``). Like every
    ``kernel_into`` it raises TypeError or ValueError, writing nothing, when
    ``out`` cannot hold exactly the kernel's result (another dtype, a shape
    that does not fit, half precision where the kernel computes in float32)."""
    if on == 'float':
        def into(*args):
            d = args[-1].dtype
            if d.kind not in 'fc' or d.itemsize < 4:
                raise TypeError('the kernel computes this dtype otherwise: %s' % d)
            return ufunc(*args[:-1], out=args[-1], casting='no')
    elif n_in == 1:
        def into(x, out):
            return ufunc(x, out=out, casting='no')
    elif n_in == 2:
        def into(x, y, out):
            return ufunc(x, y, out=out, casting='no')
    else:
        def into(*args):
            return ufunc(*args[:-1], out=args[-1], casting='no')
    return inline_form(into, ufunc)


def inline_form(into, ufunc, *trailing):
    """Mark ``into`` as ``ufunc(*inputs, *trailing, out=out, casting='no')``,
    so generated code may make that call itself (a Python frame less per op,
    where it knows the inputs are of the domain the ufunc is exact on)."""
    into.inline = (ufunc, trailing)
    return into


def fusable(op):
    """An op the elementwise fusion may put into a ``fused_elementwise``:
    elementwise or broadcast, pure, one output, one tensor per input."""
    return (op.pattern in ('elementwise', 'broadcast') and op.pure and op.n_out == 1
            and not any(op.variadic))


def unary_fusable(op):
    """A fusable op of one input (activations after a matmul, split batching)."""
    return fusable(op) and op.n_in == 1

