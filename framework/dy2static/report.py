"""Paddle's error report for @to_static: where in the user's code it failed.

An exception raised while a program is traced, or by an op while the traced
program runs, keeps its type; its message starts as Paddle's does::

    In transformed code:

        File "model.py", line 8, in forward
    	return self.head(h)
        File "model.py", line 3, in head
            def head(self, h):
                y = paddle.reshape(h, [5, 7])
                ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ <--- HERE
                return y

        ValueError: reshape: cannot reshape ...

The frames are the user's (outside this package), outermost first; the
innermost shows its lines around the failing one.
"""
import linecache
import os
import re

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_HEADER = 'In transformed code:'


def user_frames(tb):
    """(file, line, function) of each traceback frame in the user's code."""
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        name = code.co_filename
        if not name.startswith('<') and not os.path.abspath(name).startswith(_PACKAGE):
            frames.append((name, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return frames


def frame_of_location(location):
    """The frame of an op's recorded ``'file:line'`` (its function found in the source)."""
    filename, _, line = (location or '').rpartition(':')
    if not filename or not line.isdigit():
        return None
    lineno = int(line)
    return filename, lineno, _enclosing_function(filename, lineno)


def _enclosing_function(filename, lineno):
    own = linecache.getline(filename, lineno)
    indent = len(own) - len(own.lstrip())
    for k in range(lineno - 1, 0, -1):
        text = linecache.getline(filename, k)
        m = re.match(r'(\s*)(?:async\s+)?def\s+(\w+)', text)
        if m and len(m.group(1)) < indent:
            return m.group(2)
    return '<module>'


def _frame_text(filename, lineno, function, innermost):
    head = '    File "%s", line %d, in %s\n' % (filename, lineno, function)
    if not innermost:
        return head + '\t%s\n' % linecache.getline(filename, lineno).strip()
    lines = []
    for k in range(max(lineno - 2, 1), lineno + 3):
        text = linecache.getline(filename, k).rstrip('\n')
        if k > lineno and not text:
            break
        lines.append('        ' + text)
        if k == lineno:
            indent = len(text) - len(text.lstrip())
            lines.append('        ' + ' ' * indent + '~' * len(text.strip()) + ' <--- HERE')
    return head + '\n'.join(lines) + '\n'


def report(error, frames):
    """Paddle's message for ``error`` raised at ``frames`` (outermost first)."""
    body = ''.join(_frame_text(f, n, fn, i == len(frames) - 1)
                   for i, (f, n, fn) in enumerate(frames))
    return '%s\n\n%s\n    %s: %s\n' % (_HEADER, body, type(error).__name__, error)


def attach(error, frames):
    """Give ``error`` Paddle's report (once), keeping its type and traceback."""
    if not frames or error.__dict__.get('_jst_reported'):
        return
    error.__dict__['_jst_reported'] = True
    text = report(error, frames)
    if type(error).__str__ is BaseException.__str__:
        error.args = (text,)
    elif hasattr(error, 'add_note'):   # KeyError and the like format their own argument
        error.add_note(text)
