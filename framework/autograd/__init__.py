"""``framework.autograd`` (Paddle's ``paddle.autograd``): ``backward``,
custom ops in Python (``PyLayer``), Jacobian/Hessian objects and the
functional forms ``vjp`` and ``jvp`` (``framework.incubate.autograd``'s too).
``grad`` (``paddle.grad``) is here because it serves both modes: the eager
engine (``dygraph/autograd.py``) and ``static.gradients`` know nothing of
each other."""
from ..dygraph import autograd as _eager
from ..ops.modes import is_static_var
from ..graph.backward import gradients as _static_gradients
from .functional import hessian, jacobian, jvp, vjp
from .py_layer import PyLayer, PyLayerContext
from .saved_tensors_hooks import saved_tensors_hooks

# PyTorch's name for a custom differentiable function (Paddle's alias too)
Function = PyLayer

__all__ = ['backward', 'PyLayer', 'PyLayerContext', 'Function', 'saved_tensors_hooks',
           'jacobian', 'hessian', 'vjp', 'jvp']


def backward(tensors, grad_tensors=None, retain_graph=False, *, dump_backward_graph_path=None):
    """Accumulate the gradients of ``tensors`` (a Tensor or a list of Tensors)
    into the ``.grad`` of the leaves they depend on; ``grad_tensors`` gives
    one starting gradient per tensor (None: ones). Eager mode only.

    >>> import framework as paddle
    >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> paddle.autograd.backward([x * x, x * 3.0], [None, paddle.to_tensor([1.0, 0.0])])
    >>> x.grad.numpy().tolist()
    [5.0, 4.0]
    """
    from ..dygraph import Tensor
    from ..dygraph.autograd import backward as _backward
    one = not isinstance(tensors, (list, tuple))
    tensors = [tensors] if one else list(tensors)
    if not tensors:
        raise ValueError("autograd.backward: 'tensors' is empty")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError("autograd.backward: 'tensors' must hold eager Tensors, got %s "
                            "(in static mode use static.append_backward or paddle.grad)"
                            % type(t).__name__)
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    elif not isinstance(grad_tensors, (list, tuple)):
        grad_tensors = [grad_tensors]
    grad_tensors = list(grad_tensors)
    if len(grad_tensors) != len(tensors):
        raise ValueError("autograd.backward: %d grad_tensors given for %d tensors"
                         % (len(grad_tensors), len(tensors)))
    for t, g in zip(tensors, grad_tensors):
        if g is not None and (not isinstance(g, Tensor) or g.shape != t.shape):
            raise ValueError("autograd.backward: grad_tensor must be None or a Tensor of the "
                             "tensor's shape %s, got %s" % (t.shape, getattr(g, 'shape', g)))
    if dump_backward_graph_path is not None:
        _eager.dump_backward_graph(tensors, dump_backward_graph_path)
    _backward(tensors, grad_tensors, retain_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None, *,
         dump_backward_graph_path=None):
    """Gradients of ``outputs`` with respect to ``inputs`` (Paddle's ``paddle.grad``).

    With ``create_graph=True`` the returned gradients are part of the graph and
    can be differentiated again. On static Variables (under ``program_guard``
    or inside ``@to_static``) the grad ops are appended to the Program instead
    (``static.gradients``). ``dump_backward_graph_path`` writes the backward
    graph walked, as text (eager mode).

    >>> import framework as paddle
    >>> x = paddle.to_tensor([3.0], stop_gradient=False)
    >>> paddle.grad(x * x, x)[0].numpy().tolist()
    [6.0]
    """
    if is_static_var(_first(outputs)):
        return _static_grad(outputs, inputs, grad_outputs, allow_unused, no_grad_vars)
    return _eager.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                       allow_unused, no_grad_vars,
                       dump_backward_graph_path=dump_backward_graph_path)


def _first(values):
    return values[0] if isinstance(values, (list, tuple)) and values else values


def _static_grad(outputs, inputs, grad_outputs, allow_unused, no_grad_vars):
    """``paddle.grad`` on static Variables. Grad ops are ordinary ops there, so
    ``create_graph`` is implicit and the results can be differentiated again;
    ``retain_graph`` has no meaning in a Program."""
    inputs = [inputs] if is_static_var(inputs) else list(inputs)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    if grad_outputs is not None and isinstance(grad_outputs, (list, tuple)) \
            and len(grad_outputs) != len(outputs):
        raise ValueError("grad: %d grad_outputs given for %d outputs"
                         % (len(grad_outputs), len(outputs)))
    if is_static_var(no_grad_vars):
        no_grad_vars = [no_grad_vars]
    grads = _static_gradients(outputs, inputs, grad_outputs, no_grad_vars)
    if not allow_unused:
        for x, g in zip(inputs, grads):
            if g is None:
                raise RuntimeError(
                    "grad: input '%s' (shape %s) is not used to compute the outputs; "
                    "pass allow_unused=True to get None for it" % (x.name, x.shape))
    return grads
