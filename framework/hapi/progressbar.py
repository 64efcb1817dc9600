"""A text progress bar for training loops (Paddle's ``hapi.progressbar``).

``verbose=1`` redraws one line per update (``\\r``) on a terminal, and on a
non-terminal (a log file, captured output) writes the line only when the bar
completes; ``verbose=2`` writes one line per update. Every line shows the
step counter, the values passed to ``update``, the mean time per step and,
when sample counts are given, the throughput in samples per second:

    step 10/57 - loss: 0.4213 - acc: 0.8750 - 12ms/step - 2133 samples/s
"""
import numbers
import os
import sys
import time

import numpy as np

__all__ = ['ProgressBar']


def _format_number(v):
    v = float(v)
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
        return '%.4e' % v
    return '%.4f' % v


def format_value(v):
    """A logged value as text: numbers with 4 decimals, lists space separated."""
    if isinstance(v, np.ndarray):
        v = v.reshape(-1).tolist() if v.size != 1 else v.item()
    if isinstance(v, (list, tuple)):
        return ' '.join(format_value(x) for x in v)
    if isinstance(v, numbers.Number) and not isinstance(v, bool):
        return _format_number(v)
    return str(v)


def _format_duration(seconds):
    seconds = int(round(seconds))
    if seconds >= 3600:
        return '%d:%02d:%02d' % (seconds // 3600, seconds % 3600 // 60, seconds % 60)
    if seconds >= 60:
        return '%d:%02d' % (seconds // 60, seconds % 60)
    return '%ds' % seconds


def _format_step_time(per_step):
    if per_step >= 1:
        return '%.2fs/step' % per_step
    if per_step >= 1e-3:
        return '%dms/step' % int(round(per_step * 1e3))
    return '%dus/step' % int(round(per_step * 1e6))


class ProgressBar:
    """Progress of ``num`` steps (``None`` = unknown).

    Args:
        num (int|None): total number of steps.
        width (int): characters of the bar drawn with ``verbose=1``.
        verbose (int): 0 silent, 1 redrawn bar, 2 one line per update.
        start (bool): start the clock now (else call ``start()``).
        file: where to write (default ``sys.stdout`` at write time).
        name (str): the counter's label.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar(num=2, verbose=2, file=out)
    >>> bar.update(1, [('loss', 0.5)], samples=32)
    >>> out.getvalue().startswith('step 1/2 - loss: 0.5000 - ')
    True
    """

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name='step'):
        if num is not None and (isinstance(num, bool) or not isinstance(num, numbers.Integral)
                                or num < 0):
            raise ValueError("ProgressBar: num must be a non-negative int or None, got %r"
                             % (num,))
        self._num = num
        self._width = int(width)
        self._verbose = verbose
        self._file = file
        self._name = name
        self._last_len = 0
        self._pending = None
        self._start = None
        if start:
            self.start()

    @property
    def file(self):
        return self._file if self._file is not None else sys.stdout

    def _dynamic(self):
        f = self.file
        return ((hasattr(f, 'isatty') and f.isatty()) or 'ipykernel' in sys.modules
                or 'PYCHARM_HOSTED' in os.environ)

    def start(self):
        self._start = time.perf_counter()
        self._pending = None
        self._last_len = 0

    def _counter(self, current):
        if self._num is None:
            return '%s %d' % (self._name, current)
        digits = len(str(self._num))
        return '%s %*d/%d' % (self._name, digits, current, self._num)

    def _bar(self, current):
        if not self._num:
            return ''
        done = int(self._width * min(current, self._num) / self._num)
        arrow = '>' if 0 < done < self._width else ''
        fill = '=' * (done - len(arrow)) + arrow
        return ' [%s%s]' % (fill, '.' * (self._width - len(fill)))

    def line(self, current, values=None, samples=None):
        """The text of an update (without line ending)."""
        elapsed = time.perf_counter() - (self._start or time.perf_counter())
        parts = [self._counter(current) + (self._bar(current) if self._verbose == 1 else '')]
        items = values.items() if isinstance(values, dict) else (values or [])
        for k, v in items:
            parts.append('%s: %s' % (k, format_value(v)))
        if current and elapsed > 0:
            per_step = elapsed / current
            if self._verbose == 1 and self._num and current < self._num:
                parts.append('ETA: %s' % _format_duration(per_step * (self._num - current)))
            parts.append(_format_step_time(per_step))
            if samples:
                parts.append('%d samples/s' % int(round(samples / elapsed)))
        return ' - '.join(parts)

    def update(self, current_num, values=None, samples=None):
        """Show progress ``current_num`` with ``values`` (a dict or a list of
        ``(name, value)``); ``samples`` = samples processed since ``start()``."""
        if not self._verbose:
            return
        text = self.line(current_num, values, samples)
        complete = self._num is not None and current_num >= self._num
        f = self.file
        if self._verbose == 1:
            if self._dynamic():
                pad = ' ' * max(self._last_len - len(text), 0)
                f.write('\r' + text + pad + ('\n' if complete else ''))
                self._last_len = len(text)
                self._pending = None if complete else ''
            elif complete:
                f.write(text + '\n')
                self._pending = None
            else:
                self._pending = text    # written by finish() if the bar never completes
        else:
            f.write(text + '\n')
        f.flush()

    def finish(self):
        """End the bar's line if the last update did not complete it (unknown
        or unreached ``num``)."""
        pending, self._pending = self._pending, None
        if pending is None or not self._verbose:
            return
        self.file.write(pending + '\n' if pending else '\n')
        self.file.flush()
