"""``decorate``: prepare models and optimizers for pure low-precision training (O2).

At O2 every layer's floating parameters and buffers become float16/bfloat16 in
place (the Parameter objects optimizers hold stay the same), except batch norm
layers, and for float16 also layer/instance norm, which keep float32, and the
``excluded_layers``. Optimizers then keep float32 master weights
(``master_weight`` None or True), so small updates are not rounded away.
``master_grad`` gives float32 parameter gradients after each backward;
``save_dtype`` makes ``state_dict`` hand out copies in that dtype. At O1
``decorate`` changes nothing (auto_cast alone does the casting).
"""
from .. import dtype as _dt
from .state import amp_global_state, cpu_float16_amp


def _norm_layers(dtype):
    from .. import nn
    keep = (nn.BatchNorm, nn.BatchNorm1D, nn.BatchNorm2D, nn.BatchNorm3D, nn.SyncBatchNorm)
    if dtype == 'float16':
        keep += (nn.LayerNorm, nn.InstanceNorm1D, nn.InstanceNorm2D, nn.InstanceNorm3D)
    return keep


def _excluded(models, excluded_layers):
    """The layers (instances, with their sublayers, or of the given types) to keep."""
    from ..nn import Layer
    if excluded_layers is None:
        return set()
    items = excluded_layers if isinstance(excluded_layers, (list, tuple)) else [excluded_layers]
    ids, types = set(), []
    for item in items:
        if isinstance(item, Layer):
            ids.update(id(s) for s in item.sublayers(include_self=True))
        elif isinstance(item, type) and issubclass(item, Layer):
            types.append(item)
        else:
            raise TypeError("decorate: excluded_layers must be an nn.Layer instance or type, "
                            "or a list of them; got %r" % (item,))
    if types:
        for model in models:
            ids.update(id(s) for s in model.sublayers(include_self=True)
                       if isinstance(s, tuple(types)))
    return ids


def _cast_layer(layer, dtype):
    """This layer's own floating parameters and buffers to ``dtype``, in place."""
    target = _dt.convert_dtype(dtype)
    for t in list(layer._parameters.values()) + list(layer._buffers.values()):
        if t is not None and _dt.is_floating(t.data.dtype) and t.data.dtype != target:
            t.data = t.data.astype(target)
            t._version += 1
            if t.grad is not None:
                t.grad.data = t.grad.data.astype(target)
    layer._dtype = dtype


class _StateDictCast:
    """A state_dict hook giving every floating entry in ``save_dtype``."""

    def __init__(self, save_dtype):
        self.save_dtype = save_dtype

    def __call__(self, state_dict):
        from ..dygraph import Tensor
        target = _dt.convert_dtype(self.save_dtype)
        for key, value in list(state_dict.items()):
            if isinstance(value, Tensor) and _dt.is_floating(value.dtype) and value.dtype != target:
                cast = Tensor(value.data.astype(target))
                cast.name = value.name
                state_dict[key] = cast


def _as_list(obj, kind, api):
    from ..nn import Layer
    from ..optimizer import Optimizer
    cls = Layer if kind == 'models' else Optimizer
    items = list(obj) if isinstance(obj, (list, tuple)) else [obj]
    for item in items:
        if not isinstance(item, cls):
            raise TypeError("%s: %s must be %s or a list of them, got %s"
                            % (api, kind, 'paddle.nn.Layer' if kind == 'models'
                               else 'paddle.optimizer.Optimizer', type(item).__name__))
    return items, isinstance(obj, (list, tuple))


def decorate(models, optimizers=None, level='O1', dtype='float16', master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    """Cast ``models`` for ``level='O2'`` (see the module docstring); returns
    ``models`` or ``(models, optimizers)`` in the form they were given."""
    api = 'paddle.amp.decorate'
    level = str(level).upper()
    if level not in ('O1', 'O2'):
        raise ValueError("%s: level should be O1 or O2 (O1: mixed precision, decorate does "
                         "nothing; O2: pure float16/bfloat16), got %r" % (api, level))
    dtype = str(dtype).replace('paddle.', '')
    if dtype not in ('float16', 'bfloat16'):
        raise ValueError("%s: dtype should be 'float16' or 'bfloat16', got %r" % (api, dtype))
    if level == 'O1' or (dtype == 'float16' and not cpu_float16_amp()):
        # float16 AMP is off on the CPU (amp/__init__.py): Paddle returns the
        # models and optimizers untouched there, silently
        return models if optimizers is None else (models, optimizers)
    _dt.convert_dtype(dtype)       # bfloat16 needs ml_dtypes: say so before casting
    model_list, models_listed = _as_list(models, 'models', api)
    keep_types = _norm_layers(dtype)
    keep_ids = _excluded(model_list, excluded_layers)
    for model in model_list:
        for layer in model.sublayers(include_self=True):
            if id(layer) in keep_ids or isinstance(layer, keep_types):
                continue
            _cast_layer(layer, dtype)
    if master_grad:
        state = amp_global_state()
        state.use_master_grad = True
        for model in model_list:
            state.model_parameters.extend(model.parameters())
    if save_dtype is not None:
        if save_dtype not in ('float16', 'bfloat16', 'float32', 'float64'):
            raise ValueError("%s: save_dtype can only be float16, bfloat16, float32 or "
                             "float64, got %r" % (api, save_dtype))
        hook = _StateDictCast(save_dtype)
        for model in model_list:
            for layer in model.sublayers(include_self=True):
                layer._register_state_dict_hook(hook)
    if optimizers is None:
        return models
    opt_list, _ = _as_list(optimizers, 'optimizers', api)
    for opt in opt_list:
        opt._multi_precision = master_weight is not False
    return models, optimizers


amp_decorate = decorate
