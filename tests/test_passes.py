"""The static executor's optimisation passes.

Every pass must keep results identical: random programs (chains/DAGs of
elementwise, matmul and reduce ops over feeds and constants, and their
gradient programs, 1-channel conv blocks) run with all passes off, each pass
alone and all on, on each kernel backend, and the fetched values must be
equal. Targeted tests check that each pass fires
where it should and holds back where it must, and that the user's Program is
never changed (passes work on the executor's copy).
"""
import json
import re

import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.backends import onednn
from framework.ops import backends, fused, registry
from framework.graph import serialize
from framework.graph.passes import PASSES, constant_fold, dce, hoist

SWITCHES = [s for s, _ in PASSES]
BACKENDS = ['numpy'] + (['onednn'] if onednn.available() else [])


on_backend = backends.using
F = paddle.nn.functional


pytestmark = pytest.mark.usefixtures('static_mode')   # (tests/conftest.py)


def strategy(*on):
    bs = static.BuildStrategy()
    for s in SWITCHES:
        setattr(bs, s, s in on)
    return bs


def run(prog, feed, fetch, *on, exe=None):
    exe = exe or static.Executor()
    return exe.run(static.CompiledProgram(prog, build_strategy=strategy(*on)),
                   feed=feed, fetch_list=fetch)


def plan_ops(prog, feed, fetch, *on):
    """The ops of the compiled program (after the passes), in code order."""
    exe = static.Executor()
    names = tuple(f if isinstance(f, str) else f.name for f in fetch)
    plan = exe._plan(prog, tuple(sorted(feed)), names, strategy(*on))
    return [op for _, op in sorted(plan.line_ops.items())], plan


def types(ops):
    return [op.type for op in ops]


# ---- random programs ------------------------------------------------------------------

UNARY = [paddle.tanh, F.sigmoid, paddle.sin, paddle.abs, F.relu, paddle.neg,
         lambda a: paddle.exp(paddle.tanh(a)), lambda a: paddle.square(paddle.tanh(a))]
BINARY = [paddle.add, paddle.subtract, paddle.multiply, paddle.maximum, paddle.minimum,
          lambda a, b: paddle.divide(a, 1.0 + paddle.square(b))]
# the same unary op on adjacent parts of a split (batch_split_siblings), on a last axis of 4
SPLITS = [lambda a: paddle.concat([paddle.tanh(p) for p in paddle.split(a, 2, axis=-1)], -1),
          lambda a: (lambda p: F.sigmoid(p[0]) * F.sigmoid(p[1]) + paddle.exp(p[2]).sum())(
              paddle.split(a, [1, 1, 2], axis=-1))]
IDENTITY = [paddle.assign, lambda a: paddle.scale(a, 1.0, 0.0),
            lambda a: paddle.cast(a, a.dtype), lambda a: a * 1.0, lambda a: a + 0.0,
            lambda a: paddle.reshape(a, [d if d >= 0 else -1 for d in a.shape])]


class RandomProgram:
    """A random DAG over feeds x, y (batch x 4), v (4) and constants."""

    def __init__(self, seed, grad=False, dtype='float64', n_ops=24):
        self.rng = rng = np.random.default_rng(seed)
        self.dtype = dtype
        self.main = static.Program()
        with static.program_guard(self.main, static.Program()):
            x = static.data('x', [None, 4], dtype)
            y = static.data('y', [None, 4], dtype)
            v = static.data('v', [4], dtype)
            for d in (x, y, v):
                d.stop_gradient = not grad
            self.inputs = [x, y, v]
            w = paddle.to_tensor(rng.uniform(-0.6, 0.6, (4, 4)).astype(dtype))
            c = paddle.full([4], 0.5, dtype) * 3.0 + paddle.to_tensor(
                rng.uniform(-1, 1, (1, 4)).astype(dtype))      # a constant subexpression
            self.pool = [x, y, v, c]
            self.history = []
            for k in range(n_ops):
                if k == n_ops // 2 and seed % 2 == 0:
                    self.pool.append(self.loop(w, x, n_ops // 3))
                self.pool.append(self.step(w))
            last = self.pool[-1]
            extra = [self.pool[int(i)] for i in rng.integers(4, len(self.pool) - 1, 2)]
            if grad:
                loss = paddle.mean(last * last) + paddle.sum(paddle.tanh(extra[0]))
                grads = static.gradients([loss], self.inputs)
                self.fetch = [loss] + [g for g in grads if g is not None]
            else:
                self.fetch = [last] + extra
        n = int(rng.integers(1, 4))
        self.feed = {'x': rng.standard_normal((n, 4)).astype(dtype),
                     'y': rng.standard_normal((n, 4)).astype(dtype),
                     'v': rng.standard_normal(4).astype(dtype)}

    def loop(self, w, init, n_body):
        """A while loop whose body is a random DAG over outer values and the
        loop value (so it has both invariant and loop-carried ops)."""
        saved = (list(self.pool), list(self.history))
        n = paddle.full([1], 3, 'int64')

        def body(i, s):
            self.pool.append(s)
            for _ in range(n_body):
                self.pool.append(self.step(w))
            return i + 1, paddle.tanh(self.pool[-1] + s * 0.5)
        out = static.nn.while_loop(lambda i, s: i < n, body,
                                   [paddle.zeros([1], 'int64'), init])[1]
        self.pool, self.history = saved
        return out

    def pick(self, need_last4=False):
        pool = [p for p in self.pool if not need_last4 or (p.ndim >= 1 and p.shape[-1] == 4)]
        return pool[int(self.rng.integers(len(pool)))]

    def conv_block(self):
        """A function of a [batch, 4] value: as a 1-channel 2x2 image, a 3x3
        conv, then maybe an inference batch norm, a residual add and a relu
        (what fuse_conv_bn_add_act rewrites), flattened back."""
        rng, dt = self.rng, self.dtype
        w = paddle.to_tensor(rng.uniform(-0.6, 0.6, (1, 1, 3, 3)).astype(dt))
        scale, shift, mean = (paddle.to_tensor(rng.uniform(-1, 1, 1).astype(dt))
                              for _ in range(3))
        var = paddle.to_tensor(rng.uniform(0.5, 2.0, 1).astype(dt))
        bn, residual, act = rng.random(3) < (.6, .5, .7)

        def block(a):
            img = paddle.reshape(a, [-1, 1, 2, 2])
            out = F.conv2d(img, w, padding=1)
            if bn:
                out = F.batch_norm(out, mean, var, scale, shift, training=False)
            if residual:
                out = out + img
            if act:
                out = F.relu(out)
            return paddle.reshape(out, [-1, 4])
        return block

    def step(self, w):
        rng = self.rng
        kind = rng.choice(['unary', 'binary', 'binary', 'matmul', 'reduce', 'identity',
                           'repeat', 'split', 'conv'],
                          p=[.18, .16, .16, .11, .1, .11, .06, .06, .06])
        if kind == 'repeat' and self.history:
            fn, args = self.history[int(rng.integers(len(self.history)))]
            return fn(*args)
        if kind == 'unary':
            fn, args = UNARY[int(rng.integers(len(UNARY)))], (self.pick(),)
        elif kind == 'binary' or kind == 'repeat':
            fn, args = BINARY[int(rng.integers(len(BINARY)))], (self.pick(), self.pick())
        elif kind == 'matmul':
            fn, args = (lambda a: paddle.tanh(paddle.matmul(a, w))), (self.pick(True),)
        elif kind == 'reduce':
            a = self.pick()
            if a.ndim == 2:
                fn = (lambda t: paddle.mean(t, axis=-1, keepdim=True)) if rng.random() < .5 \
                    else (lambda t: paddle.sum(t, axis=0))
            else:
                fn = lambda t: paddle.sum(t, keepdim=True)  # noqa: E731
            args = (a,)
        elif kind == 'split':
            fn, args = SPLITS[int(rng.integers(len(SPLITS)))], (self.pick(True),)
        elif kind == 'conv':
            fn, args = self.conv_block(), (self.pick(True),)
        else:
            fn, args = IDENTITY[int(rng.integers(len(IDENTITY)))], (self.pick(),)
        self.history.append((fn, args))
        return fn(*args)


def _check_all_configs(rp):
    for backend in BACKENDS:
        with on_backend(backend):
            exe = static.Executor()
            base = run(rp.main, rp.feed, rp.fetch, exe=exe)
            configs = [(s,) for s in SWITCHES] + [tuple(SWITCHES)]
            for on in configs:
                got = run(rp.main, rp.feed, rp.fetch, *on, exe=exe)
                for k, (a, b) in enumerate(zip(base, got)):
                    assert a.dtype == b.dtype and a.shape == b.shape, (on, k)
                    np.testing.assert_array_equal(
                        b, a, err_msg='passes %s on %s, fetch %d' % (on, backend, k))


@pytest.mark.parametrize('seed', range(12))
def test_random_programs_same_results_with_each_pass(seed):
    _check_all_configs(RandomProgram(seed, dtype='float64' if seed % 3 else 'float32'))


@pytest.mark.parametrize('seed', range(6))
def test_random_gradient_programs_same_results_with_each_pass(seed):
    _check_all_configs(RandomProgram(100 + seed, grad=True, n_ops=14))


def test_each_pass_fires_on_random_programs():
    """Across the random programs, every pass changes something."""
    fired = dict.fromkeys(SWITCHES, 0)
    for seed in range(8):
        rp = RandomProgram(seed, grad=seed % 2 == 1, n_ops=16)
        off, _ = plan_ops(rp.main, rp.feed, rp.fetch)
        for s in SWITCHES:
            on, plan = plan_ops(rp.main, rp.feed, rp.fetch, s)
            if s == 'enable_inplace':
                fired[s] += sum('op_inplace' in op.attrs for op in on)
            elif s == 'memory_optimize':
                fired[s] += plan.source.count('del ')
            elif s == 'constant_folding':
                fired[s] += sum(a != b for a, b in zip(types(off), types(on)))
            elif s == 'enable_dce':    # the initial prune leaves nothing: run after folding
                folded, _ = plan_ops(rp.main, rp.feed, rp.fetch, 'constant_folding')
                on, _ = plan_ops(rp.main, rp.feed, rp.fetch, 'constant_folding', s)
                fired[s] += len(folded) - len(on)
            elif s == 'batch_split_siblings':        # one more split per batched run
                fired[s] += count(on, 'split') - count(off, 'split')
            elif s == 'plan_layouts':   # marks ops; only a backend with layout kernels
                with on_backend('onednn' if onednn.available() else 'numpy'):
                    on, _ = plan_ops(rp.main, rp.feed, rp.fetch, s)
                fired[s] += sum('op_layout' in op.attrs for op in on) if onednn.available() else 1
            elif s == 'loop_invariant_hoisting':     # moves ops: count the global block
                work = rp.main.clone()
                n0 = len(work.global_block().ops)
                hoist.loop_invariant_hoisting(work, list(rp.feed), [f.name for f in rp.fetch])
                fired[s] += len(work.global_block().ops) - n0
            else:
                fired[s] += len(off) - len(on)
    assert all(fired.values()), fired


def test_passes_never_change_the_users_program():
    rp = RandomProgram(3, grad=True, n_ops=14)
    before = json.dumps(serialize.program_to_dict(rp.main), sort_keys=True)
    version = rp.main._version
    run(rp.main, rp.feed, rp.fetch, *SWITCHES)
    assert rp.main._version == version
    assert json.dumps(serialize.program_to_dict(rp.main), sort_keys=True) == before


# ---- helpers for targeted tests ---------------------------------------------------------

def build(fn, *feeds):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        vs = [static.data(n, s, d) for n, s, d in feeds]
        out = fn(*vs)
    return main, out


def same_results(main, feed, fetch, *on):
    base = run(main, feed, fetch)
    got = run(main, feed, fetch, *on)
    for a, b in zip(base, got):
        np.testing.assert_array_equal(a, b)
    return got


def count(ops, t):
    return sum(op.type == t for op in ops)


X34 = ('x', [3, 4], 'float32')
XB4 = ('x', [None, 4], 'float32')
FEED = {'x': np.random.default_rng(0).standard_normal((3, 4)).astype('float32')}


# ---- dead-code elimination ----------------------------------------------------------------

def test_dce_removes_dead_chains_but_keeps_side_effects():
    def fn(x):
        dead = paddle.exp(paddle.tanh(x))               # a dead chain
        paddle.sin(dead)
        p = static.default_main_program().global_block().create_var(
            name='acc', shape=[3, 4], dtype='float32', persistable=True)
        paddle.assign(x * 2.0, output=p)                # a persistable write
        registry.lookup('print')(x, 'msg', 20, True, '')  # print: a side effect
        noise = paddle.rand([3, 4])                      # a used random op
        return x + noise
    main, out = build(fn, X34)
    work = main.clone()
    n0 = len(work.global_block().ops)
    dce.dead_code_elimination(work, ['x'], [out.name])
    kept = types(work.global_block().ops)
    assert 'exp' not in kept and 'sin' not in kept and 'tanh' not in kept
    assert 'print' in kept and 'assign' in kept and 'uniform_random' in kept
    assert len(kept) == n0 - 3


def test_ops_with_effects_run_though_nothing_reads_them():
    """Effects other than 'random' keep an op (OpDef.kept): a collective every
    rank must run, a callback, a print; an unused random draw goes."""
    seen = []

    def fn(x):
        registry.lookup('c_allreduce_sum')(x)          # 'collective'
        static.nn.py_func(lambda u: seen.append(1), x, None)    # 'callback'
        registry.lookup('print')(x, -1, 'msg')                   # 'io'
        paddle.rand([3, 4])                                      # 'random', unread
        return x * 2.0
    main, out = build(fn, X34)
    for on in ((), ('enable_dce',)):
        kept = types(plan_ops(main, FEED, [out], *on)[0])
        assert {'c_allreduce_sum', 'py_func', 'print'} <= set(kept), kept
        assert 'uniform_random' not in kept


def test_inplace_writes_into_the_fresh_results_of_each_pattern():
    """Elementwise, broadcast and reduce kernels return new arrays, so the op
    after them may compute into their buffer."""
    def fn(x):
        a = paddle.exp(paddle.tanh(x))                        # elementwise result
        b = paddle.sin(a + x)                                 # broadcast result
        c = paddle.exp(paddle.sum(b, axis=1, keepdim=True))   # reduce result
        return c
    main, out = build(fn, X34)
    on, _ = plan_ops(main, FEED, [out], 'enable_inplace')
    reusing = [op.type for op in on if 'op_inplace' in op.attrs]
    assert reusing.count('exp') == 2 and 'sin' in reusing, reusing
    same_results(main, FEED, [out], 'enable_inplace')


def test_dce_leaves_loop_bodies_consistent():
    def fn(x):
        i = paddle.zeros([1], 'int64')
        n = paddle.full([1], 3, 'int64')

        def body(i, s):
            paddle.cos(s)                       # dead inside the body
            return i + 1, paddle.tanh(s) * 1.5
        return static.nn.while_loop(lambda i, s: i < n, body, [i, x])[1]
    main, out = build(fn, X34)
    work = main.clone()
    body = work.block(max(op.attrs['body_block'] for op in work.global_block().ops
                          if op.type == 'while'))
    assert 'cos' in types(body.ops)
    dce.dead_code_elimination(work, ['x'], [out.name])
    assert 'cos' not in types(body.ops) and 'tanh' in types(body.ops)
    same_results(main, FEED, [out], 'enable_dce')


def test_dce_drops_captures_nothing_reads_and_then_their_producers():
    def fn(x, w):
        c = paddle.exp(w)                       # read only by a dead op of the body

        def body(i, s):
            paddle.cos(s * c)
            return i + 1, paddle.tanh(s)
        return static.nn.while_loop(lambda i, s: i < 3, body, [paddle.zeros([1], 'int64'), x])[1]
    main, out = build(fn, X34, ('w', [4], 'float32'))
    work = main.clone()
    loop, = _while_ops(work)
    exp_out = next(op for op in work.global_block().ops if op.type == 'exp').output_arg_names[0]
    assert exp_out in loop.input('Input')
    dce.dead_code_elimination(work, ['x', 'w'], [out.name])
    assert exp_out not in loop.input('Input')
    assert 'exp' not in types(work.global_block().ops)
    assert 'cos' not in types(work.block(loop.attrs['body_block']).ops)
    same_results(main, dict(FEED, w=np.ones(4, 'float32')), [out], 'enable_dce')


# ---- constant folding ------------------------------------------------------------------------

def test_constant_folding_evaluates_constant_subexpressions():
    def fn(x):
        c = paddle.full([4], 2.0) * 3.0 + paddle.to_tensor(np.arange(4, dtype='float32'))
        k = paddle.full([4], 7, 'int64') // 2            # integer dtype kept
        return x * c, paddle.cast(k, 'float32') + x
    main, (a, b) = build(fn, X34)
    ops, _ = plan_ops(main, FEED, [a, b], 'constant_folding')
    assert count(ops, 'floor_divide') == 0 and count(ops, 'add') == 1
    assert count(ops, 'multiply') == 1           # only x * c is left
    got = same_results(main, FEED, [a, b], 'constant_folding')
    np.testing.assert_allclose(got[0], FEED['x'] * (6.0 + np.arange(4)))


def test_constant_folding_keeps_dtype_and_shape_exactly():
    def fn(x):
        c = paddle.to_tensor(np.array([[1.5, -2.25, 3.0]], 'float32'))
        d = paddle.exp(c)                        # non-uniform -> assign_value
        u = paddle.full([2, 3], -0.0) * 1.0      # uniform (and -0.0 stays -0.0) -> full
        e = paddle.full([0, 3], 1.0) * 2.0                    # empty: shape kept
        return d, u, paddle.cast(paddle.full([2], 1.0), 'float16'), e
    main, outs = build(fn, X34)
    work = main.clone()
    constant_fold.constant_folding(work, ['x'], [o.name for o in outs])
    gb = work.global_block()
    for o in outs:
        op = [op for op in gb.ops if o.name in op.output_arg_names][0]
        assert op.type in ('assign_value', 'full')
    got = same_results(main, FEED, outs, 'constant_folding')
    assert got[0].dtype == np.float32 and got[0].shape == (1, 3)
    assert np.all(np.signbit(got[1])) and got[2].dtype == np.float16
    assert got[3].shape == (0, 3) and got[3].dtype == np.float32


def test_constant_folding_skips_random_huge_and_failing_ops():
    def fn(x):
        r = paddle.rand([3, 4]) * 2.0                          # random: never folded
        big = paddle.full([1100, 1000], 1.0) + paddle.to_tensor(np.arange(1000.0, dtype='float32'))
        inv = paddle.full([2], 0.0) / paddle.full([2], 0.0)   # 0/0 is left for the run
        return r, paddle.sum(big), inv
    main, outs = build(fn, X34)
    work = main.clone()
    constant_fold.constant_folding(work, ['x'], [o.name for o in outs])
    t = types(work.global_block().ops)
    assert 'uniform_random' in t and 'multiply' in t
    assert t.count('add') == 1 and 'divide' in t


def test_constant_folding_inside_control_flow_blocks():
    def fn(x):
        p = paddle.full([1], 1, 'bool')
        return static.nn.cond(p, lambda: x + paddle.full([4], 2.0) * 3.0, lambda: x - 1.0)
    main, out = build(fn, X34)
    work = main.clone()
    constant_fold.constant_folding(work, ['x'], [out.name])
    cond_op = [op for op in work.global_block().ops if op.type == 'cond'][0]
    assert 'multiply' not in types(work.block(cond_op.attrs['true_block']).ops)
    assert cond_op.type == 'cond'
    same_results(main, FEED, [out], 'constant_folding')


# ---- common-subexpression elimination --------------------------------------------------

def test_cse_merges_identical_pure_ops():
    def fn(x):
        a = paddle.tanh(x) * 2.0
        b = paddle.tanh(x) * 2.0              # same ops, same (merged) constants
        return a + b, paddle.sum(x, axis=0) + paddle.sum(x, axis=1, keepdim=True).sum()
    main, (r, s) = build(fn, X34)
    off, _ = plan_ops(main, FEED, [r, s])
    on, _ = plan_ops(main, FEED, [r, s], 'enable_cse')
    assert count(off, 'tanh') == 2 and count(on, 'tanh') == 1
    assert count(on, 'multiply') == 1 and count(on, 'sum') == count(off, 'sum')
    same_results(main, FEED, [r, s], 'enable_cse')


def test_cse_keeps_random_ops_and_fetched_duplicates():
    def fn(x):
        return paddle.rand([3, 4]), paddle.rand([3, 4]), paddle.exp(x), paddle.exp(x)
    main, outs = build(fn, X34)
    on, _ = plan_ops(main, FEED, list(outs), 'enable_cse')
    assert count(on, 'uniform_random') == 2
    assert count(on, 'exp') == 2              # both fetched: both names must exist
    r1, r2, e1, e2 = run(main, FEED, list(outs), 'enable_cse')
    assert not np.array_equal(r1, r2) and np.array_equal(e1, e2)


# ---- identity removal ---------------------------------------------------------------------------

def test_identity_ops_are_removed():
    def fn(x):
        a = paddle.assign(paddle.tanh(x))
        b = paddle.scale(a, 1.0, 0.0)
        c = paddle.cast(b, 'float32')
        d = paddle.reshape(c, [3, 4])
        e = paddle.zeros([1]) + paddle.ones([4]) * (d * paddle.ones([4]) + paddle.zeros([1]))
        f = registry.lookup('reduce_as')(e, x)
        return paddle.sin(registry.lookup('expand_as')(f, x) - 0.0)
    main, out = build(fn, X34)
    on, _ = plan_ops(main, FEED, [out], 'remove_identity')
    assert [t for t in types(on) if t not in ('full', 'assign_value')] == ['tanh', 'sin']
    same_results(main, FEED, [out], 'remove_identity')


def test_identity_ops_that_change_something_stay():
    def fn(x, v):
        a = paddle.assign(x)                       # fetched: must stay
        b = x * paddle.full([4], 2.0)              # not a neutral constant
        c = v + paddle.zeros([3, 4])               # broadcast grows v: not identity
        d = paddle.cast(x, 'float64')              # a real cast
        e = registry.lookup('reduce_as')(x, v)     # a real reduction
        return a, b, c, d, e
    main, outs = build(fn, X34, ('v', [4], 'float32'))
    feed = dict(FEED, v=np.arange(4, dtype='float32'))
    off, _ = plan_ops(main, feed, list(outs))
    on, _ = plan_ops(main, feed, list(outs), 'remove_identity')
    assert types(on) == types(off)
    same_results(main, feed, list(outs), 'remove_identity')


def test_grad_programs_lose_reduce_as_and_assign():
    def fn(x, w):
        x.stop_gradient = False
        w.stop_gradient = False
        loss = paddle.sum(paddle.tanh(paddle.matmul(x, w) * 2.0 + 1.0))
        return static.gradients([loss], [x, w])
    main, grads = build(fn, XB4, ("w", [4, 5], "float32"))
    feed = dict(FEED, w=np.ones((4, 5), 'float32') * 0.1)
    off, _ = plan_ops(main, feed, grads)
    on, _ = plan_ops(main, feed, grads, 'remove_identity')
    assert count(off, 'reduce_as') > count(on, 'reduce_as')
    same_results(main, feed, grads, 'remove_identity')


def _shapes(main, feeds=('x',)):
    from framework.graph.passes.analysis import ShapeClasses, Usage
    return ShapeClasses(main, Usage(main, feeds))


def same_dim(a, b):
    from framework.ops.meta import same_dim
    return same_dim(a, b)


def test_identity_ops_of_unknown_batch_size_are_removed():
    """Shapes are compared symbolically: a reshape back to [-1, 4] of a
    [-1, 4] value, or a reduce_as to a target of the value's own unknown shape,
    passes its input through."""
    def fn(x):
        a = paddle.reshape(paddle.tanh(x), [-1, 4])
        b = registry.lookup('reduce_as')(a, x)
        c = paddle.reshape(paddle.reshape(b, [-1]), [-1, 4])   # [-1] then back: unknown size
        return paddle.sin(c)
    main, out = build(fn, XB4)
    on, _ = plan_ops(main, FEED, [out], 'remove_identity')
    assert types(on).count('reshape') == 2 and 'reduce_as' not in types(on)
    same_results(main, FEED, [out], 'remove_identity')


def test_shape_facts_name_an_unknown_dim_through_the_ops_own_infer_meta():
    def fn(x):
        y = paddle.tanh(x) * 2.0                       # [?b, 4]
        z = paddle.transpose(y, [1, 0])                # [4, ?b]
        w = paddle.sum(y, axis=1, keepdim=True)        # [?b, 1]
        return y, z, w, paddle.concat([y, y], axis=1)  # [?b, 8]
    main, (y, z, w, c) = build(fn, XB4)
    shapes = _shapes(main)
    b = shapes.dims(y.name)[0]
    assert shapes.dims(z.name) == (4, b) and shapes.dims(w.name) == (b, 1)
    assert same_dim(shapes.dims(c.name)[0], b) and shapes.dims(c.name)[1] == 8
    assert shapes.covers(y.name, w.name) and not shapes.same(y.name, w.name)


def test_shape_facts_are_kept_per_program():
    """The table ShapeClasses shares between the passes of a program is the
    program's own: the same names in another program have their own shapes."""
    def one(x):
        return paddle.tanh(x)
    first, out1 = build(one, XB4)
    second, out2 = build(one, ('x', [2, 4], 'float32'))
    assert out1.name == out2.name
    assert _shapes(first).dims(out1.name)[0] < 0
    assert _shapes(second).dims(out2.name) == (2, 4)
    # a name added to the program later is worked out from its definition
    with static.program_guard(first, static.Program()):
        later = paddle.exp(first.global_block().var(out1.name))
    assert _shapes(first).same(later.name, out1.name)
    # what is fed is part of the key: a fed value has no stable definition
    assert _shapes(first, ('x', out1.name)).dims(out1.name) is None
    assert _shapes(first).dims(out1.name) is not None


# ---- loop-invariant hoisting ------------------------------------------------------------------

def _loop(x, w, nested=False):
    i = paddle.zeros([1], 'int64')
    n = paddle.full([1], 4, 'int64')

    def body(i, s):
        inv = paddle.tanh(w * 2.0)                   # invariant: w and a constant
        if nested:
            j = paddle.zeros([1], 'int64')

            def inner(j, t):
                inner_inv = paddle.exp(w) + 1.0      # invariant of both loops
                dep = s * 0.5                         # invariant of the inner loop only
                return j + 1, t * inner_inv + dep
            s = static.nn.while_loop(lambda j, t: j < 2, inner, [j, s])[1]
        return i + 1, s * inv + 0.25                  # loop-carried
    return static.nn.while_loop(lambda i, s: i < n, body, [i, x])[1]


def _while_ops(program):
    return [op for b in program.blocks for op in b.ops if op.type == 'while']


def test_hoisting_moves_invariants_out_of_while_loops():
    main, out = build(lambda x, w: _loop(x, w), X34, ('w', [4], 'float32'))
    work = main.clone()
    hoist.loop_invariant_hoisting(work, ['x', 'w'], [out.name])
    gb = work.global_block()
    loop = _while_ops(work)[0]
    body = work.block(loop.attrs['body_block'])
    t = types(gb.ops)
    assert 'tanh' in t and t.index('tanh') < t.index('while')
    assert 'tanh' not in types(body.ops) and 'multiply' in types(body.ops)
    tanh_out = gb.ops[t.index('tanh')].output_arg_names[0]
    assert tanh_out in loop.input('Input') and tanh_out in gb.vars
    feed = dict(FEED, w=np.linspace(-1, 1, 4).astype('float32'))
    got = same_results(main, feed, [out], 'loop_invariant_hoisting')
    ref = FEED['x']
    for _ in range(4):
        ref = ref * np.tanh(feed['w'] * 2.0) + 0.25
    np.testing.assert_allclose(got[0], ref, rtol=1e-6)


def test_hoisting_from_nested_loops():
    main, out = build(lambda x, w: _loop(x, w, nested=True), X34, ('w', [4], 'float32'))
    work = main.clone()
    hoist.loop_invariant_hoisting(work, ['x', 'w'], [out.name])
    outer = [op for op in work.global_block().ops if op.type == 'while'][0]
    inner = [op for op in _while_ops(work) if op is not outer][0]
    assert 'exp' in types(work.global_block().ops)            # out of both loops
    inner_body = work.block(inner.attrs['body_block'])
    assert 'exp' not in types(inner_body.ops)
    outer_body = work.block(outer.attrs['body_block'])
    assert 'multiply' in types(outer_body.ops)                 # s * 0.5 left the inner loop
    feed = dict(FEED, w=np.linspace(-1, 1, 4).astype('float32'))
    same_results(main, feed, [out], 'loop_invariant_hoisting')


def test_hoisting_keeps_loop_carried_and_random_ops():
    def fn(x):
        i = paddle.zeros([1], 'int64')

        def body(i, s):
            return i + 1, s * 0.5 + paddle.rand([3, 4]) * 0.0 + paddle.tanh(s)
        return static.nn.while_loop(lambda i, s: i < 3, body, [i, x])[1]
    main, out = build(fn, X34)
    work = main.clone()
    hoist.loop_invariant_hoisting(work, ['x'], [out.name])
    body = work.block(_while_ops(work)[0].attrs['body_block'])
    assert {'uniform_random', 'tanh', 'multiply'} <= set(types(body.ops))
    assert 'uniform_random' not in types(work.global_block().ops)


def test_hoisting_with_gradients_through_the_loop():
    def fn(x, w):
        x.stop_gradient = False
        w.stop_gradient = False
        out = _loop(x, w)
        return [paddle.sum(out)] + static.gradients([paddle.sum(out)], [x, w])
    main, outs = build(fn, X34, ('w', [4], 'float32'))
    feed = dict(FEED, w=np.linspace(-1, 1, 4).astype('float32'))
    same_results(main, feed, outs, 'loop_invariant_hoisting')
    same_results(main, feed, outs, *SWITCHES)


def test_hoisting_moves_invariants_out_of_the_gradient_loop():
    """while_grad loops like while: the recompute of the invariant tanh(w * 2)
    and the grad ops that read only it (tanh's 1 - out * out) leave it."""
    def fn(x, w):
        x.stop_gradient = w.stop_gradient = False
        out = paddle.sum(_loop(x, w))
        return [out] + static.gradients([out], [x, w])
    main, outs = build(fn, X34, ('w', [4], 'float32'))
    work = main.clone()
    wg, = [op for b in work.blocks for op in b.ops if op.type == 'while_grad']
    rec, grad = (work.block(wg.attrs[a]) for a in ('recompute_block', 'grad_block'))
    assert 'tanh' in types(rec.ops) and 'subtract' in types(grad.ops)
    hoist.loop_invariant_hoisting(work, ['x', 'w'], [o.name for o in outs])
    assert not rec.ops and 'subtract' not in types(grad.ops)
    assert {'multiply', 'reduce_as'} <= set(types(grad.ops))        # the loop-carried grads
    t = types(work.global_block().ops)
    moved = t[t.index('while') + 1:t.index('while_grad')]
    assert 'tanh' in moved and 'subtract' in moved
    feed = dict(FEED, w=np.linspace(-1, 1, 4).astype('float32'))
    same_results(main, feed, outs, 'loop_invariant_hoisting')
    same_results(main, feed, outs, *SWITCHES)


# ---- fusion ------------------------------------------------------------------------------------------

def test_elementwise_chains_fuse_into_one_op():
    def fn(x, w, b):
        return paddle.tanh(x * w + b), F.sigmoid(x) * paddle.tanh(w)
    main, outs = build(fn, XB4, ('w', [4], 'float32'), ('b', [1, 4], 'float32'))
    feed = dict(FEED, w=np.linspace(-1, 1, 4).astype('float32'),
                b=np.full((1, 4), 0.5, 'float32'))
    on, _ = plan_ops(main, feed, list(outs), 'fuse_elewise_add_act_ops')
    assert types(on) == ['fused_elementwise', 'fused_elementwise']
    expr = on[0].attrs['expr']
    assert [e[0] for e in expr] == ['multiply', 'add', 'tanh']
    same_results(main, feed, list(outs), 'fuse_elewise_add_act_ops')


def test_fusion_keeps_fetched_and_shared_intermediates():
    def fn(x):
        a = x * 2.0
        b = paddle.exp(a)                 # fetched: must stay observable
        c = paddle.tanh(b)
        s = paddle.sin(c)                 # read twice: group boundary
        return b, s * s + paddle.cos(s)
    main, outs = build(fn, X34)
    on, _ = plan_ops(main, FEED, list(outs), 'fuse_elewise_add_act_ops')
    producers = {o for op in on for o in op.output_arg_names}
    assert outs[0].name in producers
    same_results(main, FEED, list(outs), 'fuse_elewise_add_act_ops')


def test_matmul_bias_activation_fusion():
    def fn(x, w, b):
        y = F.relu(paddle.matmul(x, w) + b)
        z = paddle.matmul(y, w, transpose_y=True)        # read twice: plain matmul
        return y, paddle.tanh(paddle.matmul(z, w)), z * 2.0 + z
    main, outs = build(fn, XB4, ('w', [4, 4], 'float32'), ('b', [4], 'float32'))
    feed = dict(FEED, w=np.eye(4, dtype='float32') * 0.5, b=np.arange(4, dtype='float32') - 1)
    on, _ = plan_ops(main, feed, list(outs), 'fuse_matmul_add_act')
    fm = [op for op in on if op.type == 'fused_matmul_bias_act']
    assert len(fm) == 2 and count(on, 'relu') == 0 and count(on, 'matmul') == 1
    assert {op.attrs['act'] for op in fm} == {'relu', 'tanh'}
    same_results(main, feed, list(outs), 'fuse_matmul_add_act')


# ---- batching sibling ops over a split ----------------------------------------------------------

def test_batch_split_siblings_runs_one_op_over_adjacent_parts():
    def fn(x):
        i, f, g, o = paddle.split(x, 4, axis=1)
        return F.sigmoid(i) * F.sigmoid(f) + paddle.tanh(g) * F.sigmoid(o)
    main, out = build(fn, ('x', [None, 8], 'float32'))
    feed = {'x': np.random.default_rng(1).standard_normal((3, 8)).astype('float32')}
    on, plan = plan_ops(main, feed, [out], 'batch_split_siblings')
    assert types(on) == ['split', 'sigmoid', 'split', 'multiply', 'tanh', 'sigmoid',
                         'multiply', 'add']
    first, _, second = on[:3]
    assert first.attrs['sections'] == [4, 2, 2] and second.attrs['sections'] == [2, 2]
    got = same_results(main, feed, [out], 'batch_split_siblings')
    x = feed['x'].astype('float64')
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    want = sig(x[:, :2]) * sig(x[:, 2:4]) + np.tanh(x[:, 4:6]) * sig(x[:, 6:])
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    same_results(main, feed, [out], *SWITCHES)


def test_batch_split_siblings_holds_back():
    def fn(x, y):
        a, b = paddle.split(x, 2, axis=0)            # unknown axis size
        c, d, e = paddle.split(y, 3, axis=1)
        ta, tb = paddle.tanh(a), paddle.tanh(b)
        sc = paddle.scale(c, 2.0)                     # other attributes than sd's
        sd = paddle.scale(d, 3.0)
        te = paddle.exp(e)
        m, n = paddle.split(y, 2, axis=1)
        return ta + tb, sc * sd + te, d, paddle.exp(m) + paddle.exp(n) * 2.0, n
    main, outs = build(fn, ('x', [-1, 3], 'float64'), ('y', [2, 6], 'float64'))
    feed = {'x': np.ones((4, 3)), 'y': np.arange(12.0).reshape(2, 6)}
    on, _ = plan_ops(main, feed, list(outs), 'batch_split_siblings')
    # d and n are fetched (read twice), c and d scale differently, a and b have no known size
    assert count(on, 'split') == 3
    same_results(main, feed, list(outs), 'batch_split_siblings')


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_batch_split_siblings_keeps_gradients(dtype):
    def fn(x, w):
        x.stop_gradient = w.stop_gradient = False
        z = paddle.matmul(x, w)
        i, f, g = paddle.split(z, [2, 2, 3], axis=-1)
        loss = paddle.mean(F.sigmoid(i) * F.sigmoid(f)) + paddle.sum(paddle.tanh(g))
        return [loss] + static.gradients([loss], [x, w])
    main, outs = build(fn, ('x', [1, 4], dtype), ('w', [4, 7], dtype))
    rng = np.random.default_rng(2)
    feed = {'x': rng.standard_normal((1, 4)).astype(dtype),
            'w': rng.standard_normal((4, 7)).astype(dtype)}
    on, _ = plan_ops(main, feed, outs, 'batch_split_siblings')
    off, _ = plan_ops(main, feed, outs)
    assert count(on, 'split') > count(off, 'split')
    same_results(main, feed, outs, 'batch_split_siblings')
    same_results(main, feed, outs, *SWITCHES)


# ---- in-place buffers and freeing --------------------------------------------------------------

def test_inplace_reuses_dying_elementwise_inputs_only():
    def fn(x):
        a = paddle.tanh(x)               # x is a feed: never overwritten
        b = paddle.exp(a)                # a dies here: reused
        v = paddle.reshape(b, [4, 3])    # a view of b
        c = paddle.sin(b)                # b dies here but v aliases it: not reused
        d = paddle.cos(c) + paddle.full([2, 3, 4], 1.0)   # broadcast grows: not reused
        return v, d
    main, outs = build(fn, X34)
    on, _ = plan_ops(main, FEED, list(outs), 'enable_inplace')
    marked = {op.type for op in on if 'op_inplace' in op.attrs}
    assert marked == {'exp', 'cos'}
    same_results(main, FEED, list(outs), 'enable_inplace')


def test_memory_optimize_frees_dead_values():
    main, out = build(lambda x: paddle.sin(paddle.exp(paddle.tanh(x)) * 2.0), X34)
    _, plan = plan_ops(main, FEED, [out], 'memory_optimize')
    assert plan.source.count('del ') >= 2
    same_results(main, FEED, [out], 'memory_optimize')


# ---- the fused ops and the tables the passes rely on ------------------------------------------

def _unfused(xs, expr):
    """The expression evaluated op by op with the registered kernels."""
    temps = []
    for t, refs, attrs in expr:
        args = [xs[r] if r >= 0 else temps[-r - 1] for r in refs]
        temps.append(registry.lookup(t).kernel(*args, *attrs))
    return temps[-1]


@pytest.mark.parametrize('xs,expr', [
    # float32 temporaries meeting float64 inputs: the result is float64
    ([np.ones((2, 3), 'float32'), np.full((2, 3), 0.5)],
     (('tanh', (0,), ()), ('add', (-1, 1), ()), ('exp', (-2,), ()))),
    # integer inputs: tanh makes float32, then int * float32
    ([np.arange(6).reshape(2, 3), np.arange(3)],
     (('multiply', (0, 1), ()), ('tanh', (-1,), ()), ('multiply', (-2, 1), ()),
      ('relu', (-3,), ()))),
    # a temporary broadcast up by a bigger operand, and 0-d temporaries
    ([np.float64(2.0), np.arange(4.0)],
     (('exp', (0,), ()), ('neg', (-1,), ()), ('subtract', (1, -2), ()), ('square', (-3,), ()))),
    ([np.ones((1, 3)), np.ones((4, 1))],
     (('sin', (0,), ()), ('multiply', (-1, 1), ()), ('divide', (-2, 1), ()))),
])
def test_fused_elementwise_equals_op_by_op_for_mixed_inputs(xs, expr):
    got = fused.fused_elementwise_op.kernel(list(xs), expr)
    want = _unfused(xs, expr)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_fused_matmul_falls_back_when_the_bias_changes_dtype_or_shape():
    x, w = np.ones((2, 3), 'float32'), np.ones((3, 4), 'float32')
    for bias in (np.ones(4), np.ones((5, 2, 4), 'float32'), np.ones(4, 'float32')):
        got = fused.fused_matmul_bias_act_op.kernel(x, w, bias, False, False, 'tanh', ())
        want = np.tanh(np.matmul(x, w) + bias)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


# ---- conv + batch norm (inference) + residual add + activation ---------------------

def _conv_program(bn_training=False, fetch_conv=False, act=F.relu, residual='same',
                  read_stat=False, dtype='float32'):
    """x -> conv -> batch_norm -> add -> act, with the variations the pass
    must hold back on."""
    rng = np.random.default_rng(40)
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [None, 3, 6, 6], dtype)
        w = paddle.to_tensor(rng.standard_normal((3, 3, 3, 3)).astype(dtype))
        stats = [paddle.to_tensor(v.astype(dtype)) for v in (
            rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3),
            rng.uniform(0.5, 2, 3))]
        c = F.conv2d(x, w, padding=1)
        b = F.batch_norm(c, stats[2], stats[3], stats[0], stats[1], training=bn_training)
        other = {'same': x, 'broadcast': x[:, :1]}[residual]
        out = act(b + other)
        fetch = [out] + ([c] if fetch_conv else [])
        if read_stat:
            bn_op = [op for op in main.global_block().ops if op.type == 'batch_norm'][0]
            saved = main.global_block().var(bn_op.output('saved_mean')[0])
            fetch.append(paddle.sum(saved))
    feed = {'x': rng.standard_normal((2, 3, 6, 6)).astype(dtype)}
    return main, feed, fetch


def _fused_convs(main, feed, fetch):
    on, plan = plan_ops(main, feed, fetch, 'fuse_bn_add_act_ops')
    return [op for op in on if op.type == 'fused_conv'], on, plan


def test_conv_bn_residual_relu_becomes_one_fused_conv():
    main, feed, fetch = _conv_program()
    fc, on, plan = _fused_convs(main, feed, fetch)
    assert len(fc) == 1 and [t for t in types(on) if t != 'assign_value'] == ['fused_conv']
    op = fc[0]
    assert op.attrs['act'] == 'relu' and op.input('residual') == ['x']
    assert op.input('bn_mean') and op.input('bn_var') and op.input('bn_scale')
    assert re.search(r"= k_fused_conv\w*\(.*'relu', \(\)\)", plan.source)
    for backend in BACKENDS:
        with on_backend(backend):
            want = run(main, feed, fetch)[0]
            got = run(main, feed, fetch, 'fuse_bn_add_act_ops')[0]
        np.testing.assert_array_equal(got, want)


def _same_with_conv_fusion(main, feed, fetch):
    """The program gives the same results with the conv fusion, on each backend."""
    for backend in BACKENDS:
        with on_backend(backend):
            want = run(main, feed, fetch)
            got = run(main, feed, fetch, 'fuse_bn_add_act_ops')
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('variant,kept', [
    # batch statistics update the running ones: the batch norm stays
    (dict(bn_training=True), {'batch_norm'}),
    # the conv's output is fetched: it must still be computed
    (dict(fetch_conv=True), {'conv'}),
    # the batch norm's saved mean is read: the batch norm stays
    (dict(read_stat=True), {'batch_norm'}),
    # a broadcast operand is not a residual; the add stays, so does the act after it
    (dict(residual='broadcast'), {'add', 'relu'}),
    # a reduction is no activation
    (dict(act=lambda v: paddle.cumsum(v, axis=1)), {'cumsum'}),
])
def test_conv_fusion_holds_back(variant, kept):
    main, feed, fetch = _conv_program(**variant)
    fc, on, _ = _fused_convs(main, feed, fetch)
    assert kept <= set(types(on)), types(on)
    _same_with_conv_fusion(main, feed, fetch)


@pytest.mark.parametrize('act,attrs', [(lambda v: F.leaky_relu(v, 0.1), [0.1]),
                                        (F.relu6, [6.0]), (lambda v: F.hardtanh(v, -1, 2), None)])
def test_conv_fusion_absorbs_an_activation_with_its_attributes(act, attrs):
    main, feed, fetch = _conv_program(act=act)
    _, on, plan = _fused_convs(main, feed, fetch)
    (fused,) = [op for op in on if op.type == 'fused_conv']
    assert fused.attrs['act'] in ('leaky_relu', 'relu6', 'hardtanh')
    assert list(fused.attrs['act_attrs']) == (attrs or [-1.0, 2.0])
    _same_with_conv_fusion(main, feed, fetch)


@pytest.mark.parametrize('bias,bn,residual,act,act_attrs', [
    (False, True, True, 'relu', ()), (True, True, False, '', ()),
    (True, False, False, 'silu', ()), (False, False, True, 'hardswish', ()),
    (False, True, False, 'sigmoid', ()), (False, True, False, 'relu6', (6.0,)),
    (True, False, True, 'leaky_relu', (0.2,)), (False, True, False, 'hardtanh', (-1.0, 0.5))])
def test_fused_conv_on_onednn_is_one_convolution_with_the_unfused_results(bias, bn, residual,
                                                                          act, act_attrs):
    # the batch norm, residual add and activation as post-ops give the unfused
    # ops' float32 results bit for bit (the same operations in the same order)
    if not onednn.available():
        pytest.skip(onednn.why_unavailable())
    from framework.ops.conv import fused_conv
    rng = np.random.default_rng(41)
    x = rng.standard_normal((2, 16, 8, 8)).astype(np.float32)
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32) if bias else None
    stats = ([rng.standard_normal(16).astype(np.float32) for _ in range(3)]
             + [rng.uniform(0.5, 2, 16).astype(np.float32)]) if bn else [None] * 4
    res = rng.standard_normal((2, 16, 8, 8)).astype(np.float32) if residual else None
    geom = ([1, 1], [1, 1, 1, 1], [1, 1], 1, 'NCHW')
    args = (x, w, b, *stats, res, *geom, 1e-5, act, act_attrs)
    rt = onednn.runtime()
    fell_back = []
    real_unfused = fused_conv._unfused
    fused_conv._unfused = lambda *a: fell_back.append(a) or real_unfused(*a)
    try:
        got = fused_conv.fused_conv_op.kernels['onednn'](*args)
    finally:
        fused_conv._unfused = real_unfused
    assert not fell_back           # the fused convolution ran, with its post-ops
    plan = list(rt._thread().plans.values())[-1]
    assert [n.split(' [')[0] for n in plan.note].count('convolution forward') == 1
    assert all(n.startswith(('reorder', 'convolution forward')) for n in plan.note)
    want = registry.lookup('conv').kernel_for('onednn')(x, w, b, *geom)
    if bn:
        want = registry.lookup('batch_norm').kernel(want, stats[2], stats[3], stats[0],
                                                    stats[1], 0.9, 1e-5, 'NCHW', True)[0]
    if residual:
        want = want + res
    if act:
        want = registry.lookup(act).kernel(want, *act_attrs)
    np.testing.assert_array_equal(got, want)


def test_a_fused_1x1_conv_runs_unfused_on_onednn(monkeypatch):
    # oneDNN's 1x1 convolution on plain layouts is a GEMM, whose post-ops are slow
    if not onednn.available():
        pytest.skip(onednn.why_unavailable())
    from framework.ops.conv import fused_conv
    rng = np.random.default_rng(42)
    x = rng.standard_normal((2, 16, 6, 6)).astype(np.float32)
    w = rng.standard_normal((16, 16, 1, 1)).astype(np.float32)
    stats = [rng.standard_normal(16).astype(np.float32) for _ in range(3)] + \
        [rng.uniform(0.5, 2, 16).astype(np.float32)]
    calls = []
    real = fused_conv._unfused
    monkeypatch.setattr(fused_conv, '_unfused', lambda *a: calls.append(a[0]) or real(*a))
    args = (x, w, None, *stats, None, [1, 1], [0, 0, 0, 0], [1, 1], 1, 'NCHW', 1e-5, 'relu', ())
    got = fused_conv.fused_conv_op.kernels['onednn'](*args)
    assert calls == ['onednn']
    np.testing.assert_allclose(got, fused_conv.fused_conv_op.kernels['numpy'](*args),
                               rtol=1e-4, atol=1e-4)


def test_fused_conv_checks_its_inputs():
    from framework.ops.conv import fused_conv
    op = fused_conv.fused_conv_op
    M = registry.Meta
    x, w = M([2, 3, 6, 6], np.float32), M([4, 3, 3, 3], np.float32)
    c4, c3 = M([4], np.float32), M([3], np.float32)
    geom = ([1, 1], [1, 1, 1, 1], [1, 1], 1, 'NCHW', 1e-5)
    assert op.infer_meta(x, w, None, c4, c4, c4, c4, M([-1, 4, 6, 6], np.float32), *geom,
                         'relu', ()).shape == (2, 4, 6, 6)
    with pytest.raises(registry.OpError, match=r"fused_conv: residual must have the output's "
                       r"shape \[2, 4, 6, 6\], got \[2, 4, 5, 6\]"):
        op.infer_meta(x, w, None, None, None, None, None, M([2, 4, 5, 6], np.float32), *geom,
                      '', ())
    with pytest.raises(registry.OpError, match=r"fused_conv: bn_mean must have shape \[4\]"):
        op.infer_meta(x, w, None, None, None, c3, c4, None, *geom, '', ())
    with pytest.raises(registry.OpError, match='bn_mean and bn_var come together'):
        op.infer_meta(x, w, None, None, None, c4, None, None, *geom, '', ())
    with pytest.raises(registry.OpError, match=r"fused_conv: .*act must be '' or a one-input"):
        op.infer_meta(x, w, None, None, None, None, None, None, *geom, 'matmul', ())
    with pytest.raises(registry.OpError, match=r"act 'leaky_relu' takes 1 attributes"):
        op.infer_meta(x, w, None, None, None, None, None, None, *geom, 'leaky_relu', ())
