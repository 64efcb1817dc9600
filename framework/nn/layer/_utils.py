"""Argument normalisation shared by the layers."""


def check_device(device, layer):
    """``device`` of a layer's parameters: only the CPU exists here."""
    if device is None:
        return
    from ...place import CPUPlace
    if not (isinstance(device, CPUPlace) or str(device).startswith('cpu')):
        raise ValueError("%s: device %r is not available; this framework runs on the CPU "
                         "only" % (layer, device))


def ntuple(value, n, name, layer):
    """``value`` as a list of ``n`` ints (an int is repeated)."""
    if isinstance(value, int):
        return [value] * n
    try:
        out = [int(v) for v in value]
    except TypeError:
        raise TypeError("%s: %s must be an int or %d ints, got %r"
                        % (layer, name, n, value)) from None
    if len(out) != n:
        raise ValueError("%s: %s must be an int or %d ints, got %r" % (layer, name, n, value))
    return out


def affine_parameters(layer, shape, weight_attr, bias_attr, fixed_when_false=False):
    """(weight, bias) of a normalisation layer: weight ones, bias zeros.

    ``weight_attr=False`` / ``bias_attr=False`` means no learnable one: None,
    or with ``fixed_when_false`` (batch norm, as Paddle) a constant parameter
    with ``stop_gradient=True`` that still appears in ``state_dict``.
    """
    from ..initializer import Constant
    out = []
    for attr, value, is_bias in ((weight_attr, 1.0, False), (bias_attr, 0.0, True)):
        if attr is False:
            p = None
            if fixed_when_false:
                p = layer.create_parameter(shape, attr=None, dtype=layer._dtype,
                                           is_bias=is_bias, default_initializer=Constant(value))
                p.stop_gradient = True
        else:
            p = layer.create_parameter(shape, attr=attr, dtype=layer._dtype, is_bias=is_bias,
                                       default_initializer=Constant(value))
        out.append(p)
    return tuple(out)
