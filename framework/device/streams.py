"""Streams and events, as Paddle's CPU build has them: the CPU runs ops in order
on the calling thread, so there is no stream to create, select or wait for.
Making a Stream or Event, asking for the current stream or synchronizing a device
raise a clear error (Paddle's CPU build raises too); ``stream_guard(None)`` is
accepted and does nothing."""


def _needs_accelerator(api):
    return RuntimeError("paddle.device.%s: streams and events need a GPU, XPU or custom "
                        "device; this framework is a CPU build (as Paddle's CPU package) "
                        "where ops run in order on the calling thread" % api)


class Stream:
    """A device stream; none exists on the CPU build."""

    def __init__(self, device=None, priority=2, stream_base=None):
        raise _needs_accelerator('Stream')


class Event:
    """A device event; none exists on the CPU build."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        raise _needs_accelerator('Event')


def current_stream(device=None):
    raise TypeError("paddle.device.current_stream: device should be gpu, xpu or a custom "
                    "device; this framework runs on the CPU only")


def synchronize(device=None):
    raise TypeError("paddle.device.synchronize: device should be gpu, xpu or a custom "
                    "device; on the CPU every op has finished when it returns")


def set_stream(stream):
    if not isinstance(stream, Stream):
        raise TypeError("paddle.device.set_stream: expected a paddle.device.Stream, got %s"
                        % type(stream).__name__)
    return stream


def get_stream_from_external(data_ptr, device=None):
    raise _needs_accelerator('get_stream_from_external')


def is_current_stream_capturing():
    """Whether a CUDA graph is being captured: never on the CPU."""
    return False


class stream_guard:  # noqa: N801  (Paddle's name)
    """``with stream_guard(s):`` runs the block on stream ``s``; only ``None``
    (the default stream, i.e. the CPU's program order) exists here."""

    def __init__(self, stream=None):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError("stream_guard: expected a paddle.device.Stream or None, got %s"
                            % type(stream).__name__)
        self.stream = stream

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_value, tb):
        return False


StreamContext = stream_guard


def stream(stream):
    """``with paddle.device.stream(s):`` (the same as ``stream_guard(s)``)."""
    return stream_guard(stream)
