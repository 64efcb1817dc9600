"""``paddle.framework.async_save``: ``paddle.save`` in a background thread.

The values are copied when the call is made (training may change the
parameters right after), the file is written by a worker thread;
``clear_async_save_task_queue()`` waits for every pending save.
"""
import threading
import warnings

_pending = []
_lock = threading.Lock()


def _snapshot(obj):
    """``obj`` with every Tensor/array replaced by a copy of its value."""
    import numpy as np
    from ..dygraph.tensor import Tensor
    if isinstance(obj, Tensor):
        copy = Tensor(np.array(obj.data), stop_gradient=obj.stop_gradient)
        if getattr(obj, 'name', None):
            copy.name = obj.name
        return copy
    if isinstance(obj, np.ndarray):
        return obj.copy()
    if isinstance(obj, dict):
        return type(obj)((k, _snapshot(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_snapshot(v) for v in obj)
    return obj


def async_save(obj, path, protocol=4, sync_other_task=False, **configs):
    """Save ``obj`` to ``path`` as ``paddle.save`` does, without waiting for
    the write; ``sync_other_task`` first waits for earlier async saves."""
    from ..serialization import save
    from ..ops.modes import in_static_mode
    if in_static_mode():
        raise ValueError("async_save currently is not supported in static mode.")
    if configs:
        warnings.warn("configs are not supported in async mode, will be overridden by "
                      "default settings.")
    if sync_other_task:
        clear_async_save_task_queue()
    value = _snapshot(obj)
    errors = []

    def write():
        try:
            save(value, path, protocol)
        except Exception as e:          # re-raised by clear_async_save_task_queue
            errors.append(e)
    worker = threading.Thread(target=write, name='async_save', daemon=False)
    with _lock:
        _pending.append((worker, errors, path))
    worker.start()


def clear_async_save_task_queue():
    """Wait for every pending ``async_save``; raises the first failure."""
    with _lock:
        tasks = list(_pending)
        _pending.clear()
    first = None
    for worker, errors, path in tasks:
        worker.join()
        if errors and first is None:
            first = (errors[0], path)
    if first is not None:
        raise RuntimeError("async_save to %r failed: %s" % (first[1], first[0])) from first[0]
