"""The LoD sequence layers of ``paddle.static.nn`` (``sequence_conv``,
``sequence_softmax``, ``sequence_pool``, ``sequence_first_step``,
``sequence_last_step``, ``sequence_expand``), answered as Paddle 3.3.1 answers
them in its default modes.

These layers read the level-of-detail (LoD) sequence offsets that Paddle's old
static mode attaches to a tensor (``static.data(..., lod_level=1)`` fed with a
LoDTensor). Paddle 3 deprecated them: in dynamic mode and in its default PIR
static mode -- the mode this framework's programs follow, whose tensors carry
no LoD -- each of them stops with an AssertionError before looking at its
arguments, and so do these. Variable-length sequences are written as padded
dense tensors with lengths or masks instead (``nn.functional.sequence_mask``,
the RNN layers' ``sequence_length``).
"""
from ...ops.modes import in_static_mode

__all__ = ['sequence_conv', 'sequence_expand', 'sequence_first_step', 'sequence_last_step',
           'sequence_pool', 'sequence_softmax']


def _refuse(api):
    where = ("pir mode, please set the environment variable FLAGS_enable_pir_api=0 to switch "
             "old static mode" if in_static_mode() else "dygraph mode yet")
    raise AssertionError(
        "static.nn.%s: sequence layer is not supported in %s. (Paddle 3.3's message; this "
        "framework has no LoD tensors or old static mode: pad the sequences to a dense "
        "tensor and use their lengths or a mask, e.g. nn.functional.sequence_mask.)"
        % (api, where))


def sequence_conv(input, num_filters, filter_size=3, filter_stride=1, padding=True,  # noqa
                  padding_start=None, bias_attr=None, param_attr=None, act=None, name=None):
    """Convolution over the time steps of each LoD sequence (Paddle 3: refused)."""
    _refuse('sequence_conv')


def sequence_softmax(input, use_cudnn=False, name=None):  # noqa: A002
    """Softmax over each LoD sequence (Paddle 3: refused)."""
    _refuse('sequence_softmax')


def sequence_pool(input, pool_type, is_test=False, pad_value=0.0):  # noqa: A002
    """Pooling of each LoD sequence to one step (Paddle 3: refused)."""
    _refuse('sequence_pool')


def sequence_first_step(input):  # noqa: A002
    """The first step of each LoD sequence (``sequence_pool(input, 'first')``;
    Paddle 3: refused)."""
    _refuse('sequence_pool')


def sequence_last_step(input):  # noqa: A002
    """The last step of each LoD sequence (``sequence_pool(input, 'last')``;
    Paddle 3: refused)."""
    _refuse('sequence_pool')


def sequence_expand(x, y, ref_level=-1, name=None):
    """Repeat the sequences of ``x`` by ``y``'s LoD (Paddle 3: refused)."""
    _refuse('sequence_expand')
