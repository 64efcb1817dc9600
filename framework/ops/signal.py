"""Short-time Fourier transforms (``paddle.signal.stft`` / ``istft``) and the two
ops they are built on:

* ``frame``        slices a signal into overlapping frames of ``frame_length``
                   samples every ``hop_length`` samples,
* ``overlap_add``  sums frames back into a signal.

Each is the other's adjoint, so each one's gradient is the other (``frame``'s
through ``frame_grad``, which also restores the samples no frame covers). The
transforms themselves are the ops of ``ops/fft.py``; everything differentiates
in both modes.
"""
import numpy as np

from . import lib, meta
from .fft import fft_c2c_op, fft_c2r_op, fft_r2c_op
from .registry import Meta, OpError, add_test_case, def_op


class SignalArgumentError(ValueError, AssertionError):
    """A bad stft/istft argument (Paddle asserts these, so this is also an
    AssertionError)."""


def _check_axis(op, axis):
    if axis not in (0, -1):
        raise OpError("%s: axis must be 0 or -1, got %r" % (op, axis))


def _frame_meta(x, frame_length, hop_length, axis):
    _check_axis('frame', axis)
    shape = list(meta.shape_of(x))
    if not shape:
        raise OpError("frame: x must have at least 1 dim, got a 0-D tensor")
    seq = shape[axis]
    if seq >= 0 and frame_length > seq:
        raise OpError("frame: frame_length (%d) must not exceed the sequence length %d (x shape "
                      "%s)" % (frame_length, seq, shape))
    n = 1 + (seq - frame_length) // hop_length if seq >= 0 else -1
    out = shape[:-1] + [frame_length, n] if axis == -1 else [n, frame_length] + shape[1:]
    return Meta(out, meta.dtype_of(x))


def _frame_index(seq_len, frame_length, hop_length):
    n = 1 + (seq_len - frame_length) // hop_length
    return np.arange(frame_length)[:, None] + hop_length * np.arange(n)[None, :]


@def_op('frame', _frame_meta, save_inputs=False, pattern='opaque')
def frame_op(x, frame_length=1, hop_length=1, axis=-1):
    """Overlapping frames: axis -1 gives [..., frame_length, num_frames], axis 0
    [num_frames, frame_length, ...]."""
    _frame_meta(x, frame_length, hop_length, axis)
    if axis == -1:
        return x[..., _frame_index(x.shape[-1], frame_length, hop_length)]
    idx = _frame_index(x.shape[0], frame_length, hop_length).T
    return x[idx]


@frame_op.def_grad
def _frame_grad(g, x, out, frame_length, hop_length, axis):
    return frame_grad_op(g, x, hop_length, axis)


def _overlap_add(x, hop_length, axis, seq_len=None):
    if axis == 0:   # [num_frames, frame_length, ...] -> [seq, ...]
        return np.moveaxis(_overlap_add(np.moveaxis(np.moveaxis(x, 0, -1), 0, -2),
                                        hop_length, -1, seq_len), -1, 0)
    frame_length, n = x.shape[-2:]
    length = (n - 1) * hop_length + frame_length if n else 0
    out = np.zeros(x.shape[:-2] + (max(length, seq_len or 0),), x.dtype)
    for k in range(n):
        out[..., k * hop_length:k * hop_length + frame_length] += x[..., :, k]
    return out


def _overlap_add_meta(x, hop_length, axis):
    _check_axis('overlap_add', axis)
    shape = list(meta.shape_of(x))
    if len(shape) < 2:
        raise OpError("overlap_add: x must have at least 2 dims, got shape %s" % shape)
    fl, n = (shape[-2], shape[-1]) if axis == -1 else (shape[1], shape[0])
    length = (n - 1) * hop_length + fl if n >= 0 and fl >= 0 else -1
    out = shape[:-2] + [length] if axis == -1 else [length] + shape[2:]
    return Meta(out, meta.dtype_of(x))


@def_op('overlap_add', _overlap_add_meta, save_inputs=False, pattern='opaque')
def overlap_add_op(x, hop_length=1, axis=-1):
    """Sums frames ([..., frame_length, num_frames] for axis -1) into a signal."""
    _overlap_add_meta(x, hop_length, axis)
    return _overlap_add(x, hop_length, axis)


@overlap_add_op.def_grad
def _overlap_add_grad(g, x, out, hop_length, axis):
    frame_length = x.shape[-2] if axis == -1 else x.shape[1]
    return frame_op(g, frame_length, hop_length, axis)


def _frame_grad_meta(g, x, hop_length, axis):
    return Meta(meta.shape_of(x), meta.dtype_of(g))


@def_op('frame_grad', _frame_grad_meta, no_grad_inputs=('x',), save_inputs=False, pattern='opaque')
def frame_grad_op(g, x, hop_length=1, axis=-1):
    """The adjoint of ``frame``: frames summed back onto x's samples (x gives the
    length; samples no frame covers get 0)."""
    seq = np.shape(x)[axis]
    out = _overlap_add(g, hop_length, axis, seq)
    return out[..., :seq] if axis == -1 else out[:seq]


@frame_grad_op.def_grad
def _frame_grad_grad(gg, g, x, out, hop_length, axis):
    frame_length = g.shape[-2] if axis == -1 else g.shape[1]
    return frame_op(gg, frame_length, hop_length, axis), None


# ---- public API ----------------------------------------------------------------------------

def _require(cond, msg):
    if not cond:
        raise SignalArgumentError(msg)


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slice x into overlapping frames (see ``frame_op``)."""
    if axis not in (0, -1):
        raise ValueError('Unexpected axis: %s. It should be 0 or -1.' % (axis,))
    if isinstance(frame_length, bool) or not isinstance(frame_length, int) or frame_length <= 0:
        raise ValueError('Unexpected frame_length: %s. It should be an positive integer.'
                         % (frame_length,))
    if isinstance(hop_length, bool) or not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError('Unexpected hop_length: %s. It should be an positive integer.'
                         % (hop_length,))
    seq = x.shape[axis]
    if seq >= 0 and frame_length > seq:
        raise ValueError('Attribute frame_length should be less equal than sequence length, '
                         'but got (%d) > (%d).' % (frame_length, seq))
    return frame_op(x, frame_length, hop_length, axis)


def overlap_add(x, hop_length, axis=-1, name=None):
    """Sum overlapping frames back into a signal (the adjoint of ``frame``)."""
    if axis not in (0, -1):
        raise ValueError('Unexpected axis: %s. It should be 0 or -1.' % (axis,))
    if isinstance(hop_length, bool) or not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError('Unexpected hop_length: %s. It should be an positive integer.'
                         % (hop_length,))
    return overlap_add_op(x, hop_length, axis)


def _padded_window(window, win_length, n_fft, dtype):
    if window is not None:
        _require(len(window.shape) == 1 and window.shape[0] == win_length,
                 'expected a 1D window tensor of size equal to win_length(%d), but got window '
                 'with shape %s.' % (win_length, list(window.shape)))
    else:
        window = lib.ones([win_length], dtype=dtype)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = lib.pad_op(window, ((left, n_fft - win_length - left),), 'constant', 0.0)
    return window


def _is_complex(x):
    return np.dtype(x.dtype).kind == 'c'


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode='reflect', normalized=False, onesided=None, name=None):
    """The short-time Fourier transform of a signal [seq] or batch [batch, seq]:
    frames of n_fft samples every hop_length (default n_fft // 4), multiplied by
    ``window`` (default ones of win_length = n_fft, centred in n_fft), transformed;
    result [(batch,) n_fft // 2 + 1 (onesided) or n_fft, num_frames], complex.
    ``center`` pads n_fft // 2 samples on both sides ('reflect' or 'constant').

    >>> import framework as paddle
    >>> paddle.signal.stft(paddle.ones([16]), n_fft=8).shape
    paddle.Size([5, 9])
    """
    rank = len(x.shape)
    _require(rank in (1, 2), 'x should be a 1D or 2D real tensor, but got rank of x is %d' % rank)
    if rank == 1:
        x = lib.unsqueeze(x, 0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    _require(hop_length > 0, 'hop_length should be > 0, but got %d.' % hop_length)
    if win_length is None:
        win_length = n_fft
    seq = x.shape[-1]
    _require(seq < 0 or 0 < n_fft <= seq,
             'n_fft should be in (0, seq_length(%d)], but got %d.' % (seq, n_fft))
    _require(0 < win_length <= n_fft,
             'win_length should be in (0, n_fft(%d)], but got %d.' % (n_fft, win_length))
    window = _padded_window(window, win_length, n_fft, x.dtype)
    if center:
        _require(pad_mode in ('constant', 'reflect'),
                 'pad_mode should be "reflect" or "constant", but got "%s".' % (pad_mode,))
        half = n_fft // 2
        x = lib.pad_op(x, ((0, 0), (half, half)), pad_mode, 0.0)
    frames = lib.transpose(frame(x, n_fft, hop_length, -1), [0, 2, 1])  # [batch, frames, n_fft]
    frames = frames * window
    norm = 'ortho' if normalized else 'backward'
    if onesided is None:
        onesided = not _is_complex(frames)
    if _is_complex(frames):
        _require(not onesided,
                 'onesided should be False when input or window is a complex Tensor.')
        out = fft_c2c_op(frames, (2,), norm, True)
    else:
        out = fft_r2c_op(frames, (2,), norm, True, bool(onesided))
    out = lib.transpose(out, [0, 2, 1])
    return lib.squeeze(out, 0) if rank == 1 else out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False, name=None):
    """The inverse of ``stft``: each frame transformed back, windowed, overlap-added
    and divided by the summed squared window (which must not vanish: NOLA)."""
    _require(_is_complex(x), 'istft: x must be complex64 or complex128, got %s' % (x.dtype,))
    rank = len(x.shape)
    _require(rank in (2, 3), 'x should be a 2D or 3D complex tensor, but got rank of x is %d'
             % rank)
    if rank == 2:
        x = lib.unsqueeze(x, 0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    if win_length is None:
        win_length = n_fft
    _require(0 < hop_length <= win_length,
             'hop_length should be in (0, win_length(%d)], but got %d.' % (win_length, hop_length))
    _require(0 < win_length <= n_fft,
             'win_length should be in (0, n_fft(%d)], but got %d.' % (n_fft, win_length))
    n_frames, fft_size = x.shape[-1], x.shape[-2]
    _require(0 not in list(x.shape), 'x should not be an empty tensor.')
    if onesided:
        _require(fft_size == n_fft // 2 + 1, 'fft_size should be equal to n_fft // 2 + 1(%d) '
                 'when onesided is True, but got %d.' % (n_fft // 2 + 1, fft_size))
    else:
        _require(fft_size == n_fft, 'fft_size should be equal to n_fft(%d) when onesided is '
                 'False, but got %d.' % (n_fft, fft_size))
    real_dt = 'float32' if np.dtype(x.dtype) == np.complex64 else 'float64'
    window = _padded_window(window, win_length, n_fft, real_dt)
    x = lib.transpose(x, [0, 2, 1])   # [batch, frames, fft_size]
    norm = 'ortho' if normalized else 'backward'
    if return_complex:
        _require(not onesided, 'onesided should be False when input(output of istft) or window '
                 'is a complex Tensor.')
        out = fft_c2c_op(x, (2,), norm, False)
    else:
        _require(not _is_complex(window), 'Data type of window should not be complex when '
                 'return_complex is False.')
        if not onesided:
            x = x[:, :, :n_fft // 2 + 1]
        out = fft_c2r_op(x, (2,), norm, False, 0)
    out = lib.transpose(out * window, [0, 2, 1])      # [batch, n_fft, frames]
    out = overlap_add(out, hop_length, -1)            # [batch, seq]
    squared = lib.unsqueeze(window * window, 0)
    frames_of_window = lib.transpose(lib.tile(squared, [n_frames, 1]), [1, 0])
    envelope = overlap_add(frames_of_window, hop_length, -1)
    if length is None:
        if center:
            half = n_fft // 2
            out = out[:, half:-half]
            envelope = envelope[half:-half]
    else:
        start = n_fft // 2 if center else 0
        out = out[:, start:start + length]
        envelope = envelope[start:start + length]
    data = getattr(envelope, 'data', None)
    if isinstance(data, np.ndarray) and data.size and np.abs(data).min() < 1e-11:
        raise ValueError('Abort istft because Nonzero Overlap Add (NOLA) condition failed. For '
                         'more information about NOLA constraint please see '
                         '`scipy.signal.check_NOLA`.')
    out = out / envelope
    return lib.squeeze(out, 0) if rank == 2 else out


__all__ = ['stft', 'istft']

TENSOR_METHODS = {'stft': stft, 'istft': istft}


# ---- test cases ----------------------------------------------------------------------------

_rng = np.random.default_rng(31)


def _ref_frame(x, frame_length, hop_length, axis):
    seq = x.shape[axis]
    starts = range(0, seq - frame_length + 1, hop_length)
    if axis == -1:
        return np.stack([x[..., s:s + frame_length] for s in starts], -1)
    return np.stack([x[s:s + frame_length] for s in starts], 0)


def _ref_overlap_add(x, hop_length, axis):
    if axis == 0:
        x = np.moveaxis(np.moveaxis(x, 0, -1), 0, -2)
    fl, n = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + ((n - 1) * hop_length + fl,))
    for k in range(n):
        out[..., k * hop_length:k * hop_length + fl] += x[..., k]
    return np.moveaxis(out, -1, 0) if axis == 0 else out


add_test_case(frame_op, _rng.standard_normal(10), 4, 3, -1, ref=_ref_frame)
add_test_case(frame_op, _rng.standard_normal((2, 9)), 3, 2, -1, ref=_ref_frame)
add_test_case(frame_op, -_rng.standard_normal((8, 2, 3)), 4, 2, 0, ref=_ref_frame)
add_test_case(frame_op, _rng.standard_normal((0, 6)), 6, 1, -1, ref=_ref_frame)
add_test_case(frame_op, _rng.standard_normal(6).astype(np.float32), 2, 2, -1,
              ref=_ref_frame, grad=False)
add_test_case(overlap_add_op, _rng.standard_normal((4, 3)), 2, -1, ref=_ref_overlap_add)
add_test_case(overlap_add_op, -_rng.standard_normal((2, 3, 4)), 1, -1, ref=_ref_overlap_add)
add_test_case(overlap_add_op, _rng.standard_normal((3, 4, 2)), 3, 0, ref=_ref_overlap_add)
add_test_case(overlap_add_op, _rng.standard_normal((0, 3, 2)), 2, -1, ref=_ref_overlap_add)
add_test_case(overlap_add_op, _rng.standard_normal((3, 2)).astype(np.float32), 1, -1,
              ref=lambda x, h, a: _ref_overlap_add(x, h, a).astype(np.float32), grad=False)
add_test_case(frame_grad_op, _rng.standard_normal((3, 3)), np.zeros(11), 3, -1,
              ref=lambda g, x, h, a: np.r_[_ref_overlap_add(g, h, a), 0.0, 0.0])
add_test_case(frame_grad_op, _rng.standard_normal((2, 2, 3)), np.zeros((5, 3)), 2, 0,
              ref=lambda g, x, h, a: np.r_[_ref_overlap_add(g, h, a), np.zeros((1, 3))])
