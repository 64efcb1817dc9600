"""The IR verifier: is a Program well-formed?

``verify_program(program, defined)`` walks the program as the code generator
will (sub-blocks where the control-flow ops run them) and checks:

* every op is a registered op: a kernel op, or a control-flow op declared
  with ``registry.def_block_op`` whose ``block_rules`` (a ``BlockRules``,
  see ``control_flow.py``) say how its sub-blocks run;
* its input and output slots are the declared ones, with the declared
  number of names (one for a plain input, at most one for an optional one);
* its attributes: only declared names, each of its declared type and range
  (``ops/attr_types.py``), plus the IR's own ``IR_ATTRS`` on any op (role,
  stop-gradient, the user's source location, name-scope and device
  annotations); the executor's own markers (``op_inplace``, ``op_free``: set
  by passes on the executor's private copy) are refused;
* sub-block indices are in range, sub-blocks form no cycle, control flow is
  nested at most ``MAX_NESTING`` deep and the program, with each sub-block
  counted at every use, has at most ``MAX_EXPANDED_OPS`` ops (the size of
  the code generated for it), and loops nest at most ``MAX_LOOP_NESTING``
  deep (what Python compiles);
* every variable an op reads is defined before it runs: one of ``defined``
  (feeds and parameters), the output of an earlier op, or a value a
  control-flow op gives its sub-block (loop variables);
* variables have a supported dtype and a shape of ints >= -1, and the known
  part of every size (the product of its known dims) is at most
  ``MAX_NUMEL`` elements, for the declared variables and for what each
  op's ``infer_meta`` says it computes, so a small file cannot make the
  first run allocate gigabytes;
* what ``infer_meta`` computes from the declared inputs agrees with the
  declared outputs (same dtype, same rank, equal known dims), and the values
  a control-flow op passes in and out of its sub-blocks agree likewise;
* optionally, that the fetched names have values at the end.

The executor's pass pipeline runs it after each pass with
``FLAGS_verify_passes`` on (``graph/passes/__init__.py``), on its private
copy where the passes' own markers are allowed (``executor_copy``).

The loaders run it on every program read from a file; a failure raises
``VerifyError`` naming the block, the op and what is wrong.
"""
import collections

import numpy as np

from ..ops import attr_types, registry
from .operands import input_args, kernel_attrs, output_names

# the known part of a variable's size, in elements (2**28 float32 = 1 GiB):
# raise it to load a model with bigger fixed-size tensors
MAX_NUMEL = 2 ** 28
# control flow becomes nested statements of one generated function: Python
# allows 100 indentation levels and 20 nested loops in a function
MAX_NESTING = 90
MAX_LOOP_NESTING = 18
MAX_EXPANDED_OPS = 100000

DTYPES = frozenset(('bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
                    'uint64', 'float16', 'bfloat16', 'float32', 'float64', 'complex64',
                    'complex128'))
MAX_LOCATION_CHARS = 4096


def _location_type(value, inputs):
    """``op_location``: the user's ``'file:line'`` that built the op
    (``framework/_location.py``), kept in saved programs for error messages;
    ``op_namescope``/``op_device``: ``static.name_scope``/``device_guard``
    annotations, the same kind of bounded text."""
    if not isinstance(value, str):
        raise attr_types.AttrTypeError('expected str, got %r' % type(value).__name__)
    if len(value) > MAX_LOCATION_CHARS:
        raise attr_types.AttrTypeError('%d characters, more than %d'
                                       % (len(value), MAX_LOCATION_CHARS))


# attributes of the IR itself, on any op: (type, bounds) as in ops/attr_types.py
IR_ATTRS = {'op_role': (attr_types.parse('str'),
                        {'forward', 'backward', 'optimize', 'lr_sched', 'loss'}),
            'op_stop_gradient': (attr_types.parse('bool'), None),
            'op_location': (_location_type, None),
            'op_namescope': (_location_type, None),
            'op_device': (_location_type, None)}
# what the executor's passes set on its private copy; never read from a file
EXECUTOR_ATTRS = ('op_inplace', 'op_free', 'op_layout')


class VerifyError(ValueError):
    """A program that is not well-formed."""


class BlockRules:
    """What the verifier checks on a control-flow op beyond its registry
    declaration (slots, attribute types, ``sub_blocks``).

    ``required``: the attrs it must have (they have no meaningful default).
    ``paths(op)``: the ways its sub-blocks run, each a list of steps
    ``(block index, names defined on entry, names the block must define)``
    run one after the other from the op's own scope. ``check(op)``: the
    op's own consistency (lengths that must agree); raises ``ValueError``.
    ``same_meta(op)``: pairs of variable names that must have the same dtype
    and rank and agree on their known dims (a loop variable and its initial
    value, a branch output and the op's output). ``loop``: whether the code
    generator runs its sub-blocks in a Python loop."""

    def __init__(self, required, paths, check, same_meta, loop=False):
        self.required = tuple(required)
        self.paths, self.check, self.same_meta, self.loop = paths, check, same_meta, loop


def _fail(where, what):
    raise VerifyError('%s: %s' % (where, what))


def _where(block, i, op):
    return "op #%d '%s' in block %d" % (i, op.type, block.idx)


# ---- variables ---------------------------------------------------------------------

def _check_shape(shape, where, what):
    if not all(type(d) is int and d >= -1 for d in shape):
        _fail(where, '%s has an invalid shape %s (dims are ints >= -1)' % (what, list(shape)))
    known = 1
    for d in shape:
        if d > 0:
            known *= d
    if known > MAX_NUMEL:
        _fail(where, '%s has shape %s: %d elements, more than the %d a loaded program may '
                     'fix (framework.graph.verify.MAX_NUMEL)'
              % (what, list(shape), known, MAX_NUMEL))


def _check_vars(program):
    owner = {}
    for b in program.blocks:
        for name, v in b.vars.items():
            where = "variable '%s' in block %d" % (name, b.idx)
            if name in owner:
                _fail(where, 'also declared in block %d (names are program-wide)' % owner[name])
            owner[name] = b.idx
            if str(v.dtype) not in DTYPES:
                _fail(where, 'unsupported dtype %s' % v.dtype)
            _check_shape(v._shape, where, 'it')


# ---- ops ----------------------------------------------------------------------------

def _check_slots(where, slots, declared, what):
    for slot, names in slots.items():
        count = declared.get(slot)
        if count is None:
            _fail(where, "unknown %s slot '%s' (the op has %s)"
                  % (what, slot, ', '.join(declared) or 'none'))
        if (count == 1 and len(names) != 1) or (count == '?' and len(names) > 1):
            _fail(where, "%s '%s' takes %s, got %d: %s"
                  % (what, slot, 'one name' if count == 1 else 'at most one name', len(names),
                     names))
    for slot, count in declared.items():
        if count == 1 and slot not in slots:
            _fail(where, "%s '%s' is missing" % (what, slot))


def _registry_slots(opdef):
    ins = collections.OrderedDict()
    for name, variadic, optional in zip(opdef.input_names, opdef.variadic, opdef.optional):
        ins[name] = '*' if variadic else '?' if optional else 1
    outs = {n: '*' if variadic else '?'
            for n, variadic in zip(opdef.output_names, opdef.output_variadic)}
    return ins, outs


def _check_executor_attr(where, op, name, value):
    """``op_inplace``: the index of a single-name input whose buffer the op's
    in-place kernel overwrites; ``op_free``: names whose last use the op is;
    ``op_layout``: the outputs the op's layout kernel leaves in its backend's
    layout (``passes/layout.py``)."""
    if name == 'op_free':
        if not (isinstance(value, list) and all(isinstance(n, str) and n for n in value)):
            _fail(where, 'attribute op_free: expected a list of variable names, got %r' % (value,))
        return
    opdef = registry.lookup(op.type)
    if name == 'op_layout':
        gives = {n for lk in opdef.layout_kernels.values() for n in lk.gives}
        if not opdef.layout_kernels or not isinstance(value, list) or \
                not set(value) <= gives:
            _fail(where, 'attribute op_layout: %r names no output the op can leave in a '
                  "backend's layout" % (value,))
        return
    slots = list(opdef.input_names)
    if opdef.kernel_into is None or type(value) is not int or \
            not 0 <= value < len(slots) or len(op.inputs.get(slots[value], ())) != 1:
        _fail(where, 'attribute op_inplace: %r names no input the op can overwrite in place'
              % (value,))


def _check_attrs(where, op, check_one, declared_names, executor_copy=False):
    for name, value in op.attrs.items():
        if name in EXECUTOR_ATTRS and executor_copy:
            _check_executor_attr(where, op, name, value)
            continue
        if name in EXECUTOR_ATTRS:
            _fail(where, "attribute '%s' is the executor's own and is never read from a "
                         "program" % name)
        if name in IR_ATTRS:
            kinds, bounds = IR_ATTRS[name]
            try:
                attr_types.check(kinds, value, {}, bounds)
            except ValueError as e:
                _fail(where, 'attribute %s: %s' % (name, e))
            continue
        if name not in declared_names:
            _fail(where, "unknown attribute '%s' (the op has %s)"
                  % (name, ', '.join(declared_names) or 'none'))
        try:
            check_one(name, value)
        except ValueError as e:
            _fail(where, 'attribute %s: %s' % (name, e))


def _input_counts(op):
    return {slot: len(names) for slot, names in op.inputs.items()}


def _check_registry_op(where, op, opdef, executor_copy=False):
    ins, outs = _registry_slots(opdef)
    _check_slots(where, op.inputs, ins, 'input')
    _check_slots(where, op.outputs, outs, 'output')
    counts = _input_counts(op)
    _check_attrs(where, op, lambda n, v: opdef.check_attr(n, v, counts), opdef.attr_names,
                 executor_copy)


def _check_block_op(where, op, opdef, n_blocks, executor_copy=False):
    """The registry checks, then what ``opdef.block_rules`` adds."""
    _check_registry_op(where, op, opdef, executor_copy)
    rules = opdef.block_rules
    for name in rules.required:
        if name not in op.attrs:
            _fail(where, "attribute '%s' is missing" % name)
    for name in opdef.sub_blocks:
        v = op.attrs.get(name)
        if v is not None and not 0 < v < n_blocks:
            _fail(where, 'attribute %s: sub-block index %d is out of range (the program has '
                         'blocks 1..%d)' % (name, v, n_blocks - 1))
    try:
        rules.check(op)
    except ValueError as e:
        _fail(where, str(e))


def _check_same_meta(where, program, op, rules):
    for a, b in rules.same_meta(op):
        if not a or not b:
            continue
        va, vb = program_var(program, a), program_var(program, b)
        if va._mixed_rank or vb._mixed_rank:
            continue      # a cond output whose rank is the branch's (Variable._mixed_rank)
        sa, sb = tuple(va._shape), tuple(vb._shape)
        if va.dtype != vb.dtype or len(sa) != len(sb) or any(
                x >= 0 and y >= 0 and x != y for x, y in zip(sa, sb)):
            _fail(where, "'%s' (%s %s) and '%s' (%s %s) must have the same dtype and shape"
                  % (a, va.dtype, list(sa), b, vb.dtype, list(sb)))


# ---- shapes and dtypes (infer_meta) ---------------------------------------------------

def meta_args(program, opdef, op):
    """``opdef.infer_meta``'s arguments for ``op``: its input Variables, then
    its attributes (defaults where the op has none)."""
    return (input_args(opdef, op, lambda n: program_var(program, n))
            + kernel_attrs(opdef, op))


def program_var(program, name):
    try:
        return program.var(name)
    except ValueError:
        raise VerifyError("variable '%s' is not declared in the program" % name) from None


def _check_meta(where, program, op, opdef):
    try:
        metas = opdef.infer_meta(*meta_args(program, opdef, op))
    except VerifyError:
        raise
    except Exception as e:      # noqa: BLE001 - any failure means the op does not fit
        _fail(where, 'its inputs and attributes do not fit the op: %s: %s'
              % (type(e).__name__, e))
    metas = list(metas) if isinstance(metas, (list, tuple)) else [metas]
    names = output_names(opdef, op)
    if opdef.variadic_out and len(names) != len(metas):
        _fail(where, 'it computes %d outputs but names %d' % (len(metas), len(names)))
    for n, m in zip(names, metas):
        if n is None:
            continue
        shape = tuple(getattr(m, 'shape', ()))
        _check_shape(shape, where, "its output '%s'" % n)
        v = program_var(program, n)
        dtype = np.dtype(getattr(m, 'dtype', v.dtype))
        if dtype != v.dtype:
            _fail(where, "output '%s' is declared %s but the op computes %s" % (n, v.dtype, dtype))
        declared = tuple(v._shape)
        if len(declared) != len(shape) or any(
                a >= 0 and b >= 0 and a != b for a, b in zip(declared, shape)):
            _fail(where, "output '%s' is declared with shape %s but the op computes shape %s"
                  % (n, list(declared), list(shape)))


# ---- walking the program ----------------------------------------------------------------

class _Walk:
    def __init__(self, program, check_meta, executor_copy=False):
        self.program = program
        self.check_meta = check_meta
        self.executor_copy = executor_copy
        self.expanded = 0
        self.checked = set()      # ids of ops whose signature and metas were checked
        self.declared = {n for b in program.blocks for n in b.vars}

    def block(self, idx, env, stack, loops=0):
        """Check block ``idx`` run with names ``env`` defined, inside the
        blocks ``stack`` and ``loops`` loops. ``env`` (a set) gets the names
        the block defines; returns them, for the caller to take out again
        when the block's scope ends (no copies of ``env``)."""
        where = 'block %d' % idx
        if idx in stack:
            _fail(where, 'sub-blocks form a cycle (%s)' % ' -> '.join(map(str, stack + [idx])))
        if len(stack) > MAX_NESTING:
            _fail(where, 'control flow nested more than %d deep' % MAX_NESTING)
        if loops > MAX_LOOP_NESTING:
            _fail(where, 'loops nested more than %d deep' % MAX_LOOP_NESTING)
        added = []
        for i, op in enumerate(self.program.blocks[idx].ops):
            self.expanded += 1
            if self.expanded > MAX_EXPANDED_OPS:
                _fail(where, 'the program expands to more than %d ops (sub-blocks counted at '
                             'each use)' % MAX_EXPANDED_OPS)
            self.op(self.program.blocks[idx], i, op, env, added, stack + [idx], loops)
        return added

    def op(self, block, i, op, env, added, stack, loops):
        where = _where(block, i, op)
        if not registry.has_op(op.type):
            _fail(where, 'unknown op type (not registered in this framework)')
        opdef = registry.lookup(op.type)
        rules = opdef.block_rules
        first = id(op) not in self.checked
        self.checked.add(id(op))
        if first:
            self.signature(where, op, opdef)
        for n in op.input_arg_names:
            if n and n not in env:
                _fail(where, "reads variable '%s' before anything defines it" % n)
        if rules is not None:
            for path in rules.paths(op):
                self.path(where, path, env, stack, loops + rules.loop)
        _define(env, added, op.output_arg_names)
        if self.executor_copy:      # the generated code deletes these locals here
            env.difference_update(op.attrs.get('op_free', ()))

    def signature(self, where, op, opdef):
        rules = opdef.block_rules
        for n in op.input_arg_names + op.output_arg_names:
            if n == '' and rules is None:
                _fail(where, 'an empty variable name')
            if n and n not in self.declared:
                _fail(where, "refers to variable '%s', which the program does not declare" % n)
        if rules is not None:
            _check_block_op(where, op, opdef, len(self.program.blocks), self.executor_copy)
            if self.check_meta:
                _check_same_meta(where, self.program, op, rules)
            return
        _check_registry_op(where, op, opdef, self.executor_copy)
        if self.check_meta:
            _check_meta(where, self.program, op, opdef)

    def path(self, where, steps, env, stack, loops):
        """Sub-blocks run one after the other in one scope, which ends after them."""
        added = []
        for idx, entry, exits in steps:
            if idx is None:
                continue
            _define(env, added, entry)
            added.extend(self.block(idx, env, stack, loops))
            missing = [n for n in exits if n and n not in env]
            if missing:
                _fail(where, "block %d does not define %s, which the op takes from it"
                      % (idx, ', '.join("'%s'" % n for n in missing)))
        env.difference_update(added)


def _define(env, added, names):
    for n in names:
        if n and n not in env:
            env.add(n)
            added.append(n)


def verify_program(program, defined=None, check_meta=True, fetch_names=(),
                   executor_copy=False):
    """Raise ``VerifyError`` unless ``program`` is well-formed (see the module
    doc). ``defined``: the names that have values before the program runs;
    by default its data (feed) variables and persistable variables.
    ``fetch_names``: names that must have a value when the global block ends.
    ``executor_copy``: the program is the executor's private copy after its
    passes, so the markers they set (``op_inplace``, ``op_free``) are allowed,
    checked, and a freed name has no value after the op that frees it."""
    if defined is None:
        defined = {n for b in program.blocks for n, v in b.vars.items()
                   if v.is_data or v.persistable}
    _check_vars(program)
    env = set(defined)
    _Walk(program, check_meta, executor_copy).block(0, env, [])
    missing = [n for n in fetch_names if n not in env]
    if missing:
        _fail('the program', 'nothing computes the fetched %s'
              % ', '.join("'%s'" % n for n in missing))
    return program


def refuse_process_local_ops(program):
    """Raise ``VerifyError`` if a loaded ``program`` holds an op that calls
    Python objects registered in the process that built it (effect
    ``'callback'``: py_func's func_id): a program read from a file must not
    reach the loading process's callables."""
    for block in program.blocks:
        for i, op in enumerate(block.ops):
            if registry.has_op(op.type) and 'callback' in registry.lookup(op.type).effects:
                _fail(_where(block, i, op), "calls a Python function of the process that built "
                      "the program; a program loaded from a file cannot hold '%s' ops" % op.type)
