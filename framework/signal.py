"""``framework.signal`` (Paddle's ``paddle.signal``): the short-time Fourier transform
and its inverse, built on the registered ``frame``/``overlap_add`` and FFT ops
(``ops/signal.py``), so both differentiate and work in static mode.

>>> import framework as paddle
>>> x = paddle.to_tensor([0.0, 1.0, 0.0, -1.0] * 4)
>>> spec = paddle.signal.stft(x, n_fft=8, hop_length=2)
>>> back = paddle.signal.istft(spec, n_fft=8, hop_length=2, length=16)
>>> bool(paddle.allclose(back, x, atol=1e-6))
True
"""
from .ops.signal import frame, istft, overlap_add, stft  # noqa: F401

__all__ = ['stft', 'istft']
