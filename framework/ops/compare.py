"""Closeness and whole-tensor comparisons: isclose, allclose, equal_all, is_tensor."""
import numpy as np

from . import meta
from .registry import Meta, add_test_case, def_op


def _scalar_bool(x, y, *attrs):
    meta.broadcast_shapes(meta.shape_of(x), meta.shape_of(y))
    return Meta((), np.bool_)


@def_op('isclose', meta.compare, differentiable=False, pattern='broadcast', ufunc=None,
        identity=None, flops=None)
def isclose_op(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|x - y| <= atol + rtol * |y|`` elementwise."""
    return np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@def_op('allclose', _scalar_bool, differentiable=False, pattern='opaque')
def allclose_op(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.asarray(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


@def_op('equal_all', _scalar_bool, differentiable=False, pattern='opaque')
def equal_all_op(x, y):
    """True when ``x`` and ``y`` have the same shape and all elements are equal."""
    return np.asarray(np.shape(x) == np.shape(y) and bool(np.all(np.equal(x, y))))


def _onnx_all(g, b):
    """A 0-d bool: are all of ``b`` true (true for none)?"""
    as_int = g.op('Cast', b, to=g.tensor_type(np.int64))
    return g.op('Cast', g.op('ReduceMin', as_int, keepdims=0), to=g.tensor_type(np.bool_))


def _onnx_isclose(g, x, y, rtol, atol, equal_nan):
    """numpy's rule; equal values (infinities among them) are close."""
    scalar = lambda v: g.const(np.asarray(v, g.meta(x).dtype), hint='tol')  # noqa: E731
    bound = g.op('Add', scalar(atol), g.op('Mul', scalar(rtol), g.op('Abs', y)))
    close = g.op('Or', g.op('Equal', x, y),
                 g.op('LessOrEqual', g.op('Abs', g.op('Sub', x, y)), bound))
    if equal_nan:
        close = g.op('Or', close, g.op('And', g.op('IsNaN', x), g.op('IsNaN', y)))
    return close


@equal_all_op.def_onnx
def _equal_all_onnx(g, x, y):
    xs, ys = g.meta(x).shape, g.meta(y).shape
    if len(xs) != len(ys) or any(a != b and a >= 0 and b >= 0 for a, b in zip(xs, ys)):
        return g.const(np.asarray(False), hint='equal_all')
    return _onnx_all(g, g.op('Equal', x, y))


isclose_op.def_onnx(_onnx_isclose)
allclose_op.def_onnx(lambda g, x, y, rtol, atol, equal_nan: _onnx_all(
    g, _onnx_isclose(g, x, y, rtol, atol, equal_nan)))


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    return isclose_op(x, y, float(rtol), float(atol), bool(equal_nan))


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """A 0-D bool tensor: are all elements of ``x`` and ``y`` close?"""
    return allclose_op(x, y, float(rtol), float(atol), bool(equal_nan))


def equal_all(x, y, name=None):
    return equal_all_op(x, y)


def is_tensor(x):
    """True for framework tensors (eager Tensors and static Variables)."""
    return hasattr(x, 'stop_gradient') and hasattr(x, 'shape') and not isinstance(x, np.ndarray)


__all__ = ['isclose', 'allclose', 'equal_all', 'is_tensor']
TENSOR_METHODS = {'isclose': isclose, 'allclose': allclose, 'equal_all': equal_all,
                  'is_tensor': is_tensor}

_a = np.array([1.0, 2.0, np.nan])
add_test_case(isclose_op, _a, _a + 1e-7, 1e-05, 1e-08, True,
              ref=lambda x, y, r, a, n: np.array([abs(p - q) <= a + r * abs(q) or
                                                  (n and p != p and q != q)
                                                  for p, q in zip(x, y)]))
add_test_case(allclose_op, np.array([1.0, 2.0]), np.array([1.0, 2.1]), 1e-05, 1e-08, False,
              ref=lambda x, y, r, a, n: np.array(False))
add_test_case(equal_all_op, np.array([1, 2]), np.array([1, 2]), ref=lambda x, y: np.array(True))
