"""Static control flow: ``cond`` and ``while`` ops with sub-blocks, and their grads.

``cond`` and ``while`` are single ops with explicit inputs and outputs (the
ONNX ``If``/``Loop`` shape):

* ``cond``:  inputs ``Cond`` (the predicate) and ``Input`` (outer variables the
  branches read); outputs ``Out``; attrs ``true_block``/``false_block`` and the
  names each branch yields (``true_outs``/``false_outs``).
* ``while``: inputs ``X`` (initial loop values) and ``Input`` (outer reads);
  outputs ``Out`` (final loop values) and, when training, ``History``; attrs
  ``cond_block``, ``body_block``, ``loop_vars`` (placeholder names the blocks
  read), ``cond_out`` and ``body_outs``.

Their gradients are ops too: the grad of a ``cond`` is a ``cond`` whose branches
hold the grad ops of each branch; the grad of a ``while`` is a ``while_grad``
that walks the saved per-iteration loop values backwards, recomputing what the
grad ops read and running them. What is recomputed is the grad op's own copy
of the forward block, cut down to what its grad ops read
(``graph/recompute.py``): the forward's blocks stay as they are, and the
passes optimise the copies like any other block. The code generator emits all
of them inline (an ``if``/``while`` statement in the generated function), so
control flow costs no more than Python's own.

All three are registry ops (``registry.def_block_op``, at the end of this
module): the registry declares their slots, attribute types and
``sub_blocks``, and holds the hooks the static side calls instead of a
kernel: ``emit`` (codegen), ``block_grad`` (static backward) and
``block_rules`` (the verifier). Their captured
``Input`` lists are ``sub_blocks.blocks_outer_reads`` of their blocks.
"""
import numpy as np

from .._nest import flatten_tree, unflatten_tree
from ..ops import registry
from ..ops.modes import in_static_mode
from . import backward, codegen, recompute, verify
from .passes.analysis import persistable_writes
from .program import Variable, default_main_program
from .sub_blocks import blocks_outer_reads


# ---- nested structures ----------------------------------------------------------

def _describe(tree):
    kind, body = tree
    if kind == 'leaf':
        return 'x'
    if kind == 'dict':
        return '{%s}' % ', '.join('%s: %s' % (k, _describe(v)) for k, v in body)
    inner = ', '.join(_describe(x) for x in body)
    return '(%s)' % inner if kind == 'tuple' else '[%s]' % inner


def _as_var(value, what):
    if isinstance(value, Variable):
        return value
    if value is None:
        return None
    if isinstance(value, (bool, int, float, np.ndarray, np.generic)):
        from .program import constant
        return constant(np.asarray(value, dtype=np.float32 if isinstance(value, float) else None))
    raise TypeError("%s returned a %s; only Variables, Python numbers and nested "
                    "lists/tuples/dicts of them are allowed" % (what, type(value).__name__))


def _build_block(program, fn, args, what):
    block = program._create_block()
    program._begin_rebinds()
    ended = False
    try:
        result = fn(*args)
        leaves, tree = flatten_tree(result)
        # Variables updated in place in the block (x[i] = v) get their old
        # values back; the block's results hold the new ones
        leaves = program._end_rebinds(leaves)
        ended = True
        leaves = [_as_var(v, what) for v in leaves]
    finally:
        if not ended:
            program._end_rebinds([])
        program._rollback()
    return block, leaves, tree


def _shape_text(v):
    return '(%s)' % v._mixed_rank if v._mixed_rank else list(v.shape)


def _merge_shape(a, b):
    if len(a) != len(b):
        return None
    return [x if x == y else -1 for x, y in zip(a, b)]


# ---- cond ------------------------------------------------------------------------------

def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """Run ``true_fn()`` if ``pred`` else ``false_fn()``; both must return the
    same nested structure of values. In static mode this builds one ``cond`` op."""
    if not in_static_mode():
        fn = true_fn if bool(pred) else false_fn
        return fn() if fn is not None else None
    if not isinstance(pred, Variable):
        raise TypeError("static.nn.cond: pred must be a boolean Variable, got %s"
                        % type(pred).__name__)
    if pred.size not in (1, -1):
        raise ValueError("static.nn.cond: pred must have exactly one element, got shape %s"
                         % pred.shape)
    program = default_main_program()
    none = lambda: None  # noqa: E731
    tb, tleaves, ttree = _build_block(program, true_fn or none, (), 'cond true_fn')
    fb, fleaves, ftree = _build_block(program, false_fn or none, (), 'cond false_fn')
    if ttree != ftree or len(tleaves) != len(fleaves):
        raise ValueError(
            "static.nn.cond: true_fn and false_fn must return the same structure, "
            "got %s from true_fn and %s from false_fn" % (_describe(ttree), _describe(ftree)))
    for i, (t, f) in enumerate(zip(tleaves, fleaves)):
        if (t is None) != (f is None):
            raise ValueError("static.nn.cond: output %d is None in one branch only" % i)
    outs = make_cond_op(program, pred, tb, fb, tleaves, fleaves)
    return unflatten_tree(ttree, outs) if ttree[0] != 'leaf' or outs else None


def make_cond_op(program, pred, tb, fb, tvals, fvals, what='static.nn.cond'):
    """Append a ``cond`` op choosing between branch values ``tvals``/``fvals``
    (Variables built in blocks ``tb``/``fb``). A value may be None on both
    sides (no output) or, for values the caller guarantees are only read on
    the path that defined them, on one side only (undefined at run time)."""
    parent = program.current_block()
    outs, tnames, fnames = [], [], []
    for i, (t, f) in enumerate(zip(tvals, fvals)):
        if t is None and f is None:
            outs.append(None)
            continue
        ref = t if t is not None else f
        ranks = None
        if t is not None and f is not None:
            if t.dtype != f.dtype:
                raise TypeError("%s: output %d has dtype %s in the true branch but %s in the "
                                "false branch" % (what, i, t.dtype, f.dtype))
            shape = _merge_shape(t.shape, f.shape)
            if shape is None or t._mixed_rank or f._mixed_rank:
                shape = ref.shape
                ranks = '%s: shape %s in the true branch and %s in the false branch' % (
                    what, _shape_text(t), _shape_text(f))
        else:
            shape = ref.shape
        out = parent.create_var(program._names('cond.out'), shape, ref.dtype,
                                stop_gradient=all(v is None or v.stop_gradient for v in (t, f)))
        if ranks is not None:
            # its rank is only known when the program runs: it may be returned,
            # fetched or replaced, and an op that reads it says why it cannot
            out._mixed_rank = ranks
        outs.append(out)
        tnames.append(t.name if t is not None else '')
        fnames.append(f.name if f is not None else '')
    captured = sorted(blocks_outer_reads(program, [tb.idx, fb.idx], tnames + fnames))
    parent.append_op('cond', {'Cond': [pred.name], 'Input': captured},
                     {'Out': [o.name for o in outs if o is not None]},
                     {'true_block': tb.idx, 'false_block': fb.idx, 'true_outs': tnames,
                      'false_outs': fnames, 'op_role': _role()})
    return outs


def _role():
    from .program import _Defaults
    return _Defaults.op_role


def _pred_value(v):
    a = np.asarray(v)
    if a.size != 1:
        raise ValueError("control-flow condition must have exactly one element, got shape %s"
                         % list(a.shape))
    return bool(a.reshape(()))


def _emit_cond(code, op):
    program = code.block.program
    pred = code.ref(op.input('Cond')[0])
    for n in op.input('Input'):
        code.ref(n)
    outs = [code.new(n) for n in op.output('Out')]
    code.emit('if _pred(%s):' % pred, op)
    written = persistable_writes(program, op)
    for side, last in (('true', False), ('false', True)):
        code.forget(written)        # what the other branch wrote does not hold here
        sub = code.sub(program.block(op.attr(side + '_block')))
        sub.emit('pass')
        fwd = op.attr(side + '_fwd_block')
        if fwd is not None:          # a grad cond first recomputes the forward branch
            sub.sub(program.block(fwd), 0).emit_ops(program.block(fwd).ops)
        sub.emit_ops(sub.block.ops)
        for o, src in zip(outs, op.attr(side + '_outs')):
            sub.emit('%s = %s' % (o, sub.ref(src) if src else 'None'))
        if not last:
            code.emit('else:')


def _output_grads(program, op, grads):
    """Grads of a control-flow op's outputs (zeros where missing), or None
    when no output has one."""
    outs = op.output('Out')
    gouts = [grads.get(n) for n in outs]
    if all(g is None for g in gouts):
        return None
    from ..ops.creation import zeros_like
    return [g if g is not None else zeros_like(program.var(n))
            for g, n in zip(gouts, outs)]


def _cond_grad(block, op, grads, reach):
    """Grad of a cond: a cond over the grad ops of each branch."""
    program = block.program
    gouts = _output_grads(program, op, grads)
    if gouts is None:
        return {}
    from ..ops.creation import zeros_like
    wanted = [n for n in op.input('Input') if n in reach]
    if not wanted:
        return {}
    wanted_vars = [program.var(n) for n in wanted]
    parent = program.current_block()
    branch_blocks, branch_outs, fwd_blocks = [], [], []
    for side in ('true', 'false'):
        # each grad branch first recomputes (its own copy of) the forward branch,
        # so the grad ops can read the branch's intermediate values even when
        # forward and backward run as separate plans; the branch of a grad
        # cond (a second derivative) is its recompute block, then its grad ops
        fwd = [program.block(op.attr(a)) for a in (side + '_fwd_block', side + '_block')
               if op.attr(a) is not None]
        rec = recompute.Recompute(program, fwd, fwd[0].parent_idx)
        gb = program._create_block(rec.block.idx)
        try:
            pairs = [(rec.var(n), g) for n, g in zip(op.attr(side + '_outs'), gouts) if n]
            res = backward.grad_vars(rec.block, [t for t, _ in pairs], [g for _, g in pairs],
                                     wanted_vars) if pairs else {}
            names = []
            for v in wanted_vars:
                g = res.get(v.name)
                if g is None:
                    g = zeros_like(v)
                names.append(g.name)
        finally:
            program.current_block_idx = parent.idx
        rec.finish(gb, names)
        branch_blocks.append(gb)
        branch_outs.append(names)
        fwd_blocks.append(rec.block)
    captured = sorted(blocks_outer_reads(program, [b.idx for b in branch_blocks + fwd_blocks],
                                         branch_outs[0] + branch_outs[1]))
    out_vars = [parent.create_var(program._names(v.name + '@GRAD.cond'), v.shape, v.dtype)
                for v in wanted_vars]
    parent.append_op('cond', {'Cond': op.input('Cond'), 'Input': captured},
                     {'Out': [v.name for v in out_vars]},
                     {'true_block': branch_blocks[0].idx, 'false_block': branch_blocks[1].idx,
                      'true_fwd_block': fwd_blocks[0].idx, 'false_fwd_block': fwd_blocks[1].idx,
                      'true_outs': branch_outs[0], 'false_outs': branch_outs[1],
                      'op_role': 'backward'})
    return {n: [v] for n, v in zip(wanted, out_vars)}


# ---- while -------------------------------------------------------------------------------

def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """``while cond(*loop_vars): loop_vars = body(*loop_vars)``; returns the final
    loop values. In static mode this builds one ``while`` op.

    A loop variable whose shape the body changes (``x = concat([x, x])``) gets
    -1 in the dims that change; one whose dtype the body changes starts as the
    body's dtype (its initial value is cast). Only its rank must stay."""
    if not callable(cond) or not callable(body):
        raise TypeError("static.nn.while_loop: cond and body must be callables")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise ValueError("static.nn.while_loop: loop_vars must be a non-empty list or tuple")
    if not in_static_mode():
        vals = list(loop_vars)
        while bool(cond(*vals)):
            res = body(*vals)
            vals = list(res) if isinstance(res, (list, tuple)) else [res]
        return vals
    program = default_main_program()
    parent = program.current_block()
    leaves, tree = flatten_tree(list(loop_vars))
    inits = [_as_var(v, 'while_loop loop_vars') for v in leaves]
    metas = [(tuple(v.shape), v.dtype) for v in inits]
    # each retyping generalizes at least one dim or dtype, so this ends
    for _ in range(sum(len(s) + 1 for s, _ in metas) + 1):
        built = _build_loop(program, cond, body, tree, inits, metas)
        new_metas = [_loop_var_meta(i, leaves[i], m, out)
                     for i, (m, out) in enumerate(zip(metas, built['body_outs']))]
        if new_metas == metas:
            break
        _discard(program, parent, built)
        metas = new_metas
    return _append_while(program, parent, tree, inits, built, is_test)


def _build_loop(program, cond, body, tree, inits, metas):
    """Placeholders with ``metas`` and the cond/body blocks built on them."""
    parent = program.current_block()
    base = program._names('while')
    placeholders = [parent.create_var('%s.loop_var_%d' % (base, i), shape, dtype,
                                      stop_gradient=v.stop_gradient)
                    for i, (v, (shape, dtype)) in enumerate(zip(inits, metas))]
    first_block = len(program.blocks)
    args = unflatten_tree(tree, placeholders)
    cb, cleaves, _ = _build_block(program, cond, args, 'while_loop cond')
    if len(cleaves) != 1 or not isinstance(cleaves[0], Variable):
        raise TypeError("static.nn.while_loop: cond must return one boolean Variable")
    bb, bleaves, btree = _build_block(program, body, args, 'while_loop body')
    if btree != tree and len(bleaves) != len(inits):
        raise ValueError("static.nn.while_loop: body must return the same structure as "
                         "loop_vars: got %s, expected %s" % (_describe(btree), _describe(tree)))
    for i, new in enumerate(bleaves):
        if not isinstance(new, Variable):
            raise TypeError("static.nn.while_loop: body returned %r for loop variable %d ('%s')"
                            % (new, i, placeholders[i].name))
    return {'placeholders': placeholders, 'cond_block': cb, 'cond_out': cleaves[0],
            'body_block': bb, 'body_outs': bleaves, 'first_block': first_block}


class LoopVarRankError(ValueError):
    """The body gives loop variable ``index`` another rank: ``value`` is what it gives."""

    def __init__(self, message, index, value):
        super().__init__(message)
        self.index, self.value = index, value


def _loop_var_meta(i, orig, meta, new):
    """The (shape, dtype) a loop variable needs so that the body's value fits it."""
    shape, dtype = meta
    if len(shape) != len(new.shape):
        raise LoopVarRankError(
            "static.nn.while_loop: loop variable %d ('%s') changes shape from %s to %s in the "
            "loop body; a loop variable must keep its rank"
            % (i, getattr(orig, 'name', i), list(shape), list(new.shape)), i, new)
    merged = tuple(a if a == b else -1 for a, b in zip(shape, new.shape))
    return merged, new.dtype


def _discard(program, parent, built):
    """Forget a trial build: its blocks (always the last ones) and placeholders."""
    del program.blocks[built['first_block']:]
    for ph in built['placeholders']:
        parent.vars.pop(ph.name, None)
    program._bump()


def _append_while(program, parent, tree, inits, built, is_test):
    placeholders, bleaves = built['placeholders'], built['body_outs']
    inits = [v if v.dtype == ph.dtype else _cast(v, ph.dtype)
             for v, ph in zip(inits, placeholders)]
    outs = [parent.create_var(program._names('while.out'), ph.shape, ph.dtype,
                              stop_gradient=ph.stop_gradient and new.stop_gradient)
            for ph, new in zip(placeholders, bleaves)]
    ph_names = [p.name for p in placeholders]
    body_outs = [v.name for v in bleaves]
    cb, bb, cond_out = built['cond_block'], built['body_block'], built['cond_out']
    captured = [n for n in sorted(blocks_outer_reads(program, [cb.idx, bb.idx],
                                                     body_outs + [cond_out.name]))
                if n not in ph_names]
    parent.append_op('while', {'X': [v.name for v in inits], 'Input': captured},
                     {'Out': [o.name for o in outs]},
                     {'cond_block': cb.idx, 'body_block': bb.idx, 'loop_vars': ph_names,
                      'cond_out': cond_out.name, 'body_outs': body_outs,
                      'save_history': False, 'is_test': bool(is_test), 'op_role': _role()})
    return unflatten_tree(tree, outs)


def _cast(v, dtype):
    from ..ops.manipulation import cast
    return cast(v, dtype)


def _emit_while(code, op):
    program = code.block.program
    for n in op.input('Input'):
        code.ref(n)
    phs = op.attr('loop_vars')
    inits = [code.ref(n) for n in op.input('X')]
    ph_locs = [code.new(n) for n in phs]
    code.emit('%s = %s' % (', '.join(ph_locs) + ',', ', '.join(inits) + ','), op)
    hist = None
    if op.attr('save_history') and op.output('History'):
        hist = code.new(op.output('History')[0])
        code.emit('%s = []' % hist)
    cond_blk = program.block(op.attr('cond_block'))
    flag = code.new('__while_flag_%d' % code.em.counter)

    def emit_cond(c):
        c.emit_ops(cond_blk.ops)
        c.emit('%s = _pred(%s)' % (flag, c.ref(op.attr('cond_out'))))
    emit_cond(code)
    code.emit('while %s:' % flag)
    # parameters the body writes are loaded afresh in each iteration
    code.forget(persistable_writes(program, op))
    body = code.sub(program.block(op.attr('body_block')))
    if hist is not None:
        body.emit('%s.append((%s))' % (hist, ', '.join(ph_locs) + ','))
    body.emit_ops(body.block.ops)
    new_vals = [body.ref(n) for n in op.attr('body_outs')]
    body.emit('%s = %s' % (', '.join(ph_locs) + ',', ', '.join(new_vals) + ','))
    emit_cond(body)
    for o, ph in zip(op.output('Out'), ph_locs):
        code.emit('%s = %s' % (code.new(o), ph))


def _while_grad(block, op, grads, reach):
    """Grad of a while: ``while_grad`` walks the saved iterations backwards,
    recomputing in its own copy of the body (``recompute.py``) what the
    body's grad ops read."""
    program = block.program
    gouts = _output_grads(program, op, grads)
    if gouts is None:
        return {}
    xs = op.input('X')
    captured = [n for n in op.input('Input') if n in reach]
    want_x = [n for n in xs if n in reach]
    if not captured and not want_x:
        return {}
    # the forward loop must keep its per-iteration values
    if not op.output('History'):
        hist = block.create_var(program._names('while.history'), [-1], 'float32',
                                stop_gradient=True)
        op.outputs['History'] = [hist.name]
    op._set_attr('save_history', True)
    body = program.block(op.attr('body_block'))
    parent = program.current_block()
    rec = recompute.Recompute(program, [body], body.parent_idx, op.attr('loop_vars'))
    phs = [rec.var(n) for n in op.attr('loop_vars')]
    targets = [rec.var(n) for n in op.attr('body_outs')]
    gb = program._create_block(rec.block.idx)
    try:
        gout_phs = [gb.create_var(program._names(t.name + '@GRAD.in'), t.shape, t.dtype)
                    for t in targets]
        wanted = phs + [program.var(n) for n in captured]
        res = backward.grad_vars(rec.block, targets, gout_phs, wanted)
        g_ph = [_grad_or_none(res, v) for v in phs]
        g_cap = [_grad_or_none(res, program.var(n)) for n in captured]
    finally:
        program.current_block_idx = parent.idx
    rec.finish(gb, g_ph + g_cap)
    x_grads = [parent.create_var(program._names(n + '@GRAD.while'), program.var(n).shape,
                                 program.var(n).dtype) for n in xs]
    cap_grads = [parent.create_var(program._names(n + '@GRAD.while'),
                                   program.var(n).shape, program.var(n).dtype)
                 for n in captured]
    # the placeholders are the recompute block's, the out-grad slots the grad block's
    reads = sorted(blocks_outer_reads(program, [rec.block.idx, gb.idx], g_ph + g_cap))
    parent.append_op('while_grad',
                     {'History': op.output('History'), 'OutGrad': [g.name for g in gouts],
                      'Input': reads, 'X': xs, 'Captured': captured},
                     {'XGrad': [v.name for v in x_grads],
                      'CapturedGrad': [v.name for v in cap_grads]},
                     {'recompute_block': rec.block.idx, 'grad_block': gb.idx,
                      'loop_vars': [v.name for v in phs],
                      'out_grad_vars': [v.name for v in gout_phs],
                      'loop_var_grads': g_ph, 'captured_grads': g_cap, 'op_role': 'backward'})
    result = {}
    for n, v in zip(xs, x_grads):
        if n in reach:
            result.setdefault(n, []).append(v)
    for n, v in zip(captured, cap_grads):
        result.setdefault(n, []).append(v)
    return result


def _grad_or_none(res, v):
    g = res.get(v.name)
    return g.name if g is not None else ''


def _emit_while_grad(code, op):
    program = code.block.program
    for n in op.input('Input') + op.input('X') + op.input('Captured'):
        code.ref(n)
    hist = code.ref(op.input('History')[0])
    g = [code.new('__wg%d' % i + op.output('XGrad')[i]) for i in range(len(op.input('X')))]
    for loc, n in zip(g, op.input('OutGrad')):
        code.emit('%s = %s' % (loc, code.ref(n)), op)
    acc = [code.new('__wacc%d' % i + n) for i, n in enumerate(op.input('Captured'))]
    for loc, n in zip(acc, op.input('Captured')):
        code.emit('%s = _zeros_like(%s)' % (loc, code.ref(n)))
    phs = [code.new(n) for n in op.attr('loop_vars')]
    code.emit('for __snap in reversed(%s):' % hist)
    code.forget(persistable_writes(program, op))
    body = code.sub(program.block(op.attr('recompute_block')))
    body.emit('%s = __snap' % (', '.join(phs) + ','))
    body.emit_ops(body.block.ops)
    for n, loc in zip(op.attr('out_grad_vars'), g):
        body.emit('%s = %s' % (body.new(n), loc))
    gblk = body.sub(program.block(op.attr('grad_block')), 0)
    gblk.emit_ops(gblk.block.ops)
    new_g = [body.ref(n) if n else '_zeros_like(%s)' % ph
             for n, ph in zip(op.attr('loop_var_grads'), phs)]
    body.emit('%s = %s' % (', '.join(g) + ',', ', '.join(new_g) + ','))
    for loc, n in zip(acc, op.attr('captured_grads')):
        if n:
            body.emit('%s = %s + %s' % (loc, loc, body.ref(n)))
    for o, loc in zip(op.output('XGrad'), g):
        code.emit('%s = %s' % (code.new(o), loc))
    for o, loc in zip(op.output('CapturedGrad'), acc):
        code.emit('%s = %s' % (code.new(o), loc))


# ---- case / switch_case ------------------------------------------------------------------

def case(pred_fn_pairs, default=None, name=None):
    """The first ``fn`` whose ``pred`` is true (nested conds); ``default``
    otherwise (without ``default``, the last pair's fn is the default)."""
    pairs = list(pred_fn_pairs)
    if not pairs:
        raise ValueError("static.nn.case: pred_fn_pairs must not be empty")
    for p in pairs:
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[1])):
            raise TypeError("static.nn.case: each item of pred_fn_pairs must be (pred, fn)")
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]

    def build(i):
        if i == len(pairs):
            return default()
        pred, fn = pairs[i]
        return cond(pred, fn, lambda: build(i + 1))
    return build(0)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Run ``branch_fns[branch_index]`` (a dict or list of (index, fn)); else ``default``."""
    if isinstance(branch_fns, dict):
        items = sorted(branch_fns.items())
    else:
        items = [(i, f) if not isinstance(f, (list, tuple)) else tuple(f)
                 for i, f in enumerate(branch_fns)]
    if not items:
        raise ValueError("static.nn.switch_case: branch_fns must not be empty")
    if default is None:
        default = items[-1][1]
    from ..ops import math
    pairs = [(math.equal(branch_index, _index_const(branch_index, i)), f) for i, f in items]
    return case(pairs, default)


def _index_const(like, i):
    if not in_static_mode():
        return i
    from .program import constant
    return constant(np.asarray(i, dtype=like.dtype))


def _zeros_like(a):
    return np.zeros_like(a)


codegen.RUNTIME.update({'_pred': _pred_value, '_zeros_like': _zeros_like})


# ---- declarations the verifier checks these ops against (graph/verify.py) ------------

def _same_lengths(op, *groups):
    """Each group of (kind, name) must list equally many names."""
    for group in groups:
        lengths = {}
        for kind, name in group:
            lengths['%s %s' % (kind, name)] = len(op.input(name) if kind == 'input' else
                                                  op.output(name) if kind == 'output' else
                                                  op.attr(name) or [])
        if len(set(lengths.values())) > 1:
            raise ValueError("these must list equally many names: %s"
                             % ', '.join('%s (%d)' % kv for kv in lengths.items()))


def _cond_paths(op):
    return [[(op.attr(side + '_fwd_block'), (), ()),
             (op.attr(side + '_block'), (), op.attr(side + '_outs'))]
            for side in ('true', 'false')]


def _while_paths(op):
    return [[(op.attr('cond_block'), op.attr('loop_vars'), [op.attr('cond_out')]),
             (op.attr('body_block'), (), op.attr('body_outs'))]]


def _while_grad_paths(op):
    return [[(op.attr('recompute_block'), op.attr('loop_vars'), ()),
             (op.attr('grad_block'), op.attr('out_grad_vars'),
              op.attr('loop_var_grads') + op.attr('captured_grads'))]]


def _cond_same_meta(op):
    outs = op.output('Out')
    return list(zip(outs, op.attr('true_outs'))) + list(zip(outs, op.attr('false_outs')))


def _while_same_meta(op):
    phs = op.attr('loop_vars')
    return (list(zip(phs, op.input('X'))) + list(zip(phs, op.output('Out')))
            + list(zip(phs, op.attr('body_outs'))))


def _while_grad_same_meta(op):
    return (list(zip(op.input('X'), op.output('XGrad')))
            + list(zip(op.input('Captured'), op.output('CapturedGrad'))))


# ---- the ops, in the registry ------------------------------------------------------------

def _strs(*names):
    return {n: 'strs' for n in names}


registry.def_block_op(
    'cond', inputs=('Cond', 'Input*'), outputs=('Out*',),
    attrs=dict.fromkeys(('true_block', 'false_block', 'true_fwd_block', 'false_fwd_block',
                         'true_outs', 'false_outs')),
    attr_types=dict(_strs('true_outs', 'false_outs'), true_block='int', false_block='int',
                    true_fwd_block='int|None', false_fwd_block='int|None'),
    sub_blocks=('true_block', 'false_block', 'true_fwd_block', 'false_fwd_block'),
    emit=_emit_cond, block_grad=_cond_grad,
    block_rules=verify.BlockRules(
        required=('true_block', 'false_block', 'true_outs', 'false_outs'),
        paths=_cond_paths,
        check=lambda op: _same_lengths(op, [('output', 'Out'), ('attr', 'true_outs'),
                                            ('attr', 'false_outs')]),
        same_meta=_cond_same_meta),
    doc="built by static.nn.cond: run the true or the false branch (a sub-block each) "
        "on the predicate Cond; the grad of a cond is a cond whose branches first "
        "recompute what they read of the forward ones (true_fwd_block/false_fwd_block, "
        "copies of their own).")


def _while_inference(inputs, outputs, attrs):
    """No History of loop values for a backward that inference never runs."""
    outputs = {k: v for k, v in outputs.items() if k != 'History'}
    return 'while', inputs, outputs, dict(attrs, save_history=False)


registry.def_block_op(
    'while', inputs=('X*', 'Input*'), outputs=('Out*', 'History'), inference=_while_inference,
    attrs=dict(dict.fromkeys(('cond_block', 'body_block', 'loop_vars', 'cond_out',
                              'body_outs')), save_history=False, is_test=False),
    attr_types=dict(_strs('loop_vars', 'body_outs'), cond_block='int', body_block='int',
                    cond_out='str'),
    sub_blocks=('cond_block', 'body_block'),
    emit=_emit_while, block_grad=_while_grad,
    block_rules=verify.BlockRules(
        required=('cond_block', 'body_block', 'loop_vars', 'cond_out', 'body_outs'),
        paths=_while_paths,
        check=lambda op: _same_lengths(op, [('input', 'X'), ('output', 'Out'),
                                            ('attr', 'loop_vars'), ('attr', 'body_outs')]),
        same_meta=_while_same_meta, loop=True),
    doc="built by static.nn.while_loop: run body_block while cond_block computes "
        "true, from the initial values X; History keeps every iteration's values "
        "for while_grad.")

registry.def_block_op(
    'while_grad', inputs=('History', 'OutGrad*', 'Input*', 'X*', 'Captured*'),
    outputs=('XGrad*', 'CapturedGrad*'),
    attrs=dict.fromkeys(('recompute_block', 'grad_block', 'loop_vars', 'out_grad_vars',
                         'loop_var_grads', 'captured_grads')),
    attr_types=dict(_strs('loop_vars', 'out_grad_vars', 'loop_var_grads', 'captured_grads'),
                    recompute_block='int', grad_block='int'),
    sub_blocks=('recompute_block', 'grad_block'),
    emit=_emit_while_grad,
    block_rules=verify.BlockRules(
        required=('recompute_block', 'grad_block', 'loop_vars', 'out_grad_vars',
                  'loop_var_grads', 'captured_grads'),
        paths=_while_grad_paths,
        check=lambda op: _same_lengths(
            op, [('input', 'X'), ('input', 'OutGrad'), ('output', 'XGrad'),
                 ('attr', 'loop_vars'), ('attr', 'out_grad_vars'), ('attr', 'loop_var_grads')],
            [('input', 'Captured'), ('output', 'CapturedGrad'), ('attr', 'captured_grads')]),
        same_meta=_while_grad_same_meta, loop=True),
    doc="built by static backward from a while op: walk the History of loop values "
        "backwards, each iteration running recompute_block (its own copy of the forward "
        "body's ops that grad_block reads, on the placeholders loop_vars) and grad_block.")

