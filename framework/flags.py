"""Global flags, set and read as in Paddle: ``framework.set_flags({...})``."""

_FLAGS = {
    # pick the fastest conv algorithm per shape by timing them all once
    'FLAGS_cudnn_exhaustive_search': False,
    # check every op's outputs (eager, static plans, @to_static): the first op
    # producing NaN/Inf raises, naming itself
    'FLAGS_check_nan_inf': False,
    'FLAGS_cudnn_deterministic': False,
    'FLAGS_conv_workspace_size_limit': 512,
    'FLAGS_eager_delete_tensor_gb': 0.0,
    # run ops on oneDNN where they have a kernel there (ops/backends.py): on by
    # default when the [onednn] extra loads
    'FLAGS_use_mkldnn': False,
    # the IR verifier checks the executor's program after every pass that changed
    # it (graph/passes/__init__.py), naming a pass that broke it
    'FLAGS_verify_passes': False,
    # Paddle's stride kernels (view ops sharing their input's memory): view,
    # view_as, as_strided, unfold and the like return numpy views here either way
    'FLAGS_use_stride_kernel': True,
    # float16 mixed precision computes in float16 on the CPU (auto_cast, decorate
    # O2, GradScaler). Off, as in Paddle, which makes them no-ops on a CPU with a
    # warning; bfloat16 auto_cast is real either way
    'FLAGS_cpu_float16_amp': False,
}


_listeners = {}     # flag -> [fn(value)] run when set_flags changes it


def on_change(name, fn):
    """Call ``fn(new_value)`` whenever ``set_flags`` changes flag ``name`` (so a
    flag can switch code paths instead of being tested on every call)."""
    _listeners.setdefault(name, []).append(fn)


def set_flags(flags):
    if not isinstance(flags, dict):
        raise TypeError("set_flags expects a dict like {'FLAGS_check_nan_inf': True}")
    for k in flags:
        if k not in _FLAGS:
            raise ValueError("set_flags: unknown flag %r; known flags: %s"
                             % (k, ', '.join(sorted(_FLAGS))))
    for k, v in flags.items():
        changed = _FLAGS[k] != v
        _FLAGS[k] = v
        if changed:
            for fn in _listeners.get(k, ()):
                fn(v)


def get_flags(flags):
    names = [flags] if isinstance(flags, str) else list(flags)
    out = {}
    for k in names:
        if k not in _FLAGS:
            raise ValueError("get_flags: unknown flag %r" % k)
        out[k] = _FLAGS[k]
    return out


def record(name, value):
    """Set flag ``name`` without running its listeners (for the code that
    made the change itself)."""
    _FLAGS[name] = value


def flag(name):
    return _FLAGS[name]
