"""``ParamAttr``: how a layer should create one of its parameters.

A layer's ``weight_attr`` / ``bias_attr`` argument may be a ``ParamAttr``, a
name string, an initializer, a regularizer, ``True``/``None`` (defaults) or
``False`` (no parameter at all); ``ParamAttr._to_attr`` normalises all of them,
as Paddle does.

>>> import framework as paddle
>>> attr = paddle.ParamAttr(name='fc_w', learning_rate=0.5,
...                         initializer=paddle.nn.initializer.Constant(0.1))
>>> fc = paddle.nn.Linear(2, 3, weight_attr=attr)
>>> fc.weight.name, fc.weight.optimize_attr['learning_rate']
('fc_w', 0.5)
"""
import copy

__all__ = ['ParamAttr', 'WeightNormParamAttr']


class ParamAttr:
    """Attributes of a parameter: name, initializer, per-parameter learning
    rate multiplier, regularizer, trainable flag, gradient-clip opt-out."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError("ParamAttr: name must be a str or None, got %r" % (name,))
        if not isinstance(learning_rate, (int, float)) or isinstance(learning_rate, bool):
            raise TypeError("ParamAttr: learning_rate must be a number, got %r"
                            % (learning_rate,))
        if initializer is not None and not callable(initializer):
            raise TypeError("ParamAttr: initializer must be an Initializer (callable on a "
                            "parameter), got %r" % (initializer,))
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = bool(need_clip)

    def _set_default_initializer(self, initializer):
        if self.initializer is None:
            self.initializer = initializer

    @staticmethod
    def _to_attr(arg):
        """Normalise what a user passed as ``weight_attr``/``bias_attr``.

        Returns a fresh ``ParamAttr`` (never the caller's object, so a layer can
        fill in defaults without touching a shared attr), ``False`` for "no
        parameter", or a list of those for a list.
        """
        if arg is None or arg is True:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if isinstance(arg, ParamAttr):
            return copy.copy(arg)
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if _is_initializer(arg):
            return ParamAttr(initializer=arg)
        if _is_regularizer(arg):
            return ParamAttr(regularizer=arg)
        raise TypeError("a parameter attribute must be a ParamAttr, a name, an initializer, "
                        "a regularizer, None, True or False; got %s" % type(arg).__name__)

    def __repr__(self):
        return ("ParamAttr(name=%r, initializer=%r, learning_rate=%r, regularizer=%r, "
                "trainable=%r, need_clip=%r)" % (self.name, self.initializer,
                                                 self.learning_rate, self.regularizer,
                                                 self.trainable, self.need_clip))


class WeightNormParamAttr(ParamAttr):
    """A parameter reparameterised as ``w = g * v / ||v||`` (Salimans & Kingma,
    weight normalization): ``v`` has the parameter's shape, ``g`` one value per
    slice along ``dim`` (a single value when ``dim`` is None), initialised to
    the norm of ``v``'s initial value so ``w`` starts as ``v``; both are trained.
    Used by ``static.create_parameter`` and the ``static.nn`` layers (static
    mode, as in Paddle; eagerly use ``paddle.nn.utils.weight_norm``)."""

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0,
                 regularizer=None, trainable=True, do_model_average=False, need_clip=True):
        super().__init__(name, initializer, learning_rate, regularizer, trainable,
                         do_model_average, need_clip)
        if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
            raise TypeError("WeightNormParamAttr: dim must be an int or None, got %r" % (dim,))
        self.dim = dim


# nn.initializer's Initializer base class, installed by that module at its import
# (nn imports this module, not the other way round); no object is an Initializer
# before it exists
_initializer_type = ()


def install_initializer_type(cls):
    global _initializer_type
    _initializer_type = cls


def _is_initializer(obj):
    return isinstance(obj, _initializer_type)


def _is_regularizer(obj):
    from .regularizer import WeightDecayRegularizer
    return isinstance(obj, WeightDecayRegularizer)
