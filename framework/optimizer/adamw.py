"""AdamW: Adam with decoupled weight decay."""
from ..ops.optim import adamw_amsgrad_op, adamw_op
from .adam import Adam
from .optimizer import float_arg

__all__ = ['AdamW']


class AdamW(Adam):
    r"""AdamW (Loshchilov & Hutter), Paddle's rule (the same as torch's AdamW):

    lr = learning_rate * lr_ratio(param)
    param = param * (1 - lr * weight_decay)        (when the decay applies)
    then the Adam update with ``lr``.

    ``weight_decay`` is the decoupled coefficient (a parameter group's
    ``weight_decay`` overrides it for the group). ``apply_decay_param_fun(name)``
    returning False skips the decay for that parameter; ``lr_ratio(param)``
    scales the learning rate per parameter (layer-wise decay). A parameter's own
    regularizer (``ParamAttr(regularizer=...)``) still adds coupled decay to its
    gradient, as in Paddle.
    """
    _group_options = dict(Adam._group_options, weight_decay='_coeff')
    _group_weight_decay_is_regularizer = False

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, use_lowprecision_moment=False, lr_ratio=None,
                 apply_decay_param_fun=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, amsgrad=False, name=None):
        self._coeff = float_arg('AdamW', 'weight_decay', weight_decay)
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError("AdamW: lr_ratio must be a function of the parameter returning "
                            "a float, got %r" % (lr_ratio,))
        if apply_decay_param_fun is not None and not callable(apply_decay_param_fun):
            raise TypeError("AdamW: apply_decay_param_fun must be a function of the "
                            "parameter name, got %r" % (apply_decay_param_fun,))
        self._lr_ratio = lr_ratio
        self._use_lowprecision_moment = bool(use_lowprecision_moment)
        self._apply_decay_param_fun = apply_decay_param_fun
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, False, amsgrad, name)

    def _acc_dtype(self, param):
        """``use_lowprecision_moment`` keeps a half-precision parameter's moments
        in its own dtype (less memory) instead of float32."""
        if self._use_lowprecision_moment:
            return param.dtype
        return super()._acc_dtype(param)

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        fn = self._apply_decay_param_fun
        with_decay = True if fn is None else bool(fn(param.name))
        ratio = 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))
        op = adamw_amsgrad_op if self._amsgrad else adamw_op
        coeff = float_arg('AdamW', "the group's weight_decay", opts['weight_decay'])
        outs = self._run_update(op, param, grad, lr, *state, float(opts['beta1']),
                                float(opts['beta2']), float(opts['epsilon']), coeff, ratio, with_decay)
        self._write((param,) + state, outs)
