"""Reading the pickle files that public data sets and Paddle's model zoo ship,
without running anything from them.

CIFAR's "python version" archives and Paddle's ``.pdparams`` files are pickles:
plain containers of numbers, strings, bytes and numpy arrays. ``pickle.load``
would call any function a file names, so a file from elsewhere could run
code. ``restricted_load`` only lets a file rebuild plain Python values and
numeric numpy arrays: the unpickler resolves no name outside a short list of
numpy array constructors (checked to build nothing but plain, non-object
arrays) and ``collections.OrderedDict``. Anything else raises
``pickle.UnpicklingError`` naming what the file asked for.

>>> import io, pickle
>>> import numpy as np
>>> blob = pickle.dumps({'a': np.arange(3), 'b': [1, 'x', b'y']})
>>> restricted_load(io.BytesIO(blob))['a'].tolist()
[0, 1, 2]
"""
import collections
import pickle

import numpy as np

__all__ = ['restricted_load', 'load_paddle_state_dict']


def _dtype(obj, align=False, copy=False):
    dt = np.dtype(obj, align, copy)
    if dt.hasobject:
        raise pickle.UnpicklingError("the file asks for a numpy array of Python objects "
                                     "(dtype %s); only numeric arrays are read" % dt)
    return dt


def _reconstruct(subtype, shape, dtype):
    if subtype is not np.ndarray:
        raise pickle.UnpicklingError("the file asks for an array of type %r; only "
                                     "numpy.ndarray is read" % (subtype,))
    return np.ndarray.__new__(np.ndarray, shape, dtype)


def _scalar(dtype, data=None):
    dtype = _dtype(dtype)
    return np.frombuffer(data, dtype, count=1)[0] if data is not None else dtype.type()


def _encode(text, encoding='latin1'):
    # Python 2 pickles (protocol 2) store bytes as latin-1 text passed to _codecs.encode
    if not isinstance(text, str) or encoding not in ('latin1', 'latin-1'):
        raise pickle.UnpicklingError("the file calls _codecs.encode(%r, %r); only latin-1 "
                                     "text is read" % (type(text).__name__, encoding))
    return text.encode('latin1')


# numpy moved multiarray to numpy._core in 2.0; files name either path
_ALLOWED = {('collections', 'OrderedDict'): collections.OrderedDict,
            ('numpy', 'ndarray'): np.ndarray,
            ('numpy', 'dtype'): _dtype,
            ('_codecs', 'encode'): _encode}
for _mod in ('numpy.core.multiarray', 'numpy._core.multiarray'):
    _ALLOWED[(_mod, '_reconstruct')] = _reconstruct
    _ALLOWED[(_mod, 'scalar')] = _scalar


class _RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                "refusing to load %s.%s: this reader only rebuilds plain values and numeric "
                "numpy arrays, and never runs code named by a file" % (module, name)) from None


def restricted_load(file, encoding='ASCII'):
    """``pickle.load(file, encoding=...)`` limited to plain values and numeric
    numpy arrays (see the module doc). ``encoding='bytes'`` reads Python 2
    pickles (CIFAR's), keeping their str keys as bytes."""
    return _RestrictedUnpickler(file, encoding=encoding).load()


def load_paddle_state_dict(path):
    """The ``{name: numpy array}`` of a Paddle ``.pdparams`` file (a pickled dict),
    with Paddle's bookkeeping entries removed and split big parameters joined."""
    with open(path, 'rb') as f:
        try:
            state = restricted_load(f, encoding='latin1')
        except (pickle.UnpicklingError, EOFError, ValueError) as e:
            raise ValueError("%s is not a Paddle parameters file this framework can read "
                             "(%s)" % (path, e)) from None
    if not isinstance(state, dict):
        raise ValueError("%s holds a %s, not a dict of parameters" % (path, type(state).__name__))
    state = dict(state)
    state.pop('StructuredToParameterName@@', None)
    unpack = state.pop('UnpackBigParamInfor@@', None)   # sic: Paddle's key
    for key, info in (unpack or {}).items():
        state[key] = np.concatenate([state.pop(p) for p in info['slices']]).reshape(
            info['OriginShape'])
    return state
