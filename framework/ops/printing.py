"""How tensors print (``print(x)``, ``repr(x)``, ``print`` inside converted
code), with Paddle's layout and ``set_printoptions``.

Layout, as Paddle's: floats with ``precision`` decimals (whole numbers as
``3.``), or ``d.ddde+XX`` with ``sci_mode``; every item padded to the widest
one (with room for a minus sign when any item is negative); at most
``linewidth`` characters per line; a tensor with more than ``threshold``
elements shows ``edgeitems`` items at each end of every dim around ``...``.
"""
import numpy as np


class PrintOptions:
    __slots__ = ('precision', 'threshold', 'edgeitems', 'linewidth', 'sci_mode')

    def __init__(self):
        self.precision = 8
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = False


options = PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None):
    """Set how tensors print: ``precision`` (decimals, default 8),
    ``threshold`` (elements shown in full, 1000), ``edgeitems`` (items kept at
    each end when summarised, 3), ``sci_mode`` (scientific notation, False),
    ``linewidth`` (characters per line, 80). None keeps the current value.

    >>> import framework as paddle
    >>> paddle.set_printoptions(precision=2)
    >>> print(paddle.to_tensor([1.0, 2.5]))
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
           [1.  , 2.50])
    >>> paddle.set_printoptions(precision=8)
    """
    for name, value, kind in (('precision', precision, int), ('threshold', threshold, int),
                              ('edgeitems', edgeitems, int), ('linewidth', linewidth, int),
                              ('sci_mode', sci_mode, bool)):
        if value is None:
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError("set_printoptions: %s must be %s, got %r"
                            % (name, 'an int' if kind is int else 'a bool', value))
        if kind is int and value < 0:
            raise ValueError("set_printoptions: %s must be non-negative, got %d" % (name, value))
    for name, value in (('precision', precision), ('threshold', threshold),
                        ('edgeitems', edgeitems), ('linewidth', linewidth),
                        ('sci_mode', sci_mode)):
        if value is not None:
            setattr(options, name, value)


def format_item(v):
    """One element's text (no padding)."""
    p = options.precision
    if isinstance(v, (np.floating, float)) and not isinstance(v, np.complexfloating):
        if options.sci_mode:
            return '%.*e' % (p, v)
        if np.ceil(v) == v:
            return '%.0f.' % v
        return '%.*f' % (p, v)
    if isinstance(v, (np.complexfloating, complex)):
        re, im = float(np.real(v)), float(np.imag(v))
        f = 'e' if options.sci_mode else 'f'
        return '(%.*{0}%s%.*{0}j)'.format(f) % (p, re, '+' if im >= 0 else '', p, im)
    return str(v)


def _negative(v):
    """numpy's order (complex numbers by real part, then imaginary part)."""
    if np.iscomplexobj(v):
        return bool(v.real < 0 or (v.real == 0 and v.imag < 0))
    return bool(v < 0)


def _pad(text, v, width, signed):
    if width <= len(text):
        return text
    if signed and not _negative(v):
        return ' ' + text.ljust(width - 1)
    return text.ljust(width)


def _edges(arr, edge):
    """The elements printing shows: ``edge`` at each end of every long dim."""
    if arr.ndim == 0:
        return arr.reshape(1)
    if arr.shape[0] > 2 * edge:
        arr = np.concatenate([arr[:edge], arr[-edge:]]) if edge else arr[:0]
    if arr.ndim == 1:
        return arr
    return np.concatenate([_edges(a, edge) for a in arr]) if len(arr) else arr.reshape(-1)


def _format(arr, summary, indent, width, signed):
    edge = options.edgeitems
    if arr.ndim == 0:
        return _pad(format_item(arr[()]), arr[()], width, signed)
    n = arr.shape[0]
    rows = range(n)
    cut = summary and n > 2 * edge
    if cut:
        rows = list(range(edge)) + [None] + list(range(n - edge, n))
    if arr.ndim == 1:
        items = ['...' if i is None else _pad(format_item(arr[i]), arr[i], width, signed)
                 for i in rows]
        per_line = max(1, (options.linewidth - indent) // (width + 2))
        lines = [', '.join(items[k:k + per_line]) for k in range(0, len(items), per_line)]
        return '[' + (',\n' + ' ' * (indent + 1)).join(lines) + ']'
    parts = ['...' if i is None else _format(arr[i], summary, indent + 1, width, signed)
             for i in rows]
    return '[' + (',' + '\n' * (arr.ndim - 1) + ' ' * (indent + 1)).join(parts) + ']'


def format_values(arr, indent):
    """The values part of a tensor's text, its lines indented by ``indent``."""
    arr = np.asarray(arr)
    summary = arr.ndim > 0 and arr.size > options.threshold
    shown = _edges(arr, options.edgeitems) if summary else arr.reshape(-1)
    texts = [format_item(v) for v in shown]
    width = max((len(t) for t in texts), default=0)
    signed = arr.dtype.kind in 'iufc' and any(_negative(v) for v in shown)
    return _format(arr, summary, indent, width, signed)


def tensor_text(data, stop_gradient, place, prefix='Tensor', extra=''):
    """The whole text: ``Tensor(shape=..., dtype=..., place=...,
    stop_gradient=...,`` (then ``extra``: a distributed tensor's mesh) then the values."""
    data = np.asarray(data)
    indent = len(prefix) + 1
    # bfloat16 (ml_dtypes) formats its values like integers; they are exact in float32
    shown = data.astype(np.float32) if data.dtype.kind == 'V' else data
    return "%s(shape=%s, dtype=%s, place=%s, stop_gradient=%s,%s\n%s%s)" % (
        prefix, list(data.shape), data.dtype, place, stop_gradient, extra, ' ' * indent,
        format_values(shown, indent))
