"""``paddle.cuda`` (Paddle 3's torch-style device namespace): the same
functions as ``paddle.device``, answered as Paddle's CPU build answers them
(no GPU: ``is_available()`` is False, ``device_count()`` 0; ``device`` and
``manual_seed`` are ``paddle.device``'s own)."""
from .device import (  # noqa: F401
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, Event, FloatTensor,
    HalfTensor, IntTensor, LongTensor, ShortTensor, Stream, StreamContext, current_device,
    current_stream, device, device_count, empty_cache, get_device_capability,
    get_device_name, get_device_properties, get_rng_state, get_stream_from_external,
    ipc_collect, is_available, is_bf16_supported, is_current_stream_capturing, manual_seed,
    manual_seed_all, max_memory_allocated, max_memory_reserved, memory_allocated,
    memory_reserved, reset_max_memory_allocated, reset_max_memory_reserved,
    reset_peak_memory_stats, set_device, set_rng_state, set_stream, stream, synchronize)

__all__ = ['BFloat16Tensor', 'BoolTensor', 'ByteTensor', 'CharTensor', 'DoubleTensor', 'Event',
           'FloatTensor', 'HalfTensor', 'IntTensor', 'LongTensor', 'ShortTensor',
           'Stream', 'StreamContext', 'current_device', 'current_stream', 'device',
           'device_count', 'empty_cache', 'get_device_capability', 'get_device_name',
           'get_device_properties', 'get_rng_state', 'get_stream_from_external',
           'ipc_collect', 'is_available', 'is_bf16_supported',
           'is_current_stream_capturing', 'manual_seed', 'manual_seed_all',
           'max_memory_allocated', 'max_memory_reserved', 'memory_allocated',
           'memory_reserved', 'reset_max_memory_allocated',
           'reset_max_memory_reserved', 'reset_peak_memory_stats', 'set_device',
           'set_rng_state', 'set_stream', 'stream', 'synchronize']
