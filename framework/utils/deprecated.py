"""Mark an API as deprecated: calling it warns (or raises, at ``level=2``)."""
import functools
import warnings


def deprecated(update_to="", since="", reason="", level=0):
    """Decorator: ``level`` 0 or 1 warns on every call, 2 raises RuntimeError."""
    def decorator(func):
        what = "API \"%s.%s\" is deprecated" % (getattr(func, '__module__', ''),
                                                 getattr(func, '__name__', func))
        if since:
            what += " since %s" % since
        if update_to:
            what += ", and will be removed in future versions. Please use \"%s\" instead" \
                % update_to
        if reason:
            what += ".\n    Reason: %s" % reason

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(what)
            warnings.warn(what, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        return wrapper
    return decorator
