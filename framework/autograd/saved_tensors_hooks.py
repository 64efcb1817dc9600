"""``saved_tensors_hooks``: decide how the values kept for backward are stored.

Inside the region every op that records a gradient hands the tensors its
backward needs to ``pack_hook`` and keeps only what that returns (a numpy
copy, a file name, ...); backward calls ``unpack_hook`` on it to get the tensor
back. Tensors a PyLayer keeps with ``ctx.save_for_backward`` go through the
same pair. Only the values of the region's own ops are packed; nested regions
use the innermost pair.

>>> import framework as paddle
>>> a = paddle.ones([2], 'float32'); a.stop_gradient = False
>>> b = paddle.full([2], 3.0); b.stop_gradient = False
>>> packed = []
>>> def pack(t):
...     packed.append(t.shape)
...     return t.numpy()
>>> with paddle.autograd.saved_tensors_hooks(pack, paddle.to_tensor):
...     y = a * b
>>> y.sum().backward()
>>> len(packed), a.grad.numpy().tolist()
(2, [3.0, 3.0])
"""
from ..dygraph import autograd as _engine


class saved_tensors_hooks:  # noqa: N801  (Paddle's name)
    """Context manager installing ``pack_hook(tensor) -> object`` and
    ``unpack_hook(object) -> tensor`` for the tensors saved for backward."""

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callables, "
                            "got %s and %s" % (type(pack_hook).__name__,
                                               type(unpack_hook).__name__))
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _engine.saved_tensor_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, exc_type, exc_value, tb):
        _engine.saved_tensor_hooks.remove((self.pack_hook, self.unpack_hook))
        return False
