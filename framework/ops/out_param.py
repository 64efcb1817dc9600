"""Paddle's keyword-only ``out=`` argument (``paddle.add(x, y, out=z)``).

The result is computed as usual, then ``out`` takes it over -- its value,
shape, dtype and place in the autograd graph, as Paddle's ``out`` does -- and
``out`` is returned. Eager tensors take over the result in place (the version
counter is bumped, so a saved copy of ``out`` that is read by a pending
backward is caught); a static Variable rebinds to the result, as ``x[i] = v``
does, so the same code works under ``program_guard`` and ``@to_static``.
"""


def write_out(out, result):
    """``out`` (a tensor, or a tuple/list of them for multi-output functions)
    taking over ``result``; returns ``out``."""
    if isinstance(out, (tuple, list)):
        if not isinstance(result, (tuple, list)) or len(out) != len(result):
            raise TypeError("out= must hold %d tensors for this function, got %d"
                            % (len(result) if isinstance(result, (tuple, list)) else 1,
                               len(out)))
        for o, r in zip(out, result):
            o._inplace_assign(r)
        return out
    if not hasattr(out, '_inplace_assign'):
        raise TypeError("out= must be a Tensor, got %s" % type(out).__name__)
    return out._inplace_assign(result)
