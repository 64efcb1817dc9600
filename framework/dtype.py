"""Data types.

Inside the framework dtypes are plain ``numpy.dtype`` objects (this module's
``float32``, ``int64``, ...; kernels see numpy arrays). What users see, a
tensor's ``dtype`` and ``paddle.float32``, is a ``DataType``: the same dtype
under Paddle's name, so it prints ``paddle.float32`` as Paddle's does, while
``x.dtype == paddle.float32``, ``== 'float32'`` and ``== np.float32`` all hold
and numpy takes it wherever it takes a dtype (``np.zeros(2, x.dtype)``,
``a.astype(x.dtype)``: numpy reads its ``dtype`` attribute). Paddle's names
(``'float32'``, ``'paddle.int64'``, ``'bool'``), DataTypes and numpy dtypes are
all accepted wherever a dtype is asked for.
"""
import numpy as np

float16 = np.dtype('float16')
float32 = np.dtype('float32')
float64 = np.dtype('float64')
int8 = np.dtype('int8')
int16 = np.dtype('int16')
int32 = np.dtype('int32')
int64 = np.dtype('int64')
uint8 = np.dtype('uint8')
bool_ = np.dtype('bool')
complex64 = np.dtype('complex64')
complex128 = np.dtype('complex128')
uint32 = np.dtype('uint32')
uint64 = np.dtype('uint64')
# (Paddle 3's torch-style names float/double/half/cfloat/cdouble are bound in
# framework/__init__.py, not here, where they would shadow the builtins.)
# Not provided: bfloat16 (and Paddle's uint16, which is bfloat16 storage) and the
# float8 types have no numpy dtype, so no kernel here could compute in them.

_ALIASES = {
    'float': float32, 'fp32': float32, 'fp16': float16, 'fp64': float64,
    'double': float64, 'int': int64, 'long': int64, 'half': float16,
    'paddle.float32': float32, 'paddle.float64': float64, 'paddle.float16': float16,
    'paddle.int32': int32, 'paddle.int64': int64, 'paddle.bool': bool_,
    'paddle.int8': int8, 'paddle.uint8': uint8, 'paddle.int16': int16,
    'paddle.complex64': complex64, 'paddle.complex128': complex128,
    'paddle.uint32': uint32, 'paddle.uint64': uint64,
}

_default_dtype = [float32]

_BFLOAT16_NAMES = ('bfloat16', 'bf16', 'paddle.bfloat16', 'uint16')
_bfloat16 = []


def bfloat16_dtype():
    """numpy's bfloat16 dtype, from the optional ``ml_dtypes`` package (imported
    only when bfloat16 is asked for, so the core needs nothing beyond numpy)."""
    if not _bfloat16:
        try:
            import ml_dtypes
        except ImportError:
            raise ImportError("bfloat16 needs the optional package ml_dtypes, which numpy "
                              "lacks: pip install ml_dtypes (or pip install "
                              "'framework[amp]')") from None
        _bfloat16.append(np.dtype(ml_dtypes.bfloat16))
    return _bfloat16[0]


def is_bfloat16(dtype):
    """True for the bfloat16 dtype (without importing ml_dtypes)."""
    if isinstance(dtype, DataType):
        dtype = dtype.dtype
    return isinstance(dtype, np.dtype) and dtype.kind == 'V' and dtype.name == 'bfloat16'


class DataType:
    """A dtype as users see it (Paddle's ``paddle.dtype``): prints as
    ``paddle.<name>``, equals every spelling of the same dtype, hashes as its
    numpy dtype (so either finds the other in a dict) and hands numpy the
    numpy dtype through ``.dtype``. One object per dtype (``public``)."""
    __slots__ = ('dtype', '_text')
    # what the numpy dtype answers for it (not ``shape``: a DataType is no array)
    _NUMPY_ATTRS = frozenset(('name', 'kind', 'itemsize', 'char', 'type', 'str', 'num',
                              'byteorder', 'alignment', 'isbuiltin', 'isnative', 'descr',
                              'base', 'hasobject', 'flags', 'names', 'fields', 'metadata'))

    def __init__(self, np_dtype):
        self.dtype = np_dtype
        self._text = 'paddle.' + np_dtype.name

    def __eq__(self, other):
        if other is self:
            return True
        if isinstance(other, DataType):
            return self.dtype == other.dtype
        try:
            return self.dtype == convert_dtype(other)
        except (TypeError, ImportError):
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return self._text

    __str__ = __repr__

    def __getattr__(self, name):
        if name in DataType._NUMPY_ATTRS:
            return getattr(self.dtype, name)
        raise AttributeError("'paddle.dtype' object has no attribute %r" % name)

    def __reduce__(self):
        return (public, (self.dtype.name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


_public = {}


def public(dtype):
    """The ``DataType`` users see for any accepted dtype spelling."""
    try:
        return _public[dtype]
    except (KeyError, TypeError):
        pass
    d = convert_dtype(dtype)
    hit = _public.get(d)
    if hit is None:
        hit = _public[d] = DataType(d)
    return hit


def __getattr__(name):
    # ``framework.dtype.bfloat16`` on first use: importing ml_dtypes up front
    # would make it a hard dependency
    if name == 'bfloat16':
        return public(bfloat16_dtype())
    raise AttributeError("module 'framework.dtype' has no attribute %r" % name)


def convert_dtype(dtype):
    """Normalise any accepted dtype spelling to a ``numpy.dtype`` (None -> None)."""
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, DataType):
        return dtype.dtype
    if isinstance(dtype, str):
        hit = _ALIASES.get(dtype.lower())
        if hit is not None:
            return hit
        if dtype.lower() in _BFLOAT16_NAMES[:3]:
            return bfloat16_dtype()
    if dtype is float:
        return _default_dtype[0]
    if dtype is int:
        return int64
    if dtype is bool:
        return bool_
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError("unsupported dtype %r; use e.g. 'float32', 'int64', 'bool' "
                        "or a numpy dtype" % (dtype,)) from None


_names = {}


def dtype_name(dtype):
    """The canonical name ('float32', 'int64', ...) of any accepted dtype
    spelling. Cached: numpy builds ``str(dtype)`` in Python on every call,
    and casts run it once per op."""
    try:
        return _names[dtype]
    except (KeyError, TypeError):      # TypeError: an unhashable spelling
        pass
    name = str(convert_dtype(dtype))
    if dtype is not float:               # float follows set_default_dtype
        try:
            _names[dtype] = name
        except TypeError:
            pass
    return name


def set_default_dtype(d):
    d = convert_dtype(d)
    if d.kind != 'f':
        raise TypeError("set_default_dtype only accepts float dtypes, got %s" % d)
    _default_dtype[0] = d


def get_default_dtype():
    return str(_default_dtype[0])


def default_float():
    return _default_dtype[0]


def is_floating(dtype):
    d = np.dtype(dtype)
    return d.kind == 'f' or is_bfloat16(d)


def is_inexact(dtype):
    """Floating (bfloat16 included) or complex."""
    d = np.dtype(dtype)
    return d.kind in 'fc' or is_bfloat16(d)


def is_half(dtype):
    """float16 or bfloat16: the dtypes whose sums and optimizer states are kept
    in float32."""
    d = np.dtype(dtype)
    return d == float16 or is_bfloat16(d)


def is_integer(dtype):
    return np.dtype(dtype).kind in 'iu'


def default_complex():
    """The complex dtype matching the default float (complex64 for float32)."""
    return complex128 if _default_dtype[0] == float64 else complex64


# ---- type promotion -------------------------------------------------------------
#
# PyTorch's rule (torch.result_type), used by every elementwise op in both modes.
# Dtypes fall in categories bool < integer < floating < complex. Operands come in
# three priority groups: tensors with dims, 0-d tensors, and numbers (Python or
# numpy scalars: a numpy scalar counts as a number of its category, so
# ``x * np.float64(2)`` keeps a float32 x). A lower group decides the dtype only
# when it brings a higher category, so float32 data never silently becomes float64.

_CATEGORY = {'b': 0, 'u': 1, 'i': 1, 'f': 2, 'c': 3}
_promoted = {}


def category(dtype):
    """0 bool, 1 integer, 2 floating, 3 complex."""
    d = np.dtype(dtype)
    try:
        return _CATEGORY[d.kind]
    except KeyError:
        if is_bfloat16(d):
            return 2
        raise TypeError("dtype %s takes no part in arithmetic; use a bool, integer, "
                        "float or complex dtype" % d) from None


def promote_types(a, b):
    """The smallest dtype that holds both ``a`` and ``b`` (torch.promote_types):
    the higher category wins, an integer meeting a float gives that float
    (int64 with float16 is float16, where numpy says float64), and within a
    category (or floating with complex) the wider type wins."""
    if a is b:
        return a
    key = (a, b)
    hit = _promoted.get(key)
    if hit is None:
        ca, cb = category(a), category(b)
        if ca == cb or ca + cb == 5:       # same category, or floating with complex
            hit = np.promote_types(a, b)
        else:
            hit = np.dtype(a if ca > cb else b)
        _promoted[key] = hit
    return hit


def number_dtype(value):
    """The dtype a number (Python or numpy scalar) takes part in promotion
    with: bool, int64, the default float or the default complex; None for
    anything else."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return _default_dtype[0]
    if isinstance(value, (complex, np.complexfloating)):
        return default_complex()
    return None


def _combine(higher, lower):
    """The dtype of a higher-priority group next to a lower one: the lower
    group only counts when its category is higher."""
    if higher is None:
        return lower
    if lower is None or category(higher) >= category(lower):
        return higher
    return promote_types(higher, lower)


def result_type(*operands):
    """The dtype an elementwise op computes in, for operands that are tensors
    (anything with ``dtype`` and ``shape``: Tensor, Variable, Meta, numpy
    array), bare dtypes (taken as tensors), numbers, or None (ignored).

    >>> import framework as paddle
    >>> x = paddle.ones([2], 'int32')
    >>> str(paddle.dtype.result_type(x, 1.5)), str(paddle.dtype.result_type(x, paddle.ones([], 'int64')))
    ('float32', 'int32')
    """
    dims = zero = numbers = None
    for v in operands:
        if v is None:
            continue
        d = number_dtype(v)
        if d is not None:
            numbers = d if numbers is None else promote_types(numbers, d)
            continue
        if isinstance(v, (np.dtype, DataType)):
            d, ndim = convert_dtype(v), 1
        else:
            try:
                d, ndim = np.dtype(v.dtype), len(v.shape)
            except AttributeError:
                raise TypeError("type promotion: expected a tensor or a number, got %s"
                                % type(v).__name__) from None
        if ndim:
            dims = d if dims is None else promote_types(dims, d)
        else:
            zero = d if zero is None else promote_types(zero, d)
    return _combine(dims, _combine(zero, numbers))


# ---- finfo / iinfo ---------------------------------------------------------------

class _FInfo:
    """Machine limits of a floating point dtype (Paddle's ``paddle.finfo``)."""
    __slots__ = ('bits', 'eps', 'max', 'min', 'tiny', 'smallest_normal', 'resolution', 'dtype')

    def __init__(self, d):
        if is_bfloat16(d):     # numpy's finfo does not know it; ml_dtypes' does
            import ml_dtypes
            info = ml_dtypes.finfo(d)
        else:
            info = np.finfo(d)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.tiny)
        self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = str(d)

    def __repr__(self):
        return ("paddle.finfo(min=%g, max=%g, eps=%g, resolution=%g, smallest_normal=%g, "
                "tiny=%g, bits=%d, dtype=%s)" % (self.min, self.max, self.eps, self.resolution,
                                                 self.smallest_normal, self.tiny, self.bits,
                                                 self.dtype))


class _IInfo:
    """Limits of an integer dtype (Paddle's ``paddle.iinfo``)."""
    __slots__ = ('bits', 'max', 'min', 'dtype')

    def __init__(self, d):
        info = np.iinfo(d)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), \
            int(info.min), str(d)

    def __repr__(self):
        return "paddle.iinfo(min=%d, max=%d, bits=%d, dtype=%s)" % (self.min, self.max,
                                                                    self.bits, self.dtype)


def finfo(dtype):
    """Limits of a float (or complex: of its parts) dtype: ``bits``, ``eps``,
    ``max``, ``min``, ``tiny``, ``smallest_normal``, ``resolution``, ``dtype``."""
    d = convert_dtype(dtype)
    if d.kind == 'c':
        d = np.empty(0, d).real.dtype
    if not is_floating(d):
        raise ValueError("finfo: needs a floating point dtype, got %s (use iinfo for integers)"
                        % d)
    return _FInfo(d)


def iinfo(dtype):
    """Limits of an integer dtype: ``bits``, ``max``, ``min``, ``dtype``."""
    d = convert_dtype(dtype)
    if d.kind not in 'iub':
        raise ValueError("iinfo: needs an integer dtype, got %s (use finfo for floats)" % d)
    if d.kind == 'b':
        raise ValueError("iinfo: bool is not an integer dtype")
    return _IInfo(d)
