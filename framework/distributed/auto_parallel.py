"""Paddle's auto-parallel names (``ProcessMesh``, placements, ``shard_tensor``,
``reshard``, ``Strategy``) for a single-controller view of one process.

A distributed tensor here is an ordinary Tensor that also records its
``process_mesh`` and ``placements``; it holds the *global* value, as if this
process ran the whole mesh. So every computation gives the numbers the
distributed program would give as a whole, and a program written for
auto-parallel runs here unchanged (on one process, where Paddle itself cannot
even print a sharded tensor without a launched job). ``_local_value()`` gives
the part this process's rank would hold. Not provided: splitting work across
processes (use ``DataParallel`` for that); ``Strategy`` is kept as
configuration, nothing here reads it.
"""
import numpy as np

from ..dygraph import Tensor
from .env import get_rank


# ---- meshes -------------------------------------------------------------------------------

class ProcessMesh:
    """An n-d arrangement of process ids, each dim named."""

    def __init__(self, mesh=None, dim_names=None, shape=None, process_ids=None):
        if mesh is None:
            if shape is None or process_ids is None:
                raise ValueError("ProcessMesh: give mesh, or both shape and process_ids")
            mesh = np.array(process_ids).reshape(shape)
        arr = np.array(mesh.numpy() if isinstance(mesh, Tensor) else mesh)
        if arr.size == 0 or arr.dtype.kind not in 'iu':
            raise ValueError("ProcessMesh: mesh must be a non-empty nested list of process ids, "
                             "got %r" % (mesh,))
        if len(set(arr.reshape(-1).tolist())) != arr.size:
            raise ValueError("ProcessMesh: process ids must be unique, got %s" % arr.tolist())
        names = list(dim_names) if dim_names is not None else \
            ['d%d' % i for i in range(arr.ndim)]
        if len(names) != arr.ndim or len(set(names)) != len(names):
            raise ValueError("ProcessMesh: need %d distinct dim_names for a mesh of shape %s, got %r"
                             % (arr.ndim, list(arr.shape), dim_names))
        self._mesh = arr.astype(np.int64)
        self._dim_names = names

    mesh = property(lambda self: self._mesh)
    shape = property(lambda self: list(self._mesh.shape))
    ndim = property(lambda self: self._mesh.ndim)
    process_ids = property(lambda self: self._mesh.reshape(-1).tolist())
    dim_names = property(lambda self: list(self._dim_names))

    def _axis(self, dim):
        if isinstance(dim, str):
            if dim not in self._dim_names:
                raise ValueError("ProcessMesh: no dim named %r (dims %s)" % (dim, self._dim_names))
            return self._dim_names.index(dim)
        return int(dim) % self.ndim

    def get_dim_size(self, dim):
        return self.shape[self._axis(dim)]

    def get_mesh_with_dim(self, dim_name, index=None):
        """The mesh with ``dim_name`` moved first (and taken at ``index``)."""
        axis = self._axis(dim_name)
        order = [axis] + [i for i in range(self.ndim) if i != axis]
        names = [self._dim_names[i] for i in order]
        moved = np.transpose(self._mesh, order)
        if index is None:
            return ProcessMesh(moved, names)
        return ProcessMesh(moved[index], names[1:])

    def __getitem__(self, index):
        """``mesh['x']``: the mesh with dim x first; ``mesh[i]`` / ``mesh[i, :]``:
        the sub-mesh (an int drops its dim)."""
        if isinstance(index, str):
            return self.get_mesh_with_dim(index)
        items = index if isinstance(index, tuple) else (index,)
        names = [n for i, n in enumerate(self._dim_names)
                 if i >= len(items) or not isinstance(items[i], (int, np.integer))]
        sub = self._mesh[index]
        if np.ndim(sub) == 0:
            return ProcessMesh([int(sub)], [self._dim_names[-1]])
        return ProcessMesh(sub, names)

    def contains(self, process_id):
        return int(process_id) in self.process_ids

    def coordinate(self, process_id):
        """The position of ``process_id`` in the mesh (None when absent)."""
        hit = np.argwhere(self._mesh == int(process_id))
        return None if not len(hit) else [int(i) for i in hit[0]]

    def __eq__(self, other):
        return isinstance(other, ProcessMesh) and self._dim_names == other._dim_names \
            and np.array_equal(self._mesh, other._mesh)

    def __hash__(self):
        return hash((tuple(self.process_ids), tuple(self.shape), tuple(self._dim_names)))

    def __repr__(self):
        return '{shape: [%s], process_ids: [%s], dim_names: [%s]}' % (
            ','.join(map(str, self.shape)), ','.join(map(str, self.process_ids)),
            ','.join(self._dim_names))

    def __str__(self):
        return 'shape %s, process_ids %s, dim_names %s' % (self.shape, self.process_ids,
                                                            self._dim_names)


_global_mesh = [None]


def set_mesh(mesh):
    """The mesh auto-parallel APIs use when none is given."""
    if mesh is not None and not isinstance(mesh, ProcessMesh):
        raise TypeError("set_mesh: expected a ProcessMesh, got %s" % type(mesh).__name__)
    _global_mesh[0] = mesh


def get_mesh():
    return _global_mesh[0]


# ---- placements ---------------------------------------------------------------------------

class ReduceType:
    """How a Partial tensor's parts combine (Paddle's names)."""
    kRedSum, kRedMax, kRedMin, kRedProd, kRedAvg, kRedAny, kRedAll = range(7)
    _NAMES = ('SUM', 'MAX', 'MIN', 'PROD', 'AVG', 'ANY', 'ALL')


class Placement:
    """How a tensor lies along one mesh dim."""

    def is_replicated(self):
        return False

    def is_shard(self, dim=None):
        return False

    def is_partial(self):
        return False

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self):
        return hash((type(self).__name__,) + tuple(sorted(vars(self).items())))


class Replicate(Placement):
    """Every process of the mesh dim holds the whole tensor."""

    def is_replicated(self):
        return True

    def __repr__(self):
        return 'Replicate()'


class Shard(Placement):
    """The tensor is split along its dim ``dim`` over the mesh dim."""

    def __init__(self, dim, **kwargs):
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError("Shard: dim must be an int, got %r" % (dim,))
        self.dim = int(dim)

    def get_dim(self):
        return self.dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __repr__(self):
        return 'Shard(dim=%d)' % self.dim


class Partial(Placement):
    """Each process holds a part; the tensor is their reduction."""

    def __init__(self, reduce_type=ReduceType.kRedSum):
        if reduce_type not in range(len(ReduceType._NAMES)):
            raise ValueError("Partial: reduce_type must be a ReduceType, got %r" % (reduce_type,))
        self._reduce_type = reduce_type

    def reduce_type(self):
        return self._reduce_type

    def is_partial(self):
        return True

    def __repr__(self):
        return 'Partial(reduce_type=%s)' % ReduceType._NAMES[self._reduce_type]


class DistAttr:
    """A mesh with a sharding spec per tensor dim (a mesh dim name or None)."""

    def __init__(self, mesh, sharding_specs):
        if not isinstance(mesh, ProcessMesh):
            raise TypeError("DistAttr: mesh must be a ProcessMesh, got %s" % type(mesh).__name__)
        for s in sharding_specs:
            if s is not None and s not in mesh.dim_names:
                raise ValueError("DistAttr: sharding spec %r is not a dim of the mesh (%s)"
                                 % (s, mesh.dim_names))
        self.process_mesh = mesh
        self.sharding_specs = list(sharding_specs)
        self.dims_mapping = [-1 if s is None else mesh.dim_names.index(s) for s in sharding_specs]

    def __repr__(self):
        maps = ' '.join('[%s]' % ('' if d < 0 else d) for d in self.dims_mapping)
        return ('{process_mesh: %r, dim_mappings: [%s ], batch_dim: 0, chunk_id: 0, '
                'skip_check_mesh: 0, dynamic_dims: [%s], annotated: [dims_mapping: 1,'
                'process_mesh: 1], partial: [], split_factor: .}'
                % (self.process_mesh, maps, ','.join('0' * len(self.dims_mapping))))


# ---- distributed tensors -----------------------------------------------------------------

def _check_placements(tensor, mesh, placements, api):
    if not isinstance(mesh, ProcessMesh):
        raise TypeError("%s: mesh must be a ProcessMesh, got %s" % (api, type(mesh).__name__))
    placements = list(placements)
    if len(placements) != mesh.ndim:
        raise ValueError("%s: need one placement per mesh dim (%d), got %d"
                         % (api, mesh.ndim, len(placements)))
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError("%s: placements must be Replicate/Shard/Partial, got %r" % (api, p))
        if p.is_shard() and not 0 <= p.dim < tensor.ndim:
            raise ValueError("%s: Shard(dim=%d) for a tensor of shape %s"
                             % (api, p.dim, list(tensor.shape)))
    return placements


def _annotate(tensor, mesh, placements):
    tensor.__dict__['process_mesh'] = mesh
    tensor.__dict__['placements'] = placements
    return tensor


def shard_tensor(data, mesh, placements, dtype=None, place=None, stop_gradient=None):
    """``data`` as a distributed tensor on ``mesh`` (see the module docstring).
    A Tensor keeps its graph position (gradients flow through)."""
    from ..ops.creation import to_tensor
    from ..ops.manipulation import assign
    if isinstance(data, Tensor):
        t = data.astype(dtype) if dtype is not None and data.dtype != dtype else data
        if t is data and not isinstance(data, _parameter_type()):
            t = assign(data)
    else:
        t = to_tensor(data, dtype=dtype)
    if stop_gradient is not None:
        t.stop_gradient = stop_gradient
    return _annotate(t, mesh, _check_placements(t, mesh, placements, 'shard_tensor'))


def _parameter_type():
    from ..dygraph import Parameter
    return Parameter


def dtensor_from_fn(fn, mesh, placements, *args, **kwargs):
    """``shard_tensor(fn(*args, **kwargs), mesh, placements)``."""
    return shard_tensor(fn(*args, **kwargs), mesh, placements)


def reshard(dist_tensor, mesh, placements):
    """The tensor on another mesh / placements (the global value is kept)."""
    from ..ops.manipulation import assign
    out = assign(dist_tensor)
    return _annotate(out, mesh, _check_placements(out, mesh, placements, 'reshard'))


def unshard_dtensor(dist_tensor):
    """The dense tensor of a distributed one (its global value)."""
    from ..ops.manipulation import assign
    return assign(dist_tensor)


def is_dist(tensor):
    return 'process_mesh' in getattr(tensor, '__dict__', {})


def local_value(tensor):
    """The part of ``tensor`` this process's rank holds (all of it when not
    distributed; an empty tensor when the rank is not in the mesh)."""
    from ..ops.creation import to_tensor
    if not is_dist(tensor):
        return tensor
    mesh, placements = tensor.process_mesh, tensor.placements
    coord = mesh.coordinate(get_rank())
    arr = tensor.numpy()
    if coord is None:
        return to_tensor(np.zeros([0] * arr.ndim, arr.dtype))
    for axis, p in enumerate(placements):
        if p.is_shard():
            parts = mesh.shape[axis]
            size = -(-arr.shape[p.dim] // parts)          # Paddle splits with ceil
            lo = min(coord[axis] * size, arr.shape[p.dim])
            arr = np.take(arr, range(lo, min(lo + size, arr.shape[p.dim])), axis=p.dim)
    return to_tensor(arr)


def dist_header(tensor):
    """What a distributed tensor's print adds after ``stop_gradient``."""
    return 'process_mesh=%r, placements=%r, GlobalDenseTensor=' % (tensor.process_mesh,
                                                                   tensor.placements)


def shard_layer(layer, process_mesh, shard_fn=None, input_fn=None, output_fn=None):
    """Annotate ``layer``'s parameters: ``shard_fn(name, sublayer, mesh)`` may
    shard them; the rest are replicated on ``process_mesh``."""
    if not isinstance(process_mesh, ProcessMesh):
        raise TypeError("shard_layer: process_mesh must be a ProcessMesh, got %s"
                        % type(process_mesh).__name__)
    if shard_fn is not None:
        for name, sub in layer.named_sublayers(include_self=True):
            shard_fn(name, sub, process_mesh)
    for p in layer.parameters():
        if not is_dist(p):
            _annotate(p, process_mesh, [Replicate()] * process_mesh.ndim)
    if input_fn is not None:
        layer.register_forward_pre_hook(lambda l, inputs: input_fn(inputs, process_mesh))
    if output_fn is not None:
        layer.register_forward_post_hook(lambda l, inputs, out: output_fn(out, process_mesh))
    return layer


def shard_optimizer(optimizer, shard_fn=None, gradient_accumulation_steps=1):
    """The optimizer itself: with the global values of one process there are no
    optimizer states to split."""
    return optimizer


def shard_scaler(scaler):
    return scaler


# ---- Strategy ---------------------------------------------------------------------------

class _Config:
    """One section of a Strategy: its fields, with Paddle's defaults."""

    def __init__(self, name, fields):
        self.__dict__['_name'] = name
        self.__dict__.update(fields)

    def __repr__(self):
        fields = {k: v for k, v in vars(self).items() if not k.startswith('_')}
        return '%s%r' % (self._name, fields)


_SECTIONS = {
    'sharding': {'enable': False, 'stage': 1, 'degree': 8, 'enable_overlap': False,
                 'release_gradients': False, 'comm_buffer_size_MB': 256,
                 'enable_tensor_fusion': False},
    'gradient_merge': {'enable': False, 'k_steps': 1, 'avg': True},
    'pipeline': {'enable': False, 'schedule_mode': '1F1B', 'pp_degree': 1, 'vpp_degree': 1,
                 'micro_batch_size': 1, 'accumulate_steps': 1},
    'amp': {'enable': False, 'dtype': 'float16', 'level': 'o1', 'init_loss_scaling': 32768.0,
            'incr_every_n_steps': 1000, 'decr_every_n_nan_or_inf': 2, 'incr_ratio': 2.0,
            'decr_ratio': 0.8, 'use_dynamic_loss_scaling': True, 'custom_white_list': [],
            'custom_black_list': [], 'use_master_grad': False, 'use_promote': True},
    'recompute': {'enable': False, 'checkpoints': [], 'refined_ops_patterns': []},
    'fused_passes': {'enable': False, 'gemm_epilogue': False, 'dropout_add': False},
    'mp_optimization': {'allreduce_matmul_grad_overlapping': False},
    'dp_optimization': {'enable': False, 'fuse_all_reduce_ops': True,
                        'fuse_grad_size_in_MB': 32, 'overlap_comm_cacl': True},
    'sp_optimization': {'enable': True},
}


class Strategy:
    """Auto-parallel settings by section (``strategy.sharding.stage = 2``,
    ``strategy.amp.enable = True``, ...), with Paddle's defaults; a dict
    ``{section: {field: value}}`` sets fields at construction."""

    def __init__(self, config=None):
        for name, fields in _SECTIONS.items():
            setattr(self, name, _Config(name, {k: (list(v) if isinstance(v, list) else v)
                                               for k, v in fields.items()}))
        for section, fields in (config or {}).items():
            if section not in _SECTIONS:
                raise ValueError("Strategy: unknown section %r (sections: %s)"
                                 % (section, ', '.join(_SECTIONS)))
            for k, v in fields.items():
                setattr(getattr(self, section), k, v)

    def __repr__(self):
        return 'Strategy(%s)' % ', '.join(repr(getattr(self, n)) for n in _SECTIONS)


__all__ = ['ProcessMesh', 'Placement', 'Replicate', 'Shard', 'Partial', 'ReduceType',
           'DistAttr', 'shard_tensor', 'dtensor_from_fn', 'reshard', 'unshard_dtensor',
           'shard_layer', 'shard_optimizer', 'shard_scaler', 'set_mesh', 'get_mesh', 'Strategy']
