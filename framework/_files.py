"""Reading and writing the framework's files safely.

* ``parse_json(data, where)``: strict JSON for files that may be damaged or
  hostile: UTF-8, duplicate keys refused, the nesting depth bounded before
  the parser runs (so deep nesting cannot exhaust the stack).
* ``atomic_write(path, chunks)``: write through a temporary file in the same
  directory (``.<name>.<random>.tmp``), fsync, rename over ``path``, fsync the
  directory. The writer holds an advisory lock on its temporary; temporaries
  nobody holds (left by a killed or crashed save) are removed by the next
  save of the same path.
* ``locked_temporary(path)`` / ``remove_stale_temporaries(path)``: the pieces,
  for writers that commit several files together (``static/io.py``).

Nothing here ever executes or unpickles file content.
"""
import json
import os
import re
import tempfile

try:
    import fcntl
except ImportError:         # not POSIX: no locks, so stale temporaries are not cleaned
    fcntl = None

MAX_JSON_DEPTH = 64
_BACKUP = 'prev-'     # backups are temporaries named .<name>.prev-<tag>.tmp
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


class FileFormatError(ValueError):
    """Raised by ``parse_json``; callers re-raise as their format's error."""


def json_depth(data):
    """The deepest nesting of ``[``/``{`` in JSON text (strings skipped)."""
    import numpy as np
    text = _STRING.sub(b'""', data)
    codes = np.frombuffer(text, dtype=np.uint8)
    step = (np.isin(codes, (0x5b, 0x7b)).astype(np.int64)
            - np.isin(codes, (0x5d, 0x7d)).astype(np.int64))
    return int(np.cumsum(step).max(initial=0))


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise FileFormatError("duplicate key %r in a JSON object" % k)
        out[k] = v
    return out


def parse_json(data, max_depth=MAX_JSON_DEPTH):
    """The JSON document in ``data`` (bytes); ``FileFormatError`` saying what
    is wrong when it is not valid UTF-8 JSON, nests deeper than ``max_depth``
    or repeats a key in an object."""
    if not isinstance(data, bytes):
        data = bytes(data)
    depth = json_depth(data)
    if depth > max_depth:
        raise FileFormatError("JSON nested %d levels deep (at most %d are allowed)"
                              % (depth, max_depth))
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        raise FileFormatError("not UTF-8 text (%s)" % e) from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise FileFormatError("JSON nested too deeply") from None
    except FileFormatError:
        raise
    except ValueError as e:          # JSONDecodeError, or an integer with too many digits
        raise FileFormatError("invalid JSON (%s)" % e) from None


# ---- atomic writes -------------------------------------------------------------------

def _umask():
    try:
        with open('/proc/self/status') as f:
            for line in f:
                if line.startswith('Umask:'):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022


def _temp_prefix(path):
    return '.%s.' % os.path.basename(path)


def is_temporary_of(path, name):
    """Whether file ``name`` (in ``path``'s directory) is one of ``path``'s temporaries."""
    prefix = _temp_prefix(path)
    middle = name[len(prefix):-len('.tmp')]
    return (name.startswith(prefix) and name.endswith('.tmp') and middle
            and '.' not in middle)


def _lock(fd, blocking):
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        return True
    except OSError:
        return False


def remove_stale_temporaries(path, keep_backups=False):
    """Remove ``path``'s temporaries that no live writer holds (with
    ``keep_backups``, not its backups: see ``locked_backup``)."""
    if fcntl is None:
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not is_temporary_of(path, name) or (
                keep_backups and name.startswith(_temp_prefix(path) + _BACKUP)):
            continue
        full = os.path.join(directory, name)
        try:
            fd = os.open(full, os.O_RDONLY)
        except OSError:
            continue
        try:
            if _lock(fd, blocking=False) and _same_file(fd, full):
                os.unlink(full)
        except OSError:
            pass
        finally:
            os.close(fd)


def _same_file(fd, name):
    try:
        a, b = os.fstat(fd), os.stat(name)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def locked_temporary(path):
    """(fd, name) of a new temporary for ``path``, locked by this process
    until ``fd`` is closed."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    while True:
        fd, name = tempfile.mkstemp(dir=directory, prefix=_temp_prefix(path), suffix='.tmp')
        _lock(fd, blocking=True)
        # a cleaner may have removed the name between its creation and our lock
        if _same_file(fd, name):
            return fd, name
        os.close(fd)


def write_temporary(path, chunks):
    """Write ``chunks`` to a new locked temporary of ``path`` and fsync it;
    returns (fd, name): the caller renames it (``commit``) or discards it."""
    fd, name = locked_temporary(path)
    try:
        for chunk in chunks:
            view = memoryview(chunk).cast('B')
            while view:
                view = view[os.write(fd, view):]
        os.fsync(fd)
        os.chmod(name, 0o666 & ~_umask())    # mkstemp makes 0600; give a normal file's mode
    except BaseException:
        discard(fd, name)
        raise
    return fd, name


def backup_name(path, tag):
    """The name of ``path``'s backup ``tag`` (letters, digits): one of its temporaries."""
    return os.path.join(os.path.dirname(os.path.abspath(path)),
                        '%s%s%s.tmp' % (_temp_prefix(path), _BACKUP, tag))


def locked_backup(path, tag):
    """Keep the current ``path`` reachable as ``backup_name(path, tag)`` (a hard
    link, locked by this process until the returned fd is closed) while it is
    being replaced; None when it does not exist or cannot be linked."""
    name = backup_name(path, tag)
    while True:
        try:
            os.unlink(name)         # a stale backup of an earlier interrupted save
        except FileNotFoundError:
            pass
        try:
            os.link(path, name)
            fd = os.open(name, os.O_RDONLY)
        except OSError:
            return None
        _lock(fd, blocking=True)
        if _same_file(fd, name) and _same_file(fd, path):
            return fd
        os.close(fd)


def lock_existing(name):
    """Lock an existing file (a backup to keep while a new save commits); its
    fd, or None when it does not exist."""
    try:
        fd = os.open(name, os.O_RDONLY)
    except OSError:
        return None
    _lock(fd, blocking=True)
    if _same_file(fd, name):
        return fd
    os.close(fd)
    return None


def discard(fd, name):
    try:
        os.unlink(name)
    except OSError:
        pass
    os.close(fd)


def commit(fd, name, path):
    """Rename temporary ``name`` over ``path`` (still holding its lock)."""
    try:
        os.replace(name, path)
    except BaseException:
        discard(fd, name)
        raise
    os.close(fd)


def sync_directory(path):
    """Make renames in ``path``'s directory durable."""
    try:
        dfd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def atomic_write(path, chunks):
    """Write ``chunks`` (bytes-like objects) to ``path`` atomically: a reader
    sees the old file or the new one, never a part; temporaries an interrupted
    save of ``path`` left behind are removed first."""
    remove_stale_temporaries(path)
    fd, name = write_temporary(path, chunks)
    commit(fd, name, path)
    sync_directory(path)
