"""Each dy2static AST pass on its own: a small function in, the expected source
out (``transformers.PASSES`` is the pipeline; a pass runs on a FunctionScope).
Generated names (``__jst_fn_true_7``) are renumbered in order of appearance,
so the expected text does not depend on how many functions were converted
before."""
import ast
import re
import textwrap

import astunparse
import gast
import pytest

import framework as paddle
from framework.dy2static.transformers import (PASS_NAMES, PASSES, Dy2StaticSyntaxError,
                                              FunctionScope, convert_scope)


def _renumber(src):
    seen = {}

    def sub(m):
        key = m.group(0)
        if key not in seen:
            seen[key] = '%s_%d' % (m.group(1), len(seen) + 1)
        return seen[key]
    return re.sub(r'(__jst_[a-z_]+?)_(\d+)\b', sub, src)


def _normal(src):
    return astunparse.unparse(ast.parse(textwrap.dedent(src))).strip()


def _scope(source):
    return FunctionScope(gast.parse(textwrap.dedent(source)).body[0], 'example.py')


def _source(scope):
    return _renumber(_normal(astunparse.unparse(gast.gast_to_ast(scope.fn))))


def run_pass(name, source, **scope_state):
    scope = _scope(source)
    for key, value in scope_state.items():
        setattr(scope, key, value)
    dict(PASSES)[name](scope)
    return _source(scope)


def test_the_pipeline_is_one_ordered_list():
    assert PASS_NAMES == ('unsupported', 'return', 'break_continue', 'logical', 'calls',
                          'control_flow', 'undefined_names')
    seen = []
    fn = gast.parse("def f(x):\n    return x\n").body[0]
    convert_scope(fn, 'example.py', lambda name, node: seen.append(name))
    assert tuple(seen) == PASS_NAMES


def test_unsupported_leaves_supported_code_alone():
    src = """
    def f(x):
        y = x + 1
        return y
    """
    assert run_pass('unsupported', src) == _normal(src)


@pytest.mark.parametrize('body, what', [
    ('yield x', 'yield'),
    ('for i in x:\n        pass\n    else:\n        pass', "for loop's else"),
    ('while x:\n        pass\n    else:\n        pass', "while loop's else"),
])
def test_unsupported_rejects_with_file_and_line(body, what):
    with pytest.raises(Dy2StaticSyntaxError, match=r"example\.py, line 2: .*%s" % what):
        run_pass('unsupported', "def f(x):\n    %s\n" % body)


def test_return_makes_one_exit():
    assert run_pass('return', """
    def f(x):
        if x > 0:
            return x
        return -x
    """) == _normal("""
    def f(x):
        __jst_ret_flag = False
        __jst_ret_val_set_later = None
        if x > 0:
            __jst_ret_val_set_later = x
            __jst_ret_flag = True
        if not __jst_ret_flag:
            __jst_ret_val_set_later = -x
            __jst_ret_flag = True
        return __jst_ret_val_set_later
    """)


def test_a_try_whose_handlers_do_not_all_return_can_fall_off_its_end():
    converted = run_pass('return', """
    def f(x):
        if x > 0:
            return x
        try:
            return -x
        except ValueError:
            return 0
        except KeyError:
            pass
    """)
    assert '__jst_ret_val_set_later' not in converted and '__jst_ret_val' in converted
    every = run_pass('return', """
    def f(x):
        if x > 0:
            return x
        try:
            return -x
        except ValueError:
            return 0
    """)
    assert '__jst_ret_val_set_later' in every


def test_a_function_that_can_fall_off_its_end_keeps_the_plain_return_value():
    # only here may None on one side of an if be the function's real result
    assert run_pass('return', """
    def f(x):
        if x > 0:
            return x
        y = x
    """) == _normal("""
    def f(x):
        __jst_ret_flag = False
        __jst_ret_val = None
        if x > 0:
            __jst_ret_val = x
            __jst_ret_flag = True
        if not __jst_ret_flag:
            y = x
        return __jst_ret_val
    """)


def test_break_continue_become_flags():
    assert run_pass('break_continue', """
    def f(x):
        for i in x:
            if i > 0:
                break
            x = x + i
        return x
    """) == _normal("""
    def f(x):
        __jst_brk_1 = False
        for i in x:
            if i > 0:
                __jst_brk_1 = True
            if not __jst_brk_1:
                x = x + i
        return x
    """)


def test_logical_operators_become_lazy_helpers():
    assert run_pass('logical', """
    def f(x, y):
        return x and not y or x
    """) == _normal("""
    def f(x, y):
        return _jst.Or(lambda: _jst.And(lambda: x, lambda: _jst.Not(y)), lambda: x)
    """)


def test_calls_go_through_jst_call_and_super_gets_its_explicit_form():
    assert run_pass('calls', """
    def f(self, x):
        print(x.shape)
        assert x > 0, 'neg'
        super().g(len(x))
    """) == _normal("""
    def f(self, x):
        _jst.Call(print)(_jst.Shape(x))
        _jst.Assert(x > 0, 'neg')
        _jst.Call(super(__class__, self).g)(_jst.Call(len)(x))
    """)


def test_control_flow_becomes_generated_functions():
    assert run_pass('control_flow', """
    def f(x):
        if x > 0:
            y = x
        else:
            y = -x
        for i in _jst.Call(range)(3):
            y = y + i
        return y
    """, shadowed={'x', 'y', 'i'}) == _normal("""
    def f(x):
        def __jst_fn_true_1(y):
            y = x
            return (y,)

        def __jst_fn_false_2(y):
            y = -x
            return (y,)
        (y,) = _jst.IfElse(x > 0, __jst_fn_true_1, __jst_fn_false_2, (y,), ('y',))

        def __jst_fn_for_3(__jst_item_4, i, y):
            i = __jst_item_4
            y = y + i
            return (i, y)
        (i, y) = _jst.For(_jst.Iter(range)(3), __jst_fn_for_3, (i, y), ('i', 'y'), -1)
        return y
    """)


def test_control_flow_reports_the_names_it_carries():
    scope = _scope("""
    def f(x):
        if x > 0:
            y = x
        return y
    """)
    dict(PASSES)['control_flow'](scope)
    assert scope.carried == ['y']


def test_undefined_names_binds_carried_names_first():
    assert run_pass('undefined_names', """
    def f(x):
        y = x
        return y
    """, carried=['y', 'x']) == _normal("""
    def f(x):
        y = _jst.Undef('y')
        y = x
        return y
    """)


# ---- call conversion by function object ------------------------------------------

def test_call_replaces_builtins_by_object_not_by_name():
    from framework.dy2static import convert_ops as jst
    assert jst.Call(print) is jst.Print and jst.Call(len) is jst.Len
    assert jst.Call(isinstance) is isinstance and jst.Call(range) is range

    def user_len(x):     # a user function that happens to be called len: converted
        return 0
    user_len.__name__ = 'len'
    assert jst.Call(user_len) is not jst.Len
    p = print
    assert jst.Call(p) is jst.Print     # an alias is the same object


def test_iter_gives_tensor_aware_helpers_only_for_the_builtins():
    from framework.dy2static import convert_ops as jst
    assert jst.Iter(range) is jst.Range and jst.Iter(zip) is jst.Zip
    assert jst.Iter(enumerate) is jst.Enumerate
    assert jst.Iter(sorted) is sorted


def test_variable_methods_are_replaced_by_their_function():
    from framework.dy2static import convert_ops as jst
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.full([1], 3.0)
        assert jst.Call(x.item)() == 3.0
        np_value = jst.Call(x.numpy)()
    assert np_value.tolist() == [3.0]


def test_a_global_named_like_a_builtin_runs_as_itself_in_converted_code():
    calls = []

    def print(*args):         # shadows the builtin for this function only
        calls.append(args)

    @paddle.jit.to_static
    def f(x):
        print('seen')
        return x + 1

    out = f(paddle.to_tensor([1.0]))
    assert out.numpy().tolist() == [2.0] and calls == [('seen',)]


def test_stack_of_a_tensor_array_by_object():
    @paddle.jit.to_static
    def f(x):
        items = []
        for i in range(x.shape[0]):
            items.append(x[i] * 2)
        return paddle.stack(items)

    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert f(x).numpy().tolist() == [[2.0, 4.0], [6.0, 8.0]]
