"""Where the data sets' archives are, without the network.

A data set given no file looks for the archive under its standard name in the
data folders: ``$FRAMEWORK_DATA_HOME/<module>`` (default
``~/.cache/framework/dataset/<module>``) and Paddle's download cache
``~/.cache/paddle/dataset/<module>``. Nothing is ever downloaded: a missing
archive raises ``FileNotFoundError`` naming the URL to get it from and the
places to put it (``download=True`` changes nothing but the message).
"""
import os

__all__ = ['data_homes', 'locate']


def data_homes():
    env = os.environ.get('FRAMEWORK_DATA_HOME')
    homes = [env] if env else [os.path.join('~', '.cache', 'framework', 'dataset')]
    homes.append(os.path.join('~', '.cache', 'paddle', 'dataset'))
    return [os.path.expanduser(h) for h in homes]


def locate(given, url, module, api, arg='data_file', download=True):
    """The path of a data file: ``given`` when it is set (it must exist), else
    the file named like ``url``'s last part in one of the data folders."""
    if given is not None and given != '':
        given = os.fspath(given)
        if not os.path.exists(given):
            raise FileNotFoundError("%s: %s %r does not exist (the file is %s)"
                                    % (api, arg, given, url))
        return given
    name = os.path.basename(url.split('?')[0])
    tried = [os.path.join(home, module, name) for home in data_homes()]
    for path in tried:
        if os.path.exists(path):
            return path
    why = "download=True was given, but this framework never downloads; " if download else ""
    raise FileNotFoundError(
        "%s: %sno %s given and %s is not in the data folders. Download %s and pass "
        "%s=<path>, or put the file at %s" % (api, why, arg, name, url, arg,
                                              ' or '.join(tried)))
