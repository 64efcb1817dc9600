"""Weight normalisation (Salimans & Kingma 2016): ``weight = g * v / ||v||``,
the norm taken over every dim but ``dim``; ``g`` and ``v`` become the
layer's parameters and a forward pre-hook recomputes ``weight`` from them."""
from ...dygraph.state import no_grad
from ...ops import manipulation as _manip, math as _math, reduce as _reduce
from ..functional.norm import normalize

__all__ = ['weight_norm', 'remove_weight_norm']


def _to_front(t, dim):
    """``t`` with axis ``dim`` first, and the permutation (its own inverse)."""
    perm = list(range(len(t.shape)))
    perm[0], perm[dim] = perm[dim], perm[0]
    return (_manip.transpose(t, perm) if dim else t), perm


def norm_except_dim(w, dim):
    """The 2-norm of ``w`` over every dim but ``dim`` (all of them for -1)."""
    if dim == -1:
        return _math.sqrt(_reduce.sum(_math.square(w)) + 1e-12)
    front, _ = _to_front(w, dim)
    flat = _manip.reshape(front, [front.shape[0], -1])
    return _math.sqrt(_reduce.sum(_math.square(flat), axis=1))


def _weight(v, g, dim):
    if dim == -1:
        return v / (_math.sqrt(_reduce.sum(_math.square(v))) + 1e-12) * g
    front, perm = _to_front(v, dim)
    mat = _manip.reshape(front, [front.shape[0], -1])
    unit = _manip.reshape(normalize(mat, axis=1), front.shape)
    shape = [1] * len(v.shape)
    shape[0] = -1
    scaled = unit * _manip.reshape(g, shape)
    return _manip.transpose(scaled, perm) if dim else scaled


class WeightNorm:
    """The forward pre-hook holding the re-parametrised weight's name and dim."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, layer):
        return _weight(getattr(layer, self.name + '_v'), getattr(layer, self.name + '_g'),
                       self.dim)

    @staticmethod
    def apply(layer, name, dim):
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same "
                                   "parameter %s" % name)
        if name not in layer._parameters:
            raise ValueError("weight_norm: %s has no parameter %r" % (type(layer).__name__, name))
        dim = -1 if dim is None else dim
        rank = len(layer._parameters[name].shape)
        if not -rank <= dim < rank:
            raise ValueError("weight_norm: dim must be in [-%d, %d) for a weight of rank %d, "
                             "got %d" % (rank, rank, rank, dim))
        if dim != -1:
            dim %= rank
        fn = WeightNorm(name, dim)
        w = getattr(layer, name)
        del layer._parameters[name]
        g_value = norm_except_dim(w, dim)
        v = layer.create_parameter(list(w.shape), dtype=w.dtype)
        layer.add_parameter(name + '_v', v)
        g = layer.create_parameter(list(g_value.shape), dtype=g_value.dtype)
        layer.add_parameter(name + '_g', g)
        with no_grad():
            v.set_value(w.numpy())
            g.set_value(g_value.numpy())
        setattr(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer):
        w_value = self.compute_weight(layer)
        delattr(layer, self.name)
        del layer._parameters[self.name + '_g']
        del layer._parameters[self.name + '_v']
        w = layer.create_parameter(list(w_value.shape), dtype=w_value.dtype)
        layer.add_parameter(self.name, w)
        with no_grad():
            w.set_value(w_value.numpy())

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name='weight', dim=0):
    """Re-parametrise ``layer.<name>`` as ``g * v / ||v||`` (norm over every dim but
    ``dim``; ``dim=None`` or -1: over all of them). ``<name>_g`` and ``<name>_v``
    become its parameters.

    >>> import framework as paddle
    >>> conv = paddle.nn.utils.weight_norm(paddle.nn.Conv2D(3, 5, 3))
    >>> conv.weight_g.shape, conv.weight_v.shape
    (paddle.Size([5]), paddle.Size([5, 3, 3, 3]))
    """
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name='weight'):
    """Undo ``weight_norm``: ``<name>`` becomes a plain parameter again (holding
    the current ``g * v / ||v||``)."""
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(layer)
            del layer._forward_pre_hooks[key]
            return layer
    raise ValueError("weight_norm of '%s' not found in %s" % (name, layer))
