"""Helpers shared by the text data sets: mode checks and archive members."""
import tarfile

from ...utils.dataset_files import locate  # noqa: F401  (re-exported for the data sets)


def check_mode(api, mode, allowed):
    if not isinstance(mode, str) or mode.lower() not in allowed:
        raise ValueError("%s: mode should be one of %s, got %r"
                         % (api, ', '.join(repr(m) for m in allowed), mode))
    return mode.lower()


def open_tar(api, path):
    try:
        return tarfile.open(path)
    except (tarfile.TarError, OSError) as e:
        raise ValueError("%s: %r is not a readable tar archive (%s)" % (api, path, e)) from None


def member(api, archive, name, path):
    """The file object of archive member ``name`` (a clear error when absent)."""
    try:
        return archive.extractfile(name)
    except KeyError:
        raise ValueError("%s: the archive %r has no member %r" % (api, path, name)) from None
