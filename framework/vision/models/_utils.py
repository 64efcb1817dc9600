"""Helpers shared by the model zoo."""
from ...utils.download import get_weights_path_from_url
from ...utils.restricted_pickle import load_paddle_state_dict
from ..ops.conv_norm import ConvNormActivation  # noqa: F401  (the zoo's conv block)


def pretrained_weights(arch, model_urls):
    """Paddle's published weights for ``arch`` as ``{state_dict key: array}``.

    Nothing is downloaded: the ``.pdparams`` file must already be in the weights
    folder (``~/.cache/paddle/hapi/weights`` or ``$PADDLE_WEIGHTS_HOME``), else
    ``get_weights_path_from_url`` raises an error naming the URL and the path to
    put the file at. The file is read without unpickling arbitrary objects.
    """
    if arch not in model_urls:
        raise ValueError("%s: no pretrained weights are published for this model (Paddle has "
                         "them for %s); build it with pretrained=False"
                         % (arch, ', '.join(sorted(model_urls))))
    url, md5 = model_urls[arch]
    return load_paddle_state_dict(get_weights_path_from_url(url, md5))


def build(make, pretrained, arch, model_urls):
    """``make()``, with Paddle's weights for ``arch`` loaded when ``pretrained``
    (looked up before the model is built, so a missing file fails fast)."""
    state = pretrained_weights(arch, model_urls) if pretrained else None
    model = make()
    if state is not None:
        model.set_state_dict(state)
    return model


def make_divisible(v, divisor=8, min_value=None):
    """``v`` rounded to the nearest multiple of ``divisor`` (at least
    ``min_value``), never more than 10% below ``v``: the channel rounding of
    the MobileNet papers."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v
