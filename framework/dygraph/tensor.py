"""The eager Tensor: a numpy array plus the few slots autograd needs.

Math methods and operators are installed from ``framework.ops.tensor_methods``
(the same table static Variables use), so this module holds only what is
specific to eager storage: construction, conversion, autograd entry points,
in-place updates and ``repr``.
"""
import copy as _copy
import itertools

import numpy as np

from .. import dtype as _dt
from ..ops.control import tensor_repr
from ..dense_tensor import DENSE_TENSOR_KIND, DenseTensor
from ..place import cpu_place
from ..size import Size
from . import autograd
from .state import grad_mode

_names = itertools.count()


class Tensor:
    # Every tensor sets the five slots (``_grad`` behind the ``grad`` property,
    # a descriptor of the class as Paddle's); the fields most tensors never set
    # are class defaults (an instance __dict__ appears only when one is set),
    # so an op's output costs five stores. As in Paddle, other attributes can be set.
    __slots__ = ('data', '_grad', '_grad_node', 'stop_gradient', '_version', '__dict__',
                 '__weakref__')
    _name = None
    _hooks = None
    persistable = False
    _rebinds = None     # where the tensor sat in the graph before it moved (autograd.note_rebind)
    # make numpy defer to our reflected operators (np_array * tensor)
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __init__(self, data=None, dtype=None, place=None, stop_gradient=True, name=None):
        if isinstance(data, Tensor):
            data = data.data
        arr = to_array(data, dtype)
        self._init(arr, None, stop_gradient)
        self._name = name

    def _init(self, data, grad_node, stop_gradient):
        self.data = data
        self._grad_node = grad_node
        self.stop_gradient = stop_gradient
        self._version = 0
        self._grad = None

    @property
    def grad(self):
        """The gradient accumulated by backward (None before)."""
        return self._grad

    @grad.setter
    def grad(self, value):
        # Paddle's setter copies the value into the gradient tensor: a gradient
        # already there keeps its flags (stop_gradient=False) and dtype
        if value is None:
            self._grad = None
            return
        if not isinstance(value, Tensor):
            raise TypeError("Tensor.grad must be set to a Tensor or None, got %s"
                            % type(value).__name__)
        old = self._grad
        if old is not None and old.data.dtype != value.data.dtype:
            raise RuntimeError("Tensor.grad: the new gradient has dtype %s but the gradient of "
                               "%s has dtype %s; Tensor Copy cannot be performed"
                               % (value.data.dtype, self.name, old.data.dtype))
        g = Tensor.__new__(Tensor)
        g._init(value.data, None, value.stop_gradient if old is None else old.stop_gradient)
        self._grad = g

    # ---- properties -------------------------------------------------------
    @property
    def name(self):
        if self._name is None:
            self._name = 'generated_tensor_%d' % next(_names)
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def shape(self):
        return Size(self.data.shape)

    @property
    def dtype(self):
        return _dt.public(self.data.dtype)

    @property
    def ndim(self):
        return self.data.ndim

    def dim(var: 'Tensor'):  # noqa: N805  (Paddle's argument name)
        return var.data.ndim

    ndimension = dim

    @property
    def size(self):
        return int(self.data.size)

    @property
    def place(self):
        return cpu_place()

    @property
    def is_leaf(self):
        return self._grad_node is None

    @property
    def grad_fn(self):
        return autograd.edge_node(self._grad_node) if self._grad_node is not None else None

    @property
    def inplace_version(self):
        return self._version

    # ---- storage: the facts of the numpy array behind the tensor -----------
    @property
    def type(self):
        return DENSE_TENSOR_KIND

    @property
    def layout(self):
        return 'NCHW'

    def data_ptr(self):
        """The address of the first element."""
        return int(self.data.ctypes.data)

    def stride(self, dim=None):
        """The step, in elements, between neighbours along each dim (or ``dim``)."""
        strides = self.get_strides()
        if dim is None:
            return strides
        if not -max(len(strides), 1) <= dim < max(len(strides), 1):
            raise IndexError("stride(): dim %d is out of range for a tensor with %d dims"
                             % (dim, len(strides)))
        return strides[dim]

    def get_strides(self):
        size = self.data.itemsize
        return [s // size for s in self.data.strides]

    @property
    def strides(self):
        return self.get_strides()

    @property
    def offset(self):
        """Bytes from the start of the storage this tensor's values live in to
        its first element (non-zero for a slice that kept its base's memory)."""
        root = self.data
        while isinstance(root.base, np.ndarray):
            root = root.base
        return int(self.data.ctypes.data - root.ctypes.data)

    def retain_grads(self):
        """Keep ``.grad`` of this non-leaf tensor after backward: every
        non-leaf tensor the user holds already keeps it here."""
        return None

    # ---- conversion -------------------------------------------------------
    def numpy(self):
        return self.data.copy()

    def item(self: 'Tensor', *index):
        if index:
            return self.data.item(*index)
        if self.data.size != 1:
            raise ValueError("item(): only a tensor with one element can be converted "
                             "to a Python scalar, got shape %s" % self.shape)
        return self.data.item()

    def tolist(x: 'Tensor'):  # noqa: N805
        return x.data.tolist()

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)

    def __len__(self):
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-D tensor")
        return self.data.shape[0]

    def __iter__(self):
        if self.data.ndim == 0:
            raise TypeError("iteration over a 0-D tensor")
        for i in range(self.data.shape[0]):
            yield self[i]

    def _scalar(self, what):
        if self.data.size != 1:
            raise TypeError("%s: only a tensor with one element can be converted, got "
                            "shape %s" % (what, self.shape))
        return self.data.reshape(()).item()

    def __bool__(self):
        return bool(self._scalar('bool()'))

    def __int__(self):
        return int(self._scalar('int()'))

    def __float__(self):
        return float(self._scalar('float()'))

    def __complex__(self):
        return complex(self._scalar('complex()'))

    def __index__(self):
        if self.data.dtype.kind not in 'iub':
            raise TypeError("only integer tensors can be used as an index, got %s"
                            % self.data.dtype)
        return int(self._scalar('__index__'))

    __hash__ = object.__hash__

    # ---- autograd ---------------------------------------------------------
    def backward(self: 'Tensor', grad_tensor=None, retain_graph=False, *,
                 dump_backward_graph_path=None):
        """Gradients of this tensor with respect to the leaves that need them
        (``dump_backward_graph_path`` is accepted and ignored: there is no
        graph dump here)."""
        autograd.backward([self], [grad_tensor], retain_graph)

    def gradient(self: 'Tensor'):
        return None if self.grad is None else self.grad.data.copy()

    def clear_grad(self: 'Tensor', set_to_zero=True):
        if self.grad is not None:
            if set_to_zero:
                # a zero-stride view reads as zeros without filling memory; the
                # next backward replaces it instead of adding to it
                g = self.grad.data
                zeros = Tensor.__new__(Tensor)
                zeros._init(np.broadcast_to(np.zeros((), g.dtype), g.shape), None, False)
                self._grad = zeros
            else:
                self._grad = None

    def clear_gradient(self, set_to_zero=True):
        """The same as ``clear_grad``."""
        self.clear_grad(set_to_zero)

    def register_hook(self: 'Tensor', hook):
        return autograd.register_hook(self, hook)

    def _register_backward_hook(self, hook):
        """Call ``hook()`` whenever backward has finished accumulating this leaf's
        gradient (Paddle's name; DataParallel's gradient all-reduce uses it)."""
        return autograd.register_ready_hook(self, hook)

    def detach(self):
        from ..ops.modes import in_static_mode
        if in_static_mode():
            # read while a program is built (a buffer inside @to_static): the
            # program's value of the tensor at run time, not a snapshot (the
            # op captures the tensor; the Variable's detach cuts the gradient)
            from ..ops.manipulation import assign
            return assign(self).detach()
        t = Tensor.__new__(Tensor)
        t._init(self.data, None, True)
        return t

    def detach_(self):
        if self._grad_node is not None:
            autograd.note_rebind(self)
        self._grad_node = None
        self.stop_gradient = True
        return self

    # ---- in-place updates -------------------------------------------------
    def _check_inplace(self, what):
        if grad_mode.enabled and not self.stop_gradient and self._grad_node is None:
            raise RuntimeError(
                "%s: a leaf tensor that requires grad (stop_gradient=False) cannot be "
                "modified in place; wrap the update in framework.no_grad()" % what)

    # ---- Paddle's underscore methods that user code calls ----------------------
    def _to(self, device=None, dtype=None, blocking=None, copy_tensor=None):
        """Paddle's ``x._to(device, dtype, blocking)``: ``to`` with keywords."""
        if device is None and dtype is None and blocking is None:
            return self
        return self.to(device=device, dtype=dtype, copy=bool(copy_tensor))

    def _copy_to(self, place=None, blocking=True):
        """A copy of this tensor (on the one device there is), same flags."""
        t = Tensor.__new__(Tensor)
        t._init(self.data.copy(), None, True)
        return t

    def _numel(self):
        return int(self.data.size)

    def _slice(self, begin_idx, end_idx):
        """Rows ``begin_idx:end_idx`` (a view of the first dim, no gradient)."""
        t = Tensor.__new__(Tensor)
        t._init(self.data[int(begin_idx):int(end_idx)], None, True)
        return t

    def _clear_data(self):
        """Release the values: the tensor is uninitialized until set again."""
        self.data = np.empty((0,), self.data.dtype)
        self.__dict__['_released'] = True

    _clear = _clear_data

    def _is_initialized(self):
        return not self.__dict__.get('_released', False)

    def _md5sum(self):
        import hashlib
        return hashlib.md5(np.ascontiguousarray(self.data).tobytes()).hexdigest()

    def _inplace_version(self):
        return self._version

    def _bump_inplace_version(self):
        self._version += 1

    def _grad_ivar(self):
        return self._grad

    def _set_grad_ivar(self, value):
        self.grad = value

    def _zero_grads(self):
        if self._grad is not None:
            self._grad.data = np.zeros_like(self._grad.data)

    def _register_grad_hook(self, hook):
        """``register_hook`` that returns an id for ``_remove_grad_hook``."""
        handles = self.__dict__.setdefault('_grad_hook_ids', {})
        key = len(handles) and max(handles) + 1
        handles[key] = self.register_hook(hook)
        return key

    def _remove_grad_hook(self, hook_id):
        handle = self.__dict__.get('_grad_hook_ids', {}).pop(hook_id, None)
        if handle is None:
            return False
        handle.remove()
        return True

    def _share_memory(self):
        """One process's memory already (there is no device copy to share)."""
        return self

    def _use_gpudnn(self, use_gpudnn=True):
        return self

    @property
    def _place_str(self):
        return str(self.place)

    def _grad_name(self):
        return self.name + '@GRAD'

    def _is_shared_buffer_with(self, other):
        """Whether this tensor and ``other`` use the same memory."""
        return isinstance(other, Tensor) and np.shares_memory(self.data, other.data)

    def _become_any(self, result):
        return self._become(result, reshape=True)

    def _become(self, result, reshape=False, keep_dtype=True):
        """Take over ``result``'s value and graph position (an in-place op).
        ``reshape`` allows another shape and dtype; ``keep_dtype=False`` only
        another dtype."""
        if not reshape and result.data.shape != self.data.shape:
            raise ValueError("in-place op changes the shape of the tensor from %s to %s"
                             % (self.shape, result.shape))
        data = result.data
        if keep_dtype and not reshape and data.dtype != self.data.dtype:
            data = data.astype(self.data.dtype)
        if result._grad_node is not None:
            self._freeze_in(autograd.edge_node(result._grad_node))
        self.data = data
        self._version += 1
        if result._grad_node is not None:
            autograd.note_rebind(self)
            self._grad_node = result._grad_node
            self.stop_gradient = result.stop_gradient
            node, idx = autograd.split_edge(result._grad_node)
            node.set_output(idx, self)
        return self

    def _freeze_in(self, node):
        """The op that produced an in-place result usually read this tensor:
        its backward must keep seeing the value, shape, version and graph
        position it read, not the tensor after the update (x.reshape_(),
        x.exp_(), x[i] = v)."""
        if node.ins is None:
            return
        old = None
        ins = []
        for v in node.ins:
            if v is self or (type(v) is list and any(w is self for w in v)):
                if old is None:
                    old = Tensor.__new__(Tensor)
                    old._init(self.data, self._grad_node, self.stop_gradient)
                    old._version = self._version
                v = old if v is self else [old if w is self else w for w in v]
            ins.append(v)
        if old is not None:
            node.ins = tuple(ins)

    def _inplace_update(self, result):
        """Protocol for mode-agnostic in-place ops (``x[i] = v``, ``relu_``):
        the eager tensor takes over the result (same shape; a leaf requiring
        grad refuses, as in Paddle); a static Variable rebinds instead. While
        a program is built from eager tensors (a parameter written inside
        ``@to_static``), the result is a Variable and the write goes to the
        variable standing for this tensor."""
        if not isinstance(result, Tensor):
            result._write_captured(self)
            return self
        self._check_inplace('in-place assignment')
        return self._become(result)

    def _inplace_assign(self, result):
        """Paddle's ``x._inplace_assign(y)`` (and ``paddle.assign(y, x)``): x
        takes over y's value, shape, dtype and graph position."""
        if not isinstance(result, Tensor):
            result._write_captured(self)
            return self
        return self._become_any(result)

    def set_value(self: 'Tensor', value):
        """Overwrite the values (same shape); not recorded by autograd."""
        arr = value.data if isinstance(value, Tensor) else np.asarray(value)
        if tuple(arr.shape) != self.data.shape:
            raise ValueError("set_value: shape %s does not match the tensor's shape %s"
                             % (list(arr.shape), self.shape))
        self.data = arr.astype(self.data.dtype, copy=True)
        self._version += 1

    def reconstruct_from_(self, other):
        """In place: this tensor becomes a deep copy of ``other`` (its values,
        shape and dtype; not recorded by autograd); returns None, as Paddle."""
        if not isinstance(other, Tensor):
            raise TypeError("reconstruct_from_: other must be a Tensor, got %s"
                            % type(other).__name__)
        self.data = other.data.copy()
        self.stop_gradient = other.stop_gradient      # it takes the other's flags too, as Paddle
        self._version += 1

    def get_tensor(self):
        """A handle on the values (Paddle's DenseTensor): ``np.array(h)``,
        ``h.shape()``; ``h.set(array, place)`` replaces this tensor's values."""
        def write(array):
            self.data = array
            self._version += 1
        return DenseTensor(lambda: self.data, write)

    @property
    def grad_(self):
        """The gradient (``grad``, also assignable under this name)."""
        return self.grad

    @grad_.setter
    def grad_(self, value):
        self.grad = value

    def copy_(self, other, blocking=True):
        self.set_value(other)
        return self

    def zero_(x: 'Tensor'):  # noqa: N805
        x.data = np.zeros_like(x.data)
        x._version += 1
        return x

    def fill_(x: 'Tensor', value):  # noqa: N805
        x.data = np.full_like(x.data, value)
        x._version += 1
        return x

    # ---- copying ----------------------------------------------------------
    def __deepcopy__(self, memo):
        t = type(self).__new__(type(self))
        t._init(self.data.copy(), None, self.stop_gradient)
        t._name = self._name
        t.persistable = self.persistable
        for k in getattr(type(self), '_extra_slots', ()):
            setattr(t, k, _copy.deepcopy(getattr(self, k), memo))
        memo[id(self)] = t
        return t

    def __copy__(self):
        return self.__deepcopy__({})

    def __reduce__(self):
        raise TypeError("Tensors are not picklable; use framework.save / framework.load")

    # ---- DLPack: other libraries read the tensor's memory (np.from_dlpack(x)) --
    def __dlpack__(self, *args, **kwargs):
        arr = self.data if self.data.flags.writeable else self.data.copy()
        return arr.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.data.__dlpack_device__()

    # ---- printing ---------------------------------------------------------
    def __repr__(self):
        mesh = self.__dict__.get('process_mesh')
        if mesh is not None:     # a distributed tensor (distributed/auto_parallel.py)
            return tensor_repr(self.data, self.stop_gradient, self.place,
                               ' process_mesh=%r, placements=%r, GlobalDenseTensor='
                               % (mesh, self.__dict__.get('placements')))
        return tensor_repr(self.data, self.stop_gradient, self.place)

    __str__ = __repr__

    def __format__(self, spec):
        # a 0-d tensor formats as its number, as Paddle's ('{}'.format(loss) -> 0.5)
        if self.data.ndim == 0 or (self.data.size == 1 and spec):
            return format(self.data.item(), spec)
        return repr(self)


class Parameter(Tensor):
    """A trainable tensor owned by a Layer (Paddle's ``EagerParamBase``)."""
    __slots__ = ('optimize_attr', 'regularizer', 'need_clip',
                 'is_distributed', 'do_model_average', 'initializer')
    _extra_slots = ( 'optimize_attr', 'regularizer', 'need_clip',
                    'is_distributed', 'do_model_average', 'initializer')

    def __init__(self, data=None, dtype=None, name=None, trainable=True, *,
                 requires_grad=None, shape=None, **attrs):
        # Paddle 3's nn.Parameter forms: (shape_list, dtype) or shape=..., a zero
        # tensor of that shape; (data, requires_grad=...)
        if shape is None and dtype is not None and isinstance(data, (list, tuple)) and all(
                type(v) is int for v in data):
            data, shape = None, data
        if shape is not None:
            data = np.zeros([int(v) for v in shape], _dt.convert_dtype(dtype or 'float32'))
        elif data is None:
            data = np.zeros([0], _dt.convert_dtype(dtype or 'float32'))
        if requires_grad is not None:
            trainable = bool(requires_grad)
        super().__init__(data, dtype=dtype, stop_gradient=not trainable, name=name)
        self.persistable = True
        self.optimize_attr = attrs.pop('optimize_attr', {'learning_rate': 1.0})
        self.regularizer = attrs.pop('regularizer', None)
        self.need_clip = attrs.pop('need_clip', True)
        self.is_distributed = attrs.pop('is_distributed', False)
        self.do_model_average = attrs.pop('do_model_average', None)
        self.initializer = None
        if attrs:
            raise TypeError("Parameter: unexpected arguments %s" % sorted(attrs))

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        self.stop_gradient = not value

    def initialize(self):
        """Run the initializer of a parameter made under ``LazyGuard``."""
        init = self.__dict__.pop('_lazy_init', None)
        if init is None:
            raise RuntimeError("Parameter.initialize: %s was not created under "
                               "paddle.LazyGuard; its values are set already" % self.name)
        init(self)        # initializers fill in place without recording autograd

    # what printing shows before the tensor (also in converted code's print)
    print_header = 'Parameter containing:\n'

    def __repr__(self):
        return self.print_header + Tensor.__repr__(self)

    __str__ = __repr__


def wrap_array(array, stop_gradient=True):
    """A leaf Tensor holding ``array`` itself (``Tensor(array)`` would copy it)."""
    t = Tensor.__new__(Tensor)
    t._init(array, None, stop_gradient)
    return t


def to_array(data, dtype=None):
    """numpy array from user data with Paddle's dtype defaults.

    Python floats default to the default float dtype (float32), Python complex
    numbers to its complex dtype (complex64), Python ints to int64, bools to bool; numpy arrays keep their dtype unless ``dtype`` is given.
    """
    dtype = _dt.convert_dtype(dtype)
    if isinstance(data, Tensor):
        arr = data.data
    elif isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
    else:
        if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _flat(data)):
            data = _tensors_to_lists(data)
        arr = np.asarray(data)
        if dtype is None:
            if arr.dtype == np.float64:
                arr = arr.astype(_dt.default_float())
            elif arr.dtype == np.complex128:     # complex64 under the float32 default
                arr = arr.astype(_dt.default_complex())
            elif arr.dtype.kind == 'i' and arr.dtype != np.int64:
                arr = arr.astype(np.int64)
            elif arr.dtype.kind in 'US' or arr.dtype == object:
                raise TypeError("cannot make a tensor from %r (dtype %s)" % (data, arr.dtype))
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
    elif arr is data:
        arr = arr.copy()
    return arr


def _flat(seq):
    for v in seq:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _tensors_to_lists(seq):
    return [(_tensors_to_lists(v) if isinstance(v, (list, tuple))
             else v.data if isinstance(v, Tensor) else v) for v in seq]
