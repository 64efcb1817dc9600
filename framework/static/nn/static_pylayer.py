"""``static.nn.static_pylayer``: ``forward_fn``'s ops built into the program;
with a ``backward_fn`` it goes through ``PyLayer``'s static path, so the
gradient of its inputs is what ``backward_fn`` computes from the outputs'
gradients."""
from ...ops.modes import in_static_mode

__all__ = ['static_pylayer']


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """``forward_fn(*inputs)`` built into the program. With ``backward_fn``
    the inputs' gradients are ``backward_fn(*output_grads)`` (one per input);
    without it no gradient flows through, and, as in Paddle, every input must
    have ``stop_gradient=True``."""
    from ...autograd.py_layer import PyLayer
    if not in_static_mode():
        raise RuntimeError("static.nn.static_pylayer is only supported in static graph mode")
    if not callable(forward_fn):
        raise ValueError("static.nn.static_pylayer: `forward_fn` should be callable")
    inputs = list(inputs)
    if backward_fn is None:
        for v in inputs:
            if not v.stop_gradient:
                raise ValueError(
                    "static.nn.static_pylayer: ``stop_gradient`` attr of all inputs to "
                    "``forward_fn`` are expected to be True, when ``backward_fn == None``, but "
                    "%s.stop_gradient got False" % v.name)
        result = forward_fn(*inputs)
        for v in result if isinstance(result, (list, tuple)) else [result]:
            if v is not None:
                v.stop_gradient = True
        return result
    if not callable(backward_fn):
        raise ValueError("static.nn.static_pylayer: `backward_fn` should be callable")

    class _StaticPyLayer(PyLayer):
        @staticmethod
        def forward(ctx, *xs):
            return forward_fn(*xs)

        @staticmethod
        def backward(ctx, *grads):
            return backward_fn(*grads)
    _StaticPyLayer.__name__ = name or 'static_pylayer'
    return _StaticPyLayer.apply(*inputs)
