"""Run a converted Program from eager mode, with backward.

The whole Program runs as ONE eager op (``run_program``): its inputs are the
call's tensors plus the parameters the Program captured (the very same
Parameter objects eager mode uses), its outputs the Program's outputs. Its
backward runs the Program's grad ops. Two compiled plans make this cheap:

* forward: inputs -> outputs + the intermediates the grad ops read;
* backward: inputs + those intermediates + output grads -> input/param grads.

Without a gradient to compute, an inference plan (outputs only) runs instead.
"""
from typing import NamedTuple

import numpy as np

from .. import dtype as _dt
from .. import flags
from ..dygraph import Tensor
from ..dygraph.tensor import wrap_array
from ..dygraph.state import grad_mode
from ..dygraph.tracer import apply_op
from ..ops import backends
from ..ops.registry import OpDef
from ..graph import backward as _backward
from ..graph.executor import compile_program
from ..graph.executor import BuildStrategy
from ..graph.mode import static_mode_guard
from ..graph.program import program_guard
from ..graph.sub_blocks import outer_reads


class TrainPlans(NamedTuple):
    """The forward + backward program of one training configuration and the
    two plans that run it."""
    program: object         # the forward program with its grad ops appended
    fwd: object             # inputs -> outputs + saved
    bwd: object             # inputs + saved + output grads -> fetch_grads
    saved: list             # names of the forward values the grad ops read
    gouts: list             # names of the output-gradient feeds, one per target
    targets: list           # names of the outputs gradients flow back from
    grad_of: dict           # input/parameter name -> its gradient's name
    fetch_grads: list       # the gradient names bwd returns, in order


class _SavedValues:
    """One call's forward values the backward reads (the run_program op's
    ``box`` attribute: a fresh one per call, shared by its forward and grad)."""
    __slots__ = ('values',)

    def __init__(self):
        self.values = ()


class PartialProgram:
    def __init__(self, program, input_vars, output_vars, build_strategy=None):
        self._forward = program
        self.input_names = [v.name for v in input_vars]
        self.output_vars = output_vars
        self.output_names = [v.name for v in output_vars]
        self.strategy = build_strategy or BuildStrategy()
        self.training = True     # eval: forward only, no gradients (set per call)
        # plans by FLAGS_check_nan_inf (a checked plan names the first NaN/Inf op)
        # and backend
        self._infer_plans = {}
        # (which inputs need grads (tuple of bools), NaN check) -> run_program op
        self._ops = {}
        self._trains = {}  # the same key -> training plans (forward + backward program)
        self._last_needs = None

    # -- the programs -------------------------------------------------------------
    @property
    def program(self):
        """The program this layer runs in its current mode (train or eval)."""
        return self.train_program if self.training else self.infer_program

    @property
    def infer_program(self):
        """The forward program (what runs in eval mode or without gradients)."""
        return self._forward

    @property
    def train_program(self):
        """The forward + backward program of the latest training call (inputs
        needing no gradient when there was none yet)."""
        needs = self._last_needs or (False,) * len(self.input_names)
        return self._train(needs).program

    @property
    def forward_program(self):
        return self._forward

    @property
    def backward_program(self):
        return self.train_program

    def _train(self, input_needs):
        # plans bind the kernels of the backend active when they were compiled
        key = (input_needs, flags.flag('FLAGS_check_nan_inf'), backends.backend())
        plans = self._trains.get(key)
        if plans is None:
            plans = self._trains[key] = self._build_train(input_needs, key[1])
        return plans

    def _compile(self, program, feeds, fetches, check, **kwargs):
        # a NaN/Inf check must see every op: no pass may fuse them away
        return compile_program(program, feeds, fetches, None if check else self.strategy,
                               check_nan_inf=check, **kwargs)

    @property
    def params(self):
        return list(self._forward.captured_tensors.values())

    # -- plans ------------------------------------------------------------------
    def infer_plan(self):
        check = flags.flag('FLAGS_check_nan_inf')
        key = (check, backends.backend())
        plan = self._infer_plans.get(key)
        if plan is None:
            plan = self._infer_plans[key] = self._compile(
                self._forward, tuple(self.input_names), tuple(self.output_names), check)
        return plan

    def _build_train(self, input_needs, check=False):
        """Plans for training; input gradients only for ``input_needs``
        (a first layer's input gradient is expensive and usually unused)."""
        prog = self._forward.clone()
        captured = self._forward.captured_tensors
        gb = prog.global_block()
        targets, gouts = [], []
        for name in dict.fromkeys(self.output_names):    # each output once
            v = gb.var(name)
            if _dt.is_floating(v.dtype) and not v.stop_gradient:
                targets.append(v)
                gouts.append(gb.create_var(name + '@GRAD', v.shape, v.dtype, stop_gradient=True))
        wanted = [gb.var(n) for n, need in zip(self.input_names, input_needs)
                  if need and _dt.is_floating(gb.var(n).dtype)]
        wanted += [gb.var(n) for n, t in captured.items()
                   if not t.stop_gradient and _dt.is_floating(t.data.dtype)]
        n_fwd = len(gb.ops)
        with program_guard(prog), static_mode_guard(True):
            grads = _backward.grad_vars(gb, targets, gouts, wanted) if targets else {}
        fwd_ops, bwd_ops = gb.ops[:n_fwd], gb.ops[n_fwd:]
        produced = set()
        for op in fwd_ops:
            produced.update(op.output_arg_names)
        reads = set()
        for op in bwd_ops:
            reads.update(outer_reads(prog, op))
        feeds = set(self.input_names)
        saved = sorted((reads & produced) - feeds - set(captured))
        grad_of = {}
        for v in wanted:
            g = grads.get(v.name)
            if g is not None:
                grad_of[v.name] = g.name
        fetch_grads = sorted(set(grad_of.values()))
        # each plan keeps the prints/asserts/parameter writes of its own part;
        # the saved values nobody else sees may pass between them in the
        # backend's layouts (passes/layout.py)
        crossing = frozenset(saved) - set(self.output_names)
        fwd = self._compile(prog, tuple(self.input_names), tuple(self.output_names + saved),
                            check, side_effects='forward', crossing=crossing)
        bwd = self._compile(prog, tuple(self.input_names + saved + [g.name for g in gouts]),
                            tuple(fetch_grads), check, side_effects='backward',
                            crossing=crossing)
        return TrainPlans(prog, fwd, bwd, saved, [g.name for g in gouts],
                          [t.name for t in targets], grad_of, fetch_grads)

    # -- running ------------------------------------------------------------------
    def __call__(self, inputs):
        """``inputs``: eager tensors or arrays, in ``input_names`` order."""
        need = self.training and grad_mode.enabled
        if need:
            params = self.params
            need = (any(not p.stop_gradient for p in params) or
                    any(isinstance(t, Tensor) and not t.stop_gradient for t in inputs))
        if not need:
            feeds = {n: _array(t) for n, t in zip(self.input_names, inputs)}
            outs = self.infer_plan()({}, feeds)
            # when training, an output keeps its variable's flag: a tensor made with
            # to_tensor(..., stop_gradient=False) inside is such a leaf, as eagerly
            keep = self.training and grad_mode.enabled
            return [wrap_array(np.asarray(o), v.stop_gradient or not keep)
                    for o, v in zip(outs, self.output_vars)]
        args = tuple(t if isinstance(t, Tensor) else Tensor(np.asarray(t)) for t in inputs)
        op = self._run_op(tuple(not t.stop_gradient for t in args))
        res = apply_op(op, args + tuple(params) + (_SavedValues(),))
        return list(res) if isinstance(res, (tuple, list)) else [res]

    def _run_op(self, input_needs):
        self._last_needs = input_needs
        key = (input_needs, flags.flag('FLAGS_check_nan_inf'), backends.backend())
        op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = self._make_run_op(input_needs)
        return op

    def _make_run_op(self, input_needs):
        n_in, n_p = len(self.input_names), len(self.params)
        names = self.input_names
        outs = self.output_names
        train = self._train(input_needs)

        def kernel(*args):
            arrays, box = args[:n_in], args[-1]
            feeds = dict(zip(names, arrays))
            values = train.fwd({}, feeds)
            box.values = values[len(outs):]
            res = tuple(np.asarray(v) for v in values[:len(outs)])
            return res if len(res) != 1 else res[0]

        def fast_grad(*args):
            gs = args[:len(outs)]
            ins = args[len(outs):len(outs) + n_in]
            box = args[-1]
            feeds = dict(zip(names, ins))
            feeds.update(zip(train.saved, box.values))
            gout_map = {}
            for name, g in zip(outs, gs):     # an output returned twice: grads add up
                gout_map[name] = g if name not in gout_map else gout_map[name] + g
            for t, gname in zip(train.targets, train.gouts):
                feeds[gname] = gout_map[t]
            values = dict(zip(train.fetch_grads, train.bwd({}, feeds)))
            result = []
            for name in names + list(self._forward.captured_tensors):
                g = train.grad_of.get(name)
                result.append(values[g] if g is not None else None)
            return tuple(result)

        def composite_grad(*args):
            raise NotImplementedError(
                "differentiating a @to_static program twice (create_graph=True through the "
                "converted call) is not supported; call paddle.grad(..., create_graph=True) "
                "inside the @to_static function instead, which builds the higher-order grad "
                "ops into its program")

        in_names = ['in_%d' % i for i in range(n_in)] + ['param_%d' % i for i in range(n_p)]
        out_names = ['out_%d' % i for i in range(len(outs))]
        nondiff = {out_names[i] for i, n in enumerate(outs) if n not in train.targets}
        return OpDef('run_program', kernel, _no_meta, in_names, out_names, {'box': None},
                     grad=composite_grad, fast_grad=fast_grad, nondiff_outputs=nondiff,
                     save_inputs=False, pattern='opaque', amp='never')


def _no_meta(*args):
    raise TypeError("run_program has no static shape inference")


def _array(t):
    return t.data if isinstance(t, Tensor) else np.asarray(t)


__all__ = ['PartialProgram']
