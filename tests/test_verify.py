"""The IR verifier (graph/verify.py) and the op attribute types it checks
against (ops/attr_types.py): programs the framework builds verify, broken ones
do not, and every registered attribute has a type."""
import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.ops import attr_types, registry
from framework.ops.attr_types import AttrTypeError
from framework.graph import verify


# ---- attribute types --------------------------------------------------------------------

def test_every_registered_attribute_has_a_type():
    """A default of None or () says nothing about the type: such ops declare
    it (``def_op(..., attr_types={'axis': 'int|ints|None'})``)."""
    undeclared = {name: op.undeclared_attrs for name, op in registry.all_ops().items()
                  if op.undeclared_attrs}
    assert not undeclared, ('these op attributes need attr_types declarations: %s'
                            % undeclared)


@pytest.mark.parametrize('op,attr,kinds', [
    ('scale', 'scale', ('float',)), ('matmul', 'transpose_x', ('bool',)),
    ('conv', 'stride', ('ints',)), ('softmax', 'axis', ('int',)),
    ('cross_entropy', 'reduction', ('str',)), ('sum', 'axis', ('int', 'ints', 'None')),
    ('clip', 'min', ('float', 'None')), ('assign_value', 'value', ('value',)),
])
def test_types_derived_from_defaults_or_declared(op, attr, kinds):
    assert registry.lookup(op).attr_types[attr] == kinds


def _kernel(x, axis=None, scale=1.0):
    return x


def test_declaring_attribute_types():
    op = registry.OpDef('t', _kernel, None, ['x'], ['out'], {'axis': None, 'scale': 1.0},
                        attr_types={'axis': 'int|None'}, attr_ranges={'scale': (0, 10)})
    assert op.attr_types == {'axis': ('int', 'None'), 'scale': ('float',)}
    assert op.undeclared_attrs == ()
    op.check_attr('axis', None, {})
    op.check_attr('scale', 3, {})
    with pytest.raises(AttrTypeError, match='expected int or None'):
        op.check_attr('axis', [1], {})
    with pytest.raises(AttrTypeError, match=r'out of the allowed range \[0, 10\]'):
        op.check_attr('scale', 11.0, {})
    assert registry.OpDef('u', _kernel, None, ['x'], ['out'],
                          {'axis': None, 'scale': 1.0}).undeclared_attrs == ('axis',)
    with pytest.raises(ValueError, match="op 'v'.*unknown kind 'integer'"):
        registry.OpDef('v', _kernel, None, ['x'], ['out'], {'axis': None},
                       attr_types={'axis': 'integer'})
    with pytest.raises(ValueError, match="does not have: nope"):
        registry.OpDef('w', _kernel, None, ['x'], ['out'], {'axis': None},
                       attr_types={'nope': 'int'})


def test_attribute_checks():
    check = attr_types.check
    check(('ints',), [1, 2], {})
    check(('floats',), [1, 2.5], {})
    for kinds, value in [(('int',), True), (('int',), 1.5), (('bool',), 1), (('str',), None),
                         (('ints',), [1, 'a']), (('value',), {'a': 1})]:
        with pytest.raises(AttrTypeError):
            check(kinds, value, {})
    with pytest.raises(AttrTypeError, match='int64'):
        check(('int',), 2 ** 63, {})
    with pytest.raises(AttrTypeError, match="expected one of 'a', 'b'"):
        check(('str',), 'c', {}, {'a', 'b'})

    def refs_below_inputs(value, inputs):
        if value >= inputs['xs']:
            raise ValueError('ref %d, only %d inputs' % (value, inputs['xs']))
    check(refs_below_inputs, 1, {'xs': 2})
    with pytest.raises(ValueError, match='only 2 inputs'):
        check(refs_below_inputs, 2, {'xs': 2})


def test_op_specific_attribute_checks():
    getitem = registry.lookup('getitem')
    getitem.check_attr('items', [['slice', None, ['tensor', 0], 1], ['int', 2]], {'indices': 1})
    for bad in ([['tensor', 1]], [['slice', 1, 2]], [['int', 'a']], [['eval', 1]], 'x'):
        with pytest.raises(ValueError):
            getitem.check_attr('items', bad, {'indices': 1})
    pp = registry.lookup('python_print')
    pp.check_attr('texts', [['a', None], [None]], {'xs': 2})
    with pytest.raises(ValueError, match='2 places for tensors but the op prints 1'):
        pp.check_attr('texts', [['a', None], [None]], {'xs': 1})
    with pytest.raises(ValueError, match='expected one of'):
        pp.check_attr('file', '/etc/passwd', {'xs': 0})


# ---- the verifier on programs the framework builds ----------------------------------------


def _training_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 4], 'float32')
        h = static.nn.fc(x, 3)
        h = static.nn.cond(paddle.mean(h) > 0, lambda: h * 2.0, lambda: paddle.tanh(h))
        i = paddle.zeros([1], 'int64')
        _, h = static.nn.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * 0.5), [i, h])
        loss = paddle.mean(h * h)
        paddle.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loss


def test_programs_the_framework_builds_verify(static_mode):
    main, startup, loss = _training_program()
    ops = {op.type for b in main.blocks for op in b.ops}
    assert {'cond', 'while', 'while_grad', 'sgd'} <= ops
    verify.verify_program(main)
    verify.verify_program(startup)
    verify.verify_program(main.clone(for_test=True))


def test_the_verifier_names_the_broken_op(static_mode):
    main, _, _ = _training_program()
    op = next(o for o in main.global_block().ops if o.type == 'matmul')
    op.attrs['transpose_y'] = 'yes'
    with pytest.raises(verify.VerifyError,
                       match=r"op #\d+ 'matmul' in block 0: attribute transpose_y: expected bool"):
        verify.verify_program(main)
    op.attrs['transpose_y'] = False
    op.attrs['op_free'] = ['x']
    with pytest.raises(verify.VerifyError, match="'op_free' is the executor's own"):
        verify.verify_program(main)


def test_programs_with_pair_paddings_bool_fills_and_run_time_tiles_verify(static_mode):
    """Attribute declarations that refused what the framework itself builds:
    ``pad``'s [before, after] pairs, a bool ``full``, ``tile_grad``'s -1
    (repeats known at run time); and a LayerHelper output takes its op's shape."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [2, 3], 'float32')
        x.stop_gradient = False
        reps = static.data('reps', [2], 'int32')
        padded = paddle.nn.functional.pad(x.unsqueeze(0), [1, 2], data_format='NCL')
        flags = paddle.full([2], True, 'bool')
        tiled = paddle.tile(x, reps)
        loss = tiled.sum() + padded.sum() * paddle.cast(flags, 'float32').sum()
        static.gradients([loss], [x])
        helper = paddle.framework.LayerHelper('my_op', input=x)
        out = helper.create_variable_for_type_inference('float32')
        helper.append_op('matmul', {'x': x, 'y': x}, {'out': out}, {'transpose_y': True})
    types = {op.type for op in main.global_block().ops}
    assert {'pad', 'full', 'tile_grad'} <= types
    assert list(out.shape) == [2, 2]
    verify.verify_program(main)
    pad = next(op for op in main.global_block().ops if op.type == 'pad')
    pad.attrs['paddings'] = [[0, 0], [1, -2]]
    with pytest.raises(verify.VerifyError, match='attribute paddings: expected a list of'):
        verify.verify_program(main)


def test_name_scope_and_device_annotations_save_and_load(tmp_path):
    """``op_namescope``/``op_device`` are the IR's own attributes: a model built
    under ``static.name_scope``/``device_guard`` loads (the loader's verifier
    refused them as unknown attributes)."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [2], 'float32')
            with static.name_scope('block'), static.device_guard('cpu'):
                out = x * 2.0 + 1.0
        assert {op.attr('op_device') for op in main.global_block().ops} == {'cpu'}
        exe = static.Executor()
        static.save_inference_model(str(tmp_path / 'm'), [x], [out], exe, program=main)
        prog, feeds, fetches = static.load_inference_model(str(tmp_path / 'm'), exe)
        got = exe.run(prog, feed={feeds[0]: np.array([1, 2], 'float32')}, fetch_list=fetches)
        np.testing.assert_array_equal(got[0], [3, 5])
        op = prog.global_block().ops[0]
        op.attrs['op_device'] = 7
        with pytest.raises(verify.VerifyError, match='attribute op_device: expected str'):
            verify.verify_program(prog)
    finally:
        paddle.disable_static()


def test_a_loaded_program_runs_only_after_it_verifies(tmp_path):
    """The loaders verify: a well-formed model still loads and computes."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [None, 4], 'float32')
            out = paddle.nn.functional.softmax(static.nn.fc(x, 3))
        exe = static.Executor()
        exe.run(startup)
        xv = np.ones((2, 4), np.float32)
        want = exe.run(main, feed={'x': xv}, fetch_list=[out])[0]
        static.save_inference_model(str(tmp_path / 'm'), [x], [out], exe, program=main)
        prog, feeds, fetches = static.load_inference_model(str(tmp_path / 'm'), exe)
        np.testing.assert_allclose(exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)[0],
                                   want)
    finally:
        paddle.disable_static()
