"""Gradient clipping strategies (Paddle's ``paddle.nn.ClipGradBy*``).

An instance is given to an optimizer (``grad_clip=``) and called on the list
of ``(param, grad)`` pairs before the update; it returns the new pairs.
Parameters with ``need_clip=False`` (``ParamAttr(need_clip=False)``) pass
through unchanged and do not count towards the global norm; pairs whose grad
is None are dropped. The computation uses registered ops, so the same code
appends clip ops to a static program.

>>> import numpy as np
>>> import framework as paddle
>>> w = paddle.Parameter(np.array([3.0, 4.0]), name='w')
>>> clip = paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0)
>>> [(p, g)] = clip([(w, paddle.to_tensor(np.array([3.0, 4.0])))])
>>> g.numpy().tolist()
[0.6000000000000001, 0.8]
"""
from ..ops import manipulation as _manip, math as _math
from ..ops.optim import clip_by_norm_op, squared_l2_norm_op

__all__ = ['ClipGradBase', 'ClipGradByValue', 'ClipGradByNorm', 'ClipGradByGlobalNorm']


def _float(value, what, api):
    if isinstance(value, bool):
        raise TypeError("%s: %s must be a float, got %r" % (api, what, value))
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError("%s: %s must be a float, got %r" % (api, what, value)) from None


def _clipped(param):
    return getattr(param, 'need_clip', True)


class ClipGradBase:
    """Base class: subclasses implement ``_clip(params_grads)``."""

    def __call__(self, params_grads):
        return self._clip(list(params_grads))

    def _clip(self, params_grads):
        raise NotImplementedError

    def __str__(self):
        return type(self).__name__


GradientClipBase = ClipGradBase


class ClipGradByValue(ClipGradBase):
    """Clip every gradient element into ``[min, max]`` (``min`` defaults to -max)."""

    def __init__(self, max, min=None):  # noqa: A002 (Paddle's argument names)
        api = 'ClipGradByValue'
        max_v = _float(max, 'max', api)
        if min is None:
            if max_v <= 0:
                raise ValueError("ClipGradByValue: max must be > 0 when min is not given, "
                                 "got %s" % max_v)
            min_v = -max_v
        else:
            min_v = _float(min, 'min', api)
        if min_v > max_v:
            raise ValueError("ClipGradByValue: min (%s) must not exceed max (%s)" % (min_v, max_v))
        self.max = max_v
        self.min = min_v

    def _clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            out.append((p, _math.clip(g, min=self.min, max=self.max) if _clipped(p) else g))
        return out

    def __str__(self):
        return 'Clip Gradient By Value, min = %f, max=%f' % (self.min, self.max)


class ClipGradByNorm(ClipGradBase):
    """Rescale each gradient separately so its L2 norm is at most ``clip_norm``:
    ``g * clip_norm / max(||g||, clip_norm)``."""

    def __init__(self, clip_norm):
        self.clip_norm = _float(clip_norm, 'clip_norm', 'ClipGradByNorm')
        if self.clip_norm <= 0:
            raise ValueError("ClipGradByNorm: clip_norm must be > 0, got %s" % self.clip_norm)

    def _clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            out.append((p, clip_by_norm_op(g, self.clip_norm) if _clipped(p) else g))
        return out

    def __str__(self):
        return 'Gradient Clip By Norm, clip_norm=%f' % self.clip_norm


class ClipGradByGlobalNorm(ClipGradBase):
    """Rescale all gradients together so their global L2 norm
    ``sqrt(sum ||g_i||^2)`` is at most ``clip_norm``: every clipped gradient is
    multiplied by ``clip_norm / max(global_norm, clip_norm)``.

    ``auto_skip_clip=True`` skips the multiplication when the norm is already
    small enough (it then reads the norm's value, a host sync on devices).
    """

    def __init__(self, clip_norm, group_name='default_group', auto_skip_clip=False):
        if not isinstance(group_name, str):
            raise TypeError("ClipGradByGlobalNorm: group_name must be a str, got %r"
                            % (group_name,))
        self.clip_norm = _float(clip_norm, 'clip_norm', 'ClipGradByGlobalNorm')
        if self.clip_norm <= 0:
            raise ValueError("ClipGradByGlobalNorm: clip_norm must be > 0, got %s"
                             % self.clip_norm)
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def _global_norm(self, grads):
        total = None
        for g in grads:
            sq = squared_l2_norm_op(g)
            total = sq if total is None else total + sq
        return _math.sqrt(total)

    def _clip(self, params_grads):
        kept = [(p, g) for p, g in params_grads if g is not None]
        grads = [g for p, g in kept if _clipped(p)]
        if not grads:
            return kept
        norm = self._global_norm(grads)
        if self.auto_skip_clip:
            if not float(norm) > self.clip_norm:
                return kept
            scale = self.clip_norm / norm
        else:
            scale = self.clip_norm / _math.maximum(norm, self.clip_norm)
        out = []
        for p, g in kept:
            if _clipped(p):
                s = scale if scale.dtype == g.dtype else _manip.cast(scale, g.dtype)
                g = g * s
            out.append((p, g))
        return out

    def __str__(self):
        return 'Gradient Clip By GlobalNorm, global_norm=%f' % self.clip_norm


# Paddle 1.x names
GradientClipByValue = ClipGradByValue
GradientClipByNorm = ClipGradByNorm
GradientClipByGlobalNorm = ClipGradByGlobalNorm
