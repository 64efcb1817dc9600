"""Spectral normalisation (Miyato et al. 2018) of a layer's weight: ``weight
= weight_orig / sigma`` with ``sigma`` the largest singular value of the
weight (as a ``[shape[dim], -1]`` matrix), estimated by power iteration on
the buffers ``<name>_u`` / ``<name>_v`` (updated while training)."""
from ...dygraph.state import no_grad
from ...ops import creation as _creation, manipulation as _manip, math as _math
from ..functional.norm import normalize
from ..layer.common import Linear
from ..layer.conv import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose

__all__ = ['spectral_norm']


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm``."""

    def __init__(self, name='weight', n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             "n_power_iterations=%d" % n_power_iterations)
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        mat = weight
        if self.dim != 0:
            perm = [self.dim] + [d for d in range(len(weight.shape)) if d != self.dim]
            mat = _manip.transpose(mat, perm)
        return _manip.reshape(mat, [mat.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration):
        weight = getattr(layer, self.name + '_orig')
        u = getattr(layer, self.name + '_u')
        v = getattr(layer, self.name + '_v')
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    _manip.assign(normalize(_math.matmul(mat, u, transpose_x=True), axis=0,
                                            epsilon=self.eps), v)
                    _manip.assign(normalize(_math.matmul(mat, v), axis=0, epsilon=self.eps), u)
            u, v = u.clone(), v.clone()
        sigma = _math.dot(u, _math.matmul(mat, v))
        return weight / sigma

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, layer.training))

    @staticmethod
    def apply(layer, name, n_power_iterations, dim, eps):
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   "parameter %s" % name)
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = layer._parameters[name]
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(_creation.normal(0.0, 1.0, [h]).astype(weight.dtype), axis=0,
                          epsilon=eps)
            v = normalize(_creation.normal(0.0, 1.0, [w]).astype(weight.dtype), axis=0,
                          epsilon=eps)
        del layer._parameters[name]
        layer.add_parameter(name + '_orig', weight)
        setattr(layer, name, weight * 1.0)
        layer.register_buffer(name + '_u', u)
        layer.register_buffer(name + '_v', v)
        layer.register_forward_pre_hook(fn)
        return fn


def spectral_norm(layer, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``layer.<name>`` by its spectral norm before every forward (one
    power-iteration step per training-mode call). ``dim`` defaults to 1 for
    Linear and transposed convolutions (their output dim), else 0.

    >>> import framework as paddle
    >>> fc = paddle.nn.utils.spectral_norm(paddle.nn.Linear(4, 3))
    >>> sorted(n for n, _ in fc.named_parameters())
    ['bias', 'weight_orig']
    """
    if dim is None:
        dim = 1 if isinstance(layer, (Conv1DTranspose, Conv2DTranspose, Conv3DTranspose,
                                      Linear)) else 0
    SpectralNorm.apply(layer, name, n_power_iterations, dim, eps)
    return layer
