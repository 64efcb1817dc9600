"""Tape autograd: grad nodes, the backward engine, ``grad()`` and hooks.

A ``GradNode`` is created for each op call that needs gradients. It keeps the
op, its inputs (Tensors, for the create_graph path), the output arrays and one
*edge* per input: None (no gradient wanted), a leaf Tensor (accumulate into
``.grad``) or ``(node, output_index)``. The engine counts dependencies, runs
nodes in topological order, sums gradients and frees saved values unless
``retain_graph``.

Without ``create_graph`` gradients flow as numpy arrays through the ops'
``fast_grad`` (or the composite rule under no_grad). With ``create_graph`` they
flow as Tensors through the composite grad rules with grad mode on, so the
result is itself differentiable.
"""
import weakref

import numpy as np

from . import state


class GradNode:
    __slots__ = ('op', 'ins', 'attrs', 'outs', 'edges', 'versions', 'out_refs',
                 'hooks', 'freed', '__weakref__')

    def __init__(self, op, ins, attrs, outs, edges, versions):
        self.op = op
        self.ins = ins          # inputs as given: Tensors, scalars, None, lists
        self.attrs = attrs
        self.outs = outs        # tuple of output arrays
        self.edges = edges      # per input: None | leaf Tensor | (node, idx) | tuple of those
        self.versions = versions
        self.out_refs = None    # weakrefs to output Tensors (set by the tracer)
        self.hooks = None       # {output index: [hook, ...]} for non-leaf hooks
        self.freed = False

    def __repr__(self):
        return '<GradNode %s>' % self.op.name


class RemovableHandle:
    def __init__(self, hooks, fn):
        self._hooks = hooks
        self._fn = fn

    def remove(self):
        try:
            self._hooks.remove(self._fn)
        except ValueError:
            pass


def register_hook(tensor, fn):
    if tensor.stop_gradient:
        raise RuntimeError("cannot register a hook on a tensor with stop_gradient=True")
    gn = tensor._grad_node
    if gn is None:
        if tensor._hooks is None:
            tensor._hooks = []
        hooks = tensor._hooks
    else:
        node, idx = gn
        if node.hooks is None:
            node.hooks = {}
        hooks = node.hooks.setdefault(idx, [])
    hooks.append(fn)
    return RemovableHandle(hooks, fn)


_FREED_MSG = ("Trying to run backward through the graph a second time (or to use "
              "its saved values after they were freed): the graph of op '%s' was "
              "freed by an earlier backward(). Pass retain_graph=True to the first "
              "backward() or paddle.grad() call if you need to backward twice.")


def _iter_edges(edges):
    for e in edges:
        if type(e) is tuple and e and type(e[0]) is not GradNode:
            yield from e          # a variadic input's sub-edges
        else:
            yield e


class _Engine:
    """One backward pass."""

    def __init__(self, create_graph, retain_graph, accumulate, capture, cut=()):
        from .tensor import Tensor
        self.cut = cut                    # edges treated as constants (no_grad_vars)
        self.Tensor = Tensor
        self.create_graph = create_graph
        self.retain_graph = retain_graph
        self.accumulate = accumulate      # write leaf/non-leaf .grad (backward())
        self.capture = capture            # {key: None} for grad(): leaf id / (node, idx)
        self.leaf_grads = {}              # id(leaf) -> [leaf, grad]

    # -- helpers over the two representations (arrays vs Tensors) --
    def _add(self, a, b):
        if self.create_graph:
            return a + b
        return a + b if a.shape == b.shape or a.ndim else np.add(a, b)

    def _wrap(self, g):
        if self.create_graph:
            return g
        t = self.Tensor.__new__(self.Tensor)
        t._init(g, None, True)
        return t

    def _unwrap(self, t):
        if self.create_graph:
            return t
        return t.data if isinstance(t, self.Tensor) else np.asarray(t)

    def _run_hooks(self, hooks, g):
        for fn in list(hooks):
            res = fn(self._wrap(g))
            if res is not None:
                g = self._unwrap(res)
        return g

    def run(self, roots, root_grads):
        node_grads = {}
        deps = {}
        ready = []
        for t, g in zip(roots, root_grads):
            gn = t._grad_node
            if gn is None:
                self._leaf(t, g)
                continue
            node, idx = gn
            buf = node_grads.get(node)
            if buf is None:
                buf = node_grads[node] = [None] * node.op.n_out
            buf[idx] = g if buf[idx] is None else self._add(buf[idx], g)
        # dependency counts over the reachable graph
        stack = list(node_grads)
        seen = set(stack)
        while stack:
            node = stack.pop()
            if node.freed:
                raise RuntimeError(_FREED_MSG % node.op.name)
            for e in _iter_edges(node.edges):
                if type(e) is tuple:
                    child = e[0]
                    deps[child] = deps.get(child, 0) + 1
                    if child not in seen:
                        seen.add(child)
                        stack.append(child)
        ready = [n for n in node_grads if deps.get(n, 0) == 0]
        while ready:
            node = ready.pop()
            gs = node_grads.pop(node, None)
            in_grads = self._run_node(node, gs) if gs is not None else None
            self._propagate(node, in_grads, node_grads, deps, ready)
            if not self.retain_graph:
                node.ins = node.outs = None
                node.freed = True
        self._finish_leaves()

    def _run_node(self, node, gs):
        if all(g is None for g in gs):
            return None
        if node.hooks:
            for idx, hooks in node.hooks.items():
                if gs[idx] is not None and hooks:
                    gs[idx] = self._run_hooks(hooks, gs[idx])
        if self.accumulate and node.out_refs is not None:
            self._retain_nonleaf(node, gs)
        if self.capture is not None:
            for idx, g in enumerate(gs):
                key = (node, idx)
                if key in self.capture and g is not None:
                    self.capture[key] = g if self.capture[key] is None else self._add(self.capture[key], g)
        self._check_versions(node)
        op = node.op
        for i, g in enumerate(gs):
            if g is None:
                gs[i] = self._zeros(node.outs[i])
        if self.create_graph:
            return self._composite(node, gs)
        if op.fast_grad is not None:
            ins = [_data(x) for x in node.ins]
            res = op.fast_grad(*gs, *ins, *node.outs, *node.attrs)
        else:
            res = self._composite_nograd(node, gs)
        return (res,) if op.n_in == 1 else res

    def _zeros(self, arr):
        z = np.zeros_like(arr)
        return self.Tensor(z) if self.create_graph else z

    def _composite(self, node, gs):
        outs = []
        for i, arr in enumerate(node.outs):
            t = node.out_refs[i]() if node.out_refs is not None else None
            if t is None or t.data is not arr:
                t = self.Tensor.__new__(self.Tensor)
                t._init(arr, (node, i), False)
            outs.append(t)
        with state.enable_grad():
            res = node.op.grad(*gs, *node.ins, *outs, *node.attrs)
        return (res,) if node.op.n_in == 1 else res

    def _composite_nograd(self, node, gs):
        T = self.Tensor
        g_t = [T(g) for g in gs]
        outs = [T(a) for a in node.outs]
        ins = [_detach(x, T) for x in node.ins]
        with state.disable_grad():
            res = node.op.grad(*g_t, *ins, *outs, *node.attrs)
        if node.op.n_in == 1:
            res = (res,)
        return tuple(_undata(r) for r in res)

    def _check_versions(self, node):
        for x, v in zip(node.ins, node.versions):
            if v is not None and x._version != v:
                raise RuntimeError(
                    "one of the tensors needed for the gradient of op '%s' was modified "
                    "by an in-place operation (version %d, saved at version %d); "
                    "clone() it before modifying it in place"
                    % (node.op.name, x._version, v))

    def _retain_nonleaf(self, node, gs):
        for idx, ref in enumerate(node.out_refs):
            g = gs[idx]
            if g is None:
                continue
            t = ref()
            if t is None or t._grad_node is None or t._grad_node[0] is not node:
                continue
            self._accumulate_into(t, g)

    def _accumulate_into(self, t, g):
        if self.create_graph:
            t.grad = g if t.grad is None else t.grad + g
            return
        if t.grad is None:
            gt = self.Tensor.__new__(self.Tensor)
            gt._init(g if g.dtype == t.data.dtype else g.astype(t.data.dtype), None, True)
            t.grad = gt
        else:
            t.grad.data = t.grad.data + g

    def _propagate(self, node, in_grads, node_grads, deps, ready):
        edges = node.edges
        for i, e in enumerate(edges):
            if e is None:
                continue
            g = in_grads[i] if in_grads is not None else None
            if type(e) is tuple and e and type(e[0]) is not GradNode:
                sub = g if g is not None else [None] * len(e)
                for se, sg in zip(e, sub):
                    self._send(se, sg, node_grads, deps, ready)
            else:
                self._send(e, g, node_grads, deps, ready)

    def _send(self, e, g, node_grads, deps, ready):
        if e is None:
            return
        if self.cut and (e in self.cut if type(e) is tuple else id(e) in self.cut):
            g = None
        if type(e) is tuple:
            child, idx = e
            if g is not None:
                buf = node_grads.get(child)
                if buf is None:
                    buf = node_grads[child] = [None] * child.op.n_out
                buf[idx] = g if buf[idx] is None else self._add(buf[idx], g)
            d = deps[child] - 1
            deps[child] = d
            if d == 0:
                if child not in node_grads:
                    node_grads[child] = [None] * child.op.n_out
                ready.append(child)
        elif g is not None:
            self._leaf(e, g)

    def _leaf(self, t, g):
        if not self.create_graph and type(g) is not np.ndarray:
            g = np.asarray(g)
        if g.shape != tuple(t.data.shape):
            g = _sum_to_shape(g, t.data.shape, self.create_graph)
        slot = self.leaf_grads.get(id(t))
        if slot is None:
            self.leaf_grads[id(t)] = [t, g]
        else:
            slot[1] = self._add(slot[1], g)

    def _finish_leaves(self):
        for t, g in self.leaf_grads.values():
            if t._hooks:
                g = self._run_hooks(t._hooks, g)
            if self.capture is not None:
                key = id(t)
                if key in self.capture:
                    self.capture[key] = g
            if self.accumulate:
                self._accumulate_into(t, g)


def _sum_to_shape(g, shape, create_graph):
    shape = tuple(shape)
    if create_graph:
        from ..ops.grad_utils import sum_to_shape
        return sum_to_shape(g, shape)
    from ..ops.grad_utils import unbroadcast
    return unbroadcast(g, shape)


def _data(x):
    d = getattr(x, 'data', None)
    if d is not None and type(d) is np.ndarray:
        return d
    if type(x) is list:
        return [_data(v) for v in x]
    return x


def _detach(x, T):
    if isinstance(x, T):
        return T(x.data)
    if type(x) is list:
        return [_detach(v, T) for v in x]
    return x


def _undata(r):
    if r is None:
        return None
    if type(r) is list:
        return [_undata(v) for v in r]
    return r.data if hasattr(r, 'data') else np.asarray(r)


def _root_grad(t, g, create_graph, Tensor):
    if g is None:
        arr = np.ones_like(t.data)
        return Tensor(arr) if create_graph else arr
    if isinstance(g, Tensor):
        if tuple(g.data.shape) != tuple(t.data.shape):
            raise ValueError("grad_tensor shape %s does not match tensor shape %s"
                             % (list(g.data.shape), list(t.data.shape)))
        return g if create_graph else g.data
    arr = np.asarray(g, dtype=t.data.dtype)
    return Tensor(arr) if create_graph else arr


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves."""
    from .tensor import Tensor
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    if grad_tensors is None or isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors] * len(tensors) if grad_tensors is None else [grad_tensors]
    for t in tensors:
        if t.stop_gradient:
            raise RuntimeError(
                "backward() on a tensor with stop_gradient=True: none of its inputs "
                "requires a gradient (set stop_gradient=False on the leaves)")
    roots = list(tensors)
    grads = [_root_grad(t, g, False, Tensor) for t, g in zip(roots, grad_tensors)]
    _Engine(False, retain_graph, True, None).run(roots, grads)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """Gradients of ``outputs`` with respect to ``inputs`` (Paddle's ``paddle.grad``).

    With ``create_graph=True`` the returned gradients are part of the graph and
    can be differentiated again.
    """
    from .tensor import Tensor
    single = isinstance(inputs, Tensor)
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs] * len(outputs) if grad_outputs is None else [grad_outputs]
    if len(grad_outputs) != len(outputs):
        raise ValueError("grad: %d grad_outputs given for %d outputs"
                         % (len(grad_outputs), len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    for t in outputs:
        if t.stop_gradient:
            raise RuntimeError("grad: an output has stop_gradient=True, so it does not "
                               "depend on any input that requires a gradient")
    capture = {}
    keys = []
    for t in inputs:
        key = id(t) if t._grad_node is None else t._grad_node
        keys.append(key)
        capture[key] = None
    cut = set()
    if no_grad_vars is not None:       # treated as constants for this call
        nv = [no_grad_vars] if isinstance(no_grad_vars, Tensor) else list(no_grad_vars)
        cut = {id(t) if t._grad_node is None else t._grad_node for t in nv}
    grads = [_root_grad(t, g, create_graph, Tensor) for t, g in zip(outputs, grad_outputs)]
    _Engine(create_graph, retain_graph, False, capture, cut).run(outputs, grads)
    result = []
    for t, key in zip(inputs, keys):
        g = capture[key]
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    "grad: one of the inputs (shape %s) is not used to compute the "
                    "outputs; pass allow_unused=True to get None for it"
                    % list(t.data.shape))
            result.append(None)
            continue
        if not create_graph:
            g = Tensor(np.asarray(g).astype(t.data.dtype, copy=False))
        result.append(g)
    return result
