"""Static backward: append grad ops to a Program using the registry's grad rules.

The same grad rules the eager tape uses are called here with Variables, so
each appends ordinary registered ops (tagged ``op_role='backward'``). Repeated
contributions to a variable's gradient are summed; branches that do not lead
from the inputs to the targets are pruned; and because grad ops are ordinary
ops, calling ``gradients`` again on gradients gives higher-order derivatives.
"""
from ..ops import registry
from .operands import kernel_attrs
from .program import Variable, op_role_guard, program_guard
from .sub_blocks import outer_reads

GRAD_SUFFIX = '@GRAD'


def _blocked(program, name):
    """A variable the user set stop_gradient=True on (a constant for backward)."""
    for b in program.blocks:
        v = b.vars.get(name)
        if v is not None:
            return getattr(v, 'blocks_grad', False)
    return False


def _reachable_from(program, ops, sources):
    """Names whose value depends (differentiably) on ``sources``."""
    reach = set(sources)
    for op in ops:
        if op.attrs.get('op_stop_gradient'):      # Variable.detach()
            continue
        opdef = registry.lookup(op.type) if registry.has_op(op.type) else None
        if opdef is None:
            continue
        if opdef.block_grad is not None:      # control flow: through its sub-blocks
            if reach.intersection(outer_reads(program, op)):
                reach.update(n for n in op.output_arg_names if not _blocked(program, n))
        elif opdef.differentiable and reach.intersection(op.input_arg_names):
            for slot, names in op.outputs.items():
                if slot not in opdef.nondiff_outputs:
                    reach.update(n for n in names if not _blocked(program, n))
    return reach


def _leading_to(program, ops, targets):
    """Ops that contribute to ``targets`` (in order)."""
    needed = set(targets)
    kept = []
    for op in reversed(ops):
        if needed.intersection(op.output_arg_names):
            kept.append(op)
            needed.update(outer_reads(program, op))
    kept.reverse()
    return kept


def _accumulate(grads, name, g):
    if g is None:
        return
    prev = grads.get(name)
    grads[name] = g if prev is None else prev + g


def _call_grad_rule(block, op, grads, wanted):
    """Call the registered grad rule of ``op``; returns {input name: grad var}."""
    opdef = registry.lookup(op.type)
    out_names = []
    for slot in opdef.output_names:
        out_names.extend(op.outputs.get(slot, []))
    gs = []
    for n in out_names:
        g = grads.get(n)
        gs.append(g)
    if all(g is None for g in gs):
        return {}
    from ..ops.creation import zeros_like
    gs = [g if g is not None else zeros_like(block.var(n)) for g, n in zip(gs, out_names)]
    ins = []
    for name, variadic in zip(opdef.input_names, opdef.variadic):
        names = op.inputs.get(name, [])
        if variadic:
            ins.append([block.var(n) for n in names])
        else:
            ins.append(block.var(names[0]) if names else None)
    outs = [block.var(n) for n in out_names]
    attrs = kernel_attrs(opdef, op)
    res = opdef.grad(*gs, *ins, *outs, *attrs)
    if opdef.n_in == 1:
        res = (res,)
    result = {}
    for (name, variadic), g in zip(zip(opdef.input_names, opdef.variadic), res):
        names = op.inputs.get(name, [])
        if name in opdef.no_grad_inputs or g is None:
            continue
        if variadic:
            for n, gi in zip(names, g):
                if n in wanted and gi is not None:
                    result.setdefault(n, []).append(gi)
        elif names and names[0] in wanted:
            result.setdefault(names[0], []).append(g)
    return result


def grad_vars(block, targets, target_grads, inputs, no_grad_set=()):
    """Append grad ops for d(targets)/d(inputs); returns {name: grad Variable}."""
    if registry.autocast_state() is not None:          # grads follow the forward dtypes
        with registry.autocast_suspended():
            return grad_vars(block, targets, target_grads, inputs, no_grad_set)
    program = block.program
    no_grad = {v.name if isinstance(v, Variable) else v for v in (no_grad_set or ())}
    input_names = [v.name for v in inputs]
    ops = _leading_to(program, block.ops, [t.name for t in targets])
    reach = _reachable_from(program, ops, set(input_names)) - no_grad
    grads = {}
    with program_guard(program), op_role_guard('backward'):
        from ..ops.creation import ones_like
        for t, g in zip(targets, target_grads):
            _accumulate(grads, t.name, g if g is not None else ones_like(t))
        for op in reversed(ops):
            if not reach.intersection(op.output_arg_names):
                continue
            if op.attrs.get('op_stop_gradient'):
                # detach(), or a write into a parameter: its output may carry the
                # parameter's name (so it is reachable) but no gradient flows back
                continue
            opdef = registry.lookup(op.type)
            if opdef.block_grad is not None:    # control flow builds its own grad op
                contrib = opdef.block_grad(block, op, grads, reach)
            elif opdef.differentiable:
                contrib = _call_grad_rule(block, op, grads, reach)
            else:
                continue
            for name, gl in contrib.items():
                for g in (gl if isinstance(gl, list) else [gl]):
                    _accumulate(grads, name, g)
    return grads


def _name_grad(block, var, g):
    """Give the final gradient of ``var`` the conventional name ``var@GRAD``."""
    name = var.name + GRAD_SUFFIX
    if g.name == name:
        return g
    if block.has_var(name):
        return g
    from ..ops.manipulation import assign
    with program_guard(block.program), op_role_guard('backward'):
        out = assign(g)
    block._rename_output(out, block.create_var(name, g.shape, g.dtype))
    return block.var(name)


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Gradients of ``targets`` with respect to ``inputs`` as new Variables
    (None for an input the targets do not depend on)."""
    targets = [targets] if isinstance(targets, Variable) else list(targets)
    single = isinstance(inputs, Variable)
    inputs = [inputs] if single else list(inputs)
    if target_gradients is None:
        target_gradients = [None] * len(targets)
    elif isinstance(target_gradients, Variable):
        target_gradients = [target_gradients]
    block = targets[0].block.program.global_block()
    grads = grad_vars(block, targets, target_gradients, inputs, no_grad_set)
    out = []
    for v in inputs:
        g = grads.get(v.name)
        out.append(None if g is None else _name_grad(block, v, g))
    return out


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None,
                    checkpoints=None, distop_context=None):
    """Append the backward of ``loss`` to its program; returns
    ``[(parameter, gradient), ...]`` for the trainable parameters it depends on."""
    if not isinstance(loss, Variable):
        raise TypeError("append_backward: loss must be a static Variable, got %s"
                        % type(loss).__name__)
    if loss.size not in (1, -1) and loss.ndim > 0:
        raise ValueError("append_backward: loss must be a scalar, got shape %s" % loss.shape)
    program = loss.block.program
    block = program.global_block()
    if parameter_list is not None:
        params = [block.var(p) if isinstance(p, str) else p for p in parameter_list]
    else:
        params = [v for v in block.vars.values()
                  if v.persistable and getattr(v, 'trainable', False) and v.is_parameter]
    grads = grad_vars(block, [loss], [None], params, no_grad_set)
    pairs = []
    for p in params:
        g = grads.get(p.name)
        if g is not None:
            pairs.append((p, _name_grad(block, p, g)))
    return pairs
