"""Finding, loading and declaring oneDNN's C library (``libdnnl.so.3``).

The ``[onednn]`` extra is the pip package ``onednn-cpu-gomp`` (oneDNN 3.2,
GNU OpenMP), which puts the library in ``<prefix>/lib``, beside the Python
environment's own ``lib`` folder rather than inside a package. ``load()``
looks there (and where ``FRAMEWORK_ONEDNN_LIBRARY`` points), declares every
function the binding calls with its C signature from ``dnnl.h``, and raises
``Unavailable`` with the reason when the library cannot be used.
"""
import ctypes
import ctypes.util
import os
import site
import sys

from . import constants as C

VERSION = (3, 2)            # the API the declarations below follow
INSTALL_HINT = "pip install 'framework[onednn]' (the onednn-cpu-gomp package)"

_vp = ctypes.c_void_p
_status = ctypes.c_int
_int, _uint, _float, _size = ctypes.c_int, ctypes.c_uint, ctypes.c_float, ctypes.c_size_t
_dims = ctypes.POINTER(ctypes.c_int64)          # const dnnl_dims_t (int64_t[12])
_out = ctypes.POINTER(ctypes.c_void_p)          # an out-parameter handle


class _ExecArg(ctypes.Structure):
    """``dnnl_exec_arg_t``: one argument of ``dnnl_primitive_execute``."""
    _fields_ = [('arg', ctypes.c_int), ('memory', ctypes.c_void_p)]


class _Version(ctypes.Structure):
    """``dnnl_version_t``."""
    _fields_ = [('major', ctypes.c_int), ('minor', ctypes.c_int), ('patch', ctypes.c_int),
                ('hash', ctypes.c_char_p), ('cpu_runtime', ctypes.c_uint),
                ('gpu_runtime', ctypes.c_uint)]


ExecArg = _ExecArg

# name -> (restype, argtypes), as dnnl.h / dnnl_common.h / dnnl_debug.h declare them
_FUNCTIONS = {
    'dnnl_version': (ctypes.POINTER(_Version), []),
    'dnnl_engine_create': (_status, [_out, _int, _size]),
    'dnnl_stream_create': (_status, [_out, _vp, _uint]),
    'dnnl_stream_wait': (_status, [_vp]),
    'dnnl_memory_desc_create_with_strides': (_status, [_out, _int, _dims, _int, _dims]),
    'dnnl_memory_desc_create_with_tag': (_status, [_out, _int, _dims, _int, _int]),
    'dnnl_memory_desc_destroy': (_status, [_vp]),
    'dnnl_memory_desc_clone': (_status, [_out, _vp]),
    'dnnl_memory_desc_get_size': (_size, [_vp]),
    'dnnl_memory_desc_equal': (_int, [_vp, _vp]),
    'dnnl_memory_desc_query': (_status, [_vp, _int, _vp]),
    'dnnl_memory_create': (_status, [_out, _vp, _vp, _vp]),
    'dnnl_memory_set_data_handle': (_status, [_vp, _vp]),
    'dnnl_memory_get_data_handle': (_status, [_vp, _out]),
    'dnnl_memory_destroy': (_status, [_vp]),
    'dnnl_primitive_attr_create': (_status, [_out]),
    'dnnl_primitive_attr_destroy': (_status, [_vp]),
    'dnnl_primitive_attr_set_scratchpad_mode': (_status, [_vp, _int]),
    'dnnl_primitive_attr_set_post_ops': (_status, [_vp, _vp]),
    'dnnl_post_ops_create': (_status, [_out]),
    'dnnl_post_ops_destroy': (_status, [_vp]),
    'dnnl_post_ops_append_eltwise': (_status, [_vp, _int, _float, _float]),
    'dnnl_post_ops_append_sum': (_status, [_vp, _float, ctypes.c_int32, _int]),
    'dnnl_post_ops_append_binary': (_status, [_vp, _int, _vp]),
    'dnnl_convolution_forward_primitive_desc_create':
        (_status, [_out, _vp, _int, _int, _vp, _vp, _vp, _vp, _dims, _dims, _dims, _dims, _vp]),
    'dnnl_convolution_backward_data_primitive_desc_create':
        (_status, [_out, _vp, _int, _vp, _vp, _vp, _dims, _dims, _dims, _dims, _vp, _vp]),
    'dnnl_convolution_backward_weights_primitive_desc_create':
        (_status, [_out, _vp, _int, _vp, _vp, _vp, _vp, _dims, _dims, _dims, _dims, _vp, _vp]),
    'dnnl_pooling_forward_primitive_desc_create':
        (_status, [_out, _vp, _int, _int, _vp, _vp, _dims, _dims, _dims, _dims, _dims, _vp]),
    'dnnl_pooling_backward_primitive_desc_create':
        (_status, [_out, _vp, _int, _vp, _vp, _dims, _dims, _dims, _dims, _dims, _vp, _vp]),
    'dnnl_batch_normalization_forward_primitive_desc_create':
        (_status, [_out, _vp, _int, _vp, _vp, _float, _uint, _vp]),
    'dnnl_batch_normalization_backward_primitive_desc_create':
        (_status, [_out, _vp, _int, _vp, _vp, _vp, _float, _uint, _vp, _vp]),
    'dnnl_layer_normalization_forward_primitive_desc_create':
        (_status, [_out, _vp, _int, _vp, _vp, _vp, _float, _uint, _vp]),
    'dnnl_softmax_forward_primitive_desc_create':
        (_status, [_out, _vp, _int, _int, _vp, _vp, _int, _vp]),
    'dnnl_softmax_backward_primitive_desc_create':
        (_status, [_out, _vp, _int, _vp, _vp, _vp, _int, _vp, _vp]),
    'dnnl_eltwise_forward_primitive_desc_create':
        (_status, [_out, _vp, _int, _int, _vp, _vp, _float, _float, _vp]),
    'dnnl_eltwise_backward_primitive_desc_create':
        (_status, [_out, _vp, _int, _vp, _vp, _vp, _float, _float, _vp, _vp]),
    # (engine, prop kind, direction, 11 descriptors: src layer/iter/iter_c, weights
    # layer/iter/peephole/projection, bias, dst layer/iter/iter_c; flags, attr)
    'dnnl_lstm_forward_primitive_desc_create':
        (_status, [_out, _vp, _int, _int] + [_vp] * 11 + [_uint, _vp]),
    # (... the forward's 11, then their 11 diffs; flags, hint, attr)
    'dnnl_lstm_backward_primitive_desc_create':
        (_status, [_out, _vp, _int, _int] + [_vp] * 22 + [_uint, _vp, _vp]),
    # (engine, prop kind, direction, 7 descriptors: src layer/iter, weights layer/iter,
    # bias, dst layer/iter; flags, attr)
    'dnnl_lbr_gru_forward_primitive_desc_create':
        (_status, [_out, _vp, _int, _int] + [_vp] * 7 + [_uint, _vp]),
    # (... the forward's 7, then their 7 diffs; flags, hint, attr)
    'dnnl_lbr_gru_backward_primitive_desc_create':
        (_status, [_out, _vp, _int, _int] + [_vp] * 14 + [_uint, _vp, _vp]),
    # (engine, src, weights, bias, dst, attr)
    'dnnl_matmul_primitive_desc_create': (_status, [_out, _vp, _vp, _vp, _vp, _vp, _vp]),
    'dnnl_binary_primitive_desc_create': (_status, [_out, _vp, _int, _vp, _vp, _vp, _vp]),
    'dnnl_reorder_primitive_desc_create': (_status, [_out, _vp, _vp, _vp, _vp, _vp]),
    'dnnl_primitive_desc_query_md': (_vp, [_vp, _int, _int]),
    'dnnl_primitive_desc_query': (_status, [_vp, _int, _int, _vp]),
    'dnnl_primitive_desc_destroy': (_status, [_vp]),
    'dnnl_primitive_create': (_status, [_out, _vp]),
    'dnnl_primitive_execute': (_status, [_vp, _vp, _int, ctypes.POINTER(_ExecArg)]),
    'dnnl_primitive_destroy': (_status, [_vp]),
    'dnnl_status2str': (ctypes.c_char_p, [_int]),
    'dnnl_dt2str': (ctypes.c_char_p, [_int]),
    'dnnl_fmt_tag2str': (ctypes.c_char_p, [_int]),
    'dnnl_fmt_kind2str': (ctypes.c_char_p, [_int]),
    'dnnl_prop_kind2str': (ctypes.c_char_p, [_int]),
    'dnnl_prim_kind2str': (ctypes.c_char_p, [_int]),
    'dnnl_alg_kind2str': (ctypes.c_char_p, [_int]),
    'dnnl_engine_kind2str': (ctypes.c_char_p, [_int]),
    'dnnl_scratchpad_mode2str': (ctypes.c_char_p, [_int]),
    'dnnl_rnn_direction2str': (ctypes.c_char_p, [_int]),
    'dnnl_rnn_flags2str': (ctypes.c_char_p, [_uint]),
    'dnnl_fpmath_mode2str': (ctypes.c_char_p, [_int]),
}


class Unavailable(RuntimeError):
    """oneDNN cannot be used here (the reason says why)."""


class DnnlError(RuntimeError):
    """A oneDNN call failed; names the call and oneDNN's status."""


def candidates():
    """Paths where the library may be, most specific first."""
    env = os.environ.get('FRAMEWORK_ONEDNN_LIBRARY')
    if env:
        return [env]
    dirs = [os.path.join(sys.prefix, 'lib')]
    # pip's data files land two levels above site-packages (<prefix>/lib)
    for p in list(sys.path) + [site.getusersitepackages()]:
        if p.endswith('site-packages'):
            dirs.append(os.path.dirname(os.path.dirname(p)))
    dirs.append(os.path.join(site.USER_BASE, 'lib'))
    paths = [os.path.join(d, 'libdnnl.so.3') for d in dict.fromkeys(dirs)]
    found = ctypes.util.find_library('dnnl')
    return paths + ([found] if found else [])


def _declare(lib):
    for name, (restype, argtypes) in _FUNCTIONS.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def load():
    """The declared library, or raise ``Unavailable`` saying why."""
    tried = []
    for path in candidates():
        if not os.path.exists(path) and os.sep in path:
            continue
        # libgomp reads OMP_WAIT_POLICY once, when it loads: threads that
        # sleep between kernels leave the core to BLAS and to other processes
        os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append('%s: %s' % (path, e))
            continue
        try:
            lib = _declare(lib)
        except AttributeError as e:
            raise Unavailable("oneDNN library %s lacks a function the binding needs (%s); "
                              "the binding needs oneDNN %d.%d" % (path, e, *VERSION))
        v = lib.dnnl_version().contents
        if (v.major, v.minor) < VERSION or v.major != VERSION[0]:
            raise Unavailable("oneDNN library %s is version %d.%d.%d; the binding needs %d.%d"
                              " or a later 3.x" % (path, v.major, v.minor, v.patch, *VERSION))
        return lib
    if tried:
        raise Unavailable("oneDNN's library did not load (%s)" % '; '.join(tried))
    raise Unavailable("oneDNN is not installed (%s)" % INSTALL_HINT)


def checker(lib):
    """``check(status, call)``: raise DnnlError unless ``status`` is success."""
    def check(status, call):
        if status != C.SUCCESS:
            raise DnnlError("oneDNN %s failed: %s" % (call, lib.dnnl_status2str(status).decode()))
    return check
