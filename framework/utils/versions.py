"""Checks of the installed framework version."""


def _parts(version):
    out = []
    for p in str(version).split('.'):
        digits = ''.join(ch for ch in p if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return (out + [0, 0, 0, 0])[:4]


def require_version(min_version, max_version=None):
    """Raise if the installed version is outside ``[min_version, max_version]``.
    The development version ``0.0.0`` satisfies every requirement, as in Paddle."""
    from .._version import __version__
    if not isinstance(min_version, str) or (max_version is not None
                                            and not isinstance(max_version, str)):
        raise TypeError("require_version: versions must be strings like '2.1.0', got %r, %r"
                        % (min_version, max_version))
    have = _parts(__version__)
    if have == [0, 0, 0, 0]:
        return
    if have < _parts(min_version) or (max_version is not None and have > _parts(max_version)):
        raise Exception("version %s is installed, but this code needs %s%s"
                        % (__version__, min_version,
                           '' if max_version is None else ' to %s' % max_version))
