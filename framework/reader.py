"""Paddle's reader decorator ``paddle.batch``: a reader is a function that
returns an iterable of samples; the batched reader yields lists of them."""


def batch(reader, batch_size, drop_last=False):
    """A reader yielding lists of ``batch_size`` consecutive samples of
    ``reader()``; a shorter last list is kept unless ``drop_last``."""
    if isinstance(batch_size, bool) or int(batch_size) != batch_size or batch_size <= 0:
        raise ValueError("batch: batch_size should be a positive integer value, but got "
                         "batch_size=%r" % (batch_size,))
    batch_size = int(batch_size)

    def batch_reader():
        group = []
        for sample in reader():
            group.append(sample)
            if len(group) == batch_size:
                yield group
                group = []
        if group and not drop_last:
            yield group

    return batch_reader
