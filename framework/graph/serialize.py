"""Programs as plain, versioned, JSON-able dicts (and back).

The dict is what ``save_inference_model`` writes as JSON and what
``Program.clone`` round-trips through. ``program_from_dict`` checks the
structure (every field of the kind it must be) and never executes anything
from the data: op types must be registered ops (control-flow ops included),
attributes plain values, declared sub-block indices in range. Whether the program is well-formed (ops against
their declarations, variables defined before use) is ``verify``'s job; the
loaders run both.
"""
import numpy as np

from ..ops import registry
from .sub_blocks import declared_sub_blocks

FORMAT = 'framework.program'
VERSION = 1

# Paddle's own programs hold feed/fetch ops: they are read, so that the
# verifier names the op it refuses (this framework feeds and fetches by name)
PADDLE_IO_OPS = {'feed', 'fetch'}


class ModelFormatError(ValueError):
    """A model or program file this framework cannot load; the message names
    the file and what is wrong."""


class ProgramFormatError(ModelFormatError):
    pass


def _var_to_dict(v):
    from .program import Parameter
    d = {'name': v.name, 'shape': list(v._shape), 'dtype': str(v.dtype),
         'persistable': bool(v.persistable), 'stop_gradient': bool(v.stop_gradient)}
    if isinstance(v, Parameter) or v.is_parameter:
        d['parameter'] = True
        d['trainable'] = bool(getattr(v, 'trainable', True))
    if v.is_data:
        d['is_data'] = True
    if getattr(v, 'blocks_grad', False):
        d['blocks_grad'] = True
    if v._mixed_rank:
        d['mixed_rank'] = v._mixed_rank
    if getattr(v, 'optimize_attr', None) and v.optimize_attr.get('learning_rate', 1.0) != 1.0:
        d['learning_rate'] = float(v.optimize_attr['learning_rate'])
    return d


def program_to_dict(program):
    blocks = []
    for b in program.blocks:
        blocks.append({
            'idx': b.idx, 'parent_idx': b.parent_idx,
            'vars': [_var_to_dict(v) for v in b.vars.values()],
            'ops': [{'type': op.type, 'inputs': {k: list(v) for k, v in op.inputs.items()},
                     'outputs': {k: list(v) for k, v in op.outputs.items()},
                     'attrs': op.attrs} for op in b.ops],
        })
    return {'format': FORMAT, 'version': VERSION, 'random_seed': program.random_seed,
            'blocks': blocks}


def _check(cond, msg):
    if not cond:
        raise ProgramFormatError(msg)


def _plain_value(v, where):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):
        return [_plain_value(x, where) for x in v]
    raise ProgramFormatError("%s: attribute value of type %s is not allowed"
                             % (where, type(v).__name__))


def _is_int(v):
    return type(v) is int


def _names_map(slots, where):
    _check(isinstance(slots, dict) and all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(n, str) for n in v)
        for k, v in slots.items()), "%s: malformed inputs/outputs" % where)
    return slots


def _var_from_dict(b, vd, i):
    _check(isinstance(vd, dict) and isinstance(vd.get('name'), str) and vd['name'],
           "block %d: malformed variable" % i)
    name = vd['name']
    shape = vd.get('shape', [])
    _check(isinstance(shape, list) and all(_is_int(s) for s in shape),
           "variable %s: bad shape %r" % (name, shape))
    dtype = vd.get('dtype', 'float32')
    try:
        dtype = np.dtype(dtype) if isinstance(dtype, str) else None
    except (TypeError, ValueError):
        dtype = None
    _check(dtype is not None, "variable %s: unknown dtype %r" % (name, vd.get('dtype')))
    for flag in ('persistable', 'stop_gradient', 'parameter', 'trainable', 'is_data',
                 'blocks_grad'):
        _check(isinstance(vd.get(flag, False), bool),
               "variable %s: %s must be true or false" % (name, flag))
    lr = vd.get('learning_rate', 1.0)
    _check(type(lr) in (int, float), "variable %s: bad learning_rate %r" % (name, lr))
    _check(name not in b.vars, "block %d declares variable %s twice" % (i, name))
    if vd.get('parameter'):
        v = b.create_parameter(name, shape, dtype, vd.get('trainable', True))
    else:
        v = b.create_var(name, shape, dtype, vd.get('persistable', False),
                         vd.get('stop_gradient', False))
        v.is_data = vd.get('is_data', False)
    v.blocks_grad = vd.get('blocks_grad', False)
    if 'mixed_rank' in vd:
        _check(isinstance(vd['mixed_rank'], str) and vd['mixed_rank'],
               "variable %s: mixed_rank must be a non-empty string" % name)
        v._mixed_rank = vd['mixed_rank']
    if 'learning_rate' in vd:
        v.optimize_attr = {'learning_rate': float(lr)}


def _op_from_dict(b, od, i, known_op):
    _check(isinstance(od, dict) and isinstance(od.get('type'), str),
           "block %d: malformed op" % i)
    t = od['type']
    if not known_op(t):
        raise ProgramFormatError("block %d: unknown op type '%s' (not registered "
                                 "in this framework)" % (i, t))
    where = "op %s in block %d" % (t, i)
    ins = _names_map(od.get('inputs', {}), where)
    outs = _names_map(od.get('outputs', {}), where)
    attrs = od.get('attrs', {})
    _check(isinstance(attrs, dict), "%s: malformed attrs" % where)
    attrs = {k: _plain_value(v, '%s attr %s' % (where, k)) for k, v in attrs.items()}
    b.append_op(t, ins, outs, attrs)


def program_from_dict(d, known_op=None):
    from .program import Program, Block
    _check(isinstance(d, dict), "program data must be a JSON object")
    _check(d.get('format') == FORMAT, "not a framework program (format=%r)" % d.get('format'))
    ver = d.get('version')
    _check(_is_int(ver), "program has no integer version")
    _check(ver <= VERSION, "program format version %d is newer than this framework "
           "supports (%d); upgrade framework" % (ver, VERSION))
    blocks = d.get('blocks')
    _check(isinstance(blocks, list) and blocks, "program has no blocks")
    seed = d.get('random_seed', 0)
    _check(_is_int(seed) and 0 <= seed < 2 ** 63, "program has a bad random_seed %r" % (seed,))
    known_op = known_op or (lambda t: registry.has_op(t) or t in PADDLE_IO_OPS)
    p = Program()
    p.blocks = []
    p.random_seed = seed
    for i, bd in enumerate(blocks):
        _check(isinstance(bd, dict) and bd.get('idx') == i and _is_int(bd['idx']),
               "block %d is malformed" % i)
        parent = bd.get('parent_idx', -1)
        _check(_is_int(parent) and -1 <= parent < i, "block %d has a bad parent" % i)
        vars_, ops = bd.get('vars', []), bd.get('ops', [])
        _check(isinstance(vars_, list) and isinstance(ops, list),
               "block %d: vars and ops must be lists" % i)
        b = Block(p, i, parent)
        p.blocks.append(b)
        for vd in vars_:
            _var_from_dict(b, vd, i)
        for od in ops:
            _op_from_dict(b, od, i, known_op)
    declared = {n for b in p.blocks for n in b.vars}
    for b in p.blocks:
        for op in b.ops:
            for n in op.input_arg_names + op.output_arg_names:
                _check(n in declared or n == '',   # '' = no value (a loop var defined in the loop)
                       "op %s in block %d refers to undeclared variable '%s'" % (op.type, b.idx, n))
            for k in declared_sub_blocks(op.type):
                v = op.attrs.get(k)
                _check(v is None or (_is_int(v) and 0 < v < len(p.blocks)),
                       "op %s: sub-block index %r out of range" % (op.type, v))
    p.current_block_idx = 0
    return p
