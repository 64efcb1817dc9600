"""``framework.fft`` (Paddle's ``paddle.fft``): discrete Fourier transforms in 1, 2
and n dimensions with 'backward'/'ortho'/'forward' scaling, their real and
Hermitian variants, sample frequencies and shifts. Built on the registered ops
``fft_c2c``, ``fft_r2c`` and ``fft_c2r`` (``ops/fft.py``), so every transform
differentiates (to any order) and works in static mode and under ``@to_static``.

>>> import framework as paddle
>>> x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
>>> paddle.fft.irfft(paddle.fft.rfft(x)).tolist()
[1.0, 2.0, 3.0, 4.0]
"""
from .ops.fft import (fft, fft2, fftfreq, fftn, fftshift, hfft, hfft2, hfftn, ifft,  # noqa: F401
                      ifft2, ifftn, ifftshift, ihfft, ihfft2, ihfftn, irfft, irfft2, irfftn,
                      rfft, rfft2, rfftfreq, rfftn)
from .ops.fft import __all__  # noqa: F401
