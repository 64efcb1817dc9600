"""``convert_to_mixed_precision``: a float32 inference model rewritten to compute
in float16 or bfloat16 where Paddle's mixed-precision rules allow.

The saved program is replayed op by op through the op registry inside an
``auto_cast`` region (O1 lists, plus the caller's black and white lists), so
every op gets exactly the casts ``auto_cast`` would give it when the model is
built. Parameters read only in low precision are then stored in it (their cast
ops folded away); ``keep_io_types`` keeps float32 inputs and outputs (casts at
the edges), otherwise inputs and outputs take the low-precision dtype. Feed and
fetch names stay those of the original model.
"""
from .. import dtype as _dt
from ..amp import _op_lists
from ..amp.autocast import AutocastState
from ..ops import registry
from ..graph import model_files as _io
from ..graph.mode import static_mode_guard
from ..graph.program import Program, program_guard
from ..graph.sub_blocks import runs_sub_blocks

_PRECISIONS = {2: 'float16', 3: 'bfloat16'}     # PrecisionType.Half, .Bfloat16


def convert_to_mixed_precision(model_file, params_file, mixed_model_file, mixed_params_file,
                               mixed_precision, backend, keep_io_types=True, black_list=set(),
                               **kwargs):
    """Write a float16/bfloat16 version of an inference model (see the module
    docstring). ``mixed_precision`` is ``PrecisionType.Half`` or ``.Bfloat16``;
    ``backend`` a ``PlaceType`` (the CPU runs either); ``black_list`` and the
    keyword ``white_list`` hold op names kept in float32 / run in low precision."""
    dtype = _PRECISIONS.get(int(mixed_precision))
    if dtype is None:
        raise ValueError("convert_to_mixed_precision: mixed_precision must be "
                         "PrecisionType.Half or PrecisionType.Bfloat16, got %r"
                         % (mixed_precision,))
    unknown = set(kwargs) - {'white_list'}
    if unknown:
        raise TypeError("convert_to_mixed_precision: unexpected arguments %s" % sorted(unknown))
    _dt.convert_dtype(dtype)      # bfloat16 needs ml_dtypes: say so first
    program, feed, fetch, values = _io.read_model(model_file=model_file,
                                                  params_file=params_file)
    white, black = _op_lists(kwargs.get('white_list'), black_list, 'O1', dtype)
    state = AutocastState('O1', dtype, white, black, True)
    new, fetch_vars = _replay(program, feed, fetch, values, state, keep_io_types)
    new_values = _fold_parameter_casts(new, values, dtype)
    _io.write_model_files(mixed_model_file, mixed_params_file, new, feed,
                          [v.name for v in fetch_vars], new_values)


def _replay(program, feed, fetch, values, state, keep_io_types):
    """The program rebuilt op by op under ``state`` (an auto_cast region)."""
    old = program.global_block()
    for op in old.ops:
        if runs_sub_blocks(op):
            raise ValueError("convert_to_mixed_precision: op '%s' runs sub-blocks (control "
                             "flow); converting such models is not supported, keep them in "
                             "float32" % op.type)
    new = Program()
    reserved = {n for b in program.blocks for n in b.vars}
    names = new._names
    new._names = lambda prefix: _fresh(names, 'mixed.' + prefix, reserved)
    block = new.global_block()
    low = state.dtype
    env = {}
    with program_guard(new), static_mode_guard(True):
        for name in feed:
            v = old.var(name)
            dt = v.dtype if keep_io_types or not _dt.is_floating(v.dtype) else low
            env[name] = block.create_var(name, v.shape, dt, stop_gradient=True, is_data=True)
        for name in values:
            v = old.var(name)
            env[name] = block.create_var(name, v.shape, v.dtype, persistable=True,
                                         stop_gradient=True,
                                         is_parameter=getattr(v, 'is_parameter', False))
        for op in old.ops:
            _replay_op(op, env, state)
        fetch_vars = [_as_output(env[n], n, keep_io_types, low, block) for n in fetch]
    return new, fetch_vars


def _fresh(names, prefix, reserved):
    while True:
        n = names(prefix)
        if n not in reserved:
            return n


def _replay_op(op, env, state):
    opdef = registry.lookup(op.type)
    args = []
    for name, variadic, optional in zip(opdef.input_names, opdef.variadic, opdef.optional):
        arg = [env[n] for n in op.inputs.get(name, [])]
        if variadic:
            args.append(arg)
        else:
            args.append(arg[0] if arg else None)
    attrs = [op.attrs.get(n, d) for n, d in zip(opdef.attr_names, opdef.attr_defaults)]
    with registry.autocasting(state):
        out = opdef(*args, *attrs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    names = [n for slot in opdef.output_names for n in op.outputs.get(slot, [])]
    for n, v in zip(names, outs):
        env[n] = v


def _as_output(v, name, keep_io_types, low, block):
    """The fetched variable under its original name (float32 again when
    ``keep_io_types`` and it came out in low precision)."""
    from ..ops.manipulation import cast
    if keep_io_types and v.dtype == low:
        v = cast(v, 'float32')
    if v.name != name:
        target = block.create_var(name, v.shape, v.dtype, stop_gradient=True)
        block._rename_output(v, target)
        v = target
    return v


def _fold_parameter_casts(program, values, dtype):
    """Store in ``dtype`` the parameters that are only ever read through a cast
    to it, and drop those casts; returns the new values."""
    block = program.global_block()
    low = _dt.convert_dtype(dtype)
    readers = {}
    for i, op in enumerate(block.ops):
        for n in op.input_arg_names:
            readers.setdefault(n, []).append(op)
    out = dict(values)
    for name, value in values.items():
        ops = readers.get(name, [])
        if not ops or not all(op.type == 'cast' and _dt.convert_dtype(op.attrs['dtype']) == low
                              for op in ops):
            continue
        var = block.var(name)
        var.dtype = low
        out[name] = value.astype(low)
        for op in ops:
            cast_out = op.outputs['out'][0]
            for later in block.ops:
                for slot, ns in later.inputs.items():
                    later.inputs[slot] = [name if n == cast_out else n for n in ns]
            block.ops.remove(op)
            block.vars.pop(cast_out, None)
    program._bump()
    return out
