"""Tensor methods that are not ops of their own, shared by eager Tensors and
static Variables: dtype conversions (``x.float()``, ``x.long()``, ...),
dtype predicates, device moves answered as Paddle's CPU build answers them,
``requires_grad``, ``apply`` and a few shape queries.

(Storage facts of an eager tensor, ``data_ptr``/``stride``/``strides``, live
on the eager Tensor itself.)
"""
import numpy as np

from .. import dtype as _dt
from ..place import check_device
from .compat_args import aliases
from .creation import full_op, multinomial
from .grad_utils import is_value
from .modes import is_eager_tensor
from . import lib
from .manipulation import (assign_op, broadcast_tensors, cast, concat, numel_op, reshape,
                           scatter_nd, stack)
from .math import equal_op
from . import meta
from .modes import is_static_var
from .registry import OpError, add_test_case, def_op
from .shape_args import shape_arg
from .subscript import slice as _slice, strided_slice

# Paddle 3's conversion methods and the dtype each gives (x.int() is int32, as in Paddle)
_CONVERSIONS = {
    'float': 'float32', 'double': 'float64', 'half': 'float16', 'int': 'int32',
    'long': 'int64', 'bool': 'bool', 'byte': 'uint8', 'char': 'int8', 'short': 'int16',
    'cfloat': 'complex64', 'cdouble': 'complex128',
    'float16': 'float16', 'float32': 'float32', 'float64': 'float64', 'int8': 'int8',
    'int16': 'int16', 'int32': 'int32', 'int64': 'int64', 'uint8': 'uint8',
    'complex64': 'complex64', 'complex128': 'complex128', 'bfloat16': 'bfloat16',
}


def _converter(name, dtype):
    def convert(self: 'Tensor'):
        return cast(self, dtype)
    convert.__name__ = name
    convert.__doc__ = "``x`` cast to %s." % dtype
    return convert


def type_as(self: 'Tensor', other):
    """``self`` cast to ``other``'s dtype."""
    return cast(self, other.dtype)


# ---- dtype predicates --------------------------------------------------------------

def is_tensor(x):
    """True for a tensor (an eager Tensor or, while a program is built, a Variable)."""
    return is_value(x)


@aliases(x=('input',))
def is_floating_point(x):
    """True when ``x`` has a floating point dtype."""
    _need_tensor(x, 'is_floating_point')
    return np.dtype(x.dtype).kind == 'f'


@aliases(x=('input',))
def is_complex(x):
    """True when ``x`` has a complex dtype."""
    _need_tensor(x, 'is_complex')
    return np.dtype(x.dtype).kind == 'c'


def is_integer(x):
    """True when ``x`` has an integer dtype (bool is not one)."""
    _need_tensor(x, 'is_integer')
    return np.dtype(x.dtype).kind in 'iu'


def is_empty(x, name=None):
    """Whether ``x`` has no elements, as a 0-D bool tensor."""
    _need_tensor(x, 'is_empty')
    return equal_op(numel_op(x), 0)


def _need_tensor(x, api):
    if not is_value(x):
        raise TypeError("%s: x must be a tensor, got %s" % (api, type(x).__name__))


def numel(x, name=None):
    """The number of elements as a 0-D int64 tensor (Paddle 3's ``x.numel()``)."""
    return numel_op(x)


def element_size(self):
    """The size of one element in bytes."""
    return np.dtype(self.dtype).itemsize


def _itemsize(self):
    return np.dtype(self.dtype).itemsize


def is_same_shape(self, y):
    """Whether ``y`` has this tensor's shape."""
    return list(self.shape) == list(y.shape)


# ---- devices: everything is on the CPU ------------------------------------------------

def cpu(self: 'Tensor'):
    """This tensor (it is on the CPU already)."""
    return self


def cuda(self: 'Tensor', device_id=None, blocking=True):
    """Refused as on Paddle's CPU build: there is no CUDA device."""
    raise ValueError("cuda(): no CUDA device is available; this framework runs on the CPU "
                     "only (as a CPU build of PaddlePaddle)")


def pin_memory(self: 'Tensor', blocking=True):
    """Refused as on Paddle's CPU build: pinned memory needs CUDA."""
    raise RuntimeError("pin_memory(): pinned (CUDA host) memory is not available on a CPU-only "
                       "build")


def get_device(self: 'Tensor'):
    """-1: the tensor is on the CPU (Paddle's answer for CPU tensors)."""
    return -1


def _device(self):
    return 'cpu'


def to(self: 'Tensor', *args, **kwargs):
    """``x.to(dtype)``, ``x.to(device)``, ``x.to(device, dtype)``,
    ``x.to(other_tensor)`` (its dtype), with ``blocking``/``non_blocking``/
    ``copy`` keywords. Only the CPU is available; a new dtype gives a cast,
    otherwise the tensor itself is returned (a copy with ``copy=True``)."""
    dtype, device = kwargs.pop('dtype', None), kwargs.pop('device', None)
    copy = kwargs.pop('copy', False)
    kwargs.pop('blocking', None)
    kwargs.pop('non_blocking', None)
    if kwargs:
        raise TypeError("to() got unexpected keyword arguments %s" % sorted(kwargs))
    for a in args:
        if is_value(a):
            dtype = a.dtype
        elif isinstance(a, bool):
            continue            # the positional blocking flag
        elif _is_device(a):
            device = a
        else:
            dtype = a
    check_device(device, 'to')
    if dtype is not None and _dt.convert_dtype(dtype) != np.dtype(self.dtype):
        return cast(self, str(_dt.convert_dtype(dtype)))
    return assign_op(self) if copy else self


def _is_device(v):
    if isinstance(v, str):
        return v.split(':')[0].lower() in ('cpu', 'gpu', 'cuda', 'xpu', 'npu', 'ipu', 'mlu')
    return type(v).__name__.endswith('Place')


# ---- autograd flags -------------------------------------------------------------------

def _get_requires_grad(self):
    return not self.stop_gradient


def _set_requires_grad(self, value):
    self.stop_gradient = not bool(value)


def requires_grad_(self, requires_grad=True):
    """Set ``requires_grad`` (``stop_gradient = not requires_grad``) and return this tensor."""
    self.stop_gradient = not bool(requires_grad)
    return self


def apply(self, func):
    """``func(self)``; refused for a tensor that requires grad (as Paddle)."""
    if not self.stop_gradient:
        raise RuntimeError("apply: cannot apply a function to a tensor that requires grad")
    return func(self)


def apply_(self: 'Tensor', func):
    """In place: this tensor takes the value of ``func(self)`` (same shape)."""
    if not self.stop_gradient:
        raise RuntimeError("apply_: cannot apply a function to a tensor that requires grad")
    out = func(self)
    if not is_value(out):
        raise OpError("apply_: func must return a tensor, got %s" % type(out).__name__)
    return self._inplace_update(out)


def is_contiguous(self):
    """Whether the values are stored in row-major order without gaps (a
    Variable has no storage of its own: True)."""
    data = None if is_static_var(self) else getattr(self, 'data', None)
    return True if data is None else bool(data.flags.c_contiguous)


@def_op('contiguous', meta.unchanged, save_inputs=False, pattern='view', passthrough='x')
def contiguous_op(x):
    """x's values in a row-major (C-contiguous) array."""
    return np.ascontiguousarray(x) if np.ndim(x) else np.array(x, copy=True)


contiguous_op.def_grad(lambda g, x, out: g)
contiguous_op.def_fast_grad(lambda g, x, out: g)


def contiguous(self):
    """This tensor if it is contiguous, else a contiguous copy (differentiable)."""
    return self if is_contiguous(self) else contiguous_op(self)


def astype(self: 'Tensor', dtype):
    """``self`` cast to ``dtype``."""
    return cast(self, dtype)


def _clone_method(self):
    """A differentiable copy of this tensor."""
    return assign_op(self)


def resize_(x, shape, fill_zero=False, name=None):
    """In place: ``x`` gets ``shape``, keeping its first elements in row-major
    order; new elements are zeros (``fill_zero`` or not: numpy offers no
    cheaper honest 'uninitialised' memory)."""
    dims, _ = shape_arg(shape, 'resize_')
    if any(d < 0 for d in dims) or any(d < 0 for d in x.shape):
        raise OpError("resize_: shapes must be known and non-negative, got %s for x of shape %s"
                      % (dims, list(x.shape)))
    have, want = int(np.prod(x.shape)), int(np.prod(dims))
    flat = reshape(x, [-1])
    if want <= have:
        flat = strided_slice(flat, [0], [0], [want], [1], api='resize_')
    else:
        flat = concat([flat, full_op((want - have,), 0, str(np.dtype(x.dtype)))])
    if hasattr(x, '_check_inplace'):     # an eager leaf that requires grad refuses
        x._check_inplace('resize_')
    return x._inplace_assign(reshape(flat, dims))


def set_(x, source=None, shape=None, stride=None, offset=0, name=None):
    """In place: ``x`` takes the values of ``source`` (none: an empty 1-D
    tensor), read as ``as_strided(source, shape, stride, offset)`` when a
    shape is given (strides in elements, offset in bytes, as Paddle). An
    eager x takes source's memory, as Paddle's (``x._is_shared_buffer_with``)."""
    if source is None:
        value = full_op((0,), 0, str(np.dtype(x.dtype)))
    elif shape is None:
        # an eager detach shares the buffer; a program value is an assign
        value = source.detach() if is_eager_tensor(source) else assign_op(source)
    else:
        if stride is None:
            stride = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
        value = lib.as_strided(source, shape, stride, offset)
    if hasattr(x, '_check_inplace'):
        x._check_inplace('set_')
    return x._inplace_assign(value)


def is_dense(self):
    return True


def _sparse_only(name, kind):
    """A sparse tensor's method on a dense one: Paddle's dense tensor has it
    and refuses; here with the way to get a sparse tensor."""
    def refuse():
        raise TypeError("Tensor.%s() is only for %s tensors; this tensor is dense (make one with "
                        "x.to_sparse_coo(sparse_dim) or x.to_sparse_csr())" % (name, kind))

    if name == 'coalesce':          # Paddle's signatures
        def method(self, name=None):
            refuse()
    else:
        def method(self):
            refuse()
    method.__name__ = name
    return method


_SPARSE_ONLY = {'coalesce': 'sparse COO', 'indices': 'sparse COO', 'is_coalesced': 'sparse COO',
                'values': 'sparse COO or CSR', 'nnz': 'sparse COO or CSR',
                'crows': 'sparse CSR', 'cols': 'sparse CSR', 'rows': 'SelectedRows'}


def _false(self):
    return False


def dense_dim(self):
    """The number of dense dims of a dense tensor: all of them."""
    return len(self.shape)


def sparse_dim(self):
    """The number of sparse dims of a dense tensor: 0."""
    return 0


def _dist_fact(name):
    # what distributed.shard_tensor recorded on the tensor (None for a plain one)
    return property(lambda self: getattr(self, '__dict__', {}).get(name))


def is_dist(self):
    """Whether the tensor is a distributed one (``distributed.shard_tensor``)."""
    return 'process_mesh' in getattr(self, '__dict__', {})


def value(self: 'Tensor'):
    """The dense tensor holding the values: this tensor itself."""
    return self


__all__ = ['is_tensor', 'is_floating_point', 'is_complex', 'is_integer', 'is_empty']

def _attached():
    """Functions Paddle also offers as Tensor methods (first argument: the
    tensor); ``create_parameter`` is one too, registered by ``framework.nn``."""
    return {'broadcast_tensors': broadcast_tensors, 'scatter_nd': scatter_nd,
            'slice': _slice, 'stack': stack, 'strided_slice': strided_slice,
            'multinomial': multinomial}


TENSOR_METHODS = {name: _converter(name, d) for name, d in _CONVERSIONS.items()}
TENSOR_METHODS.update(_attached())
TENSOR_METHODS.update({n: _sparse_only(n, kind) for n, kind in _SPARSE_ONLY.items()})
TENSOR_METHODS.update({
    'type_as': type_as, 'is_tensor': is_tensor, 'is_floating_point': is_floating_point,
    'is_complex': is_complex, 'is_integer': is_integer, 'is_empty': is_empty, 'numel': numel,
    'element_size': element_size, 'itemsize': property(_itemsize),
    'is_same_shape': is_same_shape, 'cpu': cpu, 'cuda': cuda, 'pin_memory': pin_memory,
    'get_device': get_device, 'device': property(_device), 'to': to,
    'is_cuda': property(_false), 'requires_grad': property(_get_requires_grad,
                                                          _set_requires_grad),
    'requires_grad_': requires_grad_, 'apply': apply, 'apply_': apply_, 'is_dense': is_dense,
    'is_dist': is_dist, 'is_sparse': _false, 'is_sparse_coo': _false, 'is_sparse_csr': _false,
    'is_selected_rows': _false, 'value': value, 'is_contiguous': is_contiguous,
    'contiguous': contiguous, 'astype': astype, 'clone': _clone_method, 'resize_': resize_,
    'set_': set_, 'dense_dim': dense_dim, 'sparse_dim': sparse_dim, 'num_shard': _dist_fact('num_shard'),
    'placements': _dist_fact('placements'), 'process_mesh': _dist_fact('process_mesh'),
})


add_test_case(contiguous_op, np.arange(6.0).reshape(2, 3).T, ref=lambda x: x.copy())
add_test_case(contiguous_op, np.arange(8.0, dtype=np.float32).reshape(2, 4)[:, ::2],
              ref=lambda x: x.copy(), grad=False)
add_test_case(contiguous_op, np.array(-2.5), ref=lambda x: x)
add_test_case(contiguous_op, np.zeros((0, 3)), ref=lambda x: x)
