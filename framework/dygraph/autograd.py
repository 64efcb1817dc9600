"""Tape autograd: grad nodes, the backward engine, ``grad()`` and hooks.

A ``GradNode`` is created for each op call that needs gradients. It keeps the
op, its inputs (Tensors, for the create_graph path), the output arrays and one
*edge* per input: None (no gradient wanted), a leaf Tensor (accumulate into
``.grad``) or the node output it came from (a tuple of those for a variadic
input). A node with one output is itself the edge to that output; outputs of
multi-output nodes are ``(node, output_index)``.

The tape is made of few objects on purpose: every object that lives from
forward to backward is one more object Python's cyclic garbage collector
promotes and walks (in a process with many live objects, full collections
triggered by tape objects cost more than the ops). So a one-output op records
its Tensor, its node and the input tuple, nothing more; the tape has no
reference cycles and needs no collector to be freed. Not even a weakref to
the output (of all tape objects the costliest for the collector): backward
needs the output tensor to give a non-leaf the user holds its ``.grad``, and
learns it, weakly, from the first consumer that sends the node a gradient
(``learn_output``). The hot eager paths do not store the edges either:
``node.edges`` is then an int, the mask of the inputs that wanted a gradient,
and each edge is read off its input tensor in backward (``x._grad_node or
x``). That is the edge the node saw unless the tensor moved in the graph
since (an in-place op, ``detach_``); those moves leave the old edge in the
tensor's ``_rebinds``, stamped with the node number they happened at
(``note_rebind``).

Nodes are numbered in creation order, and a node's inputs always exist before
it, so running nodes in decreasing number is a topological order: the engine
keeps a heap of the nodes that have received a gradient and needs no separate
dependency-counting pass. Saved values are freed unless ``retain_graph``.

Without ``create_graph`` gradients flow as numpy arrays through the ops'
``fast_grad`` (or the composite rule under no_grad). With ``create_graph`` they
flow as Tensors through the composite grad rules with grad mode on, so the
result is itself differentiable.
"""
import heapq
import itertools
import weakref

import numpy as np

from ..ops import registry
from ..ops.grad_utils import fast_grad_context
from . import state

_ref = weakref.ref
_node_seq = itertools.count()
next_seq = _node_seq.__next__         # a node's number (creation order)
# (pack_hook, unpack_hook) pairs of the active saved_tensors_hooks regions,
# innermost last (framework.autograd.saved_tensors_hooks)
saved_tensor_hooks = []
# set by dygraph.nan_check while FLAGS_check_nan_inf is on: fn(node, input grads)
grad_checker = None


class GradNode:
    # ``__dict__`` holds the rarely set ``hooks`` / ``packed`` (class defaults
    # below), so creating a node stores only the fields every node has
    __slots__ = ('seq', 'op', 'ins', 'attrs', 'outs', 'edges', 'versions', 'out_refs',
                 'fast', '__dict__', '__weakref__')
    hooks = None        # {output index: [hook, ...]} for non-leaf hooks
    packed = None       # (unpack_hook, packed inputs, packed outputs)

    def __init__(self, op, ins, attrs, outs, edges, versions):
        self.seq = next_seq()
        self.op = op
        self.ins = ins          # inputs as given: Tensors, scalars, None, lists; None once freed
        self.attrs = attrs
        self.outs = outs        # tuple of output arrays
        # per input: None | leaf Tensor | (node, idx) | tuple of those; or an int
        # mask of the inputs wanting a gradient (edges derived: ``edge_list``)
        self.edges = edges
        self.versions = versions
        # the output Tensors, weakly, learnt in backward (learn_output): a
        # weakref (one-output node) or a list of weakrefs / None; until then
        # None, or the output count of a multi-output node (set by the tracer)
        self.out_refs = None
        # the op's fast grad while the engine may take its inlined path (one
        # output, no hooks, nothing packed, not freed); else None
        self.fast = op.plain_fast_grad
        if saved_tensor_hooks:
            self.pack_for_hooks()

    def pack_for_hooks(self):
        """Inside ``saved_tensors_hooks``: hand the saved values to its hooks."""
        if not self.op.name.startswith(_SAVES_ITS_OWN):
            self._pack(*saved_tensor_hooks[-1])

    def edge_list(self):
        """The edges, one per input (derived from the inputs for a mask; empty
        once freed)."""
        edges = self.edges
        if type(edges) is not int:
            return edges if edges is not None else ()
        if self.ins is None:
            return ()
        seq = self.seq
        return tuple(edge_of(x, seq) if edges >> i & 1 else None
                     for i, x in enumerate(self.ins))

    def _pack(self, pack, unpack):
        """Hand the values backward needs to ``pack`` (the inputs; the outputs
        for ops whose gradient reads only those) and keep what it returns in
        their place until ``unpack`` gives them back in backward."""
        from .tensor import Tensor
        self.edges = self.edge_list()   # the inputs may come back as other tensors
        if self.op.save_inputs:
            for t in self.ins:      # the unpacked inputs may be other tensors
                if type(t) is Tensor:
                    learn_output(t._grad_node, t)
            ins = tuple(pack(t) if type(t) is Tensor else _KEEP for t in self.ins)
            self.ins = tuple(None if p is not _KEEP else t for p, t in zip(ins, self.ins))
            self.versions = ()          # the user's hooks now own these values
            self.packed = (unpack, ins, None)
            self.fast = None
        else:
            outs = tuple(pack(Tensor(a)) for a in self.outs)
            self.outs = None
            self.packed = (unpack, None, outs)
            self.fast = None

    def unpack(self):
        """Restore the values packed by ``_pack`` (before this node's backward)."""
        unpack, ins, outs = self.packed
        self.packed = None
        if ins is not None:
            self.ins = tuple(t if p is _KEEP else _unpacked(unpack, p)
                             for p, t in zip(ins, self.ins))
        if outs is not None:
            self.outs = tuple(_unpacked(unpack, p).data for p in outs)

    def __repr__(self):
        return '<GradNode %s>' % self.op.name

    def edge(self, idx):
        """The edge to output ``idx``: the node itself when it has one output."""
        return self if self.op.n_out == 1 else (self, idx)

    def output(self, idx):
        """Output Tensor ``idx`` if something still holds it, else None."""
        refs = self.out_refs
        if self.op.n_out != 1:
            refs = refs[idx] if type(refs) is list else None
        return None if refs is None else refs()

    def set_output(self, idx, tensor):
        """Output ``idx`` is now ``tensor`` (an in-place op took it over)."""
        if self.op.n_out == 1:
            self.out_refs = _ref(tensor)
        else:
            self._output_refs()[idx] = _ref(tensor)

    def _output_refs(self):
        """A multi-output node's list of output weakrefs (made on first use)."""
        refs = self.out_refs
        if type(refs) is not list:
            refs = self.out_refs = [None] * _n_outs(self)
        return refs


def learn_output(edge, x):
    """Let a node know its output Tensor ``x`` (at ``edge``), weakly, if it
    does not yet: nodes keep no reference to their outputs from the forward
    (a weakref per output is one more object for the garbage collector, and
    the costliest), so backward learns each from the first consumer that
    sends the node a gradient for it (or from the root). The tensor is then
    alive at the node's turn exactly when something besides the freed
    consumers holds it, as a weakref from the forward would have told."""
    if type(edge) is GradNode:
        if edge.out_refs is None and x._grad_node is edge:
            edge.out_refs = _ref(x)
    elif type(edge) is tuple and x._grad_node == edge:     # (node, output index)
        refs = edge[0]._output_refs()
        if refs[edge[1]] is None:
            refs[edge[1]] = _ref(x)


def edge_of(x, seq):
    """The edge to tensor ``x`` as node ``seq`` saw it: where x sits in the
    graph now, unless it moved after that node was made."""
    moves = x._rebinds
    if moves is not None:
        for at, old in moves:
            if at > seq:
                return x if old is None else old
    return x._grad_node or x


# the number stamped on the latest move: nodes numbered above it can take
# their inputs' edges as they are now
_last_rebind = -1


def note_rebind(x):
    """``x`` is about to move in the graph (an in-place op, ``detach_``):
    nodes made before keep their edge to where it was (None: x as a leaf)."""
    global _last_rebind
    _last_rebind = next_seq()
    entry = (_last_rebind, x._grad_node)
    x._rebinds = (entry,) if x._rebinds is None else x._rebinds + (entry,)


def split_edge(e):
    """``(node, output_index)`` of a node edge."""
    return (e, 0) if type(e) is GradNode else e


def edge_node(e):
    """The node of a node edge (a Tensor's ``_grad_node``)."""
    return e if type(e) is GradNode else e[0]


# ops whose backward keeps its own values: a PyLayer's (ctx.save_for_backward,
# packed there) and a @to_static program's
_SAVES_ITS_OWN = ('py_layer', 'run_program')
_KEEP = object()     # an input that is not a Tensor (a number, None, a list): not packed


def _unpacked(unpack, packed):
    from .tensor import Tensor
    t = unpack(packed)
    if not isinstance(t, Tensor):
        raise TypeError("saved_tensors_hooks: unpack_hook must return a Tensor, got %s"
                        % type(t).__name__)
    return t


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
        node, idx = split_edge(gn)
        if node.hooks is None:
            node.hooks = {}
            node.fast = None            # the engine's inlined path runs no hooks
        hooks = node.hooks.setdefault(idx, [])
    hooks.append(fn)
    return RemovableHandle(hooks, fn)


# id(leaf) -> (weakref to the leaf, [hook() ...]): Tensor._register_backward_hook
_ready_hooks = {}


def register_ready_hook(tensor, fn):
    """Call ``fn()`` each time ``backward()`` has accumulated the leaf
    ``tensor``'s gradient for good, as soon as no node left to run can add to
    it (while the rest of backward still runs; DataParallel starts its
    gradient all-reduces from here)."""
    if tensor._grad_node is not None:
        raise RuntimeError("_register_backward_hook: only leaf tensors have a final gradient "
                           "to hook (this tensor is the output of op '%s')"
                           % edge_node(tensor._grad_node).op.name)
    key = id(tensor)
    entry = _ready_hooks.get(key)
    if entry is None or entry[0]() is not tensor:
        entry = _ready_hooks[key] = (weakref.ref(tensor, lambda _, k=key: _ready_hooks.pop(k, None)),
                                     [])
    entry[1].append(fn)
    return _ReadyHookHandle(key, fn)


class _ReadyHookHandle:
    """Removes a ready hook; the last one removed takes the leaf off the watch
    (backward looks for hooked leaves only while there are some)."""

    def __init__(self, key, fn):
        self._key = key
        self._fn = fn

    def remove(self):
        entry = _ready_hooks.get(self._key)
        if entry is not None and self._fn in entry[1]:
            entry[1].remove(self._fn)
            if not entry[1]:
                del _ready_hooks[self._key]


def _first_consumers(roots):
    """{id(leaf): (seq of the earliest node that sends it a gradient, leaf)} for
    the hooked leaves reachable from ``roots``: once every node numbered at or
    above that seq has run, the leaf's gradient is final."""
    found = {}
    seen = set()
    stack = [edge_node(t._grad_node) for t in roots if t._grad_node is not None]
    while stack:
        node = stack.pop()
        if node in seen or node.ins is None:
            continue
        seen.add(node)
        for i, e in enumerate(node.edge_list()):
            for sub in (e if node.op.variadic[i] and e is not None else (e,)):
                if sub is None:
                    continue
                if type(sub) is GradNode or type(sub) is tuple:
                    stack.append(edge_node(sub))
                elif id(sub) in _ready_hooks:
                    old = found.get(id(sub))
                    if old is None or node.seq < old[0]:
                        found[id(sub)] = (node.seq, sub)
    return found


_FREED_MSG = ("Trying to run backward through the graph a second time (or to use "
              "its saved values after they were freed): the graph of op '%s' was "
              "freed by an earlier backward(). Pass retain_graph=True to the first "
              "backward() or paddle.grad() call if you need to backward twice.")


class _Engine:
    """One backward pass."""

    def __init__(self, create_graph, retain_graph, accumulate, capture, cut=()):
        from .tensor import Tensor
        self.Tensor = Tensor
        self.create_graph = create_graph
        self.retain_graph = retain_graph
        self.accumulate = accumulate      # write leaf/non-leaf .grad (backward())
        self.capture = capture            # grad(): {leaf id or (node, idx): grad}
        self.cut = cut                    # edges treated as constants (no_grad_vars)
        self.leaf_grads = {}              # id(leaf) -> [leaf, grad]
        self.node_grads = {}              # node -> its grad (one output) | [grad per output]
        self.heap = []                    # (-seq, node) of nodes holding gradients
        self.watch = []                   # [(first consumer seq, leaf)], largest last

    def run(self, roots, root_grads):
        if registry.autocast_state() is not None:      # grads follow the forward dtypes
            with registry.autocast_suspended():
                return self.run(roots, root_grads)
        for t, g in zip(roots, root_grads):
            if t._grad_node is None:
                self._leaf(t, g)
            else:
                learn_output(t._grad_node, t)
                self._send(t._grad_node, g)
        if _ready_hooks and self.accumulate:
            self.watch = sorted(_first_consumers(roots).values(), key=lambda sv: sv[0])
        watch = self.watch
        heap = self.heap
        node_grads = self.node_grads
        pop, get = node_grads.pop, node_grads.get
        heappop, heappush = heapq.heappop, heapq.heappush
        retain = self.retain_graph
        context = fast_grad_context
        # the common case (backward() without hooks/capture/create_graph/NaN
        # checks, a one-output node with a fast grad: ``node.fast``) is inlined
        # below; everything else goes through _run_node / _route
        simple = (not self.create_graph and self.capture is None and not self.cut
                  and grad_checker is None)
        T = self.Tensor
        while heap:
            node = heappop(heap)[1]
            g = pop(node)                 # one-output node: its grad; else a list
            fast = node.fast
            if fast is None or not simple:
                self._run_and_route(node, g if node.op.n_out != 1 else [g])
            else:
                t = node.out_refs
                if t is not None:
                    t = t()
                    if t is not None and t._grad_node is node:
                        self._accumulate_into(t, g)     # a non-leaf the user holds
                ins = node.ins
                versions = node.versions
                edges = node.edges
                if type(edges) is int and node.seq < _last_rebind:
                    edges = node.edge_list()    # an input moved since: look it up
                n = len(ins)
                if n == 1:
                    x = ins[0]
                    if type(edges) is int:      # derived: the edge is where x is
                        edges = (x._grad_node or x,)
                    if versions and versions[0] is not None and x._version != versions[0]:
                        self._check_versions(node)      # raises, naming the op
                    context.edges = edges
                    in_grads = (fast(g, x.data if type(x) is T else _data(x), node.outs[0],
                                     *node.attrs),)
                elif n == 2:
                    x, y = ins
                    if type(edges) is int:
                        edges = ((x._grad_node or x) if edges & 1 else None,
                                 (y._grad_node or y) if edges & 2 else None)
                    if versions and ((versions[0] is not None and x._version != versions[0])
                                     or (versions[1] is not None
                                         and y._version != versions[1])):
                        self._check_versions(node)
                    context.edges = edges
                    in_grads = fast(g, x.data if type(x) is T else _data(x),
                                    y.data if type(y) is T else _data(y), node.outs[0],
                                    *node.attrs)
                else:
                    if type(edges) is int:
                        edges = node.edge_list()
                    if versions:
                        self._check_versions(node)
                    context.edges = edges
                    in_grads = fast(g, *[x.data if type(x) is T else _data(x) for x in ins],
                                    node.outs[0], *node.attrs)
                for e, g, x in zip(edges, in_grads, ins):
                    if e is None or g is None:
                        continue
                    if type(e) is GradNode:         # a one-output node: its grad, unboxed
                        if e.out_refs is None and x._grad_node is e:
                            e.out_refs = _ref(x)    # learn_output, inlined
                        old = get(e)
                        if old is None:
                            node_grads[e] = g
                            heappush(heap, (-e.seq, e))
                        else:
                            node_grads[e] = old + g
                    elif type(e) is tuple:
                        learn_output(e, x)
                        self._send(e, g)
                    else:
                        self._leaf(e, g)
                if not retain:      # freed; without edges the tape unravels as we go
                    node.ins = node.outs = node.fast = node.edges = None
                # drop our references to this node's inputs, so an input the user no
                # longer holds is dead (and gets no retained .grad) when reached
                ins = x = y = t = in_grads = g = edges = None
            if watch and (not heap or watch[-1][0] > -heap[0][0]):
                self._finish_ready(watch, -heap[0][0] if heap else -1)
        fast_grad_context.edges = None
        self._finish_leaves()

    def _run_and_route(self, node, gs):
        """Run a node off the inlined path and send its input grads on."""
        edges = node.edge_list()
        in_grads = self._run_node(node, gs, edges)
        if grad_checker is not None:       # FLAGS_check_nan_inf
            grad_checker(node, in_grads)
        variadic = node.op.variadic
        ins, T = node.ins or (), self.Tensor
        for i, e in enumerate(edges):
            if e is None:
                continue
            g = in_grads[i]
            if g is None:
                continue
            x = ins[i] if i < len(ins) else None
            if variadic[i]:
                for k, (se, sg) in enumerate(zip(e, g)):
                    if se is not None and sg is not None:
                        if type(x) in (list, tuple) and k < len(x) and isinstance(x[k], T):
                            learn_output(se, x[k])
                        self._route(se, sg)
            else:
                if isinstance(x, T):
                    learn_output(e, x)
                self._route(e, g)
        if not self.retain_graph:
            node.ins = node.outs = node.fast = node.edges = None     # freed

    def _route(self, e, g):
        node_edge = type(e) is GradNode or type(e) is tuple
        if self.cut and (e in self.cut if node_edge else id(e) in self.cut):
            return
        if node_edge:
            self._send(e, g)
        else:
            self._leaf(e, g)

    def _send(self, edge, g):
        if type(edge) is GradNode:          # one-output nodes hold their grad unboxed
            old = self.node_grads.get(edge)
            if old is None:
                self.node_grads[edge] = g
                heapq.heappush(self.heap, (-edge.seq, edge))
            else:
                self.node_grads[edge] = old + g
            return
        node, idx = edge
        buf = self.node_grads.get(node)
        if buf is None:
            buf = self.node_grads[node] = [None] * _n_outs(node)
            heapq.heappush(self.heap, (-node.seq, node))
        buf[idx] = g if buf[idx] is None else buf[idx] + g

    def _run_node(self, node, gs, edges):
        if node.ins is None:
            raise RuntimeError(_FREED_MSG % node.op.name)
        if node.packed is not None:
            node.unpack()
        if node.hooks:
            for idx, hooks in node.hooks.items():
                if gs[idx] is not None and hooks:
                    gs[idx] = self._run_hooks(hooks, gs[idx])
        if self.accumulate:
            self._retain_nonleaf(node, gs)
        if self.capture is not None:
            self._capture(node, gs)
        if node.versions:
            self._check_versions(node)
        op = node.op
        if op.n_out != 1 and (op.keeps_missing_grads is None
                              or not op.keeps_missing_grads(*node.attrs)):
            for i, g in enumerate(gs):
                if g is None:
                    gs[i] = self._zeros(node.outs[i])
        if self.create_graph:
            return self._composite(node, gs)
        fast = op.fast_grad
        if fast is None:
            return self._composite_nograd(node, gs)
        T = self.Tensor
        ins = node.ins
        fast_grad_context.edges = edges
        if op.n_in == 1:
            x = ins[0]
            return (fast(*gs, x.data if type(x) is T else _data(x), *node.outs, *node.attrs),)
        arrays = [x.data if type(x) is T else _data(x) for x in ins]
        return fast(*gs, *arrays, *node.outs, *node.attrs)

    # -- helpers over the two representations (arrays vs Tensors) --
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

    def _capture(self, node, gs):
        capture = self.capture
        for idx, g in enumerate(gs):
            key = node.edge(idx)
            if key in capture and g is not None:
                capture[key] = g if capture[key] is None else capture[key] + g

    def _zeros(self, arr):
        z = np.zeros_like(arr)
        return self.Tensor(z) if self.create_graph else z

    def _composite(self, node, gs):
        outs = []
        for i, arr in enumerate(node.outs):
            t = node.output(i)
            if t is None or t.data is not arr:
                t = self.Tensor.__new__(self.Tensor)
                t._init(arr, node.edge(i), False)
            outs.append(t)
        with state.enable_grad():
            res = node.op.grad(*gs, *node.ins, *outs, *node.attrs)
        return (res,) if node.op.n_in == 1 else res

    def _composite_nograd(self, node, gs):
        T = self.Tensor
        g_t = [None if g is None else T(g) for g in gs]
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
        """Non-leaf tensors the user still holds get ``.grad`` (as Paddle does)."""
        for idx, g in enumerate(gs):
            if g is None:
                continue
            t = node.output(idx)
            if t is not None and t._grad_node is not None and edge_node(t._grad_node) is node:
                self._accumulate_into(t, g)

    def _accumulate_into(self, t, g):
        if self.create_graph:
            t._grad = g if t._grad is None else t._grad + g
            return
        if t.grad is None:
            # (stop_gradient False, as Paddle's x.grad: a leaf with no history)
            gt = self.Tensor.__new__(self.Tensor)
            gt._init(g if g.dtype == t.data.dtype else g.astype(t.data.dtype), None, False)
            t._grad = gt
        elif _is_cleared(t.grad.data):          # zeros left by clear_grad(): replace
            t.grad.data = g if g.dtype == t.data.dtype else g.astype(t.data.dtype)
        else:
            t.grad.data = t.grad.data + g

    def _leaf(self, t, g):
        if not self.create_graph and type(g) is not np.ndarray:
            g = np.asarray(g)
        if tuple(g.shape) != tuple(t.data.shape):
            g = _sum_to_shape(g, t.data.shape, self.create_graph)
        slot = self.leaf_grads.get(id(t))
        if slot is None:
            self.leaf_grads[id(t)] = [t, g]
        else:
            slot[1] = slot[1] + g

    def _finish_leaves(self):
        for t, g in self.leaf_grads.values():
            self._finish_leaf(t, g)
        self.leaf_grads = {}

    def _finish_leaf(self, t, g):
        if t._hooks:
            g = self._run_hooks(t._hooks, g)
        if self.capture is not None:
            key = id(t)
            if key in self.capture:
                self.capture[key] = g
        if self.accumulate:
            self._accumulate_into(t, g)
            entry = _ready_hooks.get(id(t))
            if entry is not None:
                for fn in list(entry[1]):
                    fn()

    def _finish_ready(self, watch, top):
        """Finish the watched leaves whose last contributor has run: every
        node left to run has a number at or below ``top``."""
        while watch and watch[-1][0] > top:
            t = watch.pop()[1]
            slot = self.leaf_grads.pop(id(t), None)
            if slot is not None:
                self._finish_leaf(t, slot[1])

def _n_outs(node):
    """Output count of a node (ops with a variadic output declare n_out 0; the
    tracer stores their count in ``out_refs`` until backward makes it a list)."""
    refs = node.out_refs
    return node.op.n_out or (refs if type(refs) is int else len(refs))


def _is_cleared(arr):
    """The zero-stride zeros ``Tensor.clear_grad()`` leaves (nothing to add to)."""
    return arr.size > 0 and not any(arr.strides) and arr.base is not None \
        and not arr.flags.writeable


def _sum_to_shape(g, shape, create_graph):
    shape = tuple(shape)
    if create_graph:
        from ..ops.grad_utils import sum_to_shape
        return sum_to_shape(g, shape)
    from ..ops.grad_utils import unbroadcast
    return unbroadcast(g, shape)


_AS_IS = (float, int, bool, complex, np.ndarray, type(None))


def _data(x):
    """The array an input stands for in a fast grad: a Tensor's data (lists
    element-wise); numbers, None and constant arrays as they are."""
    if type(x) in _AS_IS:
        return x
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


# Callables run once when the next backward() has finished, then dropped
# (Paddle's core.eager._add_backward_final_hook; amp's master_grad uses it).
_final_hooks = []


def add_backward_final_hook(fn):
    """Run ``fn()`` after the next ``backward()`` has accumulated the leaf grads."""
    _final_hooks.append(fn)


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
    while _final_hooks:
        _final_hooks.pop(0)()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None, *,
         dump_backward_graph_path=None):
    """Gradients of eager ``outputs`` with respect to ``inputs`` (``paddle.grad``
    in eager mode; ``framework.autograd.grad`` dispatches static Variables to
    ``static.gradients``).

    With ``create_graph=True`` the returned gradients are part of the graph and
    can be differentiated again. ``dump_backward_graph_path`` writes the
    backward graph walked, as text.
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
    if dump_backward_graph_path is not None:
        dump_backward_graph(outputs, dump_backward_graph_path)
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


def dump_backward_graph(tensors, path):
    """The grad nodes reachable from ``tensors``, as text (op name, inputs' shapes)."""
    seen, order = set(), []
    stack = [edge_node(t._grad_node) for t in tensors if t._grad_node is not None]

    def push(edge):
        """An input edge: None, a leaf Tensor, a node, (node, index) or a tuple of those."""
        if type(edge) is GradNode:
            stack.append(edge)
        elif isinstance(edge, tuple):
            if len(edge) == 2 and type(edge[0]) is GradNode and isinstance(edge[1], int):
                stack.append(edge[0])
            else:
                for sub in edge:
                    push(sub)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        for e in node.edge_list():
            push(e)
    with open(path, 'w') as f:
        for node in order:
            shapes = [list(a.shape) for a in (node.outs or ())]
            f.write('%s_grad  outputs=%s\n' % (node.op.name, shapes))
