"""Pretrained weights by URL, without the network: files are looked up in the
local weights folder; a missing file raises an error that names the URL and
the path to place the downloaded file at."""
import hashlib
import os

WEIGHTS_HOME = os.path.expanduser(os.environ.get('PADDLE_WEIGHTS_HOME',
                                                 os.path.join('~', '.cache', 'paddle',
                                                              'hapi', 'weights')))


def _local_path(url, root_dir):
    return os.path.join(root_dir, os.path.basename(url.split('?')[0]))


def _md5(path):
    h = hashlib.md5()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True, decompress=True,
                      method='get'):
    """The local file for ``url`` under ``root_dir`` (never downloads)."""
    path = _local_path(url, root_dir)
    if not os.path.exists(path):
        raise RuntimeError(
            "%s is not available locally and this framework does not download files. "
            "Download it yourself and place it at: %s" % (url, path))
    if md5sum is not None and _md5(path) != md5sum:
        raise RuntimeError("%s: the file at %s does not match the expected md5 %s; replace it "
                           "with the file from %s" % (url, path, md5sum, url))
    return path


def get_weights_path_from_url(url, md5sum=None):
    """The local weights file for ``url`` (in ``~/.cache/paddle/hapi/weights``, or
    ``$PADDLE_WEIGHTS_HOME``)."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)


__all__ = ['get_weights_path_from_url', 'get_path_from_url']
