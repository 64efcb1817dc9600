"""Fusion passes: fewer, bigger ops, fewer temporaries.

``fuse_matmul_add_act``: ``matmul`` (+ ``add`` of a bias) (+ a one-input
elementwise op: ``relu``, ``tanh``, ``sigmoid``, ``gelu``...) becomes one
``fused_matmul_bias_act``, which adds the bias into the product's own buffer.

``fuse_conv_bn_add_act``: ``conv`` (+ ``batch_norm`` with running statistics)
(+ a residual ``add``) (+ an activation) becomes one ``fused_conv``.

``fuse_elewise_add_act_ops``: trees of fusable ops (declared elementwise or
broadcast and pure, ``ops/properties.py``) become one ``fused_elementwise`` whose
``expr`` attribute lists the original ops; its kernel runs the same kernels
and overwrites temporaries instead of allocating.

Only intermediates with a single reader that are private (not fetched,
persistable, captured or named in attributes) are absorbed, so every value
anyone can observe is still computed. The fused op sits where the last op of
its group was; inputs read earlier by the group must therefore be stable (not
rewritten in between).
"""
from ...ops import fused, registry
from ...ops.properties import unary_fusable
from ..operands import stored_attrs
from .analysis import ShapeClasses, Usage

MAX_GROUP = 64
# smaller groups cost more in the fused op's own call than they save (the
# inplace pass already lets a pair of elementwise ops share one buffer)
MIN_GROUP = 3


def _replace_readers(usage, removed, new_op, block_idx):
    gone = {id(o) for o in removed}
    for n in set(new_op.input_arg_names):
        usage.readers[n] = [r for r in usage.readers.get(n, ()) if id(r) not in gone]
        usage.readers[n].append(new_op)
    for n in new_op.output_arg_names:
        usage.defs[n] = [new_op]
    usage.block_of[id(new_op)] = block_idx


def _sole_reader(usage, name, block_idx):
    """The only op reading a private ``name`` in the same block, or None."""
    if not usage.private(name):
        return None
    rs = usage.readers.get(name, ())
    if len(rs) != 1 or usage.block_of.get(id(rs[0])) != block_idx:
        return None
    return rs[0]


def _rebuild(block, ops_to_drop, new_ops_at):
    """Drop ``ops_to_drop`` and put ``new_ops_at[id(op)]`` in place of op."""
    drop = {id(o) for o in ops_to_drop}
    out = []
    for op in block.ops:
        rep = new_ops_at.get(id(op))
        if rep is not None:
            out.append(rep)
        elif id(op) not in drop:
            out.append(op)
    block.ops = out
    block.program._bump()


# ---- matmul + bias + activation -------------------------------------------------

def _bias_add(add_op, cur, usage, shapes):
    """The other operand of ``add_op`` if it is a bias for ``cur``, else None."""
    names = add_op.input('x') + add_op.input('y')
    if len(names) != 2 or names.count(cur) != 1:
        return None
    other = names[1] if names[0] == cur else names[0]
    cv, ov, out = usage.var(cur), usage.var(other), usage.var(add_op.output_arg_names[0])
    if cv is None or ov is None or out is None or not usage.stable(other):
        return None
    if out.dtype != cv.dtype or not shapes.covers(cur, other):
        return None
    return other


def _matmul_chain(op, usage, shapes, bidx):
    """([ops], bias, act op) starting at matmul ``op``, or None."""
    if not all(usage.stable(n) for n in op.input_arg_names):
        return None
    chain, bias, act = [op], None, None
    cur = op.output_arg_names[0]
    r = _sole_reader(usage, cur, bidx)
    if r is not None and r.type == 'add':
        bias = _bias_add(r, cur, usage, shapes)
        if bias is not None:
            chain.append(r)
            cur = r.output_arg_names[0]
            r = _sole_reader(usage, cur, bidx)
    if r is not None and registry.has_op(r.type) and unary_fusable(registry.lookup(r.type)):
        av, cv = usage.var(r.output_arg_names[0]), usage.var(cur)
        if av is not None and cv is not None and av.dtype == cv.dtype and cv.dtype.kind == 'f':
            chain.append(r)
            act = r
    return (chain, bias, act) if len(chain) > 1 else None


def _location(op):
    """The user's line of ``op`` for the op fused from it (the generated code's
    comment and error messages name it)."""
    where = op.attrs.get('op_location')
    return {'op_location': where} if where else {}


def _fused_matmul(block, chain, bias, act):
    op = chain[0]
    attrs = {'transpose_x': bool(op.attrs.get('transpose_x', False)),
             'transpose_y': bool(op.attrs.get('transpose_y', False)),
             'act': act.type if act is not None else '',
             'act_attrs': (stored_attrs(registry.lookup(act.type), act)
                           if act is not None else []),
             'op_role': chain[-1].attrs.get('op_role', 'forward'), **_location(op)}
    return type(op)(block, 'fused_matmul_bias_act',
                    {'x': op.input('x'), 'y': op.input('y'),
                     'bias': [bias] if bias is not None else []},
                    {'out': chain[-1].output_arg_names}, attrs)


def _fuse_chains(program, feed_names, fetch_names, anchor, find, make):
    """Replace each chain of ops ``find(op, usage, shapes, block index)``
    returns for an ``anchor``-type op (``(ops, *parts)`` or None) by the one
    op ``make(block, ops, *parts)``, where the chain's last op was; an op
    joins one chain at most."""
    if not registry.has_op(anchor):
        return False
    usage = Usage(program, feed_names, fetch_names)
    shapes = ShapeClasses(program, usage)
    changed = False
    for block in program.blocks:
        drop, at, taken = [], {}, set()
        for op in block.ops:
            if op.type != anchor or id(op) in taken:
                continue
            found = find(op, usage, shapes, block.idx)
            if found is None or any(id(o) in taken for o in found[0]):
                continue
            chain = found[0]
            taken.update(id(o) for o in chain)
            new = make(block, *found)
            at[id(chain[-1])] = new
            drop.extend(chain[:-1])
            _replace_readers(usage, chain, new, block.idx)
        if at:
            _rebuild(block, drop, at)
            changed = True
    return changed


def fuse_matmul_add_act(program, feed_names, fetch_names):
    return _fuse_chains(program, feed_names, fetch_names, 'matmul', _matmul_chain,
                        _fused_matmul)


# ---- conv + batch norm (inference) + residual add + activation ----------------------

_CONV_FORMATS = ('NCHW', 'NHWC')


def _inference_bn(bn, cur, conv, usage):
    """Whether ``bn`` normalizes ``cur`` with its running statistics only:
    in the conv's layout, the statistics left as they are (written back in
    place, unchanged) and its other outputs unread."""
    if bn.input('x') != [cur] or not bn.attrs.get('use_global_stats', False):
        return False
    if bn.attrs.get('data_format', 'NCHW') != conv.attrs.get('data_format', 'NCHW'):
        return False
    for slot, stat in (('mean_out', 'running_mean'), ('variance_out', 'running_var')):
        if bn.output(slot) and bn.output(slot) != bn.input(stat):
            return False
    return all(not usage.readers.get(n) and usage.private(n)
               for slot in ('saved_mean', 'saved_inv_std') for n in bn.output(slot))


def _residual_add(add, cur, conv_out, usage, shapes):
    """The other operand of ``add`` (reading ``cur``) if it has the shape of
    the conv's output ``conv_out`` (a batch norm in between keeps it) and
    ``cur``'s dtype."""
    names = add.input('x') + add.input('y')
    if len(names) != 2 or names.count(cur) != 1:
        return None
    other = names[1] if names[0] == cur else names[0]
    cv, ov = usage.var(cur), usage.var(other)
    if cv is None or ov is None or cv.dtype != ov.dtype or not usage.stable(other):
        return None
    return other if shapes.same(conv_out, other) else None


def _conv_chain(op, usage, shapes, bidx):
    """([ops], bn op, residual, act op) starting at conv ``op``, or None."""
    if op.attrs.get('data_format', 'NCHW') not in _CONV_FORMATS or \
            not all(usage.stable(n) for n in op.input_arg_names):
        return None
    chain, bn, residual, act = [op], None, None, None
    cur = op.output('out')[0]
    r = _sole_reader(usage, cur, bidx)
    if r is not None and r.type == 'batch_norm' and _inference_bn(r, cur, op, usage):
        chain.append(r)
        bn, cur = r, r.output('out')[0]
        r = _sole_reader(usage, cur, bidx)
    if r is not None and r.type == 'add':
        residual = _residual_add(r, cur, op.output('out')[0], usage, shapes)
        if residual is not None:
            chain.append(r)
            cur = r.output('out')[0]
            r = _sole_reader(usage, cur, bidx)
    if r is not None and registry.has_op(r.type) and fused.is_activation(r.type) and \
            r.input_arg_names == [cur]:
        chain.append(r)
        act = r
    return (chain, bn, residual, act) if len(chain) > 1 else None


def _fused_conv(block, chain, bn, residual, act):
    conv = chain[0]
    attrs = {k: conv.attrs[k] for k in ('stride', 'padding', 'dilation', 'groups',
                                        'data_format') if k in conv.attrs}
    attrs.update(act=act.type if act is not None else '',
                 act_attrs=(stored_attrs(registry.lookup(act.type), act)
                            if act is not None else []),
                 op_role=chain[-1].attrs.get('op_role', 'forward'), **_location(conv))
    inputs = {'x': conv.input('x'), 'weight': conv.input('weight'),
              'bias': conv.input('bias'), 'residual': [residual] if residual else []}
    if bn is not None:
        attrs['bn_epsilon'] = bn.attrs.get('epsilon', 1e-5)
        inputs.update(bn_scale=bn.input('weight'), bn_shift=bn.input('bias'),
                      bn_mean=bn.input('running_mean'), bn_var=bn.input('running_var'))
    return type(conv)(block, 'fused_conv', inputs, {'out': chain[-1].output('out')}, attrs)


def fuse_conv_bn_add_act(program, feed_names, fetch_names):
    """conv (+ batch_norm with running statistics) (+ a residual add) (+ an
    activation) becomes one ``fused_conv`` (``ops/conv/fused_conv.py``): on
    oneDNN, one convolution with the rest as its post-ops."""
    return _fuse_chains(program, feed_names, fetch_names, 'conv', _conv_chain, _fused_conv)


# ---- elementwise trees -------------------------------------------------------------

def _groups(block, usage, kinds):
    """Trees of elementwise ops: {id(root): [ops in block order]}."""
    pos = {id(op): i for i, op in enumerate(block.ops)}
    members = {}          # id(op) -> list of ops in its tree (valid for roots)
    absorbed = set()
    for op in block.ops:
        if op.type not in kinds:
            continue
        tree = [op]
        for name in dict.fromkeys(op.input_arg_names):
            defs = usage.defs.get(name, ())
            if len(defs) != 1:
                continue
            p = defs[0]
            if (p.type not in kinds or id(p) not in members or id(p) in absorbed
                    or pos.get(id(p), len(pos)) >= pos[id(op)]
                    or _sole_reader(usage, name, block.idx) is not op
                    or op.input_arg_names.count(name) != 1
                    or not all(usage.stable(n) for t in members[id(p)]
                               for n in t.input_arg_names)):
                continue
            if len(tree) + len(members[id(p)]) > MAX_GROUP:
                continue
            tree.extend(members[id(p)])
            absorbed.add(id(p))
        members[id(op)] = tree
    return {k: sorted(v, key=lambda o: pos[id(o)]) for k, v in members.items()
            if k not in absorbed and len(v) >= MIN_GROUP}


def _expression(ops):
    """(external input names, expr) of a group (ops in block order)."""
    produced = {}
    inputs = []
    expr = []
    for j, op in enumerate(ops):
        opdef = registry.lookup(op.type)
        refs = []
        for slot in opdef.input_names:
            name = op.inputs[slot][0]
            if name in produced:
                refs.append(-(produced[name] + 1))
            else:
                if name not in inputs:
                    inputs.append(name)
                refs.append(inputs.index(name))
        expr.append([op.type, refs, stored_attrs(opdef, op)])
        produced[op.output_arg_names[0]] = j
    return inputs, expr


def _well_formed(op):
    opdef = registry.lookup(op.type)
    return (len(op.output_arg_names) == 1 and
            all(len(op.inputs.get(s, ())) == 1 for s in opdef.input_names))


def fuse_elementwise_block(program, block, usage, kinds):
    candidates = {t for t in kinds}
    groups = _groups(block, usage, candidates)
    if not groups:
        return False
    drop, at = [], {}
    for ops in groups.values():
        if not all(_well_formed(o) for o in ops):
            continue
        root = ops[-1]
        inputs, expr = _expression(ops)
        new = type(root)(block, 'fused_elementwise', {'xs': inputs},
                         {'out': root.output_arg_names},
                         {'expr': expr, 'op_role': root.attrs.get('op_role', 'forward'),
                          **_location(root)})
        at[id(root)] = new
        drop.extend(ops[:-1])
        _replace_readers(usage, ops, new, block.idx)
    if at:
        _rebuild(block, drop, at)
    return bool(at)


def fuse_elementwise(program, feed_names, fetch_names):
    kinds = fused.elementwise_ops()
    usage = Usage(program, feed_names, fetch_names)
    changed = False
    for block in program.blocks:
        changed |= fuse_elementwise_block(program, block, usage, kinds)
    return changed
